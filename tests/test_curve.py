"""G1/G2 encodings and checks against published generator coordinates, Python-integer curve
arithmetic and a second library (blst through pyblst)."""

import random

import pyblst
import pytest

from cuzk.curve import G1, G2, EncodingError, NotInSubgroupError, NotOnCurveError
from cuzk.field import FQ, FR

from curve_util import (
    Q,
    fq2_mul,
    g1_point_off_subgroup,
    g1_uncompressed,
    g2_point_off_subgroup,
    g2_uncompressed,
)

# Generator coordinates from the BLS12-381 definition (zkcrypto/bls12_381, IETF draft).
G1X = 0x17F1D3A73197D7942695638C4FA9AC0FC3688C4F9774B905A14E3A3F171BAC586C55E83FF97A1AEFFB3AF00ADB22C6BB
G1Y = 0x08B3F481E3AAA0F1A09E30ED741D8AE4FCF5E095D5D00AF600DB18CB2C04B3EDD03CC744A2888AE40CAA232946C5E7E1
G2X = (
    0x024AA2B2F08F0A91260805272DC51051C6E47AD4FA403B02B4510B647AE3D1770BAC0326A805BBEFD48056C8C121BDB8,
    0x13E02B6052719F607DACD3A088274F65596BD0D09920B61AB5DA61BBDC7F5049334CF11213945D57E5AC7D055D042B7E,
)
G2Y = (
    0x0CE5D527727D6E118CC9CDC6DA2E351AADFD9BAA8CBDD3A76D429A695160D12C923AC9CC3BACA289E193548608B82801,
    0x0606C4A02EA734CC32ACD2B02BC28B99CB3E287E85A763AF267492AB572E99AB3F370D275CEC1DA1AAA9075FF05F79BE,
)


def test_generator_coordinates_on_curve():
    assert (G1Y * G1Y - G1X**3 - 4) % Q == 0
    lhs = fq2_mul(G2Y, G2Y)
    x3 = fq2_mul(fq2_mul(G2X, G2X), G2X)
    assert lhs == ((x3[0] + 4) % Q, (x3[1] + 4) % Q)


def test_generator_encodings():
    assert G1.to_uncompressed(G1.generator()) == g1_uncompressed(G1X, G1Y)
    assert G2.to_uncompressed(G2.generator()) == g2_uncompressed(G2X, G2Y)
    c1 = G1.to_compressed(G1.generator())
    c2 = G2.to_compressed(G2.generator())
    assert c1.hex().startswith("97f1d3a7") and c1.hex().endswith("c6bb")
    assert c2.hex().startswith("93e02b60") and c2.hex().endswith("bdb8")
    # compressed = x with flag 0x80 (and 0x20 when y is the larger root)
    assert int.from_bytes(c1, "big") & ~(0xE0 << 376) == G1X
    assert G1.to_compressed(G1.identity()) == b"\xc0" + bytes(47)
    assert G2.to_compressed(G2.identity()) == b"\xc0" + bytes(95)
    assert G1.to_uncompressed(G1.identity()) == b"\x40" + bytes(95)


@pytest.mark.parametrize("grp,blst", [(G1, pyblst.BlstP1Element), (G2, pyblst.BlstP2Element)], ids=["G1", "G2"])
def test_round_trips_and_blst_agreement(grp, blst):
    rng = random.Random(1)
    base = blst().uncompress(grp.to_compressed(grp.generator()))
    for _ in range(5):
        k = rng.randrange(FR.modulus)
        p = grp.mul(grp.generator(), k)
        # blst computes k·G independently
        assert grp.to_compressed(p) == bytes(base.scalar_mul(k).compress())
        assert grp.from_uncompressed(grp.to_uncompressed(p)) == p
        assert grp.from_compressed(grp.to_compressed(p)) == p
    pts = [grp.mul(grp.generator(), rng.randrange(FR.modulus)) for _ in range(4)] + [grp.identity()]
    arr = grp.to_array(pts)
    assert arr.shape == (5, grp.uncompressed_size)
    assert grp.from_array(arr) == pts


def test_off_curve_rejected():
    bad = g1_uncompressed(G1X, (G1Y + 1) % Q)
    with pytest.raises(NotOnCurveError):
        G1.from_uncompressed(bad)
    bad2 = g2_uncompressed(G2X, ((G2Y[0] + 1) % Q, G2Y[1]))
    with pytest.raises(NotOnCurveError):
        G2.from_uncompressed(bad2)


def test_wrong_subgroup_rejected():
    x, y = g1_point_off_subgroup(5)
    enc = g1_uncompressed(x, y)
    with pytest.raises(NotInSubgroupError):
        G1.from_uncompressed(enc)
    G1.from_uncompressed(enc, check_subgroup=False)  # on the curve: accepted without the check
    comp = bytearray(x.to_bytes(48, "big"))
    comp[0] |= 0x80 | (0x20 if y > Q - y else 0)
    with pytest.raises(NotInSubgroupError):
        G1.from_compressed(bytes(comp))
    x2, y2 = g2_point_off_subgroup(3)
    with pytest.raises(NotInSubgroupError):
        G2.from_uncompressed(g2_uncompressed(x2, y2))


def test_array_error_names_index():
    x, y = g1_point_off_subgroup(5)
    arr = G1.to_array([G1.generator()]).tobytes() + g1_uncompressed(x, y)
    with pytest.raises(NotInSubgroupError, match="point 1"):
        G1.from_array(arr)


@pytest.mark.parametrize(
    "data,err",
    [
        (b"\x00" * 95, EncodingError),  # short
        (b"\x80" + bytes(95), EncodingError),  # compression flag in uncompressed form
        (b"\x40" + bytes(94) + b"\x01", EncodingError),  # infinity with junk
        (b"\x60" + bytes(95), EncodingError),  # infinity with sort flag
        (FQ.modulus.to_bytes(48, "big") + bytes(48), EncodingError),  # x = q, not canonical
        (bytes(96), NotOnCurveError),  # (0, 0)
    ],
)
def test_bad_uncompressed(data, err):
    with pytest.raises(err):
        G1.from_uncompressed(data)


def test_bad_compressed():
    with pytest.raises(EncodingError):
        G1.from_compressed(G1.to_compressed(G1.generator())[:47])
    with pytest.raises(EncodingError):
        G1.from_compressed(b"\x00" + G1.to_compressed(G1.generator())[1:])  # flag missing
    # an x with no point: find x where x³+4 is a non-residue
    x = 1
    while pow((x**3 + 4) % Q, (Q - 1) // 2, Q) == 1:
        x += 1
    with pytest.raises(EncodingError):
        G1.from_compressed(bytes([0x80]) + x.to_bytes(48, "big")[1:])


def test_msm_and_sum_small():
    g = G1.generator()
    pts = [G1.mul(g, k) for k in (3, 5, 7)]
    assert G1.msm(pts, [1, 2, 0]) == G1.mul(g, 13)
    assert G1.sum(pts) == G1.mul(g, 15)
    assert G1.mul(g, FR.modulus) == G1.identity()
    with pytest.raises(ValueError):
        G1.msm(pts, [1])
