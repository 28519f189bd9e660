// The values of neptune's circuit.rs poseidon_hash (what rust-fil-proofs' PoRep and PoSt
// circuits call) for many hashes on the host: the witness core of CPU synthesis
// (cuzk.backend.poseidon_host, synthesis_poseidon: native). It computes exactly what
// cuzk.r1cs.poseidon._legacy_limbs computes with gmpy2: every op value of _legacy_walk in its
// order (the S-box inputs' allocations, x2, x4, y of each S-box, the digest last).
//
// Fr of BLS12-381 in Montgomery form, 4 x 64-bit limbs, products through unsigned __int128
// (CIOS multiplication: Koc, Acar, Kaliski, "Analyzing and comparing Montgomery multiplication
// algorithms", 1996, without its carry words as gnark-crypto's field code does). Every value is kept fully reduced (below r), so the canonical output is one
// Montgomery multiplication by 1 away.
#include <cstdint>
#include <cstring>

namespace {

typedef unsigned __int128 u128;
typedef uint64_t fr[4];

// r, 2^256 mod r, 2^512 mod r, -r^-1 mod 2^64; cuzk.backend.poseidon_host checks them against
// values computed in Python when it loads the library
const uint64_t P[4] = {0xffffffff00000001ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull, 0x73eda753299d7d48ull};
const uint64_t R1[4] = {0x00000001fffffffeull, 0x5884b7fa00034802ull, 0x998c4fefecbc4ff5ull, 0x1824b159acc5056full};
const uint64_t R2[4] = {0xc999e990f3f29c6dull, 0x2b6cedcb87925c23ull, 0x05d314967254398full, 0x0748d9d99f59ff11ull};
const uint64_t INV = 0xfffffffeffffffffull;

inline bool below_p(const uint64_t a[4]) {
    for (int i = 3; i >= 0; --i)
        if (a[i] != P[i]) return a[i] < P[i];
    return false;
}

// a − P when a ≥ P (a < 2P, no fifth word: P < 2^255); 64-bit borrows, as mac's carries
inline void reduce_once(uint64_t a[4]) {
    uint64_t d[4], borrow = 0;
    for (int i = 0; i < 4; ++i) {
        const uint64_t x = a[i] - P[i];
        const uint64_t b = (a[i] < P[i]) | (x < borrow);
        d[i] = x - borrow;
        borrow = b;
    }
    if (!borrow) std::memcpy(a, d, 32);
}

inline void add(uint64_t out[4], const uint64_t a[4], const uint64_t b[4]) {
    uint64_t carry = 0;
    for (int i = 0; i < 4; ++i) {
        const uint64_t x = a[i] + carry;
        const uint64_t s = x + b[i];
        carry = (x < carry) | (s < x);
        out[i] = s;
    }
    reduce_once(out);   // a + b < 2P < 2^256: no carry out
}

// lo word of a·b + t + carry; carry ← its hi word (no overflow: (2^64 − 1)^2 + 2(2^64 − 1) < 2^128).
// Two 64-bit additions with their carries, not u128 additions: g++ spills those to the stack.
inline uint64_t mac(uint64_t t, uint64_t a, uint64_t b, uint64_t &carry) {
    u128 p = (u128)a * b;
    uint64_t lo = (uint64_t)p, hi = (uint64_t)(p >> 64);
    lo += t;
    hi += lo < t;
    lo += carry;
    hi += lo < carry;
    carry = hi;
    return lo;
}

// out = a·b·2^-256 mod P, a, b < P → out < P (out may alias a or b). CIOS without the extra
// carry words, valid as P's top word is below 2^63 − 1 (gnark-crypto's "no-carry" variant).
inline void mul(uint64_t out[4], const uint64_t a[4], const uint64_t b[4]) {
    const uint64_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
    uint64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0;
    for (int i = 0; i < 4; ++i) {
        const uint64_t bi = b[i];
        uint64_t A = 0, C = 0;
        t0 = mac(t0, a0, bi, A);
        const uint64_t m = t0 * INV;
        mac(t0, m, P[0], C);
        t1 = mac(t1, a1, bi, A);
        t0 = mac(t1, m, P[1], C);
        t2 = mac(t2, a2, bi, A);
        t1 = mac(t2, m, P[2], C);
        t3 = mac(t3, a3, bi, A);
        t2 = mac(t3, m, P[3], C);
        t3 = C + A;
    }
    out[0] = t0, out[1] = t1, out[2] = t2, out[3] = t3;   // < 2P
    reduce_once(out);
}

// out = a·2^-256 mod P (out of Montgomery form): mul's reduction steps alone, b = 1
inline void from_mont(uint64_t out[4], const uint64_t a[4]) {
    uint64_t t0 = a[0], t1 = a[1], t2 = a[2], t3 = a[3];
    for (int i = 0; i < 4; ++i) {
        const uint64_t m = t0 * INV;
        uint64_t C = 0;
        mac(t0, m, P[0], C);
        t0 = mac(t1, m, P[1], C);
        t1 = mac(t2, m, P[2], C);
        t2 = mac(t3, m, P[3], C);
        t3 = C;
    }
    out[0] = t0, out[1] = t1, out[2] = t2, out[3] = t3;   // (a + m·P)/2^256 ≤ P
    reduce_once(out);
}

inline void copy(uint64_t out[4], const uint64_t a[4]) { std::memcpy(out, a, 32); }

const int MAX_T = 16;

struct Consts {   // pointers into one Montgomery-form array, as poseidon_legacy_limbs documents
    int t, rf, rp;
    const fr *c0, *cr, *mds, *pre_sparse, *sparse;
};

// state · m as a row vector (neptune product_mds_with_matrix): new[j] = Σ_i s[i]·m[i][j]
inline void mix(fr s[], const fr *m, int t) {
    fr out[MAX_T];
    for (int j = 0; j < t; ++j) {
        fr acc = {0, 0, 0, 0}, p;
        for (int i = 0; i < t; ++i) {
            mul(p, s[i], m[i * t + j]);
            add(acc, acc, p);
        }
        copy(out[j], acc);
    }
    std::memcpy(s, out, sizeof(fr) * t);
}

// one sparse matrix (w_hat, v_rest): new[0] = Σ_i w_hat[i]·s[i], new[j] = s[j] + v_rest[j−1]·s[0]
inline void mix_sparse(fr s[], const fr *w_hat, const fr *v_rest, int t) {
    fr first = {0, 0, 0, 0}, p;
    for (int i = 0; i < t; ++i) {
        mul(p, w_hat[i], s[i]);
        add(first, first, p);
    }
    for (int j = 1; j < t; ++j) {
        mul(p, v_rest[j - 1], s[0]);
        add(s[j], s[j], p);
    }
    copy(s[0], first);
}

struct Recorder {
    uint64_t *out;
    void rec(const uint64_t v[4]) {   // canonical, out of Montgomery form
        from_mont(out, v);
        out += 4;
    }
};

// Records nothing: hash_one's state is the digest (s[1]) at its end, taken by the caller.
struct NoRecorder {
    void rec(const uint64_t *) {}
};

// x → x^5 (+ post), recording x2, x4 and the result (the caller records x's own allocation)
template <class Rec>
inline void sbox(uint64_t x[4], const uint64_t *post, Rec &r) {
    fr x2, x4;
    mul(x2, x, x);
    r.rec(x2);
    mul(x4, x2, x2);
    r.rec(x4);
    mul(x, x, x4);
    if (post) add(x, x, post);
    r.rec(x);
}

// One hash's walk; returns its digest (Montgomery form), recorded last.
template <class Rec>
void hash_one(const Consts &c, const uint64_t *in, Rec &r, uint64_t digest[4]) {
    const int t = c.t, half = c.rf / 2, rp = c.rp, rounds = c.rf + c.rp;
    fr s[MAX_T];
    for (int i = 1; i < t; ++i) mul(s[i], in + 4 * (i - 1), R2);
    int off = 0;
    for (int rnd = 0; rnd < rounds; ++rnd) {
        const bool full = rnd < half || rnd >= half + rp, last = rnd == rounds - 1;
        if (rnd == 0) {   // inputs are allocated; pre-round keys added inside the S-box
            for (int i = 1; i < t; ++i) {
                add(s[i], s[i], c.cr[i]);
                sbox(s[i], c.cr[t + i], r);
            }
            copy(s[0], *c.c0);   // the tag's S-box: a constant
            off = 2 * t;
        } else if (full) {
            for (int i = 0; i < t; ++i) {
                r.rec(s[i]);   // ensure_allocated
                sbox(s[i], last ? nullptr : c.cr[off + i], r);
            }
            off += last ? 0 : t;
        } else {
            r.rec(s[0]);
            sbox(s[0], c.cr[off], r);
            off += 1;
        }
        if (rnd == half - 1)
            mix(s, c.pre_sparse, t);
        else if (half - 1 < rnd && rnd < half + rp) {
            const fr *sp = c.sparse + (size_t)(rnd - half) * (2 * t - 1);
            mix_sparse(s, sp, sp + t, t);
        } else
            mix(s, c.mds, t);
    }
    r.rec(s[1]);   // the digest
    copy(digest, s[1]);
}

// The checks and the constants of both entry points: 0 when done (c and m set; delete[] m after),
// else what they return (the first input not below r, -2 or -3).
int64_t prepare(const uint64_t *consts, uint32_t t, uint32_t rf, uint32_t rp, const uint64_t *in, uint64_t kc,
                Consts &c, fr *&m) {
    if (t < 2 || t > (uint32_t)MAX_T || rf < 2 || rf % 2) return -3;
    const uint64_t n = (uint64_t)kc * (t - 1);
    for (uint64_t i = 0; i < n; ++i)
        if (!below_p(in + 4 * i)) return (int64_t)i;
    const uint64_t nc = 1 + (uint64_t)t * rf + rp + 2ull * t * t + (uint64_t)rp * (2 * t - 1);
    m = new fr[nc];
    for (uint64_t i = 0; i < nc; ++i) {
        if (!below_p(consts + 4 * i)) {
            delete[] m;
            return -2;
        }
        mul(m[i], consts + 4 * i, R2);
    }
    c = Consts{(int)t, (int)rf, (int)rp, m, m + 1, nullptr, nullptr, nullptr};
    c.mds = c.cr + (size_t)t * rf + rp;
    c.pre_sparse = c.mds + (size_t)t * t;
    c.sparse = c.pre_sparse + (size_t)t * t;
    return 0;
}

}  // namespace

extern "C" {

// r, 2^256 mod r, 2^512 mod r (4 limbs each) and -r^-1 mod 2^64: 13 words, for the loader's check
void poseidon_host_field(uint64_t *out) {
    std::memcpy(out, P, 32);
    std::memcpy(out + 4, R1, 32);
    std::memcpy(out + 8, R2, 32);
    out[12] = INV;
}

// Ops (values) per hash of width t: 3(t − 1) + 4(t(rf − 1) + rp) + 1.
uint64_t poseidon_host_nops(uint32_t t, uint32_t rf, uint32_t rp) {
    return 3ull * (t - 1) + 4ull * (t * (rf - 1ull) + rp) + 1;
}

// kc hashes: in (kc, t − 1, 4) canonical limbs → out (kc, nops, 4) canonical limbs.
// consts: canonical limbs, in this order: the tag's round-0 S-box constant (tag + pre[0])^5 +
// post[0] (1), the compressed round constants (t·rf + rp), M (t·t, row-major m[i][j]), the
// pre-sparse matrix (t·t), per partial round w_hat (t) then v_rest (t − 1).
// Returns −1 when done; the flat index (hash·(t − 1) + position) of the first input not below r
// (nothing written); −2 for a constant not below r, −3 for t outside 2..16 or an odd rf.
int64_t poseidon_host_legacy(const uint64_t *consts, uint32_t t, uint32_t rf, uint32_t rp,
                             const uint64_t *in, uint64_t kc, uint64_t *out) {
    Consts c;
    fr *m = nullptr;
    if (const int64_t rc = prepare(consts, t, rf, rp, in, kc, c, m)) return rc;
    const uint64_t nops = poseidon_host_nops(t, rf, rp);
    for (uint64_t h = 0; h < kc; ++h) {
        Recorder r{out + 4 * nops * h};
        fr digest;
        hash_one(c, in + 4 * (t - 1) * h, r, digest);
    }
    delete[] m;
    return -1;
}

// The same hashes' digests alone (the last op value of each): out (kc, 4) canonical limbs. The op
// values are neither converted nor stored (Merkle checks, and synthesis that keeps the inputs).
// Returns as poseidon_host_legacy.
int64_t poseidon_host_digests(const uint64_t *consts, uint32_t t, uint32_t rf, uint32_t rp,
                              const uint64_t *in, uint64_t kc, uint64_t *out) {
    Consts c;
    fr *m = nullptr;
    if (const int64_t rc = prepare(consts, t, rf, rp, in, kc, c, m)) return rc;
    NoRecorder r;
    for (uint64_t h = 0; h < kc; ++h) {
        fr digest;
        hash_one(c, in + 4 * (t - 1) * h, r, digest);
        from_mont(out + 4 * h, digest);
    }
    delete[] m;
    return -1;
}

}  // extern "C"
