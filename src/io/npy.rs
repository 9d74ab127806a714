//! NumPy's `.npy` format (format versions 1.0, 2.0 and 3.0), written from its specification
//! (`numpy.lib.format`): a magic string, a version, a header length, a Python dict literal
//! `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`, then the raw elements.
//!
//! No maintained crate fits: `npyz` pulls an old `zip` with zstd/bzip2 and has no bfloat16; the
//! header is a few dozen lines to parse strictly, which also keeps every hostile header an `Err`.

use super::{FileSource, HostBytes, Source, format_error, io_error, read_tensor};
use crate::dtype::Dtype;
use crate::dynamic::DynTensor;
use crate::error::{Error, Result};
use std::io::Write;
use std::path::Path;

const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// A parsed, checked `.npy` header.
pub(crate) struct Header {
    dtype: Dtype,
    shape: Vec<usize>,
    fortran_order: bool,
    big_endian: bool,
    /// Offset of the first element.
    data_offset: u64,
}

/// The dtype and byte order a NumPy `descr` names. Only our nine dtypes are accepted.
fn parse_descr(descr: &str) -> std::result::Result<(Dtype, bool), String> {
    let unsupported = || {
        format!(
            "dtype {descr:?} is not one typed-tensor has (bool, uint8, int16, int32, int64, float16, float32, float64); convert it with astype() before saving. NumPy writes ml_dtypes.bfloat16 as the anonymous '<V2', which cannot be told apart from other 2-byte types: save bfloat16 as safetensors"
        )
    };
    let (order, code) = match descr.as_bytes().first() {
        Some(b'<' | b'>' | b'|' | b'=') => descr.split_at(1),
        _ => ("=", descr),
    };
    let dtype = match code {
        "b1" | "?" => Dtype::Bool,
        "u1" | "B" => Dtype::UInt8,
        "i2" | "h" => Dtype::Int16,
        "i4" | "i" => Dtype::Int32,
        "i8" | "q" => Dtype::Int64,
        "f2" | "e" => Dtype::Float16,
        "f4" | "f" => Dtype::Float32,
        "f8" | "d" => Dtype::Float64,
        _ => return Err(unsupported()),
    };
    Ok((dtype, order == ">"))
}

/// The descr NumPy writes for `dtype` (little-endian); `Err` for bfloat16, which has none.
pub(crate) fn descr_of(dtype: Dtype) -> Result<&'static str> {
    Ok(match dtype {
        Dtype::Bool => "|b1",
        Dtype::UInt8 => "|u1",
        Dtype::Int16 => "<i2",
        Dtype::Int32 => "<i4",
        Dtype::Int64 => "<i8",
        Dtype::Float16 => "<f2",
        Dtype::Float32 => "<f4",
        Dtype::Float64 => "<f8",
        Dtype::Bfloat16 => {
            return Err(Error::InvalidArgument {
                op: "save_npy",
                msg: "NumPy has no bfloat16 dtype (ml_dtypes' bfloat16 is saved as the anonymous '<V2', which does not read back as bfloat16); convert with to_dtype(Dtype::Float32) first, or save to safetensors, which has BF16".into(),
            });
        }
    })
}

/// A Python literal of the subset `.npy` headers use.
#[derive(Debug, PartialEq)]
enum Value {
    Str(String),
    Bool(bool),
    Tuple(Vec<u64>),
}

/// A strict parser for the header's dict literal: string keys; string, `True`/`False` and
/// int-tuple values.
struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn skip_ws(&mut self) {
        while self.s.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }
    /// Consumes `c` (after whitespace) when it is next.
    fn eat(&mut self, c: u8) -> bool {
        self.skip_ws();
        let hit = self.s.get(self.i) == Some(&c);
        self.i += hit as usize;
        hit
    }
    fn expect(&mut self, c: u8) -> std::result::Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(format!(
                "expected '{}' at byte {} of the header",
                c as char, self.i
            ))
        }
    }
    fn string(&mut self) -> std::result::Result<String, String> {
        self.skip_ws();
        let quote = match self.s.get(self.i) {
            Some(&q @ (b'\'' | b'"')) => q,
            _ => {
                return Err(format!(
                    "expected a string at byte {} of the header",
                    self.i
                ));
            }
        };
        let start = self.i + 1;
        let len = self.s[start..]
            .iter()
            .position(|&c| c == quote)
            .ok_or("an unterminated string in the header")?;
        self.i = start + len + 1;
        String::from_utf8(self.s[start..start + len].to_vec())
            .map_err(|_| "a header string is not UTF-8".to_string())
    }
    fn int(&mut self) -> std::result::Result<u64, String> {
        self.skip_ws();
        let start = self.i;
        let mut v: u64 = 0;
        while let Some(&c @ b'0'..=b'9') = self.s.get(self.i) {
            v = v
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(c - b'0')))
                .ok_or("a dimension in the header's shape overflows 64 bits")?;
            self.i += 1;
        }
        if self.i == start {
            return Err(format!(
                "expected a non-negative integer at byte {} of the header",
                self.i
            ));
        }
        self.eat(b'L'); // Python 2 longs, in files written by old NumPy
        Ok(v)
    }
    fn value(&mut self) -> std::result::Result<Value, String> {
        self.skip_ws();
        let rest = &self.s[self.i..];
        if rest.starts_with(b"True") || rest.starts_with(b"False") {
            let t = rest[0] == b'T';
            self.i += if t { 4 } else { 5 };
            return Ok(Value::Bool(t));
        }
        if self.eat(b'(') {
            let mut dims = Vec::new();
            while !self.eat(b')') {
                dims.push(self.int()?);
                if !self.eat(b',') {
                    self.expect(b')')?;
                    break;
                }
            }
            return Ok(Value::Tuple(dims));
        }
        if rest.first() == Some(&b'[') {
            return Err(
                "a structured (record) dtype; typed-tensor reads arrays of one plain dtype".into(),
            );
        }
        Ok(Value::Str(self.string()?))
    }
    /// The dict's `(key, value)` pairs; nothing but whitespace may follow it.
    fn dict(&mut self) -> std::result::Result<Vec<(String, Value)>, String> {
        self.expect(b'{')?;
        let mut items = Vec::new();
        while !self.eat(b'}') {
            let k = self.string()?;
            self.expect(b':')?;
            items.push((k, self.value()?));
            if !self.eat(b',') {
                self.expect(b'}')?;
                break;
            }
        }
        self.skip_ws();
        if self.i != self.s.len() {
            return Err(format!(
                "unexpected bytes after the header dict at byte {}",
                self.i
            ));
        }
        Ok(items)
    }
}

/// Parses and checks the header of the `.npy` data in `src`.
pub(crate) fn read_header(op: &'static str, what: &str, src: &dyn Source) -> Result<Header> {
    let bad = |msg: String| format_error(op, what, msg);
    let len = src.len();
    let mut pre = [0u8; 12];
    let n = len.min(12) as usize;
    src.read_at(0, &mut pre[..n])
        .map_err(|e| io_error(op, what, &e))?;
    if n < 10 || &pre[..6] != MAGIC {
        return Err(bad("not a .npy file (no \\x93NUMPY magic string)".into()));
    }
    let (header_len, start) = match pre[6] {
        1 => (u64::from(u16::from_le_bytes([pre[8], pre[9]])), 10),
        2 | 3 if n == 12 => (
            u64::from(u32::from_le_bytes([pre[8], pre[9], pre[10], pre[11]])),
            12,
        ),
        2 | 3 => return Err(bad("truncated in the header length".into())),
        v => {
            return Err(bad(format!(
                "format version {v}.{} is not one of 1.0, 2.0, 3.0",
                pre[7]
            )));
        }
    };
    if header_len > len - start {
        return Err(bad(format!(
            "the header length {header_len} runs past the end of the file ({len} bytes): truncated"
        )));
    }
    let mut header = vec![0u8; header_len as usize];
    src.read_at(start, &mut header)
        .map_err(|e| io_error(op, what, &e))?;
    if pre[6] < 3 {
        // Versions 1 and 2 are latin-1: map each byte to its code point.
        header = header
            .iter()
            .map(|&b| b as char)
            .collect::<String>()
            .into_bytes();
    }
    let items = Parser { s: &header, i: 0 }
        .dict()
        .map_err(|m| bad(format!("invalid header: {m}")))?;
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    for (k, v) in items {
        match (k.as_str(), v) {
            ("descr", Value::Str(s)) if descr.is_none() => descr = Some(s),
            ("fortran_order", Value::Bool(b)) if fortran.is_none() => fortran = Some(b),
            ("shape", Value::Tuple(t)) if shape.is_none() => shape = Some(t),
            (k, v) => {
                return Err(bad(format!(
                    "unexpected or repeated header entry {k:?}: {v:?}"
                )));
            }
        }
    }
    let (Some(descr), Some(fortran_order), Some(shape)) = (descr, fortran, shape) else {
        return Err(bad(
            "the header lacks one of 'descr', 'fortran_order', 'shape'".into(),
        ));
    };
    let (dtype, big_endian) = parse_descr(&descr).map_err(bad)?;
    let shape = shape
        .into_iter()
        .map(usize::try_from)
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|_| bad("a dimension does not fit in usize".into()))?;
    Ok(Header {
        dtype,
        shape,
        fortran_order,
        big_endian,
        data_offset: start + header_len,
    })
}

/// Reads the array of `.npy` data in `src` (bytes after the array are ignored, as NumPy does).
pub(crate) fn read_npy(op: &'static str, what: &str, src: &dyn Source) -> Result<DynTensor> {
    let h = read_header(op, what, src)?;
    if !h.fortran_order || h.shape.len() < 2 {
        return read_tensor(
            op,
            what,
            src,
            h.data_offset,
            h.dtype,
            h.shape.into(),
            h.big_endian,
        );
    }
    // Column-major: the data is the row-major array of the reversed shape, transposed.
    let reversed: Vec<usize> = h.shape.iter().rev().copied().collect();
    let t = read_tensor(
        op,
        what,
        src,
        h.data_offset,
        h.dtype,
        reversed.into(),
        h.big_endian,
    )?;
    let axes: Vec<i64> = (0..h.shape.len() as i64).rev().collect();
    t.permute(&axes)?.contiguous()
}

/// Reads the `.npy` file at `path` into a CPU tensor of its dtype. C and Fortran order, little
/// and big endian, and format versions 1.0–3.0 are read; the result is always row-major.
///
/// # Errors
/// `Io` when the file cannot be read; `Format` for a missing magic string, an unknown version, a
/// header that is not the dict NumPy writes, a dtype typed-tensor does not have (int8, uint16,
/// complex, structured, `'<V2'` bfloat16, ...), a shape whose size overflows, or fewer data bytes
/// than the shape needs.
///
/// ```
/// use typed_tensor::io::{load_npy, save_npy};
/// use typed_tensor::prelude::*;
///
/// let path = std::env::temp_dir().join(format!("tt-npy-doc-{}.npy", std::process::id()));
/// let x = Tensor::<i32, Cpu>::from_vec(vec![1, 2, 3, 4, 5, 6], [2, 3])?;
/// save_npy(&path, &x.transpose(0, 1)?)?; // a view is written as its contiguous copy
/// let y = load_npy(&path)?;
/// assert_eq!(y.shape().dims(), &[3, 2]);
/// assert_eq!(y.to_vec::<i32>()?, vec![1, 4, 2, 5, 3, 6]);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load_npy(path: impl AsRef<Path>) -> Result<DynTensor> {
    const OP: &str = "load_npy";
    let src = FileSource::open(OP, path.as_ref())?;
    read_npy(OP, &src.path, &src)
}

/// Reads `.npy` data held in memory, as [`load_npy`].
///
/// # Errors
/// As [`load_npy`].
pub fn npy_from_bytes(bytes: &[u8]) -> Result<DynTensor> {
    read_npy("npy_from_bytes", "<bytes>", &bytes)
}

/// The header of a C-order `.npy` file for `dtype` and `shape`, padded so the data starts on a
/// 64-byte boundary (as NumPy writes it), version 1.0 unless the header needs 2.0.
fn header_bytes(dtype: Dtype, shape: &[usize]) -> Result<Vec<u8>> {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    let tuple = match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let dict = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {tuple}, }}",
        descr_of(dtype)?
    );
    let v1 = dict.len() + 1 + 10 < 65536;
    let pre = if v1 { 10 } else { 12 };
    let total = (pre + dict.len() + 1).next_multiple_of(64);
    let header_len = total - pre;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(MAGIC);
    if v1 {
        out.extend_from_slice(&[1, 0]);
        out.extend_from_slice(&(header_len as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&[2, 0]);
        out.extend_from_slice(&(header_len as u32).to_le_bytes());
    }
    out.extend_from_slice(dict.as_bytes());
    out.resize(total - 1, b' ');
    out.push(b'\n');
    Ok(out)
}

/// Writes `t` as `.npy` to `w`: header, then the row-major little-endian elements.
pub(crate) fn write_npy(
    op: &'static str,
    what: &str,
    t: &DynTensor,
    w: &mut dyn Write,
) -> Result<()> {
    let host = HostBytes::of(t)?;
    let io = |e: std::io::Error| io_error(op, what, &e);
    w.write_all(&header_bytes(host.dtype, &host.shape)?)
        .map_err(io)?;
    w.write_all(host.bytes()).map_err(io)
}

/// Writes `tensor` (typed or dynamic, any device: pass `&t` or a `DynTensor`) to the `.npy` file
/// `path` in C order, little-endian, format version 1.0 (2.0 for headers over 64 KiB), as
/// `numpy.save` does. Views are written as their contiguous copy.
///
/// # Errors
/// `InvalidArgument` for bfloat16, which NumPy has no dtype for (convert to float32 or use
/// safetensors); `Io` when the file cannot be written.
pub fn save_npy(path: impl AsRef<Path>, tensor: impl Into<DynTensor>) -> Result<()> {
    const OP: &str = "save_npy";
    let path = path.as_ref();
    let what = path.display().to_string();
    let t = tensor.into();
    descr_of(t.dtype())?; // refuse bf16 before creating the file
    let file = std::fs::File::create(path).map_err(|e| io_error(OP, &what, &e))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    write_npy(OP, &what, &t, &mut w)?;
    w.flush().map_err(|e| io_error(OP, &what, &e))
}

/// `tensor` as the bytes of a `.npy` file, as [`save_npy`] writes them.
///
/// # Errors
/// As [`save_npy`].
pub fn npy_to_bytes(tensor: impl Into<DynTensor>) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    write_npy("npy_to_bytes", "<bytes>", &tensor.into(), &mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_dicts() {
        let p = |s: &str| {
            Parser {
                s: s.as_bytes(),
                i: 0,
            }
            .dict()
        };
        let d = p("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }  \n").unwrap();
        assert_eq!(d[2], ("shape".into(), Value::Tuple(vec![2, 3])));
        assert_eq!(p("{'shape': (), }").unwrap()[0].1, Value::Tuple(vec![]));
        assert_eq!(p("{'shape': (5,)}").unwrap()[0].1, Value::Tuple(vec![5]));
        assert_eq!(
            p("{\"shape\":(5L,3L)}").unwrap()[0].1,
            Value::Tuple(vec![5, 3])
        );
        for bad in [
            "",
            "{",
            "{'a': }",
            "{'shape': (-1,)}",
            "{'shape': (99999999999999999999999,)}",
            "{'shape': (1 2)}",
            "{'descr': [('a', '<f4')]}",
            "{'a': 'b'} x",
            "{'a: 1}",
        ] {
            assert!(p(bad).is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn headers_are_64_byte_aligned() {
        for shape in [vec![], vec![3], vec![2, 3, 4]] {
            let h = header_bytes(Dtype::Float32, &shape).unwrap();
            assert_eq!(h.len() % 64, 0);
            assert_eq!(h.last(), Some(&b'\n'));
        }
    }
}
