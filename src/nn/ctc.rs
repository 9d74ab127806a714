//! The connectionist temporal classification loss (PyTorch `ctc_loss`; Graves et al., 2006),
//! composed of device ops: the forward (alpha) recursion in log space over the target with
//! blanks interleaved, one step per time frame, so its gradient is autograd's.

use super::loss::{Reduction, reduce};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

const OP: &str = "ctc_loss";

/// The CTC loss `-ln p(target | input)`, summed over every alignment of the target to the
/// input frames (PyTorch `ctc_loss`, same arguments and results).
///
/// - `log_probs`: `(T, N, C)` log-probabilities (from `log_softmax` over `C`, blank included),
///   or `(T, C)` for one unbatched sequence.
/// - `targets`: `(N, S)` class indices padded to `S` (entries past a target's length are not
///   read), or 1-d, the `N` targets concatenated; classes in `0..C`.
/// - `input_lengths[n] <= T` frames and `target_lengths[n]` labels of sequence `n`.
/// - `blank`: the blank class, in `0..C`.
/// - `reduction`: `Mean` divides each loss by its target length (at least 1), then averages
///   over the batch, as PyTorch; `None` gives the `(N)` losses (0-d when unbatched).
/// - `zero_infinity`: impossible alignments (an infinite loss, as when a target needs more
///   frames than the input has) give 0 and no gradient instead of `inf`.
///
/// A sequence of no frames has loss 0 for an empty target and `inf` otherwise, as PyTorch.
/// f16 and bf16 are computed in f32. Differentiable in `log_probs`.
///
/// ```
/// use typed_tensor::prelude::*;
/// use typed_tensor::nn::{Reduction, ctc_loss};
///
/// // Two frames, classes {blank, a}: "a" is emitted by (a, a), (blank, a) or (a, blank).
/// let p = tensor![[0.5f64, 0.5], [0.5, 0.5]].log();
/// let loss = ctc_loss(&p.unsqueeze(1)?, &tensor![[1i64]], &[2], &[1], 0, Reduction::Sum, false)?;
/// assert!((loss.item() + 0.75f64.ln()).abs() < 1e-15);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` for shapes or length lists that do not fit the above; `InvalidArgument` for
/// a length past `T` or `S`, or a blank outside `0..C`; `Index` for a target class outside
/// `0..C`; allocation failure.
pub fn ctc_loss<T: FloatElement, D: Backend>(
    log_probs: &Tensor<T, D>,
    targets: &Tensor<i64, D>,
    input_lengths: &[usize],
    target_lengths: &[usize],
    blank: usize,
    reduction: Reduction,
    zero_infinity: bool,
) -> Result<Tensor<T, D>> {
    if const { T::DTYPE.size() < 4 } {
        let wide = log_probs.try_cast::<f32>()?;
        let args = (
            input_lengths,
            target_lengths,
            blank,
            reduction,
            zero_infinity,
        );
        return ctc_loss(&wide, targets, args.0, args.1, args.2, args.3, args.4)?.try_cast::<T>();
    }
    let unbatched = log_probs.ndim() == 2;
    let lp = if unbatched {
        log_probs.unsqueeze(1)?
    } else {
        log_probs.clone()
    };
    let mismatch = |msg: String| Error::ShapeMismatch {
        op: OP,
        lhs: log_probs.shape().clone(),
        rhs: targets.shape().clone(),
        msg,
    };
    let &[frames, batch, classes] = lp.dims() else {
        return Err(mismatch(
            "log_probs must be (T, N, C), or (T, C) unbatched".into(),
        ));
    };
    if input_lengths.len() != batch || target_lengths.len() != batch {
        return Err(mismatch(format!(
            "{} input lengths and {} target lengths for a batch of {batch}; give one of each per sequence",
            input_lengths.len(),
            target_lengths.len()
        )));
    }
    let invalid = |msg: String| Error::InvalidArgument { op: OP, msg };
    if blank >= classes {
        return Err(invalid(format!(
            "blank {blank} is not a class of 0..{classes}"
        )));
    }
    if let Some(n) = (0..batch).find(|&n| input_lengths[n] > frames) {
        return Err(invalid(format!(
            "input_lengths[{n}] = {} exceeds the {frames} frames of log_probs",
            input_lengths[n]
        )));
    }
    let labels = padded_labels(targets, target_lengths, batch, blank, unbatched, &mismatch)?;
    let outside = labels
        .try_lt_scalar(0)?
        .try_logical_or(&labels.try_ge_scalar(classes as i64)?)?;
    if outside.try_any(&[], false)?.try_item()? {
        let values = labels.try_to_vec()?;
        let index = values.into_iter().find(|&v| v < 0 || v >= classes as i64);
        let (index, shape) = (index.unwrap_or(-1), lp.shape().clone());
        return Err(Error::Index {
            op: OP,
            index,
            dim: 2,
            size: classes,
            shape,
        });
    }
    let losses = if batch == 0 {
        // No sequences (and perhaps a huge, empty T): nothing to step through.
        Tensor::from_vec_on(Vec::new(), [0], lp.device_handle())?
    } else if frames == 0 {
        let empty: Vec<T> = (0..batch)
            .map(|n| {
                if target_lengths[n] == 0 {
                    T::ZERO
                } else {
                    T::from_f64(f64::INFINITY)
                }
            })
            .collect();
        Tensor::from_vec_on(empty, [batch], lp.device_handle())?
    } else {
        forward(&lp, &labels, input_lengths, target_lengths, blank)?
    };
    let losses = if zero_infinity {
        let zero = Tensor::scalar_on(T::ZERO, lp.device_handle())?;
        Tensor::try_where(
            &losses.try_eq_scalar(T::from_f64(f64::INFINITY))?,
            &zero,
            &losses,
        )?
    } else {
        losses
    };
    let losses = match reduction {
        Reduction::Mean => {
            let per: Vec<T> = target_lengths
                .iter()
                .map(|&l| T::from_f64(l.max(1) as f64))
                .collect();
            losses.try_div(&Tensor::from_vec_on(per, [batch], lp.device_handle())?)?
        }
        _ => losses,
    };
    let out = reduce(losses, reduction)?;
    if unbatched && reduction == Reduction::None {
        out.try_reshape([0usize; 0])
    } else {
        Ok(out)
    }
}

/// The `(N, S)` labels, `S` the longest target, blank past each target's length: from padded
/// `(N, S')` targets or from the 1-d concatenation.
fn padded_labels<D: Backend>(
    targets: &Tensor<i64, D>,
    target_lengths: &[usize],
    batch: usize,
    blank: usize,
    unbatched: bool,
    mismatch: &dyn Fn(String) -> Error,
) -> Result<Tensor<i64, D>> {
    let longest = target_lengths.iter().copied().max().unwrap_or(0);
    let (mut index, mut valid) = (Vec::new(), Vec::new());
    let concatenated = targets.ndim() == 1 && !unbatched;
    match (targets.dims(), concatenated) {
        (&[width], true) | (&[width], false) => {
            let total = target_lengths
                .iter()
                .try_fold(0usize, |a, &l| a.checked_add(l));
            if total.is_none_or(|t| t > width) {
                return Err(mismatch(format!(
                    "the target lengths add up to more than the {width} concatenated labels"
                )));
            }
        }
        (&[rows, width], _) if rows == batch && !unbatched => {
            if let Some(n) = (0..batch).find(|&n| target_lengths[n] > width) {
                return Err(mismatch(format!(
                    "target_lengths[{n}] = {} exceeds the {width} padded labels",
                    target_lengths[n]
                )));
            }
        }
        _ => {
            return Err(mismatch(
                "targets must be (N, S) padded or 1-d concatenated ((S) when unbatched)".into(),
            ));
        }
    }
    let width = targets.dims().last().copied().unwrap_or(0);
    let mut offset = 0usize;
    for (n, &len) in target_lengths.iter().enumerate() {
        let start = if targets.ndim() == 1 {
            offset
        } else {
            n * width
        };
        for s in 0..longest {
            index.push(if s < len { (start + s) as i64 } else { 0 });
            valid.push(s < len);
        }
        offset += len;
    }
    let dev = targets.device_handle();
    let shape = [batch, longest];
    if longest == 0 {
        return Tensor::from_vec_on(Vec::new(), shape, dev);
    }
    let picked = targets
        .try_reshape([targets.numel()])?
        .try_index_select(0, &Tensor::from_vec_on(index, [batch * longest], dev)?)?;
    let fill = Tensor::scalar_on(blank as i64, dev)?;
    Tensor::try_where(
        &Tensor::from_vec_on(valid, shape, dev)?,
        &picked.try_reshape(shape)?,
        &fill,
    )
}

/// The per-sequence losses by the alpha recursion over the `2S + 1` states (blank, label 1,
/// blank, ..., label S, blank).
fn forward<T: FloatElement, D: Backend>(
    lp: &Tensor<T, D>,
    labels: &Tensor<i64, D>,
    input_lengths: &[usize],
    target_lengths: &[usize],
    blank: usize,
) -> Result<Tensor<T, D>> {
    let (frames, batch) = (lp.dims()[0], lp.dims()[1]);
    let dev = lp.device_handle();
    let states = 2 * labels.dims()[1] + 1;
    let blanks = Tensor::full_on(labels.dims(), blank as i64, dev)?;
    let ext = Tensor::try_stack(&[&blanks, labels], 2)?.try_reshape([batch, states - 1])?;
    let ext = Tensor::try_cat(&[&ext, &Tensor::full_on([batch, 1], blank as i64, dev)?], 1)?;
    // emit[t, n, s] = log_probs[t, n, ext[n, s]].
    let index = ext
        .unsqueeze(0)?
        .expand([frames, batch, states])?
        .try_contiguous()?;
    let emit = lp.try_gather(2, &index)?;
    let (zero, neg_inf) = (
        Tensor::scalar_on(T::ZERO, dev)?,
        Tensor::scalar_on(T::from_f64(f64::NEG_INFINITY), dev)?,
    );
    let additive = |allowed: &Tensor<bool, D>| Tensor::try_where(allowed, &zero, &neg_inf);
    // The skip s - 2 -> s is allowed onto a label that differs from the one before it.
    let skip = if states > 2 {
        let differs = ext
            .narrow(1, 2, states - 2)?
            .try_ne(&ext.narrow(1, 0, states - 2)?)?;
        let head = Tensor::full_on([batch, 2], false, dev)?;
        additive(&Tensor::try_cat(&[&head, &differs], 1)?)?
    } else {
        Tensor::full_on([batch, states], T::from_f64(f64::NEG_INFINITY), dev)?
    };
    let host_mask = |f: &dyn Fn(usize, usize) -> bool, rows: usize, cols: usize| {
        let v: Vec<bool> = (0..rows * cols).map(|i| f(i / cols, i % cols)).collect();
        Tensor::from_vec_on(v, [rows, cols], dev)
    };
    let start = additive(&host_mask(&|_, s| s < 2, 1, states)?)?;
    let live = host_mask(&|t, n| t < input_lengths[n], frames, batch)?;
    let shift = |a: &Tensor<T, D>, k: usize| -> Result<Tensor<T, D>> {
        a.try_pad(&[(0, 0), (k, 0)], T::from_f64(f64::NEG_INFINITY))?
            .narrow(1, 0, states)
    };
    let mut alpha = emit.select(0, 0)?.try_add(&start)?;
    // Past the longest input every alpha is frozen: step no further.
    let steps = input_lengths.iter().copied().max().unwrap_or(0);
    for t in 1..steps {
        let two = shift(&alpha, 2)?.try_add(&skip)?;
        let paths = Tensor::try_stack(&[&alpha, &shift(&alpha, 1)?, &two], 2)?;
        let next = log_sum_exp(&paths, 2)?.try_add(&emit.select(0, t as i64)?)?;
        alpha = Tensor::try_where(&live.select(0, t as i64)?.unsqueeze(1)?, &next, &alpha)?;
    }
    // The path ends on the last label or the blank after it.
    let end = additive(&host_mask(
        &|n, s| s == 2 * target_lengths[n] || s + 1 == 2 * target_lengths[n],
        batch,
        states,
    )?)?;
    let losses = log_sum_exp(&alpha.try_add(&end)?, 1)?.try_neg()?;
    // No frames: probability 1 for the empty target, 0 otherwise (PyTorch).
    let no_frames: Vec<bool> = input_lengths.iter().map(|&l| l == 0).collect();
    if !no_frames.contains(&true) {
        return Ok(losses);
    }
    let fixed: Vec<T> = target_lengths
        .iter()
        .map(|&l| {
            if l == 0 {
                T::ZERO
            } else {
                T::from_f64(f64::INFINITY)
            }
        })
        .collect();
    Tensor::try_where(
        &Tensor::from_vec_on(no_frames, [batch], dev)?,
        &Tensor::from_vec_on(fixed, [batch], dev)?,
        &losses,
    )
}

/// `ln Σ exp` over `axis` that is `-inf`, with a zero gradient, where every term is `-inf`
/// (the impossible states; `logsumexp`'s gradient would be NaN there). The shift by the
/// maximum is detached: its gradient cancels.
fn log_sum_exp<T: FloatElement, D: Backend>(x: &Tensor<T, D>, axis: i64) -> Result<Tensor<T, D>> {
    let dev = x.device_handle();
    let (zero, one) = (
        Tensor::scalar_on(T::ZERO, dev)?,
        Tensor::scalar_on(T::ONE, dev)?,
    );
    let m = x.detach().try_max(&[axis], true)?;
    let m = Tensor::try_where(&m.try_is_finite()?, &m, &zero)?;
    let s = x.try_sub(&m)?.try_exp()?.try_sum(&[axis], true)?;
    let none = s.try_eq(&zero)?;
    let out = Tensor::try_where(&none, &one, &s)?.try_log()?.try_add(&m)?;
    let out = Tensor::try_where(
        &none,
        &Tensor::scalar_on(T::from_f64(f64::NEG_INFINITY), dev)?,
        &out,
    )?;
    out.squeeze_dims(&[axis])
}
