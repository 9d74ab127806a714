//! The ops of the PyTorch gradient programs by name (`tests/data/torch_grads/programs.txt`),
//! applied to f64 CPU tensors; shared with the harness that made them
//! (`tests/data/torch_grads/make/`).

use typed_tensor::nn::{self, Conv2dOptions, Reduction};
use typed_tensor::ops::arrange::Indexing;
use typed_tensor::prelude::*;

pub(crate) type T = Tensor<f64>;
pub(crate) fn l(s: &str) -> Vec<i64> {
    s.split(',')
        .filter(|x| !x.is_empty())
        .map(|x| x.parse().unwrap())
        .collect()
}
pub(crate) fn u(s: &str) -> Vec<usize> {
    l(s).into_iter().map(|v| v as usize).collect()
}
pub(crate) fn step(op: &str, x: &[&T], p: &[&str]) -> Result<T> {
    let a = x[0];
    let n = |i: usize| p[i].parse::<i64>().unwrap();
    let half = |t: &T| t.try_abs()?.try_add_scalar(0.5);
    Ok(match op {
        "sin" => a.try_sin()?,
        "cos" => a.try_cos()?,
        "exp" => a.try_exp()?,
        "tanh" => a.try_tanh()?,
        "sigmoid" => a.try_sigmoid()?,
        "abs" => a.try_abs()?,
        "relu" => a.try_relu()?,
        "square" => a.try_square()?,
        "neg" => a.try_neg()?,
        "atan" => a.try_atan()?,
        "sinh" => a.try_sinh()?,
        "erf" => a.try_erf()?,
        "expm1" => a.try_expm1()?,
        "asinh" => a.try_asinh()?,
        "gelu" => a.try_gelu()?,
        "silu" => a.try_silu()?,
        "softplus" => a.try_softplus()?,
        "pos_sqrt" => half(a)?.try_sqrt()?,
        "pos_log" => half(a)?.try_log()?,
        "pos_reciprocal" => half(a)?.try_reciprocal()?,
        "pos_log2" => half(a)?.try_log2()?,
        "pos_log1p" => half(a)?.try_log1p()?,
        "pos_rsqrt_like" => half(a)?.try_pow(-0.5)?,
        "add" => a.try_add(x[1])?,
        "sub" => a.try_sub(x[1])?,
        "mul" => a.try_mul(x[1])?,
        "div" => a.try_div(&half(x[1])?)?,
        "maximum" => a.try_maximum(x[1])?,
        "minimum" => a.try_minimum(x[1])?,
        "pow" => half(a)?.try_pow(&x[1].try_tanh()?)?,
        "where" => Tensor::try_where(&a.try_gt_scalar(0.0)?, a, x[1])?,
        "transpose" => a.transpose(n(0), n(1))?,
        "permute" => a.permute(&l(p[0]))?,
        "unsqueeze" => a.unsqueeze(n(0))?,
        "squeeze" => a.squeeze_dims(&[n(0)])?,
        "expand" => a.expand(u(p[0]))?,
        "narrow" => a.narrow(n(0), n(1) as usize, n(2) as usize)?,
        "flip" => a.flip(&[n(0)])?,
        "slice" => a.slice_dim(n(0), n(1) as usize, n(2) as usize, n(3) as usize)?,
        "reshape" => a.try_reshape([n(0) as usize])?,
        "t_reshape" => a.transpose(0, 1)?.try_reshape([a.numel()])?,
        "diagonal" => a.diagonal(n(0))?,
        "contiguous" => a.try_contiguous()?,
        "sum" => a.try_sum(&l(p[0]), p[1] == "1")?,
        "mean" => a.try_mean(&l(p[0]), p[1] == "1")?,
        "max" => a.try_max(&l(p[0]), p[1] == "1")?,
        "min" => a.try_min(&l(p[0]), p[1] == "1")?,
        "var" => a.try_var(&l(p[0]), n(2) as usize, p[1] == "1")?,
        "std" => a.try_std(&l(p[0]), n(2) as usize, p[1] == "1")?,
        "logsumexp" => a.try_logsumexp(&l(p[0]), p[1] == "1")?,
        "norm2" => a.try_norm(2.0, &l(p[0]), p[1] == "1")?,
        "norm3" => a.try_norm(3.0, &l(p[0]), p[1] == "1")?,
        "prod" => a.try_product(&[n(0)], p[1] == "1")?,
        "cumsum" => a.try_cumsum(n(0))?,
        "cumprod" => a.try_cumprod(n(0))?,
        "softmax" => a.try_softmax(n(0))?,
        "log_softmax" => a.try_log_softmax(n(0))?,
        "amax_all" => a.try_max(&[], false)?,
        "matmul" => a.try_matmul(x[1])?,
        "concat" => Tensor::try_concat(&[a, x[1]], n(0))?,
        "stack" => Tensor::try_stack(&[a, x[1]], n(0))?,
        "pad" => {
            let v = u(p[0]);
            a.try_pad(&v.chunks(2).map(|c| (c[0], c[1])).collect::<Vec<_>>(), 0.5)?
        }
        "roll" => a.try_roll(n(0), n(1))?,
        "repeat" => a.try_repeat(&u(p[0]))?,
        "index_select" => a.try_index_select(n(0), &Tensor::from_vec(l(p[1]), [l(p[1]).len()])?)?,
        "gather" => a.try_gather(n(0), &Tensor::from_vec(l(p[2]), u(p[1]))?)?,
        "clip" => a.try_clip(-0.7, 0.9)?,
        "cast" => a.try_cast::<f32>()?.try_sin()?.try_cast::<f64>()?,
        _ => return nn_step(op, x, p),
    })
}

fn pair(s: &str) -> (usize, usize) {
    let v = u(s);
    (v[0], v[1])
}
fn reduction(s: &str) -> Reduction {
    match s {
        "mean" => Reduction::Mean,
        "sum" => Reduction::Sum,
        _ => Reduction::None,
    }
}
fn index(shape: &str, data: &str) -> Result<Tensor<i64>> {
    Tensor::from_vec(l(data), u(shape))
}

/// The ops of the single-op cases (`make/gen2.py`): NN functions, combiners, products, linalg,
/// sort/topk and the scalar forms.
fn nn_step(op: &str, x: &[&T], p: &[&str]) -> Result<T> {
    let a = x[0];
    let n = |i: usize| p[i].parse::<i64>().unwrap();
    let f = |i: usize| p[i].parse::<f64>().unwrap();
    let opt = |i: usize| x.get(i).copied();
    let shifted_eye = |t: &T| t.try_add(&Tensor::eye(t.dims()[t.ndim() - 1])?.try_mul_scalar(3.0)?);
    Ok(match op {
        "conv2d" | "conv1d" => {
            let (s, pd, d) = if op == "conv2d" {
                (pair(p[0]), pair(p[1]), pair(p[2]))
            } else {
                let one = |i: usize| (1, n(i) as usize);
                (one(0), (0, n(1) as usize), one(2))
            };
            let opts = Conv2dOptions {
                stride: s,
                padding: pd,
                dilation: d,
                groups: n(3) as usize,
            };
            if op == "conv2d" {
                a.try_conv2d(x[1], opt(2), opts)?
            } else {
                a.try_conv1d(x[1], opt(2), opts)?
            }
        }
        "max_pool2d" => a.try_max_pool2d(pair(p[0]), pair(p[1]), pair(p[2]))?,
        "avg_pool2d" => a.try_avg_pool2d(pair(p[0]), pair(p[1]), pair(p[2]))?,
        "layer_norm" => {
            let (w, b) = match p[1] {
                "11" => (opt(1), opt(2)),
                "10" => (opt(1), None),
                _ => (None, None),
            };
            a.try_layer_norm(&u(p[0]), w, b, 1e-5)?
        }
        "rms_norm" => a.try_rms_norm(&u(p[0]), if p[1] == "1" { opt(1) } else { None }, 1e-6)?,
        "cross_entropy" => a.try_cross_entropy(&index(p[0], p[1])?, reduction(p[2]), 0.0)?,
        "cross_entropy_ls" => a.try_cross_entropy(&index(p[0], p[1])?, reduction(p[2]), 0.1)?,
        "nll_loss" => a.try_nll_loss(&index(p[0], p[1])?, reduction(p[2]))?,
        "mse_loss" => a.try_mse_loss(x[1], reduction(p[0]))?,
        "bce_logits" => a.try_binary_cross_entropy_with_logits(x[1], reduction(p[0]))?,
        "linear" => a.try_linear(x[1], opt(2))?,
        "embedding" => index(p[0], p[1])?.try_embedding(a)?,
        "leaky_relu" => a.try_leaky_relu(f(0))?,
        "elu" => a.try_elu(f(0))?,
        "gelu_tanh" => a.try_gelu_tanh()?,
        "chunk" => a.try_chunk(n(0) as usize, n(1))?.swap_remove(n(2) as usize),
        "split" => a.try_split(&u(p[0]), n(1))?.swap_remove(n(2) as usize),
        "tile" => a.try_tile(&u(p[0]))?,
        "repeat_interleave" => a.try_repeat_interleave(n(0) as usize, n(1))?,
        "tril" => a.try_tril(n(0))?,
        "triu" => a.try_triu(n(0))?,
        "diag" => a.try_diag(n(0))?,
        "diag_embed" => a.try_diag_embed()?,
        "take" => a.try_take(n(0), &index(p[1], p[2])?)?,
        "scatter_add" => a.try_scatter_add(n(0), &index(p[1], p[2])?, x[1])?,
        "masked_fill" => {
            let bits: Vec<bool> = l(p[0]).iter().map(|&b| b == 1).collect();
            let mask = Tensor::from_vec(bits, a.dims())?;
            a.try_masked_fill(&mask, 0.25)?
        }
        "dot" => a.try_dot(x[1])?,
        "outer" => a.try_outer(x[1])?,
        "vecdot" => a.try_vecdot(x[1])?,
        "tensordot" => a.try_tensordot(x[1], &l(p[0]), &l(p[1]))?,
        "inverse" => shifted_eye(a)?.try_inverse()?,
        "solve" => shifted_eye(a)?.try_solve(x[1])?,
        "pinv" => a.try_pinv()?,
        "sort_v" => a.try_sort(n(0), p[1] == "1")?.0,
        "topk_v" => a.try_topk(n(0) as usize, n(1))?.0,
        "add_s" => a.try_add_scalar(f(0))?,
        "sub_s" => a.try_sub_scalar(f(0))?,
        "mul_s" => a.try_mul_scalar(f(0))?,
        "div_s" => a.try_div_scalar(f(0))?,
        "rsub_s" => a.try_rsub_scalar(f(0))?,
        "rdiv_s" => a.try_abs()?.try_add_scalar(0.5)?.try_rdiv_scalar(f(0))?,
        "maximum_s" => a.try_maximum_scalar(f(0))?,
        "minimum_s" => a.try_minimum_scalar(f(0))?,
        "pow_s" => a.try_abs()?.try_add_scalar(0.5)?.try_pow(f(0))?,
        "logaddexp" => a.try_logaddexp(x[1])?,
        "lerp" => a.try_lerp(x[1], f(0))?,
        "broadcast_tensors" => Tensor::broadcast_tensors(&[a, x[1]])?.swap_remove(n(0) as usize),
        "nan_to_num" => a.try_nan_to_num(0.0, None, None)?,
        "quantile" => a.try_quantile(f(0), n(1), p[2] == "1")?,
        "median" => a.try_median(n(0), p[1] == "1")?.0,
        "diff" => a.try_diff(n(0) as usize, n(1))?,
        "kron" => a.try_kron(x[1])?,
        "cross" => a.try_cross(x[1], -1)?,
        "trace" => a.try_trace()?,
        "einsum" => Tensor::einsum(p[0], x)?,
        "det" => a.try_det()?,
        "slogdet" => a.try_slogdet()?.1,
        "hardtanh" => a.try_hardtanh(f(0), f(1))?,
        "relu6" => a.try_relu6()?,
        "hardsigmoid" => a.try_hardsigmoid()?,
        "hardswish" => a.try_hardswish()?,
        "mish" => a.try_mish()?,
        "selu" => a.try_selu()?,
        "celu" => a.try_celu(f(0))?,
        "logsigmoid" => a.try_logsigmoid()?,
        "softsign" => a.try_softsign()?,
        "glu" => a.try_glu(n(0))?,
        "l1_loss" => nn::l1_loss(a, x[1], reduction(p[0]))?,
        "smooth_l1_loss" => nn::smooth_l1_loss(a, x[1], reduction(p[0]), f(1))?,
        "huber_loss" => nn::huber_loss(a, x[1], reduction(p[0]), f(1))?,
        "kl_div" => {
            let t = if p[1] == "1" {
                x[1].clone()
            } else {
                x[1].try_abs()?.try_add_scalar(0.1)?
            };
            nn::kl_div(a, &t, reduction(p[0]), p[1] == "1")?
        }
        "batch_norm" => {
            let c = a.dims()[1];
            let rm = Tensor::<f64>::arange(0.0, c as f64, 1.0)?.try_mul_scalar(0.1)?;
            let rv = rm.try_mul_scalar(2.0)?.try_add_scalar(1.0)?;
            nn::batch_norm(
                a,
                Some(&rm),
                Some(&rv),
                opt(1),
                opt(2),
                p[0] == "1",
                0.1,
                1e-5,
            )?
        }
        "group_norm" => nn::group_norm(a, n(0) as usize, opt(1), opt(2), 1e-5)?,
        "adaptive_avg_pool2d" => nn::adaptive_avg_pool2d(a, pair(p[0]))?,
        "normalize" => nn::normalize(a, f(0), n(1), 1e-12)?,
        "cosine_similarity" => nn::cosine_similarity(a, x[1], -1, 1e-8)?,
        "cholesky" => {
            let k = a.dims()[a.ndim() - 1];
            let spd = a.try_matmul(&a.transpose(-1, -2)?)?;
            let spd = spd.try_add(&Tensor::eye(k)?.try_mul_scalar(k as f64)?)?;
            spd.try_cholesky(p[0] == "1")?
        }
        "movedim" => a.movedim(&l(p[0]), &l(p[1]))?,
        "meshgrid" => {
            let ij = if p[1] == "ij" {
                Indexing::Ij
            } else {
                Indexing::Xy
            };
            Tensor::meshgrid(&[a, x[1]], ij)?.swap_remove(n(0) as usize)
        }
        o => panic!("unknown op {o}"),
    })
}
