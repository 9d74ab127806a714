//! `multinomial`, `normal(mean, std)` and the in-place distributions (`exponential_`, `geometric_`, `cauchy_`,
//! `log_normal_`, `random_`) on every device: frequencies and moments within 6 standard
//! errors of the distribution's (a wrong formula is off by far more), the draw order without
//! replacement, reproducibility, and the refusals of PyTorch's checks.

use crate::common::{host_f64s, reproducible};
use typed_tensor::prelude::*;

/// The share of each category among `draws` (indices below `c`).
fn shares(draws: &[i64], c: usize) -> Vec<f64> {
    let mut n = vec![0.0; c];
    for &d in draws {
        n[d as usize] += 1.0;
    }
    n.iter().map(|k| k / draws.len() as f64).collect()
}

/// `|got - p| <= 6·sqrt(p(1 - p)/n)` for every category.
#[track_caller]
fn near(got: &[f64], p: &[f64], n: usize) {
    for (g, p) in got.iter().zip(p) {
        let se = (p * (1.0 - p) / n as f64).sqrt();
        assert!(
            (g - p).abs() <= 6.0 * se + 1e-12,
            "share {g} for p = {p} ({got:?})"
        );
    }
}

#[test]
fn multinomial_draws_by_weight() {
    on_every_device!("multinomial", |dev| {
        // Rows of unnormalised weights, a zero weight in each; f16 and huge f64 weights.
        let w = Tensor::<f32, _>::from_vec_on(vec![1.0, 0.0, 3.0, 0.0, 2.0, 2.0], [2, 3], &dev);
        let w = w.unwrap();
        let n = 20_000;
        let d = w.try_multinomial(n, true).unwrap();
        assert_eq!(d.dims(), [2, n]);
        let v = d.try_to_vec().unwrap();
        near(&shares(&v[..n], 3), &[0.25, 0.0, 0.75], n);
        near(&shares(&v[n..], 3), &[0.0, 0.5, 0.5], n);
        let big = Tensor::<f64, _>::from_vec_on(vec![1e308, 0.0, 1e308], [3], &dev).unwrap();
        let v = big.try_multinomial(n, true).unwrap().try_to_vec().unwrap();
        near(&shares(&v, 3), &[0.5, 0.0, 0.5], n);
        let h = Tensor::<f16, _>::from_vec_on(vec![f16::from_f32(1e-4), f16::ONE], [2], &dev);
        let v = h
            .unwrap()
            .try_multinomial(n, true)
            .unwrap()
            .try_to_vec()
            .unwrap();
        near(&shares(&v, 2), &[1e-4 / 1.0001, 1.0 / 1.0001], n);

        // Without replacement: distinct indices in draw order, the zero weights last in
        // index order; P(first = i) = w_i / Σw, P(2 then 1) = 1/2 · 2/3 for weights 1, 2, 3.
        let w = Tensor::<f64, _>::from_vec_on(vec![0.0, 1.0, 0.0, 2.0, 3.0], [5], &dev).unwrap();
        let rows = 6000;
        let batch = w.unsqueeze(0).unwrap().expand([rows, 5]).unwrap();
        let v = batch
            .try_multinomial(5, false)
            .unwrap()
            .try_to_vec()
            .unwrap();
        let (mut first, mut pair) = (vec![], 0);
        for r in v.chunks(5) {
            assert_eq!(&r[3..], [0, 2], "zero weights last, in index order: {r:?}");
            let mut s = r[..3].to_vec();
            s.sort();
            assert_eq!(s, [1, 3, 4]);
            first.push(r[0]);
            pair += usize::from(r[..2] == [4, 3]);
        }
        near(
            &shares(&first, 5),
            &[0.0, 1.0 / 6.0, 0.0, 2.0 / 6.0, 0.5],
            rows,
        );
        near(&[pair as f64 / rows as f64], &[1.0 / 3.0], rows);
        let k = w.try_multinomial(2, false).unwrap();
        assert_eq!(k.dims(), [2]);
        assert!(k.try_to_vec().unwrap().iter().all(|&i| i != 0 && i != 2));

        // Reproducible under manual_seed; an empty batch; a grad-requiring input.
        assert!(reproducible(11, || w
            .try_multinomial(4, false)
            .unwrap()
            .try_to_vec()
            .unwrap()));
        assert!(reproducible(12, || w
            .try_multinomial(9, true)
            .unwrap()
            .try_to_vec()
            .unwrap()));
        let e = Tensor::<f32, _>::zeros_on([0, 3], &dev).unwrap();
        assert_eq!(e.try_multinomial(2, true).unwrap().dims(), [0, 2]);
        let g = w.clone().with_requires_grad(true).unwrap();
        assert_eq!(g.try_multinomial(3, true).unwrap().dims(), [3]);

        // PyTorch's refusals; nothing huge is allocated for a huge sample count.
        let bad = |r: Result<Tensor<i64, _>>, what: &str| match r {
            Err(Error::InvalidArgument {
                op: "multinomial",
                msg,
            }) => {
                assert!(msg.contains(what), "{msg}")
            }
            Err(Error::ShapeOverflow { .. }) if what == "overflow" => {}
            other => panic!("expected an error about {what}, got {other:?}"),
        };
        let t = |v: Vec<f64>, s: &[usize]| Tensor::<f64, _>::from_vec_on(v, s, &dev).unwrap();
        bad(t(vec![1.0], &[]).try_multinomial(1, true), "shape");
        bad(
            t(vec![1.0; 8], &[2, 2, 2]).try_multinomial(1, true),
            "shape",
        );
        bad(w.try_multinomial(0, true), "num_samples");
        bad(w.try_multinomial(6, false), "without replacement");
        bad(t(vec![1.0, f64::NAN], &[2]).try_multinomial(1, true), "NaN");
        bad(
            t(vec![1.0, f64::INFINITY], &[2]).try_multinomial(1, true),
            "inf",
        );
        bad(t(vec![1.0, -1.0], &[2]).try_multinomial(1, true), "-1");
        bad(
            t(vec![1.0, 2.0, 0.0, 0.0], &[2, 2]).try_multinomial(1, true),
            "row 1",
        );
        bad(t(vec![], &[1, 0]).try_multinomial(1, true), "row 0");
        bad(w.try_multinomial(usize::MAX, true), "overflow");
    });
}

/// Mean and standard deviation of `v`.
fn moments(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    (
        m,
        (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n).sqrt(),
    )
}

#[test]
fn in_place_distributions() {
    on_every_device!("distributions_", |dev| {
        let n = 40_000;
        let z = || Tensor::<f64, _>::zeros_on([n], &dev).unwrap();
        let se = |sd: f64| 6.0 * sd / (n as f64).sqrt();
        // Exponential(λ = 4): mean and sd 1/4.
        let mut t = z();
        t.exponential_(4.0).unwrap();
        let v = t.try_to_vec().unwrap();
        assert!(v.iter().all(|&x| x >= 0.0 && x.is_finite()));
        let (m, s) = moments(&v);
        assert!(
            (m - 0.25).abs() < se(0.25) && (s - 0.25).abs() < 0.02,
            "{m} {s}"
        );
        t.exponential_(f64::INFINITY).unwrap();
        assert!(t.try_to_vec().unwrap().iter().all(|&x| x == 0.0));
        // Geometric(p = 0.2): integers from 1, mean 1/p = 5, sd sqrt(1 - p)/p.
        let mut t = z();
        t.geometric_(0.2).unwrap();
        let v = t.try_to_vec().unwrap();
        assert!(v.iter().all(|&x| x >= 1.0 && x.fract() == 0.0));
        let (m, _) = moments(&v);
        assert!((m - 5.0).abs() < se(0.8f64.sqrt() / 0.2), "{m}");
        let ones = v.iter().filter(|&&x| x == 1.0).count() as f64 / n as f64;
        assert!((ones - 0.2).abs() < se(0.4), "P(1) = {ones}");
        // Cauchy(median 3, scale 2): half the draws below the median, a quarter within one
        // scale above it.
        let mut t = z();
        t.cauchy_(3.0, 2.0).unwrap();
        let v = t.try_to_vec().unwrap();
        let below = v.iter().filter(|&&x| x < 3.0).count() as f64 / n as f64;
        let within = v.iter().filter(|&&x| (3.0..5.0).contains(&x)).count() as f64 / n as f64;
        assert!(
            (below - 0.5).abs() < se(0.5) && (within - 0.25).abs() < se(0.433),
            "{below} {within}"
        );
        // Log-normal(μ = -1, σ = 0.5): the logarithm's moments.
        let mut t = z();
        t.log_normal_(-1.0, 0.5).unwrap();
        let logs: Vec<f64> = t.try_to_vec().unwrap().iter().map(|x| x.ln()).collect();
        let (m, s) = moments(&logs);
        assert!(
            (m + 1.0).abs() < se(0.5) && (s - 0.5).abs() < 0.02,
            "{m} {s}"
        );
        // random_(-2, 3): the integers -2..=2, equally often; in f16 too.
        let mut t = Tensor::<f16, _>::zeros_on([n], &dev).unwrap();
        t.random_(-2, 3).unwrap();
        let v: Vec<i64> = t
            .try_to_vec()
            .unwrap()
            .iter()
            .map(|x| x.to_f64() as i64 + 2)
            .collect();
        near(&shares(&v, 5), &[0.2; 5], n);
        // f32 and bf16 through the f64 draws; a leaf that requires grad may be filled.
        let mut b = Tensor::<bf16, _>::zeros_on([1000], &dev).unwrap();
        b.exponential_(1.0).unwrap();
        assert!(b.try_to_vec().unwrap().iter().all(|x| x.to_f64() >= 0.0));
        let mut w = Tensor::<f32, _>::zeros_on([3], &dev)
            .unwrap()
            .with_requires_grad(true)
            .unwrap();
        w.log_normal_(0.0, 1.0).unwrap();
        assert!(w.requires_grad() && w.try_to_vec().unwrap().iter().all(|&x| x > 0.0));
        assert!(reproducible(5, || {
            let mut t = Tensor::<f32, _>::zeros_on([8], &dev).unwrap();
            t.cauchy_(0.0, 1.0).unwrap();
            t.try_to_vec().unwrap()
        }));

        // PyTorch's refusals; nothing is written on error; a broadcast view is refused.
        let mut t = z();
        let refused = |r: Result<()>, op: &str| match r {
            Err(Error::InvalidArgument { op: o, .. }) => assert_eq!(o, op),
            other => panic!("{op}: expected InvalidArgument, got {other:?}"),
        };
        refused(t.exponential_(0.0), "exponential_");
        refused(t.exponential_(f64::NAN), "exponential_");
        refused(t.geometric_(1.0), "geometric_");
        refused(t.geometric_(0.0), "geometric_");
        refused(t.cauchy_(0.0, 0.0), "cauchy_");
        refused(t.cauchy_(f64::INFINITY, 1.0), "cauchy_");
        refused(t.log_normal_(0.0, -1.0), "log_normal_");
        refused(t.random_(3, 3), "randint");
        assert!(t.try_to_vec().unwrap().iter().all(|&x| x == 0.0));
        let mut view = Tensor::<f32, _>::zeros_on([1], &dev)
            .unwrap()
            .expand([4])
            .unwrap();
        assert!(matches!(view.exponential_(1.0), Err(Error::Layout { .. })));
    });
}

#[test]
fn poisson_and_binomial() {
    on_every_device!("poisson", |dev| {
        let n = 20_000;
        // Rates 0, 0.5, 4 and 1000 (rand_distr switches method above 12), n draws of each.
        let rates: Vec<f64> = [0.0, 0.5, 4.0, 1000.0]
            .iter()
            .flat_map(|&r| vec![r; n])
            .collect();
        let r = Tensor::<f64, _>::from_vec_on(rates, [4, n], &dev).unwrap();
        let v = r.try_poisson().unwrap().try_to_vec().unwrap();
        for (row, rate) in v.chunks(n).zip([0.0, 0.5, 4.0, 1000.0]) {
            assert!(row.iter().all(|&k| k >= 0.0 && k.fract() == 0.0));
            let (m, s) = moments(row);
            let tol = 6.0 * (rate / n as f64).sqrt() + 1e-12;
            assert!((m - rate).abs() <= tol, "rate {rate}: mean {m}");
            assert!(
                (s * s - rate).abs() <= 0.08 * rate + 1e-12,
                "rate {rate}: variance {}",
                s * s
            );
        }
        // Binomial: count (2, 1) and probability (3,) broadcast to (2, 3).
        let count = Tensor::<f32, _>::from_vec_on(vec![10.0, 0.0], [2, 1], &dev).unwrap();
        let prob = Tensor::<f32, _>::from_vec_on(vec![0.0, 0.3, 1.0], [3], &dev).unwrap();
        let b = Tensor::try_binomial(&count, &prob).unwrap();
        assert_eq!(b.dims(), [2, 3]);
        let b = b.try_to_vec().unwrap();
        assert_eq!((b[0], b[2]), (0.0, 10.0));
        assert!(b[1] >= 0.0 && b[1] <= 10.0 && b[1].fract() == 0.0 && b[3..] == [0.0; 3]);
        let trials = Tensor::<f64, _>::full_on([n], 50.0, &dev).unwrap();
        let p = Tensor::<f64, _>::full_on([1], 0.2, &dev).unwrap();
        let v = Tensor::try_binomial(&trials, &p)
            .unwrap()
            .try_to_vec()
            .unwrap();
        let (m, s) = moments(&v);
        assert!((m - 10.0).abs() < 6.0 * (8.0 / n as f64).sqrt() && (s * s - 8.0).abs() < 0.5);
        assert!(reproducible(21, || r
            .try_poisson()
            .unwrap()
            .try_to_vec()
            .unwrap()[n..n + 50]
            .to_vec()));

        // Refusals.
        let f = |v: Vec<f64>| Tensor::<f64, _>::from_vec_on(v.clone(), [v.len()], &dev).unwrap();
        for bad in [-1.0, f64::NAN, f64::INFINITY, 1e20] {
            let e = f(vec![1.0, bad]).try_poisson();
            assert!(
                matches!(e, Err(Error::InvalidArgument { op: "poisson", .. })),
                "{bad}: {e:?}"
            );
        }
        for (c, p) in [
            (-1.0, 0.5),
            (2.5, 0.5),
            (f64::NAN, 0.5),
            (1e300, 0.5),
            (3.0, 1.5),
            (3.0, f64::NAN),
        ] {
            let e = Tensor::try_binomial(&f(vec![c]), &f(vec![p]));
            assert!(
                matches!(e, Err(Error::InvalidArgument { op: "binomial", .. })),
                "{c} {p}: {e:?}"
            );
        }
        assert!(matches!(
            Tensor::try_binomial(&f(vec![1.0, 2.0]), &f(vec![0.5; 3])),
            Err(Error::Broadcast { op: "binomial", .. })
        ));
    });
}

/// `normal(mean, std)` as PyTorch's `torch.normal`: broadcast shapes, the moments, `std = 0`
/// exact, the refusals, and no graph.
#[test]
fn normal_with_tensor_parameters() {
    on_every_device!("normal", |dev| {
        let t =
            |v: &[f64], s: &[usize]| Tensor::<f64, _>::from_vec_on(v.to_vec(), s, &dev).unwrap();
        let mean = t(&[0.0, 5.0, -3.0], &[3, 1])
            .with_requires_grad(true)
            .unwrap();
        let std = t(&[0.0, 2.0], &[2]);
        let x = mean.try_normal(&std).unwrap();
        assert_eq!(x.dims(), [3, 2]);
        assert!(!x.requires_grad());
        let v = host_f64s(&x);
        assert_eq!((v[0], v[2], v[4]), (0.0, 5.0, -3.0));
        let big = t(&[2.0], &[1]).expand([200_000]).unwrap();
        let x = big.try_normal(&t(&[3.0], &[])).unwrap();
        let m = host_f64s(&x.try_mean(&[], false).unwrap())[0];
        let s = host_f64s(&x.try_std(&[], 1, false).unwrap())[0];
        assert!((m - 2.0).abs() < 0.03 && (s - 3.0).abs() < 0.03, "{m} {s}");
        for bad in [-1.0, f64::NAN] {
            assert!(mean.try_normal(&t(&[bad], &[1])).is_err());
        }
        assert!(mean.try_normal(&t(&[1.0; 4], &[2, 2])).is_err());
    });
}
