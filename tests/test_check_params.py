"""``cuzk check-params`` (``pipeline.check_official_params``): one sector proved with the
official key of its shape and verified with the official vk; the official files trusted by their
BLAKE2b digests, every point checked on request. No official file can be fetched
here, so the "official" files are a development key of the 128-byte comm_d test shape written
in bellperson's layout (cuzk's ``.params``/``.vk`` are that layout) under a PoRep file name,
with a test manifest (the digests of those files, sector size 128) in place of the packaged
parameters.json. A key whose l points are swapped (a key of the same counts for a constraint
system with two aux columns exchanged: what a different allocation order gives) is refused by
the proof's verification, a tampered file by its digest. For PoSt, the window and winning
development keys of ``POST_KEY_SHAPES`` (``conftest.post_2kib_keys``) under two PoSt file names:
each shape proves with the one of its IC length; the other kind's key alone, or a vk whose IC
points are exchanged, is refused."""

import pytest

from conftest import KEY_SHAPE, POST_KEY_SHAPES, official_files

from cuzk import cli, pipeline
from cuzk.groth16 import KeyFileError, read_params
from cuzk.r1cs.witness import read_witness
from cuzk.groth16.official import OfficialParamsError, blake2b_digest
from cuzk.paths import Results

SHAPE = KEY_SHAPE   # the session key's shape (conftest.commd_128b_key)
NAME = "v28-stacked-proof-of-replication-merkletree-test-only"   # named as parameters.json names them


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CUZK_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def dev_key(commd_128b_key):
    """The session's development key of SHAPE (``conftest.commd_128b_key``, read-only): a folder
    with s.pce, s.params and s.vk (links to its files)."""
    r = Results(str(commd_128b_key))
    root = commd_128b_key.parent / "check-params-key"
    if not root.exists():
        root.mkdir()
        for name, src in (("s.pce", r.pce(SHAPE)), ("s.params", r.params(SHAPE)), ("s.vk", r.vk(SHAPE))):
            (root / name).symlink_to(src)
    return root


def _write(path, data) -> object:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(data))
    return path


def _official(root, tmp_path, params=None, vk=None):
    """The params dir with the key under the official names, and the manifest naming them."""
    d = tmp_path / "params"
    return d, official_files(d, {NAME: (params or root / "s.params", vk or root / "s.vk")}, 128)


def test_a_proof_with_the_key_verifies_under_its_vk(dev_key, tmp_path, monkeypatch, capsys):
    d, manifest = _official(dev_key, tmp_path)
    monkeypatch.setattr(pipeline.official, "read_manifest", lambda *a, **k: manifest)
    assert cli.main(["check-params", "--shape", SHAPE, "--params-dir", str(d), "--backend", "cpu",
                     "--threads", "2", "--workdir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"a proof made with {d / NAME}.params verifies under {d / NAME}.vk (1 partition(s), sector 1, synthetic)" in out
    assert not list(tmp_path.glob("cuzk-check-params-*")), "the scratch folder is removed"


def test_a_key_for_other_columns_fails_the_proof(dev_key, tmp_path, monkeypatch, capsys):
    """l[0] and l[j] exchanged in the file, j the first aux whose value (in the sector the
    command proves) differs from aux 0's: still valid points and the same counts, but the key of
    a constraint system whose aux columns 0 and j are swapped: the proof does not verify."""
    c1, wit = tmp_path / "c1.json", tmp_path / "wit"
    pipeline.prepare({"id": 1, "synthetic": True}, c1, SHAPE, "check-params", "00" * 32)   # as the command makes it
    pipeline.synthesize_sector(c1, dev_key / "s.pce", wit)
    aux = read_witness(next(wit.iterdir()))[1]
    j = next(i for i in range(1, len(aux)) if aux[i] != aux[0])
    pk = read_params(dev_key / "s.params")
    raw = bytearray((dev_key / "s.params").read_bytes())
    off = len((dev_key / "s.vk").read_bytes()) + 4 + 96 * len(pk.h) + 4   # bellperson's layout: vk, h, then l
    assert raw[off : off + 96] == bytes(pk.l[0]) and raw[off + 96 * j : off + 96 * (j + 1)] == bytes(pk.l[j])
    a, b = slice(off, off + 96), slice(off + 96 * j, off + 96 * (j + 1))
    raw[a], raw[b] = raw[b], raw[a]
    swapped = tmp_path / "swapped.params"
    swapped.write_bytes(bytes(raw))
    d, manifest = _official(dev_key, tmp_path, params=swapped)
    monkeypatch.setattr(pipeline.official, "read_manifest", lambda *a, **k: manifest)
    assert cli.main(["check-params", "--shape", SHAPE, "--params-dir", str(d), "--backend", "cpu",
                     "--threads", "2", "--workdir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "FAILED" in err and "does not verify" in err and "not rust-fil-proofs'" in err


def test_tampered_or_mismatched_files_are_refused_before_any_proof(dev_key, tmp_path, monkeypatch):
    d, manifest = _official(dev_key, tmp_path)
    vk = d / f"{NAME}.vk"
    raw = bytearray(vk.read_bytes())
    raw[-1] ^= 1
    vk.write_bytes(bytes(raw))
    called = []
    monkeypatch.setattr(pipeline, "pce_extract", lambda *a, **k: called.append(a))
    with pytest.raises(OfficialParamsError, match="digest") as e:
        pipeline.check_official_params(SHAPE, d, backend="cpu", manifest=manifest)
    assert str(vk) in str(e.value)
    # a .vk of its own digest that is not the .params' key
    manifest[f"{NAME}.vk"]["digest"] = blake2b_digest(vk)
    with pytest.raises(OfficialParamsError, match="vk: does not begin with the verifying key"):
        pipeline.check_official_params(SHAPE, d, backend="cpu", manifest=manifest)
    # a point off its curve (alpha_g1's x, in the .vk and in the .params' copy of it) under
    # digests that match: refused by the full check, on request
    raw, vraw = bytearray((dev_key / "s.params").read_bytes()), bytearray((dev_key / "s.vk").read_bytes())
    raw[47] ^= 1
    vraw[47] ^= 1
    d2, manifest2 = _official(dev_key, tmp_path / "bad-point", params=_write(tmp_path / "bad.params", raw),
                              vk=_write(tmp_path / "bad.vk", vraw))
    with pytest.raises(KeyFileError):
        pipeline.check_official_params(SHAPE, d2, backend="cpu", manifest=manifest2, full_check=True)
    assert called == [], "no step ran"
    with pytest.raises(ValueError, match="not a PoRep or PoSt shape"):
        pipeline.check_official_params("update-2KiB", d, manifest=manifest)


def test_the_workflow_step_links_a_checked_official_key(dev_key, tmp_path):
    """``use_official_params`` (the workflow's ``official_params``, in place of setup): the
    official .params and .vk, checked, become the shape's key files as links (no 44 GiB copy),
    and the linked .params is read trusted by its digest (no hash, no point check); a file of
    another digest links nothing."""
    from cuzk.groth16 import read_vk
    from cuzk.groth16 import keys

    d, manifest = _official(dev_key, tmp_path)
    out = tmp_path / "results" / "params"
    out.mkdir(parents=True)
    params, vk = out / f"{SHAPE}.params", out / f"{SHAPE}.vk"
    pipeline.use_official_params(SHAPE, params, vk, params_dir=d, manifest=manifest, mem_json=tmp_path / "m.json")
    assert params.is_symlink() and params.resolve() == (d / f"{NAME}.params").resolve()
    assert vk.is_symlink() and read_vk(vk) == read_vk(dev_key / "s.vk")
    hashed = []
    real = keys.sha256_released
    try:
        keys.sha256_released = lambda v: hashed.append(len(v)) or real(v)
        pk = read_params(params)
    finally:
        keys.sha256_released = real
    assert hashed == [] and pk.digest and len(pk.l) == len(read_params(dev_key / "s.params").l)
    (d / f"{NAME}.params").write_bytes((d / f"{NAME}.params").read_bytes()[:-1] + b"\0")  # another digest
    params.unlink(), vk.unlink()
    with pytest.raises(OfficialParamsError, match="digest"):
        pipeline.use_official_params(SHAPE, params, vk, params_dir=d, manifest=manifest)
    assert not params.exists() and not params.is_symlink() and not vk.is_symlink()


def test_the_workflow_step_links_the_post_key_of_the_shapes_ic_length(post_2kib_keys, tmp_path):
    """For a PoSt shape, of the two PoSt files of its sector size (winning and window, told
    apart by no name here either), ``use_official_params`` links the one whose vk has the
    shape's IC length, and its h and l counts pass the shape's check."""
    from cuzk.groth16 import read_vk

    window, winning = POST_KEY_SHAPES
    stems = ("v28-proof-of-spacetime-fallback-merkletree-test-a", "v28-proof-of-spacetime-fallback-merkletree-test-b")
    d = tmp_path / "params"
    manifest = official_files(d, {stem: (post_2kib_keys / f"{sh}.params", post_2kib_keys / f"{sh}.vk")
                                  for stem, sh in zip(stems, (winning, window))}, 2048)
    out = tmp_path / "results"
    out.mkdir()
    for sh, stem in ((window, stems[1]), (winning, stems[0])):
        params, vk = out / f"{sh}.params", out / f"{sh}.vk"
        pipeline.use_official_params(sh, params, vk, params_dir=d, manifest=manifest)
        assert params.resolve() == (d / f"{stem}.params").resolve() and vk.resolve() == (d / f"{stem}.vk").resolve()
        assert read_vk(vk) == read_vk(post_2kib_keys / f"{sh}.vk")


#: Official-style names of the two PoSt files of 2 KiB sectors (told apart by no name, as
#: Filecoin's are not): winning's key under the first, window's under the second.
POST_STEMS = ("v28-proof-of-spacetime-fallback-merkletree-test-a", "v28-proof-of-spacetime-fallback-merkletree-test-b")


def _post_official(keys, d, kinds=(1, 0), vk_of=None):
    """The PoSt keys of ``POST_KEY_SHAPES`` (indices ``kinds``: winning first) under POST_STEMS in
    folder ``d``; ``vk_of``: {shape: (params, vk)} in place of the fixture's files. Returns the manifest."""
    pairs = {}
    for stem, k in zip(POST_STEMS, kinds):
        sh = POST_KEY_SHAPES[k]
        pairs[stem] = (vk_of or {}).get(sh, (keys / f"{sh}.params", keys / f"{sh}.vk"))
    return official_files(d, pairs, 2048)


def test_post_check_params_proves_with_the_key_of_the_shapes_kind(post_2kib_keys, tmp_path, monkeypatch, capsys):
    """Window and winning PoSt: a vanilla proof over synthetic sectors proved with the official
    file of the shape's IC length and verified under its vk, through the command."""
    d = tmp_path / "params"
    manifest = _post_official(post_2kib_keys, d)
    monkeypatch.setattr(pipeline.official, "read_manifest", lambda *a, **k: manifest)
    for sh, stem, kind in zip(POST_KEY_SHAPES, POST_STEMS[::-1], ("window", "winning")):
        assert cli.main(["check-params", "--shape", sh, "--params-dir", str(d), "--backend", "cpu",
                         "--workdir", str(tmp_path)]) == 0
        out = capsys.readouterr().out
        assert (f"{sh}: a proof made with {d / stem}.params verifies under {d / stem}.vk "
                f"(1 partition(s), {kind}-post, synthetic)") in out
    assert not list(tmp_path.glob("cuzk-check-params-*")), "the scratch folder is removed"


def test_post_check_params_refuses_the_other_kinds_key_and_a_tampered_vk(post_2kib_keys, tmp_path, monkeypatch,
                                                                         capsys):
    """Only the winning key present: the window shape finds no file of its IC length (a typed
    error naming the folder and the IC lengths present, before any step). A window vk whose first two IC points are exchanged (valid points,
    the .params' copy changed alike, digests that match): the proof does not verify, exit 1."""
    from dataclasses import replace

    from cuzk.groth16 import read_vk

    window = POST_KEY_SHAPES[0]
    d = tmp_path / "winning-only"
    manifest = _post_official(post_2kib_keys, d, kinds=(1,))
    called = []
    monkeypatch.setattr(pipeline, "pce_extract", lambda *a, **k: called.append(a))
    with pytest.raises(OfficialParamsError, match=f"0 of the files present for {window} have its IC length 3"):
        pipeline.check_official_params(window, d, backend="cpu", manifest=manifest)
    assert called == []
    monkeypatch.undo()

    vk_path = post_2kib_keys / f"{window}.vk"
    vk = read_vk(vk_path)
    bad_vk = replace(vk, ic=[vk.ic[1], vk.ic[0], *vk.ic[2:]]).to_bytes()
    head = len(vk_path.read_bytes())
    bad_params = bad_vk + (post_2kib_keys / f"{window}.params").read_bytes()[head:]
    pair = (_write(tmp_path / "bad.params", bad_params), _write(tmp_path / "bad.vk", bad_vk))
    d = tmp_path / "params"
    manifest = _post_official(post_2kib_keys, d, vk_of={window: pair})
    monkeypatch.setattr(pipeline.official, "read_manifest", lambda *a, **k: manifest)
    assert cli.main(["check-params", "--shape", window, "--params-dir", str(d), "--backend", "cpu",
                     "--workdir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "FAILED" in err and "does not verify" in err and "not rust-fil-proofs'" in err
