//! Side-by-side benchmarks: typed-tensor against ndarray (rayon feature), candle-core (CPU)
//! and the gemm crate, on the same data in the same run. `cargo bench --bench ops`; results
//! go in BENCHMARKS.md.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use half::{bf16, f16};
use ndarray::{Array1, Array2, Axis, Zip};
use std::hint::black_box;
use std::time::Duration;
use typed_tensor::prelude::*;

const N: usize = 1 << 24;

/// The same data as a candle-core CPU tensor.
fn candle(t: &Tensor<f32>) -> candle_core::Tensor {
    candle_core::Tensor::from_vec(t.to_vec(), t.dims(), &candle_core::Device::Cpu).unwrap()
}

fn elementwise(c: &mut Criterion) {
    manual_seed(0);
    let a = Tensor::<f32>::rand([N]).unwrap();
    let b = Tensor::<f32>::rand([N]).unwrap();
    let na = Array1::from_vec(a.to_vec());
    let nb = Array1::from_vec(b.to_vec());
    let mut g = c.benchmark_group("elementwise");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    g.bench_function("add_new/typed-tensor", |x| x.iter(|| black_box(&a + &b)));
    g.bench_function("add_new/ndarray", |x| x.iter(|| black_box(&na + &nb)));
    g.bench_function("add_new/ndarray-par", |x| {
        x.iter(|| black_box(Zip::from(&na).and(&nb).par_map_collect(|&p, &q| p + q)))
    });
    let (ca, cb) = (candle(&a), candle(&b));
    g.bench_function("add_new/candle", |x| {
        x.iter(|| black_box((&ca + &cb).unwrap()))
    });
    let mut out = Tensor::<f32>::zeros([N]).unwrap();
    g.bench_function("add_into/typed-tensor", |x| {
        x.iter(|| a.add_into(&b, &mut out).unwrap())
    });
    let mut nout = Array1::<f32>::zeros(N);
    g.bench_function("add_into/ndarray-par", |x| {
        x.iter(|| {
            Zip::from(&mut nout)
                .and(&na)
                .and(&nb)
                .par_for_each(|o, &p, &q| *o = p + q)
        })
    });
    let (sa, sb) = (a.to_vec(), b.to_vec());
    let mut sout = vec![0f32; N];
    g.bench_function("add_into/slice-loop", |x| {
        x.iter(|| {
            for ((o, p), q) in sout.iter_mut().zip(&sa).zip(&sb) {
                *o = p + q;
            }
            black_box(&sout);
        })
    });
    // Small tensors: below `PAR_THRESHOLD` (32 Ki elements) the op stays on one thread, so
    // it should cost what a plain loop costs plus a fixed overhead (checks, locks).
    for n in [1usize << 10, 1 << 15, 1 << 16, 1 << 17, 1 << 18] {
        let (a, b) = (a.narrow(0, 0, n).unwrap(), b.narrow(0, 0, n).unwrap());
        let mut out = Tensor::<f32>::zeros([n]).unwrap();
        g.bench_with_input(
            BenchmarkId::new("add_into_small/typed-tensor", n),
            &n,
            |x, _| x.iter(|| a.add_into(&b, &mut out).unwrap()),
        );
        let mut o = vec![0f32; n];
        g.bench_with_input(
            BenchmarkId::new("add_into_small/slice-loop", n),
            &n,
            |x, _| {
                x.iter(|| {
                    for ((o, p), q) in o.iter_mut().zip(&sa[..n]).zip(&sb[..n]) {
                        *o = p + q;
                    }
                    black_box(&o);
                })
            },
        );
    }
    let m = a.reshape([4096, 4096]);
    let row = b.narrow(0, 0, 4096).unwrap().reshape([1, 4096]);
    let nm = na.clone().into_shape_with_order((4096, 4096)).unwrap();
    let nrow = nb
        .slice(ndarray::s![..4096])
        .to_owned()
        .into_shape_with_order((1, 4096))
        .unwrap();
    g.bench_function("broadcast_add/typed-tensor", |x| {
        x.iter(|| black_box(&m + &row))
    });
    g.bench_function("broadcast_add/ndarray", |x| {
        x.iter(|| black_box(&nm + &nrow))
    });
    let (cm, crow) = (candle(&m), candle(&row));
    g.bench_function("broadcast_add/candle", |x| {
        x.iter(|| black_box(cm.broadcast_add(&crow).unwrap()))
    });
    let mt = m.t();
    g.bench_function("transposed_add/typed-tensor", |x| {
        x.iter(|| black_box(&mt + &m))
    });
    g.bench_function("transposed_add/ndarray", |x| {
        x.iter(|| black_box(&nm.t() + &nm))
    });
    g.bench_function("sin/typed-tensor", |x| x.iter(|| black_box(a.sin())));
    g.bench_function("sin/ndarray-par", |x| {
        x.iter(|| black_box(Zip::from(&na).par_map_collect(|&p| p.sin())))
    });
    g.bench_function("sin/candle", |x| x.iter(|| black_box(ca.sin().unwrap())));
    g.bench_function("exp/typed-tensor", |x| x.iter(|| black_box(a.exp())));
    g.bench_function("exp/candle", |x| x.iter(|| black_box(ca.exp().unwrap())));
    g.bench_function("exp/ndarray-par", |x| {
        x.iter(|| black_box(Zip::from(&na).par_map_collect(|&p| p.exp())))
    });
    g.bench_function("log/typed-tensor", |x| x.iter(|| black_box(a.log())));
    g.bench_function("log/ndarray-par", |x| {
        x.iter(|| black_box(Zip::from(&na).par_map_collect(|&p| p.ln())))
    });
    let mut sout = Tensor::<f32>::zeros([N]).unwrap();
    g.bench_function("sin_into/typed-tensor", |x| {
        x.iter(|| a.sin_into(&mut sout).unwrap())
    });
    // The other vectorised kernels (issue 26), on inputs in (-1, 1) (`a - 0.5` doubled).
    let s = (&a - 0.5) * 2.0;
    type F = fn(&Tensor<f32>) -> Tensor<f32>;
    for (name, f) in [
        ("tanh", Tensor::tanh as F),
        ("sigmoid", Tensor::sigmoid),
        ("expm1", Tensor::expm1),
        ("log1p", Tensor::log1p),
        ("exp2", Tensor::exp2),
        ("log2", Tensor::log2),
    ] {
        // log2 on the positive `a`: negative inputs are NaN, left to libm.
        let input = if name == "log2" { &a } else { &s };
        g.bench_function(format!("{name}/typed-tensor"), |x| {
            x.iter(|| black_box(f(input)))
        });
    }
    g.bench_function("tanh/ndarray-par", |x| {
        x.iter(|| black_box(Zip::from(&na).par_map_collect(|&p| p.tanh())))
    });
    let ha = a.cast::<f16>();
    let hb = b.cast::<f16>();
    g.bench_function("add_new_f16/typed-tensor", |x| {
        x.iter(|| black_box(&ha + &hb))
    });
    let nha = Array1::from_vec(ha.to_vec());
    let nhb = Array1::from_vec(hb.to_vec());
    g.bench_function("add_new_f16/ndarray", |x| x.iter(|| black_box(&nha + &nhb)));
    let ba = a.cast::<bf16>();
    let bb = b.cast::<bf16>();
    g.bench_function("add_new_bf16/typed-tensor", |x| {
        x.iter(|| black_box(&ba + &bb))
    });
    // Casts (one chunked driver per dtype pair), contiguous and transposed.
    g.bench_function("cast_f32_f16/typed-tensor", |x| {
        x.iter(|| black_box(a.cast::<f16>()))
    });
    g.bench_function("cast_f32_f64/typed-tensor", |x| {
        x.iter(|| black_box(a.cast::<f64>()))
    });
    let ia = a.cast::<i32>();
    g.bench_function("cast_i32_f32/typed-tensor", |x| {
        x.iter(|| black_box(ia.cast::<f32>()))
    });
    g.bench_function("cast_f32_f64/ndarray", |x| {
        x.iter(|| black_box(na.mapv(|p| p as f64)))
    });
    let at = a.reshape([4096, 4096]).t();
    g.bench_function("cast_f32_f64_transposed/typed-tensor", |x| {
        x.iter(|| black_box(at.cast::<f64>()))
    });
    g.finish();
}

fn reductions(c: &mut Criterion) {
    manual_seed(1);
    let a = Tensor::<f32>::rand([N]).unwrap();
    let na = Array1::from_vec(a.to_vec());
    let m = a.reshape([4096, 4096]);
    let nm = na.clone().into_shape_with_order((4096, 4096)).unwrap();
    let mut g = c.benchmark_group("reduce");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    g.bench_function("sum_all/typed-tensor", |x| {
        x.iter(|| black_box(a.sum(&[], false)))
    });
    g.bench_function("sum_all/ndarray", |x| x.iter(|| black_box(na.sum())));
    let ca = candle(&a);
    g.bench_function("sum_all/candle", |x| {
        x.iter(|| black_box(ca.sum_all().unwrap()))
    });
    g.bench_function("sum_axis0/typed-tensor", |x| {
        x.iter(|| black_box(m.sum(&[0], false)))
    });
    g.bench_function("sum_axis0/ndarray", |x| {
        x.iter(|| black_box(nm.sum_axis(Axis(0))))
    });
    g.bench_function("sum_axis1/typed-tensor", |x| {
        x.iter(|| black_box(m.sum(&[1], false)))
    });
    g.bench_function("sum_axis1/ndarray", |x| {
        x.iter(|| black_box(nm.sum_axis(Axis(1))))
    });
    let lm = a.narrow(0, 0, 4096 * 1024).unwrap().reshape([4096, 1024]);
    let nlm = Array2::from_shape_vec((4096, 1024), lm.to_vec()).unwrap();
    g.bench_function("logsumexp_axis1_4096x1024/typed-tensor", |x| {
        x.iter(|| black_box(lm.logsumexp(&[1], false)))
    });
    // ndarray has no logsumexp: the fused loop a user would write, rows in parallel.
    g.bench_function("logsumexp_axis1_4096x1024/ndarray", |x| {
        x.iter(|| {
            black_box(Zip::from(nlm.rows()).par_map_collect(|r| {
                let m = r.fold(f32::NEG_INFINITY, |m, &v| m.max(v));
                r.fold(0f32, |s, &v| s + (v - m).exp()).ln() + m
            }))
        })
    });
    g.bench_function("softmax_axis1_4096x1024/typed-tensor", |x| {
        x.iter(|| black_box(lm.softmax(1)))
    });
    let clm = candle(&lm);
    g.bench_function("logsumexp_axis1_4096x1024/candle", |x| {
        x.iter(|| black_box(clm.log_sum_exp(1).unwrap()))
    });
    g.bench_function("argmax_axis1/typed-tensor", |x| {
        x.iter(|| black_box(m.argmax(&[1], false)))
    });
    g.bench_function("argmax_axis1/ndarray", |x| {
        x.iter(|| {
            black_box(nm.map_axis(Axis(1), |r| {
                r.iter()
                    .enumerate()
                    .fold((0, f32::MIN), |b, (i, &v)| if v > b.1 { (i, v) } else { b })
                    .0
            }))
        })
    });
    g.finish();
}

/// Gathers, scatters and sorts (f32 (1024, 1024) unless stated; `benches/numpy_ops.py` and
/// PyTorch rows in BENCHMARKS.md).
fn indexing(c: &mut Criterion) {
    let x = Tensor::<f32>::randn([1024, 1024]).unwrap();
    let idx: Vec<i64> = (0..1024 * 256).map(|i| (i * 7919 % 1024) as i64).collect();
    let index = Tensor::<i64>::from_vec(idx.clone(), [1024, 256]).unwrap();
    let src = Tensor::<f32>::randn([1024, 256]).unwrap();
    let rows = Tensor::<i64>::from_vec((0..512).map(|i| i * 37 % 1024).collect(), [512]).unwrap();
    let small = Tensor::<f32>::randn([1437, 64]).unwrap();
    let batch = Tensor::<i64>::from_vec((0..64).map(|i| i * 37 % 1437).collect(), [64]).unwrap();
    let wide = Tensor::<f32>::randn([4096, 1024]).unwrap();
    let long = Tensor::<f32>::randn([1 << 20]).unwrap();
    let (cx, cwide) = (candle(&x), candle(&wide));
    let dev = candle_core::Device::Cpu;
    let cindex = candle_core::Tensor::from_vec(
        idx.iter().map(|&i| i as u32).collect::<Vec<_>>(),
        (1024, 256),
        &dev,
    )
    .unwrap();
    let crows = candle_core::Tensor::from_vec(
        (0..512u32).map(|i| i * 37 % 1024).collect::<Vec<_>>(),
        512,
        &dev,
    )
    .unwrap();
    let nx = Array2::from_shape_vec((1024, 1024), x.to_vec()).unwrap();
    let nrows: Vec<usize> = (0..512).map(|i| i * 37 % 1024).collect();
    let mut g = c.benchmark_group("indexing");
    g.measurement_time(Duration::from_secs(2));
    g.bench_function("gather_axis1/typed-tensor", |b| {
        b.iter(|| black_box(x.gather(1, &index)))
    });
    g.bench_function("gather_axis1/candle", |b| {
        b.iter(|| black_box(cx.gather(&cindex, 1).unwrap()))
    });
    g.bench_function("gather_axis0/typed-tensor", |b| {
        b.iter(|| black_box(x.gather(0, &index)))
    });
    g.bench_function("scatter_add_axis1/typed-tensor", |b| {
        b.iter(|| black_box(x.scatter_add(1, &index, &src)))
    });
    g.bench_function("index_select_512_rows/typed-tensor", |b| {
        b.iter(|| black_box(x.index_select(0, &rows)))
    });
    g.bench_function("index_select_512_rows/ndarray", |b| {
        b.iter(|| black_box(nx.select(Axis(0), &nrows)))
    });
    g.bench_function("index_select_512_rows/candle", |b| {
        b.iter(|| black_box(cx.index_select(&crows, 0).unwrap()))
    });
    g.bench_function("index_select_512_cols/typed-tensor", |b| {
        b.iter(|| black_box(x.index_select(1, &rows)))
    });
    g.bench_function("index_select_512_cols/ndarray", |b| {
        b.iter(|| black_box(nx.select(Axis(1), &nrows)))
    });
    g.bench_function("index_select_64_of_1437x64/typed-tensor", |b| {
        b.iter(|| black_box(small.index_select(0, &batch)))
    });
    g.bench_function("argsort_axis1_4096x1024/typed-tensor", |b| {
        b.iter(|| black_box(wide.argsort(1, false)))
    });
    g.bench_function("argsort_axis1_4096x1024/candle", |b| {
        b.iter(|| black_box(cwide.arg_sort_last_dim(true).unwrap()))
    });
    g.bench_function("argsort_axis0_4096x1024/typed-tensor", |b| {
        b.iter(|| black_box(wide.argsort(0, false)))
    });
    g.bench_function("sort_2^20/typed-tensor", |b| {
        b.iter(|| black_box(long.sort(0, false)))
    });
    g.bench_function("topk10_axis1_4096x1024/typed-tensor", |b| {
        b.iter(|| black_box(wide.topk(10, 1)))
    });
    g.finish();
}

fn gemm_direct(a: &[f32], b: &[f32], c: &mut [f32], n: usize) {
    unsafe {
        gemm::gemm(
            n,
            n,
            n,
            c.as_mut_ptr(),
            1,
            n as isize,
            false,
            a.as_ptr(),
            1,
            n as isize,
            b.as_ptr(),
            1,
            n as isize,
            0.0,
            1.0,
            false,
            false,
            false,
            gemm::Parallelism::Rayon(rayon::current_num_threads()),
        )
    }
}

fn matmul(c: &mut Criterion) {
    manual_seed(2);
    let mut g = c.benchmark_group("matmul");
    g.sample_size(10).measurement_time(Duration::from_secs(4));
    for n in [1024usize, 2048] {
        let a = Tensor::<f32>::randn([n, n]).unwrap();
        let b = Tensor::<f32>::randn([n, n]).unwrap();
        g.bench_with_input(BenchmarkId::new("f32/typed-tensor", n), &n, |x, _| {
            x.iter(|| black_box(a.matmul(&b)))
        });
        let mut out = Tensor::<f32>::zeros([n, n]).unwrap();
        g.bench_with_input(BenchmarkId::new("f32-into/typed-tensor", n), &n, |x, _| {
            x.iter(|| a.matmul_into(&b, &mut out).unwrap())
        });
        let (av, bv) = (a.to_vec(), b.to_vec());
        let mut cv = vec![0f32; n * n];
        g.bench_with_input(BenchmarkId::new("f32/gemm", n), &n, |x, _| {
            x.iter(|| gemm_direct(&av, &bv, &mut cv, n))
        });
        let na = Array2::from_shape_vec((n, n), av.clone()).unwrap();
        let nb = Array2::from_shape_vec((n, n), bv.clone()).unwrap();
        g.bench_with_input(BenchmarkId::new("f32/ndarray", n), &n, |x, _| {
            x.iter(|| black_box(na.dot(&nb)))
        });
        let (ca, cb) = (candle(&a), candle(&b));
        g.bench_with_input(BenchmarkId::new("f32/candle", n), &n, |x, _| {
            x.iter(|| black_box(ca.matmul(&cb).unwrap()))
        });
    }
    let a = Tensor::<f64>::randn([1024, 1024]).unwrap();
    g.bench_function("f64/typed-tensor/1024", |x| {
        x.iter(|| black_box(a.matmul(&a)))
    });
    let h = Tensor::<f32>::randn([1024, 1024]).unwrap().cast::<f16>();
    g.bench_function("f16/typed-tensor/1024", |x| {
        x.iter(|| black_box(h.matmul(&h)))
    });
    let bh = h.cast::<bf16>();
    g.bench_function("bf16/typed-tensor/1024", |x| {
        x.iter(|| black_box(bh.matmul(&bh)))
    });
    let ba = Tensor::<f32>::randn([64, 128, 128]).unwrap();
    g.bench_function("batched_64x128/typed-tensor", |x| {
        x.iter(|| black_box(ba.matmul(&ba)))
    });
    let big = Tensor::<f32>::randn([4096, 4096]).unwrap();
    g.bench_function("transpose_contiguous_4096/typed-tensor", |x| {
        x.iter(|| black_box(big.t().contiguous()))
    });
    // The memory floor in the same run: a contiguous copy into a fresh tensor.
    g.bench_function("copy_contiguous_4096/typed-tensor", |x| {
        x.iter(|| black_box(big.deep_copy()))
    });
    let nbig = Array2::from_shape_vec((4096, 4096), big.to_vec()).unwrap();
    g.bench_function("transpose_contiguous_4096/ndarray", |x| {
        x.iter(|| black_box(nbig.t().as_standard_layout().into_owned()))
    });
    let cbig = candle(&big);
    g.bench_function("transpose_contiguous_4096/candle", |x| {
        x.iter(|| black_box(cbig.t().unwrap().contiguous().unwrap()))
    });
    g.finish();
}

/// Per-call overhead on tiny tensors (issue 26): 16-element adds and a 1,000-element sum,
/// where checks, locks and allocation dominate the arithmetic.
fn small(c: &mut Criterion) {
    let mut g = c.benchmark_group("small");
    g.sample_size(20).measurement_time(Duration::from_secs(2));
    let a = Tensor::<f32>::arange(0.0, 16.0, 1.0).unwrap();
    let b = Tensor::<f32>::arange(1.0, 17.0, 1.0).unwrap();
    let mut out = Tensor::<f32>::zeros([16]).unwrap();
    let (na, nb) = (Array1::from_vec(a.to_vec()), Array1::from_vec(b.to_vec()));
    let mut nout = Array1::<f32>::zeros(16);
    g.bench_function("add16_into/typed-tensor", |x| {
        x.iter(|| a.add_into(black_box(&b), &mut out).unwrap())
    });
    g.bench_function("add16_into/ndarray", |x| {
        x.iter(|| {
            Zip::from(&mut nout)
                .and(&na)
                .and(black_box(&nb))
                .for_each(|o, &p, &q| *o = p + q)
        })
    });
    g.bench_function("add16_new/typed-tensor", |x| {
        x.iter(|| black_box(&a + black_box(&b)))
    });
    g.bench_function("add16_new/ndarray", |x| {
        x.iter(|| black_box(&na + black_box(&nb)))
    });
    let (ca, cb) = (candle(&a), candle(&b));
    g.bench_function("add16_new/candle", |x| {
        x.iter(|| black_box((&ca + black_box(&cb)).unwrap()))
    });
    let s = Tensor::<f32>::arange(0.0, 1000.0, 1.0).unwrap();
    let ns = Array1::from_vec(s.to_vec());
    g.bench_function("sum1000/typed-tensor", |x| {
        x.iter(|| black_box(black_box(&s).sum(&[], false)))
    });
    g.bench_function("sum1000/ndarray", |x| {
        x.iter(|| black_box(black_box(&ns).sum()))
    });
    let cs = candle(&s);
    g.bench_function("sum1000/candle", |x| {
        x.iter(|| black_box(black_box(&cs).sum_all().unwrap()))
    });
    g.finish();
}

/// Factorizations through faer (the `linalg` feature), f64, on well-conditioned matrices
/// (`a·aᵀ/n + I`): `benches/numpy_ops.py` times NumPy's LAPACK on the same sizes.
fn linalg(c: &mut Criterion) {
    manual_seed(0);
    let mut g = c.benchmark_group("linalg");
    g.sample_size(10).measurement_time(Duration::from_secs(2));
    for n in [64usize, 256] {
        let a = Tensor::<f64>::randn([n, n]).unwrap();
        let spd = a
            .matmul(&a.t())
            .div_scalar(n as f64)
            .add(&Tensor::eye(n).unwrap());
        let b = Tensor::<f64>::randn([n, 8]).unwrap();
        g.bench_function(BenchmarkId::new("inverse/typed-tensor", n), |x| {
            x.iter(|| black_box(spd.inverse()))
        });
        g.bench_function(BenchmarkId::new("solve/typed-tensor", n), |x| {
            x.iter(|| black_box(spd.solve(&b)))
        });
        g.bench_function(BenchmarkId::new("svd/typed-tensor", n), |x| {
            x.iter(|| black_box(a.svd()))
        });
        g.bench_function(BenchmarkId::new("eigh/typed-tensor", n), |x| {
            x.iter(|| black_box(spd.eigh()))
        });
    }
}

/// The FFTs (`typed_tensor::fft`) beside NumPy's pocketfft (`benches/numpy_ops.py`, the
/// same shapes): f32 signals, transforms along the last axis.
fn fft(c: &mut Criterion) {
    use typed_tensor::fft::{self as tfft, ComplexTensor, Norm, Stft};
    manual_seed(0);
    let mut g = c.benchmark_group("fft");
    g.sample_size(10).measurement_time(Duration::from_secs(2));
    let x = Tensor::<f32>::randn([256, 4096]).unwrap();
    g.bench_function("rfft_256x4096/typed-tensor", |b| {
        b.iter(|| black_box(tfft::rfft(&x, None, -1, Norm::Backward).unwrap()))
    });
    let spec = tfft::rfft(&x, None, -1, Norm::Backward).unwrap();
    g.bench_function("irfft_256x4096/typed-tensor", |b| {
        b.iter(|| black_box(tfft::irfft(&spec, Some(4096), -1, Norm::Backward).unwrap()))
    });
    let z = ComplexTensor::new(&x, &x.flip(&[0]).unwrap()).unwrap();
    g.bench_function("fft_256x4096_complex/typed-tensor", |b| {
        b.iter(|| black_box(tfft::fft(&z, None, -1, Norm::Backward).unwrap()))
    });
    let signal = Tensor::<f32>::randn([1 << 20]).unwrap();
    let window = Tensor::<f32>::hann_window(512, true).unwrap();
    let opts = Stft {
        hop_length: Some(128),
        ..Stft::default()
    };
    g.bench_function("stft_2^20_nfft512_hop128/typed-tensor", |b| {
        b.iter(|| black_box(tfft::stft(&signal, 512, Some(&window), &opts).unwrap()))
    });
    g.finish();
}

criterion_group!(
    benches,
    small,
    elementwise,
    reductions,
    indexing,
    matmul,
    linalg,
    fft
);
criterion_main!(benches);
