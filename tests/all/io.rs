//! Loading and saving: fixtures written by NumPy and Hugging Face's safetensors package
//! (`tests/data/io/make_fixtures.py`) are read and compared with `expected.json`; the same arrays
//! are written back to `target/tmp/io-written`, which `.ci/run` checks with NumPy
//! (`check_written.py`). Hostile files (truncated, lying headers, overflowing shapes, random
//! mutations) must be an `Err`, never a panic or an out-of-bounds read.

use proptest::prelude::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use typed_tensor::io::*;
use typed_tensor::prelude::*;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/io")
        .join(name)
}

fn expected() -> BTreeMap<String, Value> {
    let text = std::fs::read_to_string(data("expected.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// A fresh directory under cargo's per-target temporary directory.
fn out_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn dtype_named(name: &str) -> Dtype {
    match name {
        "float32" => Dtype::Float32,
        "float64" => Dtype::Float64,
        "float16" => Dtype::Float16,
        "bfloat16" => Dtype::Bfloat16,
        "int16" => Dtype::Int16,
        "int32" => Dtype::Int32,
        "int64" => Dtype::Int64,
        "uint8" => Dtype::UInt8,
        "bool" => Dtype::Bool,
        other => panic!("unknown dtype {other}"),
    }
}

/// Asserts that `t` has the dtype, shape and values (bit for bit: NaN, inf, -0.0) of `want`.
fn assert_matches(what: &str, t: &DynTensor, want: &Value) {
    assert_eq!(
        t.dtype(),
        dtype_named(want["dtype"].as_str().unwrap()),
        "{what}: dtype"
    );
    let shape: Vec<usize> = want["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    assert_eq!(t.shape().dims(), &shape[..], "{what}: shape");
    let values = want["values"].as_array().unwrap();
    match t.dtype() {
        d if d.is_float() => {
            let got = t.to_dtype(Dtype::Float64).unwrap().to_vec::<f64>().unwrap();
            let want: Vec<f64> = values
                .iter()
                .map(|v| v.as_str().unwrap().parse().unwrap())
                .collect();
            assert_eq!(got.len(), want.len(), "{what}");
            for (g, w) in got.iter().zip(&want) {
                assert!(
                    g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
                    "{what}: {got:?} != {want:?}"
                );
            }
        }
        Dtype::Bool => {
            let want: Vec<bool> = values.iter().map(|v| v.as_bool().unwrap()).collect();
            assert_eq!(t.to_vec::<bool>().unwrap(), want, "{what}");
        }
        _ => {
            let got = t.to_dtype(Dtype::Int64).unwrap().to_vec::<i64>().unwrap();
            let want: Vec<i64> = values.iter().map(|v| v.as_i64().unwrap()).collect();
            assert_eq!(got, want, "{what}");
        }
    }
}

fn err_text<T>(r: Result<T>) -> String {
    match r {
        Ok(_) => panic!("expected an Err"),
        Err(e) => e.to_string(),
    }
}

/// Reads every fixture, checks it, writes it back (read again here, and by NumPy in CI).
#[test]
fn fixtures_round_trip() {
    let expected = expected();
    let metadata: BTreeMap<String, String> =
        serde_json::from_value(expected["__metadata__"].clone()).unwrap();
    let arrays: Vec<(&String, &Value)> = expected
        .iter()
        .filter(|(k, _)| k.as_str() != "__metadata__")
        .collect();
    let out = out_dir("io-written");

    // .npy: every dtype, 0-d, empty, then written back.
    for (name, want) in &arrays {
        if want["dtype"] == "bfloat16" {
            continue;
        }
        let t = load_npy(data(&format!("{name}.npy"))).unwrap();
        assert_matches(&format!("{name}.npy"), &t, want);
        let path = out.join(format!("{name}.npy"));
        save_npy(&path, &t).unwrap();
        assert_matches(
            &format!("written {name}.npy"),
            &load_npy(&path).unwrap(),
            want,
        );
        let bytes = npy_to_bytes(&t).unwrap();
        assert_eq!(bytes, std::fs::read(&path).unwrap());
        assert_matches(name, &npy_from_bytes(&bytes).unwrap(), want);
    }
    // Fortran order and big endian read as the C-order little-endian arrays.
    let f = load_npy(data("f32_3d_fortran.npy")).unwrap();
    assert_matches("f32_3d_fortran.npy", &f, &expected["f32_3d"]);
    assert!(f.is_contiguous());
    assert_matches(
        "i32_big_endian.npy",
        &load_npy(data("i32_big_endian.npy")).unwrap(),
        &expected["i32"],
    );
    let t = load_npy(data("f64_big_endian_fortran.npy")).unwrap();
    assert_matches("f64_big_endian_fortran.npy", &t, &expected["f64"]);
    // A view is written as its contiguous copy.
    save_npy(
        out.join("f32_3d_transposed.npy"),
        f.permute(&[2, 1, 0]).unwrap(),
    )
    .unwrap();
    let back = load_npy(out.join("f32_3d_transposed.npy")).unwrap();
    let want = f.permute(&[2, 1, 0]).unwrap().contiguous().unwrap();
    assert_eq!(back.shape().dims(), &[4, 3, 2]);
    assert_eq!(back.to_vec::<f32>().unwrap(), want.to_vec::<f32>().unwrap());

    // Dtypes typed-tensor does not have are an Err naming them.
    assert!(err_text(load_npy(data("i8.npy"))).contains("|i1"));
    assert!(err_text(load_npy(data("bf16_ml_dtypes.npy"))).contains("V2"));

    // .npz, stored and deflated; written back the same way.
    for archive in ["arrays.npz", "arrays_compressed.npz"] {
        let z = load_npz(data(archive)).unwrap();
        assert!(z.len() >= 3, "{archive}");
        for (name, t) in &z {
            assert_matches(&format!("{archive}/{name}"), t, &expected[name]);
        }
        let path = out.join(archive);
        if archive == "arrays.npz" {
            save_npz(&path, &z).unwrap();
        } else {
            save_npz_compressed(&path, &z).unwrap();
        }
        let back = load_npz(&path).unwrap();
        assert_eq!(
            back.keys().collect::<Vec<_>>(),
            z.keys().collect::<Vec<_>>()
        );
        for (name, t) in &back {
            assert_matches(&format!("written {archive}/{name}"), t, &expected[name]);
        }
    }

    // safetensors: every dtype (bf16 included), 0-d, empty, metadata.
    let file = SafetensorsFile::open(data("all_dtypes.safetensors")).unwrap();
    assert_eq!(file.metadata(), Some(&metadata));
    assert_eq!(file.len(), arrays.len());
    let all = load_safetensors(data("all_dtypes.safetensors")).unwrap();
    for (name, want) in &arrays {
        assert_matches(&format!("all_dtypes.safetensors/{name}"), &all[*name], want);
    }
    let path = out.join("all.safetensors");
    save_safetensors(&path, &all, Some(&metadata)).unwrap();
    let file = SafetensorsFile::open(&path).unwrap();
    assert_eq!(file.metadata(), Some(&metadata));
    for (name, want) in &arrays {
        assert_matches(
            &format!("all.safetensors/{name}"),
            &file.load(name).unwrap(),
            want,
        );
    }
}

#[test]
fn safetensors_dtypes_and_devices() {
    let file = SafetensorsFile::open(data("all_dtypes.safetensors")).unwrap();
    let x = Tensor::<f32, Cpu>::from_safetensors(&file, "f32").unwrap();
    assert_eq!(x.dims(), &[2, 3]);
    let e = err_text(Tensor::<f64, Cpu>::from_safetensors(&file, "f32"));
    assert!(e.starts_with("from_safetensors: dtype mismatch"), "{e}");
    let y = Tensor::<bf16, Cpu>::from_safetensors_on(&file, "bf16", &Cpu).unwrap();
    assert_eq!(y.to_vec()[0], bf16::from_f32(1.0));
    assert!(err_text(file.load("nope")).contains("no tensor named \"nope\""));
    let (dtype, shape) = file.info("i64").unwrap();
    assert_eq!((dtype, shape.dims().to_vec()), (Dtype::Int64, vec![2, 3]));

    // A dtype typed-tensor lacks is an Err naming it, or skipped on request.
    let path = data("unsupported.safetensors");
    let e = err_text(load_safetensors(&path));
    assert!(e.contains("U16"), "{e}");
    let file = SafetensorsFile::open(&path).unwrap();
    assert_eq!(file.names(), vec!["f32", "u16"]);
    let some = file.load_all(DeviceIndex::cpu(), true).unwrap();
    assert_eq!(some.keys().collect::<Vec<_>>(), vec!["f32"]);
    assert_eq!(some["f32"].to_vec::<f32>().unwrap(), vec![4.5]);

    // CUDA: only where a device is present.
    if Cuda::new(0).is_ok() {
        let on = load_safetensors_on(data("all_dtypes.safetensors"), DeviceIndex::cuda(0)).unwrap();
        assert!(on["f32"].is_cuda());
        let expected = expected();
        assert_matches("on cuda", &on["f16"], &expected["f16"]);
        let dir = out_dir("io-cuda");
        save_safetensors(dir.join("c.safetensors"), &on, None).unwrap();
        assert_matches(
            "from cuda",
            &load_safetensors(dir.join("c.safetensors")).unwrap()["bf16"],
            &expected["bf16"],
        );
    } else {
        assert!(load_safetensors_on(data("all_dtypes.safetensors"), DeviceIndex::cuda(0)).is_err());
    }
}

#[test]
fn saving_refuses_what_the_format_cannot_hold() {
    let dir = out_dir("io-refuse");
    let b = Tensor::<bf16, Cpu>::from_vec(vec![bf16::ONE], [1]).unwrap();
    assert!(err_text(save_npy(dir.join("b.npy"), &b)).contains("bfloat16"));
    assert!(!dir.join("b.npy").exists(), "nothing is created");
    assert!(err_text(save_npz(dir.join("b.npz"), [("b", &b)])).contains("bfloat16"));
    assert!(!dir.join("b.npz").exists());
    let x = Tensor::<f32, Cpu>::from_vec(vec![1.0], [1]).unwrap();
    assert!(
        err_text(save_safetensors(
            dir.join("x.st"),
            [("a", &x), ("a", &x)],
            None
        ))
        .contains("repeated")
    );
    assert!(
        err_text(save_safetensors(
            dir.join("x.st"),
            [("__metadata__", &x)],
            None
        ))
        .contains("reserved")
    );
    assert!(err_text(save_npz(dir.join("x.npz"), [("a", &x), ("a", &x)])).contains("repeated"));
    let e = err_text(save_npy(dir.join("no/such/dir/x.npy"), &x));
    assert!(e.contains("save_npy") && e.contains("no/such/dir"), "{e}");
    assert!(err_text(load_npy(dir.join("missing.npy"))).contains("missing.npy"));
    assert!(load_npy(&dir).is_err(), "a directory is not a file");
    // Broadcast and empty views are written as their contiguous values.
    let e = Tensor::<f32, Cpu>::zeros([0, 4]).unwrap();
    save_safetensors(
        dir.join("e.st"),
        [("e", &e), ("x", &x.expand([3]).unwrap())],
        None,
    )
    .unwrap();
    let back = load_safetensors(dir.join("e.st")).unwrap();
    assert_eq!(back["e"].shape().dims(), &[0, 4]);
    assert_eq!(back["x"].to_vec::<f32>().unwrap(), vec![1.0; 3]);
}

/// A safetensors file with `header` (JSON) and `data`.
fn safetensors_bytes(header: impl AsRef<[u8]>, data: &[u8]) -> Vec<u8> {
    let header = header.as_ref();
    let mut v = (header.len() as u64).to_le_bytes().to_vec();
    v.extend_from_slice(header);
    v.extend_from_slice(data);
    v
}

/// A version 1.0 `.npy` file whose header dict holds `entries`, followed by `data`.
fn npy_bytes(entries: &str, data: &[u8]) -> Vec<u8> {
    let dict = format!("{{{entries}}}\n");
    let mut v = b"\x93NUMPY\x01\x00".to_vec();
    v.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    v.extend_from_slice(dict.as_bytes());
    v.extend_from_slice(data);
    v
}

/// Loads `bytes` as a safetensors, `.npy` and `.npz` file; every path must return (Ok or Err),
/// and any tensor it returns must be fully readable.
fn load_all_formats(dir: &Path, bytes: &[u8]) -> [bool; 3] {
    let path = dir.join("f");
    std::fs::write(&path, bytes).unwrap();
    let st = load_safetensors(&path).map(|m| m.values().for_each(|t| drop(t.to_vec::<u8>().ok())));
    let npy = npy_from_bytes(bytes).map(|t| drop(t.contiguous().unwrap()));
    let npz = load_npz(&path).map(|m| m.values().for_each(|t| drop(t.contiguous().unwrap())));
    [st.is_ok(), npy.is_ok(), npz.is_ok()]
}

#[test]
fn hostile_files_are_errs() {
    let dir = out_dir("io-hostile");
    let st = std::fs::read(data("all_dtypes.safetensors")).unwrap();
    let npy = std::fs::read(data("f64.npy")).unwrap();
    let npz = std::fs::read(data("arrays_compressed.npz")).unwrap();
    // Every truncation is an Err.
    for file in [&st, &npy, &npz] {
        for len in (0..file.len()).step_by(7).chain([file.len() - 1]) {
            assert_eq!(
                load_all_formats(&dir, &file[..len]),
                [false; 3],
                "truncated to {len}"
            );
        }
    }
    let cases: &[(&str, Vec<u8>)] = &[
        ("header length beyond the file", {
            let mut v = st.clone();
            v[..8].copy_from_slice(&(st.len() as u64).to_le_bytes());
            v
        }),
        ("huge header length", {
            let mut v = st.clone();
            v[..8].copy_from_slice(&u64::MAX.to_le_bytes());
            v
        }),
        (
            "overlapping offsets",
            safetensors_bytes(
                r#"{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}}"#,
                &[0; 6],
            ),
        ),
        (
            "offsets out of range",
            safetensors_bytes(
                r#"{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}"#,
                &[0; 8],
            ),
        ),
        (
            "overflowing shape",
            safetensors_bytes(
                r#"{"a":{"dtype":"F32","shape":[4611686018427387904,4611686018427387904],"data_offsets":[0,16]}}"#,
                &[0; 16],
            ),
        ),
        (
            "dtype/byte-length mismatch",
            safetensors_bytes(
                r#"{"a":{"dtype":"F64","shape":[2],"data_offsets":[0,8]}}"#,
                &[0; 8],
            ),
        ),
        ("invalid UTF-8", safetensors_bytes(b"{\"a\xff\":{}}", &[])),
        ("invalid JSON", safetensors_bytes("{\"a\":", &[])),
        (
            "trailing bytes",
            safetensors_bytes(
                r#"{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}"#,
                &[1, 2],
            ),
        ),
        (
            "npy shape larger than the data",
            npy_bytes(
                "'descr': '<f8', 'fortran_order': False, 'shape': (9, 3)",
                &[0; 48],
            ),
        ),
        (
            "npy overflowing shape",
            npy_bytes(
                "'descr': '<f4', 'fortran_order': True, 'shape': (4611686018427387904, 8)",
                &[0; 8],
            ),
        ),
        (
            "npy negative dimension",
            npy_bytes(
                "'descr': '<f4', 'fortran_order': False, 'shape': (-1,)",
                &[0; 8],
            ),
        ),
        (
            "npy unsupported dtype",
            npy_bytes(
                "'descr': '<u4', 'fortran_order': False, 'shape': (2,)",
                &[0; 8],
            ),
        ),
        (
            "npy structured dtype",
            npy_bytes(
                "'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)",
                &[0; 8],
            ),
        ),
        (
            "npy missing key",
            npy_bytes("'descr': '<f4', 'shape': (2,)", &[0; 8]),
        ),
        (
            "npy repeated key",
            npy_bytes(
                "'descr': '<f4', 'descr': '<f8', 'fortran_order': False, 'shape': (1,)",
                &[0; 8],
            ),
        ),
        (
            "npy unknown key",
            npy_bytes(
                "'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1",
                &[0; 8],
            ),
        ),
        ("npy version 9", {
            let mut v = npy.clone();
            v[6] = 9;
            v
        }),
        ("npy header length beyond the file", {
            let mut v = npy.clone();
            v[8..10].copy_from_slice(&u16::MAX.to_le_bytes());
            v
        }),
    ];
    for (what, bytes) in cases {
        assert_eq!(load_all_formats(&dir, bytes), [false; 3], "{what}");
    }
    // An empty tensor with huge dimensions needs no bytes: it loads.
    let t = safetensors_bytes(
        r#"{"a":{"dtype":"F32","shape":[0,4611686018427387904],"data_offsets":[0,0]}}"#,
        &[],
    );
    std::fs::write(dir.join("e"), &t).unwrap();
    assert_eq!(load_safetensors(dir.join("e")).unwrap()["a"].numel(), 0);
    // Bool bytes other than 0/1 read as true, as NumPy's frombuffer does.
    let t = safetensors_bytes(
        r#"{"a":{"dtype":"BOOL","shape":[3],"data_offsets":[0,3]}}"#,
        &[0, 2, 255],
    );
    std::fs::write(dir.join("b"), &t).unwrap();
    assert_eq!(
        load_safetensors(dir.join("b")).unwrap()["a"]
            .to_vec::<bool>()
            .unwrap(),
        vec![false, true, true]
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Valid files mutated at random (bytes overwritten, cut, or inserted) load as an `Err`, or
    /// as tensors that are fully readable and fit in the file.
    #[test]
    fn props_mutated_files_never_crash(
        which in 0usize..4,
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..6),
    ) {
        let name = ["all_dtypes.safetensors", "f32_3d_fortran.npy", "arrays.npz", "arrays_compressed.npz"][which];
        let mut bytes = std::fs::read(data(name)).unwrap();
        for (at, byte, kind) in edits {
            let i = at.index(bytes.len());
            match kind {
                0 => bytes[i] = byte,
                1 => bytes.truncate(i),
                _ => bytes.insert(i, byte),
            }
            if bytes.is_empty() {
                break;
            }
        }
        // Under the target's scratch folder, one file per thread, removed after each case.
        let thread = format!("{:?}", std::thread::current().id()).replace(['(', ')'], "");
        let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("io-props-{thread}"));
        let file_len = bytes.len();
        std::fs::write(&path, &bytes).unwrap();
        if let Ok(m) = load_safetensors(&path) {
            let total: usize = m.values().map(|t| t.nbytes()).sum();
            prop_assert!(total <= file_len);
        }
        if let Ok(t) = npy_from_bytes(&bytes) {
            prop_assert!(t.nbytes() <= file_len);
            t.contiguous().unwrap();
        }
        let npz = load_npz(&path);
        std::fs::remove_file(&path).unwrap();
        if let Ok(m) = npz {
            for t in m.values() {
                t.contiguous().unwrap();
            }
        }
    }
}

/// Memory-mapped loads: the values of the read path, and writes to the tensor never reach the
/// file (copy-on-write).
#[test]
fn mmap_loads_are_copy_on_write() {
    let dir = out_dir("io-mmap");
    let expected = expected();
    let src = std::fs::read(data("all_dtypes.safetensors")).unwrap();
    let path = dir.join("m.safetensors");
    std::fs::write(&path, &src).unwrap();
    // SAFETY: the file is ours and unchanged while the tensors live.
    let all = unsafe { load_safetensors_mmap(&path) }.unwrap();
    for (name, t) in &all {
        assert_matches(&format!("mmap {name}"), t, &expected[name]);
    }
    let mut w = all["f32_3d"].clone();
    w.fill_(7.0f32).unwrap();
    assert_eq!(w.to_vec::<f32>().unwrap(), vec![7.0; 24]);
    assert_eq!(std::fs::read(&path).unwrap(), src, "the file is unchanged");
    let again = load_safetensors(&path).unwrap();
    assert_matches("after write", &again["f32_3d"], &expected["f32_3d"]);
    // Views, casts and matmul work on mapped tensors like on any other.
    let m = all["f32_3d"].clone().downcast::<f32, Cpu>().unwrap();
    assert_eq!(m.dims(), &[2, 3, 4]);
    let file = SafetensorsFile::open(&path).unwrap();
    // SAFETY: as above.
    let fresh = unsafe { file.load_mmap("f32_3d") }
        .unwrap()
        .downcast::<f32, Cpu>()
        .unwrap();
    let s = fresh.try_matmul(&fresh.transpose(1, 2).unwrap()).unwrap();
    assert_eq!(s.dims(), &[2, 3, 3]);
    assert_eq!(
        s.to_vec()[0],
        (0..4).map(|i| (i as f32 / 8.0).powi(2)).sum::<f32>()
    );
}
