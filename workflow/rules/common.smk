# Helpers shared by the rules: sectors, shapes, batches, and memory declarations from
# cuzk's memory model (mem_gb for --resources, mem_mb for cluster executors, one prediction).
import os

from snakemake.exceptions import WorkflowError
from snakemake.logging import logger

from cuzk.circuits.registry import shape_by_name
from cuzk.field import FR
from cuzk.memory.model import declared_gb, predict_step_bytes, prove_bench_bytes

RESULTS = config["results"]
THREADS = config["threads"]
# device-memory cap (GiB) of the cuda backend in setup and prove; None: no limit
GPU_MEM_LIMIT_GB = config.get("gpu_mem_limit_gb")
CIRCUIT = config.get("circuit", "porep")
SIZES = ("2KiB", "8MiB", "512MiB", "32GiB", "64GiB")
# PoRep shape of a configured sector size, per circuit (test-only sizes: test-only shapes)
SIZE_SHAPES = {
    "porep": {s: f"porep-{s}" for s in SIZES}
    | {"test-only-256B": "test-only-porep-256B"},
    "porep-commd": {s: f"porep-commd-{s}" for s in SIZES}
    | {
        "test-only-128B": "test-only-commd-128B",
        "test-only-256B": "test-only-commd-256B",
    },
}[CIRCUIT]
# PoSt shape of (kind, sector size): Filecoin's counts, or small test-only ones
POST_SHAPES = {
    (kind, s): f"{kind}-post-{s}" for kind in ("winning", "window") for s in SIZES
} | {
    ("winning", "test-only-256B"): "test-only-winning-post-256B-3",
    ("window", "test-only-256B"): "test-only-window-post-256B-2x2",
}
POST_KINDS = [k for k in ("winning", "window") if config.get("post", {}).get(k, False)]


def _sectors():
    out = {}
    for s in config["sectors"]:
        sid = str(s["id"])
        if sid in out:
            raise WorkflowError(f"config.yaml: sector id {sid} appears twice")
        if s["sector_size"].startswith("test-only") and not config.get(
            "allow_test_shapes", False
        ):
            raise WorkflowError(
                f"config.yaml: sector {sid}: {s['sector_size']} is a test-only shape, not a Filecoin sector size"
            )
        if s["sector_size"] not in SIZE_SHAPES:
            raise WorkflowError(
                f"config.yaml: sector {sid}: circuit {CIRCUIT} has no shape for {s['sector_size']} sectors"
            )
        out[sid] = dict(s, shape=SIZE_SHAPES[s["sector_size"]])
    return out


SECTORS = _sectors()


def _posts():
    """PoSt targets: {"<kind>-<size>": {"kind", "size", "shape", "sids"}} over all sectors of a size."""
    out = {}
    for kind in POST_KINDS:
        for size in sorted({s["sector_size"] for s in SECTORS.values()}):
            if (kind, size) not in POST_SHAPES:
                raise WorkflowError(
                    f"config.yaml: no {kind} PoSt shape for {size} sectors"
                )
            sids = [sid for sid, s in SECTORS.items() if s["sector_size"] == size]
            out[f"{kind}-{size}"] = {
                "kind": kind,
                "size": size,
                "shape": POST_SHAPES[(kind, size)],
                "sids": sids,
            }
    return out


POSTS = _posts()
if POSTS and int.from_bytes(bytes.fromhex(config["prover_id"]), "little") >= FR.modulus:
    raise WorkflowError(
        "config.yaml: prover_id (32 bytes, little-endian) is not a canonical Fr element; PoSt hashes it as one"
    )
SHAPES = sorted(
    {s["shape"] for s in SECTORS.values()} | {p["shape"] for p in POSTS.values()}
)
POREP_SHAPES = sorted({s["shape"] for s in SECTORS.values()})


def _batches():
    """Sectors grouped by shape, in config order, chunks of max_batch_size: {batch id: [sids]}."""
    out = {}
    for shape in POREP_SHAPES:
        sids = [sid for sid, s in SECTORS.items() if s["shape"] == shape]
        for i in range(0, len(sids), config["max_batch_size"]):
            out[f"{shape}-b{i // config['max_batch_size']}"] = sids[
                i : i + config["max_batch_size"]
            ]
    return out


BATCHES = _batches()
BATCH_OF = {sid: b for b, sids in BATCHES.items() for sid in sids}


def batch_shape(batch):
    return SECTORS[BATCHES[batch][0]]["shape"]


def sector_data(wc):
    """The data file as an input when it exists; a missing one fails this sector's own job
    (with the file named) instead of the whole DAG, so --keep-going proves the others.
    """
    path = SECTORS[wc.sid].get("data")
    return [path] if path and os.path.exists(path) else []


def _global_resource(name):
    """--resources name=X as a number, or None when not given."""
    r = workflow.global_resources.get(name)
    v = getattr(r, "value", r)
    return v if isinstance(v, (int, float)) else None


def _budget_gb():
    return _global_resource("mem_gb")


def mem_gb(rule, step, shape=None, threads=1, batch=1):
    """Resource callable: mem_gb from the memory model, doubled per retry (attempt).

    Fails the DAG build when the prediction exceeds --resources mem_gb (Snakemake would
    silently lower the request and run the job anyway).
    """

    def f(wildcards, attempt):
        sh = shape(wildcards) if callable(shape) else shape
        b = batch(wildcards) if callable(batch) else batch
        gb = _declared(step, sh, threads, b)
        budget = _budget_gb()
        if budget is not None and attempt > 1:
            # a retry asks for more, up to the budget: it never stops the whole run
            return min(gb * attempt, max(gb, budget))
        _refuse_over_budget(rule, gb, budget)
        return gb * attempt

    return f


def _declared(step, shape, threads, batch):
    """Whole GB a job of ``step`` declares: the memory model's prediction with headroom (setup
    and prove on the GPU when the backend resolves to cuda)."""
    stats = shape_by_name(shape).stats() if shape else None
    kind = "cuda" if JOB_GPUS else "cpu"
    return declared_gb(
        predict_step_bytes(step, stats, threads=threads, batch=batch, backend=kind)
    )


def _refuse_over_budget(rule, gb, budget):
    if budget is not None and gb > budget:
        raise WorkflowError(
            f"Rule {rule}: the memory model predicts {gb} GB (mem_gb) but --resources mem_gb={budget}; "
            f"give more memory or lower threads/max_batch_size"
        )


def checks_before_run(wildcards):
    """Input function of the all rule, evaluated at DAG build before any job: the memory budget of every
    job still to run, and batch directories missing a proof. Adds no input."""
    check_budgets()
    incomplete_batches()
    gpu_limit_unset()
    return []


def gpu_limit_unset():
    """Whether GPU jobs run without --resources gpu=N (warned about at DAG build): Snakemake then
    starts them all at once, and each waits for a free device (cuzk.backend.gpus)."""
    if JOB_GPUS and _global_resource("gpu") is None:
        logger.warning(
            "cuzk: setup and prove run on the GPU (gpu=1 each) but --resources gpu=N is not set: "
            "they may all start at once and wait for a free GPU; pass --resources gpu=<number of GPUs>"
        )
        return True
    return False


def incomplete_batches():
    """Batch proof directories that lack some sector's proof file (removed by hand): the
    directory is the rule's output, so Snakemake sees nothing to redo. Warned about, with the
    remedy, while the DAG is built."""
    for b, sids in BATCHES.items():
        d = f"{RESULTS}/proofs/{b}"
        missing = [
            sid
            for sid in sids
            if os.path.isdir(d) and not os.path.exists(f"{d}/{sid}.proof")
        ]
        if missing:
            logger.warning(
                f"cuzk: {d} lacks the proofs of sector(s) {', '.join(map(str, missing))}: delete the "
                f"directory to prove the batch again"
            )


def check_budgets():
    """The check of ``mem_gb`` for every job this config still needs, before any job runs
    (Snakemake evaluates resources only when a job is scheduled, so a setup over the budget
    would otherwise stop the run after the sectors are prepared). Jobs whose output exists are
    left out: they will not run."""
    budget = _budget_gb()
    if budget is None:
        return
    jobs = []  # (rule, step, shape, threads, batch, output)
    for sid, s in SECTORS.items():
        jobs += [
            ("prepare", "prepare", s["shape"], 1, 1, f"{RESULTS}/c1/{sid}.c1.json"),
            ("synthesize", "synthesize", s["shape"], 1, 1, f"{RESULTS}/witness/{sid}"),
        ]
    for sh in SHAPES:
        jobs += [
            ("pce_extract", "pce_extract", sh, 1, 1, f"{RESULTS}/pce/{sh}.pce"),
            ("setup", "setup", sh, THREADS, 1, f"{RESULTS}/params/{sh}.params"),
        ]
    for b, sids in BATCHES.items():
        jobs.append(
            (
                "prove",
                "prove",
                batch_shape(b),
                THREADS,
                len(sids),
                f"{RESULTS}/proofs/{b}",
            )
        )
    for p in POSTS.values():
        jobs.append(
            (
                f"prove_{p['kind']}_post",
                "prove",
                p["shape"],
                THREADS,
                1,
                f"{RESULTS}/proofs/{p['kind']}-post-{p['size']}",
            )
        )
    for rule, step, shape, threads, batch, out in jobs:
        if not os.path.exists(out):
            _refuse_over_budget(rule, _declared(step, shape, threads, batch), budget)


def _job_gpus():
    """GPUs a setup or prove job takes: 1 when the backend resolves to cuda, 0 on the CPU. Pass
    --resources gpu=N (N: the GPUs to use) to run at most N such jobs at once; each job then
    claims a free GPU of its own (cuzk.backend.gpus)."""
    from cuzk.backend import backend_kind

    return int(backend_kind(config["backend"]) == "cuda")


JOB_GPUS = _job_gpus()


def mem_mb(gb_fn):
    """mem_mb (what SLURM reads) from the same prediction as mem_gb."""
    return lambda wildcards, attempt: 1024 * gb_fn(wildcards, attempt)


def bench_prove_gb(wildcards, threads):
    """mem_gb of bench_prove: the model's prediction with headroom, whole GiB."""
    return declared_gb(prove_bench_bytes(int(wildcards.n), threads))


def bench_paths(rule, pattern):
    """(benchmark TSV, memory JSON, log) paths of a rule's job."""
    return (
        f"{RESULTS}/benchmarks/{rule}/{pattern}.tsv",
        f"{RESULTS}/benchmarks/{rule}/{pattern}.mem.json",
        f"{RESULTS}/logs/{rule}/{pattern}.log",
    )
