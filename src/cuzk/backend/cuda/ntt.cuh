// Shared pieces of the NTT pass kernels (ntt.cu: ntt_pass and ntt_pass_r4o3; ntt_radix.cu: the other
// radix-4/8 variants): the pass's block layout, flags, global loads and stores with the fused
// factors, and both pass bodies (radix-2, ntt_pass_r2; radix 2^R in registers, ntt_pass_radix).
#pragma once
#include "fr.cuh"

// ---- NTT ------------------------------------------------------------------------------------
// Decimation in frequency, natural order in, bit-reversed order inside, natural order out (the
// last pass writes to the bit-reversed index). One launch runs stages s_hi .. s_lo = s_hi-t+1 of
// the log2(n) = k stages (stage s pairs indices i, i + 2^s) on blocks of E = 2^(t+c) elements held in
// shared memory: each block owns 2^c consecutive "lo" offsets (coalesced runs of 2^c elements) times
// the 2^t elements that stages s_hi..s_lo mix. Global index of element (j, l) of block (hi, lob):
//     gi = hi * 2^(s_hi+1) + j * 2^s_lo + lob * 2^c + l.
// Twiddles: tw[j] = w^j for w a primitive 2^K-th root of unity, j < 2^(K-1); stage s uses
// w_(2^(s+1))^p = tw[p << (K-1-s)] with p = gi mod 2^s.
// Flags: PRE multiplies each input element gi by pre_hi[gi >> pre_m] (* pre_lo[gi & mask] with PRE_LO)
// on load (first pass: coset powers); LAST writes element gi to o = bitrev_k(gi), or (n - o) mod n with
// INV (the inverse transform from forward twiddles), times post_hi[o >> post_m] (* post_lo[...]) with POST,
// minus the value dst holds there with SUB (compute_h: the quotient less c's coefficients, in place).
// src may equal dst except on the LAST pass.
// Batches: an array of B rows of 2^k elements is B independent transforms with the same launches
// (grid B * 2^k / E): no stage reaches across a row, and the LAST pass keeps gi's row (the bits of gi
// above k); PRE indexes the whole array, POST the row (callers use them with one row only).
#define NTT_PRE 1
#define NTT_PRE_LO 2
#define NTT_LAST 4
#define NTT_INV 8
#define NTT_POST 16
#define NTT_POST_LO 32
#define NTT_SUB 64

__device__ __forceinline__ void sm_put(u32* sm, int E, u32 e, const fr_t& x) {
#pragma unroll
    for (int w = 0; w < 8; w++) sm[w * E + e] = x.v[w];
}
__device__ __forceinline__ fr_t sm_get(const u32* sm, int E, u32 e) {
    fr_t x;
#pragma unroll
    for (int w = 0; w < 8; w++) x.v[w] = sm[w * E + e];
    return x;
}

// One block of a pass: E = 2^(t+c) elements, element e at global index gi(e) (see above).
struct ntt_blk {
    int E, s_lo, c;
    u32 lob, cmask, base;
    __device__ __forceinline__ ntt_blk(int s_hi, int t, int c_) {
        E = 1 << (t + c_);
        c = c_;
        s_lo = s_hi - t + 1;
        const int nlo_log = s_lo - c;
        lob = blockIdx.x & ((1u << nlo_log) - 1);
        cmask = (1u << c) - 1;
        base = ((blockIdx.x >> nlo_log) << (s_hi + 1)) + (lob << c);
    }
    __device__ __forceinline__ u32 gi(u32 e) const { return base + ((e >> c) << s_lo) + (e & cmask); }
};

// A pass's global side: source, destination and the flags' factor tables (kernel arguments).
struct ntt_io {
    const uint4* src;
    uint4* dst;
    int k, flags;
    const uint4* pre_hi;
    const uint4* pre_lo;
    int pre_m;
    const uint4* post_hi;
    const uint4* post_lo;
    int post_m;
};

// Element gi of src, times its PRE factor.
__device__ __forceinline__ fr_t ntt_in(const ntt_io& io, u32 gi) {
    fr_t x = fp_load<FrParams>(io.src, gi);
    if (io.flags & NTT_PRE) {
        fr_t f = fp_load<FrParams>(io.pre_hi, gi >> io.pre_m);
        if (io.flags & NTT_PRE_LO) f = fp_mul(f, fp_load<FrParams>(io.pre_lo, gi & ((1u << io.pre_m) - 1)));
        x = fp_mul(x, f);
    }
    return x;
}

// x to dst at gi, or on the LAST pass at the bit-reversed (INV: negated) index in gi's row,
// times its POST factor.
__device__ __forceinline__ void ntt_out(const ntt_io& io, u32 gi, fr_t x) {
    const int k = io.k;
    const u32 nmask = (k >= 32) ? 0xffffffffu : ((1u << k) - 1);
    if (io.flags & NTT_LAST) {
        u32 o = __brev(gi) >> (32 - k);
        if (io.flags & NTT_INV) o = (0u - o) & nmask;
        if (io.flags & NTT_POST) {
            fr_t f = fp_load<FrParams>(io.post_hi, o >> io.post_m);
            if (io.flags & NTT_POST_LO) f = fp_mul(f, fp_load<FrParams>(io.post_lo, o & ((1u << io.post_m) - 1)));
            x = fp_mul(x, f);
        }
        const u32 at = (gi & ~nmask) | o;   // a batch of rows: stay in gi's row
        if (io.flags & NTT_SUB) x = fp_sub(x, fp_load<FrParams>(io.dst, at));
        fp_store(io.dst, at, x);
    } else {
        fp_store(io.dst, gi, x);
    }
}

#define NTT_IO {src, dst, k, flags, pre_hi, pre_lo, pre_m, post_hi, post_lo, post_m}

// ---- The radix-2 pass (ntt.cu's ntt_pass): one shared-memory round trip per stage. sm: 8 limb
// planes of E words (structure of arrays: no bank conflicts).
__device__ __forceinline__ void ntt_pass_r2(
    u32* sm, const uint4* src, uint4* dst, const uint4* __restrict__ tw, int k, int K, int s_hi, int t, int c, int flags,
    const uint4* __restrict__ pre_hi, const uint4* __restrict__ pre_lo, int pre_m,
    const uint4* __restrict__ post_hi, const uint4* __restrict__ post_lo, int post_m) {
    const ntt_blk B(s_hi, t, c);
    const int E = B.E, s_lo = B.s_lo;
    const u32 cmask = B.cmask, lob = B.lob;
    const ntt_io io = NTT_IO;
    for (u32 e = threadIdx.x; e < (u32)E; e += blockDim.x) sm_put(sm, E, e, ntt_in(io, B.gi(e)));
    __syncthreads();

    for (int s = s_hi; s >= s_lo; --s) {
        const int hl = s - s_lo;
        for (u32 bf = threadIdx.x; bf < (u32)(E >> 1); bf += blockDim.x) {
            const u32 l = bf & cmask, q = bf >> c;
            const u32 jlow = q & ((1u << hl) - 1), jhi = q >> hl;
            const u32 e0 = (((jhi << (hl + 1)) + jlow) << c) + l;
            const u32 e1 = e0 + (1u << (hl + c));
            const fr_t u = sm_get(sm, E, e0), v = sm_get(sm, E, e1);
            fr_t y;
            if (s != 0) {  // stage 0's only twiddle is 1
                const u32 p = (jlow << s_lo) + (lob << c) + l;
                y = fp_mul(fp_load<FrParams>(tw, (u64)p << (K - 1 - s)), fp_sub_lazy(u, v));
            } else {
                y = fp_sub(u, v);
            }
            sm_put(sm, E, e0, fp_add(u, v));
            sm_put(sm, E, e1, y);
        }
        __syncthreads();
    }
    for (u32 e = threadIdx.x; e < (u32)E; e += blockDim.x) ntt_out(io, B.gi(e), sm_get(sm, E, e));
}

// ---- ntt_pass_r2 with each stage's twiddle loaded one stage ahead (ntt.cu's ntt_pass_pf), for
// blocks of one butterfly a thread (blockDim = E/2: the small sizes' blocks of 2^8): the twiddle's
// global load is issued before the stage ahead's shared-memory round trip and sync, so its latency
// (an L2 hit at 2^16..2^18, with few warps a scheduler) is not waited on inside the stage.
__device__ __forceinline__ fr_t ntt_r2_twiddle(const uint4* __restrict__ tw, const ntt_blk& B, int K, int s, u32 bf) {
    const u32 q = bf >> B.c, jlow = q & ((1u << (s - B.s_lo)) - 1);
    return fp_load<FrParams>(tw, (u64)((jlow << B.s_lo) + (B.lob << B.c) + (bf & B.cmask)) << (K - 1 - s));
}

__device__ __forceinline__ void ntt_pass_r2pf(
    u32* sm, const uint4* src, uint4* dst, const uint4* __restrict__ tw, int k, int K, int s_hi, int t, int c, int flags,
    const uint4* __restrict__ pre_hi, const uint4* __restrict__ pre_lo, int pre_m,
    const uint4* __restrict__ post_hi, const uint4* __restrict__ post_lo, int post_m) {
    const ntt_blk B(s_hi, t, c);
    const int E = B.E, s_lo = B.s_lo;
    if ((u32)E != 2 * blockDim.x) {   // not one butterfly a thread: the plain pass
        ntt_pass_r2(sm, src, dst, tw, k, K, s_hi, t, c, flags, pre_hi, pre_lo, pre_m, post_hi, post_lo, post_m);
        return;
    }
    const ntt_io io = NTT_IO;
    const u32 bf = threadIdx.x, l = bf & B.cmask, q = bf >> c;
    fr_t w = s_hi != 0 ? ntt_r2_twiddle(tw, B, K, s_hi, bf) : fr_t::one();
    sm_put(sm, E, bf, ntt_in(io, B.gi(bf)));
    sm_put(sm, E, bf + blockDim.x, ntt_in(io, B.gi(bf + blockDim.x)));
    __syncthreads();
    for (int s = s_hi; s >= s_lo; --s) {
        const int hl = s - s_lo;
        const u32 jlow = q & ((1u << hl) - 1), jhi = q >> hl;
        const u32 e0 = (((jhi << (hl + 1)) + jlow) << c) + l;
        const u32 e1 = e0 + (1u << (hl + c));
        const fr_t u = sm_get(sm, E, e0), v = sm_get(sm, E, e1);
        const fr_t wn = (s > s_lo && s > 1) ? ntt_r2_twiddle(tw, B, K, s - 1, bf) : w;
        const fr_t y = s != 0 ? fp_mul(w, fp_sub_lazy(u, v)) : fp_sub(u, v);  // stage 0's twiddle is 1
        sm_put(sm, E, e0, fp_add(u, v));
        sm_put(sm, E, e1, y);
        w = wn;
        __syncthreads();
    }
    ntt_out(io, B.gi(bf), sm_get(sm, E, bf));
    ntt_out(io, B.gi(bf + blockDim.x), sm_get(sm, E, bf + blockDim.x));
}

// ---- The radix-4 / radix-8 passes (ntt.cu's ntt_pass_r4o3; ntt_radix.cu's r4, r8, r8c) -----------
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
                    // stage 0's only twiddle is 1; else (u - v) w with u - v + p unreduced (fp_sub_lazy)
                    const fr_t y = s != 0 ? fp_mul(w, fp_sub_lazy(x[b], x[b + half])) : fp_sub(x[b], x[b + half]);
                    x[b] = fp_add(x[b], x[b + half]);
                    x[b + half] = y;
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

#define NTT_PASS_PARAMS                                                                                          \
    const uint4 *src, uint4 *dst, const uint4 *__restrict__ tw, int k, int K, int s_hi, int t, int c, int flags, \
        const uint4 *__restrict__ pre_hi, const uint4 *__restrict__ pre_lo, int pre_m,                           \
        const uint4 *__restrict__ post_hi, const uint4 *__restrict__ post_lo, int post_m
#define NTT_PASS_ARGS sm, src, dst, tw, k, K, s_hi, t, c, flags, pre_hi, pre_lo, pre_m, post_hi, post_lo, post_m
// Programmatic dependent launch (sm_90; ntt.py launches the passes with the driver's programmatic
// stream serialization, launch.DriverLaunch.after): a pass's blocks first wait until the kernel
// before it in the stream has completed and its writes are visible (griddepcontrol.wait), then
// allow the next pass to be launched (launch_dependents): its launch and block scheduling overlap
// this pass's tail instead of following it. Without that launch attribute both are no-ops.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define NTT_GRID_WAIT() asm volatile("griddepcontrol.wait;" ::: "memory")
#define NTT_GRID_LAUNCH() asm volatile("griddepcontrol.launch_dependents;" ::: "memory")
#else
#define NTT_GRID_WAIT()
#define NTT_GRID_LAUNCH()
#endif
#define NTT_GRID_DEPEND() \
    do {                  \
        NTT_GRID_WAIT();  \
        NTT_GRID_LAUNCH(); \
    } while (0)
// A pass kernel: NAME with __launch_bounds__ BOUNDS (threads, min blocks per SM) running BODY.
#define NTT_PASS_KERNEL(NAME, BOUNDS, BODY)                               \
    extern "C" __global__ void __launch_bounds__ BOUNDS NAME(NTT_PASS_PARAMS) { \
        extern __shared__ u32 sm[];                                       \
        NTT_GRID_DEPEND();                                                \
        BODY(NTT_PASS_ARGS);                                              \
    }
// The same with the next pass's launch allowed only as each block ends (as at its exit without the
// trigger): under programmatic dependent launch the next pass's blocks then arrive as this pass's
// leave, not while they all run. Faster for ntt_pass_pf at 2^17 (stop 53 call 7: ntt.py's
// NTT_VARIANT_BY_LOG), where the early trigger was slower than plain launches.
#define NTT_PASS_KERNEL_LATE(NAME, BOUNDS, BODY)                          \
    extern "C" __global__ void __launch_bounds__ BOUNDS NAME(NTT_PASS_PARAMS) { \
        extern __shared__ u32 sm[];                                       \
        NTT_GRID_WAIT();                                                  \
        BODY(NTT_PASS_ARGS);                                              \
        NTT_GRID_LAUNCH();                                                \
    }
