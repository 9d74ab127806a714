// Binary element-wise kernels with broadcasting: `info` holds dims, then a's strides, then b's
// strides (0 on broadcast dimensions); ndim == 0 means both inputs are contiguous. Integer
// division by zero and negative integer exponents write 1 to `*flag` (the host turns that into
// the CPU's Err) and store 0.

// Integers add, subtract and multiply in u64 so that overflow wraps (signed overflow is UB).
template <typename C> __device__ __forceinline__ C add_op(C a, C b, int*) {
    if constexpr (is_float_c<C>()) return a + b;
    else return (C)((u64)a + (u64)b);
}
template <typename C> __device__ __forceinline__ C sub_op(C a, C b, int*) {
    if constexpr (is_float_c<C>()) return a - b;
    else return (C)((u64)a - (u64)b);
}
template <typename C> __device__ __forceinline__ C mul_op(C a, C b, int*) {
    if constexpr (is_float_c<C>()) return a * b;
    else return (C)((u64)a * (u64)b);
}
template <typename C> __device__ __forceinline__ C maximum_op(C a, C b, int*) {
    return (a != a || b != b) ? (C)(a != a ? a : b) : (a >= b ? a : b);
}
template <typename C> __device__ __forceinline__ C minimum_op(C a, C b, int*) {
    return (a != a || b != b) ? (C)(a != a ? a : b) : (a <= b ? a : b);
}
// relu's gradient (src/ops/binary.rs): 0 where `b <= 0`, else `a` (NaN `b` included).
template <typename C> __device__ __forceinline__ C relu_backward_op(C a, C b, int*) {
    return b <= C(0) ? C(0) : a;
}
// Integer quotient truncating toward zero; MIN / -1 wraps to MIN as Rust's wrapping_div.
template <typename C> __device__ __forceinline__ C idiv(C a, C b, int* flag) {
    if (b == 0) { *flag = 1; return 0; }
    if (b == (C)-1) return (C)(0ull - (u64)a);
    return (C)(a / b);
}
template <typename C> __device__ __forceinline__ C irem(C a, C b) {
    return b == (C)-1 ? (C)0 : (C)(a % b);
}
// `if constexpr ... else` keeps the integer-only code (%, the flag) out of float instances.
template <typename C> __device__ __forceinline__ C div_op(C a, C b, int* flag) {
    if constexpr (is_float_c<C>()) {
        return a / b;
    } else {
        return idiv(a, b, flag);
    }
}
template <typename C> __device__ __forceinline__ C floor_divide_op(C a, C b, int* flag) {
    if constexpr (is_float_c<C>()) {
        // NumPy's npy_divmod, as the CPU's `floor_div`: the quotient from fmod, so that
        // 1.0 // 0.1 is 9, inf // 2 is NaN and -1 // inf is -1.
        if (b == C(0)) return a / b;
        C m = fmod(a, b);
        C div = (a - m) / b;
        if (m != C(0) && ((b < C(0)) != (m < C(0)))) div -= C(1);
        if (div == C(0)) return copysign(C(0), a / b);
        C q = floor(div);
        return div - q > C(0.5) ? q + C(1) : q;
    } else {
        C q = idiv(a, b, flag);
        if (b != 0 && irem(a, b) != 0 && ((a < 0) != (b < 0))) q -= 1;
        return q;
    }
}
template <typename C> __device__ __forceinline__ C remainder_op(C a, C b, int* flag) {
    C r;
    if constexpr (is_float_c<C>()) {
        r = fmod(a, b);
    } else {
        if (b == 0) { *flag = 1; return 0; }
        r = irem(a, b);
    }
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
// C's fmod: the sign of the dividend; integers truncate (MIN fmod -1 is 0, as wrapping_rem).
template <typename C> __device__ __forceinline__ C fmod_op(C a, C b, int* flag) {
    if constexpr (is_float_c<C>()) {
        return fmod(a, b);
    } else {
        if (b == 0) { *flag = 1; return 0; }
        return irem(a, b);
    }
}
// Float-only ops (the host casts integer operands to a float dtype first; the integer
// instances exist only because the kernel table instantiates every root for every dtype).
#define FLOAT_BINARY(NAME, EXPR) \
    template <typename C> __device__ __forceinline__ C NAME##_op(C a, C b, int*) { \
        if constexpr (is_float_c<C>()) return EXPR; else return C(0); \
    }
FLOAT_BINARY(atan2, atan2(a, b))
FLOAT_BINARY(hypot, hypot(a, b))
FLOAT_BINARY(copysign, copysign(a, b))
// The Hurwitz zeta function as on the CPU (src/ops/special.rs): Cephes' Euler-Maclaurin
// summation in double.
__device__ __noinline__ double zeta_d(double x, double q) {
    const double A[12] = {12.0, -720.0, 30240.0, -1209600.0, 47900160.0,
                          -1.8924375803183791606e9, 7.47242496e10, -2.950130727918164224e12,
                          1.1646782814350067249e14, -4.5979787224074726105e15,
                          1.8152105401943546773e17, -7.1661652561756670113e18};
    const double eps = 1.1102230246251565e-16;
    if (x != x || q != q) return 0.0 / 0.0;
    if (x == 1.0) return 1.0 / 0.0;
    if (x < 1.0) return 0.0 / 0.0;
    if (q <= 0.0) {
        if (q == floor(q)) return 1.0 / 0.0;
        if (x != floor(x)) return 0.0 / 0.0;
    }
    double s = pow(q, -x), a = q, b = 0.0;
    int i = 0;
    while (i < 9 || a <= 9.0) {
        i++;
        a += 1.0;
        b = pow(a, -x);
        s += b;
        if (fabs(b / s) < eps) return s;
    }
    double w = a;
    s += b * w / (x - 1.0);
    s -= 0.5 * b;
    a = 1.0;
    double k = 0.0;
    for (int j = 0; j < 12; j++) {
        a *= x + k;
        b /= w;
        double t = a * b / A[j];
        s += t;
        if (fabs(t / s) < eps) return s;
        k += 1.0;
        a *= x + k;
        b /= w;
        k += 1.0;
    }
    return s;
}
FLOAT_BINARY(zeta, C(zeta_d((double)a, (double)b)))
// The regularized incomplete gamma functions as on the CPU (src/ops/igamma.rs): the series of
// P for x <= max(1, a), the continued fraction of Q beyond, Temme's expansion from a = 1e4.
__constant__ double TEMME_D[48] = {
    -0.3333333333333333, 0.08333333333333333, -0.014814814814814815, 0.0011574074074074073,
    0.0003527336860670194, -0.0001787551440329218, 3.919263178522438e-05, -2.185448510679992e-06,
    -1.85406221071516e-06, 8.296711340953087e-07, -1.7665952736826078e-07, 6.707853543401498e-09,
    1.0261809784240309e-08, -4.382036018453353e-09, 9.14769958223679e-10, -2.5514193994946248e-11,
    -0.001851851851851852, -0.003472222222222222, 0.0026455026455026454, -0.0009902263374485596,
    0.00020576131687242798, -4.018775720164609e-07, -1.8098550334489977e-05, 7.64916091608111e-06,
    -1.6120900894563446e-06, 4.647127802807434e-09, 1.378633446915721e-07, -5.752545603517705e-08,
    1.1951628599778148e-08, -1.7543241719747647e-11, -1.0091543710600413e-09, 4.162792991842583e-10,
    0.004133597883597883, -0.0026813271604938273, 0.0007716049382716049, 2.0093878600823047e-06,
    -0.0001073665322636516, 5.2923448829120125e-05, -1.2760635188618728e-05, 3.423578734096138e-08,
    1.3721957309062934e-06, -6.298992138380055e-07, 1.4280614206064242e-07, -2.0477098421990866e-10,
    -1.409252991086752e-08, 6.228974084922022e-09, -1.3670488396617114e-09, 9.428356159014678e-13};
__device__ double log1pmx_d(double t) {
    if (fabs(t) >= 0.2) return log1p(t) - t;
    double sum = 0.0, power = t;
    for (int n = 2; n < 40; n++) {
        power *= -t;
        double term = power / n;
        sum += term;
        if (fabs(term) <= 1e-17 * fabs(sum)) break;
    }
    return sum;
}
__device__ double igam_prefactor(double a, double x) {
    if (a < 10.0) return exp(a * log(x) - x - lgamma(a));
    double r = 1.0 / a, r2 = r * r;
    double tail = r * (1.0 / 12.0 - r2 * (1.0 / 360.0 - r2 * (1.0 / 1260.0 - r2 * (1.0 / 1680.0
        - r2 * (1.0 / 1188.0 - r2 * 691.0 / 360360.0)))));
    double t = (x - a) / a;
    double e = fabs(t) < 0.2 ? a * log1pmx_d(t) : a * log(x / a) + (a - x);
    return sqrt(a / 6.283185307179586) * exp(e - tail);
}
__device__ double lgamma1p_d(double a) {
    double sum = -0.5772156649015329 * a, power = -a;
    for (int k = 2; k < 80; k++) {
        power *= -a;
        double term = zeta_d((double)k, 1.0) * power / k;
        sum += term;
        if (fabs(term) <= 5.551115123125783e-17 * fabs(sum)) break;
    }
    return sum;
}
__device__ double igamc_series(double a, double x) {
    double fac = 1.0, sum = 0.0;
    for (int n = 1; n < 2000; n++) {
        fac *= -x / n;
        double term = fac / (a + n);
        sum += term;
        if (fabs(term) <= 1.1102230246251565e-16 * fabs(sum)) break;
    }
    double lx = log(x);
    return -expm1(a * lx - lgamma1p_d(a)) - exp(a * lx - lgamma(a)) * sum;
}
__device__ double igam_series(double a, double x) {
    double sum = 1.0, term = 1.0, r = a;
    for (int i = 0; i < 2000; i++) {
        r += 1.0;
        term *= x / r;
        sum += term;
        if (term <= sum * 1.1102230246251565e-16) break;
    }
    return igam_prefactor(a, x) * sum / a;
}
__device__ double igamc_fraction(double a, double x) {
    const double tiny = 1e-300;
    double b = x + 1.0 - a, c = 1.0 / tiny;
    double d = fabs(b) < tiny ? 1.0 / tiny : 1.0 / b, h = d;
    for (int i = 1; i < 2000; i++) {
        double an = -(double)i * ((double)i - a);
        b += 2.0;
        d = an * d + b;
        d = fabs(d) < tiny ? 1.0 / tiny : 1.0 / d;
        c = b + an / c;
        if (fabs(c) < tiny) c = tiny;
        double delta = d * c;
        h *= delta;
        if (fabs(delta - 1.0) <= 1.1102230246251565e-16) break;
    }
    return igam_prefactor(a, x) * h;
}
__device__ double igam_temme(double a, double x, double sign) {
    double l = log1pmx_d((x - a) / a);
    double eta = copysign(sqrt(-2.0 * l), x - a);
    double head = 0.5 * erfc(sign * eta * sqrt(a / 2.0));
    if (a * l < -745.0) return head;
    double sum = 0.0, afac = 1.0;
    for (int k = 0; k < 3; k++) {
        double ck = 0.0;
        for (int n = 15; n >= 0; n--) ck = ck * eta + TEMME_D[16 * k + n];
        sum += ck * afac;
        afac /= a;
    }
    return head + sign * exp(a * l) * sum / sqrt(6.283185307179586 * a);
}
// upper = 0: P(a, x); upper = 1: Q(a, x); the edge cases of SciPy and PyTorch first.
__device__ __noinline__ double igamma_d(double a, double x, int upper) {
    double zero = upper ? 1.0 : 0.0, one = upper ? 0.0 : 1.0;
    if (a != a || x != x || a < 0.0 || x < 0.0) return 0.0 / 0.0;
    if (a == 0.0) return x > 0.0 ? one : 0.0 / 0.0;
    if (x == 0.0) return zero;
    if (isinf(a)) return isinf(x) ? 0.0 / 0.0 : zero;
    if (isinf(x)) return one;
    if (a >= 1e4) return igam_temme(a, x, upper ? 1.0 : -1.0);
    if (!upper) return x > 1.0 && x > a ? 1.0 - igamc_fraction(a, x) : igam_series(a, x);
    if (x > 1.1) return x < a ? 1.0 - igam_series(a, x) : igamc_fraction(a, x);
    if (a > 0.5 || (x <= 0.5 && -0.4 / log(x) < a) || (x > 0.5 && x * 1.1 < a))
        return 1.0 - igam_series(a, x);
    return igamc_series(a, x);
}
FLOAT_BINARY(gammainc, C(igamma_d((double)a, (double)b, 0)))
FLOAT_BINARY(gammaincc, C(igamma_d((double)a, (double)b, 1)))
// Integer-only ops (the typed API bounds them on IntElement; the float instances exist only
// because the table instantiates every root for every dtype). Shifts by a negative amount or
// the width or more give 0 (left) or the sign (right), as on the CPU and in PyTorch.
#define INT_BINARY(NAME, EXPR) \
    template <typename C> __device__ __forceinline__ C NAME##_op(C a, C b, int*) { \
        if constexpr (is_float_c<C>()) return C(0); else return EXPR; \
    }
INT_BINARY(bitwise_and, (C)(a & b))
INT_BINARY(bitwise_or, (C)(a | b))
INT_BINARY(bitwise_xor, (C)(a ^ b))
INT_BINARY(bitwise_left_shift,
           (b >= 0 && b < (C)(8 * sizeof(C))) ? (C)((u64)a << (int)b) : (C)0)
INT_BINARY(bitwise_right_shift,
           (b >= 0 && b < (C)(8 * sizeof(C))) ? (C)(a >> (int)b) : (C)(a < 0 ? -1 : 0))
// gcd on the magnitudes in u64 (|MIN| is 2^63, which truncates back to MIN as on the CPU);
// lcm = |a / gcd · b| wrapping in C.
__device__ __forceinline__ u64 gcd_u64(long long a, long long b) {
    u64 x = a < 0 ? 0ull - (u64)a : (u64)a, y = b < 0 ? 0ull - (u64)b : (u64)b;
    while (x != 0) { u64 t = y % x; y = x; x = t; }
    return y;
}
INT_BINARY(gcd, (C)gcd_u64((long long)a, (long long)b))
template <typename C> __device__ __forceinline__ C lcm_op(C a, C b, int*) {
    if constexpr (is_float_c<C>()) {
        return C(0);
    } else {
        long long g = (long long)gcd_u64((long long)a, (long long)b);
        if (g == 0) return 0;
        // g is positive, or 2^63 read as MIN (then a is MIN too, and the quotient 1).
        C v = (C)((u64)((long long)a / g) * (u64)(long long)b);
        return v < 0 ? (C)(0ull - (u64)v) : v;
    }
}
template <typename C> __device__ __forceinline__ C pow_op(C a, C b, int* flag) {
    if constexpr (is_float_c<C>()) {
        return pow(a, b);
    } else {
        if (b < 0) { *flag = 1; return 0; }
        u64 base = (u64)a, acc = 1, e = (u64)b;
        while (e) { if (e & 1) acc *= base; base *= base; e >>= 1; }
        return (C)acc;
    }
}

#define CMP_OP(NAME, OP) \
    template <typename C> __device__ __forceinline__ bool NAME##_op(C a, C b, int*) { return a OP b; }
CMP_OP(eq, ==)
CMP_OP(ne, !=)
CMP_OP(lt, <)
CMP_OP(le, <=)
CMP_OP(gt, >)
CMP_OP(ge, >=)

// O is T for arithmetic and bool for comparisons.
#define BINARY(NAME, SFX, T, O) \
    extern "C" __global__ void NAME##_##SFX(u64 n, int ndim, const i64* info, i64 a_off, \
                                            const T* a, i64 b_off, const T* b, O* out, int* flag) { \
        typedef typename Cmp<T>::C C; \
        map2(n, ndim, info, a + a_off, b + b_off, out, \
             [flag](T x, T y) { return st<O>(NAME##_op<C>(ld(x), ld(y), flag)); }); \
    }

// nextafter on the stored format's bits (a 16-bit float's neighbour is not its f32 one), as
// on the CPU; the integer instances exist only because the table instantiates every dtype.
template <typename T> __device__ __forceinline__ T next_bits(T a, T) { return a; }
template <> __device__ __forceinline__ float next_bits<float>(float a, float b) { return nextafterf(a, b); }
template <> __device__ __forceinline__ double next_bits<double>(double a, double b) { return nextafter(a, b); }
template <typename H> __device__ __forceinline__ H next_half(H a, H b) {
    float x = ld(a), y = ld(b);
    if (x != x || y != y) return st<H>(x + y);
    if (x == y) return b;
    bool up = x < y;
    H r;
    if (x == 0.0f) r.bits = up ? 1 : 0x8001;
    else r.bits = (unsigned short)(up == (x > 0.0f) ? a.bits + 1 : a.bits - 1);
    return r;
}
template <> __device__ __forceinline__ f16_t next_bits<f16_t>(f16_t a, f16_t b) { return next_half(a, b); }
template <> __device__ __forceinline__ bf16_t next_bits<bf16_t>(bf16_t a, bf16_t b) { return next_half(a, b); }
#define BINARY_BITS(NAME, SFX, T, O) \
    extern "C" __global__ void NAME##_##SFX(u64 n, int ndim, const i64* info, i64 a_off, \
                                            const T* a, i64 b_off, const T* b, O* out, int* flag) { \
        map2(n, ndim, info, a + a_off, b + b_off, out, [](T x, T y) { return next_bits<T>(x, y); }); \
    }

// One Adam/AdamW update per element (Backend::adam_step): T the parameter's type, O the
// moments' compute type. Each operation is rounded as the composed step rounds it (the
// intrinsics keep the compiler from contracting a multiply and an add into one FMA): the
// decayed parameter and the step in T, the moments and the denominator in O.
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float sub_rn(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ double sub_rn(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ float div_rn(float a, float b) { return __fdiv_rn(a, b); }
__device__ __forceinline__ double div_rn(double a, double b) { return __ddiv_rn(a, b); }
__device__ __forceinline__ float sqrt_rn(float a) { return __fsqrt_rn(a); }
__device__ __forceinline__ double sqrt_rn(double a) { return __dsqrt_rn(a); }
#define ADAM_STEP(NAME, SFX, T, O) \
    extern "C" __global__ void NAME##_##SFX(u64 n, T* p, const T* g, O* m, O* v, double decay, \
                                            double b1, double b2, double c2_sqrt, double eps, \
                                            double step) { \
        typedef typename Cmp<T>::C CT; \
        const CT decay_t = ld(st<T>((CT)decay)); \
        const O b1_o = (O)b1, b1_c = (O)(1.0 - b1), b2_o = (O)b2, b2_c = (O)(1.0 - b2); \
        const O c2 = (O)c2_sqrt, eps_o = (O)eps, step_o = (O)step; \
        GRID_STRIDE(i, n) { \
            CT pd = decay == 1.0 ? ld(p[i]) : ld(st<T>(mul_rn(ld(p[i]), decay_t))); \
            O gi = (O)ld(g[i]); \
            O mi = add_rn(mul_rn(m[i], b1_o), mul_rn(gi, b1_c)); \
            O vi = add_rn(mul_rn(v[i], b2_o), mul_rn(mul_rn(gi, gi), b2_c)); \
            O d = add_rn(div_rn(sqrt_rn(vi), c2), eps_o); \
            O u = mul_rn(div_rn(mi, d), step_o); \
            p[i] = st<T>(sub_rn(pd, ld(st<T>((CT)u)))); \
            m[i] = mi; \
            v[i] = vi; \
        } \
    }
