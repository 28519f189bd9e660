"""Poseidon (neptune's, over BLS12-381 Fr) and Poseidon Merkle inclusion as vectorized R1CS gadgets.

**Hash** (:func:`poseidon_hash`). The permutation is :mod:`cuzk.hash.poseidon` (neptune's constants:
width t = arity + 1, x^5, R_F = 8, R_P from neptune's table, Grain round constants, Cauchy MDS,
state ``[domain tag, x_1 … x_arity]``, digest = state[1]) written as constraints the way neptune's
``circuit2::poseidon_hash_allocated`` costs it (``src/circuit2.rs`` in filecoin-project/neptune,
later argumentcomputer/neptune):

- every S-box ``y = x^5`` costs **3** constraints and 3 new variables ``x2 = x·x``,
  ``x4 = x2·x2``, ``y = x4·x``, where ``x`` is the round-constant-added state element as a linear
  combination over earlier variables (free);
- the MDS multiplication and the round-constant additions are never allocated: each state element
  stays a linear combination (constant term on ``ONE``) of the hash inputs and S-box outputs;
- full rounds apply t S-boxes, partial rounds one (state[0]); the domain tag's S-box in round 0 has
  a constant input and is still paid for (neptune pays for it too);
- the digest (state[1] after the last round, a linear combination) is allocated as a new variable
  with one more constraint ``digest_lc · 1 = out``.

Constraints per hash: ``3·(t·R_F + R_P) + 1`` — **238** (arity 2), **388** (arity 8), **460**
(arity 11). neptune's test ``test_poseidon_hash`` in ``src/circuit2.rs`` asserts 237 (U2), 387 (U8)
for ``poseidon_hash_num`` and one more for ``poseidon_hash_allocated``, i.e. the same numbers.
That default (``legacy=False``) form uses the plain rounds; its linear combinations are ours.

**legacy=True: neptune's ``circuit.rs`` exactly** (what rust-fil-proofs' PoRep and PoSt circuits
call): the same variables, constraints, linear combinations and coefficients, in neptune's order.
It runs on neptune's rewritten constants (:func:`cuzk.hash.poseidon.optimized_constants`:
compressed round constants, ``pre_sparse_matrix`` after the last first-half full round, one sparse
matrix per partial round); state elements are linear combinations (``Elt::Num``) until an S-box
allocates them (``ensure_allocated``: ``lc · ONE = x``); an S-box is ``x2 = x·x`` (first round:
``(x + pre)²``), ``x4 = x2·x2``, ``y = x4·x + post`` (C = y − post·ONE), so the allocated y carries
the next round's compressed key; the tag's first-round S-box is a constant; the digest is state[1]
allocated. 311 / 505 / 598 constraints for arities 2 / 8 / 11 (rust-fil-proofs' tests).

**Merkle inclusion** (:func:`merkle_path_poseidon`). Per level, the current node is inserted among
the level's arity − 1 siblings at the position given by the level's index bits (little-endian),
exactly as rust-fil-proofs' ``insert`` gadget does it
(``storage-proofs-core/src/gadgets/insertion.rs``): each output position is a chain of ``pick``
gadgets ``c = cond ? a : b`` (one constraint each: ``(b − a)·cond = b − c``).

- arity 2 (``insert_2``): 2 picks → 2 constraints;
- arity 4 (``insert_4``): 2 picks per position → 8 constraints;
- arity 8 (``insert_8``): ``b0 nor b1`` and ``b0 and b1`` as two new bits (``(1 − b0)·(1 − b1) = n``,
  ``b0·b1 = a``), then 20 picks → **22** constraints;
- any other power of two: rust-fil-proofs' general algorithm (per position, a binary ``select``
  tree over the index bits, most significant bit first) with one improvement: a pick whose two
  candidates are the same node is skipped (rust-fil-proofs pays size·(size − 1) constraints).

The inserted arity values are new variables and are hashed with :func:`poseidon_hash` under the
Merkle tag 2^arity − 1. Per level of an 8-ary tree: 22 + 388 = **410** constraints (2-ary:
2 + 238 = 240). The index bits must be boolean; they are not constrained here (the caller
decomposes the challenge with ``num_to_bits``, which adds booleanity), unless
``enforce_boolean=True``.

**Witness.** Values are computed for all k instances at once, one vectorized step per round
(object arrays of ``gmpy2.mpz`` mod r, as :mod:`cuzk.hash.poseidon`). The constraint template of a
hash (which earlier variables, with which coefficients, feed each S-box) depends only on
(arity, preimage length, domain tag, strength) and is computed once per process and cached.
Within :func:`native_poseidon` (``synthesis_poseidon: native``, ``cuzk.r1cs.poseidon_path``) the
legacy hashes' values come from the C++ core ``cuzk.backend.poseidon_host`` instead: the same
limbs, about ten times sooner.
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass

import numpy as np

from ..backend import poseidon_host
from ..backend.native import NativeBuildError
from ..field import FR, ComputedRows, from_limbs, limbs_below_modulus, to_limbs
from ..hash import poseidon as _nat
from .gadgets import boolean
from ..backend.native import built_once
from .parallel import active_workers, map_rows
from .system import LC, ConstraintSystem, R, lc

__all__ = [
    "hash_constraints",
    "insert",
    "insert_constraints",
    "merkle_path_poseidon",
    "gpu_poseidon",
    "native_poseidon",
    "PoseidonWalks",
    "poseidon_hash",
    "values_computed_later",
]

_P = _nat._P  # r as gmpy2.mpz


def _refs(x) -> np.ndarray:
    return np.asarray(x, dtype=np.int64)




# --------------------------------------------------------------------------------------------
# the symbolic template of one hash
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Template:
    """Constraint template of one Poseidon hash.

    Slots number the variables a hash refers to: slot j < n is input j, slot n + s is the output y
    of S-box s (S-boxes numbered in evaluation order). ``sboxes[r]`` lists round r's S-boxes as
    ``(element, slots, coeffs, const)``: the S-box input is ``const·ONE + Σ coeffs[i]·slot[slots[i]]``
    (slots increasing, coeffs non-zero, canonical ints). ``out`` is the digest's linear combination.
    """

    n: int
    nslots: int
    sboxes: tuple
    out: tuple


@functools.lru_cache(maxsize=None)
def _template(arity: int, n: int, tag: int, strength: str) -> _Template:
    p = _nat.params(arity, strength)
    t = p.t
    rc = [[int(c) for c in row] for row in p.round_constants_array()]
    mds = [[int(v) for v in row] for row in p.mds_array()]
    # state element i = c0[i] + Σ_j C[i][j]·slot[live[j]]
    live = list(range(n))
    C = [[0] * n for _ in range(t)]
    for j in range(n):
        C[1 + j][j] = 1
    c0 = [0] * t
    c0[0] = tag % R
    nslots = n
    rounds = []
    for r in range(p.rounds):
        c0 = [(c0[i] + rc[r][i]) % R for i in range(t)]
        rows = range(t) if p.is_full_round(r) else (0,)
        rnd = []
        for i in rows:
            nz = [j for j in range(len(live)) if C[i][j]]
            rnd.append((i, np.array([live[j] for j in nz], dtype=np.int64),
                        tuple(C[i][j] for j in nz), c0[i]))
        # S-box outputs replace their rows: unit vectors on new slots (constants stay constants)
        for i, *_ in rnd:
            live.append(nslots)
            for row in C:
                row.append(0)
            C[i] = [0] * len(live)
            C[i][-1] = 1
            c0[i] = 0
            nslots += 1
        # MDS: new C = M·C, new c0 = M·c0; then drop slots no element refers to any more
        C = [[sum(mds[i][m] * C[m][j] for m in range(t)) % R for j in range(len(live))] for i in range(t)]
        c0 = [sum(mds[i][m] * c0[m] for m in range(t)) % R for i in range(t)]
        keep = [j for j in range(len(live)) if any(C[i][j] for i in range(t))]
        live = [live[j] for j in keep]
        C = [[row[j] for j in keep] for row in C]
        rounds.append(tuple(rnd))
    nz = [j for j in range(len(live)) if C[1][j]]
    out = (np.array([live[j] for j in nz], dtype=np.int64), tuple(C[1][j] for j in nz), c0[1])
    return _Template(n=n, nslots=nslots, sboxes=tuple(rounds), out=out)


def hash_constraints(arity: int, strength: str = _nat.STANDARD, legacy: bool = False) -> int:
    """Constraints of one :func:`poseidon_hash` of ``arity`` inputs.

    circuit2 form: 3·(t·R_F + R_P) + 1 (238, 388, 460 for arities 2, 8, 11). Legacy form
    (neptune ``circuit.rs``): 3·(t − 1) + 4·(t·(R_F − 1) + R_P) + 1 (311, 505, 598); rust-fil-proofs'
    ``hash2_circuit`` and ``hash_single_column`` tests assert 311 and 598.
    """
    if legacy:   # one value per constraint: what the native core returns per hash
        return poseidon_host.legacy_nops(arity, strength)
    rf, rp = _nat.round_numbers(arity, strength)
    return 3 * ((arity + 1) * rf + rp) + 1


def _lc_of(cs: ConstraintSystem, slot_refs: np.ndarray, slots, coeffs, const) -> LC:
    k = slot_refs.shape[0]
    out = LC.zero()
    if const:
        out = lc(cs.one(k), const)  # ONE first: rows stay in column order
    if len(slots):
        out = out + lc(slot_refs[:, slots], coeffs)
    return out


# --------------------------------------------------------------------------------------------
# the hash gadget
# --------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------
# neptune circuit.rs (what rust-fil-proofs builds): an op list over slots
# --------------------------------------------------------------------------------------------

_ONE = -1  # the slot of the constant ONE in a linear combination {slot: coeff}


@dataclass(frozen=True)
class _Program:
    """neptune ``circuit.rs`` ``poseidon_hash`` as a list of ops, each allocating one variable
    and enforcing one constraint, in neptune's order. Slots: j < n input j, n + i op i's variable,
    ``_ONE`` the constant. ``ops[i] = (a, b, c)``: three tuples of (slot, coeff) pairs (zero
    coefficients dropped, as bellperson's recording systems drop them); the constraint is
    a · b = c + v_i, i.e. v_i = a·b − c (``c`` omits the op's own variable, coefficient 1)."""

    n: int
    ops: tuple


def _lc_items(d: dict) -> tuple:
    return tuple((s, c % R) for s, c in sorted(d.items()) if c % R)


def _legacy_walk(alg, oc, p, tag) -> None:
    """neptune ``circuit.rs`` ``poseidon_hash`` round by round, on an algebra of state elements:
    ``alg.inputs()``, ``alg.const(c)``, ``alg.alloc(e)`` (``ensure_allocated``), ``alg.sbox(e, pre,
    post)``, ``alg.mix(els, m)``, ``alg.mix_sparse(els, w_hat, v_rest)``. One walk for the ops
    (:class:`_LCAlgebra`: the program) and for their values (:class:`_ValueAlgebra`), so both
    follow neptune's order by construction. ``oc``: the optimized constants (ints or mpz)."""
    t, half, rp = p.t, p.full_rounds // 2, p.partial_rounds
    cr = oc.compressed
    els = [None] + alg.inputs()
    off = 0
    for r in range(p.full_rounds + rp):
        full = r < half or r >= half + rp
        last = r == p.full_rounds + rp - 1
        if r == 0:
            pre, post = cr[0:t], cr[t:2 * t]
            off = 2 * t
            # the tag's S-box: a constant (neptune computes it out of circuit)
            els = [alg.const((pow((tag + int(pre[0])) % R, 5, R) + int(post[0])) % R)] + [
                alg.sbox(els[i], pre[i], post[i]) for i in range(1, t)]
        elif full:
            post = None if last else cr[off:off + t]
            off += 0 if last else t
            els = [alg.sbox(els[i], None, None if post is None else post[i]) for i in range(t)]
        else:
            els[0] = alg.sbox(els[0], None, cr[off])
            off += 1
        if r == half - 1:
            els = alg.mix(els, oc.pre_sparse)
        elif half - 1 < r < half + rp:
            els = alg.mix_sparse(els, *oc.sparse[r - half])
        else:
            els = alg.mix(els, oc.mds)
    assert off == len(cr)
    alg.alloc(els[1])  # the digest: elements[1].ensure_allocated


class _LCAlgebra:
    """State elements as linear combinations ``{slot: coeff}`` (an int: an allocated slot); every
    allocation records one op (a, b, c) of :class:`_Program`."""

    def __init__(self, n: int):
        self.n = n
        self.ops: list = []

    def op(self, a: dict, b: dict, c: dict) -> int:
        self.ops.append((_lc_items(a), _lc_items(b), _lc_items(c)))
        return self.n + len(self.ops) - 1

    def inputs(self) -> list:
        return list(range(self.n))

    @staticmethod
    def const(c: int) -> dict:
        return {_ONE: c}

    def alloc(self, e):  # Elt::ensure_allocated (enforce = true)
        if isinstance(e, int):
            return e
        return self.op(e, {_ONE: 1}, {})

    @staticmethod
    def _lc(e) -> dict:
        return {e: 1} if isinstance(e, int) else e

    def sbox(self, e, pre, post):  # quintic_s_box / quintic_s_box_pre_add (mul_sum's C: res − post)
        x = self.alloc(e)
        xa = {x: 1, _ONE: pre} if pre is not None else {x: 1}
        x2 = self.op(xa, xa, {})
        x4 = self.op({x2: 1}, {x2: 1}, {})
        return self.op(xa, {x4: 1}, {_ONE: -post} if post is not None else {})

    def mix(self, els, m):  # product_mds_with_matrix: new[j] = Σ_i e_i·m[i][j]
        out = []
        for j in range(len(els)):
            acc: dict = {}
            for i, e in enumerate(els):
                for slot, c in self._lc(e).items():
                    acc[slot] = (acc.get(slot, 0) + c * m[i][j]) % R
            out.append(acc)
        return out

    def mix_sparse(self, els, w_hat, v_rest):
        first: dict = {}
        for i, e in enumerate(els):
            for slot, c in self._lc(e).items():
                first[slot] = (first.get(slot, 0) + c * w_hat[i]) % R
        out = [first]
        for j in range(1, len(els)):
            acc = dict(self._lc(els[j]))
            for slot, c in self._lc(els[0]).items():
                acc[slot] = (acc.get(slot, 0) + c * v_rest[j - 1]) % R
            out.append(acc)
        return out


@functools.lru_cache(maxsize=None)
def _legacy_program(arity: int, tag: int, strength: str) -> _Program:
    alg = _LCAlgebra(arity)
    _legacy_walk(alg, _nat.optimized_constants(arity, strength), _nat.params(arity, strength), tag)
    return _Program(n=arity, ops=tuple(alg.ops))


def _program_lc(cs: ConstraintSystem, refs: np.ndarray, items: tuple) -> LC:
    k = refs.shape[0]
    out = LC.zero()
    const = [c for s, c in items if s == _ONE]
    if const:
        out = lc(cs.one(k), const[0])
    slots = [s for s, _ in items if s != _ONE]
    if slots:
        out = out + lc(refs[:, slots], tuple(c for s, c in items if s != _ONE))
    return out


class _ValueAlgebra:
    """State elements as values: ``(value, allocated)``, value a ``(k,)`` object array of mpz (or
    an mpz constant); each allocation records its values (reduced), so the records are the op
    values of :class:`_LCAlgebra`'s program in order. A state element is the value of its linear
    combination, so the S-boxes and the t×t / sparse mixes cost O(t²) / O(2t) products per round
    where evaluating the program's combinations (which grow through the partial rounds) cost
    about 8 terms per op."""

    def __init__(self, inputs: np.ndarray, nops: int):
        self.x = inputs
        self.out = np.empty((inputs.shape[0], nops), dtype=object)
        self.i = 0

    def _rec(self, v):
        self.out[:, self.i] = v
        self.i += 1
        return v

    def inputs(self) -> list:
        return [(self.x[:, j], True) for j in range(self.x.shape[1])]

    @staticmethod
    def const(c: int):
        return (_nat._MPZ(c), False)

    # ``%`` on object arrays: mpz's own remainder, faster than np.mod's floor-division path
    def alloc(self, e):
        return e if e[1] else (self._rec(e[0] % _P), True)

    def sbox(self, e, pre, post):
        x = self.alloc(e)[0]
        xa = x + pre if pre is not None else x
        x2 = self._rec(xa * xa % _P)
        x4 = self._rec(x2 * x2 % _P)
        y = xa * x4
        return (self._rec((y + post if post is not None else y) % _P), True)

    def _stack(self, els) -> np.ndarray:
        """(t, k) object array of the elements' values (constants broadcast)."""
        v = np.empty((len(els), self.x.shape[0]), dtype=object)
        for i, e in enumerate(els):
            v[i] = e[0]
        return v

    # no reduction: a mixed element is reduced where it is allocated (and only there recorded)
    def mix(self, els, m):
        return [(row, False) for row in np.asarray(m, dtype=object).T @ self._stack(els)]

    def mix_sparse(self, els, w_hat, v_rest):
        v = self._stack(els)
        rest = v[1:] + np.multiply.outer(np.asarray(v_rest, dtype=object), v[0])
        return [(np.asarray(w_hat, dtype=object) @ v, False)] + [(row, False) for row in rest]


@functools.lru_cache(maxsize=None)
def _mpz_constants(arity: int, strength: str):
    """:func:`cuzk.hash.poseidon.optimized_constants` as mpz (an int operand costs a conversion
    per value in every product)."""
    oc = _nat.optimized_constants(arity, strength)
    z = _nat._MPZ
    return _nat.OptimizedConstants(
        compressed=tuple(map(z, oc.compressed)),
        mds=tuple(tuple(map(z, row)) for row in oc.mds),
        pre_sparse=tuple(tuple(map(z, row)) for row in oc.pre_sparse),
        sparse=tuple((tuple(map(z, w)), tuple(map(z, v))) for w, v in oc.sparse))


def _legacy_values(arity: int, tag: int, strength: str, inputs: np.ndarray) -> np.ndarray:
    """The values of the program's ops (:func:`_legacy_program`) for k hashes: ``(k, arity)``
    object inputs → ``(k, nops)`` object array of canonical ints (gmpy2), round by round,
    vectorized over the k hashes."""
    alg = _ValueAlgebra(inputs, hash_constraints(arity, strength, legacy=True))
    _legacy_walk(alg, _mpz_constants(arity, strength), _nat.params(arity, strength), tag)
    return alg.out


_NATIVE_LIB: list = []   # the native core's library while :func:`native_poseidon` is active


@contextlib.contextmanager
def native_poseidon(lib):
    """Within the block, the values of neptune ``circuit.rs`` hashes come from the native core
    (``cuzk.backend.poseidon_host``, library ``lib``) instead of gmpy2: the same values
    (``cuzk.r1cs.poseidon_path``, ``synthesis_poseidon: native``); so do the Merkle-tree hashes
    of ``cuzk.hash.poseidon.PoseidonMemo`` (``tree_hashes_by``: the input files' path checks).

    Raises:
        RuntimeError: a native core is already active.
    """
    if _NATIVE_LIB:
        raise RuntimeError("native_poseidon: a native Poseidon core is already active")
    _NATIVE_LIB.append(str(lib))
    try:
        with _nat.tree_hashes_by(functools.partial(_native_tree_digests, str(lib))):
            yield
    finally:
        _NATIVE_LIB.clear()


def _native_tree_digests(lib: str, rows: list, arity: int) -> list:
    """Merkle-tree hashes (tag 2^arity − 1, standard strength) of ``rows`` (preimages of arity
    ints) by the native core: each hash's last op value is its digest (as :func:`_legacy_hash`'s);
    in the synthesis workers where a pool is active (``check_input`` with threads)."""
    tag = _nat.params(arity, _nat.STANDARD).merkle_tag
    x = to_limbs([v for row in rows for v in row], FR.limbs).reshape(-1, arity, FR.limbs)
    out = map_rows(_legacy_digests, x, arity, tag, _nat.STANDARD, lib) if active_workers() else None
    return from_limbs(_legacy_digests(x, arity, tag, _nat.STANDARD, lib) if out is None else out).tolist()


class _GpuCore:
    """The GPU kernel in place of a native library's path (never equal to a path)."""

    def __repr__(self) -> str:
        return "GPU_CORE"


GPU_CORE = _GpuCore()
"""What :func:`gpu_poseidon` puts where :func:`native_poseidon` puts a library's path."""


@contextlib.contextmanager
def gpu_poseidon():
    """Within the block, the values of neptune ``circuit.rs`` hashes come from the GPU kernel
    (``cuzk.backend.cuda.poseidon``, on the current CUDA device) in this process, not from worker
    processes: the same values (``tests/test_poseidon_gpu.py``); ``synthesis_poseidon: gpu``
    (``cuzk.r1cs.poseidon_path``).

    Raises:
        RuntimeError: a native or GPU core is already active.
    """
    if _NATIVE_LIB:
        raise RuntimeError("gpu_poseidon: a native Poseidon core is already active")
    _NATIVE_LIB.append(GPU_CORE)
    try:
        yield
    finally:
        _NATIVE_LIB.clear()


def _legacy_limbs(inputs: np.ndarray, arity: int, tag: int, strength: str, lib: str | None = None) -> np.ndarray:
    """:func:`_legacy_hash`'s values (a synthesis worker's share, or all of them in one
    process): ``(kc, n, 4)`` uint64 input limbs → ``(kc, nops, 4)`` uint64 limbs of the op
    values; with ``lib`` (a path: it travels to the workers) from that native library
    (``cuzk.backend.poseidon_host.legacy_limbs``), with :data:`GPU_CORE` from the GPU kernel,
    else with gmpy2."""
    if lib is GPU_CORE:
        from ..backend.cuda.poseidon import legacy_limbs  # CuPy on use: the GPU core only

        return legacy_limbs(inputs, arity, tag, strength)
    if lib is not None:
        return poseidon_host.legacy_limbs(lib, inputs, arity, tag, strength)
    kc, n, _ = inputs.shape
    out = _legacy_values(arity, tag, strength, from_limbs(inputs.reshape(-1, FR.limbs)).reshape(kc, n))
    return to_limbs(out.reshape(-1), FR.limbs).reshape(kc, out.shape[1], FR.limbs)   # kc = 0 too


_DIGEST_ROWS = 1 << 11
"""Hashes per gmpy2 call of :func:`_legacy_digests` (arity 8: 505 op values, 16 KB each); on the
GPU 2^16 (1 GB of values on the device, only the digests copied back)."""


def _legacy_digests(inputs: np.ndarray, arity: int, tag: int, strength: str, lib=None) -> np.ndarray:
    """Each hash's digest (its last op value) as :func:`_legacy_limbs` computes them:
    ``(kc, arity, 4)`` → ``(kc, 4)`` uint64 limbs. A native library computes the digests alone
    (``poseidon_host.legacy_digests``); the GPU kernel and gmpy2 in chunks of :data:`_DIGEST_ROWS`
    hashes, so that only a chunk's op values exist at once."""
    if lib is not None and lib is not GPU_CORE:
        return poseidon_host.legacy_digests(lib, inputs, arity, tag, strength)
    out = np.empty((inputs.shape[0], FR.limbs), dtype=np.uint64)
    step = _DIGEST_ROWS << 5 if lib is GPU_CORE else _DIGEST_ROWS
    for lo in range(0, inputs.shape[0], step):
        if lib is GPU_CORE:
            from ..backend.cuda.poseidon import legacy_limbs_device  # CuPy on use: the GPU core only

            out[lo:lo + step] = legacy_limbs_device(inputs[lo:lo + step], arity, tag, strength)[:, -1].get()
        else:
            out[lo:lo + step] = _legacy_limbs(inputs[lo:lo + step], arity, tag, strength, lib)[:, -1]
    return out


class PoseidonWalks(ComputedRows):
    """m neptune ``circuit.rs`` hashes' op values (``(m, nops, 4)`` canonical limbs, what
    :func:`_legacy_hash` stores) kept as their inputs and computed where read: by the active core
    (:func:`native_poseidon`, :func:`gpu_poseidon`), else the native core where it builds, else
    gmpy2; on a device by the Poseidon kernel (:meth:`on_device`). The form a witness file keeps
    them in under ``witness_poseidon: inputs`` (:func:`values_computed_later`,
    ``cuzk.r1cs.witness``): 32·arity bytes a hash instead of 32·nops (arity 8: 256 B, not 16 KB).

    Args:
        inputs: ``(m, arity, 4)`` uint64 canonical limbs (kept, not copied).
        arity, tag, strength: the hash.
        digests: ``(m, 4)`` limbs of each hash's digest (its last value), when known (synthesis
            reads them back: the next Merkle level's input) or None.

    Raises:
        ValueError: inputs of another shape or dtype, or digests of another length.
    """

    KIND = "poseidon-legacy"
    """Its name in a witness file's header (``cuzk.r1cs.witness``)."""

    def __init__(self, inputs: np.ndarray, arity: int, tag: int, strength: str, digests: np.ndarray | None = None):
        if not (isinstance(inputs, np.ndarray) and inputs.dtype == np.uint64 and inputs.ndim == 3
                and inputs.shape[1:] == (arity, FR.limbs)):
            raise ValueError(f"PoseidonWalks: inputs must be uint64 limbs of shape (m, {arity}, {FR.limbs}), got "
                             f"{getattr(inputs, 'dtype', type(inputs))} {getattr(inputs, 'shape', '')}")
        if digests is not None and digests.shape != (inputs.shape[0], FR.limbs):
            raise ValueError("PoseidonWalks: one digest per hash")
        self.inputs, self.arity, self.tag, self.strength, self.digests = inputs, arity, tag, strength, digests
        self.shape = (inputs.shape[0], hash_constraints(arity, strength, legacy=True), FR.limbs)

    def spec(self) -> dict:
        """What a witness file's header records of it, besides the inputs (:meth:`from_spec`)."""
        return {"kind": self.KIND, "arity": self.arity, "tag": self.tag, "strength": self.strength}

    @classmethod
    def from_spec(cls, spec: dict, inputs: np.ndarray) -> "PoseidonWalks":
        """The inverse of :meth:`spec` (KeyError, ValueError on a bad one)."""
        if spec["kind"] != cls.KIND or spec["strength"] not in (_nat.STANDARD, _nat.STRENGTHENED):
            raise ValueError(f"unknown computed values {spec['kind']!r} ({spec['strength']!r})")
        if not 1 <= int(spec["arity"]) <= poseidon_host.MAX_ARITY:   # the cores' range
            raise ValueError(f"computed values of arity {spec['arity']}: the cores take 1..{poseidon_host.MAX_ARITY}")
        return cls(inputs, int(spec["arity"]), int(spec["tag"]), spec["strength"])

    def below_modulus(self) -> bool:
        return bool(limbs_below_modulus(self.inputs.reshape(-1, FR.limbs)).all()) and 0 <= self.tag < R

    def take(self, idx: np.ndarray) -> np.ndarray:
        idx = np.asarray(idx)
        lib = _NATIVE_LIB[0] if _NATIVE_LIB else _reading_core()
        u, inv = np.unique(idx, return_inverse=True)   # a padded partition repeats hashes
        vals = _legacy_limbs(self.inputs[u], self.arity, self.tag, self.strength, lib)
        return vals if u.shape[0] == idx.shape[0] and (u == idx).all() else vals[inv.reshape(-1)]

    def at(self, r: np.ndarray, col: np.ndarray) -> np.ndarray:
        """``(len(r), 4)`` limbs: value col[i] of hash r[i] (digests without computing any)."""
        if self.digests is not None and (col == self.shape[1] - 1).all():
            return self.digests[r]
        return super().at(r, col)

    def on_device(self, out=None):
        """The ``(m, nops, 4)`` values on the current CUDA device (CuPy, canonical limbs), written
        into ``out`` when given (``cuzk.backend.cuda.poseidon.legacy_limbs_device``).

        Raises:
            BackendUnavailableError: no CuPy or no device.
        """
        from ..backend.cuda.poseidon import legacy_limbs_device   # CuPy on use

        return legacy_limbs_device(self.inputs, self.arity, self.tag, self.strength, out=out)


NATIVE_CORES: dict = {}
"""(cache directory, $CXX) → the native library, built and checked once per process (this
module's reads and ``cuzk.r1cs.poseidon_path``'s choice share it)."""


def _reading_core():
    """The core that computes :class:`PoseidonWalks` read outside synthesis: the native library
    where it builds (as ``synthesis_poseidon: auto`` takes it), else None (gmpy2: the same values)."""
    try:
        return built_once(NATIVE_CORES, poseidon_host.build)
    except NativeBuildError:
        return None


_LATER: list = []   # non-empty within values_computed_later()


@contextlib.contextmanager
def values_computed_later():
    """Within the block, the witness keeps each neptune ``circuit.rs`` hash call's values as
    :class:`PoseidonWalks` (its distinct inputs and digests) instead of every op value: the
    synthesis computes only the digests (a chunk of values at a time), the witness file holds
    the inputs, and the prover computes the values (``witness_poseidon: inputs``)."""
    _LATER.append(True)
    try:
        yield
    finally:
        _LATER.pop()


def _distinct_rows(limbs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(k, n, 4)`` uint64 limbs → (first: indices of the distinct rows, in order of first
    appearance; inv: ``(k,)`` such that ``rows[first][inv] == rows``)."""
    k = limbs.shape[0]
    if k < 2:
        return np.arange(k), np.arange(k)
    keys = np.ascontiguousarray(limbs.reshape(k, -1)).view(np.dtype((np.void, limbs[0].nbytes))).reshape(k)
    _, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first)   # np.unique sorts by key: back to first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return first[order], rank[inv.reshape(k)]


def _legacy_hash(cs: ConstraintSystem, x: np.ndarray, arity: int, tag: int, strength: str,
                 gadget: str) -> np.ndarray:
    """k hashes as neptune's ``circuit.rs`` ``poseidon_hash``: variables of one hash contiguous
    in neptune's allocation order, rows op by op (k rows each). In witness mode the values are
    computed by the synthesis workers when a pool is active (``cuzk.r1cs.parallel``), by the
    native core within :func:`native_poseidon`."""
    k, n = x.shape
    nops = hash_constraints(arity, strength, legacy=True)   # an op a constraint; no program built
    start, out = cs.num_aux, None   # the k·nops new aux are start.. in C order (alloc_aux's refs)
    if not cs.has_values:
        out = cs.alloc_aux((k, nops))
    else:
        # identical preimages (Merkle paths through the same upper nodes) are hashed once
        xl = cs.value_limbs(x)
        first, inv = _distinct_rows(xl)
        xd = xl[first]
        lib = _NATIVE_LIB[0] if _NATIVE_LIB else None
        fn = _legacy_digests if _LATER else _legacy_limbs
        # the GPU core in this process: a forked worker cannot use the parent's CUDA context
        limbs = map_rows(fn, xd, arity, tag, strength, lib) if active_workers() and lib is not GPU_CORE else None
        if limbs is None:
            limbs = fn(xd, arity, tag, strength, lib)
        if _LATER:
            limbs = PoseidonWalks(np.ascontiguousarray(xd), arity, tag, strength, digests=limbs)
        # as limbs, the store's form: no reduction or int check per value; the (k, nops) refs
        # only where the constraints are built (below: a witness-only system never builds them)
        out = cs.alloc_aux_limbs((k, nops), limbs, rows=inv, refs=cs.has_shape)
    if k:
        def rows():
            own = out if out is not None else np.arange(start, start + k * nops, dtype=np.int64).reshape(k, nops)
            refs = np.concatenate([x, own], axis=1)
            for i, (a, b, c) in enumerate(_legacy_program(arity, tag, strength).ops):
                yield (_program_lc(cs, refs, a), _program_lc(cs, refs, b),
                       lc(refs[:, n + i]) + _program_lc(cs, refs, c) if c else lc(refs[:, n + i]))

        cs.enforce_lazy(nops * k, rows, gadget=f"{gadget}/sbox")
    if out is not None:
        return out[:, -1]
    return start + np.arange(k, dtype=np.int64) * nops + (nops - 1)   # each hash's digest: its last op


def poseidon_hash(cs: ConstraintSystem, inputs_refs, arity: int, domain_tag: int | None = None,
                  gadget: str = "poseidon", strength: str = _nat.STANDARD, legacy: bool = False) -> np.ndarray:
    """k Poseidon hashes at once (neptune's permutation; constraints as neptune's circuit).

    Args:
        cs: the constraint system (shape and/or witness mode).
        inputs_refs: ``(k, n)`` int64 refs (aux or input variables), one row per hash, n ≤ arity;
            n < arity pads with zeros (neptune's constant-length mode) and needs ``domain_tag``.
        arity: Poseidon arity (width t = arity + 1).
        domain_tag: state[0]; default the Merkle-tree tag 2^arity − 1 (+ 2^32 when strengthened),
            as Filecoin's trees and ``cuzk.hash.poseidon_many`` use. For constant-length hashing of
            n inputs pass ``cuzk.hash.poseidon.constant_length_tag(n)``.
        gadget: constraint-name prefix (``{gadget}/sbox``, ``{gadget}/out``).
        strength: ``"standard"`` (default) or ``"strengthened"``.
        legacy: cost the hash as neptune's ``circuit.rs`` ``poseidon_hash`` (what rust-fil-proofs'
            PoRep and PoSt circuits use): the domain tag's S-box is free and every S-box input
            after round 0 is allocated first (one more constraint). Default: ``circuit2`` costs.

    Returns:
        ``(k,)`` int64 refs of the new aux variables holding the digests (state[1]).

    Cost per hash: :func:`hash_constraints` constraints and as many new aux variables
    (3 per S-box + the digest). In witness mode the values are computed once per round for all k.

    Raises:
        ValueError: inputs not 2-D, n > arity, n < arity without a domain tag, tag not below r.
    """
    x = _refs(inputs_refs)
    if x.ndim != 2:
        raise ValueError(f"poseidon_hash: inputs_refs must have shape (k, n), got {x.shape}")
    k, n = x.shape
    if n > arity or n < 1:
        raise ValueError(f"poseidon_hash: {n} inputs per hash for arity {arity}")
    if n < arity and domain_tag is None:
        raise ValueError(f"poseidon_hash: {n} inputs for arity {arity} need an explicit domain_tag "
                         f"(e.g. constant_length_tag({n}))")
    p = _nat.params(arity, strength)
    tag = p.merkle_tag if domain_tag is None else int(domain_tag)
    if not 0 <= tag < R:
        raise ValueError(f"poseidon_hash: domain tag {tag:#x} is not a canonical Fr element")
    if legacy:
        if n != arity:
            raise ValueError(f"poseidon_hash: neptune's circuit.rs hashes exactly {arity} inputs, got {n}")
        return _legacy_hash(cs, x, arity, tag, strength, gadget)
    tpl = _template(arity, n, tag, strength)
    t = p.t

    slot_refs = np.empty((k, tpl.nslots), dtype=np.int64)
    slot_refs[:, :n] = x
    nxt = n

    state = None
    if cs.has_values:
        rcs = p.round_constants_array()  # (rounds, t) object
        mds = p.mds_array()  # (t, t) object
        state = np.empty((t, k), dtype=object)
        state[0] = _nat._MPZ(tag)
        if k:
            vals = cs.value(x, dtype=object)  # (k, n)
            for j in range(n):
                state[1 + j] = vals[:, j]
        state[n + 1:] = _nat._MPZ(0)

    name = f"{gadget}/sbox"
    for r, rnd in enumerate(tpl.sboxes):
        ns = len(rnd)
        v2 = v4 = v5 = None
        if state is not None:
            xs = state + rcs[r][:, None]  # (t, k): round constants added
            rows = [e for e, *_ in rnd]
            xin = np.mod(xs[rows], _P)  # (len(rnd), k)
            x2 = np.mod(xin * xin, _P)
            x4 = np.mod(x2 * x2, _P)
            x5 = np.mod(x4 * xin, _P)
            xs[rows] = x5
            state = np.mod(mds @ xs, _P)
            v2, v4, v5 = x2.T, x4.T, x5.T
        r2 = cs.alloc_aux((k, ns), v2)
        r4 = cs.alloc_aux((k, ns), v4)
        r5 = cs.alloc_aux((k, ns), v5)
        slot_refs[:, nxt:nxt + ns] = r5

        def rows(rnd=rnd, r2=r2, r4=r4, r5=r5):
            for j, (_, slots, coeffs, const) in enumerate(rnd):
                xl = _lc_of(cs, slot_refs, slots, coeffs, const)
                yield xl, xl, lc(r2[:, j])
                yield lc(r2[:, j]), lc(r2[:, j]), lc(r4[:, j])
                yield lc(r4[:, j]), xl, lc(r5[:, j])

        if k:
            cs.enforce_lazy(3 * ns * k, rows, gadget=name)
        nxt += ns
    assert nxt == tpl.nslots

    out = cs.alloc_aux(k, None if state is None else state[1])
    if k:
        slots, coeffs, const = tpl.out
        cs.enforce_lazy(k, lambda: [(_lc_of(cs, slot_refs, slots, coeffs, const), cs.one(k), lc(out))],
                        gadget=f"{gadget}/out")
    return out


# --------------------------------------------------------------------------------------------
# insertion (rust-fil-proofs storage-proofs-core/src/gadgets/insertion.rs)
# --------------------------------------------------------------------------------------------

# A program is a list of steps over named (k,) values. Names: "x" (the inserted element),
# "e0".."e{size-2}" (the other elements), "c0".. (index bits, little-endian). Steps:
#   ("pick", out, cond, a, b): out = cond ? a : b, one constraint (b − a)·cond = b − out
#   ("nor", out, u, v):        out = (1 − u)·(1 − v), one constraint
#   ("and", out, u, v):        out = u·v, one constraint
# and the program's result is a list of names, one per position.

def _insert_4_program():
    # insert_4 (rust-fil-proofs): p0_x0, p0, p1_x0, p1, p2_x1, p2, p3_x1, p3
    x, b, c, d = "x", "e0", "e1", "e2"
    steps = [
        ("pick", "p0_x0", "c0", b, x), ("pick", "p0", "c1", b, "p0_x0"),
        ("pick", "p1_x0", "c0", x, b), ("pick", "p1", "c1", c, "p1_x0"),
        ("pick", "p2_x1", "c0", d, x), ("pick", "p2", "c1", "p2_x1", c),
        ("pick", "p3_x1", "c0", x, d), ("pick", "p3", "c1", "p3_x1", d),
    ]
    return steps, ["p0", "p1", "p2", "p3"]


def _insert_8_program():
    # insert_8 (rust-fil-proofs), in its order: b0 nor b1, b0 and b1, then the picks per position
    a, b, c, d, e, f, g, h = "x", "e0", "e1", "e2", "e3", "e4", "e5", "e6"
    steps = [
        ("nor", "nor01", "c0", "c1"), ("and", "and01", "c0", "c1"),
        ("pick", "p0_xx0", "nor01", a, b), ("pick", "p0", "c2", b, "p0_xx0"),
        ("pick", "p1_x00", "c0", a, b), ("pick", "p1_xx0", "c1", c, "p1_x00"), ("pick", "p1", "c2", c, "p1_xx0"),
        ("pick", "p2_x10", "c0", d, a), ("pick", "p2_xx0", "c1", "p2_x10", c), ("pick", "p2", "c2", d, "p2_xx0"),
        ("pick", "p3_xx0", "and01", a, d), ("pick", "p3", "c2", e, "p3_xx0"),
        ("pick", "p4_xx1", "nor01", a, f), ("pick", "p4", "c2", "p4_xx1", e),
        ("pick", "p5_x01", "c0", a, f), ("pick", "p5_xx1", "c1", g, "p5_x01"), ("pick", "p5", "c2", "p5_xx1", f),
        ("pick", "p6_x11", "c0", h, a), ("pick", "p6_xx1", "c1", "p6_x11", g), ("pick", "p6", "c2", "p6_xx1", g),
        ("pick", "p7_xx1", "and01", a, h), ("pick", "p7", "c2", "p7_xx1", h),
    ]
    return steps, [f"p{i}" for i in range(8)]


def _insert_general_program(size: int):
    # rust-fil-proofs' general `insert` (per position, `select` over the candidates, most
    # significant bit first), skipping picks whose two candidates are the same name.
    nbits = size.bit_length() - 1
    steps, result = [], []
    for pos in range(size):
        col = []
        for index in range(size):
            if pos < index:
                col.append(f"e{pos}")
            elif pos == index:
                col.append("x")
            else:
                col.append(f"e{pos - 1}")
        state, half = col, size // 2
        for lvl, bit in enumerate(reversed(range(nbits))):
            new = []
            for j in range(half):
                hi, lo = state[half + j], state[j]
                if hi == lo:
                    new.append(lo)
                else:
                    nm = f"s{pos}_{lvl}_{j}"
                    steps.append(("pick", nm, f"c{bit}", hi, lo))
                    new.append(nm)
            state, half = new, half // 2
        result.append(state[0])
    return steps, result


@functools.lru_cache(maxsize=None)
def _insert_program(size: int):
    if size < 2 or size & (size - 1):
        raise ValueError(f"insert: size (arity) must be a power of two ≥ 2, got {size}")
    if size == 4:
        return _insert_4_program()
    if size == 8:
        return _insert_8_program()
    return _insert_general_program(size)  # size 2: exactly insert_2's two picks


def insert_constraints(size: int) -> int:
    """Constraints of :func:`insert` for one instance: 2, 8, 22 for sizes 2, 4, 8."""
    return len(_insert_program(size)[0])


def insert(cs: ConstraintSystem, element_refs, bits_refs, elements_refs,
           gadget: str = "insert") -> np.ndarray:
    """Insert each instance's element among its size − 1 others at the position given by its bits.

    rust-fil-proofs' ``insert`` (``storage-proofs-core/src/gadgets/insertion.rs``): ``element``
    goes after the n-th (1-indexed) of ``elements``, n = Σ 2^i·bits[i]; built from ``pick`` gadgets
    (``c = cond ? a : b``, constraint ``(b − a)·cond = b − c``), with its hand-made tables for
    sizes 4 and 8 (the latter with ``b0 nor b1`` / ``b0 and b1`` helper bits) and its general
    select-tree algorithm otherwise (folding identical candidates).

    Args:
        element_refs: ``(k,)`` int64 refs.
        bits_refs: ``(k, log2(size))`` int64 refs of boolean variables, little-endian (not
            constrained here).
        elements_refs: ``(k, size − 1)`` int64 refs.
        gadget: constraint name.

    Returns:
        ``(k, size)`` int64 refs of new aux variables (the nodes in order).

    Raises:
        ValueError: shapes disagree or size is not a power of two.
    """
    el = _refs(element_refs)
    bits = _refs(bits_refs)
    others = _refs(elements_refs)
    if el.ndim != 1 or others.ndim != 2 or bits.ndim != 2:
        raise ValueError("insert: element (k,), bits (k, log2 size), elements (k, size-1) expected")
    k = el.shape[0]
    size = others.shape[1] + 1
    nbits = size.bit_length() - 1
    if others.shape[0] != k or bits.shape != (k, nbits) or (1 << nbits) != size:
        raise ValueError(f"insert: shapes element {el.shape}, bits {bits.shape}, elements {others.shape} "
                         f"do not fit (size must be a power of two)")
    steps, result = _insert_program(size)
    refs = {"x": el}
    refs.update({f"e{i}": others[:, i] for i in range(size - 1)})
    refs.update({f"c{i}": bits[:, i] for i in range(nbits)})
    vals = None
    if cs.has_values:   # the nodes as (k, 4) limbs (picks copy rows), the bits as (k,) values
        vals = {"x": cs.value_limbs(el)}
        ov = cs.value_limbs(others)
        vals.update({f"e{i}": ov[:, i] for i in range(size - 1)})
        bv = cs.value(bits)
        if bv.dtype != np.uint64 or (bv.size and bv.max() > 1):   # not boolean: nor/and mod r as ints
            bv = cs.value(bits, dtype=object)
        vals.update({f"c{i}": bv[:, i] for i in range(nbits)})
    for op, out, u, v, *rest in steps:
        val = None
        if op == "pick":
            a, b = v, rest[0]
            if vals is not None:
                val = np.where((vals[u] == 1)[:, None], vals[a], vals[b])   # picks choose among nodes only
            ref = cs.alloc_aux(k) if val is None else cs.alloc_aux_limbs(k, val)
            if k:
                cs.enforce(lc(refs[b]) - lc(refs[a]), lc(refs[u]), lc(refs[b]) - lc(ref), gadget=gadget)
        elif op == "nor":
            if vals is not None:   # boolean uint64 bits stay in {0, 1}: no reduction
                val = (1 - vals[u]) * (1 - vals[v]) if vals[u].dtype == np.uint64 else np.mod((1 - vals[u]) * (1 - vals[v]), R)
            ref = cs.alloc_aux(k, val)
            if k:
                one = cs.one(k)
                cs.enforce(lc(one) - lc(refs[u]), lc(one) - lc(refs[v]), lc(ref), gadget=gadget)
        elif op == "and":
            if vals is not None:
                val = vals[u] * vals[v] if vals[u].dtype == np.uint64 else np.mod(vals[u] * vals[v], R)
            ref = cs.alloc_aux(k, val)
            if k:
                cs.enforce(lc(refs[u]), lc(refs[v]), lc(ref), gadget=gadget)
        else:  # pragma: no cover
            raise AssertionError(op)
        refs[out] = ref
        if vals is not None:
            vals[out] = val
    return np.stack([refs[nm] for nm in result], axis=1) if k else np.empty((0, size), np.int64)


# --------------------------------------------------------------------------------------------
# Merkle inclusion
# --------------------------------------------------------------------------------------------


def merkle_path_poseidon(cs: ConstraintSystem, leaf_ref, path_refs, index_bits_refs, arity: int,
                         gadget: str = "merkle_poseidon", enforce_boolean: bool = False,
                         strength: str = _nat.STANDARD, legacy: bool = False) -> np.ndarray:
    """Roots of k Merkle paths at once (rust-fil-proofs' PoR circuit over a Poseidon tree).

    Per level (leaf upward): ``insert`` the current node among the level's siblings at the
    position of its index bits, then ``poseidon_hash`` the arity nodes with the Merkle tag
    2^arity − 1. The caller compares the returned root with the expected one.

    Args:
        leaf_ref: ``(k,)`` int64 refs of the leaves.
        path_refs: ``(k, levels, arity − 1)`` int64 refs of the siblings, leaf level first, in tree
            order with the current node removed.
        index_bits_refs: ``(k, levels, log2 arity)`` int64 refs of the index bits: level l's bits
            are the position of the level-l node among its siblings, little-endian (so the leaf
            index is Σ_l Σ_i 2^(l·log2 arity + i)·bits[l, i]). Must be boolean variables; this gadget
            only constrains that when ``enforce_boolean`` (k·levels·log2 arity more constraints).
        arity: tree arity, a power of two ≥ 2 (8 for Filecoin's tree_c/tree_r_last).
        gadget: constraint-name prefix (``{gadget}/insert``, ``{gadget}/hash/...``).
        legacy: hash with neptune ``circuit.rs`` costs (:func:`poseidon_hash`), as rust-fil-proofs.

    Returns:
        ``(k,)`` int64 refs of the roots (aux variables).

    Cost per path: levels · (insert_constraints(arity) + hash_constraints(arity)): 410 per level
    for arity 8, 240 for arity 2.

    Raises:
        ValueError: shapes disagree, arity not a power of two.
    """
    leaf = _refs(leaf_ref)
    path = _refs(path_refs)
    bits = _refs(index_bits_refs)
    if arity < 2 or arity & (arity - 1):
        raise ValueError(f"merkle_path_poseidon: arity must be a power of two ≥ 2, got {arity}")
    nb = arity.bit_length() - 1
    if leaf.ndim != 1:
        raise ValueError(f"merkle_path_poseidon: leaf_ref must have shape (k,), got {leaf.shape}")
    k = leaf.shape[0]
    if path.ndim != 3 or path.shape[0] != k or path.shape[2] != arity - 1:
        raise ValueError(f"merkle_path_poseidon: path_refs must be (k, levels, {arity - 1}), got {path.shape}")
    levels = path.shape[1]
    if bits.shape != (k, levels, nb):
        raise ValueError(f"merkle_path_poseidon: index_bits_refs must be {(k, levels, nb)}, got {bits.shape}")
    if enforce_boolean:
        boolean(cs, bits, gadget=f"{gadget}/boolean")
    cur = leaf
    for lvl in range(levels):
        nodes = insert(cs, cur, bits[:, lvl], path[:, lvl], gadget=f"{gadget}/insert")
        cur = poseidon_hash(cs, nodes, arity, gadget=f"{gadget}/hash", strength=strength, legacy=legacy)
    return cur
