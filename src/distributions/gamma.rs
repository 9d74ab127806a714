//! The gamma family and its normalisations: Gamma, Beta, Dirichlet (PyTorch's formulas).
//! Samples are drawn on the host (`rand_distr`'s `Gamma`) from the global generator, so every
//! device gives the same values for a seed. `rsample` is differentiable in the parameters by
//! implicit reparameterization, as PyTorch's: a draw `x` of `Gamma(α, 1)` moves with `α` as
//! `dx/dα = -(∂P(α, x)/∂α) / p(x; α)`, `P` the regularized incomplete gamma function and `p`
//! the density, computed in f64 on the host when the draw is made.

use super::{Distribution, KlDivergence, broadcast, check, extended};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;
use rand_distr::Distribution as _;

/// `dx/dα` for a draw `x` of `Gamma(α, 1)`: `-(∂P(α, x)/∂α) / p(x; α)`, the derivative of `P`
/// (or of `Q = 1 - P` where that is the smaller, for accuracy in the upper tail) by a central
/// difference in f64.
fn gamma_sample_grad(alpha: f64, x: f64) -> f64 {
    use crate::ops::igamma::{gammainc, gammaincc};
    if !(x > 0.0 && x.is_finite()) {
        return 0.0;
    }
    let h = 1e-5 * alpha.max(1e-3);
    let lo = (alpha - h).max(alpha * 0.5);
    let (side, dp) = if gammainc(alpha, x) <= 0.5 {
        (1.0, gammainc(alpha + h, x) - gammainc(lo, x))
    } else {
        (-1.0, gammaincc(alpha + h, x) - gammaincc(lo, x))
    };
    let d_p = side * dp / (alpha + h - lo);
    let log_pdf = (alpha - 1.0) * x.ln() - x - libm::lgamma(alpha);
    let g = -d_p / log_pdf.exp();
    if g.is_finite() { g } else { 0.0 }
}

/// One `Gamma(α, 1)` draw per element of `alpha` (positive, checked by the constructors),
/// differentiable in `alpha` by implicit reparameterization when it requires grad.
pub(super) fn standard_gamma<T: FloatElement, D: Backend>(
    alpha: &Tensor<T, D>,
) -> Result<Tensor<T, D>> {
    const OP: &str = "Gamma.sample";
    let a = crate::autograd::no_grad(|| alpha.try_to_vec())?;
    let tracked = crate::autograd::is_grad_enabled() && alpha.requires_grad();
    let (draws, slopes) = crate::tensor::with_global_rng(|rng| {
        let mut out = crate::alloc::with_capacity(OP, a.len())?;
        let mut slopes = crate::alloc::with_capacity(OP, if tracked { a.len() } else { 0 })?;
        for &ai in &a {
            let ai = ai.to_f64();
            let g = rand_distr::Gamma::new(ai, 1.0).map_err(|e| Error::InvalidArgument {
                op: OP,
                msg: format!("concentration {ai}: {e}"),
            })?;
            let x = g.sample(rng);
            out.push(T::from_f64(x));
            if tracked {
                slopes.push(T::from_f64(gamma_sample_grad(ai, x)));
            }
        }
        Ok::<_, Error>((out, slopes))
    })?;
    let (dims, dev) = (alpha.dims().to_vec(), alpha.device_handle());
    let x = Tensor::from_vec_on(draws, dims.clone(), dev)?;
    if !tracked {
        return Ok(x);
    }
    let slope = Tensor::from_vec_on(slopes, dims, dev)?;
    crate::autograd::custom(
        "standard_gamma",
        &[alpha],
        |_| Ok(x),
        move |g, _, _| Ok(vec![Some(g.try_mul(&slope)?)]),
    )
}

pub(super) fn positive<T: FloatElement, D: Backend>(
    op: &'static str,
    what: &str,
    t: &Tensor<T, D>,
) -> Result<()> {
    let finite = t.try_is_finite()?;
    check(
        op,
        t.try_gt_scalar(T::ZERO)?.try_logical_and(&finite)?,
        &format!("{what} must be positive and finite"),
    )
}

/// `Σ lgamma(c) - lgamma(Σ c) - (k - Σ c) ψ(Σ c) - Σ (c - 1) ψ(c)` over the last axis: the
/// Dirichlet entropy (the Beta's with `k = 2`).
fn dirichlet_entropy<T: FloatElement, D: Backend>(c: &Tensor<T, D>) -> Result<Tensor<T, D>> {
    let k = c.dims()[c.ndim() - 1] as f64;
    let a0 = c.try_sum(&[-1], false)?;
    c.try_lgamma()?
        .try_sum(&[-1], false)?
        .try_sub(&a0.try_lgamma()?)?
        .try_sub(
            &a0.try_rsub_scalar(T::from_f64(k))?
                .try_mul(&a0.try_digamma()?)?,
        )?
        .try_sub(
            &c.try_sub_scalar(T::ONE)?
                .try_mul(&c.try_digamma()?)?
                .try_sum(&[-1], false)?,
        )
}

/// The gamma distribution with `concentration` α and `rate` β (PyTorch `Gamma`).
#[derive(Clone)]
pub struct Gamma<T: FloatElement, D: Backend> {
    concentration: Tensor<T, D>,
    rate: Tensor<T, D>,
    batch: Shape,
}

impl<T: FloatElement, D: Backend> Gamma<T, D> {
    /// The density `β^α x^(α-1) e^(-βx) / Γ(α)` on `x > 0`, the parameters broadcast.
    ///
    /// # Errors
    /// `Broadcast`; `InvalidArgument` for a parameter that is not positive and finite.
    pub fn new(concentration: &Tensor<T, D>, rate: &Tensor<T, D>) -> Result<Self> {
        let (p, batch) = broadcast("Gamma", &[concentration, rate])?;
        positive("Gamma", "concentration", &p[0])?;
        positive("Gamma", "rate", &p[1])?;
        let [concentration, rate] = <[Tensor<T, D>; 2]>::try_from(p).expect("two parameters");
        Ok(Gamma {
            concentration,
            rate,
            batch,
        })
    }
    /// The concentration α, broadcast to the batch shape.
    pub fn concentration(&self) -> &Tensor<T, D> {
        &self.concentration
    }
    /// The rate β, broadcast to the batch shape.
    pub fn rate(&self) -> &Tensor<T, D> {
        &self.rate
    }
    /// The mean, `α / β`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn mean(&self) -> Result<Tensor<T, D>> {
        self.concentration.try_div(&self.rate)
    }
    /// The variance, `α / β²`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn variance(&self) -> Result<Tensor<T, D>> {
        self.concentration.try_div(&self.rate.try_mul(&self.rate)?)
    }
    /// Draws of `Gamma(α, 1) / β`, differentiable in both parameters (implicit
    /// reparameterization in `α`).
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        let alpha = self
            .concentration
            .expand(extended(sample_shape, &self.batch))?;
        standard_gamma(&alpha)?.try_div(&self.rate)
    }
    /// `P(X ≤ value)`, the regularized lower incomplete gamma function `P(α, β value)`.
    ///
    /// # Errors
    /// As [`Distribution::log_prob`].
    pub fn cdf(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        check(
            "Gamma.cdf",
            value.try_ge_scalar(T::ZERO)?,
            "the value lies outside the support [0, inf)",
        )?;
        self.concentration.try_gammainc(&self.rate.try_mul(value)?)
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for Gamma<T, D> {
    type Value = Tensor<T, D>;
    reparameterized!();
    /// `xlogy(α, β) + xlogy(α - 1, value) - β value - lgamma(α)`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        check(
            "Gamma.log_prob",
            value.try_gt_scalar(T::ZERO)?,
            "the value lies outside the support (0, inf)",
        )?;
        let a = &self.concentration;
        a.try_xlogy(&self.rate)?
            .try_add(&a.try_sub_scalar(T::ONE)?.try_xlogy(value)?)?
            .try_sub(&self.rate.try_mul(value)?)?
            .try_sub(&a.try_lgamma()?)
    }
    /// `α - log β + lgamma(α) + (1 - α) ψ(α)`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        let a = &self.concentration;
        a.try_sub(&self.rate.try_log()?)?
            .try_add(&a.try_lgamma()?)?
            .try_add(&a.try_rsub_scalar(T::ONE)?.try_mul(&a.try_digamma()?)?)
    }
}

impl<T: FloatElement, D: Backend> KlDivergence<Gamma<T, D>> for Gamma<T, D> {
    type Out = Tensor<T, D>;
    /// PyTorch's `_kl_gamma_gamma`.
    fn kl_divergence(&self, q: &Gamma<T, D>) -> Result<Tensor<T, D>> {
        let (pa, pb, qa, qb) = (&self.concentration, &self.rate, &q.concentration, &q.rate);
        let t1 = qa.try_mul(&pb.try_div(qb)?.try_log()?)?;
        let t2 = qa.try_lgamma()?.try_sub(&pa.try_lgamma()?)?;
        let t3 = pa.try_sub(qa)?.try_mul(&pa.try_digamma()?)?;
        let t4 = qb.try_sub(pb)?.try_mul(&pa.try_div(pb)?)?;
        t1.try_add(&t2)?.try_add(&t3)?.try_add(&t4)
    }
}

/// The Dirichlet distribution over the probability simplex of the last axis of its
/// `concentration` `(..., k)` (PyTorch `Dirichlet`).
#[derive(Clone)]
pub struct Dirichlet<T: FloatElement, D: Backend> {
    concentration: Tensor<T, D>,
    batch: Shape,
}

impl<T: FloatElement, D: Backend> Dirichlet<T, D> {
    /// The concentration `α`, `(..., K)`.
    pub fn concentration(&self) -> &Tensor<T, D> {
        &self.concentration
    }
    /// The density `Γ(Σα) / Π Γ(α_i) · Π x_i^(α_i - 1)` on the simplex.
    ///
    /// # Errors
    /// `InvalidArgument` for a 0-d tensor or one without classes, or a concentration that is
    /// not positive and finite.
    pub fn new(concentration: &Tensor<T, D>) -> Result<Self> {
        let Some((_, batch)) = concentration.dims().split_last().filter(|(k, _)| **k > 0) else {
            return Err(Error::InvalidArgument {
                op: "Dirichlet",
                msg: format!(
                    "needs a concentration (..., k) with k > 0, got {}",
                    concentration.shape()
                ),
            });
        };
        positive("Dirichlet", "concentration", concentration)?;
        Ok(Dirichlet {
            concentration: concentration.clone(),
            batch: Shape::new(batch.to_vec()),
        })
    }
    /// The mean, `α / Σα`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn mean(&self) -> Result<Tensor<T, D>> {
        let c = &self.concentration;
        c.try_div(&c.try_sum(&[-1], true)?)
    }
    /// Gamma draws normalised over the last axis, differentiable in the concentration.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        let dims: Vec<usize> = (sample_shape.iter())
            .chain(self.concentration.dims())
            .copied()
            .collect();
        let g = standard_gamma(&self.concentration.expand(dims)?)?;
        g.try_div(&g.try_sum(&[-1], true)?)
    }
    /// The variances, `α (Σα - α) / ((Σα)² (Σα + 1))`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn variance(&self) -> Result<Tensor<T, D>> {
        let c = &self.concentration;
        let a0 = c.try_sum(&[-1], true)?;
        let den = a0.try_mul(&a0)?.try_mul(&a0.try_add_scalar(T::ONE)?)?;
        c.try_mul(&a0.try_sub(c)?)?.try_div(&den)
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for Dirichlet<T, D> {
    type Value = Tensor<T, D>;
    fn batch_shape(&self) -> &Shape {
        &self.batch
    }
    fn event_shape(&self) -> Vec<usize> {
        vec![self.concentration.dims()[self.concentration.ndim() - 1]]
    }
    /// Gamma draws normalised over the last axis.
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        crate::autograd::no_grad(|| self.rsample(sample_shape))
    }
    /// `Σ xlogy(α - 1, value) + lgamma(Σα) - Σ lgamma(α)` over the last axis.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let c = &self.concentration;
        super::simplex("Dirichlet.log_prob", value)?;
        c.try_sub_scalar(T::ONE)?
            .try_xlogy(value)?
            .try_sum(&[-1], false)?
            .try_add(&c.try_sum(&[-1], false)?.try_lgamma()?)?
            .try_sub(&c.try_lgamma()?.try_sum(&[-1], false)?)
    }
    fn entropy(&self) -> Result<Tensor<T, D>> {
        dirichlet_entropy(&self.concentration)
    }
}

impl<T: FloatElement, D: Backend> KlDivergence<Dirichlet<T, D>> for Dirichlet<T, D> {
    type Out = Tensor<T, D>;
    /// PyTorch's `_kl_dirichlet_dirichlet`.
    fn kl_divergence(&self, q: &Dirichlet<T, D>) -> Result<Tensor<T, D>> {
        let (p, r) = (&self.concentration, &q.concentration);
        let (sp, sq) = (p.try_sum(&[-1], false)?, r.try_sum(&[-1], false)?);
        let t1 = sp.try_lgamma()?.try_sub(&sq.try_lgamma()?)?;
        let t2 = p
            .try_lgamma()?
            .try_sub(&r.try_lgamma()?)?
            .try_sum(&[-1], false)?;
        let t4 = p
            .try_digamma()?
            .try_sub(&sp.try_digamma()?.unsqueeze(-1)?)?;
        let t34 = p.try_sub(r)?.try_mul(&t4)?.try_sum(&[-1], false)?;
        t1.try_sub(&t2)?.try_add(&t34)
    }
}

/// The beta distribution on `[0, 1]` with `concentration1` α and `concentration0` β
/// (PyTorch `Beta`): the Dirichlet of `(α, β)` read at its first class.
#[derive(Clone)]
pub struct Beta<T: FloatElement, D: Backend> {
    pair: Dirichlet<T, D>,
}

impl<T: FloatElement, D: Backend> Beta<T, D> {
    /// The density `x^(α-1) (1-x)^(β-1) / B(α, β)`, the parameters broadcast.
    ///
    /// # Errors
    /// As [`Gamma::new`].
    pub fn new(concentration1: &Tensor<T, D>, concentration0: &Tensor<T, D>) -> Result<Self> {
        let (p, _) = broadcast("Beta", &[concentration1, concentration0])?;
        Ok(Beta {
            pair: Dirichlet::new(&Tensor::try_stack(&[&p[0], &p[1]], -1)?)
                .map_err(|e| e.renamed("Beta"))?,
        })
    }
    /// The concentration α (the exponent of `x`), broadcast to the batch shape.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn concentration1(&self) -> Result<Tensor<T, D>> {
        self.pair.concentration.select(-1, 0)
    }
    /// The concentration β (the exponent of `1 - x`), broadcast to the batch shape.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn concentration0(&self) -> Result<Tensor<T, D>> {
        self.pair.concentration.select(-1, 1)
    }
    /// Draws through the Dirichlet of `(α, β)`, differentiable in both.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn rsample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        self.pair.rsample(sample_shape)?.select(-1, 0)
    }
    /// The mean, `α / (α + β)`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn mean(&self) -> Result<Tensor<T, D>> {
        self.pair.mean()?.select(-1, 0)
    }
    /// The variance, `αβ / ((α + β)² (α + β + 1))`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn variance(&self) -> Result<Tensor<T, D>> {
        self.pair.variance()?.select(-1, 0)
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for Beta<T, D> {
    type Value = Tensor<T, D>;
    fn batch_shape(&self) -> &Shape {
        self.pair.batch_shape()
    }
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        crate::autograd::no_grad(|| self.rsample(sample_shape))
    }
    /// `xlogy(α - 1, value) + xlogy(β - 1, 1 - value) - log B(α, β)`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        super::unit_interval("Beta.log_prob", value)?;
        let pair = Tensor::try_stack(&[value, &value.try_rsub_scalar(T::ONE)?], -1)?;
        self.pair.log_prob(&pair)
    }
    fn entropy(&self) -> Result<Tensor<T, D>> {
        self.pair.entropy()
    }
}

impl<T: FloatElement, D: Backend> KlDivergence<Beta<T, D>> for Beta<T, D> {
    type Out = Tensor<T, D>;
    /// The Dirichlet divergence of the pairs (PyTorch's `_kl_beta_beta` in another form).
    fn kl_divergence(&self, q: &Beta<T, D>) -> Result<Tensor<T, D>> {
        self.pair.kl_divergence(&q.pair)
    }
}

#[cfg(test)]
mod tests {
    /// Against `-(∂P/∂α) / p` evaluated by mpmath at 40 digits. (PyTorch 2.15's
    /// `_standard_gamma_grad` approximates it: 1.2812759768 for 1.2814150454 at α 7.5, x 12,
    /// 3.6154156329 for 3.6206664840 at α 1, x 20.)
    #[test]
    fn implicit_gamma_gradient_is_exact() {
        let a = [0.1, 0.5, 1.0, 2.0, 7.5, 30.0, 0.5, 3.0, 100.0, 1.0];
        let x = [0.01, 0.3, 1.0, 0.5, 12.0, 25.0, 4.0, 0.05, 110.0, 20.0];
        let want = [
            0.4227934381297028,
            1.0098019459488545,
            1.1735630272247268,
            0.4980267179922236,
            1.2814150454308808,
            0.9166815997356572,
            3.2062683672150203,
            0.0718119317733676,
            1.0501606212457175,
            3.6206664839514846,
        ];
        for ((&a, &x), &w) in a.iter().zip(&x).zip(&want) {
            let g = super::gamma_sample_grad(a, x);
            assert!(
                (g - w).abs() < 1e-6 * w.abs(),
                "α {a}, x {x}: {g} against {w}"
            );
        }
    }
}
