"""Bases streamed from a memory-mapped key file on a CUDA device (``CUDAMSMContext`` not resident:
the encodings decoded in place on the GPU by ``points_decode``, ``pieces`` on the host): the
device limbs are the host reference's (``_encoding_to_limbs``), the MSMs over streamed pieces
equal a naive sum of products, a compressed encoding is refused, and a ``.params`` file read
mapped proves the same bytes resident and streamed."""

from __future__ import annotations

import secrets

import numpy as np
import pytest

from cuzk.backend import get_backend
from cuzk.backend.cuda import cuda_available
from cuzk.backend.cuda.runtime import _encoding_to_limbs, _kernel, _grid, _u64
from cuzk.curve import G1, G2
from cuzk.field import FR

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA device")]


@pytest.fixture(scope="module")
def bk():
    with get_backend("cuda") as b:
        yield b


def _points(group, n, seed):
    g = group.generator()
    pts = [group.identity()] + [group.mul(g, seed + 7 * i) for i in range(n - 1)]
    return pts, group.to_array(pts)


def _mapped(tmp_path, raw, name):
    path = tmp_path / name
    raw.tofile(path)
    return np.memmap(path, dtype=np.uint8, mode="r", shape=raw.shape)


@pytest.mark.parametrize("group", [G1, G2], ids=["G1", "G2"])
def test_device_decode_matches_host_reference(bk, group, tmp_path):
    _, raw = _points(group, 300, 11)
    ctx = bk.msm_context(group, _mapped(tmp_path, raw, "pts"), resident=True)   # decoded on the GPU
    canon = bk.cp.empty_like(ctx._bases)
    words = int(ctx._bases.size) // 12
    _kernel("msm.cu", "fq_from_mont", group.name)((_grid(words, 256),), (256,), (ctx._bases, canon, _u64(words)))
    assert np.array_equal(canon.get(), _encoding_to_limbs(group, raw))
    assert np.array_equal(bk.points_download_affine(group, ctx._bases), raw)


@pytest.mark.parametrize("group", [G1, G2], ids=["G1", "G2"])
def test_streamed_msm_many_from_a_mapped_file(bk, group, tmp_path):
    n = 200
    pts, raw = _points(group, n, 5)
    ctx = bk.msm_context(group, _mapped(tmp_path, raw, "pts"), resident=False)
    assert not ctx.resident
    scalars = [np.array([secrets.randbelow(FR.modulus) for _ in range(n)], dtype=object) for _ in range(3)]
    scalars[1][:50] = 1   # the plain-sum path too
    want = []
    for sc in scalars:
        acc = group.identity()
        for p, s in zip(pts, sc):
            acc = acc + group.mul(p, int(s))
        want.append(acc)
    for piece in (7, 64, n):
        b0 = bk.bus_bytes
        assert ctx.msm_many(scalars, piece=piece) == want, piece
        assert bk.bus_bytes - b0 == raw.nbytes   # one pass over the bases for the three vectors
    assert ctx.msm(scalars[0]) == want[0]
    assert np.array_equal(ctx.encoded(3, 9), raw[3:9])


@pytest.mark.parametrize("garbage", [False, True])
def test_streamed_compressed_encoding_refused(bk, tmp_path, garbage):
    """A compressed flag in one streamed row is refused as such; with garbage coordinates (a
    compressed point's 48 bytes followed by another's, as a compressed file read as uncompressed
    rows gives) too, before any MSM over the decoded piece fails off the curve."""
    _, raw = _points(G1, 40, 3)
    raw = raw.copy()
    if garbage:
        raw[17, 48:] = raw[18, :48]
    raw[17, 0] |= 0x80
    ctx = bk.msm_context(G1, _mapped(tmp_path, raw, "bad"), resident=False)
    with pytest.raises(ValueError, match="compressed"):
        ctx.msm_many([np.arange(40, dtype=object)], piece=16)
