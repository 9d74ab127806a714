// Ai(x) in double, the algorithm of src/ops/bessel.rs (airy_ai): the Maclaurin series in
// double-double on [-12, 2], K_(1/3) by unary.cu's trapezoidal rule above, the asymptotic
// expansion below.
__device__ double integral_k_d(double nu, double x);
struct airy_dd { double hi, lo; };
__device__ __forceinline__ airy_dd airy_quick(double a, double b) {
    double s = a + b;
    return {s, b - (s - a)};
}
__device__ __forceinline__ airy_dd airy_add(airy_dd a, airy_dd b) {
    double s = a.hi + b.hi, v = s - a.hi;
    double e = (a.hi - (s - v)) + (b.hi - v);
    return airy_quick(s, e + a.lo + b.lo);
}
__device__ __forceinline__ airy_dd airy_mul(airy_dd a, airy_dd b) {
    double p = a.hi * b.hi;
    return airy_quick(p, fma(a.hi, b.hi, -p) + a.hi * b.lo + a.lo * b.hi);
}
__device__ __forceinline__ airy_dd airy_div(airy_dd a, double d) {
    double q = a.hi / d, p = q * d;
    double r = (a.hi - p) - fma(q, d, -p) + a.lo;
    return airy_quick(q, r / d);
}
__device__ __noinline__ double airy_series_d(double x) {
    const airy_dd ai0 = {0.3550280538878172, 2.05233632436212e-17};
    const airy_dd aip0 = {0.2588194037928068, -2.522243111610832e-17};
    airy_dd x3 = airy_mul({x * x, fma(x, x, -x * x)}, {x, 0.0});
    airy_dd f = {1.0, 0.0}, a = {1.0, 0.0}, g = {x, 0.0}, b = {x, 0.0};
    for (int k = 1; k < 200; k++) {
        double k3 = 3.0 * k;
        a = airy_div(airy_mul(a, x3), k3 * (k3 - 1.0));
        b = airy_div(airy_mul(b, x3), k3 * (k3 + 1.0));
        f = airy_add(f, a);
        g = airy_add(g, b);
        if (fabs(a.hi) <= 1e-34 * fabs(f.hi) && fabs(b.hi) <= 1e-34 * fabs(g.hi)) break;
    }
    airy_dd ag = airy_mul(aip0, g);
    return airy_add(airy_mul(ai0, f), {-ag.hi, -ag.lo}).hi;
}
__device__ __noinline__ double airy_ai_d(double x) {
    if (!isfinite(x)) return 0.0 / 0.0;
    if (x >= -12.0 && x <= 2.0) return airy_series_d(x);
    double z = fabs(x), s = sqrt(z);
    airy_dd zeta = airy_div(airy_mul(airy_mul({z, 0.0}, airy_quick(s, fma(-s, s, z) / (2.0 * s))),
                                     {2.0, 0.0}), 3.0);
    if (x > 0.0) {
        double half = exp(-0.5 * zeta.hi);
        double rest = sqrt(z / 3.0) / 3.141592653589793 * integral_k_d(1.0 / 3.0, zeta.hi);
        return half * (rest * (1.0 - zeta.lo)) * half;
    }
    double p = 1.0, q = 0.0, t = 1.0;
    for (unsigned k = 1; k < 60; k++) {
        double kf = k;
        t *= (6.0 * kf - 5.0) * (6.0 * kf - 3.0) * (6.0 * kf - 1.0) /
             (216.0 * (2.0 * kf - 1.0) * kf * zeta.hi);
        double sg = (k / 2) % 2 == 0 ? t : -t;
        if (k % 2 == 0) p += sg; else q += sg;
        if (t < 1e-18) break;
    }
    double sh, ch, sl, cl;
    sincos(zeta.hi, &sh, &ch);
    sincos(zeta.lo, &sl, &cl);
    double sn2 = sh * cl + ch * sl, cs2 = ch * cl - sh * sl;
    return 0.3989422804014327 * ((cs2 + sn2) * p + (sn2 - cs2) * q) / pow(z, 0.25);
}
