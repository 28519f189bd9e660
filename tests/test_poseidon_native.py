"""The native Poseidon witness core (``cuzk.backend.poseidon_host``) and its path in CPU
synthesis (``synthesis_poseidon``, ``cuzk.r1cs.poseidon_path``): the library's Montgomery
constants against values computed here; its limbs against the gmpy2 path
(``cuzk.r1cs.poseidon._legacy_limbs``) byte for byte, for the circuits' arities, both strengths,
their tags, random and edge inputs; its digests against the plain permutation
(``cuzk.hash.poseidon``) and neptune's published vectors; whole witness files of a real 2 KiB
PoRep sector and of a WindowPoSt partition the same bytes either way (in worker processes too);
the choice (unknown value, fallback warning, native raising)."""

from __future__ import annotations

import contextlib
import ctypes
import json
import random
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest
import yaml

from cuzk import cli, pipeline
from cuzk.backend import poseidon_host
from cuzk.backend.native import NativeBuildError, load_library
from cuzk.circuits import post as cp
from cuzk.configcheck import config_problems
from cuzk.field import FR, to_limbs
from cuzk.hash import poseidon as P
from cuzk.r1cs import ConstraintSystem, parallel, poseidon_path
from cuzk.r1cs.parallel import map_rows, synthesis_workers
from cuzk.r1cs.poseidon import _legacy_limbs, hash_constraints, native_poseidon
from cuzk.r1cs.poseidon_path import NativePoseidonFallbackWarning, PoseidonPathError, choose_poseidon
from cuzk.r1cs.witness import write_witness_compact
from cuzk.sector.post import PoStError, generate_post, write_post
from cuzk.sector.post_synthetic import SyntheticSector
from cuzk.sector.update import GEN_RANDOMNESS_TAG
from pce_util import header_pce   # a PCE of the shape's header only: what synthesize reads

ROOT = Path(__file__).resolve().parents[1]
R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001   # BLS12-381 Fr
# neptune src/poseidon.rs test hash_values (inputs 0..arity−1, MerkleTree tag), as in test_poseidon.py
NEPTUNE = {(2, P.STANDARD): 0x396508D75E76A56B739E0FD902EFE161A6FBA9339D05A69D2E203C369A02E7FF,
           (8, P.STANDARD): 0x2394611DA3A5DE5512010042116770774B682E9D9CC4AED92A9934F56D38A5E6,
           (11, P.STANDARD): 0x0C0FC1B2E5227F286CA537E232EBE87A09F3DCD8CCB08FC1CEE3BBC32B693163,
           (4, P.STRENGTHENED): 0x40223B87A6BD45088F57E5AB121004CEAD9FC9EBBB1515E13FF99D0422E647EE}

needs_compiler = pytest.mark.skipif(shutil.which("g++") is None and shutil.which("c++") is None,
                                    reason="no C++ compiler")


@pytest.fixture(scope="module")
def lib():
    return choose_poseidon("native").lib


def _ints(limbs: np.ndarray) -> list[int]:
    return [sum(int(w) << (64 * i) for i, w in enumerate(row)) for row in limbs.reshape(-1, 4)]


@needs_compiler
def test_library_holds_the_fields_montgomery_constants(lib):
    got = np.zeros(13, dtype=np.uint64)
    fn = load_library(lib).poseidon_host_field
    fn.argtypes = [ctypes.c_void_p]
    fn(got.ctypes.data)
    r, one, r2 = _ints(got[:12])
    assert (r, one, r2) == (R, pow(2, 256, R), pow(2, 512, R))
    assert int(got[12]) * R % 2**64 == 2**64 - 1   # −r⁻¹ mod 2^64
    assert FR.modulus == R


@needs_compiler
@pytest.mark.parametrize("strength", [P.STANDARD, P.STRENGTHENED])
@pytest.mark.parametrize("arity", [2, 4, 8, 11])
def test_limbs_are_the_python_paths_byte_for_byte(lib, arity, strength):
    rng = random.Random(arity * 7 + len(strength))
    tags = [P.merkle_tree_tag(arity, strength), P.constant_length_tag(arity, strength)]
    if arity == 2:
        tags.append(GEN_RANDOMNESS_TAG)   # SnapDeals' phi, rho and digest hashes
    edge = [0, 1, R - 1, R - 2, 2**64 - 1, 2**255 % R]
    for tag in tags:
        for kc in (0, 1, 17):
            vals = edge + [rng.randrange(R) for _ in range(kc * arity)]
            x = to_limbs(vals[:kc * arity], FR.limbs).reshape(kc, arity, FR.limbs)
            want = _legacy_limbs(x, arity, tag, strength)
            got = _legacy_limbs(x, arity, tag, strength, str(lib))
            nops = hash_constraints(arity, strength, legacy=True)
            assert got.shape == want.shape == (kc, nops, 4) and got.dtype == np.uint64
            assert got.tobytes() == want.tobytes(), (arity, strength, tag, kc)
            # the digest column is the plain permutation's hash (cuzk.hash.poseidon)
            digests = [P.poseidon_hash(vals[h * arity:(h + 1) * arity], arity, tag, strength) for h in range(kc)]
            assert _ints(got[:, -1]) == digests


@needs_compiler
@pytest.mark.parametrize("arity,strength", [(2, P.STANDARD), (8, P.STANDARD), (11, P.STRENGTHENED)])
def test_digests_alone_are_the_last_op_values(lib, arity, strength):
    """``legacy_digests`` (no op value stored) gives each hash's last op value of ``legacy_limbs``,
    edge inputs (0, 1, r − 1) and random ones, and refuses an input not below r, naming it."""
    tag = P.merkle_tree_tag(arity, strength)
    vals = [0, 1, P.R - 1] + [random.randrange(P.R) for _ in range(9 * arity - 3)]
    x = to_limbs(vals, FR.limbs).reshape(9, arity, FR.limbs)
    got = poseidon_host.legacy_digests(lib, x, arity, tag, strength)
    assert got.shape == (9, FR.limbs) and got.tobytes() == poseidon_host.legacy_limbs(lib, x, arity, tag, strength)[:, -1].tobytes()
    x[4, arity - 1] = to_limbs([P.R], FR.limbs)[0]
    with pytest.raises(ValueError, match=f"input {arity - 1} of hash 4 is"):
        poseidon_host.legacy_digests(lib, x, arity, tag, strength)


@needs_compiler
def test_digest_is_neptunes_published_vector(lib):
    for (arity, strength), want in NEPTUNE.items():
        x = to_limbs(list(range(arity)), FR.limbs).reshape(1, arity, FR.limbs)
        got = poseidon_host.legacy_limbs(lib, x, arity, P.merkle_tree_tag(arity, strength), strength)
        assert _ints(got[0, -1]) == [want]
        assert _ints(poseidon_host.legacy_digests(lib, x, arity, P.merkle_tree_tag(arity, strength), strength)[0]) == [want]


@needs_compiler
def test_inputs_not_below_r_are_refused(lib):
    x = to_limbs([5, 6, 7, R], FR.limbs).reshape(2, 2, FR.limbs)
    with pytest.raises(ValueError, match=f"input 1 of hash 1 is {R:#x}, not below r"):
        poseidon_host.legacy_limbs(lib, x, 2, 3, P.STANDARD)
    with pytest.raises(ValueError, match="shape"):
        poseidon_host.legacy_limbs(lib, x, 4, 3, P.STANDARD)


def test_unknown_value_is_a_typed_error_naming_the_key():
    with pytest.raises(PoseidonPathError, match="synthesis_poseidon: 'numpy'"):
        choose_poseidon("numpy")
    assert choose_poseidon("python") == ("python", None, "values")
    schema = yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text())
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    assert cfg["synthesis_poseidon"] == "auto"
    for value in ("native", "python", "gpu"):
        assert config_problems(cfg | {"synthesis_poseidon": value}, schema) == []
    assert any(p.startswith("  synthesis_poseidon:") for p in config_problems(cfg | {"synthesis_poseidon": "cuda"}, schema))


def test_gpu_without_a_device_is_refused_when_chosen(monkeypatch):
    """``gpu`` checks for CuPy and a device when chosen (a synthesize step: before its input is
    read); with one it is the GPU core in place of a library."""
    from cuzk.backend import BackendUnavailableError
    from cuzk.backend.cuda import runtime
    from cuzk.r1cs.poseidon import GPU_CORE

    def no_device():
        raise BackendUnavailableError("backend 'cuda' is not available: CuPy sees no CUDA device")

    monkeypatch.setattr(runtime, "_cupy", no_device)
    with pytest.raises(BackendUnavailableError, match="no CUDA device"):
        choose_poseidon("gpu")
    monkeypatch.setattr(runtime, "_cupy", lambda: None)
    assert choose_poseidon("gpu") == ("gpu", GPU_CORE, "values")


def test_gpu_paths_take_a_gpu_and_gpu_poseidon_no_workers():
    """What the workflow declares and the synthesize steps do (``native_path.synthesis_on_gpu``,
    ``synthesis_threads``): a gpu path on either side takes a GPU; GPU Poseidon runs in the step's
    own process, whatever the threads."""
    from cuzk.r1cs.native_path import synthesis_on_gpu, synthesis_threads

    assert synthesis_on_gpu("auto", "gpu") and synthesis_on_gpu("gpu", "native")
    assert not synthesis_on_gpu("native", "auto")
    assert synthesis_threads("gpu", 8) == 1 and synthesis_threads("native", 8) == 8


@pytest.fixture
def failing_compiler(tmp_path, monkeypatch):
    """A fresh cache, ``$CXX=/bin/false``, the once-per-process state reset."""
    monkeypatch.setenv("CUZK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("CXX", "/bin/false")
    monkeypatch.setattr(poseidon_path, "_WARNED", [])


def test_auto_falls_back_with_one_warning_and_native_raises(failing_compiler):
    with pytest.warns(NativePoseidonFallbackWarning, match="synthesis_poseidon: auto.*/bin/false"):
        first = choose_poseidon("auto")
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # once per process
        again = choose_poseidon("auto")
    assert first == again == ("python", None, "values")
    with pytest.raises(NativeBuildError, match="/bin/false"):
        choose_poseidon("native")


def count_native_calls(monkeypatch) -> list:
    """The hashes of each call of the native core (``legacy_limbs`` or ``legacy_digests``), in a
    list that grows as the test runs."""
    calls = []
    for name in ("legacy_limbs", "legacy_digests"):
        real = getattr(poseidon_host, name)
        monkeypatch.setattr(poseidon_host, name, lambda *a, real=real: calls.append(a[1].shape[0]) or real(*a))
    return calls


@needs_compiler
def test_porep_2kib_witness_files_are_the_same_bytes(tmp_path, monkeypatch):
    """A 2 KiB sector sealed from data/samples/gettysburg-address.txt: its partition's witness
    file with python and with native Poseidon (the native core counted: a silent python run fails)."""
    c1, rec = tmp_path / "c1.json", tmp_path / "checked.json"
    pipeline.prepare({"id": 1, "data": str(ROOT / "data/samples/gettysburg-address.txt")}, c1, "porep-2KiB",
                     "natpos", "00" * 32)
    pipeline.check_input(c1, rec, "porep-2KiB")
    pce = header_pce(tmp_path / "block.pce", "porep-2KiB")
    calls = count_native_calls(monkeypatch)
    py = pipeline.synthesize_partition(c1, rec, pce, 0, tmp_path / "python.wit", sha="numpy", poseidon="python")
    assert calls == []
    nat = pipeline.synthesize_partition(c1, rec, pce, 0, tmp_path / "native.wit", sha="numpy", poseidon="native")
    assert len(calls) >= 5 and nat.read_bytes() == py.read_bytes()   # each Poseidon call of the partition
    files = pipeline.synthesize_sector(c1, pce, tmp_path / "sector", checked=rec, sha="numpy", poseidon="native")
    assert [f.read_bytes() for f in files] == [py.read_bytes()]


@needs_compiler
def test_merkle_tree_hashes_by_the_native_core_equal_pythons(lib, monkeypatch):
    """``PoseidonMemo`` within ``native_poseidon`` (``cuzk.hash.poseidon.tree_hashes_by``): the
    native core's digests of Merkle preimages of arity 2, 8 and 11 (repeats and 0 and r − 1
    among them, more than one native call's rows) equal ``poseidon_many``'s; outside it, Python."""
    from cuzk.r1cs import poseidon as rp

    rng = random.Random()
    calls = count_native_calls(monkeypatch)
    for arity in (2, 8, 11):
        rows = [tuple(rng.randrange(P.R) for _ in range(arity)) for _ in range(12)]
        rows += [rows[3], (0,) * arity, (P.R - 1,) * arity]
        want = [int(h) for h in P.poseidon_many([list(c) for c in zip(*rows)], arity=arity)]
        assert P.PoseidonMemo().many(rows) == want and not calls
        with rp.native_poseidon(lib):
            assert P.PoseidonMemo().many(rows) == want
        assert calls and sum(calls) == len(set(rows))
        calls.clear()


@needs_compiler
def test_check_input_hashes_paths_natively_and_refuses_a_bad_one(tmp_path, monkeypatch):
    """``check_input`` checks a PoSt file's Merkle paths with the native core (counted) and still
    refuses one whose sibling hash is changed."""
    from cuzk.circuits import registry

    doc, shape = window_post_3x2()
    monkeypatch.setitem(registry.SHAPES, shape.name, shape)
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    write_post(good, doc)
    calls = count_native_calls(monkeypatch)
    assert pipeline.check_input(good, tmp_path / "good.rec", shape.name)["shape"] == shape.name
    assert calls
    h = doc["partitions"][0][1]["inclusion_proofs"][0]["path"][2]["hashes"][4]
    h[0] ^= 1
    write_post(bad, doc)
    with pytest.raises(PoStError, match="do not hash to the root"):
        pipeline.check_input(bad, tmp_path / "bad.rec", shape.name)
    assert not (tmp_path / "bad.rec").exists()


def window_post_3x2():
    """(vanilla document, shape) of a WindowPoSt partition over three synthetic 32 GiB sectors,
    two challenges each: a small partition whose witness is nearly all Poseidon values."""
    size = 32 << 30
    doc = generate_post("window", [SyntheticSector(900 + i, size) for i in range(3)], bytes(range(32)), bytes(32),
                        sector_count=3, challenge_count=2)
    return doc, cp.PoStShape("test-only-window-post-32GiB-3x2", "window", size, 3, 2, test_only=True)


@needs_compiler
def test_window_post_witness_files_are_the_same_bytes_in_workers_too(lib, tmp_path, monkeypatch):
    """A WindowPoSt partition over three synthetic 32 GiB sectors (two challenges each): the
    witness file with python, with native in this process, and with native in 2 worker
    processes (chunks of ≥ 2 rows, so the Merkle levels go to the workers)."""
    monkeypatch.setattr(parallel, "MIN_ROWS", 2)
    doc, shape = window_post_3x2()
    out = []
    for name, workers, path in (("python", 1, None), ("native", 1, lib), ("native-workers", 2, lib)):
        with synthesis_workers(workers), (native_poseidon(path) if path else contextlib.nullcontext()):
            cs = ConstraintSystem(shape=False, witness=True)
            cp.synthesize(cs, shape, cp.values(doc, 0))
        write_witness_compact(tmp_path / f"{name}.wit", cs.assignment_compact())
        out.append((tmp_path / f"{name}.wit").read_bytes())
    assert out[0] == out[1] == out[2]


@needs_compiler
def test_workers_load_the_library_they_are_handed(lib, tmp_path):
    """Workers forked before the choice compute with the library whose path comes with each chunk."""
    k, arity, tag = 40, 8, P.merkle_tree_tag(8)
    x = to_limbs(list(FR.random(k * arity, np.random.default_rng(3))), FR.limbs).reshape(k, arity, FR.limbs)
    with synthesis_workers(2, min_rows=4):
        got = map_rows(_legacy_limbs, x, arity, tag, P.STANDARD, str(lib))
        with pytest.raises(NativeBuildError, match="nothing.so"):
            map_rows(_legacy_limbs, x, arity, tag, P.STANDARD, str(tmp_path / "nothing.so"))
    assert got is not None and got.tobytes() == _legacy_limbs(x, arity, tag, P.STANDARD).tobytes()
    with native_poseidon(lib), pytest.raises(RuntimeError, match="already active"):
        with native_poseidon(lib):
            pass


@needs_compiler
def test_bench_circuit_runs_each_poseidon_path_and_compares_the_files(tmp_path, capsys):
    """``cuzk bench circuit --poseidon python,native``: one witness per path, the same bytes; an
    unknown path refused before any work."""
    args = ["bench", "circuit", "--shapes", "porep-2KiB", "--workdir", str(tmp_path), "--phases", "input,witness",
            "--sha", "numpy", "--json", str(tmp_path / "r.json")]
    assert cli.main(args + ["--poseidon", "python,gmpy"]) == 2
    assert "Poseidon witness path gmpy is not one of auto, native, python" in capsys.readouterr().err
    assert not (tmp_path / "porep-2KiB.c1.json").exists()
    assert cli.main(args + ["--poseidon", "python,native"]) == 0
    (res,) = json.loads((tmp_path / "r.json").read_text())
    assert (res["witness"]["poseidon"], res["witness_poseidon-native"]["poseidon"]) == ("python", "native")
    assert res["witness_identical"] is True
    assert (tmp_path / "porep-2KiB.partition-0.wit").read_bytes() == \
        (tmp_path / "porep-2KiB.partition-0.poseidon-native.wit").read_bytes()
