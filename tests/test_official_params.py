"""Filecoin's parameter files by name and digest (cuzk.groth16.official): the packaged
parameters.json, BLAKE2b-512 prefix digests checked on first use and recorded, typed errors
naming the file."""

import hashlib
import json

import pytest

from cuzk.groth16 import official
from cuzk.groth16.official import OfficialParamsError, blake2b_digest, params_dir, porep_file, read_manifest, verify_official
from cuzk.sector import SECTOR_SIZES


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CUZK_CACHE_DIR", str(tmp_path / "cache"))


def _files(tmp_path):
    """Two small 'parameter files' and a manifest naming them with their digests."""
    d = tmp_path / "params"
    d.mkdir()
    files = {"v28-test-a.params": bytes(range(256)) * 300, "v28-test-a.vk": b"vk bytes"}
    for n, b in files.items():
        (d / n).write_bytes(b)
    manifest = {n: {"cid": "Qm-test", "digest": hashlib.blake2b(b).hexdigest()[:32], "sector_size": 2048}
                for n, b in files.items()}
    return d, manifest


def test_digest_is_blake2b_512_prefix(tmp_path):
    (tmp_path / "e").write_bytes(b"")
    # BLAKE2b-512("") from RFC 7693's reference implementation: 786a02f7…
    assert blake2b_digest(tmp_path / "e") == "786a02f742015903c6c6fd852552d272"
    big = bytes(range(256)) * (1 << 17)   # more than one read block
    (tmp_path / "b").write_bytes(big)
    assert blake2b_digest(tmp_path / "b") == hashlib.blake2b(big, digest_size=64).hexdigest()[:32]


def test_good_file_passes_once_hashed_then_recorded(tmp_path, monkeypatch):
    d, manifest = _files(tmp_path)
    for name in manifest:
        assert verify_official(name, d, manifest) == d / name
    monkeypatch.setattr(official, "blake2b_digest", lambda p: pytest.fail(f"{p} hashed again"))
    assert verify_official("v28-test-a.params", d, manifest) == d / "v28-test-a.params"


@pytest.mark.parametrize("recorded_first", [False, True])
def test_flipped_byte_fails_naming_the_file(tmp_path, recorded_first):
    d, manifest = _files(tmp_path)
    p = d / "v28-test-a.params"
    if recorded_first:
        verify_official(p.name, d, manifest)
    raw = bytearray(p.read_bytes())
    raw[1000] ^= 0x01
    with open(p, "r+b") as f:   # in place: same inode and size
        f.write(raw)
    import os
    os.utime(p, ns=(p.stat().st_atime_ns, p.stat().st_mtime_ns + 1_000_000))
    with pytest.raises(OfficialParamsError) as e:
        verify_official(p.name, d, manifest)
    assert e.value.field == "digest" and str(p) in str(e.value) and manifest[p.name]["digest"] in str(e.value)


def test_unknown_and_missing_files(tmp_path):
    d, manifest = _files(tmp_path)
    with pytest.raises(OfficialParamsError) as e:
        verify_official("v28-other.params", d, manifest)
    assert e.value.field == "name" and "v28-other.params" in str(e.value)
    (d / "v28-test-a.vk").unlink()
    with pytest.raises(OfficialParamsError) as e:
        verify_official("v28-test-a.vk", d, manifest)
    assert e.value.field == "<missing>" and str(d / "v28-test-a.vk") in str(e.value)


def test_params_dir_default_and_env(monkeypatch, tmp_path):
    monkeypatch.delenv("FIL_PROOFS_PARAMETER_CACHE", raising=False)
    assert str(params_dir()) == "/var/tmp/filecoin-proof-parameters"
    monkeypatch.setenv("FIL_PROOFS_PARAMETER_CACHE", str(tmp_path))
    assert params_dir() == tmp_path
    assert params_dir(tmp_path / "x") == tmp_path / "x"


def test_packaged_manifest_names_one_porep_key_per_size():
    m = read_manifest()
    for size in SECTOR_SIZES:
        names = {ext: porep_file(size, ext, m) for ext in (".params", ".vk")}
        stems = {n.rsplit(".", 1)[0] for n in names.values()}
        assert len(stems) == 1 and all(m[n]["sector_size"] == size for n in names.values())
    assert sorted(n[:-7] for n in m if n.endswith(".params")) == sorted(n[:-3] for n in m if n.endswith(".vk"))
    # per size two PoSt keys (winning, window) and one SnapDeals key of the circuit built here
    # (the Poseidon variant's 32 and 64 GiB files are another circuit's)
    for size in SECTOR_SIZES:
        assert len(official.family_files("post", size, ".params", m)) == 2
        (upd,) = official.family_files("update", size, ".params", m)
        assert upd.startswith("v28-empty-sector-update-merkletree-")
    assert sum("v28-empty-sector-update-poseidon-merkletree-" in n for n in m) == 4


def test_malformed_manifest_is_refused_naming_the_entry(tmp_path):
    p = tmp_path / "parameters.json"
    p.write_text(json.dumps({"v28-x.params": {"cid": "Qm", "digest": "abc", "sector_size": 2048}}))
    with pytest.raises(OfficialParamsError) as e:
        read_manifest(p)
    assert e.value.field == "v28-x.params" and str(p) in str(e.value)
    p.write_text("{")
    with pytest.raises(OfficialParamsError, match="<json>"):
        read_manifest(p)


def test_cli_params_verify(tmp_path, monkeypatch, capsys):
    from cuzk.cli import main

    d, manifest = _files(tmp_path)
    name = "v28-stacked-proof-of-replication-test.vk"
    real = read_manifest()
    some = next(n for n in real if n.endswith(".vk"))
    (d / some).write_bytes(b"not the official bytes")
    monkeypatch.setenv("FIL_PROOFS_PARAMETER_CACHE", str(d))
    assert main(["params", "verify", "--params-dir", str(tmp_path / "none")]) == 2
    assert f"{tmp_path / 'none'}: <missing>: no such directory" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["params", "verify", "--params-dir", str(tmp_path / "empty")]) == 0
    assert "0 file(s)" in capsys.readouterr().out
    assert main(["params", "verify"]) == 2   # the one manifest file present is not the official one
    err = capsys.readouterr().err
    assert str(d / some) in err and "digest" in err
    assert main(["params", "verify", name]) == 2
    assert "not a file of Filecoin's parameters.json" in capsys.readouterr().err


def test_official_file_is_picked_by_family_size_and_ic_length(post_2kib_keys, tmp_path):
    """``official_file``: of the manifest's files of a shape's family and sector size that are in
    the directory, the one whose vk (the .params' head) has the shape's IC length; None when none
    is there; a typed error naming the files when none or several have it. The two PoSt keys of
    one size (test-only shapes of 2 KiB, IC lengths 3 and 7, set up here) are told apart by it
    under either name. The file's check is ``pipeline.use_official_params``' (tests/test_check_params.py)."""
    from conftest import POST_KEY_SHAPES, official_files
    from cuzk.circuits.registry import shape_by_name

    window, winning = (shape_by_name(s) for s in POST_KEY_SHAPES)
    key = {s.name: (post_2kib_keys / f"{s.name}.params", post_2kib_keys / f"{s.name}.vk") for s in (window, winning)}
    a, b = "v28-proof-of-spacetime-fallback-merkletree-test-a", "v28-proof-of-spacetime-fallback-merkletree-test-b"
    d = tmp_path / "none"
    manifest = official_files(tmp_path / "m", {a: key[window.name], b: key[winning.name]}, 2048)
    d.mkdir()
    assert official.official_file(window, d, manifest) is None and official.official_file(winning, d, manifest) is None
    for names in ((a, b), (b, a)):
        d = tmp_path / "-".join(n[-1] for n in names)
        manifest = official_files(d, dict(zip(names, (key[window.name], key[winning.name]))), 2048)
        assert official.official_file(window, d, manifest) == d / f"{names[0]}.params"
        assert official.official_file(winning, d, manifest) == d / f"{names[1]}.params"
    # the winning key under both names: ambiguous for winning, absent for window
    d = tmp_path / "both"
    manifest = official_files(d, {a: key[winning.name], b: key[winning.name]}, 2048)
    for shape, n in ((winning, 2), (window, 0)):
        with pytest.raises(OfficialParamsError, match=f"ic: {n} of the files present") as e:
            official.official_file(shape, d, manifest)
        assert f"{a}.params (7)" in str(e.value) and f"{b}.params (7)" in str(e.value)
    # a size or family the manifest has no file of
    assert official.official_file(shape_by_name("test-only-winning-post-256B-3"), d, manifest) is None
    assert official.official_file(shape_by_name("update-2KiB"), d, manifest) is None
    # the packaged manifest's name, a file too short for a vk's head
    name = porep_file(2048)
    (d / name).write_bytes(b"key")
    with pytest.raises(OfficialParamsError, match="vk: not a key file at byte 0: truncated") as e:
        official.official_file(shape_by_name("porep-2KiB"), d)
    assert e.value.path == str(d / name)
