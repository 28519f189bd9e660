// Sparse kernels of the cuda backend: the R1CS products A·w, B·w, C·w (CSR SpMV over Fr) and the
// satisfaction check a·b = c. Arrays of Fr are (n, 4) uint64 on the host side = 32-byte elements
// (2 x uint4) here, Montgomery form. Compiled by CuPy (NVRTC) from cuzk.backend.cuda.backend.
#include "fr.cuh"

// y[row] = sum_{k in [indptr[row], indptr[row+1])} coeffs[cids[k]] * w[cols[k]]   (Montgomery)
//
// G lanes (a power of two <= 32, chosen on the host from the mean row length) share one row: lane
// l sums the entries start + l, start + l + G, ..., then the G partial sums are added by shuffles
// (G = 1: one thread per row, no shuffles). Rows are visited in warp-uniform steps (every lane of
// a warp runs the same number of iterations, so the full-mask shuffles are legal at the tail).
// Empty rows give 0. The coefficient table (coeffs) is the matrix's distinct coefficients,
// uploaded once per matrix; cids index it. Row offsets IP (int64, or uint32 below 2^32 entries) and
// ids ID (uint32, or uint16 for tables of at most 2^16 coefficients) as the host stores them: the
// narrow forms move a third fewer bytes per streamed block (SpMVOps._host_csr32).
template <typename IP, typename ID>
__device__ __forceinline__ void spmv_rows(const IP* __restrict__ indptr, const u32* __restrict__ cols,
                                          const ID* __restrict__ cids, const uint4* __restrict__ coeffs,
                                          const uint4* __restrict__ w, uint4* __restrict__ y, u64 rows, int log_g) {
    const u32 G = 1u << log_g;
    const u32 lane = threadIdx.x & 31;
    const u32 sub = lane & (G - 1);            // lane within the row's group
    const u64 rows_per_warp = 32u >> log_g;
    const u64 warp = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const u64 nwarps = ((u64)gridDim.x * blockDim.x) >> 5;
    for (u64 base = warp * rows_per_warp; base < rows; base += nwarps * rows_per_warp) {
        const u64 row = base + (lane >> log_g);
        fr_t acc = fr_t::zero();
        if (row < rows) {
            const u64 end = (u64)indptr[row + 1];
            for (u64 k = (u64)indptr[row] + sub; k < end; k += G) {
                acc = fp_add(acc, fp_mul(fp_load<FrParams>(coeffs, cids[k]), fp_load<FrParams>(w, cols[k])));
            }
        }
        for (u32 off = G >> 1; off > 0; off >>= 1) {
            fr_t o;
#pragma unroll
            for (int i = 0; i < 8; i++) o.v[i] = __shfl_down_sync(0xffffffffu, acc.v[i], off, G);
            acc = fp_add(acc, o);
        }
        if (row < rows && sub == 0) fp_store(y, row, acc);
    }
}

#define SPMV_KERNEL(NAME, IP, ID)                                                                          \
    extern "C" __global__ void __launch_bounds__(256) NAME(                                                \
        const IP* __restrict__ indptr, const u32* __restrict__ cols, const ID* __restrict__ cids,          \
        const uint4* __restrict__ coeffs, const uint4* __restrict__ w, uint4* __restrict__ y, u64 rows,    \
        int log_g) {                                                                                       \
        spmv_rows<IP, ID>(indptr, cols, cids, coeffs, w, y, rows, log_g);                                  \
    }
SPMV_KERNEL(spmv_csr, long long, u32)
SPMV_KERNEL(spmv_csr_i64_u16, long long, unsigned short)
SPMV_KERNEL(spmv_csr_u32_u32, u32, u32)
SPMV_KERNEL(spmv_csr_u32_u16, u32, unsigned short)

// *first = min(*first, i) over the rows i with a[i]·b[i] != c[i] (Montgomery values are fully
// reduced, so equality of the Montgomery forms is equality in Fr). *first starts at ~0.
extern "C" __global__ void fr_first_unsat(const uint4* __restrict__ a, const uint4* __restrict__ b,
                                          const uint4* __restrict__ c, unsigned long long* first, u64 n) {
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)blockDim.x * gridDim.x) {
        if (!fp_eq(fp_mul(fp_load<FrParams>(a, i), fp_load<FrParams>(b, i)), fp_load<FrParams>(c, i))) {
            atomicMin(first, (unsigned long long)i);
        }
    }
}
