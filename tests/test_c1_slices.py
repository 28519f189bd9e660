"""A checked C1's partition slices (``jsondoc.admit`` with ``Family.slices``): the check writes one
slice per partition beside its record with their digests; a partition job parses only its slice
after hashing the whole C1 against the record. Checked here on 2-partition PoRep and CommD
sectors: each slice's values equal the whole document's (``Family.values`` of the full parse),
each partition's witness file synthesized through the slices equals the one synthesized from
the fully checked C1, a changed or missing slice falls back to the whole document with a
warning, and a C1 changed after its check is refused even when its slices are intact."""

from __future__ import annotations

import hashlib
import json
import logging

import numpy as np
import pytest

from cuzk import pipeline
from cuzk.circuits.registry import FAMILIES, family_of, shape_by_name
from cuzk.sector.c1 import C1Error, partition_slices
from cuzk.sector.jsondoc import load_checked_partition, load_json, slice_path
from pce_util import header_pce


def _same(a, b) -> bool:
    """Equal values dicts (ints, numpy arrays of ints or objects, nested lists)."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple, np.ndarray)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


@pytest.fixture(scope="module", params=["test-only-porep-256B-2p", "test-only-commd-128B-2p"])
def checked(request, tmp_path_factory):
    """(shape, C1, check record) of a generated 2-partition sector, checked once."""
    shape = request.param
    d = tmp_path_factory.mktemp("slices")
    c1, rec = d / "c1.json", d / "checked.json"
    pipeline.prepare({"id": 7, "generate": 1}, c1, shape, "slices", "00" * 32)
    pipeline.check_input(c1, rec, shape)
    return shape, c1, rec


def test_check_writes_each_partition_slice_with_its_digest(checked):
    shape, c1, rec = checked
    fam = family_of(shape_by_name(shape))
    whole = load_json(c1, C1Error)
    record = json.loads(rec.read_text())
    assert len(record["slices"]) == fam.partitions(whole) == 2
    for k, digest in enumerate(record["slices"]):
        raw = slice_path(rec, k).read_bytes()
        assert hashlib.sha256(raw).hexdigest() == digest
        piece = json.loads(raw)
        (key, parts), = piece["vanilla_proofs"].items()
        assert [len(p) > 0 for p in parts] == [j == k for j in range(2)]   # only its own proofs
        assert _same(fam.values(piece, k), fam.values(whole, k))
        assert fam.public_inputs(piece, k) == fam.public_inputs(whole, k)
        got = load_checked_partition(c1, rec, C1Error, k)
        assert got == piece == partition_slices(whole)[k]
    assert FAMILIES["update"].slices is None and FAMILIES["post"].whole_slice   # PoSt: one compact slice (test_witness_inputs)


def test_partition_witness_through_slices_equals_the_full_read(checked, tmp_path, caplog):
    shape, c1, rec = checked
    pce = header_pce(tmp_path / "h.pce", shape)
    for k in range(2):
        with caplog.at_level(logging.WARNING, logger="cuzk.sector.jsondoc"):
            via_slice = pipeline.synthesize_partition(c1, rec, pce, k, tmp_path / f"s{k}.wit")
        assert "whole document" not in caplog.text     # the slice, not a fallback
        full = pipeline.synthesize_partition(c1, None, pce, k, tmp_path / f"f{k}.wit")
        assert via_slice.read_bytes() == full.read_bytes()
    assert (tmp_path / "s0.wit").read_bytes() != (tmp_path / "s1.wit").read_bytes()


def test_changed_or_missing_slice_falls_back_and_changed_c1_is_refused(checked, tmp_path, caplog):
    shape, c1, rec = checked
    d = tmp_path / "copy"
    d.mkdir()
    c1b, recb = d / "c1.json", d / "checked.json"
    c1b.write_bytes(c1.read_bytes())
    pipeline.check_input(c1b, recb, shape)
    whole = load_json(c1b, C1Error)
    # slice 1 edited (another sector id): not trusted, the whole document is parsed
    s1 = slice_path(recb, 1)
    s1.write_text(s1.read_text().replace('"sector_id":7', '"sector_id":8'))
    with caplog.at_level(logging.WARNING, logger="cuzk.sector.jsondoc"):
        assert load_checked_partition(c1b, recb, C1Error, 1) == whole
    assert "differs from its checked digest" in caplog.text
    slice_path(recb, 0).unlink()
    assert load_checked_partition(c1b, recb, C1Error, 0) == whole
    # a partition the record has no slice of: the whole document (its own checks follow)
    assert load_checked_partition(c1b, recb, C1Error, 5) == whole
    # the C1 changed after the check: refused, slices or not
    pipeline.check_input(c1b, recb, shape)
    c1b.write_bytes(c1b.read_bytes().replace(b'"sector_id":7', b'"sector_id":9', 1))
    with pytest.raises(C1Error, match="changed after it was checked"):
        load_checked_partition(c1b, recb, C1Error, 0)
