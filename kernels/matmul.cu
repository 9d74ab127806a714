// Integer matmul (floats go through cuBLAS): c[b] = a[b] · b[b] for `batch` row-major
// (m, k) · (k, n) products of contiguous operands starting at the given element offsets. One
// thread per output element; products accumulate in u64 so that overflow wraps as on the CPU.

#define MATMUL(NAME, SFX, T, O) \
    extern "C" __global__ void NAME##_##SFX(u64 batch, u64 m, u64 n, u64 k, const T* a, i64 a_off, \
                                            const T* b, i64 b_off, O* c) { \
        GRID_STRIDE(i, batch * m * n) { \
            u64 bi = i / (m * n), row = (i / n) % m, col = i % n; \
            const T* ar = a + a_off + (bi * m + row) * k; \
            const T* bc = b + b_off + bi * k * n + col; \
            u64 acc = 0; \
            for (u64 p = 0; p < k; ++p) acc += (u64)ar[p] * (u64)bc[p * n]; \
            c[i] = (O)acc; \
        } \
    }
