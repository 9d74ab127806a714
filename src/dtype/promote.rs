//! The promotion table as types. `Dtype::float_of` and friends are the same table at run time;
//! a test checks that the two agree for every dtype.

use super::Element;

/// The element type of a float-valued op on `T` (`sin`, `exp`, `sqrt`, `mean`): `f32` for
/// `i16`, `i32`, `u8`, `bool`; `f64` for `i64`; floats map to themselves (the seed's trig table).
pub type FloatOf<T> = <T as Element>::Float;

/// The element type of `sum` and `product`: `i64` for integers and bool (NumPy, PyTorch),
/// the same type for floats.
pub type SumOf<T> = <T as Element>::Sum;

/// The element type of `square`: `f64` for integers (the seed's overflow rule), the same type
/// for floats.
pub type SquareOf<T> = <T as Element>::Square;
