"""SnapDeals vanilla proofs in Filecoin's form (``cuzk.sector.filecoin_update``).

No partition proof made by upstream's code exists to test against (see the module docstring), so
the bytes are checked against a naive walk of upstream's struct layout written here with
``struct.pack`` (storage-proofs-update ``vanilla.rs`` ``PartitionProof`` / ``ChallengeProof``,
storage-proofs-core ``merkle/proof.rs``, bincode 1 defaults), the challenged node taken from the
proof's own tree_r path positions rather than from cuzk's challenge code. The update itself is
real: a 2 KiB CC sector key (venus genesis sector t0106 #0, tests/fixtures/filecoin, see its
README) with random deal data, proved by :func:`cuzk.sector.update_doc.generate_update`.
"""

from __future__ import annotations

import base64
import json
import struct
from pathlib import Path

import numpy as np
import pytest

from cuzk.cli import main
from cuzk.hash.poseidon import R
from cuzk.sector import filecoin_update as fu
from cuzk.sector import update_doc as ud
from cuzk.sector.fr32 import pad_sector, unpadded_size
from cuzk.sector.jsondoc import write_doc

FIX = Path(__file__).parent / "fixtures" / "filecoin"
SIZE = 2048


@pytest.fixture(scope="module")
def doc() -> dict:
    sec = json.loads((FIX / "venus-presealed-2kib.json").read_text())["sectors"][0]
    key = (FIX / "venus-sealed" / sec["sealed_file"].split("/")[-1]).read_bytes()
    data = pad_sector(np.random.default_rng(5).bytes(unpadded_size(SIZE)), SIZE)
    d, _ = ud.generate_update(3, key, data, bytes.fromhex(sec["comm_c"]), bytes.fromhex(sec["comm_r_last"]), SIZE)
    return d


@pytest.fixture(scope="module")
def snap(doc) -> dict:
    return fu.from_cuzk(doc)


def _facts(snap: dict) -> dict:
    return {"proof_type": snap["ProofType"], "comm_r_old": bytes(snap["old_r"]), "comm_r_new": bytes(snap["new_r"]),
            "comm_d_new": bytes(snap["new_d"]), "sector_id": 3}


def _naive(doc: dict, k: int) -> bytes:
    """PartitionProof's bincode walked field by field (2 KiB: tree_r is one 8-ary level pair, Single)."""
    part = doc["partitions"][k]
    out = bytes(doc["comm_c"]) + struct.pack("<Q", len(part["apex_leafs"])) + b"".join(map(bytes, part["apex_leafs"]))
    out += struct.pack("<Q", len(part["challenge_proofs"]))

    def tree_r(root, leaf, path) -> bytes:
        b = struct.pack("<I", 0) + bytes(root) + bytes(leaf) + struct.pack("<Q", len(path))
        for el in path:
            b += struct.pack("<Q", len(el["hashes"])) + b"".join(map(bytes, el["hashes"])) + struct.pack("<Q", el["index"])
        return b

    for c in part["challenge_proofs"]:
        node = sum(el["index"] * 8 ** lvl for lvl, el in enumerate(c["path_r_old"]))
        out += tree_r(c["root_r_old"], c["leaf_r_old"], c["path_r_old"])
        out += struct.pack("<I", 0) + bytes(doc["comm_d_new"]) + bytes(c["leaf_d_new"]) + struct.pack("<Q", len(c["path_d_new"]))
        for lvl, s in enumerate(c["path_d_new"]):
            out += struct.pack("<Q", 1) + bytes(s) + struct.pack("<Q", (node >> lvl) & 1)
        out += tree_r(c["root_r_new"], c["leaf_r_new"], c["path_r_new"])
    return out


def test_bytes_follow_upstreams_layout(doc, snap):
    assert snap["ProofType"] == 0 and len(snap["Proofs"]) == 1  # StackedDrg2KiBV1, one partition
    (p,) = snap["Proofs"]
    assert p == _naive(doc, 0)
    # 32 + 8 + 8·32 + 8 + 10 challenges · (2 tree_r proofs of 4+64+8+2·(8+7·32+8) + tree_d 4+64+8+6·(8+32+8))
    assert len(p) == 304 + 10 * (2 * 556 + 364)
    assert snap["old_r"] == doc["comm_r_old"] and snap["new_d"] == doc["comm_d_new"]


def test_round_trip_byte_identical_and_verified(doc, snap):
    back = fu.to_cuzk(snap["Proofs"], **_facts(snap))
    assert back == doc
    ud.verify_update(back)
    assert fu.from_cuzk(back)["Proofs"] == snap["Proofs"]
    dec = fu.decode_partition(snap["Proofs"][0])
    assert fu.encode_partition(dec) == snap["Proofs"][0]


def test_files_and_cli_round_trip(doc, snap, tmp_path, capsys):
    src = tmp_path / "update.json"
    write_doc(src, doc)
    assert main(["update", "convert", str(src), "-o", str(tmp_path / "snap.json")]) == 0
    raw = (tmp_path / "snap.json").read_bytes()
    got = json.loads(raw)
    assert list(got) == ["ProofType", "old_r", "new_r", "new_d", "Proofs"] and b" " not in raw
    assert base64.b64decode(got["Proofs"][0]) == snap["Proofs"][0]
    assert main(["update", "convert", str(tmp_path / "snap.json"), "-o", str(tmp_path / "back.json"),
                 "--sector-id", "3"]) == 0
    assert (tmp_path / "back.json").read_bytes() == src.read_bytes()
    # curio's bare snap-vproof.json, facts from the options; and curio's ProofData wrapper
    fu.convert(src, tmp_path / "snap-vproof.json", vproofs_only=True)
    bare = (tmp_path / "snap-vproof.json").read_bytes()
    assert json.loads(bare) == got["Proofs"]
    hexes = [bytes(snap[k]).hex() for k in ("old_r", "new_r", "new_d")]
    assert main(["update", "convert", str(tmp_path / "snap-vproof.json"), "-o", str(tmp_path / "b2.json"), "--sector-id",
                 "3", "--proof-type", "0", "--comm-r-old", hexes[0], "--comm-r-new", hexes[1], "--comm-d-new", hexes[2]]) == 0
    assert (tmp_path / "b2.json").read_bytes() == src.read_bytes()
    (tmp_path / "pd.json").write_text(json.dumps({"SectorID": {"Miner": 1000, "Number": 3}, "PoRep": None, "Snap": got}))
    assert fu.convert(tmp_path / "pd.json", tmp_path / "b3.json") == ("filecoin", "cuzk")
    assert (tmp_path / "b3.json").read_bytes() == src.read_bytes()
    with pytest.raises(ud.UpdateFileError, match="old_r: not given"):
        fu.convert(tmp_path / "snap-vproof.json", tmp_path / "x.json", sector_id=3, proof_type=0)
    assert "update convert" in capsys.readouterr().out


def _tamper(snap: dict, edit) -> list[bytes]:
    p = fu.decode_partition(snap["Proofs"][0])
    edit(p)
    return [fu.encode_partition(p)]


def _single(p: dict, proof: str, i: int = 0) -> dict:
    return p["challenge_proofs"][i][proof]["data"]["Single"]


def _bump(v: list) -> None:
    v[0] ^= 1


CASES = {
    "comm_c ≥ r": (lambda p: p.update(comm_c=list(R.to_bytes(32, "little"))), "Proofs/0/comm_c: not a canonical"),
    "tree_r sibling": (lambda p: _bump(_single(p, "proof_r_old", 2)["path"]["path"][1]["hashes"][3]),
                       "Proofs/0/challenge_proofs/2/proof_r_old: .*does not hash up"),
    "tree_r path too short": (lambda p: _single(p, "proof_r_new")["path"]["path"].pop(),
                              "Proofs/0/challenge_proofs/0/proof_r_new: .*another shape"),
    "tree_d path too short": (lambda p: _single(p, "proof_d_new", 1)["path"]["path"].pop(),
                              "Proofs/0/challenge_proofs/1/proof_d_new/data/Single/path: does not open"),
    "tree_d index bit": (lambda p: _single(p, "proof_d_new")["path"]["path"][0].update(index=2),
                         "proof_d_new/data/Single/path/path/0: a binary tree level"),
    "tree_d root": (lambda p: _bump(_single(p, "proof_d_new")["root"]), "proof_d_new/data/Single/root: differs"),
    "replica leaf": (lambda p: _bump(_single(p, "proof_r_new", 4)["leaf"]),
                     "Proofs/0/challenge_proofs/4/proof_r_new"),
    "apex leaf": (lambda p: _bump(p["apex_leafs"][5]), "Proofs/0/apex_leafs"),
    "challenge count": (lambda p: p["challenge_proofs"].pop(), "Proofs/0/challenge_proofs: 9 challenge proofs"),
}


@pytest.mark.parametrize("case", CASES)
def test_tampered_proof_refused_naming_the_field(snap, case):
    edit, match = CASES[case]
    with pytest.raises(ud.UpdateFileError, match=match) as e:
        fu.to_cuzk(_tamper(snap, edit), **(_facts(snap)), path="snap.json")
    assert e.value.path == "snap.json"


def test_malformed_bytes_refused_naming_the_field(snap):
    p, facts = snap["Proofs"][0], _facts(snap)
    tag_at = 32 + 8 + 8 * 32 + 8  # challenge 0's proof_r_old ProofData tag
    for data, match in ((p[:-1], "truncated"), (p + b"\0", "<end>: 1 bytes left over"),
                        (p[:tag_at] + struct.pack("<I", 3) + p[tag_at + 4:], "challenge_proofs/0/proof_r_old/data: variant index 3"),
                        (p[:tag_at] + struct.pack("<I", 1) + p[tag_at + 4:], "proof_r_old/data")):
        with pytest.raises(ud.UpdateFileError, match=match):
            fu.to_cuzk([data], **facts, path="snap.json")
    with pytest.raises(ud.UpdateFileError, match="ProofType: 5"):
        fu.to_cuzk([p], **(facts | {"proof_type": 5}))
    with pytest.raises(ud.UpdateFileError, match="Proofs: 2 partition proofs"):
        fu.to_cuzk([p, p], **facts)
    with pytest.raises(ud.UpdateFileError, match="new_d: not 32 bytes of a canonical"):
        fu.to_cuzk([p], **(facts | {"comm_d_new": R.to_bytes(32, "little")}))
    with pytest.raises(ud.UpdateFileError, match="comm_r_old"):
        fu.to_cuzk([p], **(facts | {"comm_r_old": bytes(32)}))


def test_no_filecoin_form_for_synthetic_or_non_default_h(doc):
    with pytest.raises(ud.UpdateFileError, match="synthetic"):
        fu.from_cuzk(doc | {"synthetic": True})
    with pytest.raises(ud.UpdateFileError, match="h: 2"):
        fu.from_cuzk(doc | {"h": 2})
    with pytest.raises(ud.UpdateFileError, match="sector_size: 4096"):
        fu.from_cuzk(doc | {"sector_size": 4096})
