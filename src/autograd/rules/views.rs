//! The gradient of a view, replayed through the layouts of the tensor viewed and the view.

use super::super::{Deferred, DeferredGrad, Grad, no_grad, record, take};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::shape::{Layout, Shape};
use crate::tensor::Tensor;

/// Where a view's gradient goes in its base's gradient: the view's elements sit at the layout
/// `at` of a buffer of `len` elements which, read with the layout `base` (dense or strided,
/// not broadcast), is the base's gradient.
#[derive(Clone, Debug)]
pub(crate) struct Placement {
    at: Layout,
    base: Layout,
    len: usize,
    dense: bool,
}

/// `g` written at `p.at` in a zero buffer, read as the base's gradient. Recorded (as
/// [`super::Op::Place`], whose rule is [`gather`]) when `g` carries a graph, in a
/// `create_graph` pass.
fn scatter<F: FloatElement, D: Backend>(g: &Tensor<F, D>, p: &Placement) -> Result<Tensor<F, D>> {
    let out = no_grad(|| -> Result<Tensor<F, D>> {
        let buf = Tensor::<F, D>::zeros_on([p.len], &g.device)?;
        buf.with_layout("backward", p.at.clone())?.add_(g)?;
        let grad = buf.with_layout("backward", p.base.clone())?;
        // A dense base (a permutation, e.g. `select` of a permuted qkv projection) keeps the
        // buffer's order: the gradient is a view of `buf`, which nobody else holds, so sibling
        // views' gradients add into it in place and the permute's own backward finds it in the
        // storage order it needs, with no copy (see `autograd::add_grads`).
        if p.dense {
            Ok(grad)
        } else {
            grad.try_contiguous()
        }
    })?;
    let op = super::Op::Place(Box::new(p.clone()), false);
    Ok(record(out, op, &[g], &[]))
}

/// The adjoint of [`scatter`]: the elements of `gb` (a gradient of the base's shape) at the
/// view's places, contiguous in `p.at`'s shape. Recorded as [`scatter`] is.
pub(super) fn gather<F: FloatElement, D: Backend>(
    gb: &Tensor<F, D>,
    p: &Placement,
) -> Result<Tensor<F, D>> {
    let out = no_grad(|| -> Result<Tensor<F, D>> {
        let buf = Tensor::<F, D>::zeros_on([p.len], &gb.device)?;
        buf.with_layout("backward", p.base.clone())?.add_(gb)?;
        buf.with_layout("backward", p.at.clone())?.try_contiguous()
    })?;
    let op = super::Op::Place(Box::new(p.clone()), true);
    Ok(record(out, op, &[gb], &[]))
}

/// The rule of [`super::Op::Place`]: each direction's gradient is the other direction.
pub(super) fn place_backward<F: FloatElement, D: Backend>(
    g: &Tensor<F, D>,
    p: &Placement,
    gathered: bool,
) -> Result<Tensor<F, D>> {
    if gathered {
        scatter(g, p)
    } else {
        gather(g, p)
    }
}

/// A view's gradient not yet written into a zero gradient of its base ([`scatter`]), kept so
/// until the backward pass needs it: when another view's gradient of the same base arrives
/// first, this one is added into that buffer's slice in place, so a loop over `select`s or
/// `narrow`s (a recurrent network's time steps) costs the slices, not one zero base per view.
struct ViewGrad<F: FloatElement, D: Backend> {
    g: Tensor<F, D>,
    p: Placement,
}

impl<F: FloatElement, D: Backend> DeferredGrad for ViewGrad<F, D> {
    fn materialize(self: Box<Self>) -> Result<Grad> {
        Ok(Box::new(scatter(&self.g, &self.p)?))
    }

    fn add_into(self: Box<Self>, acc: Grad) -> Result<Grad> {
        let acc = take::<F, D>(acc)?;
        // A gradient of this base laid out as `scatter` lays it out, that nothing else holds
        // and no graph records: add into its slice.
        let p = &self.p;
        if p.dense
            && acc.node.is_none()
            && self.g.node.is_none()
            && acc.layout == p.base
            && D::is_unique(&acc.storage)
        {
            acc.with_layout("backward", p.at.clone())?.add_(&self.g)?;
            return Ok(Box::new(acc));
        }
        super::super::add_grads(Box::new(acc), Box::new(scatter(&self.g, p)?))
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
        Plan::Write(w) => scatter(&w.g, &w.p),
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
    let p = Placement {
        at: first_of(shift(&view.layout), &in_view),
        base: shift(&base.layout),
        len: hi - lo + 1,
        dense: base.layout.is_dense(),
    };
    let in_base = stretched(base);
    if in_base.is_empty() {
        return Ok(Plan::Write(ViewGrad { g, p }));
    }
    // A broadcast base: its first aliases get the storage's gradient (the base read with
    // the stretched dimensions cut to their first element is not aliased), the others 0.
    let first = Placement {
        base: first_of(p.base, &in_base),
        dense: false,
        ..p
    };
    let part = scatter(&g, &first)?;
    let pads: Vec<(usize, usize)> = (base.dims().iter().zip(part.dims()))
        .map(|(&b, &f)| (0, b - f))
        .collect();
    Ok(Plan::Ready(part.try_pad(&pads, F::ZERO)?))
}
