//! The classical orthogonal polynomials of `torch.special`: Chebyshev `T`, `U`, `V`, `W`
//! (and the shifted ones, on `[0, 1]`), the physicists' and probabilists' Hermite `H`, `He`,
//! Laguerre `L` and Legendre `P`, each `p(x, n)` of a float tensor `x` and a degree tensor `n`
//! (broadcast; truncated to an integer, as PyTorch's `static_cast<int64_t>`, and `p = 0` for
//! `n < 0`). PyTorch's algorithms: the three-term recurrence, and for the Chebyshev
//! polynomials inside `(-1, 1)` above a small degree the trigonometric closed form.
//!
//! Evaluated in f64 on the host, one pass over the broadcast elements, and rounded once to
//! `x`'s dtype (PyTorch computes in the dtype itself, so f32 results can differ from its in
//! the last bits); on CUDA the operands are downloaded and the result uploaded. PyTorch has no
//! gradient for them; neither has this crate (`backward` through one is an `Err`).
//!
//! ```
//! use typed_tensor::prelude::*;
//! let x = tensor![0.5f64, -0.25, 2.0];
//! let n = Tensor::<f64>::scalar(3.0);
//! // T₃(x) = 4x³ - 3x
//! assert_eq!(x.chebyshev_polynomial_t(&n).to_vec(), vec![-1.0, 0.6875, 26.0]);
//! // P₂(x) = (3x² - 1) / 2, with the degree per element
//! let p = x.legendre_polynomial_p(&tensor![2.0f64, 0.0, 1.0]);
//! assert_eq!(p.to_vec(), vec![-0.125, 1.0, 2.0]);
//! # Ok::<(), typed_tensor::Error>(())
//! ```

use crate::autograd::{Op, record};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::ops::device_ops::same_device;
use crate::shape::broadcast_shapes;
use crate::tensor::Tensor;

/// The recurrences' total steps over one call, above which the call is refused rather than
/// left to run for minutes (2^32 steps take seconds).
const MAX_STEPS: u64 = 1 << 32;

/// `p₀ = 1`, `p₁ = first`, `p_{k+1} = next(k, p_k, p_{k-1})` up to `n` (`n >= 2`). A NaN
/// stays NaN, so the loop stops there.
fn recurrence(n: i64, first: f64, next: impl Fn(f64, f64, f64) -> f64) -> f64 {
    let (mut p, mut q) = (1.0, first);
    for k in 1..n {
        let r = next(k as f64, q, p);
        (p, q) = (q, r);
        if q.is_nan() {
            break;
        }
    }
    q
}

fn chebyshev_t(x: f64, n: i64) -> f64 {
    if n < 0 {
        return 0.0;
    }
    if x.abs() == 1.0 {
        return if x > 0.0 || n % 2 == 0 { 1.0 } else { -1.0 };
    }
    if n > 6 && x.abs() < 1.0 {
        return (n as f64 * x.acos()).cos();
    }
    match n {
        0 => 1.0,
        1 => x,
        _ => recurrence(n, x, |_, q, p| (x + x) * q - p),
    }
}

fn chebyshev_u(x: f64, n: i64) -> f64 {
    if n < 0 {
        return 0.0;
    }
    if x.abs() == 1.0 {
        let v = (n + 1) as f64;
        return if x > 0.0 || n % 2 == 0 { v } else { -v };
    }
    if n > 8 && x.abs() < 1.0 {
        let t = x.acos();
        return if t.sin() != 0.0 {
            ((n + 1) as f64 * t).sin() / t.sin()
        } else {
            (n + 1) as f64 * ((n + 1) as f64 * t).cos() * x
        };
    }
    match n {
        0 => 1.0,
        1 => x + x,
        _ => recurrence(n, x + x, |_, q, p| (x + x) * q - p),
    }
}

fn chebyshev_v(x: f64, n: i64) -> f64 {
    if n < 0 {
        return 0.0;
    }
    let odd = (n + n + 1) as f64;
    if x.abs() == 1.0 {
        return if x > 0.0 {
            1.0
        } else if n % 2 == 0 {
            odd
        } else {
            -odd
        };
    }
    if n > 8 && x.abs() < 1.0 {
        let t = x.acos();
        if (t / 2.0).sin() != 1.0 {
            return ((n as f64 + 0.5) * t).cos() / (t / 2.0).cos();
        }
        return if n % 2 == 0 { odd } else { -odd };
    }
    match n {
        0 => 1.0,
        1 => x + x - 1.0,
        _ => recurrence(n, x + x - 1.0, |_, q, p| (x + x) * q - p),
    }
}

fn chebyshev_w(x: f64, n: i64) -> f64 {
    if n < 0 {
        return 0.0;
    }
    let odd = (n + n + 1) as f64;
    if x.abs() == 1.0 {
        return if x > 0.0 {
            odd
        } else if n % 2 == 0 {
            1.0
        } else {
            -1.0
        };
    }
    if n > 8 && x.abs() < 1.0 {
        let t = x.acos();
        if (t / 2.0).cos() != 1.0 {
            return ((n as f64 + 0.5) * t).sin() / (t / 2.0).sin();
        }
        return if x > 0.0 {
            odd
        } else if n % 2 == 0 {
            1.0
        } else {
            -1.0
        };
    }
    match n {
        0 => 1.0,
        1 => x + x + 1.0,
        _ => recurrence(n, x + x + 1.0, |_, q, p| (x + x) * q - p),
    }
}

fn hermite_h(x: f64, n: i64) -> f64 {
    match n {
        ..0 => 0.0,
        0 => 1.0,
        1 => x + x,
        _ => recurrence(n, x + x, |k, q, p| (x + x) * q - (k + k) * p),
    }
}

fn hermite_he(x: f64, n: i64) -> f64 {
    match n {
        ..0 => 0.0,
        0 => 1.0,
        1 => x,
        _ => recurrence(n, x, |k, q, p| x * q - k * p),
    }
}

fn laguerre_l(x: f64, n: i64) -> f64 {
    if n < 0 {
        return 0.0;
    }
    if x.abs() == 0.0 {
        return 1.0;
    }
    match n {
        0 => 1.0,
        1 => 1.0 - x,
        _ => recurrence(n, 1.0 - x, |k, q, p| {
            ((k + k + (1.0 - x)) * q - k * p) / (k + 1.0)
        }),
    }
}

fn legendre_p(x: f64, n: i64) -> f64 {
    if n < 0 {
        return 0.0;
    }
    if x.abs() == 1.0 {
        return if x > 0.0 || n % 2 == 0 { 1.0 } else { -1.0 };
    }
    match n {
        0 => 1.0,
        1 => x,
        _ => recurrence(n, x, |k, q, p| ((k + k + 1.0) * x * q - k * p) / (k + 1.0)),
    }
}

/// The degree PyTorch's cast gives (saturating; a NaN degree is an `Err`).
fn degree(op: &'static str, n: f64) -> Result<i64> {
    if n.is_nan() {
        return Err(Error::InvalidArgument {
            op,
            msg: "a degree n is NaN; degrees are integers".into(),
        });
    }
    Ok(n.trunc().clamp(i64::MIN as f64, i64::MAX as f64) as i64)
}

/// `f(x, n)` over the broadcast operands, evaluated on the host (module docs).
fn evaluate<T: FloatElement, D: Backend>(
    op: &'static str,
    x: &Tensor<T, D>,
    n: &Tensor<T, D>,
    f: fn(f64, i64) -> f64,
    closed_form: fn(f64, i64) -> bool,
) -> Result<Tensor<T, D>> {
    same_device(op, x, n)?;
    let shape = broadcast_shapes(op, x.shape(), n.shape())?;
    let host = |t: &Tensor<T, D>| -> Result<Vec<f64>> {
        let t = D::to_host(&t.expand(shape.clone())?)?;
        Ok(t.try_cast::<f64>()?.to_vec())
    };
    let (xs, ns) = (host(x)?, host(n)?);
    let mut steps = 0u64;
    let mut degrees = crate::alloc::with_capacity(op, ns.len())?;
    for (&x, &n) in xs.iter().zip(&ns) {
        let d = degree(op, n)?;
        if d > 1 && !closed_form(x, d) {
            steps = steps.saturating_add(d as u64);
        }
        degrees.push(d);
    }
    if steps > MAX_STEPS {
        return Err(Error::InvalidArgument {
            op,
            msg: format!(
                "the recurrence would take {steps} steps over these degrees (more than 2^32); evaluate fewer elements or lower degrees at a time"
            ),
        });
    }
    let mut out = crate::alloc::with_capacity(op, xs.len())?;
    out.extend((xs.iter().zip(&degrees)).map(|(&x, &d)| T::from_f64(f(x, d))));
    let out = D::from_host(
        &Tensor::<T, crate::device::Cpu>::from_vec(out, shape)?,
        &x.device,
    )?;
    Ok(record(out, Op::NoGrad(op), &[x, n], &[]))
}

/// Whether the Chebyshev polynomials use their closed form (no recurrence) at `(x, n)`.
fn chebyshev_closed(x: f64, _n: i64) -> bool {
    x.abs() <= 1.0 || x.is_nan()
}

fn never(_: f64, _: i64) -> bool {
    false
}

fn shifted(f: fn(f64, i64) -> f64) -> impl Fn(f64, i64) -> f64 {
    move |x, n| f(x + x - 1.0, n)
}

macro_rules! orthopoly {
    ($($(#[$doc:meta])* $name:ident, $try_name:ident, $f:expr, $closed:expr;)*) => {
        impl<T: FloatElement, D: Backend> Tensor<T, D> {
            $(
                $(#[$doc])*
                ///
                /// # Errors
                /// `Broadcast` when `self` and `n` do not broadcast; `Device` across devices;
                /// `InvalidArgument` for a NaN degree or degrees whose recurrences would take
                /// more than 2^32 steps in all; allocation failure.
                pub fn $try_name(&self, n: &Self) -> Result<Self> {
                    fn f(x: f64, n: i64) -> f64 {
                        ($f)(x, n)
                    }
                    fn closed(x: f64, n: i64) -> bool {
                        ($closed)(x, n)
                    }
                    evaluate(stringify!($name), self, n, f, closed)
                }

                #[doc = concat!("[`Tensor::", stringify!($try_name), "`], panicking with its error.")]
                ///
                /// # Panics
                #[doc = concat!("When `", stringify!($try_name), "` returns an `Err`.")]
                #[track_caller]
                pub fn $name(&self, n: &Self) -> Self {
                    crate::error::OrPanic::or_panic(self.$try_name(n))
                }
            )*
        }
    };
}

orthopoly! {
    /// The Chebyshev polynomial of the first kind `T_n(x)`, `T_n(cos θ) = cos(nθ)` (PyTorch
    /// `special.chebyshev_polynomial_t`); see the module docs.
    chebyshev_polynomial_t, try_chebyshev_polynomial_t, chebyshev_t, chebyshev_closed;
    /// The Chebyshev polynomial of the second kind `U_n(x)`,
    /// `U_n(cos θ) = sin((n+1)θ) / sin θ` (PyTorch `special.chebyshev_polynomial_u`).
    chebyshev_polynomial_u, try_chebyshev_polynomial_u, chebyshev_u, chebyshev_closed;
    /// The Chebyshev polynomial of the third kind `V_n(x)`,
    /// `V_n(cos θ) = cos((n+½)θ) / cos(θ/2)` (PyTorch `special.chebyshev_polynomial_v`).
    chebyshev_polynomial_v, try_chebyshev_polynomial_v, chebyshev_v, chebyshev_closed;
    /// The Chebyshev polynomial of the fourth kind `W_n(x)`,
    /// `W_n(cos θ) = sin((n+½)θ) / sin(θ/2)` (PyTorch `special.chebyshev_polynomial_w`).
    chebyshev_polynomial_w, try_chebyshev_polynomial_w, chebyshev_w, chebyshev_closed;
    /// `T_n(2x - 1)`, the first kind on `[0, 1]` (PyTorch
    /// `special.shifted_chebyshev_polynomial_t`).
    shifted_chebyshev_polynomial_t, try_shifted_chebyshev_polynomial_t, shifted(chebyshev_t),
    |x: f64, n| chebyshev_closed(x + x - 1.0, n);
    /// `U_n(2x - 1)` (PyTorch `special.shifted_chebyshev_polynomial_u`).
    shifted_chebyshev_polynomial_u, try_shifted_chebyshev_polynomial_u, shifted(chebyshev_u),
    |x: f64, n| chebyshev_closed(x + x - 1.0, n);
    /// `V_n(2x - 1)` (PyTorch `special.shifted_chebyshev_polynomial_v`).
    shifted_chebyshev_polynomial_v, try_shifted_chebyshev_polynomial_v, shifted(chebyshev_v),
    |x: f64, n| chebyshev_closed(x + x - 1.0, n);
    /// `W_n(2x - 1)` (PyTorch `special.shifted_chebyshev_polynomial_w`).
    shifted_chebyshev_polynomial_w, try_shifted_chebyshev_polynomial_w, shifted(chebyshev_w),
    |x: f64, n| chebyshev_closed(x + x - 1.0, n);
    /// The physicists' Hermite polynomial `H_n(x)`, `H_{n+1} = 2x·H_n - 2n·H_{n-1}` (PyTorch
    /// `special.hermite_polynomial_h`).
    hermite_polynomial_h, try_hermite_polynomial_h, hermite_h, never;
    /// The probabilists' Hermite polynomial `He_n(x)`, `He_{n+1} = x·He_n - n·He_{n-1}`
    /// (PyTorch `special.hermite_polynomial_he`).
    hermite_polynomial_he, try_hermite_polynomial_he, hermite_he, never;
    /// The Laguerre polynomial `L_n(x)`,
    /// `(n+1)·L_{n+1} = (2n + 1 - x)·L_n - n·L_{n-1}` (PyTorch `special.laguerre_polynomial_l`).
    laguerre_polynomial_l, try_laguerre_polynomial_l, laguerre_l, never;
    /// The Legendre polynomial `P_n(x)`, `(n+1)·P_{n+1} = (2n+1)·x·P_n - n·P_{n-1}` (PyTorch
    /// `special.legendre_polynomial_p`).
    legendre_polynomial_p, try_legendre_polynomial_p, legendre_p, never;
}
