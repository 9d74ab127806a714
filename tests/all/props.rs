//! Property tests (proptest): random shapes (empty and 0-d included), chains of views with
//! hostile arguments (`i64::MIN`/`MAX` steps and bounds, huge sizes), every dtype. Fallible
//! calls must return `Ok` or `Err` (never panic), leave their inputs unchanged on `Err`, and
//! agree with a plain row-major reference on the host.
//!
//! Bounded for `cargo test` (2048 cases per property, about 0.2 s); `PROPTEST_CASES=100000 cargo test props`
//! runs a long search.

use proptest::prelude::*;
use std::panic::{AssertUnwindSafe, catch_unwind};
use typed_tensor::prelude::*;

/// A row-major array on the host: the reference the views are checked against.
#[derive(Clone, Debug)]
struct Ref {
    dims: Vec<usize>,
    data: Vec<f64>,
}

impl Ref {
    fn numel(&self) -> usize {
        self.data.len()
    }
    fn get(&self, idx: &[usize]) -> f64 {
        let flat = idx
            .iter()
            .zip(&self.dims)
            .fold(0, |acc, (&i, &d)| acc * d + i);
        self.data[flat]
    }
    /// The array of shape `dims` whose element at `idx` is `self.get(src(idx))`.
    fn view(&self, dims: Vec<usize>, src: impl Fn(&[usize]) -> Vec<usize>) -> Ref {
        let n = if dims.contains(&0) {
            0
        } else {
            dims.iter().product()
        };
        let mut idx = vec![0; dims.len()];
        let mut data = Vec::with_capacity(n);
        for _ in 0..n {
            data.push(self.get(&src(&idx)));
            for a in (0..dims.len()).rev() {
                idx[a] += 1;
                if idx[a] < dims[a] {
                    break;
                }
                idx[a] = 0;
            }
        }
        Ref { dims, data }
    }
    fn axis(&self, a: i64) -> Option<usize> {
        let n = self.dims.len() as i128;
        let a = a as i128 + if a < 0 { n } else { 0 };
        (0..n).contains(&a).then_some(a as usize)
    }
}

/// Python's `slice(start, stop, step).indices(n)` as (first index, step, length); for small
/// sizes the length is checked against walking `range(...)` one index at a time.
fn python_slice(n: usize, start: Option<i64>, stop: Option<i64>, step: i64) -> (i128, i128, usize) {
    let (n, step) = (n as i128, step as i128);
    let norm = |b: i64, lo: i128, hi: i128| {
        let b = b as i128;
        (if b < 0 { b + n } else { b }).clamp(lo, hi)
    };
    let (first, stop) = if step > 0 {
        (
            start.map_or(0, |b| norm(b, 0, n)),
            stop.map_or(n, |b| norm(b, 0, n)),
        )
    } else {
        let s = start.map_or(n - 1, |b| norm(b, -1, n - 1));
        (s, stop.map_or(-1, |b| norm(b, -1, n - 1)))
    };
    let span = if step > 0 { stop - first } else { first - stop };
    let len = if span <= 0 {
        0
    } else {
        (span + step.abs() - 1) / step.abs()
    };
    if n <= 64 {
        let (mut i, mut walked) = (first, 0);
        while (step > 0 && i < stop) || (step < 0 && i > stop) {
            walked += 1;
            i += step;
        }
        assert_eq!(walked, len);
    }
    (first, step, len as usize)
}

/// One view step, with arguments that are often hostile.
#[derive(Clone, Debug)]
enum View {
    Transpose(i64, i64),
    Narrow(i64, usize, usize),
    Slice(i64, Option<i64>, Option<i64>, i64),
    Flip(i64),
    Expand(usize),
    Unsqueeze(i64),
    Diagonal(i64),
    /// `reshape` to dims derived from the current ones: merge two neighbours, split one by
    /// its smallest factor, or flatten (a view where the strides allow, else a copy).
    Reshape(usize),
}

/// The dims `Reshape(k)` asks of `dims` (saturating: a huge empty view may ask for a count
/// that does not fit, which the library must refuse or accept without panicking).
fn reshaped(dims: &[usize], k: usize) -> Vec<usize> {
    let n = dims.len();
    match k % 3 {
        0 if n >= 2 => {
            let a = (k / 3) % (n - 1);
            [
                &dims[..a],
                &[dims[a].saturating_mul(dims[a + 1])],
                &dims[a + 2..],
            ]
            .concat()
        }
        1 if n >= 1 => {
            let a = (k / 3) % n;
            let f = (2..=dims[a].min(64))
                .find(|&f| dims[a].is_multiple_of(f))
                .unwrap_or(1);
            [&dims[..a], &[f, dims[a] / f.max(1)], &dims[a + 1..]].concat()
        }
        _ => vec![dims.iter().fold(1usize, |n, &d| n.saturating_mul(d))],
    }
}

fn axis() -> impl Strategy<Value = i64> {
    prop_oneof![4 => -4i64..4, 1 => Just(i64::MIN), 1 => Just(i64::MAX)]
}
fn size() -> impl Strategy<Value = usize> {
    prop_oneof![6 => 0usize..6, 1 => Just(usize::MAX), 1 => Just(1 << 63), 1 => any::<usize>()]
}
fn bound() -> impl Strategy<Value = i64> {
    prop_oneof![6 => -6i64..6, 1 => Just(i64::MIN), 1 => Just(i64::MAX), 1 => any::<i64>()]
}
fn view() -> impl Strategy<Value = View> {
    prop_oneof![
        (axis(), axis()).prop_map(|(a, b)| View::Transpose(a, b)),
        (axis(), size(), size()).prop_map(|(a, s, l)| View::Narrow(a, s, l)),
        (
            axis(),
            proptest::option::of(bound()),
            proptest::option::of(bound()),
            bound()
        )
            .prop_map(|(a, s, e, st)| View::Slice(a, s, e, st)),
        axis().prop_map(View::Flip),
        size().prop_map(View::Expand),
        axis().prop_map(View::Unsqueeze),
        bound().prop_map(View::Diagonal),
        (0usize..64).prop_map(View::Reshape),
    ]
}

/// Applies `v` to the tensor and, where the library accepts it, to the reference. A view the
/// reference finds invalid but the library accepts fails the property.
fn apply(t: &Tensor<f32>, r: &Ref, v: &View) -> Option<(Tensor<f32>, Ref)> {
    let out = catch_unwind(AssertUnwindSafe(|| match *v {
        View::Transpose(a, b) => t.transpose(a, b),
        View::Narrow(a, s, l) => t.narrow(a, s, l),
        View::Slice(a, s, e, st) => {
            let ax = r.axis(a).unwrap_or(0);
            let mut sl = vec![Slice::all(); ax];
            sl.push(Slice::new(s, e, st));
            t.slice(&sl)
        }
        View::Flip(a) => t.flip(&[a]),
        View::Expand(n) => t.expand([&[n][..], &r.dims].concat()),
        View::Unsqueeze(a) => t.unsqueeze(a),
        View::Diagonal(k) => t.diagonal(k),
        View::Reshape(k) => t.try_reshape(reshaped(&r.dims, k)),
    }))
    .unwrap_or_else(|_| panic!("{v:?} on shape {:?} panicked", r.dims));
    let got = out.ok()?;
    let n = r.dims.len();
    if got.numel() > 1 << 16 {
        // A huge broadcast view: no reference copy; copies of it beyond the address space
        // must be `OutOfMemory`, not an abort.
        assert!(
            matches!(v, View::Expand(_) | View::Reshape(_)),
            "{v:?} made {:?}",
            got.dims()
        );
        if got.numel() > 1 << 46 {
            let s = got.try_sin().map(|t| t.numel());
            assert!(
                matches!(
                    s,
                    Err(Error::OutOfMemory { .. } | Error::ShapeOverflow { .. })
                ),
                "{s:?}"
            );
            let c = got.try_contiguous().map(|t| t.numel());
            assert!(
                matches!(
                    c,
                    Err(Error::OutOfMemory { .. } | Error::ShapeOverflow { .. })
                ),
                "{c:?}"
            );
        }
        return None;
    }
    let want = match *v {
        View::Reshape(_) => Ref {
            dims: got.dims().to_vec(),
            data: r.data.clone(),
        },
        // A 0-d tensor's axis 0 (or -1) is its one element (PyTorch): the view is itself.
        View::Transpose(a, _) | View::Flip(a) if n == 0 => {
            assert!(a == 0 || a == -1, "{v:?} of a 0-d tensor accepted");
            r.view(Vec::new(), |i| i.to_vec())
        }
        View::Transpose(a, b) => {
            let (a, b) = (r.axis(a).unwrap(), r.axis(b).unwrap());
            let mut dims = r.dims.clone();
            dims.swap(a, b);
            r.view(dims, |i| {
                let mut j = i.to_vec();
                j.swap(a, b);
                j
            })
        }
        View::Narrow(a, s, l) => {
            let a = r.axis(a).unwrap();
            assert!(s.checked_add(l).is_some_and(|e| e <= r.dims[a]), "{v:?}");
            let mut dims = r.dims.clone();
            dims[a] = l;
            r.view(dims, |i| {
                let mut j = i.to_vec();
                j[a] += s;
                j
            })
        }
        View::Slice(a, s, e, st) => {
            let ax = if n == 0 {
                None
            } else {
                Some(r.axis(a).unwrap_or(0))
            };
            assert!(st != 0, "step 0 accepted");
            let ax = ax.expect("slice of a 0-d tensor accepted");
            let (first, step, len) = python_slice(r.dims[ax], s, e, st);
            let mut dims = r.dims.clone();
            dims[ax] = len;
            r.view(dims, |i| {
                let mut j = i.to_vec();
                j[ax] = (first + i[ax] as i128 * step) as usize;
                j
            })
        }
        View::Flip(a) => {
            let a = r.axis(a).unwrap();
            r.view(r.dims.clone(), |i| {
                let mut j = i.to_vec();
                j[a] = r.dims[a] - 1 - i[a];
                j
            })
        }
        View::Expand(m) => r.view([&[m][..], &r.dims].concat(), |i| i[1..].to_vec()),
        View::Unsqueeze(a) => {
            let a = a as i128 + if a < 0 { n as i128 + 1 } else { 0 };
            assert!((0..=n as i128).contains(&a), "{v:?}");
            let a = a as usize;
            let mut dims = r.dims.clone();
            dims.insert(a, 1);
            r.view(dims, |i| [&i[..a], &i[a + 1..]].concat())
        }
        View::Diagonal(k) => {
            assert!(n >= 2);
            let (rows, cols) = (r.dims[n - 2] as i128, r.dims[n - 1] as i128);
            let k = k as i128;
            let (r0, c0) = if k >= 0 { (0, k) } else { (-k, 0) };
            let len = (rows - r0).min(cols - c0).max(0) as usize;
            let mut dims = r.dims[..n - 2].to_vec();
            dims.push(len);
            r.view(dims, |i| {
                let d = i[n - 2] as i128;
                [&i[..n - 2], &[(r0 + d) as usize, (c0 + d) as usize]].concat()
            })
        }
    };
    assert_eq!(got.dims(), &want.dims[..], "{v:?}");
    Some((got, want))
}

fn base(dims: &[usize]) -> (Tensor<f32>, Ref) {
    let n: usize = dims.iter().product();
    let data: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let t = Tensor::<f32>::from_vec(data.iter().map(|&x| x as f32).collect(), dims.to_vec());
    let r = Ref {
        dims: dims.to_vec(),
        data,
    };
    (t.unwrap(), r)
}

fn f64s(t: &Tensor<f32>) -> Vec<f64> {
    t.try_to_vec().unwrap().iter().map(|&x| x as f64).collect()
}

/// 2048 cases per property, or `PROPTEST_CASES` for a long search.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(2048)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    /// Views with hostile arguments are valid or an `Err`; their elements, copies, element-wise
    /// results, sums and in-place writes agree with the reference.
    #[test]
    fn views_agree_with_a_reference(
        dims in proptest::collection::vec(0usize..5, 0..4),
        views in proptest::collection::vec(view(), 0..5),
        axis in -4i64..4,
    ) {
        let (t, r) = base(&dims);
        let (mut v, mut rv, mut expanded) = (t.clone(), r.clone(), false);
        // Set once a reshape had to copy: later writes no longer reach `t`.
        let mut detached = false;
        for step in &views {
            if let Some((nv, nr)) = apply(&v, &rv, step) {
                (v, rv) = (nv, nr);
                expanded |= matches!(step, View::Expand(_));
                detached |= matches!(step, View::Reshape(_)) && v.owns_data();
            }
        }
        // The base's values are its flat positions, so a view's values name what it covers.
        prop_assert_eq!(f64s(&v), rv.data.clone());
        prop_assert_eq!(f64s(&v.try_contiguous().unwrap()), rv.data.clone());
        let s = f64s(&v.try_sin().unwrap());
        for (g, w) in s.iter().zip(&rv.data) {
            prop_assert!((g - w.sin()).abs() <= 1e-6 * w.abs().max(1.0), "sin({w}) = {g}");
        }
        let twice = f64s(&v.try_add(&v).unwrap());
        prop_assert_eq!(twice, rv.data.iter().map(|x| 2.0 * x).collect::<Vec<_>>());
        match (v.try_sum(&[axis], false), rv.axis(axis)) {
            (Ok(got), Some(a)) => {
                let mut dims = rv.dims.clone();
                let len = dims.remove(a);
                let n_out = if dims.contains(&0) { 0 } else { dims.iter().product() };
                let sums: Vec<f64> = (0..n_out)
                    .map(|k| {
                        let mut idx = vec![0; dims.len()];
                        let mut rem = k;
                        for d in (0..idx.len()).rev() {
                            idx[d] = rem % dims[d];
                            rem /= dims[d];
                        }
                        (0..len).map(|j| rv.get(&[&idx[..a], &[j], &idx[a..]].concat())).sum()
                    })
                    .collect();
                prop_assert_eq!(f64s(&got), sums);
            }
            (Err(_), None) => {}
            // A 0-d view summed over axis 0 or -1, its one element (PyTorch's rule).
            (Ok(got), None) if rv.dims.is_empty() && (axis == 0 || axis == -1) => {
                prop_assert!(got.dims().is_empty());
                prop_assert_eq!(f64s(&got), vec![rv.get(&[])]);
            }
            // An output too large to allocate (a sum over an empty axis of a huge view).
            (Err(Error::ShapeOverflow { .. } | Error::OutOfMemory { .. }), Some(a)) => {
                let mut kept = rv.dims.iter().enumerate().filter(|&(i, _)| i != a);
                let n = kept.try_fold(1usize, |n, (_, &d)| n.checked_mul(d));
                prop_assert!(n.is_none_or(|n| n > 1 << 40), "sum refused {n:?} outputs");
            }
            (got, want) => prop_assert!(false, "sum axis {axis}: {got:?} vs {want:?}"),
        }
        // Writing through the view changes exactly the base elements it covers; a broadcast
        // view refuses (PyTorch's read-only `expand`), and then nothing changes.
        let before = f64s(&t);
        let mut w = v.clone();
        let covered: std::collections::BTreeSet<u64> = rv.data.iter().map(|&x| x as u64).collect();
        match w.fill_(-1.0) {
            Ok(()) if detached => prop_assert_eq!(f64s(&t), before),
            Ok(()) => {
                prop_assert_eq!(covered.len(), rv.numel());
                let want: Vec<f64> = before
                    .iter()
                    .map(|&x| if covered.contains(&(x as u64)) { -1.0 } else { x })
                    .collect();
                prop_assert_eq!(f64s(&t), want);
            }
            Err(_) => {
                prop_assert!(expanded, "a writable view refused");
                prop_assert_eq!(f64s(&t), before);
            }
        }
    }

    /// Shape-changing calls with hostile arguments on every dtype: `Ok` or `Err`, no panic, and
    /// the input unchanged either way.
    #[test]
    fn hostile_arguments_on_every_dtype(
        dims in proptest::collection::vec(0usize..4, 0..4),
        dtype in prop::sample::select(Dtype::ALL.to_vec()),
        op in 0usize..16,
        a in bound(),
        s in size(),
        s2 in size(),
    ) {
        let n: usize = dims.iter().product();
        let vals: Vec<f64> = (0..n).map(|i| (i % 7) as f64).collect();
        let x = DynTensor::from_vec(vals, dims.clone(), DeviceIndex::cpu())
            .unwrap()
            .to_dtype(dtype)
            .unwrap();
        let snapshot = |t: &DynTensor| t.to_dtype(Dtype::Float64).unwrap().to_vec::<f64>().unwrap();
        let before = snapshot(&x);
        let idx = DynTensor::from_vec(vec![a, 0], [2], DeviceIndex::cpu()).unwrap();
        let result = catch_unwind(AssertUnwindSafe(|| -> Result<usize> {
            Ok(match op {
                0 => x.split(&[s, s2], a)?.len(),
                1 => x.pad(&vec![(s, s2 % 3); dims.len()], 1.0)?.numel(),
                2 => x.tile(&[s % 5, s2])?.numel(),
                3 => x.repeat_interleave(s, a)?.numel(),
                4 => x.index_select(a, &idx)?.numel(),
                5 => x.reshape(vec![s, s2])?.numel(),
                6 => x.diagonal(a)?.numel(),
                7 => x.roll(a, a)?.numel(),
                8 => x.topk(s, a)?.0.numel(),
                9 => x.narrow(a, s, s2)?.numel(),
                10 => x.chunk(s, a)?.len(),
                11 => x.tril(a)?.numel(),
                12 => x.squeeze_dims(&[a])?.numel(),
                13 => x.take(a, &idx)?.numel(),
                14 => x.cumsum(a)?.numel(),
                _ => x.reduce_sum(&[a, a], false)?.numel(),
            })
        }));
        prop_assert!(result.is_ok(), "op {} on {:?} {:?} with ({}, {}, {}) panicked", op, dtype, dims, a, s, s2);
        prop_assert_eq!(snapshot(&x), before);
    }
}
