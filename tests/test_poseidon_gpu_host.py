"""The GPU Poseidon witness core (``src/cuzk/backend/cuda/poseidon_witness.cuh``, the kernel of
``cuzk.backend.cuda.poseidon``) built for the host with the PTX carry-chain model
(``tests/fixtures/poseidon_emu.cpp``), so CPU-only CI checks the kernel's walk: its values equal
the gmpy2 path's (``cuzk.r1cs.poseidon._legacy_limbs``) byte for byte for the circuits' arities,
both strengths, their tags, random and edge inputs; its digests equal neptune's published
vectors; and the Montgomery constants it reads are the host core's times 2^256 mod r."""

from __future__ import annotations

import random
import subprocess

import numpy as np
import pytest

from cuzk.backend import poseidon_host
from cuzk.backend.cuda.poseidon import mont_constants
from cuzk.field import FR, to_limbs
from cuzk.hash import poseidon as P
from cuzk.r1cs.poseidon import _legacy_limbs
from cuzk.sector.update import GEN_RANDOMNESS_TAG
from test_poseidon_native import NEPTUNE, R, _ints


@pytest.fixture(scope="module")
def emu(host_build):
    return host_build("poseidon_emu")


def run_emu(emu, tmp_path, x: np.ndarray, arity: int, tag: int, strength: str) -> np.ndarray:
    """The host-built core's values for inputs x ((kc, arity, 4) canonical limbs)."""
    rf, rp = P.round_numbers(arity, strength)
    kc = x.shape[0]
    cf, xf, of = tmp_path / "consts.bin", tmp_path / "in.bin", tmp_path / "out.bin"
    cf.write_bytes(mont_constants(arity, tag, strength).tobytes())
    xf.write_bytes(np.ascontiguousarray(x, dtype=np.uint64).tobytes())
    subprocess.run([str(emu), str(arity + 1), str(rf), str(rp), str(kc), str(cf), str(xf), str(of)], check=True)
    nops = poseidon_host.legacy_nops(arity, strength)
    return np.frombuffer(of.read_bytes(), dtype=np.uint64).reshape(kc, nops, FR.limbs)


def test_montgomery_constants_are_the_host_cores_times_2_256():
    for arity, strength in ((2, P.STANDARD), (11, P.STRENGTHENED)):
        tag = P.merkle_tree_tag(arity, strength)
        canon, mont = _ints(poseidon_host.constants(arity, tag, strength)), _ints(mont_constants(arity, tag, strength))
        assert len(canon) == len(mont) and mont == [v * 2**256 % R for v in canon]


@pytest.mark.parametrize("strength", [P.STANDARD, P.STRENGTHENED])
@pytest.mark.parametrize("arity", [2, 4, 8, 11])
def test_values_are_the_python_paths_byte_for_byte(emu, tmp_path, arity, strength):
    rng = random.Random()
    tags = [P.merkle_tree_tag(arity, strength), P.constant_length_tag(arity, strength)]
    if arity == 2:
        tags.append(GEN_RANDOMNESS_TAG)   # SnapDeals' phi, rho and digest hashes
    edge = [0, 1, R - 1, R - 2, 2**64 - 1, 2**255 % R]
    for tag in tags:
        kc = 9
        vals = edge + [rng.randrange(R) for _ in range(kc * arity)]
        x = to_limbs(vals[:kc * arity], FR.limbs).reshape(kc, arity, FR.limbs)
        want = _legacy_limbs(x, arity, tag, strength)
        got = run_emu(emu, tmp_path, x, arity, tag, strength)
        assert got.shape == want.shape and got.tobytes() == want.tobytes(), (arity, strength, tag)


def test_digest_is_neptunes_published_vector(emu, tmp_path):
    for (arity, strength), want in NEPTUNE.items():
        x = to_limbs(list(range(arity)), FR.limbs).reshape(1, arity, FR.limbs)
        got = run_emu(emu, tmp_path, x, arity, P.merkle_tree_tag(arity, strength), strength)
        assert _ints(got[0, -1]) == [want]
