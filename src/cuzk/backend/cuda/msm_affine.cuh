// Batch-affine pair levels of the MSM's bucket sums (msm.cu msm_affine_level, driven by
// cuzk.backend.cuda.msm CUDAMSMContext._affine_levels), generic over the coordinate field F.
//
// One level halves every bucket: output slot i of bucket b (oo[b] <= i < oo[b+1]) is
// in(j) + in(j + 1), j = oi[b] + 2 (i - oo[b]), or in(j) alone where j + 1 = oi[b+1] (an odd count).
// An affine addition costs one inversion, 2M + 1S; a thread takes K consecutive slots and shares
// one Fermat inversion among them with Montgomery's trick (3M per slot), so a slot costs
// 5M + 1S + inv/K against the 8M + 2S of the XYZZ mixed addition it replaces (madd-2008-s).
// The running products of the denominators are kept in the output's x words (slot i's x is written
// last, by the backward pass, after slot i + 1 has read its product). Doubling (equal x and y) puts
// 2y in the product instead of x2 - x1; x1 = x2 with y1 != y2, and a point at infinity on either
// side, need no inversion. Level 0 reads in(j) = bases[vals[j] & 0x7fffffff], negated when bit 31
// is set; later levels read the previous level's affine points. Affine (0, 0) is infinity.
// Source: the batch-affine bucket accumulation of e.g. gnark-crypto's MSM (Montgomery's trick:
// P. Montgomery, "Speeding the Pollard and elliptic curve methods of factorization", 1987).
#pragma once

template <class F>
__device__ __forceinline__ aff_t<F> affine_in(const u32* __restrict__ vals, const uint4* __restrict__ src, u64 j) {
    if (vals == nullptr) return aff_load<F>(src, j);
    const u32 v = vals[j];
    aff_t<F> a = aff_load<F>(src, v & 0x7fffffffu);
    if (v >> 31) a.y = fp_neg(a.y);
    return a;
}

template <class F>
__device__ __forceinline__ F affine_in_x(const u32* __restrict__ vals, const uint4* __restrict__ src, u64 j) {
    return F::load(src, 2 * (vals == nullptr ? j : (u64)(vals[j] & 0x7fffffffu)));
}

// 0: copy or infinity (no inversion), 1: addition (d = x2 - x1), 2: doubling (d = 2 y1)
template <class F>
__device__ __forceinline__ int affine_kind(const aff_t<F>& a, const aff_t<F>& b, bool pair, F& d) {
    if (!pair || aff_is_inf(a) || aff_is_inf(b)) return 0;
    if (!fp_eq(a.x, b.x)) { d = fp_sub(b.x, a.x); return 1; }
    if (!fp_eq(a.y, b.y) || a.y.is_zero()) return 0;   // a = -b: infinity
    d = fp_dbl(a.y);
    return 2;
}

// The bucket of slot i: the last b < B with oo[b] <= i
__device__ __forceinline__ u32 affine_bucket(const u32* __restrict__ oo, u32 B, u64 i) {
    u32 lo = 0, hi = B;
    while (hi - lo > 1) {
        const u32 mid = (lo + hi) >> 1;
        if (oo[mid] <= i) lo = mid; else hi = mid;
    }
    return lo;
}

// Slots [t K, min(m, t K + K)) of one level, m = oo[B].
template <class F>
__device__ __forceinline__ void affine_level_thread(u64 t, const u32* __restrict__ vals, const uint4* __restrict__ src,
                                                    const u32* __restrict__ oi, const u32* __restrict__ oo, u32 B, u32 K,
                                                    uint4* __restrict__ out) {
    const u64 m = oo[B];
    const u64 lo = t * K;
    if (lo >= m) return;
    const u64 hi = m < lo + K ? m : lo + K;
    u32 b = affine_bucket(oo, B, lo);
    F acc = F::one();
    for (u64 i = lo; i < hi; i++) {                      // forward: running products of the d
        while (oo[b + 1] <= i) b++;
        const u64 j = oi[b] + 2 * (i - oo[b]);
        const bool pair = j + 1 < oi[b + 1];
        if (pair) {   // x alone decides unless it is 0 (a point at infinity?) or shared (doubling?)
            const F x1 = affine_in_x<F>(vals, src, j), x2 = affine_in_x<F>(vals, src, j + 1);
            F d;
            if (!fp_eq(x1, x2) && !x1.is_zero() && !x2.is_zero()) acc = fp_mul(acc, fp_sub(x2, x1));
            else if (affine_kind(affine_in<F>(vals, src, j), affine_in<F>(vals, src, j + 1), true, d)) acc = fp_mul(acc, d);
        }
        acc.store(out, 2 * i);
    }
    F inv = fp_inv(acc);
    for (u64 i = hi; i-- > lo;) {                        // backward: each slot's sum, then its x
        while (oo[b] > i) b--;
        const u64 j = oi[b] + 2 * (i - oo[b]);
        const bool pair = j + 1 < oi[b + 1];
        const aff_t<F> p = affine_in<F>(vals, src, j);
        aff_t<F> r;
        if (!pair) {
            r = p;
        } else {
            const aff_t<F> q = affine_in<F>(vals, src, j + 1);
            F d;
            const int kind = affine_kind(p, q, true, d);
            if (kind == 0) {
                if (aff_is_inf(p)) r = q;
                else if (aff_is_inf(q)) r = p;
                else { r.x = F::zero(); r.y = F::zero(); }   // p = -q
            } else {
                const F dinv = i > lo ? fp_mul(inv, F::load(out, 2 * (i - 1))) : inv;
                inv = fp_mul(inv, d);
                F lam;
                if (kind == 1) {
                    lam = fp_mul(fp_sub(q.y, p.y), dinv);
                } else {
                    const F xx = fp_sqr(p.x);
                    lam = fp_mul(fp_add(fp_dbl(xx), xx), dinv);   // 3 x^2 / 2 y (a = 0)
                }
                r.x = fp_sub(fp_sub(fp_sqr(lam), p.x), q.x);      // q.x = p.x when doubling
                r.y = fp_sub(fp_mul(lam, fp_sub(p.x, r.x)), p.y);
            }
        }
        aff_store(out, i, r);
    }
}
