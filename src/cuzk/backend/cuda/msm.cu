// G1 multi-scalar multiplication (Pippenger with signed windows) for the cuda backend.
//
// Pipeline (driven by cuzk.backend.cuda.backend.CUDAMSMContext):
//   msm_prep      scalars -> canonical limbs; s == 1 flagged for the plain sum ("ones") and zeroed;
//                 s > (r-1)/2 replaced by r - s with a "negate" flag (so every scalar < 2^254 and
//                 W = ceil(255 / c) signed c-bit windows suffice, the top digit absorbing the carry)
//   msm_hist      per (window, |digit|) bucket counts (atomics)
//   (host)        exclusive prefix sum of the counts -> bucket offsets (cupy.cumsum)
//   msm_scatter   counting sort: (point index | sign << 31) into each bucket's slice
//   msm_bucket_acc  one thread per bucket: mixed XYZZ additions of its (possibly negated) points; or,
//                 when some bucket is much larger than the average, msm_chunk_acc + xyzz_chunk_sum
//                 (chunks of at most 32, then 16, entries per thread) + msm_bucket_gather
//   msm_bucket_reduce  one thread per (window, segment of SL buckets): running sums give
//                 sum_b (b+1) B_b over the segment, + lo * (segment sum) by double-and-add
//   xyzz_sum_groups   sums of consecutive groups (segments -> one point per window; ones partials)
//   (host)        window sums combined by Horner (2^c steps) with arkworks, plus the ones sum.
// Buckets of window w are w * NB + (|d| - 1), NB = 2^(c-1).
#include "g1.cuh"
#include "fr.cuh"

#define GRID_STRIDE(i, n) for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (u64)blockDim.x * gridDim.x)

extern "C" __global__ void fq_to_mont(const uint4* __restrict__ a, uint4* __restrict__ out, u64 n) {
    GRID_STRIDE(i, n) fp_store(out, i, fp_to_mont(fp_load<FqParams>(a, i)));
}

extern "C" __global__ void fq_from_mont(const uint4* __restrict__ a, uint4* __restrict__ out, u64 n) {
    GRID_STRIDE(i, n) fp_store(out, i, fp_from_mont(fp_load<FqParams>(a, i)));
}

// sc: n scalars (Fr, Montgomery if from_mont else canonical); out: n x 8 canonical words;
// flags: bit 0 = scalar is 1 (summed apart), bit 1 = negate the point.
extern "C" __global__ void msm_prep(const uint4* __restrict__ sc, int from_mont, uint4* __restrict__ out,
                                    unsigned char* __restrict__ flags, u64 n) {
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
        fp_store(out, i, s);
        flags[i] = f;
    }
}

__device__ __forceinline__ u32 window_bits(const u32* __restrict__ s, int off, int c) {
    const int w = off >> 5, sh = off & 31;
    u32 v = (w < 8) ? (s[w] >> sh) : 0u;
    if (sh + c > 32 && w + 1 < 8) v |= s[w + 1] << (32 - sh);
    return v & ((1u << c) - 1);
}

extern "C" __global__ void msm_hist(const u32* __restrict__ sc, u64 n, int c, int W, u32* __restrict__ counts) {
    const u32 NB = 1u << (c - 1);
    GRID_STRIDE(i, n) {
        const u32* s = sc + 8 * i;
        u32 carry = 0;
        for (int w = 0; w < W; w++) {
            u32 d = window_bits(s, w * c, c) + carry;
            if (d > NB) { carry = 1; d = (1u << c) - d; } else carry = 0;
            if (d) atomicAdd(&counts[(u64)w * NB + d - 1], 1u);
        }
    }
}

extern "C" __global__ void msm_scatter(const u32* __restrict__ sc, const unsigned char* __restrict__ flags, u64 n, int c, int W,
                                       u32* __restrict__ cursor, u32* __restrict__ vals) {
    const u32 NB = 1u << (c - 1);
    GRID_STRIDE(i, n) {
        const u32* s = sc + 8 * i;
        const u32 neg = (flags[i] >> 1) & 1;
        u32 carry = 0;
        for (int w = 0; w < W; w++) {
            u32 d = window_bits(s, w * c, c) + carry;
            u32 sign = 0;
            if (d > NB) { carry = 1; d = (1u << c) - d; sign = 1; } else carry = 0;
            if (d) {
                u32 pos = atomicAdd(&cursor[(u64)w * NB + d - 1], 1u);
                vals[pos] = (u32)i | ((sign ^ neg) << 31);
            }
        }
    }
}

extern "C" __global__ void __launch_bounds__(128) msm_bucket_acc(const u32* __restrict__ vals, const u32* __restrict__ offs,
                                                                 const uint4* __restrict__ bases, u64 nbuckets, uint4* __restrict__ buckets) {
    GRID_STRIDE(b, nbuckets) {
        const u32 start = offs[b], end = offs[b + 1];
        g1_xyzz acc = xyzz_inf();
        for (u32 k = start; k < end; k++) {
            const u32 v = vals[k];
            g1_aff a = aff_load(bases, v & 0x7fffffffu);
            if (aff_is_inf(a)) continue;
            if (v >> 31) a.y = fp_neg(a.y);
            acc = xyzz_madd(acc, a.x, a.y);
        }
        xyzz_store(buckets, b, acc);
    }
}

// Skewed buckets (a bucket far above the average size: equal scalars, a short top window) are summed
// in chunks so that no thread adds more than L points in sequence. Chunk k of the level belongs to
// bucket b = chunk_bucket[k] (ch_off[b] <= k < ch_off[b+1]) and covers entries
// [offs[b] + (k - ch_off[b]) L, min(offs[b+1], ... + L)). Level 0 gathers affine bases through vals;
// later levels sum the previous level's XYZZ partial sums (contiguous per bucket).
extern "C" __global__ void __launch_bounds__(128) msm_chunk_acc(const u32* __restrict__ vals, const u32* __restrict__ offs,
                                                                const u32* __restrict__ ch_off, const u32* __restrict__ chunk_bucket,
                                                                u32 L, u64 nchunks, const uint4* __restrict__ bases,
                                                                uint4* __restrict__ out) {
    GRID_STRIDE(k, nchunks) {
        const u32 b = chunk_bucket[k];
        const u32 start = offs[b] + ((u32)k - ch_off[b]) * L;
        const u32 end = min(offs[b + 1], start + L);
        g1_xyzz acc = xyzz_inf();
        for (u32 e = start; e < end; e++) {
            const u32 v = vals[e];
            g1_aff a = aff_load(bases, v & 0x7fffffffu);
            if (aff_is_inf(a)) continue;
            if (v >> 31) a.y = fp_neg(a.y);
            acc = xyzz_madd(acc, a.x, a.y);
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
        g1_xyzz acc = xyzz_inf();
        for (u32 e = start; e < end; e++) acc = xyzz_add(acc, xyzz_load(in, e));
        xyzz_store(out, k, acc);
    }
}

// bucket[b] = in[ch_off[b]] when the bucket has one partial sum, infinity when it has none
extern "C" __global__ void msm_bucket_gather(const uint4* __restrict__ in, const u32* __restrict__ ch_off, u64 nbuckets,
                                             uint4* __restrict__ buckets) {
    GRID_STRIDE(b, nbuckets) {
        if (ch_off[b + 1] > ch_off[b]) xyzz_store(buckets, b, xyzz_load(in, ch_off[b]));
        else xyzz_store(buckets, b, xyzz_inf());
    }
}

// thread (w, s), s < T = NB / SL: sum over pos in [lo, lo + SL), lo = s SL, of (pos + 1) * B[w NB + pos]
extern "C" __global__ void __launch_bounds__(128) msm_bucket_reduce(const uint4* __restrict__ buckets, u32 NB, u32 W, u32 SL,
                                                                    uint4* __restrict__ out) {
    const u32 T = NB / SL;
    GRID_STRIDE(tid, (u64)W * T) {
        const u32 w = tid / T, s = tid % T;
        const u64 base = (u64)w * NB;
        const u32 lo = s * SL;
        g1_xyzz run = xyzz_inf(), acc = xyzz_inf();
        for (int pos = (int)(lo + SL) - 1; pos >= (int)lo; pos--) {
            run = xyzz_add(run, xyzz_load(buckets, base + pos));
            acc = xyzz_add(acc, run);
        }
        if (lo) acc = xyzz_add(acc, xyzz_mul_small(run, lo));
        xyzz_store(out, tid, acc);
    }
}

// out[g] = sum of in[g * per .. min(count, g * per + per))
extern "C" __global__ void __launch_bounds__(128) xyzz_sum_groups(const uint4* __restrict__ in, u64 count, u32 per, u64 groups,
                                                                  uint4* __restrict__ out) {
    GRID_STRIDE(g, groups) {
        g1_xyzz acc = xyzz_inf();
        const u64 end = min(count, (g + 1) * (u64)per);
        for (u64 k = g * (u64)per; k < end; k++) acc = xyzz_add(acc, xyzz_load(in, k));
        xyzz_store(out, g, acc);
    }
}

// out[g] = sum of the bases i in [g * per, g * per + per) whose flag has bit 0 set (scalar 1)
extern "C" __global__ void __launch_bounds__(128) msm_ones(const unsigned char* __restrict__ flags, const uint4* __restrict__ bases,
                                                           u64 n, u32 per, u64 groups, uint4* __restrict__ out) {
    GRID_STRIDE(g, groups) {
        g1_xyzz acc = xyzz_inf();
        const u64 end = min(n, (g + 1) * (u64)per);
        for (u64 i = g * (u64)per; i < end; i++) {
            if (!(flags[i] & 1)) continue;
            g1_aff a = aff_load(bases, i);
            if (!aff_is_inf(a)) acc = xyzz_madd(acc, a.x, a.y);
        }
        xyzz_store(out, g, acc);
    }
}

// Test/benchmark bases: out[i] = A[i % na] + B[i / na] in affine form. Each thread converts `per`
// consecutive points with one Fermat inversion (Montgomery's batch-inversion trick); scratch holds
// the XYZZ sums (n x 192 bytes) and prods the running products of ZZ * ZZZ (n x 48 bytes).
extern "C" __global__ void __launch_bounds__(128) g1_gen_points(const uint4* __restrict__ A, u32 na, const uint4* __restrict__ B,
                                                                u64 n, u32 per, uint4* __restrict__ scratch,
                                                                uint4* __restrict__ prods, uint4* __restrict__ out) {
    GRID_STRIDE(t, (n + per - 1) / per) {
        const u64 lo = t * per, hi = min(n, lo + per);
        fq_t acc = fq_t::one();
        for (u64 i = lo; i < hi; i++) {
            g1_aff a = aff_load(A, i % na), b = aff_load(B, i / na);
            g1_xyzz p = xyzz_inf();
            if (!aff_is_inf(a)) p = xyzz_madd(p, a.x, a.y);
            if (!aff_is_inf(b)) p = xyzz_madd(p, b.x, b.y);
            xyzz_store(scratch, i, p);
            if (!xyzz_is_inf(p)) acc = fp_mul(acc, fp_mul(p.ZZ, p.ZZZ));
            fp_store(prods, i, acc);
        }
        fq_t inv = fp_inv(acc);  // 1 / prod of all d_i = ZZ_i ZZZ_i in the chunk
        for (u64 i = hi; i-- > lo;) {
            g1_xyzz p = xyzz_load(scratch, i);
            g1_aff r;
            if (xyzz_is_inf(p)) {
                r.x = fq_t::zero(); r.y = fq_t::zero();
            } else {
                const fq_t d = fp_mul(p.ZZ, p.ZZZ);
                const fq_t dinv = (i > lo) ? fp_mul(inv, fp_load<FqParams>(prods, i - 1)) : inv;  // 1 / d_i
                inv = fp_mul(inv, d);
                r.x = fp_mul(p.X, fp_mul(dinv, p.ZZZ));  // X / ZZ
                r.y = fp_mul(p.Y, fp_mul(dinv, p.ZZ));   // Y / ZZZ
            }
            aff_store(out, i, r);
        }
    }
}

// XYZZ -> affine (Montgomery), for tests
extern "C" __global__ void g1_xyzz_to_affine(const uint4* __restrict__ in, u64 n, uint4* __restrict__ out) {
    GRID_STRIDE(i, n) aff_store(out, i, xyzz_to_aff(xyzz_load(in, i)));
}
