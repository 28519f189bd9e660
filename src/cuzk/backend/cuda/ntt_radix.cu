// Radix-4/8 variants of ntt.cu's NTT pass (one capped at 3 blocks per SM), in their
// own module: compiled (NVRTC, about 35 s more than ntt.cu) only when ntt.py's NTT_VARIANT names one.
#include "ntt.cuh"

// ---- NTT, radix-4 / radix-8 variants (ntt_pass_r4, ntt_pass_r8, ntt_pass_r8c) -------------------
// The same pass as ntt_pass (arguments, flags, block layout, element order, twiddle table), but the
// t stages run in rounds of R = 2 or 3 stages (a first round of t mod R when R does not divide t):
// a thread holds a group of 2^R elements in registers and runs all the round's butterflies on them,
// so shared memory is read and written once per round instead of once per stage, and a group's
// 2^R - 1 twiddles are fewer loads than its R 2^(R-1) butterflies. The first round reads its groups
// from global memory (PRE applied) and the last writes them there (ntt_out), without a shared-memory
// copy of the block before or after. Shared memory stores element e at ntt_sw<R>(e) (below).
// Group of round stages hl..h0 (h0 = hl - m + 1, local stage numbers: stage s_lo + h of the pass):
// g = (jhi 2^h0 + jlow) 2^c + l, its element b < 2^m is e = ((jhi 2^(hl+1) + b 2^h0 + jlow) << c) + l.
// Registers and spills (nvcc 13.0 -arch=sm_90 -Xptxas -v): see ntt.py's NTT_VARIANTS.

// Shared-memory slot of element e: its low 5 bits XOR bits R..R+4 (a bijection of [0, E) that
// keeps e's bits from 5 up). Without it a warp reading element b of 32 groups hits up to 2^R
// words per bank when the groups lie 2^(m+h0) apart (h0 < 5 and c < 5: the last rounds of every
// pass); with it, 32 distinct banks in every round of every pass shape (t, c) with t + c <= 12
// (tests/test_ntt_radix_model.py models the addresses).
template <int R>
__device__ __forceinline__ u32 ntt_sw(u32 e) { return e ^ ((e >> R) & 31u); }

// One round of M stages (local stages hl .. hl-M+1) over every group of the block; from_global:
// read the groups from io.src (first round), to_global: write them to io.dst (last round).
template <int M, int R>
__device__ __forceinline__ void ntt_round(const ntt_io& io, const ntt_blk& B, u32* sm, const uint4* __restrict__ tw,
                                          int K, int hl, bool from_global, bool to_global) {
    const int E = B.E, c = B.c, s_lo = B.s_lo, h0 = hl - M + 1;
    for (u32 g = threadIdx.x; g < ((u32)E >> M); g += blockDim.x) {
        const u32 l = g & B.cmask, q = g >> c;
        const u32 jlow = q & ((1u << h0) - 1), jhi = q >> h0;
        const u32 e0 = (((jhi << (hl + 1)) + jlow) << c) + l, de = 1u << (h0 + c);
        fr_t x[1 << M];
#pragma unroll
        for (int b = 0; b < (1 << M); b++) {
            const u32 e = e0 + b * de;
            x[b] = from_global ? ntt_in(io, B.gi(e)) : sm_get(sm, E, ntt_sw<R>(e));
        }
        // element b's index mod 2^s at stage s = s_lo + hl - i: p0 + (b mod 2^(M-1-i)) 2^(s_lo+h0)
        const u32 p0 = (jlow << s_lo) + (B.lob << c) + l;
#pragma unroll
        for (int i = 0; i < M; i++) {
            const int s = s_lo + hl - i, half = 1 << (M - 1 - i);
#pragma unroll
            for (int u = 0; u < half; u++) {  // the pairs (b, b + half) with b mod half = u share a twiddle
                fr_t w;
                if (s != 0) w = fp_load<FrParams>(tw, (u64)(p0 + ((u32)u << (s_lo + h0))) << (K - 1 - s));
#pragma unroll
                for (int b = u; b < (1 << M); b += 2 * half) {
                    const fr_t y = fp_sub(x[b], x[b + half]);
                    x[b] = fp_add(x[b], x[b + half]);
                    x[b + half] = s != 0 ? fp_mul(y, w) : y;  // stage 0's only twiddle is 1
                }
            }
        }
#pragma unroll
        for (int b = 0; b < (1 << M); b++) {
            const u32 e = e0 + b * de;
            if (to_global) ntt_out(io, B.gi(e), x[b]);
            else sm_put(sm, E, ntt_sw<R>(e), x[b]);
        }
    }
}

// The pass in rounds of at most R stages (the first one takes t mod R when that is not 0).
// sm: the block's shared memory, 8 limb planes of E words, element e at ntt_sw<R>(e).
template <int R>
__device__ __forceinline__ void ntt_pass_radix(u32* sm, const uint4* src, uint4* dst, const uint4* __restrict__ tw, int k, int K,
                                               int s_hi, int t, int c, int flags,
                                               const uint4* __restrict__ pre_hi, const uint4* __restrict__ pre_lo, int pre_m,
                                               const uint4* __restrict__ post_hi, const uint4* __restrict__ post_lo, int post_m) {
    const ntt_blk B(s_hi, t, c);
    const ntt_io io = NTT_IO;
    int m = t % R ? t % R : R;
    for (int hl = t - 1; hl >= 0; hl -= m, m = R) {
        const bool first = hl == t - 1, last = hl == m - 1;
        if constexpr (R == 3) {
            if (m == 3) ntt_round<3, R>(io, B, sm, tw, K, hl, first, last);
        }
        if (m == 2) ntt_round<2, R>(io, B, sm, tw, K, hl, first, last);
        else if (m == 1) ntt_round<1, R>(io, B, sm, tw, K, hl, first, last);
        if (!last) __syncthreads();
    }
}

NTT_PASS_KERNEL(ntt_pass_r8, (256), ntt_pass_radix<3>)
NTT_PASS_KERNEL(ntt_pass_r8c, (256, 2), ntt_pass_radix<3>)   // at most 128 registers: two blocks of 256 threads per SM
NTT_PASS_KERNEL(ntt_pass_r4, (256), ntt_pass_radix<2>)

// Radix-4 capped at 3 blocks of 256 per SM (80 registers, spills): 1-4 % ahead of ntt_pass from
// 2^20 up on an H200 and an H100 (ntt.py's NTT_VARIANT_BY_LOG runs it there), where old's pass at 5
// or 6 blocks and two butterflies a thread were slower (benchmarks/results/2026-12-05-h200-stop44).
NTT_PASS_KERNEL(ntt_pass_r4o3, (256, 3), ntt_pass_radix<2>)
