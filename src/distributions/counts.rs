//! Counting distributions of Bernoulli trials: Binomial and Geometric (PyTorch's formulas).

use super::{Distribution, KlDivergence, check, eps, extended};
use crate::backend::Backend;
use crate::dtype::FloatElement;
use crate::error::{Error, Result};
use crate::shape::Shape;
use crate::tensor::Tensor;

/// `(x.clamp(min=0) + x - x.clamp(max=0)) / 2`: `max(x, 0)` whose gradient at 0 is 1/2
/// (PyTorch's `_clamp_by_zero`).
fn clamp_by_zero<T: FloatElement, D: Backend>(x: &Tensor<T, D>) -> Result<Tensor<T, D>> {
    x.try_clamp_min(T::ZERO)?
        .try_add(x)?
        .try_sub(&x.try_clamp_max(T::ZERO)?)?
        .try_mul_scalar(T::from_f64(0.5))
}

/// The probabilities of success and their log-odds, from either.
pub(super) fn probs_and_logits<T: FloatElement, D: Backend>(
    op: &'static str,
    probs: Option<&Tensor<T, D>>,
    logits: Option<&Tensor<T, D>>,
) -> Result<(Tensor<T, D>, Tensor<T, D>)> {
    // The trials' Bernoulli distribution checks and converts them.
    let trial = match (probs, logits) {
        (Some(p), None) => super::Bernoulli::from_probs(p),
        (None, Some(l)) => super::Bernoulli::from_logits(l),
        _ => {
            return Err(Error::InvalidArgument {
                op,
                msg: "pass exactly one of probs and logits".into(),
            });
        }
    }
    .map_err(|e| e.renamed(op))?;
    Ok((trial.probs().clone(), trial.logits().clone()))
}

/// Whole numbers: `value ≥ 0` and integral.
pub(super) fn counts<T: FloatElement, D: Backend>(value: &Tensor<T, D>) -> Result<Tensor<bool, D>> {
    value
        .try_ge_scalar(T::ZERO)?
        .try_logical_and(&value.try_eq(&value.try_floor()?)?)
}

/// The number of successes in `total_count` independent trials of probability `probs`
/// (PyTorch `Binomial`); samples are counts as `T`.
#[derive(Clone)]
pub struct Binomial<T: FloatElement, D: Backend> {
    pub(super) total_count: Tensor<T, D>,
    pub(super) probs: Tensor<T, D>,
    pub(super) logits: Tensor<T, D>,
    pub(super) batch: Shape,
}

impl<T: FloatElement, D: Backend> Binomial<T, D> {
    /// The number of trials, broadcast to the batch shape.
    pub fn total_count(&self) -> &Tensor<T, D> {
        &self.total_count
    }
    /// The success probability, broadcast to the batch shape.
    pub fn probs(&self) -> &Tensor<T, D> {
        &self.probs
    }
    /// From the trial counts and either the success probabilities or their log-odds (one of
    /// the two), broadcast together.
    ///
    /// # Errors
    /// `InvalidArgument` unless exactly one of `probs`/`logits` is given, for a count that is
    /// not a whole number, a probability outside `[0, 1]` or a NaN logit; `Broadcast`.
    pub fn new(
        total_count: &Tensor<T, D>,
        probs: Option<&Tensor<T, D>>,
        logits: Option<&Tensor<T, D>>,
    ) -> Result<Self> {
        const OP: &str = "Binomial";
        check(
            OP,
            counts(total_count)?,
            "total_count must be a whole number 0, 1, 2, ...",
        )?;
        let (p, l) = probs_and_logits(OP, probs, logits)?;
        let (all, batch) = super::broadcast(OP, &[total_count, &p, &l])?;
        let [total_count, probs, logits] = <[Tensor<T, D>; 3]>::try_from(all).expect("three");
        Ok(Binomial {
            total_count,
            probs,
            logits,
            batch,
        })
    }
    /// The mean, `n p`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn mean(&self) -> Result<Tensor<T, D>> {
        self.total_count.try_mul(&self.probs)
    }
    /// The variance, `n p (1 - p)`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn variance(&self) -> Result<Tensor<T, D>> {
        self.mean()?.try_mul(&self.probs.try_rsub_scalar(T::ONE)?)
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for Binomial<T, D> {
    type Value = Tensor<T, D>;
    fn batch_shape(&self) -> &Shape {
        &self.batch
    }
    /// Counts drawn with [`Tensor::try_binomial`] (on the host).
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        crate::autograd::no_grad(|| {
            let shape = extended(sample_shape, &self.batch);
            Tensor::try_binomial(
                &self.total_count.expand(shape.clone())?,
                &self.probs.expand(shape)?,
            )
        })
    }
    /// PyTorch's form: `k · logits - log k! - log (n-k)! - (n · max(logits, 0) + n ·
    /// log1p(e^-|logits|) - log n!)`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let ok = counts(value)?.try_logical_and(&value.try_le(&self.total_count)?)?;
        check(
            "Binomial.log_prob",
            ok,
            "the value must be a whole number from 0 to total_count",
        )?;
        let n = &self.total_count;
        let lf = |t: &Tensor<T, D>| t.try_add_scalar(T::ONE)?.try_lgamma();
        let soft = self.logits.try_abs()?.try_neg()?.try_exp()?.try_log1p()?;
        let normalize = n
            .try_mul(&clamp_by_zero(&self.logits)?)?
            .try_add(&n.try_mul(&soft)?)?
            .try_sub(&lf(n)?)?;
        value
            .try_mul(&self.logits)?
            .try_sub(&lf(value)?)?
            .try_sub(&lf(&n.try_sub(value)?)?)?
            .try_sub(&normalize)
    }
    /// `-Σ_k P(k) log P(k)` over `k = 0..=n`; PyTorch's restriction: one total count for the
    /// whole batch.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        const OP: &str = "Binomial.entropy";
        let n = crate::autograd::no_grad(|| -> Result<(f64, f64)> {
            let lo = self.total_count.try_min(&[], false)?.try_item()?.to_f64();
            let hi = self.total_count.try_max(&[], false)?.try_item()?.to_f64();
            Ok((lo, hi))
        });
        let (lo, hi) = match (self.batch.numel(), n) {
            (0, _) => return Tensor::zeros_on(self.batch.dims(), self.probs.device_handle()),
            (_, n) => n?,
        };
        if lo != hi || hi > 1e7 {
            return Err(Error::InvalidArgument {
                op: OP,
                msg: format!(
                    "needs one total_count for the whole batch, of at most 1e7 (got {lo} to {hi}; PyTorch's restriction)"
                ),
            });
        }
        let dev = self.probs.device_handle();
        let k = Tensor::<i64, D>::arange_on(0, hi as i64 + 1, 1, dev)?.try_cast::<T>()?;
        let mut dims = vec![k.numel()];
        dims.extend(std::iter::repeat_n(1, self.batch.ndim()));
        let lp = self.log_prob(&k.try_reshape(dims)?)?;
        lp.try_exp()?.try_mul(&lp)?.try_sum(&[0], false)?.try_neg()
    }
}

/// The number of failures before the first success in trials of probability `probs`
/// (PyTorch `Geometric`); samples are counts as `T`.
#[derive(Clone)]
pub struct Geometric<T: FloatElement, D: Backend> {
    pub(super) probs: Tensor<T, D>,
    pub(super) logits: Tensor<T, D>,
}

impl<T: FloatElement, D: Backend> Geometric<T, D> {
    /// The success probability.
    pub fn probs(&self) -> &Tensor<T, D> {
        &self.probs
    }
    /// From either the success probabilities (in `(0, 1]`) or their log-odds.
    ///
    /// # Errors
    /// `InvalidArgument` unless exactly one of the two is given, for a probability outside
    /// `(0, 1]`, or a NaN logit.
    pub fn new(probs: Option<&Tensor<T, D>>, logits: Option<&Tensor<T, D>>) -> Result<Self> {
        let (probs, logits) = probs_and_logits("Geometric", probs, logits)?;
        check(
            "Geometric",
            probs.try_gt_scalar(T::ZERO)?,
            "probs must be positive",
        )?;
        Ok(Geometric { probs, logits })
    }
    /// The mean, `1/p - 1`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn mean(&self) -> Result<Tensor<T, D>> {
        self.probs.try_reciprocal()?.try_sub_scalar(T::ONE)
    }
    /// The variance, `(1/p - 1) / p`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn variance(&self) -> Result<Tensor<T, D>> {
        self.mean()?.try_div(&self.probs)
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for Geometric<T, D> {
    type Value = Tensor<T, D>;
    fn batch_shape(&self) -> &Shape {
        self.probs.shape()
    }
    /// `floor(log u / log(1 - p))` for uniform `u` (PyTorch's draw).
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        crate::autograd::no_grad(|| {
            let shape = extended(sample_shape, self.probs.shape());
            let u = Tensor::<T, D>::rand_on(shape, self.probs.device_handle())?
                .try_clamp_min(T::from_f64(eps::<T>()))?;
            u.try_log()?
                .try_div(&self.probs.try_neg()?.try_log1p()?)?
                .try_floor()
        })
    }
    /// `value · log(1 - p) + log p`, with `0 · log 0` read as 0 at `p = 1`.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        check(
            "Geometric.log_prob",
            counts(value)?,
            "the value must be a count 0, 1, 2, ...",
        )?;
        let dev = self.probs.device_handle();
        let sure = self
            .probs
            .try_eq_scalar(T::ONE)?
            .try_logical_and(&value.try_eq_scalar(T::ZERO)?)?;
        let p = Tensor::try_where(&sure, &Tensor::scalar_on(T::ZERO, dev)?, &self.probs)?;
        value
            .try_mul(&p.try_neg()?.try_log1p()?)?
            .try_add(&self.probs.try_log()?)
    }
    /// `BCE-with-logits(logits, p) / p`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        let bce = self
            .logits
            .try_softplus()?
            .try_sub(&self.logits.try_mul(&self.probs)?)?;
        bce.try_div(&self.probs)
    }
}

/// The class counts of `total_count` independent draws from a categorical distribution over
/// the last axis (PyTorch `Multinomial`); samples are count vectors `(..., k)` as `T`.
#[derive(Clone)]
pub struct Multinomial<T: FloatElement, D: Backend> {
    pub(super) total_count: usize,
    pub(super) classes: super::Categorical<T, D>,
}

impl<T: FloatElement, D: Backend> Multinomial<T, D> {
    /// From the number of draws and either class weights (normalised) or unnormalised
    /// log-probabilities along the last axis (one of the two).
    ///
    /// # Errors
    /// As [`super::Categorical::from_probs`]/[`super::Categorical::from_logits`];
    /// `InvalidArgument` unless exactly one of the two is given.
    pub fn new(
        total_count: usize,
        probs: Option<&Tensor<T, D>>,
        logits: Option<&Tensor<T, D>>,
    ) -> Result<Self> {
        let classes = super::relaxed::categorical("Multinomial", probs, logits)?;
        Ok(Multinomial {
            total_count,
            classes,
        })
    }
    fn n(&self) -> T {
        T::from_f64(self.total_count as f64)
    }
    /// The mean counts, `n p`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn mean(&self) -> Result<Tensor<T, D>> {
        self.classes.probs().try_mul_scalar(self.n())
    }
    /// The variances, `n p (1 - p)`.
    ///
    /// # Errors
    /// Allocation failure.
    pub fn variance(&self) -> Result<Tensor<T, D>> {
        let p = self.classes.probs();
        p.try_mul(&p.try_rsub_scalar(T::ONE)?)?
            .try_mul_scalar(self.n())
    }
}

impl<T: FloatElement, D: Backend> Distribution<T, D> for Multinomial<T, D> {
    type Value = Tensor<T, D>;
    fn batch_shape(&self) -> &Shape {
        self.classes.batch_shape()
    }
    fn event_shape(&self) -> Vec<usize> {
        vec![self.classes.num_classes()]
    }
    /// `total_count` class draws per sample, counted per class.
    fn sample(&self, sample_shape: &[usize]) -> Result<Tensor<T, D>> {
        let k = self.classes.num_classes();
        let mut dims = extended(sample_shape, self.classes.batch_shape());
        dims.push(k);
        let dev = self.classes.probs().device_handle();
        let counts = Tensor::<T, D>::zeros_on(dims.clone(), dev)?;
        if self.total_count == 0 || counts.numel() == 0 {
            return Ok(counts);
        }
        let mut draw_shape = vec![self.total_count];
        draw_shape.extend_from_slice(sample_shape);
        let draws = self.classes.sample(&draw_shape)?; // (n, sample.., batch..)
        let ones = Tensor::<T, D>::ones_on(draws.dims(), dev)?;
        let flat = counts.try_reshape([counts.numel() / k, k])?;
        let at = draws.movedim(&[0], &[-1])?.try_contiguous()?;
        let at = at.try_reshape([flat.dims()[0], self.total_count])?;
        let ones = ones.try_reshape(at.dims())?;
        crate::autograd::no_grad(|| flat.try_scatter_add(1, &at, &ones)?.try_reshape(dims))
    }
    /// `log n! - Σ log x_i! + Σ x_i log p_i`, with `0 · log 0` read as 0.
    fn log_prob(&self, value: &Tensor<T, D>) -> Result<Tensor<T, D>> {
        let whole = counts(value)?.try_all(&[-1], false)?;
        let total = value.try_sum(&[-1], false)?.try_eq_scalar(self.n())?;
        check(
            "Multinomial.log_prob",
            whole.try_logical_and(&total)?,
            "the value must be whole counts summing to total_count along the last axis",
        )?;
        let logits = self.classes.logits();
        let unused = value.try_eq_scalar(T::ZERO)?;
        let zero = Tensor::scalar_on(T::ZERO, value.device_handle())?;
        let powers =
            Tensor::try_where(&unused, &zero, &logits.try_mul(value)?)?.try_sum(&[-1], false)?;
        let lf = |t: &Tensor<T, D>| t.try_add_scalar(T::ONE)?.try_lgamma();
        lf(&value.try_sum(&[-1], false)?)?
            .try_sub(&lf(value)?.try_sum(&[-1], false)?)?
            .try_add(&powers)
    }
    /// PyTorch's form: `n H(p) - log n! + Σ_k Σ_{x=1..n} Binomial(n, p_k)(x) log x!`.
    fn entropy(&self) -> Result<Tensor<T, D>> {
        let n = self.total_count;
        let dev = self.classes.probs().device_handle();
        let h = self.classes.entropy()?;
        let lgn = T::from_f64(libm::lgamma(n as f64 + 1.0));
        let term1 = h.try_mul_scalar(self.n())?.try_sub_scalar(lgn)?;
        if n == 0 {
            return Ok(term1);
        }
        if n > 10_000_000 {
            return Err(Error::InvalidArgument {
                op: "Multinomial.entropy",
                msg: format!("sums over 1..=total_count, at most 1e7 here (got {n})"),
            });
        }
        let count = Tensor::<T, D>::scalar_on(self.n(), dev)?;
        let binomial = Binomial::new(&count, Some(self.classes.probs()), None)?;
        let mut dims = vec![n];
        dims.extend(std::iter::repeat_n(1, self.classes.probs().ndim()));
        let support = Tensor::<i64, D>::arange_on(1, n as i64 + 1, 1, dev)?
            .try_cast::<T>()?
            .try_reshape(dims)?;
        let probs = binomial.log_prob(&support)?.try_exp()?;
        let weights = support.try_add_scalar(T::ONE)?.try_lgamma()?;
        term1.try_add(&probs.try_mul(&weights)?.try_sum(&[0, -1], false)?)
    }
}

impl<T: FloatElement, D: Backend> KlDivergence<Geometric<T, D>> for Geometric<T, D> {
    type Out = Tensor<T, D>;
    /// PyTorch's `_kl_geometric_geometric`: `-H(p) - log(1 - q)/p - logit(q)`.
    fn kl_divergence(&self, q: &Geometric<T, D>) -> Result<Tensor<T, D>> {
        self.entropy()?
            .try_neg()?
            .try_sub(&q.probs.try_neg()?.try_log1p()?.try_div(&self.probs)?)?
            .try_sub(&q.logits)
    }
}

impl<T: FloatElement, D: Backend> KlDivergence<Binomial<T, D>> for Binomial<T, D> {
    type Out = Tensor<T, D>;
    /// PyTorch's `_kl_binomial_binomial`: `n (p (logit p - logit q) + log(1 - p) - log(1 -
    /// q))`, infinite where `self`'s count exceeds `q`'s.
    ///
    /// # Errors
    /// `InvalidArgument` where `q`'s count exceeds `self`'s (PyTorch's `NotImplementedError`).
    fn kl_divergence(&self, q: &Binomial<T, D>) -> Result<Tensor<T, D>> {
        let fewer = self.total_count.try_lt(&q.total_count)?;
        check(
            "kl_divergence",
            fewer.try_logical_not()?,
            "KL between Binomials where q.total_count > p.total_count is not implemented (PyTorch's restriction)",
        )?;
        let (p, n) = (&self.probs, &self.total_count);
        let kl = p
            .try_mul(&self.logits.try_sub(&q.logits)?)?
            .try_add(&p.try_neg()?.try_log1p()?)?
            .try_sub(&q.probs.try_neg()?.try_log1p()?)?
            .try_mul(n)?;
        let inf = Tensor::scalar_on(T::from_f64(f64::INFINITY), n.device_handle())?;
        Tensor::try_where(&n.try_gt(&q.total_count)?, &inf, &kl)
    }
}
