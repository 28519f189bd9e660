// Short Weierstrass curves y^2 = x^3 + b (a = 0) in XYZZ coordinates, generic over the coordinate
// field F (fq_t for BLS12-381 G1, fq2_t for G2; b never enters these formulas). (X, Y, ZZ, ZZZ)
// stands for the affine point (X/ZZ, Y/ZZZ) with ZZ^3 = ZZZ^2; ZZ = 0 is the point at infinity.
// Formulas from the Explicit-Formulas Database (Bernstein-Lange), "xyzz" family for a = 0:
// madd-2008-s (mixed add, 8M + 2S), add-2008-s (12M + 2S), dbl-2008-s-1 (6M + 4S), mdbl-2008-s-1;
// each Y3 = a (u - v) - c d is one fp_y3.
// Affine points are (x, y) with (0, 0) the point at infinity ((0, 0) is on neither curve).
//
// F provides: static zero(), one() (Montgomery 1), is_zero(), static load(base, i) / store(base, i)
// of element i in an array of F::WORDS uint4 words per element, and the free functions fp_add,
// fp_sub, fp_dbl, fp_neg, fp_mul, fp_sqr, fp_inv, fp_y3(a, u, v, c, d) = a (u - v) - c d (Fq: one
// Montgomery reduction for both products) and fp_neg_nonzero (Fq: p - a), found by overloading /
// argument-dependent lookup.
// Memory: affine 2 F::WORDS uint4 (x then y), XYZZ 4 F::WORDS uint4 (X, Y, ZZ, ZZZ), Montgomery.
#pragma once
#include "ff.cuh"

template <class F> struct aff_t { F x, y; };
template <class F> struct xyzz_t { F X, Y, ZZ, ZZZ; };

template <class F>
__device__ __forceinline__ xyzz_t<F> xyzz_inf() {
    xyzz_t<F> p; p.X = F::zero(); p.Y = F::zero(); p.ZZ = F::zero(); p.ZZZ = F::zero(); return p;
}
template <class F>
__device__ __forceinline__ bool xyzz_is_inf(const xyzz_t<F>& p) { return p.ZZ.is_zero(); }
template <class F>
__device__ __forceinline__ bool aff_is_inf(const aff_t<F>& a) { return a.x.is_zero() && a.y.is_zero(); }

template <class F>
__device__ __forceinline__ aff_t<F> aff_load(const uint4* __restrict__ base, u64 i) {
    aff_t<F> a; a.x = F::load(base, 2 * i); a.y = F::load(base, 2 * i + 1); return a;
}
template <class F>
__device__ __forceinline__ void aff_store(uint4* base, u64 i, const aff_t<F>& a) {
    a.x.store(base, 2 * i); a.y.store(base, 2 * i + 1);
}
template <class F>
__device__ __forceinline__ xyzz_t<F> xyzz_load(const uint4* __restrict__ base, u64 i) {
    xyzz_t<F> p;
    p.X = F::load(base, 4 * i); p.Y = F::load(base, 4 * i + 1);
    p.ZZ = F::load(base, 4 * i + 2); p.ZZZ = F::load(base, 4 * i + 3);
    return p;
}
template <class F>
__device__ __forceinline__ void xyzz_store(uint4* base, u64 i, const xyzz_t<F>& p) {
    p.X.store(base, 4 * i); p.Y.store(base, 4 * i + 1); p.ZZ.store(base, 4 * i + 2); p.ZZZ.store(base, 4 * i + 3);
}

// 2 * (x, y) for an affine point (not infinity; y != 0 on the prime-order subgroups used here)
template <class F>
__device__ __noinline__ xyzz_t<F> xyzz_mdbl(const F& x, const F& y) {
    F U = fp_dbl(y), V = fp_sqr(U), W = fp_mul(U, V), S = fp_mul(x, V);
    F xx = fp_sqr(x), M = fp_add(fp_dbl(xx), xx);
    xyzz_t<F> r;
    r.X = fp_sub(fp_sqr(M), fp_dbl(S));
    r.Y = fp_y3(M, S, r.X, W, y);
    r.ZZ = V; r.ZZZ = W;
    return r;
}

template <class F>
__device__ __noinline__ xyzz_t<F> xyzz_dbl(const xyzz_t<F>& p) {
    if (xyzz_is_inf(p)) return p;
    F U = fp_dbl(p.Y), V = fp_sqr(U), W = fp_mul(U, V), S = fp_mul(p.X, V);
    F xx = fp_sqr(p.X), M = fp_add(fp_dbl(xx), xx);
    xyzz_t<F> r;
    r.X = fp_sub(fp_sqr(M), fp_dbl(S));
    r.Y = fp_y3(M, S, r.X, W, p.Y);
    r.ZZ = fp_mul(V, p.ZZ); r.ZZZ = fp_mul(W, p.ZZZ);
    return r;
}

// p + (x2, y2), (x2, y2) affine and not infinity
template <class F>
__device__ __forceinline__ xyzz_t<F> xyzz_madd(const xyzz_t<F>& p, const F& x2, const F& y2) {
    if (xyzz_is_inf(p)) { xyzz_t<F> r; r.X = x2; r.Y = y2; r.ZZ = F::one(); r.ZZZ = F::one(); return r; }
    F U2 = fp_mul(x2, p.ZZ), S2 = fp_mul(y2, p.ZZZ);
    F P = fp_sub(U2, p.X), R = fp_sub(S2, p.Y);
    if (P.is_zero()) {
        if (R.is_zero()) return xyzz_mdbl(x2, y2);
        return xyzz_inf<F>();
    }
    F PP = fp_sqr(P), PPP = fp_mul(P, PP), Q = fp_mul(p.X, PP);
    xyzz_t<F> r;
    r.X = fp_sub(fp_sub(fp_sqr(R), PPP), fp_dbl(Q));
    r.Y = fp_y3(R, Q, r.X, PPP, p.Y);
    r.ZZ = fp_mul(p.ZZ, PP); r.ZZZ = fp_mul(p.ZZZ, PPP);
    return r;
}

// p + a for an affine a that may be infinity, negated first when neg
template <class F>
__device__ __forceinline__ xyzz_t<F> xyzz_madd_aff(const xyzz_t<F>& p, aff_t<F> a, bool neg) {
    if (aff_is_inf(a)) return p;
    if (neg) a.y = fp_neg_nonzero(a.y);   // a is not infinity: y != 0
    return xyzz_madd(p, a.x, a.y);
}

template <class F>
__device__ __noinline__ xyzz_t<F> xyzz_add(const xyzz_t<F>& p, const xyzz_t<F>& q) {
    if (xyzz_is_inf(q)) return p;
    if (xyzz_is_inf(p)) return q;
    F U1 = fp_mul(p.X, q.ZZ), U2 = fp_mul(q.X, p.ZZ);
    F S1 = fp_mul(p.Y, q.ZZZ), S2 = fp_mul(q.Y, p.ZZZ);
    F P = fp_sub(U2, U1), R = fp_sub(S2, S1);
    if (P.is_zero()) {
        if (R.is_zero()) return xyzz_dbl(p);
        return xyzz_inf<F>();
    }
    F PP = fp_sqr(P), PPP = fp_mul(P, PP), Q = fp_mul(U1, PP);
    xyzz_t<F> r;
    r.X = fp_sub(fp_sub(fp_sqr(R), PPP), fp_dbl(Q));
    r.Y = fp_y3(R, Q, r.X, PPP, S1);
    r.ZZ = fp_mul(fp_mul(p.ZZ, q.ZZ), PP);
    r.ZZZ = fp_mul(fp_mul(p.ZZZ, q.ZZZ), PPP);
    return r;
}

template <class F>
__device__ __forceinline__ aff_t<F> xyzz_to_aff(const xyzz_t<F>& p) {
    aff_t<F> a;
    if (xyzz_is_inf(p)) { a.x = F::zero(); a.y = F::zero(); return a; }
    F inv = fp_inv(fp_mul(p.ZZ, p.ZZZ));          // 1 / (ZZ ZZZ)
    a.x = fp_mul(p.X, fp_mul(inv, p.ZZZ));          // X / ZZ
    a.y = fp_mul(p.Y, fp_mul(inv, p.ZZ));           // Y / ZZZ
    return a;
}
