//! The in-place forms of `ops/inplace.rs` on every device: each writes exactly its
//! out-of-place result, through views into the storage they share, and refuses (writing
//! nothing) a tensor that requires grad while recording, a broadcast view, and bad arguments.

use crate::common::host_f64s;
use typed_tensor::ops::scatter_reduce::ScatterReduce;
use typed_tensor::prelude::*;

fn inplace_on<D: Backend>(dev: &D) {
    let f = |v: &[f64], d: &[usize]| {
        Tensor::<f64, D>::from_vec_on(v.to_vec(), d.to_vec(), dev).unwrap()
    };
    let i = |v: &[i64], d: &[usize]| {
        Tensor::<i64, D>::from_vec_on(v.to_vec(), d.to_vec(), dev).unwrap()
    };
    let x0 = [0.5, -2.0, f64::NAN, 3.0, -0.25, 1.5];
    let base = || f(&x0, &[2, 3]);
    let mask =
        Tensor::<bool, D>::from_vec_on(vec![true, false, false, true, false, true], [2, 3], dev)
            .unwrap();
    let other = f(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let idx = i(&[1, 0], &[2]);
    let src = f(&[10.0, 20.0, 30.0, 40.0, 50.0, 60.0], &[2, 3]);
    let at = i(&[0, 1, 0, 1, 0, 1], &[2, 3]);
    type Case<'a, D> = (
        &'a str,
        Box<dyn Fn(&mut Tensor<f64, D>) -> Result<()> + 'a>,
        Box<dyn Fn(&Tensor<f64, D>) -> Result<Tensor<f64, D>> + 'a>,
    );
    let cases: Vec<Case<D>> = vec![
        (
            "masked_fill_",
            Box::new(|t| t.masked_fill_(&mask, -7.0)),
            Box::new(|t| t.try_masked_fill(&mask, -7.0)),
        ),
        (
            "tril_",
            Box::new(|t| t.tril_(0)),
            Box::new(|t| t.try_tril(0)),
        ),
        (
            "triu_",
            Box::new(|t| t.triu_(1)),
            Box::new(|t| t.try_triu(1)),
        ),
        (
            "clamp_",
            Box::new(|t| t.clamp_(Some(-1.0), Some(1.0))),
            Box::new(|t| t.try_clamp(Some(-1.0), Some(1.0))),
        ),
        (
            "clamp_min_",
            Box::new(|t| t.clamp_min_(0.0)),
            Box::new(|t| t.try_clamp_min(0.0)),
        ),
        (
            "clamp_max_",
            Box::new(|t| t.clamp_max_(0.0)),
            Box::new(|t| t.try_clamp_max(0.0)),
        ),
        (
            "index_add_",
            Box::new(|t| t.index_add_(0, &idx, &src, 0.5)),
            Box::new(|t| t.try_index_add(0, &idx, &src, 0.5)),
        ),
        (
            "index_fill_",
            Box::new(|t| t.index_fill_(1, &idx, 9.0)),
            Box::new(|t| t.try_index_fill(1, &idx, 9.0)),
        ),
        (
            "index_copy_",
            Box::new(|t| t.index_copy_(0, &idx, &src)),
            Box::new(|t| t.try_index_copy(0, &idx, &src)),
        ),
        (
            "scatter_",
            Box::new(|t| t.scatter_(0, &at, &src)),
            Box::new(|t| t.try_scatter(0, &at, &src)),
        ),
        (
            "scatter_add_",
            Box::new(|t| t.scatter_add_(0, &at, &src)),
            Box::new(|t| t.try_scatter_add(0, &at, &src)),
        ),
        (
            "scatter_reduce_",
            Box::new(|t| t.scatter_reduce_(0, &at, &src, ScatterReduce::Amax, true)),
            Box::new(|t| t.try_scatter_reduce(0, &at, &src, ScatterReduce::Amax, true)),
        ),
        (
            "index_reduce_",
            Box::new(|t| t.index_reduce_(0, &idx, &src, ScatterReduce::Prod, false)),
            Box::new(|t| t.try_index_reduce(0, &idx, &src, ScatterReduce::Prod, false)),
        ),
        (
            "masked_scatter_",
            Box::new(|t| t.masked_scatter_(&mask, &src)),
            Box::new(|t| t.try_masked_scatter(&mask, &src)),
        ),
        (
            "put_",
            Box::new(|t| t.put_(&idx, &other.narrow(0, 0, 1)?.narrow(1, 0, 2)?, true)),
            Box::new(|t| t.try_put(&idx, &other.narrow(0, 0, 1)?.narrow(1, 0, 2)?, true)),
        ),
        (
            "addcmul_",
            Box::new(|t| t.addcmul_(&other, &src, 0.5)),
            Box::new(|t| t.try_addcmul(&other, &src, 0.5)),
        ),
        (
            "lerp_",
            Box::new(|t| t.lerp_(&other, 0.25)),
            Box::new(|t| t.try_lerp(&other, 0.25)),
        ),
        (
            "addcdiv_",
            Box::new(|t| t.addcdiv_(&src, &other, -0.5)),
            Box::new(|t| t.try_addcdiv(&src, &other, -0.5)),
        ),
        (
            "nan_to_num_",
            Box::new(|t| t.nan_to_num_(0.0, None, None)),
            Box::new(|t| t.try_nan_to_num(0.0, None, None)),
        ),
        (
            "elu_",
            Box::new(|t| t.elu_(0.5)),
            Box::new(|t| t.try_elu(0.5)),
        ),
        (
            "leaky_relu_",
            Box::new(|t| t.leaky_relu_(0.1)),
            Box::new(|t| t.try_leaky_relu(0.1)),
        ),
        (
            "hardtanh_",
            Box::new(|t| t.hardtanh_(-1.0, 0.5)),
            Box::new(|t| t.try_hardtanh(-1.0, 0.5)),
        ),
        ("selu_", Box::new(|t| t.selu_()), Box::new(|t| t.try_selu())),
        (
            "celu_",
            Box::new(|t| t.celu_(2.0)),
            Box::new(|t| t.try_celu(2.0)),
        ),
        (
            "threshold_",
            Box::new(|t| t.threshold_(0.4, -9.0)),
            Box::new(|t| t.try_threshold(0.4, -9.0)),
        ),
        (
            "rrelu_",
            Box::new(|t| t.rrelu_(0.1, 0.3, false)),
            Box::new(|t| t.try_rrelu(0.1, 0.3, false)),
        ),
        ("silu_", Box::new(|t| t.silu_()), Box::new(|t| t.try_silu())),
        ("mish_", Box::new(|t| t.mish_()), Box::new(|t| t.try_mish())),
        (
            "hardsigmoid_",
            Box::new(|t| t.hardsigmoid_()),
            Box::new(|t| t.try_hardsigmoid()),
        ),
        (
            "hardswish_",
            Box::new(|t| t.hardswish_()),
            Box::new(|t| t.try_hardswish()),
        ),
        (
            "copysign_",
            Box::new(|t| t.copysign_(&src.neg())),
            Box::new(|t| t.try_copysign(&src.neg())),
        ),
        (
            "hypot_",
            Box::new(|t| t.hypot_(&other)),
            Box::new(|t| t.try_hypot(&other)),
        ),
        (
            "atan2_",
            Box::new(|t| t.atan2_(&other)),
            Box::new(|t| t.try_atan2(&other)),
        ),
        (
            "xlogy_",
            Box::new(|t| t.xlogy_(&other)),
            Box::new(|t| t.try_xlogy(&other)),
        ),
        (
            "logit_",
            Box::new(|t| t.logit_(Some(0.1))),
            Box::new(|t| t.try_logit(Some(0.1))),
        ),
        ("sgn_", Box::new(|t| t.sgn_()), Box::new(|t| t.try_sgn())),
        (
            "heaviside_",
            Box::new(|t| t.heaviside_(&other)),
            Box::new(|t| t.try_heaviside(&other)),
        ),
        (
            "cumsum_",
            Box::new(|t| t.cumsum_(1)),
            Box::new(|t| t.try_cumsum(1)),
        ),
        (
            "cumprod_",
            Box::new(|t| t.cumprod_(0)),
            Box::new(|t| t.try_cumprod(0)),
        ),
        (
            "renorm_",
            Box::new(|t| t.renorm_(2.0, 0, 1.0)),
            Box::new(|t| t.try_renorm(2.0, 0, 1.0)),
        ),
        (
            "addmm_",
            Box::new(|t| t.addmm_(&other.narrow(1, 0, 2)?, &src.narrow(0, 0, 2)?, 0.5, 2.0)),
            Box::new(|t| t.try_addmm(&other.narrow(1, 0, 2)?, &src.narrow(0, 0, 2)?, 0.5, 2.0)),
        ),
        (
            "copy_",
            Box::new(|t| t.copy_(&Tensor::<i64, D>::from_vec_on(vec![7, -1, 2], [3], dev)?)),
            Box::new(|t| {
                Tensor::<f64, D>::from_vec_on(vec![7., -1., 2.], [3], dev)?.broadcast_to(t.dims())
            }),
        ),
        (
            "zero_",
            Box::new(|t| t.zero_()),
            Box::new(|t| Tensor::zeros_on(t.dims(), t.device_handle())),
        ),
    ];
    let same = |a: &[f64], b: &[f64]| {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
    };
    for (name, inplace, outplace) in &cases {
        // The result, and every handle on the storage sees it.
        let want = host_f64s(&outplace(&base()).unwrap());
        let mut t = base();
        let alias = t.clone();
        inplace(&mut t).unwrap();
        assert!(
            same(&host_f64s(&t), &want),
            "{name}: {:?} vs {want:?}",
            host_f64s(&t)
        );
        assert!(same(&host_f64s(&alias), &want), "{name}: the alias");
        // Through a transposed view into its base.
        let b = base();
        let mut v = b.t();
        let want_t =
            host_f64s(&outplace(&b.t().contiguous()).unwrap_or_else(|_| b.t().contiguous()));
        if inplace(&mut v).is_ok() {
            assert!(same(&host_f64s(&v), &want_t), "{name} through a view");
            assert!(same(&host_f64s(&b.t()), &want_t), "{name}: the base");
        }
        // A leaf that requires grad: refused while recording, nothing written; fine under no_grad.
        let mut leaf = base().with_requires_grad(true).unwrap();
        let e = inplace(&mut leaf).unwrap_err().to_string();
        assert!(
            e.starts_with(name.trim_end_matches('_'))
                || e.contains("requires grad")
                || e.starts_with("fill_"),
            "{name}: {e}"
        );
        assert!(same(&host_f64s(&leaf), &x0), "{name} wrote on error");
        no_grad(|| inplace(&mut leaf)).unwrap();
        assert!(same(&host_f64s(&leaf), &want), "{name} under no_grad");
        // A broadcast view cannot be written.
        let mut wide = f(&[1.0, 2.0, 3.0], &[1, 3]).expand([2, 3]).unwrap();
        assert!(inplace(&mut wide).is_err(), "{name} on a broadcast view");
    }
    // Bad arguments write nothing.
    let mut t = base();
    assert!(
        t.index_add_(0, &i(&[5], &[1]), &src.narrow(0, 0, 1).unwrap(), 1.0)
            .is_err()
    );
    assert!(
        t.masked_fill_(&Tensor::<bool, D>::zeros_on([3, 3], dev).unwrap(), 1.0)
            .is_err()
    );
    assert!(same(&host_f64s(&t), &x0));
    // Random fills.
    manual_seed(3);
    let mut u = Tensor::<f32, D>::zeros_on([1000], dev).unwrap();
    u.uniform_(-2.0, 2.0).unwrap();
    let uv = host_f64s(&u);
    assert!(
        uv.iter().all(|&v| (-2.0..2.0).contains(&v))
            && uv.iter().any(|&v| v < -1.0)
            && uv.iter().any(|&v| v > 1.0)
    );
    u.normal_(5.0, 0.1).unwrap();
    let mean = host_f64s(&u).iter().sum::<f64>() / 1000.0;
    assert!((mean - 5.0).abs() < 0.05, "{mean}");
    assert!(u.uniform_(1.0, 0.0).is_err());
    u.bernoulli_(0.25).unwrap();
    let ones = host_f64s(&u).iter().filter(|&&v| v == 1.0).count();
    assert!(host_f64s(&u).iter().all(|&v| v == 0.0 || v == 1.0) && (170..330).contains(&ones));
    assert!(u.bernoulli_(1.5).is_err() && u.bernoulli_(f64::NAN).is_err());
}

#[test]
fn in_place_forms_on_every_device() {
    crate::on_every_device!("in-place forms", |dev| { inplace_on(&dev) });
}

/// `ops/inplace/more.rs`: comparisons and logical ops as 0/1 in `self`'s dtype, the new
/// element-wise and product forms, the aliases, and the re-pointing view methods; each equal
/// to its out-of-place result, written through a view, nothing written on error.
fn more_inplace_on<D: Backend>(dev: &D) {
    let f = |v: &[f64], d: &[usize]| {
        Tensor::<f64, D>::from_vec_on(v.to_vec(), d.to_vec(), dev).unwrap()
    };
    let x0 = [0.5, -2.0, f64::NAN, 3.0, -0.25, 1.5];
    let y0 = [0.5, 1.0, 2.0, -3.0, -0.25, 0.0];
    let (x, y) = (f(&x0, &[2, 3]), f(&y0, &[2, 3]));
    let cmp = |b: Tensor<bool, D>| b.try_cast::<f64>().unwrap();
    type Case<'a, D> = (
        &'a str,
        Box<dyn Fn(&mut Tensor<f64, D>) -> Result<()> + 'a>,
        Tensor<f64, D>,
    );
    let ex = Tensor::<i64, D>::from_vec_on(vec![1, -1, 0, 2, 3, -2], [2, 3], dev).unwrap();
    let cases: Vec<Case<D>> = vec![
        ("eq_", Box::new(|t| t.eq_(&y)), cmp(x.try_eq(&y).unwrap())),
        ("ne_", Box::new(|t| t.ne_(&y)), cmp(x.try_ne(&y).unwrap())),
        ("lt_", Box::new(|t| t.lt_(&y)), cmp(x.try_lt(&y).unwrap())),
        ("le_", Box::new(|t| t.le_(&y)), cmp(x.try_le(&y).unwrap())),
        ("gt_", Box::new(|t| t.gt_(&y)), cmp(x.try_gt(&y).unwrap())),
        ("ge_", Box::new(|t| t.ge_(&y)), cmp(x.try_ge(&y).unwrap())),
        (
            "logical_and_",
            Box::new(|t| t.logical_and_(&y)),
            cmp(x.try_logical_and(&y).unwrap()),
        ),
        (
            "logical_or_",
            Box::new(|t| t.logical_or_(&y)),
            cmp(x.try_logical_or(&y).unwrap()),
        ),
        (
            "logical_xor_",
            Box::new(|t| t.logical_xor_(&y)),
            cmp(x.try_logical_xor(&y).unwrap()),
        ),
        (
            "logical_not_",
            Box::new(|t| t.logical_not_()),
            cmp(x.try_logical_not().unwrap()),
        ),
        (
            "deg2rad_",
            Box::new(|t| t.deg2rad_()),
            x.try_deg2rad().unwrap(),
        ),
        (
            "rad2deg_",
            Box::new(|t| t.rad2deg_()),
            x.try_rad2deg().unwrap(),
        ),
        ("frac_", Box::new(|t| t.frac_()), x.try_frac().unwrap()),
        ("fix_", Box::new(|t| t.fix_()), x.try_fix().unwrap()),
        ("rsqrt_", Box::new(|t| t.rsqrt_()), x.try_rsqrt().unwrap()),
        ("sinc_", Box::new(|t| t.sinc_()), x.try_sinc().unwrap()),
        (
            "ldexp_",
            Box::new(|t| t.ldexp_(&ex)),
            x.try_ldexp(&ex).unwrap(),
        ),
        (
            "polygamma_",
            Box::new(|t| t.polygamma_(1)),
            x.try_polygamma(1).unwrap(),
        ),
        (
            "igamma_",
            Box::new(|t| t.igamma_(&y)),
            x.try_igamma(&y).unwrap(),
        ),
        (
            "igammac_",
            Box::new(|t| t.igammac_(&y)),
            x.try_igammac(&y).unwrap(),
        ),
        (
            "nextafter_",
            Box::new(|t| t.nextafter_(&y)),
            x.try_nextafter(&y).unwrap(),
        ),
        (
            "float_power_",
            Box::new(|t| t.float_power_(2.0)),
            x.try_float_power(2.0).unwrap(),
        ),
        ("arccos_", Box::new(|t| t.arccos_()), x.try_acos().unwrap()),
        (
            "arctan2_",
            Box::new(|t| t.arctan2_(&y)),
            x.try_atan2(&y).unwrap(),
        ),
        (
            "absolute_",
            Box::new(|t| t.absolute_()),
            x.try_abs().unwrap(),
        ),
        (
            "negative_",
            Box::new(|t| t.negative_()),
            x.try_neg().unwrap(),
        ),
        (
            "multiply_",
            Box::new(|t| t.multiply_(&y)),
            x.try_mul(&y).unwrap(),
        ),
        (
            "subtract_",
            Box::new(|t| t.subtract_(&y)),
            x.try_sub(&y).unwrap(),
        ),
        (
            "true_divide_",
            Box::new(|t| t.true_divide_(&y)),
            x.try_div(&y).unwrap(),
        ),
    ];
    let same = |a: &[f64], b: &[f64]| {
        a.iter()
            .zip(b)
            .all(|(p, q)| p == q || (p.is_nan() && q.is_nan()))
    };
    for (name, op, want) in &cases {
        // Through a transposed view of a (3, 2) base: the base sees the result, transposed.
        let base = f(&x0, &[2, 3])
            .transpose(0, 1)
            .unwrap()
            .try_contiguous()
            .unwrap();
        let mut view = base.transpose(0, 1).unwrap();
        op(&mut view).unwrap();
        let got = host_f64s(&view);
        assert!(
            same(&got, &host_f64s(want)),
            "{name}: {got:?} vs {:?}",
            host_f64s(want)
        );
        let back = host_f64s(&base.transpose(0, 1).unwrap().try_contiguous().unwrap());
        assert!(same(&back, &host_f64s(want)), "{name}: the base");
        // Requiring grad while recording: an Err, nothing written.
        let mut leaf = f(&x0, &[2, 3]).with_requires_grad(true).unwrap();
        assert!(
            op(&mut leaf).is_err(),
            "{name} on a leaf that requires grad"
        );
        assert!(same(&host_f64s(&leaf), &x0), "{name}: the leaf was written");
    }
    // Shapes that do not broadcast: nothing written.
    let mut t = f(&x0, &[2, 3]);
    assert!(t.eq_(&f(&[1.0, 2.0], &[2])).is_err() && same(&host_f64s(&t), &x0));
    // The fused products against their out-of-place forms.
    let m = f(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
    let v3 = f(&[1.0, -1.0, 0.5], &[3]);
    let v2 = f(&[2.0, -3.0], &[2]);
    let mut acc = v2.try_deep_copy().unwrap();
    acc.addmv_(&m, &v3, 0.5, 2.0).unwrap();
    assert_eq!(
        host_f64s(&acc),
        host_f64s(&v2.try_addmv(&m, &v3, 0.5, 2.0).unwrap())
    );
    let mut outer = m.try_deep_copy().unwrap();
    outer.addr_(&v2, &v3, 1.0, -1.0).unwrap();
    assert_eq!(
        host_f64s(&outer),
        host_f64s(&m.try_addr(&v2, &v3, 1.0, -1.0).unwrap())
    );
    let b1 = f(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], &[2, 2, 2]);
    let mut sq = f(&[1.0, 0.0, 0.0, 1.0], &[2, 2]);
    let want = sq.try_addbmm(&b1, &b1, 2.0, 1.0).unwrap();
    sq.addbmm_(&b1, &b1, 2.0, 1.0).unwrap();
    assert_eq!(host_f64s(&sq), host_f64s(&want));
    let mut bb = b1.try_deep_copy().unwrap();
    let want = b1.try_baddbmm(&b1, &b1, 1.0, 0.5).unwrap();
    bb.baddbmm_(&b1, &b1, 1.0, 0.5).unwrap();
    assert_eq!(host_f64s(&bb), host_f64s(&want));
    // Integers: bitwise_not_, and comparisons as 0/1.
    let mut k = Tensor::<i32, D>::from_vec_on(vec![0, 5, -1], [3], dev).unwrap();
    k.bitwise_not_().unwrap();
    assert_eq!(k.try_to_vec().unwrap(), [-1, -6, 0]);
    k.gt_(&Tensor::<i32, D>::from_vec_on(vec![-2, -6, 1], [3], dev).unwrap())
        .unwrap();
    assert_eq!(k.try_to_vec().unwrap(), [1, 0, 0]);
    // The re-pointing views: only this handle changes.
    let mut v = f(&x0, &[2, 3]);
    let keep = v.clone();
    v.unsqueeze_(0).unwrap();
    assert_eq!(v.dims(), [1, 2, 3]);
    assert!(v.unsqueeze_(9).is_err() && v.dims() == [1, 2, 3]);
    v.squeeze_();
    v.t_();
    assert_eq!(v.dims(), [3, 2]);
    v.swapaxes_(0, 1).unwrap();
    v.squeeze_dims_(&[]).unwrap();
    assert_eq!((v.dims(), keep.dims()), (&[2, 3][..], &[2, 3][..]));
    let mut l = f(&x0, &[2, 3])
        .with_requires_grad(true)
        .unwrap()
        .try_mul_scalar(2.0)
        .unwrap();
    l.detach_();
    assert!(!l.requires_grad());
}

#[test]
fn more_inplace_forms_on_every_device() {
    on_every_device!("more_inplace", |dev| {
        more_inplace_on(&dev);
    });
}
