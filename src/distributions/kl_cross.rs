//! `KL(p ‖ q)` between distributions of two different families: PyTorch's cross pairs of
//! `torch.distributions.kl`, with its formulas. A pair where `q` has no density on part of
//! `p`'s support is infinite everywhere; a pair whose supports may or may not nest (a
//! `Uniform` against a `Beta`, a `Pareto` against a `Normal` with too small a tail index) is
//! infinite where they do not. The result has the two batch shapes broadcast.
//!
//! One deliberate difference: PyTorch's `ContinuousBernoulli`–`Uniform` pairs call a uniform
//! on exactly `[0, 1]` infinitely far from a continuous Bernoulli; here, as for its
//! `Beta`–`Uniform` pair, only bounds strictly inside `[0, 1]` are.

use super::{
    Bernoulli, Beta, Binomial, Chi2, ContinuousBernoulli, Distribution, Exponential, Gamma, Gumbel,
    KlDivergence, Laplace, Moments, Normal, Pareto, Poisson, Uniform,
};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::tensor::Tensor;
use std::f64::consts::PI;

/// The Euler–Mascheroni constant γ.
const EULER: f64 = 0.577_215_664_901_532_9;

/// `kl`, infinite where `outside` holds.
fn inf_where<T: FloatElement, D: Backend>(
    outside: Tensor<bool, D>,
    kl: Tensor<T, D>,
) -> Result<Tensor<T, D>> {
    Tensor::try_where(&outside, &super::c(&kl, f64::INFINITY)?, &kl)
}

/// `x log x`, 0 at 0.
fn x_log_x<T: FloatElement, D: Backend>(x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
    x.try_xlogy(x)
}

/// `KL(p ‖ q) = (q's part) - H(p)`, the form of the pairs below whose cross entropy is linear
/// in `p`'s moments.
fn minus_entropy<T: FloatElement, D: Backend, P: Distribution<T, D>>(
    p: &P,
    rest: Tensor<T, D>,
) -> Result<Tensor<T, D>> {
    rest.try_sub(&p.entropy()?)
}

/// `-E_p[log q]` for `q = Exponential(λ)`, from `p`'s mean: `λ E[x] - log λ`.
fn exponential_cross<T: FloatElement, D: Backend>(
    mean: &Tensor<T, D>,
    q: &Exponential<T, D>,
) -> Result<Tensor<T, D>> {
    q.rate().try_mul(mean)?.try_sub(&q.rate().try_log()?)
}

/// `-E_p[log q]` for `q = Normal(μ, σ)`, from `p`'s first two moments:
/// `log(√(2π) σ) + (E[x²] - 2μ E[x] + μ²) / (2σ²)`.
fn normal_cross<T: FloatElement, D: Backend>(
    mean: &Tensor<T, D>,
    second: &Tensor<T, D>,
    q: &Normal<T, D>,
) -> Result<Tensor<T, D>> {
    let (mu, s) = (q.loc(), q.scale());
    let quad = second
        .try_sub(&mu.try_mul(mean)?.try_mul_scalar(T::from_f64(2.0))?)?
        .try_add(&mu.try_square()?)?
        .try_div(&s.try_square()?.try_mul_scalar(T::from_f64(2.0))?)?;
    s.try_log()?
        .try_add_scalar(T::from_f64(0.5 * (2.0 * PI).ln()))?
        .try_add(&quad)
}

/// `KL(p ‖ Normal)` from `p`'s entropy and first two moments.
fn to_normal<T: FloatElement, D: Backend, P: Distribution<T, D> + Moments<T, D>>(
    p: &P,
    q: &Normal<T, D>,
) -> Result<Tensor<T, D>> {
    let mean = Moments::mean(p)?;
    let second = Moments::variance(p)?.try_add(&mean.try_square()?)?;
    minus_entropy(p, normal_cross(&mean, &second, q)?)
}

/// `KL(p ‖ Uniform)` for `p` on `[0, 1]`: `-H(p) + log(high - low)`, infinite unless `[low,
/// high)` covers `[0, 1]`.
fn unit_to_uniform<T: FloatElement, D: Backend, P: Distribution<T, D>>(
    p: &P,
    q: &Uniform<T, D>,
) -> Result<Tensor<T, D>> {
    let kl = minus_entropy(p, q.high().try_sub(q.low())?.try_log()?)?;
    let outside = q
        .low()
        .try_gt_scalar(T::ZERO)?
        .try_logical_or(&q.high().try_lt_scalar(T::ONE)?)?;
    inf_where(outside, kl)
}

/// `-E_p[log q]` for `q = ContinuousBernoulli(λ)`, from `p`'s mean:
/// `-E[x] logit λ - log(1 - λ) - log C(λ)`.
fn continuous_bernoulli_cross<T: FloatElement, D: Backend>(
    mean: &Tensor<T, D>,
    q: &ContinuousBernoulli<T, D>,
) -> Result<Tensor<T, D>> {
    mean.try_mul(q.logits())?
        .try_add(&q.probs().try_neg()?.try_log1p()?)?
        .try_add(&q.log_norm()?)?
        .try_neg()
}

/// `log Γ(α) - α log β`, the Gamma's log normaliser.
fn gamma_norm<T: FloatElement, D: Backend>(q: &Gamma<T, D>) -> Result<Tensor<T, D>> {
    let a = q.concentration();
    a.try_lgamma()?.try_sub(&a.try_mul(&q.rate().try_log()?)?)
}

/// `(E[x log x]` over `U[l, h)`, less the mean`)`: `(xlogx(h) - xlogx(l) - (h - l)) / (h - l)`
/// is `E[log x]` for a uniform on `[l, h)`.
fn uniform_mean_log<T: FloatElement, D: Backend>(
    low: &Tensor<T, D>,
    high: &Tensor<T, D>,
) -> Result<Tensor<T, D>> {
    let w = high.try_sub(low)?;
    x_log_x(high)?
        .try_sub(&x_log_x(low)?)?
        .try_sub(&w)?
        .try_div(&w)
}

/// Implements `KlDivergence<$q> for $p` with the body `$body`, in which `$a` is `self` and
/// `$b` is `q`.
macro_rules! kl {
    ($(#[$doc:meta])* $p:ident, $q:ident, |$a:ident, $b:ident| $body:expr) => {
        impl<T: FloatElement, D: Backend> KlDivergence<$q<T, D>> for $p<T, D> {
            type Out = Tensor<T, D>;
            $(#[$doc])*
            fn kl_divergence(&self, $b: &$q<T, D>) -> Result<Tensor<T, D>> {
                let $a = self;
                $body
            }
        }
    };
}

/// The pairs where `q` has no density on part of `p`'s support at any parameters: infinite,
/// of the broadcast batch shapes. `$param` is a parameter tensor of `p` (for the device).
macro_rules! infinite {
    ($($p:ident(|$s:ident| $param:expr) => [$($q:ident),*];)*) => {$($(
        impl<T: FloatElement, D: Backend> KlDivergence<$q<T, D>> for $p<T, D> {
            type Out = Tensor<T, D>;
            /// Infinite: `q` has no density on part of `self`'s support (PyTorch's
            /// `_kl_*_infinity`).
            fn kl_divergence(&self, q: &$q<T, D>) -> Result<Tensor<T, D>> {
                let shape = crate::shape::broadcast_shapes(
                    "kl_divergence",
                    self.batch_shape(),
                    q.batch_shape(),
                )?;
                let $s = self;
                let param = $param;
                Tensor::full_on(shape, T::from_f64(f64::INFINITY), param.device_handle())
            }
        }
    )*)*};
}

infinite! {
    Beta(|p| p.concentration1()?) => [Pareto];
    ContinuousBernoulli(|p| p.probs()) => [Pareto];
    Exponential(|p| p.rate()) => [Beta, ContinuousBernoulli, Pareto, Uniform];
    Gamma(|p| p.rate()) => [Beta, ContinuousBernoulli, Pareto, Uniform];
    Chi2(|p| p.gamma().rate()) => [Beta, ContinuousBernoulli, Pareto, Uniform];
    Gumbel(|p| p.loc()) => [Beta, ContinuousBernoulli, Exponential, Gamma, Chi2, Pareto, Uniform];
    Laplace(|p| p.loc()) => [Beta, ContinuousBernoulli, Exponential, Gamma, Chi2, Pareto, Uniform];
    Normal(|p| p.loc()) => [Beta, ContinuousBernoulli, Exponential, Gamma, Chi2, Pareto, Uniform];
    Pareto(|p| p.scale()) => [Beta, ContinuousBernoulli, Uniform];
    Poisson(|p| p.rate()) => [Bernoulli, Binomial];
}

/// Implements `KlDivergence<$q>` for each `$p` through the helper `$via(p, q)`.
macro_rules! kl_via {
    ($via:ident, $q:ident: $($p:ident),*; $doc:literal) => {$(
        impl<T: FloatElement, D: Backend> KlDivergence<$q<T, D>> for $p<T, D> {
            type Out = Tensor<T, D>;
            #[doc = $doc]
            fn kl_divergence(&self, q: &$q<T, D>) -> Result<Tensor<T, D>> {
                $via(self, q)
            }
        }
    )*};
}

kl_via!(
    to_normal, Normal: Beta, ContinuousBernoulli, Exponential, Gamma, Gumbel, Laplace, Uniform;
    "`-H(p)` plus the normal's cross entropy at `p`'s mean and variance (PyTorch's formulas in
     another form)."
);
kl_via!(
    unit_to_uniform, Uniform: Beta, ContinuousBernoulli;
    "`-H(p) + log(high - low)`, infinite unless `[low, high)` covers `[0, 1]`."
);

kl!(
    /// `-H(p) - p log λ + λ` (PyTorch's `_kl_bernoulli_poisson`).
    Bernoulli, Poisson, |p, q| {
        let cross = q.rate().try_sub(&p.probs().try_mul(&q.rate().try_log()?)?)?;
        minus_entropy(p, cross)
    }
);

kl!(
    /// `-H(p)` plus the continuous Bernoulli's cross entropy at the Beta's mean.
    Beta, ContinuousBernoulli, |p, q| minus_entropy(p, continuous_bernoulli_cross(&p.mean()?, q)?)
);

kl!(
    /// `-H(p) + λ E[x] - log λ` (PyTorch's `_kl_beta_exponential`).
    Beta, Exponential, |p, q| minus_entropy(p, exponential_cross(&p.mean()?, q)?)
);

kl!(
    /// `-H(p) + log Γ(k) - k log θ - (k - 1)(ψ(α) - ψ(α + β)) + θ E[x]` (PyTorch's
    /// `_kl_beta_gamma`).
    Beta, Gamma, |p, q| {
        let (a, b) = (p.concentration1()?, p.concentration0()?);
        let mean_log = a.try_digamma()?.try_sub(&a.try_add(&b)?.try_digamma()?)?;
        let k = q.concentration();
        let cross = gamma_norm(q)?
            .try_sub(&k.try_sub_scalar(T::ONE)?.try_mul(&mean_log)?)?
            .try_add(&q.rate().try_mul(&p.mean()?)?)?;
        minus_entropy(p, cross)
    }
);

kl!(
    /// `-H(p) + λ E[x] - log λ` (PyTorch's `_kl_continuous_bernoulli_exponential`).
    ContinuousBernoulli, Exponential, |p, q| minus_entropy(p, exponential_cross(&p.mean()?, q)?)
);

kl!(
    /// With `r = θ / λ`: `-k log r + r + log Γ(k) + kγ - (1 + γ)` (PyTorch's
    /// `_kl_exponential_gamma`).
    Exponential, Gamma, |p, q| {
        let k = q.concentration();
        let r = q.rate().try_div(p.rate())?;
        k.try_mul(&r.try_log()?)?
            .try_neg()?
            .try_add(&r)?
            .try_add(&k.try_lgamma()?)?
            .try_add(&k.try_mul_scalar(T::from_f64(EULER))?)?
            .try_sub_scalar(T::from_f64(1.0 + EULER))
    }
);

kl!(
    /// With `s = λβ`, `m = μ/β`: `log s - 1 - m + e^m s / (s + 1) + 1/s` (PyTorch's
    /// `_kl_exponential_gumbel`).
    Exponential, Gumbel, |p, q| {
        let s = p.rate().try_mul(q.scale())?;
        let m = q.loc().try_div(q.scale())?;
        let t2 = m.try_exp()?.try_mul(&s)?.try_div(&s.try_add_scalar(T::ONE)?)?;
        s.try_log()?
            .try_sub_scalar(T::ONE)?
            .try_sub(&m)?
            .try_add(&t2)?
            .try_add(&s.try_reciprocal()?)
    }
);

kl!(
    /// `-H(p) + λ k/θ - log λ` (PyTorch's `_kl_gamma_exponential`).
    Gamma, Exponential, |p, q| minus_entropy(p, exponential_cross(&p.mean()?, q)?)
);

kl!(
    /// PyTorch's `_kl_gamma_gumbel`: with `s = θβ`, `m = μ/β`, `(k - 1)ψ(k) - log Γ(k) - k +
    /// log s + k/s + e^m (1 + 1/s)^(-k) - m`.
    Gamma, Gumbel, |p, q| {
        let k = p.concentration();
        let s = p.rate().try_mul(q.scale())?;
        let m = q.loc().try_div(q.scale())?;
        let t1 = k
            .try_sub_scalar(T::ONE)?
            .try_mul(&k.try_digamma()?)?
            .try_sub(&k.try_lgamma()?)?
            .try_sub(k)?;
        let t2 = s.try_log()?.try_add(&k.try_div(&s)?)?;
        let t3 = (s.try_reciprocal()?.try_log1p()?.try_mul(k)?.try_neg()?)
            .try_add(&m)?
            .try_exp()?
            .try_sub(&m)?;
        t1.try_add(&t2)?.try_add(&t3)
    }
);

kl!(
    /// PyTorch's `_kl_normal_gumbel`: with `m = μ_p/β`, `v = (σ/β)²`, `l = μ_q/β`,
    /// `-log(v)/2 + m - l + e^(-m + v/2 + l) - (1 + log 2π)/2`.
    Normal, Gumbel, |p, q| {
        let m = p.loc().try_div(q.scale())?;
        let v = p.scale().try_div(q.scale())?.try_square()?;
        let l = q.loc().try_div(q.scale())?;
        let half_v = v.try_mul_scalar(T::from_f64(0.5))?;
        let t3 = half_v.try_sub(&m)?.try_add(&l)?.try_exp()?;
        v.try_log()?
            .try_mul_scalar(T::from_f64(-0.5))?
            .try_add(&m.try_sub(&l)?)?
            .try_add(&t3)?
            .try_sub_scalar(T::from_f64(0.5 * (1.0 + (2.0 * PI).ln())))
    }
);

kl!(
    /// PyTorch's `_kl_normal_laplace`: with `d = μ_p - μ_q`, `-log(σ/b) + (σ√(2/π)
    /// e^(-d²/2σ²) + d erf(d/σ√2)) / b - (1 + log(π/2))/2`.
    Normal, Laplace, |p, q| {
        let (s, b) = (p.scale(), q.scale());
        let d = p.loc().try_sub(q.loc())?;
        let z = d.try_div(s)?;
        let t2 = z
            .try_square()?
            .try_mul_scalar(T::from_f64(-0.5))?
            .try_exp()?
            .try_mul(s)?
            .try_mul_scalar(T::from_f64((2.0 / PI).sqrt()))?;
        let t3 = d.try_mul(&z.try_mul_scalar(T::from_f64(std::f64::consts::FRAC_1_SQRT_2))?.try_erf()?)?;
        t2.try_add(&t3)?
            .try_div(b)?
            .try_sub(&s.try_div(b)?.try_log()?)?
            .try_sub_scalar(T::from_f64(0.5 * (1.0 + (0.5 * PI).ln())))
    }
);

kl!(
    /// `-H(p) + λ E[x] - log λ`, infinite for `α ≤ 1` (no mean).
    Pareto, Exponential, |p, q| {
        let kl = minus_entropy(p, exponential_cross(&Moments::mean(p)?, q)?)?;
        inf_where(p.alpha().try_le_scalar(T::ONE)?, kl)
    }
);

kl!(
    /// `-H(p) + log Γ(k) - k log θ - (k - 1)(log x_m + 1/α) + θ E[x]`, infinite for `α ≤ 1`
    /// (PyTorch's `_kl_pareto_gamma`).
    Pareto, Gamma, |p, q| {
        let mean_log = p.scale().try_log()?.try_add(&p.alpha().try_reciprocal()?)?;
        let k = q.concentration();
        let cross = gamma_norm(q)?
            .try_sub(&k.try_sub_scalar(T::ONE)?.try_mul(&mean_log)?)?
            .try_add(&q.rate().try_mul(&Moments::mean(p)?)?)?;
        let kl = minus_entropy(p, cross)?;
        inf_where(p.alpha().try_le_scalar(T::ONE)?, kl)
    }
);

kl!(
    /// `-H(p)` plus the normal's cross entropy at the Pareto's moments, infinite for `α ≤ 2`
    /// (no variance).
    Pareto, Normal, |p, q| {
        let kl = to_normal(p, q)?;
        inf_where(p.alpha().try_le_scalar(T::from_f64(2.0))?, kl)
    }
);

kl!(
    /// `-log(h - l) + log B(α, β) - (α - 1) E[log x] - (β - 1) E[log(1 - x)]`, infinite unless
    /// `[0, 1]` covers `[l, h)` (PyTorch's `_kl_uniform_beta`).
    Uniform, Beta, |p, q| {
        let (l, h) = (p.low(), p.high());
        let (a, b) = (q.concentration1()?, q.concentration0()?);
        let log_beta = a
            .try_lgamma()?
            .try_add(&b.try_lgamma()?)?
            .try_sub(&a.try_add(&b)?.try_lgamma()?)?;
        let mean_log_1m = uniform_mean_log(&h.try_rsub_scalar(T::ONE)?, &l.try_rsub_scalar(T::ONE)?)?;
        let kl = log_beta
            .try_sub(&a.try_sub_scalar(T::ONE)?.try_mul(&uniform_mean_log(l, h)?)?)?
            .try_sub(&b.try_sub_scalar(T::ONE)?.try_mul(&mean_log_1m)?)?
            .try_sub(&p.entropy()?)?;
        let outside = h
            .try_gt_scalar(T::ONE)?
            .try_logical_or(&l.try_lt_scalar(T::ZERO)?)?;
        inf_where(outside, kl)
    }
);

kl!(
    /// `-H(p)` plus the continuous Bernoulli's cross entropy at the uniform's mean, infinite
    /// unless `[0, 1]` covers `[l, h)`.
    Uniform, ContinuousBernoulli, |p, q| {
        let kl = minus_entropy(p, continuous_bernoulli_cross(&p.mean()?, q)?)?;
        let outside = p
            .high()
            .try_gt_scalar(T::ONE)?
            .try_logical_or(&p.low().try_lt_scalar(T::ZERO)?)?;
        inf_where(outside, kl)
    }
);

kl!(
    /// `λ (h + l)/2 - log((h - l) λ)`, infinite for `l < 0`.
    Uniform, Exponential, |p, q| {
        let kl = minus_entropy(p, exponential_cross(&p.mean()?, q)?)?;
        inf_where(p.low().try_lt_scalar(T::ZERO)?, kl)
    }
);

kl!(
    /// `-log(h - l) + log Γ(k) - k log θ - (k - 1) E[log x] + θ (h + l)/2`, infinite for
    /// `l < 0` (PyTorch's `_kl_uniform_gamma`).
    Uniform, Gamma, |p, q| {
        let k = q.concentration();
        let cross = gamma_norm(q)?
            .try_sub(&k.try_sub_scalar(T::ONE)?.try_mul(&uniform_mean_log(p.low(), p.high())?)?)?
            .try_add(&q.rate().try_mul(&p.mean()?)?)?;
        let kl = minus_entropy(p, cross)?;
        inf_where(p.low().try_lt_scalar(T::ZERO)?, kl)
    }
);

kl!(
    /// PyTorch's `_kl_uniform_gumbel`: with `c = β/(h - l)`, `z_h = (h - μ)/β`, `z_l = (l -
    /// μ)/β`, `log c + (z_h + z_l)/2 - c (e^(-z_h) - e^(-z_l))`.
    Uniform, Gumbel, |p, q| {
        let w = q.scale().try_div(&p.high().try_sub(p.low())?)?;
        let zh = p.high().try_sub(q.loc())?.try_div(q.scale())?;
        let zl = p.low().try_sub(q.loc())?.try_div(q.scale())?;
        let t2 = w.try_mul(&zh.try_neg()?.try_exp()?.try_sub(&zl.try_neg()?.try_exp()?)?)?;
        w.try_log()?
            .try_add(&zh.try_add(&zl)?.try_mul_scalar(T::from_f64(0.5))?)?
            .try_sub(&t2)
    }
);

kl!(
    /// `(α + 1) E[log x] - log α - α log x_m - log(h - l)`, infinite for `l < x_m` (PyTorch's
    /// `_kl_uniform_pareto`, its `x_m^α` taken in logs so it cannot overflow).
    Uniform, Pareto, |p, q| {
        let a = q.alpha();
        let kl = a
            .try_add_scalar(T::ONE)?
            .try_mul(&uniform_mean_log(p.low(), p.high())?)?
            .try_sub(&a.try_log()?)?
            .try_sub(&a.try_mul(&q.scale().try_log()?)?)?
            .try_sub(&p.entropy()?)?;
        inf_where(p.low().try_lt(q.scale())?, kl)
    }
);

/// `Chi2` is a `Gamma` (PyTorch's subclass): its pairs are the Gamma's.
macro_rules! through_gamma {
    (p: [$($q:ident),*]; q: [$($p:ident),*]) => {
        $(impl<T: FloatElement, D: Backend> KlDivergence<$q<T, D>> for Chi2<T, D> {
            type Out = Tensor<T, D>;
            /// The divergence of the Gamma it is.
            fn kl_divergence(&self, q: &$q<T, D>) -> Result<Tensor<T, D>> {
                self.gamma().kl_divergence(q)
            }
        })*
        $(impl<T: FloatElement, D: Backend> KlDivergence<Chi2<T, D>> for $p<T, D> {
            type Out = Tensor<T, D>;
            /// The divergence from the Gamma it is.
            fn kl_divergence(&self, q: &Chi2<T, D>) -> Result<Tensor<T, D>> {
                self.kl_divergence(q.gamma())
            }
        })*
    };
}

through_gamma!(p: [Gamma, Exponential, Gumbel, Normal]; q: [Gamma, Beta, Exponential, Pareto, Uniform]);
