"""Fr/Fq array arithmetic against Python integers, and limb/Montgomery conversions."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cuzk.field import FQ, FR, from_limbs, from_montgomery, int_array, to_limbs, to_montgomery

FIELDS = [FR, FQ]


def elems(field):
    p = field.modulus
    return st.one_of(st.sampled_from([0, 1, 2, p - 1, p - 2, (p - 1) // 2]), st.integers(0, p - 1))


@pytest.mark.parametrize("field", FIELDS, ids=lambda f: f.name)
def test_constants(field):
    # independent facts: primality of the moduli (Miller-Rabin via gmpy2) and bit lengths
    import gmpy2

    assert gmpy2.is_prime(field.modulus, 50)
    assert field.modulus.bit_length() == field.bits
    assert (field.modulus - 1) % (1 << field.two_adicity) == 0
    assert ((field.modulus - 1) >> field.two_adicity) % 2 == 1


def test_fr_known_values():
    # r and q of BLS12-381 as published (zkcrypto/bls12_381 README, IETF pairing-friendly-curves)
    assert FR.modulus == 52435875175126190479447740508185965837690552500527637822603658699938581184513
    assert FQ.modulus == int(
        "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559787"
    )
    # 7 is a quadratic non-residue of Fr, so 7^((r-1)/2^32) has order exactly 2^32
    w = FR.root_of_unity(1 << 32)
    assert pow(w, 1 << 31, FR.modulus) == FR.modulus - 1
    assert pow(7, (FR.modulus - 1) // 2, FR.modulus) == FR.modulus - 1


def test_root_of_unity_errors():
    with pytest.raises(ValueError, match="power of two"):
        FR.root_of_unity(12)
    with pytest.raises(ValueError, match="exceeds"):
        FR.root_of_unity(1 << 33)


@pytest.mark.parametrize("field", FIELDS, ids=lambda f: f.name)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_ops_against_ints(field, data):
    p = field.modulus
    xs = data.draw(st.lists(elems(field), min_size=1, max_size=20))
    ys = data.draw(st.lists(elems(field), min_size=len(xs), max_size=len(xs)))
    a, b = int_array(xs), int_array(ys)
    assert list(field.add(a, b)) == [(x + y) % p for x, y in zip(xs, ys)]
    assert list(field.sub(a, b)) == [(x - y) % p for x, y in zip(xs, ys)]
    assert list(field.mul(a, b)) == [(x * y) % p for x, y in zip(xs, ys)]
    assert list(field.square(a)) == [(x * x) % p for x in xs]
    assert list(field.neg(a)) == [(-x) % p for x in xs]
    nz = [x for x in xs if x]
    if nz:
        assert list(field.batch_inverse(int_array(nz))) == [pow(x, -1, p) for x in nz]


def test_batch_inverse_zero_names_index():
    with pytest.raises(ZeroDivisionError, match="index 2"):
        FR.batch_inverse(int_array([1, 2, 0, 3]))


@pytest.mark.parametrize("field", FIELDS, ids=lambda f: f.name)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_limbs_and_montgomery(field, data):
    xs = data.draw(st.lists(elems(field), min_size=1, max_size=10))
    limbs = to_limbs(xs, field.limbs)
    assert limbs.shape == (len(xs), field.limbs) and limbs.dtype == np.uint64
    # independent limb decomposition
    for row, x in zip(limbs, xs):
        assert [int(v) for v in row] == [(x >> (64 * i)) & (2**64 - 1) for i in range(field.limbs)]
    assert list(from_limbs(limbs)) == xs
    mont = to_montgomery(limbs, field)
    assert list(from_limbs(mont)) == [x * 2 ** (64 * field.limbs) % field.modulus for x in xs]
    assert np.array_equal(from_montgomery(mont, field), limbs)


def test_montgomery_rejects_unreduced():
    with pytest.raises(ValueError, match="modulus"):
        to_montgomery(to_limbs([FR.modulus], 4), FR)


def test_to_limbs_overflow():
    with pytest.raises(OverflowError):
        to_limbs([2**256], 4)


def test_powers_with_a_start_value():
    from cuzk.field import FR

    r = FR.modulus
    for n in (0, 1, 2, 5, 17):
        assert [int(v) for v in FR.powers(3, n)] == [pow(3, i, r) for i in range(n)]
        assert [int(v) for v in FR.powers(3, n, start=r - 7)] == [(r - 7) * pow(3, i, r) % r for i in range(n)]
