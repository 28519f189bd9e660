"""Fixtures shared by several test files: the repository root, the default config with its
results in a fresh folder, a skip when Snakemake is missing, a small memory record, the
test-only-commd-128B key and two test-only PoSt keys made once per session (once per xdist
worker that uses them), key files under official names, host builds of the cuda backend's
device code (``host_build``), and the xdist grouping."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CUDA_SRC = ROOT / "src" / "cuzk" / "backend" / "cuda"
KEY_SHAPE = "test-only-commd-128B"


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the groups
def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist (README's ``-n 2 --dist loadgroup``) each test file runs whole on one
    worker, so its module-scoped fixtures (a workflow run, a sealed sector) are made once; the
    ``gpu`` tests of every file run on one worker, so two never share the device at once."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        group = "gpu" if item.get_closest_marker("gpu") else item.nodeid.split("::", 1)[0]
        item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository root (Snakefile, config.yaml, workflow/)."""
    return ROOT


@pytest.fixture(scope="session")
def host_build(tmp_path_factory):
    """Builds a host program from ``tests/fixtures/NAME.cpp`` with the cuda backend's sources on
    the include path (device code compiled as C++ with the PTX carry-chain model,
    CUZK_HOST_EMULATION); returns a function NAME -> executable path (built once per session).
    Skips the test where no C++ compiler is installed."""
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    built: dict[str, Path] = {}

    def build(name: str) -> Path:
        if name not in built:
            exe = tmp_path_factory.mktemp("host") / name
            subprocess.run([cxx, "-O1", "-std=c++17", "-pthread", f"-I{CUDA_SRC}", str(ROOT / "tests" / "fixtures" / f"{name}.cpp"),
                            "-o", str(exe)], check=True, capture_output=True, text=True)
            built[name] = exe
        return built[name]

    return build


@pytest.fixture
def snakemake_cli():
    """The ``snakemake`` command; skips the test where it is not installed."""
    exe = shutil.which("snakemake")
    if exe is None:
        pytest.skip("snakemake not installed")
    return exe


@pytest.fixture
def default_config(tmp_path):
    """Write the repository's config.yaml with results in ``tmp_path/r`` (and any further
    ``{old: new}`` replacements); returns a function giving the written file's path."""

    def write(replace: dict | None = None, name: str = "config.yaml") -> Path:
        text = (ROOT / "config.yaml").read_text().replace("results: results", f"results: {tmp_path / 'r'}")
        for old, new in (replace or {}).items():
            assert old in text, old
            text = text.replace(old, new)
        cfg = tmp_path / name
        cfg.write_text(text)
        return cfg

    return write


@pytest.fixture
def step_record_dict() -> dict:
    """The JSON object of a small prove step's memory record, as cuzk writes it."""
    return {"seconds": 2.5, "rss_avg_bytes": 1 << 29, "rss_peak_bytes": 3 << 29, "gpu_peak_bytes": None,
            "samples": 3, "timeline": [[0.0, 1 << 29, None], [1.0, 3 << 29, None], [2.5, 1 << 29, None]],
            "rss_peak_gib": 1.5, "rss_avg_gib": 0.5, "step": "prove", "rss_predicted_bytes": 1 << 31,
            "mem_gb": 4, "started_at": 1700000000.0, "sectors": 2}


def official_files(d: Path, keys: dict, sector_size: int) -> dict:
    """Key files copied into folder ``d`` under official names ({stem: (params, vk)}: ``stem``.params
    and ``stem``.vk), and a test manifest naming them with their BLAKE2b digests at ``sector_size``
    (in place of the packaged parameters.json)."""
    from cuzk.groth16.official import blake2b_digest

    d.mkdir(parents=True, exist_ok=True)
    manifest = {}
    for stem, pair in keys.items():
        for ext, src in zip((".params", ".vk"), pair):
            shutil.copyfile(src, d / f"{stem}{ext}")
            manifest[f"{stem}{ext}"] = {"cid": "-", "digest": blake2b_digest(d / f"{stem}{ext}"), "sector_size": sector_size}
    return manifest


def vk_head(path: Path, ic: int) -> Path:
    """A verifying key in bellperson's layout with ``ic`` IC points (all generators): a stand-in
    for an official file where only its head is read (``official.official_file`` in a dry run)."""
    from cuzk.curve import G1, G2
    from cuzk.groth16 import VerifyingKey

    g1, g2 = G1.generator(), G2.generator()
    path.write_bytes(VerifyingKey(g1, g1, g2, g2, g1, g2, [g1] * ic).to_bytes())
    return path


#: Test-only PoSt shapes of 2 KiB sectors with keys in ``post_2kib_keys``: window (IC length 3)
#: and winning (7), the two PoSt files of one size.
POST_KEY_SHAPES = ("test-only-window-post-2KiB-1x1", "test-only-winning-post-2KiB-3")


@pytest.fixture(scope="session")
def post_2kib_keys(tmp_path_factory) -> Path:
    """A folder with ``<shape>.params`` and ``<shape>.vk``, CPU development keys of
    ``POST_KEY_SHAPES`` on PCEs in upstream order (about 3 s). Read-only."""
    from cuzk import pipeline

    root = tmp_path_factory.mktemp("post-keys")
    for sh in POST_KEY_SHAPES:
        pipeline.pce_extract(sh, root / f"{sh}.pce", upstream_order=True)
        pipeline.setup_params(root / f"{sh}.pce", root / f"{sh}.params", root / f"{sh}.vk", backend="cpu", threads=2)
    return root


@pytest.fixture(scope="session")
def commd_128b_key(tmp_path_factory) -> Path:
    """A results folder holding only the PCE and the CPU development key (threads 2) of
    ``KEY_SHAPE`` with their memory records, as the workflow's pce_extract and setup jobs write
    them (same paths, same declared mem_gb), made once per session by the same pipeline functions.
    Read-only: a test copies it into its results folder with ``shutil.copytree(key, results,
    dirs_exist_ok=True)``, whose copies keep the mtimes (the key stays newer than its PCE, so
    Snakemake finds both up to date and runs no pce_extract or setup job for that shape; other
    tests run those jobs). Made in a fresh process, as a workflow job is: in this pytest worker
    the records measured the worker's own RSS (1.2-1.3 GiB after earlier tests, over the jobs'
    1 GB declarations: test_report_within_declared_memory failed by test order)."""
    root = tmp_path_factory.mktemp("key-128B")
    subprocess.run([sys.executable, "-c", _KEY_JOB, str(root), KEY_SHAPE], check=True)
    return root


_KEY_JOB = """
import sys
from pathlib import Path
from cuzk import pipeline
from cuzk.circuits.registry import shape_by_name
from cuzk.memory.budget import declared_gb
from cuzk.memory.model import predict_step_bytes
from cuzk.paths import Results

root, shape = Path(sys.argv[1]), sys.argv[2]
r, st = Results(str(root)), shape_by_name(shape).stats()
for d in ("pce", "params", "benchmarks/pce_extract", "benchmarks/setup"):
    (root / d).mkdir(parents=True)
pipeline.pce_extract(shape, r.pce(shape), mem_json=r.record("pce_extract", shape),
                     mem_gb=declared_gb(predict_step_bytes("pce_extract", st)))
pipeline.setup_params(r.pce(shape), r.params(shape), r.vk(shape), backend="cpu", threads=2,
                      mem_json=r.record("setup", shape), mem_gb=declared_gb(predict_step_bytes("setup", st, threads=2)))
"""


@pytest.fixture(scope="session")
def porep_input(tmp_path_factory):
    """get(shape) → (C1 path, check record path) of a synthetic sector of that shape (id 7,
    made on first use; any PoRep shape: synthetic sectors are sparse)."""
    from cuzk import pipeline

    made = {}

    def get(shape: str):
        if shape not in made:
            d = tmp_path_factory.mktemp(shape)
            c1, rec = d / "c1.json", d / "checked.json"
            pipeline.prepare({"id": 7, "synthetic": True}, c1, shape, "test", "00" * 32)
            pipeline.check_input(c1, rec, shape)
            made[shape] = (c1, rec)
        return made[shape]

    return get
