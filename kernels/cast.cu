// Casts with Rust `as` semantics (float -> int truncates toward zero and saturates, NaN -> 0;
// int -> int wraps; to bool is `!= 0`), and the strided copy behind `contiguous()`. Symbols:
// `cast_<from>_<to>` (CAST(cast_f32, i64, float, i64) defines cast_f32_i64) and `copy_<sfx>`.

template <typename U> struct Lim;
template <> struct Lim<u8> { static __device__ double lo() { return 0.0; } static __device__ double hi() { return 255.0; } };
template <> struct Lim<i16> { static __device__ double lo() { return -32768.0; } static __device__ double hi() { return 32767.0; } };
template <> struct Lim<i32> { static __device__ double lo() { return -2147483648.0; } static __device__ double hi() { return 2147483647.0; } };
template <> struct Lim<i64> { static __device__ double lo() { return -9223372036854775808.0; } static __device__ double hi() { return 9223372036854775807.0; } };

// To<U>::f(x) converts a compute value (float, double, an integer or bool) to storage type U.
template <typename U> struct To {
    template <typename C> static __device__ __forceinline__ U f(C x) {
        if constexpr (!is_float_c<C>()) {
            return (U)x;
        } else {
            double v = (double)x;
            if (v != v) return (U)0;
            if (v <= Lim<U>::lo()) return (U)Lim<U>::lo();
            // hi() of i64 rounds up to 2^63, which no i64 holds: saturate before converting.
            if (v >= Lim<U>::hi()) return sizeof(U) == 8 ? (U)9223372036854775807ll : (U)Lim<U>::hi();
            return (U)v;
        }
    }
};
template <> struct To<float> {
    template <typename C> static __device__ __forceinline__ float f(C x) { return (float)x; }
};
template <> struct To<double> {
    template <typename C> static __device__ __forceinline__ double f(C x) { return (double)x; }
};
template <> struct To<f16_t> {
    template <typename C> static __device__ __forceinline__ f16_t f(C x) { return f32_to_f16((float)x); }
};
template <> struct To<bf16_t> {
    template <typename C> static __device__ __forceinline__ bf16_t f(C x) { return f32_to_bf16((float)x); }
};
template <> struct To<bool> {
    template <typename C> static __device__ __forceinline__ bool f(C x) { return x != 0; }
};

#define CAST(NAME, SFX, T, O) \
    extern "C" __global__ void NAME##_##SFX(u64 n, int ndim, const i64* info, i64 off, \
                                            const T* in, O* out) { \
        map1(n, ndim, info, in + off, out, [](T x) { return To<O>::f(ld(x)); }); \
    }

// A strided gather into a contiguous output, copying the stored bits (O is T).
#define COPY(NAME, SFX, T, O) \
    extern "C" __global__ void NAME##_##SFX(u64 n, int ndim, const i64* info, i64 off, \
                                            const T* in, O* out) { \
        map1(n, ndim, info, in + off, out, [](T x) { return x; }); \
    }
