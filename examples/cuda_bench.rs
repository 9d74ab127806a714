//! GPU benchmark of `Tensor<T, Cuda>` ops, printed one line per op so it can be set beside
//! `benches/cuda_torch.py` (PyTorch doing the same work, with the same timing) run on the same
//! machine. Each figure is the median of 7 batches; a batch queues `reps` calls and then waits
//! for the device, so launch latency overlaps as it does in real use.
//!
//! ```text
//! cargo run --release --example cuda_bench [FILTER] # on a machine with a CUDA GPU
//! python3 benches/cuda_torch.py                     # the PyTorch side
//! ```

use half::bf16;
use std::time::Instant;
use typed_tensor::prelude::*;

/// Median seconds per call of `f`, after one warm-up call (kernel compilation, memory pool).
/// Returns 0 (not run) when the first argument, if any, is not part of `name`.
fn time(name: &str, dev: &Cuda, reps: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    if std::env::args().nth(1).is_some_and(|a| !name.contains(&a)) {
        return Ok(0.0);
    }
    f()?;
    dev.synchronize()?;
    let mut samples = Vec::new();
    for _ in 0..7 {
        let t = Instant::now();
        for _ in 0..reps {
            f()?;
        }
        dev.synchronize()?;
        samples.push(t.elapsed().as_secs_f64() / reps as f64);
    }
    samples.sort_by(f64::total_cmp);
    Ok(samples[3])
}

/// One line: name, median microseconds, and GB/s for `bytes` moved (or TFLOP/s for `flops`).
fn report(name: &str, secs: f64, bytes: f64, flops: f64) {
    if secs == 0.0 {
        return;
    }
    let rate = if flops > 0.0 {
        format!("{:8.1} TFLOP/s", flops / secs / 1e12)
    } else {
        format!("{:8.1} GB/s", bytes / secs / 1e9)
    };
    println!("{name:<28} {:10.1} us {rate}", secs * 1e6);
}

fn main() -> Result<()> {
    let dev = Cuda::new(0)?;
    println!("device: {}", dev.name());
    let n = 1usize << 26;
    manual_seed(0);
    let x = Tensor::<f32>::rand([n])?.to_cuda(&dev)?;
    let y = Tensor::<f32>::rand([n])?.to_cuda(&dev)?;
    let xb = x.try_cast::<bf16>()?;
    let nf = n as f64;

    let s = time("copy f32 2^26", &dev, 20, || x.try_deep_copy().map(drop))?;
    report("copy f32 2^26", s, 8.0 * nf, 0.0);
    let s = time("add f32 2^26", &dev, 20, || x.try_add(&y).map(drop))?;
    report("add f32 2^26", s, 12.0 * nf, 0.0);
    let s = time("add bf16 2^26", &dev, 20, || xb.try_add(&xb).map(drop))?;
    report("add bf16 2^26", s, 6.0 * nf, 0.0);
    let s = time("sum f32 2^26", &dev, 20, || x.try_sum(&[], false).map(drop))?;
    report("sum f32 2^26", s, 4.0 * nf, 0.0);
    let s = time("sin f32 2^26", &dev, 20, || x.try_sin().map(drop))?;
    report("sin f32 2^26", s, 8.0 * nf, 0.0);
    let s = time("sin bf16 2^26", &dev, 20, || xb.try_sin().map(drop))?;
    report("sin bf16 2^26", s, 4.0 * nf, 0.0);

    // The timed kernels computed what the CPU computes (every element, so no work was skipped).
    let (cx, cy) = (x.try_to_cpu()?, y.try_to_cpu()?);
    let max_diff = |g: Vec<f32>, c: Vec<f32>| {
        g.iter()
            .zip(&c)
            .map(|(a, b)| (a - b).abs())
            .fold(0f32, f32::max)
    };
    let add = max_diff(x.try_add(&y)?.try_to_vec()?, cx.try_add(&cy)?.to_vec());
    let sin = max_diff(x.try_sin()?.try_to_vec()?, cx.sin().to_vec());
    let sum = (x.try_sum(&[], false)?.try_item()? - cx.sum(&[], false).item()).abs();
    println!("check: max |gpu - cpu| add {add:e}, sin {sin:e}; sum differs by {sum:e}");

    let s = time("rand f32 2^26", &dev, 20, || {
        Tensor::<f32, Cuda>::rand_on([n], &dev).map(drop)
    })?;
    report("rand f32 2^26", s, 4.0 * nf, 0.0);

    let m = x.view([8192, 8192])?;
    let s = time("sum f32 8192x8192 axis 1", &dev, 20, || {
        m.try_sum(&[1], false).map(drop)
    })?;
    report("sum f32 8192x8192 axis 1", s, 4.0 * nf, 0.0);
    let s = time("sum f32 8192x8192 axis 0", &dev, 20, || {
        m.try_sum(&[0], false).map(drop)
    })?;
    report("sum f32 8192x8192 axis 0", s, 4.0 * nf, 0.0);
    let s = time("transpose copy f32 8192^2", &dev, 20, || {
        m.t().try_contiguous().map(drop)
    })?;
    report("transpose copy f32 8192^2", s, 8.0 * nf, 0.0);

    // Scatter-add of 2^24 values into 2^16 bins (atomics collide ~256 times a bin), and a
    // stable argsort of 4096 lines of 1024 (one block a line). Same indices in cuda_torch.py.
    let bins = 1usize << 16;
    let m24 = 1usize << 24;
    let idx: Vec<i64> = (0..m24 as i64).map(|i| i * 40503 % bins as i64).collect();
    let idx = Tensor::from_vec(idx, [m24])?.to_cuda(&dev)?;
    let src = x.narrow(0, 0, m24)?;
    let zeros = Tensor::<f32, Cuda>::zeros_on([bins], &dev)?;
    let s = time("scatter_add f32 2^24", &dev, 20, || {
        zeros.try_scatter_add(0, &idx, &src).map(drop)
    })?;
    report("scatter_add f32 2^24", s, 16.0 * m24 as f64, 0.0);
    let lines = x.view([1 << 16, 1024])?.narrow(0, 0, 4096)?;
    let s = time("argsort f32 4096x1024", &dev, 20, || {
        lines.try_argsort(1, false).map(drop)
    })?;
    report("argsort f32 4096x1024", s, 12.0 * 4096.0 * 1024.0, 0.0);

    let flops = 2.0 * 8192f64.powi(3);
    let a = Tensor::<f32>::randn([8192, 8192])?.to_cuda(&dev)?;
    let b = Tensor::<f32>::randn([8192, 8192])?.to_cuda(&dev)?;
    let s = time("matmul f32 8192^3", &dev, 3, || a.try_matmul(&b).map(drop))?;
    report("matmul f32 8192^3", s, 0.0, flops);
    let (ab, bb) = (a.try_cast::<bf16>()?, b.try_cast::<bf16>()?);
    let s = time("matmul bf16 8192^3", &dev, 10, || {
        ab.try_matmul(&bb).map(drop)
    })?;
    report("matmul bf16 8192^3", s, 0.0, flops);
    real_use(&dev)
}

/// Rows that reflect real use (issue 27): a softmax and a layer norm over the last axis, a
/// batched bf16 product, and an MLP training step; the same work as `cuda_torch.py`.
fn real_use(dev: &Cuda) -> Result<()> {
    let rows = Tensor::<f32>::randn([8192, 4096])?.to_cuda(dev)?;
    let bytes = 8.0 * 8192.0 * 4096.0;
    let s = time("softmax f32 8192x4096", dev, 20, || {
        rows.try_softmax(-1).map(drop)
    })?;
    report("softmax f32 8192x4096", s, bytes, 0.0);
    let gamma = Tensor::<f32>::randn([4096])?.to_cuda(dev)?;
    let beta = Tensor::<f32>::randn([4096])?.to_cuda(dev)?;
    let s = time("layer_norm f32 8192x4096", dev, 20, || {
        rows.try_layer_norm(&[4096], Some(&gamma), Some(&beta), 1e-5)
            .map(drop)
    })?;
    report("layer_norm f32 8192x4096", s, bytes, 0.0);

    let p = Tensor::<f32>::randn([64, 512, 512])?
        .try_cast::<bf16>()?
        .to_cuda(dev)?;
    let q = Tensor::<f32>::randn([64, 512, 512])?
        .try_cast::<bf16>()?
        .to_cuda(dev)?;
    let s = time("bmm bf16 64x512^3", dev, 20, || p.try_matmul(&q).map(drop))?;
    report("bmm bf16 64x512^3", s, 0.0, 2.0 * 64.0 * 512f64.powi(3));

    // 1024 -> 4096 -> 4096 -> 10 with ReLU, cross-entropy and AdamW (lr 1e-3, weight decay
    // 0.01, PyTorch's defaults), a batch of 2048, f32.
    use typed_tensor::nn::Reduction;
    use typed_tensor::optim::{Adam, Optimizer};
    let (batch, dims) = (2048, [1024, 4096, 4096, 10]);
    manual_seed(0);
    let mut params = Vec::new();
    for w in dims.windows(2) {
        let scale = 1.0 / (w[0] as f32).sqrt();
        let weight = Tensor::<f32>::randn([w[1], w[0]])?.try_mul_scalar(scale)?;
        params.push(weight.to_cuda(dev)?.with_requires_grad(true)?);
        params.push(Tensor::<f32, Cuda>::zeros_on([w[1]], dev)?.with_requires_grad(true)?);
    }
    let x = Tensor::<f32>::randn([batch, dims[0]])?.to_cuda(dev)?;
    let y = Tensor::<i64>::from_vec((0..batch as i64).map(|i| i * 7 % 10).collect(), [batch])?
        .to_cuda(dev)?;
    let mut opt = Adam::adamw(params.clone(), 1e-3);
    let s = time("mlp step f32 2048x1024..10", dev, 10, || {
        let mut h = x.clone();
        for (k, pair) in params.chunks(2).enumerate() {
            h = h.try_linear(&pair[0], Some(&pair[1]))?;
            if k + 1 < params.len() / 2 {
                h = h.try_relu()?;
            }
        }
        let loss = h.try_cross_entropy(&y, Reduction::Mean, 0.0)?;
        opt.zero_grad()?;
        loss.try_backward()?;
        opt.step()
    })?;
    let macs: f64 = dims.windows(2).map(|w| (w[0] * w[1]) as f64).sum();
    report(
        "mlp step f32 2048x1024..10",
        s,
        0.0,
        6.0 * batch as f64 * macs,
    );
    Ok(())
}
