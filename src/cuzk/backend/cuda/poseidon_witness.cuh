// Witness values of neptune's circuit.rs poseidon_hash (what rust-fil-proofs' PoRep and PoSt
// circuits call), one hash per call of hash_one: every op value of cuzk.r1cs.poseidon._legacy_walk
// in its order (per S-box the input's allocation where it is not yet allocated, x^2, x^4, the
// output; the digest last), canonical. The same walk as the host core
// (src/cuzk/backend/poseidon_host.cpp, synthesis_poseidon: native), here over ff.cuh's Fr (8 x 32-bit
// limbs, Montgomery form x * 2^256, the same form as the host core's 4 x 64-bit limbs), so that
// one body runs in the kernel (poseidon_witness.cu, cuzk.backend.cuda.poseidon) and on the host
// with the PTX carry-chain model (tests/fixtures/poseidon_emu.cpp, tests/test_poseidon_gpu_host.py).
//
// Constants: one Montgomery-form array laid out as poseidon_host.cpp documents (the round-0 tag
// S-box constant, t*rf + rp compressed round constants, M (t*t, row-major m[i][j]), the
// pre-sparse matrix (t*t), per partial round w_hat (t) then v_rest (t - 1)); neptune's optimized
// constants (cuzk.hash.poseidon.optimized_constants, cuzk.backend.poseidon_host.constants).
#pragma once
#include "fr.cuh"

#ifdef __CUDACC__
#define POSW_FN __device__ __forceinline__
#else
#define POSW_FN inline
#endif

namespace posw {

const int MAX_T = 16;

// element i of an array of Fr elements (2 uint4 words each)
struct Arr {
    const uint4* p;
    POSW_FN fr_t operator[](u64 i) const { return fr_t::load(p, i); }
    POSW_FN Arr at(u64 i) const { return Arr{p + 2 * i}; }
};

struct Consts {
    int t, rf, rp;
    Arr c0, cr, mds, pre_sparse, sparse;
};

POSW_FN Consts consts_of(const uint4* m, int t, int rf, int rp) {
    Consts c;
    c.t = t; c.rf = rf; c.rp = rp;
    c.c0 = Arr{m};
    c.cr = c.c0.at(1);
    c.mds = c.cr.at((u64)t * rf + rp);
    c.pre_sparse = c.mds.at((u64)t * t);
    c.sparse = c.pre_sparse.at((u64)t * t);
    return c;
}

// state * m as a row vector (neptune product_mds_with_matrix): new[j] = sum_i s[i] m[i][j]
POSW_FN void mix(fr_t* s, Arr m, int t) {
    fr_t out[MAX_T];
    for (int j = 0; j < t; ++j) {
        fr_t acc = fr_t::zero();
        for (int i = 0; i < t; ++i) acc = fp_add(acc, fp_mul(s[i], m[(u64)i * t + j]));
        out[j] = acc;
    }
    for (int j = 0; j < t; ++j) s[j] = out[j];
}

// one sparse matrix (w_hat, v_rest): new[0] = sum_i w_hat[i] s[i], new[j] = s[j] + v_rest[j-1] s[0]
POSW_FN void mix_sparse(fr_t* s, Arr w_hat, Arr v_rest, int t) {
    fr_t first = fr_t::zero();
    for (int i = 0; i < t; ++i) first = fp_add(first, fp_mul(w_hat[i], s[i]));
    for (int j = 1; j < t; ++j) s[j] = fp_add(s[j], fp_mul(v_rest[j - 1], s[0]));
    s[0] = first;
}

// the op values of one hash, written canonical to consecutive elements of out
struct Rec {
    uint4* out;
    u64 k;
    POSW_FN void rec(const fr_t& v) { fp_from_mont(v).store(out, k++); }
};

// x -> x^5 (+ post when has_post), recording x^2, x^4 and the result
POSW_FN void sbox(fr_t& x, bool has_post, const fr_t& post, Rec& r) {
    const fr_t x2 = fp_mul(x, x);
    r.rec(x2);
    const fr_t x4 = fp_mul(x2, x2);
    r.rec(x4);
    x = fp_mul(x, x4);
    if (has_post) x = fp_add(x, post);
    r.rec(x);
}

// in: t - 1 canonical inputs (below r: the caller checks)
POSW_FN void hash_one(const Consts& c, Arr in, Rec& r) {
    const int t = c.t, half = c.rf / 2, rp = c.rp, rounds = c.rf + c.rp;
    fr_t s[MAX_T];
    for (int i = 1; i < t; ++i) s[i] = fp_to_mont(in[i - 1]);
    u64 off = 0;
    for (int rnd = 0; rnd < rounds; ++rnd) {
        const bool full = rnd < half || rnd >= half + rp, last = rnd == rounds - 1;
        if (rnd == 0) {   // inputs are allocated; pre-round keys added inside the S-box
            for (int i = 1; i < t; ++i) {
                s[i] = fp_add(s[i], c.cr[i]);
                sbox(s[i], true, c.cr[t + i], r);
            }
            s[0] = c.c0[0];   // the tag's S-box: a constant
            off = 2 * t;
        } else if (full) {
            for (int i = 0; i < t; ++i) {
                r.rec(s[i]);   // ensure_allocated
                sbox(s[i], !last, last ? s[i] : c.cr[off + i], r);
            }
            off += last ? 0 : t;
        } else {
            r.rec(s[0]);
            sbox(s[0], true, c.cr[off], r);
            off += 1;
        }
        if (rnd == half - 1)
            mix(s, c.pre_sparse, t);
        else if (half - 1 < rnd && rnd < half + rp) {
            const Arr sp = c.sparse.at((u64)(rnd - half) * (2 * t - 1));
            mix_sparse(s, sp, sp.at(t), t);
        } else
            mix(s, c.mds, t);
    }
    r.rec(s[1]);   // the digest
}

// hash h of kc: inputs at in + h (t - 1), values at out + h nops
POSW_FN void hash_at(const uint4* consts, int t, int rf, int rp, const uint4* in, u64 h, uint4* out, u64 nops) {
    const Consts c = consts_of(consts, t, rf, rp);
    Rec r{out + 2 * nops * h, 0};
    hash_one(c, Arr{in}.at(h * (t - 1)), r);
}

}  // namespace posw
