"""Every reader refuses damaged input with the project's typed error, never a generic exception:
10,000 seeded mutations per format (bytes flipped, cut, inserted; for JSON also values swapped
for floats, strings, huge or negative integers, deep nesting, keys removed; for the iden3
binaries also counts, sizes and indices set to edge values). A mutation the reader accepts must
be harmless (it read back a valid document; for circom/snarkjs files, exactly what an independent
parse of the mutated bytes finds); every read is time-bounded; the counts are printed."""

import contextlib
import copy
import json
import os
import random
import signal
import struct
import tempfile
from pathlib import Path

import numpy as np
import pytest

from cuzk.errors import CuzkError
from cuzk.groth16 import read_params, read_proofs, read_vk, setup, write_params, write_proofs, write_vk
from cuzk.groth16.keys import Proof
from cuzk.r1cs import ConstraintSystem
from cuzk.r1cs.pce import read_pce, write_pce
from cuzk.r1cs.witness import read_witness, write_witness
from cuzk.sector.c1 import build_c1, read_c1, write_c1
from cuzk.sector.porep_c1 import read_porep_c1, write_porep_c1
from cuzk.sector.synthetic import synthetic_c1

N = 10_000


def _byte_mutation(rng: random.Random, raw: bytes) -> bytes:
    b = bytearray(raw)
    kind = rng.randrange(4)
    if kind == 0:                       # flip bits of one byte
        i = rng.randrange(len(b))
        b[i] ^= 1 << rng.randrange(8) if rng.random() < 0.5 else rng.randrange(1, 256)
    elif kind == 1:                     # cut
        b = b[: rng.randrange(len(b))]
    elif kind == 2:                     # insert random bytes
        i = rng.randrange(len(b) + 1)
        b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 9)))
    else:                               # overwrite a run
        i = rng.randrange(len(b))
        for j in range(i, min(len(b), i + rng.randrange(1, 33))):
            b[j] = rng.randrange(256)
    return bytes(b)


_ODD_VALUES = (2.0, 1e3, -1, 1 << 64, 1 << 70, "7", None, True, [], {}, [[[[[[[[1]]]]]]]], 10**400)


def _json_paths(doc) -> list[tuple]:
    """(path to a container, key in it) for the values a JSON mutation may change (up to about
    4,000, found depth first); computed once per document."""
    paths, stack = [], [((), doc)]
    while stack:
        path, node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for k, v in items:
            paths.append((path, k))
            if isinstance(v, (dict, list)) and len(paths) < 4000:
                stack.append((path + (k,), v))
    return paths


def _json_mutation(rng: random.Random, doc, paths: list[tuple]) -> bytes:
    """One value of ``doc`` (a JSON-ready document, never changed) replaced, removed or wrapped;
    only the containers on the way to it are copied."""
    path, key = rng.choice(paths)
    doc = parent = copy.copy(doc)
    for k in path:
        parent[k] = copy.copy(parent[k])
        parent = parent[k]
    kind = rng.randrange(4)
    if kind == 0 or isinstance(parent, list):
        parent[key] = rng.choice(_ODD_VALUES)
    elif kind == 1:
        del parent[key]
    elif kind == 2:
        parent[key] = "[" * 3000 + "]" * 3000
    else:
        parent[key] = {"x": parent[key]}
    text = json.dumps(doc)
    if kind == 2:
        text = text.replace('"' + "[" * 3000 + "]" * 3000 + '"', "[" * 3000 + "]" * 3000)
    return text.encode()


_EDGE_WORDS = (0, 1, 2, 3, 31, 32, 33, 48, 96, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 1 << 32, 1 << 63, (1 << 64) - 1)


def _word_mutation(rng: random.Random, raw: bytes) -> bytes:
    """Half the time a byte mutation; else one aligned little-endian u32/u64 (a count, size,
    index or limb of an iden3 file) set to an edge value or moved by ±1 or ±2."""
    if rng.random() < 0.5:
        return _byte_mutation(rng, raw)
    b = bytearray(raw)
    width = rng.choice((4, 8))
    i = rng.randrange(len(b) - width + 1) & ~3
    old = int.from_bytes(b[i : i + width], "little")
    v = rng.choice(_EDGE_WORDS) if rng.random() < 0.7 else old + rng.choice((-2, -1, 1, 2))
    b[i : i + width] = (v % (1 << 8 * width)).to_bytes(width, "little")
    return bytes(b)


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang


def _ram_dir(tmp: Path):
    """A folder in memory (/dev/shm) where there is one, else ``tmp``: the readers still read a real
    file per mutation, without a disk write (about 2 ms each on the CI machine's ext4, most of
    the fuzz's time)."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        return tempfile.TemporaryDirectory(dir=shm, prefix="cuzk-fuzz-")
    return contextlib.nullcontext(tmp)


def _fuzz(tmp: Path, raw: bytes, reader, doc=None, n: int = N, seed: int = 1, mutate=_byte_mutation,
          check=None, limit_s: float = 5.0) -> dict:
    """Read ``n`` mutations of ``raw`` (JSON mutations of ``doc`` every other one when given), each
    from a file in memory where there is one (``_ram_dir``); ``check(result, data)`` judges each
    accepted one. Fails on a generic exception or a read over ``limit_s`` (SIGALRM); returns the
    counts."""
    rng = random.Random(seed)
    counts = {"typed": 0, "other": 0, "hang": 0, "accepted": 0}
    if doc is not None:
        doc = json.loads(json.dumps(doc))   # JSON's own types (lists, string keys)
        paths = _json_paths(doc)
    previous = signal.signal(signal.SIGALRM, _alarm)
    try:
        with _ram_dir(tmp) as d:
            path = Path(d) / "m"
            for i in range(n):
                data = _json_mutation(rng, doc, paths) if doc is not None and i % 2 else mutate(rng, raw)
                path.unlink(missing_ok=True)  # a truncating rewrite makes ext4 flush the file each time
                path.write_bytes(data)
                signal.setitimer(signal.ITIMER_REAL, limit_s)
                try:
                    out = reader(path)
                except CuzkError:
                    counts["typed"] += 1
                    continue
                except _Hang:
                    counts["hang"] += 1
                    pytest.fail(f"mutation {i}: read took over {limit_s} s {counts}\n{data[:300]!r}")
                except Exception as e:  # noqa: BLE001  (the point of the test)
                    counts["other"] += 1
                    pytest.fail(f"mutation {i} raised {type(e).__name__}: {str(e)[:300]} {counts}\n{data[:300]!r}")
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                counts["accepted"] += 1
                if check is not None:
                    try:
                        check(out, data)
                    except AssertionError as e:
                        pytest.fail(f"mutation {i} was accepted but read wrong: {e}\n{data[:300]!r}")
    finally:
        signal.signal(signal.SIGALRM, previous)
    print(getattr(reader, "__name__", reader), counts)
    return counts


def test_commd_c1_reader(tmp_path):
    c1 = build_c1(bytes(256), 256, 1, bytes(32), bytes(32), bytes(32), 2, 1)
    write_c1(tmp_path / "c.json", c1)
    c = _fuzz(tmp_path, (tmp_path / "c.json").read_bytes(), read_c1, c1)
    assert c["typed"] > N * 0.9


def test_porep_c1_reader(tmp_path):
    c1 = synthetic_c1(256, 3, bytes(32), bytes([1] * 32), bytes([2] * 32), layers=2, partitions=1, challenges=1)
    write_porep_c1(tmp_path / "p.json", c1)
    c = _fuzz(tmp_path, (tmp_path / "p.json").read_bytes(), read_porep_c1, c1)
    assert c["typed"] > N * 0.9


def test_filecoin_c1_reader(tmp_path):
    """Filecoin's SealCommitPhase1Output (a test-only 256 B sector, 1 challenge) and lotus-bench's
    wrapper of it, read by ``read_any`` with every proof checked."""
    from cuzk.sector import filecoin_c1 as fc
    from cuzk.sector.porep_c1 import seal_and_prove

    c1 = seal_and_prove(bytes(256), 256, 3, bytes(32), bytes([1] * 32), bytes([2] * 32), 2, partitions=1, challenges=1)
    doc = fc.to_filecoin(c1)
    raw = fc.dumps(doc)

    def read_filecoin(p):
        return fc.read_any(p, 3, bytes(32))

    c = _fuzz(tmp_path, raw, read_filecoin, doc)
    assert c["typed"] > N * 0.9
    wrapped = fc.commit2_input(raw, 3, 256)
    c = _fuzz(tmp_path, wrapped, read_filecoin, json.loads(wrapped), n=N // 5, seed=2)
    assert c["typed"] > N // 5 * 0.9


def test_post_vanilla_reader(tmp_path):
    from cuzk.sector import post as sp
    from cuzk.sector.c1 import porep_id
    from cuzk.sector.fr32 import pad_sector
    from cuzk.sector.replica import replicate

    rng = np.random.default_rng(5)
    size = 256
    data = pad_sector(rng.integers(0, 256, size * 127 // 128, dtype=np.uint8).tobytes(), size)
    rep = replicate(data, bytes(31) + b"\x01", size, 2, porep_id(size))
    sp.write_sealed(tmp_path / "s.npz", 3, rep)
    doc = sp.generate_post("window", [tmp_path / "s.npz"], bytes(32), bytes(32), sector_count=1, challenge_count=2)
    sp.write_post(tmp_path / "v.json", doc)
    c = _fuzz(tmp_path, (tmp_path / "v.json").read_bytes(), sp.read_post, doc)
    assert c["typed"] > N * 0.9


@pytest.fixture(scope="module")
def key_files(tmp_path_factory):
    import warnings

    from cuzk.backend import get_backend
    from cuzk.circuits import synthetic

    d = tmp_path_factory.mktemp("keys")
    cs = ConstraintSystem(shape=True, witness=True)
    synthetic.synthesize(cs, 8, 2, 0.9, seed=3)   # every vector of the key non-empty (h 15, l 9, a 11, b 8 points)
    r1cs = cs.finalize()
    ins, aux = cs.assignment()
    with warnings.catch_warnings(), get_backend("cpu") as bk:
        warnings.simplefilter("ignore")
        pk = setup(r1cs, bk, {"tau": 11, "alpha": 2, "beta": 3, "gamma": 5, "delta": 7})
    write_params(d / "k.params", pk, known_good=False)
    write_vk(d / "k.vk", pk.vk)
    write_proofs(d / "p.proof", [Proof(pk.vk.alpha_g1, pk.vk.beta_g2, pk.vk.delta_g1)])
    write_witness(d / "w.wit", [int(v) for v in ins], [int(v) for v in aux], "digest")
    write_pce(d / "c.pce", r1cs, {"shape": "fuzz"})
    return d


@pytest.mark.parametrize("name, reader", [
    ("k.vk", read_vk), ("p.proof", read_proofs), ("k.params", lambda p: read_params(p, check=True)),
    ("w.wit", lambda p: read_witness(p, pce_digest="digest")), ("c.pce", read_pce),
    ("c.pce", lambda p: read_pce(p, mapped=True)),
], ids=["vk", "proof", "params", "witness", "pce", "pce-mapped"])
def test_binary_readers(key_files, tmp_path, monkeypatch, name, reader):
    monkeypatch.setenv("CUZK_CACHE_DIR", str(tmp_path / "cache"))
    raw = (key_files / name).read_bytes()
    c = _fuzz(tmp_path, raw, reader)
    assert c["typed"] > 0


# --- circom / snarkjs (iden3 container) ---------------------------------------------------

CIRCOM = Path(__file__).parent / "fixtures" / "circom"
R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001


def _sections(data: bytes) -> dict[int, list[bytes]]:
    """An independent split of an iden3 file (magic, version, count, then type u32 ‖ size u64 ‖
    body), for judging what a reader accepted."""
    nsec, pos, out = struct.unpack_from("<I", data, 8)[0], 12, {}
    for _ in range(nsec):
        typ, size = struct.unpack_from("<IQ", data, pos)
        out.setdefault(typ, []).append(data[pos + 12 : pos + 12 + size])
        pos += 12 + size
    assert pos == len(data), "trailing bytes accepted"
    return out


def _ints(body: bytes, n8: int = 32) -> list[int]:
    return [int.from_bytes(body[i : i + n8], "little") for i in range(0, len(body), n8)]


def _check_r1cs(cr, data: bytes) -> None:
    """The accepted .r1cs is what a term-by-term parse finds: header counts, each matrix as
    {(constraint, wire): Σ coefficients mod r} without zeros, the label map."""
    sec = _sections(data)
    head = sec[1][0]
    n8 = struct.unpack_from("<I", head)[0]
    assert n8 == 32 and int.from_bytes(head[4:36], "little") == R and len(head) == 64
    nw, pout, pin, prv, nlab, nc = struct.unpack_from("<IIIIQI", head, 36)
    assert (cr.n_wires, cr.n_pub_out, cr.n_pub_in, cr.n_prv_in, cr.n_labels, cr.n_constraints) == (
        nw, pout, pin, prv, nlab, nc)
    assert 1 + pout + pin + prv <= nw
    body, pos = sec[2][0], 0
    want = [{}, {}, {}]
    for k in range(nc):
        for m in range(3):
            nt = struct.unpack_from("<I", body, pos)[0]
            pos += 4
            for _ in range(nt):
                wire, coef = struct.unpack_from("<I", body, pos)[0], int.from_bytes(body[pos + 4 : pos + 36], "little")
                assert wire < nw and coef < R
                want[m][k, wire] = (want[m].get((k, wire), 0) + coef) % R
                pos += 36
    assert pos == len(body)
    for m, mat in enumerate((cr.A, cr.B, cr.C)):
        assert mat.shape == (nc, nw)
        rows = np.repeat(np.arange(nc), np.diff(mat.indptr))
        got = {(int(r), int(w)): int(mat.coeffs[c]) for r, w, c in zip(rows, mat.indices, mat.coeff_ids)}
        assert got == {key: v for key, v in want[m].items() if v}, "ABC"[m]
    if 3 in sec:
        assert cr.wire_to_label.tolist() == [int.from_bytes(sec[3][0][i : i + 8], "little")
                                             for i in range(0, len(sec[3][0]), 8)]
    cs = cr.to_r1cs()
    assert cs.num_constraints == nc + 1 + pout + pin and cs.num_inputs + cs.num_aux == nw


def _check_wtns(w, data: bytes) -> None:
    sec = _sections(data)
    head = sec[1][0]
    assert struct.unpack_from("<I", head)[0] == 32 and int.from_bytes(head[4:36], "little") == R
    values = _ints(sec[2][0])
    assert len(values) == struct.unpack_from("<I", head, 36)[0] and values[0] == 1 and max(values) < R
    assert [int(v) for v in w] == values


def _check_zkey(zk, data: bytes, tmp: Path) -> None:
    """The accepted .zkey written back by ``write_zkey`` gives the mutated file's sections 1-10
    byte for byte: nothing was misread, dropped or re-encoded."""
    from cuzk.formats.zkey import write_zkey

    sec = _sections(data)
    (tmp / "back.zkey").unlink(missing_ok=True)  # a rename over a file makes ext4 flush it
    write_zkey(tmp / "back.zkey", zk)
    back = _sections((tmp / "back.zkey").read_bytes())
    for typ in range(1, 11):
        if typ in sec and (typ != 10 or sec[10][0]):
            assert back[typ] == sec[typ], f"section {typ}"


def test_r1cs_reader(tmp_path):
    from cuzk.formats.r1cs import read_r1cs

    for name, seed in (("multi.r1cs", 1), ("mulchain.r1cs", 2)):
        c = _fuzz(tmp_path, (CIRCOM / name).read_bytes(), read_r1cs, n=N // 2, seed=seed,
                  mutate=_word_mutation, check=_check_r1cs)
        assert c["typed"] > N // 2 * 0.4 and c["accepted"] > 0


def test_wtns_reader(tmp_path):
    from cuzk.formats.wtns import read_wtns

    raw = (CIRCOM / "multi.wtns").read_bytes()
    c = _fuzz(tmp_path, raw, read_wtns, mutate=_word_mutation, check=_check_wtns)
    assert c["typed"] > N * 0.4 and c["accepted"] > 0


def test_zkey_reader(tmp_path, monkeypatch):
    """A snarkjs key (multi.zkey, 11 kB, 84 points) read with every point checked; the
    converted-key cache is off here (``test_zkey_cache_reader`` fuzzes it)."""
    from cuzk.formats.zkey import read_zkey

    monkeypatch.setenv("CUZK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(os, "fsync", lambda fd: None)  # durability is not under test; 1,000 fsyncs are slow

    def read_zkey_checked(p):
        return read_zkey(p, check=True, cache=False)

    c = _fuzz(tmp_path, (CIRCOM / "multi.zkey").read_bytes(), read_zkey_checked, mutate=_word_mutation,
              check=lambda zk, data: _check_zkey(zk, data, tmp_path))
    assert c["typed"] > N * 0.8 and c["accepted"] > 0


@pytest.fixture
def memory_dir(tmp_path):
    """A folder in /dev/shm when there is one (each rebuilt cache entry replaces a file, which
    ext4 flushes to disk: seconds of waiting over 2,000 rebuilds), else ``tmp_path``."""
    import shutil
    import tempfile

    try:
        d = Path(tempfile.mkdtemp(dir="/dev/shm"))
    except OSError:
        yield tmp_path
        return
    yield d
    shutil.rmtree(d, ignore_errors=True)


def test_zkey_cache_reader(tmp_path, memory_dir, monkeypatch, caplog):
    """Damaged converted-key cache entries (bytes, header words, header JSON values) are
    ignored and rebuilt: ``read_zkey`` returns the key the .zkey holds every time."""
    from cuzk.formats import zkey as zkmod

    monkeypatch.setenv("CUZK_CACHE_DIR", str(memory_dir))
    monkeypatch.setattr(os, "fsync", lambda fd: None)  # durability is not under test
    key = CIRCOM / "multi.zkey"
    ref = zkmod.read_zkey(key, cache=False)
    info = {}
    zkmod.read_zkey(key, info=info)
    entry = zkmod._cache_path(info["sha256"])
    raw = entry.read_bytes()
    hlen = struct.unpack_from("<I", raw, 20)[0]
    doc = json.loads(raw[28 : 28 + hlen])
    ref_bytes = (tmp_path / "ref.zkey")
    zkmod.write_zkey(ref_bytes, ref)
    ref_bytes = ref_bytes.read_bytes()
    hits = 0
    paths = _json_paths(doc)

    def mutate(rng, raw_):
        if rng.random() < 0.5:
            return _word_mutation(rng, raw_)
        hb = _json_mutation(rng, doc, paths)   # a header that parses, with the stored length and CRC
        return raw_[:20] + struct.pack("<I", len(hb)) + raw_[24:28] + hb + raw_[28 + hlen :]

    def read_via_cache(p):
        nonlocal hits
        entry.unlink(missing_ok=True)
        entry.write_bytes(p.read_bytes())
        got = {}
        zk = zkmod.read_zkey(key, info=got)
        hits += got["cache"] == "hit"
        return zk

    def same_key(zk, data):
        zkmod.write_zkey(tmp_path / "back.zkey", zk)
        assert (tmp_path / "back.zkey").read_bytes() == ref_bytes

    with caplog.at_level("ERROR", logger="cuzk.formats.zkey"):
        c = _fuzz(tmp_path, raw, read_via_cache, n=N // 5, mutate=mutate, check=same_key)
    print("cache hits", hits)
    assert c["accepted"] == N // 5 and hits > 0
