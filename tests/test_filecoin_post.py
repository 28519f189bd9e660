"""Filecoin's PoSt vanilla proof bytes (``cuzk.sector.filecoin_post``) on real data: curio's
``post.vproof`` (bincode ``FallbackPoStSectorProof`` of one 32 GiB sector, WindowPoSt, miner 1000,
sector 1, randomness 0) and ``postpub.json`` (its public facts); see shared/real-artifacts/SOURCES.md.

Independent facts used: the leaf challenges are recomputed here with hashlib from the formula
SOURCES.md states; comm_r is the SealedCID's digest, decoded here byte by byte.
"""

from __future__ import annotations

import base64
import hashlib
import json
import struct
from pathlib import Path

import pytest

from cuzk.cli import main
from cuzk.sector import filecoin_post as fp
from cuzk.sector.post import PoStError, verify_post

FIXTURES = Path(__file__).parent / "fixtures" / "filecoin"   # curio's golden files (README there)
VPROOF = FIXTURES / "curio-post.vproof"
PUBLIC = FIXTURES / "curio-postpub.json"

# offsets in the bincode: sector_id u64, comm_r 32, sectors len u64, inclusion_proofs len u64,
# then proof 0: variant u32, base_proof len u64, element 0 hashes len u64, hash 0
FIRST_HASH = 8 + 32 + 8 + 8 + 4 + 8 + 8


@pytest.fixture(scope="module")
def data() -> bytes:
    return VPROOF.read_bytes()


@pytest.fixture(scope="module")
def public() -> dict:
    return fp.read_public(PUBLIC)


def _convert(data: bytes, public: dict, name="post.vproof") -> dict:
    return fp.to_cuzk([(name, data)], public["post_proof"], public["randomness"], public["prover_id"], public["comm_r"])


def test_sealed_cid_digest_is_comm_r():
    cid = json.loads(PUBLIC.read_text())["ChallengedSectors"][0]["SealedCID"]["/"]
    body = cid[1:].upper()
    raw = base64.b32decode(body + "=" * (-len(body) % 8))
    # varints: version 1, codec 0xf102 (82 e2 03), multihash 0xb401 (81 e8 02), length 32
    assert raw[:8] == bytes([0x01, 0x82, 0xE2, 0x03, 0x81, 0xE8, 0x02, 0x20])
    assert fp.sealed_cid_comm_r(cid) == raw[8:]
    unsealed = "b" + base64.b32encode(bytes([0x01, 0x81, 0xE2, 0x03]) + raw[4:]).decode().lower().rstrip("=")
    with pytest.raises(PoStError, match="codec 0xf101"):
        fp.sealed_cid_comm_r(unsealed, "x.json")


def test_decode_fields_and_byte_identical_round_trip(data, public):
    vp = fp.decode_vproof(data, VPROOF)
    assert vp["sector_id"] == 1
    assert bytes(vp["comm_r"]) == public["comm_r"][1]
    (sp,) = vp["vanilla_proof"]["sectors"]
    assert len(sp["inclusion_proofs"]) == 10
    body = sp["inclusion_proofs"][0]["data"]["Sub"]   # 32 GiB: shape (8, 8, 0)
    assert [len(body["base_proof"]["path"]), len(body["sub_proof"]["path"])] == [9, 1]
    assert bytes(body["root"]) == bytes(sp["comm_r_last"])
    assert fp.encode_vproof(vp) == data


def test_converts_to_a_cuzk_doc_verify_post_accepts_and_back(data, public):
    assert public["post_proof"] == 8 and public["randomness"] == bytes(32)
    assert public["prover_id"][:3] == bytes([0xE8, 0x07, 0]) and public["prover_id"][2:] == bytes(30)  # LEB128(1000)
    doc = _convert(data, public)
    assert doc["registered_proof"] == "StackedDrgWindow32GiBV1" and doc["sectors"] == [
        {"id": 1, "comm_r": list(public["comm_r"][1])}]
    # one public sector, padded to the 2349 circuit sectors of a 32 GiB WindowPoSt partition
    (part,) = doc["partitions"]
    assert len(part) == 2349 and all(e is part[0] for e in part)
    verify_post(doc)
    # the leaf each path proves is the challenge derived independently (SOURCES.md's formula)
    for n, pr in enumerate(part[0]["inclusion_proofs"]):
        h = hashlib.sha256(bytes(32) + struct.pack("<QQ", 1, n)).digest()
        want, idx, mul = int.from_bytes(h[:8], "little") % (1 << 30), 0, 1
        for el in pr["path"]:
            idx, mul = idx + el["index"] * mul, mul * 8
        assert idx == want
    assert fp.from_cuzk(doc) == {1: data}


def _flip(data: bytes, at: int) -> bytes:
    b = bytearray(data)
    b[at] ^= 1
    return bytes(b)


@pytest.mark.parametrize("tamper,field", [
    (lambda d: _flip(d, FIRST_HASH), "vanilla_proof/sectors/0/inclusion_proofs/0"),
    (lambda d: _flip(d, len(d) - 64), "vanilla_proof/sectors/0/comm_c"),
    (lambda d: struct.pack("<Q", 2) + d[8:], "sector_id"),
    (lambda d: _flip(d, 8), "comm_r"),
])
def test_tampered_field_is_refused_naming_it(data, public, tamper, field):
    with pytest.raises(PoStError) as e:
        _convert(tamper(data), public, "bad.vproof")
    assert e.value.path == "bad.vproof" and e.value.field.startswith(field)


@pytest.mark.parametrize("index,field", [
    (8, "vanilla_proof/sectors/0/inclusion_proofs/0/data/Sub/base_proof/path/0/index"),   # ≥ arity
    (0, "vanilla_proof/sectors/0/inclusion_proofs/0/data/Sub"),   # proves another leaf than the challenge
])
def test_tampered_path_index_is_refused(data, public, index, field):
    at = FIRST_HASH + 7 * 32   # element 0's index, after its 7 hashes
    assert struct.unpack_from("<Q", data, at)[0] == 7
    with pytest.raises(PoStError) as e:
        _convert(data[:at] + struct.pack("<Q", index) + data[at + 8:], public, "bad.vproof")
    assert (e.value.path, e.value.field) == ("bad.vproof", field)


@pytest.mark.parametrize("cut,field,offset", [
    (1000, "vanilla_proof/sectors/0/inclusion_proofs/0/data/Sub/base_proof/path/3/hashes", 788),  # 7 hashes don't fit
    (68 + 3 * 240 + 8 + 7 * 32 + 4, "vanilla_proof/sectors/0/inclusion_proofs/0/data/Sub/base_proof/path/3/index", 1020),
    (50, "vanilla_proof/sectors", 40),
])
def test_truncated_bytes_name_offset_and_field(data, cut, field, offset):
    with pytest.raises(PoStError) as e:
        fp.decode_vproof(data[:cut], "cut.vproof")
    assert e.value.field == field and f"byte {offset}" in str(e.value)


def test_bad_variant_lengths_and_trailing_bytes(data):
    with pytest.raises(PoStError, match="variant index 7"):
        fp.decode_vproof(data[:56] + struct.pack("<I", 7) + data[60:], "v")
    with pytest.raises(PoStError, match="exceeds"):
        fp.decode_vproof(data[:40] + struct.pack("<Q", 1 << 40) + data[48:], "v")
    with pytest.raises(PoStError) as e:
        fp.decode_vproof(data + b"\0", "v")
    assert e.value.field == "<end>"


def test_cli_refuses_malformed_vproof_before_work(tmp_path, capsys, data):
    cut = tmp_path / "cut.vproof"
    cut.write_bytes(data[:1000])
    out = tmp_path / "post.json"
    assert main(["post", "convert", str(cut), "--public", str(PUBLIC), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert str(cut) in err and "base_proof/path/3/hashes: length 7 at byte 788" in err and not out.exists()
    assert main(["post", "convert", str(VPROOF), "--miner", "t01000", "-o", str(out)]) == 2
    assert "post_proof: not given" in capsys.readouterr().err
