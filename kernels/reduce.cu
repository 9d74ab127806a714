// Row reductions: the host moves the reduced axes last and makes the input contiguous, so each
// of `rows` outputs reduces `len` consecutive elements. One block of RED_THREADS threads per
// row (grid-stride over rows), combined in shared memory. Floats sum in f64 and integers in i64
// (wrapping, like the CPU); min/max propagate NaN; arg-reductions return the first NaN or the
// first occurrence of the extreme, as i64. Empty rows never reach min/max/arg kernels.

#define RED_THREADS 256

template <typename C> struct Acc { typedef i64 A; };
template <> struct Acc<float> { typedef double A; };
template <> struct Acc<double> { typedef double A; };

__device__ __forceinline__ double wadd(double a, double b) { return a + b; }
__device__ __forceinline__ i64 wadd(i64 a, i64 b) { return (i64)((u64)a + (u64)b); }
__device__ __forceinline__ double wmul(double a, double b) { return a * b; }
__device__ __forceinline__ i64 wmul(i64 a, i64 b) { return (i64)((u64)a * (u64)b); }

template <typename T, typename O, bool PROD>
__device__ __forceinline__ void fold_rows(u64 rows, u64 len, const T* in, O* out) {
    typedef typename Acc<typename Cmp<T>::C>::A A;
    __shared__ A sh[RED_THREADS];
    for (u64 r = blockIdx.x; r < rows; r += gridDim.x) {
        const T* row = in + r * len;
        A acc = PROD ? (A)1 : (A)0;
        for (u64 j = threadIdx.x; j < len; j += blockDim.x) {
            A x = (A)ld(row[j]);
            acc = PROD ? wmul(acc, x) : wadd(acc, x);
        }
        sh[threadIdx.x] = acc;
        __syncthreads();
        for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
            if (threadIdx.x < s) {
                sh[threadIdx.x] = PROD ? wmul(sh[threadIdx.x], sh[threadIdx.x + s])
                                       : wadd(sh[threadIdx.x], sh[threadIdx.x + s]);
            }
            __syncthreads();
        }
        if (threadIdx.x == 0) out[r] = st<O>((typename Cmp<O>::C)sh[0]);
        __syncthreads();
    }
}
template <typename T, typename O> __device__ void sum_rows(u64 rows, u64 len, const T* in, O* out) {
    fold_rows<T, O, false>(rows, len, in, out);
}
template <typename T, typename O> __device__ void product_rows(u64 rows, u64 len, const T* in, O* out) {
    fold_rows<T, O, true>(rows, len, in, out);
}

// (value, index) pairs; `better` says whether b replaces a.
template <typename C, bool MAX> __device__ __forceinline__ bool better(C a, i64 ia, C b, i64 ib) {
    bool na = a != a, nb = b != b;
    if (na || nb) return nb && (!na || ib < ia);
    if (MAX ? b > a : b < a) return true;
    return b == a && ib < ia;
}

template <typename T, typename O, bool MAX, bool ARG>
__device__ __forceinline__ void extreme_rows(u64 rows, u64 len, const T* in, O* out) {
    typedef typename Cmp<T>::C C;
    __shared__ C sv[RED_THREADS];
    __shared__ i64 si[RED_THREADS];
    for (u64 r = blockIdx.x; r < rows; r += gridDim.x) {
        const T* row = in + r * len;
        // Threads past the end start on element 0; extremes are idempotent and ties keep the
        // lower index, so the duplicate changes nothing.
        i64 bi = threadIdx.x < len ? (i64)threadIdx.x : 0;
        C bv = ld(row[bi]);
        for (u64 j = threadIdx.x + blockDim.x; j < len; j += blockDim.x) {
            C v = ld(row[j]);
            if (better<C, MAX>(bv, bi, v, (i64)j)) { bv = v; bi = (i64)j; }
        }
        sv[threadIdx.x] = bv;
        si[threadIdx.x] = bi;
        __syncthreads();
        for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
            if (threadIdx.x < s &&
                better<C, MAX>(sv[threadIdx.x], si[threadIdx.x], sv[threadIdx.x + s], si[threadIdx.x + s])) {
                sv[threadIdx.x] = sv[threadIdx.x + s];
                si[threadIdx.x] = si[threadIdx.x + s];
            }
            __syncthreads();
        }
        if (threadIdx.x == 0) {
            if constexpr (ARG) out[r] = (O)si[0];
            else out[r] = row[si[0]];
        }
        __syncthreads();
    }
}
template <typename T, typename O> __device__ void max_rows(u64 rows, u64 len, const T* in, O* out) {
    extreme_rows<T, O, true, false>(rows, len, in, out);
}
template <typename T, typename O> __device__ void min_rows(u64 rows, u64 len, const T* in, O* out) {
    extreme_rows<T, O, false, false>(rows, len, in, out);
}
template <typename T, typename O> __device__ void argmax_rows(u64 rows, u64 len, const T* in, O* out) {
    extreme_rows<T, O, true, true>(rows, len, in, out);
}
template <typename T, typename O> __device__ void argmin_rows(u64 rows, u64 len, const T* in, O* out) {
    extreme_rows<T, O, false, true>(rows, len, in, out);
}

#define REDUCE(NAME, SFX, T, O) \
    extern "C" __global__ void NAME##_##SFX(u64 rows, u64 len, const T* in, O* out) { \
        NAME##_rows<T, O>(rows, len, in, out); \
    }
