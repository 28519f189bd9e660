"""circom/snarkjs interoperability (issue 6): .r1cs/.wtns/.zkey readers and writers, proving
from a snarkjs key with snarkjs' odd-coset H, snarkjs JSON, typed errors, and cross-checks with
the real snarkjs/circom2 (node) in both directions.

Committed fixtures (tests/fixtures/circom, made by make_fixtures.sh): two circom sources, their
BLS12-381 .r1cs/.wtns, a BN254 .r1cs, a snarkjs key with one phase-2 contribution plus its
verification key, proof and public signals, and a phase-2-prepared power of tau (power 9).
Tests that run node skip when node_modules/.bin/snarkjs (or circom2) is missing: run
``npm ci`` at the repository root.
"""

from __future__ import annotations

import json
import random
import shutil
import struct
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

from cuzk.backend import get_backend
from cuzk.circuits import synthetic
from cuzk.curve import G1, G2
from cuzk.field import FR
from cuzk.formats import (
    Iden3CurveError,
    Iden3FormatError,
    Iden3TruncatedError,
    SnarkjsJSONError,
    WitnessLengthError,
    ZKeyProver,
    adapt_bellman_export,
    prove_zkey,
    read_bellman_export,
    read_container,
    read_proof_json,
    read_public_json,
    read_r1cs,
    read_vk_json,
    read_wtns,
    read_zkey,
    setup_zkey,
    split_witness,
    write_container,
    write_proof_json,
    write_public_json,
    write_vk_json,
    write_wtns,
    write_zkey,
)
from cuzk.formats.encoding import ffjs_index_map, ffjs_root_of_unity, lem_to_points, points_to_lem
from cuzk.groth16 import DevelopmentSetupWarning, Proof, Prover, setup, verify
from cuzk.r1cs import ConstraintSystem, Unsatisfied

R = FR.modulus
ROOT = Path(__file__).resolve().parents[1]
FIX = Path(__file__).resolve().parent / "fixtures" / "circom"
BIN = ROOT / "node_modules" / ".bin"
SNARKJS = BIN / "snarkjs"
CIRCOM2 = BIN / "circom2"

needs_snarkjs = pytest.mark.skipif(
    not SNARKJS.exists() or shutil.which("node") is None,
    reason="snarkjs not installed: run `npm ci` at the repository root (needs node)",
)
needs_circom2 = pytest.mark.skipif(
    not CIRCOM2.exists() or shutil.which("node") is None,
    reason="circom2 not installed: run `npm ci` at the repository root (needs node)",
)


@pytest.fixture(scope="module")
def cpu():
    with get_backend("cpu", threads=1) as bk:
        yield bk


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    """read_zkey's converted-key cache and check records go to a fresh directory per test."""
    monkeypatch.setenv("CUZK_CACHE_DIR", str(tmp_path / "cuzk-cache"))


def snarkjs(*args, cwd, check=True) -> subprocess.CompletedProcess:
    """Run the snarkjs CLI; returns the completed process (rc 0 = success, 1 = invalid proof)."""
    p = subprocess.run([str(SNARKJS), *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=120)
    if check and p.returncode != 0:
        raise AssertionError(f"snarkjs {' '.join(map(str, args))} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    return p


def snarkjs_verifies(vk, public, proof, cwd) -> bool:
    p = snarkjs("groth16", "verify", vk, public, proof, cwd=cwd, check=False)
    assert p.returncode in (0, 1), p.stderr
    return p.returncode == 0


def tampered(proof: Proof) -> Proof:
    return Proof(G1.mul(proof.a, 2), proof.b, proof.c)


# --- readers ------------------------------------------------------------------------------


def test_read_r1cs_header_wire_order_and_input_rows():
    r = read_r1cs(FIX / "multi.r1cs")
    assert (r.n_wires, r.n_pub_out, r.n_pub_in, r.n_prv_in, r.n_constraints) == (14, 3, 2, 4, 7)
    assert r.n_public == 5 and r.num_inputs == 6
    assert r.wire_to_label is not None and r.wire_to_label.shape == (14,)
    cs = r.to_r1cs()
    assert (cs.num_inputs, cs.num_aux, cs.num_constraints) == (6, 8, 7 + 6)
    # the appended rows are bellperson's/snarkjs' input rows: A[nc + i, i] = 1, B = C = 0
    for i in range(6):
        row = 7 + i
        lo, hi = cs.A.indptr[row], cs.A.indptr[row + 1]
        assert list(cs.A.indices[lo:hi]) == [i] and cs.A.coeffs[cs.A.coeff_ids[lo]] == 1
        assert cs.B.indptr[row] == cs.B.indptr[row + 1] and cs.C.indptr[row] == cs.C.indptr[row + 1]
        assert cs.gadget_of(row) == "input"
    assert cs.gadget_of(0) == "circom"
    # negative coefficients (−7·b, −11·i, −p) arrive as r − k, small ones as themselves
    coeffs = {int(c) for c in cs.A.coeffs}
    assert any(R - c < 100 for c in coeffs) and {1, 2} <= coeffs


@pytest.mark.parametrize("name", ["mulchain", "multi"])
def test_witness_satisfies_r1cs(name):
    r = read_r1cs(FIX / f"{name}.r1cs")
    w = read_wtns(FIX / f"{name}.wtns", r.n_wires)
    assert w[0] == 1 and len(w) == r.n_wires
    r.check(w)
    r.to_r1cs().check(w)
    bad = w.copy()
    bad[-1] = (bad[-1] + 1) % R
    with pytest.raises(Unsatisfied):
        r.check(bad)
    with pytest.raises(Unsatisfied):
        r.to_r1cs().check(bad)


def test_public_signals_are_outputs_then_inputs():
    r = read_r1cs(FIX / "multi.r1cs")
    w = read_wtns(FIX / "multi.wtns", r.n_wires)
    a, b, c, d = 2, 9, 4, [6, 13, 40]
    s = (3 * a - 7 * b + 5) * (c + 2) % R
    p = a * b * c
    acc = a * b * d[0] * (d[1] - 11) * (d[2] - 22)
    q = acc * (2 * s - p + 1) % R
    assert r.public_signals(w) == [s, p, q, a, b]
    assert read_public_json(FIX / "multi_public.json") == [s, p, q, a, b]


def test_r1cs_through_bellperson_style_setup_and_prover(cpu):
    """A .r1cs runs through cuzk's own (bellperson-layout) setup and prover."""
    r = read_r1cs(FIX / "mulchain.r1cs")
    w = read_wtns(FIX / "mulchain.wtns", r.n_wires)
    cs = r.to_r1cs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DevelopmentSetupWarning)
        pk = setup(cs, cpu)
    ins, aux = split_witness(w, cs.num_inputs)
    with Prover(pk, cs, cpu) as pr:
        proof = pr.prove(ins, aux)
    assert verify(pk.vk, proof, ins[1:])
    assert not verify(pk.vk, proof, [ins[1], (ins[2] + 1) % R])


def test_wtns_write_read_roundtrip(tmp_path):
    w = read_wtns(FIX / "multi.wtns")
    write_wtns(tmp_path / "x.wtns", w)
    assert (tmp_path / "x.wtns").read_bytes() == (FIX / "multi.wtns").read_bytes()


def test_point_encoding_roundtrip():
    pts = [G1.identity(), G1.generator(), G1.mul(G1.generator(), 12345)]
    arr = G1.to_array(pts)
    assert (lem_to_points(points_to_lem(arr, G1), G1) == arr).all()
    assert points_to_lem(arr, G1)[:96] == bytes(96)  # infinity is all zeros
    pts2 = [G2.identity(), G2.mul(G2.generator(), 777)]
    arr2 = G2.to_array(pts2)
    assert (lem_to_points(points_to_lem(arr2, G2), G2) == arr2).all()


def test_ffjs_domain_map():
    for logn in (1, 2, 5, 10, 16, 32):
        n = 1 << logn
        k = ffjs_index_map(n)
        assert k % 2 == 1
        assert pow(FR.root_of_unity(n), k, R) == ffjs_root_of_unity(n)
    # ffjavascript's root generator is 5 (the smallest non-residue), not blstrs' 7: the domains
    # agree as sets but differ in order from n = 8 on (so the fixtures' n = 16, 64, 512 test it)
    assert ffjs_root_of_unity(2) == R - 1 and ffjs_index_map(4) == 1
    assert ffjs_index_map(8) == 5 and ffjs_index_map(16) == 5 and ffjs_index_map(512) == 341


# --- snarkjs keys (committed, no node needed) -----------------------------------------------


def test_zkey_matches_snarkjs_verification_key():
    zk = read_zkey(FIX / "multi.zkey")
    assert (zk.n_vars, zk.n_public, zk.domain_size) == (14, 5, 16)
    assert zk.a.shape == (14, 96) and zk.b_g2.shape == (14, 192) and zk.c.shape == (8, 96) and zk.h.shape == (16, 96)
    vk, vkj = zk.verifying_key(), read_vk_json(FIX / "multi_vk.json")
    assert vk.alpha_g1 == vkj.alpha_g1 and vk.beta_g2 == vkj.beta_g2
    assert vk.gamma_g2 == vkj.gamma_g2 and vk.delta_g2 == vkj.delta_g2 and vk.ic == vkj.ic
    assert zk.delta_g1 != G1.generator()  # the fixture carries a phase-2 contribution
    # the coefficient section is snarkjs' QAP: the r1cs' A and B plus A[nc + s][s] = 1
    cs = read_r1cs(FIX / "multi.r1cs").to_r1cs()
    for mid, m in enumerate((cs.A, cs.B)):
        ours = sorted(zip(m.row_ids().tolist(), m.indices.tolist(), [int(m.coeffs[i]) for i in m.coeff_ids]))
        sel = zk.coeff_matrix == mid
        theirs = sorted(zip(zk.coeff_constraint[sel].tolist(), zk.coeff_signal[sel].tolist(),
                            [int(v) for v in zk.coeff_value[sel]]))
        assert ours == theirs


def test_zkey_write_reproduces_every_section(tmp_path):
    zk = read_zkey(FIX / "multi.zkey")
    write_zkey(tmp_path / "copy.zkey", zk)
    a, b = read_container(FIX / "multi.zkey", "zkey", 1), read_container(tmp_path / "copy.zkey", "zkey", 1)
    assert sorted(a.sections) == sorted(b.sections) == list(range(1, 11))
    for sec in range(1, 11):
        assert bytes(a.section(sec)) == bytes(b.section(sec)), f"section {sec}"


def test_snarkjs_proof_accepted_by_our_verifier_and_tampering_rejected():
    vk = read_vk_json(FIX / "multi_vk.json")
    proof = read_proof_json(FIX / "multi_proof.json")
    pub = read_public_json(FIX / "multi_public.json")
    assert verify(vk, proof, pub)
    assert not verify(vk, tampered(proof), pub)
    assert not verify(vk, proof, [pub[0], (pub[1] + 1) % R] + pub[2:])
    assert verify(read_zkey(FIX / "multi.zkey").verifying_key(), proof, pub)


def _naive_h(zk, w):
    """snarkjs' H scalars straight from the definition: Lagrange interpolation over ω5_n,
    evaluated at ω5_2n^(2i+1); p = a·b − c with c = a·b on the domain."""
    n = zk.domain_size
    a, b = [0] * n, [0] * n
    for m, c, s, v in zip(zk.coeff_matrix, zk.coeff_constraint, zk.coeff_signal, zk.coeff_value):
        (a if m == 0 else b)[int(c)] += int(v) * int(w[int(s)])
    a, b = [x % R for x in a], [x % R for x in b]
    c = [x * y % R for x, y in zip(a, b)]
    om, om2 = ffjs_root_of_unity(n), ffjs_root_of_unity(2 * n)
    dom = [pow(om, j, R) for j in range(n)]
    out = []
    for i in range(n):
        x = pow(om2, 2 * i + 1, R)
        zx = (pow(x, n, R) - 1) % R
        lag = [zx * dom[j] * pow(n * (x - dom[j]), -1, R) % R for j in range(n)]
        ev = [sum(l * y for l, y in zip(lag, vec)) % R for vec in (a, b, c)]
        out.append((ev[0] * ev[1] - ev[2]) % R)
    return out


def test_h_scalars_follow_snarkjs_definition(cpu):
    zk = read_zkey(FIX / "multi.zkey")
    w = read_wtns(FIX / "multi.wtns", zk.n_vars)
    with ZKeyProver(zk, cpu) as pr:
        h = cpu.to_host(pr.h_scalars(cpu.to_device(w)))
        n, k = zk.domain_size, pr.k
    assert [int(h[k * i % n]) for i in range(n)] == _naive_h(zk, w)


def test_our_proof_from_snarkjs_zkey_verifies(cpu):
    zk = read_zkey(FIX / "multi.zkey")
    w = read_wtns(FIX / "multi.wtns", zk.n_vars)
    proof, pub = prove_zkey(zk, w, cpu)
    assert pub == read_public_json(FIX / "multi_public.json")
    vk = read_vk_json(FIX / "multi_vk.json")
    assert verify(vk, proof, pub)
    assert not verify(vk, tampered(proof), pub)
    # a witness that violates the circuit gives a proof that does not verify
    bad = w.copy()
    bad[-1] = (bad[-1] + 1) % R
    assert not verify(vk, prove_zkey(zk, bad, cpu)[0], pub)


def _naive_proof(zk, w, r, s):
    """πA, πB, πC from the formulas in zkey_prover's docstring, each sum over every base as one
    arkworks MSM (infinity points included) and H from ``_naive_h``: no code of the prover."""
    def msm(grp, arr, sc):
        return grp.msm(grp.from_array(arr, check_subgroup=False), [int(x) % R for x in sc])

    n, npub = zk.domain_size, zk.n_public
    h = _naive_h(zk, w)
    g_a = zk.alpha_g1 + msm(G1, zk.a, w) + G1.mul(zk.delta_g1, r)
    g_b = zk.beta_g2 + msm(G2, zk.b_g2, w) + G2.mul(zk.delta_g2, s)
    b1 = zk.beta_g1 + msm(G1, zk.b_g1, w) + G1.mul(zk.delta_g1, s)
    g_c = (msm(G1, zk.c, w[npub + 1 :]) + msm(G1, zk.h[:n], h) + G1.mul(g_a, s) + G1.mul(b1, r)
           - G1.mul(zk.delta_g1, r * s % R))
    return Proof(g_a, g_b, g_c)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_proof_bytes_equal_an_independent_computation(threads, tmp_path):
    """With fixed r, s the prover's bytes equal the textbook formulas' (and so do not depend on
    how the MSMs are split over threads: H runs as ``threads`` jobs), for the snarkjs fixture and
    for a key of 2^6 rows."""
    r, s = 123456789, 987654321
    r1cs, wc = _cs_circuit()
    with warnings.catch_warnings(), get_backend("cpu", threads=1) as one:
        warnings.simplefilter("ignore", DevelopmentSetupWarning)
        write_zkey(tmp_path / "k.zkey", setup_zkey(r1cs, one))
    cases = [(read_zkey(FIX / "multi.zkey"), read_wtns(FIX / "multi.wtns")),
             (read_zkey(tmp_path / "k.zkey", check=False), wc)]
    proofs = []
    with get_backend("cpu", threads=threads) as bk:
        for zk, w in cases:
            with ZKeyProver(zk, bk) as pr:
                assert pr.threaded
                proof, pub = pr.prove(w, r, s)
                assert pr.times.seconds["msm_c_h0"] >= 0 and "prove" in pr.times.seconds
            assert proof.to_bytes() == _naive_proof(zk, w, r, s).to_bytes()
            assert pub == [int(x) for x in w[1 : zk.n_public + 1]]
            proofs.append(proof)
    # and equal the bytes the prover gave before it ran MSMs on threads (commit 59f8c32)
    assert proofs[0].to_bytes() == MULTI_PROOF_R_S


MULTI_PROOF_R_S = bytes.fromhex(
    "8cf401e865cfd6dbc9f680f0ad543352d1b252c223a577f373240e2a688422765d0b28688455445498883b88c31ad0bb"
    "9195ead90aaeaaa975e4d695ac3df52952a449753d5e96bdf57a9128d1f91650f349dfd28e34e911d06be3b3c32f7941"
    "16051daf1ccb6ad013f247e3ea3ade9b855a7520337aceb81a05790d0dcd46aa02e71aeacdd29e6b5409c40b35485f22"
    "96ca9175a1b171bea3c8b814c734828dbe9d11a6dd3960eee81c4db3f2a72b41bf1300d310397c2a70bcdb3836517200"
)
"""multi.zkey + multi.wtns proved with r = 123456789, s = 987654321 by the sequential prover."""


def test_threaded_prover_checks_the_witness():
    from cuzk.groth16.prover import WitnessError

    zk, w = read_zkey(FIX / "multi.zkey"), read_wtns(FIX / "multi.wtns")
    vk = zk.verifying_key()
    with get_backend("cpu", threads=2) as bk, ZKeyProver(zk, bk) as pr:
        for value in (R, R + 5, -1, 2**256):
            bad = w.copy()
            bad[3] = value
            with pytest.raises(WitnessError, match="outside"):
                pr.prove(bad)
        bad = w.copy()
        bad[0] = 2
        with pytest.raises(WitnessError, match="ONE"):
            pr.prove(bad)
        proof, pub = pr.prove([int(x) for x in w])  # plain ints do as well as mpz
        assert verify(vk, proof, pub)


def test_threaded_prover_errors_stop_cleanly():
    """A bad base (off the curve) fails the proof with its index; a failing job's exception reaches
    the caller and no helper thread is left behind."""
    import threading

    from cuzk.curve import CurveError
    from cuzk.formats.zkey_prover import _Jobs

    zk, w = read_zkey(FIX / "multi.zkey"), read_wtns(FIX / "multi.wtns")
    zk.b_g2 = zk.b_g2.copy()
    bad = next(i for i in range(zk.n_vars) if int(w[i]) > 1 and not zk.b_g2[i, 0] & 0x40)
    zk.b_g2[bad, -1] ^= 1
    before = threading.active_count()
    with get_backend("cpu", threads=2) as bk, ZKeyProver(zk, bk) as pr:
        with pytest.raises(CurveError, match="point"):
            pr.prove(w)
    jobs = _Jobs(2)
    jobs.put("ok", lambda: 1)
    jobs.put("bad", lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        jobs.wait()
    jobs.close()
    jobs.close()
    assert threading.active_count() == before


def test_g1_ranges_cover_the_terms():
    from cuzk.formats import zkey_prover as zp

    for m, threads in ((131072, 2), (131072, 4), (64, 3), (5, 3), (8, 1), (1, 2)):
        parts = zp._g1_ranges(m, threads)
        assert parts[0][0] == 0 and parts[-1][1] == m and all(lo < hi for lo, hi in parts)
        assert all(a[1] == b[0] for a, b in zip(parts, parts[1:]))
        assert len(parts) == (threads if threads > 1 and m >= 2 * threads else 1)
    assert zp._g1_ranges(131072, 2) == [(0, 95683), (95683, 131072)]


def test_cyclic_convolution_gmp_cyclic_product_matches_full_product(monkeypatch):
    """The convolution behind the H scalars: GMP's cyclic product (mpn_mulmod_bnm1, large enough
    here for its FFT path) gives the same values as the full gmpy2 product it replaces, also for
    the largest inputs (no carry may cross a slot) and lengths that are not a power of two."""
    from cuzk.backend import cpu as cpu_mod
    from cuzk.backend import workers

    if cpu_mod._mulmod_bnm1() is None:
        pytest.skip("GMP's mpn_mulmod_bnm1 is not reachable here (the gmpy2 product is used)")
    rng = random.Random(6)
    for n in (4096, 3000, 7):
        k = [rng.randrange(R) for _ in range(n)]
        x = [R - 1] * n if n == 7 else [rng.randrange(R) for _ in range(n)]
        kb, xb = workers.scalars_to_bytes(k), workers.scalars_to_bytes(x)
        got = cpu_mod.CyclicConvolution(kb)(xb)
        with monkeypatch.context() as m:
            m.setattr(cpu_mod, "_mulmod_bnm1", lambda: None)
            want = cpu_mod.CyclicConvolution(kb)(xb)
        assert [int(v) for v in got] == [int(v) for v in want], n
    assert [int(v) for v in got] == [sum(x[j] * k[(i - j) % 7] for j in range(7)) % R for i in range(7)]


def test_odd_coset_kernel_cache(tmp_path):
    """The even-domain → odd-coset kernel is cached per domain size; a damaged file is recomputed."""
    from cuzk.formats import zkey_prover as zp

    n, zeta = 16, ffjs_root_of_unity(32)
    want = b"".join(int(v).to_bytes(32, "little") for v in zp._odd_coset_kernel(n, zeta))
    assert zp._odd_coset_kernel_bytes(n, zeta) == want
    f = tmp_path / "cuzk-cache" / "snarkjs-odd-coset" / "n16"
    good = f.read_bytes()
    for bad in (good[:-1] + bytes([good[-1] ^ 1]), good[:100], b"", good.replace(good[:8], b"x" * 8, 1)):
        f.write_bytes(bad)
        assert zp._odd_coset_kernel_bytes(n, zeta) == want
        assert f.read_bytes() == good
    # another ζ (a different 2n-th root) is not served from this file
    other = pow(zeta, 3, R)
    assert zp._odd_coset_kernel_bytes(n, other) == b"".join(
        int(v).to_bytes(32, "little") for v in zp._odd_coset_kernel(n, other))


def test_zkey_cache_is_used_and_invalidated(tmp_path, monkeypatch, caplog):
    from cuzk.formats import zkey as zkmod

    def same(x, y):
        for name in ("ic", "coeff_matrix", "coeff_constraint", "coeff_signal", "a", "b_g1", "b_g2", "c", "h"):
            assert np.array_equal(getattr(x, name), getattr(y, name)), name
        assert [int(v) for v in x.coeff_value] == [int(v) for v in y.coeff_value]
        assert x.verifying_key().to_bytes() == y.verifying_key().to_bytes()
        assert (x.n_vars, x.n_public, x.domain_size, x.contributions) == (y.n_vars, y.n_public, y.domain_size,
                                                                           y.contributions)

    key = tmp_path / "k.zkey"
    shutil.copy(FIX / "multi.zkey", key)
    fresh = read_zkey(key, check=False, cache=False)
    info = {}
    same(read_zkey(key, check=False, info=info), fresh)
    assert info["cache"] == "miss"
    entry = tmp_path / "cuzk-cache" / "converted-zkey" / info["sha256"]
    assert entry.is_file()
    # a hit does not parse the .zkey at all
    with monkeypatch.context() as m:
        m.setattr(zkmod, "_parse_zkey", lambda *a: pytest.fail("the cache was not used"))
        info = {}
        same(read_zkey(key, check=False, info=info), fresh)
        assert info["cache"] == "hit"
    # check=True converts (and checks) once; the check record then lets it use the cache too
    info = {}
    read_zkey(key, check=True, info=info)
    assert info["cache"] == "miss" and (tmp_path / "cuzk-cache" / "checked-zkey" / info["sha256"]).exists()
    info = {}
    read_zkey(key, check=True, info=info)
    assert info["cache"] == "hit"

    # a changed .zkey (other digest) is converted afresh, never served from the old entry
    zk2 = read_zkey(key)
    zk2.contributions = bytes(64) + struct.pack("<I", 0)
    zk2.h = zk2.h[::-1].copy()
    write_zkey(key, zk2)
    info = {}
    got = read_zkey(key, check=False, info=info)
    assert info["cache"] == "miss" and (tmp_path / "cuzk-cache" / "converted-zkey" / info["sha256"]) != entry
    same(got, read_zkey(key, cache=False))
    assert np.array_equal(got.h, fresh.h[::-1])

    # damaged entries are ignored with a warning and rebuilt, never trusted
    entry = tmp_path / "cuzk-cache" / "converted-zkey" / info["sha256"]
    good = entry.read_bytes()
    other = {}
    read_zkey(FIX / "multi.zkey", check=False, info=other)
    damages = {
        "a flipped payload byte": good[:-100] + bytes([good[-100] ^ 1]) + good[-99:],
        "truncated": good[: len(good) // 2],
        "empty": b"",
        "not a cache file": b"x" * len(good),
        "another key's entry": (tmp_path / "cuzk-cache" / "converted-zkey" / other["sha256"]).read_bytes(),
        "another version": good[:16] + struct.pack("<I", 99) + good[20:],
        # same-length header edits that parse: only the header's CRC-32 tells them apart
        "a header naming another byte order": good.replace(b'"coeff_signal", "<u4"', b'"coeff_signal", ">u4"'),
        "a header moving an array": good.replace(b'[6, 96], 896', b'[6, 96], 960'),
    }
    for what, data in damages.items():
        entry.write_bytes(data)
        caplog.clear()
        info = {}
        with caplog.at_level("WARNING", logger="cuzk.formats.zkey"):
            got = read_zkey(key, check=False, info=info)
        assert info["cache"] == "miss", what
        same(got, read_zkey(key, cache=False))
        if data:
            assert "ignoring the converted-key cache" in caplog.text, what
        assert entry.read_bytes() == good, what  # rebuilt
        info = {}
        read_zkey(key, check=False, info=info)
        assert info["cache"] == "hit", what


def test_zkey_cache_unwritable_is_harmless(tmp_path, monkeypatch):
    ro = tmp_path / "ro"
    ro.mkdir()
    (ro / "converted-zkey").write_text("a file where the cache folder should be")
    monkeypatch.setenv("CUZK_CACHE_DIR", str(ro))
    info = {}
    zk = read_zkey(FIX / "multi.zkey", check=False, info=info)
    assert info["cache"] == "miss" and zk.n_vars == 14
    info = {}
    read_zkey(FIX / "multi.zkey", check=False, info=info, cache=False)
    assert info["cache"] == "off"


def _cs_circuit(constraints=40, inputs=3, seed=1):
    cs = ConstraintSystem(shape=True, witness=True)
    synthetic.synthesize(cs, constraints, inputs, 0.5, seed=seed)
    return cs.finalize(), cs.full_assignment()


def test_setup_zkey_roundtrip_prove_verify(cpu, tmp_path):
    r1cs, w = _cs_circuit()
    with pytest.warns(DevelopmentSetupWarning):
        zk = setup_zkey(r1cs, cpu)
    assert zk.domain_size == 64 and zk.h.shape == (64, 96)
    write_zkey(tmp_path / "k.zkey", zk)
    zk2 = read_zkey(tmp_path / "k.zkey")
    for name in ("ic", "a", "b_g1", "b_g2", "c", "h"):
        assert (getattr(zk2, name) == getattr(zk, name)).all(), name
    proof, pub = prove_zkey(zk2, w, cpu)
    assert pub == [int(x) for x in w[1:4]]
    vk = zk.verifying_key()
    assert verify(vk, proof, pub)
    assert not verify(vk, proof, [(pub[0] + 1) % R] + pub[1:])
    # JSON round trips
    write_proof_json(tmp_path / "p.json", proof)
    write_public_json(tmp_path / "pub.json", pub)
    write_vk_json(tmp_path / "vk.json", vk)
    assert verify(read_vk_json(tmp_path / "vk.json"), read_proof_json(tmp_path / "p.json"),
                  read_public_json(tmp_path / "pub.json"))


# --- bad input ----------------------------------------------------------------------------


def _rewrite(src, dst, magic, version, patch):
    """Copy an iden3 file section by section; ``patch(type, body) -> body | None`` (None drops)."""
    c = read_container(src, magic, 2)
    out = []
    for typ in c.sections:
        body = patch(typ, bytes(c.section(typ)))
        if body is not None:
            out.append((typ, body))
    write_container(dst, magic, version, out)
    return dst


def test_wrong_magic_and_version(tmp_path):
    with pytest.raises(Iden3FormatError, match=r"multi\.wtns.*not a r1cs file"):
        read_r1cs(FIX / "multi.wtns")
    with pytest.raises(Iden3FormatError, match="not a zkey file"):
        read_zkey(FIX / "multi.r1cs")
    data = bytearray((FIX / "multi.r1cs").read_bytes())
    data[4:8] = struct.pack("<I", 9)
    (tmp_path / "v.r1cs").write_bytes(bytes(data))
    with pytest.raises(Iden3FormatError, match="unsupported r1cs version 9"):
        read_r1cs(tmp_path / "v.r1cs")


def test_wrong_curve(tmp_path):
    with pytest.raises(Iden3CurveError, match="section 1 \\(header\\).*not BLS12-381") as e:
        read_r1cs(FIX / "multi_bn254.r1cs")
    assert e.value.section == 1 and e.value.path.endswith("multi_bn254.r1cs")
    bn254_r = int.from_bytes(read_container(FIX / "multi_bn254.r1cs", "r1cs", 1).section(1)[4:36], "little")

    def wtns_patch(typ, body):
        return body[:4] + bn254_r.to_bytes(32, "little") + body[36:] if typ == 1 else body

    _rewrite(FIX / "multi.wtns", tmp_path / "bn.wtns", "wtns", 2, wtns_patch)
    with pytest.raises(Iden3CurveError, match="section 1"):
        read_wtns(tmp_path / "bn.wtns")

    def zkey_patch(typ, body):  # a BN254 q (254 bits) where BLS12-381's q belongs
        q = 21888242871839275222246405745257275088696311157297823662689037894645226208583
        return body[:4] + q.to_bytes(48, "little") + body[52:] if typ == 2 else body

    _rewrite(FIX / "multi.zkey", tmp_path / "bn.zkey", "zkey", 1, zkey_patch)
    with pytest.raises(Iden3CurveError, match=r"section 2 \(groth16 header\)"):
        read_zkey(tmp_path / "bn.zkey")


def test_truncated_files_and_sections(tmp_path):
    data = (FIX / "multi.zkey").read_bytes()
    c = read_container(FIX / "multi.zkey", "zkey", 1)
    off, size = c.sections[9][0]
    (tmp_path / "t.zkey").write_bytes(data[: off + size // 2])
    with pytest.raises(Iden3TruncatedError, match=r"section 9 \(H\): truncated") as e:
        read_zkey(tmp_path / "t.zkey")
    assert e.value.section == 9
    (tmp_path / "t2.zkey").write_bytes(data[:10])
    with pytest.raises(Iden3TruncatedError, match="truncated"):
        read_zkey(tmp_path / "t2.zkey")
    # a consistent container whose section is shorter than its header announces
    _rewrite(FIX / "multi.wtns", tmp_path / "t.wtns", "wtns", 2, lambda t, b: b[:-32] if t == 2 else b)
    with pytest.raises(Iden3TruncatedError, match=r"section 2 \(witness\): truncated"):
        read_wtns(tmp_path / "t.wtns")
    _rewrite(FIX / "multi.r1cs", tmp_path / "t.r1cs", "r1cs", 1, lambda t, b: b[:-40] if t == 2 else b)
    with pytest.raises(Iden3TruncatedError, match=r"section 2 \(constraints\): truncated: constraint 6"):
        read_r1cs(tmp_path / "t.r1cs")
    _rewrite(FIX / "multi.zkey", tmp_path / "t3.zkey", "zkey", 1, lambda t, b: b[:-96] if t == 5 else b)
    with pytest.raises(Iden3TruncatedError, match=r"section 5 \(A\)"):
        read_zkey(tmp_path / "t3.zkey")
    _rewrite(FIX / "multi.zkey", tmp_path / "m.zkey", "zkey", 1, lambda t, b: None if t == 3 else b)
    with pytest.raises(Iden3FormatError, match=r"section 3 \(IC\): section is missing"):
        read_zkey(tmp_path / "m.zkey")


def test_bad_points_and_protocol(tmp_path):
    def bad_h(typ, body):  # one H point moved off the curve
        if typ != 9:
            return body
        b = bytearray(body)
        b[96 * 3] ^= 1
        return bytes(b)

    _rewrite(FIX / "multi.zkey", tmp_path / "p.zkey", "zkey", 1, bad_h)
    with pytest.raises(Iden3FormatError, match=r"section 9 \(H\): H: point 3: G1: point is not on the curve"):
        read_zkey(tmp_path / "p.zkey")
    _rewrite(FIX / "multi.zkey", tmp_path / "plonk.zkey", "zkey", 1,
             lambda t, b: struct.pack("<I", 2) if t == 1 else b)
    with pytest.raises(Iden3FormatError, match="protocol 2 is not Groth16"):
        read_zkey(tmp_path / "plonk.zkey")


def test_witness_of_wrong_length(cpu, tmp_path):
    r = read_r1cs(FIX / "multi.r1cs")
    with pytest.raises(WitnessLengthError, match=r"multi\.wtns: section 1 \(header\): witness has 14 values, the circuit needs 27"):
        read_wtns(FIX / "multi.wtns", 27)
    w = read_wtns(FIX / "mulchain.wtns")
    with pytest.raises(WitnessLengthError):
        r.check(w)
    zk = read_zkey(FIX / "multi.zkey")
    with pytest.raises(WitnessLengthError, match="the key needs 14"):
        prove_zkey(zk, w, cpu)


def test_bad_json(tmp_path):
    obj = json.loads((FIX / "multi_proof.json").read_text())
    obj["pi_a"][1] = str(int(obj["pi_a"][1]) + 1)
    (tmp_path / "p.json").write_text(json.dumps(obj))
    with pytest.raises(SnarkjsJSONError, match=r"p\.json: pi_a: .*not on the curve"):
        read_proof_json(tmp_path / "p.json")
    vk = json.loads((FIX / "multi_vk.json").read_text())
    vk["IC"] = vk["IC"][:-1]
    (tmp_path / "vk.json").write_text(json.dumps(vk))
    with pytest.raises(SnarkjsJSONError, match="IC: 5 points for nPublic = 5"):
        read_vk_json(tmp_path / "vk.json")
    (tmp_path / "pub.json").write_text(json.dumps([str(R)]))
    with pytest.raises(SnarkjsJSONError, match=r"\[0\]: public signal not in"):
        read_public_json(tmp_path / "pub.json")


# --- with node: circom2 and snarkjs --------------------------------------------------------


@needs_circom2
@needs_snarkjs
@pytest.mark.parametrize("name", ["mulchain", "multi"])
def test_circom2_compile_and_snarkjs_witness_satisfy_our_reader(name, tmp_path):
    subprocess.run([str(CIRCOM2), str(FIX / f"{name}.circom"), "--r1cs", "--wasm", "--prime", "bls12381",
                    "-o", str(tmp_path)], check=True, capture_output=True, timeout=120)
    snarkjs("wtns", "calculate", tmp_path / f"{name}_js" / f"{name}.wasm", FIX / f"{name}_input.json",
            tmp_path / "w.wtns", cwd=tmp_path)
    r = read_r1cs(tmp_path / f"{name}.r1cs")
    w = read_wtns(tmp_path / "w.wtns", r.n_wires)
    r.check(w)
    r.to_r1cs().check(w)


@needs_snarkjs
def test_cross_verify_with_snarkjs_both_ways(cpu, tmp_path):
    """snarkjs setup (committed ptau) + contribution; our proof → snarkjs verify; snarkjs' proof →
    our verifier; tampered proof and public input rejected by both."""
    snarkjs("groth16", "setup", FIX / "multi.r1cs", FIX / "pot9_final.ptau", "k0.zkey", cwd=tmp_path)
    snarkjs("zkey", "contribute", "k0.zkey", "k.zkey", "--name=t", "-e=pytest entropy", cwd=tmp_path)
    snarkjs("zkey", "export", "verificationkey", "k.zkey", "vk.json", cwd=tmp_path)
    zk = read_zkey(tmp_path / "k.zkey")
    w = read_wtns(FIX / "multi.wtns", zk.n_vars)
    vk = read_vk_json(tmp_path / "vk.json")

    proof, pub = prove_zkey(zk, w, cpu)
    write_proof_json(tmp_path / "ours.json", proof)
    write_public_json(tmp_path / "pub.json", pub)
    assert snarkjs_verifies("vk.json", "pub.json", "ours.json", tmp_path)
    write_proof_json(tmp_path / "ours_bad.json", tampered(proof))
    assert not snarkjs_verifies("vk.json", "pub.json", "ours_bad.json", tmp_path)
    write_public_json(tmp_path / "pub_bad.json", [pub[0], (pub[1] + 1) % R] + pub[2:])
    assert not snarkjs_verifies("vk.json", "pub_bad.json", "ours.json", tmp_path)

    snarkjs("groth16", "prove", "k.zkey", FIX / "multi.wtns", "theirs.json", "theirs_pub.json", cwd=tmp_path)
    theirs, tpub = read_proof_json(tmp_path / "theirs.json"), read_public_json(tmp_path / "theirs_pub.json")
    assert tpub == pub
    assert verify(vk, theirs, tpub)
    assert not verify(vk, tampered(theirs), tpub)
    assert not verify(vk, theirs, [pub[0], (pub[1] + 1) % R] + pub[2:])


@needs_snarkjs
def test_snarkjs_proves_with_our_zkey(cpu, tmp_path):
    """A key from our writer (snarkjs-form H) for a cuzk circuit of 2^9 rows, beyond what the
    committed ceremony needs: snarkjs proves with it, we and snarkjs verify."""
    r1cs, w = _cs_circuit(constraints=500, inputs=4, seed=7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DevelopmentSetupWarning)
        zk = setup_zkey(r1cs, cpu)
    assert zk.domain_size == 512
    write_zkey(tmp_path / "ours.zkey", zk)
    write_wtns(tmp_path / "w.wtns", w)
    snarkjs("groth16", "prove", "ours.zkey", "w.wtns", "p.json", "pub.json", cwd=tmp_path)
    proof, pub = read_proof_json(tmp_path / "p.json"), read_public_json(tmp_path / "pub.json")
    assert pub == [int(x) for x in w[1:5]]
    vk = zk.verifying_key()
    assert verify(vk, proof, pub)
    assert not verify(vk, tampered(proof), pub)
    snarkjs("zkey", "export", "verificationkey", "ours.zkey", "vk_snarkjs.json", cwd=tmp_path)
    write_vk_json(tmp_path / "vk_ours.json", vk)
    theirs = json.loads((tmp_path / "vk_snarkjs.json").read_text())
    theirs.pop("vk_alphabeta_12")
    assert json.loads((tmp_path / "vk_ours.json").read_text()) == theirs
    assert snarkjs_verifies("vk_ours.json", "pub.json", "p.json", tmp_path)
    # and our prover with our key agrees with snarkjs' verifier
    ours, opub = prove_zkey(zk, w, cpu)
    write_proof_json(tmp_path / "o.json", ours)
    assert snarkjs_verifies("vk_ours.json", "pub.json", "o.json", tmp_path) and opub == pub


@needs_snarkjs
def test_bellman_export_proves_with_our_bellperson_prover(cpu, tmp_path):
    """``snarkjs zkey export bellman`` → bellperson layout (infinity points kept, as zero bytes;
    phase-2 transcript after b_g2) → cuzk's bellperson-style Prover (bellperson's H on the
    ffjavascript row order) → accepted by snarkjs groth16 verify and by us."""
    snarkjs("zkey", "export", "bellman", FIX / "multi.zkey", "multi.params", cwd=tmp_path)
    pk = read_bellman_export(tmp_path / "multi.params")
    r = read_r1cs(FIX / "multi.r1cs")
    w = read_wtns(FIX / "multi.wtns", r.n_wires)
    assert pk.a.shape == (r.n_wires, 96) and pk.h.shape == (15, 96) and pk.l.shape == (8, 96)
    key, cs = adapt_bellman_export(pk, r.to_r1cs())
    ins, aux = split_witness(w, cs.num_inputs)
    with Prover(key, cs, cpu) as pr:
        proof = pr.prove(ins, aux)
    assert verify(read_vk_json(FIX / "multi_vk.json"), proof, ins[1:])
    write_proof_json(tmp_path / "p.json", proof)
    write_public_json(tmp_path / "pub.json", ins[1:])
    assert snarkjs_verifies(FIX / "multi_vk.json", "pub.json", "p.json", tmp_path)
    write_proof_json(tmp_path / "bad.json", tampered(proof))
    assert not snarkjs_verifies(FIX / "multi_vk.json", "pub.json", "bad.json", tmp_path)


@needs_snarkjs
def test_cli_snarkjs_prove_is_accepted_by_snarkjs(tmp_path):
    """``cuzk snarkjs-prove`` on the committed ceremony's .zkey and snarkjs' .wtns: snarkjs accepts
    the proof; a tampered public input is refused by snarkjs."""
    import json
    import sys

    proof, public = tmp_path / "proof.json", tmp_path / "public.json"
    r = subprocess.run([sys.executable, "-m", "cuzk.cli", "snarkjs-prove", str(FIX / "multi.zkey"), str(FIX / "multi.wtns"),
                        str(proof), str(public), "--threads", "2", "--times", str(tmp_path / "t.json")],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert json.loads(public.read_text()) == json.loads((FIX / "multi_public.json").read_text())
    assert "prove" in json.loads((tmp_path / "t.json").read_text())["seconds"]
    assert snarkjs_verifies(FIX / "multi_vk.json", public, proof, cwd=tmp_path)
    bad = json.loads(public.read_text())
    bad[0] = str(int(bad[0]) + 1)
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    assert not snarkjs_verifies(FIX / "multi_vk.json", tmp_path / "bad.json", proof, cwd=tmp_path)
