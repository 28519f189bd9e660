"""Groth16 proofs on the CUDA backend equal the CPU backend's bit for bit (r, s fixed) and verify."""

import warnings

import pytest

from cuzk.backend import get_backend
from cuzk.backend.cuda import cuda_available
from cuzk.circuits import commd, synthetic
from cuzk.backend.cpu import CPUBackend
from cuzk.field import FR
from cuzk.groth16 import DevelopmentSetupWarning, Prover, setup, verify
from cuzk.r1cs import ConstraintSystem, Unsatisfied
from cuzk.sector import prepare_sector, read_c1

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA device")]


def _circuits(tmp_path):
    cs = ConstraintSystem(shape=True, witness=True)
    synthetic.synthesize(cs, 5000, 6, 0.9, seed=2)
    yield "synthetic-5000", cs
    shape = commd.shape_by_name("test-only-commd-128B")
    prepare_sector(tmp_path / "c1.json", 1, shape.sector_size, shape.partitions, shape.challenges, generate_seed=8)
    cs = ConstraintSystem(shape=True, witness=True)
    commd.synthesize(cs, shape, commd.witness_from_c1(read_c1(tmp_path / "c1.json"), 0))
    yield "commd-128B", cs


def _synthetic_reference():
    """The synthetic 5000-constraint circuit through ``_cpu_reference``."""
    cs = ConstraintSystem(shape=True, witness=True)
    synthetic.synthesize(cs, 5000, 6, 0.9, seed=2)
    return _cpu_reference(cs)


def _cpu_reference(cs):
    """A circuit's CPU development key and CPU proof with r, s = 12345, 67890:
    (r1cs, ins, aux, pk, ref)."""
    r1cs = cs.finalize()
    ins, aux = cs.assignment()
    with get_backend("cpu", threads=4) as cpu, warnings.catch_warnings():
        warnings.simplefilter("ignore", DevelopmentSetupWarning)
        pk = setup(r1cs, cpu)
        with Prover(pk, r1cs, cpu) as p:
            ref = p.prove(ins, aux, r=12345, s=67890)
    return r1cs, ins, aux, pk, ref


def test_cuda_proofs_equal_cpu_proofs(tmp_path, monkeypatch):
    def no_cpu_spmv(*a, **k):
        raise AssertionError("the cuda prover must not run the sparse products on the CPU")

    for name, cs in _circuits(tmp_path):
        r1cs, ins, aux, pk, ref = _cpu_reference(cs)
        with get_backend("cuda") as gpu, Prover(pk, r1cs, gpu) as p, monkeypatch.context() as mp:
            mp.setattr(CPUBackend, "spmv", no_cpu_spmv)
            got = p.prove(ins, aux, r=12345, s=67890)
            fresh = p.prove(ins, aux)
        assert got.to_bytes() == ref.to_bytes(), name
        assert verify(pk.vk, got, [int(v) for v in ins[1:]]), name
        assert verify(pk.vk, fresh, [int(v) for v in ins[1:]]), name
        assert fresh.to_bytes() != got.to_bytes()


def test_auto_picks_cuda():
    with get_backend("auto") as b:
        assert b.name == "cuda"


def test_cuda_prover_refuses_unsatisfied_witness():
    cs = ConstraintSystem(shape=True, witness=True)
    synthetic.synthesize(cs, 3000, 3, 0.9, seed=5)
    r1cs = cs.finalize()
    ins, aux = cs.assignment()
    with get_backend("cpu", threads=1) as cpu, get_backend("cuda") as gpu, warnings.catch_warnings():
        warnings.simplefilter("ignore", DevelopmentSetupWarning)
        pk = setup(r1cs, cpu)
        with Prover(pk, r1cs, cpu) as pc, Prover(pk, r1cs, gpu) as pg:
            calls = []
            for c in pg.ctx.values():
                orig = c.msm
                c.msm = lambda s, orig=orig: calls.append(1) or orig(s)
            for i in (len(aux) // 2, len(aux) - 1, 7):
                bad = list(aux)
                bad[i] = (int(bad[i]) + 3) % FR.modulus
                with pytest.raises(Unsatisfied) as ref:
                    pc.prove(ins, bad)
                with pytest.raises(Unsatisfied) as got:
                    pg.prove(ins, bad)
                assert (got.value.row, got.value.gadget) == (ref.value.row, ref.value.gadget), i
            assert not calls  # refused before any MSM


def test_cuda_setup_equals_cpu_setup():
    """Setup's fixed-base products on the GPU give the CPU's parameter bytes (same toxic waste)."""
    import random

    from cuzk.backend.cuda import CUDAMSMContext
    from cuzk.curve import G2

    cs = ConstraintSystem(shape=True, witness=True)
    synthetic.synthesize(cs, 3000, 3, 0.9, seed=4)
    r1cs = cs.finalize()
    rng = random.Random()
    toxic = {k: rng.randrange(1, FR.modulus) for k in ("tau", "alpha", "beta", "gamma", "delta")}
    with get_backend("cpu", threads=2) as cpu, get_backend("cuda") as gpu, warnings.catch_warnings():
        warnings.simplefilter("ignore", DevelopmentSetupWarning)
        ref = setup(r1cs, cpu, toxic)
        got = setup(r1cs, gpu, toxic)
        assert got.to_bytes() == ref.to_bytes()
        with gpu.msm_context(G2, got.b_g2) as ctx:   # G2 runs on the GPU too (no CPU delegate)
            assert isinstance(ctx, CUDAMSMContext)
        ins, aux = cs.assignment()
        with Prover(got, r1cs, gpu) as p:
            assert verify(got.vk, p.prove(ins, aux), [int(v) for v in ins[1:]])


def test_compact_witness_is_expanded_on_the_device(tmp_path, monkeypatch):
    """A witness file staged as stored (``stage_compact``: packed bits and wide values uploaded,
    w expanded on the GPU) gives w exactly (back from Montgomery form against the host
    expansion) and the CPU backend's proof bytes (r, s fixed); so does the fallback when the
    device has no room (w expanded on the host, the upload deferred)."""
    import numpy as np

    from cuzk.backend.cuda.backend import CUDABackend
    from cuzk.field import to_limbs
    from cuzk.r1cs.witness import read_witness_compact, write_witness

    r1cs, ins, aux, pk, ref = _synthetic_reference()
    write_witness(tmp_path / "w", ins, aux)
    cw = read_witness_compact(tmp_path / "w")
    assert 0 < cw.num_bits < cw.num_aux   # both kinds of value are exercised
    with get_backend("cuda") as gpu, Prover(pk, r1cs, gpu) as p:
        w = gpu.compact_to_device_async(cw).ready()
        assert np.array_equal(to_limbs(gpu.to_host(w), 4), cw.limbs())
        assert p.prove(p.stage_compact(cw), r=12345, s=67890).to_bytes() == ref.to_bytes()
        with monkeypatch.context() as mp:   # no room while staging only (the proof needs its room)
            mp.setattr(CUDABackend, "_mem_avail", lambda self, want=None: 0)
            staged = p.stage_compact(cw)
        assert staged.upload.array is None   # deferred: expanded on the host
        assert p.prove(staged, r=12345, s=67890).to_bytes() == ref.to_bytes()
        bad = read_witness_compact(tmp_path / "w")
        bad.inputs = bad.inputs.copy()
        bad.inputs[0, 0] = 2
        with pytest.raises(Exception, match="ONE"):
            p.stage_compact(bad)


def test_proofs_equal_under_a_memory_limit(monkeypatch):
    """r, s fixed: proof bytes with chunked MSMs (room for half of the H MSM's temporaries, then
    a pool limit that leaves bases on the host, uploaded per chunk) equal those without a limit
    and the CPU backend's."""
    import cupy as cp

    from cuzk.backend.cuda.backend import CUDABackend
    from cuzk.backend.cuda.plan import msm_device_bytes
    from cuzk.curve import G1

    r1cs, ins, aux, pk, ref = _synthetic_reference()
    pub = [int(v) for v in ins[1:]]
    pool = cp.get_default_memory_pool()
    headroom = 10 << 20
    with get_backend("cuda") as gpu, Prover(pk, r1cs, gpu) as p:
        free = p.prove(ins, aux, r=12345, s=67890)
        assert all(c.last_chunks == 1 for c in p.ctx.values())
        # the room an MSM sees, fixed (a pool limit's room depends on what else is cached): the
        # H MSM cannot run whole in it
        room = msm_device_bytes(len(pk.h), G1, host_scalars=False) // 2
        with monkeypatch.context() as mp:
            mp.setattr(CUDABackend, "_mem_avail", lambda self, want=None: room)
            chunked = p.prove(ins, aux, r=12345, s=67890)
        chunks = {k: c.last_chunks for k, c in p.ctx.items()}
        assert gpu.gpu_peak_bytes > 0
    assert chunks["h"] > 1, chunks
    pool.free_all_blocks()   # the limit counts what the pool holds (free blocks pinned in chunks too)
    with get_backend("cuda", gpu_mem_limit=pool.total_bytes() + headroom) as gpu2, Prover(pk, r1cs, gpu2) as p2:
        resident = {k: c.resident for k, c in p2.ctx.items()}
        uploaded = p2.prove(ins, aux, r=12345, s=67890)
        assert 0 < gpu2.gpu_peak_bytes <= gpu2.mem_limit
    assert not all(resident.values()), resident
    assert pool.get_limit() == 0
    assert free.to_bytes() == chunked.to_bytes() == uploaded.to_bytes() == ref.to_bytes()
    assert verify(pk.vk, uploaded, pub)


def test_live_peak_counts_arrays_not_cached_blocks():
    """``gpu_peak_bytes`` is the most bytes of live arrays at any allocation, from every thread
    (the stager's too); the pool's cached blocks are not in it, ``gpu_pool_peak_bytes`` has them."""
    from concurrent.futures import ThreadPoolExecutor

    import cupy as cp

    pool = cp.get_default_memory_pool()
    with get_backend("cuda") as gpu:
        base = pool.used_bytes()
        big = cp.empty(96 << 20, dtype=cp.uint8)
        del big                                     # cached, not live
        assert gpu.gpu_peak_bytes >= base + (96 << 20)
        small = gpu.to_device(list(range(1000)))    # reuses the cached block
        assert pool.used_bytes() < base + (96 << 20) <= gpu.gpu_peak_bytes
        with ThreadPoolExecutor(1) as ex:
            other = ex.submit(lambda: cp.zeros(200 << 20, dtype=cp.uint8)).result()
        assert gpu.gpu_peak_bytes >= base + (200 << 20)
        assert gpu.gpu_pool_peak_bytes >= gpu.gpu_peak_bytes
        del other, small


def test_async_upload_equals_to_device(monkeypatch):
    """``to_device_async`` from another thread (as ``prove_batch``'s stager), through several
    pinned chunks, gives ``to_device``'s array; a deferred upload (no room now) too."""
    import random
    from concurrent.futures import ThreadPoolExecutor

    import cupy as cp

    from cuzk.backend.cuda import runtime as cuda_runtime

    monkeypatch.setattr(cuda_runtime, "_UPLOAD_CHUNK_BYTES", 32 * 1000)  # 5000 values: 5 chunks, 2 buffers
    rng = random.Random(5)
    R = FR.modulus
    vals = [0, 1, R - 1, 2**64 - 1, 2**64] + [rng.choice((0, 1, rng.randrange(R), rng.randrange(2**40))) for _ in range(4995)]
    with get_backend("cuda") as gpu, ThreadPoolExecutor(1) as pool:
        for n in (0, 1, 1000, 1001, len(vals)):
            want = gpu.to_device(vals[:n])
            up = pool.submit(gpu.to_device_async, vals[:n]).result()
            assert up.nbytes == 32 * n
            assert cp.array_equal(up.ready(), want), n
        with pytest.raises(ValueError):
            pool.submit(gpu.to_device_async, [0, R]).result()
        pool_ = cp.get_default_memory_pool()
        gpu.set_mem_limit(pool_.used_bytes() + 32 * len(vals))  # room for one copy, not two
        up = gpu.to_device_async(vals)
        assert up.array is None  # deferred to ready()
        gpu.set_mem_limit(None)
        assert cp.array_equal(up.ready(), gpu.to_device(vals))
        up = pool.submit(gpu.to_device_async, vals, None, True).result()   # defer=True: host only until ready()
        assert up.array is None and cp.array_equal(up.ready(), gpu.to_device(vals))


def test_batch_with_overlap_gives_the_sequential_bytes(tmp_path, monkeypatch):
    """r, s fixed: ``prove_batch`` on cuda (next partition staged on the side stream during the
    current proof) writes the bytes of proving each partition in turn with plain ``to_device``."""
    import json

    from batch_util import fixed_blinding, make_batch

    from cuzk import pipeline
    from cuzk.backend.base import Backend
    from cuzk.backend.cuda import CUDABackend
    from cuzk.groth16 import read_params
    from cuzk.r1cs.pce import read_pce
    from cuzk.r1cs.witness import read_witness

    b = make_batch(tmp_path / "b", "test-only-commd-256B", 2, backend="cuda")
    rs = fixed_blinding(monkeypatch)
    out, mem = tmp_path / "proofs", tmp_path / "mem.json"
    pipeline.prove_batch(b["pce"], b["params"], b["c1"], b["wit"], out, backend="cuda", mem_json=mem)
    monkeypatch.undo()
    rec = json.loads(mem.read_text())
    assert rec["staging_overlapped_seconds"] >= 0
    # live peak: at least the resident key's bases; at most what the pool held; the model's
    # prediction is an upper estimate of it
    assert 0 < rec["gpu_peak_bytes"] <= rec["gpu_pool_peak_bytes"]
    assert rec["gpu_peak_bytes"] <= rec["gpu_predicted_bytes"] + (64 << 20), rec
    r1cs, _ = read_pce(b["pce"])
    pk = read_params(b["params"])
    monkeypatch.setattr(CUDABackend, "to_device_async", Backend.to_device_async)  # synchronous upload
    j = 0
    with get_backend("cuda") as gpu, Prover(pk, r1cs, gpu) as p:
        for i, wit in enumerate(b["wit"]):
            want = []
            for k in range(2):
                ins, aux = read_witness(wit / f"partition-{k}.wit")
                want.append(p.prove(ins, aux, *rs(j)).to_bytes())
                j += 1
            assert (out / f"{i + 1}.proof").read_bytes() == b"".join(want), i


@pytest.mark.parametrize("sched", ["staged", "split"])
def test_proofs_equal_with_compute_h_under_a_limit(sched, monkeypatch):
    """r, s fixed: a pool limit during compute_h equal to the need of its staged / split schedule
    (``compute_h_device_bytes``) forces that schedule; the proof bytes equal those without a limit
    and the CPU backend's."""
    import cupy as cp

    from cuzk.backend.cuda.plan import compute_h_device_bytes, ntt_split

    r1cs, ins, aux, pk, ref = _synthetic_reference()
    pool = cp.get_default_memory_pool()
    with get_backend("cuda") as gpu, Prover(pk, r1cs, gpu) as p:
        free = p.prove(ins, aux, r=12345, s=67890)
        assert gpu.last_h_schedule == ("fused", 0)
        whole = gpu.compute_h
        seen = []

        def limited(a, b, c, n):
            m = a.shape[0]
            block = ntt_split(m)[0] if sched == "split" else 0
            # what the pool holds once emptied (free blocks pinned in chunks with live arrays
            # count against the limit) plus the schedule's need
            pool.free_all_blocks()
            gpu.set_mem_limit(pool.total_bytes() + compute_h_device_bytes(m, sched, block, twiddles=False))
            try:
                return whole(a, b, c, n)
            finally:
                gpu.set_mem_limit(None)
                seen.append((gpu.last_h_schedule, (sched, block)))

        monkeypatch.setattr(gpu, "compute_h", limited)
        got = p.prove(ins, aux, r=12345, s=67890)
    assert seen and seen[0][0] == seen[0][1], seen
    assert pool.get_limit() == 0
    assert got.to_bytes() == free.to_bytes() == ref.to_bytes()
    assert verify(pk.vk, got, [int(v) for v in ins[1:]])
