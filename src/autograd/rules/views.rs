//! The gradient of a view, replayed through the layouts of the tensor viewed and the view.

use super::super::{Deferred, DeferredGrad, Grad, take};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::shape::{Layout, Shape};
use crate::tensor::Tensor;

/// A view's gradient not yet written into a zero gradient of its (dense or strided, not
/// broadcast) base: `g` goes at the layout `at` of a buffer of `len` elements, which read
/// with the layout `base` is the base's gradient. Kept so until the backward pass needs it:
/// when another view's gradient of the same base arrives first, this one is added into that
/// buffer's slice in place, so a loop over `select`s or `narrow`s (a recurrent network's time
/// steps) costs the slices, not one zero base per view.
struct ViewGrad<F: FloatElement, D: Backend> {
    g: Tensor<F, D>,
    at: Layout,
    base: Layout,
    len: usize,
    dense: bool,
}

impl<F: FloatElement, D: Backend> ViewGrad<F, D> {
    fn materialize(self) -> Result<Tensor<F, D>> {
        let buf = Tensor::<F, D>::zeros_on([self.len], &self.g.device)?;
        buf.with_layout("backward", self.at)?.add_(&self.g)?;
        let grad = buf.with_layout("backward", self.base)?;
        // A dense base (a permutation, e.g. `select` of a permuted qkv projection) keeps the
        // buffer's order: the gradient is a view of `buf`, which nobody else holds, so sibling
        // views' gradients add into it in place and the permute's own backward finds it in the
        // storage order it needs, with no copy (see `autograd::add_grads`).
        if self.dense {
            Ok(grad)
        } else {
            grad.try_contiguous()
        }
    }
}

impl<F: FloatElement, D: Backend> DeferredGrad for ViewGrad<F, D> {
    fn materialize(self: Box<Self>) -> Result<Grad> {
        Ok(Box::new((*self).materialize()?))
    }

    fn add_into(self: Box<Self>, acc: Grad) -> Result<Grad> {
        let acc = take::<F, D>(acc)?;
        // A gradient of this base laid out as `materialize` lays it out, that nothing else
        // holds: add into its slice.
        if self.dense && acc.node.is_none() && acc.layout == self.base && D::is_unique(&acc.storage)
        {
            acc.with_layout("backward", self.at.clone())?
                .add_(&self.g)?;
            return Ok(Box::new(acc));
        }
        super::super::add_grads(Box::new(acc), Box::new((*self).materialize()?))
    }
}

/// What a view's backward gives: the base's gradient, or the write that makes it.
enum Plan<F: FloatElement, D: Backend> {
    Ready(Tensor<F, D>),
    Write(ViewGrad<F, D>),
}

/// [`view_backward`] for the backward pass, which may keep the write deferred.
pub(in crate::autograd) fn view_grad<F: FloatElement, D: Backend>(
    name: &str,
    g: &Tensor<F, D>,
    base: &Tensor<F, D>,
    view: &Tensor<F, D>,
    aliased: bool,
) -> Result<Grad> {
    Ok(match plan(name, g, base, view, aliased)? {
        Plan::Ready(t) => Box::new(t),
        Plan::Write(w) => Box::new(Deferred(Box::new(w))),
    })
}

/// The gradient of a view: `g` written at the view's places in a zero gradient of the tensor
/// viewed. Both layouts index one storage, so the view's layout is replayed on a zero buffer
/// spanning the base; broadcast dimensions (stride 0) are summed first, since every element
/// along them is the same base element. A broadcast base is allowed when `aliased` (see
/// [`super::Op::BroadcastView`]): each storage element's gradient goes to its first alias.
pub(super) fn view_backward<F: FloatElement, D: Backend>(
    name: &str,
    g: &Tensor<F, D>,
    base: &Tensor<F, D>,
    view: &Tensor<F, D>,
    aliased: bool,
) -> Result<Tensor<F, D>> {
    match plan(name, g, base, view, aliased)? {
        Plan::Ready(t) => Ok(t),
        Plan::Write(w) => w.materialize(),
    }
}

fn plan<F: FloatElement, D: Backend>(
    name: &str,
    g: &Tensor<F, D>,
    base: &Tensor<F, D>,
    view: &Tensor<F, D>,
    aliased: bool,
) -> Result<Plan<F, D>> {
    // A leaf is never a broadcast view (`set_requires_grad` copies one), so an aliased base
    // is always a recorded op's output; kept as an `Err` rather than trusted.
    if base.layout.has_aliasing() && !aliased {
        return Err(Error::InvalidArgument {
            op: "backward",
            msg: format!(
                "`{name}` of a broadcast leaf (shape {}, strides {:?}) has no gradient here; call contiguous() on the broadcast view first",
                base.shape(),
                base.stride()
            ),
        });
    }
    if base.numel() == 0 {
        return Ok(Plan::Ready(Tensor::zeros_on(base.dims(), &g.device)?));
    }
    let (lo, hi) = base.layout.span();
    // A permutation of the base's elements (a transpose or permute of a dense base) met by a
    // gradient laid out as the view: the base's gradient is g's own buffer read with the base's
    // layout, with no buffer, fill or strided add (linear's weight gradient arrives so).
    if base.layout.is_dense() && view.layout.is_dense() && view.layout.span() == (lo, hi) {
        let same = (0..g.ndim()).all(|i| g.dims()[i] <= 1 || g.stride()[i] == view.stride()[i]);
        let offset = (g.layout.offset.checked_add(base.layout.offset))
            .and_then(|o| o.checked_sub(view.layout.offset));
        if same && let Some(offset) = offset {
            let layout = Layout {
                shape: base.layout.shape.clone(),
                strides: base.layout.strides.clone(),
                offset,
            };
            return Ok(Plan::Ready(
                g.with_layout("backward", layout)?.try_contiguous()?,
            ));
        }
    }
    let shift = |l: &Layout| Layout {
        shape: l.shape.clone(),
        strides: l.strides.clone(),
        offset: l.offset - lo,
    };
    // The dimensions of `t` that a stride 0 stretches (size > 1).
    let stretched = |t: &Tensor<F, D>| -> Vec<usize> {
        (0..t.ndim())
            .filter(|&i| t.stride()[i] == 0 && t.dims()[i] > 1)
            .collect()
    };
    // `l` with the dimensions in `dims` cut to size 1 (their first element).
    let first_of = |mut l: Layout, dims: &[usize]| {
        let mut d = l.shape.dims().to_vec();
        for &i in dims {
            d[i] = 1;
        }
        l.shape = Shape::new(d);
        l
    };
    // Sum `g` over the view's broadcast dimensions, keeping them as size 1.
    let in_view = stretched(view);
    let g = if in_view.is_empty() {
        g.clone()
    } else {
        let axes: Vec<i64> = in_view.iter().map(|&i| i as i64).collect();
        g.try_sum(&axes, true)?
    };
    let write = ViewGrad {
        g,
        at: first_of(shift(&view.layout), &in_view),
        base: shift(&base.layout),
        len: hi - lo + 1,
        dense: base.layout.is_dense(),
    };
    let in_base = stretched(base);
    if in_base.is_empty() {
        return Ok(Plan::Write(write));
    }
    let buf = Tensor::<F, D>::zeros_on([write.len], &write.g.device)?;
    buf.with_layout("backward", write.at)?.add_(&write.g)?;
    // A broadcast base: its first aliases get the storage's gradient, the others 0.
    let out = Tensor::<F, D>::zeros_on(base.dims(), &write.g.device)?;
    let mut first = out.clone();
    for &i in &in_base {
        first = first.narrow(i as i64, 0, 1)?;
    }
    first.add_(&buf.with_layout("backward", first_of(write.base, &in_base))?)?;
    Ok(Plan::Ready(out))
}
