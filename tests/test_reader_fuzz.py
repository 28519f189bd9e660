"""Every reader refuses damaged input with the project's typed error, never a generic exception:
10,000 seeded mutations per format (bytes flipped, cut, inserted; for JSON also values swapped
for floats, strings, huge or negative integers, deep nesting, keys removed). A mutation the
reader accepts must be harmless (it read back a valid document); the counts are printed."""

import contextlib
import copy
import json
import os
import random
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


def _ram_dir(tmp: Path):
    """A folder in memory (/dev/shm) where there is one, else ``tmp``: the readers still read a real
    file per mutation, without a disk write (about 2 ms each on the CI machine's ext4, most of
    the fuzz's time)."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        return tempfile.TemporaryDirectory(dir=shm, prefix="cuzk-fuzz-")
    return contextlib.nullcontext(tmp)


def _fuzz(tmp: Path, raw: bytes, reader, doc=None, n: int = N, seed: int = 1) -> dict:
    rng = random.Random(seed)
    counts = {"typed": 0, "accepted": 0}
    if doc is not None:
        doc = json.loads(json.dumps(doc))   # JSON's own types (lists, string keys)
        paths = _json_paths(doc)
    with _ram_dir(tmp) as d:
        path = Path(d) / "m"
        for i in range(n):
            data = _json_mutation(rng, doc, paths) if doc is not None and i % 2 else _byte_mutation(rng, raw)
            path.write_bytes(data)
            try:
                reader(path)
                counts["accepted"] += 1
            except CuzkError:
                counts["typed"] += 1
            except Exception as e:  # noqa: BLE001  (the point of the test)
                pytest.fail(f"mutation {i} raised {type(e).__name__}: {str(e)[:300]}\n{data[:300]!r}")
    print(reader.__name__, counts)
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
