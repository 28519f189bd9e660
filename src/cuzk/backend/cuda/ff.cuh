// Generic Montgomery arithmetic over a prime field held in N 32-bit little-endian limbs.
//
// The modulus p must satisfy 2p < 2^(32N) (true for BLS12-381 Fr, 255 bits in 8 limbs, and Fq,
// 381 bits in 12 limbs), so sums of two reduced values never overflow and one conditional
// subtraction reduces them. Multiplication is CIOS (coarsely integrated operand scanning, Koc,
// Acar, Kaliski 1996) with PTX carry chains (mad.lo.cc / madc.hi.cc): 2N^2 32x32-bit products,
// each one IMAD.WIDE.U32.X on sm_90, the running sum kept as two arrays by the parity of the
// position where a product starts (fp_mul). On the H200 (benchmarks/results/2026-11-30-h200/
// stop10) this made the NTT 25% and the G1 / G2 MSMs 30-33% faster than one chain of low halves
// and one of high halves per row. tests/test_ff_host.py builds this file for the host
// (CUZK_HOST_EMULATION) and checks it against Python integers.
// Values are kept fully reduced in [0, p) in Montgomery form x * 2^(32N) mod p.
//
// A parameter class P provides: static const int N; static const u32 M0 (= -p^-1 mod 2^32) and
// static u32 m0() (M0 as fp_mul reads it: fr.cuh says why Fr's is not an immediate);
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
inline u32 madc_hi(u32 a, u32 b, u32 c) { return (u32)((((u64)a * b) >> 32) + c + emu_cf); }
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
__device__ __forceinline__ u32 madc_hi(u32 a, u32 b, u32 c) { u32 r; asm volatile("madc.hi.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }
#endif
// lo, hi = a * b (one IMAD.WIDE.U32: no carry in or out)
__device__ __forceinline__ void mul_wide(u32 a, u32 b, u32& lo, u32& hi) {
    const u64 w = (u64)a * b;
    lo = (u32)w;
    hi = (u32)(w >> 32);
}

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

// a - b + p in (0, 2p), not reduced: only as fp_mul's second factor (any N words), whose product
// is reduced; saves fp_sub's masked correction (the NTT's butterflies: (u - v) w).
template <class P>
__device__ __forceinline__ fp<P> fp_sub_lazy(const fp<P>& a, const fp<P>& b) {
    const int N = P::N;
    fp<P> t;
    t.v[0] = ff::add_cc(a.v[0], P::p(0));
#pragma unroll
    for (int i = 1; i < N - 1; i++) t.v[i] = ff::addc_cc(a.v[i], P::p(i));
    t.v[N - 1] = ff::addc(a.v[N - 1], P::p(N - 1));   // a + p < 2^(32N)
    t.v[0] = ff::sub_cc(t.v[0], b.v[0]);
#pragma unroll
    for (int i = 1; i < N - 1; i++) t.v[i] = ff::subc_cc(t.v[i], b.v[i]);
    t.v[N - 1] = ff::subc(t.v[N - 1], b.v[N - 1]);
    return t;
}

// p - a in one borrow chain: the negation of a nonzero reduced a; for a = 0 the N-word value p,
// which fp_mul's second factor and fp_mul_sum's d may be (fp_neg's masked correction saved).
template <class P>
__device__ __forceinline__ fp<P> fp_p_minus(const fp<P>& a) {
    const int N = P::N;
    fp<P> r;
    r.v[0] = ff::sub_cc(P::p(0), a.v[0]);
#pragma unroll
    for (int i = 1; i < N - 1; i++) r.v[i] = ff::subc_cc(P::p(i), a.v[i]);
    r.v[N - 1] = ff::subc(P::p(N - 1), a.v[N - 1]);
    return r;
}

template <class P>
__device__ __forceinline__ fp<P> fp_neg(const fp<P>& a) {
    return fp_sub(fp<P>::zero(), a);
}

template <class P>
__device__ __forceinline__ fp<P> fp_dbl(const fp<P>& a) { return fp_add(a, a); }

// X[p0 + j], X[p0 + j + 1] += x[j] * y (64-bit) for j = j0, j0 + 2, ... < N, as ONE carry chain
// alternating mad.lo / madc.hi of the same product (one IMAD.WIDE.U32.X per product on sm_90),
// the carry out into X[p0 + N + (j0 & 1)] (N even: the word above the last product). Called with
// constant arguments in unrolled loops.
template <int N>
__device__ __forceinline__ void fp_chain(u32* X, const u32* x, u32 y, int p0, int j0) {
    X[p0 + j0] = ff::mad_lo_cc(x[j0], y, X[p0 + j0]);
    X[p0 + j0 + 1] = ff::madc_hi_cc(x[j0], y, X[p0 + j0 + 1]);
#pragma unroll
    for (int j = j0 + 2; j < N; j += 2) {
        X[p0 + j] = ff::madc_lo_cc(x[j], y, X[p0 + j]);
        X[p0 + j + 1] = ff::madc_hi_cc(x[j], y, X[p0 + j + 1]);
    }
    X[p0 + N + (j0 & 1)] = ff::addc(X[p0 + N + (j0 & 1)], 0);
}

// Row i's Montgomery step of fp_sqr (its sum over 2N + 1 fixed words; fp_mul shifts its frame
// instead, below), once the row's products are in X and Y: m * p added from position i (m makes
// position i ≡ 0 mod 2^32), c the carry out of position i.
template <class P>
__device__ __forceinline__ void fp_mont_row(u32* X, u32* Y, const u32* pm, int i, u32& c) {
    const int N = P::N, jx = i & 1, jy = 1 - jx;
    const u32 m = (X[i] + Y[i] + c) * P::m0();  // position i + m*p[0] ≡ 0 mod 2^32
    fp_chain<N>(X, pm, m, i, jx);
    fp_chain<N>(Y, pm, m, i, jy);
    const u64 s = (u64)X[i] + Y[i] + c;         // ≡ 0 mod 2^32
    c = (u32)(s >> 32);
}

// After the N rows: positions N .. 2N - 1 of X + Y, plus c, reduced once (< 2p, and positions 2N
// and up are 0, for reduced inputs).
template <class P>
__device__ __forceinline__ fp<P> fp_mont_result(const u32* X, const u32* Y, u32 c) {
    const int N = P::N;
    fp<P> r;
    r.v[0] = ff::add_cc(X[N], Y[N]);
#pragma unroll
    for (int k = 1; k < N; k++) r.v[k] = ff::addc_cc(X[N + k], Y[N + k]);
    r.v[0] = ff::add_cc(r.v[0], c);
#pragma unroll
    for (int k = 1; k < N; k++) r.v[k] = ff::addc_cc(r.v[k], 0);
    return fp_reduce_once(r);
}

// ---- fp_mul's rows. The running sum of a row is two N-word arrays: acc holds positions 0..N-1 of the
// row (products a[j] b[i] with j even, and m p[j] with j even), oth positions 1..N (j odd), so
// every 64-bit product lands on a register pair of one array. Each row ends divided by 2^32:
// the arrays then swap roles (oth becomes the aligned one, acc the one a word off), so the
// next row (fp_mul_row) first moves the old acc two words down while it adds a's odd limbs
// times b[i] in the same carry chain.
// Carries that are not kept: fp_mad_odd's top word (the carry out of position N + 1) and the
// word that takes acc's carry (oth[N - 1]) hold at most p[N-1] + a[N-1] + 2 (a's odd chain puts
// at most a[N-1] + 1 there, m p's at most p[N-1] + 1), below 2^32 when a[N-1] <= 2^32 - 3 -
// p[N-1]: a < p for Fr (top limb 0x73eda753) and Fq (0x1a0111ea). b may be any N-word value.

// acc[k], acc[k+1] += x[k] * y for even k: one carry chain from position 0, its carry out
// (position N) left in CC for the caller.
template <int N>
__device__ __forceinline__ void fp_mad_even(u32* acc, const u32* x, u32 y) {
    acc[0] = ff::mad_lo_cc(x[0], y, acc[0]);
    acc[1] = ff::madc_hi_cc(x[0], y, acc[1]);
#pragma unroll
    for (int k = 2; k < N; k += 2) {
        acc[k] = ff::madc_lo_cc(x[k], y, acc[k]);
        acc[k + 1] = ff::madc_hi_cc(x[k], y, acc[k + 1]);
    }
}

// oth[k], oth[k+1] += x[k + 1] * y for even k (x's odd limbs): a fresh carry chain whose top
// word takes no carry out (bounded: see above).
template <int N>
__device__ __forceinline__ void fp_mad_odd(u32* oth, const u32* x, u32 y) {
    oth[0] = ff::mad_lo_cc(x[1], y, oth[0]);
    oth[1] = ff::madc_hi_cc(x[1], y, oth[1]);
#pragma unroll
    for (int k = 2; k < N - 2; k += 2) {
        oth[k] = ff::madc_lo_cc(x[k + 1], y, oth[k]);
        oth[k + 1] = ff::madc_hi_cc(x[k + 1], y, oth[k + 1]);
    }
    oth[N - 2] = ff::madc_lo_cc(x[N - 1], y, oth[N - 2]);
    oth[N - 1] = ff::madc_hi(x[N - 1], y, oth[N - 1]);
}

// A row's Montgomery step: m makes position 0 (acc[0] alone) ≡ 0 mod 2^32; m p added, acc's carry
// into position N.
template <class P>
__device__ __forceinline__ void fp_mont_step(u32* acc, u32* oth, const u32* pm) {
    const int N = P::N;
    const u32 m = acc[0] * P::m0();
    fp_mad_odd<N>(oth, pm, m);
    fp_mad_even<N>(acc, pm, m);
    oth[N - 1] = ff::addc(oth[N - 1], 0);
}

// Row i > 0 of fp_mul, its products: acc is the previous row's oth (now positions 0..N-1); oth,
// the previous acc, is a word below its place: its word 1 goes into position 0 and the rest move
// two words down in the chain that adds a's odd limbs times bi (its word 0 is the previous row's
// ≡ 0 position).
template <int N>
__device__ __forceinline__ void fp_row_products(u32* acc, u32* oth, const u32* a, u32 bi) {
    acc[0] = ff::add_cc(acc[0], oth[1]);
#pragma unroll
    for (int k = 0; k < N - 2; k += 2) {
        oth[k] = ff::madc_lo_cc(a[k + 1], bi, oth[k + 2]);
        oth[k + 1] = ff::madc_hi_cc(a[k + 1], bi, oth[k + 3]);
    }
    oth[N - 2] = ff::madc_lo_cc(a[N - 1], bi, 0);
    oth[N - 1] = ff::madc_hi(a[N - 1], bi, 0);   // hi(x y) + 1 < 2^32: no carry out
    fp_mad_even<N>(acc, a, bi);
    oth[N - 1] = ff::addc(oth[N - 1], 0);
}

// acc, oth (a row's frame, as above) += c * di: a second product in the same row (fp_mul_sum).
template <int N>
__device__ __forceinline__ void fp_row_more(u32* acc, u32* oth, const u32* c, u32 di) {
    fp_mad_even<N>(acc, c, di);
    oth[N - 1] = ff::addc(oth[N - 1], 0);
    fp_mad_odd<N>(oth, c, di);
}

template <class P>
__device__ __forceinline__ void fp_mul_row(u32* acc, u32* oth, const u32* a, u32 bi, const u32* pm) {
    fp_row_products<P::N>(acc, oth, a, bi);
    fp_mont_step<P>(acc, oth, pm);
}

// After row N - 1 (acc B, oth A), divided by 2^32: position k is A[k] + B[k + 1]; the sum (below
// 2p) reduced once.
template <class P>
__device__ __forceinline__ fp<P> fp_row_result(const u32* A, const u32* B) {
    const int N = P::N;
    fp<P> r;
    r.v[0] = ff::add_cc(A[0], B[1]);
#pragma unroll
    for (int k = 1; k < N - 1; k++) r.v[k] = ff::addc_cc(A[k], B[k + 1]);
    r.v[N - 1] = ff::addc(A[N - 1], 0);
    return fp_reduce_once(r);
}

// Montgomery product a*b*2^(-32N) mod p (CIOS: Koc, Acar, Kaliski 1996; N even), a < p (the top
// limb bound above), b any N-word value: the sum stays below a + p < 2p, so one conditional
// subtraction reduces it. Each row is four carry chains of 64-bit products (one IMAD.WIDE.U32.X
// each on sm_90) and three word additions. The sum kept by product parity (each array's word
// pairs stay register pairs) made the NTT 25% and the MSMs 30-33% faster than one chain of low
// halves and one of high halves (H200, benchmarks/results/2026-11-30-h200/stop10); over 2N + 1
// fixed words it took seven additions a row and a 64-bit carry: the frame shift and the dropped
// carries cut Fr's product from 98 to 54 ALU instructions (Fq 138 to 73; nvcc 13.0, sm_90), the
// NTT 10-11% and the G1 MSM 4% (H100, benchmarks/results/2026-12-05-stop46/call3).
template <class P>
__device__ __forceinline__ fp<P> fp_mul(const fp<P>& a, const fp<P>& b) {
    const int N = P::N;
    static_assert(N % 2 == 0, "fp_mul needs an even number of limbs");
    u32 A[N], B[N], pm[N];
#pragma unroll
    for (int j = 0; j < N; j++) pm[j] = P::p(j);
#pragma unroll
    for (int k = 0; k < N; k += 2) {   // row 0: the products alone
        ff::mul_wide(a.v[k], b.v[0], A[k], A[k + 1]);
        ff::mul_wide(a.v[k + 1], b.v[0], B[k], B[k + 1]);
    }
    fp_mont_step<P>(A, B, pm);
    fp_mul_row<P>(B, A, a.v, b.v[1], pm);
#pragma unroll
    for (int i = 2; i < N; i += 2) {
        fp_mul_row<P>(A, B, a.v, b.v[i], pm);
        fp_mul_row<P>(B, A, a.v, b.v[i + 1], pm);
    }
    return fp_row_result<P>(A, B);
}

// (a b + c d) 2^(-32N) mod p with one Montgomery reduction (lazy reduction: each CIOS row adds
// both products before its m p), N^2 + N wide products fewer than two fp_mul: Fq 432 against 576.
// With b a lazy difference u - v + p (fp_sub_lazy, below 2p) and d = p - z (fp_p_minus, in
// (0, p]) it is the XYZZ formulas' Y3 = a (u - v) - c z (fq.cuh fp_y3). Needs a, c < p and
// a b + c d < p 2^(32N) (so b + d <= 2^(32N)), for the result below 2p before its one
// subtraction; and 3p < 2^(32N) with the top words a[N-1] + c[N-1] + p[N-1] + 6 < 2^32, for the
// running sum (below a + c + p) and the words whose carries are not kept: true for Fq (top limb
// 0x1a0111ea), not for Fr (0x73eda753).
template <class P>
__device__ __forceinline__ fp<P> fp_mul_sum(const fp<P>& a, const fp<P>& b, const fp<P>& c, const fp<P>& d) {
    const int N = P::N;
    static_assert(N % 2 == 0, "fp_mul_sum needs an even number of limbs");
    u32 A[N], B[N], pm[N];
#pragma unroll
    for (int j = 0; j < N; j++) pm[j] = P::p(j);
#pragma unroll
    for (int k = 0; k < N; k += 2) {   // row 0: a b[0], then c d[0] added
        ff::mul_wide(a.v[k], b.v[0], A[k], A[k + 1]);
        ff::mul_wide(a.v[k + 1], b.v[0], B[k], B[k + 1]);
    }
    fp_row_more<N>(A, B, c.v, d.v[0]);
    fp_mont_step<P>(A, B, pm);
    fp_row_products<N>(B, A, a.v, b.v[1]);
    fp_row_more<N>(B, A, c.v, d.v[1]);
    fp_mont_step<P>(B, A, pm);
#pragma unroll
    for (int i = 2; i < N; i += 2) {
        fp_row_products<N>(A, B, a.v, b.v[i]);
        fp_row_more<N>(A, B, c.v, d.v[i]);
        fp_mont_step<P>(A, B, pm);
        fp_row_products<N>(B, A, a.v, b.v[i + 1]);
        fp_row_more<N>(B, A, c.v, d.v[i + 1]);
        fp_mont_step<P>(B, A, pm);
    }
    return fp_row_result<P>(A, B);
}

// a^2 * 2^(-32N) mod p: fp_mul's rows with row i's multiplicand a[i] + 2 sum_{j>i} a[j] 2^(32(j-i))
// (a[i]^2 plus the doubled cross products: Menezes et al., Handbook of Applied Cryptography, 14.16),
// whose words from i + 1 on are those of 2a, so a row is N - i products instead of N: N(N+1)/2 + N^2
// wide products against 2N^2 (Fq 222 against 288, Fr 100 against 128). Needs p < 2^(32N - 1) (true
// for Fr and Fq): 2a then fits in N words. Each row's products land at 2i and up, so position i is
// complete when row i's m is taken, as in fp_mul; the carry words take the same small values.
template <class P>
__device__ __forceinline__ fp<P> fp_sqr(const fp<P>& a) {
    const int N = P::N;
    static_assert(N % 2 == 0, "fp_sqr needs an even number of limbs");
    u32 X[2 * N + 1], Y[2 * N + 1], pm[N], d[N];
#pragma unroll
    for (int j = 0; j < N; j++) pm[j] = P::p(j);
#pragma unroll
    for (int j = 0; j < N; j++) d[j] = (a.v[j] << 1) | (j ? a.v[j - 1] >> 31 : 0u);  // 2a (a < 2^(32N - 1))
#pragma unroll
    for (int j = 0; j < 2 * N + 1; j++) X[j] = Y[j] = 0;
    u32 c = 0;
#pragma unroll
    for (int i = 0; i < N; i++) {
        u32 q[N];   // row i's multiplicand: a[i] at i, then 2a's words without a[i]'s top bit
#pragma unroll
        for (int j = 0; j < N; j++) q[j] = j == i ? a.v[i] : j == i + 1 ? a.v[j] << 1 : d[j];
        fp_chain<N>(X, q, a.v[i], i, i);                 // products from position 2i: even (X)
        if (i + 1 < N) fp_chain<N>(Y, q, a.v[i], i, i + 1);
        fp_mont_row<P>(X, Y, pm, i, c);
    }
    return fp_mont_result<P>(X, Y, c);
}

template <class P>
__device__ __forceinline__ fp<P> fp_to_mont(const fp<P>& a) { return fp_mul(fp<P>::r2(), a); }   // a: any N words

template <class P>
__device__ __forceinline__ fp<P> fp_from_mont(const fp<P>& a) { return fp_mul(fp<P>::raw_one(), a); }

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
