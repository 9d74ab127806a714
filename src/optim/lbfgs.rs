//! L-BFGS (PyTorch `LBFGS`): quasi-Newton steps from the last `history_size` gradient
//! differences (the two-loop recursion), with PyTorch's fixed step or its strong-Wolfe line
//! search (cubic interpolation, `c1 = 1e-4`, `c2 = 0.9`), each step re-evaluating the loss
//! through a closure. All parameters are one flat vector, as in PyTorch.

use super::{Optimizer, Range, check_hyper};
use crate::autograd::{enable_grad, no_grad};
use crate::backend::Backend;
use crate::dtype::{Element, FloatElement};
use crate::dynamic::DynTensor;
use crate::error::{Error, Result};
use crate::ops::converted;
use crate::tensor::Tensor;
use std::collections::BTreeMap;

type Flat<T, D> = Tensor<<T as FloatElement>::Acc, D>;

/// One evaluation: the loss as the closure returned it, as a number, and the flat gradient.
type Evaluation<T, D> = (Tensor<T, D>, f64, Option<Flat<T, D>>);

/// The dot product of two flat vectors, read back.
type Dot<'a, T, D> = dyn Fn(&Flat<T, D>, &Flat<T, D>) -> Result<f64> + 'a;

/// L-BFGS over `params` (PyTorch `LBFGS`, its defaults): call [`Lbfgs::step_with`] with a
/// closure that computes the loss and calls `backward` on it; the gradients are zeroed before
/// each evaluation (PyTorch leaves that to the closure). [`Optimizer::step`] without a
/// closure is an `Err`, as PyTorch's `step()`.
///
/// ```
/// use typed_tensor::optim::Lbfgs;
/// use typed_tensor::prelude::*;
/// // The Rosenbrock function from (-1.5, 2): the minimum is at (1, 1).
/// let xy = Tensor::<f64>::from_vec(vec![-1.5, 2.0], [2])?.with_requires_grad(true)?;
/// let mut opt = Lbfgs::new(vec![xy.clone()]);
/// opt.line_search = true; // PyTorch's line_search_fn = "strong_wolfe"
/// opt.max_iter = 100;
/// let rosen = || -> typed_tensor::Result<Tensor<f64>> {
///     let (x, y) = (xy.narrow(0, 0, 1)?, xy.narrow(0, 1, 1)?);
///     let a = x.try_rsub_scalar(1.0)?.try_square()?;
///     let b = y.try_sub(&x.try_square()?)?.try_square()?.try_mul_scalar(100.0)?;
///     let loss = a.try_add(&b)?.try_sum(&[], false)?;
///     loss.try_backward()?;
///     Ok(loss)
/// };
/// for _ in 0..5 {
///     opt.step_with(rosen)?;
/// }
/// // PyTorch stops at the same point, 2e-6 away (the loss changes by less than 1e-9)
/// assert!(xy.to_vec().iter().all(|v| (v - 1.0).abs() < 1e-5));
/// # Ok::<(), typed_tensor::Error>(())
/// ```
pub struct Lbfgs<T: FloatElement, D: Backend> {
    params: Vec<Tensor<T, D>>,
    state: State<T, D>,
    /// The step size (1).
    pub lr: f64,
    /// Iterations per `step_with` (20).
    pub max_iter: usize,
    /// Loss evaluations per `step_with` (`None`: `max_iter · 5 / 4`).
    pub max_eval: Option<usize>,
    /// Stop when every gradient component is at most this in size (1e-7).
    pub tolerance_grad: f64,
    /// Stop when the step, or the change of the loss, is below this (1e-9).
    pub tolerance_change: f64,
    /// Gradient differences kept (100).
    pub history_size: usize,
    /// Search each step's length for the strong Wolfe conditions (PyTorch's
    /// `line_search_fn="strong_wolfe"`; `false`: a fixed step `lr`).
    pub line_search: bool,
    /// Ascend the loss instead.
    pub maximize: bool,
}

/// What carries over between `step_with` calls (PyTorch's `state`).
struct State<T: FloatElement, D: Backend> {
    func_evals: u64,
    n_iter: u64,
    d: Option<Flat<T, D>>,
    t: f64,
    old_dirs: Vec<Flat<T, D>>,
    old_stps: Vec<Flat<T, D>>,
    ro: Vec<f64>,
    h_diag: f64,
    prev_flat_grad: Option<Flat<T, D>>,
    prev_loss: f64,
}

impl<T: FloatElement, D: Backend> Lbfgs<T, D> {
    /// L-BFGS over `params` with PyTorch's defaults; set the public fields to change them.
    pub fn new(params: Vec<Tensor<T, D>>) -> Self {
        Lbfgs {
            params,
            state: State {
                func_evals: 0,
                n_iter: 0,
                d: None,
                t: 0.0,
                old_dirs: Vec::new(),
                old_stps: Vec::new(),
                ro: Vec::new(),
                h_diag: 1.0,
                prev_flat_grad: None,
                prev_loss: 0.0,
            },
            lr: 1.0,
            max_iter: 20,
            max_eval: None,
            tolerance_grad: 1e-7,
            tolerance_change: 1e-9,
            history_size: 100,
            line_search: false,
            maximize: false,
        }
    }

    /// The number of loss evaluations so far (PyTorch's `state["func_evals"]`).
    pub fn func_evals(&self) -> u64 {
        self.state.func_evals
    }

    /// Up to `max_iter` L-BFGS iterations (PyTorch `LBFGS.step(closure)`): `closure` is
    /// called with the gradients zeroed and recording on; it returns the 0-d loss after
    /// calling `backward` on it. Returns the first evaluation's loss.
    ///
    /// # Errors
    /// `InvalidArgument` for a parameter that does not require grad, a negative `lr`, a zero
    /// `history_size`, a loss that is not one element; the closure's errors.
    pub fn step_with<F>(&mut self, mut closure: F) -> Result<Tensor<T, D>>
    where
        F: FnMut() -> Result<Tensor<T, D>>,
    {
        const OP: &str = "Lbfgs::step_with";
        check_hyper(OP, &[("lr", self.lr, Range::NonNegative)])?;
        if self.history_size == 0 {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: "history_size must be at least 1".into(),
            });
        }
        for p in &self.params {
            super::grad_of(p, OP)?;
        }
        let max_eval = self.max_eval.unwrap_or(self.max_iter * 5 / 4);
        let mut eval = |this: &Self| -> Result<Evaluation<T, D>> {
            for p in &this.params {
                p.zero_grad()?;
            }
            let loss = enable_grad(&mut closure)?;
            let v = no_grad(|| loss.try_cast::<f64>()?.try_item())?;
            let v = if this.maximize { -v } else { v };
            Ok((loss, v, no_grad(|| this.flat_grad())?))
        };
        let (orig_loss, mut loss, flat) = eval(self)?;
        self.state.func_evals += 1;
        let Some(mut flat_grad) = flat else {
            return Ok(orig_loss); // no elements to optimize
        };
        let max_abs = |v: &Flat<T, D>| -> Result<f64> {
            v.try_abs()?
                .try_amax(&[], false)?
                .try_cast::<f64>()?
                .try_item()
        };
        let dot = |a: &Flat<T, D>, b: &Flat<T, D>| -> Result<f64> {
            a.try_mul(b)?
                .try_sum(&[], false)?
                .try_cast::<f64>()?
                .try_item()
        };
        let scal = |v: f64| <T::Acc as Element>::from_f64(v);
        if no_grad(|| max_abs(&flat_grad))? <= self.tolerance_grad {
            return Ok(orig_loss);
        }
        let mut current_evals = 1;
        let mut n_iter = 0;
        while n_iter < self.max_iter {
            n_iter += 1;
            self.state.n_iter += 1;
            let st = &mut self.state;
            let d = no_grad(|| -> Result<Flat<T, D>> {
                if st.n_iter == 1 {
                    st.old_dirs.clear();
                    st.old_stps.clear();
                    st.ro.clear();
                    st.h_diag = 1.0;
                    return flat_grad.try_neg();
                }
                let (prev, d) = match (&st.prev_flat_grad, &st.d) {
                    (Some(p), Some(d)) => (p, d),
                    _ => return flat_grad.try_neg(),
                };
                let y = flat_grad.try_sub(prev)?;
                let s = d.try_mul_scalar(scal(st.t))?;
                let ys = dot(&y, &s)?;
                if ys > 1e-10 {
                    if st.old_dirs.len() == self.history_size {
                        st.old_dirs.remove(0);
                        st.old_stps.remove(0);
                        st.ro.remove(0);
                    }
                    st.h_diag = ys / dot(&y, &y)?;
                    st.old_dirs.push(y);
                    st.old_stps.push(s);
                    st.ro.push(1.0 / ys);
                }
                // The two-loop recursion: d = -H·g.
                let k = st.old_dirs.len();
                let mut al = vec![0.0; k];
                let mut q = flat_grad.try_neg()?;
                for i in (0..k).rev() {
                    al[i] = dot(&st.old_stps[i], &q)? * st.ro[i];
                    q = q.try_sub(&st.old_dirs[i].try_mul_scalar(scal(al[i]))?)?;
                }
                let mut r = q.try_mul_scalar(scal(st.h_diag))?;
                for i in 0..k {
                    let be = dot(&st.old_dirs[i], &r)? * st.ro[i];
                    r = r.try_add(&st.old_stps[i].try_mul_scalar(scal(al[i] - be))?)?;
                }
                Ok(r)
            })?;
            self.state.prev_flat_grad = Some(no_grad(|| flat_grad.try_deep_copy())?);
            self.state.prev_loss = loss;
            let t = match self.state.n_iter {
                1 => {
                    (1.0 / no_grad(|| {
                        flat_grad
                            .try_abs()?
                            .try_sum(&[], false)?
                            .try_cast::<f64>()?
                            .try_item()
                    })?)
                    .min(1.0)
                        * self.lr
                }
                _ => self.lr,
            };
            let gtd = no_grad(|| dot(&flat_grad, &d))?;
            self.state.d = Some(d.clone());
            self.state.t = t;
            if gtd > -self.tolerance_change {
                break;
            }
            let mut ls_evals = 0;
            let mut opt_cond = false;
            let t = if self.line_search {
                let start: Vec<Tensor<T, D>> = no_grad(|| {
                    self.params
                        .iter()
                        .map(|p| p.try_deep_copy())
                        .collect::<Result<_>>()
                })?;
                let mut at = |this: &Self, t: f64| -> Result<(f64, Flat<T, D>)> {
                    no_grad(|| this.add_flat(t, &d))?;
                    let (_, f, g) = eval(this)?;
                    no_grad(|| {
                        this.params
                            .iter()
                            .zip(&start)
                            .try_for_each(|(p, s)| p.clone().copy_(s))
                    })?;
                    Ok((f, g.expect("the parameters have elements")))
                };
                let budget = max_eval.saturating_sub(current_evals);
                let (f, g, t, evals) = strong_wolfe(
                    self,
                    &mut at,
                    &d,
                    t,
                    loss,
                    &flat_grad,
                    gtd,
                    self.tolerance_change,
                    budget,
                    &dot,
                    &max_abs,
                )?;
                loss = f;
                flat_grad = g;
                ls_evals = evals;
                no_grad(|| self.add_flat(t, &d))?;
                opt_cond = no_grad(|| max_abs(&flat_grad))? <= self.tolerance_grad;
                t
            } else {
                no_grad(|| self.add_flat(t, &d))?;
                if n_iter != self.max_iter {
                    let (_, f, g) = eval(self)?;
                    loss = f;
                    flat_grad = g.expect("the parameters have elements");
                    opt_cond = no_grad(|| max_abs(&flat_grad))? <= self.tolerance_grad;
                    ls_evals = 1;
                }
                t
            };
            self.state.t = t;
            current_evals += ls_evals;
            self.state.func_evals += ls_evals as u64;
            if n_iter == self.max_iter || current_evals >= max_eval || opt_cond {
                break;
            }
            if no_grad(|| max_abs(&d))? * t.abs() <= self.tolerance_change {
                break;
            }
            if (loss - self.state.prev_loss).abs() < self.tolerance_change {
                break;
            }
        }
        Ok(orig_loss)
    }

    /// Every gradient flattened into one vector in the compute type (negated when
    /// maximizing); `None` without elements.
    fn flat_grad(&self) -> Result<Option<Flat<T, D>>> {
        let mut parts = Vec::with_capacity(self.params.len());
        for p in &self.params {
            let g = super::grad_of(p, "Lbfgs::step_with")?;
            parts.push(converted::<T, T::Acc, D>(&g)?.try_reshape([p.numel()])?);
        }
        if parts.iter().all(|p| p.numel() == 0) {
            return Ok(None);
        }
        let refs: Vec<&Flat<T, D>> = parts.iter().collect();
        let flat = Tensor::try_concat(&refs, 0)?;
        Ok(Some(if self.maximize { flat.try_neg()? } else { flat }))
    }

    /// `p ← p + t·d` for each parameter's slice of `d`.
    fn add_flat(&self, t: f64, d: &Flat<T, D>) -> Result<()> {
        let mut at = 0;
        for p in &self.params {
            let n = p.numel();
            let step = d
                .narrow(0, at, n)?
                .try_mul_scalar(<T::Acc as Element>::from_f64(t))?;
            p.clone()
                .add_(&converted::<T::Acc, T, D>(&step)?.try_reshape(p.shape().clone())?)?;
            at += n;
        }
        Ok(())
    }
}

/// PyTorch's `_cubic_interpolate`: the minimiser of the cubic through `(x1, f1, g1)` and
/// `(x2, f2, g2)`, clamped into `bounds` (by default the interval), or its midpoint.
fn cubic_interpolate(p1: (f64, f64, f64), p2: (f64, f64, f64), bounds: Option<(f64, f64)>) -> f64 {
    let ((x1, f1, g1), (x2, f2, g2)) = (p1, p2);
    let (lo, hi) = bounds.unwrap_or(if x1 <= x2 { (x1, x2) } else { (x2, x1) });
    let d1 = g1 + g2 - 3.0 * (f1 - f2) / (x1 - x2);
    let d2_square = d1 * d1 - g1 * g2;
    if d2_square >= 0.0 {
        let d2 = d2_square.sqrt();
        let min_pos = if x1 <= x2 {
            x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2.0 * d2))
        } else {
            x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2.0 * d2))
        };
        min_pos.max(lo).min(hi)
    } else {
        (lo + hi) / 2.0
    }
}

/// A point of the line search: its step, loss, gradient and directional derivative.
type Point<T, D> = (f64, f64, Flat<T, D>, f64);

/// The loss and flat gradient at step `t` along the search direction, the parameters
/// restored after.
type Objective<'a, T, D> = dyn FnMut(&Lbfgs<T, D>, f64) -> Result<(f64, Flat<T, D>)> + 'a;

/// PyTorch's `_strong_wolfe`: a step `t` along `d` from loss `f` and gradient `g` (slope
/// `gtd`) meeting the strong Wolfe conditions (`c1 = 1e-4`, `c2 = 0.9`), by bracketing then
/// zooming with cubic interpolation, in at most `max_ls` further evaluations. Returns the
/// loss, gradient and step there and the number of evaluations.
#[allow(clippy::too_many_arguments)]
fn strong_wolfe<T: FloatElement, D: Backend>(
    lb: &Lbfgs<T, D>,
    obj: &mut Objective<'_, T, D>,
    d: &Flat<T, D>,
    mut t: f64,
    f: f64,
    g: &Flat<T, D>,
    gtd: f64,
    tolerance_change: f64,
    max_ls: usize,
    dot: &Dot<'_, T, D>,
    max_abs: &dyn Fn(&Flat<T, D>) -> Result<f64>,
) -> Result<(f64, Flat<T, D>, f64, usize)> {
    let (c1, c2) = (1e-4, 0.9);
    let d_norm = no_grad(|| max_abs(d))?;
    let (mut f_new, mut g_new) = obj(lb, t)?;
    let mut evals = 1;
    let mut gtd_new = no_grad(|| dot(&g_new, d))?;
    let mut prev: Point<T, D> = (0.0, f, g.clone(), gtd);
    let mut done = false;
    let mut ls_iter = 0;
    let mut bracket: Vec<Point<T, D>> = Vec::new();
    while ls_iter < max_ls {
        if f_new > f + c1 * t * gtd || (ls_iter > 1 && f_new >= prev.1) {
            bracket = vec![prev, (t, f_new, g_new.clone(), gtd_new)];
            break;
        }
        if gtd_new.abs() <= -c2 * gtd {
            bracket = vec![(t, f_new, g_new.clone(), gtd_new)];
            done = true;
            break;
        }
        if gtd_new >= 0.0 {
            bracket = vec![prev, (t, f_new, g_new.clone(), gtd_new)];
            break;
        }
        // Extrapolate: a cubic step between 1.01·t and 10·t past the last.
        let (min_step, max_step) = (t + 0.01 * (t - prev.0), t * 10.0);
        let last = t;
        t = cubic_interpolate(
            (prev.0, prev.1, prev.3),
            (t, f_new, gtd_new),
            Some((min_step, max_step)),
        );
        prev = (last, f_new, g_new, gtd_new);
        (f_new, g_new) = obj(lb, t)?;
        evals += 1;
        gtd_new = no_grad(|| dot(&g_new, d))?;
        ls_iter += 1;
    }
    if ls_iter == max_ls {
        bracket = vec![(0.0, f, g.clone(), gtd), (t, f_new, g_new, gtd_new)];
    }
    // The lower end first; a single point (or a NaN loss, where PyTorch fails) keeps its order.
    let order = |b: &[Point<T, D>]| match b.len() == 1 || b[0].1 <= b[1].1 || b[1].1.is_nan() {
        true => (0, 1),
        false => (1, 0),
    };
    let (mut low, mut high) = order(&bracket);
    let mut insufficient = false;
    while !done && ls_iter < max_ls {
        if (bracket[1].0 - bracket[0].0).abs() * d_norm < tolerance_change {
            break;
        }
        let (a, b) = (&bracket[0], &bracket[1]);
        t = cubic_interpolate((a.0, a.1, a.3), (b.0, b.1, b.3), None);
        let (hi, lo) = (a.0.max(b.0), a.0.min(b.0));
        let eps = 0.1 * (hi - lo);
        if (hi - t).min(t - lo) < eps {
            // Too close to an end: move away from it, unless the last step did not.
            if insufficient || t >= hi || t <= lo {
                t = if (t - hi).abs() < (t - lo).abs() {
                    hi - eps
                } else {
                    lo + eps
                };
                insufficient = false;
            } else {
                insufficient = true;
            }
        } else {
            insufficient = false;
        }
        let (f_t, g_t) = obj(lb, t)?;
        evals += 1;
        let gtd_t = no_grad(|| dot(&g_t, d))?;
        ls_iter += 1;
        if f_t > f + c1 * t * gtd || f_t >= bracket[low].1 {
            bracket[high] = (t, f_t, g_t, gtd_t);
            (low, high) = order(&bracket);
        } else {
            if gtd_t.abs() <= -c2 * gtd {
                done = true;
            } else if gtd_t * (bracket[high].0 - bracket[low].0) >= 0.0 {
                bracket[high] = bracket[low].clone();
            }
            bracket[low] = (t, f_t, g_t, gtd_t);
        }
    }
    let (t, f, g, _) = bracket.swap_remove(low);
    Ok((f, g, t, evals))
}

impl<T: FloatElement, D: Backend> Optimizer for Lbfgs<T, D> {
    /// An `Err`: L-BFGS re-evaluates the loss, so it steps through [`Lbfgs::step_with`]
    /// (PyTorch's `step()` without a closure fails too).
    fn step(&mut self) -> Result<()> {
        Err(Error::InvalidArgument {
            op: "Lbfgs::step",
            msg: "L-BFGS needs a closure that re-evaluates the loss; call step_with(closure)"
                .into(),
        })
    }
    super::common_methods!();
    /// PyTorch's names: the vectors `"0.d"`, `"0.prev_flat_grad"`, `"0.old_dirs.{i}"`,
    /// `"0.old_stps.{i}"` (compute type, the parameters' device) and the numbers
    /// `"func_evals"`, `"n_iter"`, `"t"`, `"H_diag"`, `"prev_loss"`, `"ro.{i}"` (0-d f64).
    fn state_dict(&self) -> Result<Vec<(String, DynTensor)>> {
        let st = &self.state;
        let mut out = Vec::new();
        let mut vec = |name: String, v: &Flat<T, D>| -> Result<()> {
            out.push((name, DynTensor::from(v.try_deep_copy()?)));
            Ok(())
        };
        if let Some(d) = &st.d {
            vec("0.d".into(), d)?;
        }
        if let Some(p) = &st.prev_flat_grad {
            vec("0.prev_flat_grad".into(), p)?;
        }
        for (i, (y, s)) in st.old_dirs.iter().zip(&st.old_stps).enumerate() {
            vec(format!("0.old_dirs.{i}"), y)?;
            vec(format!("0.old_stps.{i}"), s)?;
        }
        let mut nums = vec![
            ("func_evals".to_string(), st.func_evals as f64),
            ("n_iter".to_string(), st.n_iter as f64),
            ("t".to_string(), st.t),
            ("H_diag".to_string(), st.h_diag),
            ("prev_loss".to_string(), st.prev_loss),
        ];
        nums.extend(
            st.ro
                .iter()
                .enumerate()
                .map(|(i, &r)| (format!("ro.{i}"), r)),
        );
        for (name, v) in nums {
            out.push((name, DynTensor::from(Tensor::scalar(v))));
        }
        Ok(out)
    }
    fn load_state_dict(&mut self, state: &BTreeMap<String, DynTensor>) -> Result<()> {
        let bad = |msg: String| Error::InvalidArgument {
            op: "load_state_dict",
            msg,
        };
        let n: usize = self.params.iter().map(|p| p.numel()).sum();
        let device = self.params.first().map(|p| p.device_handle().clone());
        let vector = |name: &str| -> Result<Option<Flat<T, D>>> {
            let Some(v) = state.get(name) else {
                return Ok(None);
            };
            if v.dtype() != <T::Acc as Element>::DTYPE || v.shape().dims() != [n] {
                return Err(bad(format!(
                    "entry {name:?} must be a {:?} vector of {n} elements, got {:?} {}",
                    <T::Acc as Element>::DTYPE,
                    v.dtype(),
                    v.shape()
                )));
            }
            let host = v.to_vec::<T::Acc>()?;
            let dev = device
                .as_ref()
                .ok_or_else(|| bad("there are no parameters".into()))?;
            Ok(Some(Tensor::from_vec_on(host, [n], dev)?))
        };
        let number = |name: &str| -> Result<Option<f64>> {
            let Some(v) = state.get(name) else {
                return Ok(None);
            };
            let x = v.to_dtype(crate::Dtype::Float64)?.to_vec::<f64>()?;
            match x[..] {
                [x] if x.is_finite() => Ok(Some(x)),
                _ => Err(bad(format!("entry {name:?} must be one finite number"))),
            }
        };
        let count = |name: &str| -> Result<u64> {
            match number(name)? {
                Some(x) if x.fract() == 0.0 && (0.0..=9e15).contains(&x) => Ok(x as u64),
                Some(x) => Err(bad(format!(
                    "entry {name:?} must be a whole count, got {x}"
                ))),
                None => Err(bad(format!("entry {name:?} is missing"))),
            }
        };
        let history = state
            .keys()
            .filter(|k| k.starts_with("0.old_dirs."))
            .count();
        let known = |k: &str| {
            let indexed = |prefix: &str| {
                k.strip_prefix(prefix)
                    .and_then(|i| i.parse::<usize>().ok())
                    .is_some_and(|i| i < history)
            };
            [
                "0.d",
                "0.prev_flat_grad",
                "func_evals",
                "n_iter",
                "t",
                "H_diag",
                "prev_loss",
            ]
            .contains(&k)
                || indexed("0.old_dirs.")
                || indexed("0.old_stps.")
                || indexed("ro.")
        };
        if let Some(k) = state.keys().find(|k| !known(k)) {
            return Err(bad(format!("unknown entry {k:?} for L-BFGS")));
        }
        if history > self.history_size {
            return Err(bad(format!(
                "{history} history entries exceed history_size {}",
                self.history_size
            )));
        }
        let mut old_dirs = Vec::with_capacity(history);
        let mut old_stps = Vec::with_capacity(history);
        let mut ro = Vec::with_capacity(history);
        for i in 0..history {
            let missing = || bad(format!("history entry {i} lacks old_stps or ro"));
            old_dirs.push(vector(&format!("0.old_dirs.{i}"))?.ok_or_else(missing)?);
            old_stps.push(vector(&format!("0.old_stps.{i}"))?.ok_or_else(missing)?);
            ro.push(number(&format!("ro.{i}"))?.ok_or_else(missing)?);
        }
        self.state = State {
            func_evals: count("func_evals")?,
            n_iter: count("n_iter")?,
            d: vector("0.d")?,
            t: number("t")?.unwrap_or(0.0),
            old_dirs,
            old_stps,
            ro,
            h_diag: number("H_diag")?.unwrap_or(1.0),
            prev_flat_grad: vector("0.prev_flat_grad")?,
            prev_loss: number("prev_loss")?.unwrap_or(0.0),
        };
        Ok(())
    }
}
