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
__device__ double zeta_d(double x, double q) {
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
