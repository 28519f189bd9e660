"""``cuzk.bench.kernels.seeded_device`` (the benchmarks' seeded device values, which two builds'
runs must reproduce byte for byte) against splitmix64's mixing steps written again with numpy
(Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014: the golden
gamma and the two multipliers), and every value below r. Skipped without CuPy or a device."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

cp = pytest.importorskip("cupy")

from cuzk.backend.cuda import cuda_available  # noqa: E402

if not cuda_available():
    pytest.skip("no CUDA device", allow_module_level=True)

from cuzk.bench.kernels import seeded_device  # noqa: E402
from cuzk.field import FR, from_limbs  # noqa: E402


def _splitmix_rows(n: int, seed: int) -> np.ndarray:
    j = np.arange(4 * n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        v = j + np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15)
        v = (v ^ (v >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        v = (v ^ (v >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    v ^= v >> np.uint64(31)
    v[3::4] &= np.uint64((1 << 60) - 1)
    return v.reshape(n, 4)


@pytest.mark.parametrize("n, seed", [(1, 0), (1000, 7), (1 << 16, 2027)])
def test_seeded_device_is_splitmix_and_below_r(n, seed):
    got = cp.asnumpy(seeded_device(n, seed))
    assert got.shape == (n, 4) and got.dtype == np.uint64
    assert np.array_equal(got, _splitmix_rows(n, seed))
    assert all(int(v) < FR.modulus for v in from_limbs(got[:256]))
    assert not np.array_equal(got, cp.asnumpy(seeded_device(n, seed + 1)))
