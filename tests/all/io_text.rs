//! Delimited text (`load_txt`/`save_txt`, NumPy's `loadtxt`/`savetxt`): NumPy 2.4's written
//! text and `loadtxt` shapes, every dtype's round trip (NaN, inf, -0, subnormals, integer
//! extremes), gzip, and the refusals.

use std::path::{Path, PathBuf};
use typed_tensor::io::*;
use typed_tensor::prelude::*;

fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("io-text");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn csv() -> LoadTxt {
    LoadTxt {
        delimiter: Some(','),
        ..LoadTxt::default()
    }
}

#[test]
fn text_matches_numpy() {
    // np.savetxt(f, a) and np.savetxt(f, a, fmt='%.3e', delimiter=',', header='x,y\nz',
    // footer='end') of a = [[1.5, -2.0, 1e300], [0.1, 3e-8, -0.0]].
    let numpy = "1.500000000000000000e+00 -2.000000000000000000e+00 1.000000000000000053e+300\n1.000000000000000056e-01 2.999999999999999732e-08 -0.000000000000000000e+00\n";
    let numpy_csv =
        "# x,y\n# z\n1.500e+00,-2.000e+00,1.000e+300\n1.000e-01,3.000e-08,-0.000e+00\n# end\n";
    let a = Tensor::<f64>::from_vec(vec![1.5, -2.0, 1e300, 0.1, 3e-8, -0.0], [2, 3]).unwrap();
    let read: Tensor<f64> = load_txt_from_str(numpy, &LoadTxt::default()).unwrap();
    assert_eq!(read.dims(), [2, 3]);
    assert_eq!(read.to_vec(), a.to_vec());
    assert!(read.to_vec()[5].is_sign_negative());
    let p = tmp("numpy.txt");
    let nd = SaveTxt {
        precision: Some(18),
        ..SaveTxt::default()
    };
    save_txt(&p, &a, &nd).unwrap();
    assert_eq!(std::fs::read_to_string(&p).unwrap(), numpy);
    let opts = SaveTxt {
        precision: Some(3),
        delimiter: ",".into(),
        header: "x,y\nz".into(),
        footer: "end".into(),
        ..SaveTxt::default()
    };
    save_txt(&p, &a, &opts).unwrap();
    assert_eq!(std::fs::read_to_string(&p).unwrap(), numpy_csv);
    // NumPy's loadtxt keywords: shapes and values of np.loadtxt(text, delimiter=',', **kw).
    let text = "# title\n\n1, 2, 3 # c\n4,5,6\n\n7, 8,9\n";
    let nine: Vec<f64> = (1..=9).map(f64::from).collect();
    let cases: [(LoadTxt, &[usize], Vec<f64>); 11] = [
        (csv(), &[3, 3], nine.clone()),
        (
            LoadTxt {
                usecols: Some(vec![0, -1]),
                ..csv()
            },
            &[3, 2],
            vec![1.0, 3.0, 4.0, 6.0, 7.0, 9.0],
        ),
        (
            LoadTxt {
                skiprows: 2,
                ..csv()
            },
            &[3, 3],
            nine.clone(),
        ),
        (
            LoadTxt {
                max_rows: Some(2),
                ..csv()
            },
            &[2, 3],
            nine[..6].to_vec(),
        ),
        (
            LoadTxt {
                usecols: Some(vec![1]),
                ..csv()
            },
            &[3],
            vec![2.0, 5.0, 8.0],
        ),
        (
            LoadTxt {
                usecols: Some(vec![1]),
                ndmin: 2,
                ..csv()
            },
            &[3, 1],
            vec![2.0, 5.0, 8.0],
        ),
        (
            LoadTxt {
                max_rows: Some(1),
                ..csv()
            },
            &[3],
            nine[..3].to_vec(),
        ),
        (
            LoadTxt {
                max_rows: Some(1),
                ndmin: 2,
                ..csv()
            },
            &[1, 3],
            nine[..3].to_vec(),
        ),
        (
            LoadTxt {
                max_rows: Some(1),
                usecols: Some(vec![2]),
                ..csv()
            },
            &[],
            vec![3.0],
        ),
        (
            LoadTxt {
                max_rows: Some(1),
                usecols: Some(vec![2]),
                ndmin: 1,
                ..csv()
            },
            &[1],
            vec![3.0],
        ),
        (
            LoadTxt {
                max_rows: Some(1),
                usecols: Some(vec![2]),
                ndmin: 2,
                ..csv()
            },
            &[1, 1],
            vec![3.0],
        ),
    ];
    for (opts, dims, want) in cases {
        let got: Tensor<f64> = load_txt_from_str(text, &opts).unwrap();
        assert_eq!((got.dims(), got.to_vec()), (dims, want), "{opts:?}");
    }
    let ints: Tensor<i64> = load_txt_from_str(" 1 2\n3   4 \n", &LoadTxt::default()).unwrap();
    assert_eq!(ints.to_vec(), vec![1, 2, 3, 4]);
    let empty: Tensor<f64> = load_txt_from_str("", &LoadTxt::default()).unwrap();
    assert_eq!(empty.dims(), [0]);
    let empty2: Tensor<f64> = load_txt_from_str(
        "# only\n",
        &LoadTxt {
            ndmin: 2,
            ..LoadTxt::default()
        },
    )
    .unwrap();
    assert_eq!(empty2.dims(), [0, 1]);
    let specials: Tensor<f64> =
        load_txt_from_str("nan inf -inf 1E3 +2.5 .5 5.", &LoadTxt::default()).unwrap();
    let v = specials.to_vec();
    assert!(v[0].is_nan());
    assert_eq!(
        v[1..],
        [f64::INFINITY, f64::NEG_INFINITY, 1000.0, 2.5, 0.5, 5.0]
    );
}

fn round_trip<T: Element + std::fmt::Debug>(values: Vec<T>, name: &str) {
    let n = values.len();
    let x = Tensor::<T>::from_vec(values, [n / 2, 2]).unwrap();
    for file in [format!("{name}.txt"), format!("{name}.csv.gz")] {
        let p = tmp(&file);
        save_txt(&p, &x, &SaveTxt::default()).unwrap();
        let two = LoadTxt {
            ndmin: 2,
            ..LoadTxt::default()
        };
        let y: Tensor<T> = load_txt(&p, &two).unwrap();
        assert_eq!(y.dims(), x.dims(), "{file}");
        let same =
            |a: T, b: T| a.to_f64().to_bits() == b.to_f64().to_bits() || (a.is_nan() && b.is_nan());
        assert!(
            x.to_vec()
                .into_iter()
                .zip(y.to_vec())
                .all(|(a, b)| same(a, b)),
            "{file}: {:?}",
            y.to_vec()
        );
    }
}

#[test]
fn every_dtype_reads_back_what_it_wrote() {
    let floats = [
        0.1,
        -0.0,
        1e-310,
        f64::MAX,
        f64::MIN_POSITIVE,
        f64::NAN,
        f64::INFINITY,
        -1.0 / 3.0,
    ];
    round_trip(floats.to_vec(), "f64");
    round_trip(
        floats
            .iter()
            .map(|&v| v as f32)
            .chain([1e-45, 3.4e38])
            .collect(),
        "f32",
    );
    round_trip(floats.iter().map(|&v| f16::from_f64(v)).collect(), "f16");
    round_trip(floats.iter().map(|&v| bf16::from_f64(v)).collect(), "bf16");
    round_trip(vec![i64::MIN, i64::MAX, 0, -7], "i64");
    round_trip(vec![i32::MIN, i32::MAX], "i32");
    round_trip(vec![i16::MIN, i16::MAX], "i16");
    round_trip(vec![0u8, 255], "u8");
    round_trip(vec![true, false, false, true], "bool");
    let b: Tensor<bool> = load_txt_from_str("True false 2 0", &LoadTxt::default()).unwrap();
    assert_eq!(b.to_vec(), vec![true, false, true, false]);
    // 0-d and 1-d tensors, and a view: one value per line, logical order.
    on_every_device!("save_txt", |dev| {
        let p = tmp("views.txt");
        let m = Tensor::<i32, _>::from_vec_on(vec![1, 2, 3, 4, 5, 6], [2, 3], &dev).unwrap();
        save_txt(&p, &m.transpose(0, 1).unwrap(), &SaveTxt::default()).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "1 4\n2 5\n3 6\n");
        save_txt(&p, &m.select(0, 1).unwrap(), &SaveTxt::default()).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "4\n5\n6\n");
        let s = Tensor::<f32, _>::full_on([], 2.5, &dev).unwrap();
        save_txt(&p, &s, &SaveTxt::default()).unwrap();
        let back: Tensor<f32> = load_txt(&p, &LoadTxt::default()).unwrap();
        assert_eq!((back.ndim(), back.to_vec()), (0, vec![2.5]));
    });
}

#[test]
fn bad_text_is_an_err_naming_the_line() {
    let err = |r: Result<Tensor<f64>>| r.unwrap_err().to_string();
    let e = err(load_txt_from_str("1,2\n3\n", &csv()));
    assert!(
        e.contains("line 2") && e.contains("1 columns where the rows before have 2"),
        "{e}"
    );
    let e = err(load_txt_from_str("1,x\n", &csv()));
    assert!(
        e.contains("line 1") && e.contains("column 2") && e.contains("\"x\""),
        "{e}"
    );
    let e = err(load_txt_from_str(
        "1,2\n",
        &LoadTxt {
            usecols: Some(vec![2]),
            ..csv()
        },
    ));
    assert!(e.contains("usecols entry 2"), "{e}");
    assert!(load_txt_from_str::<f64>("1", &LoadTxt { ndmin: 3, ..csv() }).is_err());
    assert!(load_txt_from_str::<u8>("300", &LoadTxt::default()).is_err());
    assert!(load_txt_from_str::<u8>("-1", &LoadTxt::default()).is_err());
    assert!(load_txt_from_str::<i64>("1.5", &LoadTxt::default()).is_err());
    assert!(load_txt_from_str::<i64>("99999999999999999999", &LoadTxt::default()).is_err());
    assert!(load_txt_from_str::<bool>("yes", &LoadTxt::default()).is_err());
    let p = tmp("latin1.txt");
    std::fs::write(&p, b"1 \xe9\n").unwrap();
    assert!(err(load_txt(&p, &LoadTxt::default())).contains("UTF-8"));
    let p = tmp("not.gz");
    std::fs::write(&p, b"1 2\n").unwrap();
    assert!(load_txt::<f64>(&p, &LoadTxt::default()).is_err());
    assert!(load_txt::<f64>(tmp("missing.txt"), &LoadTxt::default()).is_err());
    let cube = Tensor::<f64>::zeros([2, 2, 2]).unwrap();
    let p = tmp("cube.txt");
    assert!(save_txt(&p, &cube, &SaveTxt::default()).is_err());
    assert!(!p.exists(), "the file is not created for a refused tensor");
}

/// `DynTensor::load_txt`/`save_txt`: the runtime dtype chosen by a value, every dtype back
/// as written, and the typed functions' errors.
#[test]
fn dyn_text_files_take_the_dtype_at_run_time() {
    let p = tmp("dyn.txt");
    let t =
        DynTensor::from(Tensor::<f32>::from_vec(vec![0.1, -2.5, f32::NAN, 7.0], [2, 2]).unwrap());
    t.save_txt(&p, &SaveTxt::default()).unwrap();
    for dtype in [
        Dtype::Float32,
        Dtype::Float64,
        Dtype::Float16,
        Dtype::Bfloat16,
    ] {
        let back = DynTensor::load_txt(&p, dtype, &LoadTxt::default()).unwrap();
        assert_eq!(
            (back.dtype(), back.shape().dims()),
            (dtype, &[2usize, 2][..])
        );
        let v = back
            .to_dtype(Dtype::Float32)
            .unwrap()
            .to_vec::<f32>()
            .unwrap();
        assert_eq!(v[1], -2.5);
        assert!(v[2].is_nan());
    }
    assert_eq!(
        DynTensor::load_txt(&p, Dtype::Float32, &LoadTxt::default())
            .unwrap()
            .to_vec::<f32>()
            .unwrap()[0],
        0.1
    );
    // Integers refuse a fraction, naming the line; bools and u8 read back.
    let e = DynTensor::load_txt(&p, Dtype::Int64, &LoadTxt::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 1") && e.contains("dyn.txt"), "{e}");
    let b = DynTensor::load_txt_from_str("1 0\n0 1\n", Dtype::Bool, &LoadTxt::default()).unwrap();
    assert_eq!(b.to_vec::<bool>().unwrap(), vec![true, false, false, true]);
    let u = DynTensor::from(Tensor::<u8>::from_vec(vec![0, 255, 7], [3]).unwrap());
    u.save_txt(&p, &SaveTxt::default()).unwrap();
    let back = DynTensor::load_txt(&p, Dtype::UInt8, &LoadTxt::default()).unwrap();
    assert_eq!(back.to_vec::<u8>().unwrap(), vec![0, 255, 7]);
    let cube = DynTensor::from(Tensor::<i32>::zeros([1, 1, 1]).unwrap());
    assert!(
        cube.save_txt(&p, &SaveTxt::default())
            .unwrap_err()
            .to_string()
            .contains("save_txt")
    );
    std::fs::remove_file(&p).ok();
}

/// NumPy 2.4's `genfromtxt` on missing fields: NaN for floats, -1 for integers, listed
/// `missing_values` with a `filling_values`, `skip_footer` before parsing; what stays an error.
#[test]
fn genfromtxt_fills_missing_fields() {
    let csv_gen = LoadTxt {
        delimiter: Some(','),
        ..LoadTxt::genfromtxt()
    };
    let t = load_txt_from_str::<f64>("1,,3\n4,5,6\n", &csv_gen).unwrap();
    let v = t.to_vec();
    assert_eq!(t.dims(), &[2, 3]);
    assert!(v[1].is_nan() && v[0] == 1.0 && v[5] == 6.0);
    let i = load_txt_from_str::<i32>("1,,3\n4,5,6\n", &csv_gen).unwrap();
    assert_eq!(i.to_vec(), vec![1, -1, 3, 4, 5, 6]);
    let b = load_txt_from_str::<bool>("1,\n", &csv_gen).unwrap();
    assert_eq!(b.to_vec(), vec![true, false]);
    let opts = LoadTxt {
        missing_values: vec!["N/A".into()],
        filling_values: Some(-9.0),
        ..csv_gen.clone()
    };
    let t = load_txt_from_str::<f32>("1,,3\n4,N/A,6\n", &opts).unwrap();
    assert_eq!(t.to_vec(), vec![1.0, -9.0, 3.0, 4.0, -9.0, 6.0]);
    let t = load_txt_from_str::<f64>("1, ,3\n", &csv_gen).unwrap();
    assert!(t.to_vec()[1].is_nan());
    let footer = LoadTxt {
        skiprows: 1,
        skip_footer: 1,
        ..LoadTxt::genfromtxt()
    };
    let t = load_txt_from_str::<f64>("a b\n1 2\n3 4\ntotal 9\n", &footer).unwrap();
    assert_eq!(
        (t.dims(), t.to_vec()),
        (&[2, 2][..], vec![1.0, 2.0, 3.0, 4.0])
    );
    // Not missing but unreadable, a fill the dtype cannot hold, loadtxt's refusal.
    let e = load_txt_from_str::<f64>("1,x,3\n", &csv_gen)
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 1") && e.contains("column 2"), "{e}");
    let bad_fill = LoadTxt {
        filling_values: Some(0.5),
        ..csv_gen.clone()
    };
    assert!(
        load_txt_from_str::<i64>("1,\n", &bad_fill)
            .unwrap_err()
            .to_string()
            .contains("filling_values")
    );
    assert!(load_txt_from_str::<f64>("1,,3\n", &csv()).is_err());
    // A footer larger than the data leaves nothing.
    let all = LoadTxt {
        skip_footer: 10,
        ..LoadTxt::genfromtxt()
    };
    assert_eq!(
        load_txt_from_str::<f64>("1 2\n", &all).unwrap().dims(),
        &[0]
    );
}
