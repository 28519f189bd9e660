"""The SHA-256 witness path of CPU synthesis (``synthesis_sha``, ``cuzk.r1cs.sha_path``): the
choice (auto falls back to numpy with one warning when the native core does not build, native
raises, upstream order keeps numpy), and the witness files of a real 2 KiB PoRep sector (sealed
here from a public-domain text) synthesized with ``native`` and with ``numpy``: the same bytes,
through ``synthesize_partition`` and ``synthesize_sector``, with the native path's delegate
counted so a silent numpy run would fail."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import pytest
import yaml

from cuzk import pipeline
from cuzk.backend import BackendUnavailableError
from cuzk.backend.native import NativeBuildError
from cuzk.configcheck import config_problems
from cuzk.r1cs import sha_path
from cuzk.r1cs.sha_path import NativeShaFallbackWarning, ShaPathError, choose_sha
from pce_util import header_pce

ROOT = Path(__file__).resolve().parents[1]
SHAPE = "porep-2KiB"


@pytest.fixture
def no_compiler(tmp_path, monkeypatch):
    """A fresh cache and a ``$CXX`` that does not exist; the once-per-process state reset."""
    monkeypatch.setenv("CUZK_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("CXX", str(tmp_path / "missing-g++"))
    monkeypatch.setattr(sha_path, "_WARNED", [])


def test_unknown_value_names_the_key():
    with pytest.raises(ShaPathError, match="synthesis_sha: 'fast'"):
        choose_sha("fast")


def test_numpy_is_no_delegate_and_upstream_order_keeps_numpy():
    assert choose_sha("numpy") == ("numpy", None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert choose_sha("auto", upstream_order=True) == ("numpy", None)
    with pytest.raises(ShaPathError, match="block order only"):
        choose_sha("native", upstream_order=True)


def test_auto_falls_back_with_one_warning(no_compiler):
    with pytest.warns(NativeShaFallbackWarning, match="missing-g\\+\\+"):
        assert choose_sha("auto") == ("numpy", None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert choose_sha("auto") == ("numpy", None)   # once per process


def test_auto_with_a_gpu_prover_leaves_the_bits_to_it(no_compiler):
    """The workflow's auto with a cuda prover (``prover_choice``): prover where the native core
    builds and the PCE is in block order, else auto's numpy (one warning); other values as given."""
    assert sha_path.prover_choice("auto", True) == sha_path.AUTO_PROVER
    assert [sha_path.prover_choice(v, g) for v, g in (("auto", False), ("native", True), ("numpy", True))] == \
        ["auto", "native", "numpy"]
    with pytest.warns(NativeShaFallbackWarning, match="missing-g\\+\\+"):
        assert choose_sha(sha_path.AUTO_PROVER) == ("numpy", None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert choose_sha(sha_path.AUTO_PROVER, upstream_order=True) == ("numpy", None)


def test_auto_prover_is_prover_where_the_core_builds():
    if shutil.which("g++") is None and shutil.which("c++") is None:
        pytest.skip("no C++ compiler")
    path = choose_sha(sha_path.AUTO_PROVER)
    assert path.name == "prover" and path.compute.calls == []


def test_native_raises_when_it_cannot_build(no_compiler):
    with pytest.raises(NativeBuildError, match="missing-g\\+\\+"):
        choose_sha("native")


def test_config_refuses_native_with_upstream_order():
    schema = yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text())
    cfg = yaml.safe_load((ROOT / "config.yaml").read_text())
    assert cfg["synthesis_sha"] == "auto" and config_problems(cfg, schema) == []
    for value in ("native", "numpy"):
        assert config_problems(cfg | {"synthesis_sha": value}, schema) == []
    probs = config_problems(cfg | {"synthesis_sha": "native", "upstream_order": True}, schema)
    assert len(probs) == 1 and "synthesis_sha: native" in probs[0]
    assert config_problems(cfg | {"synthesis_sha": "auto", "upstream_order": True}, schema) == []
    assert any(p.startswith("  synthesis_sha:") for p in config_problems(cfg | {"synthesis_sha": "cuda"}, schema))
    assert config_problems(cfg | {"synthesis_sha": "gpu"}, schema) == []
    probs = config_problems(cfg | {"synthesis_sha": "gpu", "upstream_order": True}, schema)
    assert len(probs) == 1 and "synthesis_sha: gpu" in probs[0]


def test_gpu_is_refused_in_upstream_order_and_without_a_device(monkeypatch):
    with pytest.raises(ShaPathError, match="gpu computes the SHA-256 witness in cuzk's block order only"):
        choose_sha("gpu", upstream_order=True)
    from cuzk.backend.cuda import witness

    def no_device():
        raise BackendUnavailableError("backend 'cuda' is not available: CuPy sees no CUDA device")

    monkeypatch.setattr(witness, "_cupy", no_device)
    with pytest.raises(BackendUnavailableError, match="no CUDA device"):
        choose_sha("gpu")


def _header_pce(path: Path, upstream: bool = False) -> Path:
    return header_pce(path, SHAPE, upstream)


@pytest.fixture(scope="module")
def sealed(tmp_path_factory):
    """A 2 KiB sector sealed from data/samples/gettysburg-address.txt: (C1, check record)."""
    d = tmp_path_factory.mktemp("sealed")
    c1, rec = d / "c1.json", d / "checked.json"
    pipeline.prepare({"id": 1, "data": str(ROOT / "data/samples/gettysburg-address.txt")}, c1, SHAPE,
                     "sha-path", "00" * 32)
    pipeline.check_input(c1, rec, SHAPE)
    return c1, rec


def test_native_and_numpy_witness_files_are_the_same_bytes(sealed, tmp_path, monkeypatch):
    if shutil.which("g++") is None and shutil.which("c++") is None:
        pytest.skip("no C++ compiler")
    c1, rec = sealed
    pce = _header_pce(tmp_path / "block.pce")
    used = []
    compute = choose_sha("native").compute
    monkeypatch.setattr(sha_path, "_native", lambda: lambda call: used.append(call.k) or compute(call))
    numpy = pipeline.synthesize_partition(c1, rec, pce, 0, tmp_path / "numpy.wit", sha="numpy")
    assert used == []
    native = pipeline.synthesize_partition(c1, rec, pce, 0, tmp_path / "native.wit", sha="native")
    assert len(used) > 40     # 52 compressions, all but the first of each kind delegated
    assert native.read_bytes() == numpy.read_bytes()
    n = len(used)
    files = pipeline.synthesize_sector(c1, pce, tmp_path / "sector", checked=rec, sha="native")
    # (the kinds' templates are kept per process: now every call may be delegated)
    assert len(used) >= 2 * n and [f.read_bytes() for f in files] == [numpy.read_bytes()]
    n = len(used)
    # upstream order: auto synthesizes with numpy (no delegate call); native is refused before any work
    up = _header_pce(tmp_path / "upstream.pce", upstream=True)
    pipeline.synthesize_partition(c1, rec, up, 0, tmp_path / "up.wit", sha="auto")
    assert len(used) == n
    with pytest.raises(ShaPathError):
        pipeline.synthesize_partition(c1, rec, up, 0, tmp_path / "up-native.wit", sha="native")
    assert not (tmp_path / "up-native.wit").exists()
