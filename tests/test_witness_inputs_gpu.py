"""``witness_poseidon: inputs`` on the device: the cuda backend makes a version 2 witness file's
computed Poseidon values with the kernel (``cuzk.backend.cuda.witness.wide_on_device``), in
place where each hash comes once in order and gathered where a padded partition repeats them;
the wide values and the whole assignment it expands on the device equal the ``values`` file's
(values by gmpy2 at synthesis, uploaded as they are), and a proof made on the GPU from the
``inputs`` files verifies."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

cp = pytest.importorskip("cupy")

from cuzk import pipeline  # noqa: E402
from cuzk.backend import get_backend  # noqa: E402
from cuzk.backend.cuda import cuda_available  # noqa: E402
from cuzk.backend.cuda import poseidon as gpos  # noqa: E402
from cuzk.backend.cuda.computed import computed_scratch_bytes, wide_on_device  # noqa: E402
from cuzk.field import FR, LimbRuns, to_limbs  # noqa: E402
from cuzk.r1cs import poseidon as rpos  # noqa: E402
from cuzk.r1cs.poseidon import PoseidonWalks  # noqa: E402
from cuzk.r1cs.witness import read_witness_compact  # noqa: E402
from witness_util import SHAPE, post_witness_forms  # noqa: E402

if not cuda_available():
    pytest.skip("no CUDA device", allow_module_level=True)



@pytest.fixture(scope="module")
def post(tmp_path_factory):
    return post_witness_forms(tmp_path_factory.mktemp("inputs_gpu"))


def test_wide_values_made_on_the_device_equal_the_values_file(post):
    for fi, fv in zip(post["inputs"], post["values"]):
        cw, want = read_witness_compact(fi), read_witness_compact(fv)
        assert cw.wide.computed() and computed_scratch_bytes(cw.wide) > 0   # upper levels repeat hashes
        assert np.array_equal(wide_on_device(cp, cw.wide).get(), np.asarray(want.wide))


def test_runs_in_order_are_written_in_place_and_others_gathered(monkeypatch):
    """Random preimages (fresh each run), each hash once in order, then with repeats: the kernel's
    values (in place, then gathered) equal the host core's (gmpy2 here)."""
    rng = np.random.default_rng()
    x = to_limbs([int(v) for v in rng.integers(0, 2**62, size=6 * 8)], FR.limbs).reshape(6, 8, FR.limbs)
    walks = PoseidonWalks(x, 8, 255, "standard")
    calls = []
    real = gpos.legacy_limbs_device
    monkeypatch.setattr(gpos, "legacy_limbs_device", lambda *a, **k: calls.append(k.get("out") is not None) or real(*a, **k))
    monkeypatch.setattr(rpos, "_reading_core", lambda: None)
    for rows in (np.arange(6), np.array([5, 0, 0, 3, 5])):
        lr = LimbRuns([(to_limbs([7, 2**70], FR.limbs), None), (walks, rows)])
        assert np.array_equal(wide_on_device(cp, lr).get(), np.asarray(lr))
    assert calls == [True, False]


def test_the_device_assignment_equals_the_values_files(post):
    with get_backend("cuda") as bk:
        for fi, fv in zip(post["inputs"], post["values"]):
            a = bk.compact_to_device_async(read_witness_compact(fi)).ready()
            b = bk.compact_to_device_async(read_witness_compact(fv)).ready()
            assert np.array_equal(a.get(), b.get())


def test_a_gpu_proof_from_inputs_files_verifies(post):
    d = post["d"]
    pipeline.prove_batch(post["pce"], d / "k.params", [post["van"]], [d / "in"], d / "proofs", backend="cuda",
                         checked=[post["rec"]])
    proof = next((d / "proofs").iterdir())
    res = pipeline.verify_sector(d / "k.vk", post["van"], proof, d / "v.json", shape_name=SHAPE, checked=post["rec"])
    assert res["verified"] and res["partitions"] == 2


def test_gpu_poseidon_synthesis_keeps_the_same_inputs(post):
    """``synthesis_poseidon: gpu`` with ``inputs``: the digests come from the kernel (only they
    are copied back), the file is the native core's, byte for byte."""
    d = post["d"]
    files = pipeline.synthesize_sector(post["van"], post["pce"], d / "gpu-in", checked=post["rec"], poseidon="gpu",
                                       keep="inputs")
    assert [f.read_bytes() for f in files] == [f.read_bytes() for f in post["inputs"]]
