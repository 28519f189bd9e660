// Generic Montgomery arithmetic over a prime field held in N 32-bit little-endian limbs.
//
// The modulus p must satisfy 2p < 2^(32N) (true for BLS12-381 Fr, 255 bits in 8 limbs, and Fq,
// 381 bits in 12 limbs), so sums of two reduced values never overflow and one conditional
// subtraction reduces them. Multiplication is CIOS (coarsely integrated operand scanning, Koc,
// Acar, Kaliski 1996) with PTX carry chains (mad.lo.cc / madc.hi.cc): 2N^2 32x32-bit products
// (4N^2 + N multiply-add halves), each row added as an even-limb and an odd-limb chain so that
// sm_90 does each product in one IMAD.WIDE.U32.X. On the H200 (benchmarks/results/2026-11-30-h200/
// stop10) that made the NTT 19% and the G1/G2 MSMs 12-15% faster than one chain of low halves and
// one of high halves. tests/test_ff_host.py builds this file for the host (CUZK_HOST_EMULATION).
// Values are kept fully reduced in [0, p) in Montgomery form x * 2^(32N) mod p.
//
// A parameter class P provides: static const int N; static const u32 M0 (= -p^-1 mod 2^32);
// static u32 p(int i), r2(int i) (2^(64N) mod p), one(int i) (2^(32N) mod p), each returning
// limb i; they are switch statements that fold to immediates once loops are unrolled.
#pragma once

typedef unsigned int u32;
typedef unsigned long long u64;

namespace ff {

#ifdef CUZK_HOST_EMULATION
// Host model of the PTX carry-chain instructions (tests/tools without a GPU): CC.CF is a
// thread-local flag; for subtraction it holds the borrow, as in PTX.
extern thread_local u32 emu_cf;
inline u32 add_cc(u32 a, u32 b) { u64 s = (u64)a + b; emu_cf = (u32)(s >> 32); return (u32)s; }
inline u32 addc_cc(u32 a, u32 b) { u64 s = (u64)a + b + emu_cf; emu_cf = (u32)(s >> 32); return (u32)s; }
inline u32 addc(u32 a, u32 b) { return a + b + emu_cf; }
inline u32 sub_cc(u32 a, u32 b) { u64 d = (u64)a - b; emu_cf = (u32)(d >> 63); return (u32)d; }
inline u32 subc_cc(u32 a, u32 b) { u64 d = (u64)a - b - emu_cf; emu_cf = (u32)(d >> 63); return (u32)d; }
inline u32 subc(u32 a, u32 b) { return a - b - emu_cf; }
inline u32 mad_lo_cc(u32 a, u32 b, u32 c) { u64 s = (u64)(u32)((u64)a * b) + c; emu_cf = (u32)(s >> 32); return (u32)s; }
inline u32 madc_lo_cc(u32 a, u32 b, u32 c) { u64 s = (u64)(u32)((u64)a * b) + c + emu_cf; emu_cf = (u32)(s >> 32); return (u32)s; }
inline u32 mad_hi_cc(u32 a, u32 b, u32 c) { u64 s = (((u64)a * b) >> 32) + c; emu_cf = (u32)(s >> 32); return (u32)s; }
inline u32 madc_hi_cc(u32 a, u32 b, u32 c) { u64 s = (((u64)a * b) >> 32) + c + emu_cf; emu_cf = (u32)(s >> 32); return (u32)s; }
#else
__device__ __forceinline__ u32 add_cc(u32 a, u32 b) { u32 r; asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ u32 addc_cc(u32 a, u32 b) { u32 r; asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ u32 addc(u32 a, u32 b) { u32 r; asm volatile("addc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ u32 sub_cc(u32 a, u32 b) { u32 r; asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ u32 subc_cc(u32 a, u32 b) { u32 r; asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ u32 subc(u32 a, u32 b) { u32 r; asm volatile("subc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }
__device__ __forceinline__ u32 mad_lo_cc(u32 a, u32 b, u32 c) { u32 r; asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
__device__ __forceinline__ u32 madc_lo_cc(u32 a, u32 b, u32 c) { u32 r; asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
__device__ __forceinline__ u32 mad_hi_cc(u32 a, u32 b, u32 c) { u32 r; asm volatile("mad.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
__device__ __forceinline__ u32 madc_hi_cc(u32 a, u32 b, u32 c) { u32 r; asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
#endif

}  // namespace ff

template <class P>
struct fp {
    static const int N = P::N;
    u32 v[P::N];

    __device__ __forceinline__ static fp zero() { fp r;
#pragma unroll
        for (int i = 0; i < N; i++) r.v[i] = 0;
        return r; }
    __device__ __forceinline__ static fp one() { fp r;  // Montgomery form of 1
#pragma unroll
        for (int i = 0; i < N; i++) r.v[i] = P::one(i);
        return r; }
    __device__ __forceinline__ static fp raw_one() { fp r;  // the integer 1 (for leaving Montgomery form)
#pragma unroll
        for (int i = 0; i < N; i++) r.v[i] = i == 0 ? 1u : 0u;
        return r; }
    __device__ __forceinline__ static fp r2() { fp r;
#pragma unroll
        for (int i = 0; i < N; i++) r.v[i] = P::r2(i);
        return r; }

    __device__ __forceinline__ bool is_zero() const { u32 acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++) acc |= v[i];
        return acc == 0; }

    // element i of an array of N/4 uint4 words per element (what fp_load / fp_store do; members so
    // that code generic over the field type, as the curve formulas over Fq and Fq2, can call them)
    static const int WORDS = N / 4;
    __device__ __forceinline__ static fp load(const uint4* __restrict__ base, u64 i) { fp r;
#pragma unroll
        for (int k = 0; k < WORDS; k++) {
            uint4 w = base[i * WORDS + k];
            r.v[4 * k] = w.x; r.v[4 * k + 1] = w.y; r.v[4 * k + 2] = w.z; r.v[4 * k + 3] = w.w;
        }
        return r; }
    __device__ __forceinline__ void store(uint4* base, u64 i) const {
#pragma unroll
        for (int k = 0; k < WORDS; k++) {
            uint4 w; w.x = v[4 * k]; w.y = v[4 * k + 1]; w.z = v[4 * k + 2]; w.w = v[4 * k + 3];
            base[i * WORDS + k] = w;
        } }
};

template <class P>
__device__ __forceinline__ bool fp_eq(const fp<P>& a, const fp<P>& b) {
    u32 acc = 0;
#pragma unroll
    for (int i = 0; i < P::N; i++) acc |= a.v[i] ^ b.v[i];
    return acc == 0;
}

// t in [0, 2p) -> t mod p
template <class P>
__device__ __forceinline__ fp<P> fp_reduce_once(const fp<P>& t) {
    const int N = P::N;
    fp<P> s;
    s.v[0] = ff::sub_cc(t.v[0], P::p(0));
#pragma unroll
    for (int i = 1; i < N; i++) s.v[i] = ff::subc_cc(t.v[i], P::p(i));
    u32 borrow = ff::subc(0, 0);  // 0xffffffff when t < p
    fp<P> r;
#pragma unroll
    for (int i = 0; i < N; i++) r.v[i] = borrow ? t.v[i] : s.v[i];
    return r;
}

template <class P>
__device__ __forceinline__ fp<P> fp_add(const fp<P>& a, const fp<P>& b) {
    const int N = P::N;
    fp<P> t;
    t.v[0] = ff::add_cc(a.v[0], b.v[0]);
#pragma unroll
    for (int i = 1; i < N - 1; i++) t.v[i] = ff::addc_cc(a.v[i], b.v[i]);
    t.v[N - 1] = ff::addc(a.v[N - 1], b.v[N - 1]);
    return fp_reduce_once(t);
}

template <class P>
__device__ __forceinline__ fp<P> fp_sub(const fp<P>& a, const fp<P>& b) {
    const int N = P::N;
    fp<P> t;
    t.v[0] = ff::sub_cc(a.v[0], b.v[0]);
#pragma unroll
    for (int i = 1; i < N; i++) t.v[i] = ff::subc_cc(a.v[i], b.v[i]);
    u32 mask = ff::subc(0, 0);  // all ones on borrow
    fp<P> r;
    r.v[0] = ff::add_cc(t.v[0], P::p(0) & mask);
#pragma unroll
    for (int i = 1; i < N - 1; i++) r.v[i] = ff::addc_cc(t.v[i], P::p(i) & mask);
    r.v[N - 1] = ff::addc(t.v[N - 1], P::p(N - 1) & mask);
    return r;
}

template <class P>
__device__ __forceinline__ fp<P> fp_neg(const fp<P>& a) {
    return fp_sub(fp<P>::zero(), a);
}

template <class P>
__device__ __forceinline__ fp<P> fp_dbl(const fp<P>& a) { return fp_add(a, a); }

// t[off .. off+N] += x_k * y for k = off, off+2, ..., (each 64-bit product at t[k], t[k+1]) as ONE
// carry chain whose terms alternate mad.lo / madc.hi of the same product, which ptxas turns into
// one IMAD.WIDE.U32.X per product on sm_90; the carry out goes to t[off+N] (and t[N+1]).
template <int N, int OFF>
__device__ __forceinline__ void fp_mad_half(u32* t, const u32* x, u32 y) {
    t[OFF] = ff::mad_lo_cc(x[OFF], y, t[OFF]);
    t[OFF + 1] = ff::madc_hi_cc(x[OFF], y, t[OFF + 1]);
#pragma unroll
    for (int k = OFF + 2; k < N; k += 2) {
        t[k] = ff::madc_lo_cc(x[k], y, t[k]);
        t[k + 1] = ff::madc_hi_cc(x[k], y, t[k + 1]);
    }
    if (OFF == 0) {
        t[N] = ff::addc_cc(t[N], 0);
        t[N + 1] = ff::addc(t[N + 1], 0);
    } else {
        t[N + 1] = ff::addc(t[N + 1], 0);
    }
}

// Montgomery product a*b*2^(-32N) mod p (CIOS, N even). Each of the row's two products (a*b[i],
// then m*p) is added as two carry chains, the even limbs' 64-bit products and then the odd limbs'
// (fp_mad_half): with all low halves in one chain and all high halves in another, ptxas on sm_90
// needs a separate IADD3.X for most carries (about 1 per product), which loads the integer ALU
// pipe more than the multiplies load the FMA pipe.
template <class P>
__device__ __forceinline__ fp<P> fp_mul(const fp<P>& a, const fp<P>& b) {
    const int N = P::N;
    static_assert(N % 2 == 0, "fp_mul needs an even number of limbs");
    u32 t[N + 2], pm[N];
#pragma unroll
    for (int j = 0; j < N; j++) pm[j] = P::p(j);
#pragma unroll
    for (int j = 0; j < N + 2; j++) t[j] = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        fp_mad_half<N, 0>(t, a.v, b.v[i]);
        fp_mad_half<N, 1>(t, a.v, b.v[i]);
        const u32 m = t[0] * P::M0;          // t + m p ≡ 0 mod 2^32
        fp_mad_half<N, 0>(t, pm, m);
        fp_mad_half<N, 1>(t, pm, m);
#pragma unroll
        for (int j = 0; j <= N; j++) t[j] = t[j + 1];   // divide by 2^32 (t[0] is 0)
        t[N + 1] = 0;
    }
    fp<P> r;
#pragma unroll
    for (int j = 0; j < N; j++) r.v[j] = t[j];
    return fp_reduce_once(r);  // t < 2p and t[N] == 0 for reduced inputs
}

template <class P>
__device__ __forceinline__ fp<P> fp_sqr(const fp<P>& a) { return fp_mul(a, a); }

template <class P>
__device__ __forceinline__ fp<P> fp_to_mont(const fp<P>& a) { return fp_mul(a, fp<P>::r2()); }

template <class P>
__device__ __forceinline__ fp<P> fp_from_mont(const fp<P>& a) { return fp_mul(a, fp<P>::raw_one()); }

// a^(p-2) (Fermat inversion); 0 maps to 0.
template <class P>
__device__ __noinline__ fp<P> fp_inv(const fp<P>& a) {
    fp<P> r = fp<P>::one();
#pragma unroll 1
    for (int w = P::N - 1; w >= 0; w--) {
        u32 e = P::p(w) - (w == 0 ? 2u : 0u);  // p is odd and > 2: no borrow out of limb 0
#pragma unroll 1
        for (int b = 31; b >= 0; b--) {
            r = fp_sqr(r);
            if ((e >> b) & 1) r = fp_mul(r, a);
        }
    }
    return r;
}

// ---- loads and stores: an element is N/4 uint4 words (32 bytes for Fr, 48 for Fq) ----------
template <class P>
__device__ __forceinline__ fp<P> fp_load(const uint4* __restrict__ base, u64 i) { return fp<P>::load(base, i); }

template <class P>
__device__ __forceinline__ void fp_store(uint4* base, u64 i, const fp<P>& a) { a.store(base, i); }
