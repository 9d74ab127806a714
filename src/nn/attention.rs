//! Scaled dot-product attention (PyTorch `F.scaled_dot_product_attention`, its math path),
//! composed of `matmul`, `softmax` and `where`, so it differentiates on every device.

use super::dropout;
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// An attention output and, where asked for, the attention weights.
pub type WithWeights<T, D> = (Tensor<T, D>, Option<Tensor<T, D>>);

/// The mask of [`scaled_dot_product_attention`]; a tensor mask broadcasts to the scores'
/// shape `(..., L, S)`.
#[derive(Clone, Copy, Debug)]
pub enum AttnMask<'a, T: FloatElement, D: Backend> {
    /// `true` where a query may attend to a key (PyTorch's boolean `attn_mask`).
    Bool(&'a Tensor<bool, D>),
    /// Added to the scores before the softmax; `-inf` masks out (a float `attn_mask`).
    Additive(&'a Tensor<T, D>),
    /// Query `i` attends to keys `0..=i`, the top-left-aligned lower triangle even when
    /// `L != S` (PyTorch `is_causal=True`).
    Causal,
}

/// The rest of [`scaled_dot_product_attention`]'s arguments, PyTorch's defaults in `default()`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AttentionOptions {
    /// The probability of zeroing each attention weight (dropout, always applied when above
    /// 0, as PyTorch's functional form does).
    pub dropout_p: f64,
    /// The factor of the scores; `None` is `1/√E`.
    pub scale: Option<f64>,
    /// Grouped-query attention: `Hq` query heads (axis -3) share `Hk` key/value heads, each
    /// key/value head serving `Hq/Hk` consecutive query heads.
    pub enable_gqa: bool,
}

/// `softmax(q·kᵀ·scale + mask) · v` (PyTorch `scaled_dot_product_attention`): `q` is
/// `(..., L, E)`, `k` `(..., S, E)`, `v` `(..., S, Ev)`; the batch axes broadcast, and the
/// result is `(..., L, Ev)`. A query that the mask leaves no key to attend to gets zeros (as
/// PyTorch 2.5 and later; its gradient is zero too). f16 and bf16 compute in f32 and round
/// once.
///
/// ```
/// use typed_tensor::prelude::*;
/// use typed_tensor::nn::{AttentionOptions, AttnMask, scaled_dot_product_attention};
/// let q = Tensor::<f32>::randn([2, 4, 5, 8])?; // (batch, heads, L, E)
/// let kv = Tensor::<f32>::randn([2, 4, 5, 8])?;
/// let causal = Some(AttnMask::Causal);
/// let out = scaled_dot_product_attention(&q, &kv, &kv, causal, AttentionOptions::default())?;
/// assert_eq!(out.dims(), &[2, 4, 5, 8]);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `ShapeMismatch` when an operand has fewer than two axes, `q` and `k` differ in `E` or `k`
/// and `v` in `S`, or (with `enable_gqa`) the head counts do not divide; `Broadcast` when the
/// batch axes or the mask do not broadcast; `InvalidArgument` for a `dropout_p` outside
/// `[0, 1]` or a non-finite `scale`; `Device` across devices.
pub fn scaled_dot_product_attention<T: FloatElement, D: Backend>(
    q: &Tensor<T, D>,
    k: &Tensor<T, D>,
    v: &Tensor<T, D>,
    mask: Option<AttnMask<'_, T, D>>,
    opts: AttentionOptions,
) -> Result<Tensor<T, D>> {
    const OP: &str = "scaled_dot_product_attention";
    let (qd, kd, vd) = (q.dims(), k.dims(), v.dims());
    let mismatch = |a: &Tensor<T, D>, b: &Tensor<T, D>, msg: &str| Error::ShapeMismatch {
        op: OP,
        lhs: a.shape().clone(),
        rhs: b.shape().clone(),
        msg: msg.into(),
    };
    if qd.len() < 2 || kd.len() < 2 || vd.len() < 2 {
        return Err(mismatch(
            q,
            k,
            "q, k and v need two or more axes: (..., L, E), (..., S, E), (..., S, Ev)",
        ));
    }
    if qd[qd.len() - 1] != kd[kd.len() - 1] {
        return Err(mismatch(
            q,
            k,
            "q (..., L, E) and k (..., S, E) need the same E",
        ));
    }
    if kd[kd.len() - 2] != vd[vd.len() - 2] {
        return Err(mismatch(
            k,
            v,
            "k (..., S, E) and v (..., S, Ev) need the same S",
        ));
    }
    if opts.scale.is_some_and(|s| !s.is_finite()) || !(0.0..=1.0).contains(&opts.dropout_p) {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!(
                "needs a finite scale and dropout_p in [0, 1], got scale {:?} and dropout_p {}",
                opts.scale, opts.dropout_p
            ),
        });
    }
    Ok(attention_parts(q, k, v, mask, opts, false)?.0)
}

/// Scaled dot-product attention after [`scaled_dot_product_attention`]'s checks: the output
/// and, with `keep_weights`, the attention weights `(..., L, S)` after dropout (what
/// multiplies `v`; zeros for a query left without a key).
pub(super) fn attention_parts<T: FloatElement, D: Backend>(
    q: &Tensor<T, D>,
    k: &Tensor<T, D>,
    v: &Tensor<T, D>,
    mask: Option<AttnMask<'_, T, D>>,
    opts: AttentionOptions,
    keep_weights: bool,
) -> Result<WithWeights<T, D>> {
    const OP: &str = "scaled_dot_product_attention";
    let qd = q.dims();
    let (k, v) = if opts.enable_gqa {
        (repeat_heads(q, k, OP)?, repeat_heads(q, v, OP)?)
    } else {
        (k.clone(), v.clone())
    };
    let scale = opts.scale.unwrap_or(1.0 / (qd[qd.len() - 1] as f64).sqrt());
    if const { T::DTYPE.size() < 4 } {
        let mask32 = match mask {
            Some(AttnMask::Additive(m)) => Some(m.try_cast::<f32>()?),
            _ => None,
        };
        let mask = match mask {
            Some(AttnMask::Additive(_)) => mask32.as_ref().map(AttnMask::Additive),
            Some(AttnMask::Bool(b)) => Some(AttnMask::Bool(b)),
            Some(AttnMask::Causal) => Some(AttnMask::Causal),
            None => None,
        };
        let (q, k, v) = (
            q.try_cast::<f32>()?,
            k.try_cast::<f32>()?,
            v.try_cast::<f32>()?,
        );
        let (out, w) = attend(&q, &k, &v, mask, scale, opts.dropout_p, keep_weights)?;
        Ok((
            out.try_cast::<T>()?,
            w.map(|w| w.try_cast::<T>()).transpose()?,
        ))
    } else {
        attend(q, &k, &v, mask, scale, opts.dropout_p, keep_weights)
    }
}

/// `kv` with each head (axis -3) repeated for the `Hq/Hk` query heads it serves
/// (`repeat_interleave`).
fn repeat_heads<T: FloatElement, D: Backend>(
    q: &Tensor<T, D>,
    kv: &Tensor<T, D>,
    op: &'static str,
) -> Result<Tensor<T, D>> {
    let (qd, kd) = (q.dims(), kv.dims());
    let ok = qd.len() >= 3 && kd.len() >= 3;
    let (hq, hk) = if ok {
        (qd[qd.len() - 3], kd[kd.len() - 3])
    } else {
        (0, 0)
    };
    if !ok || hk == 0 || hq % hk != 0 {
        return Err(Error::ShapeMismatch {
            op,
            lhs: q.shape().clone(),
            rhs: kv.shape().clone(),
            msg: "enable_gqa needs heads on axis -3 of q and k/v, the query heads a multiple of the key/value heads".into(),
        });
    }
    if hq == hk {
        return Ok(kv.clone());
    }
    let mut expanded = kd.to_vec();
    expanded.insert(kd.len() - 2, hq / hk);
    let mut merged = kd.to_vec();
    merged[kd.len() - 3] = hq;
    kv.unsqueeze(-3)?.expand(expanded)?.try_reshape(merged)
}

/// The attention itself, in a float type of at least 32 bits.
fn attend<F: FloatElement, D: Backend>(
    q: &Tensor<F, D>,
    k: &Tensor<F, D>,
    v: &Tensor<F, D>,
    mask: Option<AttnMask<'_, F, D>>,
    scale: f64,
    dropout_p: f64,
    keep: bool,
) -> Result<WithWeights<F, D>> {
    let scores = q
        .try_mul_scalar(F::from_f64(scale))?
        .try_matmul(&k.transpose(-1, -2)?)?;
    let ninf = F::from_f64(f64::NEG_INFINITY);
    let masked = match mask {
        None => return finish(scores.try_softmax(-1)?, v, dropout_p, keep),
        Some(AttnMask::Additive(m)) => scores.try_add(m)?,
        Some(AttnMask::Bool(b)) => scores.try_masked_fill(&b.try_logical_not()?, ninf)?,
        Some(AttnMask::Causal) => {
            // Row i keeps keys 0..=i, so no row is left without a key (S ≥ 1 where a row
            // exists): the softmax needs no guard. One fused pass where the device has it.
            if let Some(w) = softmax_causal(&scores)? {
                return finish(w, v, dropout_p, keep);
            }
            let causal = scores.try_masked_fill(&causal_mask(&scores)?, ninf)?;
            return finish(causal.try_softmax(-1)?, v, dropout_p, keep);
        }
    };
    // A row with no key left (all -inf) gets zero weights; its scores are replaced by zeros
    // before the softmax so that neither the value nor the gradient is NaN.
    let live = masked.try_amax(&[-1], true)?.try_ne_scalar(ninf)?;
    let zeros = Tensor::<F, D>::zeros_on([], q.device_handle())?;
    let safe = Tensor::try_where(&live, &masked, &zeros)?;
    let weights = Tensor::try_where(&live, &safe.try_softmax(-1)?, &zeros)?;
    finish(weights, v, dropout_p, keep)
}

/// Dropout on the weights, then their product with the values; the weights too when `keep`.
fn finish<F: FloatElement, D: Backend>(
    weights: Tensor<F, D>,
    v: &Tensor<F, D>,
    dropout_p: f64,
    keep: bool,
) -> Result<WithWeights<F, D>> {
    let weights = if dropout_p > 0.0 {
        dropout(&weights, dropout_p, true)?
    } else {
        weights
    };
    Ok((weights.try_matmul(v)?, keep.then_some(weights)))
}

/// The causal mask of scores `(..., L, S)`: an `(L, S)` bool tensor, true above the diagonal
/// (key `j > i`, masked for query `i`; PyTorch's `is_causal`, aligned top left).
pub(super) fn causal_mask<F: FloatElement, D: Backend>(
    scores: &Tensor<F, D>,
) -> Result<Tensor<bool, D>> {
    let dims = scores.dims();
    let (l, s) = (dims[dims.len() - 2], dims[dims.len() - 1]);
    let dev = scores.device_handle();
    let i = Tensor::<i64, D>::arange_on(0, l as i64, 1, dev)?.unsqueeze(1)?;
    let j = Tensor::<i64, D>::arange_on(0, s as i64, 1, dev)?.unsqueeze(0)?;
    j.try_gt(&i)
}

/// `softmax(masked_fill(scores, causal_mask, -inf), -1)` by the device's fused kernel
/// ([`Backend::softmax_causal_last`]), recorded as one node whose rule zeroes the masked
/// elements' gradient; `None` where the device has no kernel for these scores.
fn softmax_causal<F: FloatElement, D: Backend>(
    scores: &Tensor<F, D>,
) -> Result<Option<Tensor<F, D>>> {
    let Some(y) = crate::autograd::no_grad(|| D::softmax_causal_last(scores))? else {
        return Ok(None);
    };
    let op = crate::autograd::Op::Softmax {
        axis: scores.ndim() - 1,
        causal: true,
    };
    Ok(Some(crate::autograd::record_out(y, op, &[scores], &[])))
}

#[cfg(test)]
mod tests {
    use crate::prelude::*;

    /// The causal softmax's composed backward (taken for a gradient the fused rows cannot
    /// read, here a transposed one) against the fused rows: masked elements 0, the rest
    /// `y · (g - Σ g·y)` over the kept ones.
    #[test]
    fn causal_backward_composed_matches_fused() {
        let scores = Tensor::<f32>::from_vec(
            (0..2 * 4 * 5).map(|i| (i as f32 * 0.7).sin()).collect(),
            [2, 4, 5],
        )
        .unwrap();
        let y = super::softmax_causal(&scores)
            .unwrap()
            .expect("the CPU fuses it");
        let g =
            Tensor::<f32>::from_vec((0..40).map(|i| (i as f32 * 1.3).cos()).collect(), [2, 5, 4])
                .unwrap()
                .transpose(1, 2)
                .unwrap();
        assert!(!g.is_contiguous());
        let composed = crate::nn::softmax_backward(&g, &y, 2, true)
            .unwrap()
            .to_vec();
        let fused = crate::nn::softmax_backward(&g.contiguous(), &y, 2, true)
            .unwrap()
            .to_vec();
        for (i, (c, f)) in composed.iter().zip(&fused).enumerate() {
            let (row, j) = (i / 5 % 4, i % 5);
            if j > row {
                assert_eq!((*c, *f), (0.0, 0.0), "element {i}");
            } else {
                assert!((c - f).abs() <= 1e-6, "element {i}: {c} against {f}");
            }
        }
    }
}
