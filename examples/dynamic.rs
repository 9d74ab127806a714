//! The seed's runtime-dtype walkthrough ("Creating a Tensor", then "Operations") through
//! `DynTensor`, with the dtype and device chosen on the command line.
//!
//! ```text
//! cargo run --release --example dynamic -- --dtype bf16 --device cpu
//! ```

use typed_tensor::prelude::*;

fn parse_dtype(s: &str) -> Option<Dtype> {
    Some(match s {
        "f32" | "float32" => Dtype::Float32,
        "f64" | "float64" => Dtype::Float64,
        "f16" | "float16" => Dtype::Float16,
        "bf16" | "bfloat16" => Dtype::Bfloat16,
        "i16" | "int16" => Dtype::Int16,
        "i32" | "int32" => Dtype::Int32,
        "i64" | "int64" => Dtype::Int64,
        _ => return None,
    })
}

fn parse_device(s: &str) -> Option<DeviceIndex> {
    if s == "cpu" {
        return Some(DeviceIndex::cpu());
    }
    s.strip_prefix("cuda:")
        .and_then(|n| n.parse().ok())
        .map(DeviceIndex::cuda)
}

fn main() {
    let (mut dtype, mut device) = (Dtype::Float32, DeviceIndex::cpu());
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let v = args.next().unwrap_or_default();
        match a.as_str() {
            "--dtype" => dtype = parse_dtype(&v).unwrap_or_else(|| usage()),
            "--device" => device = parse_device(&v).unwrap_or_else(|| usage()),
            _ => usage(),
        }
    }
    if let Err(e) = run(dtype, device) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn usage() -> ! {
    eprintln!("usage: dynamic [--dtype f32|f64|f16|bf16|i16|i32|i64] [--device cpu|cuda:N]");
    std::process::exit(2)
}

fn run(dtype: Dtype, device: DeviceIndex) -> Result<()> {
    println!("== Creating a Tensor (dtype {dtype}, device {device}) ==");
    // Method 1: shape, dtype, device, requires_grad.
    let t = DynTensor::new([4, 4], dtype, device, true)?;
    println!(
        "new([4, 4], {dtype}, {device}, true): numel {}, nbytes {}, grad_nbytes {}, strides {:?}",
        t.numel(),
        t.nbytes(),
        t.grad_nbytes(),
        t.stride()
    );
    // Method 2: TensorOptions.
    let opts = TensorOptions::new().dtype(dtype).device(device);
    let a = DynTensor::with_options([128, 128], opts)?;
    let b = DynTensor::with_options([64, 32, 8], opts)?;
    println!(
        "with_options: shapes {} and {}, allocated {} and {} bytes",
        a.shape(),
        b.shape(),
        a.allocated_bytes(),
        b.allocated_bytes()
    );
    // Factories and data access.
    let f = DynTensor::full([2, 3], opts, 42.0)?;
    println!("full([2, 3], 42):\n{f}");
    let mut m = DynTensor::with_options([2, 3], opts)?;
    m.fill_(1.5)?;
    println!("fill_(1.5) then display(2):\n{}", m.display(2));
    if dtype.is_float() {
        manual_seed(0);
        println!("rand([2, 3]):\n{:.3}", DynTensor::rand([2, 3], opts)?);
    } else {
        println!(
            "rand([2, 3]) on {dtype}: {}",
            DynTensor::rand([2, 3], opts).unwrap_err()
        );
    }

    println!("\n== Operations ==");
    let x = DynTensor::from_vec(
        vec![0.5f32, 1.0, 1.5, 2.0, 2.5, 3.0],
        [2, 3],
        DeviceIndex::cpu(),
    )?
    .to_dtype(dtype)?
    .to(device)?;
    println!("x:\n{x}");
    println!("sin(x) -> {}:\n{}", sin(&x)?.dtype(), sin(&x)?);
    let mut y = x.deep_copy()?;
    match cos_(&mut y) {
        Ok(()) => println!("cos_(x) in place:\n{y}"),
        Err(e) => println!("cos_(x) in place: {e}"),
    }
    println!(
        "x * 3.5 + 1:\n{}",
        &(&x * 3.5)
            + &DynTensor::ones(
                [3],
                TensorOptions::new()
                    .dtype(x.mul_scalar(3.5)?.dtype())
                    .device(device)
            )?
    );
    println!("pow(x, 2):\n{}", pow(&x, 2)?);
    let row = DynTensor::ones([1, 3], opts)?;
    println!("x + ones(1, 3) (broadcast):\n{}", &x + &row);
    println!(
        "reduce_sum(x, [1], keepdim):\n{}",
        reduce_sum(&x, &[1], true)?
    );
    println!(
        "reduce_argmax(x, [0]):\n{}",
        reduce_argmax(&x, &[0], false)?
    );
    println!("matmul(x, x^T):\n{}", matmul(&x, &x.transpose(0, 1)?)?);
    let other = DynTensor::ones(
        [2, 3],
        TensorOptions::new()
            .dtype(if dtype == Dtype::Int64 {
                Dtype::Float32
            } else {
                Dtype::Int64
            })
            .device(device),
    )?;
    println!(
        "x + (tensor of another dtype): {}",
        x.add(&other).unwrap_err()
    );
    Ok(())
}
