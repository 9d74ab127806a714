// Unary element-wise kernels. Each op is one expression in `x`, the input widened to the compute
// type; the Rust kernel table (src/ops/cuda/table.rs) appends one UNARY(root, suffix, T, O)
// line per (op, dtype), so the symbol is `<root>_<suffix>`, e.g. `sin_f32`. The input may be
// strided (ndim > 0: dims then strides in `info`); the output is contiguous.

// Float-valued ops: O is FloatOf<T>, computed in Cmp<O>::C (float or double). Every op also
// has NAME_rare and NAME_slow (map1's `rare` and `slow`): no input is rare unless an op says so.
#define FLOAT_OP(NAME, EXPR) \
    template <typename F> __device__ __forceinline__ F NAME##_op(F x) { return EXPR; } \
    NO_SLOW_PATH(NAME)
#define NO_SLOW_PATH(NAME) \
    template <typename X> __device__ __forceinline__ bool NAME##_rare(X) { return false; } \
    template <typename X> __device__ __forceinline__ X NAME##_slow(X x) { return NAME##_op(x); }

FLOAT_OP(sin, sin(x))
FLOAT_OP(cos, cos(x))
FLOAT_OP(tan, tan(x))
// sinf and cosf in f32 (and the 16-bit floats) as libdevice computes them for |x| < 105615:
// a three-part Cody–Waite reduction by pi/2 and its minimax polynomials, written out without
// libdevice's branch to the Payne–Hanek reduction, which split a thread's eight 16-bit elements
// into eight blocks (sin bf16 ran at 0.92x PyTorch). Larger |x|, inf and NaN are
// rare (map1) and take sinf/cosf itself, so the results equal sinf/cosf bit for bit (compared
// on all 2^32 floats on an H100).
#define FBITS(b) __int_as_float(b)
__device__ __forceinline__ float sincos_reduced(float x, int quadrant_shift) {
    // j = rint(x * 2/pi) by adding 1.5 * 2^23, whose low mantissa bits then hold j (two's
    // complement): the same j as libdevice's float-to-int-to-float, without those
    // conversions, which issue at a quarter of the FMA rate.
    const float t = __fadd_rn(__fmul_rn(x, FBITS(0x3F22F983)), 12582912.0f);
    const float j = __fsub_rn(t, 12582912.0f);
    int i = __float_as_int(t);
    float r = __fmaf_rn(j, FBITS(0xBFC90FDA), x); // x - j * pi/2 in three parts
    r = __fmaf_rn(j, FBITS(0xB3A22168), r);
    r = __fmaf_rn(j, FBITS(0xA7C234C5), r);
    i += quadrant_shift;
    const bool sine = (i & 1) == 0;
    const float r2 = __fmul_rn(r, r);
    // Both sides of each choice are computed, so it is a select, not a branch.
    const float c = __fmaf_rn(FBITS(0x37CBAC00), r2, FBITS(0xBAB607ED));
    float p = sine ? FBITS(0xB94D4153) : c;
    p = __fmaf_rn(p, r2, sine ? FBITS(0x3C0885E4) : FBITS(0x3D2AAABB));
    p = __fmaf_rn(p, r2, sine ? FBITS(0xBE2AAAA8) : FBITS(0xBEFFFFFF));
    const float base = sine ? r : 1.0f;
    const float s = __fmaf_rn(p, __fmaf_rn(r2, base, 0.0f), base);
    const float neg = __fmaf_rn(s, -1.0f, 0.0f);
    return (i & 2) ? neg : s;
}
template <> __device__ __forceinline__ float sin_op<float>(float x) { return sincos_reduced(x, 0); }
template <> __device__ __forceinline__ float cos_op<float>(float x) { return sincos_reduced(x, 1); }
__device__ __forceinline__ bool sincos_big(float x) { return !(fabsf(x) < 105615.0f); } // or NaN
template <> __device__ __forceinline__ bool sin_rare<float>(float x) { return sincos_big(x); }
template <> __device__ __forceinline__ bool cos_rare<float>(float x) { return sincos_big(x); }
template <> __device__ __noinline__ float sin_slow<float>(float x) { return sinf(x); }
template <> __device__ __noinline__ float cos_slow<float>(float x) { return cosf(x); }
FLOAT_OP(asin, asin(x))
FLOAT_OP(acos, acos(x))
FLOAT_OP(atan, atan(x))
FLOAT_OP(sinh, sinh(x))
FLOAT_OP(cosh, cosh(x))
FLOAT_OP(tanh, tanh(x))
FLOAT_OP(asinh, asinh(x))
FLOAT_OP(acosh, acosh(x))
FLOAT_OP(atanh, atanh(x))
FLOAT_OP(exp, exp(x))
FLOAT_OP(exp2, exp2(x))
FLOAT_OP(expm1, expm1(x))
FLOAT_OP(log, log(x))
FLOAT_OP(log2, log2(x))
FLOAT_OP(log10, log10(x))
FLOAT_OP(log1p, log1p(x))
FLOAT_OP(sqrt, sqrt(x))
FLOAT_OP(cbrt, cbrt(x))
FLOAT_OP(reciprocal, F(1) / x)
FLOAT_OP(erf, erf(x))
FLOAT_OP(erfc, erfc(x))
FLOAT_OP(gelu, x * F(0.5) * (F(1) + erf(x * F(0.70710678118654752440))))
// The special functions in double (CUDA's math library has them for double; the result is
// rounded once to the output type), digamma as on the CPU (src/ops/special.rs).
// They are called, not inlined (CALLED, and __noinline__ on ours): inlined into every dtype's
// kernel and every lane of its packed loop, they made this module 26 MB of PTX, and its first
// use a minute of NVRTC and JIT compilation.
#define CALLED(NAME, EXPR) __device__ __noinline__ double NAME##_d(double x) { return EXPR; }
CALLED(erfinv, erfinv(x))
CALLED(lgamma, lgamma(x))
CALLED(i0, cyl_bessel_i0(x))
CALLED(i1, cyl_bessel_i1(x))
CALLED(erfcx, erfcx(x))
CALLED(ndtri, normcdfinv(x))
FLOAT_OP(erfinv, F(erfinv_d((double)x)))
FLOAT_OP(lgamma, F(lgamma_d((double)x)))
FLOAT_OP(i0, F(i0_d((double)x)))
FLOAT_OP(i1, F(i1_d((double)x)))
__device__ __noinline__ double digamma_d(double x) {
    const double pi = 3.14159265358979323846;
    if (x != x || x == -1.0 / 0.0) return 0.0 / 0.0;
    if (x == 0.0) return signbit(x) ? 1.0 / 0.0 : -1.0 / 0.0;
    double acc = 0.0;
    if (x < 0.0) {
        if (x == floor(x)) return 0.0 / 0.0;
        acc = -pi / tan(pi * (x - rint(x)));
        x = 1.0 - x;
    }
    while (x < 10.0) { acc -= 1.0 / x; x += 1.0; }
    if (x == 1.0 / 0.0) return x;
    double z = 1.0 / (x * x);
    double s = ((((((-691.0 / 32760.0) * z + 1.0 / 132.0) * z - 1.0 / 240.0) * z + 1.0 / 252.0) * z
                 - 1.0 / 120.0) * z + 1.0 / 12.0) * z;
    return acc + log(x) - 0.5 / x - s;
}
FLOAT_OP(digamma, F(digamma_d((double)x)))
// The exponentially scaled Bessel functions as on the CPU (src/ops/special.rs): the power
// series times e^-|x| up to 20, the asymptotic expansion without the exponential beyond.
__device__ __noinline__ double bessel_ie_d(int nu, double x) {
    const double pi = 3.14159265358979323846;
    if (x != x) return x;
    double ax = fabs(x);
    double sgn = (nu == 1 && x < 0.0) ? -1.0 : 1.0;
    if (ax == 1.0 / 0.0) return 0.0 * sgn;
    if (ax <= 20.0) {
        double q = ax * ax / 4.0;
        double term = nu == 0 ? 1.0 : ax / 2.0;
        double sum = term;
        for (int k = 1; k < 200; k++) {
            term *= q / ((double)k * (double)(k + nu));
            sum += term;
            if (term < sum * 1e-17) break;
        }
        return sgn * sum * exp(-ax);
    }
    double mu = 4.0 * (double)(nu * nu);
    double term = 1.0, sum = 1.0;
    for (int k = 1; k < 60; k++) {
        double j = (double)(2 * k - 1);
        term *= -(mu - j * j) / ((double)k * 8.0 * ax);
        sum += term;
        if (fabs(term) < 1e-17 * fabs(sum)) break;
    }
    return sgn * sum / sqrt(2.0 * pi * ax);
}
FLOAT_OP(i0e, F(bessel_ie_d(0, (double)x)))
FLOAT_OP(i1e, F(bessel_ie_d(1, (double)x)))
FLOAT_OP(erfcx, F(erfcx_d((double)x)))
// ln Φ(x) as on the CPU: log1p above 0, the log of erfc down to -1, erfcx below.
__device__ __noinline__ double log_ndtr_d(double x) {
    double t = x * 0.70710678118654752440;
    if (x > 0.0) return log1p(-0.5 * erfc(t));
    if (x >= -1.0) return log(0.5 * erfc(-t));
    return log(0.5 * erfcx_d(-t)) - 0.5 * x * x;
}
FLOAT_OP(log_ndtr, F(log_ndtr_d((double)x)))
FLOAT_OP(ndtri, F(ndtri_d((double)x)))
// Bessel functions: J and Y as on the CPU (musl's, in kernels/bessel_jy.cuh, which table.rs
// puts before this file); K as on the CPU (src/ops/bessel.rs):
// the power series to 2, the trapezoidal rule on the integral beyond.
__device__ double series_k_d(int nu, double x) {
    double q = x * x / 4.0, l = log(x / 2.0);
    double psi = -0.5772156649015329, term = nu == 0 ? 1.0 : x / 2.0;
    double sum = nu == 0 ? 0.0 : 1.0 / x;
    for (int k = 0; k < 60; k++) {
        double k1 = (double)(k + 1);
        double add = nu == 0 ? (psi - l) * term : (l - psi - 0.5 / k1) * term;
        sum += add;
        psi += 1.0 / k1;
        term *= q / (k1 * (k1 + (double)nu));
        if (k > 2 && fabs(add) < 1e-17 * fabs(sum)) break;
    }
    return sum;
}
__device__ double integral_k_d(double nu, double x) {
    double h = fmin(0.125, 0.5 / sqrt(x)), sum = 0.5;
    for (int k = 1; k < 10000; k++) {
        double t = (double)k * h, s = sinh(t / 2.0);
        double decay = 2.0 * x * s * s;
        double grow = nu == 0.0 ? 0.0 : nu * t - 0.6931471805599453 + log1p(exp(-2.0 * nu * t));
        if (decay - grow > 45.0) break;
        sum += exp(grow - decay);
    }
    return sum * h;
}
__device__ __noinline__ double bessel_k_d(int nu, double x, int scaled) {
    if (x != x || x < 0.0) return 0.0 / 0.0;
    if (x == 0.0) return 1.0 / 0.0;
    if (x == 1.0 / 0.0) return 0.0;
    if (x <= 2.0) return series_k_d(nu, x) * (scaled ? exp(x) : 1.0);
    return integral_k_d(nu, x) * (scaled ? 1.0 : exp(-x));
}
__device__ __noinline__ double spherical_j0_d(double x) {
    if (isinf(x)) return 0.0;
    if (fabs(x) < 1e-4) { double x2 = x * x; return 1.0 - x2 / 6.0 * (1.0 - x2 / 20.0); }
    return sin(x) / x;
}
FLOAT_OP(bessel_j0, F(bessel_j0_d((double)x)))
FLOAT_OP(bessel_j1, F(bessel_j1_d((double)x)))
FLOAT_OP(bessel_y0, F(bessel_y0_d((double)x)))
FLOAT_OP(bessel_y1, F(bessel_y1_d((double)x)))
FLOAT_OP(modified_bessel_k0, F(bessel_k_d(0, (double)x, 0)))
FLOAT_OP(modified_bessel_k1, F(bessel_k_d(1, (double)x, 0)))
FLOAT_OP(scaled_modified_bessel_k0, F(bessel_k_d(0, (double)x, 1)))
FLOAT_OP(scaled_modified_bessel_k1, F(bessel_k_d(1, (double)x, 1)))
FLOAT_OP(spherical_bessel_j0, F(spherical_j0_d((double)x)))
FLOAT_OP(airy_ai, F(airy_ai_d((double)x)))
FLOAT_OP(sigmoid, x >= F(0) ? F(1) / (F(1) + exp(-x)) : exp(x) / (F(1) + exp(x)))
FLOAT_OP(silu, x / (F(1) + exp(-x)))

// Type-keeping ops: floats in their compute type, integers with wrap-around (as Rust's
// wrapping_neg / wrapping_abs), rounding is the identity on integers.
#define SAME_OP(NAME, FEXPR, IEXPR) \
    __device__ __forceinline__ float NAME##_op(float x) { return FEXPR; } \
    __device__ __forceinline__ double NAME##_op(double x) { return FEXPR; } \
    template <typename I> __device__ __forceinline__ I NAME##_op(I x) { return IEXPR; } \
    NO_SLOW_PATH(NAME)

#define WRAP_NEG(x) ((decltype(x))(0ull - (u64)(x)))
SAME_OP(neg, -x, WRAP_NEG(x))
SAME_OP(abs, fabs(x), x < 0 ? WRAP_NEG(x) : x)
SAME_OP(sign, x > 0 ? 1 : (x < 0 ? -1 : x), (decltype(x))((x > 0) - (x < 0)))
SAME_OP(floor, floor(x), x)
SAME_OP(ceil, ceil(x), x)
SAME_OP(round, rint(x), x)
SAME_OP(trunc, trunc(x), x)
SAME_OP(relu, (x > 0 || x != x) ? x : 0, x > 0 ? x : 0)
// pow(x, 3): two roundings for floats, as the CPU's; integers wrap (products in u64).
SAME_OP(cube, x * x * x, (decltype(x))((u64)x * (u64)x * (u64)x))

// UNARY_CAPPED: at most 32 registers a thread (8 blocks of 256 an SM), for the kernels the
// table names in `capped` (sin and cos of the 16-bit floats: eight polynomial chains a thread
// took 44 registers, and 108 us to PyTorch's 93 on an H100; 95 capped, with a quarter grid).
#define UNARY(NAME, SFX, T, O) UNARY_KERNEL(, NAME, SFX, T, O)
#define UNARY_CAPPED(NAME, SFX, T, O) UNARY_KERNEL(__launch_bounds__(256, 8), NAME, SFX, T, O)
#define UNARY_KERNEL(BOUNDS, NAME, SFX, T, O) \
    extern "C" __global__ void BOUNDS NAME##_##SFX(u64 n, int ndim, const i64* info, i64 off, \
                                                   const T* in, O* out) { \
        typedef typename Cmp<O>::C C; \
        map1(n, ndim, info, in + off, out, [](T x) { return st<O>(NAME##_op((C)ld(x))); }, \
             [](T x) { return NAME##_rare((C)ld(x)); }, \
             [](T x) { return st<O>(NAME##_slow((C)ld(x))); }); \
    }
