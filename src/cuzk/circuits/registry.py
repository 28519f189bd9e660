"""Every circuit shape by name, and one interface over the three circuit families.

A shape name picks its family: ``porep-commd-*`` / ``test-only-commd-*`` (the comm_d inclusion
circuit, :mod:`cuzk.circuits.commd`), ``porep-*`` / ``test-only-porep-*`` (StackedDRG,
:mod:`cuzk.circuits.porep`), ``winning-post-*`` / ``window-post-*`` and their ``test-only-``
forms (fallback PoSt, :mod:`cuzk.circuits.post`), ``update-*`` / ``test-only-update-*``
(SnapDeals, :mod:`cuzk.circuits.update`). The workflow's steps go through
:func:`family_of` so they never branch on the family themselves.

The workflow names sector sizes as Filecoin does ("2KiB", "32GiB") plus two test-only sizes;
:data:`WORKFLOW_SIZES` lists them, :func:`sector_shape` and :func:`post_shape` give the shape a
configured size is proved with, :func:`update_shape` a SnapDeals sector's (the one place the
workflow's ``common.smk`` learns them).

A family knows how to read its *input file* (the vanilla proofs a witness is made from: a comm_d
C1, a PoRep C1, a PoSt vanilla file, a SnapDeals file), check it against a shape, count its partitions, and give
each partition's values (for synthesis) and public inputs (for verification).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from ..errors import CuzkError
from ..sector import SECTOR_SIZES
from ..sector.c1 import C1Error, partition_slices, read_c1, verify_c1
from ..sector.porep_c1 import read_porep_c1, verify_porep_c1
from ..sector.post import PoStError, read_post, verify_post
from ..sector.challenges import size_name
from ..sector.update_doc import UpdateFileError, partition_proof, publics, read_update, verify_update
from . import commd, porep, post, update
from .costs import CALLED, write_table

__all__ = ["ShapeMismatchError", "Family", "SHAPES", "shape_by_name", "family_of", "WORKFLOW_SIZES", "POREP_CIRCUITS",
           "POST_KINDS", "sector_shape", "post_shape", "update_shape"]


class ShapeMismatchError(CuzkError, ValueError):
    """An input was made for another circuit shape (names the file and both shapes)."""


def _mismatch(path, have: str, shape) -> ShapeMismatchError:
    return ShapeMismatchError(f"{path}: {have} does not fit shape {shape.name}")


def _check_c1(c1: dict, path, shape) -> None:
    have = (c1["sector_size"], c1["partitions"], c1["challenges_per_partition"])
    if have != (shape.sector_size, shape.partitions, shape.challenges):
        raise _mismatch(path, f"sector of {have[0]} bytes with {have[1]} partition(s) × {have[2]} challenge(s)",
                        shape)
    layers = getattr(shape, "layers", None)
    if layers is not None and c1.get("layers") != layers:
        raise _mismatch(path, f"a C1 of {c1.get('layers')} layers", shape)


def _check_post(doc: dict, path, shape) -> None:
    p = post.params_of(doc)
    have = (p.kind, p.sector_size, p.sector_count, p.challenge_count)
    if have != (shape.kind, shape.sector_size, shape.sector_count, shape.challenge_count):
        raise _mismatch(path, f"{p.kind} PoSt of {p.sector_size}-byte sectors, {p.sector_count} × "
                        f"{p.challenge_count}", shape)


@dataclass(frozen=True)
class Family:
    """One circuit family's operations (all take the shape first where they need it).

    Attributes:
        name: "porep-commd", "porep", "post" or "update".
        read: path → input dict, fully checked (typed errors name the file and field).
        verify: (input dict, path) → None: the checks ``read`` runs, on a parsed document.
        error: the typed error of its input files (``C1Error``, ``PoStError``, ``UpdateFileError``).
        check: (input, path, shape) → None; raises :class:`ShapeMismatchError`.
        partitions: input → number of partitions (proofs) it needs.
        values: (input, partition) → the synthesis values of that partition.
        public_inputs: (input, partition) → list of ints (without ONE).
        synthesize: (cs, shape, values | None) → builds one partition.
        label: input → a short name for logs and proof files (sector id, or the PoSt kind).
        noun: what one input is, in messages ("sector", "PoSt").
        slices: input → one document per partition with only that partition's data, which
            ``values`` and ``partitions`` read as they read the whole (``jsondoc.admit``);
            None: partition jobs read the whole document. With ``whole_slice``, one document:
            the whole input in a form faster to parse, which every later step reads.
    """

    name: str
    read: Callable[[Any], dict]
    verify: Callable[[dict, Any], None]
    error: type
    check: Callable[[dict, Any, Any], None]
    partitions: Callable[[dict], int]
    values: Callable[[dict, int], dict]
    public_inputs: Callable[[dict, int], list]
    synthesize: Callable
    label: Callable[[dict], str]
    noun: str = "sector"
    slices: Callable[[dict], list] | None = None
    whole_slice: bool = False

    def describe(self, label: str) -> str:
        """An input named by its label for messages: ``"sector 1"``; a PoSt's (``"winning-post"``) as is."""
        return f"sector {label}" if self.noun == "sector" else label


FAMILIES = {
    "porep-commd": Family("porep-commd", read_c1, verify_c1, C1Error, _check_c1, lambda c1: c1["partitions"], commd.witness_from_c1,
                          commd.public_inputs, commd.synthesize, lambda c1: str(c1["sector_id"]), slices=partition_slices),
    "porep": Family("porep", read_porep_c1, verify_porep_c1, C1Error, _check_c1, lambda c1: c1["partitions"], porep.witness_from_c1,
                    porep.public_inputs, porep.synthesize, lambda c1: str(c1["sector_id"]), slices=partition_slices),
    "post": Family("post", read_post, lambda doc, path: verify_post(doc, str(path)), PoStError, _check_post, lambda doc: len(doc["partitions"]), post.values,
                   post.public_inputs, post.synthesize, lambda doc: f"{post.params_of(doc).kind}-post", "PoSt",
                   slices=post.compact_slices, whole_slice=True),
}

def _check_update(doc: dict, path, shape) -> None:
    if doc["sector_size"] != shape.sector_size:
        raise _mismatch(path, f"a SnapDeals sector of {doc['sector_size']} bytes", shape)


FAMILIES["update"] = Family(
    "update", read_update, verify_update, UpdateFileError, _check_update, lambda doc: len(doc["partitions"]),
    lambda doc, k: update.values(partition_proof(doc, k), k, **publics(doc)),
    lambda doc, k: update.public_inputs(k, **publics(doc)), update.synthesize, lambda doc: str(doc["sector_id"]))

SHAPES: dict[str, Any] = {**commd.SHAPES, **porep.SHAPES, **post.SHAPES, **update.SHAPES}


def shape_by_name(name: str):
    """The shape of any family by name. Raises ValueError naming the known shapes."""
    if name not in SHAPES:
        raise ValueError(f"unknown circuit shape {name!r}; known: {', '.join(SHAPES)}")
    return SHAPES[name]


def family_of(shape) -> Family:
    """The :class:`Family` of a shape object."""
    if isinstance(shape, commd.CommDShape):
        return FAMILIES["porep-commd"]
    if isinstance(shape, porep.PoRepShape):
        return FAMILIES["porep"]
    if isinstance(shape, post.PoStShape):
        return FAMILIES["post"]
    if isinstance(shape, update.UpdateShape):
        return FAMILIES["update"]
    raise TypeError(f"not a circuit shape: {shape!r}")


# --- the workflow's sector sizes and the shapes they are proved with ------------------------------

#: Filecoin's sector sizes by name ("2KiB" … "64GiB") → bytes.
FILECOIN_SIZES: dict[str, int] = {size_name(s): s for s in SECTOR_SIZES}
#: The PoRep circuits the workflow can prove sectors with (config ``circuit``).
POREP_CIRCUITS = ("porep", "porep-commd")
#: The PoSt kinds (config ``post``).
POST_KINDS = ("winning", "window")
# the workflow's test-only sector sizes: the test-only shape each is proved with
_TEST_SIZE_SHAPES = {
    ("porep", "test-only-256B"): "test-only-porep-256B",
    ("porep", "test-only-256B-2p"): "test-only-porep-256B-2p",
    ("porep-commd", "test-only-128B"): "test-only-commd-128B",
    ("porep-commd", "test-only-256B"): "test-only-commd-256B",
    ("porep-commd", "test-only-128B-2p"): "test-only-commd-128B-2p",
    ("winning", "test-only-256B"): "test-only-winning-post-256B-3",
    ("window", "test-only-256B"): "test-only-window-post-256B-2x2",
}
#: Every sector size a workflow config may name: Filecoin's, then the test-only ones.
WORKFLOW_SIZES: tuple[str, ...] = tuple(FILECOIN_SIZES) + tuple(sorted({s for _, s in _TEST_SIZE_SHAPES}))


def sector_shape(circuit: str, size: str) -> str | None:
    """The shape name a sector of ``size`` (a :data:`WORKFLOW_SIZES` name) is proved with by the
    PoRep ``circuit`` ("porep" or "porep-commd"); None when that circuit has no such shape.

    Raises:
        ValueError: an unknown circuit.
    """
    if circuit not in POREP_CIRCUITS:
        raise ValueError(f"unknown PoRep circuit {circuit!r}; known: {', '.join(POREP_CIRCUITS)}")
    if size in FILECOIN_SIZES:
        mod = porep if circuit == "porep" else commd
        return mod.shape_for(FILECOIN_SIZES[size]).name
    return _TEST_SIZE_SHAPES.get((circuit, size))


def update_shape(size: str) -> str | None:
    """The SnapDeals shape name of sectors of ``size`` (a :data:`WORKFLOW_SIZES` name); None for
    the test-only sizes (the update circuit's smallest is 1 KiB)."""
    return update.shape_for(FILECOIN_SIZES[size]).name if size in FILECOIN_SIZES else None


def post_shape(kind: str, size: str) -> str | None:
    """The shape name of ``kind`` PoSt ("winning" or "window") over sectors of ``size`` (a
    :data:`WORKFLOW_SIZES` name), with Filecoin's counts; None when there is none.

    Raises:
        ValueError: an unknown kind.
    """
    if kind not in POST_KINDS:
        raise ValueError(f"unknown PoSt kind {kind!r}; known: {', '.join(POST_KINDS)}")
    if size in FILECOIN_SIZES:
        return post.shape_for(kind, FILECOIN_SIZES[size]).name
    return _TEST_SIZE_SHAPES.get((kind, size))


# rust-fil-proofs' published figures for one partition (constraints as they count them)
UPSTREAM = {
    # curio's cuzk PCE extraction of rust-fil-proofs' circuit (extern/cuzk/cuzk-project.md, "PCE
    # Extraction" table: a RecordingCS that drops zero coefficients and appends one A-only row per
    # public input, as ours): constraints, inputs, aux and the non-zeros of A, B and C
    "porep-32GiB": {"constraints": 130_278_869, "inputs": 328, "aux": 130_169_893,
                    "nnz_a": 309_405_051, "nnz_b": 130_327_340, "nnz_c": 282_656_500, "nnz": 722_388_891},
    # storage-proofs-porep/tests/stacked_circuit.rs (8 nodes, base-8 trees, 2 layers, 1 challenge);
    # bellperson's TestConstraintSystem counts no input rows
    "test-only-porep-256B": {"circuit_constraints": 1_199_620, "inputs": 22},
    # filecoin-proofs/src/constants.rs, next to WINDOW_POST_SECTOR_COUNT (no input rows)
    "window-post-32GiB": {"circuit_constraints": 125_279_217},
    "window-post-64GiB": {"circuit_constraints": 129_887_900},
    # storage-proofs-update/tests/circuit.rs (TestConstraintSystem / BenchCS: no input rows)
    "update-2KiB": {"circuit_constraints": 1_705_039, "inputs": 5},
    "update-32GiB": {"circuit_constraints": 81_049_499, "inputs": 5},
    "test-only-update-32KiB": {"circuit_constraints": 6_760_091, "inputs": 5},
}


def shape_table(include_test: bool = False) -> list[dict]:
    """One row per shape: family, sizes from ``stats()`` (exact, without building the circuit)
    and upstream's figures where they exist, with the differences.

    Returns:
        dicts with keys name, family, sector_size, partitions (a PoRep sector's; None for PoSt,
        whose proof has one partition per ``sectors_per_partition`` sectors proved, the last
        one padded), sectors_per_partition (PoSt only, else None), inputs, aux, constraints
        (R1CS rows, one per public input included), circuit_constraints, nnz_a, nnz_b, nnz_c,
        nnz, domain, and ``upstream`` (dict or None) / ``diff`` (ours − upstream per key).
    """
    rows = []
    for name, shape in SHAPES.items():
        if shape.test_only and not include_test and name not in UPSTREAM:
            continue
        st = shape.stats()
        circuit = st.get("circuit_constraints", st["constraints"] - st["inputs"])
        per = shape.sector_count if isinstance(shape, post.PoStShape) else None
        row = {"name": name, "family": family_of(shape).name, "sector_size": shape.sector_size,
               "partitions": None if per else st["partitions"], "sectors_per_partition": per,
               "inputs": st["inputs"], "aux": st["aux"],
               "constraints": st["constraints"], "circuit_constraints": circuit,
               "nnz_a": st["nnz_a"], "nnz_b": st["nnz_b"], "nnz_c": st["nnz_c"],
               "nnz": st["nnz_a"] + st["nnz_b"] + st["nnz_c"], "domain": st["domain"]}
        up = UPSTREAM.get(name)
        row["upstream"] = up
        row["diff"] = {k: row[k] - v for k, v in up.items()} if up else None
        rows.append(row)
    return rows


def format_shape_table(rows: list[dict]) -> str:
    """The table of :func:`shape_table` as Markdown."""
    head = ("| shape | family | partitions | inputs | aux | constraints | nnz A | nnz B | nnz C | domain "
            "| upstream | ours (ours − upstream) |")
    out = [head, "|" + "---|" * 12]
    for r in rows:
        up = ", ".join(f"{k} {v:,}" for k, v in r["upstream"].items()) if r["upstream"] else "—"
        diff = ", ".join(f"{k} {r[k]:,} ({v:+,})" for k, v in r["diff"].items()) if r["diff"] else "—"
        parts = r["partitions"] if r["partitions"] is not None else f"1 per {r['sectors_per_partition']:,} sectors"
        out.append(f"| {r['name']} | {r['family']} | {parts} | {r['inputs']:,} | {r['aux']:,} "
                   f"| {r['constraints']:,} | {r['nnz_a']:,} | {r['nnz_b']:,} | {r['nnz_c']:,} | 2^{r['domain'].bit_length() - 1} "
                   f"| {up} | {diff} |")
    out.append("")
    out.append("partitions: of one PoRep sector; a PoSt proof has one per that many sectors proved (the last "
               "one padded), e.g. 3 for a WindowPoSt over five 2 KiB sectors.")
    out.append("constraints: R1CS rows, one per public input included (as bellperson counts them); "
               "circuit_constraints: the same without those rows (rust-fil-proofs' WindowPoSt figures).")
    return "\n".join(out)


def write_cost_table() -> None:
    """Rebuild ``gadget_costs.json`` (:mod:`cuzk.circuits.costs`) from every tabled gadget the
    shapes count (after a gadget changes; the tests compare the table with builds)."""
    for shape in SHAPES.values():
        shape.stats()
    write_table(sorted(CALLED))
