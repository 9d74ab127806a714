//! A tour of the typed API: creation, metadata, display, promotion, broadcasting, reductions,
//! matmul, views, casts, and CUDA when present.
//!
//! ```text
//! cargo run --release --example tour
//! ```

use typed_tensor::prelude::*;

fn main() -> typed_tensor::Result<()> {
    // Creation and metadata (the seed's accessors).
    let a = Tensor::<f32>::from_vec(vec![1.123456, 2.2, 3.3, 4.4, 5.5, 6.6], [2, 3])?;
    println!("a =\n{a}");
    println!("a with 2 decimals =\n{a:.2}");
    println!(
        "shape {}, dtype {}, device {}, numel {}, nbytes {}, strides {:?}, contiguous {}",
        a.shape(),
        a.dtype(),
        a.device(),
        a.numel(),
        a.nbytes(),
        a.stride(),
        a.is_contiguous()
    );

    // Promotion is in the type: sin of i32 is f32, sum of i32 is i64, square of i32 is f64.
    let counts = Tensor::<i32>::arange(0, 6, 1)?.try_reshape([2, 3])?;
    let s: Tensor<f32> = counts.sin();
    let total: Tensor<i64> = counts.try_sum(&[], false)?;
    let sq: Tensor<f64> = counts.square();
    println!("\nsin(i32) -> {}:\n{s:.3}", s.dtype());
    println!("sum(i32) -> {} = {}", total.dtype(), total.try_item()?);
    println!("square(i32) -> {}:\n{sq}", sq.dtype());

    // Broadcasting (NumPy rules) and scalars of the tensor's type.
    let row = Tensor::<f32>::from_vec(vec![10.0, 20.0, 30.0], [3])?;
    println!("\na + row =\n{}", &a + &row);
    println!("2 - a =\n{:.1}", 2.0f32 - &a);
    match a.try_add(&Tensor::<f32>::ones([5])?) {
        Err(e) => println!("a + ones(5): {e}"),
        Ok(_) => unreachable!(),
    }

    // Reductions with axes and keepdim, including the NaN-aware ones.
    let t = Tensor::<f32>::from_vec(vec![1.0, 5.0, 3.0, 4.0, f32::NAN, 6.0], [2, 3])?;
    println!("\nt =\n{t:.1}");
    println!("reduce_sum(t, [0]) =\n{:.1}", reduce_sum(&t, &[0], false)?);
    println!(
        "reduce_nanmean(t) = {:.2}",
        reduce_nanmean(&t, &[], false)?.try_item()?
    );
    println!(
        "reduce_nanargmax(t, [1], keepdim) =\n{}",
        reduce_nanargmax(&t, &[1], true)?
    );

    // Matmul, batched with broadcast batch dimensions (NumPy rules).
    let x = Tensor::<f32>::full([2, 3], 2.0)?;
    let y = Tensor::<f32>::full([3, 4], 3.0)?;
    println!("\nmatmul (2,3)@(3,4) =\n{}", x.try_matmul(&y)?);
    let batched =
        Tensor::<f32>::ones([4, 1, 2, 3])?.try_matmul(&Tensor::<f32>::ones([5, 3, 2])?)?;
    println!("(4,1,2,3) @ (5,3,2) has shape {}", batched.shape());

    // Views share storage; contiguous() copies only when needed.
    let base = Tensor::<i32>::arange(0, 12, 1)?.try_reshape([3, 4])?;
    let view = base.t();
    println!(
        "\nbase.t(): owns_data {}, contiguous {}, strides {:?}",
        view.owns_data(),
        view.is_contiguous(),
        view.stride()
    );
    let mut row1 = base.narrow(0, 1, 1)?;
    row1.fill_(-1)?;
    println!("after writing through a view, base =\n{base}");

    // Casts follow Rust's `as`: truncation toward zero, saturation, NaN -> 0.
    let f = Tensor::<f32>::from_vec(vec![-2.7, 2.7, f32::NAN, 1e10], [4])?;
    println!("\ncast f32 -> i32: {:?}", f.cast::<i32>().to_vec());
    println!("cast f32 -> bf16:\n{}", f.cast::<bf16>());

    // CUDA, when a device is present.
    match Cuda::new(0) {
        Ok(dev) => println!("\nCUDA device {} is available", dev.ordinal()),
        Err(e) => println!("\nno CUDA: {e}"),
    }
    Ok(())
}
