//! More of PyTorch's in-place methods: the comparisons and logical ops written as 0/1 into
//! `self`'s dtype (`eq_`, `logical_and_`, ...), the element-wise functions without an in-place
//! form so far (`deg2rad_`, `frac_`, `rsqrt_`, `ldexp_`, `polygamma_`, ...), the fused
//! products (`addmv_`, `addr_`, `addbmm_`, `baddbmm_`), NumPy/PyTorch aliases (`arccos_`,
//! `multiply_`, ...), and the view methods that re-point `self` (`unsqueeze_`, `transpose_`,
//! `t_`, `detach_`, ...: only this handle changes, as only that Python object does in
//! PyTorch). Each writes nothing on error.

use crate::backend::Backend;
use crate::dtype::{Element, FloatElement, IntElement, NumElement};
use crate::error::Result;
use crate::tensor::Tensor;

/// In-place forms whose out-of-place result has another dtype (bool, or `FloatOf<T>`): the
/// result converted to `T`, then written.
macro_rules! in_place_cast {
    ($($name:ident = $try:ident($($arg:ident: $ty:ty),*), $torch:literal;)*) => {$(
        #[doc = concat!("In place [`Tensor::", stringify!($try), "`], converted to `self`'s dtype (PyTorch `", $torch, "`).")]
        ///
        /// # Errors
        #[doc = concat!("As [`Tensor::", stringify!($try), "`]; `InvalidArgument` when `self` requires grad while")]
        /// recording; `Layout` for a broadcast view. Nothing is written on error.
        pub fn $name(&mut self, $($arg: $ty),*) -> Result<()> {
            self.write_result($torch, |t| t.$try($($arg),*)?.try_cast::<T>())
        }
    )*};
}

/// Aliases of existing in-place methods under PyTorch's and NumPy's other names.
macro_rules! in_place_alias {
    ($($name:ident => $to:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[doc = concat!("[`Tensor::", stringify!($to), "`] under PyTorch's name `", stringify!($name), "`.")]
        ///
        /// # Errors
        #[doc = concat!("As [`Tensor::", stringify!($to), "`].")]
        pub fn $name(&mut self, $($arg: $ty),*) -> Result<()> {
            self.$to($($arg),*)
        }
    )*};
}

impl<T: Element, D: Backend> Tensor<T, D> {
    in_place_cast! {
        eq_ = try_eq(other: &Self), "eq_";
        ne_ = try_ne(other: &Self), "ne_";
        logical_and_ = try_logical_and(other: &Self), "logical_and_";
        logical_or_ = try_logical_or(other: &Self), "logical_or_";
        logical_xor_ = try_logical_xor(other: &Self), "logical_xor_";
        logical_not_ = try_logical_not(), "logical_not_";
    }

    /// Re-points `self` at [`Tensor::unsqueeze`]`(dim)` (PyTorch `unsqueeze_`).
    ///
    /// ```
    /// use typed_tensor::prelude::*;
    /// let mut x = Tensor::<f32>::from_vec(vec![1.0, 5.0, 3.0], [3])?;
    /// let y = Tensor::<f32>::from_vec(vec![2.0, 2.0, 3.0], [3])?;
    /// x.ge_(&y)?; // PyTorch x.ge_(y): 1.0 where x >= y, else 0.0, in x's dtype
    /// assert_eq!(x.to_vec(), vec![0.0, 1.0, 1.0]);
    /// let view = x.clone();
    /// x.unsqueeze_(0)?; // only this handle changes shape
    /// assert_eq!((x.dims(), view.dims()), (&[1, 3][..], &[3][..]));
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Tensor::unsqueeze`]; `self` is unchanged then.
    pub fn unsqueeze_(&mut self, dim: i64) -> Result<()> {
        *self = self.unsqueeze(dim)?;
        Ok(())
    }

    /// Re-points `self` at [`Tensor::squeeze`] (every axis of length 1 removed; PyTorch
    /// `squeeze_()`).
    pub fn squeeze_(&mut self) {
        *self = self.squeeze();
    }

    /// Re-points `self` at [`Tensor::squeeze_dims`]`(dims)` (PyTorch `squeeze_(dim)`).
    ///
    /// # Errors
    /// As [`Tensor::squeeze_dims`]; `self` is unchanged then.
    pub fn squeeze_dims_(&mut self, dims: &[i64]) -> Result<()> {
        *self = self.squeeze_dims(dims)?;
        Ok(())
    }

    /// Re-points `self` at [`Tensor::transpose`]`(d0, d1)` (PyTorch `transpose_`,
    /// `swapaxes_`, `swapdims_`).
    ///
    /// # Errors
    /// As [`Tensor::transpose`]; `self` is unchanged then.
    pub fn transpose_(&mut self, d0: i64, d1: i64) -> Result<()> {
        *self = self.transpose(d0, d1)?;
        Ok(())
    }

    in_place_alias! {
        swapaxes_ => transpose_(a: i64, b: i64);
        swapdims_ => transpose_(a: i64, b: i64);
    }

    /// Re-points `self` at [`Tensor::t`] (axes reversed; PyTorch `t_`).
    pub fn t_(&mut self) {
        *self = self.t();
    }

    /// Makes `self` a leaf that does not require grad, detached from its graph (PyTorch
    /// `detach_`; other handles on the tensor keep their history).
    pub fn detach_(&mut self) {
        *self = self.detach();
    }
}

impl<T: NumElement, D: Backend> Tensor<T, D> {
    in_place_cast! {
        lt_ = try_lt(other: &Self), "lt_";
        le_ = try_le(other: &Self), "le_";
        gt_ = try_gt(other: &Self), "gt_";
        ge_ = try_ge(other: &Self), "ge_";
    }

    in_place! {
        addmv_ = try_addmv(mat: &Self, vec: &Self, beta: T, alpha: T), "addmv_";
        addr_ = try_addr(vec1: &Self, vec2: &Self, beta: T, alpha: T), "addr_";
        addbmm_ = try_addbmm(batch1: &Self, batch2: &Self, beta: T, alpha: T), "addbmm_";
        baddbmm_ = try_baddbmm(batch1: &Self, batch2: &Self, beta: T, alpha: T), "baddbmm_";
    }

    in_place_alias! {
        absolute_ => abs_();
        negative_ => neg_();
        multiply_ => mul_(other: &Self);
        subtract_ => sub_(other: &Self);
        divide_ => div_(other: &Self);
    }
}

impl<T: FloatElement, D: Backend> Tensor<T, D> {
    in_place! {
        deg2rad_ = try_deg2rad(), "deg2rad_";
        rad2deg_ = try_rad2deg(), "rad2deg_";
        frac_ = try_frac(), "frac_";
        fix_ = try_fix(), "fix_";
        rsqrt_ = try_rsqrt(), "rsqrt_";
        sinc_ = try_sinc(), "sinc_";
        mvlgamma_ = try_mvlgamma(p: usize), "mvlgamma_";
    }

    in_place_cast! {
        ldexp_ = try_ldexp(exponent: &Tensor<i64, D>), "ldexp_";
        polygamma_ = try_polygamma(n: usize), "polygamma_";
        igamma_ = try_igamma(other: &Self), "igamma_";
        igammac_ = try_igammac(other: &Self), "igammac_";
        nextafter_ = try_nextafter(other: &Self), "nextafter_";
    }

    in_place_alias! {
        arccos_ => acos_();
        arcsin_ => asin_();
        arctan_ => atan_();
        arccosh_ => acosh_();
        arcsinh_ => asinh_();
        arctanh_ => atanh_();
        arctan2_ => atan2_(other: &Self);
        true_divide_ => div_(other: &Self);
    }
}

impl<D: Backend> Tensor<f64, D> {
    in_place! {
        float_power_ = try_float_power(exponent: f64), "float_power_";
    }
}

impl<T: IntElement, D: Backend> Tensor<T, D> {
    in_place! {
        bitwise_not_ = try_bitwise_not(), "bitwise_not_";
    }
}
