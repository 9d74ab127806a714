//! The max-pooling window search (`Backend::max_pool2d_index`): one pass over each input
//! plane, where the composed form gathers every window and runs `argmax` over the copy.

use super::kernels::strided::{PAR_THRESHOLD, par_chunks};
use crate::backend::PoolWindow;
use crate::device::{AlignedBuf, Cpu};
use crate::dtype::FloatElement;
use crate::error::Result;
use crate::shape::{Layout, Shape};
use crate::tensor::{Tensor, read};

/// The index of each window's maximum into its flattened plane (the hook's semantics: first
/// maximum, first NaN, and the first input element of an all `-inf` window).
pub(super) fn max_pool2d_index<T: FloatElement>(
    x: &Tensor<T, Cpu>,
    PoolWindow {
        kernel: (kh, kw),
        stride: (sh, sw),
        padding: (ph, pw),
        out: (oh, ow),
    }: PoolWindow,
) -> Result<Tensor<i64, Cpu>> {
    const OP: &str = "max_pool2d";
    let x = x.try_contiguous()?;
    let [n, c, h, w] = x.dims()[..] else {
        unreachable!("the caller checked an (N, C, H, W) input")
    };
    let out_shape = Shape::new(vec![n, c, oh, ow]);
    let mut out = AlignedBuf::<i64>::zeros(OP, out_shape.checked_numel(OP, 8)?)?;
    // Non-empty: x's and the output's element counts fit, so the planes' sizes do too.
    if !out.is_empty() && x.numel() > 0 {
        let (plane, per_plane) = (h * w, oh * ow);
        let g = read(OP, &x.storage)?;
        let src = &g[x.layout.offset..x.layout.offset + x.numel()];
        // Start and end (exclusive) of window `i`'s input rows or columns, clamped; in i128,
        // since a kernel and its padding may each be near usize::MAX (`i·s` cannot overflow:
        // it is at most the padded length less the kernel).
        let span = |i: usize, s: usize, p: usize, k: usize, len: usize| {
            let start = (i * s) as i128 - p as i128;
            let end = (start + k as i128).min(len as i128);
            (start.max(0) as usize, end as usize)
        };
        let work = per_plane.saturating_mul(kh.saturating_mul(kw)).max(1);
        let planes = (PAR_THRESHOLD / work).max(1);
        par_chunks(
            &mut out,
            planes.saturating_mul(per_plane),
            &|start, chunk| {
                for (k, o) in chunk.iter_mut().enumerate() {
                    let at = start + k;
                    let (p, ij) = (at / per_plane, at % per_plane);
                    let xs = &src[p * plane..(p + 1) * plane];
                    let (r0, r1) = span(ij / ow, sh, ph, kh, h);
                    let (c0, c1) = span(ij % ow, sw, pw, kw, w);
                    debug_assert!(r0 < r1 && c0 < c1, "every window holds an input element");
                    let mut best = (r0 * w + c0, f64::NEG_INFINITY);
                    'window: for r in r0..r1 {
                        for (q, v) in xs[r * w + c0..r * w + c1].iter().enumerate() {
                            let v = v.to_f64();
                            if v.is_nan() {
                                best.0 = r * w + c0 + q;
                                break 'window;
                            }
                            if v > best.1 {
                                best = (r * w + c0 + q, v);
                            }
                        }
                    }
                    *o = best.0 as i64;
                }
            },
        );
    }
    Ok(Tensor::from_buf_layout(out, Layout::contiguous(out_shape)))
}
