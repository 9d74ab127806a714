//! `DynTensor` forms of NumPy's editing, NaN, percentile and polynomial routines and of
//! `zeta`/`polygamma`, `gammainc`/`gammaincc`, `nextafter`/`spacing`, each a dispatch to the typed op of the same name.

use super::{not_float, not_numeric, pair_mismatch};
use crate::dynamic::{DeviceTensor, DynTensor, device_mismatch, typed_like};
use crate::error::Result;

impl DynTensor {
    /// A CPU tensor of the runtime `dtype` read from delimited text (NumPy `loadtxt(fname,
    /// dtype=...)`; see [`crate::io::load_txt`], whose options and errors these are).
    ///
    /// ```
    /// use typed_tensor::io::LoadTxt;
    /// use typed_tensor::prelude::*;
    /// let t = DynTensor::load_txt_from_str("1 2\n3 4\n", Dtype::Int32, &LoadTxt::default())?;
    /// assert_eq!((t.dtype(), t.to_vec::<i32>()?), (Dtype::Int32, vec![1, 2, 3, 4]));
    /// # Ok::<(), typed_tensor::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`crate::io::load_txt`].
    pub fn load_txt(
        path: impl AsRef<std::path::Path>,
        dtype: crate::Dtype,
        opts: &crate::io::LoadTxt,
    ) -> Result<DynTensor> {
        crate::dynamic::with_dtype!(dtype, T => Ok(crate::io::load_txt::<T>(path, opts)?.into()))
    }
    /// [`DynTensor::load_txt`] of text held in memory.
    ///
    /// # Errors
    /// As [`crate::io::load_txt_from_str`].
    pub fn load_txt_from_str(
        text: &str,
        dtype: crate::Dtype,
        opts: &crate::io::LoadTxt,
    ) -> Result<DynTensor> {
        crate::dynamic::with_dtype!(dtype, T => Ok(crate::io::load_txt_from_str::<T>(text, opts)?.into()))
    }
    /// Writes this 0-d, 1-d or 2-d tensor as delimited text (NumPy `savetxt`; see
    /// [`crate::io::save_txt`], whose options and errors these are).
    ///
    /// # Errors
    /// As [`crate::io::save_txt`].
    pub fn save_txt(
        &self,
        path: impl AsRef<std::path::Path>,
        opts: &crate::io::SaveTxt,
    ) -> Result<()> {
        dyn_each!(self, t => crate::io::save_txt(path, t, opts))
    }
    /// `values` joined to the end along `axis`, `None` flattening both (NumPy `append`).
    pub fn append(&self, values: &DynTensor, axis: Option<i64>) -> Result<DynTensor> {
        pair!(self, values, "append", a, b => Ok(a.try_append(b, axis)?.into()),
            bool: Ok(a.try_append(b, axis)?.into()))
    }
    /// `values` inserted before `index` along `axis` (NumPy `insert`).
    pub fn insert(&self, index: i64, values: &DynTensor, axis: Option<i64>) -> Result<DynTensor> {
        pair!(self, values, "insert", a, b => Ok(a.try_insert(index, b, axis)?.into()),
            bool: Ok(a.try_insert(index, b, axis)?.into()))
    }
    /// The slices at the Int64 `indices` removed along `axis` (NumPy `delete`).
    pub fn delete(&self, indices: &DynTensor, axis: Option<i64>) -> Result<DynTensor> {
        dyn_each!(self, t => {
            let i = typed_like("delete", indices, t)?;
            Ok(t.try_delete(i, axis)?.into())
        })
    }
    /// The elements repeated cyclically into `shape` (NumPy `resize`).
    pub fn resize(&self, shape: &[usize]) -> Result<DynTensor> {
        dyn_each!(self, t => Ok(t.try_resize(shape)?.into()))
    }
    /// The sorted values in exactly one of the two (NumPy `setxor1d`).
    pub fn setxor1d(&self, other: &DynTensor) -> Result<DynTensor> {
        pair!(self, other, "setxor1d", a, b => Ok(a.try_setxor1d(b)?.into()),
            bool: Ok(a.try_setxor1d(b)?.into()))
    }
    /// The inner product over the last axes (NumPy `inner`).
    pub fn inner(&self, other: &DynTensor) -> Result<DynTensor> {
        pair!(self, other, "inner", a, b => Ok(a.try_inner(b)?.into()), bool: Err(not_numeric("inner")))
    }
    /// The dot product of the flattened tensors (NumPy `vdot`).
    pub fn vdot(&self, other: &DynTensor) -> Result<DynTensor> {
        pair!(self, other, "vdot", a, b => Ok(a.try_vdot(b)?.into()), bool: Err(not_numeric("vdot")))
    }
    /// `(floor_divide, remainder)` (NumPy `divmod`).
    pub fn divmod(&self, other: &DynTensor) -> Result<(DynTensor, DynTensor)> {
        pair!(self, other, "divmod", a, b => {
            let (q, r) = a.try_divmod(b)?;
            Ok((q.into(), r.into()))
        }, bool: Err(not_numeric("divmod")))
    }
    /// The `n`-th derivative of digamma (see [`crate::Tensor::polygamma`]).
    pub fn polygamma(&self, n: usize) -> Result<DynTensor> {
        numeric!(self, "polygamma", t => Ok(t.try_polygamma(n)?.into()))
    }
    /// The Hurwitz zeta function `ζ(self, other)` (see [`crate::Tensor::zeta`]).
    pub fn zeta(&self, other: &DynTensor) -> Result<DynTensor> {
        pair!(self, other, "zeta", a, b => Ok(a.try_zeta(b)?.into()), bool: Err(not_numeric("zeta")))
    }
    /// The regularized lower incomplete gamma function `P(self, other)` (see
    /// [`crate::Tensor::gammainc`]).
    pub fn gammainc(&self, other: &DynTensor) -> Result<DynTensor> {
        pair!(self, other, "gammainc", a, b => Ok(a.try_gammainc(b)?.into()), bool: Err(not_numeric("gammainc")))
    }
    /// The regularized upper incomplete gamma function `Q(self, other)` (see
    /// [`crate::Tensor::gammaincc`]).
    pub fn gammaincc(&self, other: &DynTensor) -> Result<DynTensor> {
        pair!(self, other, "gammaincc", a, b => Ok(a.try_gammaincc(b)?.into()), bool: Err(not_numeric("gammaincc")))
    }
    /// The next float after `self` toward `other` (see [`crate::Tensor::nextafter`]).
    pub fn nextafter(&self, other: &DynTensor) -> Result<DynTensor> {
        pair!(self, other, "nextafter", a, b => Ok(a.try_nextafter(b)?.into()), bool: Err(not_numeric("nextafter")))
    }
    /// The distance to the next float away from zero (see [`crate::Tensor::spacing`]).
    pub fn spacing(&self) -> Result<DynTensor> {
        numeric!(self, "spacing", t => Ok(t.try_spacing()?.into()))
    }
    /// The product skipping NaN (NumPy `nanprod`); float dtypes.
    pub fn nanprod(&self, axes: &[i64], keepdim: bool) -> Result<DynTensor> {
        float!(self, "nanprod", "", t => Ok(t.try_nanprod(axes, keepdim)?.into()))
    }
    /// The running sum skipping NaN (NumPy `nancumsum`); float dtypes.
    pub fn nancumsum(&self, axis: i64) -> Result<DynTensor> {
        float!(self, "nancumsum", "", t => Ok(t.try_nancumsum(axis)?.into()))
    }
    /// The running product skipping NaN (NumPy `nancumprod`); float dtypes.
    pub fn nancumprod(&self, axis: i64) -> Result<DynTensor> {
        float!(self, "nancumprod", "", t => Ok(t.try_nancumprod(axis)?.into()))
    }
    /// The `q`-th percentile along `axis` (NumPy `percentile`); float dtypes.
    pub fn percentile(&self, q: f64, axis: i64, keepdim: bool) -> Result<DynTensor> {
        float!(self, "percentile", "", t => Ok(t.try_percentile(q, axis, keepdim)?.into()))
    }
    /// The `q`-th percentile skipping NaN (NumPy `nanpercentile`); float dtypes.
    pub fn nanpercentile(&self, q: f64, axis: i64, keepdim: bool) -> Result<DynTensor> {
        float!(self, "nanpercentile", "", t => Ok(t.try_nanpercentile(q, axis, keepdim)?.into()))
    }
    /// The fractional and integral parts (NumPy `modf`); float dtypes.
    pub fn modf(&self) -> Result<(DynTensor, DynTensor)> {
        float!(self, "modf", "", t => {
            let (f, w) = t.try_modf()?;
            Ok((f.into(), w.into()))
        })
    }
}

/// `DynTensor` forms of the orthogonal polynomials of `torch.special` (float dtypes, `n` of
/// `self`'s dtype).
macro_rules! dyn_orthopoly {
    ($($name:ident, $try_name:ident;)*) => {
        impl DynTensor {
            $(
                #[doc = concat!("`p_n(self)` for the degrees `n` (see [`crate::Tensor::", stringify!($name), "`]); float dtypes, `n` of `self`'s.")]
                pub fn $name(&self, n: &DynTensor) -> Result<DynTensor> {
                    let dtype = self.dtype();
                    dyn_float!(self, a => {
                        let b = typed_like(stringify!($name), n, a)?;
                        Ok(a.$try_name(b)?.into())
                    }, _o => Err(not_float(stringify!($name), "", dtype)))
                }
            )*
        }
    };
}

dyn_orthopoly! {
    chebyshev_polynomial_t, try_chebyshev_polynomial_t;
    chebyshev_polynomial_u, try_chebyshev_polynomial_u;
    chebyshev_polynomial_v, try_chebyshev_polynomial_v;
    chebyshev_polynomial_w, try_chebyshev_polynomial_w;
    shifted_chebyshev_polynomial_t, try_shifted_chebyshev_polynomial_t;
    shifted_chebyshev_polynomial_u, try_shifted_chebyshev_polynomial_u;
    shifted_chebyshev_polynomial_v, try_shifted_chebyshev_polynomial_v;
    shifted_chebyshev_polynomial_w, try_shifted_chebyshev_polynomial_w;
    hermite_polynomial_h, try_hermite_polynomial_h;
    hermite_polynomial_he, try_hermite_polynomial_he;
    laguerre_polynomial_l, try_laguerre_polynomial_l;
    legendre_polynomial_p, try_legendre_polynomial_p;
}
