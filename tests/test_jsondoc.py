"""Strict reading of sector JSON documents and the check-once record (cuzk.sector.jsondoc)."""

import gc
import json
import os

import pytest

from cuzk.sector import jsondoc
from cuzk.sector.c1 import C1Error, read_c1
from cuzk.sector.jsondoc import MAX_DEPTH, admit, load_checked, loads, read_record
from cuzk.sector.post import PoStError


@pytest.mark.parametrize("raw, field, words", [
    (b'{"a": "\xff"}', "<encoding>", "not UTF-8"),
    (b"[" * 5000 + b"]" * 5000, "<json>", "nested deeper"),
    (b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1), "<json>", "nested deeper"),
    (b'{"partitions": 2.0}', "<json>", "fraction or exponent"),
    (b'{"x": 1e3}', "<json>", "fraction or exponent"),
    (b'{"x": NaN}', "<json>", "not a JSON number"),
    (b'{"x": -Infinity}', "<json>", "not a JSON number"),
    (b'{"x": ' + b"9" * 5000 + b"}", "<json>", "digit"),
    (b'{"x": ', "<json>", "not valid JSON"),
])
def test_strict_reading_raises_the_typed_error(raw, field, words):
    for err in (C1Error, PoStError):
        with pytest.raises(err) as e:
            loads(raw, "f.json", err)
        assert e.value.field == field and words in str(e.value) and "f.json" in str(e.value)


def test_collection_is_paused_only_while_parsing(monkeypatch):
    """loads turns the cyclic collector off for the parse (it cost about half of a 203 MB
    vanilla file's parse) and back on after it, also when the document is refused; a caller
    that had it off keeps it off."""
    seen, parse = [], json.loads
    monkeypatch.setattr(jsondoc.json, "loads", lambda *a, **k: seen.append(gc.isenabled()) or parse(*a, **k))
    assert gc.isenabled()
    assert loads(b'{"a": [1, 2]}', "f", C1Error) == {"a": [1, 2]} and gc.isenabled()
    with pytest.raises(C1Error):
        loads(b'{"x": 1.5}', "f", C1Error)
    assert gc.isenabled()
    with pytest.raises(C1Error):
        loads(b"[" * 5000 + b"]" * 5000, "f", C1Error)
    assert gc.isenabled()
    gc.disable()
    try:
        loads(b"[1]", "f", C1Error)
        assert not gc.isenabled()
    finally:
        gc.enable()
    assert seen == [False] * 4


def test_depth_limit_is_exact():
    ok = b"[" * MAX_DEPTH + b"]" * MAX_DEPTH
    assert loads(ok, "f", C1Error) is not None


def test_integers_past_u64_are_refused_by_the_schema(tmp_path):
    from cuzk.sector.c1 import build_c1, write_c1

    c1 = build_c1(bytes(2048), 2048, 1, bytes(32), bytes(32), bytes(32), 1, 2)
    c1["sector_id"] = 1 << 64
    p = tmp_path / "big.c1.json"
    write_c1(p, c1)
    with pytest.raises(C1Error, match="sector_id"):
        read_c1(p)


def _c1_file(tmp_path):
    from cuzk.sector.c1 import build_c1, verify_c1, write_c1

    c1 = build_c1(bytes(b & 0x3F for b in range(256)) * 8, 2048, 3, bytes(32), bytes([1] * 32), bytes([2] * 32), 1, 2)
    p = tmp_path / "s.c1.json"
    write_c1(p, c1)
    return p, verify_c1


def test_admit_then_load_checked_trusts_by_digest(tmp_path):
    p, verify = _c1_file(tmp_path)
    rec = admit(p, tmp_path / "s.checked.json", verify, C1Error, synthetic=False)
    assert read_record(tmp_path / "s.checked.json", C1Error) == rec and rec["synthetic"] is False
    assert load_checked(p, tmp_path / "s.checked.json", C1Error) == json.loads(p.read_text())


def test_a_document_changed_after_its_check_is_refused(tmp_path):
    p, verify = _c1_file(tmp_path)
    admit(p, tmp_path / "s.checked.json", verify, C1Error)
    doc = json.loads(p.read_text())
    doc["sector_id"] += 1  # still well-formed; only the digest tells
    p.write_text(json.dumps(doc))
    with pytest.raises(C1Error) as e:
        load_checked(p, tmp_path / "s.checked.json", C1Error)
    assert e.value.field == "<sha256>" and str(p) in str(e.value) and "changed after it was checked" in str(e.value)


def test_admit_refuses_a_bad_document_and_writes_no_record(tmp_path):
    p, verify = _c1_file(tmp_path)
    doc = json.loads(p.read_text())
    doc["vanilla_proofs"][next(iter(doc["vanilla_proofs"]))][0][0]["comm_d_proofs"]["leaf"][0] ^= 1
    p.write_text(json.dumps(doc))
    with pytest.raises(C1Error):
        admit(p, tmp_path / "s.checked.json", verify, C1Error)
    assert not (tmp_path / "s.checked.json").exists()


def test_a_rejection_record_is_never_trusted(tmp_path):
    """The record of a refused document (``reject``: the workflow's check_c1 with a batch going on
    without the sector) names the reason; every reader raises the typed error with it, the slices
    a passing check left beside it included, and the run's DAG-time check takes it as sound."""
    from cuzk.damaged import damaged_files
    from cuzk.sector.jsondoc import load_checked_partition, reject, rejection

    p, verify = _c1_file(tmp_path)
    rec_path = tmp_path / "s.checked.json"
    admit(p, rec_path, verify, C1Error, slices=lambda doc: [doc])   # a passing check first: its slice stays
    assert rejection(rec_path) is None and rejection(tmp_path / "missing.json") is None
    doc = json.loads(p.read_text())
    doc["vanilla_proofs"][next(iter(doc["vanilla_proofs"]))][0][0]["comm_d_proofs"]["leaf"][0] ^= 1
    p.write_text(json.dumps(doc))
    with pytest.raises(C1Error) as refused:
        admit(p, rec_path, verify, C1Error)
    rec = reject(p, rec_path, refused.value)
    assert rec["rejected"] == str(refused.value) and rec["error"] == "C1Error" and rec["bytes"] == p.stat().st_size
    assert rejection(rec_path) == str(refused.value) and read_record(rec_path, C1Error) == rec
    for read in (lambda: load_checked(p, rec_path, C1Error), lambda: load_checked_partition(p, rec_path, C1Error, 0)):
        with pytest.raises(C1Error) as e:
            read()
        assert e.value.field == "<check>" and "rejected by its check" in str(e.value) and str(refused.value) in str(e.value)
    assert damaged_files([rec_path]) == []
    # a rejection record where the document should be (import_c1's) is refused by admit, reason kept
    with pytest.raises(C1Error) as e:
        admit(rec_path, tmp_path / "again.checked.json", verify, C1Error)
    assert e.value.field == "<rejected>" and str(refused.value) in str(e.value)
    assert not (tmp_path / "again.checked.json").exists()


def test_a_rejection_of_a_changed_file_is_stale(tmp_path):
    """``stale_rejection``: a rejection whose refused file changed since (also with an older
    modification time, as ``cp -p`` leaves it) is stale; with an imported C1's rejection in the
    refused file's place, a change of the source makes both stale, the inner one first; a current
    rejection, an admitting record, and a refused file that is gone are not."""
    from cuzk.sector.jsondoc import reject, stale_rejection

    p, verify = _c1_file(tmp_path)
    good = p.read_bytes()
    admitted = tmp_path / "ok.checked.json"
    admit(p, admitted, verify, C1Error)
    assert stale_rejection(admitted) == [] and stale_rejection(tmp_path / "missing.json") == []
    bad = json.loads(good)
    bad["vanilla_proofs"][next(iter(bad["vanilla_proofs"]))][0][0]["comm_d_proofs"]["leaf"][0] ^= 1
    p.write_text(json.dumps(bad))
    with pytest.raises(C1Error) as refused:
        admit(p, tmp_path / "x.checked.json", verify, C1Error)
    imported = tmp_path / "s.imported.json"        # import_c1's record in the imported C1's place
    reject(p, imported, refused.value)
    rec = tmp_path / "s.checked.json"              # check_c1's record of that file
    reject(imported, rec, C1Error(imported, "<rejected>", "rejected before"))
    assert stale_rejection(rec) == [] and stale_rejection(imported) == []
    old = rec.stat().st_mtime - 3600
    p.write_bytes(good)                            # the source replaced by a sound copy, older
    os.utime(p, (old, old))
    assert stale_rejection(imported) == [str(imported)]
    assert stale_rejection(rec) == [str(imported), str(rec)]
    p.unlink()                                     # gone: nothing new to check
    assert stale_rejection(imported) == []


def test_depth_scan_in_chunks_equals_the_parsed_depth(monkeypatch):
    """The bracket scan, run in chunks of 7 bytes (a chunk boundary inside every run of
    brackets), gives the depth of the parsed document, brackets inside strings ignored, escaped quotes
    and backslashes among them."""
    import json
    import random

    from cuzk.sector import jsondoc

    def parsed_depth(x):
        if isinstance(x, (list, dict)):
            vals = x.values() if isinstance(x, dict) else x
            return 1 + max((parsed_depth(v) for v in vals), default=0)
        return 0

    def doc(rng, d):
        if d == 0 or rng.random() < 0.2:
            return rng.choice([1, "a[b]{", "]]}}", 7, "a[b]{", "]]}}", 7, 'q"[', "\\\\]"])
        if rng.random() < 0.5:
            return [doc(rng, d - 1) for _ in range(rng.randint(0, 3))]
        return {f"k{i}[": doc(rng, d - 1) for i in range(rng.randint(0, 3))}

    monkeypatch.setattr(jsondoc, "_DEPTH_CHUNK", 7)
    rng = random.Random(5)
    for _ in range(300):
        x = doc(rng, rng.randint(0, 12))
        assert jsondoc._depth(json.dumps(x).encode()) == parsed_depth(x)
