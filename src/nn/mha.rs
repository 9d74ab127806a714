//! Multi-head attention (PyTorch `F.multi_head_attention_forward`, what `nn.MultiheadAttention`
//! runs): the packed input projection, [`scaled_dot_product_attention`](super::scaled_dot_product_attention)
//! per head, the output projection, composed so it differentiates on every device.
//!
//! ```
//! use typed_tensor::prelude::*;
//! use typed_tensor::nn::{self, MhaOptions, MhaParams};
//! let (e, heads) = (8, 2);
//! let w_in = Tensor::<f32>::randn([3 * e, e])?; // q, k and v projections stacked
//! let w_out = Tensor::<f32>::randn([e, e])?;
//! let params = MhaParams { in_proj_weight: &w_in, in_proj_bias: None, out_proj_weight: &w_out, out_proj_bias: None };
//! let x = Tensor::<f32>::randn([5, 3, e])?; // (L, N, E), PyTorch's default layout
//! let opts = MhaOptions { num_heads: heads, ..Default::default() };
//! let (y, w) = nn::multi_head_attention(&x, &x, &x, params, None, None, opts)?;
//! assert_eq!((y.dims(), w.unwrap().dims()), (&[5, 3, 8][..], &[3, 5, 5][..]));
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use super::attention::{AttentionOptions, AttnMask, WithWeights, attention_parts};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// The projections of [`multi_head_attention`], as `nn.MultiheadAttention` holds them.
#[derive(Debug)]
pub struct MhaParams<'a, T: FloatElement, D: Backend> {
    /// `(3E, E)`: the query, key and value projections stacked (`in_proj_weight`).
    pub in_proj_weight: &'a Tensor<T, D>,
    /// `(3E,)`, or none.
    pub in_proj_bias: Option<&'a Tensor<T, D>>,
    /// `(E, E)` (`out_proj.weight`).
    pub out_proj_weight: &'a Tensor<T, D>,
    /// `(E,)` (`out_proj.bias`), or none.
    pub out_proj_bias: Option<&'a Tensor<T, D>>,
}

// References only: copyable whatever `T` and `D` are (a derive would ask `D: Copy`).
impl<T: FloatElement, D: Backend> Clone for MhaParams<'_, T, D> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: FloatElement, D: Backend> Copy for MhaParams<'_, T, D> {}

/// The rest of [`multi_head_attention`]'s arguments, PyTorch's defaults in `default()` (one
/// head).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MhaOptions {
    /// Heads `H`; `E` must divide by it.
    pub num_heads: usize,
    /// Inputs and output as `(N, L, E)` rather than `(L, N, E)`.
    pub batch_first: bool,
    /// Return the attention weights too.
    pub need_weights: bool,
    /// The weights averaged over the heads, `(N, L, S)`, rather than `(N, H, L, S)`.
    pub average_attn_weights: bool,
    /// Dropout on the attention weights (always applied when above 0).
    pub dropout_p: f64,
}

impl Default for MhaOptions {
    fn default() -> Self {
        MhaOptions {
            num_heads: 1,
            batch_first: false,
            need_weights: true,
            average_attn_weights: true,
            dropout_p: 0.0,
        }
    }
}

/// Multi-head attention (PyTorch `F.multi_head_attention_forward`): `query` `(L, N, E)`,
/// `key` and `value` `(S, N, E)` (`(N, L, E)` with `batch_first`; `(L, E)` and `(S, E)`
/// unbatched). Each is projected by its third of `in_proj_weight`, split into `H` heads of
/// `E/H`, attended as [`scaled_dot_product_attention`](super::scaled_dot_product_attention)
/// (scale `1/√(E/H)`), merged and projected by `out_proj_weight`. Returns the output in
/// `query`'s layout and, with `need_weights`, the attention weights after dropout, `(N, L, S)`
/// averaged over the heads or `(N, H, L, S)` (without `N` unbatched).
///
/// `key_padding_mask` `(N, S)` (`(S,)` unbatched) is true at padded keys, which no query
/// attends to (PyTorch's meaning). `attn_mask` is an [`AttnMask`] of
/// `scaled_dot_product_attention`'s meaning (a bool mask is true where a query **may**
/// attend, the negation of PyTorch's bool `attn_mask` here), `(L, S)` or `(N·H, L, S)`, or
/// `Causal`. A query left without a key gets zeros, as in `scaled_dot_product_attention`
/// (PyTorch's weights are NaN there).
///
/// # Errors
/// `ShapeMismatch` when the inputs are not all 3-d (or all 2-d) with one `N` and `E`, `key` and
/// `value` differ in `S`, or a projection, bias or mask has another shape; `InvalidArgument`
/// for `num_heads` 0 or not dividing `E`, or a `dropout_p` outside `[0, 1]`; `Device` across
/// devices.
#[allow(clippy::too_many_arguments)]
pub fn multi_head_attention<T: FloatElement, D: Backend>(
    query: &Tensor<T, D>,
    key: &Tensor<T, D>,
    value: &Tensor<T, D>,
    params: MhaParams<'_, T, D>,
    key_padding_mask: Option<&Tensor<bool, D>>,
    attn_mask: Option<AttnMask<'_, T, D>>,
    opts: MhaOptions,
) -> Result<WithWeights<T, D>> {
    const OP: &str = "multi_head_attention";
    let mismatch = |a: &Tensor<T, D>, msg: String| Error::ShapeMismatch {
        op: OP,
        lhs: query.shape().clone(),
        rhs: a.shape().clone(),
        msg,
    };
    let batched = query.ndim() == 3;
    let rank_ok = (query.ndim() == 2 || batched)
        && key.ndim() == query.ndim()
        && value.ndim() == query.ndim();
    if !rank_ok {
        return Err(mismatch(
            key,
            "query, key and value must all be (L, N, E) or all (L, E)".into(),
        ));
    }
    // Everything as (N, L, E).
    let nle = |t: &Tensor<T, D>| -> Result<Tensor<T, D>> {
        if !batched {
            t.unsqueeze(0)
        } else if opts.batch_first {
            Ok(t.clone())
        } else {
            t.transpose(0, 1)
        }
    };
    let (q, k, v) = (nle(query)?, nle(key)?, nle(value)?);
    let (n, l, e) = (q.dims()[0], q.dims()[1], q.dims()[2]);
    let s = k.dims()[1];
    if k.dims()[0] != n || v.dims()[0] != n || k.dims()[2] != e || v.dims()[2] != e {
        return Err(mismatch(
            key,
            format!("key and value need query's batch {n} and embedding {e}"),
        ));
    }
    if v.dims()[1] != s {
        return Err(mismatch(value, format!("value needs key's length {s}")));
    }
    let h = opts.num_heads;
    if h == 0 || e % h != 0 {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!("num_heads = {h} must be positive and divide the embedding {e}"),
        });
    }
    let w = params.in_proj_weight;
    if w.dims() != [3 * e, e] || params.out_proj_weight.dims() != [e, e] {
        return Err(mismatch(
            w,
            format!(
                "in_proj_weight must be ({}, {e}) and out_proj_weight ({e}, {e}), got {} and {}",
                3 * e,
                w.shape(),
                params.out_proj_weight.shape()
            ),
        ));
    }
    for (b, len) in [(params.in_proj_bias, 3 * e), (params.out_proj_bias, e)] {
        if let Some(b) = b.filter(|b| b.dims() != [len]) {
            return Err(mismatch(b, format!("a projection bias must be ({len},)")));
        }
    }
    // Each projection, split into heads: (N, X, E) → (N, H, X, E/H).
    let project = |x: &Tensor<T, D>, i: usize| -> Result<Tensor<T, D>> {
        let wi = w.narrow(0, i * e, e)?;
        let bi = params
            .in_proj_bias
            .map(|b| b.narrow(0, i * e, e))
            .transpose()?;
        let len = x.dims()[1];
        super::linear(x, &wi, bi.as_ref())?
            .try_reshape([n, len, h, e / h])?
            .permute(&[0, 2, 1, 3])
    };
    let (qh, kh, vh) = (project(&q, 0)?, project(&k, 1)?, project(&v, 2)?);
    let causal = matches!(attn_mask, Some(AttnMask::Causal));
    let mask = heads_mask(OP, attn_mask, key_padding_mask, (n, h, l, s), batched)?;
    let mask = match &mask {
        Some(Merged::Bool(b)) => Some(AttnMask::Bool(b)),
        Some(Merged::Additive(m)) => Some(AttnMask::Additive(m)),
        None if causal => Some(AttnMask::Causal), // the fused causal rows, kept
        None => None,
    };
    let attn_opts = AttentionOptions {
        dropout_p: opts.dropout_p,
        ..Default::default()
    };
    let (out, weights) = attention_parts(&qh, &kh, &vh, mask, attn_opts, opts.need_weights)
        .map_err(|e| e.invalid_named(OP))?;
    let out = out.permute(&[0, 2, 1, 3])?.try_reshape([n, l, e])?;
    let out = super::linear(&out, params.out_proj_weight, params.out_proj_bias)?;
    let out = if !batched {
        out.squeeze_dims(&[0])?
    } else if opts.batch_first {
        out
    } else {
        out.transpose(0, 1)?
    };
    let weights = match weights {
        Some(w) if opts.average_attn_weights => Some(w.try_mean(&[1], false)?),
        w => w,
    };
    let weights = match weights {
        Some(w) if !batched => Some(w.squeeze_dims(&[0])?),
        w => w,
    };
    Ok((out, weights))
}

/// A mask built here: the key padding folded into the attention mask.
enum Merged<T: FloatElement, D: Backend> {
    Bool(Tensor<bool, D>),
    Additive(Tensor<T, D>),
}

/// The attention mask with a `(N·H, L, S)` one viewed as `(N, H, L, S)`, and the key padding
/// folded in as `(N, 1, 1, S)`; `None` where the attention mask can be passed as it is.
fn heads_mask<T: FloatElement, D: Backend>(
    op: &'static str,
    attn_mask: Option<AttnMask<'_, T, D>>,
    key_padding_mask: Option<&Tensor<bool, D>>,
    (n, h, l, s): (usize, usize, usize, usize),
    batched: bool,
) -> Result<Option<Merged<T, D>>> {
    let bad = |what: &str, shape: &crate::shape::Shape, want: String| Error::InvalidArgument {
        op,
        msg: format!("{what} has shape {shape}; it needs {want}"),
    };
    let heads = |dims: &[usize], shape: &crate::shape::Shape| -> Result<Vec<usize>> {
        match *dims {
            [a, b] if (a, b) == (l, s) => Ok(vec![l, s]),
            [nh, a, b] if (a, b) == (l, s) && nh == n * h => Ok(vec![n, h, l, s]),
            _ => Err(bad(
                "attn_mask",
                shape,
                format!("({l}, {s}) or ({}, {l}, {s})", n * h),
            )),
        }
    };
    let merged = match attn_mask {
        Some(AttnMask::Bool(b)) => Some(Merged::Bool(b.try_reshape(heads(b.dims(), b.shape())?)?)),
        Some(AttnMask::Additive(m)) => Some(Merged::Additive(
            m.try_reshape(heads(m.dims(), m.shape())?)?,
        )),
        Some(AttnMask::Causal) if key_padding_mask.is_some() => {
            let dev = key_padding_mask.expect("checked").device_handle();
            let i = Tensor::<i64, D>::arange_on(0, l as i64, 1, dev)?.unsqueeze(1)?;
            let j = Tensor::<i64, D>::arange_on(0, s as i64, 1, dev)?.unsqueeze(0)?;
            Some(Merged::Bool(j.try_le(&i)?))
        }
        Some(AttnMask::Causal) | None => None,
    };
    let Some(kp) = key_padding_mask else {
        return Ok(merged);
    };
    let want = if batched { vec![n, s] } else { vec![s] };
    if kp.dims() != want.as_slice() {
        return Err(bad("key_padding_mask", kp.shape(), format!("{want:?}")));
    }
    let keep = kp.try_logical_not()?.try_reshape([n, 1, 1, s])?;
    Ok(Some(match merged {
        None => Merged::Bool(keep),
        Some(Merged::Bool(b)) => Merged::Bool(b.try_logical_and(&keep)?),
        Some(Merged::Additive(m)) => {
            let zero = Tensor::<T, D>::zeros_on([], kp.device_handle())?;
            let ninf =
                Tensor::<T, D>::full_on([], T::from_f64(f64::NEG_INFINITY), kp.device_handle())?;
            Merged::Additive(m.try_add(&Tensor::try_where(&keep, &zero, &ninf)?)?)
        }
    }))
}
