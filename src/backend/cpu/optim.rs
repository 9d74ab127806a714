//! The CPU's fused Adam/AdamW update ([`crate::backend::Backend::adam_step`]): one pass over a
//! parameter, its gradient and its moments (the AMSGrad maximum too), where the composed update
//! makes about a dozen passes and as many temporaries. Each operation is rounded as the composed update rounds it
//! (the formula of `ADAM_STEP` in `kernels/binary.cu`, which has no L2 term, sign or AMSGrad),
//! so both give the same bits.

use crate::backend::cpu::kernels::strided::PAR_THRESHOLD;
use crate::backend::{AdamHyper, adam_operands_fit};
use crate::device::Cpu;
use crate::dtype::{Element, FloatElement, NumElement};
use crate::error::Result;
use crate::tensor::Tensor;
use num_traits::Float;
use rayon::prelude::*;

/// `false`, having written nothing, unless the operands fit ([`adam_operands_fit`]) and their
/// buffers can all be locked at once without waiting (another guard on one of them: the
/// composed update then waits, or returns the conflict's `Err`). The buffers are try-locked,
/// so holding some write guards never waits while holding another.
pub(crate) fn adam_step<T: FloatElement>(
    p: &mut Tensor<T, Cpu>,
    g: &Tensor<T, Cpu>,
    m: &mut Tensor<T::Acc, Cpu>,
    v: &mut Tensor<T::Acc, Cpu>,
    v_max: Option<&mut Tensor<T::Acc, Cpu>>,
    h: &AdamHyper,
) -> Result<bool> {
    let states: &[&Tensor<T::Acc, Cpu>] = match &v_max {
        Some(w) => &[m, v, w],
        None => &[m, v],
    };
    if !adam_operands_fit(p, g, states) {
        return Ok(false);
    }
    p.check_writable("Adam::step")?;
    m.check_writable("Adam::step")?;
    v.check_writable("Adam::step")?;
    if let Some(w) = &v_max {
        w.check_writable("Adam::step")?;
    }
    let n = p.numel();
    let (Some(gg), Some(mut gp), Some(mut gm), Some(mut gv)) = (
        g.storage.try_read_recursive(),
        p.storage.try_write(),
        m.storage.try_write(),
        v.storage.try_write(),
    ) else {
        return Ok(false);
    };
    let mut gw = match &v_max {
        Some(w) => match w.storage.try_write() {
            Some(guard) => Some(guard),
            None => return Ok(false),
        },
        None => None,
    };
    let (g, p, m, v) = (&gg[..n], &mut gp[..n], &mut gm[..n], &mut gv[..n]);
    let chunk = if n < PAR_THRESHOLD {
        n.max(1)
    } else {
        n.div_ceil(rayon::current_num_threads() * 4)
            .next_multiple_of(64)
    };
    let chunks = p
        .par_chunks_mut(chunk)
        .zip(m.par_chunks_mut(chunk))
        .zip(v.par_chunks_mut(chunk))
        .zip(g.par_chunks(chunk));
    match gw.as_mut() {
        Some(w) => chunks
            .zip(w[..n].par_chunks_mut(chunk))
            .for_each(|((((p, m), v), g), w)| update(p, g, m, v, Some(w), h)),
        None => chunks.for_each(|(((p, m), v), g)| update(p, g, m, v, None, h)),
    }
    Ok(true)
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
