// Fused kernels over the rows of a contiguous (rows, len) view, one block per row (a
// grid-stride loop over rows; blockDim.x a multiple of 32): softmax, logsumexp, exp(x - shift)
// times a per-row scale, and layer norm. The semantics are the CPU's fused row kernels
// (src/backend/cpu/kernels/rows.rs) and, for layer norm, the composed op it replaces
// (src/nn/layers.rs); only f32 and f64 reach them (16-bit floats are widened by the caller).
// A row is read once per pass; after the first pass it is served from the cache.

// The maximum ignoring NaN, as the CPU's row_max: a NaN reaches the result through exp.
template <typename C> __device__ __forceinline__ C max_nn(C a, C b) { return b > a ? b : a; }
template <typename C> __device__ __forceinline__ C add_c(C a, C b) { return a + b; }

// `f` over the block's values, in a fixed order (deterministic); every thread gets the result.
template <typename C, typename F>
__device__ __forceinline__ C block_all(C v, C identity, F f) {
    __shared__ C sh[32];
    for (int o = 16; o > 0; o >>= 1) v = f(v, __shfl_xor_sync(0xffffffffu, v, o));
    const unsigned w = threadIdx.x / 32, l = threadIdx.x % 32, nw = blockDim.x / 32;
    __syncthreads(); // the previous call's readers are done with sh
    if (l == 0) sh[w] = v;
    __syncthreads();
    v = l < nw ? sh[l] : identity;
    for (int o = 16; o > 0; o >>= 1) v = f(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

template <typename C> __device__ __forceinline__ C row_max(const C* x, u64 len) {
    C m = (C)(-1.0 / 0.0);
    for (u64 j = threadIdx.x; j < len; j += blockDim.x) m = max_nn(m, x[j]);
    return block_all(m, (C)(-1.0 / 0.0), max_nn<C>);
}

template <typename C> __device__ __forceinline__ C row_sum_exp(const C* x, u64 len, C shift) {
    C s = 0;
    for (u64 j = threadIdx.x; j < len; j += blockDim.x) s += exp(x[j] - shift);
    return block_all(s, (C)0, add_c<C>);
}

// f32 rows of up to ROW_REG float4s a thread are read into registers once, as float4s, and
// every pass runs over the registers: the passes over memory of the general loops below (the
// later ones served from L1/L2) kept the layer norm at 0.6 of PyTorch's speed on the H100.
// The row, its operands and the output must be 16-byte aligned (`reg_ok`, the same for every
// row of a launch). The other types take the general loops (each `*_reg` returns false).
#define ROW_REG 8
#define FOR_REG(V, K, N4) \
    _Pragma("unroll") for (int i_ = 0; i_ < ROW_REG; ++i_) \
        if (u64 K = threadIdx.x + (u64)i_ * blockDim.x; K < (N4)) \
            if (float4& V = v[i_]; true)
__device__ __forceinline__ bool aligned16(const void* p) { return ((u64)p & 15) == 0; }
__device__ __forceinline__ bool reg_ok(u64 len, const void* in, const void* out) {
    return len % 4 == 0 && len / 4 <= (u64)ROW_REG * blockDim.x && aligned16(in) && aligned16(out);
}
__device__ __forceinline__ float4 load_reg(const float* x, u64 k) { return ((const float4*)x)[k]; }
__device__ __forceinline__ void store_reg(float* y, u64 k, float4 v) { ((float4*)y)[k] = v; }

template <typename C> __device__ __forceinline__ bool softmax_reg(u64, const C*, C*) { return false; }
__device__ __forceinline__ bool softmax_reg(u64 len, const float* x, float* y) {
    if (!reg_ok(len, x, y)) return false;
    const u64 n4 = len / 4;
    float4 v[ROW_REG];
    float m = -1.0f / 0.0f;
    FOR_REG(e, k, n4) {
        e = load_reg(x, k);
        m = max_nn(max_nn(max_nn(max_nn(m, e.x), e.y), e.z), e.w);
    }
    m = block_all(m, -1.0f / 0.0f, max_nn<float>);
    float s = 0.0f;
    FOR_REG(e, k, n4) {
        e = make_float4(exp(e.x - m), exp(e.y - m), exp(e.z - m), exp(e.w - m));
        s += e.x; s += e.y; s += e.z; s += e.w;
    }
    const float c = 1.0f / block_all(s, 0.0f, add_c<float>);
    FOR_REG(e, k, n4) store_reg(y, k, make_float4(e.x * c, e.y * c, e.z * c, e.w * c));
    return true;
}

// y = exp(x - m) / sum(exp(x - m)) with m the row's maximum (a NaN or a maximum of ±inf
// makes the row NaN, as x - max(x) does); scaled by the reciprocal of the sum, as the CPU.
template <typename C> __device__ void softmax_rows(u64 rows, u64 len, const C* in, C* out) {
    for (u64 r = blockIdx.x; r < rows; r += gridDim.x) {
        const C* x = in + r * len;
        if (softmax_reg(len, x, out + r * len)) continue;
        C m = row_max(x, len);
        C c = (C)1 / row_sum_exp(x, len, m);
        for (u64 j = threadIdx.x; j < len; j += blockDim.x) out[r * len + j] = exp(x[j] - m) * c;
    }
}

// log(sum(exp(x))) of each row, shifted by its maximum when that is finite (by 0 otherwise,
// so all -inf gives -inf, +inf gives +inf, and NaN gives NaN).
template <typename C> __device__ void logsumexp_rows(u64 rows, u64 len, const C* in, C* out) {
    for (u64 r = blockIdx.x; r < rows; r += gridDim.x) {
        const C* x = in + r * len;
        C m = row_max(x, len);
        C shift = m - m == (C)0 ? m : (C)0;
        C s = row_sum_exp(x, len, shift);
        if (threadIdx.x == 0) out[r] = log(s) + shift;
    }
}

// out = exp(x - shift[r]) * scale[r] (no factor when scale is null).
template <typename C>
__device__ void exp_sub_rows(u64 rows, u64 len, const C* in, const C* shift, const C* scale,
                             C* out) {
    for (u64 r = blockIdx.x; r < rows; r += gridDim.x) {
        const C s = shift[r];
        for (u64 j = threadIdx.x; j < len; j += blockDim.x) {
            C e = exp(in[r * len + j] - s);
            out[r * len + j] = scale ? e * scale[r] : e;
        }
    }
}

// (x - mean) / sqrt(var + eps) * weight + bias with the biased variance, rounded as the
// composed op rounds it: both means are f64 sums divided by len, rounded to C; the centred
// values and their squares are C. weight and bias (len values each) may be null.
template <typename C>
__device__ __forceinline__ bool layer_norm_reg(u64, const C*, const C*, const C*, double, C*) {
    return false;
}
__device__ __forceinline__ bool layer_norm_reg(u64 len, const float* x, const float* weight,
                                               const float* bias, double eps, float* y) {
    if (!reg_ok(len, x, y) || !aligned16(weight) || !aligned16(bias)) return false;
    const u64 n4 = len / 4;
    float4 v[ROW_REG];
    double s = 0.0;
    FOR_REG(e, k, n4) {
        e = load_reg(x, k);
        s += (double)e.x; s += (double)e.y; s += (double)e.z; s += (double)e.w;
    }
    const float mean = (float)(block_all(s, 0.0, add_c<double>) / (double)len);
    double q = 0.0;
    FOR_REG(e, k, n4) {
        float c0 = e.x - mean, c1 = e.y - mean, c2 = e.z - mean, c3 = e.w - mean;
        q += (double)(c0 * c0); q += (double)(c1 * c1); q += (double)(c2 * c2); q += (double)(c3 * c3);
    }
    const float var = (float)(block_all(q, 0.0, add_c<double>) / (double)len);
    const float den = sqrt(var + (float)eps);
    FOR_REG(e, k, n4) {
        float4 o = make_float4((e.x - mean) / den, (e.y - mean) / den, (e.z - mean) / den,
                               (e.w - mean) / den);
        if (weight) {
            float4 w = load_reg(weight, k);
            o = make_float4(o.x * w.x, o.y * w.y, o.z * w.z, o.w * w.w);
        }
        if (bias) {
            float4 b = load_reg(bias, k);
            o = make_float4(o.x + b.x, o.y + b.y, o.z + b.z, o.w + b.w);
        }
        store_reg(y, k, o);
    }
    return true;
}

template <typename C>
__device__ void layer_norm_rows(u64 rows, u64 len, const C* in, const C* weight, const C* bias,
                                double eps, C* out) {
    for (u64 r = blockIdx.x; r < rows; r += gridDim.x) {
        const C* x = in + r * len;
        if (layer_norm_reg(len, x, weight, bias, eps, out + r * len)) continue;
        double s = 0.0;
        for (u64 j = threadIdx.x; j < len; j += blockDim.x) s += (double)x[j];
        const C mean = (C)(block_all(s, 0.0, add_c<double>) / (double)len);
        double q = 0.0;
        for (u64 j = threadIdx.x; j < len; j += blockDim.x) {
            C c = x[j] - mean;
            q += (double)(c * c);
        }
        const C var = (C)(block_all(q, 0.0, add_c<double>) / (double)len);
        const C den = sqrt(var + (C)eps);
        for (u64 j = threadIdx.x; j < len; j += blockDim.x) {
            C y = (x[j] - mean) / den;
            if (weight) y = y * weight[j];
            if (bias) y = y + bias[j];
            out[r * len + j] = y;
        }
    }
}

// One macro per kernel, so that the table's one line per (root, dtype) defines one symbol;
// `off*` are the element offsets of the operands' views.
#define SOFTMAX_ROWS(NAME, SFX, T, O) \
    extern "C" __global__ void NAME##_##SFX(u64 rows, u64 len, i64 off, const T* in, T* out) { \
        softmax_rows<T>(rows, len, in + off, out); \
    }
#define LOGSUMEXP_ROWS(NAME, SFX, T, O) \
    extern "C" __global__ void NAME##_##SFX(u64 rows, u64 len, i64 off, const T* in, T* out) { \
        logsumexp_rows<T>(rows, len, in + off, out); \
    }
#define EXP_SUB_ROWS(NAME, SFX, T, O) \
    extern "C" __global__ void NAME##_##SFX(u64 rows, u64 len, i64 off, const T* in, \
                                            i64 off_shift, const T* shift, i64 off_scale, \
                                            const T* scale, T* out) { \
        exp_sub_rows<T>(rows, len, in + off, shift + off_shift, scale ? scale + off_scale : scale, \
                        out); \
    }
#define LAYER_NORM_ROWS(NAME, SFX, T, O) \
    extern "C" __global__ void NAME##_##SFX(u64 rows, u64 len, i64 off, const T* in, \
                                            i64 off_weight, const T* weight, i64 off_bias, \
                                            const T* bias, double eps, T* out) { \
        layer_norm_rows<T>(rows, len, in + off, weight ? weight + off_weight : weight, \
                           bias ? bias + off_bias : bias, eps, out); \
    }
