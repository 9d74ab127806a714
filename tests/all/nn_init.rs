//! `nn::init` (PyTorch's `torch.nn.init`): gains and fans against PyTorch's values, the
//! samples' bounds and moments against the distributions' formulas (200 Ki samples: a moment
//! is off by more than 3% with odds far below 1e-9), on every device; refused arguments.

use typed_tensor::nn::init::{self, FanMode, Nonlinearity};
use typed_tensor::prelude::*;

/// Mean and standard deviation.
fn moments(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    (mean, var.sqrt())
}

use crate::common::host_f64s as values;

#[test]
fn gains_and_fans_match_pytorch() {
    // torch.nn.init.calculate_gain
    let gains = [
        (Nonlinearity::Linear, 1.0),
        (Nonlinearity::Sigmoid, 1.0),
        (Nonlinearity::Tanh, 5.0 / 3.0),
        (Nonlinearity::Relu, 2f64.sqrt()),
        (Nonlinearity::LeakyRelu(0.01), 1.4141428569978354),
        (Nonlinearity::LeakyRelu(5f64.sqrt()), 0.5773502691896257),
        (Nonlinearity::Selu, 0.75),
    ];
    for (n, g) in gains {
        assert!((init::calculate_gain(n) - g).abs() < 1e-15, "{n:?}");
    }
    assert_eq!(init::fan_in_and_fan_out(&[4, 3, 5, 5]).unwrap(), (75, 100));
    assert_eq!(init::fan_in_and_fan_out(&[10, 20]).unwrap(), (20, 10));
    assert!(init::fan_in_and_fan_out(&[3]).is_err());
    assert!(init::fan_in_and_fan_out(&[]).is_err());
    let e = init::fan_in_and_fan_out(&[2, usize::MAX, 2]).unwrap_err();
    assert!(e.to_string().contains("fan_in_and_fan_out"), "{e}");
}

/// Every initialiser on `dev` in `T`, with a tolerance for the moments.
fn check_all<T: FloatElement, D: Backend>(dev: &D) {
    let fresh = |dims: &[usize]| Tensor::<T, D>::zeros_on(dims.to_vec(), dev).unwrap();
    let n = [512, 400]; // 200 Ki samples; fan_in 400, fan_out 512
    let close = |got: f64, want: f64, what: &str| {
        assert!(
            (got - want).abs() <= 0.03 * want.abs().max(0.01),
            "{what} ({:?}): {got} against {want}",
            T::DTYPE
        );
    };

    let mut t = fresh(&n).with_requires_grad(true).unwrap();
    init::uniform_(&mut t, -0.5, 1.5).unwrap();
    assert!(t.requires_grad() && t.is_leaf());
    let v = values(&t);
    assert!(v.iter().all(|&x| (-0.5..=1.5).contains(&x)));
    let (m, s) = moments(&v);
    close(m, 0.5, "uniform mean");
    close(s, 2.0 / 12f64.sqrt(), "uniform std");

    init::normal_(&mut t, 2.0, 0.5).unwrap();
    let (m, s) = moments(&values(&t));
    close(m, 2.0, "normal mean");
    close(s, 0.5, "normal std");

    init::xavier_uniform_(&mut t, 2.0).unwrap();
    let a = 2.0 * (6.0f64 / 912.0).sqrt();
    let v = values(&t);
    assert!(v.iter().all(|x| x.abs() <= a * (1.0 + 1e-3)));
    close(moments(&v).1, a / 3f64.sqrt(), "xavier_uniform std");

    init::xavier_normal_(&mut t, 1.0).unwrap();
    close(
        moments(&values(&t)).1,
        (2.0f64 / 912.0).sqrt(),
        "xavier_normal std",
    );

    init::kaiming_normal_(&mut t, FanMode::FanIn, Nonlinearity::Relu).unwrap();
    close(
        moments(&values(&t)).1,
        (2.0f64 / 400.0).sqrt(),
        "kaiming_normal std",
    );
    init::kaiming_normal_(&mut t, FanMode::FanOut, Nonlinearity::Tanh).unwrap();
    close(
        moments(&values(&t)).1,
        5.0 / 3.0 / 512f64.sqrt(),
        "kaiming_normal fan_out std",
    );

    // nn.Linear's default: a bound of 1/√fan_in.
    init::kaiming_uniform_(&mut t, FanMode::FanIn, Nonlinearity::LeakyRelu(5f64.sqrt())).unwrap();
    let v = values(&t);
    assert!(v.iter().all(|x| x.abs() <= 0.05 * (1.0 + 1e-3)));
    close(moments(&v).1, 0.05 / 3f64.sqrt(), "kaiming_uniform std");

    // Truncated to [-0.5, 1] around 0.5 with std 1: the truncated normal's moments.
    init::trunc_normal_(&mut t, 0.5, 1.0, -0.5, 1.0).unwrap();
    let v = values(&t);
    assert!(v.iter().all(|x| (-0.5..=1.0).contains(x)));
    let pdf = |x: f64| (-x * x / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt();
    let cdf = |x: f64| 0.5 * (1.0 + libm::erf(x / 2f64.sqrt()));
    let (al, be) = (-1.0, 0.5);
    let z = cdf(be) - cdf(al);
    let mean = 0.5 + (pdf(al) - pdf(be)) / z;
    let var = 1.0 + (al * pdf(al) - be * pdf(be)) / z - ((pdf(al) - pdf(be)) / z).powi(2);
    let (m, s) = moments(&v);
    close(m, mean, "trunc_normal mean");
    close(s, var.sqrt(), "trunc_normal std");

    // Orthogonal rows (wide) and columns (tall, and a 3-d weight seen as (3, 20)).
    for dims in [&[6usize, 10][..], &[10, 6], &[3, 4, 5]] {
        let mut w = fresh(dims);
        init::orthogonal_(&mut w, 2.0).unwrap();
        let rows = dims[0];
        let m = w.reshape([rows as i64, -1]).cast::<f64>();
        let cols = m.dims()[1];
        let gram = if rows <= cols {
            m.matmul(&m.t())
        } else {
            m.t().matmul(&m)
        };
        let k = rows.min(cols);
        let eye = Tensor::<f64, D>::eye_on(k, dev).unwrap().mul_scalar(4.0);
        let tol = if T::DTYPE == Dtype::Float64 {
            1e-12
        } else {
            4.0 * typed_tensor_tol::<T>()
        };
        let d = gram
            .sub(&eye)
            .abs()
            .max(&[], false)
            .to_device(&Cpu)
            .unwrap()
            .item();
        assert!(
            d <= tol,
            "orthogonal_ {dims:?} ({:?}): off by {d}",
            T::DTYPE
        );
    }

    let mut w = fresh(&[3, 5]);
    init::eye_(&mut w).unwrap();
    let want: Vec<f64> = (0..15)
        .map(|i| if i % 5 == i / 5 { 1.0 } else { 0.0 })
        .collect();
    assert_eq!(values(&w), want);
    init::constant_(&mut w, 0.25).unwrap();
    assert!(values(&w).iter().all(|&x| x == 0.25));
    init::ones_(&mut w).unwrap();
    init::zeros_(&mut w).unwrap();
    assert!(values(&w).iter().all(|&x| x == 0.0));
    // A view is written through to its base.
    let base = fresh(&[4, 6]);
    let mut col = base.narrow(1, 2, 1).unwrap();
    init::ones_(&mut col).unwrap();
    assert_eq!(values(&base).iter().sum::<f64>(), 4.0);
    // Zero elements: nothing to do, as in PyTorch.
    for dims in [[0, 4], [4, 0]] {
        init::kaiming_uniform_(&mut fresh(&dims), FanMode::FanIn, Nonlinearity::Relu).unwrap();
        init::kaiming_normal_(&mut fresh(&dims), FanMode::FanOut, Nonlinearity::Relu).unwrap();
        init::xavier_normal_(&mut fresh(&dims), 1.0).unwrap();
    }
    init::orthogonal_(&mut fresh(&[0, 3]), 1.0).unwrap();
}

/// Half the spacing of `T`'s numbers at 1.
fn typed_tensor_tol<T: FloatElement>() -> f64 {
    match T::DTYPE {
        Dtype::Float32 => 1.2e-7,
        Dtype::Float16 => 1e-3,
        _ => 8e-3,
    }
}

#[test]
fn initialisers_sample_their_distributions() {
    on_every_device!("initialisers_sample_their_distributions", |dev| {
        check_all::<f64, _>(&dev);
        check_all::<f32, _>(&dev);
    });
    check_all::<f16, _>(&Cpu);
    check_all::<bf16, _>(&Cpu);
}

#[test]
fn initialisers_refuse_bad_arguments() {
    let mut t = Tensor::<f32>::zeros([4, 3]).unwrap();
    let errors = [
        init::uniform_(&mut t, 1.0, -1.0),
        init::uniform_(&mut t, f64::NAN, 1.0),
        init::normal_(&mut t, 0.0, -1.0),
        init::normal_(&mut t, f64::INFINITY, 1.0),
        init::trunc_normal_(&mut t, 0.0, 1.0, 2.0, -2.0),
        init::xavier_uniform_(&mut t, -1.0),
        init::orthogonal_(&mut t, f64::NAN),
        init::kaiming_normal_(
            &mut Tensor::<f32>::zeros([4]).unwrap(),
            FanMode::FanIn,
            Nonlinearity::Relu,
        ),
        init::eye_(&mut Tensor::<f32>::zeros([2, 2, 2]).unwrap()),
        init::orthogonal_(&mut Tensor::<f32>::zeros([5]).unwrap(), 1.0),
    ];
    for (i, r) in errors.into_iter().enumerate() {
        let e = r.unwrap_err().to_string();
        assert!(e.contains('_'), "case {i}: {e}");
    }
    assert!(
        t.to_vec().iter().all(|&x| x == 0.0),
        "refused calls wrote nothing"
    );
    // A tensor inside a recorded graph is refused; a broadcast view cannot be written.
    let leaf = Tensor::<f32>::ones([2, 2])
        .unwrap()
        .with_requires_grad(true)
        .unwrap();
    let mut inner = leaf.mul_scalar(2.0);
    assert!(init::normal_(&mut inner, 0.0, 1.0).is_err());
    let mut wide = Tensor::<f32>::ones([1, 3])
        .unwrap()
        .broadcast_to([4, 3])
        .unwrap();
    assert!(init::constant_(&mut wide, 2.0).is_err());
}
