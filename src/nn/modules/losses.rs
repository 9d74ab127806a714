//! The losses as layers (PyTorch's `nn.CrossEntropyLoss`, `nn.MSELoss`, ...): each holds its
//! options, PyTorch's defaults in `default()`, and [`Loss::forward`] calls the function of
//! [`crate::nn`] with them.

use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::nn::{self as nn, ClassLossOptions, Reduction};
use crate::tensor::Tensor;

/// A loss layer: `forward(input, target)` to a 0-d loss (or the per-element losses with
/// `Reduction::None`); the target is class indices (`Tensor<i64, D>`) or values of `T`.
///
/// ```
/// use typed_tensor::nn::Reduction;
/// use typed_tensor::nn::modules::{CrossEntropyLoss, HuberLoss, Loss};
/// use typed_tensor::prelude::*;
/// let logits = Tensor::<f64>::from_vec(vec![2.0, 0.0, 0.0, 2.0], [2, 2])?;
/// let classes = Tensor::<i64>::from_vec(vec![0, 1], [2])?;
/// let ce = CrossEntropyLoss::default().forward(&logits, &classes)?; // PyTorch's nn.CrossEntropyLoss()
/// assert!((ce.item() - (1.0 + (-2.0f64).exp()).ln()).abs() < 1e-15);
/// let huber = HuberLoss { delta: 0.5, reduction: Reduction::None };
/// let per = huber.forward(&logits, &Tensor::zeros([2, 2])?)?; // 0.5·(|d| - 0.25) past delta
/// assert_eq!(per.to_vec(), vec![0.875, 0.0, 0.0, 0.875]);
/// # Ok::<(), typed_tensor::Error>(())
/// ```
pub trait Loss<T: FloatElement, D: Backend> {
    /// What the targets are.
    type Target;
    /// The loss of `input` against `target`, recorded for `backward`.
    ///
    /// # Errors
    /// The errors of the function the loss calls (shapes that do not match, targets out of
    /// range, devices that differ).
    fn forward(&self, input: &Tensor<T, D>, target: &Self::Target) -> Result<Tensor<T, D>>;
}

/// Cross-entropy of logits `(N, C, ...)` (or `(C)`) against class indices (PyTorch
/// `nn.CrossEntropyLoss`): [`nn::cross_entropy_with`]; [`CrossEntropyLoss::forward_probs`]
/// takes class probabilities instead, as PyTorch's float targets.
#[derive(Clone)]
pub struct CrossEntropyLoss<T: FloatElement, D: Backend> {
    /// One weight per class, shape `(C)`.
    pub weight: Option<Tensor<T, D>>,
    /// The target value that counts for nothing (PyTorch's -100); `None`: none.
    pub ignore_index: Option<i64>,
    /// How the per-sample losses are combined.
    pub reduction: Reduction,
    /// `ε ∈ [0, 1]` of the uniform distribution mixed into the targets.
    pub label_smoothing: f64,
}

impl<T: FloatElement, D: Backend> Default for CrossEntropyLoss<T, D> {
    fn default() -> Self {
        CrossEntropyLoss {
            weight: None,
            ignore_index: Some(-100),
            reduction: Reduction::Mean,
            label_smoothing: 0.0,
        }
    }
}

impl<T: FloatElement, D: Backend> CrossEntropyLoss<T, D> {
    fn options(&self) -> ClassLossOptions<'_, T, D> {
        ClassLossOptions {
            weight: self.weight.as_ref(),
            ignore_index: self.ignore_index,
            reduction: self.reduction,
            label_smoothing: self.label_smoothing,
        }
    }

    /// The loss against class probabilities `target` of the logits' shape
    /// ([`nn::cross_entropy_probs`]; `ignore_index` plays no part, as in PyTorch).
    ///
    /// # Errors
    /// As [`nn::cross_entropy_probs`].
    pub fn forward_probs(
        &self,
        input: &Tensor<T, D>,
        target: &Tensor<T, D>,
    ) -> Result<Tensor<T, D>> {
        nn::cross_entropy_probs(input, target, self.options())
    }
}

impl<T: FloatElement, D: Backend> Loss<T, D> for CrossEntropyLoss<T, D> {
    type Target = Tensor<i64, D>;
    fn forward(&self, input: &Tensor<T, D>, target: &Tensor<i64, D>) -> Result<Tensor<T, D>> {
        nn::cross_entropy_with(input, target, self.options())
    }
}

/// The negative log-likelihood of log-probabilities `(N, C, ...)` against class indices
/// (PyTorch `nn.NLLLoss`): [`nn::nll_loss_with`].
#[derive(Clone)]
pub struct NllLoss<T: FloatElement, D: Backend> {
    /// One weight per class, shape `(C)`.
    pub weight: Option<Tensor<T, D>>,
    /// The target value that counts for nothing (PyTorch's -100); `None`: none.
    pub ignore_index: Option<i64>,
    /// How the per-sample losses are combined.
    pub reduction: Reduction,
}

impl<T: FloatElement, D: Backend> Default for NllLoss<T, D> {
    fn default() -> Self {
        NllLoss {
            weight: None,
            ignore_index: Some(-100),
            reduction: Reduction::Mean,
        }
    }
}

impl<T: FloatElement, D: Backend> Loss<T, D> for NllLoss<T, D> {
    type Target = Tensor<i64, D>;
    fn forward(&self, input: &Tensor<T, D>, target: &Tensor<i64, D>) -> Result<Tensor<T, D>> {
        let opts = ClassLossOptions {
            weight: self.weight.as_ref(),
            ignore_index: self.ignore_index,
            reduction: self.reduction,
            label_smoothing: 0.0,
        };
        nn::nll_loss_with(input, target, opts)
    }
}

/// Binary cross-entropy of logits against targets in `[0, 1]` (PyTorch
/// `nn.BCEWithLogitsLoss`): [`nn::binary_cross_entropy_with_logits_weighted`].
#[derive(Clone)]
pub struct BceWithLogitsLoss<T: FloatElement, D: Backend> {
    /// A weight per element, broadcast to the input.
    pub weight: Option<Tensor<T, D>>,
    /// The positive examples' weight per class (the last axis), broadcast to the input.
    pub pos_weight: Option<Tensor<T, D>>,
    /// How the per-element losses are combined.
    pub reduction: Reduction,
}

impl<T: FloatElement, D: Backend> Default for BceWithLogitsLoss<T, D> {
    fn default() -> Self {
        BceWithLogitsLoss {
            weight: None,
            pos_weight: None,
            reduction: Reduction::Mean,
        }
    }
}

impl<T: FloatElement, D: Backend> Loss<T, D> for BceWithLogitsLoss<T, D> {
    type Target = Tensor<T, D>;
    fn forward(&self, input: &Tensor<T, D>, target: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let (w, pw) = (self.weight.as_ref(), self.pos_weight.as_ref());
        nn::binary_cross_entropy_with_logits_weighted(input, target, w, pw, self.reduction)
    }
}

/// Element-wise losses of an input against a target of its shape: the struct (`reduction`
/// and the options, PyTorch's defaults in `default()`) and its `Loss`.
macro_rules! pointwise_losses {
    ($($(#[$doc:meta])* $name:ident { $($field:ident: $ty:ty = $default:expr, $fdoc:literal;)* }
        => |$s:ident, $x:ident, $t:ident| $call:expr;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $name {
            /// How the per-element losses are combined.
            pub reduction: Reduction,
            $(#[doc = $fdoc] pub $field: $ty,)*
        }

        impl Default for $name {
            fn default() -> Self {
                $name { reduction: Reduction::Mean, $($field: $default,)* }
            }
        }

        impl<T: FloatElement, D: Backend> Loss<T, D> for $name {
            type Target = Tensor<T, D>;
            fn forward(&self, $x: &Tensor<T, D>, $t: &Tensor<T, D>) -> Result<Tensor<T, D>> {
                let $s = self;
                $call
            }
        }
    )*};
}

pointwise_losses! {
    /// The squared error (PyTorch `nn.MSELoss`): [`nn::mse_loss`].
    MseLoss {} => |s, x, t| nn::mse_loss(x, t, s.reduction);
    /// The absolute error (PyTorch `nn.L1Loss`): [`nn::l1_loss`].
    L1Loss {} => |s, x, t| nn::l1_loss(x, t, s.reduction);
    /// Quadratic below `beta`, linear above (PyTorch `nn.SmoothL1Loss`): [`nn::smooth_l1_loss`].
    SmoothL1Loss { beta: f64 = 1.0, "Where the quadratic piece ends (PyTorch's 1)."; }
        => |s, x, t| nn::smooth_l1_loss(x, t, s.reduction, s.beta);
    /// Quadratic below `delta`, linear above (PyTorch `nn.HuberLoss`): [`nn::huber_loss`].
    HuberLoss { delta: f64 = 1.0, "Where the quadratic piece ends (PyTorch's 1)."; }
        => |s, x, t| nn::huber_loss(x, t, s.reduction, s.delta);
    /// The Kullback–Leibler divergence of log-probabilities from the target (PyTorch
    /// `nn.KLDivLoss`): [`nn::kl_div`]; `Mean` is the element mean, as PyTorch's, and
    /// `batchmean` PyTorch's `reduction="batchmean"` ([`nn::kl_div_batchmean`]).
    KlDivLoss {
        log_target: bool = false, "The target holds log-probabilities.";
        batchmean: bool = false, "The sum over the batch size, in place of `reduction`.";
    } => |s, x, t| match s.batchmean {
        true => nn::kl_div_batchmean(x, t, s.log_target),
        false => nn::kl_div(x, t, s.reduction, s.log_target),
    };
    /// Binary cross-entropy of probabilities (PyTorch `nn.BCELoss`):
    /// [`nn::binary_cross_entropy`].
    BceLoss {} => |s, x, t| nn::binary_cross_entropy(x, t, s.reduction);
}
