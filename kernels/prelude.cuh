// typed-tensor's CUDA prelude, prepended to every module. NVRTC without a CUDA toolkit cannot
// include cuda_fp16.h / cuda_bf16.h, so the 16-bit floats are storage structs converted with
// inline PTX, and all their arithmetic happens in f32.

typedef unsigned char u8;
typedef short i16;
typedef int i32;
typedef long long i64;
typedef unsigned long long u64;

struct __align__(2) f16_t { unsigned short bits; };
struct __align__(2) bf16_t { unsigned short bits; };

__device__ __forceinline__ float f16_to_f32(f16_t h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.bits));
    return f;
}
__device__ __forceinline__ f16_t f32_to_f16(float f) {
    f16_t h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.bits) : "f"(f));
    return h;
}
// bf16_t is the top half of an f32: widening is a shift; narrowing rounds to nearest even.
__device__ __forceinline__ float bf16_to_f32(bf16_t h) {
    return __int_as_float(((int)h.bits) << 16);
}
__device__ __forceinline__ bf16_t f32_to_bf16(float f) {
    bf16_t h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h.bits) : "f"(f));
    return h;
}

// Cmp<T>::C is the type T computes in: f32 for the 16-bit floats, T itself otherwise.
template <typename T> struct Cmp { typedef T C; };
template <> struct Cmp<f16_t> { typedef float C; };
template <> struct Cmp<bf16_t> { typedef float C; };

// ld widens a stored element to its compute type; st<T> narrows back.
template <typename T> __device__ __forceinline__ T ld(T x) { return x; }
__device__ __forceinline__ float ld(f16_t x) { return f16_to_f32(x); }
__device__ __forceinline__ float ld(bf16_t x) { return bf16_to_f32(x); }
template <typename T> __device__ __forceinline__ T st(typename Cmp<T>::C v) { return v; }
template <> __device__ __forceinline__ f16_t st<f16_t>(float v) { return f32_to_f16(v); }
template <> __device__ __forceinline__ bf16_t st<bf16_t>(float v) { return f32_to_bf16(v); }

template <typename T> __device__ __forceinline__ bool is_nan(T x) { return x != x; }

// True for the compute types of floats.
template <typename C> __device__ constexpr bool is_float_c() { return false; }
template <> __device__ constexpr bool is_float_c<float>() { return true; }
template <> __device__ constexpr bool is_float_c<double>() { return true; }

// The storage offset of the i-th element (row-major) of a strided view. `dims` and `strides`
// hold `ndim` entries each; contiguous inputs are passed with ndim == 0, and then it is i.
__device__ __forceinline__ i64 strided(u64 i, int ndim, const i64* dims, const i64* strides) {
    if (ndim == 0) return (i64)i;
    i64 off = 0;
    for (int d = ndim - 1; d >= 0; --d) {
        const u64 n = (u64)dims[d];
        i64 k;
        if (((i | n) >> 32) == 0) { // 32-bit division: a fraction of the 64-bit one's cost
            k = (i64)((unsigned)i % (unsigned)n);
            i = (unsigned)i / (unsigned)n;
        } else {
            k = (i64)(i % n);
            i /= n;
        }
        off += k * strides[d];
    }
    return off;
}

#define GRID_STRIDE(i, n) \
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (u64)blockDim.x * gridDim.x)

// N consecutive elements moved as one aligned access (16 bytes of the input type).
template <typename T, int N> struct alignas(sizeof(T) * N) Pack { T v[N]; };
template <typename T> __device__ constexpr int pack_n() { return 16 / sizeof(T) > 0 ? 16 / sizeof(T) : 1; }
template <typename T, int N> __device__ __forceinline__ bool aligned(const T* p) {
    return (u64)p % sizeof(Pack<T, N>) == 0;
}

// out[i] = f(a[i]) over the contiguous output. Contiguous, aligned input (ndim == 0) moves in
// packs of 16 input bytes; the rest, and strided inputs, one element at a time.
// `rare(x)` marks the inputs f does not cover, which `slow` computes instead: tested per pack and
// taken once for the whole pack, so f stays branch-free and a thread's elements schedule
// together (sin/cos in unary.cu; the others pass `never`, and the test folds away).
template <typename T, typename O, typename F, typename R, typename S>
__device__ __forceinline__ void map1(u64 n, int ndim, const i64* info, const T* a, O* out, F f,
                                     R rare, S slow) {
    constexpr int N = pack_n<T>();
    u64 done = 0;
    if (ndim == 0 && aligned<T, N>(a) && aligned<O, N>(out)) {
        done = n / N * N;
        GRID_STRIDE(v, n / N) {
            Pack<T, N> x = ((const Pack<T, N>*)a)[v];
            Pack<O, N> y;
            bool any = false;
#pragma unroll
            for (int k = 0; k < N; ++k) {
                y.v[k] = f(x.v[k]);
                any |= rare(x.v[k]);
            }
            if (any) { // unrolled: a loop indexing the packs would put them in local memory
#pragma unroll
                for (int k = 0; k < N; ++k)
                    if (rare(x.v[k])) y.v[k] = slow(x.v[k]);
            }
            ((Pack<O, N>*)out)[v] = y;
        }
    }
    GRID_STRIDE(i, n - done) {
        u64 j = done + i;
        T x = a[strided(j, ndim, info, info + ndim)];
        out[j] = rare(x) ? slow(x) : f(x);
    }
}
template <typename T, typename O, typename F>
__device__ __forceinline__ void map1(u64 n, int ndim, const i64* info, const T* a, O* out, F f) {
    map1(n, ndim, info, a, out, f, [](T) { return false; }, f);
}

// Whether a 2-d operand (strides `st`) reads in aligned packs of N along its rows: stride 1
// there with a row stride that is a multiple of N (each pack aligned as the base is), or
// stride 0 there (one element a pack, read once).
template <typename T, int N> __device__ __forceinline__ bool rows_pack(const i64* st, const T* p) {
    return st[1] == 0 || (st[1] == 1 && st[0] % N == 0 && aligned<T, N>(p));
}
template <typename T, int N> __device__ __forceinline__ Pack<T, N> load_pack(const T* p, i64 last) {
    if (last != 0) return *(const Pack<T, N>*)p;
    Pack<T, N> x;
#pragma unroll
    for (int k = 0; k < N; ++k) x.v[k] = p[0];
    return x;
}

// out[i] = f(a[i], b[i]), as map1; `info` holds dims, a's strides, then b's. Two more
// contiguous cases take no `info`: ndim -1 when b is one element broadcast (a tensor times a
// scalar), -2 when a is; they were strided loops with a division per dimension per element.
template <typename T, typename O, typename F>
__device__ __forceinline__ void map2(u64 n, int ndim, const i64* info, const T* a, const T* b,
                                     O* out, F f) {
    constexpr int N = pack_n<T>();
    const bool a_one = ndim == -2, b_one = ndim == -1;
    u64 done = 0;
    if (ndim <= 0 && (a_one || aligned<T, N>(a)) && (b_one || aligned<T, N>(b)) &&
        aligned<O, N>(out)) {
        done = n / N * N;
        GRID_STRIDE(v, n / N) {
            Pack<T, N> x, y;
            if (a_one) {
#pragma unroll
                for (int k = 0; k < N; ++k) x.v[k] = a[0];
            } else {
                x = ((const Pack<T, N>*)a)[v];
            }
            if (b_one) {
#pragma unroll
                for (int k = 0; k < N; ++k) y.v[k] = b[0];
            } else {
                y = ((const Pack<T, N>*)b)[v];
            }
            Pack<O, N> z;
#pragma unroll
            for (int k = 0; k < N; ++k) z.v[k] = f(x.v[k], y.v[k]);
            ((Pack<O, N>*)out)[v] = z;
        }
    }
    // Two dimensions whose last is contiguous or broadcast in each operand (a bias added to
    // every row, a column broadcast): packs within one row, the offsets computed once a pack.
    // (Any ndim here costs 18 more registers in every binary kernel, its fast paths' included.)
    const i64 *dims = info, *sa = info + (ndim > 0 ? ndim : 0), *sb = sa + (ndim > 0 ? ndim : 0);
    if (ndim == 2 && dims[1] % N == 0 && rows_pack<T, N>(sa, a) && rows_pack<T, N>(sb, b) &&
        aligned<O, N>(out)) {
        done = n; // the last dimension is a multiple of N
        const u64 cols = (u64)dims[1];
        GRID_STRIDE(v, n / N) {
            const u64 j = v * N;
            const u64 r = ((j | cols) >> 32) == 0 ? (unsigned)j / (unsigned)cols : j / cols;
            const u64 c = j - r * cols;
            Pack<T, N> x = load_pack<T, N>(a + (i64)r * sa[0] + (i64)c * sa[1], sa[1]);
            Pack<T, N> y = load_pack<T, N>(b + (i64)r * sb[0] + (i64)c * sb[1], sb[1]);
            Pack<O, N> z;
#pragma unroll
            for (int k = 0; k < N; ++k) z.v[k] = f(x.v[k], y.v[k]);
            ((Pack<O, N>*)out)[v] = z;
        }
    }
    GRID_STRIDE(i, n - done) {
        u64 j = done + i;
        if (ndim <= 0) out[j] = f(a[a_one ? 0 : j], b[b_one ? 0 : j]);
        else out[j] = f(a[strided(j, ndim, dims, sa)], b[strided(j, ndim, dims, sb)]);
    }
}
