//! The ops of the NumPy reference cases by name (`tests/data/numpy/cases.txt`), applied to
//! `DynTensor`s; shared with the harness that made the cases (`tests/data/numpy/make/`).

use typed_tensor::dynamic::{DynTensor, Scalar};
use typed_tensor::prelude::*;

pub(crate) fn axes(s: &str) -> Vec<i64> {
    match s {
        "" | "-" => vec![],
        _ => s.split(',').map(|x| x.parse().unwrap()).collect(),
    }
}

pub(crate) fn scalar(s: &str) -> Scalar {
    match s.split_once(':') {
        Some(("i", v)) => Scalar::from(v.parse::<i64>().unwrap()),
        Some(("b", v)) => Scalar::from(v == "1"),
        Some((_, v)) => Scalar::from(v.parse::<f64>().unwrap()),
        None => Scalar::from(s.parse::<f64>().unwrap()),
    }
}

pub(crate) fn dtype(name: &str) -> Dtype {
    match name {
        "float32" => Dtype::Float32,
        "float64" => Dtype::Float64,
        "float16" => Dtype::Float16,
        "int16" => Dtype::Int16,
        "int32" => Dtype::Int32,
        "int64" => Dtype::Int64,
        "uint8" => Dtype::UInt8,
        _ => Dtype::Bool,
    }
}

pub(crate) fn run(op: &str, x: &[DynTensor], p: &[&str]) -> Result<Vec<DynTensor>> {
    let a = || x[0].clone();
    let b = || x[1].clone();
    let r = match op {
        "sin" => a().sin()?,
        "cos" => a().cos()?,
        "tan" => a().tan()?,
        "asin" => a().asin()?,
        "acos" => a().acos()?,
        "atan" => a().atan()?,
        "sinh" => a().sinh()?,
        "cosh" => a().cosh()?,
        "tanh" => a().tanh()?,
        "asinh" => a().asinh()?,
        "acosh" => a().acosh()?,
        "atanh" => a().atanh()?,
        "exp" => a().exp()?,
        "exp2" => a().exp2()?,
        "expm1" => a().expm1()?,
        "log" => a().log()?,
        "log2" => a().log2()?,
        "log10" => a().log10()?,
        "log1p" => a().log1p()?,
        "sqrt" => a().sqrt()?,
        "reciprocal" => a().reciprocal()?,
        "sigmoid" => a().sigmoid()?,
        "erf" => a().erf()?,
        "neg" => a().neg()?,
        "abs" => a().abs()?,
        "sign" => a().sign()?,
        "floor" => a().floor()?,
        "ceil" => a().ceil()?,
        "round" => a().round()?,
        "trunc" => a().trunc()?,
        "relu" => a().relu()?,
        "square" => a().square()?,
        "pow_s" => a().pow(scalar(p[0]))?,
        "clip" => a().clip(scalar(p[0]), scalar(p[1]))?,
        "add" => a().add_promoted(&b())?,
        "sub" => a().sub_promoted(&b())?,
        "mul" => a().mul_promoted(&b())?,
        "div" => a().div_promoted(&b())?,
        "remainder" => a().remainder_promoted(&b())?,
        "maximum" => a().maximum_promoted(&b())?,
        "minimum" => a().minimum_promoted(&b())?,
        "floor_divide" => a().floor_divide(&b())?,
        "eq" => a().eq_promoted(&b())?,
        "ne" => a().ne_promoted(&b())?,
        "lt" => a().lt_promoted(&b())?,
        "le" => a().le_promoted(&b())?,
        "gt" => a().gt_promoted(&b())?,
        "ge" => a().ge_promoted(&b())?,
        "add_s" => a().add_scalar(scalar(p[0]))?,
        "sub_s" => a().sub_scalar(scalar(p[0]))?,
        "mul_s" => a().mul_scalar(scalar(p[0]))?,
        "div_s" => a().div_scalar(scalar(p[0]))?,
        "rsub_s" => a().rsub_scalar(scalar(p[0]))?,
        "rdiv_s" => a().rdiv_scalar(scalar(p[0]))?,
        "remainder_s" => a().remainder_scalar(scalar(p[0]))?,
        "floor_divide_s" => a().floor_divide_scalar(scalar(p[0]))?,
        "sum" | "prod" | "min" | "max" | "mean" | "argmin" | "argmax" | "any" | "all"
        | "nansum" | "nanmean" | "nanmin" | "nanmax" | "nanargmin" | "nanargmax" => {
            let (ax, kd) = (axes(p[0]), p[1] == "1");
            match op {
                "sum" => a().reduce_sum(&ax, kd)?,
                "prod" => a().reduce_product(&ax, kd)?,
                "min" => a().reduce_min(&ax, kd)?,
                "max" => a().reduce_max(&ax, kd)?,
                "mean" => a().reduce_mean(&ax, kd)?,
                "argmin" => a().reduce_argmin(&ax, kd)?,
                "argmax" => a().reduce_argmax(&ax, kd)?,
                "any" => a().reduce_any(&ax, kd)?,
                "all" => a().reduce_all(&ax, kd)?,
                "nansum" => a().reduce_nansum(&ax, kd)?,
                "nanmean" => a().reduce_nanmean(&ax, kd)?,
                "nanmin" => a().reduce_nanmin(&ax, kd)?,
                "nanmax" => a().reduce_nanmax(&ax, kd)?,
                "nanargmin" => a().reduce_nanargmin(&ax, kd)?,
                _ => a().reduce_nanargmax(&ax, kd)?,
            }
        }
        "var" => a().var(&axes(p[0]), p[2].parse().unwrap(), p[1] == "1")?,
        "std" => a().std(&axes(p[0]), p[2].parse().unwrap(), p[1] == "1")?,
        "cumsum" => a().cumsum(p[0].parse().unwrap())?,
        "cumprod" => a().cumprod(p[0].parse().unwrap())?,
        "sort" => {
            let (v, i) = a().sort(p[0].parse().unwrap(), p[1] == "1")?;
            return Ok(vec![v, i]);
        }
        "argsort" => a().argsort(p[0].parse().unwrap(), p[1] == "1")?,
        "matmul" => a().matmul(&b())?,
        "where" => DynTensor::where_(&x[0], &x[1], &x[2])?,
        "logsumexp" => a().logsumexp(&axes(p[0]), p[1] == "1")?,
        "cast" => a().to_dtype(dtype(p[0]))?,
        "permute" => a().permute(&axes(p[0]))?,
        "reshape" => a().reshape(axes(p[0]))?,
        "narrow" => a().narrow(
            p[0].parse().unwrap(),
            p[1].parse().unwrap(),
            p[2].parse().unwrap(),
        )?,
        "flip" => a().flip(&axes(p[0]))?,
        "expand" => a().expand(axes(p[0]).iter().map(|&d| d as usize).collect::<Vec<_>>())?,
        "squeeze_dims" => a().squeeze_dims(&axes(p[0]))?,
        "unsqueeze" => a().unsqueeze(p[0].parse().unwrap())?,
        "diagonal" => a().diagonal(p[0].parse().unwrap())?,
        "diagonal_axes" => a().diagonal_axes(
            p[0].parse().unwrap(),
            p[1].parse().unwrap(),
            p[2].parse().unwrap(),
        )?,
        "roll" => a().roll(p[0].parse().unwrap(), p[1].parse().unwrap())?,
        "tile" => a().tile(&axes(p[0]).iter().map(|&d| d as usize).collect::<Vec<_>>())?,
        "repeat" => a().repeat(&axes(p[0]).iter().map(|&d| d as usize).collect::<Vec<_>>())?,
        "repeat_interleave" => {
            a().repeat_interleave(p[0].parse().unwrap(), p[1].parse().unwrap())?
        }
        "tril" => a().tril(p[0].parse().unwrap())?,
        "triu" => a().triu(p[0].parse().unwrap())?,
        "pad" => {
            let v = axes(p[0]);
            let pads: Vec<(usize, usize)> = v
                .chunks(2)
                .map(|c| (c[0] as usize, c[1] as usize))
                .collect();
            a().pad(&pads, scalar(p[1]))?
        }
        "concat" => DynTensor::concat(&x.iter().collect::<Vec<_>>(), p[0].parse().unwrap())?,
        "stack" => DynTensor::stack(&x.iter().collect::<Vec<_>>(), p[0].parse().unwrap())?,
        "index_select" => a().index_select(p[0].parse().unwrap(), &b())?,
        "take" => a().take(p[0].parse().unwrap(), &b())?,
        "gather" => a().gather(p[0].parse().unwrap(), &b())?,
        "scatter_add" => a().scatter_add(p[0].parse().unwrap(), &b(), &x[2])?,
        "masked_fill" => a().masked_fill(&b(), scalar(p[0]))?,
        "topk" => {
            let (v, i) = a().topk(p[0].parse().unwrap(), p[1].parse().unwrap())?;
            return Ok(vec![v, i]);
        }
        "norm" => a().norm(p[0].parse().unwrap(), &axes(p[1]), p[2] == "1")?,
        "tensordot" => a().tensordot(&b(), &axes(p[0]), &axes(p[1]))?,
        "dot" => a().dot(&b())?,
        "outer" => a().outer(&b())?,
        "logaddexp" => a().logaddexp(&b())?,
        "lerp" => a().lerp(&b(), p[0].parse().unwrap())?,
        "nan_to_num" => a().nan_to_num(0.0, None, None)?,
        "quantile" => a().quantile(p[0].parse().unwrap(), p[1].parse().unwrap(), p[2] == "1")?,
        "median" => a().median(p[0].parse().unwrap(), p[1] == "1")?.0,
        "count_nonzero" => a().count_nonzero(&axes(p[0]), p[1] == "1")?,
        "diff" => a().diff(p[0].parse().unwrap(), p[1].parse().unwrap())?,
        "kron" => a().kron(&b())?,
        "cross" => a().cross(&b(), p[0].parse().unwrap())?,
        "trace" => a().trace()?,
        "movedim" => a().movedim(&axes(p[0]), &axes(p[1]))?,
        "nonzero" => a().nonzero()?,
        "unique" => {
            let (v, i, c) = a().unique()?;
            return Ok(vec![v, i, c]);
        }
        "searchsorted" => a().searchsorted(&b(), p[0] == "1")?,
        "isin" => a().isin(&b())?,
        "bincount" => a().bincount(p[0].parse().unwrap())?,
        "cummax" => a().cummax(p[0].parse().unwrap())?.0,
        "cummax_idx" => a().cummax(p[0].parse().unwrap())?.1,
        "cummin" => a().cummin(p[0].parse().unwrap())?.0,
        "cummin_idx" => a().cummin(p[0].parse().unwrap())?.1,
        "logcumsumexp" => a().logcumsumexp(p[0].parse().unwrap())?,
        "kthvalue" => {
            let k = p[0].parse().unwrap();
            a().kthvalue(k, p[1].parse().unwrap(), p[2] == "1")?.0
        }
        "nanmedian" => a().nanmedian(p[0].parse().unwrap(), p[1] == "1")?.0,
        "fmax" => a().fmax(&b())?,
        "fmin" => a().fmin(&b())?,
        "heaviside" => a().heaviside(&b())?,
        "logaddexp2" => a().logaddexp2(&b())?,
        "signbit" => a().signbit()?,
        "frac" => a().frac()?,
        "sinc" => a().sinc()?,
        "deg2rad" => a().deg2rad()?,
        "rad2deg" => a().rad2deg()?,
        "addcmul" => a().addcmul(&b(), &x[2], scalar(p[0]))?,
        "addcdiv" => a().addcdiv(&b(), &x[2], scalar(p[0]))?,
        "clamp" => {
            let bound = |s: &str| (s != "-").then(|| scalar(s));
            a().clamp(bound(p[0]), bound(p[1]))?
        }
        "take_along_dim" => a().take_along_dim(&b(), Some(p[0].parse().unwrap()))?,
        "scatter" => a().scatter(p[0].parse().unwrap(), &b(), &x[2])?,
        "index_fill" => a().index_fill(p[0].parse().unwrap(), &b(), scalar(p[1]))?,
        "index_copy" => a().index_copy(p[0].parse().unwrap(), &b(), &x[2])?,
        "masked_scatter" => a().masked_scatter(&b(), &x[2])?,
        "vector_norm" => {
            let ord = p[0].parse().unwrap();
            a().vector_norm(ord, &axes(p[1]), p[2] == "1")?
        }
        "matrix_norm" => {
            use typed_tensor::ops::matrix::MatrixNorm;
            let ord = match p[0] {
                "fro" => MatrixNorm::Fro,
                "nuc" => MatrixNorm::Nuc,
                o => MatrixNorm::Ord(o.parse().unwrap()),
            };
            a().matrix_norm(ord, false)?
        }
        "logdet" => a().logdet()?,
        "cond" => {
            let t = a().to_dtype(Dtype::Float64)?.downcast::<f64, Cpu>()?;
            DynTensor::from(t.try_cond()?).to_dtype(x[0].dtype())?
        }
        "matrix_rank" => {
            let t = a().downcast::<f64, Cpu>()?;
            t.try_matrix_rank(None)?.into()
        }
        "multi_dot" => {
            let ts: Vec<Tensor<f64>> = (x.iter())
                .map(|t| t.to_dtype(Dtype::Float64)?.downcast::<f64, Cpu>())
                .collect::<Result<_>>()?;
            let refs: Vec<&Tensor<f64>> = ts.iter().collect();
            DynTensor::from(Tensor::try_multi_dot(&refs)?).to_dtype(x[0].dtype())?
        }
        "baddbmm" => a().baddbmm(&b(), &x[2], scalar(p[0]), scalar(p[1]))?,
        other => panic!("unknown op {other}"),
    };
    Ok(vec![r])
}
