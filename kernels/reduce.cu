// Reductions over the middle axis of a contiguous (outer, len, inner) view: the host folds the
// reduced axes into `len` when they are consecutive (otherwise it moves them last and packs, so
// inner == 1). Output o = r * inner + c reduces in[off + r*len*inner + j*inner + c], j < len.
//
// A block is COLS columns by LANES lanes: COLS = 1 for rows (inner == 1), 32 otherwise, so a
// warp reads consecutive addresses either way. When there are too few blocks to fill the GPU
// the host splits `len` into `split` chunks; each block writes a partial to `parts`, and the
// last block of a column group to finish (an atomic count in `counts`, which it sets back to 0)
// combines the partials in chunk order. Every combination happens in a fixed order, so results
// are deterministic.
//
// Floats sum in f64 and integers in i64 (wrapping, like the CPU); min/max propagate NaN;
// arg-reductions return the first NaN or the first occurrence of the extreme, as i64; var/std
// merge moments in f64; any/all test for non-zero. Empty slices never reach min/max/arg
// kernels. `param` is the correction of var/std and unused by the others.

#define RED_THREADS 256

template <typename C> struct Acc { typedef i64 A; };
template <> struct Acc<float> { typedef double A; };
template <> struct Acc<double> { typedef double A; };

__device__ __forceinline__ double wadd(double a, double b) { return a + b; }
__device__ __forceinline__ i64 wadd(i64 a, i64 b) { return (i64)((u64)a + (u64)b); }
__device__ __forceinline__ double wmul(double a, double b) { return a * b; }
__device__ __forceinline__ i64 wmul(i64 a, i64 b) { return (i64)((u64)a * (u64)b); }

// A partial result: a value and (for extremes) the index along `len`; i < 0 is "none yet".
template <typename V> struct Part { V v; i64 i; };

// A quiet NaN stored as O (only float outputs take this path; integers get 0).
template <typename O> __device__ __forceinline__ O nan_of() {
    typedef typename Cmp<O>::C C;
    if constexpr (is_float_c<C>()) return st<O>((C)__longlong_as_double(0x7ff8000000000000ll));
    else return O{};
}

// Sum (PROD = false) or product, accumulated in Acc; SKIP leaves NaN out (nansum, nanproduct).
template <typename T, typename O, bool PROD, bool SKIP> struct Fold {
    typedef typename Acc<typename Cmp<T>::C>::A V;
    static __device__ __forceinline__ Part<V> empty() { return {PROD ? (V)1 : (V)0, 0}; }
    static __device__ __forceinline__ Part<V> one(T x, i64) {
        if (SKIP && is_nan(ld(x))) return empty();
        return {(V)ld(x), 0};
    }
    static __device__ __forceinline__ Part<V> join(Part<V> a, Part<V> b) {
        return {PROD ? wmul(a.v, b.v) : wadd(a.v, b.v), 0};
    }
    static __device__ __forceinline__ O fin(Part<V> p, const T*, u64, double) {
        return st<O>((typename Cmp<O>::C)p.v);
    }
};

// Max/min (ARG = false: the element itself) and argmax/argmin (ARG = true: its index). SKIP
// leaves NaN out (nanmax, ...): an all-NaN slice gives NaN, or index -1 (the host's Err).
template <typename T, typename O, bool MAX, bool ARG, bool SKIP> struct Extreme {
    typedef typename Cmp<T>::C V;
    static __device__ __forceinline__ Part<V> empty() { return {(V)0, -1}; }
    static __device__ __forceinline__ Part<V> one(T x, i64 j) {
        if (SKIP && is_nan(ld(x))) return empty();
        return {ld(x), j};
    }
    // b replaces a when it is a NaN (a is not, or comes later), a greater/smaller value, or an
    // equal value at a lower index; "none" never wins.
    static __device__ __forceinline__ Part<V> join(Part<V> a, Part<V> b) {
        if (b.i < 0) return a;
        if (a.i < 0) return b;
        bool na = a.v != a.v, nb = b.v != b.v;
        bool take;
        if (na || nb) take = nb && (!na || b.i < a.i);
        else take = (MAX ? b.v > a.v : b.v < a.v) || (b.v == a.v && b.i < a.i);
        return take ? b : a;
    }
    static __device__ __forceinline__ O fin(Part<V> p, const T* col, u64 inner, double) {
        if constexpr (ARG) return (O)p.i;
        else return p.i < 0 ? nan_of<O>() : col[(u64)p.i * inner];
    }
};

// Moments (count, mean, M2) merged as Chan et al. do, in f64: the variance (STD = false) or
// standard deviation with `param` = the correction, dividing by max(0, count - correction) as
// NumPy and PyTorch do: inf, or NaN for a constant slice, when count <= correction.
struct Moments { double n, mean, m2; i64 i; };
template <typename T, typename O, bool STD> struct Spread {
    static __device__ __forceinline__ Moments empty() { return {0.0, 0.0, 0.0, 0}; }
    static __device__ __forceinline__ Moments one(T x, i64) { return {1.0, (double)ld(x), 0.0, 0}; }
    static __device__ __forceinline__ Moments join(Moments a, Moments b) {
        if (b.n == 0.0) return a;
        if (a.n == 0.0) return b;
        double n = a.n + b.n, d = b.mean - a.mean;
        return {n, a.mean + d * (b.n / n), a.m2 + b.m2 + d * d * (a.n * b.n / n), 0};
    }
    static __device__ __forceinline__ O fin(Moments p, const T*, u64, double correction) {
        double d = fmax(p.n - correction, 0.0);
        return st<O>((typename Cmp<O>::C)(STD ? sqrt(p.m2 / d) : p.m2 / d));
    }
};

// nanmean: the f64 sum and count of the non-NaN values (a running mean would turn infinities
// into NaN), NaN when there are none.
struct SumCount { double s, n; };
template <typename T, typename O> struct NanMean {
    static __device__ __forceinline__ SumCount empty() { return {0.0, 0.0}; }
    static __device__ __forceinline__ SumCount one(T x, i64) {
        if (is_nan(ld(x))) return empty();
        return {(double)ld(x), 1.0};
    }
    static __device__ __forceinline__ SumCount join(SumCount a, SumCount b) {
        return {a.s + b.s, a.n + b.n};
    }
    static __device__ __forceinline__ O fin(SumCount p, const T*, u64, double) {
        return p.n > 0.0 ? st<O>((typename Cmp<O>::C)(p.s / p.n)) : nan_of<O>();
    }
};

// any (ALL = false) / all: whether some / every element is non-zero (NaN is non-zero).
template <typename T, typename O, bool ALL> struct Truth {
    static __device__ __forceinline__ Part<bool> empty() { return {ALL, 0}; }
    static __device__ __forceinline__ Part<bool> one(T x, i64) {
        return {ld(x) != (typename Cmp<T>::C)0, 0};
    }
    static __device__ __forceinline__ Part<bool> join(Part<bool> a, Part<bool> b) {
        return {ALL ? (a.v && b.v) : (a.v || b.v), 0};
    }
    static __device__ __forceinline__ O fin(Part<bool> p, const T*, u64, double) { return p.v; }
};

template <typename T, typename O, typename R>
__device__ __forceinline__ void reduce_mid(u64 outer, u64 len, u64 inner, u64 split, i64 off,
                                           double param, const T* in, O* out, void* parts_v,
                                           unsigned* counts) {
    typedef decltype(R::empty()) P;
    __shared__ P sh[RED_THREADS];
    __shared__ bool last;
    P* parts = (P*)parts_v;
    const unsigned cols = inner == 1 ? 1 : 32, lanes = RED_THREADS / cols;
    const unsigned col = threadIdx.x % cols, lane = threadIdx.x / cols;
    const u64 groups_per_row = (inner + cols - 1) / cols;
    const u64 chunk = (len + split - 1) / split;
    in += off;
    for (u64 t = blockIdx.x; t < outer * groups_per_row * split; t += gridDim.x) {
        const u64 group = t / split, k = t % split;
        const u64 r = group / groups_per_row, c = (group % groups_per_row) * cols + col;
        const bool live = c < inner;
        const T* base = in + r * len * inner + c;
        P p = R::empty();
        if (live && cols == 1) {
            // A contiguous row: 16-byte packs, two in flight per thread (the scalar loop below
            // kept 16 bytes in flight and a full f32 sum at 0.96 of PyTorch's), after a scalar
            // head up to the first aligned element; the tail is the scalar loop's.
            constexpr int N = pack_n<T>();
            const u64 beg = k * chunk, end = min(len, beg + chunk);
            u64 a0 = beg;
            while (a0 < end && !aligned<T, N>(base + a0)) ++a0;
            const u64 np = (end - a0) / N, a1 = a0 + np * N;
            for (u64 j = beg + lane; j < a0; j += lanes) p = R::join(p, R::one(base[j], j));
            const Pack<T, N>* v = (const Pack<T, N>*)(base + a0);
            u64 q = lane;
            for (; q + lanes < np; q += 2 * lanes) {
                Pack<T, N> x = v[q], y = v[q + lanes];
                P px = R::one(x.v[0], a0 + q * N), py = R::one(y.v[0], a0 + (q + lanes) * N);
#pragma unroll
                for (int e = 1; e < N; ++e) {
                    px = R::join(px, R::one(x.v[e], a0 + q * N + e));
                    py = R::join(py, R::one(y.v[e], a0 + (q + lanes) * N + e));
                }
                p = R::join(p, R::join(px, py));
            }
            for (; q < np; q += lanes) {
                Pack<T, N> x = v[q];
#pragma unroll
                for (int e = 0; e < N; ++e) p = R::join(p, R::one(x.v[e], a0 + q * N + e));
            }
            for (u64 j = a1 + lane; j < end; j += lanes) p = R::join(p, R::one(base[j], j));
        } else if (live) {
            const u64 beg = k * chunk, end = min(len, beg + chunk);
            u64 j = beg + lane;
            // Four loads in flight per thread before they are combined.
            for (; j + 3 * lanes < end; j += 4 * lanes) {
                T x0 = base[j * inner], x1 = base[(j + lanes) * inner];
                T x2 = base[(j + 2 * lanes) * inner], x3 = base[(j + 3 * lanes) * inner];
                p = R::join(p, R::join(R::join(R::one(x0, j), R::one(x1, j + lanes)),
                                       R::join(R::one(x2, j + 2 * lanes), R::one(x3, j + 3 * lanes))));
            }
            for (; j < end; j += lanes) p = R::join(p, R::one(base[j * inner], j));
        }
        sh[threadIdx.x] = p;
        __syncthreads();
        for (unsigned s = lanes / 2; s > 0; s >>= 1) {
            if (lane < s) sh[threadIdx.x] = R::join(sh[threadIdx.x], sh[threadIdx.x + s * cols]);
            __syncthreads();
        }
        if (split == 1) {
            if (lane == 0 && live) out[r * inner + c] = R::fin(sh[threadIdx.x], base, inner, param);
        } else {
            if (lane == 0 && live) parts[(r * inner + c) * split + k] = sh[threadIdx.x];
            // Publish the partials before counting this chunk as done.
            __threadfence();
            __syncthreads();
            if (threadIdx.x == 0) last = atomicAdd(&counts[group], 1u) == (unsigned)(split - 1);
            __syncthreads();
            if (last) {
                P q = R::empty();
                if (live) {
                    const volatile P* mine = parts + (r * inner + c) * split;
                    for (u64 i = lane; i < split; i += lanes) {
                        P x;
                        // A word-by-word copy through volatile: the partials were written by
                        // other blocks, so L1 must not serve them.
                        for (unsigned w = 0; w < sizeof(P) / 8; ++w)
                            ((i64*)&x)[w] = ((const volatile i64*)(mine + i))[w];
                        q = R::join(q, x);
                    }
                }
                sh[threadIdx.x] = q;
                __syncthreads();
                for (unsigned s = lanes / 2; s > 0; s >>= 1) {
                    if (lane < s) sh[threadIdx.x] = R::join(sh[threadIdx.x], sh[threadIdx.x + s * cols]);
                    __syncthreads();
                }
                if (lane == 0 && live) out[r * inner + c] = R::fin(sh[threadIdx.x], base, inner, param);
                // Leave the counter zeroed for the next launch (the host never resets it).
                if (threadIdx.x == 0) counts[group] = 0;
            }
        }
        __syncthreads();
    }
}

template <typename T, typename O> struct sum_r : Fold<T, O, false, false> {};
template <typename T, typename O> struct product_r : Fold<T, O, true, false> {};
template <typename T, typename O> struct max_r : Extreme<T, O, true, false, false> {};
template <typename T, typename O> struct min_r : Extreme<T, O, false, false, false> {};
template <typename T, typename O> struct argmax_r : Extreme<T, O, true, true, false> {};
template <typename T, typename O> struct argmin_r : Extreme<T, O, false, true, false> {};
template <typename T, typename O> struct var_r : Spread<T, O, false> {};
template <typename T, typename O> struct std_r : Spread<T, O, true> {};
template <typename T, typename O> struct nansum_r : Fold<T, O, false, true> {};
template <typename T, typename O> struct nanproduct_r : Fold<T, O, true, true> {};
template <typename T, typename O> struct nanmax_r : Extreme<T, O, true, false, true> {};
template <typename T, typename O> struct nanmin_r : Extreme<T, O, false, false, true> {};
template <typename T, typename O> struct nanargmax_r : Extreme<T, O, true, true, true> {};
template <typename T, typename O> struct nanargmin_r : Extreme<T, O, false, true, true> {};
template <typename T, typename O> struct nanmean_r : NanMean<T, O> {};
template <typename T, typename O> struct any_r : Truth<T, O, false> {};
template <typename T, typename O> struct all_r : Truth<T, O, true> {};

#define REDUCE(NAME, SFX, T, O) \
    extern "C" __global__ void NAME##_##SFX(u64 outer, u64 len, u64 inner, u64 split, i64 off, \
                                            double param, const T* in, O* out, void* parts, \
                                            unsigned* counts) { \
        reduce_mid<T, O, NAME##_r<T, O>>(outer, len, inner, split, off, param, in, out, parts, \
                                         counts); \
    }

// Running sums and products (cumsum, cumprod) along the middle axis of a contiguous
// (outer, len, inner) view: one thread per line, stepping through `len` in order and keeping the
// running value in the output dtype O (the sum dtype: floats keep theirs, integers and bool
// widen to i64), exactly as the CPU does, so the two agree bit for bit. 16-bit floats add in
// f32 and round to O after every step, as `half`'s operators do; integers wrap. Adjacent
// threads read adjacent columns when inner > 1; a scan along the last axis (inner == 1) reads
// one line per thread.
__device__ __forceinline__ float wadd(float a, float b) { return a + b; }
__device__ __forceinline__ float wmul(float a, float b) { return a * b; }

template <typename T, typename O, bool PROD>
__device__ void scan_mid(u64 outer, u64 len, u64 inner, i64 off, const T* in, O* out) {
    typedef typename Cmp<O>::C C;
    for (u64 t = blockIdx.x * (u64)blockDim.x + threadIdx.x; t < outer * inner;
         t += (u64)gridDim.x * blockDim.x) {
        u64 b = (t / inner) * len * inner + t % inner;
        C acc = PROD ? (C)1 : (C)0;
        for (u64 j = 0; j < len; ++j) {
            C x = (C)ld(in[off + b + j * inner]);
            O r = st<O>(PROD ? wmul(acc, x) : wadd(acc, x));
            out[b + j * inner] = r;
            acc = ld(r);
        }
    }
}

template <typename T, typename O> struct cumsum_s { static const bool PROD = false; };
template <typename T, typename O> struct cumprod_s { static const bool PROD = true; };

#define SCAN(NAME, SFX, T, O) \
    extern "C" __global__ void NAME##_##SFX(u64 outer, u64 len, u64 inner, i64 off, const T* in, \
                                            O* out) { \
        scan_mid<T, O, NAME##_s<T, O>::PROD>(outer, len, inner, off, in, out); \
    }
