//! `pad_mode` against NumPy 2.4's `np.pad` (`tests/data/numpy/pad.npz`, made by
//! `make/pad.py`: 40 random cases, pads up to twice the axis) on every device, in f64 and
//! through a cast to i32; gradients by finite differences on strided input; refused arguments.

use crate::common::assert_close;
use typed_tensor::autograd::gradcheck;
use typed_tensor::io::load_npz;
use typed_tensor::ops::pad::PadMode;
use typed_tensor::prelude::*;

const MODES: [PadMode; 4] = [
    PadMode::Reflect,
    PadMode::Symmetric,
    PadMode::Replicate,
    PadMode::Circular,
];

/// The typed tensor of a `DynTensor` of f64 on `dev`'s device type.
fn back<D: Backend>(t: DynTensor, _dev: &D) -> Tensor<f64, D> {
    t.downcast::<f64, D>().unwrap()
}

#[test]
fn pad_modes_match_numpy() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/numpy");
    let a = load_npz(format!("{dir}/pad.npz")).unwrap();
    on_every_device!("pad_modes_match_numpy", |dev| {
        for i in 0..40 {
            let get = |k: &str| a[&format!("{k}{i}")].clone();
            let x = get("x")
                .downcast::<f64, Cpu>()
                .unwrap()
                .to_device(&dev)
                .unwrap();
            let pads: Vec<(usize, usize)> = get("pads")
                .downcast::<i64, Cpu>()
                .unwrap()
                .to_vec()
                .chunks(2)
                .map(|p| (p[0] as usize, p[1] as usize))
                .collect();
            let want = get("y").downcast::<f64, Cpu>().unwrap();
            let mode = MODES[i / 10];
            let y = x.pad_mode(&pads, mode).to_device(&Cpu).unwrap();
            assert_eq!(y.dims(), want.dims(), "case {i} {mode:?} {pads:?}");
            assert_eq!(y.to_vec(), want.to_vec(), "case {i} {mode:?} {pads:?}");
            // Any element type: the same positions.
            let yi = x.mul_scalar(100.0).cast::<i32>().pad_mode(&pads, mode);
            let wi: Vec<i32> = want.to_vec().iter().map(|v| (v * 100.0) as i32).collect();
            assert_eq!(yi.to_device(&Cpu).unwrap().to_vec(), wi, "case {i} as i32");
            // The runtime-dtype form.
            let yd = DynTensor::from(x.clone()).pad_mode(&pads, mode).unwrap();
            assert_eq!(
                back(yd, &dev).to_device(&Cpu).unwrap().to_vec(),
                want.to_vec()
            );
        }
    });
}

#[test]
fn pad_modes_differentiate_and_refuse() {
    let x = Tensor::<f64>::from_vec((0..12).map(|v| (v as f64 * 0.37).sin()).collect(), [3, 4])
        .unwrap();
    for mode in MODES {
        // Strided input (a transpose), pads beyond the axis on one side.
        gradcheck(
            |v| v[0].t().try_pad_mode(&[(5, 1), (0, 2)], mode),
            &[x.clone()],
            1e-6,
            1e-6,
        )
        .unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        // No padding is a copy, not a view.
        let same = x.pad_mode(&[(0, 0), (0, 0)], mode);
        assert_eq!(same.to_vec(), x.to_vec());
        // An empty axis may stay unpadded; padding it is refused.
        let empty = Tensor::<f64>::zeros([0, 3]).unwrap();
        assert_eq!(empty.pad_mode(&[(0, 0), (1, 1)], mode).dims(), &[0, 5]);
        let e = empty
            .try_pad_mode(&[(1, 0), (0, 0)], mode)
            .unwrap_err()
            .to_string();
        assert!(e.contains("pad_mode") && e.contains("empty"), "{e}");
        assert!(x.try_pad_mode(&[(1, 1)], mode).is_err());
        let e = x
            .try_pad_mode(&[(usize::MAX, 1), (0, 0)], mode)
            .unwrap_err()
            .to_string();
        assert!(e.contains("pad_mode"), "{e}");
        // 0-d: nothing to pad.
        let s = Tensor::<f64>::from_vec(vec![2.5], []).unwrap();
        assert_eq!(s.pad_mode(&[], mode).item(), 2.5);
    }
    // A single element repeats in every mode.
    let one = Tensor::<f64>::from_vec(vec![7.0], [1]).unwrap();
    for mode in MODES {
        assert_close(&one.pad_mode(&[(3, 2)], mode).to_vec(), &[7.0; 6], 0.0);
    }
}

/// Every mode on axes of 1 to 6 elements with pads from 0 to 5 times the axis (the joined
/// views of short pads and the gather of long ones), against each mode's periodic sequence of
/// sources, and the gradient of the joined views.
#[test]
fn pad_modes_short_and_long_pads() {
    for n in 1..=6usize {
        let x = Tensor::<f64>::from_vec((0..n).map(|v| v as f64).collect(), [n]).unwrap();
        for mode in MODES {
            // One period of sources, from position 0 onwards.
            let period: Vec<usize> = match mode {
                PadMode::Reflect if n == 1 => vec![0],
                PadMode::Reflect => (0..n).chain((1..n - 1).rev()).collect(),
                PadMode::Symmetric => (0..n).chain((0..n).rev()).collect(),
                PadMode::Circular => (0..n).collect(),
                PadMode::Replicate => vec![],
            };
            let source = |p: i64| -> f64 {
                if mode == PadMode::Replicate {
                    return p.clamp(0, n as i64 - 1) as f64;
                }
                period[p.rem_euclid(period.len() as i64) as usize] as f64
            };
            for before in 0..=5 * n {
                for after in [0, 1, n - 1, n, 2 * n + 1, 5 * n] {
                    let y = x.pad_mode(&[(before, after)], mode).to_vec();
                    let want: Vec<f64> = (0..(n + before + after) as i64)
                        .map(|p| source(p - before as i64))
                        .collect();
                    assert_eq!(y, want, "{mode:?} n {n} pads ({before}, {after})");
                }
            }
        }
    }
    // Pads of 2^34 on an empty tensor: found run by run (the fuzzer's find: a walk over every
    // padded position hung), and refused on a non-empty one.
    let empty = Tensor::<f64>::zeros([0, 1 << 33]).unwrap();
    let one = Tensor::<f64>::zeros([1, 3]).unwrap();
    for mode in MODES {
        let big = 1usize << 34;
        let y = empty.try_pad_mode(&[(0, 0), (big, 3 * big)], mode).unwrap();
        assert_eq!(y.dims(), [0, (1 << 33) + 4 * big]);
        assert!(one.try_pad_mode(&[(0, 0), (big, 0)], mode).is_err());
    }
    for mode in MODES {
        let x = Tensor::<f64>::from_vec(vec![0.3, -1.2, 2.5, 0.7], [2, 2]).unwrap();
        gradcheck(
            |v| v[0].try_pad_mode(&[(1, 2), (2, 1)], mode)?.try_sin(),
            &[x.clone()],
            1e-6,
            1e-6,
        )
        .unwrap_or_else(|e| panic!("{mode:?}: {e}"));
    }
}
