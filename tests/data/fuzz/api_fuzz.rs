//! API fuzzer: random DynTensor calls with hostile arguments; reports panics, inputs changed by
//! out-of-place ops or by in-place ops that returned Err, and malformed outputs.
use rand::prelude::*;
use std::panic::{AssertUnwindSafe, catch_unwind};
use typed_tensor::prelude::*;

const DTYPES: [Dtype; 9] = Dtype::ALL;

struct G {
    r: StdRng,
}

/// `shape` with its first long dimension emptied when it holds over 100,000 elements (or
/// overflows), so that generated tensors stay small.
fn capped(shape: &[usize]) -> Vec<usize> {
    let mut shape = shape.to_vec();
    let big = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d)).is_none_or(|n| n > 100_000);
    if big {
        if let Some(d) = shape.iter_mut().find(|d| **d > 1000) { *d = 0; }
    }
    shape
}

impl G {
    fn p(&mut self, x: f64) -> bool {
        self.r.random_bool(x)
    }
    fn n(&mut self, k: usize) -> usize {
        self.r.random_range(0..k)
    }
    fn dim(&mut self) -> usize {
        *[0, 1, 1, 2, 2, 3, 3, 4, 5, 7].choose(&mut self.r).unwrap()
    }
    fn shape(&mut self) -> Vec<usize> {
        if self.p(0.04) {
            return [vec![0, 1 << 40], vec![1 << 40, 0, 2], vec![3, 0, 1 << 33, 1 << 33]][self.n(3)].clone();
        }
        let nd = *[0, 1, 1, 2, 2, 2, 3, 3, 4].choose(&mut self.r).unwrap();
        (0..nd).map(|_| self.dim()).collect()
    }
    fn val(&mut self) -> f64 {
        match self.n(14) {
            0 => f64::NAN,
            1 => f64::INFINITY,
            2 => f64::NEG_INFINITY,
            3 => -0.0,
            4 => 0.0,
            5 => 1e30,
            6 => -70000.0,
            7 => 300.0,
            _ => (self.r.random_range(-40..40) as f64) * if self.p(0.5) { 0.25 } else { 1.0 },
        }
    }
    fn axis(&mut self) -> i64 {
        if self.p(0.05) {
            *[i64::MIN, i64::MAX, -100, 100].choose(&mut self.r).unwrap()
        } else {
            self.r.random_range(-5..5)
        }
    }
    fn axes(&mut self) -> Vec<i64> {
        let k = self.n(4);
        (0..k).map(|_| self.axis()).collect()
    }
    fn us(&mut self) -> usize {
        match self.n(12) {
            0 => usize::MAX,
            1 => 1 << 40,
            2 => usize::MAX / 2 + 1,
            _ => self.n(6),
        }
    }
    fn i(&mut self) -> i64 {
        match self.n(12) {
            0 => i64::MAX,
            1 => i64::MIN,
            2 => 1 << 40,
            _ => self.r.random_range(-6..7),
        }
    }
    fn scalar(&mut self) -> Scalar {
        match self.n(3) {
            0 => Scalar::Float(self.val()),
            1 => Scalar::Int(self.i()),
            _ => Scalar::Bool(self.p(0.5)),
        }
    }
    fn tensor_of(&mut self, dtype: Dtype, shape: &[usize]) -> DynTensor {
        let shape = &capped(shape)[..];
        let n: usize = shape.iter().product();
        let v: Vec<f64> = (0..n).map(|_| self.val()).collect();
        let t = DynTensor::from_vec(v, shape.to_vec(), DeviceIndex::cpu()).unwrap();
        t.to_dtype(dtype).unwrap()
    }
    fn index_tensor(&mut self, shape: &[usize], hi: i64) -> DynTensor {
        let shape = &capped(shape)[..];
        let n: usize = shape.iter().product();
        let v: Vec<i64> = (0..n)
            .map(|_| {
                if self.p(0.03) {
                    self.i()
                } else {
                    self.r.random_range(-1..hi.clamp(1, 1000) + 1)
                }
            })
            .collect();
        DynTensor::from_vec(v, shape.to_vec(), DeviceIndex::cpu()).unwrap()
    }
    fn view(&mut self, t: DynTensor) -> DynTensor {
        match self.n(6) {
            0 if t.ndim() >= 2 => t.transpose(0, -1).unwrap(),
            1 if t.ndim() >= 1 => t.flip(&[0]).unwrap_or(t),
            2 => {
                let mut s = t.shape().dims().to_vec();
                s.insert(0, 2);
                t.broadcast_to(s).unwrap()
            }
            3 if t.ndim() >= 1 => t
                .slice(&[typed_tensor::tensor::Slice {
                    start: None,
                    stop: None,
                    step: 2,
                }])
                .unwrap_or(t),
            _ => t,
        }
    }
    fn tensor(&mut self) -> DynTensor {
        let d = DTYPES[self.n(9)];
        let s = self.shape();
        let t = self.tensor_of(d, &s);
        self.view(t)
    }
    fn float_tensor(&mut self) -> DynTensor {
        let d = DTYPES[self.n(4)];
        let s = self.shape();
        let t = self.tensor_of(d, &s);
        self.view(t)
    }
    fn like(&mut self, a: &DynTensor) -> DynTensor {
        // same dtype, shape either equal, broadcastable, or random
        let s = match self.n(4) {
            0 => a.shape().dims().to_vec(),
            1 => {
                let mut s = a.shape().dims().to_vec();
                if !s.is_empty() {
                    let k = self.n(s.len());
                    s[k] = 1;
                }
                s
            }
            2 => {
                let s = a.shape().dims();
                s[s.len().saturating_sub(self.n(3))..].to_vec()
            }
            _ => self.shape(),
        };
        let d = if self.p(0.9) { a.dtype() } else { DTYPES[self.n(9)] };
        let t = self.tensor_of(d, &s);
        self.view(t)
    }
}

fn snap(t: &DynTensor) -> (Vec<usize>, Vec<u64>) {
    if t.numel() == 0 { return (t.shape().dims().to_vec(), vec![]); }
    let v: Vec<f64> = t.to_dtype(Dtype::Float64).unwrap().to_vec::<f64>().unwrap();
    (
        t.shape().dims().to_vec(),
        v.iter()
            .map(|x| if x.is_nan() { 1 } else { x.to_bits() })
            .collect(),
    )
}

fn check_out(o: &DynTensor) -> std::result::Result<(), String> {
    let n: usize = if o.shape().dims().contains(&0) { 0 } else { o.shape().dims().iter().product() };
    if n != o.numel() {
        return Err(format!("numel {} vs shape {:?}", o.numel(), o.shape()));
    }
    if o.stride().len() != o.ndim() {
        return Err("strides rank".into());
    }
    let tr = std::env::var("TRACE").is_ok();
    if tr { eprintln!("   contiguous"); }
    let c = o.contiguous().map_err(|e| format!("contiguous: {e}"))?;
    if tr { eprintln!("   to_dtype {:?} {:?}", c.shape(), c.stride()); }
    let v = c
        .to_dtype(Dtype::Float64)
        .map_err(|e| format!("to f64: {e}"))?
        .to_vec::<f64>()
        .map_err(|e| format!("to_vec: {e}"))?;
    if v.len() != n {
        return Err("to_vec len".into());
    }
    if tr { eprintln!("   display"); }
    let _ = o.display(4);
    if tr { eprintln!("   done"); }
    Ok(())
}

type Outs = typed_tensor::Result<Vec<DynTensor>>;

fn one(r: typed_tensor::Result<DynTensor>) -> Outs {
    r.map(|t| vec![t])
}

/// Runs op `k`; returns (name, inputs, in-place?, result)
fn run(g: &mut G, k: usize) -> (String, Vec<DynTensor>, bool, Box<dyn FnOnce(&mut Vec<DynTensor>) -> Outs>) {
    let a = g.tensor();
    macro_rules! op {
        ($name:expr, [$($x:expr),*], $ip:expr, |$v:ident| $body:expr) => {{
            let ins = vec![$($x),*];
            (format!("{}", $name), ins, $ip, Box::new(move |$v: &mut Vec<DynTensor>| $body))
        }};
    }
    match k {
        0 => {
            let b = g.like(&a);
            let f = g.n(14);
            op!(format!("binary{f}"), [a, b], false, |v| one(match f {
                0 => v[0].add(&v[1]),
                1 => v[0].sub(&v[1]),
                2 => v[0].mul(&v[1]),
                3 => v[0].div(&v[1]),
                4 => v[0].floor_divide(&v[1]),
                5 => v[0].remainder(&v[1]),
                6 => v[0].maximum(&v[1]),
                7 => v[0].minimum(&v[1]),
                8 => v[0].eq(&v[1]),
                9 => v[0].lt(&v[1]),
                10 => v[0].add_promoted(&v[1]),
                11 => v[0].div_promoted(&v[1]),
                12 => v[0].remainder_promoted(&v[1]),
                _ => v[0].matmul(&v[1]),
            }))
        }
        1 => {
            let b = g.like(&a);
            let f = g.n(8);
            op!(format!("binary_{f}"), [a, b], true, |v| {
                let (x, y) = v.split_at_mut(1);
                let r = match f {
                    0 => x[0].add_(&y[0]),
                    1 => x[0].sub_(&y[0]),
                    2 => x[0].mul_(&y[0]),
                    3 => x[0].div_(&y[0]),
                    4 => x[0].floor_divide_(&y[0]),
                    5 => x[0].remainder_(&y[0]),
                    6 => x[0].maximum_(&y[0]),
                    _ => x[0].minimum_(&y[0]),
                };
                r.map(|_| vec![])
            })
        }
        2 => {
            let s = g.scalar();
            let f = g.n(12);
            op!(format!("scalar{f}({s:?})"), [a], f >= 8, |v| match f {
                0 => one(v[0].add_scalar(s)),
                1 => one(v[0].rsub_scalar(s)),
                2 => one(v[0].div_scalar(s)),
                3 => one(v[0].rdiv_scalar(s)),
                4 => one(v[0].floor_divide_scalar(s)),
                5 => one(v[0].rremainder_scalar(s)),
                6 => one(v[0].pow(s)),
                7 => one(v[0].clip(s, Scalar::Float(3.0))),
                8 => v[0].div_scalar_(s).map(|_| vec![]),
                9 => v[0].remainder_scalar_(s).map(|_| vec![]),
                10 => v[0].pow_(s).map(|_| vec![]),
                _ => v[0].fill_(s).map(|_| vec![]),
            })
        }
        3 => {
            let f = g.n(17);
            op!(format!("unary{f}"), [a], (12..16).contains(&f), |v| match f {
                0 => one(v[0].sin()),
                1 => one(v[0].acosh()),
                2 => one(v[0].sqrt()),
                3 => one(v[0].neg()),
                4 => one(v[0].abs()),
                5 => one(v[0].sign()),
                6 => one(v[0].round()),
                7 => one(v[0].square()),
                8 => one(v[0].erf()),
                9 => one(v[0].relu()),
                10 => one(v[0].is_nan()),
                11 => one(v[0].reciprocal()),
                12 => v[0].exp_().map(|_| vec![]),
                13 => v[0].neg_().map(|_| vec![]),
                14 => v[0].square_().map(|_| vec![]),
                15 => v[0].abs_().map(|_| vec![]),
                _ => one(v[0].gelu()),
            })
        }
        4 => {
            let axes = g.axes();
            let kd = g.p(0.5);
            let f = g.n(20);
            let c = g.us();
            op!(format!("reduce{f}({axes:?},{kd},{c})"), [a], false, |v| one(match f {
                0 => reduce_sum(&v[0], &axes, kd),
                1 => reduce_product(&v[0], &axes, kd),
                2 => reduce_min(&v[0], &axes, kd),
                3 => reduce_max(&v[0], &axes, kd),
                4 => reduce_mean(&v[0], &axes, kd),
                5 => reduce_var(&v[0], &axes, kd),
                6 => reduce_argmax(&v[0], &axes, kd),
                7 => reduce_any(&v[0], &axes, kd),
                8 => reduce_nanmean(&v[0], &axes, kd),
                9 => reduce_nanargmin(&v[0], &axes, kd),
                10 => v[0].var(&axes, c, kd),
                11 => v[0].std(&axes, c, kd),
                12 => v[0].norm([0.0, 1.0, 2.0, f64::INFINITY, -1.0, f64::NAN, 0.5][c % 7], &axes, kd),
                13 => v[0].logsumexp(&axes, kd),
                14 => v[0].count_nonzero(&axes, kd),
                15 => v[0].cumsum(axes.first().copied().unwrap_or(0)),
                16 => v[0].cumprod(axes.first().copied().unwrap_or(-1)),
                17 => v[0].quantile([0.5, 0.0, 1.0, -0.1, f64::NAN, 2.0][c % 6], axes.first().copied().unwrap_or(0), kd),
                18 => v[0].median(axes.first().copied().unwrap_or(0), kd).map(|(x, _)| x),
                _ => reduce_nanmax(&v[0], &axes, kd),
            }))
        }
        5 => {
            let f = g.n(24);
            let ax = g.axis();
            let ax2 = g.axis();
            let u = g.us();
            let i = g.i();
            let axes = g.axes();
            let sh = g.shape();
            op!(format!("view{f}({ax},{ax2},{u},{i},{axes:?},{sh:?})"), [a], false, |v| one(match f {
                0 => v[0].transpose(ax, ax2),
                1 => v[0].permute(&axes),
                2 => v[0].unsqueeze(ax),
                3 => v[0].narrow(ax, u, g_u(u)),
                4 => v[0].reshape(sh.clone()),
                5 => v[0].reshape(axes.clone()),
                6 => v[0].flip(&axes),
                7 => v[0].broadcast_to(sh.clone()),
                8 => v[0].squeeze_dims(&axes),
                9 => v[0].diagonal_axes(i, ax, ax2),
                10 => v[0].roll(i, ax),
                11 => v[0].tile(&sh),
                12 => v[0].repeat(&sh),
                13 => v[0].repeat_interleave(u, ax),
                14 => v[0].tril(i),
                15 => v[0].diag(i),
                16 => v[0].diag_embed(),
                17 => v[0].pad(&sh.iter().map(|&d| (d, u % 3)).collect::<Vec<_>>(), Scalar::Float(1.5)),
                18 => v[0].rot90(i, (ax, ax2)),
                19 => v[0].movedim(&axes, &axes.iter().rev().copied().collect::<Vec<_>>()),
                20 => v[0].slice(&[typed_tensor::tensor::Slice { start: Some(i), stop: Some(ax), step: ax2 }]),
                21 => v[0].diff(u, ax),
                22 => v[0].expand_dims(ax),
                _ => v[0].split(&sh, ax).map(|x| x.into_iter().next().unwrap_or(v[0].clone())),
            }))
        }
        6 => {
            let f = g.n(12);
            let ax = g.axis();
            let n = a.shape().dims().get(ax.rem_euclid(a.ndim().max(1) as i64) as usize).copied().unwrap_or(3) as i64;
            let ish = if g.p(0.5) { a.shape().dims().to_vec() } else { g.shape() };
            let idx = g.index_tensor(&ish, n);
            let src = g.like(&a);
            let u = g.us();
            op!(format!("index{f}({ax},{u})"), [a, idx, src], false, |v| match f {
                0 => one(v[0].index_select(ax, &v[1])),
                1 => one(v[0].gather(ax, &v[1])),
                2 => one(v[0].take(ax, &v[1])),
                3 => one(v[0].scatter_add(ax, &v[1], &v[2])),
                4 => v[0].sort(ax, u % 2 == 0).map(|(a, b)| vec![a, b]),
                5 => v[0].topk(u, ax).map(|(a, b)| vec![a, b]),
                6 => one(v[0].argsort(ax, true)),
                7 => one(v[1].bincount(u % 5)),
                8 => one(v[0].masked_fill(&v[2].ne(&v[2]).unwrap_or(v[2].clone()), Scalar::Int(7))),
                10 => one(v[0].take_along_axis(&v[1], if u % 3 == 0 { None } else { Some(ax) })),
                11 => one(v[0].put_along_axis(&v[1], &v[2], if u % 3 == 0 { None } else { Some(ax) })),
                _ => v[0].chunk(u, ax),
            })
        }
        7 => {
            let b = g.like(&a);
            let c = g.like(&a);
            let f = g.n(24);
            let ax = g.axis();
            let axes = g.axes();
            let axes2 = g.axes();
            let last = a.shape().dims().iter().rev().take(g.n(3)).rev().copied().collect::<Vec<_>>();
            op!(format!("combine{f}({ax},{axes:?},{axes2:?})"), [a, b, c], false, |v| match f {
                0 => one(DynTensor::concat(&[&v[0], &v[1], &v[2]], ax)),
                1 => one(DynTensor::stack(&[&v[0], &v[1]], ax)),
                2 => one(DynTensor::vstack(&[&v[0], &v[1]])),
                3 => one(DynTensor::hstack(&[&v[0], &v[1]])),
                4 => one(DynTensor::dstack(&[&v[0], &v[1]])),
                5 => one(DynTensor::block_diag(&[&v[0], &v[1]])),
                6 => one(DynTensor::cartesian_prod(&[&v[0], &v[1]])),
                7 => one(v[0].tensordot(&v[1], &axes, &axes2)),
                8 => one(v[0].dot(&v[1])),
                9 => one(v[0].outer(&v[1])),
                10 => one(v[0].kron(&v[1])),
                11 => one(v[0].cross(&v[1], ax)),
                12 => one(DynTensor::where_(&v[2].ne(&v[2]).unwrap_or(v[2].clone()), &v[0], &v[1])),
                13 => one(v[0].searchsorted(&v[1], ax % 2 == 0)),
                14 => one(v[0].isin(&v[1])),
                15 => one(v[0].lerp(&v[1], 0.25)),
                16 => one(v[0].logical_xor(&v[1])),
                17 => one(v[0].isclose(&v[1], 1e-3, 1e-3)),
                18 => one(typed_tensor::dynamic::nn::linear(&v[0], &v[1], Some(&v[2]))),
                19 => one(typed_tensor::dynamic::nn::mse_loss(&v[0], &v[1], typed_tensor::nn::Reduction::Sum)),
                20 => one(v[0].softmax(ax)),
                21 => one(typed_tensor::dynamic::nn::layer_norm(&v[0], &last, Some(&v[1]), Some(&v[2]), 1e-5)),
                22 => one(typed_tensor::dynamic::nn::conv2d(&v[0], &v[1], Some(&v[2]), Default::default())),
                _ => one(v[0].average(&axes, Some(&v[1]), false)),
            })
        }
        8 => {
            let f = g.n(12);
            let m = if g.p(0.7) {
                let n = g.dim();
                let mut s = vec![n, n];
                if g.p(0.3) {
                    s.insert(0, g.dim());
                }
                let d = DTYPES[g.n(9)];
                let t = g.tensor_of(d, &s);
                g.view(t)
            } else {
                a
            };
            let b = g.like(&m);
            op!(format!("linalg{f}"), [m, b], false, |v| match f {
                0 => one(v[0].det()),
                1 => v[0].slogdet().map(|(a, b)| vec![a, b]),
                2 => one(v[0].cholesky(true)),
                3 => one(v[0].inverse()),
                4 => one(v[0].solve(&v[1])),
                5 => v[0].svd().map(|(a, b, c)| vec![a, b, c]),
                6 => one(v[0].pinv()),
                7 => v[0].eigh().map(|(a, b)| vec![a, b]),
                8 => one(v[0].trace()),
                9 => one(v[0].cov(1)),
                10 => one(v[0].corrcoef()),
                _ => one(DynTensor::einsum("ij,jk->ik", &[&v[0], &v[1]])),
            })
        }
        10 => {
            use typed_tensor::nn;
            let f = g.n(43);
            let nd = [2usize, 3, 4, 4, 4, 5][g.n(6)];
            let xs: Vec<usize> = (0..nd).map(|_| g.dim()).collect();
            let x = g.tensor_of(Dtype::Float32, &xs);
            let x = g.view(x);
            let ws: Vec<usize> = if g.p(0.6) && nd >= 3 {
                let mut w = vec![g.dim(), xs[1], g.dim().min(3), g.dim().min(3)];
                w.truncate(nd);
                w
            } else {
                g.shape()
            };
            let w = g.tensor_of(Dtype::Float32, &ws);
            let w = g.view(w);
            let bs = if g.p(0.5) { vec![ws.first().copied().unwrap_or(1)] } else { g.shape() };
            let b = g.tensor_of(Dtype::Float32, &bs);
            let n = xs.get(1).copied().unwrap_or(2) as i64;
            let tsh: Vec<usize> = if g.p(0.6) { vec![xs[0]] } else { g.shape() };
            let tgt = g.index_tensor(&tsh, n);
            let k = (g.n(4), g.n(4));
            let st = (g.n(3), g.n(3));
            let pd = (g.us() % 4, g.n(3));
            let groups = g.n(4);
            let u = g.us();
            let ax = g.axis();
            let e = g.val();
            let red = [nn::Reduction::Mean, nn::Reduction::Sum, nn::Reduction::None][g.n(3)];
            let opts = nn::Conv2dOptions { stride: st, padding: pd, dilation: (g.n(3), 1 + g.n(2)), groups };
            op!(format!("nn{f}({k:?},{st:?},{pd:?},{groups},{u},{ax},{e})"), [x, w, b, tgt], false, |v| {
                let tf = |t: &DynTensor| t.clone().downcast::<f32, Cpu>().unwrap();
                let (x, w, b) = (tf(&v[0]), tf(&v[1]), tf(&v[2]));
                let t = v[3].clone().downcast::<i64, Cpu>().unwrap();
                let r = match f {
                    0 => nn::conv2d(&x, &w, Some(&b), opts),
                    1 => nn::conv1d(&x, &w, None, opts),
                    2 => nn::max_pool2d(&x, k, st, pd),
                    3 => nn::avg_pool2d(&x, k, st, pd),
                    4 => nn::adaptive_avg_pool2d(&x, (u % 5, k.0)),
                    5 => nn::layer_norm(&x, &ws, Some(&w), Some(&b), 1e-5),
                    6 => nn::rms_norm(&x, &xs[xs.len().saturating_sub(u % 3)..], None, e),
                    7 => nn::embedding(&t, &w),
                    8 => nn::batch_norm(&x, Some(&b.try_deep_copy().unwrap()), Some(&b.abs()), Some(&w), None, u % 2 == 0, 0.1, 1e-5),
                    9 => nn::group_norm(&x, groups, Some(&b), Some(&b), 1e-5),
                    10 => nn::normalize(&x, e, ax, 1e-12),
                    11 => nn::cosine_similarity(&x, &w, ax, 1e-8),
                    12 => nn::dropout(&x, e, true),
                    13 => nn::nll_loss(&x, &t, red),
                    14 => nn::cross_entropy(&x, &t, red, e),
                    15 => nn::mse_loss(&x, &w, red),
                    16 => nn::smooth_l1_loss(&x, &w, red, e),
                    17 => nn::huber_loss(&x, &w, red, e),
                    18 => nn::kl_div(&x, &w, red, u % 2 == 0),
                    19 => nn::binary_cross_entropy_with_logits(&x, &w, red),
                    20 => nn::linear(&x, &w, Some(&b)),
                    21 => x.try_softmax(ax),
                    22 => x.try_glu(ax),
                    23 => nn::conv_transpose2d(&x, &w, Some(&b), opts, (u % 3, g_u(u) % 2)),
                    25 => nn::binary_cross_entropy(&x.sigmoid(), &w, red),
                    26 => nn::gaussian_nll_loss(&x, &w, &b, u % 2 == 0, 1e-6, red),
                    27 => nn::multi_margin_loss(&x, &t, 1 + (u % 2) as u32, e, red),
                    28 => nn::cosine_embedding_loss(&x, &w, &b, e, red),
                    29 => nn::triplet_margin_loss(&x, &w, &b, e, [1.0, 2.0, f64::INFINITY][u % 3], 1e-6, u % 2 == 0, red),
                    24 => {
                        let a = u % 4 == 1;
                        let modes = [nn::Interpolation::Nearest, nn::Interpolation::Bilinear { align_corners: a }, nn::Interpolation::NearestExact, nn::Interpolation::Bicubic { align_corners: a }, nn::Interpolation::Area, nn::Interpolation::Linear { align_corners: a }, nn::Interpolation::Trilinear { align_corners: a }];
                        let mode = modes[(u / 2) % modes.len()];
                        match x.ndim() {
                            3 => nn::interpolate1d(&x, u % 9, mode),
                            5 => nn::interpolate3d(&x, (u % 5, k.0, k.1 * 3), mode),
                            _ if u % 7 == 3 => nn::adaptive_avg_pool3d(&x, (u % 3, k.0, k.1)),
                            _ => nn::interpolate(&x, (u % 9, k.1 * 3), mode),
                        }
                    }
                    31 => {
                        let o = nn::Conv3dOptions { stride: (st.0, st.1, 1 + u % 2), padding: (pd.0, pd.1, u % 3), dilation: (1 + g_u(u) % 2, 1, 1), groups };
                        nn::conv_transpose3d(&x, &w, Some(&b), o, (u % 2, 0, g_u(u) % 2))
                    }
                    32 => nn::max_pool3d_with_indices(&x, (k.0, k.1, 1 + u % 3), (st.0, st.1, 1 + u % 2), (pd.0, pd.1, u % 2)).map(|p| p.0),
                    33 => nn::max_pool3d_with_indices(&x, (1 + k.0 % 2, 1, 2), (1 + k.0 % 2, 1, 2), (0, 0, 0))
                        .and_then(|(y, at)| nn::max_unpool3d(&y, &at, (u % 7, k.0, k.1 * 2))),
                    34 => nn::adaptive_max_pool3d(&x, (u % 4, k.0, k.1 + 1)),
                    35 => nn::lp_pool3d(&x, [1.0, 2.0, 3.0][u % 3], (k.0, k.1, 1 + u % 2), (st.0, st.1, 1)),
                    36..=38 => {
                        // The class losses with PyTorch's options: a weight of any shape, any
                        // ignore_index (often one the targets hold), any smoothing.
                        let ignore = [None, Some(-100), Some(g_u(u) as i64 % 4 - 1)][u % 3];
                        let weight = (u % 2 == 0).then_some(&b);
                        let o = nn::ClassLossOptions { weight, ignore_index: ignore, reduction: red, label_smoothing: e };
                        match f {
                            36 => nn::cross_entropy_with(&x, &t, o),
                            37 => nn::nll_loss_with(&x, &t, nn::ClassLossOptions { label_smoothing: 0.0, ..o }),
                            _ => nn::cross_entropy_probs(&x, &w.try_softmax(1.min(w.ndim() as i64 - 1)).unwrap_or(w.clone()), o),
                        }
                    }
                    40 => {
                        // Renormalises rows of a deep copy (the fuzzer checks its inputs stay unchanged).
                        let w2 = w.try_deep_copy().unwrap();
                        let o = nn::EmbeddingOptions { padding_idx: (u % 2 == 0).then_some(g_u(u) as i64 % 7 - 3), max_norm: (u % 3 == 0).then_some(e), norm_type: [1.0, 2.0, f64::INFINITY, 0.5][u % 4] };
                        match u % 5 {
                            // The layer: hostile sizes and options, or a hostile table, frozen or not.
                            3 => nn::modules::Embedding::with_options(g_u(u) % 9, u % 4, o, &Cpu).and_then(|m| m.forward(&t)),
                            4 => nn::modules::Embedding::from_pretrained(&w2, u % 2 == 0, o).and_then(|m| m.forward(&t)),
                            _ => nn::embedding_with(&t, &w2, o),
                        }
                    }
                    41 | 42 => {
                        // Multi-head attention with x as query, key and value, w as the packed
                        // projection and b as every bias (mostly refused shapes, sometimes not).
                        // Half the time projections that fit x's embedding (random values).
                        let emb = x.dims().last().copied().unwrap_or(0);
                        let fit = |rows: usize, cols: usize| Tensor::<f32>::randn([rows, cols]).unwrap_or_else(|_| w.clone());
                        let (wi, wo) = if u % 2 == 1 && emb < 64 { (fit(3 * emb, emb), fit(emb, emb)) } else { (w.clone(), w.clone()) };
                        let p = nn::MhaParams { in_proj_weight: &wi, in_proj_bias: (u % 2 == 0).then_some(&b), out_proj_weight: &wo, out_proj_bias: (u % 3 == 0).then_some(&b) };
                        let kp = x.try_gt_scalar(0.0).ok().and_then(|m| m.select(-1, 0).ok());
                        let o = nn::MhaOptions { num_heads: if u % 2 == 1 { 1 } else { 1 + u % 3 }, batch_first: f == 42, need_weights: u % 5 != 0, average_attn_weights: u % 7 != 0, dropout_p: e.clamp(0.0, 1.0) };
                        let mask = if u % 4 == 0 { Some(nn::AttnMask::Causal) } else { None };
                        nn::multi_head_attention(&x, &x, &x, p, if u % 6 == 1 { kp.as_ref() } else { None }, mask, o).map(|(y, _)| y)
                    }
                    39 => nn::binary_cross_entropy_with_logits_weighted(&x, &w, (u % 2 == 0).then_some(&b), (u % 3 == 0).then_some(&b), red),
                    _ => x.try_celu(e),
                };
                r.map(|t| vec![DynTensor::from(t)])
            })
        }
        11 => {
            let b = g.like(&a);
            let f = g.n(20);
            let ax = g.axis();
            let u = g.us();
            let i = g.i();
            let axes = g.axes();
            let n = a.shape().dims().get(ax.rem_euclid(a.ndim().max(1) as i64) as usize).copied().unwrap_or(3) as i64;
            let nd = g.dim();
            let idx = g.index_tensor(&[nd], n);
            let mask = g.tensor_of(Dtype::Bool, &b.shape().dims().to_vec());
            op!(format!("new{f}({ax},{u},{i},{axes:?})"), [a, b, idx, mask], false, |v| match f {
                0 => one(v[0].atan2(&v[1])),
                1 => one(v[0].hypot(&v[1])),
                2 => one(v[0].copysign(&v[1])),
                3 => one(v[0].fmod(&v[1])),
                4 => one(v[0].xlogy(&v[1])),
                5 => v[0].var_mean(&axes, u % 3, i % 2 == 0).map(|(a, b)| vec![a, b]),
                6 => v[0].aminmax(&axes, true).map(|(a, b)| vec![a, b]),
                7 => v[0].unbind(ax),
                8 => v[0].tensor_split(u, ax),
                9 => one(v[0].unflatten(ax, &axes)),
                10 => one(v[0].swapaxes(ax, i)),
                11 => one(v[0].bmm(&v[1])),
                12 => one(v[0].mv(&v[1])),
                13 => one(v[0].matrix_power(i)),
                14 => one(v[0].index_add(ax, &v[2], &v[1], Scalar::Float(0.5))),
                15 => one(v[0].masked_select(&v[3])),
                16 => one(v[0].fmod_scalar(Scalar::Int(i))),
                17 => one(v[0].rfmod_scalar(Scalar::Float(2.5))),
                18 => one(v[0].trapezoid(0.5, ax)),
                _ => v[0].std_mean(&axes, 1, false).map(|(a, b)| vec![a, b]),
            })
        }
        12 => {
            use typed_tensor::nn;
            use typed_tensor::ops::matrix::MatrixNorm;
            let b = g.like(&a);
            let c = g.like(&a);
            let f = g.n(41);
            let ax = g.axis();
            let u = g.us();
            let i = g.i();
            let axes = g.axes();
            let e = g.val();
            let n = a.shape().dims().get(ax.rem_euclid(a.ndim().max(1) as i64) as usize).copied().unwrap_or(3) as i64;
            // An index of `a`'s rank, each axis at most `a`'s (sometimes larger), for scatter.
            let ish: Vec<usize> = a.shape().dims().iter().map(|&d| if g.p(0.1) { d + 1 } else { g.n(d.min(6) + 1) }).collect();
            let sidx = g.index_tensor(&ish, n);
            let nd = g.dim();
            let idx = g.index_tensor(&[nd], n);
            let mask = g.tensor_of(Dtype::Bool, &a.shape().dims().to_vec());
            let s1 = g.scalar();
            let ord = [1.0, -1.0, 2.0, -2.0, f64::INFINITY, f64::NEG_INFINITY, 3.0, f64::NAN, -0.5, 0.0][u % 10];
            op!(format!("core{f}({ax},{u},{i},{axes:?},{e},{s1:?})"), [a, b, c, sidx, idx, mask], false, |v| match f {
                0 => v[0].cummax(ax).map(|(a, b)| vec![a, b]),
                1 => v[0].cummin(ax).map(|(a, b)| vec![a, b]),
                2 => one(v[0].logcumsumexp(ax)),
                3 => v[0].kthvalue(u, ax, i % 2 == 0).map(|(a, b)| vec![a, b]),
                4 => v[0].nanmedian(ax, i % 2 == 0).map(|(a, b)| vec![a, b]),
                5 => one(v[0].clamp(Some(s1), if u % 2 == 0 { None } else { Some(Scalar::Float(e)) })),
                6 => one(v[0].fmax(&v[1])),
                7 => one(v[0].fmin(&v[1])),
                8 => one(v[0].heaviside(&v[1])),
                9 => one(v[0].signbit()),
                10 => one(v[0].addcmul(&v[1], &v[2], s1)),
                11 => one(v[0].addcdiv(&v[1], &v[2], s1)),
                12 => one(v[0].frac()),
                13 => one(v[0].sinc()),
                14 => one(v[0].logaddexp2(&v[1])),
                15 => one(v[0].scatter(ax, &v[3], &v[1])),
                16 => one(v[0].scatter_value(ax, &v[3], s1)),
                17 => one(v[0].index_copy(ax, &v[4], &v[1])),
                18 => one(v[0].index_fill(ax, &v[4], s1)),
                19 => one(v[0].masked_scatter(&v[5], &v[1])),
                20 => one(v[0].take_along_dim(&v[3], if u % 3 == 0 { None } else { Some(ax) })),
                21 => one(v[0].select(ax, i)),
                22 => one(v[0].vector_norm(ord, &axes, i % 2 == 0)),
                23 => one(v[0].matrix_norm(if u % 7 == 0 { MatrixNorm::Fro } else if u % 7 == 1 { MatrixNorm::Nuc } else { MatrixNorm::Ord(ord) }, i % 2 == 0)),
                24 => one(v[0].logdet()),
                25 => one(v[0].baddbmm(&v[1], &v[2], s1, Scalar::Float(e))),
                26 => one(v[0].rad2deg()),
                27 => {
                    let x = v[0].to_dtype(Dtype::Float64)?.downcast::<f64, Cpu>()?;
                    let m = x.try_cond()?;
                    let r = x.try_matrix_rank(if u % 2 == 0 { None } else { Some(e) })?;
                    Ok(vec![m.into(), r.into()])
                }
                28 => {
                    let x = v[0].to_dtype(Dtype::Float32)?.downcast::<f32, Cpu>()?;
                    let y = v[1].to_dtype(Dtype::Float32)?.downcast::<f32, Cpu>()?;
                    Ok(vec![nn::cdist(&x, &y, ord)?.into()])
                }
                29 => {
                    let x = v[0].to_dtype(Dtype::Float32)?.downcast::<f32, Cpu>()?;
                    let y = v[1].to_dtype(Dtype::Float32)?.downcast::<f32, Cpu>()?;
                    Ok(vec![nn::pairwise_distance(&x, &y, ord, 1e-6)?.into()])
                }
                30 => {
                    let x = v[0].to_dtype(Dtype::Float32)?.downcast::<f32, Cpu>()?;
                    Ok(vec![nn::instance_norm(&x, None, None, 1e-5)?.into()])
                }
                31 => {
                    let x = v[0].to_dtype(Dtype::Float32)?.downcast::<f32, Cpu>()?;
                    Ok(vec![nn::max_pool1d(&x, u, i.unsigned_abs() as usize % 4, u % 3)?.into()])
                }
                32 => {
                    let x = v[0].to_dtype(Dtype::Float32)?.downcast::<f32, Cpu>()?;
                    Ok(vec![nn::avg_pool1d(&x, u % 5, 1 + u % 3, i.unsigned_abs() as usize % 3)?.into()])
                }
                33 => {
                    let x = v[0].to_dtype(Dtype::Float32)?.downcast::<f32, Cpu>()?;
                    Ok(vec![x.try_softmin(ax)?.into()])
                }
                34 => {
                    let x = v[0].to_dtype(Dtype::Float64)?.downcast::<f64, Cpu>()?;
                    let y = v[1].to_dtype(Dtype::Float64)?.downcast::<f64, Cpu>()?;
                    Ok(vec![Tensor::try_multi_dot(&[&x, &y, &x])?.into()])
                }
                35 => {
                    use typed_tensor::ops::scatter_reduce::ScatterReduce::*;
                    let r = [Sum, Prod, Mean, Amax, Amin][u % 5];
                    one(v[0].scatter_reduce(ax, &v[3], &v[1], r, i % 2 == 0))
                }
                36 => one(v[0].bitwise_and(&v[1])),
                37 => one(v[0].bitwise_left_shift(&v[1])),
                38 => one(v[0].bitwise_not()),
                39 => one(match u % 4 { 0 => v[0].digamma(), 1 => v[0].erfinv(), 2 => v[0].i1(), _ => v[0].lgamma() }),
                _ => one(v[0].deg2rad()),
            })
        }
        13 => {
            // Training helpers: pad modes, attention, recurrent cells, optimizers, clipping and
            // initialisers, with hostile shapes and hyperparameters.
            use typed_tensor::nn::{self, init, AttentionOptions, AttnMask, CellWeights};
            use typed_tensor::ops::pad::PadMode;
            use typed_tensor::optim::*;
            let f = g.n(14);
            let b = g.like(&a);
            let c = g.like(&a);
            let mask = g.tensor_of(Dtype::Bool, &a.shape().dims().to_vec());
            let pads: Vec<(usize, usize)> = (0..a.ndim() + usize::from(g.p(0.1))).map(|_| (g.us(), g.us())).collect();
            let mode = [PadMode::Reflect, PadMode::Symmetric, PadMode::Replicate, PadMode::Circular][g.n(4)];
            let (u, e1, e2, e3) = (g.us(), g.val(), g.val(), g.val());
            let pick = g.n(9);
            let flag = g.p(0.5);
            // Consistent cell shapes half the time: (N, In), (N, H), (G·H, In), (G·H, H).
            let (n, inp, hid, gates) = (g.n(4), g.n(5), g.n(5), [1, 3, 4][g.n(3)]);
            let cell = if flag {
                vec![
                    g.tensor_of(Dtype::Float32, &[n, inp]),
                    g.tensor_of(Dtype::Float32, &[n, hid]),
                    g.tensor_of(Dtype::Float32, &[gates * hid, inp]),
                    g.tensor_of(Dtype::Float32, &[gates * hid, hid]),
                    g.tensor_of(Dtype::Float32, &[gates * hid]),
                ]
            } else {
                (0..5).map(|_| g.float_tensor()).collect()
            };
            let f32s = |t: &DynTensor| -> typed_tensor::Result<Tensor<f32>> { t.to_dtype(Dtype::Float32)?.downcast::<f32, Cpu>() };
            op!(format!("train{f}({pads:?},{mode:?},{u},{e1},{e2},{e3},{pick},{flag})"), [a, b, c, mask], false, |v| match f {
                0 if pick >= 7 => {
                    // Packed sequences from hostile lengths; the spectral norm of any weight.
                    let x = f32s(&v[0])?;
                    let lengths: Vec<usize> = (0..x.dims().get(1).copied().unwrap_or(0).min(64)).map(|k| u.wrapping_add(k * 3) % 6).collect();
                    if pick == 7 {
                        let p = nn::pack_padded_sequence(&x, &lengths, flag, u % 2 == 0)?;
                        if u % 4 == 1 {
                            // A recurrent network over the packed batch, the cells' hostile tensors as weights.
                            let t: Vec<Tensor<f32>> = cell.iter().map(f32s).collect::<typed_tensor::Result<_>>()?;
                            let w = CellWeights { w_ih: &t[2], w_hh: &t[3], b_ih: Some(&t[4]), b_hh: None };
                            let mode = match gates { 1 => nn::RnnMode::Tanh, 3 => nn::RnnMode::Gru, _ => nn::RnnMode::Lstm };
                            let opts = nn::RnnOptions { num_layers: 1, bidirectional: flag, ..Default::default() };
                            let ws = vec![w; 1 + usize::from(flag)];
                            let r = nn::rnn_packed(mode, &p, if pick == 7 && u % 3 == 0 { Some(&t[1]) } else { None }, None, &ws, opts)?;
                            return Ok(vec![r.output.data.into(), r.h_n.into()]);
                        }
                        let (y, _) = nn::pad_packed_sequence(&p, !flag, e1, if u % 3 == 0 { Some(u) } else { None })?;
                        Ok(vec![p.data.into(), y.into()])
                    } else {
                        let ax = pads.len() as i64 - 2;
                        let mut st = nn::spectral_state(&x, ax, e2.abs())?;
                        Ok(vec![nn::spectral_norm(&x, &mut st, u % 4, ax, e2.abs(), flag)?.into()])
                    }
                }
                0 => one(v[0].pad_mode(&pads, mode)),
                1 if pick >= 7 => {
                    // nn::modules with small hostile sizes over a hostile input, and a state
                    // dict of hostile tensors under the layer's own names.
                    use typed_tensor::nn::modules::*;
                    let x = f32s(&v[0])?;
                    let (i, o) = (inp, hid);
                    if u % 13 == 12 {
                        // The loss layers over hostile inputs, targets, weights and options.
                        let t = f32s(&v[1])?;
                        let cls = v[1].to_dtype(Dtype::Int64)?.downcast::<i64, Cpu>()?;
                        let red = [nn::Reduction::Mean, nn::Reduction::Sum, nn::Reduction::None][inp % 3];
                        let w = if flag { Some(f32s(&v[2])?) } else { None };
                        let y = match hid % 8 {
                            0 => CrossEntropyLoss { weight: w, ignore_index: if gates == 1 { None } else { Some(e1 as i64) }, reduction: red, label_smoothing: e2 }.forward(&x, &cls)?,
                            1 => CrossEntropyLoss { weight: w, ignore_index: None, reduction: red, label_smoothing: e2 }.forward_probs(&x, &t)?,
                            2 => NllLoss { weight: w, ignore_index: Some(e1 as i64), reduction: red }.forward(&x, &cls)?,
                            3 => BceWithLogitsLoss { weight: w.clone(), pos_weight: w, reduction: red }.forward(&x, &t)?,
                            4 => SmoothL1Loss { beta: e1, reduction: red }.forward(&x, &t)?,
                            5 => HuberLoss { delta: e1, reduction: red }.forward(&x, &t)?,
                            6 => KlDivLoss { log_target: flag, batchmean: gates == 3, reduction: red }.forward(&x, &t)?,
                            _ => BceLoss { reduction: red }.forward(&x, &t)?,
                        };
                        return Ok(vec![y.into()]);
                    }
                    if u % 17 == 16 {
                        // Cells, Bilinear and EmbeddingBag with hostile sizes over hostile inputs.
                        let y = match hid % 3 {
                            0 => {
                                let mode = [nn::RnnMode::Tanh, nn::RnnMode::Relu, nn::RnnMode::Gru, nn::RnnMode::Lstm][inp % 4];
                                let cell = RnnCell::new(mode, inp, hid.max(gates), flag, &Cpu)?;
                                let h = f32s(&v[1]).ok();
                                let c = if mode == nn::RnnMode::Lstm && flag { f32s(&v[2]).ok() } else { None };
                                cell.step(&x, h.as_ref(), c.as_ref())?.0
                            }
                            1 => Bilinear::new(inp, hid, gates, flag, &Cpu)?.forward(&x, &f32s(&v[1])?)?,
                            _ => {
                                let bag = EmbeddingBag::new(inp, hid, [nn::BagMode::Sum, nn::BagMode::Mean, nn::BagMode::Max][gates % 3], &Cpu)?;
                                let idx = v[1].to_dtype(Dtype::Int64)?.downcast::<i64, Cpu>()?;
                                let off = if flag { Some(v[2].to_dtype(Dtype::Int64)?.downcast::<i64, Cpu>()?) } else { None };
                                bag.forward(&idx, off.as_ref(), None)?
                            }
                        };
                        return Ok(vec![y.into()]);
                    }
                    let k3 = (u % 3, 1, 1 + u % 2);
                    let acts = [Activation::Elu(e1), Activation::Celu(e1), Activation::Softplus { beta: e1, threshold: e2 }, Activation::Hardtanh(e1, e2), Activation::Softshrink(e1), Activation::Hardshrink(e1), Activation::Glu(u as i64 % 5 - 2), Activation::Threshold(e1, e2), Activation::Softmin(u as i64 % 5 - 2), Activation::Selu, Activation::Mish, Activation::LogSigmoid, Activation::Hardswish, Activation::Relu6];
                    let layer: Box<dyn Module<f32, Cpu>> = match u % 13 {
                        6 => Box::new(Conv3d::new(i.max(1), o.max(1), k3, nn::Conv3dOptions { padding: (u % 2, 0, 0), groups: 1 + usize::from(flag), ..Default::default() }, flag, &Cpu)?),
                        7 => Box::new(ConvTranspose1d::new(i.max(1), o.max(1), u % 3, nn::Conv2dOptions { stride: (1, 1 + u % 3), ..Default::default() }, u % 2, flag, &Cpu)?),
                        8 => Box::new(ConvTranspose3d::new(i.max(1), o.max(1), k3, nn::Conv3dOptions { stride: (1 + u % 2, 1, 1), ..Default::default() }, (u % 2, 0, 0), flag, &Cpu)?),
                        9 if flag => Box::new(Pool3d { max: gates == 1, kernel: k3, stride: (1 + u % 2, 1, u % 2), padding: (u % 2, 0, 0) }),
                        9 => Box::new(Pool1d { max: gates == 1, kernel: u % 3, stride: u % 2, padding: u % 2 }),
                        10 => match gates {
                            1 => Box::new(AdaptivePool1d { max: flag, output_size: u % 4 }),
                            3 => Box::new(AdaptivePool2d { max: flag, output_size: (u % 3, 1 + u % 2) }),
                            _ => Box::new(AdaptivePool3d { max: flag, output_size: k3 }),
                        },
                        11 if flag => Box::new(acts[hid % acts.len()]),
                        11 => match hid % 6 {
                            0 => Box::new(InstanceNorm::new(inp, e1.abs(), gates == 1, &Cpu)?),
                            1 => Box::new(Pad { padding: pads.clone(), mode: if gates == 1 { None } else { Some(mode) }, value: e2 }),
                            2 => Box::new(PixelShuffle(u % 4)),
                            3 => Box::new(PixelUnshuffle(u % 4)),
                            4 => Box::new(ChannelShuffle(u % 4)),
                            _ => Box::new(Unflatten { axis: e1 as i64, sizes: vec![inp as i64 - 1, hid as i64] }),
                        },
                        0 => Box::new(Linear::new(i, o, flag, &Cpu)?),
                        1 => Box::new(Conv2d::new(i.max(1), o.max(1), (u % 3, 1 + u % 2), nn::Conv2dOptions { padding: (u % 2, 0), ..Default::default() }, flag, &Cpu)?),
                        2 => Box::new(LayerNorm::new(&x.dims()[x.ndim().saturating_sub(1)..], e1.abs(), flag, &Cpu)?),
                        3 => Box::new(BatchNorm::new(i, &Cpu)?),
                        4 => Box::new(TransformerEncoderLayer::new(hid, EncoderOptions { nhead: 1 + u % 2, dim_feedforward: inp, dropout: e1.abs().min(1.0), batch_first: flag, norm_first: pick == 8, ..Default::default() }, &Cpu)?),
                        _ => Box::new(Sequential::new().push(Flatten::default()).push(Linear::new(i, o, true, &Cpu)?).push(Activation::Gelu)),
                    };
                    if u % 3 == 0 {
                        let state: std::collections::BTreeMap<String, DynTensor> = layer.named_parameters().into_iter().zip(cell.iter().cycle()).map(|((n, _), t)| (n, t.clone())).collect();
                        let _ = layer.load_state_dict(&state);
                        if flag {
                            // Non-strict, with an extra hostile entry.
                            let mut state = state;
                            state.insert("extra".into(), v[1].clone());
                            let _ = layer.load_state_dict_with(&state, false);
                        }
                    }
                    if u % 5 == 2 {
                        // A frozen (or frozen and thawed) layer.
                        layer.requires_grad_(false)?;
                        if gates == 1 { layer.requires_grad_(true)?; }
                    }
                    if u % 4 == 3 {
                        // Module hooks whose replacements are hostile tensors (other shapes,
                        // non-finite values), forward and backward.
                        let m = Hooked::new(layer);
                        let (a, b) = (f32s(&v[1])?, f32s(&v[2])?);
                        match hid % 4 {
                            0 => { m.register_forward_pre_hook(move |_, x| Ok(Some(if flag { a.clone() } else { x.try_mul_scalar(e1 as f32)? }))); }
                            1 => { m.register_forward_hook(move |_, _, y| Ok(Some(if flag { a.clone() } else { y.try_add(&a)? }))); }
                            2 => { m.register_full_backward_pre_hook(move |g| Ok(if flag { Some(a.clone()) } else { Some(g.try_mul_scalar(e2 as f32)?) })); }
                            _ => { m.register_full_backward_hook(move |gi, _| Ok(if flag { Some(b.clone()) } else { gi.cloned() })); }
                        }
                        let h = m.register_full_backward_hook(|_, _| Ok(None));
                        if gates == 1 { h.remove(); }
                        let _ = m.zero_grad();
                        return Ok(vec![m.forward(&x)?.into()]);
                    }
                    Ok(vec![layer.forward(&x)?.into()])
                }
                1 => {
                    let (q, k, val) = (f32s(&v[0])?, f32s(&v[1])?, f32s(&v[2])?);
                    let m = v[3].clone().downcast::<bool, Cpu>()?;
                    let mask = match pick % 4 {
                        0 => None,
                        1 => Some(AttnMask::Bool(&m)),
                        2 => Some(AttnMask::Additive(&k)),
                        _ => Some(AttnMask::Causal),
                    };
                    let opts = AttentionOptions {
                        dropout_p: if pick > 6 { e1 } else { 0.0 },
                        scale: if pick % 2 == 0 { Some(e2) } else { None },
                        enable_gqa: flag,
                    };
                    Ok(vec![nn::scaled_dot_product_attention(&q, &k, &val, mask, opts)?.into()])
                }
                2 if pick > 5 => {
                    // Whole networks: the cells' tensors, a sequence of them when 3-d.
                    let t: Vec<Tensor<f32>> = cell.iter().map(f32s).collect::<typed_tensor::Result<_>>()?;
                    let w = CellWeights { w_ih: &t[2], w_hh: &t[3], b_ih: Some(&t[4]), b_hh: None };
                    let mode = match gates { 1 if flag => nn::RnnMode::Tanh, 1 => nn::RnnMode::Relu, 3 => nn::RnnMode::Gru, _ => nn::RnnMode::Lstm };
                    let opts = nn::RnnOptions { num_layers: 1 + u % 2, bidirectional: flag, batch_first: pick == 7, dropout: if u % 3 == 0 { 0.5 } else { 0.0 }, training: true };
                    let ws = vec![w; opts.num_layers * (1 + usize::from(flag))];
                    let x = if u % 3 == 0 { t[0].unsqueeze(0)? } else { t[0].clone() };
                    let r = nn::rnn(mode, &x, if pick == 8 { Some(&t[1]) } else { None }, None, &ws, opts)?;
                    Ok(vec![r.output.into(), r.h_n.into()])
                }
                2 => {
                    let t: Vec<Tensor<f32>> = cell.iter().map(f32s).collect::<typed_tensor::Result<_>>()?;
                    let w = CellWeights { w_ih: &t[2], w_hh: &t[3], b_ih: Some(&t[4]), b_hh: if flag { None } else { Some(&t[4]) } };
                    Ok(match gates {
                        1 => vec![nn::rnn_tanh_cell(&t[0], &t[1], w)?.into()],
                        3 => vec![nn::gru_cell(&t[0], &t[1], w)?.into()],
                        _ => {
                            let (h, c) = nn::lstm_cell(&t[0], (&t[1], &t[1]), w)?;
                            vec![h.into(), c.into()]
                        }
                    })
                }
                3 | 4 => {
                    let p = f32s(&v[0])?.detach().try_deep_copy()?.with_requires_grad(true)?;
                    let w = f32s(&v[1])?.detach();
                    let loss = p.try_mul(&p)?.try_mul(&w.broadcast_to(p.shape().clone()).unwrap_or_else(|_| p.detach()))?.try_sum(&[], false)?;
                    loss.try_backward()?;
                    if f == 4 {
                        let total = if flag { clip_grad_norm_(&[p.clone()], e1, e2)? } else { clip_grad_value_(&[p.clone()], e1)?; p.detach() };
                        return Ok(vec![total.into(), p.grad_tensor().unwrap().into()]);
                    }
                    let ps = vec![p.clone()];
                    if pick == 6 && u % 3 == 2 {
                        // Loss scaling with hostile options, stages out of order and a hostile state.
                        let mut s = GradScaler::with_options(e1, e2, e3, (u % 5) as u64, flag)?;
                        let _ = s.scale(&w)?;
                        if u % 2 == 0 { s.unscale_(&ps)?; }
                        let mut o = Sgd::new(ps.clone(), e1.abs());
                        let stepped = s.step(&mut o, &ps);
                        if flag { s.update()?; }
                        let _ = (stepped, s.update(), s.update_to(e2));
                        let mut m: std::collections::BTreeMap<String, DynTensor> = s.state_dict().into_iter().collect();
                        if u % 2 == 0 { m.values_mut().for_each(|t| *t = v[1].clone()); } else { m.insert("_growth_tracker".into(), v[1].clone()); }
                        let _ = s.load_state_dict(&m);
                        return Ok(vec![p.detach().into(), p.grad_tensor().unwrap().into()]);
                    }
                    if pick == 5 && u % 3 == 2 {
                        // Optimizers over runtime-dtype parameters of mixed dtypes, a hostile state.
                        let mut q = v[1].to_dtype(if flag { Dtype::Float64 } else { v[1].dtype() })?.detach().deep_copy()?;
                        let _ = q.set_requires_grad(true);
                        let dps = vec![DynTensor::from(p.clone()), q];
                        let mut o = match u % 4 {
                            0 => typed_tensor::dynamic::DynOptimizer::sgd(&dps, e1)?,
                            1 => typed_tensor::dynamic::DynOptimizer::adamw(&dps, e1)?,
                            _ => { let mut r = RmsProp::<f32, Cpu>::new(vec![], e1); r.momentum = e2; r.centered = flag; typed_tensor::dynamic::DynOptimizer::new(&dps, &r)? }
                        };
                        o.step()?;
                        if flag {
                            // Loss scaling over the runtime-dtype parameters, a hostile loss.
                            let mut sc = GradScaler::with_options(e2.abs().clamp(1e-30, 1e30), 2.0, 0.5, 3, u % 4 != 3)?;
                            if let Ok(l) = sc.scale_dyn(&v[2]) { let _ = l.reduce_sum(&[], false).and_then(|l| l.backward()); }
                            if sc.step_dyn(&mut o, &dps).is_ok() { sc.update()?; }
                        }
                        let mut m: std::collections::BTreeMap<String, DynTensor> = o.state_dict()?.into_iter().collect();
                        if u % 2 == 0 { m.values_mut().for_each(|t| *t = v[1].clone()); } else { m.insert(format!("{}.square_avg", u % 3), v[1].clone()); }
                        if o.load_state_dict(&m).is_ok() { o.step()?; }
                        return Ok(vec![p.detach().into()]);
                    }
                    if pick == 7 && u % 3 == 2 {
                        // Parameter groups sharing a parameter, hostile rates and states, and a
                        // post-accumulate hook that steps or fails inside backward.
                        let mut o = typed_tensor::optim::ParamGroups::new(vec![Box::new(Sgd::new(ps.clone(), e1)), Box::new(Adam::new(ps.clone(), e2))])?;
                        if flag { o.add_param_group(Box::new(Adam::adamw(ps.clone(), e3))); }
                        o.set_lr(if u % 2 == 0 { e1 } else { e3 });
                        let _ = o.step();
                        let inner = std::sync::Mutex::new(Sgd::new(ps.clone(), e2));
                        let fail = u % 4 == 1;
                        let h = p.register_post_accumulate_grad_hook(move |q| {
                            if fail { return Err(typed_tensor::Error::InvalidArgument { op: "fuzz hook", msg: "refused".into() }); }
                            inner.lock().unwrap().step()?;
                            q.zero_grad()
                        })?;
                        let _ = p.try_mul(&p)?.try_sum(&[], false)?.try_backward();
                        h.remove();
                        let mut m: std::collections::BTreeMap<String, DynTensor> = o.state_dict()?.into_iter().collect();
                        match u % 4 {
                            0 => m.values_mut().for_each(|t| *t = v[1].clone()),
                            1 => { m.insert("99999999999999999999.step".into(), v[1].clone()); }
                            2 => { m.insert(format!("{}.0.exp_avg", u % 3), v[1].clone()); }
                            _ => { m.insert(".".into(), v[1].clone()); }
                        }
                        if o.load_state_dict(&m).is_ok() { let _ = o.step(); }
                        return Ok(vec![p.detach().into(), DynTensor::from(Tensor::<f64>::from_vec(o.lrs(), [o.num_groups()])?)]);
                    }
                    if pick == 8 && u % 2 == 0 {
                        // L-BFGS with hostile settings and a hostile state.
                        let mut o = typed_tensor::optim::Lbfgs::new(ps);
                        (o.lr, o.tolerance_change, o.history_size, o.line_search, o.max_iter) = (e1, e2, u % 4, flag, u % 7);
                        let wb = w.broadcast_to(p.shape().clone()).unwrap_or_else(|_| p.detach());
                        let closure = || { let l = p.try_mul(&p)?.try_mul(&wb)?.try_sum(&[], false)?; l.try_backward()?; Ok(l) };
                        o.step_with(closure)?;
                        let mut m: std::collections::BTreeMap<String, DynTensor> = o.state_dict()?.into_iter().collect();
                        if flag { m.values_mut().for_each(|t| *t = v[1].clone()); } else { m.insert("n_iter".into(), v[1].clone()); }
                        if o.load_state_dict(&m).is_ok() { o.step_with(closure)?; }
                        return Ok(vec![p.detach().into()]);
                    }
                    let mut opt: Box<dyn Optimizer> = match pick {
                        0 => { let mut o = Sgd::new(ps, e1); o.momentum = e2; o.nesterov = flag; o.dampening = e3; Box::new(o) }
                        1 => { let mut o = Adam::new(ps, e1); o.betas = (e2, 0.999); o.amsgrad = flag; o.eps = e3; Box::new(o) }
                        2 => { let mut o = Adamax::new(ps); o.lr = e1; o.weight_decay = e2; Box::new(o) }
                        3 => { let mut o = NAdam::new(ps); o.momentum_decay = e1; o.decoupled_weight_decay = flag; o.weight_decay = e2; Box::new(o) }
                        4 => { let mut o = RAdam::new(ps); o.betas = (0.9, e1); o.weight_decay = e2; Box::new(o) }
                        5 => { let mut o = RmsProp::new(ps, e1); o.centered = flag; o.momentum = e2; o.alpha = e3; Box::new(o) }
                        6 => { let mut o = Adagrad::new(ps, e1); o.lr_decay = e2; o.initial_accumulator_value = e3; Box::new(o) }
                        7 => { let mut o = Adadelta::new(ps); o.rho = e1; o.eps = e2; o.maximize = flag; Box::new(o) }
                        8 if u % 3 == 1 => { let mut o = Adafactor::new(ps); o.lr = e1; o.beta2_decay = e2; o.d = e3; o.eps = (if flag { Some(e2) } else { None }, e3); Box::new(o) }
                        _ => Box::new(Adam::adamw(ps, e1)),
                    };
                    opt.step()?;
                    if u % 5 == 4 { p.clone().requires_grad_(false)?; } // frozen: skipped
                    opt.step()?;
                    // A hostile state: the buffers or the step replaced by an input.
                    let mut m: std::collections::BTreeMap<String, DynTensor> = opt.state_dict()?.into_iter().collect();
                    if flag { m.values_mut().for_each(|t| *t = v[1].clone()); } else { m.insert("step".into(), v[1].clone()); }
                    if opt.load_state_dict(&m).is_ok() { opt.step()?; }
                    opt.zero_grad()?;
                    Ok(vec![p.detach().into()])
                }
                5 if u % 3 == 0 => {
                    // Sampling: the in-place distributions, and multinomial of hostile weights.
                    let mut t = f32s(&v[0])?.detach().try_deep_copy()?;
                    match pick {
                        0 => t.exponential_(e1)?,
                        1 => t.geometric_(e1)?,
                        2 => t.cauchy_(e1, e2)?,
                        3 => t.log_normal_(e1, e2)?,
                        4 => t.random_(e1 as i64, e2 as i64)?,
                        _ => {
                            let w = v[0].to_dtype(Dtype::Float64)?.downcast::<f64, Cpu>()?;
                            return Ok(vec![w.try_multinomial(if flag && e1 > 1e9 { u } else { g_u(u) % 64 }, flag)?.into()]);
                        }
                    }
                    Ok(vec![t.into()])
                }
                5 => {
                    let mut t = f32s(&v[0])?.detach().try_deep_copy()?;
                    match pick {
                        0 => init::uniform_(&mut t, e1, e2)?,
                        1 => init::normal_(&mut t, e1, e2)?,
                        2 => init::trunc_normal_(&mut t, e1, e2, e3, e3.abs())?,
                        3 => init::xavier_uniform_(&mut t, e1)?,
                        4 => init::kaiming_normal_(&mut t, if flag { init::FanMode::FanIn } else { init::FanMode::FanOut }, init::Nonlinearity::LeakyRelu(e1))?,
                        5 => init::orthogonal_(&mut t, e1)?,
                        6 => init::eye_(&mut t)?,
                        7 => init::kaiming_uniform_(&mut t, init::FanMode::FanIn, init::Nonlinearity::Tanh)?,
                        _ => init::constant_(&mut t, e1)?,
                    }
                    Ok(vec![t.into()])
                }
                6 => {
                    // NumPy routines on f64 and i64 views of the inputs.
                    use typed_tensor::ops::windows::ConvMode;
                    let f64s = |t: &DynTensor| t.to_dtype(Dtype::Float64)?.downcast::<f64, Cpu>();
                    let (x, y, z) = (f64s(&v[0])?, f64s(&v[1])?, f64s(&v[2])?);
                    let xi = v[0].to_dtype(Dtype::Int64)?.downcast::<i64, Cpu>()?;
                    let yi = v[1].to_dtype(Dtype::Int64)?.downcast::<i64, Cpu>()?;
                    let cm = [ConvMode::Full, ConvMode::Same, ConvMode::Valid][u % 3];
                    let ax = e3 as i64;
                    Ok(match pick {
                        0 if u % 3 == 0 => {
                            // as_strided with hostile sizes, strides and offsets; overlap queries; text.
                            let (size, stride) = ([u % 5, g_u(u) % 4], [e1 as isize, e3 as isize]);
                            let a = x.as_strided(&size, &stride, if flag { Some(g_u(u)) } else { None })?;
                            let text = format!("{e1} {e2}\n{e3} {}\n", if flag { "x" } else { "1" });
                            let t: Tensor<f64> = typed_tensor::io::load_txt_from_str(&text, &typed_tensor::io::LoadTxt { ndmin: u % 4, ..Default::default() })?;
                            vec![a.try_add_scalar(f64::from(u8::from(a.try_shares_memory(&x)?)))?.into(), t.into()]
                        }
                        0 => vec![x.try_unfold(ax, u, g_u(u) + usize::from(flag))?.into()],
                        1 => vec![x.try_convolve(&y, cm)?.into(), xi.try_correlate(&yi, cm)?.into()],
                        2 => vec![x.try_round_decimals(e1 as i32)?.into(), x.try_cbrt()?.into(), xi.try_ptp(&[ax], flag)?.into()],
                        3 => vec![x.try_average(&[ax], if flag { Some(&y) } else { None }, flag)?.into()],
                        4 => vec![x.try_interp(&y, &z, if flag { Some(e1) } else { None }, Some(e2))?.into()],
                        5 => vec![y.try_polyval(&x)?.into(), xi.try_polyval(&yi)?.into(), x.try_polyfit(&y, u)?.into()],
                        6 => vec![x.try_union1d(&y)?.into(), x.try_intersect1d(&y)?.into(), xi.try_setdiff1d(&yi)?.into()],
                        7 => vec![Tensor::try_lexsort(&[&x, &y, &z])?.into(), x.try_argpartition(e1 as i64, ax)?.into()],
                        _ => vec![
                            Tensor::<f32>::logspace(e1, e2, u, e3)?.into(),
                            Tensor::<f64>::geomspace(e1, e2, u)?.into(),
                        ],
                    })
                }
                7 => {
                    let x = f32s(&v[0])?;
                    let k = (1 + u % 4, 1 + g_u(u) % 3);
                    let st = (1 + pick % 3, 1 + u % 2);
                    let p = (pick % 2, u % 2);
                    Ok(match pick % 3 {
                        0 => {
                            let (y, i) = nn::max_pool2d_with_indices(&x, k, st, p)?;
                            let h = x.dims().get(2).copied().unwrap_or(0);
                            let w = x.dims().get(3).copied().unwrap_or(0);
                            vec![nn::max_unpool2d(&y, &i, (h, w + usize::from(flag)))?.into(), i.into()]
                        }
                        1 if flag => {
                            let (y, i) = nn::adaptive_max_pool2d_with_indices(&x, (u, pick))?;
                            vec![y.into(), i.into(), nn::adaptive_max_pool1d_with_indices(&x.try_sum(&[2], false)?, u)?.1.into()]
                        }
                        1 => vec![nn::adaptive_max_pool2d(&x, (u, pick))?.into()],
                        _ => {
                            let i = v[1].to_dtype(Dtype::Int64)?.downcast::<i64, Cpu>()?;
                            let y = f32s(&v[2])?;
                            vec![nn::max_unpool2d(&y, &i, (u, pick))?.into()]
                        }
                    })
                }
                8 => {
                    // Raised to five axes (the generator makes at most four).
                    let five = |t: Tensor<f32>| -> typed_tensor::Result<Tensor<f32>> {
                        let mut t = t;
                        while t.ndim() < 5 { t = t.unsqueeze(0)?; }
                        Ok(t)
                    };
                    let x = five(f32s(&v[0])?)?;
                    let w = five(f32s(&v[1])?)?;
                    let k = (1 + u % 3, 1 + pick % 3, 1 + g_u(u) % 2);
                    let st = (1 + pick % 2, 1 + u % 3, 1);
                    let p = (u % 2, pick % 2, 0);
                    Ok(match pick % 3 {
                        0 => {
                            let opts = nn::Conv3dOptions { stride: st, padding: p, dilation: (1 + u % 2, 1, 1), groups: 1 + u % 2 };
                            vec![nn::conv3d(&x, &w, if flag { Some(&x) } else { None }, opts)?.into()]
                        }
                        1 => vec![nn::max_pool3d(&x, k, st, p)?.into()],
                        _ => vec![nn::avg_pool3d(&x, k, st, p)?.into()],
                    })
                }
                9 => {
                    let idx = v[1].to_dtype(Dtype::Int64)?.downcast::<i64, Cpu>()?;
                    let w = f32s(&v[0])?;
                    let offs = v[2].to_dtype(Dtype::Int64)?.downcast::<i64, Cpu>()?;
                    let m = [nn::BagMode::Sum, nn::BagMode::Mean, nn::BagMode::Max][u % 3];
                    let psw = f32s(&v[2])?;
                    let pad = if flag { Some(e1 as i64) } else { None };
                    let offs = if pick % 2 == 0 { Some(&offs) } else { None };
                    let psw = if pick % 3 == 0 { Some(&psw) } else { None };
                    Ok(vec![nn::embedding_bag(&idx, &w, offs, m, psw, pick > 4, pad)?.into()])
                }
                10 => {
                    use nn::{GridMode, GridPadding};
                    let x = f32s(&v[0])?;
                    let grid = f32s(&v[1])?;
                    let gm = if flag { GridMode::Bilinear } else { GridMode::Nearest };
                    let gp = [GridPadding::Zeros, GridPadding::Border, GridPadding::Reflection][pick % 3];
                    let theta = f32s(&v[2])?;
                    let size = [u % 3, pick % 3, u, pick];
                    Ok(vec![
                        nn::grid_sample(&x, &grid, gm, gp, u % 2 == 0)?.into(),
                        nn::affine_grid(&theta, size, flag)?.into(),
                    ])
                }
                11 => {
                    let x = f32s(&v[0])?;
                    let d = [nn::dropout, nn::dropout1d, nn::dropout2d, nn::dropout3d, nn::alpha_dropout, nn::feature_alpha_dropout][pick % 6];
                    let leaf = x.detach().with_requires_grad(flag)?;
                    let y = d(&leaf, e1, u % 3 != 0)?;
                    if flag { y.try_sum(&[], false)?.try_backward()?; }
                    Ok(vec![y.detach().into()])
                }
                12 => {
                    let x = f32s(&v[0])?;
                    let y = f32s(&v[1])?;
                    let z = f32s(&v[2])?;
                    let leaf = x.detach().with_requires_grad(flag)?;
                    let out = match pick + 2 * (u % 2) {
                        0 => leaf.try_softshrink(e1)?.try_add(&leaf.try_hardshrink(e2)?)?.try_add(&leaf.try_threshold(e1, e2)?)?,
                        1 => leaf.try_rrelu(e1, e2, flag)?.try_add(&leaf.try_tanhshrink()?)?,
                        2 => nn::local_response_norm(&leaf, u, e1, e2, e3)?,
                        3 => nn::lp_pool2d(&leaf, e1, (u, 1 + pick % 3), (1 + u % 2, g_u(u)))?,
                        4 => nn::lp_pool1d(&leaf, e1, u, g_u(u))?.try_add(&nn::adaptive_avg_pool1d(&leaf, u)?)?,
                        5 => nn::adaptive_max_pool1d(&leaf, u)?,
                        6 => nn::channel_shuffle(&leaf, u)?.try_sum(&[], false)?.try_add(
                            &nn::conv_transpose1d(&leaf, &y, None, nn::Conv2dOptions { stride: (1, 1 + u % 3), padding: (0, g_u(u)), dilation: (1, 1 + pick % 2), groups: 1 + u % 2 }, u % 2)?.try_sum(&[], false)?)?,
                        7 => nn::bilinear(&leaf, &y, &z, if flag { Some(&y) } else { None })?,
                        8 => nn::pdist(&leaf, e1)?.try_add(&nn::gumbel_softmax(&leaf, e2, flag, (u as i64).wrapping_sub(2))?.try_sum(&[], false)?)?,
                        9 => {
                            let (m, at) = nn::max_pool1d_with_indices(&leaf, u, 1 + pick % 3, g_u(u))?;
                            m.try_sum(&[], false)?.try_add(&nn::max_unpool1d(&m, &at, u.saturating_add(pick))?.try_sum(&[], false)?)?
                        }
                        10 => {
                            let l1 = |a: &Tensor<f32>, b: &Tensor<f32>| a.try_sub(b)?.try_abs()?.try_sum(&[-1], false);
                            let d: Option<nn::DistanceFn<'_, f32, Cpu>> = if flag { Some(&l1) } else { None };
                            nn::triplet_margin_with_distance_loss(&leaf, &y, &z, d, e1, flag, nn::Reduction::Mean)?
                        }
                        _ => {
                            let t = v[3].to_dtype(Dtype::Int64)?.downcast::<i64, Cpu>()?;
                            nn::multilabel_margin_loss(&leaf, &t, nn::Reduction::Mean)?
                        }
                    };
                    if flag { out.try_sum(&[], false)?.try_backward()?; }
                    Ok(vec![out.detach().into()])
                }
                _ => one(v[0].pad_mode(&pads[..pads.len().min(v[0].ndim())], mode)),
            })
        }
        14 => {
            // Advanced indexing: index lists of any length, shapes that may not broadcast,
            // indices out of range, values of another shape or dtype.
            let f = g.n(6);
            let nidx = g.n(a.ndim() + 2);
            let mut ins = vec![a.clone()];
            let mut some = vec![];
            for k in 0..nidx {
                if g.p(0.3) {
                    some.push(false);
                    continue;
                }
                let hi = a.shape().dims().get(k).copied().unwrap_or(3) as i64;
                let s: Vec<usize> = (0..g.n(3)).map(|_| g.dim()).collect();
                ins.push(g.index_tensor(&s, hi));
                some.push(true);
            }
            let vals = g.like(&a);
            ins.push(vals);
            let acc = g.p(0.5);
            let flat: Vec<usize> = (0..g.n(3)).map(|_| g.dim()).collect();
            let pidx = g.index_tensor(&flat, a.numel() as i64);
            ins.push(pidx);
            let body = move |v: &mut Vec<DynTensor>| -> Outs {
                let n = v.len();
                let (vals, pidx) = (v[n - 2].clone(), v[n - 1].clone());
                let mut it = v[1..n - 2].iter();
                let idx: Vec<Option<&DynTensor>> =
                    some.iter().map(|&s| if s { it.next() } else { None }).collect();
                match f {
                    0 | 1 => one(v[0].index(&idx)),
                    2 | 3 => one(v[0].index_put(&idx, &vals, acc)),
                    4 => one(v[0].put(&pidx, &vals, acc)),
                    _ => {
                        let mut x = v[0].clone();
                        x.index_put_(&idx, &vals, acc)?;
                        Ok(vec![x])
                    }
                }
            };
            (format!("advindex{f}"), ins, f == 5, Box::new(body))
        }
        15 => {
            // NumPy editing, histograms, polynomials, LU and matrix_exp through the typed API.
            let f = g.n(63);
            let b = g.like(&a);
            let k = g.n(4);
            let idx = g.index_tensor(&[k], a.shape().dims().first().copied().unwrap_or(2) as i64);
            let (i, ax, u, e1, e2, flag) = (g.i(), g.axis(), g.us(), g.val(), g.val(), g.p(0.5));
            let axis = if g.p(0.3) { None } else { Some(ax) };
            let f64s = |t: &DynTensor| -> typed_tensor::Result<Tensor<f64>> { t.to_dtype(Dtype::Float64)?.downcast::<f64, Cpu>() };
            let i64s = |t: &DynTensor| -> typed_tensor::Result<Tensor<i64>> { t.to_dtype(Dtype::Int64)?.downcast::<i64, Cpu>() };
            op!(format!("numpy{f}({i},{ax},{axis:?},{u},{e1},{e2},{flag})"), [a, b, idx], false, |v| {
                let (x, y, at) = (f64s(&v[0])?, f64s(&v[1])?, i64s(&v[2])?);
                let o: Tensor<f64> = match f {
                    0 => x.try_append(&y, axis)?,
                    1 => x.try_insert(i, &y, axis)?,
                    2 => x.try_delete(&at, axis)?,
                    3 => x.try_resize(&[u % 7, u])?,
                    4 => x.try_flatten()?.try_trim_zeros(flag, !flag)?,
                    5 => x.try_compress(&y.try_flatten()?.try_gt_scalar(0.0)?, axis)?,
                    6 => x.try_put_along_axis(&at, &y, axis)?,
                    7 => {
                        let mut z = x.try_deep_copy()?;
                        z.fill_diagonal_(e1, flag)?;
                        z
                    }
                    8 => x.try_histogram(u, if flag { Some((e1, e2)) } else { None })?.1,
                    9 => x.try_nanpercentile(e1, ax, flag)?,
                    10 => x.try_unwrap(if flag { Some(e1) } else { None }, ax, e2)?,
                    11 => x.try_flatten()?.try_polyint(u % 4, &[e1])?,
                    12 => x.try_flatten()?.try_polyder(u)?.try_polymul(&y.try_flatten()?)?,
                    13 => x.try_lu()?.2,
                    14 => {
                        let (lu, piv) = x.try_lu_factor()?;
                        Tensor::try_lu_solve(&lu, &piv, &y)?
                    }
                    15 => x.try_matrix_exp()?,
                    16 => x.try_tensorsolve(&y)?,
                    17 => x.try_tensorinv(u)?,
                    18 => x.try_ediff1d(Some(&y), None)?,
                    19 => x.try_cumulative_trapezoid(e1, ax)?,
                    20 => x.try_nanvar(&[ax], u, flag)?,
                    21 => x.try_digitize(&y, flag)?.cast::<f64>(),
                    22 => x.try_mvlgamma(u)?,
                    24 => x.try_gammainc(&y)?,
                    25 => x.try_gammaincc(&y)?,
                    26 => {
                        let n = i.unsigned_abs() as usize % 4;
                        let red = if flag { typed_tensor::nn::Reduction::Mean } else { typed_tensor::nn::Reduction::None };
                        typed_tensor::nn::ctc_loss(&x, &at, &vec![u % 9; n], &vec![g_u(u) % 5; n], u % 3, red, e1 > 0.0)?
                    }
                    27 => x.try_nextafter(&y)?,
                    28 => x.try_spacing()?,
                    29 => [Tensor::try_bessel_j1, Tensor::try_bessel_y0, Tensor::try_modified_bessel_k1, Tensor::try_scaled_modified_bessel_k0, Tensor::try_spherical_bessel_j0, Tensor::try_airy_ai][u % 6](&x)?,
                    30 => x.try_slice_scatter(&y, ax, typed_tensor::Slice::new(Some(i), if flag { None } else { Some(e1 as i64) }, [1, 2, -1, 0][u % 4]))?,
                    31 => x.try_select_scatter(&y, ax, i)?,
                    32 => x.try_diagonal_scatter(&y, i, ax, e1 as i64)?,
                    33 => {
                        // At most 64 elements: C(843, 4) rows are a legitimately huge output
                        // that only tripped the watchdog.
                        let f = x.try_flatten()?;
                        f.narrow(0, 0, f.numel().min(64))?.try_combinations(u % 5, flag)?
                    }
                    34 => Tensor::<f64>::kaiser_window(u % 9, flag, e1)?,
                    35 => {
                        let r = [(e1, e2), (e2, e1)];
                        x.try_histogramdd(&[u % 4, 1 + u % 3], if flag { None } else { Some(&r) }, None, !flag)?.0
                    }
                    36 => {
                        let mut z = x.try_deep_copy()?;
                        z.putmask_(&y.try_gt_scalar(0.0)?, &at.cast::<f64>())?;
                        z
                    }
                    37 => {
                        let mut z = x.try_deep_copy()?;
                        z.place_(&y.try_gt_scalar(0.0)?, &at.cast::<f64>())?;
                        let m = x.try_lt_scalar(e1)?;
                        z.copyto_(&y, if flag { None } else { Some(&m) })?;
                        z
                    }
                    // The in-place forms (ops/inplace.rs) on a copy.
                    41 => {
                        let mut z = x.try_deep_copy()?;
                        let m = y.try_gt_scalar(e1)?;
                        match u % 6 {
                            0 => z.masked_fill_(&m, e2)?,
                            1 => z.index_add_(ax, &at, &y, e1)?,
                            2 => z.scatter_add_(ax, &at, &y)?,
                            3 => z.clamp_(Some(e1), Some(e2))?,
                            4 => z.lerp_(&y, e1)?,
                            _ => z.index_fill_(ax, &at, e1)?,
                        }
                        z
                    }
                    42 => {
                        let mut z = x.try_deep_copy()?;
                        match u % 12 {
                            0 => z.masked_scatter_(&y.try_gt_scalar(0.0)?, &y)?,
                            1 => z.tril_(i)?,
                            2 => z.put_(&at, &y, flag)?,
                            4 => z.cumsum_(ax)?,
                            5 => z.renorm_(e1, ax, e2)?,
                            6 => z.addmm_(&x, &y, e1, e2)?,
                            7 => z.copy_(&at)?,
                            8 => z.logit_(if flag { Some(e1) } else { None })?,
                            9 => z.threshold_(e1, e2)?,
                            10 => z.bernoulli_(e1)?,
                            11 => z.index_reduce_(ax, &at, &y, typed_tensor::ops::scatter_reduce::ScatterReduce::Amax, flag)?,
                            _ => z.addcdiv_(&y, &x, e1)?,
                        }
                        z
                    }
                    43 => {
                        let mut z = x.try_deep_copy()?;
                        z.index_copy_(ax, &at, &y)?;
                        z.nan_to_num_(e1, None, Some(e2))?;
                        z
                    }
                    38 => x.try_householder_product(&y)?,
                    44 => {
                        use typed_tensor::ops::scatter_reduce::ScatterReduce as R;
                        let r = [R::Prod, R::Mean, R::Amax, R::Amin][u % 4];
                        x.try_index_reduce(ax, &at, &y, r, flag)?
                    }
                    45 if flag => {
                        let (lu, piv) = x.try_lu_factor()?;
                        let (p, l, u) = Tensor::try_lu_unpack(&lu, &piv)?;
                        p.try_matmul(&l)?.try_matmul(&u)?
                    }
                    45 => Tensor::try_lu_unpack(&x, &at.cast::<i32>())?.0,
                    46 => x.try_cholesky_inverse(flag)?,
                    47 => {
                        let mode = [None, Some(typed_tensor::ops::pad::PadMode::Reflect), Some(typed_tensor::ops::pad::PadMode::Circular)][u % 3];
                        typed_tensor::nn::conv_same(&x, &y, None, &[1 + u % 3], 1 + u % 2, mode)?
                    }
                    48 => {
                        let ops: [fn(&Tensor<f64>, &Tensor<f64>) -> typed_tensor::Result<Tensor<f64>>; 6] = [
                            |a, b| a.try_chebyshev_polynomial_t(b),
                            |a, b| a.try_shifted_chebyshev_polynomial_w(b),
                            |a, b| a.try_hermite_polynomial_h(b),
                            |a, b| a.try_hermite_polynomial_he(b),
                            |a, b| a.try_laguerre_polynomial_l(b),
                            |a, b| a.try_legendre_polynomial_p(b),
                        ];
                        ops[u % 6](&x, &y.try_clip(-3.0, 40.0)?)?
                    }
                    49 => match u % 4 {
                        0 => x.try_randint_like(i, e1 as i64)?,
                        1 => Tensor::try_chain_matmul(&[&x, &y, &x])?,
                        2 => x.try_flatten()?.try_ger(&y.try_flatten()?)?,
                        _ => x.new_tensor(&[e1, e2], [u % 3])?,
                    },
                    50 => {
                        // Hooks and retained gradients through a backward pass.
                        let xg = x.try_deep_copy()?.with_requires_grad(true)?;
                        let mut h = xg.try_mul(&y)?.try_sin()?;
                        h.retain_grad()?;
                        let handle = h.register_hook(move |g| if flag { Ok(Some(g.try_mul_scalar(e1)?)) } else { Ok(None) })?;
                        h.try_sum(&[], false)?.try_backward()?;
                        if u % 2 == 0 { handle.remove(); }
                        let kept = h.grad_tensor().ok_or(typed_tensor::Error::InvalidArgument { op: "fuzz", msg: "retain_grad kept nothing".into() })?;
                        if kept.dims() != h.dims() { panic!("retained gradient of shape {:?} for {:?}", kept.dims(), h.dims()); }
                        xg.grad_tensor().unwrap()
                    }
                    51 if flag => x.try_cholesky_ex(u % 2 == 0)?.0,
                    51 => x.try_inv_ex()?.0,
                    52 => {
                        let t = at.try_clip(-1, 3)?;
                        let opts = typed_tensor::nn::ClassLossOptions { ignore_index: Some(-1), label_smoothing: if flag { 0.25 } else { 0.0 }, ..Default::default() };
                        typed_tensor::nn::linear_cross_entropy(&x, &y, &t, None, opts)?
                    }
                    53 => {
                        let j = typed_tensor::autograd::jacobian(|v: &[Tensor<f64>]| v[0].try_mul(&v[1])?.try_tanh(), &[x.try_flatten()?.narrow(0, 0, x.numel().min(6))?, y.try_flatten()?.narrow(0, 0, y.numel().min(6))?])?;
                        j[0].clone()
                    }
                    54 => {
                        use typed_tensor::nn::FractionalSize as S;
                        let size = if flag { S::Ratio(e1.abs().fract(), 0.5) } else { S::Size(u % 5, i.unsigned_abs() as usize % 4) };
                        let samples = y.try_flatten()?.narrow(0, 0, y.numel().min(2))?.try_reshape([1, 1, y.numel().min(2)])?;
                        if u % 4 == 1 {
                            use typed_tensor::nn::FractionalSize3d as S3;
                            let size = if flag { S3::Ratio(e1.abs().fract(), 0.5, 0.75) } else { S3::Size(u % 5, i.unsigned_abs() as usize % 4, u % 3) };
                            let samples = y.try_flatten()?.narrow(0, 0, y.numel().min(3))?.try_reshape([1, 1, y.numel().min(3)])?;
                            typed_tensor::nn::fractional_max_pool3d(&x, (1 + u % 3, 1 + u % 2, 1 + u % 5 / 2), size, if u % 3 == 0 { Some(&samples) } else { None })?.0
                        } else {
                            typed_tensor::nn::fractional_max_pool2d(&x, (1 + u % 3, 1 + u % 2), size, if u % 3 == 0 { Some(&samples) } else { None })?.0
                        }
                    }
                    55 => {
                        // Second derivatives: the recorded gradient of a composed function,
                        // differentiated again.
                        let xg = x.try_deep_copy()?.with_requires_grad(true)?;
                        let h = match u % 5 {
                            0 => xg.try_mul(&y)?.try_tanh()?,
                            1 => xg.try_softmax(ax)?.try_mul(&xg)?,
                            2 => xg.try_matmul(&y)?.try_sigmoid()?,
                            3 => xg.try_logsumexp(&[ax], flag)?.try_exp()?,
                            _ => xg.try_sort(ax, flag)?.0.try_square()?,
                        };
                        let seed = if flag { None } else { Some(&y) };
                        let out = if seed.is_none() { h.try_sum(&[], false)? } else { h.clone() };
                        let gx = typed_tensor::autograd::grad_create_graph(&out, seed, &[&xg])?.remove(0);
                        match gx {
                            Some(gx) if gx.requires_grad() => {
                                let s = gx.try_mul(&gx)?.try_sum(&[], false)?;
                                let hx = typed_tensor::autograd::grad(&s, &[&xg], false)?.remove(0);
                                hx.map_or_else(|| x.try_zeros_like(), Ok)?
                            }
                            Some(gx) => gx,
                            None => x.try_zeros_like()?,
                        }
                    }
                    56 => {
                        let xs = [x.try_flatten()?.narrow(0, 0, x.numel().min(5))?];
                        let vs = [y.try_flatten()?.narrow(0, 0, y.numel().min(5))?];
                        match u % 3 {
                            0 => typed_tensor::autograd::hessian(|v: &[Tensor<f64>]| v[0].try_sin()?.try_product(&[], false), &xs)?.remove(0).remove(0),
                            1 => typed_tensor::autograd::hvp(|v: &[Tensor<f64>]| v[0].try_exp()?.try_mul(&v[0])?.try_sum(&[], false), &xs, &vs)?.1.remove(0),
                            _ => typed_tensor::autograd::jvp(|v: &[Tensor<f64>]| v[0].try_cumprod(0), &xs, &vs)?.1,
                        }
                    }
                    57 => {
                        use typed_tensor::ops::numpy_arrays::{BitOrder, ChooseMode};
                        let order = if flag { BitOrder::Big } else { BitOrder::Little };
                        match u % 6 {
                            0 => x.try_packbits(axis, order)?.try_unpackbits(axis, if flag { None } else { Some(i) }, order)?.try_cast::<f64>()?,
                            1 => x.try_matvec(&y)?,
                            2 => x.try_vecmat(&y)?,
                            3 => x.rollaxis(ax, i)?,
                            4 => {
                                let mode = [ChooseMode::Raise, ChooseMode::Wrap, ChooseMode::Clip][u % 3];
                                Tensor::try_choose(&at, &[&x, &y], mode)?
                            }
                            _ => Tensor::<f64>::scalar(if x.try_array_equiv(&y)? { 1.0 } else { 0.0 }),
                        }
                    }
                    58 => match u % 3 {
                        0 => x.try_unique_all()?.0,
                        1 => x.try_apply_along_axis(ax, |r| if flag { r.try_cumsum(0) } else { r.narrow(0, 0, r.numel().min(2)) })?,
                        _ => Tensor::<f64>::fromfunction(&x.dims()[..x.ndim().min(3)], |g| match g.first() {
                            Some(a) => a.try_mul(&g[g.len() - 1]),
                            None => Ok(Tensor::scalar(e1)),
                        })?,
                    },
                    59 => {
                        // A custom op whose rule returns the right or a wrong gradient.
                        let xg = x.try_deep_copy()?.with_requires_grad(true)?;
                        let y = typed_tensor::autograd::custom("fuzz_custom", &[&xg], |v| v[0].try_tanh(), move |g, v, out| match u % 3 {
                            0 => Ok(vec![Some(g.try_mul(&out.try_mul(out)?.try_rsub_scalar(1.0)?)?)]),
                            1 => Ok(vec![Some(g.try_sum(&[], false)?)]),
                            _ => Ok(vec![Some(v[0].clone()), None]),
                        })?;
                        y.try_mul(&y)?.try_sum(&[], false)?.try_backward()?;
                        xg.grad_tensor().unwrap()
                    }
                    60 => {
                        // Distributions with arbitrary parameters, values and sample shapes.
                        use typed_tensor::distributions::*;
                        let shape = [u % 3, i.unsigned_abs() as usize % 5];
                        let shape = &shape[..(u % 3)];
                        match u % 36 {
                            35 => match i.rem_euclid(6) {
                                0 => Normal::new(&x, &y)?.expand(&shape.iter().copied().chain(x.dims().iter().copied()).collect::<Vec<_>>())?.sample(&[u % 3])?,
                                1 => Dirichlet::new(&x)?.expand(shape)?.mean()?,
                                2 => Bernoulli::from_probs(&x)?.enumerate_support(flag)?,
                                3 => OneHotCategorical::from_logits(&x)?.enumerate_support(flag)?.try_add(&Binomial::new(&y, Some(&x), None)?.enumerate_support(flag)?.try_sum(&[], false)?)?,
                                4 => x.try_normal(&y)?,
                                _ => Tensor::try_block(&[&[&x, &y], &[&y]])?,
                            },
                            34 => match i.rem_euclid(8) {
                                0 => Gamma::new(&x, &y)?.mode()?.try_add(&Beta::new(&x, &y)?.mode()?)?,
                                1 => Dirichlet::new(&x)?.mode()?.try_sum(&[], false)?.try_add(&Kumaraswamy::new(&x, &y)?.mode()?)?,
                                2 => Binomial::new(&x, Some(&y), None)?.mode()?.try_add(&NegativeBinomial::new(&x, None, Some(&y))?.mode()?)?,
                                3 => Weibull::new(&x, &y)?.mode()?.try_add(&FisherSnedecor::new(&x, &y)?.mode()?)?,
                                4 => Wishart::from_covariance(&x, &y)?.mode()?,
                                5 => OneHotCategorical::from_logits(&x)?.mode()?.try_add(&Categorical::from_logits(&x)?.mode()?.try_cast::<f64>()?.unsqueeze(-1)?)?,
                                6 => Bernoulli::from_probs(&x)?.mode()?.try_add(&Poisson::new(&y)?.mode()?)?.try_add(&LogNormal::new(&x, &y)?.perplexity()?)?,
                                _ => kl_divergence(&TransformedDistribution::new(Normal::new(&x, &y)?, vec![Transform::Exp])?, &TransformedDistribution::new(Normal::new(&y, &x)?, vec![Transform::Affine { loc: x.clone(), scale: y.clone() }])?)?,
                            },
                            30 => { let d = GeneralizedPareto::new(&x, &y, &x)?; d.log_prob(&y)?.try_add(&d.cdf(&y)?)?.try_add(&d.icdf(&y)?)?.try_add(&d.entropy()?)?.try_add(&d.variance()?)?.try_add(&d.rsample(shape)?.try_sum(&[], false)?)? }
                            31 => { let d = LogisticNormal::new(&x, &y)?; d.log_prob(&y)?.try_add(&d.rsample(shape)?.try_sum(&[], false)?)? }
                            32 => { let d = if flag { Wishart::from_covariance(&x, &y)? } else { Wishart::from_precision(&y, &x)? }; d.log_prob(&y)?.try_add(&d.entropy()?)?.try_add(&d.variance()?.try_sum(&[], false)?)?.try_add(&d.rsample(shape)?.try_sum(&[], false)?)? }
                            33 => { let d = LKJCholesky::new(u % 5, &x)?; d.log_prob(&y)?.try_add(&d.sample(shape)?.try_sum(&[], false)?)? }
                            26 => kl_divergence(&Normal::new(&x, &y)?, &Laplace::new(&y, &x)?)?.try_add(&kl_divergence(&Normal::new(&x, &y)?, &Gumbel::new(&y, &x)?)?)?.try_add(&kl_divergence(&Gamma::new(&x, &y)?, &Gumbel::new(&x, &y)?)?)?.try_add(&kl_divergence(&Laplace::new(&x, &y)?, &Normal::new(&x, &x)?)?)?,
                            27 => { let p = Uniform::new(&x, &y)?; kl_divergence(&p, &Beta::new(&x, &y)?)?.try_add(&kl_divergence(&p, &Pareto::new(&y, &x)?)?)?.try_add(&kl_divergence(&p, &Gamma::new(&y, &x)?)?)?.try_add(&kl_divergence(&p, &ContinuousBernoulli::new(Some(&x), None)?)?)? }
                            28 => { let p = Pareto::new(&x, &y)?; kl_divergence(&p, &Normal::new(&x, &y)?)?.try_add(&kl_divergence(&p, &Gamma::new(&y, &x)?)?)?.try_add(&kl_divergence(&Beta::new(&x, &y)?, &Gamma::new(&y, &x)?)?)?.try_add(&kl_divergence(&Beta::new(&x, &y)?, &Uniform::new(&y, &x)?)?)?.try_add(&kl_divergence(&Chi2::new(&x)?, &Normal::new(&x, &y)?)?)? }
                            29 => kl_divergence(&Normal::new(&x, &y)?, &Beta::new(&y, &x)?)?.try_add(&kl_divergence(&Exponential::new(&x)?, &Gumbel::new(&y, &x)?)?)?.try_add(&kl_divergence(&Bernoulli::from_probs(&x)?, &Poisson::new(&y)?)?)?.try_add(&kl_divergence(&MultivariateNormal::from_covariance(&x, &y)?, &LowRankMultivariateNormal::new(&x, &y, &x)?)?)?,
                            22 => { let d = ContinuousBernoulli::new(if flag { Some(&x) } else { None }, if flag { None } else { Some(&x) })?; d.log_prob(&y)?.try_add(&d.entropy()?)?.try_add(&d.cdf(&y)?)?.try_add(&d.icdf(&y)?)?.try_add(&d.variance()?)?.try_add(&d.rsample(shape)?.try_sum(&[], false)?)? }
                            23 => { let d = FisherSnedecor::new(&x, &y)?; d.log_prob(&y)?.try_add(&d.variance()?)?.try_add(&d.rsample(shape)?.try_sum(&[], false)?)? }
                            24 => { let (p, q) = (Pareto::new(&x, &y)?, Pareto::new(&y, &x)?); kl_divergence(&p, &q)?.try_add(&kl_divergence(&Gumbel::new(&x, &y)?, &Gumbel::new(&y, &x)?)?)?.try_add(&kl_divergence(&Geometric::new(Some(&x), None)?, &Geometric::new(None, Some(&y))?)?)? }
                            25 => { let (p, q) = (LowRankMultivariateNormal::new(&x, &y, &x)?, LowRankMultivariateNormal::new(&y, &x, &y)?); kl_divergence(&p, &q)?.try_add(&kl_divergence(&Binomial::new(&x, Some(&y), None)?, &Binomial::new(&y, None, Some(&x))?)?)? }
                            21 => { let d = LowRankMultivariateNormal::new(&x, &y, &x)?; d.log_prob(&x)?.try_add(&d.entropy()?)?.try_add(&d.rsample(shape)?.try_sum(&[], false)?)?.try_add(&Moments::variance(&d)?)? }
                            12 => { let d = OneHotCategorical::from_logits(&x)?; d.log_prob(&y)?.try_add(&d.entropy()?)?.try_add(&d.rsample_straight_through(shape)?.try_sum(&[], false)?)? }
                            13 => { let d = RelaxedBernoulli::new(&y, None, Some(&x))?; d.log_prob(&y)?.try_add(&d.rsample(shape)?.try_sum(&[], false)?)? }
                            14 => { let d = RelaxedOneHotCategorical::new(&y, Some(&x), None)?; d.log_prob(&x)?.try_add(&d.rsample(shape)?.try_sum(&[], false)?)? }
                            15 => { let d = NegativeBinomial::new(&x, if flag { Some(&y) } else { None }, if flag { None } else { Some(&y) })?; d.log_prob(&x)?.try_add(&d.mean()?)?.try_add(&d.sample(shape)?.try_sum(&[], false)?)? }
                            16 => { let d = VonMises::new(&x, &y)?; d.log_prob(&y)?.try_add(&d.entropy()?)?.try_add(&d.sample(shape)?.try_sum(&[], false)?)? }
                            17 => { let d = MixtureSameFamily::new(Categorical::from_logits(&x)?, Normal::new(&y, &x)?)?; d.log_prob(&y)?.try_add(&d.sample(shape)?.try_sum(&[], false)?)?.try_add(&d.stddev()?)? }
                            18 => { let d = Kumaraswamy::new(&x, &y)?; d.log_prob(&y)?.try_add(&d.entropy()?)?.try_add(&d.variance()?)?.try_add(&d.rsample(shape)?.try_sum(&[], false)?)? }
                            19 => { let d = InverseGamma::new(&x, &y)?; d.log_prob(&y)?.try_add(&d.entropy()?)?.try_add(&d.variance()?)?.try_add(&Chi2::new(&x)?.rsample(shape)?.try_sum(&[], false)?)? }
                            20 => { let d = HalfCauchy::new(&x)?; d.log_prob(&y)?.try_add(&d.cdf(&y)?)?.try_add(&d.icdf(&y)?)?.try_add(&d.rsample(shape)?.try_sum(&[], false)?)? }
                            11 => { let d = Multinomial::new(u % 7, Some(&x), None)?; d.log_prob(&y)?.try_add(&d.entropy()?)?.try_add(&d.sample(shape)?.try_sum(&[], false)?)? }
                            8 => { let d = StudentT::new(&x, &y, &y)?; d.log_prob(&x)?.try_add(&d.entropy()?)?.try_add(&d.rsample(shape)?.try_sum(&[], false)?)? }
                            9 => { let d = Binomial::new(&x, Some(&y), None)?; d.log_prob(&x)?.try_add(&d.entropy()?)?.try_add(&d.sample(shape)?.try_sum(&[], false)?)? }
                            10 => { let d = Geometric::new(None, Some(&x))?; d.log_prob(&y)?.try_add(&d.entropy()?)?.try_add(&d.sample(shape)?.try_sum(&[], false)?)? }
                            6 => { let d = Gamma::new(&x, &y)?; d.log_prob(&y)?.try_add(&d.sample(shape)?.try_sum(&[], false)?)?.try_add(&kl_divergence(&d, &d)?)? }
                            7 => { let d = Dirichlet::new(&x)?; d.log_prob(&y)?.try_add(&d.entropy()?)?.try_add(&Beta::new(&x, &y)?.sample(shape)?.try_sum(&[], false)?)? }
                            0 => { let d = Normal::new(&x, &y)?; d.log_prob(&x)?.try_add(&d.entropy()?)?.try_sum(&[], false)?.try_add(&d.rsample(shape)?.try_sum(&[], false)?)? }
                            1 => { let d = Uniform::new(&x, &y)?; d.log_prob(&x)?.try_add(&d.cdf(&x)?)? }
                            2 => { let d = Categorical::from_logits(&x)?; d.log_prob(&at)?.try_add(&d.entropy()?)?.try_add(&d.sample(shape)?.try_cast::<f64>()?.try_sum(&[], false)?)? }
                            3 => { let d = MultivariateNormal::from_covariance(&x, &y)?; d.log_prob(&x)?.try_add(&d.sample(shape)?.try_sum(&[], false)?)? }
                            4 => { let d = Bernoulli::from_probs(&x)?; kl_divergence(&d, &Bernoulli::from_logits(&y)?)?.try_add(&d.sample(shape)?.try_sum(&[], false)?)? }
                            _ => { let d = Gumbel::new(&x, &y)?; kl_divergence(&Cauchy::new(&x, &y)?, &Cauchy::new(&y, &x)?)?.try_add(&d.log_prob(&y)?)? }
                        }
                    }
                    62 => {
                        // The FFTs with arbitrary sizes, axes, norms and STFT options; eig and roots; geqrf/ormqr, ldl and matrix_sqrth.
                        use typed_tensor::fft::{self, ComplexTensor, Norm, Stft};
                        let norm = [Norm::Backward, Norm::Ortho, Norm::Forward][u % 3];
                        let n = if flag { None } else { Some(u) };
                        let opts = Stft { hop_length: Some(u % 5), center: flag, onesided: e1 > 0.0, ..Stft::default() };
                        match i.rem_euclid(21) {
                            20 => {
                                // A constraint's check, and its bijection (or transform_to) applied.
                                use typed_tensor::distributions::{Constraint as C, biject_to, transform_to};
                                let c = [C::Real, C::Positive, C::NonNegative, C::GreaterThan(e1), C::GreaterThanEq(e1), C::LessThan(e1), C::UnitInterval, C::Interval(e1, e1 + 1.0), C::HalfOpenInterval(e1, e1.abs()), C::Boolean, C::NonNegativeInteger, C::PositiveInteger, C::IntegerInterval(i, i.wrapping_add(3)), C::RealVector, C::Simplex, C::OneHot, C::Square, C::Symmetric, C::LowerTriangular, C::LowerCholesky, C::PositiveDefinite, C::PositiveSemidefinite, C::CorrCholesky][u % 23];
                                let m = c.check(&x)?;
                                let b = if flag { biject_to(c, x.device_handle())? } else { transform_to(c, x.device_handle())? };
                                let yv = b.forward(&x)?;
                                let l = if u % 2 == 0 { b.log_abs_det_jacobian(&x, &yv)?.try_sum(&[], false)? } else { b.inverse(&yv)?.try_sum(&[], false)? };
                                yv.try_sum(&[], false)?.try_add(&l)?.try_add(&m.try_cast::<f64>()?.try_sum(&[], false)?)?
                            }
                            19 => {
                                // An event transform forward, back, and its log-Jacobian.
                                use typed_tensor::distributions::EventTransform as E;
                                let t = [E::StickBreaking, E::Softmax, E::LowerCholesky, E::PositiveDefinite, E::CorrCholesky, E::Abs, E::Reshape { from: vec![u % 4], to: vec![u % 2, 2] }][u % 7].clone();
                                let yv = t.forward(&x)?;
                                let back = t.inverse(&yv)?;
                                let l = if flag { t.log_abs_det_jacobian(&x, &yv)?.try_sum(&[], false)? } else { back.try_sum(&[], false)? };
                                yv.try_sum(&[], false)?.try_add(&l)?
                            }
                            18 => {
                                // lobpcg with any k, n and start block (y when its shape fits).
                                let opts = typed_tensor::ops::lobpcg::Lobpcg { k: Some(u % 4), n: if flag { Some(u % 5) } else { None }, x: if u % 3 == 0 { Some(&y) } else { None }, niter: Some(i.rem_euclid(7) - 1), largest: flag, ..Default::default() };
                                let f = x.try_flatten()?;
                                let m = (f.numel() as f64).sqrt() as usize;
                                let sq = f.narrow(0, 0, m * m)?.try_reshape([m, m])?;
                                let a = if u % 5 == 0 { x.clone() } else { sq.try_add(&sq.t())? };
                                let (e, v) = a.try_lobpcg(&opts)?;
                                e.try_sum(&[], false)?.try_add(&v.try_sum(&[], false)?.try_abs()?)?
                            }
                            17 => {
                                // segment_reduce by lengths (flag) or offsets, valid or off by one
                                // (u % 7 == 0), on an axis that may be out of range.
                                use typed_tensor::ops::segment::{SegmentReduce, Segments};
                                let r = [SegmentReduce::Sum, SegmentReduce::Mean, SegmentReduce::Max, SegmentReduce::Min, SegmentReduce::Prod][u % 5];
                                let a = usize::try_from(ax).unwrap_or(0).min(x.ndim().saturating_sub(1));
                                let len = x.dims().get(a).copied().unwrap_or(0);
                                let k = u % 4;
                                let mut sd = x.dims()[..a.min(x.ndim())].to_vec();
                                sd.push(if flag { k } else { k + 1 });
                                let rows = sd[..sd.len() - 1].iter().try_fold(1usize, |p, &d| p.checked_mul(d)).filter(|&p| p <= 4096).unwrap_or(1);
                                let off = i64::from(u % 7 == 0);
                                let row: Vec<i64> = if flag {
                                    (0..k).map(|j| if j + 1 == k { (len - (len / k) * (k - 1)) as i64 + off } else { (len / k) as i64 }).collect()
                                } else {
                                    (0..=k).map(|j| (len * j / k.max(1)) as i64 - off * (j % 2) as i64).collect()
                                };
                                let segs = Tensor::<i64>::from_vec(row.repeat(rows), sd)?;
                                let segs = if flag { Segments::Lengths(&segs) } else { Segments::Offsets(&segs) };
                                let init = if u % 3 == 0 { Some(e1) } else { None };
                                x.try_segment_reduce(r, segs, if u % 4 == 3 { ax } else { a as i64 }, init)?
                            }
                            13 => { let (a, t) = x.try_geqrf()?; a.try_ormqr(&t, &y, flag, u % 2 == 0)? }
                            14 => { let (ld, p, _) = x.try_ldl_factor_ex()?; Tensor::try_ldl_solve(&ld, &p, &y)? }
                            15 => x.try_matrix_sqrth()?,
                            16 => {
                                // Hostile pivots: any values in about ±(n + 1), n capped.
                                let n = x.dims().last().copied().unwrap_or(0).min(64);
                                let p: Vec<i32> = (0..n).map(|k| (u.wrapping_add(k * 7) % (2 * n + 3)) as i32 - n as i32 - 1).collect();
                                Tensor::try_ldl_solve(&x, &Tensor::<i32>::from_vec(p, [n])?, &y)?
                            }
                            11 => {
                                let (a, b) = (ComplexTensor::new(&x, &y)?, ComplexTensor::from_pairs(&y)?);
                                a.try_div(&b)?.try_log()?.try_add(&a.try_sqrt()?.try_exp()?)?.try_sum(&axis.iter().copied().collect::<Vec<_>>(), flag)?.into_pairs()
                            }
                            12 => {
                                let a = ComplexTensor::new(&x, &y)?;
                                let g = a.try_matmul(&a.try_conj_transpose()?)?;
                                if flag { g.try_inverse()?.into_pairs() } else { g.try_solve(&ComplexTensor::from_pairs(&y)?)?.try_mean(&[], false)?.try_reciprocal()?.into_pairs() }
                            }
                            9 => x.try_eig()?.1.abs()?,
                            10 => x.try_flatten()?.try_roots()?.angle()?,
                            0 => fft::rfft(&x, n, ax, norm)?.into_pairs(),
                            1 => fft::irfft(&ComplexTensor::from_pairs(&x)?, n, ax, norm)?,
                            2 => fft::fft(&ComplexTensor::new(&x, &y)?, n, ax, norm)?.abs()?,
                            3 => fft::hfft(&ComplexTensor::from_real(&x)?, n, ax, norm)?,
                            4 => {
                                let s = [u, u % 5];
                                fft::rfftn(&x, if flag { None } else { Some(&s[..(u % 3).min(2)]) }, None, norm)?.into_pairs()
                            }
                            5 => fft::irfftn(&ComplexTensor::new(&x, &y)?, None, Some(&[ax]), norm)?,
                            6 => fft::ifft2(&ComplexTensor::new(&x, &y)?, None, None, norm)?.angle()?,
                            7 => {
                                let s = fft::stft(&x, u % 17, None, &opts)?;
                                fft::istft(&s.try_mul(&s)?, u % 17, None, &opts, n)?
                            }
                            _ => fft::fftshift(&x, axis.as_ref().map(std::slice::from_ref))?,
                        }
                    }
                    61 => {
                        use typed_tensor::distributions::Distribution as _;
                        let p = Tensor::<f64>::from_vec(vec![e1.abs(), e2.abs()], [2])?;
                        typed_tensor::distributions::Poisson::new(&p)?.sample(&[u % 4])?
                    }
                    39 => typed_tensor::nn::conv_transpose3d(&x, &y, None, typed_tensor::nn::Conv3dOptions { stride: (1 + u % 2, 1, 1), ..Default::default() }, (u % 2, 0, 0))?,
                    _ => x.try_addbmm(&y, &y, e1, e2)?,
                };
                Ok(vec![o.into()])
            })
        }
        _ => {
            let f = g.n(8);
            let s = g.shape();
            let d = DTYPES[g.n(9)];
            let sv = g.scalar();
            op!(format!("misc{f}({s:?},{d:?})"), [a], false, |v| match f {
                0 => one(v[0].to_dtype(d)),
                1 => v[0].unique().map(|(a, b, c)| vec![a, b, c]),
                2 => one(v[0].nonzero()),
                3 => one(v[0].nan_to_num(0.0, None, Some(-1.0))),
                4 => one(DynTensor::full(s.clone(), TensorOptions::new().dtype(d), sv)),
                5 => one(DynTensor::randn(s.clone(), TensorOptions::new().dtype(d))),
                6 => one(DynTensor::einsum("...ii->...i", &[&v[0]])),
                _ => one(DynTensor::meshgrid_like(&v[0])),
            })
        }
    }
}

fn g_u(u: usize) -> usize {
    u / 2
}

trait Mesh {
    fn meshgrid_like(t: &DynTensor) -> typed_tensor::Result<DynTensor>;
}
impl Mesh for DynTensor {
    fn meshgrid_like(t: &DynTensor) -> typed_tensor::Result<DynTensor> {
        t.flatten()
    }
}

fn main() {
    let seed: u64 = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(1);
    let iters: usize = std::env::args().nth(2).map(|s| s.parse().unwrap()).unwrap_or(20000);
    if std::env::var("HOOK").is_err() { std::panic::set_hook(Box::new(|_| {})); }
    let mut g = G { r: StdRng::seed_from_u64(seed) };
    let mut bad = std::collections::BTreeMap::<String, (usize, String)>::new();
    let (mut oks, mut errs) = (0, 0);
    // A call that runs for over 20 s (a loop over an empty tensor's long axis, say) is a bug
    // the panics cannot show: the watchdog names it and ends the run.
    let current = std::sync::Arc::new(std::sync::Mutex::new((std::time::Instant::now(), String::new())));
    {
        let current = current.clone();
        std::thread::spawn(move || loop {
            std::thread::sleep(std::time::Duration::from_secs(1));
            let c = current.lock().unwrap();
            if c.0.elapsed().as_secs() > 20 {
                println!("HANG {}", c.1);
                std::process::exit(3);
            }
        });
    }
    for it in 0..iters {
        let k = match std::env::var("CAT").ok().and_then(|c| c.parse().ok()) {
            Some(c) => c,
            None => g.n(17),
        };
        let (name, mut ins, inplace, f) = run(&mut g, k);
        let desc: Vec<String> = ins
            .iter()
            .map(|t| format!("{:?}{:?}/{:?}", t.dtype(), t.shape().dims(), t.stride()))
            .collect();
        let grad = std::env::var("GRAD").is_ok() && !inplace;
        if grad {
            for t in ins.iter_mut() {
                if t.dtype().is_float() {
                    let _ = t.set_requires_grad(true);
                }
            }
        }
        let before: Vec<_> = ins.iter().map(snap).collect();
        if std::env::var("TRACE").is_ok() { eprintln!("{it} {name} {desc:?}"); if std::env::var("VALS").is_ok() { for t in &ins { if t.numel() < 50 { eprintln!("   {}", t.display(3)); } } } }
        if let Ok(o) = std::env::var("ONLY") { if o.parse::<usize>().unwrap() != it { continue; } }
        *current.lock().unwrap() = (std::time::Instant::now(), format!("@{it} {name} {desc:?}"));
        let res = catch_unwind(AssertUnwindSafe(|| f(&mut ins)));
        let mut report = |kind: &str, msg: String| {
            let key = format!("{kind} {}", name.split('(').next().unwrap());
            bad.entry(key).or_insert((it, format!("{name} {desc:?}: {msg}")));
        };
        match res {
            Err(p) => {
                let m = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                report("PANIC", m);
                continue;
            }
            Ok(Ok(outs)) => {
                oks += 1;
                if std::env::var("TRACE").is_ok() { eprintln!("  ok; outs {:?}", outs.iter().map(|o| (o.shape().dims().to_vec(), o.stride().to_vec())).collect::<Vec<_>>()); }
                for o in &outs {
                    if let Err(m) = check_out(o) {
                        report("BADOUT", m);
                    }
                }
                if grad {
                    let r = catch_unwind(AssertUnwindSafe(|| -> std::result::Result<(), String> {
                        for o in &outs {
                            if o.dtype().is_float() && !o.is_leaf() {
                                let s = reduce_sum(o, &[], false).map_err(|e| format!("sum {e}"))?;
                                // ANOMALY=1: NaN gradients stop backward with an Err naming the rule.
                                let r = if std::env::var("ANOMALY").is_ok() { typed_tensor::autograd::detect_anomaly(|| s.backward()) } else { s.backward() };
                                r.map_err(|e| format!("backward {e}"))?;
                            }
                        }
                        for t in &ins {
                            if let Some(gt) = t.grad_tensor() {
                                if gt.shape() != t.shape() {
                                    return Err(format!("grad shape {:?} vs {:?}", gt.shape(), t.shape()));
                                }
                                check_out(&gt)?;
                            }
                        }
                        Ok(())
                    }));
                    match r {
                        Err(p) => {
                            let m = p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default();
                            report("GRADPANIC", m)
                        }
                        Ok(Err(m)) => report("GRADERR", m),
                        _ => {}
                    }
                }
                let start = if inplace { 1 } else { 0 };
                for j in start..ins.len() {
                    if snap(&ins[j]) != before[j] {
                        report("MUTATED", format!("input {j}"));
                    }
                }
            }
            Ok(Err(e)) => {
                errs += 1;
                let msg = e.to_string();
                if std::env::var("SHOW").is_ok() && it % 97 == 0 { println!("{name} {desc:?} => {msg}"); }
                if msg.len() < 10 {
                    report("SHORTERR", msg.clone());
                }
                for j in 0..ins.len() {
                    if snap(&ins[j]) != before[j] {
                        report("MUTATED-ON-ERR", format!("input {j}: {msg}"));
                    }
                }
            }
        }
    }
    println!("ok {oks} err {errs}");
    for (k, (it, m)) in &bad {
        println!("{k} @{it}: {m}");
    }
}
