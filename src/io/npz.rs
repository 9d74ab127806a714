//! NumPy's `.npz`: a zip archive (the `zip` crate) of `.npy` members, stored (`numpy.savez`) or
//! deflated (`numpy.savez_compressed`).

use super::npy::{descr_of, read_npy, write_npy};
use super::{format_error, io_error};
use crate::dynamic::DynTensor;
use crate::error::{Error, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::path::Path;
use zip::CompressionMethod;

/// The largest expansion deflate can reach (a 258-byte match per ~2 bits), with slack: a
/// member declaring more is a lie, refused before its buffer is allocated.
const MAX_DEFLATE_RATIO: u64 = 1100;

/// Every array of the `.npz` archive at `path`, by name (the member name without `.npy`, as
/// `numpy.load` names them), on the CPU. Members whose names do not end in `.npy` are skipped.
///
/// # Errors
/// `Io` when the file cannot be read; `Format` for a broken archive (bad directory, CRC
/// mismatch, a member larger than its compressed size allows, an unsupported compression), or
/// a member that is not a valid `.npy` (as [`super::load_npy`]), naming `archive/member`.
///
/// ```
/// use typed_tensor::io::{load_npz, save_npz};
/// use typed_tensor::prelude::*;
///
/// let path = std::env::temp_dir().join(format!("tt-npz-doc-{}.npz", std::process::id()));
/// let x = Tensor::<f64, Cpu>::from_vec(vec![0.5, 1.5], [2])?;
/// let mask = Tensor::<bool, Cpu>::from_vec(vec![true, false], [2])?;
/// save_npz(&path, [("x", DynTensor::from(&x)), ("mask", DynTensor::from(&mask))])?;
/// let arrays = load_npz(&path)?;
/// assert_eq!(arrays["x"].to_vec::<f64>()?, vec![0.5, 1.5]);
/// assert_eq!(arrays["mask"].to_vec::<bool>()?, vec![true, false]);
/// # std::fs::remove_file(&path).ok();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load_npz(path: impl AsRef<Path>) -> Result<BTreeMap<String, DynTensor>> {
    const OP: &str = "load_npz";
    let path = path.as_ref();
    let what = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| io_error(OP, &what, &e))?;
    let bad = |m: String| format_error(OP, &what, m);
    let mut zip = zip::ZipArchive::new(std::io::BufReader::new(file))
        .map_err(|e| bad(format!("not a readable zip archive: {e}")))?;
    let mut out = BTreeMap::new();
    for i in 0..zip.len() {
        let mut member = zip
            .by_index(i)
            .map_err(|e| bad(format!("member {i}: {e}")))?;
        let name = member
            .name()
            .map_err(|e| bad(format!("member {i}: {e}")))?
            .into_owned();
        let Some(key) = name.strip_suffix(".npy").map(str::to_string) else {
            continue;
        };
        let member_what = format!("{what}/{name}");
        let size = member.size();
        let packed = member.compressed_size();
        let limit = match member.compression() {
            CompressionMethod::Stored => packed,
            _ => packed
                .saturating_mul(MAX_DEFLATE_RATIO)
                .saturating_add(1024),
        };
        if size > limit {
            return Err(format_error(
                OP,
                &member_what,
                format!("declares {size} bytes but its {packed} compressed bytes cannot hold them"),
            ));
        }
        let mut bytes = Vec::new();
        let cap = usize::try_from(size).map_err(|_| Error::OutOfMemory {
            op: OP,
            bytes: usize::MAX,
        })?;
        crate::alloc::check_bytes(OP, cap)?;
        bytes
            .try_reserve_exact(cap)
            .map_err(|_| Error::OutOfMemory { op: OP, bytes: cap })?;
        // One byte past the declared size detects a member that is longer than declared.
        (&mut member)
            .take(size.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| format_error(OP, &member_what, format!("cannot be read: {e}")))?;
        if bytes.len() as u64 != size {
            return Err(format_error(
                OP,
                &member_what,
                format!("declares {size} bytes but holds {}", bytes.len()),
            ));
        }
        let t = read_npy(OP, &member_what, &&bytes[..])?;
        out.insert(key, t);
    }
    Ok(out)
}

fn save(
    op: &'static str,
    path: &Path,
    tensors: Vec<(String, DynTensor)>,
    method: CompressionMethod,
) -> Result<()> {
    let what = path.display().to_string();
    let mut names = BTreeSet::new();
    for (name, t) in &tensors {
        descr_of(t.dtype())?; // refuse bf16 before creating the file
        if name.is_empty() || !names.insert(name) {
            return Err(Error::InvalidArgument {
                op,
                msg: format!(
                    "the array name {name:?} is empty or repeated; give every array its own name"
                ),
            });
        }
    }
    let zip_err = |e: zip::result::ZipError| Error::Io {
        op,
        path: what.clone(),
        msg: e.to_string(),
    };
    let file = std::fs::File::create(path).map_err(|e| io_error(op, &what, &e))?;
    let mut zip = zip::ZipWriter::new(std::io::BufWriter::with_capacity(1 << 20, file));
    for (name, t) in &tensors {
        let bytes = t.nbytes() as u64;
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(method)
            .large_file(bytes >= u32::MAX as u64 - 4096);
        zip.start_file(format!("{name}.npy"), options)
            .map_err(zip_err)?;
        write_npy(op, &what, t, &mut zip)?;
    }
    let mut w = zip.finish().map_err(zip_err)?;
    w.flush().map_err(|e| io_error(op, &what, &e))
}

fn collect<S: AsRef<str>, V: Into<DynTensor>>(
    tensors: impl IntoIterator<Item = (S, V)>,
) -> Vec<(String, DynTensor)> {
    tensors
        .into_iter()
        .map(|(n, t)| (n.as_ref().to_string(), t.into()))
        .collect()
}

/// Writes `tensors` (typed or dynamic: `&t` or a `DynTensor`) to the `.npz` archive `path`,
/// each as the stored member `name.npy`, as `numpy.savez` does.
///
/// # Errors
/// `InvalidArgument` for an empty or repeated name, or a bfloat16 tensor (see
/// [`super::save_npy`]); `Io` when the file cannot be written.
pub fn save_npz<S: AsRef<str>, V: Into<DynTensor>>(
    path: impl AsRef<Path>,
    tensors: impl IntoIterator<Item = (S, V)>,
) -> Result<()> {
    save(
        "save_npz",
        path.as_ref(),
        collect(tensors),
        CompressionMethod::Stored,
    )
}

/// As [`save_npz`] with deflated members, as `numpy.savez_compressed` does.
///
/// # Errors
/// As [`save_npz`].
pub fn save_npz_compressed<S: AsRef<str>, V: Into<DynTensor>>(
    path: impl AsRef<Path>,
    tensors: impl IntoIterator<Item = (S, V)>,
) -> Result<()> {
    save(
        "save_npz_compressed",
        path.as_ref(),
        collect(tensors),
        CompressionMethod::Deflated,
    )
}
