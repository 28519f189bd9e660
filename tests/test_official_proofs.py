"""Groth16 proofs made by the official crates (filecoin-proofs 18.1 + bellperson 0.26) verify
with our verifier and our public-input derivation.

Fixture: ``tests/fixtures/filecoin/polka-storage-2kib-groth16.json`` (see the README beside it).
The vks come from a random setup over the standard 2 KiB circuits, so these check the statement
(replica_id, challenges, parents, input order), not Filecoin's ceremony keys.
"""

import hashlib
import json
from pathlib import Path

import pytest

from cuzk.groth16.keys import Proof, read_vk
from cuzk.groth16.verifier import verify
from cuzk.hash.poseidon import R
from cuzk.sector.c1 import replica_id
from cuzk.sector.challenges import derive_challenges
from cuzk.sector.graph import parents
from cuzk.sector.post import challenge_index, leaf_challenge

FIXTURE = Path(__file__).parent / "fixtures" / "filecoin" / "polka-storage-2kib-groth16.json"
DOC = json.loads(FIXTURE.read_text())
SIZE = 2048
PARTITION_CHALLENGES = 2  # 2 KiB PoRep: one partition of 2 challenges (rust-fil-proofs constants)


def _vk(tmp_path, hexvk: str):
    p = tmp_path / "key.vk"
    p.write_bytes(bytes.fromhex(hexvk))
    return read_vk(p)


def _le(h: str) -> int:
    return int.from_bytes(bytes.fromhex(h), "little")


def _porep_inputs(rid: bytes, comm_r: int | None = None) -> list[int]:
    """StackedCompound::generate_public_inputs for partition 0 (api >= 1.1 graph)."""
    d = DOC["porep"]
    pid = bytes.fromhex(d["porep_id"])
    out = [int.from_bytes(rid, "little"), _le(d["comm_d"]), _le(d["comm_r"]) if comm_r is None else comm_r]
    for c in derive_challenges(rid, bytes.fromhex(d["seed"]), SIZE, 0, PARTITION_CHALLENGES):
        out += [c] + parents(SIZE, pid, c, api_version="1.1") + [c] * 3
    return out


def _rid() -> bytes:
    d = DOC["porep"]
    return replica_id(bytes.fromhex(d["prover_id"]), d["sector_id"], bytes.fromhex(d["ticket"]),
                      bytes.fromhex(d["comm_d"]), SIZE, bytes.fromhex(d["porep_id"]))


def test_replica_id_clears_top_two_bits_like_upstream():
    d = DOC["porep"]
    pre = (bytes.fromhex(d["prover_id"]) + d["sector_id"].to_bytes(8, "big") + bytes.fromhex(d["ticket"])
           + bytes.fromhex(d["comm_d"]) + bytes.fromhex(d["porep_id"]))
    h = bytearray(hashlib.sha256(pre).digest())
    h[31] &= 0x3F  # bytes_into_fr_repr_safe
    assert _rid() == bytes(h)
    # this sector is one where a reduction mod r would give another value (the old bug)
    assert int.from_bytes(hashlib.sha256(pre).digest(), "little") % R != int.from_bytes(h, "little")


def test_official_porep_proof_verifies(tmp_path):
    d = DOC["porep"]
    vk = _vk(tmp_path, d["vk"])
    inputs = _porep_inputs(_rid())
    assert len(inputs) + 1 == d["vk_ic_count"] == len(vk.ic)
    assert verify(vk, Proof.from_bytes(bytes.fromhex(d["proof"])), inputs)


def test_official_porep_proof_refuses_wrong_statement(tmp_path):
    d = DOC["porep"]
    vk = _vk(tmp_path, d["vk"])
    proof = Proof.from_bytes(bytes.fromhex(d["proof"]))
    assert not verify(vk, proof, _porep_inputs(_rid(), comm_r=_le(d["comm_r"]) + 1))
    pre = (bytes.fromhex(d["prover_id"]) + d["sector_id"].to_bytes(8, "big") + bytes.fromhex(d["ticket"])
           + bytes.fromhex(d["comm_d"]) + bytes.fromhex(d["porep_id"]))
    modr = (int.from_bytes(hashlib.sha256(pre).digest(), "little") % R).to_bytes(32, "little")
    assert not verify(vk, proof, _porep_inputs(modr))
    other = bytearray.fromhex(d["proof"])
    other[144:192] = bytes.fromhex(DOC["window_post"]["proof"])[144:192]  # a valid point, wrong C
    assert not verify(vk, Proof.from_bytes(bytes(other)), _porep_inputs(_rid()))


def _post_inputs(api: str) -> list[int]:
    """FallbackPoStCompound inputs: 2 sector slots, the one sector repeated; 10 challenges each."""
    d = DOC["window_post"]
    rnd = bytes.fromhex(d["randomness"])
    out = []
    for slot in range(2):
        out.append(_le(d["comm_r"]))
        out += [leaf_challenge(rnd, d["sector_id"], challenge_index(api, slot, 10, n), SIZE) for n in range(10)]
    return out


def test_official_window_post_proof_verifies(tmp_path):
    d = DOC["window_post"]
    vk = _vk(tmp_path, d["vk"])
    proof = Proof.from_bytes(bytes.fromhex(d["proof"]))
    inputs = _post_inputs("1.2")
    assert len(inputs) + 1 == d["vk_ic_count"] == len(vk.ic)
    assert verify(vk, proof, inputs)
    assert not verify(vk, proof, _post_inputs("1.1"))  # slot-offset challenge indexing: another statement
    bad = list(inputs)
    bad[0] += 1
    assert not verify(vk, proof, bad)


@pytest.mark.parametrize("which", ["porep", "window_post"])
def test_official_vk_refuses_off_curve_point(tmp_path, which):
    from cuzk.groth16.keys import KeyFileError
    raw = bytearray.fromhex(DOC[which]["vk"])
    raw[10] ^= 0x01  # inside alpha_g1's x coordinate: no longer a curve point (or not in G1)
    p = tmp_path / "bad.vk"
    p.write_bytes(bytes(raw))
    with pytest.raises(KeyFileError, match="alpha_g1"):
        read_vk(p)
