//! `packbits`/`unpackbits`, `matvec`/`vecmat`, `rollaxis`, `choose`, `array_equiv`,
//! `unique_all`, `apply_along_axis` and `fromfunction` on every device against NumPy 2.4's
//! answers (the values below), with their edge cases and refusals.

use typed_tensor::ops::numpy_arrays::{BitOrder, ChooseMode};
use typed_tensor::prelude::*;

#[test]
fn numpy_array_routines_match_numpy() {
    on_every_device!("numpy_arrays", |dev| {
        let i64s =
            |v: Vec<i64>, d: &[usize]| Tensor::<i64, _>::from_vec_on(v, d.to_vec(), &dev).unwrap();
        let f64s =
            |v: Vec<f64>, d: &[usize]| Tensor::<f64, _>::from_vec_on(v, d.to_vec(), &dev).unwrap();
        let a = i64s(vec![1, 0, 3, 0, 0, 1, 1, 1, 1, 0, 2, 0], &[2, 2, 3]);
        let p = a.try_packbits(Some(1), BitOrder::Big).unwrap();
        assert_eq!(
            (p.dims(), p.try_to_vec().unwrap()),
            (&[2, 1, 3][..], vec![128u8, 0, 192, 128, 192, 128])
        );
        let p = a.try_packbits(Some(2), BitOrder::Little).unwrap();
        assert_eq!(
            (p.dims(), p.try_to_vec().unwrap()),
            (&[2, 2, 1][..], vec![5u8, 4, 7, 2])
        );
        assert_eq!(
            a.try_packbits(None, BitOrder::Big)
                .unwrap()
                .try_to_vec()
                .unwrap(),
            [167u8, 160]
        );
        let empty = Tensor::<bool, _>::zeros_on([3, 0], &dev).unwrap();
        assert_eq!(
            empty.try_packbits(Some(1), BitOrder::Big).unwrap().dims(),
            [3, 0]
        );
        let t = Tensor::<bool, _>::scalar_on(true, &dev).unwrap();
        assert_eq!(
            t.try_packbits(None, BitOrder::Big)
                .unwrap()
                .try_to_vec()
                .unwrap(),
            [128u8]
        );
        assert!(t.try_packbits(Some(0), BitOrder::Big).is_err());

        let b = Tensor::<u8, _>::from_vec_on(vec![7, 200, 1, 255], [2, 2], &dev).unwrap();
        let u = b.try_unpackbits(Some(1), None, BitOrder::Big).unwrap();
        let want = [
            0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1,
            1, 1, 1,
        ];
        assert_eq!(
            (u.dims(), u.try_to_vec().unwrap()),
            (&[2, 16][..], want.to_vec())
        );
        let u = b
            .try_unpackbits(Some(0), Some(-3), BitOrder::Little)
            .unwrap();
        let want = [
            1, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1, 0, 1,
        ];
        assert_eq!(
            (u.dims(), u.try_to_vec().unwrap()),
            (&[13, 2][..], want.to_vec())
        );
        let u = b
            .try_unpackbits(None, Some(20), BitOrder::Big)
            .unwrap()
            .try_to_vec()
            .unwrap();
        assert_eq!(
            u,
            [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]
        );
        assert_eq!(
            b.try_unpackbits(Some(1), Some(0), BitOrder::Big)
                .unwrap()
                .dims(),
            [2, 0]
        );
        let e = b
            .try_unpackbits(None, Some(-40), BitOrder::Big)
            .unwrap_err()
            .to_string();
        assert!(e.contains("unpackbits") && e.contains("-40"), "{e}");
        // Round trip over bytes of every value.
        let all = Tensor::<u8, _>::from_vec_on((0..=255).collect(), [256], &dev).unwrap();
        for order in [BitOrder::Big, BitOrder::Little] {
            let bits = all.try_unpackbits(None, None, order).unwrap();
            assert_eq!(
                bits.try_packbits(None, order)
                    .unwrap()
                    .try_to_vec()
                    .unwrap(),
                all.try_to_vec().unwrap()
            );
        }

        let m = f64s((0..12).map(f64::from).collect(), &[2, 1, 2, 3]);
        let v = f64s(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
        let mv = m.try_matvec(&v).unwrap();
        assert_eq!(
            (mv.dims(), mv.try_to_vec().unwrap()),
            (
                &[2, 2, 2][..],
                vec![8.0, 26.0, 17.0, 62.0, 44.0, 62.0, 107.0, 152.0]
            )
        );
        let vm = f64s(vec![1.0, 2.0], &[2]).try_vecmat(&m).unwrap();
        assert_eq!(
            (vm.dims(), vm.try_to_vec().unwrap()),
            (&[2, 1, 3][..], vec![6.0, 9.0, 12.0, 24.0, 27.0, 30.0])
        );
        assert!(
            v.try_matvec(&f64s(vec![1.0, 2.0], &[2])).is_err()
                && v.try_vecmat(&f64s(vec![1.0], &[1])).is_err()
        );

        let z = Tensor::<f32, _>::zeros_on([2, 3, 4, 5], &dev).unwrap();
        for ((axis, start), want) in [
            ((3, 1), [2, 5, 3, 4]),
            ((2, 0), [4, 2, 3, 5]),
            ((1, 4), [2, 4, 5, 3]),
            ((-1, -3), [2, 5, 3, 4]),
            ((0, 4), [3, 4, 5, 2]),
        ] {
            assert_eq!(z.rollaxis(axis, start).unwrap().dims(), want);
        }
        assert!(
            z.rollaxis(4, 0).is_err() && z.rollaxis(0, 5).is_err() && z.rollaxis(0, -5).is_err()
        );

        let idx = i64s(vec![0, 1, 2, 5], &[2, 2]);
        let (c0, c1, c2) = (
            i64s(vec![1, 2], &[2]),
            i64s(vec![10, 20], &[2, 1]),
            i64s(vec![7], &[]),
        );
        let c = Tensor::try_choose(&idx, &[&c0, &c1, &c2], ChooseMode::Wrap).unwrap();
        assert_eq!(c.try_to_vec().unwrap(), [1, 10, 7, 7]);
        let e = Tensor::try_choose(&idx, &[&c0, &c1, &c2], ChooseMode::Raise)
            .unwrap_err()
            .to_string();
        assert!(e.contains("choose") && e.contains('5'), "{e}");
        let clip = Tensor::try_choose(
            &i64s(vec![-1, 3], &[2]),
            &[&i64s(vec![1, 2], &[2]), &i64s(vec![3, 4], &[2])],
            ChooseMode::Clip,
        )
        .unwrap();
        assert_eq!(clip.try_to_vec().unwrap(), [1, 4]);
        assert!(Tensor::<i64, _>::try_choose(&idx, &[], ChooseMode::Raise).is_err());

        let (x, y) = (i64s(vec![1, 2], &[2]), i64s(vec![1, 2, 1, 2], &[2, 2]));
        assert!(x.try_array_equiv(&y).unwrap());
        assert!(!x.try_array_equiv(&i64s(vec![1, 2, 1, 3], &[2, 2])).unwrap());
        assert!(!x.try_array_equiv(&i64s(vec![1, 2, 3], &[3])).unwrap());
        assert!(
            !f64s(vec![f64::NAN], &[1])
                .try_array_equiv(&f64s(vec![f64::NAN], &[1]))
                .unwrap()
        );

        let (values, first, inverse, counts) = i64s(vec![3, 1, 3, 2, 1, 3], &[2, 3])
            .try_unique_all()
            .unwrap();
        assert_eq!(values.try_to_vec().unwrap(), [1, 2, 3]);
        assert_eq!(first.try_to_vec().unwrap(), [1, 3, 0]);
        assert_eq!(
            (inverse.dims(), inverse.try_to_vec().unwrap()),
            (&[2, 3][..], vec![2, 0, 2, 1, 0, 2])
        );
        assert_eq!(counts.try_to_vec().unwrap(), [2, 1, 3]);

        let x = f64s(
            vec![3.0, 1.0, 2.0, 5.0, 6.0, 5.0, 4.0, 0.0, 1.0, 1.0, 1.0, 1.0],
            &[3, 4],
        );
        let r = x
            .try_apply_along_axis(0, |col| {
                Tensor::try_concat(&[&col.try_amax(&[0], true)?, &col.try_sum(&[0], true)?], 0)
            })
            .unwrap();
        assert_eq!(
            (r.dims(), r.try_to_vec().unwrap()),
            (&[2, 4][..], vec![6.0, 5.0, 4.0, 5.0, 10.0, 7.0, 7.0, 6.0])
        );
        let outer = x
            .try_apply_along_axis(1, |row| {
                let h = row.narrow(0, 0, 2)?;
                h.unsqueeze(1)?.try_mul(&h.unsqueeze(0)?)
            })
            .unwrap();
        assert_eq!(outer.dims(), [3, 2, 2]);
        assert_eq!(
            outer.select(0, 1).unwrap().try_to_vec().unwrap(),
            [36.0, 30.0, 30.0, 25.0]
        );
        let mut calls = 0;
        let e = x.try_apply_along_axis(1, |row| {
            calls += 1;
            row.narrow(0, 0, calls)
        });
        assert!(e.unwrap_err().to_string().contains("apply_along_axis"));
        assert!(
            Tensor::<f64, _>::zeros_on([0, 3], &dev)
                .unwrap()
                .try_apply_along_axis(1, |r| Ok(r.clone()))
                .is_err()
        );

        let g = Tensor::<f64, _>::fromfunction_on(&[2, 3], &dev, |ij| {
            ij[0].try_mul_scalar(10.0)?.try_add(&ij[1])
        })
        .unwrap();
        assert_eq!(g.try_to_vec().unwrap(), [0.0, 1.0, 2.0, 10.0, 11.0, 12.0]);
        let grids = Tensor::<i64, _>::index_grids_on(&[2, 2], &dev).unwrap();
        let stacked = Tensor::try_stack(&[&grids[0], &grids[1]], 0).unwrap();
        assert_eq!(stacked.try_to_vec().unwrap(), [0, 0, 1, 1, 0, 1, 0, 1]); // np.indices((2, 2))
    });
}

#[test]
fn numpy_array_routines_gradients_and_hostile_sizes() {
    use crate::common::check_grad;
    let x = Tensor::<f64>::from_vec((0..12).map(|i| (i as f64 * 0.7).sin()).collect(), [2, 2, 3])
        .unwrap();
    let v = Tensor::<f64>::from_vec(vec![0.3, -1.2, 0.8], [3]).unwrap();
    check_grad(
        "matvec",
        &|t| t[0].try_matvec(&t[1]),
        &[x.clone(), v.clone()],
    );
    let w = Tensor::<f64>::from_vec(vec![0.5, -0.25], [2]).unwrap();
    check_grad("vecmat", &|t| t[0].try_vecmat(&t[1]), &[w, x.clone()]);
    let idx = Tensor::<i64>::from_vec(vec![1, 0, 1], [3]).unwrap();
    check_grad(
        "choose",
        &|t| Tensor::try_choose(&idx, &[&t[0], &t[1]], ChooseMode::Raise),
        &[v.clone(), v.try_exp().unwrap()],
    );
    check_grad(
        "apply_along_axis",
        &|t| t[0].try_apply_along_axis(2, |r| r.try_mul(r)?.try_sum(&[0], false)),
        &[x],
    );
    // A count of 2^63 - 1 bits, or a broadcast of 2^40 elements: an Err, never an abort.
    let b = Tensor::<u8>::from_vec(vec![1, 2], [2]).unwrap();
    assert!(
        b.try_unpackbits(None, Some(i64::MAX), BitOrder::Big)
            .is_err()
    );
    let huge = Tensor::<bool>::scalar(true).expand([1usize << 40]).unwrap();
    assert!(huge.try_packbits(None, BitOrder::Big).is_err());
    assert!(
        huge.try_apply_along_axis(0, |r| r.try_cast::<f32>())
            .is_err()
    );
}
