//! The fused row kernels of `kernels/rows.cu` behind `Backend for Cuda`'s `softmax_along` (over the last axis),
//! `logsumexp`, `exp_sub` and `layer_norm_last`: f32 and f64 rows, one block a row. Each
//! returns `None` for the dtypes and layouts it does not take, and the caller composes the op.

use super::table::{Module, symbol};
use super::{THREADS, empty, launch};
use crate::backend::cuda::device::Arg;
use crate::device::{Cuda, CudaStorage};
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::shape::Shape;
use crate::tensor::Tensor;

/// Launches row kernel `root` over `rows` rows (one block each, grid-stride beyond 2^16).
fn launch_rows<T: FloatElement>(
    dev: &Cuda,
    root: &str,
    rows: usize,
    args: &[Arg<'_>],
) -> Result<()> {
    let items = rows.saturating_mul(THREADS as usize);
    launch(dev, Module::Rows, &symbol::<T>(root), items, args)
}

/// A buffer argument with its element offset, or a null pointer for `None`.
fn opt<'a, T: FloatElement>(t: Option<&'a Tensor<T, Cuda>>) -> [Arg<'a>; 2] {
    match t {
        Some(t) => [Arg::I64(t.layout.offset as i64), Arg::Buf(&t.storage.buf)],
        None => [Arg::I64(0), Arg::U64(0)],
    }
}

impl<T: FloatElement> Tensor<T, Cuda> {
    /// Runs a `(rows, len, off, in, out)` row kernel over this contiguous tensor's rows of
    /// `len` into a new buffer of `n` elements.
    fn plain_rows(&self, root: &str, len: usize, n: usize) -> Result<CudaStorage<T>> {
        let out: CudaStorage<T> = empty(&self.device, n)?;
        let rows = self.numel() / len;
        launch_rows::<T>(
            &self.device,
            root,
            rows,
            &[
                Arg::U64(rows as u64),
                Arg::U64(len as u64),
                Arg::I64(self.layout.offset as i64),
                Arg::Buf(&self.storage.buf),
                Arg::Buf(&out.buf),
            ],
        )?;
        Ok(out)
    }

    /// `softmax` over the last axis of a non-empty f32/f64 tensor.
    pub(crate) fn cuda_softmax_last(&self) -> Result<Option<Self>> {
        let len = self.dims().last().copied().unwrap_or(0);
        if T::SIZE < 4 || len == 0 || self.numel() == 0 {
            return Ok(None);
        }
        let x = self.try_contiguous()?;
        let out = x.plain_rows("softmax_rows", len, x.numel())?;
        Ok(Some(Tensor::from_storage(
            out,
            x.shape().clone(),
            &x.device,
        )))
    }

    /// `logsumexp` over the axes in `mask` when they are the trailing ones, of a non-empty
    /// f32/f64 tensor.
    pub(crate) fn cuda_logsumexp(&self, mask: &[bool], keepdim: bool) -> Result<Option<Self>> {
        let first = mask.iter().position(|&m| m).unwrap_or(mask.len());
        let trailing = mask[first..].iter().all(|&m| m);
        if T::SIZE < 4 || !trailing || first == mask.len() || self.numel() == 0 {
            return Ok(None);
        }
        // Fits: the product of a non-empty tensor's dims is its element count.
        let len: usize = self.dims()[first..].iter().product();
        let x = self.try_contiguous()?;
        let out = x.plain_rows("logsumexp_rows", len, x.numel() / len)?;
        let dims = x.dims();
        let dims: Vec<usize> = if keepdim {
            (dims.iter().enumerate())
                .map(|(i, &d)| if i < first { d } else { 1 })
                .collect()
        } else {
            dims[..first].to_vec()
        };
        Ok(Some(Tensor::from_storage(out, Shape::new(dims), &x.device)))
    }

    /// `exp(self - shift) · scale` where `shift` (and `scale`, of the same shape) hold one value
    /// per row: `self`'s shape with trailing axes of size 1.
    pub(crate) fn cuda_exp_sub(&self, shift: &Self, scale: Option<&Self>) -> Result<Option<Self>> {
        let (xd, sd) = (self.dims(), shift.dims());
        let kept = sd.len() - sd.iter().rev().take_while(|&&d| d == 1).count();
        let fits = T::SIZE >= 4
            && self.numel() > 0
            && sd.len() == xd.len()
            && sd[..kept] == xd[..kept]
            && scale.is_none_or(|c| c.dims() == sd);
        if !fits {
            return Ok(None);
        }
        let x = self.try_contiguous()?;
        let shift = shift.try_contiguous()?;
        let scale = scale.map(|c| c.try_contiguous()).transpose()?;
        let rows = shift.numel();
        let out: CudaStorage<T> = empty(&x.device, x.numel())?;
        let [so, sb] = opt(Some(&shift));
        let [co, cb] = opt(scale.as_ref());
        launch_rows::<T>(
            &x.device,
            "exp_sub_rows",
            rows,
            &[
                Arg::U64(rows as u64),
                Arg::U64((x.numel() / rows) as u64),
                Arg::I64(x.layout.offset as i64),
                Arg::Buf(&x.storage.buf),
                so,
                sb,
                co,
                cb,
                Arg::Buf(&out.buf),
            ],
        )?;
        Ok(Some(Tensor::from_storage(
            out,
            x.shape().clone(),
            &x.device,
        )))
    }

    /// `layer_norm` over the last `len` elements of each row, with the optional `weight` and
    /// `bias` of `len` elements each (their shapes checked by the caller).
    pub(crate) fn cuda_layer_norm_last(
        &self,
        len: usize,
        weight: Option<&Self>,
        bias: Option<&Self>,
        eps: f64,
    ) -> Result<Option<Self>> {
        if T::SIZE < 4 || len == 0 || self.numel() == 0 {
            return Ok(None);
        }
        let x = self.try_contiguous()?;
        let weight = weight.map(|w| w.try_contiguous()).transpose()?;
        let bias = bias.map(|b| b.try_contiguous()).transpose()?;
        let rows = x.numel() / len;
        let out: CudaStorage<T> = empty(&x.device, x.numel())?;
        let [wo, wb] = opt(weight.as_ref());
        let [bo, bb] = opt(bias.as_ref());
        launch_rows::<T>(
            &x.device,
            "layer_norm_rows",
            rows,
            &[
                Arg::U64(rows as u64),
                Arg::U64(len as u64),
                Arg::I64(x.layout.offset as i64),
                Arg::Buf(&x.storage.buf),
                wo,
                wb,
                bo,
                bb,
                Arg::F64(eps),
                Arg::Buf(&out.buf),
            ],
        )?;
        Ok(Some(Tensor::from_storage(
            out,
            x.shape().clone(),
            &x.device,
        )))
    }
}
