// Fr kernels of the cuda backend: Montgomery conversions, elementwise ops, powers, the Groth16
// H combination, and the NTT pass. Arrays are (n, 4) uint64 on the host side = 32-byte elements
// (2 x uint4) here, Montgomery form. Compiled by CuPy (NVRTC) from cuzk.backend.cuda.backend.
#include "fr.cuh"
#include "ntt.cuh"

#define GRID_STRIDE(i, n) for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (u64)blockDim.x * gridDim.x)

extern "C" __global__ void fr_to_mont(const uint4* __restrict__ a, uint4* __restrict__ out, u64 n) {
    GRID_STRIDE(i, n) fp_store(out, i, fp_to_mont(fp_load<FrParams>(a, i)));
}

extern "C" __global__ void fr_from_mont(const uint4* __restrict__ a, uint4* __restrict__ out, u64 n) {
    GRID_STRIDE(i, n) fp_store(out, i, fp_from_mont(fp_load<FrParams>(a, i)));
}

extern "C" __global__ void fr_add(const uint4* __restrict__ a, const uint4* __restrict__ b, uint4* __restrict__ out, u64 n) {
    GRID_STRIDE(i, n) fp_store(out, i, fp_add(fp_load<FrParams>(a, i), fp_load<FrParams>(b, i)));
}

extern "C" __global__ void fr_sub(const uint4* __restrict__ a, const uint4* __restrict__ b, uint4* __restrict__ out, u64 n) {
    GRID_STRIDE(i, n) fp_store(out, i, fp_sub(fp_load<FrParams>(a, i), fp_load<FrParams>(b, i)));
}

extern "C" __global__ void fr_mul(const uint4* __restrict__ a, const uint4* __restrict__ b, uint4* __restrict__ out, u64 n) {
    GRID_STRIDE(i, n) fp_store(out, i, fp_mul(fp_load<FrParams>(a, i), fp_load<FrParams>(b, i)));
}

// out[i] = a[i] * k[0]
extern "C" __global__ void fr_scale(const uint4* __restrict__ a, const uint4* __restrict__ k, uint4* __restrict__ out, u64 n) {
    const fr_t kk = fp_load<FrParams>(k, 0);
    GRID_STRIDE(i, n) fp_store(out, i, fp_mul(fp_load<FrParams>(a, i), kk));
}

// x[i] *= c w^e in place, for x a grid of rows of 2^lc elements, i = r 2^lc + col, R = row0 + r and
// e = (R (p col + q) + s col) mod 2^K: the split NTT's twiddles w^(R col) (p = 1, q = s = 0) and its
// input/output factors at the global index R + s col (p = 0, q = 1). c w^e = hi[e >> m] * lo[e & (2^m - 1)],
// tables of CUDABackend._factor_tables (lo unused when use_lo == 0). Products wrap mod 2^64: 2^K divides it.
extern "C" __global__ void fr_mul_pow_grid(uint4* x, const uint4* __restrict__ hi, const uint4* __restrict__ lo, int m,
                                           int use_lo, int lc, u64 row0, u64 p, u64 q, u64 s, int K, u64 n) {
    const u64 kmask = (1ull << K) - 1, cmask = (1ull << lc) - 1, mmask = (1ull << m) - 1;
    GRID_STRIDE(i, n) {
        const u64 col = i & cmask, R = row0 + (i >> lc);
        const u64 e = (R * (p * col + q) + s * col) & kmask;
        fr_t f = fp_load<FrParams>(hi, e >> m);
        if (use_lo) f = fp_mul(f, fp_load<FrParams>(lo, e & mmask));
        fp_store(x, i, fp_mul(fp_load<FrParams>(x, i), f));
    }
}

// out[i] = hi[i >> m] * lo[i & (2^m - 1)]: powers from two short tables (hi[a] = c x^(a 2^m), lo[b] = x^b).
extern "C" __global__ void fr_powers2(const uint4* __restrict__ hi, const uint4* __restrict__ lo, int m, uint4* __restrict__ out, u64 n) {
    const u64 mask = (1ull << m) - 1;
    GRID_STRIDE(i, n) fp_store(out, i, fp_mul(fp_load<FrParams>(hi, i >> m), fp_load<FrParams>(lo, i & mask)));
}

// ---- select: the rows i with mask[i] != 0, in order ----------------------------------------------
// Tiles of 256 * iters elements, one block each: select_count counts a tile's set entries, the host
// scans the counts (cupy.cumsum, inclusive), select_rows writes the tile's rows from its offset
// (warp ballots give each row its place). Replaces a host flatnonzero and an 8 B/row index upload:
// 0.8 s of each 32 GiB partition's proof on the H200 (stop 15, call2 limits.log).
extern "C" __global__ void __launch_bounds__(256) select_count(const unsigned char* __restrict__ mask, u64 n,
                                                                int iters, u64* __restrict__ counts) {
    u64 base = (u64)blockIdx.x * iters * 256;
    int c = 0;
    for (int k = 0; k < iters; k++) {
        u64 i = base + k * 256 + threadIdx.x;
        c += __syncthreads_count(i < n && mask[i]);
    }
    if (threadIdx.x == 0) counts[blockIdx.x] = (u64)c;
}

// This thread's place among the block's (256 threads) set flags before it, and their count (all).
__device__ __forceinline__ int block_rank(bool m, int* warp_set, int* all) {
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    unsigned b = __ballot_sync(0xffffffffu, m);
    if (lane == 0) warp_set[wid] = __popc(b);
    __syncthreads();
    int before = 0, tot = 0;
#pragma unroll
    for (int w = 0; w < 8; w++) {
        int t = warp_set[w];
        before += w < wid ? t : 0;
        tot += t;
    }
    *all = tot;
    return before + __popc(b & ((1u << lane) - 1u));
}

extern "C" __global__ void __launch_bounds__(256) select_rows(const uint4* __restrict__ a, const unsigned char* __restrict__ mask,
                                                               int iters, const u64* __restrict__ ends, uint4* __restrict__ out, u64 n) {
    __shared__ int warp_set[8];
    u64 base = (u64)blockIdx.x * iters * 256;
    u64 pos = blockIdx.x ? ends[blockIdx.x - 1] : 0;
    for (int k = 0; k < iters; k++) {
        u64 i = base + k * 256 + threadIdx.x;
        bool m = i < n && mask[i];
        int all, r = block_rank(m, warp_set, &all);
        if (m) {
            u64 o = pos + r;
            out[2 * o] = a[2 * i];
            out[2 * o + 1] = a[2 * i + 1];
        }
        pos += all;
        __syncthreads();   // warp_set is rewritten by the next round
    }
}

// ---- expand: elements of an assignment w stored compact (CompactAssignment, cuda CompactW) ---------
// out[i] = w[p], p = p0 + rows[i] (a selection) or p0 + i (a span). p < ni: an input (Montgomery limbs).
// Else aux a = p - ni: mask bit a set, the bit of rank r = cumw[a / 32] + (set mask bits below a in its
// word) among the packed bits, as Montgomery 0 or 1; else the wide value a - r (canonical, converted).
extern "C" __global__ void expand_compact(const uint4* __restrict__ inputs, u64 ni, const unsigned* __restrict__ mask,
                                          const unsigned* __restrict__ cumw, const unsigned char* __restrict__ bits,
                                          const uint4* __restrict__ wide, const unsigned* __restrict__ rows, u64 p0,
                                          uint4* __restrict__ out, u64 n) {
    GRID_STRIDE(i, n) {
        const u64 p = p0 + (rows ? (u64)rows[i] : i);
        if (p < ni) {
            out[2 * i] = inputs[2 * p];
            out[2 * i + 1] = inputs[2 * p + 1];
            continue;
        }
        const u64 a = p - ni;
        const unsigned word = mask[a >> 5], sh = (unsigned)(a & 31);
        const u64 r = (u64)cumw[a >> 5] + __popc(word & ((1u << sh) - 1u));
        if ((word >> sh) & 1) fp_store(out, i, ((bits[r >> 3] >> (r & 7)) & 1) ? fr_t::one() : fr_t::zero());
        else fp_store(out, i, fp_to_mont(fp_load<FrParams>(wide, a - r)));
    }
}

// out[j] = set bits of word j (the per-word counts whose exclusive scan is expand_compact's cumw).
extern "C" __global__ void popc_words(const unsigned* __restrict__ w, unsigned* __restrict__ out, u64 n) {
    GRID_STRIDE(j, n) out[j] = __popc(w[j]);
}

// ---- NTT passes: one shared-memory round trip per stage (ntt.cuh: ntt_pass_r2), or per round of two
// stages in registers (ntt_pass_radix<2>) ------------------------------------------------------------
// 4 blocks of 256 per SM: 64 registers, no spills (without the bound ff.cuh's fp_mul rows take 80)
NTT_PASS_KERNEL(ntt_pass, (256, 4), ntt_pass_r2)

// ntt_pass with the next stage's twiddle loaded ahead (ntt.cuh ntt_pass_r2pf): the small sizes' blocks
// of 2^8 elements, 128 threads, up to 4 blocks per SM by the bound
NTT_PASS_KERNEL(ntt_pass_pf, (256, 2), ntt_pass_r2pf)
// ntt_pass_pf with the next pass launched as its blocks end (ntt.cuh NTT_PASS_KERNEL_LATE): 2^17
NTT_PASS_KERNEL_LATE(ntt_pass_pf_late, (256, 2), ntt_pass_r2pf)

// Radix-4 capped at 3 blocks of 256 per SM (80 registers, no spills; ntt.cuh ntt_pass_radix): 1-4 %
// ahead of ntt_pass from 2^20 up on an H200 and an H100 (ntt.py's NTT_VARIANT_BY_LOG runs it
// there), where ntt_pass at 5 or 6 blocks and two butterflies a thread were slower
// (benchmarks/results/2026-12-05-h200-stop44). Here rather than in ntt_radix.cu: it adds about 2 s
// to this module's compile (nvcc), where ntt_radix.cu takes about 15 s.
NTT_PASS_KERNEL(ntt_pass_r4o3, (256, 3), ntt_pass_radix<2>)
