"""Point encodings ↔ device limbs of the cuda backend, run with numpy (the same code runs with
cupy on the GPU when a key is streamed to the device). Checked against integers read from the
zcash encoding by hand; needs no GPU."""

import numpy as np
import pytest

from cuzk.backend.cuda.runtime import _encoding_to_limbs, _limbs_to_encoding
from cuzk.curve import G1, G2


def _points(group, n):
    g = group.generator()
    pts = [group.identity()] + [group.mul(g, 7 + 3 * i) for i in range(n - 1)]
    return np.frombuffer(b"".join(group.to_uncompressed(p) for p in pts), dtype=np.uint8).reshape(n, -1)


@pytest.mark.parametrize("group", [G1, G2], ids=["G1", "G2"])
def test_limbs_are_the_coordinates_little_endian(group):
    raw = _points(group, 5)
    limbs = _encoding_to_limbs(group, raw)
    k = 1 if group is G1 else 2
    assert limbs.shape == (5, 24 * k) and limbs.dtype == np.uint32
    assert not limbs[0].any()                               # infinity → zeros
    for row, enc in zip(limbs[1:], raw[1:]):
        words = [int.from_bytes(bytes(enc[48 * j : 48 * j + 48]), "big") for j in range(2 * k)]
        words[0] &= (1 << 381) - 1                          # flag bits of the first byte
        if k == 2:
            words = [words[1], words[0], words[3], words[2]]   # zcash writes c1 ‖ c0
        got = [int.from_bytes(row[12 * j : 12 * j + 12].tobytes(), "little") for j in range(2 * k)]
        assert got == words
    assert np.array_equal(_limbs_to_encoding(group, limbs), raw)


def test_compressed_encoding_refused():
    raw = _points(G1, 3).copy()
    raw[1, 0] |= 0x80
    with pytest.raises(ValueError, match="compressed"):
        _encoding_to_limbs(G1, raw)
