"""The fallback PoSt circuit (WinningPoSt / WindowPoSt), one partition, all challenges as one block.

As rust-fil-proofs' ``FallbackPoStCircuit`` (``storage-proofs-post/src/fallback/circuit.rs``) with
the PoR gadget ``PoRCircuit`` in private-root mode (``storage-proofs-core/src/gadgets/por.rs``).
For S circuit sectors of C challenges each (k = S·C challenge instances) and tree_r_last arities
``a_0 … a_(L−1)`` (leaves up; :func:`cuzk.sector.replica.tree_arities`):

* **public inputs** (after ONE), in upstream order (``FallbackPoStCompound::generate_public_inputs``
  in ``compound.rs``): per sector its comm_r, then per challenge the auth-path bits packed into
  one Fr (``multipack::pack_into_inputs``; ≤ 31 bits, so one element), i.e. the challenged node
  index itself;
* **per sector** (``Sector::synthesize``): comm_r_last, comm_c and comm_r (aux, in that order);
  comm_r made public (``inputize``: input · 1 = comm_r; the input allocated up front); h =
  Poseidon₂(comm_c, comm_r_last) (``hash2_circuit``, tag 3) and comm_r · 1 = h;
* **per challenge** (``PoRCircuit``, :func:`cuzk.circuits.porep._poseidon_inclusion`): the leaf
  (aux); per level ``log2 a_l`` index bits (``AllocatedBit``: one booleanity constraint each),
  the ``a_l − 1`` siblings (aux), ``insert`` and Poseidon_{a_l} with the Merkle tag; Σ 2^i·bit_i ·
  1 = the public challenge input; root · 1 = comm_r_last of its sector.

The sector and challenge loops are marked (``cs.instances``), so ``upstream_order`` gives
rust-fil-proofs' row and column order (checked against a naive sequential build in
``tests/test_upstream_order.py``).

Gadget names (reported by :class:`~cuzk.r1cs.Unsatisfied`): ``post/comm_r_input``,
``post/comm_r_hash/...``, ``post/comm_r``, ``post/tree_r_last/index_bits/...``,
``post/tree_r_last/insert``, ``post/tree_r_last/hash/...``, ``post/tree_r_last/path_input``,
``post/tree_r_last/root``.

**Sizes.** Poseidon is costed as neptune's ``circuit.rs`` ``poseidon_hash`` (``legacy=True``: 311
constraints at arity 2, 505 at arity 8), which rust-fil-proofs uses, and comm_r is inputized from
an aux as upstream does, so ``stats()["circuit_constraints"]`` (without the input rows) is
upstream's count: 125,279,217 for a 32 GiB WindowPoSt partition and 129,887,900 for 64 GiB, the
figures in ``filecoin-proofs/src/constants.rs``.

Shapes: ``winning-post-<size>`` and ``window-post-<size>`` for Filecoin's published sector sizes,
and test-only shapes (names start with ``test-only-``) with fewer sectors/challenges.
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass

import numpy as np

from ..sector.challenges import size_name as _size_name
from ..r1cs import ConstraintSystem, enforce_equal, lc
from ..r1cs.poseidon import insert, poseidon_hash
from ..sector.post import PoStParams, params_of, partition_public, post_params
from ..sector.replica import tree_arities, tree_shape
from .porep import _poseidon_inclusion

__all__ = ["PoStShape", "SHAPES", "shape_for", "shape_by_name", "shape_of", "values", "public_inputs",
           "synthesize", "gadget_cost"]

NODE_SIZE = 32
_PUBLISHED = (2 << 10, 8 << 20, 512 << 20, 32 << 30, 64 << 30)


@functools.lru_cache(maxsize=None)
def gadget_cost(gadget: str, arity: int) -> dict:
    """Measured size of one instance of a gadget (``"poseidon"`` or ``"insert"``) at an arity.

    Built once at k = 1 in a shape-only system over fresh aux variables; returns
    ``{"aux", "constraints", "nnz_a", "nnz_b", "nnz_c"}`` (the ONE input row left out).
    """
    cs = ConstraintSystem(shape=True, witness=False)
    nb = arity.bit_length() - 1
    if gadget == "poseidon":
        ins = cs.alloc_aux((1, arity))
        base = cs.num_aux
        poseidon_hash(cs, ins, arity, legacy=True)
    elif gadget == "insert":
        el, bits, others = cs.alloc_aux(1), cs.alloc_aux((1, nb)), cs.alloc_aux((1, arity - 1))
        base = cs.num_aux
        insert(cs, el, bits, others)
    else:
        raise ValueError(f"unknown gadget {gadget!r}")
    st = cs.finalize().stats()
    return {"aux": st["aux"] - base, "constraints": st["constraints"] - 1,
            "nnz_a": st["nnz_a"] - 1, "nnz_b": st["nnz_b"], "nnz_c": st["nnz_c"]}


@dataclass(frozen=True)
class PoStShape:
    """A PoSt circuit shape: kind, sector size (bytes), circuit sectors per partition, challenges per sector."""

    name: str
    kind: str
    sector_size: int
    sector_count: int
    challenge_count: int
    test_only: bool = False

    @property
    def nodes(self) -> int:
        """32-byte nodes per sector."""
        return self.sector_size // NODE_SIZE

    @property
    def arities(self) -> list[int]:
        """tree_r_last arity per level, leaves up (e.g. 2 KiB [8, 8]; 64 GiB [8]*10 + [2])."""
        return tree_arities(self.nodes, tree_shape(self.sector_size))

    @property
    def challenges(self) -> int:
        """Challenge instances per partition, k = sector_count · challenge_count."""
        return self.sector_count * self.challenge_count

    def distinct_share(self, sectors: int) -> float:
        """Share of a partition's sector slots that hold distinct sectors, for a target of
        ``sectors`` distinct ones: 1 when they fill a partition, else sectors / sector_count
        (the other slots repeat a sector, as rust-fil-proofs pads a partition, and synthesis
        keeps each distinct Poseidon row once: ``cuzk.r1cs.values`` runs). The memory model
        scales a synthesis's Poseidon values by it."""
        return min(1.0, max(1, sectors) / self.sector_count)

    def params(self, api_version: str | None = None) -> PoStParams:
        """The matching :class:`cuzk.sector.post.PoStParams`."""
        return post_params(self.kind, self.sector_size, api_version=api_version,
                           sector_count=self.sector_count, challenge_count=self.challenge_count)

    def stats(self) -> dict:
        """Exact sizes of one partition's R1CS without building it (formula over gadget costs).

        Per sector (S): 3 aux + a Poseidon₂ hash, comm_r's inputize and equality (1 constraint each).
        Per challenge (k = S·C): leaf + bits + siblings aux; per bit a booleanity constraint
        ((1 − v)·v = 0: nnz 2/1/0); per level ``insert`` + Poseidon (:func:`gadget_cost`); root equality and
        challenge packing (1 constraint each). Plus one input row per input, ONE included.
        ``circuit_constraints`` leaves the input rows out (rust-fil-proofs' count).
        ``post_path_values`` and ``wide_aux`` size the memory model's PoSt terms
        (:mod:`cuzk.memory.model`).
        """
        S, k, ar = self.sector_count, self.challenges, self.arities
        nbits = sum(a.bit_length() - 1 for a in ar)
        h2 = gadget_cost("poseidon", 2)
        lv = {key: sum(gadget_cost("insert", a)[key] + gadget_cost("poseidon", a)[key] for a in ar)
              for key in ("aux", "constraints", "nnz_a", "nnz_b", "nnz_c")}
        inputs = 1 + S * (1 + self.challenge_count)
        circuit = S * (h2["constraints"] + 2) + k * (nbits + lv["constraints"] + 2)
        constraints = circuit + inputs
        return {
            "inputs": inputs,
            "aux": S * (3 + h2["aux"]) + k * (1 + nbits + sum(a - 1 for a in ar) + lv["aux"]),
            "constraints": constraints,
            "circuit_constraints": circuit,
            "nnz_a": S * (h2["nnz_a"] + 2) + k * (2 * nbits + lv["nnz_a"] + nbits + 1) + inputs,
            "nnz_b": S * (h2["nnz_b"] + 2) + k * (nbits + lv["nnz_b"] + 2),
            "nnz_c": S * (h2["nnz_c"] + 2) + k * (lv["nnz_c"] + 2),
            "domain": max(2, 1 << (constraints - 1).bit_length()),
            "sector_size": self.sector_size,
            "partitions": 1,
            # for the memory model: the partition's 32-byte values in its vanilla file (per
            # inclusion proof: leaf, root, the siblings), and its aux that are not index bits
            # (Poseidon values: wide in the witness file)
            "post_path_values": k * (2 + sum(a - 1 for a in ar)),
            "wide_aux": S * (3 + h2["aux"]) + k * (1 + sum(a - 1 for a in ar) + lv["aux"]),
        }

    def describe(self) -> dict:
        """JSON-ready description (stored in the PCE header)."""
        return asdict(self) | {"circuit": f"{self.kind}-post", "arities": self.arities,
                               "challenges_per_partition": self.challenges}




def _filecoin_shapes() -> dict[str, PoStShape]:
    out = {}
    for kind in ("winning", "window"):
        for size in _PUBLISHED:
            p = post_params(kind, size)
            name = f"{kind}-post-{_size_name(size)}"
            out[name] = PoStShape(name, kind, size, p.sector_count, p.challenge_count)
    return out


def _test(name: str, kind: str, size: int, s: int, c: int) -> tuple[str, PoStShape]:
    return name, PoStShape(name, kind, size, s, c, test_only=True)


SHAPES: dict[str, PoStShape] = _filecoin_shapes() | dict([
    _test("test-only-window-post-2KiB-1x1", "window", 2 << 10, 1, 1),
    _test("test-only-window-post-2KiB-2x2", "window", 2 << 10, 2, 2),
    _test("test-only-winning-post-2KiB-3", "winning", 2 << 10, 3, 1),
    _test("test-only-window-post-4KiB-1x2", "window", 4 << 10, 1, 2),  # levels [8, 8, 2]
    # the workflow's test-only 256-byte sectors (one level of arity 8)
    _test("test-only-winning-post-256B-3", "winning", 256, 3, 1),
    _test("test-only-window-post-256B-2x2", "window", 256, 2, 2),
])


def shape_for(kind: str, sector_size: int, sector_count: int | None = None, challenge_count: int | None = None,
              allow_test: bool = False) -> PoStShape:
    """The shape of (kind, sector size[, counts]); counts default to Filecoin's.

    Raises:
        ValueError: no such shape (test-only shapes need ``allow_test``).
    """
    for s in SHAPES.values():
        if (s.kind, s.sector_size) == (kind, sector_size) and (allow_test or not s.test_only):
            if sector_count in (None, s.sector_count) and challenge_count in (None, s.challenge_count):
                if sector_count is None and challenge_count is None and s.test_only:
                    continue
                return s
    raise ValueError(f"no {kind} PoSt shape for {sector_size}-byte sectors with counts "
                     f"{sector_count}×{challenge_count}; known: {', '.join(SHAPES)}")


def shape_by_name(name: str) -> PoStShape:
    """Look a shape up by name. Raises ValueError naming the known shapes."""
    if name not in SHAPES:
        raise ValueError(f"unknown PoSt circuit shape {name!r}; known: {', '.join(SHAPES)}")
    return SHAPES[name]


def shape_of(vanilla: dict) -> PoStShape:
    """The shape a (checked) vanilla proof dict is proved with (test-only shapes included)."""
    p = params_of(vanilla)
    return shape_for(p.kind, p.sector_size, p.sector_count, p.challenge_count, allow_test=True)


def _int(b) -> int:
    """A 32-byte little-endian value: a list of byte values, or its hex (``compact_slices``)."""
    return int.from_bytes(bytes.fromhex(b) if isinstance(b, str) else bytes(b), "little")


def _limbs(hashes: list) -> np.ndarray:
    """32-byte little-endian values (lists of byte values, or their hex) → ``(n, 4)`` uint64
    limbs (writable)."""
    raw = bytes.fromhex("".join(hashes)) if hashes and isinstance(hashes[0], str) else b"".join(map(bytes, hashes))
    return np.frombuffer(raw, dtype="<u8").reshape(-1, 4).astype(np.uint64)


def compact_slices(doc: dict) -> list[dict]:
    """The check step's one slice of a (checked) vanilla proof dict (``Family.slices``,
    ``jsondoc.admit``): the whole document with its partitions' 32-byte values (comm_c,
    comm_r_last, each inclusion proof's leaf, root and path hashes) as hex strings, which
    :func:`values` and :func:`public_inputs` read as they read the lists. Later steps parse this
    instead of the file: a full 32 GiB WindowPoSt partition's 1.9 M hashes are then strings, not
    61 M JSON integers."""
    hx = lambda b: bytes(b).hex()  # noqa: E731
    parts = [[{"comm_c": hx(e["comm_c"]), "comm_r_last": hx(e["comm_r_last"]),
               "inclusion_proofs": [{"leaf": hx(pr["leaf"]), "root": hx(pr["root"]),
                                     "path": [{"hashes": [hx(h) for h in el["hashes"]], "index": el["index"]}
                                              for el in pr["path"]]} for pr in e["inclusion_proofs"]]}
              for e in part] for part in doc["partitions"]]
    return [{**doc, "partitions": parts}]


def values(vanilla: dict, partition: int) -> dict:
    """Private and public values of one partition of a vanilla proof dict (checked by ``read_post``).

    Returns (S circuit sectors, k = S·C challenge instances, sector-major, L tree levels):
        ``comm_r``, ``comm_c``, ``comm_r_last``: (S,) int arrays;
        ``challenges``: (k,) int64, derived from randomness (the public inputs);
        ``leaves``: (k,) int array; ``siblings``: L arrays (k, a_l − 1, 4) uint64, canonical
        limbs (the file's little-endian bytes as they are: no int per value);
        ``positions``: (k, L) int64, the paths' per-level indices (give the index bits).

    Raises:
        IndexError: no such partition.
    """
    part = vanilla["partitions"][partition]
    comm_r, ch = partition_public(vanilla, partition)
    proofs = [pr for e in part for pr in e["inclusion_proofs"]]
    nlev = len(proofs[0]["path"])
    obj = lambda xs: np.array(xs, dtype=object)  # noqa: E731
    return {
        "comm_r": obj(comm_r),
        "comm_c": obj([_int(e["comm_c"]) for e in part]),
        "comm_r_last": obj([_int(e["comm_r_last"]) for e in part]),
        "challenges": ch.reshape(-1),
        "leaves": obj([_int(pr["leaf"]) for pr in proofs]),
        "siblings": [_limbs([h for pr in proofs for h in pr["path"][lvl]["hashes"]]).reshape(len(proofs), -1, 4)
                     for lvl in range(nlev)],
        "positions": np.array([[el["index"] for el in pr["path"]] for pr in proofs], dtype=np.int64),
    }


def public_inputs(vanilla: dict, partition: int) -> list[int]:
    """Public inputs of one partition without ONE, as ``FallbackPoStCompound::generate_public_inputs``
    (``storage-proofs-post/src/fallback/compound.rs``): per circuit sector (padding included) its
    comm_r, then its C leaf challenges (the packed auth-path bits); S·(1 + C) ints."""
    comm_r, ch = partition_public(vanilla, partition)
    out = []
    for c, row in zip(comm_r, ch):
        out += [int(c)] + [int(x) for x in row]
    return out


def synthesize(cs: ConstraintSystem, shape: PoStShape, values: dict | None = None) -> None:
    """Build one partition's circuit into ``cs`` (shape and/or witness mode).

    Args:
        cs: the constraint system.
        shape: the circuit shape.
        values: :func:`values` output; required when ``cs.has_values``.

    Raises:
        ValueError: values missing in witness mode or not of the shape's sizes.
    """
    S, C, k, ar = shape.sector_count, shape.challenge_count, shape.challenges, shape.arities
    v = cs.has_values
    if v:
        if values is None:
            raise ValueError("witness mode needs the partition's values")
        if values["positions"].shape != (k, len(ar)) or len(values["comm_c"]) != S:
            raise ValueError(f"values have {len(values['comm_c'])} sectors, positions {values['positions'].shape}; "
                             f"shape {shape.name} needs {S} sectors, {(k, len(ar))}")
    # inputs: per sector [comm_r, challenge_0 .. challenge_(C-1)]
    inv = None
    if v:
        inv = np.empty((S, 1 + C), dtype=object)
        inv[:, 0] = values["comm_r"]
        inv[:, 1:] = values["challenges"].reshape(S, C).astype(object)
    inp = cs.alloc_input((S, 1 + C), values=inv)
    comm_r_in, ch_in = inp[:, 0], inp[:, 1:].reshape(-1)

    # upstream's loops (FallbackPoStCircuit: sector by sector; Sector: challenge by challenge),
    # marked for its variable and row order (cuzk.r1cs.order)
    with cs.instances(S, "post/sectors"):
        comm_r_last = cs.alloc_aux(S, values=values["comm_r_last"] if v else None)
        comm_c = cs.alloc_aux(S, values=values["comm_c"] if v else None)
        # upstream allocates comm_r and inputizes it (input · 1 = comm_r)
        comm_r = cs.alloc_aux(S, values=values["comm_r"] if v else None)
        cs.enforce(lc(comm_r_in), lc(cs.one(S)), lc(comm_r), gadget="post/comm_r_input")
        h = poseidon_hash(cs, np.stack([comm_c, comm_r_last], axis=1), 2, gadget="post/comm_r_hash", legacy=True)
        enforce_equal(cs, comm_r, h, gadget="post/comm_r")
        with cs.instances(k, "post/challenges"):
            leaf = cs.alloc_aux(k, values=values["leaves"] if v else None)
            index = None
            if v:  # the private path positions give the index bits (the challenge input is public)
                offs = np.cumsum([0] + [a.bit_length() - 1 for a in ar[:-1]])
                index = (values["positions"] << offs).sum(axis=1)
            _poseidon_inclusion(cs, leaf, ar, index, None, np.repeat(comm_r_last, C), ch_in, "post/tree_r_last",
                                levels=values["siblings"] if v else None)
