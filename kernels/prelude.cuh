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
    asm("cvt.f32.f16_t %0, %1;" : "=f"(f) : "h"(h.bits));
    return f;
}
__device__ __forceinline__ f16_t f32_to_f16(float f) {
    f16_t h;
    asm("cvt.rn.f16_t.f32 %0, %1;" : "=h"(h.bits) : "f"(f));
    return h;
}
// bf16_t is the top half of an f32: widening is a shift; narrowing rounds to nearest even.
__device__ __forceinline__ float bf16_to_f32(bf16_t h) {
    return __int_as_float(((int)h.bits) << 16);
}
__device__ __forceinline__ bf16_t f32_to_bf16(float f) {
    bf16_t h;
    asm("cvt.rn.bf16_t.f32 %0, %1;" : "=h"(h.bits) : "f"(f));
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
// hold `ndim` entries each; a contiguous input is passed with ndim == 0, so this is 0.
__device__ __forceinline__ i64 strided(u64 i, int ndim, const i64* dims, const i64* strides) {
    i64 off = 0;
    for (int d = ndim - 1; d >= 0; --d) {
        i64 k = (i64)(i % (u64)dims[d]);
        i /= (u64)dims[d];
        off += k * strides[d];
    }
    return off;
}

#define GRID_STRIDE(i, n) \
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (u64)blockDim.x * gridDim.x)
