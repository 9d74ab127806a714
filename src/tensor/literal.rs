//! Tensors from Rust literals: `From` nested arrays (up to 4 levels), slices and `Vec`s, and the
//! `tensor!` macro (as PyTorch's `torch.tensor([[1, 2], [3, 4]])`, ndarray's `array!`).

use super::Tensor;
use crate::device::Cpu;
use crate::dtype::Element;
use crate::error::OrPanic;

impl<T: Element> From<&[T]> for Tensor<T, Cpu> {
    /// A 1-d CPU tensor holding a copy of `v`.
    ///
    /// # Panics
    /// When the allocation fails.
    #[track_caller]
    fn from(v: &[T]) -> Self {
        Tensor::from_vec(v.to_vec(), [v.len()]).or_panic()
    }
}

impl<T: Element> From<Vec<T>> for Tensor<T, Cpu> {
    /// A 1-d CPU tensor owning `v`.
    ///
    /// # Panics
    /// When the allocation fails.
    #[track_caller]
    fn from(v: Vec<T>) -> Self {
        let n = v.len();
        Tensor::from_vec(v, [n]).or_panic()
    }
}

impl<T: Element, const A: usize> From<[T; A]> for Tensor<T, Cpu> {
    /// A 1-d CPU tensor of shape `(A,)`.
    ///
    /// # Panics
    /// When the allocation fails.
    #[track_caller]
    fn from(v: [T; A]) -> Self {
        Tensor::from_vec(v.to_vec(), [A]).or_panic()
    }
}

impl<T: Element, const A: usize, const B: usize> From<[[T; B]; A]> for Tensor<T, Cpu> {
    /// A 2-d CPU tensor of shape `(A, B)`, rows in order.
    ///
    /// # Panics
    /// When the allocation fails.
    #[track_caller]
    fn from(v: [[T; B]; A]) -> Self {
        Tensor::from_vec(v.as_flattened().to_vec(), [A, B]).or_panic()
    }
}

impl<T: Element, const A: usize, const B: usize, const C: usize> From<[[[T; C]; B]; A]>
    for Tensor<T, Cpu>
{
    /// A 3-d CPU tensor of shape `(A, B, C)`.
    ///
    /// # Panics
    /// When the allocation fails.
    #[track_caller]
    fn from(v: [[[T; C]; B]; A]) -> Self {
        let flat = v.as_flattened().as_flattened().to_vec();
        Tensor::from_vec(flat, [A, B, C]).or_panic()
    }
}

impl<T: Element, const A: usize, const B: usize, const C: usize, const E: usize>
    From<[[[[T; E]; C]; B]; A]> for Tensor<T, Cpu>
{
    /// A 4-d CPU tensor of shape `(A, B, C, E)`.
    ///
    /// # Panics
    /// When the allocation fails.
    #[track_caller]
    fn from(v: [[[[T; E]; C]; B]; A]) -> Self {
        let flat = v.as_flattened().as_flattened().as_flattened().to_vec();
        Tensor::from_vec(flat, [A, B, C, E]).or_panic()
    }
}

/// A CPU tensor from a nested array literal, up to 4 levels; the element type is inferred from
/// the literals (`1` is `i32`, `1.0` is `f64`, as Rust infers them) or from a suffix
/// (`1.0f32`). Rows of different lengths, or mixed element types, do not compile.
///
/// ```
/// use typed_tensor::{Tensor, tensor};
/// let m = tensor![[1, 2], [3, 4]];
/// assert_eq!((m.dims(), m.to_vec()), (&[2usize, 2][..], vec![1, 2, 3, 4]));
/// let v: Tensor<f32> = tensor![0.5, 1.5, 2.5];
/// assert_eq!(v.sum(&[], false).item(), 4.5);
/// ```
#[macro_export]
macro_rules! tensor {
    ($($t:tt)*) => {
        $crate::Tensor::<_, $crate::Cpu>::from([$($t)*])
    };
}
