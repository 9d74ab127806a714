//! Loading and saving tensors: [safetensors](https://huggingface.co/docs/safetensors) (Hugging
//! Face's checkpoint format), NumPy's `.npy` and `.npz`, delimited text (NumPy's
//! `loadtxt`/`savetxt`: CSV and the like, gzip-compressed or not), and, with the `ndarray`
//! feature, conversions to and from `ndarray` arrays.
//!
//! Files are untrusted input. Every loader checks a header before it believes it: the element
//! count of a shape is computed with checked arithmetic, the bytes a tensor needs are compared
//! with the bytes the file has *before* anything is allocated, offsets must lie inside the file,
//! and allocation is fallible. A bad file is an [`Error::Format`] (or [`Error::Io`] when the
//! system refuses the read) naming the file and what is wrong; it never panics, and never reads
//! outside the file. Bool elements are read as `byte != 0`, so no byte pattern is an invalid
//! `bool`.
//!
//! Loads read each tensor's bytes straight into its (64-byte aligned) CPU buffer with positioned
//! reads, large tensors in parallel chunks: one copy from the page cache, no intermediate
//! buffer. Files are written little-endian and row-major (views are written as their contiguous
//! copy), as NumPy and safetensors expect.
//!
//! ```
//! use std::collections::BTreeMap;
//! use typed_tensor::io::{load_safetensors, save_safetensors};
//! use typed_tensor::prelude::*;
//!
//! let dir = std::env::temp_dir().join(format!("tt-io-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let path = dir.join("weights.safetensors");
//! let w = Tensor::<f32, Cpu>::from_vec(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3])?;
//! let b = Tensor::<i64, Cpu>::from_vec(vec![7, 8], [2])?;
//! save_safetensors(&path, [("w", DynTensor::from(&w)), ("b", DynTensor::from(&b))], None)?;
//!
//! let loaded: BTreeMap<String, DynTensor> = load_safetensors(&path)?;
//! assert_eq!(loaded["w"].dtype(), Dtype::Float32);
//! assert_eq!(loaded["b"].to_vec::<i64>()?, vec![7, 8]);
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[cfg(feature = "ndarray")]
mod ndarray;
mod npy;
mod npz;
mod safetensors;
mod text;

#[cfg(feature = "ndarray")]
pub use self::ndarray::NdarrayView;
pub use npy::{load_npy, npy_from_bytes, npy_to_bytes, save_npy};
pub use npz::{load_npz, save_npz, save_npz_compressed};
pub use safetensors::{
    SafetensorsFile, load_safetensors, load_safetensors_mmap, load_safetensors_on, save_safetensors,
};
pub use text::{LoadTxt, SaveTxt, load_txt, load_txt_from_str, save_txt};

use crate::device::{AlignedBuf, Cpu};
use crate::dtype::{Dtype, Element};
use crate::dynamic::{DynTensor, with_dtype};
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;
use half::{bf16, f16};
use rayon::prelude::*;
use std::fs::File;
use std::path::Path;

/// Where a loader's bytes come from: a file (positioned reads, so threads can read at once) or
/// a byte slice in memory (an `.npz` member, `npy_from_bytes`).
pub(crate) trait Source: Sync {
    /// Total length in bytes.
    fn len(&self) -> u64;
    /// Fills `buf` from `offset`; the caller has checked `offset + buf.len() <= len()`.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()>;
}

impl Source for &[u8] {
    fn len(&self) -> u64 {
        <[u8]>::len(self) as u64
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        let start = usize::try_from(offset).map_err(std::io::Error::other)?;
        let bytes = start
            .checked_add(buf.len())
            .and_then(|end| self.get(start..end))
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::UnexpectedEof))?;
        buf.copy_from_slice(bytes);
        Ok(())
    }
}

/// An open regular file and its length, read with positioned reads.
pub(crate) struct FileSource {
    file: File,
    len: u64,
    /// The path, for messages.
    pub(crate) path: String,
}

impl FileSource {
    /// The open file.
    #[cfg(unix)]
    pub(crate) fn file(&self) -> &File {
        &self.file
    }
    /// Opens `path` for reading; `Io` when it cannot be opened or is not a regular file.
    pub(crate) fn open(op: &'static str, path: &Path) -> Result<Self> {
        let name = path.display().to_string();
        let file = File::open(path).map_err(|e| io_error(op, &name, &e))?;
        let meta = file.metadata().map_err(|e| io_error(op, &name, &e))?;
        if !meta.is_file() {
            return Err(Error::Io {
                op,
                path: name,
                msg: "not a regular file; pass the path of a file".into(),
            });
        }
        Ok(FileSource {
            file,
            len: meta.len(),
            path: name,
        })
    }
}

impl Source for FileSource {
    fn len(&self) -> u64 {
        self.len
    }
    #[cfg(unix)]
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        std::os::unix::fs::FileExt::read_exact_at(&self.file, buf, offset)
    }
    #[cfg(windows)]
    fn read_at(&self, mut offset: u64, mut buf: &mut [u8]) -> std::io::Result<()> {
        use std::os::windows::fs::FileExt;
        while !buf.is_empty() {
            match self.file.seek_read(buf, offset)? {
                0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                n => {
                    buf = &mut buf[n..];
                    offset += n as u64;
                }
            }
        }
        Ok(())
    }
}

/// An `Io` error for `path` with the system's message.
pub(crate) fn io_error(op: &'static str, path: &str, e: &std::io::Error) -> Error {
    Error::Io {
        op,
        path: path.to_string(),
        msg: e.to_string(),
    }
}

/// A `Format` error: `what` (a file, or `archive/member`) is not a valid file.
pub(crate) fn format_error(op: &'static str, what: &str, msg: impl Into<String>) -> Error {
    Error::Format {
        op,
        path: what.to_string(),
        msg: msg.into(),
    }
}

/// Reads the bytes of `buf` from `offset` of `src`, in parallel 8 MiB chunks when large.
fn read_bytes(
    op: &'static str,
    what: &str,
    src: &dyn Source,
    offset: u64,
    buf: &mut [u8],
) -> Result<()> {
    const CHUNK: usize = 8 << 20;
    let read = |i: usize, chunk: &mut [u8]| {
        src.read_at(offset + (i * CHUNK) as u64, chunk)
            .map_err(|e| io_error(op, what, &e))
    };
    if buf.len() <= 2 * CHUNK {
        return read(0, buf);
    }
    buf.par_chunks_mut(CHUNK)
        .enumerate()
        .try_for_each(|(i, c)| read(i, c))
}

/// An element as it is stored in files: its bytes, in either byte order.
pub(crate) trait FileElement: Element {
    /// Fills `out` with the elements stored at `offset` of `src`, byte-swapping each when
    /// `swap` (the file's byte order is not the host's).
    fn read_into(
        op: &'static str,
        what: &str,
        src: &dyn Source,
        offset: u64,
        out: &mut [Self],
        swap: bool,
    ) -> Result<()>;
}

macro_rules! pod_file_element {
    ($($t:ty),*) => {$(
        impl FileElement for $t {
            fn read_into(op: &'static str, what: &str, src: &dyn Source, offset: u64, out: &mut [Self], swap: bool) -> Result<()> {
                let bytes: &mut [u8] = bytemuck::cast_slice_mut(out);
                read_bytes(op, what, src, offset, bytes)?;
                if swap {
                    bytes
                        .par_chunks_mut(1 << 16)
                        .for_each(|c| c.chunks_exact_mut(size_of::<$t>()).for_each(<[u8]>::reverse));
                }
                Ok(())
            }
        }
    )*};
}
pod_file_element!(f32, f64, f16, bf16, i16, i32, i64, u8);

impl FileElement for bool {
    /// Any nonzero byte is `true` (as NumPy's `frombuffer(..., bool)` reads it).
    fn read_into(
        op: &'static str,
        what: &str,
        src: &dyn Source,
        offset: u64,
        out: &mut [bool],
        _: bool,
    ) -> Result<()> {
        let mut raw = AlignedBuf::<u8>::zeros(op, out.len())?;
        read_bytes(op, what, src, offset, &mut raw)?;
        out.par_iter_mut()
            .zip(raw.par_iter())
            .for_each(|(o, &b)| *o = b != 0);
        Ok(())
    }
}

/// Reads a row-major tensor of `dtype` and `shape` stored at `offset` of `src` (`big_endian`
/// says the file's byte order) into a new CPU tensor. The byte count is checked against the
/// source before anything is allocated.
///
/// # Errors
/// `ShapeOverflow` when the shape's size overflows; `Format` when the source holds fewer bytes
/// than the shape needs; `OutOfMemory`; `Io` when a read fails.
pub(crate) fn read_tensor(
    op: &'static str,
    what: &str,
    src: &dyn Source,
    offset: u64,
    dtype: Dtype,
    shape: Shape,
    big_endian: bool,
) -> Result<DynTensor> {
    let numel = shape.checked_numel(op, dtype.size())?;
    let bytes = (numel * dtype.size()) as u64; // at most MAX_BYTES: checked above
    let available = src.len().saturating_sub(offset);
    if bytes > available {
        return Err(format_error(
            op,
            what,
            format!(
                "shape {shape} of {dtype} needs {bytes} bytes at offset {offset}, but only {available} follow: the file is truncated or its header lies"
            ),
        ));
    }
    let swap = big_endian != cfg!(target_endian = "big");
    with_dtype!(dtype, T => {
        let mut buf = AlignedBuf::<T>::zeros(op, numel)?;
        T::read_into(op, what, src, offset, &mut buf, swap)?;
        Ok(DynTensor::from(Tensor::<T, Cpu>::from_buf(buf, shape)))
    })
}

/// A tensor's elements on the host, row-major, as bytes in the host's (little-endian) order.
pub(crate) struct HostBytes {
    pub(crate) dtype: Dtype,
    pub(crate) shape: Vec<usize>,
    data: Box<dyn AsBytes>,
}

trait AsBytes: Send + Sync {
    fn bytes(&self) -> &[u8];
}
impl<T: Element> AsBytes for Vec<T> {
    fn bytes(&self) -> &[u8] {
        bytemuck::cast_slice(self)
    }
}

impl HostBytes {
    /// Copies `t` to the host in row-major order (a view is made contiguous; a CUDA tensor is
    /// downloaded).
    pub(crate) fn of(t: &DynTensor) -> Result<Self> {
        let data: Box<dyn AsBytes> = with_dtype!(t.dtype(), T => Box::new(t.to_vec::<T>()?));
        Ok(HostBytes {
            dtype: t.dtype(),
            shape: t.shape().dims().to_vec(),
            data,
        })
    }
    /// The bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        self.data.bytes()
    }
}

#[cfg(target_endian = "big")]
compile_error!(
    "typed-tensor's file formats are written little-endian; big-endian hosts are not supported"
);
