"""``synthesis_sha: prover``: the witness file keeps the SHA-256 compressions' input words (version
3, ``cuzk.backend.sha_host.deferred_compute``) and the prover computes their bits. On the CPU:
the core's words without its bits against hashlib (FIPS 180-4's compression of a padded block)
and against the same core with its bits;
a real 2 KiB PoRep partition's file, its bits computed on the host (``CompactAssignment.resolved``),
equal to the native path's file value for value and byte for byte once written; a changed input
word changes the bits; damaged or inconsistent tables refused with the file named; upstream order
refused. The device fill is ``tests/test_sha_witness_gpu.py``'s."""

from __future__ import annotations

import hashlib
import json
import shutil
import struct
from pathlib import Path

import numpy as np
import pytest

from cuzk import pipeline
from cuzk.backend import sha_host
from cuzk.backend.sha_host import JOB_DTYPE, ShaJobs, host_core
from cuzk.r1cs.sha_path import ShaPathError, choose_sha
from cuzk.r1cs.witness import WitnessFormatError, check_witness_file, read_witness_compact, write_witness_compact
from pce_util import header_pce

ROOT = Path(__file__).resolve().parents[1]
SHAPE = "porep-2KiB"
IV = [0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19]

pytestmark = pytest.mark.skipif(shutil.which("g++") is None and shutil.which("c++") is None,
                                reason="no C++ compiler")


def test_words_without_bits_are_the_fips_compression_and_the_bit_cores_words():
    rng = np.random.default_rng(5)
    msgs = [rng.bytes(n) for n in (0, 3, 31, 55)]
    vals = np.zeros((len(msgs) + 6, 24), dtype=np.uint32)
    for i, m in enumerate(msgs):   # one padded block each (FIPS 180-4 5.1.1): compress(IV, block) is the digest
        block = m + b"\x80" + bytes(55 - len(m)) + struct.pack(">Q", 8 * len(m))
        vals[i, :8] = IV
        vals[i, 8:] = np.frombuffer(block, dtype=">u4")
    vals[len(msgs):] = rng.integers(0, 1 << 32, size=(6, 24), dtype=np.uint64)
    jobs = np.zeros(len(vals), dtype=JOB_DTYPE)   # every column a variable
    jobs["k"], jobs["first"], jobs["base"] = 1, np.arange(len(vals)), 0
    table = ShaJobs(jobs, np.arange(len(vals), dtype=np.uint32), vals, 0)
    none, got = host_core()(table, bits=False)
    assert none is None
    for i, m in enumerate(msgs):
        assert got[i].astype(">u4").tobytes() == hashlib.sha256(m).digest()
    slots, outw = host_core()(table, 1 << 20)   # the same lanes with their bits
    assert np.array_equal(got, outw) and slots.any()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A real 2 KiB sector (sealed from data/samples/gettysburg-address.txt), partition 0's
    witness by the native path and by the prover path."""
    d = tmp_path_factory.mktemp("prover")
    c1, rec = d / "c1.json", d / "checked.json"
    pipeline.prepare({"id": 1, "data": str(ROOT / "data/samples/gettysburg-address.txt")}, c1, SHAPE,
                     "sha-prover", "00" * 32)
    pipeline.check_input(c1, rec, SHAPE)
    pce = header_pce(d / "block.pce", SHAPE)
    native = pipeline.synthesize_partition(c1, rec, pce, 0, d / "native.wit", sha="native")
    prover = pipeline.synthesize_partition(c1, rec, pce, 0, d / "prover.wit", sha="prover")
    return native, prover, (c1, rec, pce)


@pytest.mark.parametrize("piece", [None, 64])   # fill_bits's pieces: whole, and 64 aux at a time
def test_prover_file_resolves_to_the_native_witness(files, tmp_path, piece, monkeypatch):
    if piece:
        monkeypatch.setattr(sha_host, "_FILL_PIECE", piece)
    native, prover, _ = files
    nat, cw = read_witness_compact(native), read_witness_compact(prover)
    assert nat.sha is None and cw.sha is not None
    assert struct.unpack("<I", prover.read_bytes()[8:12])[0] == 3
    # most of the aux are the table's compressions' bits, and the file holds 0 for nearly all
    assert cw.sha.end > 0.95 * cw.num_aux and len(cw.sha.jobs) > 40
    assert np.unpackbits(cw.bits).sum() < 0.2 * np.unpackbits(nat.bits).sum()
    full = cw.resolved()
    assert full.sha is None and np.array_equal(full.bits, nat.bits) and np.array_equal(full.mask, nat.mask)
    assert np.array_equal(cw.limbs(), nat.limbs())   # limbs() resolves on its own
    write_witness_compact(tmp_path / "resolved.wit", full, json.loads(native.read_bytes()[16:16 + struct.unpack(
        "<I", native.read_bytes()[12:16])[0]])["pce_digest"])
    assert (tmp_path / "resolved.wit").read_bytes() == native.read_bytes()


def test_a_changed_input_word_changes_the_bits(files):
    _, prover, _ = files
    cw = read_witness_compact(prover)
    table = cw.sha._replace(vals=cw.sha.vals.copy())
    table.vals[3, 10] ^= 1 << 7
    cw.sha = table
    assert not np.array_equal(cw.resolved().bits, read_witness_compact(prover).resolved().bits)


def _rewrite(src: Path, dst: Path, edit) -> Path:
    """``src``'s sections with ``edit(cw)`` applied, written (checksummed) to ``dst``."""
    cw = read_witness_compact(src)
    edit(cw)
    write_witness_compact(dst, cw)
    return dst


def test_damaged_or_inconsistent_tables_are_refused(files, tmp_path):
    _, prover, _ = files

    def lane_elsewhere(cw):
        job_of = cw.sha.job_of.copy()
        job_of[0] = len(cw.sha.jobs) - 1   # lane 0 named as the last call's
        cw.sha = cw.sha._replace(job_of=job_of)

    bad = _rewrite(prover, tmp_path / "lane.wit", lane_elsewhere)
    with pytest.raises(WitnessFormatError, match="lane.wit: a lane of the SHA-256 job table lies outside"):
        read_witness_compact(bad)

    def unknown_call(cw):
        job_of = cw.sha.job_of.copy()
        job_of[-1] = len(cw.sha.jobs)
        cw.sha = cw.sha._replace(job_of=job_of)

    with pytest.raises(WitnessFormatError, match="names a call it does not hold"):
        read_witness_compact(_rewrite(prover, tmp_path / "call.wit", unknown_call))
    check_witness_file(prover)   # the workflow's DAG-time check reads the table's sections too
    (tmp_path / "short.wit").write_bytes(prover.read_bytes()[:-100])
    with pytest.raises(WitnessFormatError, match="short.wit: .* bytes, the header describes"):
        check_witness_file(tmp_path / "short.wit")
    raw = bytearray(prover.read_bytes())   # a truncated table: the checksum names it
    with pytest.raises(WitnessFormatError, match="checksum"):
        (tmp_path / "cut.wit").write_bytes(bytes(raw[:-500]) + bytes(raw[-32:]))
        read_witness_compact(tmp_path / "cut.wit")
    hlen = struct.unpack("<I", raw[12:16])[0]
    hd = json.loads(raw[16:16 + hlen])
    for edit, match in ((lambda h: h["sha"].update(end=h["num_aux"] + 1), "outside the"),
                        (lambda h: h.pop("sha"), "disagree with the version")):
        h = json.loads(json.dumps(hd))
        edit(h)
        new = json.dumps(h).encode()
        head = raw[:12] + struct.pack("<I", len(new)) + new
        body = bytes(head) + bytes((-len(head)) % 8) + bytes(raw[16 + hlen + (-(16 + hlen)) % 8:-32])
        (tmp_path / "hdr.wit").write_bytes(body + hashlib.sha256(body).digest())
        with pytest.raises(WitnessFormatError, match=f"hdr.wit: header is damaged: .*{match}"):
            read_witness_compact(tmp_path / "hdr.wit")


def test_prover_is_refused_in_upstream_order(files, tmp_path):
    c1, rec, _ = files[2]
    with pytest.raises(ShaPathError, match="synthesis_sha: prover computes the SHA-256 witness in cuzk's block order"):
        choose_sha("prover", upstream_order=True)
    up = header_pce(tmp_path / "up.pce", SHAPE, upstream=True)
    with pytest.raises(ShaPathError):
        pipeline.synthesize_partition(c1, rec, up, 0, tmp_path / "up.wit", sha="prover")
    assert not (tmp_path / "up.wit").exists()
