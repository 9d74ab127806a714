//! Loading a 1 GiB f32 safetensors file from the page cache: `io::load_safetensors` against
//! reading the same file into a `Vec` with `std::fs::read` (the copy any loader must make) in
//! the same run; `benches/io_numpy.py` times Python's safetensors + NumPy on the same file.
//! `cargo bench -p typed-tensor-benches --bench io`; results go in BENCHMARKS.md.

use criterion::{Criterion, criterion_group, criterion_main};
use std::path::PathBuf;
use std::time::Duration;
use typed_tensor::io::{load_safetensors, load_safetensors_mmap, save_safetensors};
use typed_tensor::prelude::*;

/// 2^28 f32 elements (1 GiB) in one tensor, written once to `target/io-bench.safetensors`.
fn file() -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/io-bench.safetensors");
    let want = 8 + (1u64 << 30);
    if std::fs::metadata(&path)
        .map(|m| m.len() < want)
        .unwrap_or(true)
    {
        let t = Tensor::<f32>::arange(0.0, (1u64 << 28) as f32, 1.0).unwrap();
        save_safetensors(&path, [("weight", &t)], None).unwrap();
    }
    path
}

fn bench(c: &mut Criterion) {
    let path = file();
    let mut g = c.benchmark_group("io");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    g.bench_function("load_safetensors 1 GiB f32", |b| {
        b.iter(|| load_safetensors(&path).unwrap())
    });
    // SAFETY: the benchmark's file is not changed while the tensors live.
    let mmap = || unsafe { load_safetensors_mmap(&path) }.unwrap();
    g.bench_function("load_safetensors_mmap 1 GiB f32 (lazy)", |b| b.iter(mmap));
    let sum = |m: std::collections::BTreeMap<String, DynTensor>| {
        let w = m["weight"].clone().downcast::<f32, Cpu>().unwrap();
        w.try_sum(&[], false).unwrap().item()
    };
    g.bench_function("load_safetensors, then sum", |b| {
        b.iter(|| sum(load_safetensors(&path).unwrap()))
    });
    g.bench_function("load_safetensors_mmap, then sum", |b| {
        b.iter(|| sum(mmap()))
    });
    g.bench_function("std::fs::read 1 GiB", |b| {
        b.iter(|| std::fs::read(&path).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
