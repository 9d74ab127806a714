//! The promotion table as types. `Dtype::float_of` and friends are the same table at run time;
//! a test checks that the two agree for every dtype.

use super::Element;

/// The element type of a float-valued op on `T` (`sin`, `exp`, `sqrt`, `mean`): `f32` for
/// `i16`, `i32`, `u8`, `bool`; `f64` for `i64`; floats map to themselves (PyTorch's rule, but `i64` → `f64` as NumPy's, so large integers stay exact).
pub type FloatOf<T> = <T as Element>::Float;

/// The element type of `sum` and `product`: `i64` for integers and bool (NumPy, PyTorch),
/// the same type for floats.
pub type SumOf<T> = <T as Element>::Sum;

/// The element type of `square`: `f64` for integers (so squares cannot overflow), the same type
/// for floats.
pub type SquareOf<T> = <T as Element>::Square;

/// The element type of a binary op on a `Self` tensor and an `Rhs` tensor when the operands are
/// promoted, PyTorch's `torch.result_type` for two tensors: bool gives way to any type; integers
/// widen to the wider integer (`u8` with `i16` is `i16`); an integer with a float is that float
/// (`i64` with `f16` is `f16`); floats widen to the wider float, and `f16` with `bf16` is `f32`.
/// [`Dtype::promote_types`](super::Dtype::promote_types) is the same table at run time.
///
/// The plain operators never promote (`&a + &b` needs one element type); the `*_promoted`
/// methods ([`crate::Tensor::try_add_promoted`], ...) and [`crate::ops::promote`] do.
///
/// ```
/// use typed_tensor::dtype::Promote;
/// use typed_tensor::prelude::*;
///
/// fn output_of<A: Promote<B>, B: Element>() -> Dtype {
///     <A::Output as Element>::DTYPE
/// }
/// assert_eq!(output_of::<f32, i32>(), Dtype::Float32);
/// assert_eq!(output_of::<u8, i16>(), Dtype::Int16);
/// assert_eq!(output_of::<f16, bf16>(), Dtype::Float32);
/// assert_eq!(output_of::<bool, u8>(), Dtype::UInt8);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` and `{Rhs}` have no promoted element type",
    note = "promotion is defined between the tensor element types f32, f64, f16, bf16, i16, i32, i64, u8 and bool"
)]
pub trait Promote<Rhs: Element>: Element {
    /// The promoted element type.
    type Output: Element;
}

/// `Promote` for one left-hand type: `$hdr` lists the right-hand types, `[$($o)*]` the outputs
/// in the same order.
macro_rules! promote_table {
    ($hdr:tt $($l:ty => [$($o:ty)*])*) => {
        $(promote_table!(@row $l, $hdr, [$($o)*]);)*
    };
    (@row $l:ty, [$($r:ty)*], [$($o:ty)*]) => {
        $(impl Promote<$r> for $l {
            type Output = $o;
        })*
    };
}

use half::{bf16, f16};

promote_table! {
    //        f32  f64  f16  bf16  i16   i32   i64   u8    bool
    [         f32  f64  f16  bf16  i16   i32   i64   u8    bool]
    f32  =>  [f32  f64  f32  f32   f32   f32   f32   f32   f32 ]
    f64  =>  [f64  f64  f64  f64   f64   f64   f64   f64   f64 ]
    f16  =>  [f32  f64  f16  f32   f16   f16   f16   f16   f16 ]
    bf16 =>  [f32  f64  f32  bf16  bf16  bf16  bf16  bf16  bf16]
    i16  =>  [f32  f64  f16  bf16  i16   i32   i64   i16   i16 ]
    i32  =>  [f32  f64  f16  bf16  i32   i32   i64   i32   i32 ]
    i64  =>  [f32  f64  f16  bf16  i64   i64   i64   i64   i64 ]
    u8   =>  [f32  f64  f16  bf16  i16   i32   i64   u8    u8  ]
    bool =>  [f32  f64  f16  bf16  i16   i32   i64   u8    bool]
}
