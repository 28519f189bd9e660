"""Setup through backend operations: the Lagrange basis as an inverse NTT, Mᵀ·x (``spmv_t``),
fixed-base products from device scalars, and keys kept resident (``setup_resident``). CPU tests
check each against a naive computation; GPU tests check the cuda backend against the CPU one."""

import warnings

import numpy as np
import pytest

from cuzk.backend import CSRMatrix, get_backend
from cuzk.backend.cpu import CPUBackend
from cuzk.backend.cuda import cuda_available
from cuzk.circuits import synthetic
from cuzk.curve import G1, G2
from cuzk.field import FR, lagrange_at
from cuzk.groth16 import DevelopmentSetupWarning, Prover, ResidentKey, setup, setup_resident, verify
from cuzk.groth16.setup import setup_scalars
from cuzk.r1cs import ConstraintSystem
from curve_util import naive_lagrange

R = FR.modulus
TOXIC = {"tau": 987654321, "alpha": 5, "beta": 6, "gamma": 7, "delta": 8}


def random_csr(rng, rows, cols, nnz, heavy_col=None, heavy=0):
    """A random CSR matrix; ``heavy`` extra entries in column ``heavy_col`` (spread over rows)."""
    r = np.concatenate([rng.integers(0, rows, nnz), rng.integers(0, rows, heavy)])
    c = np.concatenate([rng.integers(0, cols, nnz), np.full(heavy, heavy_col if heavy else 0)])
    order = np.lexsort((c, r))
    r, c = r[order], c[order]
    coeffs = FR.random(7, np.random.default_rng(1))
    ids = rng.integers(0, len(coeffs), len(r)).astype(np.int32)
    indptr = np.zeros(rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(r, minlength=rows), out=indptr[1:])
    return CSRMatrix(indptr, c.astype(np.int64), ids, coeffs, (rows, cols))


def naive_spmv_t(m, x):
    out = [0] * m.shape[1]
    for row in range(m.shape[0]):
        for k in range(int(m.indptr[row]), int(m.indptr[row + 1])):
            out[int(m.indices[k])] = (out[int(m.indices[k])] + int(m.coeffs[m.coeff_ids[k]]) * int(x[row])) % R
    return out


def quiet(fn, *a):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DevelopmentSetupWarning)
        return fn(*a)


def circuit(n=300, inputs=3):
    cs = ConstraintSystem(shape=True, witness=True)
    synthetic.synthesize(cs, n, inputs, 0.9, seed=4)
    ins, aux = cs.assignment()
    return cs.finalize(), [int(v) for v in ins], [int(v) for v in aux]


# --- CPU --------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 8, 32])
def test_lagrange_basis_forms_agree(n):
    want = naive_lagrange(TOXIC["tau"], n)
    bk = CPUBackend()
    assert [int(v) for v in lagrange_at(TOXIC["tau"], n)] == want
    assert [int(v) for v in bk.lagrange_basis(TOXIC["tau"], n)] == want
    # the generic form (inverse NTT of τ's powers), which the cuda backend uses
    assert [int(v) for v in super(CPUBackend, bk).lagrange_basis(TOXIC["tau"], n)] == want
    root = FR.root_of_unity(n)
    with pytest.raises(ValueError, match="domain"):
        super(CPUBackend, bk).lagrange_basis(root, n)


def test_spmv_t_and_transpose_match_naive():
    rng = np.random.default_rng(3)
    m = random_csr(rng, 40, 25, 150, heavy_col=3, heavy=60)
    x = FR.random(40, np.random.default_rng(2))
    bk = CPUBackend()
    assert [int(v) for v in bk.spmv_t(m, x)] == naive_spmv_t(m, x)
    t = m.transpose()
    assert t.shape == (25, 40) and t.nnz == m.nnz
    tt = t.transpose()   # rows sorted by column: the double transpose is m itself
    assert np.array_equal(tt.indptr, m.indptr) and np.array_equal(tt.indices, m.indices)
    assert np.array_equal(tt.coeff_ids, m.coeff_ids)
    with pytest.raises(ValueError, match="rows"):
        bk.spmv_t(m, x[:39])


def test_resident_key_proves_as_the_written_key():
    r1cs, ins, aux = circuit()
    with get_backend("cpu", threads=1) as bk:
        pk = quiet(setup, r1cs, bk, TOXIC)
        rk = quiet(setup_resident, r1cs, bk, TOXIC)
        assert isinstance(rk, ResidentKey) and rk.vk == pk.vk
        with Prover(pk, r1cs, bk) as p:
            ref = p.prove(ins, aux, r=31, s=47)
        with Prover(rk, r1cs, bk) as p:
            got = p.prove(ins, aux, r=31, s=47)
            fresh = p.prove(ins, aux)
    assert got.to_bytes() == ref.to_bytes()
    assert verify(rk.vk, fresh, ins[1:]) and not verify(rk.vk, fresh, [(ins[1] + 1) % R] + ins[2:])


def test_setup_reports_its_progress(monkeypatch):
    """setup's ``step(done, total)`` counts fixed-base points (G1: ic, h, l, a, b_g1; then G2:
    b) in slices up to the total, which it gives before the scalars are computed (the counts of
    ``point_counts``: the key's own lengths); setup_resident names each phase once, in order;
    the keys are those made without a callback."""
    import sys

    from cuzk.groth16.setup import RESIDENT_PHASES, SETUP_SLICES, point_counts

    setup_module = sys.modules["cuzk.groth16.setup"]   # the package's `setup` is the function

    r1cs, _, _ = circuit(60)
    seen, seen_resident, times = [], [], {}
    scalars = setup_module.setup_scalars
    monkeypatch.setattr(setup_module, "setup_scalars", lambda *a: (seen.append("scalars"), scalars(*a))[1])
    with get_backend("cpu", threads=2) as bk:
        pk = quiet(lambda: setup(r1cs, bk, TOXIC, step=lambda d, t: seen.append((d, t))))
        assert seen.index("scalars") == 1 and seen.pop(1) == "scalars"
        monkeypatch.setattr(setup_module, "setup_scalars", scalars)
        ref = quiet(setup, r1cs, bk, TOXIC)
        rk = quiet(lambda: setup_resident(r1cs, bk, TOXIC, times, step=seen_resident.append))
        assert pk.vk == ref.vk == rk.vk
        assert all((getattr(pk, q) == getattr(ref, q)).all() for q in ("h", "l", "a", "b_g1", "b_g2"))
        rk.close()
    n1 = len(pk.vk.ic) + len(pk.h) + len(pk.l) + len(pk.a) + len(pk.b_g1)
    total = n1 + len(pk.b_g2)
    assert point_counts(r1cs) == {"ic": len(pk.vk.ic), **{q: len(getattr(pk, q)) for q in ("h", "l", "a", "b_g1", "b_g2")}}
    assert {t for _, t in seen} == {total}
    done = [d for d, _ in seen]
    assert done[0] == 0 and done[-1] == total and done == sorted(done) and n1 in done
    assert len(done) <= 1 + 2 * SETUP_SLICES
    assert seen_resident == list(RESIDENT_PHASES) == list(times)


def test_setup_scalars_are_the_qap_at_tau():
    r1cs, _, _ = circuit(40, 2)
    bk = CPUBackend()
    pts, sc = quiet(setup_scalars, r1cs, bk, TOXIC)
    t, al, be, ga, de = (TOXIC[k] for k in ("tau", "alpha", "beta", "gamma", "delta"))
    n = 64
    lag = naive_lagrange(t, n)[: r1cs.num_constraints]
    u, v, w = (naive_spmv_t(m, lag) for m in (r1cs.A, r1cs.B, r1cs.C))
    ni = r1cs.num_inputs
    assert [int(x) for x in sc["ic"]] == [(be * u[i] + al * v[i] + w[i]) * pow(ga, -1, R) % R for i in range(ni)]
    assert [int(x) for x in sc["l"]] == [(be * u[i] + al * v[i] + w[i]) * pow(de, -1, R) % R for i in range(ni, len(u))]
    z = (pow(t, n, R) - 1) * pow(de, -1, R) % R
    assert [int(x) for x in sc["h"]] == [pow(t, i, R) * z % R for i in range(n - 1)]
    assert [int(x) for x in sc["a"]] == [x for x, d in zip(u, r1cs.density_a) if d]
    assert [int(x) for x in sc["b"]] == [x for x, d in zip(v, r1cs.density_b) if d]
    assert pts["delta_g2"] == G2.mul(G2.generator(), de) and pts["alpha_g1"] == G1.mul(G1.generator(), al)


# --- GPU --------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1 << 4, 1 << 12])
@pytest.mark.gpu
@pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA device")
def test_cuda_lagrange_basis(n):
    tau = int(FR.random(1)[0])
    with get_backend("cuda") as g:
        got = g.to_host(g.lagrange_basis(tau, n))
    assert [int(v) for v in got] == [int(v) for v in lagrange_at(tau, n)]


@pytest.mark.gpu
@pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA device")
def test_cuda_spmv_t_splits_long_columns():
    rng = np.random.default_rng(9)
    # column 5 holds 10,000 entries (> 4096: split into virtual rows); many columns stay empty
    m = random_csr(rng, 3000, 5000, 4000, heavy_col=5, heavy=10000)
    x = FR.random(3000, np.random.default_rng(8))
    want = [int(v) for v in CPUBackend().spmv_t(m, x)]
    assert want == naive_spmv_t(m, x)
    with get_backend("cuda") as g:
        assert [int(v) for v in g.to_host(g.spmv_t(m, g.to_device(x)))] == want
        small = random_csr(rng, 50, 30, 200)
        xs = FR.random(50, np.random.default_rng(7))
        assert [int(v) for v in g.to_host(g.spmv_t(small, g.to_device(xs)))] == naive_spmv_t(small, xs)


@pytest.mark.gpu
@pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA device")
def test_cuda_fixed_base_from_device_scalars():
    sc = FR.random(1000, np.random.default_rng(5))
    sc[0], sc[1], sc[2] = 0, 1, R - 1
    with get_backend("cuda") as g, get_backend("cpu") as c:
        for grp in (G1, G2):
            base = G1.generator() if grp is G1 else G2.generator()
            want = c.fixed_base_mul(grp, base, sc)
            assert np.array_equal(g.fixed_base_mul(grp, base, g.to_device(sc)), want)
            ctx = g.fixed_base_context(grp, base, g.to_device(sc))
            w = FR.random(1000, np.random.default_rng(6))
            ref = c.msm_context(grp, want).msm(w)
            assert ctx.msm(w) == ref
            ctx.close()


@pytest.mark.gpu
@pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA device")
def test_cuda_setup_equals_cpu_setup_and_resident_proofs():
    r1cs, ins, aux = circuit(3000, 4)
    with get_backend("cpu", threads=2) as c, get_backend("cuda") as g:
        ref = quiet(setup, r1cs, c, TOXIC)
        got = quiet(setup, r1cs, g, TOXIC)
        assert got.vk == ref.vk
        for name in ("h", "l", "a", "b_g1", "b_g2"):
            assert np.array_equal(getattr(got, name), getattr(ref, name)), name
        with Prover(ref, r1cs, c) as p:
            want = p.prove(ins, aux, r=5, s=9)
        rk = quiet(setup_resident, r1cs, g, TOXIC)
        with Prover(rk, r1cs, g) as p:
            assert p.prove(ins, aux, r=5, s=9).to_bytes() == want.to_bytes()
            assert verify(rk.vk, p.prove(ins, aux), ins[1:])


@pytest.mark.gpu
@pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA device")
def test_resident_key_written_in_slices_equals_the_host_setup_file(tmp_path):
    """The workflow's GPU setup (``setup_resident`` + ``write_resident_params``, slices converted on
    the GPU) writes the same bytes as the host key of the same toxic waste; read back (mapped,
    trusted by its identity record, streamed to the GPU slice by slice) it proves and verifies."""
    from cuzk.groth16 import read_params, resident_to_host, write_params, write_resident_params

    r1cs, ins, aux = circuit(3000, 4)
    with get_backend("cuda") as g:
        ref = quiet(setup, r1cs, g, TOXIC)
        write_params(tmp_path / "ref.params", ref)
        rk = quiet(setup_resident, r1cs, g, TOXIC)
        try:
            digest = write_resident_params(tmp_path / "rk.params", rk, rows=1000)  # several slices
            host = resident_to_host(rk, tmp_path / "host", rows=1000)   # the same slices, no .params file
        finally:
            rk.close()
        assert all(np.array_equal(getattr(host, q), getattr(ref, q)) for q in ("h", "l", "a", "b_g1", "b_g2"))
        assert (tmp_path / "rk.params").read_bytes() == (tmp_path / "ref.params").read_bytes()
        pk = read_params(tmp_path / "rk.params")
        assert pk.digest == digest
        with Prover(pk, r1cs, g) as p:
            proof = p.prove(ins, aux, r=5, s=9)
            assert verify(pk.vk, proof, ins[1:])
            assert not verify(pk.vk, proof, [ins[1] + 1] + ins[2:])
    with get_backend("cpu") as c, Prover(ref, r1cs, c) as p:
        assert p.prove(ins, aux, r=5, s=9).to_bytes() == proof.to_bytes()


def test_resident_key_to_host_files_is_the_key(tmp_path):
    """``resident_to_host`` (the benchmark's key without a .params file): a resident key's
    queries written slice by slice to one file each and mapped read-only are the setup's point
    arrays; the Prover over them gives the same proof, which verifies (and not with other
    public inputs). Contexts that keep their encodings (cpu, local) stand in for the GPU's."""
    from cuzk.groth16 import resident_to_host
    from cuzk.groth16.keys import QUERIES

    r1cs, ins, aux = circuit(200, 2)
    with get_backend("cpu", threads=1) as bk:
        pk = quiet(setup, r1cs, bk, TOXIC)
        rk = ResidentKey(pk.vk, {q: bk.msm_context(G2 if q == "b_g2" else G1, getattr(pk, q), local=True)
                                 for q in QUERIES})
        host = resident_to_host(rk, tmp_path / "key", rows=7)   # several slices per query
        rk.close()
        for q in QUERIES:
            got = getattr(host, q)
            assert got.shape == getattr(pk, q).shape and not got.flags.writeable
            assert np.array_equal(got, getattr(pk, q)), q
            assert (tmp_path / "key" / f"{q}.bases").stat().st_size == got.nbytes
        with Prover(pk, r1cs, bk) as p:
            want = p.prove(ins, aux, r=5, s=9)
        with Prover(host, r1cs, bk) as p:
            proof = p.prove(ins, aux, r=5, s=9)
        assert proof.to_bytes() == want.to_bytes() and verify(host.vk, proof, ins[1:])
        assert not verify(host.vk, proof, [ins[1] + 1] + ins[2:])


def test_prover_takes_limb_assignments():
    from cuzk.field import to_limbs
    from cuzk.groth16 import WitnessError

    r1cs, ins, aux = circuit(200, 2)
    with get_backend("cpu", threads=1) as bk:
        pk = quiet(setup, r1cs, bk, TOXIC)
        with Prover(pk, r1cs, bk) as p:
            ref = p.prove(ins, aux, r=3, s=4)
            li, la = to_limbs(ins, 4), to_limbs(aux, 4)
            assert p.prove(li, la, r=3, s=4).to_bytes() == ref.to_bytes()
            assert p.prove(p.stage(li, la), r=3, s=4).to_bytes() == ref.to_bytes()
            bad = la.copy()
            bad[5] = to_limbs([R], 4)[0]
            with pytest.raises(WitnessError, match="outside"):
                p.prove(li, bad)
            one = li.copy()
            one[0, 0] = 2
            with pytest.raises(WitnessError, match="ONE"):
                p.prove(one, la)
            with pytest.raises(WitnessError, match="aux"):
                p.prove(li, la[:-1])
