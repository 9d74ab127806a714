//! Mixed-dtype binary ops by explicit promotion ([`Promote`], PyTorch's `torch.result_type`):
//! the plain operators stay strict (`&a + &b` needs one element type), and these forms say in
//! their name that the operands are converted.

use crate::backend::Backend;
use crate::dtype::{Element, NumElement, Promote};
use crate::error::{OrPanic, Result};
use crate::tensor::Tensor;
use std::any::Any;

/// `t` as a `Tensor<O, D>`: shared (no copy) when it already is one, else cast.
pub(crate) fn converted<T: Element, O: Element, D: Backend>(
    t: &Tensor<T, D>,
) -> Result<Tensor<O, D>> {
    match (t as &dyn Any).downcast_ref::<Tensor<O, D>>() {
        Some(same) => Ok(same.clone()),
        None => t.try_cast::<O>(),
    }
}

/// Both operands converted to their promoted element type ([`Promote`]); an operand that
/// already has it is shared, not copied. Gradients flow back through the casts.
///
/// ```
/// use typed_tensor::ops::promote;
/// use typed_tensor::prelude::*;
///
/// let a = tensor![1u8, 2, 250];
/// let b = tensor![-1i16, 300, 5];
/// let (a, b) = promote(&a, &b)?; // both Tensor<i16, Cpu>
/// assert_eq!((&a + &b).to_vec(), vec![0, 302, 255]);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
///
/// # Errors
/// `OutOfMemory`/`Device` when a cast's output cannot be allocated or its kernel fails.
#[allow(clippy::type_complexity)]
pub fn promote<A: Promote<B>, B: Element, D: Backend>(
    a: &Tensor<A, D>,
    b: &Tensor<B, D>,
) -> Result<(Tensor<A::Output, D>, Tensor<A::Output, D>)> {
    Ok((converted(a)?, converted(b)?))
}

macro_rules! promoted {
    ($bound:ident => $out:ty; $($name:ident, $try:ident, $op:ident, $what:literal;)*) => {
        impl<T: Element, D: Backend> Tensor<T, D> {
            $(
                #[doc = concat!("`", $what, "` of tensors of two element types: both are converted to their promoted type ([`Promote`], PyTorch's `torch.result_type`) and broadcast (NumPy rules), as [`Tensor::", stringify!($op), "`] then does. `tensor![1i32, 2].", stringify!($try), "(&tensor![0.5f32, 0.5])` computes in `f32`.")]
                ///
                /// # Errors
                /// As the op on the promoted type: `Broadcast` for incompatible shapes, and
                /// for integer division or remainder `DivisionByZero`.
                pub fn $try<U: Element>(&self, rhs: &Tensor<U, D>) -> Result<Tensor<$out, D>>
                where
                    T: Promote<U>,
                    <T as Promote<U>>::Output: $bound,
                {
                    let (a, b) = promote(self, rhs)?;
                    a.$op(&b)
                }

                #[doc = concat!("[`Tensor::", stringify!($try), "`], panicking with its error.")]
                ///
                /// # Panics
                /// When the shapes do not broadcast, or on an integer division by zero.
                #[track_caller]
                pub fn $name<U: Element>(&self, rhs: &Tensor<U, D>) -> Tensor<$out, D>
                where
                    T: Promote<U>,
                    <T as Promote<U>>::Output: $bound,
                {
                    self.$try(rhs).or_panic()
                }
            )*
        }
    };
}

promoted! {
    NumElement => <T as Promote<U>>::Output;
    add_promoted, try_add_promoted, try_add, "a + b";
    sub_promoted, try_sub_promoted, try_sub, "a - b";
    mul_promoted, try_mul_promoted, try_mul, "a * b";
    div_promoted, try_div_promoted, try_div, "a / b";
    remainder_promoted, try_remainder_promoted, try_remainder, "a % b";
    maximum_promoted, try_maximum_promoted, try_maximum, "maximum(a, b)";
    minimum_promoted, try_minimum_promoted, try_minimum, "minimum(a, b)";
}

promoted! {
    Element => bool;
    eq_promoted, try_eq_promoted, try_eq, "a == b";
    ne_promoted, try_ne_promoted, try_ne, "a != b";
    lt_promoted, try_lt_promoted, try_lt, "a < b";
    le_promoted, try_le_promoted, try_le, "a <= b";
    gt_promoted, try_gt_promoted, try_gt, "a > b";
    ge_promoted, try_ge_promoted, try_ge, "a >= b";
}
