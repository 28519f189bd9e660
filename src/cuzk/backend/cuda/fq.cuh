// BLS12-381 base field Fq: q = 0x1a0111ea...ffffaaab (381 bits), 12 x 32-bit limbs,
// Montgomery form x * 2^384 mod q. 48 bytes per element (host: (n, 6) uint64 limbs).
// Constants generated from cuzk.field.FQ.
#pragma once
#include "ff.cuh"

struct FqParams {
    static const int N = 12;
    static const u32 M0 = 0xfffcfffdu;
    __device__ __forceinline__ static u32 m0() { return M0; }
    __device__ __forceinline__ static u32 p(int i) { switch (i) { case 0: return 0xffffaaabu; case 1: return 0xb9feffffu; case 2: return 0xb153ffffu; case 3: return 0x1eabfffeu; case 4: return 0xf6b0f624u; case 5: return 0x6730d2a0u; case 6: return 0xf38512bfu; case 7: return 0x64774b84u; case 8: return 0x434bacd7u; case 9: return 0x4b1ba7b6u; case 10: return 0x397fe69au; case 11: return 0x1a0111eau; default: return 0u; } }
    __device__ __forceinline__ static u32 r2(int i) { switch (i) { case 0: return 0x1c341746u; case 1: return 0xf4df1f34u; case 2: return 0x09d104f1u; case 3: return 0x0a76e6a6u; case 4: return 0x4c95b6d5u; case 5: return 0x8de5476cu; case 6: return 0x939d83c0u; case 7: return 0x67eb88a9u; case 8: return 0xb519952du; case 9: return 0x9a793e85u; case 10: return 0x92cae3aau; case 11: return 0x11988fe5u; default: return 0u; } }
    __device__ __forceinline__ static u32 one(int i) { switch (i) { case 0: return 0x0002fffdu; case 1: return 0x76090000u; case 2: return 0xc40c0002u; case 3: return 0xebf4000bu; case 4: return 0x53c758bau; case 5: return 0x5f489857u; case 6: return 0x70525745u; case 7: return 0x77ce5853u; case 8: return 0xa256ec6du; case 9: return 0x5c071a97u; case 10: return 0xfa80e493u; case 11: return 0x15f65ec3u; default: return 0u; } }
};
typedef fp<FqParams> fq_t;

#ifdef CUZK_FQ_MUL_CALL
// Fq products and squares (and inverses, conversions, which are built on them) as calls to two
// out-of-line functions instead of inlined copies: the non-template overload below is preferred to
// ff.cuh's template. An inlined product was ~1,250 instructions (400 since stop 46), so a G2 mixed
// addition (28 of them over Fq2) inlined was ~35,000: it overflows the instruction cache and takes
// ptxas minutes per kernel; as calls the code is far smaller for a few moves per call, and fits the
// instruction cache: the G1 MSM runs faster this way too (msm.cu).
__device__ __noinline__ fq_t fq_mul_call(const fq_t a, const fq_t b) { return fp_mul<FqParams>(a, b); }
__device__ __forceinline__ fq_t fp_mul(const fq_t& a, const fq_t& b) { return fq_mul_call(a, b); }
__device__ __noinline__ fq_t fq_sqr_call(const fq_t a) { return fp_sqr<FqParams>(a); }
__device__ __forceinline__ fq_t fp_sqr(const fq_t& a) { return fq_sqr_call(a); }
#endif

// a (u - v) - c d (all reduced): the XYZZ formulas' Y3 (xyzz.cuh) as one Montgomery reduction for
// both products (ff.cuh fp_mul_sum of the lazy difference u - v + q and of q - d): 432 wide
// products against 576. CUZK_Y3_TWO_PRODUCTS keeps two fp_mul and a difference, for
// benchmarks/msm_fq/products.py (side by side).
#if defined(CUZK_Y3_TWO_PRODUCTS)
__device__ __forceinline__ fq_t fp_y3(const fq_t& a, const fq_t& u, const fq_t& v, const fq_t& c, const fq_t& d) {
    return fp_sub(fp_mul(a, fp_sub(u, v)), fp_mul(c, d));
}
#else
__device__ __forceinline__ fq_t fq_y3_inline(const fq_t& a, const fq_t& u, const fq_t& v, const fq_t& c, const fq_t& d) {
    return fp_mul_sum<FqParams>(a, fp_sub_lazy(u, v), c, fp_p_minus(d));
}
#ifdef CUZK_FQ_MUL_CALL
__device__ __noinline__ fq_t fq_y3_call(const fq_t a, const fq_t u, const fq_t v, const fq_t c, const fq_t d) {
    return fq_y3_inline(a, u, v, c, d);
}
__device__ __forceinline__ fq_t fp_y3(const fq_t& a, const fq_t& u, const fq_t& v, const fq_t& c, const fq_t& d) {
    return fq_y3_call(a, u, v, c, d);
}
#else
__device__ __forceinline__ fq_t fp_y3(const fq_t& a, const fq_t& u, const fq_t& v, const fq_t& c, const fq_t& d) {
    return fq_y3_inline(a, u, v, c, d);
}
#endif
#endif

// -a for a nonzero a (an affine point's y: no point of G1's prime-order group has y = 0)
__device__ __forceinline__ fq_t fp_neg_nonzero(const fq_t& a) { return fp_p_minus(a); }
