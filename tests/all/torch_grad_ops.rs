//! The ops of the PyTorch gradient programs by name (`tests/data/torch_grads/programs.txt`),
//! applied to f64 CPU tensors; shared with the harness that made them
//! (`tests/data/torch_grads/make/`).

use typed_tensor::prelude::*;

pub(crate) type T = Tensor<f64>;
pub(crate) fn l(s: &str) -> Vec<i64> {
    s.split(',')
        .filter(|x| !x.is_empty())
        .map(|x| x.parse().unwrap())
        .collect()
}
pub(crate) fn u(s: &str) -> Vec<usize> {
    l(s).into_iter().map(|v| v as usize).collect()
}
pub(crate) fn step(op: &str, x: &[&T], p: &[&str]) -> Result<T> {
    let a = x[0];
    let n = |i: usize| p[i].parse::<i64>().unwrap();
    let half = |t: &T| t.try_abs()?.try_add_scalar(0.5);
    Ok(match op {
        "sin" => a.try_sin()?,
        "cos" => a.try_cos()?,
        "exp" => a.try_exp()?,
        "tanh" => a.try_tanh()?,
        "sigmoid" => a.try_sigmoid()?,
        "abs" => a.try_abs()?,
        "relu" => a.try_relu()?,
        "square" => a.try_square()?,
        "neg" => a.try_neg()?,
        "atan" => a.try_atan()?,
        "sinh" => a.try_sinh()?,
        "erf" => a.try_erf()?,
        "expm1" => a.try_expm1()?,
        "asinh" => a.try_asinh()?,
        "gelu" => a.try_gelu()?,
        "silu" => a.try_silu()?,
        "softplus" => a.try_softplus()?,
        "pos_sqrt" => half(a)?.try_sqrt()?,
        "pos_log" => half(a)?.try_log()?,
        "pos_reciprocal" => half(a)?.try_reciprocal()?,
        "pos_log2" => half(a)?.try_log2()?,
        "pos_log1p" => half(a)?.try_log1p()?,
        "pos_rsqrt_like" => half(a)?.try_pow(-0.5)?,
        "add" => a.try_add(x[1])?,
        "sub" => a.try_sub(x[1])?,
        "mul" => a.try_mul(x[1])?,
        "div" => a.try_div(&half(x[1])?)?,
        "maximum" => a.try_maximum(x[1])?,
        "minimum" => a.try_minimum(x[1])?,
        "pow" => half(a)?.try_pow(&x[1].try_tanh()?)?,
        "where" => Tensor::try_where(&a.try_gt_scalar(0.0)?, a, x[1])?,
        "transpose" => a.transpose(n(0), n(1))?,
        "permute" => a.permute(&l(p[0]))?,
        "unsqueeze" => a.unsqueeze(n(0))?,
        "squeeze" => a.squeeze_dims(&[n(0)])?,
        "expand" => a.expand(u(p[0]))?,
        "narrow" => a.narrow(n(0), n(1) as usize, n(2) as usize)?,
        "flip" => a.flip(&[n(0)])?,
        "slice" => a.slice_dim(n(0), n(1) as usize, n(2) as usize, n(3) as usize)?,
        "reshape" => a.try_reshape([n(0) as usize])?,
        "t_reshape" => a.transpose(0, 1)?.try_reshape([a.numel()])?,
        "diagonal" => a.diagonal(n(0))?,
        "contiguous" => a.try_contiguous()?,
        "sum" => a.try_sum(&l(p[0]), p[1] == "1")?,
        "mean" => a.try_mean(&l(p[0]), p[1] == "1")?,
        "max" => a.try_max(&l(p[0]), p[1] == "1")?,
        "min" => a.try_min(&l(p[0]), p[1] == "1")?,
        "var" => a.try_var(&l(p[0]), n(2) as usize, p[1] == "1")?,
        "std" => a.try_std(&l(p[0]), n(2) as usize, p[1] == "1")?,
        "logsumexp" => a.try_logsumexp(&l(p[0]), p[1] == "1")?,
        "norm2" => a.try_norm(2.0, &l(p[0]), p[1] == "1")?,
        "norm3" => a.try_norm(3.0, &l(p[0]), p[1] == "1")?,
        "prod" => a.try_product(&[n(0)], p[1] == "1")?,
        "cumsum" => a.try_cumsum(n(0))?,
        "cumprod" => a.try_cumprod(n(0))?,
        "softmax" => a.try_softmax(n(0))?,
        "log_softmax" => a.try_log_softmax(n(0))?,
        "amax_all" => a.try_max(&[], false)?,
        "matmul" => a.try_matmul(x[1])?,
        "concat" => Tensor::try_concat(&[a, x[1]], n(0))?,
        "stack" => Tensor::try_stack(&[a, x[1]], n(0))?,
        "pad" => {
            let v = u(p[0]);
            a.try_pad(&v.chunks(2).map(|c| (c[0], c[1])).collect::<Vec<_>>(), 0.5)?
        }
        "roll" => a.try_roll(n(0), n(1))?,
        "repeat" => a.try_repeat(&u(p[0]))?,
        "index_select" => a.try_index_select(n(0), &Tensor::from_vec(l(p[1]), [l(p[1]).len()])?)?,
        "gather" => a.try_gather(n(0), &Tensor::from_vec(l(p[2]), u(p[1]))?)?,
        "clip" => a.try_clip(-0.7, 0.9)?,
        "cast" => a.try_cast::<f32>()?.try_sin()?.try_cast::<f64>()?,
        o => panic!("unknown {o}"),
    })
}
