"""Tests of the cuda backend against the cpu backend (every test needs CuPy and a CUDA device).

Each kernel is compared with ``CPUBackend`` (or ``Group.msm``) on fresh random inputs plus edge
values; the whole module is skipped without CuPy or without a device.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

cp = pytest.importorskip("cupy")
try:
    _NDEV = cp.cuda.runtime.getDeviceCount()
except Exception:  # no driver / no device
    _NDEV = 0
if _NDEV < 1:
    pytest.skip("no CUDA device", allow_module_level=True)

from cuzk.backend import CSRMatrix  # noqa: E402
from cuzk.backend.cpu import CPUBackend  # noqa: E402
from cuzk.backend.cuda import CUDABackend, CUDAMSMContext, cuda_available  # noqa: E402
from cuzk.curve import G1, G2  # noqa: E402
from cuzk.field import FR, int_array  # noqa: E402

R = FR.modulus
EDGE = [0, 1, 2, R - 1, R - 2, (R - 1) // 2, (R + 1) // 2]
RNG = random.Random()  # fresh inputs on every run (seed printed on failure via the values)


@pytest.fixture(scope="module")
def gpu():
    with CUDABackend() as b:
        yield b


@pytest.fixture(scope="module")
def cpu():
    with CPUBackend(threads=1) as b:
        yield b


def rand_fr(n: int) -> list[int]:
    return [RNG.randrange(R) for _ in range(n)]


def host(gpu, d) -> list[int]:
    return [int(v) for v in gpu.to_host(d)]


def test_available():
    assert cuda_available()


# --- transfers and elementwise ------------------------------------------------------------


def test_roundtrip_and_validation(gpu):
    vals = EDGE + rand_fr(100)
    d = gpu.to_device(int_array(vals))
    assert d.shape == (len(vals), 4) and d.dtype == cp.uint64
    assert host(gpu, d) == vals
    assert host(gpu, gpu.to_device(np.arange(10, dtype=np.int64))) == list(range(10))
    assert gpu.length(gpu.to_device([])) == 0
    with pytest.raises(ValueError):
        gpu.to_device([R])
    with pytest.raises(ValueError):
        gpu.to_device([-1])
    with pytest.raises(TypeError):
        gpu.to_device([1.5])
    with pytest.raises(TypeError):
        gpu.add(np.zeros((2, 4), dtype=np.uint64), np.zeros((2, 4), dtype=np.uint64))


@pytest.mark.parametrize("op", ["add", "sub", "mul"])
def test_elementwise_matches_cpu(gpu, cpu, op):
    # every pair of edge values, then random values
    a = [x for x in EDGE for _ in EDGE] + rand_fr(5000)
    b = [y for _ in EDGE for y in EDGE] + rand_fr(5000)
    got = host(gpu, getattr(gpu, op)(gpu.to_device(a), gpu.to_device(b)))
    ref = [int(v) for v in getattr(cpu, op)(int_array(a), int_array(b))]
    assert got == ref
    with pytest.raises(ValueError):
        getattr(gpu, op)(gpu.to_device([1, 2]), gpu.to_device([1]))


@pytest.mark.parametrize("k", [0, 1, -1, R - 1, R, 3 * R + 5, -(2**300), 2**255 + 12345])
def test_scale_matches_cpu(gpu, cpu, k):
    a = EDGE + rand_fr(500)
    assert host(gpu, gpu.scale(gpu.to_device(a), k)) == [int(v) for v in cpu.scale(int_array(a), k)]


@pytest.mark.parametrize("n", [0, 1, 2, 3, 1000, 4097])
def test_powers_matches_cpu(gpu, cpu, n):
    x = RNG.randrange(R)
    assert host(gpu, gpu.powers(x, n)) == [int(v) for v in cpu.powers(x, n)]


def test_slice(gpu):
    a = rand_fr(50)
    d = gpu.to_device(a)
    assert host(gpu, gpu.slice(d, 3, 17)) == a[3:17]
    assert host(gpu, gpu.slice(d, 40, 100)) == a[40:]


# --- NTT ----------------------------------------------------------------------------------


@pytest.mark.parametrize("logn", [0, 1, 5, 10, 11, 16])
@pytest.mark.parametrize("inverse", [False, True], ids=["fwd", "inv"])
def test_ntt_matches_cpu(gpu, cpu, logn, inverse):
    a = rand_fr(1 << logn)
    if len(a) >= 4:
        a[:3] = [0, 1, R - 1]
    got = host(gpu, gpu.ntt(gpu.to_device(a), inverse=inverse))
    assert got == [int(v) for v in cpu.ntt(int_array(a), inverse=inverse)]


@pytest.mark.parametrize("logn", [1, 5, 10, 16])
@pytest.mark.parametrize("inverse", [False, True], ids=["fwd", "inv"])
def test_coset_ntt_matches_cpu(gpu, cpu, logn, inverse):
    a = rand_fr(1 << logn)
    got = host(gpu, gpu.coset_ntt(gpu.to_device(a), inverse=inverse))
    assert got == [int(v) for v in cpu.coset_ntt(int_array(a), inverse=inverse)]


def test_ntt_rejects_bad_sizes(gpu):
    with pytest.raises(ValueError):
        gpu.ntt(gpu.to_device([1, 2, 3]))
    with pytest.raises(ValueError):
        gpu.ntt(gpu.to_device([]))


def _rand_device(n: int):
    """n random Fr elements (< 2^254) generated on the device, Montgomery form."""
    words = (cp.random.random((n, 8)) * 2.0**32).astype(cp.uint32)
    x = cp.ascontiguousarray(words).view(cp.uint64).reshape(n, 4)
    x[:, 3] &= cp.uint64((1 << 62) - 1)
    return x


@pytest.mark.parametrize("logn", [18, 20])
def test_ntt_roundtrip_large(gpu, logn):
    x = _rand_device(1 << logn)
    assert bool((gpu.ntt(gpu.ntt(x), inverse=True) == x).all())
    assert bool((gpu.coset_ntt(gpu.coset_ntt(x), inverse=True) == x).all())
    assert bool((gpu.ntt(gpu.ntt(x, inverse=True)) == x).all())


def test_ntt_large_spot_check(gpu):
    # out[j] = Σ a[i] ω^(ij) at a few j for n = 2^20 (independent of the CPU NTT)
    n = 1 << 20
    x = _rand_device(n)
    y = gpu.to_host(gpu.ntt(x))
    a = gpu.to_host(x)
    w = FR.root_of_unity(n)
    for j in (0, 1, 12345, n - 1):
        wj = pow(w, j, R)
        ref = int(np.mod(np.dot(a, int_array(_pows(wj, n))), R))
        assert int(y[j]) == ref


def _pows(x: int, n: int) -> list[int]:
    out, acc = [], 1
    for _ in range(n):
        out.append(acc)
        acc = acc * x % R
    return out


@pytest.mark.parametrize("logn", [1, 4, 10, 13])
def test_compute_h_matches_cpu(gpu, cpu, logn):
    n = 1 << logn
    a, b, c = rand_fr(n), rand_fr(n), rand_fr(n)
    got = host(gpu, gpu.compute_h(gpu.to_device(a), gpu.to_device(b), gpu.to_device(c), n))
    ref = [int(v) for v in cpu.compute_h(int_array(a), int_array(b), int_array(c), n)]
    assert got == ref


# --- sparse, check, pad, select ------------------------------------------------------------


def _random_csr(rows: int, cols: int, mean_len: float, coeffs) -> tuple[CSRMatrix, list]:
    """CSR with ~20% empty rows, a few long rows, repeated coefficient ids and repeated columns."""
    lens = []
    for i in range(rows):
        if i in (0, rows - 1) or RNG.random() < 0.2:
            lens.append(0)
        elif RNG.random() < 0.01:
            lens.append(RNG.randrange(100, 300))
        else:
            lens.append(RNG.randrange(1, max(2, int(2 * mean_len))))
    indptr = np.zeros(rows + 1, dtype=np.int64)
    indptr[1:] = np.cumsum(lens)
    nnz = int(indptr[-1])
    indices = np.array([RNG.randrange(cols) for _ in range(nnz)], dtype=np.int64)
    if nnz > 3:
        indices[1] = indices[0]  # a column twice in a row
    ids = np.array([RNG.randrange(len(coeffs)) for _ in range(nnz)], dtype=np.int32)
    return CSRMatrix(indptr, indices, ids, int_array(coeffs), (rows, cols)), lens


@pytest.mark.parametrize("mean_len", [1, 3, 6, 12, 40, 100])
def test_spmv_matches_cpu(gpu, cpu, mean_len):
    coeffs = [0, 1, R - 1, 2, 1, R - 1] + rand_fr(20)  # repeated values in the table too
    rows, cols = 3000 if mean_len < 40 else 400, 500
    m, _ = _random_csr(rows, cols, mean_len, coeffs)
    w = [RNG.choice([0, 1, 1, R - 1, RNG.randrange(R)]) for _ in range(cols)]
    ref = [int(v) for v in cpu.spmv(m, int_array(w))]
    wd = gpu.to_device(w)
    assert host(gpu, gpu.spmv(m, wd)) == ref
    cached = len(gpu._csr)
    assert host(gpu, gpu.spmv(m, wd)) == ref  # cached matrix
    assert len(gpu._csr) == cached
    with pytest.raises(ValueError):
        gpu.spmv(m, gpu.to_device(w[:-1]))


def test_spmv_small_and_empty(gpu, cpu):
    rows, cols = 7, 5
    indptr = np.array([0, 2, 2, 5, 6, 6, 8, 9], dtype=np.int64)
    indices = np.array([0, 4, 1, 2, 3, 0, 4, 4, 2], dtype=np.int64)
    coeffs = int_array([1, R - 1, 2, RNG.randrange(R)])
    ids = np.array([0, 1, 2, 3, 0, 1, 2, 3, 0], dtype=np.int32)
    m = CSRMatrix(indptr, indices, ids, coeffs, (rows, cols))
    w = rand_fr(cols)
    assert host(gpu, gpu.spmv(m, gpu.to_device(w))) == [int(v) for v in cpu.spmv(m, int_array(w))]
    # the matrices of one R1CS share their coefficient table: one upload
    m2 = CSRMatrix(indptr, indices[::-1].copy(), ids, coeffs, (rows, cols))
    assert host(gpu, gpu.spmv(m2, gpu.to_device(w))) == [int(v) for v in cpu.spmv(m2, int_array(w))]
    assert gpu._csr[id(m)][1][3] is gpu._csr[id(m2)][1][3]
    empty = CSRMatrix(np.zeros(4, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32),
                      int_array([]), (3, 2))
    assert host(gpu, gpu.spmv(empty, gpu.to_device([5, 6]))) == [0, 0, 0]
    bad = CSRMatrix(indptr, indices + 10, ids, coeffs, (rows, cols))
    with pytest.raises(ValueError):
        gpu.spmv(bad, gpu.to_device(w))


@pytest.mark.parametrize("rows_b,nnz_b,cols_b", [(10**6, 10**8, 10**6), (97, 300, 64), (400, 1500, 37), (5, 9, 500)])
def test_spmv_t_blocks_equal_spmv_t(gpu, cpu, monkeypatch, rows_b, nnz_b, cols_b):
    """The setup's transposed product in column slices and row blocks (``spmv_t_blocks``, x on the
    device or offloaded) equals the unchunked ``spmv_t`` and the CPU backend's, on random input
    with a long column split into virtual rows (``_SPMV_T_ROW`` lowered to 64)."""
    from cuzk.backend.cuda import spmv as spmv_mod

    monkeypatch.setattr(spmv_mod, "_SPMV_T_ROW", 64)
    coeffs = [0, 1, R - 1, 2] + rand_fr(20)
    m, _ = _random_csr(2000, 300, 3, coeffs)
    m.indices[::3] = 0   # column 0 in a third of the entries, as ONE is
    x = rand_fr(2000)
    xd = gpu.to_device(x)
    want = host(gpu, gpu.spmv_t(m, xd))
    assert want == [int(v) for v in cpu.spmv_t(m, int_array(x))]
    for xin in (xd, gpu.offload(xd)):
        got = gpu.spmv_t_blocks(m, xin, rows_b, nnz_b, cols_b)
        assert host(gpu, gpu.restore(got, 0, len(got))) == want
    with pytest.raises(ValueError):
        gpu.spmv_t_blocks(m, gpu.to_device(x[:-1]), rows_b, nnz_b, cols_b)


def test_spmv_from_mapped_pce_in_slices(gpu, cpu, tmp_path, monkeypatch):
    """The prove step's path: A, B, C read as views of the mapped PCE file (``read_pce(mapped=True)``)
    and uploaded in slices (a tiny slice size here, so every array takes many) give the CPU
    backend's products; an int64 column index past 2^32 (which uint32 would wrap into range) and a
    non-monotone indptr are refused."""
    from cuzk.backend.cuda import spmv as spmv_mod
    from cuzk.circuits import synthetic
    from cuzk.r1cs import ConstraintSystem
    from cuzk.r1cs.pce import read_pce, write_pce

    monkeypatch.setattr(spmv_mod, "_UPLOAD_ROWS", 97)
    cs = ConstraintSystem(shape=True, witness=True)
    synthetic.synthesize(cs, 400, 3, 0.9, seed=RNG.randrange(1 << 30))
    r1cs = cs.finalize()
    write_pce(tmp_path / "m.pce", r1cs)
    mapped, _ = read_pce(tmp_path / "m.pce", mapped=True)
    w = rand_fr(r1cs.num_vars)
    wd = gpu.to_device(w)
    for name in ("A", "B", "C"):
        ref = [int(v) for v in cpu.spmv(getattr(r1cs, name), int_array(w))]
        assert host(gpu, gpu.spmv(getattr(mapped, name), wd)) == ref, name
    m = r1cs.A
    wrap = m.indices.copy()
    wrap[0] += 1 << 32
    with pytest.raises(ValueError, match="column index"):
        gpu.spmv(CSRMatrix(m.indptr, wrap, m.coeff_ids, m.coeffs, m.shape), wd)
    if m.shape[0] > 3 and m.indptr[2] > m.indptr[1]:
        ptr = m.indptr.copy()
        ptr[1], ptr[2] = ptr[2], ptr[1]
        with pytest.raises(ValueError, match="indptr"):
            gpu.spmv(CSRMatrix(ptr, m.indices, m.coeff_ids, m.coeffs, m.shape), wd)


def test_first_unsatisfied(gpu, cpu):
    n = 5000
    a, b = rand_fr(n), rand_fr(n)
    a[:3], b[:3] = [0, 1, R - 1], [R - 1, R - 1, R - 1]
    c = [x * y % R for x, y in zip(a, b)]
    da, db, dc = gpu.to_device(a), gpu.to_device(b), gpu.to_device(c)
    assert gpu.first_unsatisfied(da, db, dc) is None
    for bad in ([n - 1], [4321, 17, 999], [0], list(range(n))):
        cc = list(c)
        for i in bad:
            cc[i] = (cc[i] + RNG.randrange(1, R)) % R
        got = gpu.first_unsatisfied(da, db, gpu.to_device(cc))
        assert got == min(bad) == cpu.first_unsatisfied(int_array(a), int_array(b), int_array(cc))
    e = gpu.to_device([])
    assert gpu.first_unsatisfied(e, e, e) is None
    with pytest.raises(ValueError):
        gpu.first_unsatisfied(da, db, gpu.to_device(c[:-1]))


def test_pad_and_select(gpu, cpu):
    a = rand_fr(100)
    d = gpu.to_device(a)
    assert host(gpu, gpu.pad(d, 128)) == a + [0] * 28
    assert host(gpu, gpu.pad(d, 100)) == a
    with pytest.raises(ValueError):
        gpu.pad(d, 99)
    mask = np.array([RNG.random() < 0.5 for _ in range(100)])
    assert host(gpu, gpu.select(d, mask)) == [int(v) for v in cpu.select(int_array(a), mask)]
    assert gpu.length(gpu.select(d, np.zeros(100, dtype=bool))) == 0
    with pytest.raises(ValueError):
        gpu.select(d, mask[1:])


@pytest.mark.parametrize("p", [0.0, 0.03, 0.5, 0.97, 1.0])
def test_select_across_tiles(gpu, p):
    """Selections over several of the select kernels' 4096-row tiles (and a partial last one)
    equal numpy's boolean indexing of the same limbs; a strided mask is taken as its values."""
    n = 3 * 4096 + 1017
    limbs = np.random.default_rng(int(p * 100)).integers(0, 1 << 63, size=(n, 4), dtype=np.uint64)
    limbs[:, 3] &= np.uint64((1 << 60) - 1)   # below r: any Montgomery limbs will do for a gather
    d = gpu.cp.asarray(limbs)
    mask = np.random.default_rng(7).random(2 * n) < p
    for m in (mask[:n], mask[::2]):
        got = gpu.select(d, m).get()
        assert got.shape == (int(m.sum()), 4) and np.array_equal(got, limbs[m])
        sel = gpu.selection(m)                       # the mask kept on the device, reused
        for _ in range(2):
            assert np.array_equal(gpu.select(d, sel).get(), limbs[m])
    with pytest.raises(ValueError, match="select: mask of shape"):
        gpu.select(d[1:], gpu.selection(mask[:n]))


def test_to_device_mixed_widths(gpu):
    """The bit-length fast path: 0/1, values below 2^64, wider values; ints and mpz mixed."""
    import gmpy2

    vals = [RNG.choice([0, 1, 2, 2**63, 2**64 - 1, 2**64, R - 1, RNG.randrange(2**64), RNG.randrange(R)])
            for _ in range(3000)]
    mixed = [gmpy2.mpz(v) if i % 2 else v for i, v in enumerate(vals)]
    assert host(gpu, gpu.to_device(mixed)) == vals
    assert host(gpu, gpu.to_device(int_array(vals))) == vals
    assert host(gpu, gpu.to_device(np.array([0, 1, 2**64 - 1], dtype=np.uint64))) == [0, 1, 2**64 - 1]
    with pytest.raises(ValueError):
        gpu.to_device([0, 1, R])
    with pytest.raises(TypeError):
        gpu.to_device([0, True])


# --- fixed-base products (setup) ----------------------------------------------------------


@pytest.mark.parametrize("group", [G1, G2], ids=["G1", "G2"])
def test_fixed_base_mul_matches_cpu(gpu, cpu, group):
    ks = [0, 1, 2, R - 1, R - 2, (R - 1) // 2, (R + 1) // 2, 2**64 - 1, 2**128 + 5] + rand_fr(300)
    g = group.generator()
    got = gpu.fixed_base_mul(group, g, ks)
    assert got.shape == (len(ks), group.uncompressed_size)
    assert np.array_equal(got, cpu.fixed_base_mul(group, g, ks))
    other = group.mul(g, RNG.randrange(2, R))                      # another base, given as bytes
    enc = group.to_array([other])[0]
    assert np.array_equal(gpu.fixed_base_mul(group, enc, ks[:40]), cpu.fixed_base_mul(group, other, ks[:40]))
    assert np.array_equal(gpu.fixed_base_mul(group, group.identity(), ks[:5]), cpu.fixed_base_mul(group, group.identity(), ks[:5]))
    assert np.array_equal(gpu.fixed_base_mul(group, g, int_array(ks[:50])), got[:50])
    assert np.array_equal(gpu.fixed_base_mul(group, g, np.arange(7, dtype=np.int64)), cpu.fixed_base_mul(group, g, list(range(7))))
    assert gpu.fixed_base_mul(group, g, []).shape == (0, group.uncompressed_size)
    with pytest.raises(ValueError):
        gpu.fixed_base_mul(group, g, [1, R])


def test_fixed_base_mul_many(gpu, cpu, monkeypatch):
    """More scalars than one launch takes (slices), spot-checked against the CPU."""
    import cuzk.backend.cuda.plan as cb

    monkeypatch.setattr(cb, "_FB_SLICE", 1000)
    n = 2500
    ks = rand_fr(n)
    got = gpu.fixed_base_mul(G1, G1.generator(), ks)
    idx = RNG.sample(range(n), 40) + [0, 999, 1000, 1999, 2000, n - 1]
    ref = cpu.fixed_base_mul(G1, G1.generator(), [ks[i] for i in idx])
    assert np.array_equal(got[idx], ref)


# --- MSM in G1 and G2 ------------------------------------------------------------------------

GROUPS = pytest.mark.parametrize("group", [G1, G2], ids=["G1", "G2"])


def _points(group, n: int) -> list:
    g = group.generator()
    return [group.mul(g, RNG.randrange(1, R)) for _ in range(n)]


@GROUPS
@pytest.mark.parametrize("n", [1, 2, 7, 100, 333])
def test_msm_small_matches_group_msm(gpu, group, n):
    """Against arkworks' MSM (``group.msm``): infinity, repeated and opposite bases among the
    bases; random, zero, one, r − 1 and mixed edge scalars, from the host and from the device."""
    pts = _points(group, n)
    if n >= 7:
        pts[3] = group.identity()   # point at infinity among the bases
        pts[5] = pts[4]             # repeated bases
        pts[6] = -pts[4]            # a base and its negative
    cases = [
        rand_fr(n),
        [0] * n,
        [1] * n,
        [R - 1] * n,
        [RNG.choice([0, 1, 2, R - 1, (R - 1) // 2, (R + 1) // 2, RNG.randrange(R)]) for _ in range(n)],
    ]
    with gpu.msm_context(group, group.to_array(pts)) as ctx:
        assert isinstance(ctx, CUDAMSMContext) and ctx.size == n and ctx.group is group
        for sc in cases:
            ref = group.msm(pts, sc)
            assert ctx.msm(sc) == ref
            assert ctx.msm(gpu.to_device(sc)) == ref
        with pytest.raises(ValueError):
            ctx.msm([1] * (n + 1))
        with pytest.raises(ValueError):
            ctx.msm([R] * n)


@GROUPS
def test_points_roundtrip_and_grid(gpu, group):
    pts = _points(group, 20) + [group.identity()]
    arr = group.to_array(pts)
    dev = gpu.points_upload_affine(group, arr)
    assert dev.shape == (21, 24 * group.coord_words)
    assert np.array_equal(gpu.points_download_affine(group, dev), arr)
    a, b = pts[:8], pts[8:13]
    grid = gpu.points_sum_grid(group, gpu.points_upload_affine(group, group.to_array(a)),
                               gpu.points_upload_affine(group, group.to_array(b)), 37)
    got = group.from_array(gpu.points_download_affine(group, grid))
    assert all(got[i] == a[i % 8] + b[i // 8] for i in range(37))


def _grid_points(gpu, n: int, group=G1, na: int = 64):
    """n distinct device bases A_i + B_j (i < na), their host array and host (arkworks) points."""
    a_pts, b_pts = _points(group, na), _points(group, -(-n // na))
    dev = gpu.points_sum_grid(group, gpu.points_upload_affine(group, group.to_array(a_pts)),
                              gpu.points_upload_affine(group, group.to_array(b_pts)), n)
    arr = gpu.points_download_affine(group, dev)
    pts = group.from_array(arr, check_subgroup=False)  # on-curve checked
    for i in RNG.sample(range(n), 5):
        assert pts[i] == a_pts[i % na] + b_pts[i // na]
    return dev, arr, pts


@GROUPS
@pytest.mark.parametrize("n", [4096, 5000])
def test_msm_generated_bases(gpu, group, n):
    """Bases made on the device (resident) and uploaded from the host; window widths forced;
    mostly bit-valued scalars (as a PoRep witness) with r − 1 and a random one; one scalar for
    every point (one crowded bucket per window); ± one scalar (the chunked bucket path)."""
    dev, arr, pts = _grid_points(gpu, n, group)
    ctx_dev = CUDAMSMContext.from_device_affine(gpu, dev, group)
    ctx_host = gpu.msm_context(group, arr)
    sc = rand_fr(n)
    ref = group.msm(pts, sc)
    assert ctx_dev.msm(sc) == ref
    assert ctx_host.msm(gpu.to_device(sc)) == ref
    for c in (7, 13):
        assert ctx_dev.msm(sc, c=c) == ref, c
    sc = [RNG.choice([0, 1, 1, 1, 1, 1]) for _ in range(n)]
    sc[10], sc[11] = R - 1, RNG.randrange(R)
    assert ctx_dev.msm(sc) == group.msm(pts, sc)
    sc = [12345] * n
    assert ctx_dev.msm(sc) == group.msm(pts, sc)
    k = RNG.randrange(2, R)
    sc = [k if i % 3 else R - k for i in range(n)]
    assert ctx_dev.msm(sc) == group.msm(pts, sc)


@GROUPS
def test_msm_longer_first_reduction_level(gpu, group, monkeypatch):
    """The window reduction with a longer first level (``SEG_FIRST`` buckets a thread, from any
    window size): the same MSMs as arkworks' at widths whose bucket counts are below, equal to
    and above it (plain and over shifted bases, whose one set is a single window)."""
    import cuzk.backend.cuda.msm as cb

    monkeypatch.setattr(cb, "_SEG_FIRST_FROM", 1)
    n = 1500 if group is G1 else 600
    dev, _arr, pts = _grid_points(gpu, n, group)
    ctx = CUDAMSMContext.from_device_affine(gpu, dev, group)
    sc = rand_fr(n)
    ref = group.msm(pts, sc)
    for first in (8, 16, 32):
        monkeypatch.setattr(cb, "SEG_FIRST", first)
        for c in (4, 5, 6, 9):             # 8, 16, 32, 256 buckets a window
            assert ctx.msm(sc, c=c) == ref, (first, c)
    assert ctx.shift(9)
    for first in (16, 32):
        monkeypatch.setattr(cb, "SEG_FIRST", first)
        assert ctx.msm(sc) == ref, first
    ctx.close()


@GROUPS
@pytest.mark.parametrize("step", [0, 1, 2, 5])
def test_msm_scatter_by_windows(gpu, group, monkeypatch, step):
    """The counting sort's scatter run ``step`` windows per launch (``SCATTER_WINDOWS``; the carry
    into a launch's first window recomputed from the windows below it): the same MSM as arkworks'
    for random scalars, scalars whose windows all carry (r − 1, (r − 1)/2 + 1: every digit
    negative), zeros and ones among them (flagged: the sort skips them), and widths whose top window
    is short (c = 7, 13) or W not a multiple of ``step``."""
    import cuzk.backend.cuda.msm as cb

    monkeypatch.setattr(cb, "SCATTER_WINDOWS", step)
    monkeypatch.setattr(cb, "SCATTER_BUSY", 0.0)   # by windows for any scalars
    n = 3000
    dev, _arr, pts = _grid_points(gpu, n, group)
    ctx = CUDAMSMContext.from_device_affine(gpu, dev, group)
    sc = rand_fr(n)
    sc[:4] = [R - 1, (R - 1) // 2 + 1, (R - 1) // 2, 2**254 - 1]
    sc[4:1500:3] = [RNG.choice([0, 1]) for _ in range(4, 1500, 3)]   # skipped by the sort
    ref = group.msm(pts, sc)
    for c in (None, 7, 13):
        assert ctx.msm(sc, c=c) == ref, c


@pytest.mark.parametrize("n", [31, 5000])
def test_msm_prep_counts_and_ones_list(gpu, n):
    """``msm_prep``'s count of scalars other than 0 and 1 (the window width's) and
    ``msm_ones_list``'s indices of the scalars equal to 1, against the host's: host and device
    scalars, partial warps."""
    import cuzk.backend.cuda.msm as cb

    dev, _arr, _pts = _grid_points(gpu, max(n, 64))
    ctx = CUDAMSMContext.from_device_affine(gpu, dev[:n])
    sc = [RNG.choice([0, 1, 1, 2, R - 1, RNG.randrange(R)]) for _ in range(n)]
    for given in (sc, gpu.to_device(sc)):
        _can, flags, busy = ctx._scalars_device(given)
        assert int(busy[0]) == sum(1 for v in sc if v not in (0, 1))
        count = cp.zeros(1, dtype=cp.uint32)
        idx = cp.empty(n, dtype=cp.uint32)
        ctx._k("msm_ones_list")((cb._grid(n, 256),), (256,), (flags, cb._u64(n), count, idx))
        k = int(count[0])
        assert sorted(idx[:k].get().tolist()) == [i for i, v in enumerate(sc) if v == 1]


def test_msm_skewed_buckets_and_windows(gpu, monkeypatch):
    """Buckets far above the average (equal scalars, a top window of few bits) take the chunked
    path, window by window: a wide c's short top window alone, its other windows the uniform path."""
    import cuzk.backend.cuda.msm as cb

    calls = []
    for name in ("_uniform_sums", "_skewed_sums"):
        real = getattr(cb.CUDAMSMContext, name)

        def spy(self, vals, offs, B, buckets, *rest, real=real, name=name):
            calls.append((name, B))
            return real(self, vals, offs, B, buckets, *rest)

        monkeypatch.setattr(cb.CUDAMSMContext, name, spy)
    n = 3000
    dev, arr, pts = _grid_points(gpu, n)
    ctx = CUDAMSMContext.from_device_affine(gpu, dev)
    k = RNG.randrange(2, R)
    sc = [k if i % 3 else R - k for i in range(n)]          # one bucket per window gets every point
    sc[:50] = rand_fr(50)
    ref = G1.msm(pts, sc)
    calls.clear()
    assert ctx.msm(sc) == ref
    assert "_skewed_sums" in [nm for nm, _ in calls]        # (k's zero digits leave windows nearly empty)
    sc = rand_fr(n)
    ref = G1.msm(pts, sc)
    for c in (6, 8, 12, 13, 18, 19):                       # 255 mod c small: a short, crowded top window
        calls.clear()
        assert ctx.msm(sc, c=c) == ref, c
        W, NB = -(-255 // c), 1 << (c - 1)
        assert sum(b for _, b in calls) == W * NB, c
        if c in (6, 12, 18):                                # top window of 2 bits: ~750 points per bucket
            assert calls == [("_uniform_sums", (W - 1) * NB), ("_skewed_sums", NB)], (c, calls)


@GROUPS
def test_msm_sort_ahead_on_a_side_stream(gpu, group, monkeypatch):
    """With ``OVERLAP_SORT`` forced on (from 1 point), each later window is scattered on the sort
    stream while earlier windows' bucket sums run, window by window, on two streams: the same
    sums as arkworks' MSM, for random scalars, at widths whose top window is crowded (skewed
    path), for scalars that send whole windows down the skewed path and for scalars below 2^64
    (empty windows); and the path was taken
    (every window a run of its own, all but the first scattered ahead)."""
    import cuzk.backend.cuda.msm as cb

    monkeypatch.setitem(cb.OVERLAP_SORT, group.name, 1)
    ahead, runs = [], []
    real_scatter, real_sums = cb.CUDAMSMContext._scatter, cb.CUDAMSMContext._bucket_sums

    def scatter(self, *a):
        ahead.append(a[8])
        return real_scatter(self, *a)

    def sums(self, vals, offs, NB, W, rs, ready=None, affine=False, bases=None):
        runs.append((W, [r[:2] for r in rs], ready is not None))
        return real_sums(self, vals, offs, NB, W, rs, ready, affine, bases)

    monkeypatch.setattr(cb.CUDAMSMContext, "_scatter", scatter)
    monkeypatch.setattr(cb.CUDAMSMContext, "_bucket_sums", sums)
    n = 3000 if group is G1 else 1200
    dev, arr, pts = _grid_points(gpu, n, group)
    ctx = CUDAMSMContext.from_device_affine(gpu, dev, group)
    k = RNG.randrange(2, R)
    small = [RNG.randrange(2, 2**64) for _ in range(n)]      # every window above bit 64 empty
    for sc, widths in ((rand_fr(n), (6, 12, 13)), ([k if i % 3 else R - k for i in range(n)], (None,)), (small, (6, 13))):
        ref = group.msm(pts, sc)
        for c in widths:
            ahead.clear()
            runs.clear()
            assert ctx.msm(sc, c=c) == ref, c
            W = runs[0][0]
            assert runs == [(W, [(w, w + 1) for w in range(W)], True)], c
            assert ahead == [False] + [True] * (W - 1), c
    monkeypatch.setitem(cb.OVERLAP_SORT, group.name, n + 1)     # below the threshold: one stream
    runs.clear()
    sc = rand_fr(n)
    assert ctx.msm(sc) == group.msm(pts, sc)
    assert not runs[0][2]


@GROUPS
def test_msm_shifted_bases(gpu, group, monkeypatch):
    """Shifted bases (``CUDAMSMContext.shift``): the table's row w·n + i is 2^(w·c)·base i (on
    arkworks points, an infinity among the bases), and MSMs over it, every window in one bucket
    set (the bucket sums see one set and the table), equal arkworks' MSM: random scalars,
    every-digit-negative ones, 0 and 1 among them, device scalars, ``msm_many``, scalars below
    2^64 (empty windows) and one scalar for every point (a crowded bucket: the chunked path over
    the table). A width other than the table's, and an MSM whose shifted temporaries do not fit
    (chunks), use the bases alone; a table that does not fit is not built; another width rebuilds
    it; closing drops it. Sorting by 64-bit keys (``plan.SORT64_FROM``, a library radix sort) and by the counting sort
    give the same MSMs."""
    import cuzk.backend.cuda.msm as cb
    import cuzk.backend.cuda.plan as cplan
    from cuzk.backend.cuda.plan import MIN_MSM_CHUNK, msm_device_bytes, shift_device_bytes

    sets = []
    real_sums = cb.CUDAMSMContext._bucket_sums

    def sums(self, vals, offs, NB, W, rs, ready=None, affine=False, bases=None):
        sets.append((W, bases is not None and bases is self._table))
        return real_sums(self, vals, offs, NB, W, rs, ready, affine, bases)

    monkeypatch.setattr(cb.CUDAMSMContext, "_bucket_sums", sums)
    n = 3000 if group is G1 else 1200
    dev, _arr, pts = _grid_points(gpu, n, group)
    dev[7] = 0                                              # infinity: (0, 0)
    pts[7] = group.identity()
    ctx = CUDAMSMContext.from_device_affine(gpu, dev, group)
    sc = rand_fr(n)
    sc[:4] = [R - 1, (R - 1) // 2 + 1, (R - 1) // 2, 2**254 - 1]
    sc[4:900:3] = [RNG.choice([0, 1]) for _ in range(4, 900, 3)]
    ref = group.msm(pts, sc)
    k = RNG.randrange(2, R)
    crowd = [k if i % 3 else R - k for i in range(n)]
    small = [RNG.randrange(2, 2**64) for _ in range(n)]
    for c in (8, 13):
        assert ctx.shift(c) and ctx.shift_c == c
        W = -(-255 // c)
        assert ctx._table.shape[0] == W * n
        for w in (1, W // 2, W - 1):
            rows = group.from_array(gpu.points_download_affine(group, ctx._table[w * n : (w + 1) * n]), check_subgroup=False)
            for i in [7] + RNG.sample(range(n), 3):
                assert rows[i] == group.mul(pts[i], 1 << (w * c)), (c, w, i)
        sets.clear()
        assert ctx.msm(sc) == ref, c
        assert sets == [(1, True)] and ctx.last_chunks == 1, (c, sets)
        assert ctx.msm(gpu.to_device(sc)) == ref, c
        for s in (crowd, small):
            assert ctx.msm(s) == group.msm(pts, s), c
        assert ctx.msm_many([sc, small]) == [ref, group.msm(pts, small)], c
        for frm in (1, n + 1):   # sorted by 64-bit keys, then by the counting sort
            monkeypatch.setitem(cplan.SORT64_FROM, group.name, frm)
            for s in (sc, crowd, small):
                assert ctx.msm(s) == group.msm(pts, s), (c, frm)
    sets.clear()
    assert ctx.msm(sc, c=7) == ref                          # not the table's width: the bases alone
    assert sets and all(w > 1 and not t for w, t in sets)
    whole = min(msm_device_bytes(n, group), msm_device_bytes(n, group, 13, shifted=True))
    room = (whole + msm_device_bytes(MIN_MSM_CHUNK, group)) // 2   # a chunk fits, the whole MSM does not
    with _Limited(gpu, room):
        sets.clear()
        assert ctx.msm(sc) == ref and ctx.last_chunks > 1    # chunks over the bases alone
        assert not any(t for _, t in sets)
        other = CUDAMSMContext.from_device_affine(gpu, dev, group)
        assert room < shift_device_bytes(n, group, 8)
        assert not other.shift(8) and other.shift_c == 0 and other._table is None
        assert other.msm(sc) == ref
    ctx.close()
    assert ctx._table is None


@GROUPS
def test_msm_batch_affine_levels(gpu, group, monkeypatch):
    """With ``AFFINE`` forced on (from 1 point, levels down to 2 entries a bucket, 4 slots a
    thread), uniform runs start with batch-affine pair levels: the same sums as arkworks' MSM for
    random scalars at widths where the buckets average 2 or more entries (the levels ran), over
    structured bases (A_i + B_j), with the sort ahead, and for scalars of few values (their
    crowded windows take the skewed path, their near-empty ones no level: the mix is checked);
    without the room for them the XYZZ path is taken. Doublings and a point meeting its negation
    inside a level are checked by tests/test_msm_affine_host.py (a point enters a window once)."""
    import cuzk.backend.cuda.msm as cb
    import cuzk.backend.cuda.plan as cplan

    monkeypatch.setitem(cb.AFFINE, group.name, 1)
    monkeypatch.setattr(cplan, "AFFINE_K", 4)
    monkeypatch.setattr(cplan, "AFFINE_MIN_THREADS", 1)
    monkeypatch.setattr(cplan, "AFFINE_MIN_MEAN", 2)
    taken = []
    real = cb.CUDAMSMContext._affine_levels

    def levels(self, vals, offs, B, *rest):
        r = real(self, vals, offs, B, *rest)
        taken.append(r is not None)
        return r

    monkeypatch.setattr(cb.CUDAMSMContext, "_affine_levels", levels)
    n = 3000 if group is G1 else 1200
    dev, arr, pts = _grid_points(gpu, n, group)
    ctx = CUDAMSMContext.from_device_affine(gpu, dev, group)
    k = RNG.randrange(2, R)
    few = [RNG.choice((k, R - k, 2 * k % R, 7)) for _ in range(n)]   # equal digits: P + P, P + (-P)
    for sc, widths, levels in ((rand_fr(n), (5, 8, 10), True), (few, (4, 9), False)):
        ref = group.msm(pts, sc)
        for c in widths:
            taken.clear()
            assert ctx.msm(sc, c=c) == ref, c
            assert any(taken) or not levels, c
    monkeypatch.setitem(cb.OVERLAP_SORT, group.name, 1)
    sc = rand_fr(n)
    taken.clear()
    assert ctx.msm(sc, c=7) == group.msm(pts, sc) and any(taken)
    monkeypatch.setattr(cb.CUDAMSMContext, "_affine_room", lambda self, need: False)   # XYZZ only
    taken.clear()
    assert ctx.msm(sc, c=7) == group.msm(pts, sc) and taken and not any(taken)


@pytest.mark.parametrize("group, logn", [(G1, 18), (G2, 16)], ids=["G1", "G2"])
def test_msm_linear_large(gpu, group, logn):
    """MSM(s) + MSM(t) == MSM(s + t) at n = 2^18 (G1) / 2^16 (G2), where the CPU reference would
    be slow."""
    n = 1 << logn
    na = 512 if group is G1 else 256
    a_pts, b_pts = _points(group, na), _points(group, n // na)
    dev = gpu.points_sum_grid(group, gpu.points_upload_affine(group, group.to_array(a_pts)),
                              gpu.points_upload_affine(group, group.to_array(b_pts)), n)
    ctx = CUDAMSMContext.from_device_affine(gpu, dev, group)
    s, t = _rand_device(n), _rand_device(n)
    assert ctx.msm(s) + ctx.msm(t) == ctx.msm(gpu.add(s, t))


# --- device-memory limit: chunked MSMs, bases per chunk, GPUMemoryError -------------------------


class _Limited:
    """Cap the (process-wide) CuPy pool at the bytes it holds now plus ``headroom``; undo on exit."""

    def __init__(self, be, headroom: int):
        self.be, self.headroom = be, headroom

    def __enter__(self):
        # cached free blocks count against a pool limit, and those inside chunks that still
        # hold a live array cannot be freed: the limit is what the pool holds, emptied, plus
        # ``headroom`` (what the backend's planners see as available)
        pool = cp.get_default_memory_pool()
        pool.free_all_blocks()
        self.be.set_mem_limit(pool.total_bytes() + self.headroom)
        return self.be

    def __exit__(self, *exc):
        self.be.set_mem_limit(None)


@pytest.mark.parametrize("group", [G1, G2], ids=["G1", "G2"])
def test_chunked_msm_equals_unchunked(gpu, group):
    """Under a limit below the whole MSM's need: chunks (resident bases sliced, host bases
    uploaded per chunk), host and device scalars, the same points as without a limit."""
    from cuzk.backend.cuda.plan import msm_device_bytes

    n = 5000
    dev, arr, pts = _grid_points(gpu, n, group)
    ctx = CUDAMSMContext.from_device_affine(gpu, dev, group)
    sc = rand_fr(n)
    bits = [RNG.choice([0, 1, 1, 1]) for _ in range(n)]
    bits[17] = R - 1
    k = RNG.randrange(2, R)
    skew = [k if i % 3 else R - k for i in range(n)]
    ref = [ctx.msm(s) for s in (sc, bits, skew)]
    assert ctx.last_chunks == 1
    assert ref[0] == group.msm(pts, sc)
    with _Limited(gpu, msm_device_bytes(n, group) * 6 // 10):
        host_ctx = gpu.msm_context(group, arr)
        assert not host_ctx.resident          # bases plus an MSM's temporaries do not fit
        for s, want in zip((sc, bits, skew), ref):
            assert ctx.msm(s) == want
            assert ctx.last_chunks > 1
            assert host_ctx.msm(s) == want
            assert host_ctx.last_chunks > 1
        assert ctx.msm(gpu.to_device(sc)) == ref[0] and ctx.last_chunks > 1
        assert ctx.msm(sc, c=7) == ref[0]
        host_ctx.close()
    assert ctx.msm(sc) == ref[0] and ctx.last_chunks == 1   # limit lifted: whole again


def test_impossible_limit_raises_then_recovers(gpu):
    from cuzk.backend import GPUMemoryError

    n = 3000
    dev, arr, pts = _grid_points(gpu, n)
    sc = rand_fr(n)
    ref = G1.msm(pts, sc)
    pool = cp.get_default_memory_pool()
    before = pool.used_bytes()
    with CUDABackend(mem_limit=1 << 16) as tiny:
        assert pool.get_limit() == 1 << 16
        ctx = tiny.msm_context(G1, arr)
        assert not ctx.resident
        with pytest.raises(GPUMemoryError) as e:
            ctx.msm(sc)
        assert e.value.op == "G1 msm" and e.value.limit == 1 << 16 and e.value.requested > 1 << 16
        assert "G1 msm" in str(e.value) and f"{1 << 16:,}" in str(e.value)
        # CuPy's own OutOfMemoryError, typed: more than any cached free block holds (CuPy serves
        # those without a new cudaMalloc, so the limit only bites on a fresh allocation)
        big = pool.free_bytes() // 32 + (1 << 21)
        with pytest.raises(GPUMemoryError) as e:
            tiny.powers(5, big)
        assert e.value.op == "powers" and e.value.requested >= 32 * big and e.value.limit == 1 << 16
        assert isinstance(e.value, RuntimeError)
        assert pool.used_bytes() <= before            # nothing of the failed calls is left
        pool.free_all_blocks()                        # a sane limit: the same context works
        tiny.set_mem_limit(pool.total_bytes() + (256 << 20))
        assert ctx.msm(sc) == ref
        assert ctx.msm(tiny.to_device(sc)) == ref
    assert pool.get_limit() == 0                       # close restored the earlier (no) limit
    with gpu.msm_context(G1, arr) as again:
        assert again.resident and again.msm(sc) == ref


# --- device-memory limit: split NTTs, the staged and split compute_h ---------------------------


@pytest.mark.parametrize("logn", [2, 5, 11, 12])
def test_split_ntt_equals_whole(gpu, logn):
    """The four-step transform (every block size; device and host sources; input and output
    factors; forward and inverse) gives the whole transform's limbs."""
    from cuzk.backend.cuda.plan import ntt_split

    n = 1 << logn
    x = _rand_device(n)
    n1, _ = ntt_split(n)
    g = FR.generator
    factors = [(None, None), (gpu._factor_tables(g, RNG.randrange(1, R), logn),
                              gpu._factor_tables(pow(g, -1, R), RNG.randrange(1, R), logn))]
    for inverse in (False, True):
        for pre, post in factors:
            ref = gpu._ntt(x, inverse, pre, post)
            block = n1
            while block <= n:
                for src in (x, x.get()):
                    got = gpu._split_ntt(src, cp.empty_like(x), inverse, block, pre, post)
                    assert bool((got == ref).all()), (inverse, pre is None, block, type(src))
                block *= 2
    assert bool((x == gpu.to_device(host(gpu, x))).all())   # the source is left unchanged


@pytest.mark.parametrize("logn", [11, 14, 16])
def test_ntt_under_a_limit_is_split(gpu, cpu, logn):
    """A limit below the whole transform's need (``ntt_device_bytes``) runs it split in the
    largest block that fits; same limbs as without a limit, and as the CPU backend."""
    from cuzk.backend.cuda.plan import ntt_device_bytes, ntt_split

    n = 1 << logn
    a = rand_fr(n)
    x = gpu.to_device(a)
    n1, _ = ntt_split(n)
    for fn, inverse in (("ntt", False), ("ntt", True), ("coset_ntt", False), ("coset_ntt", True)):
        op = getattr(gpu, fn)
        whole = op(x, inverse=inverse)        # caches this size's twiddles and factor tables
        assert gpu.last_ntt_schedule == ("whole", 0)
        if logn <= 14:
            assert host(gpu, whole) == [int(v) for v in getattr(cpu, fn)(int_array(a), inverse=inverse)]
        for block in (n1, 4 * n1):
            need = ntt_device_bytes(n, block, twiddles=False)
            assert need < ntt_device_bytes(n, twiddles=False)
            with _Limited(gpu, need):
                got = op(x, inverse=inverse)
            assert gpu.last_ntt_schedule == ("split", block), fn
            assert bool((got == whole).all()), (fn, inverse, block)
    assert host(gpu, x) == a


def test_small_ntt_skips_memory_queries(gpu, cpu, monkeypatch):
    """Without a pool limit an NTT of at most ``SMALL_NTT_BYTES`` runs whole without querying the
    device memory (``_mem_avail``: its host cost exceeds a small transform's kernels); larger ones,
    and any under a limit, still plan. Same limbs either way, and as the CPU backend."""
    import cuzk.backend.cuda.ntt as cn
    from cuzk.backend.cuda.plan import ntt_device_bytes

    queries = []
    real = type(gpu)._mem_avail
    monkeypatch.setattr(type(gpu), "_mem_avail", lambda self, want=None: queries.append(want) or real(self, want))
    a = rand_fr(1 << 12)
    x = gpu.to_device(a)
    want = [int(v) for v in cpu.coset_ntt(int_array(a), inverse=True)]
    for small, queried in ((cn.SMALL_NTT_BYTES, False), (0, True)):
        assert ntt_device_bytes(1 << 12) <= cn.SMALL_NTT_BYTES
        monkeypatch.setattr(cn, "SMALL_NTT_BYTES", small)
        queries.clear()
        assert host(gpu, gpu.coset_ntt(x, inverse=True)) == want
        assert bool(queries) == queried and gpu.last_ntt_schedule == ("whole", 0), small
    monkeypatch.setattr(cn, "SMALL_NTT_BYTES", 1 << 30)
    with _Limited(gpu, ntt_device_bytes(1 << 12, twiddles=False) - 1):   # a limit: planned (split)
        queries.clear()
        assert host(gpu, gpu.coset_ntt(x, inverse=True)) == want
        assert queries and gpu.last_ntt_schedule[0] == "split"


@pytest.mark.parametrize("logn", [10, 14, 16])
def test_compute_h_schedules_under_a_limit(gpu, cpu, logn):
    """Each compute_h schedule forced by a limit equal to its need (``compute_h_device_bytes``):
    fused, staged (evaluations on the host), split in two block sizes; same limbs as without a
    limit and as the CPU backend; a, b, c unchanged; below the smallest need a GPUMemoryError,
    after which the backend works."""
    from cuzk.backend import GPUMemoryError
    from cuzk.backend.cuda.plan import H_SCHEDULES, compute_h_device_bytes, ntt_split

    n = 1 << logn
    vals = [rand_fr(n) for _ in range(3)]
    xs = [gpu.to_device(v) for v in vals]
    ref = gpu.compute_h(*xs, n)
    assert gpu.last_h_schedule == ("fused", 0)
    assert host(gpu, ref) == [int(v) for v in cpu.compute_h(*(int_array(v) for v in vals), n)]
    n1, _ = ntt_split(n)
    for sched, block in (("fused", 0), ("staged", 0), ("split", n1), ("split", 4 * n1)):
        with _Limited(gpu, compute_h_device_bytes(n, sched, block, twiddles=False)):
            h = gpu.compute_h(*xs, n)
        # the schedule fits the limit: the one forced, or one needing less (the H200 run picked
        # split over fused at 2^16 with the limit at fused's need: the estimate errs high)
        got, got_block = gpu.last_h_schedule
        assert H_SCHEDULES.index(got) >= H_SCHEDULES.index(sched), (sched, got)
        assert got != "split" or sched != "split" or got_block <= block
        assert h.shape == (n - 1, 4) and bool((h == ref).all()), (sched, block)
    assert [host(gpu, x) for x in xs] == vals
    # below the need beside the live arrays alone: the pool's free parts of live chunks, which
    # compute_h may still try (``_planned``), are taken off the headroom
    pool = cp.get_default_memory_pool()
    pool.free_all_blocks()
    frag = pool.total_bytes() - pool.used_bytes()
    with _Limited(gpu, compute_h_device_bytes(n, "split", n1, twiddles=False) - n * 16 - frag):
        with pytest.raises(GPUMemoryError) as e:
            gpu.compute_h(*xs, n)
    assert e.value.op == "compute_h"
    assert bool((gpu.compute_h(*xs, n) == ref).all())


# --- the lean H phase: spmv_ab and compute_h_ab ---------------------------------------------


@pytest.mark.parametrize("logn", [1, 4, 10, 13, 17])
def test_compute_h_ab_matches_cpu(gpu, cpu, logn):
    """``compute_h_ab`` (c = a·b, transforms in the inputs' buffers, c on the device or staged on
    the host) gives the CPU backend's ``compute_h(a, b, a·b)``; under a limit equal to its planned
    need beside nothing else (``compute_h_ab_device_bytes``, a and b included) it runs."""
    from cuzk.backend.cuda.plan import compute_h_ab_device_bytes

    n = 1 << logn
    a, b = rand_fr(n), rand_fr(n)
    a[0], b[-1] = 0, R - 1
    c = [x * y % R for x, y in zip(a, b)]
    ref = [int(v) for v in cpu.compute_h(int_array(a), int_array(b), int_array(c), n)]
    for stage_c in (False, True):
        da, db = gpu.to_device(a), gpu.to_device(b)
        gpu.compute_h(da, db, gpu.mul(da, db), n)      # this size's twiddles cached (a held part)
        need = compute_h_ab_device_bytes(n, stage_c, twiddles=False) - 2 * n * 32   # a and b are allocated
        with _Limited(gpu, need):
            h = gpu.compute_h_ab(da, db, n, stage_c=stage_c)
        del da, db
        assert gpu.last_h_schedule == ("lean_staged" if stage_c else "lean", 0)
        assert host(gpu, h) == ref, stage_c


@pytest.mark.parametrize("rows_b,nnz_b", [(10**6, 10**8), (7, 40), (1, 1)])
def test_spmv_ab_matches_cpu_and_finds_the_bad_row(gpu, cpu, rows_b, nnz_b):
    """``spmv_ab`` over row blocks (each block's slices arriving on a side stream while the
    previous one is used): a = A·w and b = B·w zero-padded to the domain, as the CPU backend
    computes them; C·w checked against a·b, the first failing row found across blocks for a
    tampered witness (the CPU backend's ``first_unsatisfied`` of its products); ``spmv_blocks``
    gives all three products in host memory and the same row."""
    from cuzk.circuits import synthetic
    from cuzk.r1cs import ConstraintSystem

    cs = ConstraintSystem(shape=True, witness=True)
    synthetic.synthesize(cs, 300, 3, 0.9, seed=RNG.randrange(1 << 30))
    ins, aux = cs.assignment()
    r1cs = cs.finalize()
    w = [int(v) for v in ins] + [int(v) for v in aux]
    n = 1 << (r1cs.num_constraints - 1).bit_length()
    mats = (r1cs.A, r1cs.B, r1cs.C)
    found = []
    for tamper in (None, len(w) - 1, len(ins) + 3):
        ww = list(w)
        if tamper is not None:
            ww[tamper] = (ww[tamper] + 1) % R
        ys = [cpu.spmv(m, int_array(ww)) for m in mats]
        want_bad = cpu.first_unsatisfied(*ys)
        a, b, bad = gpu.spmv_ab(mats, gpu.to_device(ww), rows_b, nnz_b, n)
        assert a.shape == (n, 4) and b.shape == (n, 4)
        pad = [0] * (n - r1cs.num_constraints)
        assert host(gpu, a) == [int(v) for v in ys[0]] + pad and host(gpu, b) == [int(v) for v in ys[1]] + pad
        assert bad == want_bad, tamper
        found.append(bad)
        # the "host" H phase's products: the same blocks, all three copied to host memory
        outs, bad_h = gpu.spmv_blocks(mats, gpu.to_device(ww), rows_b, nnz_b, n)
        assert bad_h == want_bad, tamper
        for got, y in zip(outs, ys):
            assert host(gpu, gpu.restore(got, 0, n)) == [int(v) for v in y] + pad, tamper
    assert found[0] is None and any(x is not None for x in found[1:])
    with pytest.raises(ValueError):
        gpu.spmv_ab(mats, gpu.to_device(w), rows_b, nnz_b, r1cs.num_constraints - 1)


@pytest.mark.parametrize("logn", [4, 11, 14])
def test_compute_h_host_staged_and_split_equal_compute_h(gpu, cpu, logn):
    """``compute_h_host`` from host copies of a, b, c (the "host" H phase): the staged schedule
    (chunk 0: two arrays of n on the device) and the split one give ``compute_h``'s limbs; the
    bus bytes counted are the schedule's (``compute_h_bus_arrays`` with host inputs)."""
    from cuzk.backend.cuda.plan import compute_h_bus_arrays, ntt_split

    n = 1 << logn
    xs = [gpu.to_device(rand_fr(n)) for _ in range(3)]
    ref = gpu.compute_h(*xs, n)
    if logn <= 11:
        assert host(gpu, ref) == [int(v) for v in cpu.compute_h(*(int_array(host(gpu, x)) for x in xs), n)]
    for chunk, sched in ((0, "staged"), (ntt_split(n)[0], "split")):
        copies = [gpu.offload(x) for x in xs]
        b0 = gpu.bus_bytes
        h = gpu.compute_h_host(*copies, n, chunk)
        assert gpu.last_h_schedule == (sched, chunk)
        assert bool((h == ref).all()), sched
        assert gpu.bus_bytes - b0 == compute_h_bus_arrays(sched, inputs_on_host=True) * n * 32


def test_host_selection_slices_and_msm_many(gpu, cpu):
    """A lazy host selection (``host_select``: each slice's span of w uploaded, rows picked on the
    device) restores the slices of ``select`` and serves ``msm_many`` over streamed pieces with
    the MSMs of the selected scalars (``Group.msm``); a mask of the wrong length is refused."""
    nv = 3000
    w = rand_fr(nv)
    mask = np.array([RNG.random() < 0.8 for _ in range(nv)])
    mask[0], mask[-1] = False, True
    wd = gpu.to_device(w)
    sel = gpu.host_select(gpu.offload(wd), mask)
    want = [v for v, m in zip(w, mask) if m]
    assert len(sel) == len(want)
    for lo, hi in ((0, len(want)), (0, 1), (17, 900), (len(want) - 5, len(want)), (40, 40)):
        assert host(gpu, gpu.restore(sel, lo, hi)) == want[lo:hi], (lo, hi)
    dev, arr, pts = _grid_points(gpu, len(want), G1)
    with gpu.msm_context(G1, arr, resident=False) as ctx:
        got = ctx.msm_many([sel, gpu.offload(gpu.to_device(want))], piece=701)
        # the offloaded vectors' next slices copied on a side stream during each MSM (prefetch),
        # one of them offloaded into a kept buffer larger than it
        bufs = gpu.host_buffers(2, (len(want) + 9, 4))
        off = gpu.offload(gpu.to_device(want), out=bufs.take(1))
        assert len(off) == len(want) and off.mont.ctypes.data == bufs.take(1).ctypes.data
        got += ctx.msm_many([off, sel, gpu.offload(gpu.to_device(want))], piece=701, prefetch=True)
        bufs.close()
    assert got == [G1.msm(pts, want)] * 5
    with pytest.raises(ValueError):
        gpu.offload(gpu.to_device(want), out=np.empty((len(want) - 1, 4), dtype=np.uint64))
    with pytest.raises(ValueError):
        gpu.host_select(gpu.offload(wd), mask[:-1])


def test_compact_spans_selections_and_msm_many(gpu, tmp_path):
    """w kept on the device as a witness file stores it (``compact_of`` after
    ``compact_to_device_async``: packed bits, wide limbs) expands to w's elements over any span
    (inside the inputs, across their end, at odd bit offsets, across the 4096-element tiles and the
    host table's blocks, empty) and through views; selections of it (dense and sparse masks, spans
    of at most half a slice each) restore the numpy selections of w, and ``msm_many`` over them
    and over a view equals ``Group.msm`` of the same scalars."""
    from cuzk.backend.cuda.plan import compact_device_bytes
    from cuzk.r1cs.witness import read_witness_compact, write_witness

    ni, na = 5, 3 * 4096 + 1234
    inputs = [1] + rand_fr(ni - 1)
    aux = [RNG.randrange(2) if RNG.random() < 0.7 else RNG.randrange(R) for _ in range(na)]
    write_witness(tmp_path / "w", np.array(inputs, dtype=object), np.array(aux, dtype=object))
    cw = read_witness_compact(tmp_path / "w")
    assert 0 < cw.num_bits < na
    up = gpu.compact_to_device_async(cw)
    w = inputs + aux
    assert host(gpu, up.ready()) == w
    cwd = gpu.compact_of(up)
    assert cwd is not None and gpu.compact_of(up) is None and len(cwd) == ni + na
    assert cw.nbytes < cwd.nbytes <= compact_device_bytes(cw.nbytes, na)   # padded mask words, rank table
    for lo, hi in ((0, ni + na), (0, 3), (2, ni + 9), (ni, ni + 1), (ni + 7, ni + 4096 + 13), (ni + 4095, ni + 8193),
                   (ni + na - 3, ni + na), (100, 100)):
        assert host(gpu, gpu.restore(cwd, lo, hi)) == w[lo:hi], (lo, hi)
    view = cwd[ni:]
    assert len(view) == na and host(gpu, gpu.restore(view, 9, 5000)) == aux[9:5000]
    assert host(gpu, gpu.restore(view[3:], 1, 20)) == aux[4:23]
    for p in (0.95, 0.3):
        mask = np.array([RNG.random() < p for _ in range(ni + na)])
        mask[0], mask[-1] = True, True
        sel = gpu.host_select(cwd, mask)
        want = [v for v, m in zip(w, mask) if m]
        for lo, hi in ((0, len(want)), (1, 2), (3, 2000), (len(want) - 7, len(want))):
            assert host(gpu, gpu.restore(sel, lo, hi)) == want[lo:hi], (p, lo, hi)
        dev, arr, pts = _grid_points(gpu, len(want), G1)
        with gpu.msm_context(G1, arr, resident=False) as ctx:
            assert ctx.msm_many([sel], piece=997) == [G1.msm(pts, want)], p
    dev, arr, pts = _grid_points(gpu, na, G1)
    with gpu.msm_context(G1, arr, resident=False) as ctx:
        assert ctx.msm_many([view], piece=3001) == [G1.msm(pts, aux)]


# --- the NTT pass's flags and batches of rows (ntt.cu: ntt_pass; NTTOps._ntt) -------------------


def _flag_cases(k: int, rows: int):
    """(inverse, pre, post) covering each flag, factors as (x, c) with f(i) = c·x^i: PRE with and
    without PRE_LO, INV, POST with and without POST_LO (x = 1 gives a table without lo)."""
    g, c1, c2 = FR.generator, RNG.randrange(1, R), RNG.randrange(1, R)
    pre, pre1, post, post1 = (g, c1), (1, c1), (pow(g, -1, R), c2), (1, c2)
    return [(False, None, None), (True, None, None), (False, pre, None), (False, pre1, None),
            (True, None, post), (False, None, post1), (True, pre, post), (False, pre1, post1)]


def _ntt_reference(cpu, vals, k, rows, inverse, pre, post):
    """``_ntt``'s result by ``CPUBackend.ntt`` row by row: inputs times pre (whole-array index),
    inverse unscaled (times n), outputs times post (index in the row)."""
    n = 1 << k
    x = [v * pre[1] * pow(pre[0], i, R) % R for i, v in enumerate(vals)] if pre else vals
    out = []
    for r in range(rows):
        y = [int(v) for v in cpu.ntt(int_array(x[r * n:(r + 1) * n]), inverse=inverse)]
        y = [v * n % R for v in y] if inverse else y
        out += [v * post[1] * pow(post[0], o, R) % R for o, v in enumerate(y)] if post else y
    return out


@pytest.mark.parametrize("k,rows", [(14, 1), (12, 4), (4, 64), (1, 8)])
def test_ntt_pass_flags_and_rows(gpu, cpu, k, rows):
    n = rows << k
    vals = rand_fr(n)
    d = gpu.to_device(int_array(vals))
    tables = lambda f, kk: None if f is None else gpu._factor_tables(f[0], f[1], kk)  # noqa: E731
    for inverse, pre, post in _flag_cases(k, rows):
        got = gpu._ntt(d, inverse, tables(pre, (n - 1).bit_length()), tables(post, k), rows=rows)
        assert host(gpu, got) == _ntt_reference(cpu, vals, k, rows, inverse, pre, post), (k, rows, inverse, pre, post)
    # in place (tmp = the input) as compute_h runs it
    a = d.copy()
    got = gpu._ntt(a, False, out=a.copy(), tmp=a, rows=rows)
    assert host(gpu, got) == _ntt_reference(cpu, vals, k, rows, False, None, None)
