"""bellperson-layout .params/.vk/proof files: round trips, truncation, bit flips, bad points."""

import struct
import warnings

import numpy as np
import pytest

from cuzk.backend import get_backend
from cuzk.groth16 import (
    DevelopmentSetupWarning,
    KeyFileError,
    Prover,
    read_params,
    read_proofs,
    read_vk,
    setup,
    verify,
    write_params,
    write_proofs,
    write_vk,
)
from cuzk.r1cs import ConstraintSystem

from curve_util import g1_point_off_subgroup, g1_uncompressed
from test_groth16 import cubic


@pytest.fixture(scope="module")
def material(tmp_path_factory):
    d = tmp_path_factory.mktemp("keys")
    cs = ConstraintSystem(shape=True, witness=True)
    cubic(cs)
    ins, aux = cs.assignment()
    r1cs = cs.finalize()
    with get_backend("cpu") as bk, warnings.catch_warnings():
        warnings.simplefilter("ignore", DevelopmentSetupWarning)
        pk = setup(r1cs, bk)
        with Prover(pk, r1cs, bk) as pr:
            proofs = [pr.prove(ins, aux), pr.prove(ins, aux)]
    write_params(d / "k.params", pk)
    write_vk(d / "k.vk", pk.vk)
    write_proofs(d / "p.proof", proofs)
    return d, r1cs, pk, proofs, [int(v) for v in ins[1:]]


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CUZK_CACHE_DIR", str(tmp_path / "cache"))


def _vk_size(pk):
    return 96 * 3 + 192 * 3 + 4 + 96 * len(pk.vk.ic)


def test_round_trips(material):
    d, r1cs, pk, proofs, x = material
    pk2 = read_params(d / "k.params")
    assert pk2.to_bytes() == pk.to_bytes() == (d / "k.params").read_bytes()
    # layout: vk, then u32 BE length of h, which is n - 1
    raw = (d / "k.params").read_bytes()
    assert struct.unpack(">I", raw[_vk_size(pk) : _vk_size(pk) + 4])[0] == pk.h.shape[0]
    vk = read_vk(d / "k.vk")
    assert vk.to_bytes() == pk.vk.to_bytes()
    got = read_proofs(d / "p.proof")
    assert (d / "p.proof").stat().st_size == 384
    assert all(verify(vk, p, x) for p in got)
    # a key read back proves too
    with get_backend("cpu") as bk, Prover(pk2, r1cs, bk) as pr:
        cs = ConstraintSystem(shape=False, witness=True)
        cubic(cs)
        assert verify(vk, pr.prove(*cs.assignment()), x)


def test_check_cache(material, tmp_path):
    d, *_ = material
    read_params(d / "k.params")
    marks = [m for m in (tmp_path / "cache" / "checked-params").iterdir() if m.is_file()]
    assert len(marks) == 1
    assert read_params(d / "k.params").digest == marks[0].name


def test_checked_file_version_is_trusted_without_hashing(material, tmp_path, monkeypatch):
    """A second read of the same file costs neither the hash nor the point checks, also after
    its times changed (Snakemake touches outputs) or through a hard link; a copy (another inode) is hashed, its content
    found checked; a file replaced by changed content is checked again."""
    import hashlib as _hashlib
    import os

    from cuzk.groth16 import keys

    d, _, pk, *_ = material
    src = d / "k.params"
    first = read_params(src)
    hashed, orig = [], _hashlib.sha256

    class Counting:
        def __init__(self, data=b""):
            self._h = orig(data)
            hashed.append(len(data))

        def update(self, data):
            hashed.append(len(data))
            self._h.update(data)

        def __getattr__(self, name):
            return getattr(self._h, name)

    monkeypatch.setattr(keys.hashlib, "sha256", Counting)
    checks = []
    monkeypatch.setattr(keys._Reader, "points", lambda self, grp, what, check, _o=keys._Reader.points:
                        (checks.append(check), _o(self, grp, what, check))[1])
    os.utime(src, (1, 1))  # as Snakemake's touch of a finished job's outputs
    again = read_params(src)
    assert again.digest == first.digest and sum(hashed) < 1000
    assert checks and not any(checks)
    link = tmp_path / "link.params"   # the sweep links one key into each budget's folder
    os.link(src, link)
    assert read_params(link).digest == first.digest and sum(hashed) < 2000
    copy = tmp_path / "copy.params"
    copy.write_bytes(src.read_bytes())
    checks.clear()
    assert read_params(copy).digest == first.digest and not any(checks)  # content known: no checks
    assert sum(hashed) >= copy.stat().st_size                             # but it was hashed once
    raw = bytearray(copy.read_bytes())
    raw[-5] ^= 0x04  # inside the last b_g2 point
    (tmp_path / "new.params").write_bytes(bytes(raw))
    os.replace(tmp_path / "new.params", copy)  # replaced, as every writer here does: a new inode
    with pytest.raises(KeyFileError, match="b_g2"):
        read_params(copy)


@pytest.mark.parametrize("name", ["k.params", "k.vk", "p.proof"])
def test_truncation_names_file_and_offset(material, tmp_path, name):
    d, *_ = material
    raw = (d / name).read_bytes()
    reader = {"k.params": read_params, "k.vk": read_vk, "p.proof": read_proofs}[name]
    for cut in (0, 1, 100, len(raw) // 2 + 5, len(raw) - 1):  # not on a proof boundary
        p = tmp_path / f"cut-{cut}-{name}"
        p.write_bytes(raw[:cut])
        with pytest.raises(KeyFileError) as e:
            reader(p)
        assert str(p) in str(e.value)
        if name != "p.proof":
            assert "truncated" in str(e.value) and e.value.offset is not None


def test_bit_flips_in_points_rejected(material, tmp_path):
    d, _, pk, proofs, x = material
    raw = (d / "k.params").read_bytes()
    vk_end = _vk_size(pk)
    # one flip inside every point-bearing region: vk points, h, l, a, b_g1, b_g2
    offsets = [10, 96 + 50, 96 * 2 + 100, vk_end + 4 + 30]
    off = vk_end
    for arr in (pk.h, pk.l, pk.a, pk.b_g1, pk.b_g2):
        if arr.shape[0]:
            offsets.append(off + 4 + arr.shape[1] // 2 + 7)
        off += 4 + arr.nbytes
    for o in offsets:
        bad = bytearray(raw)
        bad[o] ^= 0x04
        p = tmp_path / f"flip-{o}.params"
        p.write_bytes(bytes(bad))
        with pytest.raises(KeyFileError) as e:
            read_params(p, check=True)
        assert str(p) in str(e.value)


def test_vk_trailing_and_flip(material, tmp_path):
    d, *_ = material
    raw = (d / "k.vk").read_bytes()
    p = tmp_path / "t.vk"
    p.write_bytes(raw + b"\x00")
    with pytest.raises(KeyFileError, match="trailing"):
        read_vk(p)
    bad = bytearray(raw)
    bad[-20] ^= 1
    p.write_bytes(bytes(bad))
    with pytest.raises(KeyFileError, match="ic"):
        read_vk(p)


def test_off_curve_and_off_subgroup_points(material, tmp_path):
    d, _, pk, _, _ = material
    raw = bytearray((d / "k.params").read_bytes())
    l_start = _vk_size(pk) + 4 + pk.h.nbytes + 4
    x, y = g1_point_off_subgroup(7)
    raw[l_start : l_start + 96] = g1_uncompressed(x, y)
    p = tmp_path / "sub.params"
    p.write_bytes(bytes(raw))
    with pytest.raises(KeyFileError, match=r"l\[0\].*subgroup"):
        read_params(p)
    raw[l_start : l_start + 96] = g1_uncompressed(x, (y + 1))
    p.write_bytes(bytes(raw))
    with pytest.raises(KeyFileError, match=r"l\[0\].*not on the curve"):
        read_params(p)


def test_proof_bit_flips(material, tmp_path):
    d, _, pk, _, x = material
    raw = (d / "p.proof").read_bytes()
    for o in (0, 5, 47, 48, 100, 143, 150, 191):
        bad = bytearray(raw)
        bad[o] ^= 0x01
        p = tmp_path / f"flip{o}.proof"
        p.write_bytes(bytes(bad))
        try:
            got = read_proofs(p)
        except KeyFileError as e:
            assert str(p) in str(e)
            continue
        assert not verify(pk.vk, got[0], x)


def test_params_that_do_not_fit_circuit(material, tmp_path):
    d, r1cs, pk, _, _ = material
    other = ConstraintSystem(shape=True, witness=False)
    from cuzk.circuits import synthetic

    synthetic.synthesize(other, 30, 2, 0.9)
    with get_backend("cpu") as bk, pytest.raises(ValueError, match="does not fit"):
        Prover(pk, other.finalize(), bk)


def test_write_is_atomic(material, tmp_path, monkeypatch):
    d, _, pk, _, _ = material
    target = tmp_path / "keep.params"
    target.write_bytes(b"old")

    class Boom(Exception):
        pass

    def broken(self):
        raise Boom()

    monkeypatch.setattr(type(pk.vk), "to_bytes", broken)
    with pytest.raises(Boom):
        write_params(target, pk)  # fails inside the temporary file's writer
    assert target.read_bytes() == b"old"
    assert [f.name for f in tmp_path.iterdir() if f.name.startswith(".keep")] == []


def test_read_params_maps_the_file_and_pages_can_be_released(material):
    """The key's arrays are views of the mapped file (no copy); ``release_pages`` hands the pages
    of a consumed slice back without changing what the array reads."""
    import mmap

    from cuzk.fileio import release_pages

    d, *_ = material
    pk = read_params(d / "k.params")
    base = pk.h
    while not isinstance(base, mmap.mmap):
        base = base.obj if isinstance(base, memoryview) else base.base
    before = pk.l.copy()
    released = release_pages(pk.l)
    assert released == 0 or released % mmap.PAGESIZE == 0
    assert np.array_equal(pk.l, before)   # read again from the page cache
    assert release_pages(np.zeros(10)) == 0
    big = np.frombuffer(base, dtype=np.uint8)
    assert release_pages(big) >= len(big) - mmap.PAGESIZE
