//! `Display`: nested brackets shaped like the tensor, aligned columns, a footer with shape,
//! dtype and device. Over [`SUMMARY_THRESHOLD`] elements, long dimensions are summarised with
//! `...` like NumPy; [`Tensor::display`] always prints every element.
//!
//! Floats switch to scientific notation by PyTorch's rule (`torch._tensor_str`): when the
//! largest finite nonzero magnitude shown is over 1e8, the smallest is under 1e-4, or their
//! ratio is over 1000. Rendering is iterative, so any number of dimensions prints.

use super::Tensor;
use crate::backend::Backend;
use crate::device::DeviceIndex;
use crate::dtype::{Dtype, Element};
use crate::error::{OrPanic, Result};
use crate::shape::Shape;
use std::fmt;

/// Tensors with more elements than this print summarised (NumPy's `threshold`), unless
/// [`set_printoptions`] says otherwise.
pub const SUMMARY_THRESHOLD: usize = 1000;
/// The largest number of decimal places printed; larger requests print this many (an f64
/// has at most 17 significant digits, so more only shows the binary expansion's tail).
pub const MAX_PRECISION: usize = 64;

/// How `Display` prints tensors (PyTorch's `set_printoptions`, NumPy's): the process-wide
/// defaults that [`set_printoptions`] replaces. Lines are not wrapped (no `linewidth`).
///
/// ```standalone_crate
/// use typed_tensor::prelude::*;
/// use typed_tensor::tensor::{PrintOptions, get_printoptions, set_printoptions};
/// let before = get_printoptions();
/// set_printoptions(PrintOptions { precision: 2, sci_mode: Some(false), ..before });
/// assert!(format!("{}", tensor![1.0f64, 1e9]).starts_with("[         1.00, 1000000000.00]"));
/// set_printoptions(before);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrintOptions {
    /// Decimal places of floats when the format string gives none (`{:.2}` overrides it);
    /// default 4, at most [`MAX_PRECISION`].
    pub precision: usize,
    /// Tensors with more elements print summarised; default [`SUMMARY_THRESHOLD`].
    pub threshold: usize,
    /// Entries shown at each end of a summarised axis; default 3.
    pub edgeitems: usize,
    /// Scientific notation always (`Some(true)`), never (`Some(false)`), or by PyTorch's rule
    /// (`None`, the default).
    pub sci_mode: Option<bool>,
}

impl Default for PrintOptions {
    fn default() -> Self {
        DEFAULT_OPTIONS
    }
}

const DEFAULT_OPTIONS: PrintOptions = PrintOptions {
    precision: 4,
    threshold: SUMMARY_THRESHOLD,
    edgeitems: 3,
    sci_mode: None,
};

static OPTIONS: std::sync::Mutex<PrintOptions> = std::sync::Mutex::new(DEFAULT_OPTIONS);

/// Replaces the print options for the whole process (PyTorch `set_printoptions`); pass
/// `PrintOptions::default()` to restore PyTorch's defaults.
pub fn set_printoptions(options: PrintOptions) {
    *OPTIONS.lock().unwrap_or_else(|p| p.into_inner()) = options;
}

/// The print options in force (PyTorch's `torch._tensor_str.PRINT_OPTS`).
pub fn get_printoptions() -> PrintOptions {
    *OPTIONS.lock().unwrap_or_else(|p| p.into_inner())
}

/// How floats print: fixed decimals, or PyTorch's scientific form `1.2677e+30`.
fn sci_mode(values: impl Iterator<Item = f64>) -> bool {
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for v in values.map(f64::abs).filter(|v| v.is_finite() && *v != 0.0) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    hi > 0.0 && (hi > 1e8 || lo < 1e-4 || hi / lo > 1000.0)
}

fn fmt_float(v: f64, precision: usize, sci: bool) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.into();
    }
    if !sci {
        return format!("{v:.precision$}");
    }
    // Rust writes `1.2677e30`; PyTorch and NumPy write a signed, two-digit exponent.
    let s = format!("{v:.precision$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let (sign, digits) = match exp.strip_prefix('-') {
        Some(d) => ('-', d),
        None => ('+', exp),
    };
    format!("{mantissa}e{sign}{digits:0>2}")
}

/// One axis of the printed tensor: the positions shown (into the gathered values), `None` for
/// the `...` of a summarised axis; `edge` entries at each end when summarising.
fn shown(d: usize, summarise: bool, edge: usize) -> Vec<Option<usize>> {
    if summarise && d > 2 * edge {
        (0..edge)
            .map(Some)
            .chain([None])
            .chain((edge..2 * edge).map(Some))
            .collect()
    } else {
        (0..d).map(Some).collect()
    }
}

/// Nested brackets over `cells` (row-major over the gathered shape), walking the axes with an
/// explicit counter per axis instead of recursion.
fn render(out: &mut String, cells: &[String], axes: &[Vec<Option<usize>>], width: usize) {
    let n = axes.len();
    if n == 0 {
        out.push_str(&format!("{:>width$}", cells[0]));
        return;
    }
    let mut strides = vec![1usize; n];
    for ax in (0..n - 1).rev() {
        strides[ax] = strides[ax + 1] * axes[ax + 1].iter().flatten().count();
    }
    let mut k = vec![0usize; n];
    let mut ax = 0;
    out.push('[');
    loop {
        if k[ax] > 0 {
            out.push(',');
            if ax + 1 < n {
                out.push_str(&"\n".repeat(n - 1 - ax));
                out.push_str(&" ".repeat(ax + 1));
            } else {
                out.push(' ');
            }
        }
        match axes[ax][k[ax]] {
            None => out.push_str("..."),
            Some(_) if ax + 1 < n => {
                out.push('[');
                ax += 1;
                k[ax] = 0;
                continue;
            }
            Some(_) => {
                let flat: usize = (0..n)
                    .map(|a| axes[a][k[a]].unwrap_or(0) * strides[a])
                    .sum();
                out.push_str(&format!("{:>width$}", cells[flat]));
            }
        }
        // Next entry: close every axis that is finished.
        loop {
            k[ax] += 1;
            if k[ax] < axes[ax].len() {
                break;
            }
            out.push(']');
            if ax == 0 {
                return;
            }
            ax -= 1;
        }
    }
}

/// The shown elements of a tensor, converted exactly.
enum Values {
    Float(Vec<f64>),
    Int(Vec<i64>),
}

/// The printed form of the shown `values` of a tensor with the footer's shape, dtype and device.
fn format_tensor(
    values: Values,
    (shape, dtype, device): (&Shape, Dtype, DeviceIndex),
    precision: usize,
    summarise: bool,
    options: PrintOptions,
) -> String {
    let precision = precision.min(MAX_PRECISION);
    let dims = shape.dims();
    let mut out = String::new();
    if shape.numel() == 0 {
        out.push_str(&"[".repeat(dims.len().max(1)));
        out.push_str(&"]".repeat(dims.len().max(1)));
    } else {
        let cells: Vec<String> = match values {
            Values::Float(v) => {
                let sci = options
                    .sci_mode
                    .unwrap_or_else(|| sci_mode(v.iter().copied()));
                v.iter().map(|&x| fmt_float(x, precision, sci)).collect()
            }
            Values::Int(v) if dtype == Dtype::Bool => {
                v.iter().map(|&x| format!("{}", x != 0)).collect()
            }
            Values::Int(v) => v.iter().map(|x| format!("{x}")).collect(),
        };
        let width = cells.iter().map(String::len).max().unwrap_or(0);
        let edge = options.edgeitems;
        let axes: Vec<_> = dims.iter().map(|&d| shown(d, summarise, edge)).collect();
        render(&mut out, &cells, &axes, width);
    }
    out.push_str(&format!(
        "\nTensor(shape={shape}, dtype={dtype}, device={device})"
    ));
    out
}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// The elements that print: the whole tensor, or for a summarised one the first and last
    /// `edge` entries of each long axis, gathered on the device so that only they are copied.
    fn shown_values(&self, summarise: bool, edge: usize) -> Result<Vec<T>> {
        let mut t = self.clone();
        if summarise {
            for (ax, &d) in self.dims().iter().enumerate() {
                if d > 2 * edge {
                    let head = t.narrow(ax as i64, 0, edge)?;
                    let tail = t.narrow(ax as i64, d - edge, edge)?;
                    t = Self::try_concat(&[&head, &tail], ax as i64)?;
                }
            }
        }
        t.try_to_vec()
    }

    fn rendered(&self, precision: usize, summarise: bool, options: PrintOptions) -> Result<String> {
        let data = match self.numel() {
            0 => Vec::new(),
            _ => self.shown_values(summarise, options.edgeitems)?,
        };
        // Exact as f64 for floats and as i64 otherwise; the formatting below is compiled once.
        let values = match T::DTYPE {
            d if d.is_float() => Values::Float(data.iter().map(|x| x.to_f64()).collect()),
            _ => Values::Int(data.iter().map(|x| x.to_i64()).collect()),
        };
        let footer = (self.shape(), T::DTYPE, self.device());
        Ok(format_tensor(values, footer, precision, summarise, options))
    }

    /// Every element (no summary), floats with `precision` decimal places (at most
    /// [`MAX_PRECISION`]; scientific notation when magnitudes call for it, as PyTorch prints),
    /// nested brackets per dimension as NumPy prints, and a footer with shape, dtype and
    /// device. A CUDA tensor is copied to the host first.
    ///
    /// ```
    /// use typed_tensor::Tensor;
    /// let t = Tensor::<f32>::from_vec(vec![1.5, -2.0, 1e9, 0.5], [2, 2])?;
    /// assert!(t.display(2).starts_with("[[ 1.50e+00, -2.00e+00],\n [ 1.00e+09,  5.00e-01]]"));
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// `OutOfMemory` or `Device` when the copy to the host fails.
    pub fn try_display(&self, precision: usize) -> Result<String> {
        self.rendered(precision, false, get_printoptions())
    }

    /// [`Tensor::try_display`], panicking with its error.
    ///
    /// # Panics
    /// When `try_display` returns an `Err`.
    #[track_caller]
    pub fn display(&self, precision: usize) -> String {
        self.try_display(precision).or_panic()
    }
}

impl<T: Element, D: Backend> fmt::Display for Tensor<T, D> {
    /// Honours the precision (`{:.2}`; otherwise [`PrintOptions::precision`], 4 decimal places
    /// by default); more than [`PrintOptions::threshold`] elements print summarised,
    /// formatting and copying only the shown elements. A failed copy to the host prints the
    /// error in angle brackets, since `fmt::Error` cannot carry it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let options = get_printoptions();
        let p = f.precision().unwrap_or(options.precision);
        match self.rendered(p, self.numel() > options.threshold, options) {
            Ok(s) => f.write_str(&s),
            Err(e) => write!(f, "<{e}>"),
        }
    }
}

impl<T: Element, D: Backend> fmt::Debug for Tensor<T, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::Tensor;

    /// The options change what `Display` prints, and `{:.N}` still wins over `precision`.
    /// (The only test that sets them: they are process-wide.)
    #[test]
    fn print_options_apply() {
        let before = get_printoptions();
        assert_eq!(before, PrintOptions::default());
        let t = Tensor::<f64>::from_vec((0..10).map(f64::from).collect(), [10]).unwrap();
        set_printoptions(PrintOptions {
            threshold: 5,
            edgeitems: 2,
            precision: 1,
            sci_mode: None,
        });
        let s = format!("{t}");
        assert!(s.starts_with("[0.0, 1.0, ..., 8.0, 9.0]"), "{s}");
        assert!(format!("{t:.0}").starts_with("[0, 1, ..., 8, 9]"));
        set_printoptions(PrintOptions {
            sci_mode: Some(true),
            ..PrintOptions::default()
        });
        let s = format!("{}", Tensor::<f32>::from_vec(vec![1.5, 2.0], [2]).unwrap());
        assert!(s.starts_with("[1.5000e+00, 2.0000e+00]"), "{s}");
        set_printoptions(PrintOptions::default());
        assert!(format!("{t}").starts_with("[0.0000, 1.0000, 2.0000"));
    }
}
