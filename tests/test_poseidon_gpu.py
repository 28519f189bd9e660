"""The Poseidon witness kernel (``cuzk.backend.cuda.poseidon.legacy_limbs``) on a device against
the CPU paths: its values equal gmpy2's (``cuzk.r1cs.poseidon._legacy_limbs``) byte for byte for
the circuits' arities, both strengths, their tags, random and edge inputs, over several blocks;
inputs not below r are refused; a WindowPoSt partition's witness file synthesized with
``gpu_poseidon`` (also with synthesis workers active: the GPU core stays in this process) is the
same bytes as with gmpy2. Skipped without CuPy or a device."""

from __future__ import annotations

import contextlib
import random

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

cp_ = pytest.importorskip("cupy")

from cuzk.backend.cuda import cuda_available  # noqa: E402

if not cuda_available():
    pytest.skip("no CUDA device", allow_module_level=True)

from cuzk.backend.cuda.poseidon import legacy_limbs  # noqa: E402
from cuzk.circuits import post as cp  # noqa: E402
from cuzk.field import FR, to_limbs  # noqa: E402
from cuzk.hash import poseidon as P  # noqa: E402
from cuzk.r1cs import ConstraintSystem, parallel  # noqa: E402
from cuzk.r1cs.parallel import synthesis_workers  # noqa: E402
from cuzk.r1cs.poseidon import _legacy_limbs, gpu_poseidon, native_poseidon  # noqa: E402
from cuzk.r1cs.witness import write_witness_compact  # noqa: E402
from cuzk.sector.update import GEN_RANDOMNESS_TAG  # noqa: E402
from test_poseidon_native import NEPTUNE, R, _ints, window_post_3x2  # noqa: E402


@pytest.mark.parametrize("strength", [P.STANDARD, P.STRENGTHENED])
@pytest.mark.parametrize("arity", [2, 4, 8, 11])
def test_values_are_the_python_paths_byte_for_byte(arity, strength):
    rng = random.Random()
    tags = [P.merkle_tree_tag(arity, strength), P.constant_length_tag(arity, strength)]
    if arity == 2:
        tags.append(GEN_RANDOMNESS_TAG)
    edge = [0, 1, R - 1, R - 2, 2**64 - 1, 2**255 % R]
    for tag in tags:
        for kc in (0, 1, 300):   # 300 hashes: three blocks of 128 threads
            vals = edge + [rng.randrange(R) for _ in range(kc * arity)]
            x = to_limbs(vals[:kc * arity], FR.limbs).reshape(kc, arity, FR.limbs)
            want = _legacy_limbs(x, arity, tag, strength)
            got = legacy_limbs(x, arity, tag, strength)
            assert got.shape == want.shape and got.dtype == np.uint64
            assert got.tobytes() == want.tobytes(), (arity, strength, tag, kc)


def test_digest_is_neptunes_published_vector():
    for (arity, strength), want in NEPTUNE.items():
        x = to_limbs(list(range(arity)), FR.limbs).reshape(1, arity, FR.limbs)
        assert _ints(legacy_limbs(x, arity, P.merkle_tree_tag(arity, strength), strength)[0, -1]) == [want]


def test_bad_inputs_are_refused_before_the_device_runs():
    x = to_limbs([5, 6, 7, R], FR.limbs).reshape(2, 2, FR.limbs)
    with pytest.raises(ValueError, match=f"input 1 of hash 1 is {R:#x}, not below r"):
        legacy_limbs(x, 2, 3, P.STANDARD)
    with pytest.raises(ValueError, match="shape"):
        legacy_limbs(x.reshape(4, 1, 4), 2, 3, P.STANDARD)
    with pytest.raises(ValueError, match="arity"):
        legacy_limbs(x, 16, 3, P.STANDARD)


def test_window_post_witness_file_is_the_same_bytes(tmp_path, monkeypatch):
    """A WindowPoSt partition over three synthetic 32 GiB sectors (two challenges each): gmpy2,
    the GPU core, and the GPU core with 2 synthesis workers active (they do not get its chunks)."""
    monkeypatch.setattr(parallel, "MIN_ROWS", 2)
    doc, shape = window_post_3x2()
    out = []
    for name, workers, ctx in (("python", 1, contextlib.nullcontext), ("gpu", 1, gpu_poseidon),
                               ("gpu-workers", 2, gpu_poseidon)):
        with synthesis_workers(workers), ctx():
            cs = ConstraintSystem(shape=False, witness=True)
            cp.synthesize(cs, shape, cp.values(doc, 0))
        write_witness_compact(tmp_path / f"{name}.wit", cs.assignment_compact())
        out.append((tmp_path / f"{name}.wit").read_bytes())
    assert out[0] == out[1] == out[2]
    with gpu_poseidon(), pytest.raises(RuntimeError, match="already active"):
        with native_poseidon("x.so"):
            pass
