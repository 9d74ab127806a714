//! safetensors files through Hugging Face's `safetensors` crate: its header parser and
//! validator (offsets contiguous and in order, byte lengths matching dtype × shape, checked
//! arithmetic) and its writer; the tensor bytes are read by [`super::read_tensor`].

use super::{FileSource, HostBytes, Source, format_error, read_tensor};
use crate::backend::Backend;
use crate::device::{Cpu, DeviceIndex};
use crate::dtype::{Dtype, Element};
use crate::dynamic::DynTensor;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;
use ::safetensors::tensor::{Dtype as StDtype, Metadata, View};
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

/// safetensors' limit on the JSON header, in bytes (as its own reader).
const MAX_HEADER: u64 = 100_000_000;

/// Our dtype for a safetensors dtype; `None` for the ones typed-tensor does not have.
fn ours(d: StDtype) -> Option<Dtype> {
    Some(match d {
        StDtype::BOOL => Dtype::Bool,
        StDtype::U8 => Dtype::UInt8,
        StDtype::I16 => Dtype::Int16,
        StDtype::I32 => Dtype::Int32,
        StDtype::I64 => Dtype::Int64,
        StDtype::F16 => Dtype::Float16,
        StDtype::BF16 => Dtype::Bfloat16,
        StDtype::F32 => Dtype::Float32,
        StDtype::F64 => Dtype::Float64,
        _ => return None,
    })
}

fn theirs(d: Dtype) -> StDtype {
    match d {
        Dtype::Bool => StDtype::BOOL,
        Dtype::UInt8 => StDtype::U8,
        Dtype::Int16 => StDtype::I16,
        Dtype::Int32 => StDtype::I32,
        Dtype::Int64 => StDtype::I64,
        Dtype::Float16 => StDtype::F16,
        Dtype::Bfloat16 => StDtype::BF16,
        Dtype::Float32 => StDtype::F32,
        Dtype::Float64 => StDtype::F64,
    }
}

struct Entry {
    dtype: StDtype,
    shape: Vec<usize>,
    /// Offset of the first byte from the start of the data section.
    begin: u64,
}

/// An opened safetensors file: its validated header (names, dtypes, shapes, `__metadata__`),
/// from which tensors are read one at a time, so a large checkpoint can be loaded in parts.
///
/// The header is parsed and checked by the `safetensors` crate: tensors must tile the data
/// section in order without gaps or overlap, each byte range must be exactly dtype size ×
/// element count (computed with checked arithmetic), and the data section must end where the
/// file does.
///
/// ```
/// use typed_tensor::io::{SafetensorsFile, save_safetensors};
/// use typed_tensor::prelude::*;
///
/// let path = std::env::temp_dir().join(format!("tt-st-doc-{}.safetensors", std::process::id()));
/// let x = Tensor::<f32, Cpu>::from_vec(vec![1.0, 2.0], [2])?;
/// let meta = [("format".to_string(), "pt".to_string())].into_iter().collect();
/// save_safetensors(&path, [("x", &x)], Some(&meta))?;
///
/// let file = SafetensorsFile::open(&path)?;
/// assert_eq!(file.names(), vec!["x"]);
/// assert_eq!(file.metadata(), Some(&meta));
/// let y = Tensor::<f32, Cpu>::from_safetensors(&file, "x")?;
/// assert_eq!(y.try_to_vec()?, vec![1.0, 2.0]);
/// assert!(Tensor::<f64, Cpu>::from_safetensors(&file, "x").is_err()); // stored as f32
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct SafetensorsFile {
    src: FileSource,
    data_start: u64,
    entries: BTreeMap<String, Entry>,
    metadata: Option<BTreeMap<String, String>>,
}

impl SafetensorsFile {
    /// Opens `path` and reads and validates its header; no tensor data is read.
    ///
    /// # Errors
    /// `Io` when the file cannot be opened or read; `Format` for a file shorter than 8 bytes, a
    /// header length beyond the file or over 100 MB, a header that is not UTF-8 JSON in the
    /// safetensors schema, offsets that overlap, leave gaps or do not match dtype × shape, or a
    /// data section that does not end at the end of the file.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        const OP: &str = "SafetensorsFile::open";
        let src = FileSource::open(OP, path.as_ref())?;
        let bad = |msg: String| format_error(OP, &src.path, msg);
        let len = src.len();
        if len < 8 {
            return Err(bad(format!(
                "{len} bytes is shorter than the 8-byte header length: not a safetensors file, or truncated"
            )));
        }
        let mut n = [0u8; 8];
        src.read_at(0, &mut n)
            .map_err(|e| super::io_error(OP, &src.path, &e))?;
        let n = u64::from_le_bytes(n);
        if n > MAX_HEADER {
            return Err(bad(format!(
                "the header length {n} exceeds safetensors' limit of {MAX_HEADER} bytes: not a safetensors file"
            )));
        }
        if n > len - 8 {
            return Err(bad(format!(
                "the header length {n} runs past the end of the file ({len} bytes): truncated, or not a safetensors file"
            )));
        }
        let mut header = vec![0u8; n as usize];
        src.read_at(8, &mut header)
            .map_err(|e| super::io_error(OP, &src.path, &e))?;
        let text = std::str::from_utf8(&header)
            .map_err(|e| bad(format!("the header is not UTF-8 ({e})")))?;
        let meta: Metadata =
            serde_json::from_str(text).map_err(|e| bad(format!("invalid header: {e}")))?;
        let data_start = 8 + n;
        let data_len = meta.data_len() as u64;
        if data_len != len - data_start {
            return Err(bad(format!(
                "the header describes {data_len} bytes of tensor data but {} follow it: truncated, or trailing bytes",
                len - data_start
            )));
        }
        let entries = meta
            .tensors()
            .into_iter()
            .map(|(name, info)| {
                let entry = Entry {
                    dtype: info.dtype,
                    shape: info.shape.clone(),
                    begin: info.data_offsets.0 as u64,
                };
                (name, entry)
            })
            .collect();
        let metadata = meta
            .metadata()
            .as_ref()
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect());
        Ok(SafetensorsFile {
            src,
            data_start,
            entries,
            metadata,
        })
    }

    /// The tensor names, sorted (including tensors of dtypes typed-tensor does not have).
    pub fn names(&self) -> Vec<&str> {
        self.entries.keys().map(String::as_str).collect()
    }

    /// Number of tensors in the file.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the file holds no tensors.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The `__metadata__` string map, when the file has one.
    pub fn metadata(&self) -> Option<&BTreeMap<String, String>> {
        self.metadata.as_ref()
    }

    fn entry(&self, op: &'static str, name: &str) -> Result<(&Entry, Dtype)> {
        let e = self
            .entries
            .get(name)
            .ok_or_else(|| Error::InvalidArgument {
                op,
                msg: format!(
                    "{}: no tensor named {name:?}; the file has {:?}",
                    self.src.path,
                    self.names()
                ),
            })?;
        let dtype = ours(e.dtype).ok_or_else(|| {
            format_error(
                op,
                &self.src.path,
                format!(
                    "tensor {name:?} has dtype {:?}, which typed-tensor does not have (it has BOOL, U8, I16, I32, I64, F16, BF16, F32, F64); skip it with load_all(.., true) or convert it where it was written",
                    e.dtype
                ),
            )
        })?;
        Ok((e, dtype))
    }

    /// The dtype and shape of tensor `name`, without reading it.
    ///
    /// # Errors
    /// `InvalidArgument` when there is no such tensor; `Format` for a dtype typed-tensor does not
    /// have (U16, F8_E4M3, ...), naming it.
    pub fn info(&self, name: &str) -> Result<(Dtype, Shape)> {
        let (e, dtype) = self.entry("SafetensorsFile::info", name)?;
        Ok((dtype, Shape::from(&e.shape)))
    }

    /// Reads tensor `name` into a new CPU tensor of the file's dtype.
    ///
    /// # Errors
    /// As [`SafetensorsFile::info`], plus `OutOfMemory` and `Io` when the read fails (the file
    /// shrank since it was opened).
    pub fn load(&self, name: &str) -> Result<DynTensor> {
        const OP: &str = "SafetensorsFile::load";
        let (e, dtype) = self.entry(OP, name)?;
        let what = format!("{}[{name:?}]", self.src.path);
        let offset = self.data_start + e.begin;
        read_tensor(
            OP,
            &what,
            &self.src,
            offset,
            dtype,
            Shape::from(&e.shape),
            false,
        )
    }

    /// Tensor `name` as a zero-copy, copy-on-write memory mapping of the file: nothing is read
    /// until elements are used, and writes to the tensor copy the touched pages, never
    /// changing the file. Bool tensors, and tensors whose offset is not aligned to their
    /// element (files from other writers), are read as [`SafetensorsFile::load`] does.
    ///
    /// # Safety
    /// The file must not be truncated or written while the tensor (or any view or clone of it)
    /// lives: touching a page the file no longer has raises SIGBUS, which aborts the process.
    /// Use [`SafetensorsFile::load`] for files others may change.
    ///
    /// # Errors
    /// As [`SafetensorsFile::load`].
    pub unsafe fn load_mmap(&self, name: &str) -> Result<DynTensor> {
        const OP: &str = "SafetensorsFile::load_mmap";
        let (e, dtype) = self.entry(OP, name)?;
        let shape = Shape::from(&e.shape);
        let numel = shape.checked_numel(OP, dtype.size())?;
        #[cfg(unix)]
        {
            let offset = self.data_start + e.begin;
            let mapped = crate::dynamic::with_dtype!(dtype, T => {
                // SAFETY: the caller keeps the file unchanged while the tensor lives.
                unsafe { crate::device::AlignedBuf::<T>::map_file(self.src.file(), offset, numel) }
                    .map(|buf| DynTensor::from(Tensor::<T, Cpu>::from_buf(buf, shape.clone())))
            });
            if let Some(t) = mapped {
                return Ok(t);
            }
        }
        let _ = numel;
        self.load(name)
    }

    /// Reads tensor `name` onto `device` (through host memory).
    ///
    /// # Errors
    /// As [`SafetensorsFile::load`], plus `Device` when the device cannot be opened.
    pub fn load_on(&self, name: &str, device: DeviceIndex) -> Result<DynTensor> {
        let t = self.load(name)?;
        if device == DeviceIndex::cpu() {
            return Ok(t);
        }
        t.to(device)
    }

    /// Reads every tensor onto `device`, by name. With `skip_unsupported`, tensors of dtypes
    /// typed-tensor does not have are left out; without it they are an `Err`.
    ///
    /// # Errors
    /// As [`SafetensorsFile::load_on`].
    pub fn load_all(
        &self,
        device: DeviceIndex,
        skip_unsupported: bool,
    ) -> Result<BTreeMap<String, DynTensor>> {
        let mut out = BTreeMap::new();
        for (name, e) in &self.entries {
            if skip_unsupported && ours(e.dtype).is_none() {
                continue;
            }
            out.insert(name.clone(), self.load_on(name, device)?);
        }
        Ok(out)
    }
}

/// Every tensor of the safetensors file at `path`, by name, on the CPU, each with the file's
/// dtype. Use [`SafetensorsFile`] to read the metadata, choose tensors, or skip dtypes that
/// typed-tensor does not have.
///
/// # Errors
/// As [`SafetensorsFile::open`] and [`SafetensorsFile::load`]; a tensor of a dtype typed-tensor
/// does not have is a `Format` error naming it.
pub fn load_safetensors(path: impl AsRef<Path>) -> Result<BTreeMap<String, DynTensor>> {
    SafetensorsFile::open(path)?.load_all(DeviceIndex::cpu(), false)
}

/// As [`load_safetensors`], with every tensor a zero-copy memory mapping of the file
/// ([`SafetensorsFile::load_mmap`]): loading a checkpoint costs no reads until its elements are
/// used, and checkpoints larger than memory can be opened.
///
/// # Safety
/// The file must not be truncated or written while any of the tensors lives (SIGBUS aborts
/// the process otherwise); see [`SafetensorsFile::load_mmap`].
///
/// # Errors
/// As [`load_safetensors`].
pub unsafe fn load_safetensors_mmap(path: impl AsRef<Path>) -> Result<BTreeMap<String, DynTensor>> {
    let file = SafetensorsFile::open(path)?;
    let mut out = BTreeMap::new();
    for name in file.names() {
        // SAFETY: forwarded to the caller.
        out.insert(name.to_string(), unsafe { file.load_mmap(name) }?);
    }
    Ok(out)
}

/// As [`load_safetensors`], placing every tensor on `device` (`DeviceIndex::cuda(0)`).
///
/// # Errors
/// As [`load_safetensors`], plus `Device` when the device cannot be opened.
pub fn load_safetensors_on(
    path: impl AsRef<Path>,
    device: DeviceIndex,
) -> Result<BTreeMap<String, DynTensor>> {
    SafetensorsFile::open(path)?.load_all(device, false)
}

struct HostView(HostBytes);

impl View for HostView {
    fn dtype(&self) -> StDtype {
        theirs(self.0.dtype)
    }
    fn shape(&self) -> &[usize] {
        &self.0.shape
    }
    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Borrowed(self.0.bytes())
    }
    fn data_len(&self) -> usize {
        self.0.bytes().len()
    }
}

/// Writes `tensors` (typed or dynamic, on any device: pass `&t` or a `DynTensor`) to the
/// safetensors file `path`, with the optional `__metadata__` string map. Views are written as
/// their contiguous copy; CUDA tensors are downloaded. The file is written to a temporary
/// sibling and renamed, so an existing file is replaced whole or not at all.
///
/// # Errors
/// `InvalidArgument` for a repeated name or the reserved name `__metadata__`; `Io` when the
/// file cannot be written; `Device` when a download fails.
pub fn save_safetensors<S: AsRef<str>, V: Into<DynTensor>>(
    path: impl AsRef<Path>,
    tensors: impl IntoIterator<Item = (S, V)>,
    metadata: Option<&BTreeMap<String, String>>,
) -> Result<()> {
    const OP: &str = "save_safetensors";
    let path = path.as_ref();
    let mut names = BTreeSet::new();
    let mut views = Vec::new();
    for (name, t) in tensors {
        let name = name.as_ref().to_string();
        if name == "__metadata__" || !names.insert(name.clone()) {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!(
                    "the tensor name {name:?} is repeated or reserved (__metadata__); give every tensor its own name"
                ),
            });
        }
        views.push((name, HostView(HostBytes::of(&t.into())?)));
    }
    let metadata: Option<HashMap<String, String>> =
        metadata.map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect());
    ::safetensors::serialize_to_file(views, metadata, path).map_err(|e| Error::Io {
        op: OP,
        path: path.display().to_string(),
        msg: e.to_string(),
    })
}

impl<T: Element> Tensor<T, Cpu> {
    /// Reads tensor `name` of an opened safetensors file, which must be stored as `T`.
    ///
    /// # Errors
    /// `DtypeMismatch` when the file stores another dtype (naming both); otherwise as
    /// [`SafetensorsFile::load`].
    pub fn from_safetensors(file: &SafetensorsFile, name: &str) -> Result<Self> {
        let (dtype, _) = file.info(name)?;
        if dtype != T::DTYPE {
            return Err(Error::DtypeMismatch {
                op: "from_safetensors",
                expected: T::DTYPE,
                actual: dtype,
                hint: "read it with the element type the file stores, or load it as a DynTensor and convert with to_dtype()",
            });
        }
        file.load(name)?.downcast()
    }
}

impl<T: Element, D: Backend> Tensor<T, D> {
    /// As [`Tensor::from_safetensors`], placing the tensor on `device`.
    ///
    /// # Errors
    /// As [`Tensor::from_safetensors`], plus `Device` when the copy to the device fails.
    pub fn from_safetensors_on(file: &SafetensorsFile, name: &str, device: &D) -> Result<Self> {
        Tensor::<T, Cpu>::from_safetensors(file, name)?.to_device(device)
    }
}
