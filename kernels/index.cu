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

// dst[view] = src[view]: both strided (src broadcast), for copy_from and concat.
#define COPY_TO(NAME, SFX, T, O) \
    extern "C" __global__ void NAME##_##SFX(u64 n, int ndim, const i64* info, i64 s_off, \
                                            const T* src, i64 d_off, O* dst) { \
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

// argsort of lines of at most SORT_MAX elements: one block per line sorts (key, position)
// pairs by a bitonic network in shared memory, padded to `pow2` entries. Ordering as the CPU's
// stable sort: NaN is the largest value (last ascending, first descending, as PyTorch), ties by
// position (which makes the network stable), padding after everything.
#define SORT_MAX 2048
template <typename C> __device__ __forceinline__ bool sort_before(C ka, int ia, C kb, int ib,
                                                                   int len, int desc) {
    if (ia >= len || ib >= len) return ia < ib;
    bool na = is_nan(ka), nb = is_nan(kb);
    if (na != nb) return desc ? na : nb;
    if (!na && ka != kb) return desc ? ka > kb : ka < kb;
    return ia < ib;
}
template <typename T> __device__ __forceinline__ void argsort_line(const T* in, u64 len, u64 pow2,
                                                                   int desc, i64* out) {
    typedef typename Cmp<T>::C C;
    __shared__ __align__(8) unsigned char key_bytes[SORT_MAX * sizeof(C)];
    __shared__ int pos[SORT_MAX];
    C* key = (C*)key_bytes;
    int n = (int)len;
    for (int i = threadIdx.x; i < (int)pow2; i += blockDim.x) {
        pos[i] = i;
        if (i < n) key[i] = ld(in[i]);
    }
    __syncthreads();
    for (int k = 2; k <= (int)pow2; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            // Pair t compares i and i + j, where i is t with a 0 bit inserted at j's place.
            for (int t = threadIdx.x; t < (int)pow2 / 2; t += blockDim.x) {
                int i = (t & ~(j - 1)) * 2 + (t & (j - 1)), l = i + j;
                int pi = pos[i], pl = pos[l];
                C ki = pi < n ? key[i] : C(), kl = pl < n ? key[l] : C();
                bool up = (i & k) == 0;
                bool swap = up ? sort_before(kl, pl, ki, pi, n, desc)
                               : sort_before(ki, pi, kl, pl, n, desc);
                if (swap) {
                    pos[i] = pl; pos[l] = pi;
                    if (pl < n) key[i] = kl;
                    if (pi < n) key[l] = ki;
                }
            }
            __syncthreads();
        }
    }
    for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = pos[i];
    __syncthreads();
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
