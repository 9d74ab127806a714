//! The iteration plan: an operand list's shared logical shape with the dimensions that are
//! contiguous for every operand merged, walked as runs or as rows of runs.

use crate::shape::{Dims, Layout, Shape, Strides};

/// A run: its first logical position, its storage offset in each operand, its length.
type Run<const K: usize> = (usize, [isize; K], usize);

/// Rows handed over by [`Plan::for_rows`]: first position, offsets, row length, row count.
type Rows<const K: usize> = (usize, [isize; K], usize, usize);

/// Runs handed over per call by [`Plan::walk`].
const RUN_BATCH: usize = 32;

/// An iteration plan for `K` operands that share one logical shape.
pub struct Plan<const K: usize> {
    pub(super) dims: Dims,
    pub(super) strides: [Strides; K],
    pub(super) offsets: [isize; K],
}

impl<const K: usize> Plan<K> {
    /// Merges dimensions that are contiguous with respect to every operand and drops size-1
    /// dimensions; the logical row-major order is preserved.
    pub fn new(layouts: [&Layout; K]) -> Self {
        let shape = layouts[0].shape.dims();
        let mut dims = Dims::new();
        let mut strides: [Strides; K] = std::array::from_fn(|_| Strides::new());
        if shape.contains(&0) {
            // Nothing to visit; the other dimensions may be huge (an empty broadcast view), so
            // their strides are never multiplied.
            return Plan {
                dims: smallvec::smallvec![0],
                strides: std::array::from_fn(|_| smallvec::smallvec![0]),
                offsets: [0; K],
            };
        }
        for (i, &d) in shape.iter().enumerate() {
            if d == 1 {
                continue;
            }
            // Checked: a sub-layout (a reduction's block of an empty tensor, say) can have
            // huge extents, and an overflowing product matches no stride anyway.
            let mergeable = !dims.is_empty()
                && dims.last().unwrap().checked_mul(d).is_some()
                && (0..K).all(|k| {
                    (layouts[k].strides[i]).checked_mul(d as isize)
                        == Some(*strides[k].last().unwrap())
                });
            if mergeable {
                *dims.last_mut().unwrap() *= d;
                for k in 0..K {
                    *strides[k].last_mut().unwrap() = layouts[k].strides[i];
                }
            } else {
                dims.push(d);
                for k in 0..K {
                    strides[k].push(layouts[k].strides[i]);
                }
            }
        }
        Plan {
            dims,
            strides,
            offsets: std::array::from_fn(|k| layouts[k].offset as isize),
        }
    }

    /// [`Plan::new`] for kernels that ignore the logical position (in-place maps and zips,
    /// each element visited once whatever the order): the dimensions are first put in the
    /// order of the first operand's storage (|stride| descending, ties in logical order), so a
    /// transposed or permuted destination whose other operands share its permutation merges
    /// into long runs instead of walking its logical order.
    pub fn new_any_order(layouts: [&Layout; K]) -> Self {
        let s0 = &layouts[0].strides;
        let mut order: Vec<usize> = (0..s0.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(s0[i].unsigned_abs()));
        if order.iter().enumerate().all(|(j, &i)| i == j) {
            return Plan::new(layouts);
        }
        let permuted: [Layout; K] = std::array::from_fn(|k| Layout {
            shape: Shape::new(order.iter().map(|&i| layouts[k].shape.dims()[i]).collect()),
            strides: order.iter().map(|&i| layouts[k].strides[i]).collect(),
            offset: layouts[k].offset,
        });
        Plan::new(std::array::from_fn(|k| &permuted[k]))
    }

    /// The merged dimensions (size-1 ones dropped; `[0]` when there is no element).
    pub fn dims(&self) -> &[usize] {
        &self.dims
    }

    /// The merged strides of operand 0, one per merged dimension.
    pub fn strides(&self) -> &[isize] {
        &self.strides[0]
    }

    /// Calls `f(pos, offsets, inner_strides, len)` for each run of the logical positions
    /// `start..end`, where `offsets` are the storage indices of position `pos` in each operand.
    #[inline]
    pub fn for_runs(
        &self,
        start: usize,
        end: usize,
        mut f: impl FnMut(usize, [isize; K], [isize; K], usize),
    ) {
        if let (&[len], true) = (&self.dims[..], start < end) {
            // One merged dimension (any contiguous operand set): a single run, called
            // directly so the body inlines here, where the compiler still knows that the
            // output and the inputs do not alias and vectorises small ops fully.
            debug_assert!(end <= len);
            let (offs, inner) = self.run_at(start);
            return f(start, offs, inner, end - start);
        }
        self.walk(start, end, &mut |runs, inner| {
            for &(pos, offs, len) in runs {
                f(pos, offs, inner, len);
            }
        })
    }

    /// [`Plan::for_runs`] for kernels that loop over rows themselves: `f(pos, offsets,
    /// inner_strides, len, rows, outer_strides)` covers `rows` runs of `len` elements, run `r`
    /// at logical position `pos + r * len` and storage offsets `offsets + r * outer_strides`.
    /// A plan of two or more merged dimensions hands over tiles of its last two (whole rows of
    /// a broadcast bias or a strided matrix, an im2col window's `kh × kw` block), so short
    /// rows cost a loop iteration each, not a walk step and a call; a one-dimensional plan is
    /// one run (`rows` = 1), called directly.
    #[inline]
    pub fn for_rows(
        &self,
        start: usize,
        end: usize,
        mut f: impl FnMut(usize, [isize; K], [isize; K], usize, usize, [isize; K]),
    ) {
        if self.dims.len() < 2 {
            return self.for_runs(start, end, |pos, offs, inner, n| {
                f(pos, offs, inner, n, 1, [0; K])
            });
        }
        let (inner, outer) = self.inner_outer();
        self.tiles(start, end, &mut |parts| {
            for &(pos, offs, len, rows) in parts {
                f(pos, offs, inner, len, rows, outer);
            }
        })
    }

    /// The offsets of logical position `p` of a one-dimensional plan, and its strides.
    /// Written as loops, not `array::from_fn`: these helpers are compiled once per `K`, while
    /// a `from_fn` closure inside the generic `for_runs` was instantiated once per op.
    fn run_at(&self, p: usize) -> ([isize; K], [isize; K]) {
        let (mut offs, mut inner) = (self.offsets, [0; K]);
        for k in 0..K {
            inner[k] = self.strides[k][0];
            offs[k] += p as isize * inner[k];
        }
        (offs, inner)
    }

    /// The inner (element) and outer (row) strides of the last two dimensions.
    fn inner_outer(&self) -> ([isize; K], [isize; K]) {
        let (mut inner, mut outer) = ([0; K], [0; K]);
        let last = self.dims.len() - 1;
        for k in 0..K {
            (outer[k], inner[k]) = (self.strides[k][last - 1], self.strides[k][last]);
        }
        (inner, outer)
    }

    /// The storage offsets of logical position `p`.
    fn offsets_at(&self, mut p: usize) -> [isize; K] {
        let mut o = self.offsets;
        for d in (0..self.dims.len()).rev() {
            let i = (p % self.dims[d]) as isize;
            p /= self.dims[d];
            for k in 0..K {
                o[k] += i * self.strides[k][d];
            }
        }
        o
    }

    /// The tiles behind [`Plan::for_rows`] (two or more dimensions), compiled once per `K`:
    /// `start..end` as parts `(pos, offsets, len, rows)` handed to `f` in batches. A partial
    /// tile at either end is a partial first row, whole rows and a partial last row; the whole
    /// tiles between are found by walking the dimensions before the last two.
    fn tiles(&self, start: usize, end: usize, f: &mut dyn FnMut(&[Rows<K>])) {
        let nd = self.dims.len();
        let (rows, len) = (self.dims[nd - 2], self.dims[nd - 1]);
        let tile = rows * len; // at most the element count
        let mut batch = [(0, [0; K], 0, 0); RUN_BATCH];
        let mut n = 0;
        let mut push = |part: Rows<K>, f: &mut dyn FnMut(&[Rows<K>])| {
            batch[n] = part;
            n += 1;
            if n == RUN_BATCH {
                f(&batch);
                n = 0;
            }
        };
        // Positions p..q inside one tile.
        let partial = |p: usize, q: usize, push: &mut dyn FnMut(Rows<K>)| {
            let mut p = p;
            if p < q && !p.is_multiple_of(len) {
                let m = (len - p % len).min(q - p);
                push((p, self.offsets_at(p), m, 1));
                p += m;
            }
            if q - p >= len {
                let r = (q - p) / len;
                push((p, self.offsets_at(p), len, r));
                p += r * len;
            }
            if p < q {
                push((p, self.offsets_at(p), q - p, 1));
            }
        };
        let mut p = start;
        if p < end && !p.is_multiple_of(tile) {
            let q = (p - p % tile + tile).min(end);
            partial(p, q, &mut |part| push(part, f));
            p = q;
        }
        let (t0, t1) = (p / tile, end / tile);
        if p < end && t0 < t1 {
            let outer = Plan {
                dims: self.dims[..nd - 2].into(),
                strides: std::array::from_fn(|k| self.strides[k][..nd - 2].into()),
                offsets: self.offsets,
            };
            outer.walk(t0, t1, &mut |runs, step| {
                for &(t, mut offs, count) in runs {
                    for i in 0..count {
                        push(((t + i) * tile, offs, len, rows), f);
                        for k in 0..K {
                            offs[k] += step[k];
                        }
                    }
                }
            });
            p = t1 * tile;
        }
        if p < end {
            partial(p, end, &mut |part| push(part, f));
        }
        if n > 0 {
            f(&batch[..n]);
        }
    }

    /// The walk behind [`Plan::for_runs`], compiled once per operand count, so each op and
    /// dtype does not instantiate its own copy. It hands the runs to `f` (through a pointer)
    /// in batches of up to [`RUN_BATCH`] with their inner strides, so short runs (a broadcast
    /// bias, a narrow image row) do not pay an indirect call each.
    fn walk(&self, start: usize, end: usize, f: &mut dyn FnMut(&[Run<K>], [isize; K])) {
        if start >= end {
            return;
        }
        let nd = self.dims.len();
        if nd == 0 {
            f(&[(0, self.offsets, 1)], [0; K]);
            return;
        }
        let last = nd - 1;
        // The position as an index per dimension; on the stack for the usual ranks, because
        // reductions call this once per output element.
        let (mut small, mut large) = ([0usize; 8], Vec::new());
        let idx: &mut [usize] = if nd <= small.len() {
            &mut small[..nd]
        } else {
            large.resize(nd, 0);
            &mut large
        };
        let mut rem = start;
        for d in (0..nd).rev() {
            idx[d] = rem % self.dims[d];
            rem /= self.dims[d];
        }
        let mut offs = self.offsets;
        for k in 0..K {
            for d in 0..nd {
                offs[k] += idx[d] as isize * self.strides[k][d];
            }
        }
        let inner: [isize; K] = std::array::from_fn(|k| self.strides[k][last]);
        let mut pos = start;
        let mut batch = [(0usize, [0isize; K], 0usize); RUN_BATCH];
        let mut n = 0;
        while pos < end {
            let len = (self.dims[last] - idx[last]).min(end - pos);
            batch[n] = (pos, offs, len);
            n += 1;
            if n == RUN_BATCH {
                f(&batch, inner);
                n = 0;
            }
            pos += len;
            idx[last] += len;
            for k in 0..K {
                offs[k] += len as isize * inner[k];
            }
            if idx[last] == self.dims[last] {
                for k in 0..K {
                    offs[k] -= self.dims[last] as isize * inner[k];
                }
                idx[last] = 0;
                for d in (0..last).rev() {
                    idx[d] += 1;
                    for k in 0..K {
                        offs[k] += self.strides[k][d];
                    }
                    if idx[d] < self.dims[d] {
                        break;
                    }
                    for k in 0..K {
                        offs[k] -= self.dims[d] as isize * self.strides[k][d];
                    }
                    idx[d] = 0;
                }
            }
        }
        if n > 0 {
            f(&batch[..n], inner);
        }
    }
}

#[cfg(test)]
mod tests {
    /// `for_rows` over every sub-range of plans of 1 to 4 merged dimensions (permuted,
    /// reversed, broadcast, offset) visits each logical position once, in order, at its
    /// storage offset in both operands.
    #[test]
    fn for_rows_visits_every_position_of_every_range() {
        use crate::shape::{Layout, Shape};
        fn layout(dims: &[usize], strides: &[isize], offset: usize) -> Layout {
            Layout {
                shape: Shape::new(dims.to_vec()),
                strides: strides.into(),
                offset,
            }
        }
        fn offset_of(l: &Layout, mut p: usize) -> isize {
            let mut o = l.offset as isize;
            for d in (0..l.shape.dims().len()).rev() {
                let n = l.shape.dims()[d];
                o += (p % n) as isize * l.strides[d];
                p /= n;
            }
            o
        }
        let cases = [
            (vec![7], vec![2], vec![1]),
            (vec![3, 5], vec![1, 3], vec![5, 1]),
            (vec![2, 3, 4], vec![12, 1, 3], vec![0, 4, 1]),
            (vec![2, 3, 2, 3], vec![36, 2, 12, 1], vec![18, 6, 3, 1]),
            (vec![3, 2, 2], vec![-4, 2, 1], vec![4, 0, 1]),
            (
                vec![2, 2, 2, 2, 3],
                vec![24, 12, 6, 3, 1],
                vec![1, 2, 4, 8, 16],
            ),
        ];
        for (dims, sa, sb) in cases {
            let la = layout(&dims, &sa, if sa[0] < 0 { 8 } else { 1 });
            let lb = layout(&dims, &sb, 2);
            let plan = super::Plan::new([&la, &lb]);
            let n: usize = dims.iter().product();
            for start in 0..=n {
                for end in start..=n {
                    let mut seen = Vec::new();
                    plan.for_rows(start, end, |pos, offs, inner, len, rows, outer| {
                        for r in 0..rows {
                            for j in 0..len {
                                let at = |k: usize| {
                                    offs[k] + r as isize * outer[k] + j as isize * inner[k]
                                };
                                seen.push((pos + r * len + j, at(0), at(1)));
                            }
                        }
                    });
                    let want: Vec<_> = (start..end)
                        .map(|p| (p, offset_of(&la, p), offset_of(&lb, p)))
                        .collect();
                    assert_eq!(seen, want, "{dims:?} {sa:?} {sb:?} {start}..{end}");
                }
            }
        }
    }

    /// `new_any_order` visits the same (destination, source) offset pairs as the logical
    /// plan, each once, over any split into ranges; a destination and source permuted alike
    /// merge into one run.
    #[test]
    fn any_order_visits_the_same_pairs_and_merges_shared_permutations() {
        use crate::shape::{Layout, Shape};
        let layout = |dims: &[usize], strides: &[isize], offset: usize| Layout {
            shape: Shape::new(dims.to_vec()),
            strides: strides.into(),
            offset,
        };
        let pairs = |plan: &super::Plan<2>, n: usize, cut: usize| {
            let mut seen = Vec::new();
            for (start, end) in [(0, cut), (cut, n)] {
                plan.for_runs(start, end, |_, offs, inner, len| {
                    for j in 0..len as isize {
                        seen.push((offs[0] + j * inner[0], offs[1] + j * inner[1]));
                    }
                });
            }
            seen.sort_unstable();
            seen
        };
        let cases = [
            (vec![3, 4, 2], vec![1, 6, 3], vec![1, 6, 3]),
            (vec![3, 4, 2], vec![1, 6, 3], vec![8, 2, 1]),
            (vec![2, 3, 5], vec![-15, 1, 3], vec![0, 5, 1]),
            (vec![4, 1, 3], vec![1, 7, 4], vec![3, 0, 1]),
            (vec![0, 3], vec![1, 0], vec![3, 1]),
        ];
        for (dims, sd, ss) in cases {
            let ld = layout(&dims, &sd, if sd[0] < 0 { 30 } else { 2 });
            let ls = layout(&dims, &ss, 1);
            let n: usize = dims.iter().product();
            let any = super::Plan::new_any_order([&ld, &ls]);
            let logical = super::Plan::new([&ld, &ls]);
            for cut in 0..=n {
                assert_eq!(
                    pairs(&any, n, cut),
                    pairs(&logical, n, 0),
                    "{dims:?} {sd:?} {ss:?}"
                );
            }
            if sd == ss && sd[0] > 0 {
                assert_eq!(any.dims(), &[n], "{dims:?} {sd:?}");
            }
        }
    }
}
