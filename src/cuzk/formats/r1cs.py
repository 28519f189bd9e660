"""circom's ``.r1cs`` (iden3 container, magic ``r1cs``, version 1) → :class:`CircomR1CS` → ``R1CS``.

Sections (iden3 ``r1csfile``; FORMATS.md):
  1 header: u32 n8 (32), prime (n8 bytes LE), u32 nWires, nPubOut, nPubIn, nPrvIn,
    u64 nLabels, u32 nConstraints;
  2 constraints: nConstraints × (A, B, C), each linear combination u32 nTerms then nTerms ×
    (u32 wire, n8-byte coefficient in standard form);
  3 wire → label map: nWires × u64 (optional here);
  4, 5 custom gates (PLONK only): ignored.
Wire order: 0 = ONE, outputs, public inputs, private inputs, internal signals; so the public
wires (ONE, outputs, public inputs) are exactly the first ``1 + nPubOut + nPubIn`` columns.

Conventions of :meth:`CircomR1CS.to_r1cs`: columns are wires (inputs then aux, cuzk's numbering
falls out directly); after the circuit's rows it appends one row ``input_i · 0 = 0`` per public
wire (A[nc + i, i] = 1, ONE first). That is bellperson's convention *and* snarkjs' QAP
(``zkey_new.js`` adds A[nConstraints + s][s] = 1 for s = 0..nPublic), so the same ``R1CS`` feeds
cuzk's bellperson-style setup/prover and the snarkjs-style ``.zkey`` setup (``formats.zkey``),
with the same domain size (smallest power of two ≥ nConstraints + nPublic + 1).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import gmpy2
import numpy as np

from ..field.sparse import CSRMatrix
from ..field import FR
from ..r1cs.system import INPUT_GADGET, R1CS, Unsatisfied
from .iden3 import Iden3CurveError, Iden3TruncatedError, WitnessLengthError, read_container
from .encoding import le_to_ints

_MPZ = gmpy2.mpz
_R = FR.modulus
CIRCOM_GADGET = "circom"
"""Gadget name of a ``.r1cs``'s own constraints in the ``R1CS`` built by ``to_r1cs``."""


@dataclass
class CircomR1CS:
    """A circom constraint system as read from a ``.r1cs`` file.

    Attributes:
        path: the file it came from.
        prime: the field prime (BLS12-381's r).
        n_wires, n_pub_out, n_pub_in, n_prv_in, n_labels, n_constraints: header counts.
        A, B, C: :class:`CSRMatrix` of shape (n_constraints, n_wires), canonical (rows sorted by
            wire, unique, no zero coefficients); one shared ``coeffs`` table (int array).
        wire_to_label: ``(n_wires,)`` uint64 label id of each wire, or None without section 3.
    """

    path: str
    prime: int
    n_wires: int
    n_pub_out: int
    n_pub_in: int
    n_prv_in: int
    n_labels: int
    n_constraints: int
    A: CSRMatrix
    B: CSRMatrix
    C: CSRMatrix
    wire_to_label: np.ndarray | None

    @property
    def n_public(self) -> int:
        """Public values besides ONE: outputs then public inputs (snarkjs' ``nPublic``)."""
        return self.n_pub_out + self.n_pub_in

    @property
    def num_inputs(self) -> int:
        """cuzk inputs: ONE + outputs + public inputs."""
        return 1 + self.n_public

    def public_signals(self, witness) -> list[int]:
        """The values snarkjs lists in ``public.json``: witness[1 : 1 + n_public] (outputs first)."""
        return [int(v) for v in witness[1 : 1 + self.n_public]]

    def check(self, witness) -> None:
        """Check a full circom witness (``read_wtns``) against the circuit's constraints.

        Raises:
            WitnessLengthError: len(witness) != n_wires.
            ValueError: witness[0] != 1.
            Unsatisfied: the first failing constraint (row index into the ``.r1cs``).
        """
        w = np.asarray(witness, dtype=object)
        if w.shape != (self.n_wires,):
            raise WitnessLengthError(self.path, None, f"witness has {w.shape[0] if w.ndim else 0} values, "
                                     f"the circuit has {self.n_wires} wires", "r1cs")
        if w[0] != 1:
            raise ValueError(f"witness[0] (ONE) is {w[0]}, not 1")
        vals = [_spmv(m, w) for m in (self.A, self.B, self.C)]
        bad = np.flatnonzero(np.mod(vals[0] * vals[1] - vals[2], _R) != 0)
        if len(bad):
            raise Unsatisfied(int(bad[0]), CIRCOM_GADGET, f"in {self.path}")

    def to_r1cs(self) -> R1CS:
        """cuzk's finalized ``R1CS``: circuit rows, then ``input_i · 0 = 0`` per public wire.

        Returns:
            ``R1CS`` with num_inputs = 1 + n_public, num_aux = n_wires − num_inputs,
            num_constraints = n_constraints + num_inputs, the A/B/C of this file (columns =
            wires) plus the input rows in A, densities of A and B, gadgets "circom" then
            "input".
        """
        ni, nc, nw = self.num_inputs, self.n_constraints, self.n_wires
        rows = nc + ni
        coeffs = self.A.coeffs
        one = _coeff_id(coeffs, 1)
        if one is None:
            coeffs = np.append(coeffs, _MPZ(1))
            one = len(coeffs) - 1
        extra_ptr = np.arange(1, ni + 1, dtype=np.int64) + self.A.indptr[-1]
        a = CSRMatrix(
            indptr=np.concatenate([self.A.indptr, extra_ptr]),
            indices=np.concatenate([self.A.indices, np.arange(ni, dtype=np.int64)]),
            coeff_ids=np.concatenate([self.A.coeff_ids, np.full(ni, one, dtype=np.int32)]),
            coeffs=coeffs,
            shape=(rows, nw),
        )
        pad = np.full(ni, self.B.indptr[-1], dtype=np.int64)
        b = CSRMatrix(np.concatenate([self.B.indptr, pad]), self.B.indices, self.B.coeff_ids, coeffs, (rows, nw))
        pad = np.full(ni, self.C.indptr[-1], dtype=np.int64)
        c = CSRMatrix(np.concatenate([self.C.indptr, pad]), self.C.indices, self.C.coeff_ids, coeffs, (rows, nw))
        dens = []
        for m in (a, b):
            d = np.zeros(nw, dtype=bool)
            d[m.indices] = True
            dens.append(d)
        return R1CS(
            num_inputs=ni,
            num_aux=nw - ni,
            num_constraints=rows,
            A=a,
            B=b,
            C=c,
            density_a=dens[0],
            density_b=dens[1],
            gadget_starts=np.array([0, nc], dtype=np.int64),
            gadget_ids=np.array([0, 1], dtype=np.int32),
            gadget_names=(CIRCOM_GADGET, INPUT_GADGET),
        )


def _coeff_id(coeffs: np.ndarray, value: int) -> int | None:
    hit = np.flatnonzero(coeffs == value) if len(coeffs) else []
    return int(hit[0]) if len(hit) else None


def _spmv(m: CSRMatrix, w: np.ndarray) -> np.ndarray:
    out = np.full(m.shape[0], _MPZ(0), dtype=object)
    if m.nnz == 0:
        return out
    prod = m.coeffs[m.coeff_ids] * w[m.indices]
    nonempty = np.diff(m.indptr) > 0
    out[nonempty] = np.mod(np.add.reduceat(prod, m.indptr[:-1][nonempty]), _R)
    return out


def _build_csr(rows: np.ndarray, cols: np.ndarray, vals: np.ndarray, shape, table: dict) -> CSRMatrix:
    """Triplets → canonical CSR (sorted, duplicates summed, zeros dropped); ids into ``table``
    (value → id, extended in place)."""
    nrows = shape[0]
    if len(rows):
        order = np.lexsort((cols, rows))
        rows, cols, vals = rows[order], cols[order], vals[order]
        start = np.ones(len(rows), dtype=bool)
        start[1:] = (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])
        if not start.all():
            gidx = np.flatnonzero(start)
            vals = np.mod(np.add.reduceat(vals, gidx), _R)
            rows, cols = rows[gidx], cols[gidx]
        keep = vals != 0
        rows, cols, vals = rows[keep], cols[keep], vals[keep]
    ids = np.empty(len(vals), dtype=np.int32)
    for i, v in enumerate(vals):
        cid = table.get(v)
        if cid is None:
            cid = table[v] = len(table)
        ids[i] = cid
    indptr = np.zeros(nrows + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=nrows), out=indptr[1:])
    return CSRMatrix(indptr=indptr, indices=cols.astype(np.int64), coeff_ids=ids, coeffs=None, shape=shape)


def read_r1cs(path) -> CircomR1CS:
    """Read a circom ``.r1cs`` file for BLS12-381.

    Returns:
        :class:`CircomR1CS` (canonical CSR matrices; see the module docstring).

    Raises:
        Iden3FormatError: wrong magic/version, missing header or constraints section, n8 ≠ 32,
            a wire index ≥ nWires, a coefficient ≥ r, or trailing bytes (file and section named).
        Iden3CurveError: the prime is not BLS12-381's r (e.g. a BN254 ``.r1cs``).
        Iden3TruncatedError: a section ends early.
    """
    cont = read_container(path, "r1cs", 1)
    h = cont.reader(1)
    n8 = h.u32("n8")
    prime = h.bigint(n8, "prime")
    if prime != _R:
        raise h.error(f"prime {prime} is not BLS12-381's scalar field order r (compile with "
                      "circom --prime bls12381)", Iden3CurveError)
    if n8 != 32:
        raise h.error(f"n8 = {n8}, expected 32 for BLS12-381")
    n_wires = h.u32("nWires")
    n_pub_out = h.u32("nPubOut")
    n_pub_in = h.u32("nPubIn")
    n_prv_in = h.u32("nPrvIn")
    n_labels = h.u64("nLabels")
    nc = h.u32("nConstraints")
    h.done("the header")
    if 1 + n_pub_out + n_pub_in + n_prv_in > n_wires:
        raise h.error(f"{n_pub_out} outputs + {n_pub_in} public + {n_prv_in} private inputs + ONE exceed "
                      f"{n_wires} wires")

    # constraints: variable-length records, parsed per linear combination
    c = cont.reader(2)
    body = c.body
    term = 4 + n8
    tdt = np.dtype([("wire", "<u4"), ("coef", f"V{n8}")])
    rows: list[list[np.ndarray]] = [[], [], []]
    wires: list[list[np.ndarray]] = [[], [], []]
    coefs: list[list[bytes]] = [[], [], []]
    unpack = struct.Struct("<I").unpack_from
    pos, end = 0, len(body)
    for k in range(nc):
        for m in range(3):
            if pos + 4 > end:
                raise c.error(f"truncated: constraint {k} of {nc} ends at byte {pos}", Iden3TruncatedError)
            nt = unpack(body, pos)[0]
            pos += 4
            if pos + nt * term > end:
                raise c.error(f"truncated: constraint {k} of {nc} announces {nt} terms, "
                              f"{end - pos} bytes left", Iden3TruncatedError)
            if nt:
                rec = np.frombuffer(body, dtype=tdt, count=nt, offset=pos)
                wires[m].append(rec["wire"])
                rows[m].append(np.full(nt, k, dtype=np.int64))
                coefs[m].append(rec["coef"].tobytes())
                pos += nt * term
    if pos != end:
        raise c.error(f"{end - pos} unexpected bytes after {nc} constraints")

    table: dict = {}
    mats = []
    for m, name in enumerate("ABC"):
        r_ = np.concatenate(rows[m]) if rows[m] else np.zeros(0, np.int64)
        w_ = np.concatenate(wires[m]).astype(np.int64) if wires[m] else np.zeros(0, np.int64)
        v_ = le_to_ints(b"".join(coefs[m]), n8)
        if len(w_) and w_.max() >= n_wires:
            bad = int(np.flatnonzero(w_ >= n_wires)[0])
            raise c.error(f"constraint {int(r_[bad])}: {name} refers to wire {int(w_[bad])} ≥ nWires = {n_wires}")
        if len(v_) and max(v_) >= _R:
            bad = int(np.flatnonzero(v_ >= _R)[0])
            raise c.error(f"constraint {int(r_[bad])}: {name} coefficient not below r")
        mats.append(_build_csr(r_, w_, v_, (nc, n_wires), table))
    coeffs = np.empty(len(table), dtype=object)
    coeffs[:] = list(table.keys())
    mats = [CSRMatrix(m.indptr, m.indices, m.coeff_ids, coeffs, m.shape) for m in mats]

    labels = None
    if cont.has(3):
        lr = cont.reader(3)
        raw = lr.take(8 * n_wires, f"{n_wires} labels")
        lr.done(f"{n_wires} labels")
        labels = np.frombuffer(raw, dtype="<u8").astype(np.uint64)
    return CircomR1CS(str(path), prime, n_wires, n_pub_out, n_pub_in, n_prv_in, n_labels, nc,
                      mats[0], mats[1], mats[2], labels)


__all__ = ["CIRCOM_GADGET", "CircomR1CS", "read_r1cs"]
