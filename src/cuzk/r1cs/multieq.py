"""bellman's MultiEq (bellperson ``gadgets/multieq.rs``): equalities of bit decompositions packed
into one constraint each while they fit below the field's capacity (the SHA-256 additions')."""

from __future__ import annotations

import numpy as np

from .system import LC, ConstraintSystem, R, lc

CAPACITY = R.bit_length() - 1  # Fr::CAPACITY = 254: bits an integer may have to fit below r


def col_key(refs: np.ndarray) -> np.ndarray:
    """A key increasing with the final column of refs (inputs, ONE first, before aux)."""
    return np.where(refs < 0, -refs - 1 - (1 << 62), refs)


class MultiEq:
    """bellman's MultiEq: equalities Σ lhs = Σ 2^j·bits of ``nbits`` bits each are summed with
    shifts into one constraint ``(Σ 2^s·lhs) · ONE = Σ 2^s·rhs`` while the total width stays
    below CAPACITY (the integers on both sides then stay below r and the mixed-radix
    decomposition is unique, so the packed constraint implies each equality)."""

    def __init__(self, cs: ConstraintSystem, k: int, gadget: str):
        self.cs, self.k, self.gadget = cs, k, gadget
        self.lhs: dict[int, list] = {}  # id(word) -> [word, multiplier]: shared operands merge
        self.rhs: list = []
        self.bits = 0

    def enforce_equal(self, nbits: int, operands, result_refs) -> None:
        if CAPACITY <= self.bits + nbits:
            self.flush()
        if self.cs.has_shape:  # a witness-only system only needs the flush points
            shift = 1 << self.bits
            for w in operands:
                self.lhs.setdefault(id(w), [w, 0])[1] += shift
            self.rhs.append((result_refs, shift))
        self.bits += nbits

    def flush(self) -> None:
        if not self.bits:
            return
        self.cs.enforce_lazy(self.k, self._rows, gadget=self.gadget)
        self.lhs, self.rhs, self.bits = {}, [], 0

    def _rows(self):
        """The packed constraint (one block of k rows)."""
        cs, k = self.cs, self.k
        refs_parts, coeffs, const = [], [], 0
        for w, mult in self.lhs.values():
            refs, co, c = w.terms()
            const += c * mult
            refs_parts.append(refs)
            coeffs.extend(x * mult % R for x in co)
        refs = np.concatenate(refs_parts, axis=1)
        a = LC.zero()
        if refs.shape[1]:
            # order the columns as in instance 0: every instance's row is then usually already
            # sorted (variables come in blocks allocated for all k at once), which keeps
            # enforce off its per-row sorting path
            order = np.argsort(col_key(refs[0]), kind="stable") if k else np.arange(refs.shape[1])
            a = lc(refs[:, order], tuple(coeffs[i] for i in order))
        if const % R:
            a = lc(cs.one(k), const) + a
        c_lc = LC.zero()
        for refs, shift in self.rhs:
            c_lc = c_lc + lc(refs, tuple(shift << j for j in range(refs.shape[1])))
        yield a, cs.one(k), c_lc
