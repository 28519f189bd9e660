// BLS12-381 G2 (y^2 = x^3 + 4(1 + u) over Fq2 = Fq[u] / (u^2 + 1)): Fq2 Montgomery arithmetic and
// the generic XYZZ formulas of xyzz.cuh over it.
//
// An Fq2 element c0 + c1 u is two fq_t (each Montgomery, reduced), c0 first: 96 bytes, 6 uint4.
// Products by Karatsuba (3 Fq products), squares as (c0 + c1)(c0 - c1) + 2 c0 c1 u (2 Fq
// products), inverses through the norm: 1 / (c0 + c1 u) = (c0 - c1 u) / (c0^2 + c1^2).
// Memory: affine 192 bytes (x.c0, x.c1, y.c0, y.c1: 12 uint4), XYZZ 384 bytes (24 uint4);
// (0, 0) affine / ZZ = 0 is the point at infinity.
#pragma once
#include "fq.cuh"
#include "xyzz.cuh"

struct fq2_t {
    fq_t c0, c1;
    static const int WORDS = 2 * fq_t::WORDS;

    __device__ __forceinline__ static fq2_t zero() { fq2_t r; r.c0 = fq_t::zero(); r.c1 = fq_t::zero(); return r; }
    __device__ __forceinline__ static fq2_t one() { fq2_t r; r.c0 = fq_t::one(); r.c1 = fq_t::zero(); return r; }
    __device__ __forceinline__ bool is_zero() const {
        u32 acc = 0;
#pragma unroll
        for (int i = 0; i < fq_t::N; i++) acc |= c0.v[i] | c1.v[i];
        return acc == 0;
    }
    __device__ __forceinline__ static fq2_t load(const uint4* __restrict__ base, u64 i) {
        fq2_t r; r.c0 = fq_t::load(base, 2 * i); r.c1 = fq_t::load(base, 2 * i + 1); return r;
    }
    __device__ __forceinline__ void store(uint4* base, u64 i) const { c0.store(base, 2 * i); c1.store(base, 2 * i + 1); }
};

__device__ __forceinline__ fq2_t fp_add(const fq2_t& a, const fq2_t& b) {
    fq2_t r; r.c0 = fp_add(a.c0, b.c0); r.c1 = fp_add(a.c1, b.c1); return r;
}
__device__ __forceinline__ fq2_t fp_sub(const fq2_t& a, const fq2_t& b) {
    fq2_t r; r.c0 = fp_sub(a.c0, b.c0); r.c1 = fp_sub(a.c1, b.c1); return r;
}
__device__ __forceinline__ fq2_t fp_dbl(const fq2_t& a) { return fp_add(a, a); }
__device__ __forceinline__ fq2_t fp_neg(const fq2_t& a) {
    fq2_t r; r.c0 = fp_neg(a.c0); r.c1 = fp_neg(a.c1); return r;
}
__device__ __forceinline__ bool fp_eq(const fq2_t& a, const fq2_t& b) { return fp_eq(a.c0, b.c0) && fp_eq(a.c1, b.c1); }

// (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u
__device__ __forceinline__ fq2_t fp_mul(const fq2_t& a, const fq2_t& b) {
    const fq_t t0 = fp_mul(a.c0, b.c0), t1 = fp_mul(a.c1, b.c1);
    const fq_t s = fp_mul(fp_add(a.c0, a.c1), fp_add(b.c0, b.c1));
    fq2_t r; r.c0 = fp_sub(t0, t1); r.c1 = fp_sub(fp_sub(s, t0), t1); return r;
}

// a (u - v) - c d (xyzz.cuh's Y3): two products and a difference over Fq2
__device__ __forceinline__ fq2_t fp_y3(const fq2_t& a, const fq2_t& u, const fq2_t& v, const fq2_t& c, const fq2_t& d) {
    return fp_sub(fp_mul(a, fp_sub(u, v)), fp_mul(c, d));
}
// -a for a nonzero a: fp_neg (one of a's two coordinates may be 0)
__device__ __forceinline__ fq2_t fp_neg_nonzero(const fq2_t& a) { return fp_neg(a); }

// (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u
__device__ __forceinline__ fq2_t fp_sqr(const fq2_t& a) {
    fq2_t r;
    r.c0 = fp_mul(fp_add(a.c0, a.c1), fp_sub(a.c0, a.c1));
    r.c1 = fp_dbl(fp_mul(a.c0, a.c1));
    return r;
}

// 1 / a (0 maps to 0)
__device__ __noinline__ fq2_t fp_inv(const fq2_t& a) {
    const fq_t t = fp_inv(fp_add(fp_sqr(a.c0), fp_sqr(a.c1)));
    fq2_t r; r.c0 = fp_mul(a.c0, t); r.c1 = fp_neg(fp_mul(a.c1, t)); return r;
}

typedef aff_t<fq2_t> g2_aff;
typedef xyzz_t<fq2_t> g2_xyzz;
