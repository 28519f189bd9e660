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


def test_official_file_is_found_for_porep_shapes_only(tmp_path):
    """``official_file``: the manifest's PoRep .params of a shape's sector size when it is in the
    directory (a stat: the workflow asks while its DAG is built), else None; test-only and PoSt
    shapes have none. The file's check is ``pipeline.use_official_params``' (tests/test_check_params.py)."""
    from cuzk.circuits.registry import shape_by_name
    shape = shape_by_name("porep-2KiB")
    name = porep_file(2048)
    d = tmp_path / "params"
    d.mkdir()
    manifest = {name: {"cid": "Qm-test", "digest": hashlib.blake2b(b"key").hexdigest()[:32], "sector_size": 2048}}
    assert official.official_file(shape, d, manifest) is None
    (d / name).write_bytes(b"key")
    assert official.official_file(shape, d, manifest) == d / name
    assert official.official_file(shape_by_name("test-only-porep-256B"), d, manifest) is None
    assert official.official_file(shape_by_name("window-post-2KiB"), d, manifest) is None
