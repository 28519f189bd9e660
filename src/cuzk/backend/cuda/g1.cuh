// BLS12-381 G1 (y^2 = x^3 + 4 over Fq) in XYZZ coordinates: (X, Y, ZZ, ZZZ) stands for the affine
// point (X/ZZ, Y/ZZZ) with ZZ^3 = ZZZ^2; ZZ = 0 is the point at infinity. Formulas from the
// Explicit-Formulas Database (Bernstein-Lange), "xyzz" family for a = 0: madd-2008-s (mixed add,
// 8M + 2S), add-2008-s (12M + 2S), dbl-2008-s-1 (6M + 4S), mdbl-2008-s-1. Affine points are (x, y)
// with (0, 0) the point at infinity ((0, 0) is not on the curve). Memory: affine 96 bytes (x then y,
// 6 uint4), XYZZ 192 bytes (12 uint4), all coordinates Montgomery.
#pragma once
#include "fq.cuh"

struct g1_aff { fq_t x, y; };
struct g1_xyzz { fq_t X, Y, ZZ, ZZZ; };

__device__ __forceinline__ g1_xyzz xyzz_inf() {
    g1_xyzz p; p.X = fq_t::zero(); p.Y = fq_t::zero(); p.ZZ = fq_t::zero(); p.ZZZ = fq_t::zero(); return p;
}
__device__ __forceinline__ bool xyzz_is_inf(const g1_xyzz& p) { return p.ZZ.is_zero(); }
__device__ __forceinline__ bool aff_is_inf(const g1_aff& a) { return a.x.is_zero() && a.y.is_zero(); }

__device__ __forceinline__ g1_aff aff_load(const uint4* __restrict__ base, u64 i) {
    g1_aff a; a.x = fp_load<FqParams>(base, 2 * i); a.y = fp_load<FqParams>(base, 2 * i + 1); return a;
}
__device__ __forceinline__ void aff_store(uint4* base, u64 i, const g1_aff& a) {
    fp_store(base, 2 * i, a.x); fp_store(base, 2 * i + 1, a.y);
}
__device__ __forceinline__ g1_xyzz xyzz_load(const uint4* __restrict__ base, u64 i) {
    g1_xyzz p;
    p.X = fp_load<FqParams>(base, 4 * i); p.Y = fp_load<FqParams>(base, 4 * i + 1);
    p.ZZ = fp_load<FqParams>(base, 4 * i + 2); p.ZZZ = fp_load<FqParams>(base, 4 * i + 3);
    return p;
}
__device__ __forceinline__ void xyzz_store(uint4* base, u64 i, const g1_xyzz& p) {
    fp_store(base, 4 * i, p.X); fp_store(base, 4 * i + 1, p.Y);
    fp_store(base, 4 * i + 2, p.ZZ); fp_store(base, 4 * i + 3, p.ZZZ);
}

// 2 * (x, y) for an affine point (not infinity; y != 0 on this curve's prime-order points)
__device__ __noinline__ g1_xyzz xyzz_mdbl(const fq_t& x, const fq_t& y) {
    fq_t U = fp_dbl(y), V = fp_sqr(U), W = fp_mul(U, V), S = fp_mul(x, V);
    fq_t xx = fp_sqr(x), M = fp_add(fp_dbl(xx), xx);
    g1_xyzz r;
    r.X = fp_sub(fp_sqr(M), fp_dbl(S));
    r.Y = fp_sub(fp_mul(M, fp_sub(S, r.X)), fp_mul(W, y));
    r.ZZ = V; r.ZZZ = W;
    return r;
}

__device__ __noinline__ g1_xyzz xyzz_dbl(const g1_xyzz& p) {
    if (xyzz_is_inf(p)) return p;
    fq_t U = fp_dbl(p.Y), V = fp_sqr(U), W = fp_mul(U, V), S = fp_mul(p.X, V);
    fq_t xx = fp_sqr(p.X), M = fp_add(fp_dbl(xx), xx);
    g1_xyzz r;
    r.X = fp_sub(fp_sqr(M), fp_dbl(S));
    r.Y = fp_sub(fp_mul(M, fp_sub(S, r.X)), fp_mul(W, p.Y));
    r.ZZ = fp_mul(V, p.ZZ); r.ZZZ = fp_mul(W, p.ZZZ);
    return r;
}

// p + (x2, y2), (x2, y2) affine and not infinity
__device__ __forceinline__ g1_xyzz xyzz_madd(const g1_xyzz& p, const fq_t& x2, const fq_t& y2) {
    if (xyzz_is_inf(p)) { g1_xyzz r; r.X = x2; r.Y = y2; r.ZZ = fq_t::one(); r.ZZZ = fq_t::one(); return r; }
    fq_t U2 = fp_mul(x2, p.ZZ), S2 = fp_mul(y2, p.ZZZ);
    fq_t P = fp_sub(U2, p.X), R = fp_sub(S2, p.Y);
    if (P.is_zero()) {
        if (R.is_zero()) return xyzz_mdbl(x2, y2);
        return xyzz_inf();
    }
    fq_t PP = fp_sqr(P), PPP = fp_mul(P, PP), Q = fp_mul(p.X, PP);
    g1_xyzz r;
    r.X = fp_sub(fp_sub(fp_sqr(R), PPP), fp_dbl(Q));
    r.Y = fp_sub(fp_mul(R, fp_sub(Q, r.X)), fp_mul(p.Y, PPP));
    r.ZZ = fp_mul(p.ZZ, PP); r.ZZZ = fp_mul(p.ZZZ, PPP);
    return r;
}

__device__ __noinline__ g1_xyzz xyzz_add(const g1_xyzz& p, const g1_xyzz& q) {
    if (xyzz_is_inf(q)) return p;
    if (xyzz_is_inf(p)) return q;
    fq_t U1 = fp_mul(p.X, q.ZZ), U2 = fp_mul(q.X, p.ZZ);
    fq_t S1 = fp_mul(p.Y, q.ZZZ), S2 = fp_mul(q.Y, p.ZZZ);
    fq_t P = fp_sub(U2, U1), R = fp_sub(S2, S1);
    if (P.is_zero()) {
        if (R.is_zero()) return xyzz_dbl(p);
        return xyzz_inf();
    }
    fq_t PP = fp_sqr(P), PPP = fp_mul(P, PP), Q = fp_mul(U1, PP);
    g1_xyzz r;
    r.X = fp_sub(fp_sub(fp_sqr(R), PPP), fp_dbl(Q));
    r.Y = fp_sub(fp_mul(R, fp_sub(Q, r.X)), fp_mul(S1, PPP));
    r.ZZ = fp_mul(fp_mul(p.ZZ, q.ZZ), PP);
    r.ZZZ = fp_mul(fp_mul(p.ZZZ, q.ZZZ), PPP);
    return r;
}

// k * p for a small non-negative integer k (double and add from the top bit)
__device__ __noinline__ g1_xyzz xyzz_mul_small(const g1_xyzz& p, u32 k) {
    g1_xyzz r = xyzz_inf();
    if (k == 0 || xyzz_is_inf(p)) return r;
    int top = 31 - __clz(k);
#pragma unroll 1
    for (int b = top; b >= 0; b--) {
        r = xyzz_dbl(r);
        if ((k >> b) & 1) r = xyzz_add(r, p);
    }
    return r;
}

__device__ __forceinline__ g1_aff xyzz_to_aff(const g1_xyzz& p) {
    g1_aff a;
    if (xyzz_is_inf(p)) { a.x = fq_t::zero(); a.y = fq_t::zero(); return a; }
    fq_t inv = fp_inv(fp_mul(p.ZZ, p.ZZZ));       // 1 / (ZZ ZZZ)
    a.x = fp_mul(p.X, fp_mul(inv, p.ZZZ));          // X / ZZ
    a.y = fp_mul(p.Y, fp_mul(inv, p.ZZ));           // Y / ZZZ
    return a;
}
