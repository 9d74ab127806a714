//! The CPU's fused optimizer updates ([`crate::backend::Backend::adam_step`],
//! [`crate::backend::Backend::sgd_step`]): one pass over a parameter, its gradient and its
//! state buffers (Adam's moments and AMSGrad maximum, SGD's momentum), where the composed update
//! makes up to a dozen passes and as many temporaries. Each operation is rounded as the composed
//! update rounds it (for Adam the formula of `ADAM_STEP` in `kernels/binary.cu`, which has no L2
//! term, sign or AMSGrad), so both give the same bits.

use crate::backend::cpu::kernels::strided::PAR_THRESHOLD;
use crate::backend::{AdamHyper, SgdHyper, fused_operands_fit};
use crate::device::Cpu;
use crate::dtype::{Element, FloatElement, NumElement};
use crate::error::Result;
use crate::tensor::Tensor;
use num_traits::Float;
use rayon::prelude::*;

/// Runs `f` over matching chunks of a parameter, its gradient and its state buffers on the
/// thread pool, or returns `false`, having written nothing, unless the operands fit
/// ([`fused_operands_fit`]) and their buffers can all be locked at once without waiting
/// (another guard on one of them: the composed update then waits, or returns the conflict's
/// `Err`). The buffers are try-locked, so holding some write guards never waits for another.
fn fused<T: FloatElement>(
    op: &'static str,
    p: &mut Tensor<T, Cpu>,
    g: &Tensor<T, Cpu>,
    states: &[&Tensor<T::Acc, Cpu>],
    f: impl Fn(&mut [T], &[T], &mut [&mut [T::Acc]]) + Sync,
) -> Result<bool> {
    if !fused_operands_fit(p, g, states) {
        return Ok(false);
    }
    p.check_writable(op)?;
    for s in states {
        s.check_writable(op)?;
    }
    let n = p.numel();
    let (Some(gg), Some(mut gp)) = (g.storage.try_read_recursive(), p.storage.try_write()) else {
        return Ok(false);
    };
    let mut gs = Vec::with_capacity(states.len());
    for s in states {
        match s.storage.try_write() {
            Some(w) => gs.push(w),
            None => return Ok(false),
        }
    }
    let chunk = if n < PAR_THRESHOLD {
        n.max(1)
    } else {
        n.div_ceil(rayon::current_num_threads() * 4)
            .next_multiple_of(64)
    };
    let mut parts: Vec<_> = gs.iter_mut().map(|w| w[..n].chunks_mut(chunk)).collect();
    let jobs: Vec<_> = (gp[..n].chunks_mut(chunk))
        .zip(gg[..n].chunks(chunk))
        .map(|(pc, gc)| {
            // Every buffer holds `n` elements: one chunk of each per chunk of `p`.
            let sc = parts.iter_mut().map(|it| it.next().unwrap_or_default());
            (pc, gc, sc.collect::<Vec<_>>())
        })
        .collect();
    jobs.into_par_iter()
        .for_each(|(pc, gc, mut sc)| f(pc, gc, &mut sc));
    Ok(true)
}

/// The fused Adam/AdamW step ([`crate::backend::Backend::adam_step`]) through [`fused`].
pub(crate) fn adam_step<T: FloatElement>(
    p: &mut Tensor<T, Cpu>,
    g: &Tensor<T, Cpu>,
    m: &mut Tensor<T::Acc, Cpu>,
    v: &mut Tensor<T::Acc, Cpu>,
    v_max: Option<&mut Tensor<T::Acc, Cpu>>,
    h: &AdamHyper,
) -> Result<bool> {
    let states = match v_max {
        Some(w) => vec![&*m, &*v, &*w],
        None => vec![&*m, &*v],
    };
    fused("Adam::step", p, g, &states, |p, g, s| match s {
        [m, v] => update(p, g, m, v, None, h),
        [m, v, w] => update(p, g, m, v, Some(&mut **w), h),
        _ => unreachable!("two or three state buffers"),
    })
}

/// The fused SGD step ([`crate::backend::Backend::sgd_step`]) through [`fused`]. The loop is
/// four streams of loads and stores with a few products: memory-bound, so compiled for the
/// default target only.
pub(crate) fn sgd_step<T: FloatElement>(
    p: &mut Tensor<T, Cpu>,
    g: &Tensor<T, Cpu>,
    buf: Option<&mut Tensor<T::Acc, Cpu>>,
    h: &SgdHyper,
) -> Result<bool> {
    let states: Vec<_> = buf.iter().map(|b| &**b).collect();
    fused("Sgd::step", p, g, &states, |p, g, s| {
        let a = <T::Acc as Element>::from_f64;
        let (lr, l2, mu, keep) = (a(h.lr), a(h.l2), a(h.momentum), a(1.0 - h.dampening));
        let (has_l2, maximize, first, nesterov) = (h.l2 != 0.0, h.maximize, h.first, h.nesterov);
        // As `optim::Sgd`'s composed step: the gradient with its sign and L2 term, the
        // momentum buffer, then `p ← p - T(lr·g)`.
        let grad = |p: &T, g: T| {
            let g = g.to_acc();
            let g = if maximize { -g } else { g };
            if has_l2 { g + p.to_acc() * l2 } else { g }
        };
        let descend =
            |p: &mut T, d: T::Acc| *p = T::from_acc(p.to_acc() - T::from_acc(d * lr).to_acc());
        match s {
            [] => p
                .iter_mut()
                .zip(g)
                .for_each(|(p, &g)| descend(p, grad(p, g))),
            [b] => {
                for ((p, &g), b) in p.iter_mut().zip(g).zip(b.iter_mut()) {
                    let g = grad(p, g);
                    *b = if first { g } else { *b * mu + g * keep };
                    descend(p, if nesterov { g + *b * mu } else { *b });
                }
            }
            _ => unreachable!("at most one momentum buffer"),
        }
    })
}

/// One chunk of the update: `g ← ±g + l2·p`, `p ← p·decay`, `m ← β₁m + (1-β₁)g`,
/// `v ← β₂v + (1-β₂)g²`, `v̂ ← max(v̂, v)` with AMSGrad (else `v̂ = v`),
/// `p ← p - T(step · m/(√v̂/c₂ + ε))`, each product and sum rounded separately (Rust never
/// contracts them into a fused multiply-add), in `T`'s compute type, as the composed ops do.
/// The default x86-64 target has only SSE2, so the loop is also compiled for AVX2 and AVX-512
/// and picked at run time (twice the lanes for the divisions and the square root).
fn update<T: FloatElement>(
    p: &mut [T],
    g: &[T],
    m: &mut [T::Acc],
    v: &mut [T::Acc],
    v_max: Option<&mut [T::Acc]>,
    h: &AdamHyper,
) {
    #[inline(always)]
    fn body<T: FloatElement>(
        p: &mut [T],
        g: &[T],
        m: &mut [T::Acc],
        v: &mut [T::Acc],
        v_max: Option<&mut [T::Acc]>,
        h: &AdamHyper,
    ) {
        let a = <T::Acc as Element>::from_f64;
        let (b1, b2) = h.betas;
        let (b1, b1c, b2, b2c) = (a(b1), a(1.0 - b1), a(b2), a(1.0 - b2));
        let (c2, eps, step, l2) = (a(h.c2_sqrt), a(h.eps), a(h.step), a(h.l2));
        let decay = T::from_f64(h.decay).to_acc();
        let (decays, has_l2, maximize) = (h.decay != 1.0, h.l2 != 0.0, h.maximize);
        // One element; `vm` is the AMSGrad maximum. The flags are the same for every
        // element, so the selects below are branch-free blends, and the two loops each
        // inline their own copy with `vm` known to be present or absent.
        let element = |p: &mut T, g: T, m: &mut T::Acc, v: &mut T::Acc, vm: Option<&mut T::Acc>| {
            let g = g.to_acc();
            let g = if maximize { -g } else { g };
            let g = if has_l2 { g + p.to_acc() * l2 } else { g };
            let pd = if decays {
                T::from_acc(p.to_acc() * decay)
            } else {
                *p
            };
            *m = *m * b1 + g * b1c;
            *v = *v * b2 + g * g * b2c;
            let vh = match vm {
                Some(vm) => {
                    *vm = vm.max_of(*v);
                    *vm
                }
                None => *v,
            };
            let u = *m / (vh.sqrt() / c2 + eps) * step;
            *p = T::from_acc(pd.to_acc() - T::from_acc(u).to_acc());
        };
        let moments = p.iter_mut().zip(g).zip(m.iter_mut()).zip(v.iter_mut());
        match v_max {
            Some(w) => {
                for ((((p, &g), m), v), vm) in moments.zip(w.iter_mut()) {
                    element(p, g, m, v, Some(vm));
                }
            }
            None => {
                for (((p, &g), m), v) in moments {
                    element(p, g, m, v, None);
                }
            }
        }
    }
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f")]
        fn avx512<T: FloatElement>(
            p: &mut [T],
            g: &[T],
            m: &mut [T::Acc],
            v: &mut [T::Acc],
            v_max: Option<&mut [T::Acc]>,
            h: &AdamHyper,
        ) {
            body(p, g, m, v, v_max, h)
        }
        #[target_feature(enable = "avx2")]
        fn avx2<T: FloatElement>(
            p: &mut [T],
            g: &[T],
            m: &mut [T::Acc],
            v: &mut [T::Acc],
            v_max: Option<&mut [T::Acc]>,
            h: &AdamHyper,
        ) {
            body(p, g, m, v, v_max, h)
        }
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, checked just above.
            return unsafe { avx512(p, g, m, v, v_max, h) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { avx2(p, g, m, v, v_max, h) };
        }
    }
    body(p, g, m, v, v_max, h)
}
