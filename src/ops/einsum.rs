//! `einsum` (NumPy and PyTorch): Einstein summation over any number of operands, written with
//! other ops (diagonal views for repeated labels, sums for labels that end, one batched
//! `matmul` per pair of operands), so it runs on every device and is differentiable.
//!
//! ```
//! use typed_tensor::prelude::*;
//!
//! let a = Tensor::<f64>::arange(0.0, 6.0, 1.0)?.reshape([2, 3]);
//! let b = Tensor::<f64>::arange(0.0, 12.0, 1.0)?.reshape([3, 4]);
//! let c = Tensor::einsum("ij,jk->ik", &[&a, &b])?;
//! assert!(c.all_close(&a.matmul(&b), 0.0, 0.0));
//! let m = Tensor::<f64>::arange(0.0, 9.0, 1.0)?.reshape([3, 3]);
//! assert_eq!(Tensor::einsum("ii", &[&m])?.item(), 12.0); // the trace
//! assert_eq!(Tensor::einsum("ij->j", &[&a])?.to_vec(), vec![3.0, 5.0, 7.0]);
//! let batch = Tensor::<f64>::ones([5, 2, 3])?;
//! assert_eq!(Tensor::einsum("...ij,jk", &[&batch, &b])?.dims(), &[5, 2, 4]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::backend::Backend;
use crate::dtype::NumElement;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// A label: a letter, or the `k`-th axis of the ellipsis counted from its right end.
type Label = u32;
const ELLIPSIS: Label = 1 << 16;

fn invalid(msg: String) -> Error {
    Error::InvalidArgument { op: "einsum", msg }
}

/// The labels of one operand's subscripts for a tensor of `ndim` axes.
fn parse_operand(s: &str, ndim: usize) -> Result<Vec<Label>> {
    let (head, tail) = match s.split_once("...") {
        Some((h, t)) => (h, Some(t)),
        None => (s, None),
    };
    let letters = |part: &str| -> Result<Vec<Label>> {
        part.chars()
            .map(|c| match c.is_ascii_alphabetic() {
                true => Ok(c as Label),
                false => Err(invalid(format!(
                    "subscripts are letters and '...', got {c:?} in {s:?}"
                ))),
            })
            .collect()
    };
    let mut labels = letters(head)?;
    if let Some(tail) = tail {
        let tail = letters(tail)?;
        let named = labels.len() + tail.len();
        let Some(k) = ndim.checked_sub(named) else {
            return Err(invalid(format!(
                "{s:?} names {named} axes of a tensor with {ndim}"
            )));
        };
        labels.extend((0..k).rev().map(|i| ELLIPSIS + i as Label));
        labels.extend(tail);
    }
    if labels.len() != ndim {
        return Err(invalid(format!(
            "{s:?} names {} axes of a tensor with {ndim}",
            labels.len()
        )));
    }
    Ok(labels)
}

/// A tensor with one label per axis.
struct Term<T: NumElement, D: Backend> {
    t: Tensor<T, D>,
    labels: Vec<Label>,
}

impl<T: NumElement, D: Backend> Term<T, D> {
    /// Takes the diagonal of every repeated label (`ii -> i`), as NumPy does.
    fn diagonals(mut self) -> Result<Self> {
        while let Some((i, j)) = (0..self.labels.len())
            .flat_map(|i| (i + 1..self.labels.len()).map(move |j| (i, j)))
            .find(|&(i, j)| self.labels[i] == self.labels[j])
        {
            let (n, m) = (self.t.dims()[i], self.t.dims()[j]);
            if n != m {
                return Err(invalid(format!(
                    "a repeated label spans axes of sizes {n} and {m}"
                )));
            }
            // diagonal_axes removes both axes and appends the diagonal.
            self.t = self.t.diagonal_axes(0, i as i64, j as i64)?;
            let l = self.labels[i];
            self.labels.retain(|&x| x != l);
            self.labels.push(l);
        }
        Ok(self)
    }

    /// Sums out the labels that `keep` does not hold.
    fn sum_except(self, keep: &[Label]) -> Result<Self> {
        let axes: Vec<i64> = (0..self.labels.len() as i64)
            .filter(|&a| !keep.contains(&self.labels[a as usize]))
            .collect();
        if axes.is_empty() {
            return Ok(self);
        }
        let t = self.t.try_sum(&axes, false)?.try_cast::<T>()?;
        let labels = self
            .labels
            .into_iter()
            .filter(|l| keep.contains(l))
            .collect();
        Ok(Term { t, labels })
    }

    /// The axes of `order` (each held), as a permuted view expanded to `sizes`.
    fn arranged(&self, order: &[Label], sizes: &[usize]) -> Result<Tensor<T, D>> {
        let perm: Vec<i64> = (order.iter())
            .map(|l| self.labels.iter().position(|x| x == l).expect("held") as i64)
            .collect();
        self.t.permute(&perm)?.expand(sizes.to_vec())
    }

    fn size(&self, l: Label) -> Option<usize> {
        let at = self.labels.iter().position(|&x| x == l)?;
        Some(self.t.dims()[at])
    }
}

/// The product of `a` and `b` summed over the labels in both that `later` does not need.
fn contract<T: NumElement, D: Backend>(
    a: Term<T, D>,
    b: Term<T, D>,
    later: &[Label],
) -> Result<Term<T, D>> {
    let needed = |l: &Label, other: &Term<T, D>| later.contains(l) || other.labels.contains(l);
    let keep_a: Vec<Label> = a.labels.iter().copied().filter(|l| needed(l, &b)).collect();
    let a = a.sum_except(&keep_a)?;
    let keep_b: Vec<Label> = b.labels.iter().copied().filter(|l| needed(l, &a)).collect();
    let b = b.sum_except(&keep_b)?;
    let (mut batch, mut inner, mut left) = (vec![], vec![], vec![]);
    for &l in &a.labels {
        match (b.labels.contains(&l), later.contains(&l)) {
            (true, true) => batch.push(l),
            (true, false) => inner.push(l),
            _ => left.push(l),
        }
    }
    let right: Vec<Label> = b
        .labels
        .iter()
        .copied()
        .filter(|l| !a.labels.contains(l))
        .collect();
    // A label's size: equal in both, or 1 in one of them (broadcast).
    let size = |l: Label| -> Result<usize> {
        match (a.size(l), b.size(l)) {
            (Some(x), Some(y)) if x != y && x != 1 && y != 1 => Err(Error::ShapeMismatch {
                op: "einsum",
                lhs: a.t.shape().clone(),
                rhs: b.t.shape().clone(),
                msg: format!("a label has sizes {x} and {y}"),
            }),
            (Some(x), Some(y)) => Ok(x.max(y)),
            (x, y) => Ok(x.or(y).unwrap_or(1)),
        }
    };
    let sizes = |ls: &[Label]| ls.iter().map(|&l| size(l)).collect::<Result<Vec<usize>>>();
    let (sb, si, sl, sr) = (
        sizes(&batch)?,
        sizes(&inner)?,
        sizes(&left)?,
        sizes(&right)?,
    );
    let n = |s: &[usize]| s.iter().try_fold(1usize, |p, &d| p.checked_mul(d));
    let overflow = || Error::ShapeOverflow {
        op: "einsum",
        dims: [&sb[..], &si, &sl, &sr].concat(),
    };
    let (nb, ni, nl, nr) = (n(&sb), n(&si), n(&sl), n(&sr));
    let (Some(nb), Some(ni), Some(nl), Some(nr)) = (nb, ni, nl, nr) else {
        return Err(overflow());
    };
    let xa = a.arranged(
        &[&batch[..], &left, &inner].concat(),
        &[&sb[..], &sl, &si].concat(),
    )?;
    let xb = b.arranged(
        &[&batch[..], &inner, &right].concat(),
        &[&sb[..], &si, &sr].concat(),
    )?;
    let y = xa
        .try_reshape([nb, nl, ni])?
        .try_matmul(&xb.try_reshape([nb, ni, nr])?)?
        .try_reshape([&sb[..], &sl, &sr].concat())?;
    Ok(Term {
        t: y,
        labels: [batch, left, right].concat(),
    })
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    /// Einstein summation (NumPy and PyTorch `einsum`): `equation` names each operand's axes
    /// with letters (`"ij,jk->ik"`), `...` standing for broadcast leading axes; labels missing
    /// from the output (after `->`, or, without it, every label used once, in alphabetical
    /// order after the ellipsis axes) are summed; a label repeated in one operand takes its
    /// diagonal. Sizes of a label must agree or be 1. Integers accumulate in their own type
    /// (wrapping), as in NumPy.
    ///
    /// # Errors
    /// `InvalidArgument` for a malformed equation, a subscript list that does not fit its
    /// operand, or an output label that no input has; `ShapeMismatch` for sizes that differ;
    /// `Device` across devices.
    pub fn einsum(equation: &str, operands: &[&Self]) -> Result<Self> {
        let eq: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
        let (lhs, rhs) = match eq.split_once("->") {
            Some((l, r)) => (l, Some(r)),
            None => (&eq[..], None),
        };
        let subs: Vec<&str> = lhs.split(',').collect();
        if subs.len() != operands.len() {
            return Err(invalid(format!(
                "{equation:?} has {} operand subscripts for {} operands",
                subs.len(),
                operands.len()
            )));
        }
        let mut terms = Vec::new();
        let (mut ellipsis, mut all) = (0, Vec::<Label>::new());
        for (s, t) in subs.iter().zip(operands) {
            let labels = parse_operand(s, t.ndim())?;
            ellipsis = ellipsis.max(labels.iter().filter(|&&l| l >= ELLIPSIS).count());
            all.extend(labels.iter().copied());
            terms.push(
                Term {
                    t: (*t).clone(),
                    labels,
                }
                .diagonals()?,
            );
        }
        let out: Vec<Label> = match rhs {
            Some(r) => {
                let ndim = ellipsis + r.replace("...", "").len();
                let o = parse_operand(r, ndim)?;
                let unknown = o.iter().find(|l| !all.contains(l));
                if let Some(&l) = unknown.filter(|&&l| l < ELLIPSIS) {
                    let c = char::from_u32(l).unwrap_or('?');
                    return Err(invalid(format!("output label {c:?} is in no operand")));
                }
                if (1..o.len()).any(|i| o[..i].contains(&o[i])) {
                    return Err(invalid(format!("the output {r:?} repeats a label")));
                }
                o
            }
            None => {
                let mut once: Vec<Label> = (all.iter().copied())
                    .filter(|&l| l < ELLIPSIS && all.iter().filter(|&&x| x == l).count() == 1)
                    .collect();
                once.sort_unstable();
                (0..ellipsis as Label)
                    .rev()
                    .map(|i| ELLIPSIS + i)
                    .chain(once)
                    .collect()
            }
        };
        let mut terms = terms.into_iter();
        let Some(mut acc) = terms.next() else {
            return Err(invalid("needs at least one operand".into()));
        };
        let rest: Vec<Term<T, D>> = terms.collect();
        for (k, b) in rest.iter().enumerate() {
            let later: Vec<Label> = (out.iter().copied())
                .chain(rest[k + 1..].iter().flat_map(|t| t.labels.clone()))
                .collect();
            let b = Term {
                t: b.t.clone(),
                labels: b.labels.clone(),
            };
            acc = contract(acc, b, &later)?;
        }
        let acc = acc.sum_except(&out)?;
        let sizes: Vec<usize> = out.iter().map(|&l| acc.size(l).unwrap_or(1)).collect();
        acc.arranged(&out, &sizes)
    }
}
