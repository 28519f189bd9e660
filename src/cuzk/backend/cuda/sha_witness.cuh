// Witness of one SHA-256 compression gadget instance (cuzk.r1cs.sha256._WordWitness, word for
// word): every new aux bit of the compression, as the one-byte value slots of the witness
// (cuzk.r1cs.values.ValueStore: a bit's slot is its value), written where block order puts it.
//
// Block order (cuzk.r1cs.sha256._WordWitness._commit): a call of k instances allocates, op after
// op, a block per op of k·popcount(mask) bits, instance-major; bit r (r-th set column of the
// mask, ascending) of instance `lane` of op j is at  base + Σ_{j'<j} k·popcount(mask_j') +
// lane·popcount(mask_j) + r.  The masks depend only on which input columns are constants or
// negations (the circuit's shape, the same in all k lanes), so every lane of a call runs the same
// branches. A word is (v: value, c: constant columns, n: negated columns); a constant column's
// value is its bit of v. No table: positions follow from k, the lane and the masks.
//
// Built by NVRTC (sha_witness.cu, through cuzk.backend.cuda.witness) and by g++ for the host
// (sha_witness_host.cpp, cuzk.backend.cuda.witness.host_core; tests/test_sha_witness_host.py
// compares it with the CPU path).
#pragma once

// SHAW_FN: device functions under CUDA (NVRTC, nvcc), plain inline functions for g++: one body.
#ifdef __CUDACC__
#define SHAW_FN __device__ __forceinline__
#define SHAW_CONST __constant__
#else
#define SHAW_FN inline
#define SHAW_CONST static
#endif

typedef unsigned int u32;
typedef unsigned long long u64;

namespace shaw {

#ifdef __CUDACC__
SHAW_FN int popc64(u64 x) { return __popcll(x); }
SHAW_FN int clz64(u64 x) { return __clzll(x); }
#else
inline int popc64(u64 x) { return __builtin_popcountll(x); }
inline int clz64(u64 x) { return x ? __builtin_clzll(x) : 64; }
#endif

static const u32 MASK32 = 0xFFFFFFFFu;

struct Word {
    u64 v;   // < 2^32, except an addition's total (< 2^35) while it is allocated
    u32 c;   // constant columns
    u32 n;   // negated columns
};

// One compression's inputs in the job table (host and device share this layout, 208 bytes: cuzk.backend.cuda.witness.JOB_DTYPE):
// base: aux index of the call's first new bit (relative to the slots array given); k: lanes;
// first: the job's first lane in the flat lane numbering (lanes of job j are first..first+k-1);
// masks of the 8 state and 16 message words. Values come from a separate (lanes, 24) u32 array.
struct Job {
    u64 base;
    u32 k;
    u32 first;
    u32 hc[8], hn[8], wc[16], wn[16];
};

// Writes the new bits of one lane: pos counts the bits of all k lanes so far (from base). Bits at
// limit (the slots' length) or past it are not written: a job table read from a file cannot
// write outside the array (its bits are then wrong, and the proof fails its verification).
struct Emit {
    unsigned char* slots;
    u64 base;
    u64 pos;
    u32 k;
    u32 lane;
    u64 limit;
    SHAW_FN void alloc(u64 v, u64 mask) {
        const u32 m = (u32)popc64(mask);
        const u64 at = base + pos + (u64)lane * m;
        pos += (u64)k * m;
        if (at >= limit) return;   // none to write (limit 0: the words alone, sha_host.host_core)
        u32 r = 0;
        for (u32 col = 0; col < 64 && (mask >> col); ++col) {
            if ((mask >> col) & 1) {
                if (at + r < limit) slots[at + r] = (unsigned char)((v >> col) & 1);
                ++r;
            }
        }
    }
};

SHAW_FN u32 rot_mask(u32 m, int n) { return (m >> n) | (m << (32 - n)); }

SHAW_FN Word rotr(Word w, int n) {
    return Word{(u64)rot_mask((u32)w.v, n), rot_mask(w.c, n), rot_mask(w.n, n)};
}

SHAW_FN Word shr(Word w, int n) {
    return Word{w.v >> n, (w.c >> n) | (((1u << n) - 1) << (32 - n)), w.n >> n};
}

SHAW_FN Word xor2(Emit& e, Word x, Word y) {
    const u64 v = x.v ^ y.v;
    const u32 nw = ~(x.c | y.c);
    if (nw) e.alloc(v ^ (u64)((x.n ^ y.n) & nw), nw);   // a new bit is the xor of the variables
    const u32 c = x.c & y.c;
    const u32 ones = ((u32)x.v & x.c) ^ ((u32)y.v & y.c);   // a constant 1 negates the other
    return Word{v, c, (x.n ^ y.n ^ ones) & ~c};
}

SHAW_FN Word xor3(Emit& e, Word x, Word y, Word z) { return xor2(e, xor2(e, x, y), z); }

SHAW_FN int bit_length(u64 x) { return x ? 64 - clz64(x) : 0; }

// UInt32::addmany: nbits = bit length of cnt·(2^32 − 1) new bits of the total (sum, carries)
SHAW_FN Word add(Emit& e, const Word* ops, int cnt) {
    u64 total = 0;
    bool allc = true;
    for (int i = 0; i < cnt; ++i) {
        total += ops[i].v;
        allc = allc && ops[i].c == MASK32;
    }
    if (allc) return Word{total & MASK32, MASK32, 0};
    e.alloc(total, (1ull << bit_length((u64)cnt * MASK32)) - 1);
    return Word{total & MASK32, 0, 0};
}

// An operand of an and: its literal values, constant mask and constant-0 mask, negated or not.
struct Lit {
    u64 v;
    u32 c, zero;
};

SHAW_FN Lit lit(Word w, bool neg) {
    const u32 one = (u32)w.v & w.c;
    if (neg) return Lit{w.v ^ MASK32, w.c, one};
    return Lit{w.v, w.c, w.c & ~one};
}

struct AndCase {
    u32 mask;
    Word x;
    bool xneg;
    Word y;
    bool yneg;
};

// One `and` over the columns of every case; returns the mask of constant results.
SHAW_FN u32 via_and(Emit& e, const AndCase* cs, int cnt) {
    u32 nw = 0, cst = 0;
    u64 v = 0;
    for (int i = 0; i < cnt; ++i) {
        if (!cs[i].mask) continue;
        const Lit x = lit(cs[i].x, cs[i].xneg), y = lit(cs[i].y, cs[i].yneg);
        const u32 m = cs[i].mask & ~x.c & ~y.c;
        if (m) {
            v |= x.v & y.v & m;
            nw |= m;
        }
        cst |= cs[i].mask & ((x.c & y.c) | x.zero | y.zero);
    }
    if (nw) e.alloc(v, nw);
    return cst;
}

// bellman's case analysis: all three constant, then (operand, constant value) tests in turn
SHAW_FN u32 cases(const Word* w3, const int (*order)[2], int cnt, u32* out) {
    const u32 allc = w3[0].c & w3[1].c & w3[2].c;
    u32 rest = ~allc;
    for (int i = 0; i < cnt; ++i) {
        const Word& w = w3[order[i][0]];
        const u32 one = (u32)w.v & w.c;
        const u32 m = rest & (order[i][1] ? one : w.c & ~one);
        out[i] = m;
        rest &= ~m;
    }
    out[cnt] = rest;   // the general columns
    return allc;
}

SHAW_FN Word ch(Emit& e, Word a, Word b, Word c) {
    const Word w3[3] = {a, b, c};
    const int order[5][2] = {{0, 0}, {1, 0}, {2, 0}, {2, 1}, {1, 1}};
    u32 m[6];
    const u32 allc = cases(w3, order, 5, m);
    const AndCase ac[4] = {{m[1], a, true, c, false}, {m[2], a, false, b, false},
                           {m[3], a, false, b, true}, {m[4], a, true, c, true}};
    const u32 cst = allc | (m[0] & c.c) | via_and(e, ac, 4);
    const u64 v = (a.v & b.v) ^ (~a.v & MASK32 & c.v);
    if (m[5]) e.alloc(v, m[5]);
    return Word{v, cst, 0};   // only added: its negations do not count
}

SHAW_FN Word maj(Emit& e, Word a, Word b, Word c) {
    const Word w3[3] = {a, b, c};
    const int order[6][2] = {{0, 0}, {1, 0}, {2, 0}, {2, 1}, {1, 1}, {0, 1}};
    u32 m[7];
    const u32 allc = cases(w3, order, 6, m);
    const AndCase ac[6] = {{m[0], b, false, c, false}, {m[1], a, false, c, false},
                           {m[2], a, false, b, false}, {m[3], a, true, b, true},
                           {m[4], a, true, c, true}, {m[5], b, true, c, true}};
    const u32 cst = allc | via_and(e, ac, 6);
    const u64 bc = b.v & c.v;
    const u64 v = (a.v & b.v) ^ (a.v & c.v) ^ bc;
    if (m[6]) {
        e.alloc(bc, m[6]);   // b ∧ c, then maj (bellman's order in block order's blocks)
        e.alloc(v, m[6]);
    }
    return Word{v, cst, 0};
}

// FIPS 180-4 4.2.2 (cuzk.r1cs.sha256.K): constant memory on the device (the round index is
// the same in every lane)
SHAW_CONST const u32 ROUND_K[64] = {
        0x428A2F98u, 0x71374491u, 0xB5C0FBCFu, 0xE9B5DBA5u, 0x3956C25Bu, 0x59F111F1u, 0x923F82A4u, 0xAB1C5ED5u,
        0xD807AA98u, 0x12835B01u, 0x243185BEu, 0x550C7DC3u, 0x72BE5D74u, 0x80DEB1FEu, 0x9BDC06A7u, 0xC19BF174u,
        0xE49B69C1u, 0xEFBE4786u, 0x0FC19DC6u, 0x240CA1CCu, 0x2DE92C6Fu, 0x4A7484AAu, 0x5CB0A9DCu, 0x76F988DAu,
        0x983E5152u, 0xA831C66Du, 0xB00327C8u, 0xBF597FC7u, 0xC6E00BF3u, 0xD5A79147u, 0x06CA6351u, 0x14292967u,
        0x27B70A85u, 0x2E1B2138u, 0x4D2C6DFCu, 0x53380D13u, 0x650A7354u, 0x766A0ABBu, 0x81C2C92Eu, 0x92722C85u,
        0xA2BFE8A1u, 0xA81A664Bu, 0xC24B8B70u, 0xC76C51A3u, 0xD192E819u, 0xD6990624u, 0xF40E3585u, 0x106AA070u,
        0x19A4C116u, 0x1E376C08u, 0x2748774Cu, 0x34B0BCB5u, 0x391C0CB3u, 0x4ED8AA4Au, 0x5B9CCA4Fu, 0x682E6FF3u,
        0x748F82EEu, 0x78A5636Fu, 0x84C87814u, 0x8CC70208u, 0x90BEFFFAu, 0xA4506CEBu, 0xBEF9A3F7u, 0xC67178F2u};

// FIPS 180-4 6.2.2 in bellman's order (cuzk.r1cs.sha256._compress_steps): schedule, rounds with
// the e and a additions deferred to where they are used (sums of 6 and 7 words), final additions.
// H, W: the lane's input words; out: the 8 new state words (values).
SHAW_FN void compress(Emit& e, const Word* H, const Word* W, u32* out) {
    Word w[64];
    for (int i = 0; i < 16; ++i) w[i] = W[i];
    for (int i = 16; i < 64; ++i) {
        Word x = w[i - 15];
        const Word s0 = xor3(e, rotr(x, 7), rotr(x, 18), shr(x, 3));
        x = w[i - 2];
        const Word s1 = xor3(e, rotr(x, 17), rotr(x, 19), shr(x, 10));
        const Word ops[4] = {w[i - 16], s0, w[i - 7], s1};
        w[i] = add(e, ops, 4);
    }
    Word b = H[1], c = H[2], d = H[3], f = H[5], g = H[6], h = H[7];
    Word ea[7], aa[8];   // deferred sums: e = temp1 + [d] (6 words), a = temp1 + [s0, maj] (7)
    int ne_ = 0, na_ = 0;
    Word e0 = H[4], a0 = H[0];   // e and a while they are words (round 0)
    for (int i = 0; i < 64; ++i) {
        const Word ne = ne_ ? add(e, ea, ne_) : e0;
        const Word s1 = xor3(e, rotr(ne, 6), rotr(ne, 11), rotr(ne, 25));
        const Word chw = ch(e, ne, f, g);
        const Word t1[5] = {h, s1, chw, Word{ROUND_K[i], MASK32, 0}, w[i]};
        const Word na = na_ ? add(e, aa, na_) : a0;
        const Word s0 = xor3(e, rotr(na, 2), rotr(na, 13), rotr(na, 22));
        const Word mj = maj(e, na, b, c);
        h = g;
        g = f;
        f = ne;
        for (int j = 0; j < 5; ++j) ea[j] = aa[j] = t1[j];
        ea[5] = d;
        ne_ = 6;
        d = c;
        c = b;
        b = na;
        aa[5] = s0;
        aa[6] = mj;
        na_ = 7;
    }
    aa[7] = H[0];
    ea[6] = H[4];
    const Word last[8] = {H[0], b, c, d, H[4], f, g, h};   // the other operand of H[j]'s addition
    for (int j = 0; j < 8; ++j) {   // in order: a (8 operands), b, c, d, e (7), f, g, h
        const Word pair[2] = {H[j], last[j]};
        out[j] = (u32)(j == 0 ? add(e, aa, 8) : j == 4 ? add(e, ea, 7) : add(e, pair, 2)).v;
    }
}

// One lane (flat index t of `lanes`) of the job table: job_of[t] names its job; vals[t] holds
// its 8 state then 16 message word values; writes its bits into slots (below limit) and its
// new state into outw[t] (8 values).
SHAW_FN void sha_witness_lane(const Job* jobs, const u32* job_of, const u32* vals,
                                                 unsigned char* slots, u64 limit, u32* outw, u64 t) {
    const Job& jb = jobs[job_of[t]];
    const u32* in = vals + 24 * t;
    Word H[8], W[16];
    for (int i = 0; i < 8; ++i) H[i] = Word{in[i], jb.hc[i], jb.hn[i]};
    for (int i = 0; i < 16; ++i) W[i] = Word{in[8 + i], jb.wc[i], jb.wn[i]};
    Emit e{slots, jb.base, 0, jb.k, (u32)(t - jb.first), limit};
    compress(e, H, W, outw + 8 * t);
}

}  // namespace shaw
