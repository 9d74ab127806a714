// Selection, copies into views, indexing and generators. `info` holds dims, then one set of
// strides per strided operand, as in binary.cu. Out-of-range indices write 1 to `*flag` (the
// host turns that into the CPU's Err, naming the index) and store 0; nothing is read out of
// bounds.

// out[i] = c[i] ? a[i] : b[i], the three broadcast to the output's shape.
#define WHERE(NAME, SFX, T, O) \
    extern "C" __global__ void NAME##_##SFX(u64 n, int ndim, const i64* info, i64 c_off, \
                                            const bool* c, i64 a_off, const T* a, i64 b_off, \
                                            const T* b, O* out) { \
        GRID_STRIDE(i, n) { \
            bool k = c[c_off + strided(i, ndim, info, info + ndim)]; \
            out[i] = k ? a[a_off + strided(i, ndim, info, info + 2 * ndim)] \
                       : b[b_off + strided(i, ndim, info, info + 3 * ndim)]; \
        } \
    }

// dst[view] = src[view]: both strided (src broadcast), for copy_from and concat; ndim -1
// (no info) fills a contiguous dst with src's one element (fill_, zero_grad).
#define COPY_TO(NAME, SFX, T, O) \
    extern "C" __global__ void NAME##_##SFX(u64 n, int ndim, const i64* info, i64 s_off, \
                                            const T* src, i64 d_off, O* dst) { \
        if (ndim == -1) { \
            const T v = src[s_off]; \
            GRID_STRIDE(i, n) dst[d_off + i] = v; \
            return; \
        } \
        GRID_STRIDE(i, n) { \
            dst[d_off + strided(i, ndim, info, info + 2 * ndim)] = \
                src[s_off + strided(i, ndim, info, info + ndim)]; \
        } \
    }

// index_select over a contiguous (outer, size, inner) input: out[o, j, c] = in[o, idx[j], c]
// with negative indices counted from the end.
#define TAKE(NAME, SFX, T, O) \
    extern "C" __global__ void NAME##_##SFX(u64 outer, u64 count, u64 inner, u64 size, \
                                            const i64* idx, i64 off, const T* in, O* out, \
                                            int* flag) { \
        GRID_STRIDE(i, outer * count * inner) { \
            u64 c = i % inner, j = (i / inner) % count, o = i / (inner * count); \
            i64 k = idx[j] < 0 ? idx[j] + (i64)size : idx[j]; \
            if (k < 0 || k >= (i64)size) { O zero = {}; *flag = 1; out[i] = zero; continue; } \
            out[i] = in[off + (o * size + (u64)k) * inner + c]; \
        } \
    }

// gather: out has the index's shape (`info`: its dims, then the source's strides); the `axis`
// coordinate of each position is replaced by the index value.
#define GATHER(NAME, SFX, T, O) \
    extern "C" __global__ void NAME##_##SFX(u64 n, int ndim, int axis, const i64* info, \
                                            const i64* index, i64 s_off, const T* src, u64 size, \
                                            O* out, int* flag) { \
        GRID_STRIDE(i, n) { \
            i64 k = index[i] < 0 ? index[i] + (i64)size : index[i]; \
            if (k < 0 || k >= (i64)size) { O zero = {}; *flag = 1; out[i] = zero; continue; } \
            u64 rem = i; \
            i64 p = s_off; \
            for (int d = ndim - 1; d >= 0; --d) { \
                i64 x = (i64)(rem % (u64)info[d]); \
                rem /= (u64)info[d]; \
                p += (d == axis ? k : x) * info[ndim + d]; \
            } \
            out[i] = src[p]; \
        } \
    }

// Atomic `*p += v` in the element type, rounding each step as the CPU does (the order of
// repeated indices is the scheduler's). 4- and 8-byte types use the hardware atomics; 1- and
// 2-byte types a compare-and-swap loop on the aligned 32-bit word that holds them.
__device__ __forceinline__ void atomic_add(float* p, float v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(double* p, double v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(i32* p, i32 v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(i64* p, i64 v) { atomicAdd((u64*)p, (u64)v); }
__device__ __forceinline__ unsigned to_bits(u8 x) { return x; }
__device__ __forceinline__ unsigned to_bits(i16 x) { return (unsigned short)x; }
__device__ __forceinline__ unsigned to_bits(f16_t x) { return x.bits; }
__device__ __forceinline__ unsigned to_bits(bf16_t x) { return x.bits; }
template <typename O> __device__ __forceinline__ O from_bits(unsigned b);
template <> __device__ __forceinline__ u8 from_bits<u8>(unsigned b) { return (u8)b; }
template <> __device__ __forceinline__ i16 from_bits<i16>(unsigned b) { return (i16)(unsigned short)b; }
template <> __device__ __forceinline__ f16_t from_bits<f16_t>(unsigned b) { return f16_t{(unsigned short)b}; }
template <> __device__ __forceinline__ bf16_t from_bits<bf16_t>(unsigned b) { return bf16_t{(unsigned short)b}; }
template <typename O> __device__ __forceinline__ void atomic_add(O* p, O v) {
    unsigned* word = (unsigned*)((u64)p & ~(u64)3);
    unsigned shift = (unsigned)((u64)p & 3) * 8;
    unsigned mask = (sizeof(O) == 1 ? 0xFFu : 0xFFFFu) << shift;
    unsigned old = *word, assumed;
    do {
        assumed = old;
        O cur = from_bits<O>((assumed & mask) >> shift);
        O sum = st<O>((typename Cmp<O>::C)(ld(cur) + ld(v)));
        old = atomicCAS(word, assumed, (assumed & ~mask) | ((to_bits(sum) << shift) & mask));
    } while (old != assumed);
}

// scatter_add: `out` (a contiguous copy of the input) gets src[i] added at the index's
// position i with its `axis` coordinate replaced by index[i]. `info` holds the index's dims,
// then out's strides, then src's strides.
#define SCATTER_ADD(NAME, SFX, T, O) \
    extern "C" __global__ void NAME##_##SFX(u64 n, int ndim, int axis, const i64* info, \
                                            const i64* index, i64 s_off, const T* src, u64 size, \
                                            O* out, int* flag) { \
        GRID_STRIDE(i, n) { \
            i64 k = index[i] < 0 ? index[i] + (i64)size : index[i]; \
            if (k < 0 || k >= (i64)size) { *flag = 1; continue; } \
            u64 rem = i; \
            i64 p = 0, q = s_off; \
            for (int d = ndim - 1; d >= 0; --d) { \
                i64 x = (i64)(rem % (u64)info[d]); \
                rem /= (u64)info[d]; \
                p += (d == axis ? k : x) * info[ndim + d]; \
                q += x * info[2 * ndim + d]; \
            } \
            atomic_add(out + p, src[q]); \
        } \
    }

// argsort of lines of at most SORT_MAX elements, one block per line. Ordering as the CPU's
// stable sort: NaN is the largest value (last ascending, first descending, as PyTorch), -0
// equals +0, ties by position (which makes the network stable), padding after everything.
#define SORT_MAX 2048

// Lines padded to 256..SORT_MAX entries: a bitonic network over (key image, position) items,
// 8 per thread in registers (blockDim.x = pow2 / 8). Stages whose pairs are 1, 2 or 4 apart
// run within a thread, those up to 128 apart between lanes of a warp (shuffles), and only the
// longer ones through shared memory: the network of shared-memory stages it replaces (a
// barrier per stage) ran at 0.58 of PyTorch's radix sort on 1024-long lines.
// An item compares as one integer: the key's order-preserving unsigned image (complemented for
// a descending sort), then the position; padding is the largest image with a position >= len.
__device__ __forceinline__ unsigned sort_image(float x) {
    if (x != x) return 0xFFFFFFFFu;
    unsigned b = x == 0.0f ? 0u : __float_as_uint(x); // -0 sorts as +0
    return b ^ ((b >> 31) ? 0xFFFFFFFFu : 0x80000000u);
}
__device__ __forceinline__ u64 sort_image(double x) {
    if (x != x) return ~0ull;
    u64 b = x == 0.0 ? 0ull : (u64)__double_as_longlong(x);
    return b ^ ((b >> 63) ? ~0ull : 0x8000000000000000ull);
}
__device__ __forceinline__ unsigned sort_image(i16 x) { return (unsigned)(int)x ^ 0x80000000u; }
__device__ __forceinline__ unsigned sort_image(i32 x) { return (unsigned)x ^ 0x80000000u; }
__device__ __forceinline__ u64 sort_image(i64 x) { return (u64)x ^ 0x8000000000000000ull; }
__device__ __forceinline__ unsigned sort_image(u8 x) { return (unsigned)x; }
__device__ __forceinline__ unsigned sort_image(bool x) { return (unsigned)x; }

// Items of 32-bit images: image << 32 | position, one u64 comparison.
struct SortNarrow {
    typedef u64 E;
    static __device__ __forceinline__ E make(unsigned img, int desc, int i) {
        return (u64)(desc ? ~img : img) << 32 | (unsigned)i;
    }
    static __device__ __forceinline__ E pad(int i) { return 0xFFFFFFFF00000000ull | (unsigned)i; }
    static __device__ __forceinline__ bool less(E a, E b) { return a < b; }
    static __device__ __forceinline__ E shfl(E a, int m) { return __shfl_xor_sync(0xffffffffu, a, m); }
    static __device__ __forceinline__ int pos(E a) { return (int)(unsigned)a; }
};
// Items of 64-bit images: (image, position), compared in that order.
struct SortWide {
    struct E { u64 k; unsigned i; };
    static __device__ __forceinline__ E make(u64 img, int desc, int i) {
        return E{desc ? ~img : img, (unsigned)i};
    }
    static __device__ __forceinline__ E pad(int i) { return E{~0ull, (unsigned)i}; }
    static __device__ __forceinline__ bool less(E a, E b) { return a.k < b.k || (a.k == b.k && a.i < b.i); }
    static __device__ __forceinline__ E shfl(E a, int m) {
        return E{__shfl_xor_sync(0xffffffffu, a.k, m), __shfl_xor_sync(0xffffffffu, a.i, m)};
    }
    static __device__ __forceinline__ int pos(E a) { return (int)a.i; }
};
template <typename C> struct SortItems { typedef SortNarrow S; };
template <> struct SortItems<double> { typedef SortWide S; };
template <> struct SortItems<i64> { typedef SortWide S; };

// The item at position i of a block of the network sorting up to `k` (i & k == 0: ascending),
// given its partner's item p at position i ^ j: the smaller of the two where the lower
// position of an ascending block or the upper of a descending one, else the larger.
template <typename S>
__device__ __forceinline__ typename S::E sort_keep(typename S::E mine, typename S::E p, int i,
                                                   int j, int k) {
    bool take_min = ((i & j) == 0) == ((i & k) == 0);
    return S::less(p, mine) == take_min ? p : mine;
}

template <typename T, typename S>
__device__ void argsort_regs(const T* in, int n, int pow2, int desc, i64* out,
                             typename S::E* sh) {
    typedef typename S::E E;
    const int t = threadIdx.x;
    E v[8];
#pragma unroll
    for (int e = 0; e < 8; ++e) {
        int i = t * 8 + e;
        v[e] = i < n ? S::make(sort_image(ld(in[i])), desc, i) : S::pad(i);
    }
    for (int k = 2; k <= pow2; k <<= 1) {
        for (int j = k >> 1; j >= 8; j >>= 1) {
            if (j >= 256) { // another warp's items: through shared memory
                __syncthreads(); // the last stage's readers are done
#pragma unroll
                for (int e = 0; e < 8; ++e) sh[t * 8 + e] = v[e];
                __syncthreads();
#pragma unroll
                for (int e = 0; e < 8; ++e) {
                    int i = t * 8 + e;
                    v[e] = sort_keep<S>(v[e], sh[i ^ j], i, j, k);
                }
            } else { // lane t ^ (j / 8) of this warp holds the partners
#pragma unroll
                for (int e = 0; e < 8; ++e) {
                    E p = S::shfl(v[e], j >> 3);
                    v[e] = sort_keep<S>(v[e], p, t * 8 + e, j, k);
                }
            }
        }
        // Pairs 4, 2 and 1 apart: within the thread (constant indices keep v in registers).
#pragma unroll
        for (int j = 4; j > 0; j >>= 1) {
            if (j <= (k >> 1)) {
#pragma unroll
                for (int e = 0; e < 8; ++e) {
                    if ((e & j) == 0) {
                        bool up = ((t * 8 + e) & k) == 0;
                        E a = v[e], b = v[e | j];
                        bool swap = up ? S::less(b, a) : S::less(a, b);
                        v[e] = swap ? b : a;
                        v[e | j] = swap ? a : b;
                    }
                }
            }
        }
    }
#pragma unroll
    for (int e = 0; e < 8; ++e) {
        int i = t * 8 + e;
        if (i < n) out[i] = S::pos(v[e]);
    }
    __syncthreads(); // sh is reused by the block's next line
}

// Lines padded to fewer than 256 entries: the network in shared memory, one thread per
// compare-exchange (blockDim.x = max(32, pow2 / 2)), over the same items.
template <typename T, typename S>
__device__ void argsort_shared(const T* in, int n, int pow2, int desc, i64* out,
                               typename S::E* sh) {
    for (int i = threadIdx.x; i < pow2; i += blockDim.x)
        sh[i] = i < n ? S::make(sort_image(ld(in[i])), desc, i) : S::pad(i);
    __syncthreads();
    for (int k = 2; k <= pow2; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            // Pair t compares i and i + j, where i is t with a 0 bit inserted at j's place.
            for (int t = threadIdx.x; t < pow2 / 2; t += blockDim.x) {
                int i = (t & ~(j - 1)) * 2 + (t & (j - 1)), l = i + j;
                auto a = sh[i], b = sh[l];
                bool up = (i & k) == 0;
                if (up ? S::less(b, a) : S::less(a, b)) { sh[i] = b; sh[l] = a; }
            }
            __syncthreads();
        }
    }
    for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = S::pos(sh[i]);
    __syncthreads();
}

template <typename T>
__device__ __forceinline__ void argsort_line(const T* in, u64 len, u64 pow2, int desc, i64* out) {
    typedef typename SortItems<typename Cmp<T>::C>::S S;
    __shared__ typename S::E sh[SORT_MAX];
    if ((u64)blockDim.x * 8 == pow2) argsort_regs<T, S>(in, (int)len, (int)pow2, desc, out, sh);
    else argsort_shared<T, S>(in, (int)len, (int)pow2, desc, out, sh);
}
#define ARGSORT(NAME, SFX, T, O) \
    extern "C" __global__ void NAME##_##SFX(u64 lines, u64 len, u64 pow2, int desc, i64 off, \
                                            const T* in, O* out) { \
        in += off; \
        for (u64 line = blockIdx.x; line < lines; line += gridDim.x) { \
            argsort_line<T>(in + line * len, len, pow2, desc, out + line * len); \
        } \
    }

// arange: start + i * step, in f64 for floats (then rounded) and in wrapping i64 for integers.
template <typename O> __device__ __forceinline__ O arange_at(u64 i, double a, double s, i64 ia, i64 is) {
    typedef typename Cmp<O>::C C;
    // Rounded multiply, then rounded add (no FMA contraction), as the CPU computes it.
    if constexpr (is_float_c<C>()) return st<O>((C)__dadd_rn(a, __dmul_rn((double)i, s)));
    else return (O)((u64)ia + i * (u64)is);
}
#define ARANGE(NAME, SFX, T, O) \
    extern "C" __global__ void NAME##_##SFX(u64 n, double a, double s, i64 ia, i64 is, O* out) { \
        GRID_STRIDE(i, n) { out[i] = arange_at<O>(i, a, s, ia, is); } \
    }

// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3"): element i's
// four words depend only on (i, key), so a tensor is reproducible from its key in any launch.
__device__ __forceinline__ void philox(u64 i, u64 key, unsigned r[4]) {
    unsigned c0 = (unsigned)i, c1 = (unsigned)(i >> 32), c2 = 0, c3 = 0;
    unsigned k0 = (unsigned)key, k1 = (unsigned)(key >> 32);
    for (int round = 0; round < 10; ++round) {
        // One 32x32->64 multiply gives both halves.
        u64 p0 = (u64)0xD2511F53u * c0, p1 = (u64)0xCD9E8D57u * c2;
        c0 = (unsigned)(p1 >> 32) ^ c1 ^ k0;
        c1 = (unsigned)p1;
        c2 = (unsigned)(p0 >> 32) ^ c3 ^ k1;
        c3 = (unsigned)p0;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    r[0] = c0; r[1] = c1; r[2] = c2; r[3] = c3;
}

// One Philox call gives PER elements: uniforms on [0, 1) with 53 bits for f64 (two words
// each) and 24 for the others (16-bit results that round up to 1 become 0, as on the CPU); or
// standard normals by Box-Muller, two per pair of uniforms.
template <typename O, bool NORMAL> __device__ __forceinline__ void draw(u64 g, u64 key, O* out, u64 n) {
    unsigned r[4];
    philox(g, key, r);
    constexpr int PER = sizeof(O) == 8 ? 2 : 4;
    typedef typename Cmp<O>::C C;
    C v[4];
    if constexpr (sizeof(O) == 8) {
        v[0] = (double)((((u64)r[0] << 32) | r[1]) >> 11) * 0x1p-53;
        v[1] = (double)((((u64)r[2] << 32) | r[3]) >> 11) * 0x1p-53;
    } else {
        for (int k = 0; k < 4; ++k) v[k] = (float)(r[k] >> 8) * 0x1p-24f;
    }
    if constexpr (NORMAL) {
        for (int k = 0; k < PER; k += 2) {
            C rad = sqrt(C(-2) * log(C(1) - v[k])), th = C(6.283185307179586) * v[k + 1];
            v[k] = rad * cos(th);
            v[k + 1] = rad * sin(th);
        }
    }
    Pack<O, PER> p;
    for (int k = 0; k < PER; ++k) {
        O x = st<O>(v[k]);
        if (!NORMAL && ld(x) >= C(1)) x = st<O>(C(0));
        p.v[k] = x;
    }
    // One aligned store per group (the buffer starts aligned); element by element at the end.
    if (g * PER + PER <= n) {
        ((Pack<O, PER>*)out)[g] = p;
    } else {
        for (u64 i = g * PER; i < n; ++i) out[i] = p.v[i - g * PER];
    }
}

// rand and randn are separate kernels: Box-Muller's log/sin/cos would otherwise raise the
// register count of the uniform kernel too (it ran 1.6x slower on an H100 with them).
template <typename O> struct rand_g { static const bool NORMAL = false; };
template <typename O> struct randn_g { static const bool NORMAL = true; };
#define RAND(NAME, SFX, T, O) \
    extern "C" __global__ void NAME##_##SFX(u64 n, u64 key, O* out) { \
        GRID_STRIDE(g, (n + (sizeof(O) == 8 ? 1 : 3)) / (sizeof(O) == 8 ? 2 : 4)) { \
            draw<O, NAME##_g<O>::NORMAL>(g, key, out, n); \
        } \
    }
