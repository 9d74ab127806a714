//! Delimited text files, NumPy's `loadtxt`/`savetxt`: one row per line, fields split on a
//! delimiter (or runs of whitespace), comments and blank lines skipped; a path ending in
//! `.gz` is read and written gzip-compressed, as NumPy does.

use super::{format_error, io_error};
use crate::device::Cpu;
use crate::dtype::{Dtype, Element};
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use std::io::{Read, Write};
use std::path::Path;

/// How [`load_txt`] splits a text file (NumPy `loadtxt`'s keywords, with its defaults).
#[derive(Clone, Debug)]
pub struct LoadTxt {
    /// The field separator; `None` (the default) splits on runs of whitespace.
    pub delimiter: Option<char>,
    /// Text from this marker to the end of a line is ignored (`"#"`); `None` keeps all.
    pub comments: Option<String>,
    /// Lines skipped at the start of the file, comment lines included (0).
    pub skiprows: usize,
    /// The columns to read, in this order, negative ones from the end (all of them).
    pub usecols: Option<Vec<i64>>,
    /// At most this many rows are read, counting non-blank rows only (all of them).
    pub max_rows: Option<usize>,
    /// The result has at least this many dimensions, 0, 1 or 2 (0): NumPy squeezes the
    /// `(rows, columns)` result, then a single column stays `(rows, 1)` with `ndmin = 2`.
    pub ndmin: usize,
    /// Data rows dropped at the end, before any is read (NumPy `genfromtxt`'s `skip_footer`;
    /// 0), so a footer need not parse.
    pub skip_footer: usize,
    /// Fields that count as missing besides empty ones (`genfromtxt`'s `missing_values`).
    pub missing_values: Vec<String>,
    /// The value of a missing field (`genfromtxt`'s `filling_values`); `None` (`loadtxt`)
    /// makes one an error. NaN fills integer columns with -1 and bool ones with false, as
    /// NumPy's defaults; another value must be representable in the dtype.
    pub filling_values: Option<f64>,
}

impl LoadTxt {
    /// NumPy `genfromtxt`'s defaults: whitespace-separated, `#` comments, and a missing
    /// field (empty, between two delimiters) read as NaN (-1 for integers, false for
    /// bools). Unlike `genfromtxt`, a field that is present but does not parse stays an
    /// error.
    ///
    /// ```
    /// use typed_tensor::io::{LoadTxt, load_txt_from_str};
    /// let opts = LoadTxt { delimiter: Some(','), ..LoadTxt::genfromtxt() };
    /// let t = load_txt_from_str::<f64>("1,,3\n4,5,6\n", &opts)?;
    /// assert!(t.to_vec()[1].is_nan());
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    pub fn genfromtxt() -> Self {
        LoadTxt {
            filling_values: Some(f64::NAN),
            ..LoadTxt::default()
        }
    }
}

impl Default for LoadTxt {
    fn default() -> Self {
        LoadTxt {
            delimiter: None,
            comments: Some("#".into()),
            skiprows: 0,
            usecols: None,
            max_rows: None,
            ndmin: 0,
            skip_footer: 0,
            missing_values: Vec::new(),
            filling_values: None,
        }
    }
}

/// How [`save_txt`] writes (NumPy `savetxt`'s keywords).
#[derive(Clone, Debug)]
pub struct SaveTxt {
    /// Between fields (`" "`).
    pub delimiter: String,
    /// After each row (`"\n"`).
    pub newline: String,
    /// Written first, each of its lines after `comments` (none).
    pub header: String,
    /// Written last, each of its lines after `comments` (none).
    pub footer: String,
    /// Before the header's and footer's lines (`"# "`).
    pub comments: String,
    /// Floats in scientific notation with this many digits after the point, C's `%.{p}e`
    /// (NumPy's default format is `%.18e`); `None` (the default) writes the shortest text that
    /// reads back to the same value. Integers and bools are written as integers.
    pub precision: Option<usize>,
}

impl Default for SaveTxt {
    fn default() -> Self {
        SaveTxt {
            delimiter: " ".into(),
            newline: "\n".into(),
            header: String::new(),
            footer: String::new(),
            comments: "# ".into(),
            precision: None,
        }
    }
}

/// Reads a delimited text file into a CPU tensor of `T` (NumPy `loadtxt`): shape `(rows,
/// columns)` squeezed as NumPy's (one row or one column gives 1-d, one value 0-d; see
/// [`LoadTxt::ndmin`]). Floats parse Rust's and C's notations (`1.5`, `-2e-3`, `inf`,
/// `nan`); integers must be integers in `T`'s range; bools are `true`/`false` (any case) or
/// integers, nonzero meaning `true`.
///
/// ```
/// use typed_tensor::io::{LoadTxt, SaveTxt, load_txt, save_txt};
/// use typed_tensor::prelude::*;
///
/// let path = std::env::temp_dir().join(format!("tt-txt-doc-{}.csv", std::process::id()));
/// let x = Tensor::<f64>::from_vec(vec![1.5, -2.0, 0.1, 3e-8], [2, 2])?;
/// let csv = SaveTxt { delimiter: ",".into(), header: "a,b".into(), ..SaveTxt::default() };
/// save_txt(&path, &x, &csv)?;
/// assert_eq!(std::fs::read_to_string(&path)?, "# a,b\n1.5,-2.0\n0.1,3e-8\n");
/// let opts = LoadTxt { delimiter: Some(','), ..LoadTxt::default() };
/// let y: Tensor<f64> = load_txt(&path, &opts)?;
/// assert_eq!(y.to_vec(), x.to_vec()); // the shortest text reads back exactly
/// let col: Tensor<f32> = load_txt(&path, &LoadTxt { usecols: Some(vec![-1]), ..opts })?;
/// assert_eq!((col.dims(), col.to_vec()), (&[2][..], vec![-2.0, 3e-8]));
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// `Io` when the file cannot be read; `Format` naming the file, line and column for text
/// that is not UTF-8 (or not gzip, for `.gz`), a field that does not parse as `T`, rows of
/// different lengths or a `usecols` entry outside them; `InvalidArgument` for `ndmin > 2`;
/// `OutOfMemory` when the data does not fit.
pub fn load_txt<T: Element>(path: impl AsRef<Path>, opts: &LoadTxt) -> Result<Tensor<T, Cpu>> {
    const OP: &str = "load_txt";
    let path = path.as_ref();
    let what = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| io_error(OP, &what, &e))?;
    let hint = file.metadata().map_or(0, |m| m.len() as usize);
    let bytes = if path.extension().is_some_and(|e| e == "gz") {
        read_all(OP, &what, flate2::read::GzDecoder::new(file), hint)?
    } else {
        read_all(OP, &what, file, hint)?
    };
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| format_error(OP, &what, format!("is not UTF-8 text ({e})")))?;
    parse(OP, &what, text, opts)
}

/// [`load_txt`] of text held in memory (NumPy `loadtxt` of a list of lines).
///
/// # Errors
/// As [`load_txt`], naming `<text>`.
pub fn load_txt_from_str<T: Element>(text: &str, opts: &LoadTxt) -> Result<Tensor<T, Cpu>> {
    parse("load_txt_from_str", "<text>", text, opts)
}

/// Writes a 0-d, 1-d (one value per line) or 2-d (one row per line) tensor of any dtype and
/// device as delimited text (NumPy `savetxt`); a path ending in `.gz` is gzip-compressed.
/// With the default [`SaveTxt`], [`load_txt`] reads the file back to the same values.
///
/// # Errors
/// `InvalidArgument` for more than two dimensions (before the file is created); `Io` when
/// the file cannot be written; a device transfer's error.
pub fn save_txt<T: Element, D: crate::backend::Backend>(
    path: impl AsRef<Path>,
    tensor: &Tensor<T, D>,
    opts: &SaveTxt,
) -> Result<()> {
    const OP: &str = "save_txt";
    if tensor.ndim() > 2 {
        return Err(Error::InvalidArgument {
            op: OP,
            msg: format!(
                "writes 0-d, 1-d or 2-d tensors, got shape {}; reshape it first",
                tensor.shape()
            ),
        });
    }
    let cols = if tensor.ndim() == 2 {
        tensor.dims()[1]
    } else {
        1
    };
    let values = D::to_host(tensor)?.try_to_vec()?;
    let path = path.as_ref();
    let what = path.display().to_string();
    let io = |e: std::io::Error| io_error(OP, &what, &e);
    let file = std::fs::File::create(path).map_err(io)?;
    let mut w: Box<dyn Write> = if path.extension().is_some_and(|e| e == "gz") {
        let gz = flate2::write::GzEncoder::new(file, flate2::Compression::default());
        Box::new(std::io::BufWriter::new(gz))
    } else {
        Box::new(std::io::BufWriter::new(file))
    };
    let commented = |text: &str| -> String {
        text.lines()
            .map(|l| format!("{}{l}{}", opts.comments, opts.newline))
            .collect()
    };
    if !opts.header.is_empty() {
        w.write_all(commented(&opts.header).as_bytes())
            .map_err(io)?;
    }
    let mut line = String::new();
    for row in values.chunks(cols.max(1)) {
        line.clear();
        for (j, v) in row.iter().enumerate() {
            if j > 0 {
                line.push_str(&opts.delimiter);
            }
            write_value(&mut line, *v, opts.precision);
        }
        line.push_str(&opts.newline);
        w.write_all(line.as_bytes()).map_err(io)?;
    }
    if !opts.footer.is_empty() {
        w.write_all(commented(&opts.footer).as_bytes())
            .map_err(io)?;
    }
    w.flush().map_err(io)
}

/// One value as text: integers and bools as integers, floats as the shortest round trip or
/// C's `%.{p}e` (`1.500e+00`).
fn write_value<T: Element>(out: &mut String, v: T, precision: Option<usize>) {
    use std::fmt::Write as _;
    if !T::DTYPE.is_float() {
        let _ = write!(out, "{}", v.to_i64());
        return;
    }
    let x = v.to_f64();
    match precision {
        _ if !x.is_finite() => out.push_str(if x.is_nan() {
            "nan"
        } else if x > 0.0 {
            "inf"
        } else {
            "-inf"
        }),
        // Debug's shortest text, in scientific notation when tiny or huge (`3e-8`, `1e300`).
        None if T::DTYPE == Dtype::Float64 => {
            let _ = write!(out, "{x:?}");
        }
        // f32 (and the 16-bit floats, exact in f32): f32's shortest text.
        None => {
            let _ = write!(out, "{:?}", x as f32);
        }
        Some(p) => {
            let s = format!("{x:.p$e}");
            let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
            let e: i32 = exp.parse().unwrap_or(0);
            let sign = if e < 0 { '-' } else { '+' };
            let _ = write!(out, "{mantissa}e{sign}{:02}", e.unsigned_abs());
        }
    }
}

/// All of `r`, fallibly allocated.
fn read_all(op: &'static str, what: &str, mut r: impl Read, hint: usize) -> Result<Vec<u8>> {
    let mut out: Vec<u8> = Vec::new();
    let oom = |bytes| Error::OutOfMemory { op, bytes };
    out.try_reserve(hint.min(1 << 30)).map_err(|_| oom(hint))?;
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let n = r.read(&mut chunk).map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidData | std::io::ErrorKind::InvalidInput => {
                format_error(op, what, format!("cannot be decompressed ({e})"))
            }
            _ => io_error(op, what, &e),
        })?;
        if n == 0 {
            return Ok(out);
        }
        out.try_reserve(n).map_err(|_| oom(out.len() + n))?;
        out.extend_from_slice(&chunk[..n]);
    }
}

/// `text`'s rows as a tensor, as [`load_txt`] describes.
fn parse<T: Element>(
    op: &'static str,
    what: &str,
    text: &str,
    opts: &LoadTxt,
) -> Result<Tensor<T, Cpu>> {
    if opts.ndmin > 2 {
        return Err(Error::InvalidArgument {
            op,
            msg: format!("ndmin must be 0, 1 or 2, got {}", opts.ndmin),
        });
    }
    let bad = |line: usize, msg: String| format_error(op, what, format!("line {line}: {msg}"));
    let fill = match opts.filling_values {
        None => None,
        Some(v) if v.is_nan() && !T::DTYPE.is_float() => {
            Some(T::from_i64(if T::DTYPE == Dtype::Bool { 0 } else { -1 }))
        }
        Some(v) => {
            let t = T::from_f64(v);
            if !T::DTYPE.is_float() && t.to_f64() != v {
                return Err(Error::InvalidArgument {
                    op,
                    msg: format!("filling_values {v} is not a {:?} value", T::DTYPE),
                });
            }
            Some(t)
        }
    };
    // The data lines (comments cut, blank ones skipped), less the footer.
    let mut lines: Vec<(usize, &str)> = Vec::new();
    for (i, line) in text.lines().enumerate().skip(opts.skiprows) {
        let data = match &opts.comments {
            Some(c) if !c.is_empty() => line.split_once(c.as_str()).map_or(line, |(d, _)| d),
            _ => line,
        };
        if !data.trim().is_empty() {
            lines.try_reserve(1).map_err(|_| Error::OutOfMemory {
                op,
                bytes: lines.len() * 24,
            })?;
            lines.push((i + 1, data));
        }
    }
    lines.truncate(lines.len().saturating_sub(opts.skip_footer));
    let mut values: Vec<T> = Vec::new();
    let (mut rows, mut width) = (0usize, None::<usize>);
    let mut fields: Vec<&str> = Vec::new();
    for &(line_no, data) in &lines {
        if opts.max_rows.is_some_and(|m| rows >= m) {
            break;
        }
        fields.clear();
        match opts.delimiter {
            None => fields.extend(data.split_whitespace()),
            Some(d) => fields.extend(data.split(d).map(str::trim)),
        }
        let n = fields.len();
        let picked: Vec<usize> = match &opts.usecols {
            None => (0..n).collect(),
            Some(cols) => (cols.iter())
                .map(|&c| {
                    let at = if c < 0 { n as i64 + c } else { c };
                    usize::try_from(at).ok().filter(|&a| a < n).ok_or_else(|| {
                        bad(
                            line_no,
                            format!("usecols entry {c} is outside its {n} columns"),
                        )
                    })
                })
                .collect::<Result<_>>()?,
        };
        match width {
            None => width = Some(picked.len()),
            Some(w) if w != picked.len() => {
                return Err(bad(
                    line_no,
                    format!(
                        "has {} columns where the rows before have {w}",
                        picked.len()
                    ),
                ));
            }
            _ => {}
        }
        values
            .try_reserve(picked.len())
            .map_err(|_| Error::OutOfMemory {
                op,
                bytes: (values.len() + picked.len()) * size_of::<T>(),
            })?;
        for &c in &picked {
            let missing =
                fields[c].is_empty() || opts.missing_values.iter().any(|m| m == fields[c]);
            let v = fill
                .filter(|_| missing)
                .or_else(|| parse_value::<T>(fields[c]))
                .ok_or_else(|| {
                    bad(
                        line_no,
                        format!(
                            "column {}: cannot read {:?} as {:?}",
                            c + 1,
                            fields[c],
                            T::DTYPE
                        ),
                    )
                })?;
            values.push(v);
        }
        rows += 1;
    }
    let cols = width.unwrap_or(0);
    // NumPy's `_ensure_ndmin_ndarray`: squeeze past `ndmin`, then grow to it.
    let dims: Vec<usize> = if rows == 0 {
        vec![0]
    } else if opts.ndmin == 2 {
        vec![rows, cols]
    } else {
        [rows, cols].into_iter().filter(|&d| d != 1).collect()
    };
    let dims = match (dims.len(), opts.ndmin) {
        (0, 1) => vec![1],
        (1, 2) => vec![dims[0], 1],
        _ => dims,
    };
    Tensor::from_vec(values, dims)
}

/// One field as `T`, or `None`.
fn parse_value<T: Element>(s: &str) -> Option<T> {
    match T::DTYPE {
        Dtype::Bool => match s.to_ascii_lowercase().as_str() {
            "true" => Some(T::from_i64(1)),
            "false" => Some(T::from_i64(0)),
            _ => s
                .parse::<i64>()
                .ok()
                .map(|v| T::from_i64(i64::from(v != 0))),
        },
        // f32 parsed as f32, so its shortest text reads back exactly (no double rounding).
        Dtype::Float32 => s.parse::<f32>().ok().map(|v| T::from_f64(f64::from(v))),
        d if d.is_float() => s.parse::<f64>().ok().map(T::from_f64),
        _ => {
            let v = s.parse::<i64>().ok()?;
            let t = T::from_i64(v);
            (t.to_i64() == v).then_some(t)
        }
    }
}
