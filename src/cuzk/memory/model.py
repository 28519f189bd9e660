"""Memory model: predicted peak host bytes of each step, from plain shape numbers.

Imports :mod:`cuzk.memory.budget`, which turns a prediction into a declaration (headroom) and
checks budgets (its names are re-exported here for older callers), and the pure planner
:mod:`cuzk.memory.gpu_plan`, whose plans give a device-limited GPU step's host bytes. Every constant
below is a measured slope or intercept (the runs are under ``benchmarks/results``). Each step writes its measured peak beside
the prediction (``rss_predicted_bytes``) so the report can put them side by side.
"""

from __future__ import annotations

from ..backend.base import GPUMemoryError
# re-exported: they lived here before cuzk.memory.budget held them
from .budget import MemoryBudgetError, check_budget, declared_gb  # noqa: F401
from .gpu_plan import host_scalar_bytes, plan_prove, plan_setup, setup_host_bytes

# Python + numpy + gmpy2 + arkworks + Snakemake script overhead of a step, bytes (measured 46-48 MiB).
BASE_PROCESS_BYTES = 64 << 20
# One spawned CPU worker process (interpreter, numpy, arkworks), bytes (measured ~60-70 MiB).
WORKER_PROCESS_BYTES = 80 << 20
# Host bytes per constraint of the synthetic prove benchmark on the CPU backend: R1CS in CSR
# (~3 non-zeros × 20 B per row), proving key (~4 G1 + 1 G2 uncompressed points = 576 B),
# resident arkworks points in workers (~1.2 KiB), and mpz arrays of the NTT domain (2 × domain
# per constraint × ~10 live arrays × ~64 B). Measured slope at 2^16 and 2^14: about 5.5 KiB.
PROVE_CPU_BYTES_PER_CONSTRAINT = 6 << 10


def prove_bench_bytes(constraints: int, threads: int = 1) -> int:
    """Predicted peak host RSS (bytes, process tree) of ``cuzk bench prove`` on the CPU backend.

    Args:
        constraints: N of the synthetic circuit.
        threads: worker processes (1 means in-process, no workers).
    """
    workers = threads if threads > 1 else 0
    return BASE_PROCESS_BYTES + workers * WORKER_PROCESS_BYTES + constraints * PROVE_CPU_BYTES_PER_CONSTRAINT


# Per-step linear models: bytes = BASE + workers·WORKER + Σ coefficient·count, with the counts
# of one partition's R1CS ("constraints", "aux", "nnz" = A+B+C non-zeros, "domain" = NTT size)
# and "sector_size"; PoRep and SnapDeals shapes add "input_values" (32-byte values of the sector's
# input file, a C1 or update file, each a JSON list of 32 numbers, ~119 bytes of its text;
# a batch's prove holds one file per sector: ``batch`` multiplies the term); PoSt shapes add "post_path_values" (32-byte values of a partition's
# inclusion proofs in its vanilla file, counted once per partition of the target: ``partitions``)
# and "wide_aux" (aux that are not index bits: Poseidon values, 32 bytes each in the witness file
# where a PoRep witness is nearly all packed bits). Coefficients were fitted to measured peaks (process tree RSS) of the
# test-only 128 B shape (domain 2^17, aux 91,404) and the 2 KiB shape (domain 2^20, aux
# 547,408) on the CPU backend with 2 workers: setup peaked at 0.50 and 2.28 GiB, prove at 0.50
# and 2.68 GiB, pce_extract at 0.14 GiB, synthesize at 0.10 GiB (2 KiB); see
# benchmarks/results/2026-11-30-cpu-2core/default-batch.
# A PoSt vanilla file held whole (JSON parsed into lists of byte values) with its full check
# (``read_post``): 883 B per 32-byte value, measured on the 2-core machine for a padded 32 GiB
# WindowPoSt (23,490 inclusion proofs x 72 values, 202 MB of JSON): 1.50 GiB peak, 0.045 GiB of
# it imports (benchmarks/results/postscale). Every PoSt step that reads the file pays it.
POST_VANILLA_BYTES_PER_VALUE = 883.0
# A PoSt synthesize step reads the check's compact slice (``jsondoc.admit`` slices: the vanilla
# document with its 32-byte values as hex strings), not the whole file: 280 B per value, the bytes
# a value costs while the partition is synthesized (the read itself peaks at 443 B a value and
# holds 181, before the aux store exists). With WIDE_AUX_SYNTH below, fitted to a full 32 GiB
# WindowPoSt partition (2,349 distinct synthetic sectors, 1.69 M values, 126.9 M aux, 126.2 M
# wide) on the 2-core machine, one process: inputs 0.85 GiB sampled (0.90 kernel), values 3.84
# (3.90) = 64 MiB + 2.5 B an aux + 280 B a value + 1 B (inputs) or 26 B (values) a wide value;
# benchmarks/results/2026-12-05-local/synthmodel.
POST_SLICE_BYTES_PER_VALUE = 280.0
# The prove and verify steps read the same slice (``pipeline._read_input``): a fresh process's read
# and the partition's values (``post.values``) peaked at 0.74 GiB for that partition, 430 B a value
# over the base process (benchmarks/results/2026-12-05-local/compactslice; the whole file: 1.02).
POST_SLICE_READ_BYTES_PER_VALUE = 450.0
# synthesize: bytes per wide aux beyond the 2.5 B/aux every aux costs (as in a PoRep partition)
# with ``witness_poseidon: values``: the value store keeps a distinct wide value as a 4-byte slot
# beside its 32-byte limb row in the store's runs, and the compact witness made for the file
# holds it again. 26 B measured (above), rounded up; before the slice read it was fitted beside the
# whole file's 883 B a value at 53 B (stop 40), which the slice read left twice the peaks.
WIDE_AUX_SYNTH = 28.0
# ``witness_poseidon: inputs``: a wide Poseidon value costs the synthesize step (and the cuda
# prove step, which reads the file) its share of its hash's inputs and digest, 9 x 32 B per 505
# values at arity 8 (0.57 B), rounded up; the values themselves live a chunk at a time. A full
# 32 GiB WindowPoSt partition's synthesize peaked at 1.26 GiB against 4.59 GiB with values
# (2 workers, 2-core machine; benchmarks/results/2026-12-05-local/postinputs).
WIDE_AUX_INPUTS = 1.0
# post_vanilla over synthetic sectors: bytes per 32-byte value of the file made. A full 32 GiB
# WindowPoSt partition (2,349 distinct synthetic sectors, 1,691,280 values, 202.7 MB of JSON)
# peaked at 1.15 GiB, 0.045 GiB of it imports, while its JSON was written (2-core machine): 703 B
POST_VANILLA_GEN_BYTES_PER_VALUE = 703.0
STEP_COEFFICIENTS: dict[str, dict[str, float]] = {
    # sealing: labels, tree_c, tree_r_last and the parent table in memory; measured 0.091 GiB at
    # 2 KiB (default batch) and 0.37 GiB at 8 MiB (bench circuit, H200 host)
    "prepare": {"const": 40 << 20, "sector_size": 40.0},
    # a synthetic sector's C1 (sparse: only the opened nodes) made whole before it is written:
    # its lists (~360 B a value), the JSON text and its bytes (119 B a value each). Kernel peaks
    # 0.265 GiB for a 32 GiB C1 (322,747 values; H200 stop16/run-a and the 2-core machine) and
    # 0.206 GiB for a 32 GiB update file (242,852 values, 2-core machine): 674 and 610 B a value
    # over the base process
    "prepare_synthetic": {"input_values": 700.0},
    # 0.53 GiB at 2 KiB, 18.4 GiB at 32 GiB (H200 host, stop11): 27.1 B per non-zero + 160 MB.
    # PoSt shapes have their own slope (POST_COEFFICIENTS)
    "pce_extract": {"const": 160 << 20, "nnz": 29.0},
    "setup": {"domain": 1700.0, "aux": 1250.0},  # aux slope raised to cover porep-2KiB (9.90 GiB)
    # one partition's witness (witness mode): the value store keeps a byte per value below 255
    # and a 32-byte row per wider one, and the checked input file is parsed whole (a 32 GiB
    # synthetic C1 is 38 MB of JSON, a SnapDeals file 29 MB), which sets most of the peak:
    # 0.45 GB for porep-32GiB (130.2 M aux), 0.43 GB for update-32GiB (81.0 M aux), 0.084-0.088 GB
    # for porep-8MiB/512MiB (2-core machine, one process per partition, after the synthcpu
    # change; benchmarks/results/2026-12-02-cpu-2core-synth): 192 MiB + 2.5 B per aux covers them
    # (1.32x and 1.10x at 32 GiB as 192 MiB + 2.5 B per aux). The input file's values set the
    # difference between the two 32 GiB shapes (a value-store byte per aux alone would make the
    # update partition the smaller one), so: 180 MiB (BASE_PROCESS_BYTES and 116 MiB) + 1,000 B
    # per input value, 1.08x the H200 host's 0.44 GiB (stop16) and 1.13x the 2-core machine's
    # 430 MiB for porep-32GiB, 1.01x update-32GiB's 409 MiB. PoSt keeps its own terms (POST_COEFFICIENTS); with threads > 1,
    # SYNTH_WORKER_BYTES per worker process
    "synthesize": {"const": 116 << 20, "input_values": 1000.0},
    # the full check of an input file when it enters (``jsondoc.admit``): the file's bytes, its
    # decoded text and its parsed lists, then the nesting scan (``jsondoc._depth``: a copy with the
    # strings emptied, and per 16 MiB chunk an int64 index, int8 steps and an int32 running sum)
    # beside them. The scan's peak lies inside numpy calls that hold the GIL, so the 50 ms sampler
    # misses it: kernel peaks 0.491 GiB for a 32 GiB C1 (the H200 host, stop16, and the 2-core
    # machine alike; sampled 0.37 there) and 0.390 GiB for a 32 GiB update file (2-core machine):
    # 24 MiB + 1,364 B a value over the base process fits both. PoSt: POST_COEFFICIENTS
    "check_c1": {"const": 24 << 20, "input_values": 1400.0},
    "prove": {"domain": 1700.0, "aux": 1600.0, "post_path_values": POST_SLICE_READ_BYTES_PER_VALUE},
    # pairing library + the checked input file read whole, trusted by digest (``jsondoc.load_checked``:
    # bytes, text and lists, no nesting scan): 604 B a value measured on the 2-core machine for a
    # 32 GiB C1 (186 MiB over the imports); peaks 0.165-0.234 GiB for 32 GiB C1s (H200 stop16)
    "verify": {"const": 16 << 20, "input_values": 600.0},
    # synthetic PoSt vanilla proofs (sparse trees for every challenged leaf, the file's JSON
    # made whole before it is written). Over sealed sectors the workflow declares "prepare".
    "post_vanilla": {"post_path_values": POST_VANILLA_GEN_BYTES_PER_VALUE},
    "report": {"const": 160 << 20},  # pandas + matplotlib
    # Filecoin's official key checked and linked (``use_official_params``): its BLAKE2b read in
    # blocks, the .params mapped for its counts (pages handed back), the vk parsed
    "official_params": {"const": 96 << 20},
}
STEPS_WITH_WORKERS = ("setup", "prove")
# A synthesis worker (``cuzk.r1cs.parallel``, forked from the step's process before its witness
# store exists): ~75 MiB at its start plus ~95 KiB per row of a chunk of arity-8 Poseidon
# hashes (490 values a row as gmpy2 integers, then their limbs); chunks hold at most
# ``parallel.MAX_ROWS`` (1,024) rows. Measured 98 MiB at 240-row chunks (2-core machine).
SYNTH_WORKER_BYTES = 256 << 20
# With ``witness_poseidon: inputs`` a worker returns each hash's digest only, not its values: a
# full 32 GiB WindowPoSt partition's step with 2 workers peaked 90 MiB over the one-process step
# (0.94 against 0.85 GiB), padded partitions of 1 and 200 distinct sectors 2 x 50-60 MiB over
# the same step's terms (2-core machine, benchmarks/results/2026-12-05-local/synthmodel); on the
# H200 16 workers' whole step peaked at 1.52 GiB (600 distinct sectors, stop 43 call 2).
SYNTH_WORKER_INPUTS_BYTES = 96 << 20

# A synthesize step whose SHA-256 or Poseidon witness runs on the GPU (``synthesis_sha: gpu``,
# ``synthesis_poseidon: gpu``) also holds the CUDA runtime and CuPy: a 32 GiB PoRep partition's
# step peaked at 0.62 GiB against 0.32 with the native cores (H200, benchmarks/results/
# 2026-12-04-h200-stop40/call4); the rest of its memory is the CPU path's.
SYNTH_GPU_BYTES = 384 << 20

# Host side of setup and prove on the cuda backend (no worker processes; the NTT domain, the
# MSMs and the key's points live on the GPU, and the key never lives on the host: setup writes it
# from the GPU in slices, prove maps its file and streams it to the GPU, handing the pages back).
# Setup holds the PCE's CSR arrays and their transposes: one slope per non-zero, fitted to the
# H200 host; prove maps the PCE and uploads it in slices, and stages witnesses as stored (w
# expanded on the GPU), so neither the CSR arrays nor the witness limbs stay on the host (stop
# 11, before: 20.3 GiB at 32 GiB). The fits are in the table's comments.
# A PoSt prove job also holds its vanilla file's slice (POST_SLICE_READ_BYTES_PER_VALUE) and reads each
# witness file whole (``read_witness_compact``): 32 bytes per wide value, the file format's, where
# a PoRep witness is 35 MB of packed bits at 32 GiB.
STEP_COEFFICIENTS_CUDA: dict[str, dict[str, float]] = {
    # read_pce (not mapped) owns the matrices: int64 column indices and int32 coefficient ids
    # (12 B a non-zero) and three int64 row pointers (24 B a row); the rest is the CUDA runtime and
    # CuPy (their pinned pools) and the key written from the GPU in slices: 1.78 GiB over the
    # matrices at porep-32GiB (12.83 GiB peak, H200 stop16/run-a). update-32GiB's 9.74 GiB (stop14,
    # 2.90 GiB over its matrices) is not covered: its PCE's coefficient table is not in the stats
    "setup": {"const": 2.0 * (1 << 30), "nnz": 12.0, "constraints": 24.0},
    # the PCE mapped and uploaded in slices (pages handed back), the key mapped and streamed, so
    # what stays is the CUDA runtime, CuPy and its pinned pool (the key's staging, the upload
    # buffers), the partition staged as stored, and each sector's checked C1 held as parsed lists
    # (~360 B a value measured on the 2-core machine): H200 stop16, porep-32GiB, after the device
    # select (8a7f8c3): batches of one 1.93-1.99 GiB (sweep), of two 2.24 GiB (run-e), of four
    # 2.36 GiB (run-a); fitted as 1.4 GiB + 0.8 B a non-zero + 440 B a value per sector
    "prove": {"const": 1.4 * (1 << 30), "nnz": 0.8, "input_values": 440.0, "wide_aux": 32.0,
              "post_path_values": POST_SLICE_READ_BYTES_PER_VALUE},
}


# PoSt shapes (stats with "post_path_values") use these in place of the tables above, per (step,
# backend): where the peak is the matrices, a PoSt non-zero costs less than a PoRep one (long
# Poseidon rows: 9.2 non-zeros per constraint over A, B and C, PoRep 5.5). Fitted to one full
# 32 GiB WindowPoSt partition on the H200 host (1.147 G non-zeros; benchmarks/results/
# 2026-12-01-h200/stop13/run-windowpost): pce_extract peaked at 23.4 GiB, setup on the GPU at
# 19.1 GiB, 21.7 and 17.1 B per non-zero over the constants; the slopes are about 10 % above.
# PCE extraction of 96 to 480 sectors on the 2-core machine (benchmarks/results/postscale: 27-28 B
# per non-zero; at 192 sectors the constraint system's 0.8 GB of freed blocks were still resident
# after finalize) is within 15 % of this slope.
POST_COEFFICIENTS: dict[tuple[str, str], dict[str, float]] = {
    ("pce_extract", "cpu"): {"const": 160 << 20, "nnz": 24.0},
    # a PoSt vanilla file is held whole while checked (1.50 GiB for a 32 GiB WindowPoSt
    # partition's, postscale), and while verified
    ("check_c1", "cpu"): {"const": 256 << 20, "post_path_values": POST_VANILLA_BYTES_PER_VALUE},
    ("verify", "cpu"): {"const": 16 << 20, "sector_size": 0.0056, "post_path_values": POST_SLICE_READ_BYTES_PER_VALUE},
    # a PoSt witness is nearly all Poseidon values: the "wide_aux" slope (WIDE_AUX_SYNTH, or
    # WIDE_AUX_INPUTS) beside 2.5 B per aux, and the check's compact slice read (refitted in stop
    # 44: the whole file's 883 B a value had left the model 2-2.6x over the measured peaks)
    ("synthesize", "cpu"): {"aux": 2.5, "wide_aux": WIDE_AUX_SYNTH, "post_path_values": POST_SLICE_BYTES_PER_VALUE},
    ("setup", "cuda"): {"const": 0.75 * (1 << 30), "nnz": 19.0},
    # the PoRep fit before stop 16, kept for PoSt: a 32 GiB WindowPoSt prove peaked at 9.34 GiB
    # (predicted 10.79; H200 stop14/run-windowpost), its witness read whole (32 B a wide value);
    # the GPU select took ~1 GB of host indices off it since, not remeasured
    ("prove", "cuda"): {"const": 1.3 * (1 << 30), "nnz": 4.0, "wide_aux": 32.0,
                        "post_path_values": POST_SLICE_READ_BYTES_PER_VALUE},
}


# pce_extract with ``upstream_order``: the order tracker's call records, the aux and row
# permutations, and each matrix's permuted copy beside the block-order one (``permute_csr``).
# Measured on the 2-core machine over the block order: porep-2KiB +0.49 GiB (14.9 M non-zeros),
# porep-8MiB +0.68 GiB (21.5 M): 35 and 34 B a non-zero.
UPSTREAM_ORDER_NNZ_BYTES = 36
# A PoSt synthesize in that order: the order tracker's pieces, 8 B an aux; with the Poseidon
# values kept (witness_poseidon: values) also the compact form's wide array made in that order,
# 32 B a wide value. A full 32 GiB WindowPoSt partition (2 workers, 2-core machine) peaked at
# 8.97 GiB against 4.59 in block order with values, 2.21 against 1.26 with inputs: 8.0 B an aux
# and 29 B a wide value more (benchmarks/results/2026-12-05-local/postinputs/upstream.log).
UPSTREAM_ORDER_SYNTH_AUX_BYTES = 8


def predict_step_bytes(step: str, stats: dict | None = None, threads: int = 1, batch: int = 1,
                       backend: str = "cpu", partitions: int = 1, gpu_mem_limit: int | None = None,
                       host_limit: int | None = None, upstream_order: bool = False, distinct: float = 1.0,
                       wide_values: bool = True) -> int:
    """Predicted peak host RSS in bytes of a workflow step (its process and children).

    Args:
        step: one of ``STEP_COEFFICIENTS``.
        stats: shape numbers: constraints, aux, nnz_a/nnz_b/nnz_c, domain, sector_size.
        threads: CPU worker processes of the step (setup and prove start that many on the cpu
            backend; the cuda backend starts none).
        batch: sectors in the step; a batch reuses one parameter set and proves sectors in
            turn, so it adds only the small per-sector witness buffers (counted in "aux") and
            each sector's input file (it multiplies the "input_values" term).
        backend: "cpu" or "cuda" (what ``cuzk.backend.backend_kind`` resolves the step's backend
            to): setup and prove on cuda use ``STEP_COEFFICIENTS_CUDA``; a PoSt shape's steps
            listed in ``POST_COEFFICIENTS`` use those; synthesize on cuda (a witness path on the
            GPU) adds ``SYNTH_GPU_BYTES``.
        partitions: partitions of the PoSt target the step reads the vanilla file of (it holds
            all of them): multiplies the "post_path_values" term.
        gpu_mem_limit: the cuda backend's device limit (bytes; None: none). A cuda prove under
            a limit adds its schedule's host memory (``gpu_plan.ProvePlan.host_bytes``: staging
            buffers, waiting scalars, the host H phase) for max(partitions, batch × the shape's
            partitions) partitions, the schedule ``plan_prove`` picks with ``host_limit``; a
            cuda setup under a limit adds the sliced path's (``gpu_plan.setup_host_bytes``: the
            key filled on the host).
        host_limit: the ``host_limit`` of that schedule (bytes; None: any).
        upstream_order: pce_extract in rust-fil-proofs' order adds ``UPSTREAM_ORDER_NNZ_BYTES``
            a non-zero; a PoSt synthesize ``UPSTREAM_ORDER_SYNTH_AUX_BYTES`` an aux, and with
            ``wide_values`` 32 B a wide value.
        distinct: a PoSt synthesize's share of slots holding distinct sectors
            (``PoStShape.distinct_share``): scales its "wide_aux" term, since a padded
            partition's repeated Poseidon rows are kept once (measured: a padded 32 GiB
            WindowPoSt synthesize peaked at 1.19 GiB for 1 distinct sector and 1.45 GiB for 200,
            predicted 1.75 and 2.28; benchmarks/results/2026-12-04-local/lazywide).
        wide_values: whether a PoSt witness keeps its Poseidon values (``witness_poseidon:
            values``); False (``inputs``): synthesize and a cuda prove count
            ``WIDE_AUX_INPUTS`` per wide value in place of their "wide_aux" slope (a cpu prove
            computes the values on the host: unchanged), and synthesize's workers
            ``SYNTH_WORKER_INPUTS_BYTES`` each in place of ``SYNTH_WORKER_BYTES``.

    Raises:
        KeyError: unknown step.
        ValueError: unknown backend.
    """
    if backend not in ("cpu", "cuda"):
        raise ValueError(f"backend must be 'cpu' or 'cuda', got {backend!r}")
    on_gpu = backend == "cuda" and step in STEP_COEFFICIENTS_CUDA
    coeffs = STEP_COEFFICIENTS_CUDA[step] if on_gpu else STEP_COEFFICIENTS[step]
    stats = dict(stats or {})
    if "post_path_values" in stats:
        coeffs = POST_COEFFICIENTS.get((step, "cuda" if on_gpu else "cpu"), coeffs)
    if not wide_values and "wide_aux" in coeffs and (step == "synthesize" or on_gpu):
        coeffs = {**coeffs, "wide_aux": WIDE_AUX_INPUTS}
    stats["nnz"] = stats.get("nnz_a", 0) + stats.get("nnz_b", 0) + stats.get("nnz_c", 0)
    stats["const"] = 1
    total = BASE_PROCESS_BYTES
    if step in STEPS_WITH_WORKERS and threads > 1 and not on_gpu:
        total += threads * WORKER_PROCESS_BYTES
    if step in ("synthesize", "check_c1") and threads > 1:
        total += threads * (SYNTH_WORKER_INPUTS_BYTES if step == "synthesize" and not wide_values else SYNTH_WORKER_BYTES)
    if step == "synthesize" and backend == "cuda":
        total += SYNTH_GPU_BYTES
    for key, c in coeffs.items():
        total += c * stats.get(key, 0) * (max(1, partitions) if key == "post_path_values" else
                                          max(1, batch) if key == "input_values" else
                                          min(1.0, distinct) if key == "wide_aux" and step == "synthesize" else 1)
    if step == "pce_extract" and upstream_order:
        total += UPSTREAM_ORDER_NNZ_BYTES * stats["nnz"]
    if step == "synthesize" and upstream_order and "post_path_values" in stats:
        total += UPSTREAM_ORDER_SYNTH_AUX_BYTES * stats.get("aux", 0) + (32 * stats.get("wide_aux", 0) if wide_values else 0)
    if step == "prove" and batch > 1 and not on_gpu:   # cuda holds one partition's witness at a time
        total += (batch - 1) * 64 * stats.get("aux", 0)
    if step == "prove" and on_gpu and gpu_mem_limit is not None and "domain" in stats:
        jobs = max(partitions, batch * int(stats.get("partitions", 1)))
        try:   # densities unknown here: A's and B's host copies counted whole (an upper bound)
            p = plan_prove(stats, None, None, jobs, gpu_mem_limit, host_limit=host_limit)
        except GPUMemoryError:   # no schedule fits: the step refuses before any work
            p = None
        if p is not None:
            # the step plans with the key's densities: its smaller partitions may fill the host
            # room one partition further than these
            total += p.host_bytes + (host_scalar_bytes(stats, h_shared=p.h_shared) if p.scalars_on_host and p.in_flight < jobs else 0)
    if step == "setup" and on_gpu and gpu_mem_limit is not None and "domain" in stats:
        try:
            total += setup_host_bytes(stats, plan_setup(stats, gpu_mem_limit))
        except GPUMemoryError:
            pass
    return int(total)
