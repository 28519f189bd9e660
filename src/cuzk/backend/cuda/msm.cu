// Multi-scalar multiplication (Pippenger with signed windows) and fixed-base multiplication for the
// cuda backend, generic over the group: the curve code is templated over the coordinate field F
// (xyzz.cuh) and this file is compiled once per group, with MSM_G2 defined for G2 (F = fq2_t) and
// not for G1 (F = fq_t): the kernel names are the same in both modules, cuzk.backend.cuda.backend
// picks the module by group. Scalar-only kernels (prep, hist, scatter) are in both.
//
// Pipeline (driven by cuzk.backend.cuda.backend.CUDAMSMContext):
//   msm_prep      scalars -> canonical limbs; s == 1 flagged for the plain sum ("ones") and zeroed;
//                 s > (r-1)/2 replaced by r - s with a "negate" flag (so every scalar < 2^254 and
//                 W = ceil(255 / c) signed c-bit windows suffice, the top digit absorbing the carry)
//   msm_hist      per (window, |digit|) bucket counts (atomics)
//   (host)        exclusive prefix sum of the counts -> bucket offsets (cupy.cumsum)
//   msm_scatter   counting sort: (point index | sign << 31) into each bucket's slice
//   bucket sums   msm_bucket_chunks + msm_bucket_pieces: every thread adds the same number L of
//                 sorted entries (mixed XYZZ + affine additions), writing one partial sum per bucket
//                 its range touches; then one thread per bucket adds its (few) partial sums. When some
//                 window's bucket is far above its average size: msm_chunk_acc + xyzz_chunk_sum (chunks of at
//                 most 32, then 16, entries of one bucket per thread) + msm_bucket_gather.
//                 Where a window's buckets average many entries and the memory is there, batch-affine
//                 pair levels (msm_affine_level, msm_affine.cuh) first halve every bucket a few times.
//   msm_seg_reduce  sum_b (b+1) B_b per window in levels: each thread turns a segment of SL = 4 entries
//                 into one weighted-plus-plain sum and one (scaled) plain sum, so each level is 4x
//                 shorter and one launch (log4(NB) levels; 2^(c-1)/4 threads per window at the first)
//   msm_ones_list the points whose scalar is 1, summed as one bucket by the chunked path
//   (host)        window sums combined by Horner (2^c steps) with arkworks, plus the ones sum.
// Buckets of window w are w * NB + (|d| - 1), NB = 2^(c-1); over shifted bases (a context's table of
// 2^(w c) times each base, CUDAMSMContext.shift) every window shares buckets 0 .. NB - 1.
// Fq products are calls to one out-of-line function (fq.cuh) unless MSM_INLINE_FQ is defined. On the
// H200 (2026-11-30, same bases and scalars) the G1 MSM at 2^24 took 181 ms with calls against 229 ms
// inlined (a 10-product mixed addition inlined is ~200 KB of code, past the instruction cache), and
// NVRTC compiles this file in 7 s instead of ~80 s; inlined G2 formulas take ptxas minutes per kernel.
// With ff.cuh's 400-instruction Fq product inlining still loses (H100, equal results: 2^24 128.9
// against 110.3 ms, 2^27 859.6 against 750.1; the bucket kernel 8,000 SASS instructions and 56 B
// spilled against 2,296; benchmarks/results/2026-12-05-stop46/call4).
#if !defined(MSM_INLINE_FQ) && !defined(CUZK_FQ_MUL_CALL)
#define CUZK_FQ_MUL_CALL
#endif
#include "fr.cuh"
#ifdef MSM_G2
#include "g2.cuh"
typedef fq2_t F;
#else
#include "g1.cuh"
typedef fq_t F;
#endif
typedef aff_t<F> aff;
typedef xyzz_t<F> xyzz;
#include "msm_affine.cuh"

#define GRID_STRIDE(i, n) for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (u64)blockDim.x * gridDim.x)

// Bucket-sum kernels' launch bounds (blocks of 128 threads per SM). G1 with Fq products as calls
// needs 150 registers: 3 blocks; a cap of 128 (4 blocks) spills a little and ran 4% slower at 2^24
// (188 vs 181 ms). G2 keeps 255 registers (2 blocks): an XYZZ point over Fq2 alone is 96
// registers; a cap of 168 (3 blocks) spills 1.4 KB and ran 15% slower (188 vs 163 ms at 2^22).
#ifndef MSM_MIN_BLOCKS
#ifdef MSM_G2
#define MSM_MIN_BLOCKS 2
#else
#define MSM_MIN_BLOCKS 3
#endif
#endif

extern "C" __global__ void fq_to_mont(const uint4* __restrict__ a, uint4* __restrict__ out, u64 n) {
    GRID_STRIDE(i, n) fp_store(out, i, fp_to_mont(fp_load<FqParams>(a, i)));
}

extern "C" __global__ void fq_from_mont(const uint4* __restrict__ a, uint4* __restrict__ out, u64 n) {
    GRID_STRIDE(i, n) fp_store(out, i, fp_from_mont(fp_load<FqParams>(a, i)));
}

// In place: buf holds n points as zcash uncompressed encodings (96 K bytes each, K = 1 for G1, 2
// for G2: big-endian Fq elements x then y, over Fq2 c1 before c0; flags in the top 3 bits of the
// first byte, 0x40 = infinity, 0x80 = compressed); each becomes the device layout (24 K
// little-endian 32-bit limbs, x then y, c0 before c1, canonical; infinity all zeros), what
// fq_to_mont takes. The host reference is runtime._encoding_to_limbs. A compressed flag sets *err.
// Each thread reads its whole point into registers before writing it back.
#ifdef MSM_G2
#define DEC_K 2
#else
#define DEC_K 1
#endif
extern "C" __global__ void points_decode(u32* __restrict__ buf, u64 n, u32* __restrict__ err) {
    GRID_STRIDE(i, n) {
        u32* pt = buf + i * (24 * DEC_K);
        u32 w[24 * DEC_K];
#pragma unroll
        for (int j = 0; j < 24 * DEC_K; j++) w[j] = pt[j];   // the whole point first: then overwrite it
        const u32 flags = w[0] & 0xFFu;                     // the first byte (little-endian load)
        if (flags & 0x80u) atomicOr(err, 1u);
        const bool inf = (flags & 0x40u) != 0;
        w[0] &= 0xFFFFFF1Fu;                                // flag bits cleared
#pragma unroll
        for (int e = 0; e < 2 * DEC_K; e++) {
            const int d = DEC_K == 2 ? (e ^ 1) : e;         // Fq2: the encoding's c1 is the device's second word
#pragma unroll
            for (int j = 0; j < 12; j++)                    // limb j = big-endian word 11 - j, byte-swapped
                pt[d * 12 + j] = inf ? 0u : __byte_perm(w[e * 12 + 11 - j], 0, 0x0123);
        }
    }
}

// sc: n scalars (Fr, Montgomery if from_mont else canonical); out: n x 8 canonical words;
// flags: bit 0 = scalar is 1 (summed apart), bit 1 = negate the point, bit 2 = nothing left to sort
// (0, or 1 summed apart: the sort skips it without reading its words); *busy += the scalars that
// are neither 0 nor 1 (what reaches the buckets: the window width's count), one atomic per
// converged group of lanes.
extern "C" __global__ void msm_prep(const uint4* __restrict__ sc, int from_mont, uint4* __restrict__ out,
                                    unsigned char* __restrict__ flags, u64 n, u32* __restrict__ busy) {
    GRID_STRIDE(i, n) {
        fr_t s = fp_load<FrParams>(sc, i);
        if (from_mont) s = fp_from_mont(s);
        unsigned char f = 0;
        u32 hi_or = 0;
#pragma unroll
        for (int w = 1; w < 8; w++) hi_or |= s.v[w];
        if (hi_or == 0 && s.v[0] == 1) { f = 1; s = fr_t::zero(); }
        // s > (r-1)/2 ?  (borrow of half - s)
        u32 d = ff::sub_cc(fr_half_limb(0), s.v[0]);
#pragma unroll
        for (int w = 1; w < 8; w++) d = ff::subc_cc(fr_half_limb(w), s.v[w]);
        u32 borrow = ff::subc(0, 0);
        (void)d;
        if (borrow) { s = fp_neg(s); f |= 2; }
        if (s.is_zero()) f |= 4;
        fp_store(out, i, s);
        flags[i] = f;
        const u32 act = __activemask();
        const u32 m = __ballot_sync(act, !s.is_zero());
        if ((threadIdx.x & 31) == __ffs(act) - 1 && m) atomicAdd(busy, __popc(m));
    }
}

__device__ __forceinline__ u32 window_bits(const u32* __restrict__ s, int off, int c) {
    const int w = off >> 5, sh = off & 31;
    u32 v = (w < 8) ? (s[w] >> sh) : 0u;
    if (sh + c > 32 && w + 1 < 8) v |= s[w + 1] << (32 - sh);
    return v & ((1u << c) - 1);
}

// Signed digit of window w (digits in [-(2^(c-1) - 1), 2^(c-1)], the carry into the next window
// updated): a window's bits plus the carry from below, d > NB = 2^(c-1) taken as -(2^c - d).
// Returns |d|, sets sign. The one digit rule of msm_hist, msm_scatter and msm_keys.
__device__ __forceinline__ u32 signed_digit(const u32* __restrict__ s, int w, int c, u32 NB, u32& carry, u32& sign) {
    const u32 d = window_bits(s, w * c, c) + carry;
    carry = sign = d > NB;
    return sign ? (1u << c) - d : d;
}

// Bucket of window w, digit d: w * bstride + d - 1 (bstride = NB; 0 over shifted bases, whose
// windows share one set of buckets: msm_scatter).
extern "C" __global__ void msm_hist(const u32* __restrict__ sc, const unsigned char* __restrict__ flags, u64 n, int c, int W,
                                    u32 bstride, u32* __restrict__ counts) {
    const u32 NB = 1u << (c - 1);
    GRID_STRIDE(i, n) {
        if (flags[i] & 4) continue;
        const u32* s = sc + 8 * i;
        u32 carry = 0, sign;
        for (int w = 0; w < W; w++) {
            const u32 d = signed_digit(s, w, c, NB, carry, sign);
            if (d) atomicAdd(&counts[(u64)w * bstride + d - 1], 1u);
        }
    }
}

// Windows [w0, w1) of each scalar (the carry into w0 recomputed from the windows below it). Run
// one window per launch (``SCATTER_WINDOWS`` in msm.py), a launch's live bucket tails (2^(c-1)
// buckets: 16.8 MB of 32-byte sectors at c = 20) stay in L2 until their sectors fill; all W
// windows at once spread the writes over W times as many. On the H200 (G1 2^27, c = 20) the
// scatter took 94 ms against 150 ms (benchmarks/results/2026-12-04-h200-stop36/call2); counting
// by window (msm_hist) was slower (30 against 18 ms): its counters stay in L2 either way.
// At most 32 registers (launch bounds): a 128-thread block then fits beside three blocks of
// msm_bucket_chunks (154 registers, 160 allocated: 61,440 of an SM's 65,536), so the next
// window's scatter runs on a side stream during this window's bucket sums (msm.py OVERLAP_SORT).
// Entry of scalar i in window w: point w * istride + i (istride 0; n over shifted bases, whose row
// w n + i is 2^(w c) times base i: CUDAMSMContext.shift, msm_shift_bases), into bucket
// w * bstride + d - 1 (as msm_hist). Over shifted bases the one bucket set's tails (2^21 at c = 22)
// do not stay in L2: 18 ms at 2^24 against 10.6 plain (H100). A sort in two levels (entries by
// bin of 2^11 buckets into a work array, per-block bin counts in shared memory, then one block per
// bin placing them with shared-memory cursors) was slower: 11.6 + 21.3 ms (stop 47 calls 5 and 6,
// commit 753c328). So were 2-4 bucket sets over shifted bases, each sorted on a side stream while
// the one before was summed (H200, 2^24 at c = 22: 106.6 / 117.0 / 119.5 ms against 100.7 with
// one set; each set at c = 22 adds a 4.9 ms reduction; stop 48 call 1, commit 06cf9e4).
extern "C" __global__ void __launch_bounds__(256, 8) msm_scatter(const u32* __restrict__ sc, const unsigned char* __restrict__ flags, u64 n, int c,
                                       int w0, int w1, u32 bstride, u64 istride, u32* __restrict__ cursor,
                                       u32* __restrict__ vals) {
    const u32 NB = 1u << (c - 1);
    GRID_STRIDE(i, n) {
        const unsigned char f = flags[i];
        if (f & 4) continue;   // mostly-bit scalars: each launch reads n flags, not n·32 bytes
        const u32* s = sc + 8 * i;
        const u32 neg = (f >> 1) & 1;
        u32 carry = 0, sign;
        for (int w = 0; w < w0; w++) signed_digit(s, w, c, NB, carry, sign);
        for (int w = w0; w < w1; w++) {
            const u32 d = signed_digit(s, w, c, NB, carry, sign);
            if (d) {
                u32 pos = atomicAdd(&cursor[(u64)w * bstride + d - 1], 1u);
                vals[pos] = (u32)(w * istride + i) | ((sign ^ neg) << 31);
            }
        }
    }
}

// Over shifted bases from plan.SORT64_FROM points, the sort by a library radix sort instead: one
// 64-bit key per (window w, scalar i), key[w n + i] = (d - 1) << 33 | sign << 32 | (w n + i) for a
// digit d != 0 (one set of buckets: bucket d - 1, entry w n + i the table's row), all ones for
// d = 0 (sorted past the entries); after the sort, msm_key_offsets gives the buckets' offsets (no
// msm_hist) and msm_keys_vals turns the first `total` keys into the entries msm_scatter writes
// (row | sign << 31), in the same bucket order.
extern "C" __global__ void msm_keys(const u32* __restrict__ sc, const unsigned char* __restrict__ flags, u64 n, int c,
                                    int W, unsigned long long* __restrict__ keys) {
    const u32 NB = 1u << (c - 1);
    GRID_STRIDE(i, n) {
        const unsigned char f = flags[i];
        const u32* s = sc + 8 * i;
        const unsigned long long neg = (f >> 1) & 1;
        u32 carry = 0, sign = 0;
        for (int w = 0; w < W; w++) {
            const u32 d = (f & 4) ? 0u : signed_digit(s, w, c, NB, carry, sign);
            const u64 row = (u64)w * n + i;
            keys[row] = d ? ((unsigned long long)(d - 1) << 33 | ((unsigned long long)sign ^ neg) << 32 | row) : ~0ull;
        }
    }
}

// offs[b] (b <= NB) = the first sorted key of bucket b or above (a key of all ones counts as
// bucket NB, so offs[NB] is the entries' count): the offsets msm_hist and a prefix sum give,
// read off the m sorted keys (thread i writes the buckets between key i - 1's and key i's).
__device__ __forceinline__ u32 key_bucket(unsigned long long k, u32 NB) { return k == ~0ull ? NB : (u32)(k >> 33); }

extern "C" __global__ void msm_key_offsets(const unsigned long long* __restrict__ keys, u64 m, u32 NB, u32* __restrict__ offs) {
    GRID_STRIDE(i, m + 1) {
        const u32 b = i < m ? key_bucket(keys[i], NB) : NB;
        const u32 lo = i ? key_bucket(keys[i - 1], NB) + 1 : 0;
        for (u32 x = lo; x <= b; x++) offs[x] = (u32)i;
    }
}

extern "C" __global__ void msm_keys_vals(const unsigned long long* __restrict__ keys, u64 total, u32* __restrict__ vals) {
    GRID_STRIDE(i, total) {
        const unsigned long long k = keys[i];
        vals[i] = (u32)(k & 0x7fffffffull) | ((u32)(k >> 32) & 1u) << 31;
    }
}

// ---- bucket sums ------------------------------------------------------------------------------

// Thread t adds the sorted entries [t L, min(total, t L + L)) (bucket b holds [offs[b], offs[b+1])).
// Each time its range leaves a bucket b, and at its end, it writes its partial sum of b to
// part[b + t]: the (bucket, chunk) pairs that share entries are ordered the same way in b and in t,
// so b + t is a distinct slot for each (B + nchunks slots).
extern "C" __global__ void __launch_bounds__(128, MSM_MIN_BLOCKS) msm_bucket_chunks(
    const u32* __restrict__ vals, const u32* __restrict__ offs, u32 B, u32 total, u32 L, const uint4* __restrict__ bases,
    uint4* __restrict__ part) {
    const u64 nchunks = (total + (u64)L - 1) / L;
    GRID_STRIDE(t, nchunks) {
        const u32 start = (u32)t * L, end = min(total, start + L);
        u32 lo = 0, hi = B;  // the bucket b with offs[b] <= start < offs[b+1]: last b with offs[b] <= start
        while (hi - lo > 1) {
            const u32 mid = (lo + hi) >> 1;
            if (offs[mid] <= start) lo = mid; else hi = mid;
        }
        u32 b = lo, next = offs[b + 1];
        xyzz acc = xyzz_inf<F>();
        for (u32 k = start; k < end; k++) {
            if (k == next) {
                xyzz_store(part, (u64)b + t, acc);
                acc = xyzz_inf<F>();
                do { b++; next = offs[b + 1]; } while (next == k);  // skip empty buckets
            }
            const u32 v = vals[k];
            acc = xyzz_madd_aff(acc, aff_load<F>(bases, v & 0x7fffffffu), (v >> 31) != 0);
        }
        xyzz_store(part, (u64)b + t, acc);
    }
}

// One batch-affine pair level (msm_affine.cuh): m = oo[B] output slots, K per thread; vals null
// past level 0 (src then the previous level's points).
extern "C" __global__ void __launch_bounds__(128, MSM_MIN_BLOCKS) msm_affine_level(
    const u32* __restrict__ vals, const uint4* __restrict__ src, const u32* __restrict__ oi, const u32* __restrict__ oo,
    u32 B, u64 nthreads, u32 K, uint4* __restrict__ out) {
    GRID_STRIDE(t, nthreads) affine_level_thread<F>(t, vals, src, oi, oo, B, K, out);
}

// bucket[b] = sum of its partial sums part[b + t], t = offs[b] / L .. (offs[b+1] - 1) / L
extern "C" __global__ void __launch_bounds__(128, MSM_MIN_BLOCKS) msm_bucket_pieces(
    const uint4* __restrict__ part, const u32* __restrict__ offs, u32 B, u32 L, uint4* __restrict__ buckets) {
    GRID_STRIDE(b, (u64)B) {
        const u32 s = offs[b], e = offs[b + 1];
        xyzz acc = xyzz_inf<F>();
        if (e > s) {
            const u32 t0 = s / L, t1 = (e - 1) / L;
            acc = xyzz_load<F>(part, b + t0);
            for (u32 t = t0 + 1; t <= t1; t++) acc = xyzz_add(acc, xyzz_load<F>(part, b + t));
        }
        xyzz_store(buckets, b, acc);
    }
}

// Skewed buckets (a bucket far above the average size: equal scalars, a short top window) are summed
// in chunks so that no thread adds more than L points in sequence. Chunk k of the level belongs to
// bucket b = chunk_bucket[k] (ch_off[b] <= k < ch_off[b+1]) and covers entries
// [offs[b] + (k - ch_off[b]) L, min(offs[b+1], ... + L)). Level 0 gathers affine bases through vals;
// later levels sum the previous level's XYZZ partial sums (contiguous per bucket).
extern "C" __global__ void __launch_bounds__(128, MSM_MIN_BLOCKS) msm_chunk_acc(
    const u32* __restrict__ vals, const u32* __restrict__ offs, const u32* __restrict__ ch_off,
    const u32* __restrict__ chunk_bucket, u32 L, u64 nchunks, const uint4* __restrict__ bases, uint4* __restrict__ out) {
    GRID_STRIDE(k, nchunks) {
        const u32 b = chunk_bucket[k];
        const u32 start = offs[b] + ((u32)k - ch_off[b]) * L;
        const u32 end = min(offs[b + 1], start + L);
        xyzz acc = xyzz_inf<F>();
        for (u32 e = start; e < end; e++) {
            const u32 v = vals[e];
            acc = xyzz_madd_aff(acc, aff_load<F>(bases, v & 0x7fffffffu), (v >> 31) != 0);
        }
        xyzz_store(out, k, acc);
    }
}

extern "C" __global__ void __launch_bounds__(128) xyzz_chunk_sum(const uint4* __restrict__ in, const u32* __restrict__ offs,
                                                                 const u32* __restrict__ ch_off, const u32* __restrict__ chunk_bucket,
                                                                 u32 L, u64 nchunks, uint4* __restrict__ out) {
    GRID_STRIDE(k, nchunks) {
        const u32 b = chunk_bucket[k];
        const u32 start = offs[b] + ((u32)k - ch_off[b]) * L;
        const u32 end = min(offs[b + 1], start + L);
        xyzz acc = xyzz_inf<F>();
        for (u32 e = start; e < end; e++) acc = xyzz_add(acc, xyzz_load<F>(in, e));
        xyzz_store(out, k, acc);
    }
}

// bucket[b] = in[ch_off[b]] when the bucket has one partial sum, infinity when it has none
extern "C" __global__ void msm_bucket_gather(const uint4* __restrict__ in, const u32* __restrict__ ch_off, u64 nbuckets,
                                             uint4* __restrict__ buckets) {
    GRID_STRIDE(b, nbuckets) {
        if (ch_off[b + 1] > ch_off[b]) xyzz_store(buckets, b, xyzz_load<F>(in, ch_off[b]));
        else xyzz_store(buckets, b, xyzz_inf<F>());
    }
}

// ---- reduction --------------------------------------------------------------------------------

// One level of the window reduction. Per window w the target is sum_s X[w L + s] + sum_s (s + e) Y[w L + s]
// (level 0: X empty, Y the window's buckets, e = 1, so that bucket b counts b + 1 times). Thread
// (w, t), t < T = L / SL, takes the segment s = t SL + j, j < SL, and writes
//   Xout = sum_j X[s] + sum_j (j + e) Y[s]   (running sums of Y from the top)
//   Yout = 2^k sum_j Y[s]                    (SL = 2^k)
// so that the target equals sum_t Xout[w T + t] + sum_t t Yout[w T + t]: the same form, T long, e = 0.
// After log_SL(L) levels one X per window is left: the window sum.
extern "C" __global__ void __launch_bounds__(128) msm_seg_reduce(const uint4* __restrict__ Y, const uint4* __restrict__ X, int has_x,
                                                                 u32 L, u32 W, u32 SL, u32 k, u32 e,
                                                                 uint4* __restrict__ Xout, uint4* __restrict__ Yout) {
    const u32 T = L / SL;
    GRID_STRIDE(tid, (u64)W * T) {
        const u64 base = (tid / T) * (u64)L + (tid % T) * (u64)SL;
        xyzz run = xyzz_inf<F>(), acc = xyzz_inf<F>();
        for (int j = (int)SL - 1; j >= 0; j--) {
            run = xyzz_add(run, xyzz_load<F>(Y, base + j));
            if (j > 0 || e) acc = xyzz_add(acc, run);
        }
        if (has_x)
            for (u32 j = 0; j < SL; j++) acc = xyzz_add(acc, xyzz_load<F>(X, base + j));
        xyzz_store(Xout, tid, acc);
        for (u32 i = 0; i < k; i++) run = xyzz_dbl(run);
        xyzz_store(Yout, tid, run);
    }
}

// The indices i < n whose flag has bit 0 set (scalar 1) into out[0 .. *count), in no particular
// order (a sum does not care): one atomic per warp (ballot), each warp's indices in lane order.
// They are then summed by the chunked bucket path as one bucket: every thread adds the same number
// of points. (Until 2026-12-04 each thread summed the ones among 32 consecutive points: the lanes of
// a warp diverged on the flags, and the ones of a 2^27-point bit-valued MSM took 58 ms on the H200,
// twice the bucket path's time per addition: benchmarks/results/2026-12-04-h200-stop35/call2.)
extern "C" __global__ void msm_ones_list(const unsigned char* __restrict__ flags, u64 n, u32* __restrict__ count,
                                         u32* __restrict__ out) {
    const u32 lane = threadIdx.x & 31;
    for (u64 base = (u64)blockIdx.x * blockDim.x; base < n; base += (u64)blockDim.x * gridDim.x) {
        const u64 i = base + threadIdx.x;             // every lane runs every iteration: ballot is whole-warp
        const bool one = i < n && (flags[i] & 1);
        const u32 mask = __ballot_sync(0xffffffffu, one);
        u32 pos = 0;
        if (lane == 0 && mask) pos = atomicAdd(count, __popc(mask));
        pos = __shfl_sync(0xffffffffu, pos, 0);
        if (one) out[pos + __popc(mask & ((1u << lane) - 1))] = (u32)i;
    }
}

// ---- affine outputs ---------------------------------------------------------------------------

// scratch[lo..hi) (XYZZ) -> out[lo..hi) (affine) with one Fermat inversion (Montgomery's batch
// inversion); prods[i] holds the running product of d_j = ZZ_j ZZZ_j over the finite points j <= i.
__device__ __forceinline__ void batch_to_affine(const uint4* __restrict__ scratch, uint4* __restrict__ prods, u64 lo, u64 hi,
                                                uint4* __restrict__ out) {
    F acc = F::one();
    for (u64 i = lo; i < hi; i++) {
        const xyzz p = xyzz_load<F>(scratch, i);
        if (!xyzz_is_inf(p)) acc = fp_mul(acc, fp_mul(p.ZZ, p.ZZZ));
        acc.store(prods, i);
    }
    F inv = fp_inv(acc);  // 1 / prod of all d_i in the chunk
    for (u64 i = hi; i-- > lo;) {
        const xyzz p = xyzz_load<F>(scratch, i);
        aff r;
        if (xyzz_is_inf(p)) {
            r.x = F::zero(); r.y = F::zero();
        } else {
            const F d = fp_mul(p.ZZ, p.ZZZ);
            const F dinv = (i > lo) ? fp_mul(inv, F::load(prods, i - 1)) : inv;  // 1 / d_i
            inv = fp_mul(inv, d);
            r.x = fp_mul(p.X, fp_mul(dinv, p.ZZZ));  // X / ZZ
            r.y = fp_mul(p.Y, fp_mul(dinv, p.ZZ));   // Y / ZZZ
        }
        aff_store(out, i, r);
    }
}

// Fixed-base multiplication out[i] = sc[i] * P (affine) for canonical scalars sc (8 words each):
// tab[w (2^c - 1) + d - 1] = d 2^(w c) P (affine) for windows w < W and digits 1 <= d < 2^c, so
// each product is at most W mixed additions. Each thread converts `per` consecutive results with one
// inversion; scratch (n XYZZ) and prods (n F) are work space.
extern "C" __global__ void __launch_bounds__(128) fixed_base_mul(const u32* __restrict__ sc, u64 n, int c, int W,
                                                                 const uint4* __restrict__ tab, u32 per, uint4* __restrict__ scratch,
                                                                 uint4* __restrict__ prods, uint4* __restrict__ out) {
    const u32 D = (1u << c) - 1;
    GRID_STRIDE(t, (n + per - 1) / per) {
        const u64 lo = t * per, hi = min(n, lo + per);
        for (u64 i = lo; i < hi; i++) {
            xyzz p = xyzz_inf<F>();
            for (int w = 0; w < W; w++) {
                const u32 d = window_bits(sc + 8 * i, w * c, c);
                if (d) p = xyzz_madd_aff(p, aff_load<F>(tab, (u64)w * D + d - 1), false);
            }
            xyzz_store(scratch, i, p);
        }
        batch_to_affine(scratch, prods, lo, hi, out);
    }
}

// Shifted bases: out[i] = 2^c in[i] (affine; infinity stays infinity) for i < n, c doublings in
// XYZZ and `per` consecutive results to affine with one inversion (scratch, prods as above). Run once
// per window of a context's shifted table (CUDAMSMContext.shift): row block w from block w - 1.
extern "C" __global__ void __launch_bounds__(128) msm_shift_bases(const uint4* __restrict__ in, u64 n, int c, u32 per,
                                                                  uint4* __restrict__ scratch, uint4* __restrict__ prods,
                                                                  uint4* __restrict__ out) {
    GRID_STRIDE(t, (n + per - 1) / per) {
        const u64 lo = t * per, hi = min(n, lo + per);
        for (u64 i = lo; i < hi; i++) {
            xyzz p = xyzz_madd_aff(xyzz_inf<F>(), aff_load<F>(in, i), false);
            for (int j = 0; j < c; j++) p = xyzz_dbl(p);
            xyzz_store(scratch, i, p);
        }
        batch_to_affine(scratch, prods, lo, hi, out);
    }
}

// Test/benchmark bases: out[i] = A[i % na] + B[i / na] in affine form (scratch, prods as above).
extern "C" __global__ void __launch_bounds__(128) gen_points(const uint4* __restrict__ A, u32 na, const uint4* __restrict__ B,
                                                             u64 n, u32 per, uint4* __restrict__ scratch,
                                                             uint4* __restrict__ prods, uint4* __restrict__ out) {
    GRID_STRIDE(t, (n + per - 1) / per) {
        const u64 lo = t * per, hi = min(n, lo + per);
        for (u64 i = lo; i < hi; i++) {
            xyzz p = xyzz_madd_aff(xyzz_inf<F>(), aff_load<F>(A, i % na), false);
            xyzz_store(scratch, i, xyzz_madd_aff(p, aff_load<F>(B, i / na), false));
        }
        batch_to_affine(scratch, prods, lo, hi, out);
    }
}
