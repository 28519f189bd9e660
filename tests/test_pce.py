"""PCE files: round trip, evaluation from the file equals the recorded constraints, bad files."""

import hashlib
import shutil
import struct

import numpy as np
import pytest

from cuzk.backend import get_backend
from cuzk.circuits import synthetic
from cuzk.field import FR, to_limbs
from cuzk.r1cs import ConstraintSystem, lc, uint32_add, alloc_bits
from cuzk.r1cs.pce import PCEFormatError, read_pce, read_pce_header, write_pce

R = FR.modulus


def interleaved(cs, k=5, seed=1):
    """Inputs allocated between constraints, uint32 additions, and a few field multiplications."""
    rng = np.random.default_rng(seed)
    v = cs.has_values
    a_vals = rng.integers(0, 2, size=(k, 32), dtype=np.uint64) if v else None
    b_vals = rng.integers(0, 2, size=(k, 32), dtype=np.uint64) if v else None
    a = alloc_bits(cs, (k, 32), a_vals)
    x = cs.alloc_input(k, values=rng.integers(0, 1 << 60, size=k, dtype=np.uint64) if v else None)
    b = alloc_bits(cs, (k, 32), b_vals)
    s = uint32_add(cs, a, b)
    y = cs.alloc_input(k, values=cs.value(x) if v else None)
    cs.enforce(lc(x) - lc(y), lc(cs.one(k)), None, gadget="eq")
    sq = cs.alloc_aux(k, values=FR.mul(cs.value(x, dtype=object), cs.value(x, dtype=object)) if v else None)
    cs.enforce(lc(x, 3), lc(y), lc(sq, 3), gadget="mul")
    return s


def naive_eval(r1cs, w):
    """Row-by-row evaluation straight from the CSR entries with Python integers."""
    out = []
    for m in (r1cs.A, r1cs.B, r1cs.C):
        vals = []
        for row in range(m.shape[0]):
            acc = 0
            for k in range(int(m.indptr[row]), int(m.indptr[row + 1])):
                acc += int(m.coeffs[m.coeff_ids[k]]) * int(w[m.indices[k]])
            vals.append(acc % R)
        out.append(vals)
    return out


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):   # check records of this test's files only
    monkeypatch.setenv("CUZK_CACHE_DIR", str(tmp_path / "cache"))


def test_round_trip_and_evaluation(tmp_path):
    cs = ConstraintSystem(shape=True, witness=True)
    interleaved(cs)
    r1cs = cs.finalize()
    w = cs.full_assignment()
    p = tmp_path / "c.pce"
    write_pce(p, r1cs, {"shape": "test", "k": 5})
    got, desc = read_pce(p)
    assert desc == {"shape": "test", "k": 5}
    assert read_pce_header(p)["num_constraints"] == r1cs.num_constraints
    for name in ("A", "B", "C"):
        m0, m1 = getattr(r1cs, name), getattr(got, name)
        assert np.array_equal(m0.indptr, m1.indptr) and np.array_equal(m0.indices, m1.indices)
        assert list(m0.coeffs[m0.coeff_ids]) == list(m1.coeffs[m1.coeff_ids])
    assert np.array_equal(got.density_a, r1cs.density_a) and np.array_equal(got.density_b, r1cs.density_b)
    assert got.gadget_of(0) == r1cs.gadget_of(0) and got.gadget_of(got.num_constraints - 1) == "input"
    # evaluation from the file on the backend equals the naive evaluation of the recorded rows
    bk = get_backend("cpu")
    wd = bk.to_device(w)
    ref = naive_eval(r1cs, w)
    for m, expect in zip((got.A, got.B, got.C), ref):
        assert [int(v) for v in bk.to_host(bk.spmv(m, wd))] == expect
    got.check(w)
    # the file is small: 6 bytes per non-zero plus row pointers
    nnz = sum(getattr(r1cs, n).nnz for n in "ABC")
    assert p.stat().st_size < 6 * nnz + 8 * 3 * (r1cs.num_constraints + 1) + 4096


def test_mapped_read_views_the_file_and_checks_ranges(tmp_path, monkeypatch):
    """``read_pce(mapped=True)`` gives the same matrices as views of the file in its stored dtypes
    (no host copy), its range checks read slice by slice, and it refuses what the owned read
    refuses: a column index or coefficient id out of range."""
    import dataclasses
    import mmap

    from cuzk.r1cs import pce as pce_mod

    monkeypatch.setattr(pce_mod, "_RANGE_CHUNK", 7)   # many slices, a short last one
    cs = ConstraintSystem(shape=True, witness=False)
    synthetic.synthesize(cs, 300, 3, 0.9, seed=5)
    r1cs = cs.finalize()
    p = tmp_path / "m.pce"
    write_pce(p, r1cs)
    owned, _ = read_pce(p)
    mapped, _ = read_pce(p, mapped=True)
    for name in ("A", "B", "C"):
        m0, m1 = getattr(owned, name), getattr(mapped, name)
        for a in ("indptr", "indices", "coeff_ids"):
            assert np.array_equal(getattr(m0, a), getattr(m1, a)), (name, a)
        base = m1.indices
        while not isinstance(base, mmap.mmap):   # views → ndarray → memoryview → the mapping
            base = base.obj if isinstance(base, memoryview) else base.base
        assert m1.indices.dtype == np.dtype("<u4") and not m1.indices.flags.writeable
    nv = r1cs.num_vars
    for field, bad in (("indices", nv), ("coeff_ids", len(r1cs.A.coeffs))):
        arr = getattr(r1cs.A, field).copy()
        arr[len(arr) // 2] = bad
        q = tmp_path / f"bad-{field}.pce"
        with pytest.raises(PCEFormatError, match="out of range"):   # the writer refuses it: nothing written
            write_pce(q, dataclasses.replace(r1cs, A=dataclasses.replace(r1cs.A, **{field: arr})))
        assert not q.exists()
        _patched_copy(p, q, f"A.{field}", len(arr) // 2, bad)   # the same file made by hand, checksum valid
        for mode in (False, True):
            with pytest.raises(PCEFormatError, match="out of range") as e:
                read_pce(q, mapped=mode)
            assert str(q) in str(e.value)


def _patched_copy(src, dst, array: str, index: int, value: int) -> None:
    """``src`` with ``array[index] = value`` and its checksum recomputed, written to ``dst`` (a new
    file: no check record); offsets from the header as the format's docstring lays them out."""
    raw = bytearray(src.read_bytes())
    hlen = struct.unpack("<I", raw[12:16])[0]
    pos = 16 + hlen + (-(16 + hlen)) % 8
    for name, dt, n in read_pce_header(src)["arrays"]:
        if name == array:
            np.frombuffer(raw, dtype=dt, count=n, offset=pos)[index] = value
        nbytes = np.dtype(dt).itemsize * n
        pos += nbytes + (-nbytes) % 8
    raw[-32:] = hashlib.sha256(bytes(raw[:-32])).digest()
    dst.write_bytes(bytes(raw))


def test_a_checked_file_is_trusted_by_identity(tmp_path, monkeypatch):
    """The file written here, or a copy once read whole, is read again without the hash and the
    range passes; a copy (another identity) with a flipped byte is refused; ``check=True`` and a
    record of another checksum check the file again."""
    from cuzk.r1cs import pce as pce_mod

    hashed = []
    real = pce_mod.sha256_released
    monkeypatch.setattr(pce_mod, "sha256_released", lambda v: hashed.append(len(v)) or real(v))
    cs = ConstraintSystem(shape=True, witness=False)
    synthetic.synthesize(cs, 60, 2, 0.9, seed=2)
    r1cs = cs.finalize()
    p = tmp_path / "t.pce"
    write_pce(p, r1cs)
    for mode in (False, True):
        got, _ = read_pce(p, mapped=mode)
        assert np.array_equal(got.C.indices, r1cs.C.indices)
    assert hashed == []                                     # written here: trusted
    read_pce(p, check=True)
    assert len(hashed) == 1
    q = tmp_path / "copy.pce"
    shutil.copyfile(p, q)
    read_pce(q)
    read_pce(q, mapped=True)
    assert len(hashed) == 2                                 # a new identity: checked once, then trusted
    raw = bytearray(p.read_bytes())
    raw[-40] ^= 1                                           # in the last array
    bad = tmp_path / "flip.pce"
    bad.write_bytes(bytes(raw))
    with pytest.raises(PCEFormatError, match="checksum") as e:
        read_pce(bad)
    assert str(bad) in str(e.value)
    # a record whose digest is not the file's stored checksum (another file on a reused inode)
    rec = next((tmp_path / "cache" / "checked-pce" / "by-identity").iterdir())
    for r in (tmp_path / "cache" / "checked-pce" / "by-identity").iterdir():
        r.write_text("00" * 32)
    (tmp_path / "cache" / "checked-pce" / ("00" * 32)).touch()
    assert len(hashed) == 3                                 # the flipped copy was hashed (and refused)
    read_pce(p)
    assert len(hashed) == 4 and rec.exists()                # checked again, and recorded anew
    read_pce(p)
    assert len(hashed) == 4


def test_bad_files(tmp_path):
    cs = ConstraintSystem(shape=True, witness=False)
    synthetic.synthesize(cs, 50, 2, 0.9)
    p = tmp_path / "s.pce"
    write_pce(p, cs.finalize())
    raw = p.read_bytes()
    cases = {
        "magic": b"XUZKPCE\0" + raw[8:],
        "version": raw[:8] + (7).to_bytes(4, "little") + raw[12:],
        "flip": raw[:200] + bytes([raw[200] ^ 1]) + raw[201:],
        "truncated": raw[:-10],
        "empty": b"",
    }
    for name, data in cases.items():
        q = tmp_path / f"{name}.pce"
        q.write_bytes(data)
        with pytest.raises(PCEFormatError) as e:
            read_pce(q)
        assert str(q) in str(e.value), name


def test_witness_file_round_trip_and_errors(tmp_path):
    from cuzk.r1cs.witness import WitnessFormatError, read_witness, write_witness

    cs = ConstraintSystem(shape=True, witness=True)
    synthetic.synthesize(cs, 200, 3, 0.9, seed=4)
    ins, aux = cs.assignment()
    p = tmp_path / "w.bin"
    write_witness(p, ins, aux, pce_digest="abc")
    i2, a2 = read_witness(p, pce_digest="abc")
    assert [int(v) for v in i2] == [int(v) for v in ins]
    assert [int(v) for v in a2] == [int(v) for v in aux]
    n_bits = sum(1 for v in aux if v in (0, 1))
    assert p.stat().st_size < 32 * (len(ins) + len(aux) - n_bits) + len(aux) // 4 + 200
    with pytest.raises(WitnessFormatError, match="expected"):
        read_witness(p, pce_digest="other")
    raw = p.read_bytes()
    for name, data in {"flip": raw[:70] + bytes([raw[70] ^ 2]) + raw[71:], "cut": raw[:-1], "magic": b"x" + raw[1:]}.items():
        q = tmp_path / name
        q.write_bytes(data)
        with pytest.raises(WitnessFormatError) as e:
            read_witness(q)
        assert str(q) in str(e.value)


def test_witness_limbs_equal_witness_ints_and_range_is_checked(tmp_path):
    import hashlib

    from cuzk.field import from_limbs
    from cuzk.field import limbs_below_modulus as below_modulus
    from cuzk.r1cs.witness import (WitnessFormatError, read_witness, read_witness_compact, read_witness_limbs,
                                   write_witness)

    cs = ConstraintSystem(shape=True, witness=True)
    synthetic.synthesize(cs, 300, 4, 0.8, seed=6)
    ins, aux = cs.assignment()
    p = tmp_path / "w.bin"
    write_witness(p, ins, aux, pce_digest="d")
    li, la = read_witness_limbs(p, pce_digest="d")
    assert la.dtype == np.uint64 and la.shape == (len(aux), 4) and li.shape == (len(ins), 4)
    assert [int(v) for v in from_limbs(la)] == [int(v) for v in aux]
    assert [int(v) for v in from_limbs(li)] == [int(v) for v in ins]
    # below_modulus against Python's comparison, at and around r
    r = FR.modulus
    vals = [0, 1, r - 1, r, r + 1, 2**256 - 1, r - 2**64, r + 2**192]
    from cuzk.field import to_limbs
    assert below_modulus(to_limbs(vals, 4)).tolist() == [v < r for v in vals]
    # a wide value ≥ r (checksum recomputed) is refused by both readers
    raw = bytearray(p.read_bytes())
    wide_at = len(raw) - 32 - 32   # the last wide value
    raw[wide_at : wide_at + 32] = (r + 5).to_bytes(32, "little")
    raw[-32:] = hashlib.sha256(bytes(raw[:-32])).digest()
    q = tmp_path / "bad.bin"
    q.write_bytes(bytes(raw))
    for reader in (read_witness, read_witness_limbs, read_witness_compact):
        with pytest.raises(WitnessFormatError, match="modulus"):
            reader(q)
    # the compact form: the bit mask and packed bits of the file, the rest as limbs; its host
    # expansion is the limb reader's array
    cw = read_witness_compact(p, pce_digest="d")
    is_bit = np.array([int(v) in (0, 1) for v in aux])
    assert cw.is_bit().tolist() == is_bit.tolist() and cw.num_bits == int(is_bit.sum())
    assert cw.bit_values().tolist() == [int(v) for v, b in zip(aux, is_bit) if b]
    assert [int(v) for v in from_limbs(cw.wide)] == [int(v) for v, b in zip(aux, is_bit) if not b]
    assert np.array_equal(cw.limbs(), np.concatenate([li, la]))
    # a mask whose set bits disagree with the header's count (checksum recomputed) is refused
    raw = bytearray(p.read_bytes())
    from cuzk.r1cs.witness import _layout
    _, pos, sizes = _layout(p, bytes(raw))
    mask_at = pos + sizes[0]
    raw[mask_at] ^= 1 if raw[mask_at] & 1 == 0 else 2
    raw[-32:] = hashlib.sha256(bytes(raw[:-32])).digest()
    q.write_bytes(bytes(raw))
    with pytest.raises(WitnessFormatError, match="mask") as e:
        read_witness_compact(q)
    assert str(q) in str(e.value)


@pytest.mark.parametrize("small", [False, True])
def test_alloc_aux_limbs_rows_are_the_expanded_values(tmp_path, monkeypatch, small):
    """``alloc_aux_limbs(shape, limbs, rows)`` (a gadget's distinct results expanded by the store:
    ``ValueStore._put_wide`` when every value is ≥ 2^64, else the general path with a small value
    among them) stores what ``alloc_aux_limbs(shape, limbs[rows])`` stores: the same values read
    back, the same witness file; wrong rows are refused."""
    from cuzk.r1cs import values
    from cuzk.r1cs.witness import write_witness_compact

    wide = []
    real = values.ValueStore._put_wide
    monkeypatch.setattr(values.ValueStore, "_put_wide", lambda self, *a: wide.append(a[1] is not None) or real(self, *a))
    rng = np.random.default_rng()
    r = FR.modulus
    vals = [int(x) for x in rng.integers(1, 2**62, size=5 * 3)]
    distinct = [v * 2**190 % r + 2**64 for v in vals]            # all ≥ 2^64
    if small:
        distinct[4] = 7                                           # one value kept in its slot
    limbs = to_limbs(distinct, 4).reshape(5, 3, 4)
    rows = np.array([4, 0, 0, 2, 1, 4, 3], dtype=np.int64)
    files = []
    for form in ("rows", "expanded"):
        cs = ConstraintSystem(shape=False, witness=True, aux_capacity=4)   # the store grows too
        cs.alloc_aux((2,), np.array([1, 300], dtype=np.uint64))
        refs = (cs.alloc_aux_limbs((7, 3), limbs, rows=rows) if form == "rows"
                else cs.alloc_aux_limbs((7, 3), limbs[rows]))
        cs.alloc_aux((1,), np.array([2**70], dtype=object))
        assert np.array_equal(cs.value_limbs(refs), limbs[rows])
        assert [int(v) for v in cs.value(refs.reshape(-1), dtype=object)] == [distinct[3 * i + j] for i in rows for j in range(3)]
        for lazy in (False, True):   # the rows kept as a run: streamed by the writer (cuzk.field.LimbRuns)
            write_witness_compact(tmp_path / f"{form}.wit", cs.assignment_compact(lazy=lazy), pce_digest="d")
            files.append((tmp_path / f"{form}.wit").read_bytes())
    assert len(set(files)) == 1
    assert wide == ([] if small else [True, False])   # the fast path with rows, then without
    cs = ConstraintSystem(shape=False, witness=True)
    for bad in (np.array([0, 5]), np.array([0, -1]), np.array([0])):
        with pytest.raises(ValueError, match="rows"):
            cs.alloc_aux_limbs((2, 3), limbs, rows=bad)


@pytest.mark.parametrize("as_limbs,chunk", [(False, None), (True, None), (False, 8), (True, 24)])
def test_compact_assignment_writes_the_same_file(tmp_path, monkeypatch, as_limbs, chunk):
    """``write_witness_compact(cs.assignment_compact())`` (no Python int per value: what the
    synthesis step writes) gives the bytes of ``write_witness`` over ``cs.assignment()``, for a
    synthetic circuit and for values at every storage boundary (0, 1, 2, 254, 255, 2^64 − 1, 2^64,
    r − 1);
    also when the values were given as limbs (``alloc_aux_limbs``, what synthesis workers
    return), which read back as the same ints (``value``, ``value_limbs``); also when the store
    is compacted in passes of a few values (``chunk``: bit values carried across passes)."""
    from cuzk.r1cs import values
    from cuzk.r1cs.witness import read_witness, write_witness, write_witness_compact

    if chunk:
        monkeypatch.setattr(values, "COMPACT_CHUNK", chunk)

    r = FR.modulus
    vals = [0, 1, 2, 2**64 - 1, 2**64, r - 1, 1, 0, 2**200, 254, 255, 256]
    edge = ConstraintSystem(shape=True, witness=True)
    edge.alloc_input((2,), np.array([5, 2**64], dtype=object))
    if as_limbs:
        refs = edge.alloc_aux_limbs((4, 3), to_limbs(vals, 4).reshape(4, 3, 4))
        assert [int(v) for v in edge.value(refs.reshape(-1), dtype=object)] == vals
        assert np.array_equal(edge.value_limbs(refs), to_limbs(vals, 4).reshape(4, 3, 4))
        with pytest.raises(ValueError, match="below r"):
            edge.alloc_aux_limbs(1, to_limbs([r], 4))
        with pytest.raises(ValueError, match="shape"):
            edge.alloc_aux_limbs(2, to_limbs([1], 4))
    else:
        edge.alloc_aux((12,), np.array(vals, dtype=object))
        more = edge.alloc_aux((3,), np.array([254, 255, 256], dtype=np.uint64))
        assert [int(v) for v in edge.assignment()[1]] == vals + [254, 255, 256]
        back = np.arange(edge.num_aux)[::-1]   # read in another order
        assert [int(v) for v in edge.value(back, dtype=object)] == (vals + [254, 255, 256])[::-1]
        assert edge.value(more).dtype == np.uint64 and list(edge.value(more)) == [254, 255, 256]
    syn = ConstraintSystem(shape=True, witness=True)
    synthetic.synthesize(syn, 300, 4, 0.8, seed=9)
    for name, cs in (("edge", edge), ("synthetic", syn)):
        ins, aux = cs.assignment()
        write_witness(tmp_path / f"{name}.a", ins, aux, pce_digest="d")
        write_witness_compact(tmp_path / f"{name}.b", cs.assignment_compact(), pce_digest="d")
        assert (tmp_path / f"{name}.a").read_bytes() == (tmp_path / f"{name}.b").read_bytes(), name
        i2, a2 = read_witness(tmp_path / f"{name}.b")
        assert [int(v) for v in a2] == [int(v) for v in aux] and [int(v) for v in i2] == [int(v) for v in ins]


def test_limb_witness_is_taken_without_a_copy(tmp_path):
    from cuzk.groth16 import Prover
    from cuzk.r1cs.witness import read_witness_limbs, write_witness

    cs = ConstraintSystem(shape=True, witness=True)
    synthetic.synthesize(cs, 50, 2, 0.8, seed=3)
    ins, aux = cs.assignment()
    r1cs = cs.finalize()
    write_witness(tmp_path / "w", ins, aux)
    li, la = read_witness_limbs(tmp_path / "w")
    p = Prover.__new__(Prover)   # assignment() needs only the R1CS
    p.r1cs = r1cs
    w = p.assignment(li, la)
    assert np.shares_memory(w, la) and w.shape == (len(ins) + len(aux), 4)
    w2 = p.assignment(li.copy(), la.copy())   # separate arrays: concatenated
    assert not np.shares_memory(w2, la) and np.array_equal(w, w2)


def test_a_pce_of_older_code_or_the_other_order_is_stale(tmp_path):
    """``pipeline.stale_pce`` (run on every existing PCE while the workflow's DAG is built, which
    then moves a stale one aside to be rebuilt): None for what ``pce_extract`` writes now; the
    reason for a file written without the current circuit version (older code), in the other
    order, or for another shape."""
    from cuzk import pipeline
    from cuzk.circuits.registry import shape_by_name

    shape = "test-only-commd-128B"
    p = tmp_path / "now.pce"
    pipeline.pce_extract(shape, p)
    assert pipeline.stale_pce(p, shape) is None
    assert "block order" in pipeline.stale_pce(p, shape, upstream_order=True)
    r1cs, _ = read_pce(p)
    old = tmp_path / "old.pce"
    write_pce(old, r1cs, shape_by_name(shape).describe())        # as code before the version was written
    assert f"circuit version 1, this code builds version {pipeline.CIRCUIT_VERSIONS['porep-commd']}" in pipeline.stale_pce(old, shape)
    other = tmp_path / "other.pce"
    write_pce(other, r1cs, pipeline.pce_description(shape_by_name("test-only-commd-256B")))
    assert "description is not" in pipeline.stale_pce(other, shape)
