//! `Display`: nested brackets shaped like the tensor, aligned columns, a footer with shape,
//! dtype and device. Over [`SUMMARY_THRESHOLD`] elements, long dimensions are summarised with
//! `...` like NumPy; [`Tensor::display`] always prints every element (the seed's `display`).

use super::Tensor;
use crate::backend::Backend;
use crate::dtype::Element;
use crate::error::{OrPanic, Result};
use crate::shape::Shape;
use std::fmt;

/// Tensors with more elements than this print summarised (NumPy's `threshold`).
pub const SUMMARY_THRESHOLD: usize = 1000;
const EDGE: usize = 3;

fn fmt_elem<T: Element>(x: T, precision: usize) -> String {
    if T::DTYPE.is_float() {
        let v = x.to_f64();
        if v.is_nan() {
            "nan".into()
        } else if v.is_infinite() {
            if v > 0.0 { "inf".into() } else { "-inf".into() }
        } else {
            format!("{v:.precision$}")
        }
    } else if T::DTYPE == crate::dtype::Dtype::Bool {
        format!("{}", x.to_i64() != 0)
    } else {
        format!("{}", x.to_i64())
    }
}

fn indices(d: usize, summarise: bool) -> Vec<Option<usize>> {
    if summarise && d > 2 * EDGE {
        (0..EDGE)
            .map(Some)
            .chain([None])
            .chain((d - EDGE..d).map(Some))
            .collect()
    } else {
        (0..d).map(Some).collect()
    }
}

#[allow(clippy::too_many_arguments)]
fn render(
    out: &mut String,
    cells: &[String],
    dims: &[usize],
    strides: &[usize],
    base: usize,
    depth: usize,
    width: usize,
    summarise: bool,
) {
    if dims.is_empty() {
        out.push_str(&format!("{:>width$}", cells[base]));
        return;
    }
    out.push('[');
    let idx = indices(dims[0], summarise);
    for (k, i) in idx.iter().enumerate() {
        if k > 0 {
            out.push(',');
            if dims.len() > 1 {
                out.push_str(&"\n".repeat(dims.len() - 1));
                out.push_str(&" ".repeat(depth + 1));
            } else {
                out.push(' ');
            }
        }
        match i {
            Some(i) => render(
                out,
                cells,
                &dims[1..],
                &strides[1..],
                base + i * strides[0],
                depth + 1,
                width,
                summarise,
            ),
            None => out.push_str("..."),
        }
    }
    out.push(']');
}

/// The text of a tensor whose row-major elements are `data`, with the footer naming `device`.
fn render_values<T: Element>(
    data: &[T],
    shape: &Shape,
    device: impl fmt::Display,
    precision: usize,
    summarise: bool,
) -> String {
    let dims = shape.dims().to_vec();
    let cells: Vec<String> = data.iter().map(|&x| fmt_elem(x, precision)).collect();
    let width = cells.iter().map(String::len).max().unwrap_or(0);
    let strides: Vec<usize> = shape
        .contiguous_strides()
        .iter()
        .map(|&s| s as usize)
        .collect();
    let mut out = String::new();
    if data.is_empty() {
        out.push_str(&"[".repeat(dims.len().max(1)));
        out.push_str(&"]".repeat(dims.len().max(1)));
    } else {
        render(&mut out, &cells, &dims, &strides, 0, 0, width, summarise);
    }
    out.push_str(&format!(
        "\nTensor(shape={shape}, dtype={}, device={device})",
        T::DTYPE
    ));
    out
}

impl<T: Element, D: Backend> Tensor<T, D> {
    fn rendered(&self, precision: usize, summarise: bool) -> Result<String> {
        let data = self.try_to_vec()?;
        Ok(render_values(
            &data,
            self.shape(),
            self.device(),
            precision,
            summarise,
        ))
    }

    /// Every element (no summary), floats with `precision` decimal places, nested brackets
    /// per dimension as NumPy prints, and a footer with shape, dtype and device. A CUDA
    /// tensor is copied to the host first.
    ///
    /// # Errors
    /// `OutOfMemory` or `Device` when the copy to the host fails.
    pub fn try_display(&self, precision: usize) -> Result<String> {
        self.rendered(precision, false)
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
    /// Honours the precision (`{:.2}`; default 4 decimal places for floats); more than
    /// `SUMMARY_THRESHOLD` elements print summarised. A failed copy to the host prints the error
    /// in angle brackets, since `fmt::Error` cannot carry it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = f.precision().unwrap_or(4);
        match self.rendered(p, self.numel() > SUMMARY_THRESHOLD) {
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
