"""``witness_poseidon: inputs`` (``cuzk.r1cs.poseidon.PoseidonWalks``, ``values_computed_later``;
version 2 witness files, ``cuzk.r1cs.witness``): a WindowPoSt partition's witness keeps each
Poseidon call's distinct inputs instead of every op value, and the prover computes the values.

The reference is the ``values`` file of the same partition, whose values gmpy2 computed
(``synthesis_poseidon: python``); the ``inputs`` file's are computed when read, by the native
core and by gmpy2: the assignments must be equal, limb for limb. A proof from the ``inputs``
files verifies through the workflow's steps; a changed input is refused (not below r: a typed
error naming the file; a canonical one: the proof fails before a proof file is written), and so
are damaged headers. Also the check step of the same target with its paths hashed in workers."""

from __future__ import annotations

import contextlib
import hashlib
import json
import struct
import types

import numpy as np
import pytest
import yaml

from cuzk import pipeline
from cuzk.configcheck import config_problems
from cuzk.field import FR, LimbRuns
from cuzk.r1cs import ConstraintSystem, Unsatisfied
from cuzk.r1cs import poseidon as rpos
from cuzk.r1cs.poseidon_path import WITNESS_POSEIDON, PoseidonPathError, choose_poseidon
from cuzk.r1cs.witness import (VERSION_COMPUTED, WitnessFormatError, check_witness_file, read_witness_compact,
                               witness_compact_bytes)
from witness_util import SHAPE, post_witness_forms



@pytest.fixture(scope="module")
def post(tmp_path_factory):
    return post_witness_forms(tmp_path_factory.mktemp("inputs"))


def _version(path) -> int:
    return struct.unpack("<I", path.read_bytes()[8:12])[0]


def test_inputs_files_hold_the_values_files_assignment(post, monkeypatch):
    assert len(post["inputs"]) == len(post["values"]) == 2
    for fi, fv in zip(post["inputs"], post["values"]):
        assert _version(fi) == VERSION_COMPUTED and _version(fv) == 1
        assert fi.stat().st_size < fv.stat().st_size / 3
        check_witness_file(fi)
        assert witness_compact_bytes(fi) == witness_compact_bytes(fv)   # the device holds the values either way
        want = read_witness_compact(fv).limbs()
        cw = read_witness_compact(fi)
        assert isinstance(cw.wide, LimbRuns) and cw.wide.computed()
        assert np.array_equal(cw.limbs(), want)   # computed by the native core (auto)
        monkeypatch.setattr(rpos, "_reading_core", lambda: None)
        assert np.array_equal(read_witness_compact(fi).limbs(), want)   # by gmpy2
        monkeypatch.undo()


def test_a_proof_from_inputs_files_verifies(post):
    d = post["d"]
    pipeline.prove_batch(post["pce"], d / "k.params", [post["van"]], [d / "in"], d / "proofs", backend="cpu",
                         threads=2, checked=[post["rec"]])
    proof = next((d / "proofs").iterdir())
    res = pipeline.verify_sector(d / "k.vk", post["van"], proof, d / "v.json", shape_name=SHAPE, checked=post["rec"])
    assert res["verified"] and res["partitions"] == 2


def _sections(path):
    """(header dict, first section offset, raw bytes) of a witness file."""
    raw = path.read_bytes()
    hlen = struct.unpack("<I", raw[12:16])[0]
    pos = 16 + hlen
    return json.loads(raw[16:16 + hlen]), pos + (-pos) % 8, raw


def _rewrite(path, out, header=None, patch=None):
    """``path`` with another header and/or bytes patched at (offset from the first section,
    bytes), the checksum made again."""
    hd, pos, raw = _sections(path)
    body = bytearray(raw[pos:-32])
    if patch is not None:
        at, b = patch
        body[at:at + len(b)] = b
    hdr = json.dumps(header if header is not None else hd).encode()
    head = raw[:8] + struct.pack("<II", _version(path), len(hdr)) + hdr
    data = head + bytes((-len(head)) % 8) + bytes(body)
    out.write_bytes(data + hashlib.sha256(data).digest())
    return out


def _inputs_offset(hd) -> int:
    """Offset (from the first section) of the first computed run's inputs."""
    ni, na, nb, nw = hd["num_inputs"], hd["num_aux"], hd["num_bits"], hd["num_wide"]
    stored = nw - sum(r["values"] for r in hd["computed"])
    return 32 * ni + (na + 7) // 8 + (nb + 7) // 8 + 32 * stored


def test_changed_inputs_are_refused(post, tmp_path):
    src = post["inputs"][0]
    hd, _, _ = _sections(src)
    at = _inputs_offset(hd) + 32 * 3   # the first hash's fourth input
    bad = _rewrite(src, tmp_path / "r.wit", patch=(at, FR.modulus.to_bytes(32, "little")))
    with pytest.raises(WitnessFormatError, match="r.wit.*not below the field modulus"):
        read_witness_compact(bad)
    # a canonical change: the hash's values no longer fit its allocated inputs; no proof file
    d = tmp_path / "w"
    d.mkdir()
    _rewrite(src, d / src.name, patch=(at, (12345).to_bytes(32, "little")))
    (d / post["inputs"][1].name).write_bytes(post["inputs"][1].read_bytes())
    with pytest.raises(Unsatisfied, match="sbox.*not satisfied"):
        pipeline.prove_batch(post["pce"], post["d"] / "k.params", [post["van"]], [d], tmp_path / "proofs",
                             backend="cpu", threads=2, checked=[post["rec"]])
    assert not (tmp_path / "proofs").exists()


@pytest.mark.parametrize("fault, match", [
    (lambda r: r.__setitem__("spec", {**r["spec"], "kind": "sha256"}), "unknown computed values"),
    (lambda r: r.__setitem__("values", r["values"] + 1), "header is damaged|sizes do not match|values is"),
    (lambda r: r.__setitem__("count", r["count"] + 2), "sizes do not match"),
    (lambda r: r.__setitem__("m", 0), "rows must be|sizes do not match"),
    (lambda r: r.pop("width"), "header is damaged"),
    (lambda r: r.__setitem__("count", float("inf")), "header is damaged"),
    (lambda r: r.__setitem__("spec", {**r["spec"], "arity": 100}), "sizes do not match|arity 100"),
    (lambda r: r.__setitem__("spec", "x"), "string indices|header is damaged|must be"),
])
def test_damaged_headers_are_named(post, tmp_path, fault, match):
    hd, _, _ = _sections(post["inputs"][0])
    fault(hd["computed"][-1])
    bad = _rewrite(post["inputs"][0], tmp_path / "h.wit", header=hd)
    with pytest.raises(WitnessFormatError, match=f"h.wit: .*({match})"):
        read_witness_compact(bad)


def test_store_reads_digests_without_computing_and_other_values_by_computing(monkeypatch):
    """A hash call kept as inputs: reading its digests (the next Merkle level's inputs) computes
    nothing; reading its other op values computes them (gmpy2 here), equal to the values form."""
    rng = np.random.default_rng()
    x = rng.integers(0, 2**62, size=(5, 2)).astype(np.uint64)
    systems = []
    for later in (False, True):
        cs = ConstraintSystem(shape=False, witness=True)
        refs = cs.alloc_aux((5, 2), x)
        with rpos.values_computed_later() if later else contextlib.nullcontext():
            digests = rpos.poseidon_hash(cs, refs[[0, 1, 0, 2, 1]], 2, legacy=True)
        systems.append((cs, digests))
    (vcs, vd), (lcs, ld) = systems
    assert np.array_equal(vd, ld)
    walks = lcs._aux_vals._runs[0][3]
    assert isinstance(walks, rpos.PoseidonWalks) and walks.shape[0] == 3   # distinct calls only
    real = rpos.PoseidonWalks.take
    monkeypatch.setattr(rpos.PoseidonWalks, "take", lambda *a: pytest.fail("computed a digest"))
    assert np.array_equal(lcs.value_limbs(ld), vcs.value_limbs(vd))
    monkeypatch.setattr(rpos.PoseidonWalks, "take", real)
    every = np.arange(10, vcs.num_aux)
    assert np.array_equal(lcs.value_limbs(every), vcs.value_limbs(every))


def test_the_choice_is_checked_and_configured():
    with pytest.raises(PoseidonPathError, match="witness_poseidon: 'all'"):
        choose_poseidon("python", keep="all")
    assert choose_poseidon("python", keep="inputs").keep == "inputs"
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    schema = yaml.safe_load((root / "workflow/schemas/config.schema.yaml").read_text())
    cfg = yaml.safe_load((root / "config.yaml").read_text())
    assert cfg["witness_poseidon"] == "inputs" == schema["properties"]["witness_poseidon"]["default"] == WITNESS_POSEIDON[0]
    assert config_problems(cfg | {"witness_poseidon": "values"}, schema) == []
    assert any(p.startswith("  witness_poseidon:") for p in config_problems(cfg | {"witness_poseidon": "x"}, schema))
    assert config_problems(cfg | {"witness_poseidon": "inputs", "upstream_order": True}, schema) == []


class _Dev(np.ndarray):
    """A numpy array with CuPy's ``set``: the device array of :func:`_numpy_as_cupy`."""

    def set(self, a, stream=None):
        self[...] = a


def test_wide_values_placed_as_the_device_places_them(post, monkeypatch):
    """``cuzk.backend.cuda.computed.wide_on_device`` run with numpy in CuPy's place and the host
    core in the kernel's (``PoseidonWalks.on_device``): every run lands at its offset, computed
    runs written in place when each hash comes once in order and gathered otherwise, equal to the
    ``values`` file. (The kernel itself: ``tests/test_witness_inputs_gpu.py``.)"""
    from cuzk.backend.cuda import computed

    fake = types.SimpleNamespace(empty=lambda shape, dtype: np.empty(shape, dtype).view(_Dev), asarray=np.asarray,
                                 take=np.take, uint64=np.uint64, int64=np.int64, arange=np.arange)
    ways = []

    def on_device(self, out=None):
        ways.append(out is not None)
        vals = self.take(np.arange(self.shape[0]))
        if out is None:
            return vals
        out.reshape(vals.shape)[...] = vals
        return out

    monkeypatch.setattr(rpos.PoseidonWalks, "on_device", on_device)
    for fi, fv in zip(post["inputs"], post["values"]):
        got = computed.wide_on_device(fake, read_witness_compact(fi).wide)
        assert np.array_equal(np.asarray(got), np.asarray(read_witness_compact(fv).wide))
    rng = np.random.default_rng()
    x = rng.integers(0, 2**62, size=(4, 2, FR.limbs)).astype(np.uint64)
    walks = rpos.PoseidonWalks(x, 2, 3, "standard")
    for rows in (np.arange(4), np.array([3, 3, 0])):
        lr = LimbRuns([(np.zeros((2, FR.limbs), dtype=np.uint64), None), (walks, rows)])
        assert np.array_equal(np.asarray(computed.wide_on_device(fake, lr)), np.asarray(lr))
    # placed (rust-fil-proofs' order): rows 3, 0, 3 at offsets 9, 0, 20 among 7 stored values
    w = walks.shape[1]
    stored = rng.integers(0, 2**62, size=(7, FR.limbs)).astype(np.uint64)
    lr = LimbRuns([(stored, None)], placed=[(walks, np.array([3, 0, 3]), np.array([w + 2, 0, 2 * w + 5]))])
    want = np.asarray(lr)
    assert np.array_equal(want[w + 2:2 * w + 2], walks.take(np.array([3]))[0])
    assert np.array_equal(np.asarray(computed.wide_on_device(fake, lr)), want)
    with pytest.raises(ValueError, match="all placed or none"):
        LimbRuns([(walks, np.array([1]))], placed=lr.placed)
    assert True in ways and False in ways
    assert computed.computed_scratch_bytes(LimbRuns([(walks, np.arange(4))])) == 0
    assert computed.computed_scratch_bytes(LimbRuns([(walks, np.array([1]))])) == 32 * walks.shape[0] * walks.shape[1]


def test_the_model_counts_inputs_not_values():
    """``witness_poseidon: inputs`` in the memory model: a 32 GiB WindowPoSt partition's
    synthesize and cuda prove count WIDE_AUX_INPUTS per wide value in place of their slope; a cpu
    prove, which computes the values on the host, is unchanged."""
    from cuzk.circuits.registry import shape_by_name
    from cuzk.memory import model

    st = shape_by_name("window-post-32GiB").stats()
    for step, backend, slope in (("synthesize", "cpu", model.WIDE_AUX_SYNTH), ("prove", "cuda", 32.0)):
        v, i = (model.predict_step_bytes(step, st, backend=backend, wide_values=w) for w in (True, False))
        assert v - i == pytest.approx((slope - model.WIDE_AUX_INPUTS) * st["wide_aux"], rel=1e-9)
    assert model.predict_step_bytes("prove", st, wide_values=False) == model.predict_step_bytes("prove", st)


def test_a_porep_partition_keeps_inputs_too(tmp_path):
    """PoRep's Poseidon calls (column hashes, tree_c and tree_r_last paths) are kept as inputs as
    well: the one-layer 256 B shape's partition holds the same assignment as its values file."""
    from pce_util import header_pce

    shape = "test-only-porep-256B-1L"
    c1, rec = tmp_path / "c1.json", tmp_path / "rec.json"
    pipeline.prepare({"id": 1, "generate": 1}, c1, shape, "inputs", "00" * 32)
    pipeline.check_input(c1, rec, shape)
    pce = header_pce(tmp_path / "p.pce", shape)
    v = pipeline.synthesize_partition(c1, rec, pce, 0, tmp_path / "v.wit", poseidon="python", keep="values")
    i = pipeline.synthesize_partition(c1, rec, pce, 0, tmp_path / "i.wit", poseidon="native", keep="inputs")
    assert _version(i) == VERSION_COMPUTED and i.stat().st_size < v.stat().st_size
    assert np.array_equal(read_witness_compact(i).limbs(), read_witness_compact(v).limbs())


@pytest.mark.parametrize("offset, match", [(1 << 40, "leave the array"), (0, "overlap")])
def test_offsets_out_of_place_are_refused(post, tmp_path, offset, match):
    """A computed run's row placed past the wide values, or over another value's place."""
    hd, _, _ = _sections(post["inputs"][0])
    r = hd["computed"][0]
    at = _inputs_offset(hd) + 32 * r["m"] * r["width"] + 8 * -(-r["count"] // 2)   # its offsets section
    first = int.from_bytes(_sections(post["inputs"][0])[2][_sections(post["inputs"][0])[1] + at:][:8], "little")
    bad = _rewrite(post["inputs"][0], tmp_path / "o.wit", patch=(at, (offset or first + 1).to_bytes(8, "little")))
    with pytest.raises(WitnessFormatError, match=f"o.wit: .*{match}"):
        read_witness_compact(bad)


def test_upstream_order_places_each_call_and_proves(post, tmp_path):
    """In rust-fil-proofs' variable order (``upstream_order: true``, what Filecoin's keys take) a
    hash's values lie together but its calls are spread out: the file records each call's offset
    (placed runs), the assignment equals the values file's, and a proof from it verifies."""
    d = tmp_path
    pce = d / "up.pce"
    pipeline.pce_extract(SHAPE, pce, upstream_order=True)
    pipeline.setup_params(pce, d / "k.params", d / "k.vk", backend="cpu", threads=2)
    i = pipeline.synthesize_sector(post["van"], pce, d / "in", checked=post["rec"], poseidon="native", keep="inputs")
    v = pipeline.synthesize_sector(post["van"], pce, d / "val", checked=post["rec"], poseidon="python", keep="values")
    for fi, fv in zip(i, v):
        cw = read_witness_compact(fi)
        assert _version(fi) == VERSION_COMPUTED and cw.wide.placed
        assert np.array_equal(cw.limbs(), read_witness_compact(fv).limbs())
    pipeline.prove_batch(pce, d / "k.params", [post["van"]], [d / "in"], d / "proofs", backend="cpu", threads=2,
                         checked=[post["rec"]])
    res = pipeline.verify_sector(d / "k.vk", post["van"], next((d / "proofs").iterdir()), d / "v.json",
                                 shape_name=SHAPE, checked=post["rec"])
    assert res["verified"]


def test_the_model_counts_the_upstream_order_of_a_post_synthesis():
    from cuzk.circuits.registry import shape_by_name
    from cuzk.memory import model

    st = shape_by_name("window-post-32GiB").stats()
    for wide in (True, False):
        extra = (model.predict_step_bytes("synthesize", st, wide_values=wide, upstream_order=True)
                 - model.predict_step_bytes("synthesize", st, wide_values=wide))
        assert extra == model.UPSTREAM_ORDER_SYNTH_AUX_BYTES * st["aux"] + (32 * st["wide_aux"] if wide else 0)
    porep = shape_by_name("porep-32GiB").stats()   # not measured there: unchanged
    assert model.predict_step_bytes("synthesize", porep, upstream_order=True) == model.predict_step_bytes("synthesize", porep)


def test_the_check_hashes_paths_in_workers_and_still_refuses_a_changed_sibling(post, tmp_path, monkeypatch):
    """``check_input`` with threads: the paths' native hashes go to the synthesis workers
    (counted), the record equals the one-process check's, and a changed sibling is refused."""
    from cuzk.r1cs import parallel
    from cuzk.sector.post import PoStError

    calls = []
    real = rpos.map_rows
    monkeypatch.setattr(rpos, "map_rows", lambda *a: calls.append(a[1].shape[0]) or real(*a))
    monkeypatch.setattr(parallel, "MIN_ROWS", 2)
    one = pipeline.check_input(post["van"], tmp_path / "one.json", SHAPE, partitions=2)
    assert calls == []
    two = pipeline.check_input(post["van"], tmp_path / "two.json", SHAPE, partitions=2, threads=2)
    assert calls and one == two
    doc = json.loads(post["van"].read_text())
    doc["partitions"][0][1]["inclusion_proofs"][1]["path"][0]["hashes"][3][0] ^= 1
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(PoStError, match="bad.json"):
        pipeline.check_input(bad, tmp_path / "bad.rec.json", SHAPE, partitions=2, threads=2)
    assert not (tmp_path / "bad.rec.json").exists()


def test_later_steps_read_the_checks_compact_slice(post, monkeypatch):
    """The PoSt check writes the whole vanilla document with its hashes as hex
    (``post.compact_slices``); synthesize, prove and verify read that slice, whose values and
    public inputs are the file's."""
    from cuzk.circuits import post as cpost
    from cuzk.circuits.registry import shape_by_name
    from cuzk.sector import jsondoc
    from cuzk.sector.post import read_post

    parsed = []
    real = jsondoc.loads
    monkeypatch.setattr(jsondoc, "loads", lambda data, path, *a, **k: parsed.append(str(path)) or real(data, path, *a, **k))
    inp = pipeline._read_input(post["van"], shape_by_name(SHAPE), post["rec"])
    assert parsed[-1] == str(jsondoc.slice_path(post["rec"], 0)) and str(post["van"]) not in parsed   # (the record first)
    doc = read_post(post["van"])
    assert isinstance(inp["partitions"][0][0]["inclusion_proofs"][0]["leaf"], str)
    for k in range(2):
        a, b = cpost.values(inp, k), cpost.values(doc, k)
        assert all(np.array_equal(np.asarray(x), np.asarray(y)) for key in a
                   for x, y in zip(a[key] if key == "siblings" else [a[key]], b[key] if key == "siblings" else [b[key]]))
        assert cpost.public_inputs(inp, k) == cpost.public_inputs(doc, k)


def test_an_order_that_splits_a_call_stores_its_values(monkeypatch):
    """``ValueStore.compact`` in another order: a call whose values stay together and in order is
    placed (its rows' offsets); one split by the order makes the compact form store every value
    (computed), the same values either way."""
    from cuzk.r1cs.values import ValueStore

    rng = np.random.default_rng()
    x = rng.integers(0, 2**62, size=(3, 2, FR.limbs)).astype(np.uint64)
    walks = rpos.PoseidonWalks(x, 2, 3, "standard")
    w = walks.shape[1]
    rows = np.array([2, 0, 2])
    store = ValueStore(8)
    store.append(np.array([1, 0, 7], dtype=np.uint64))
    store.append_limbs(walks, rows, 3 * w)
    store.append(np.array([1], dtype=np.uint64))
    n = store.n
    want = np.asarray(walks.take(rows)).reshape(-1, FR.limbs)
    blocks = [np.arange(3 + i * w, 3 + (i + 1) * w) for i in range(3)]
    together = np.concatenate([[n - 1, 2], blocks[2], [0], blocks[0], blocks[1], [1]])   # calls moved whole
    split = together.copy()
    split[[2, 3]] = split[[3, 2]]   # two values of one call swapped
    for order, placed in ((together, True), (split, False)):
        _, _, nb, wide = store.compact(order=order, lazy=True)
        assert isinstance(wide, LimbRuns) == placed and (not placed or wide.placed)
        got = np.asarray(wide)
        slot_rank = {s: r for r, s in enumerate(s for s in order if s not in (0, 1, n - 1))}
        for i, blk in enumerate(blocks):
            assert np.array_equal(got[[slot_rank[s] for s in blk]], want[i * w:(i + 1) * w])
