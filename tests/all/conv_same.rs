//! `nn::conv_same` (PyTorch's `padding="same"` and `padding_mode`) against PyTorch 2.15.

use crate::common::{assert_close, host_f64s};
use typed_tensor::nn::{self, Conv3dOptions};
use typed_tensor::prelude::*;

/// `padding="same"` (an even kernel, a dilation, groups) and `padding_mode="reflect"` against
/// PyTorch 2.15's `F.conv2d`/`nn.Conv2d`, values and gradients, on every device; 1-d and 3-d
/// against the explicitly padded convolution; the refusals.
#[test]
fn conv_same_matches_pytorch() {
    use typed_tensor::ops::pad::PadMode;
    on_every_device!("conv_same", |dev| {
        let xv: Vec<f64> = (0..20).map(|i| (i as f64).sin()).collect();
        let x = Tensor::<f64, _>::from_vec_on(xv, [1, 2, 2, 5], &dev).unwrap();
        let x = x.with_requires_grad(true).unwrap();
        let wv = vec![1.0, 2.0, 0.5, -1.0, 2.0, 0.0, 1.0, 1.0];
        let w = Tensor::<f64, _>::from_vec_on(wv, [2, 1, 2, 2], &dev).unwrap();
        let w = w.with_requires_grad(true).unwrap();
        let y = nn::conv_same(&x, &w, None, &[1, 2], 2, None).unwrap();
        assert_eq!(y.dims(), [1, 2, 2, 5]);
        let want = [
            1.9623574678147189,
            0.6821461176010051,
            -0.00535499479521373,
            -0.6879327496725367,
            0.6357991313715581,
            -0.5588309963978517,
            0.35504892277443967,
            1.6993009950478377,
            1.4812235692023021,
            0.9893582466233818,
            -0.2879033166650653,
            -1.3991518735011796,
            -3.0388709765381483,
            -1.8846661182174742,
            0.08934682688160578,
            0.0,
            1.3005756803142337,
            -0.5758066333301306,
            -1.9227949837591136,
            -1.501974493543352,
        ];
        assert_close(&y.try_to_vec().unwrap(), &want, 1e-14);
        let cw: Vec<f64> = (0..20).map(|i| (i as f64).cos()).collect();
        let cw = Tensor::<f64, _>::from_vec_on(cw, [1, 2, 2, 5], &dev).unwrap();
        y.try_mul(&cw)
            .unwrap()
            .try_sum(&[], false)
            .unwrap()
            .try_backward()
            .unwrap();
        let gx = [
            0.5403023058681398,
            1.5838531634528576,
            0.09061211513583411,
            -1.4859372939578968,
            -1.9799849932008908,
            1.230321439584436,
            0.1131532069961858,
            0.7395419853237559,
            0.6859992729172687,
            0.6989924289832183,
            0.00885139597610157,
            1.6877079174649843,
            1.8148935629003924,
            0.2734744364156672,
            0.0,
            -1.9108932626587185,
            -0.5455442464471542,
            2.2325058959264075,
            2.9580004133136644,
            0.9074467814501962,
        ];
        assert_close(&host_f64s(&x.grad_tensor().unwrap()), &gx, 1e-13);
        let gw = [
            -3.4710236914931296,
            3.260744186970042,
            -1.698930630848531,
            -0.7441566366305262,
            -3.1965775269322525,
            3.5351903515309195,
            -1.215175342647706,
            -0.2604013484297014,
        ];
        assert_close(&host_f64s(&w.grad_tensor().unwrap()), &gw, 1e-13);
        let r = nn::conv_same(&x, &w, None, &[1, 2], 2, Some(PadMode::Reflect)).unwrap();
        let want = [
            2.6641207035231522,
            0.6821461176010051,
            -0.00535499479521373,
            -0.6879327496725367,
            -0.07131909913208923,
            -1.258981987000726,
            -0.554248504051242,
            1.9789164793919187,
            2.692674777923071,
            2.8975147358402116,
            -2.5757870464315373,
            -1.3991518735011796,
            -3.0388709765381483,
            -1.8846661182174742,
            -0.6616404198900703,
            -2.5757870464315378,
            0.21998165142442894,
            -1.1556298030541932,
            -1.4687605460646784,
            -0.6616404198900702,
        ];
        assert_close(&r.try_to_vec().unwrap(), &want, 1e-14);

        // 1-d (kernel 4, dilation 3: pads (4, 5)) and 3-d (kernel (1, 2, 3): pads (0, 0),
        // (0, 1), (1, 1)) equal the convolutions of the explicitly padded input, with a bias.
        let x1 =
            Tensor::<f64, _>::from_vec_on((0..14).map(|i| i as f64).collect(), [1, 2, 7], &dev);
        let x1 = x1.unwrap();
        let w1: Vec<f64> = (0..24).map(|i| (i as f64 * 0.7).cos()).collect();
        let w1 = Tensor::<f64, _>::from_vec_on(w1, [3, 2, 4], &dev).unwrap();
        let b = Tensor::<f64, _>::from_vec_on(vec![0.5, -1.0, 2.0], [3], &dev).unwrap();
        let same = nn::conv_same(&x1, &w1, Some(&b), &[3], 1, Some(PadMode::Replicate));
        let padded = x1.try_pad_mode(&[(0, 0), (0, 0), (4, 5)], PadMode::Replicate);
        let opts = nn::Conv2dOptions {
            dilation: (1, 3),
            ..Default::default()
        };
        let want = nn::conv1d(&padded.unwrap(), &w1, Some(&b), opts).unwrap();
        assert_eq!(
            same.unwrap().try_to_vec().unwrap(),
            want.try_to_vec().unwrap()
        );
        let x3: Vec<f64> = (0..2 * 3 * 4 * 5).map(|i| (i as f64 * 0.3).sin()).collect();
        let x3 = Tensor::<f64, _>::from_vec_on(x3, [1, 2, 3, 4, 5], &dev).unwrap();
        let w3: Vec<f64> = (0..2 * 2 * 6).map(|i| (i as f64 * 0.9).cos()).collect();
        let w3 = Tensor::<f64, _>::from_vec_on(w3, [2, 2, 1, 2, 3], &dev).unwrap();
        let same = nn::conv_same(&x3, &w3, None, &[1], 1, None).unwrap();
        assert_eq!(same.dims(), [1, 2, 3, 4, 5]);
        let padded = x3
            .try_pad(&[(0, 0), (0, 0), (0, 0), (0, 1), (1, 1)], 0.0)
            .unwrap();
        let want = nn::conv3d(&padded, &w3, None, Conv3dOptions::default()).unwrap();
        assert_eq!(same.try_to_vec().unwrap(), want.try_to_vec().unwrap());

        // Refusals: rank, dilation count, zero dilation, overflowing padding.
        let bad = |r: Result<Tensor<f64, _>>| match r {
            Err(Error::InvalidArgument { op, .. }) => assert_eq!(op, "conv_same"),
            other => panic!("expected InvalidArgument, got {other:?}"),
        };
        bad(nn::conv_same(&x1, &w3, None, &[1], 1, None));
        bad(nn::conv_same(&x3, &w3, None, &[1, 1], 1, None));
        bad(nn::conv_same(&x1, &w1, None, &[0], 1, None));
        bad(nn::conv_same(&x1, &w1, None, &[usize::MAX], 1, None));
        bad(nn::conv_same(&x1, &w1, None, &[1], 3, None));
        assert_eq!(
            nn::same_padding(&[3, 2, 1], &[2, 1, 5]).unwrap(),
            [(2, 2), (0, 1), (0, 0)]
        );
    });
}
