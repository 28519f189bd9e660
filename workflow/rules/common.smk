# Glue between the configuration and the cuzk library: sectors, shapes, batches, named paths and
# input functions, and memory declarations. The facts live in the library: sector sizes and the
# shape of each (cuzk.circuits.registry), output file names (cuzk.paths), declarations, retries
# and the budget refusal (cuzk.memory.budget) from the predictions of cuzk.memory.model.
import os
import re

from snakemake.exceptions import WorkflowError
from snakemake.logging import logger

from cuzk.backend import gpu_mem_limit_bytes
from cuzk.circuits import registry
from cuzk.circuits.registry import shape_by_name
from cuzk.field import FR
from cuzk.groth16 import official
from cuzk.groth16.setup import DEV_SETUP_WARNING
from cuzk.memory import budget
from cuzk.memory.model import predict_step_bytes, prove_bench_bytes
from cuzk.paths import Results, post_label, post_target
from cuzk.damaged import DamagedFilesError, aside_path, damaged_files, set_aside
from cuzk.pipeline import UPSTREAM_ORDER_FAMILIES, stale_pce
from cuzk.r1cs.native_path import synthesis_on_gpu, synthesis_threads
from cuzk.r1cs import poseidon_path, sha_path
from cuzk.r1cs.parallel import useful_workers
from cuzk.sector import filecoin_c1
from cuzk.sector.post import partition_count
from cuzk.sector.jsondoc import rejection, stale_rejection
from cuzk.sector.prepare import SectorInputError, check_payload_size

RESULTS = config["results"]
R = Results(RESULTS)
THREADS = config["threads"]
# device-memory cap (GiB) of the cuda backend in setup and prove; None: no limit
GPU_MEM_LIMIT_GB = config.get("gpu_mem_limit_gb")
UPSTREAM_ORDER = bool(config.get("upstream_order", False))
# who computes the SHA-256 compressions' witness bits in synthesis (cuzk.r1cs.sha_path)
SYNTHESIS_SHA = config.get("synthesis_sha", "auto")
# who computes the Poseidon hashes' witness values in synthesis (cuzk.r1cs.poseidon_path)
SYNTHESIS_POSEIDON = config.get("synthesis_poseidon", "auto")
# what the witness files keep of those hashes: their values, or their inputs (the prover computes the values)
WITNESS_POSEIDON = config.get("witness_poseidon", poseidon_path.WITNESS_POSEIDON[0])
# GPUs a synthesize job takes: 1 where a witness path is gpu (it claims a free GPU, as prove does)
SYNTHESIS_GPUS = int(synthesis_on_gpu(SYNTHESIS_SHA, SYNTHESIS_POSEIDON))
# Filecoin's parameter files (None: $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters)
PARAMS_DIR = config.get("params_dir")
CIRCUIT = config.get("circuit", "porep")
POST_KINDS = [k for k in registry.POST_KINDS if config.get("post", {}).get(k, False)]


def _sectors():
    out = {}
    for s in config["sectors"]:
        # ids given twice and test-only shapes: refused with every other problem (cuzk.configcheck)
        sid, size = str(s["id"]), s["sector_size"]
        circuit = "update" if "update" in s else CIRCUIT
        shape = (
            registry.update_shape(size)
            if "update" in s
            else registry.sector_shape(CIRCUIT, size)
        )
        if shape is None:
            raise WorkflowError(
                f"{CONFIG_NAME}: sector {sid}: circuit {circuit} has no shape for {size} sectors"
            )
        out[sid] = dict(s, shape=shape)
    return out


SECTORS = _sectors()
# sectors sealed here from data (they have the sealed data PoSt and SnapDeals read), synthetic
# ones (PoRep: a sparse synthetic C1; PoSt: sparse synthetic tree_r_last openings), SnapDeals
# updates, and those whose C1 comes from elsewhere (config c1: path)
SEALED_SIDS = [sid for sid, s in SECTORS.items() if "data" in s or "generate" in s]
SYNTHETIC_SIDS = [sid for sid, s in SECTORS.items() if s.get("synthetic")]
# the sectors proved with PoRep (config porep: false proves only the PoSt targets)
POREP_SECTORS = SECTORS if config.get("porep", True) else {}
UPDATE_SIDS = [sid for sid, s in SECTORS.items() if "update" in s]


def _check_updates():
    """Each update names a sector sealed here of its own size (or is synthetic)."""
    for sid in UPDATE_SIDS:
        s = SECTORS[sid]
        if s["update"].get("synthetic"):
            continue
        cc = str(s["update"]["cc"])
        if cc not in SEALED_SIDS or SECTORS[cc]["sector_size"] != s["sector_size"]:
            raise WorkflowError(
                f"{CONFIG_NAME}: sector {sid}: update.cc {cc} is not a {s['sector_size']} sector sealed "
                f"here (one with data or generate)"
            )


_check_updates()


def sid_pattern(sids):
    """A wildcard constraint matching exactly these sector ids (none: matches nothing)."""
    return "|".join(sids) if sids else "(?!)"


def _posts():
    """PoSt targets: {"<kind>-<size>": {"kind", "size", "shape", "sealed", "synthetic"}} over the
    sectors of a size sealed here and the synthetic ones (sector ids, config order)."""
    out = {}
    for kind in POST_KINDS:
        for size in sorted({SECTORS[sid]["sector_size"] for sid in SECTORS}):
            shape = registry.post_shape(kind, size)
            if shape is None:
                raise WorkflowError(
                    f"{CONFIG_NAME}: no {kind} PoSt shape for {size} sectors"
                )
            of_size = [sid for sid in SECTORS if SECTORS[sid]["sector_size"] == size]
            sealed = [sid for sid in of_size if sid in SEALED_SIDS]
            synthetic = [sid for sid in of_size if sid in SYNTHETIC_SIDS]
            if not sealed and not synthetic:
                logger.warning(
                    f"cuzk: no {kind} PoSt over {size} sectors: none is sealed here or synthetic "
                    f"(C1 files made elsewhere have no sealed data)"
                )
                continue
            out[f"{kind}-{size}"] = {
                "kind": kind,
                "size": size,
                "shape": shape,
                "sealed": sealed,
                "synthetic": synthetic,
            }
    return out


POSTS = _posts()
if POSTS and int.from_bytes(bytes.fromhex(config["prover_id"]), "little") >= FR.modulus:
    raise WorkflowError(
        f"{CONFIG_NAME}: prover_id (32 bytes, little-endian) is not a canonical Fr element; PoSt hashes it as one"
    )
POREP_SHAPES = sorted({s["shape"] for s in POREP_SECTORS.values()})
SHAPES = sorted(set(POREP_SHAPES) | {p["shape"] for p in POSTS.values()})


def _batches():
    """Sectors grouped by shape, in config order, chunks of max_batch_size: {batch id: [sids]}."""
    out = {}
    size = config["max_batch_size"]
    for shape in POREP_SHAPES:
        sids = [sid for sid, s in POREP_SECTORS.items() if s["shape"] == shape]
        for i in range(0, len(sids), size):
            out[f"{shape}-b{i // size}"] = sids[i : i + size]
    return out


BATCHES = _batches()
BATCH_OF = {sid: b for b, sids in BATCHES.items() for sid in sids}
# the PoSt targets' job names ("<kind>-post-<size>": witness, proofs and verification)
POST_JOBS = [post_target(p["kind"], p["size"]) for p in POSTS.values()]


def batch_shape(batch):
    return SECTORS[BATCHES[batch][0]]["shape"]


# --- input functions (wc: the job's wildcards) -------------------------------------------------


def missing_input(sid, what, path):
    """Stop the run while the DAG is built (a dry run included) in one typed line naming the
    sector, what the configured file is (``data``, ``C1``, ``update data``) and its path.
    """
    stop_before_run(
        SectorInputError(
            f"{CONFIG_NAME}: sector {sid}: {what} file {path} does not exist"
        )
    )


def sector_data(wc):
    """The data file, an input of the sector's prepare job. A missing one, or one larger than
    the sector's payload, stops the run while the DAG is built (a dry run included), naming the
    sector and the path, unless the sector's C1 exists (prepare will not run)."""
    path = SECTORS[wc.sid].get("data")
    if not path:
        return []
    if not os.path.exists(path):
        if os.path.exists(R.c1(wc.sid)):
            return []
        missing_input(wc.sid, "data", path)
    # too large: stopped now, not when its prepare job runs
    if not os.path.exists(R.c1(wc.sid)):
        try:
            check_payload_size(path, shape_by_name(sector_shape(wc)).sector_size)
        except SectorInputError as e:
            stop_before_run(
                SectorInputError(f"{CONFIG_NAME}: sector {wc.sid}: data {e}")
            )
    return [path]


def sector(wc):
    """The configured sector of a job (with its shape)."""
    return SECTORS[wc.sid]


def sector_shape(wc):
    return SECTORS[wc.sid]["shape"]


def _filecoin_form(path):
    """Whether a configured C1 is in Filecoin's form (read from its first bytes; a missing file
    is left to Snakemake's missing-input error)."""
    return os.path.isfile(path) and filecoin_c1.sniff(path) != filecoin_c1.CUZK


IMPORTED_SIDS = [
    sid for sid, s in SECTORS.items() if "c1" in s and _filecoin_form(s["c1"])
]


def sector_c1(sid):
    """A sector's input file: the configured C1 (c1: path; in Filecoin's form, its conversion by
    import_c1), the one prepare writes, or a SnapDeals sector's (update_vanilla)."""
    if sid in IMPORTED_SIDS:
        return R.imported_c1(sid)
    if sid in UPDATE_SIDS:
        return R.update(sid)
    return SECTORS[sid].get("c1") or R.c1(sid)


def sector_c1_wc(wc):
    """The check_c1 job's input (``sector_c1``). A configured c1: path that does not exist stops
    the run while the DAG is built (a dry run included) in one line, as a missing data: file.
    """
    path = sector_c1(wc.sid)
    if path == SECTORS[wc.sid].get("c1") and not os.path.exists(path):
        missing_input(wc.sid, "C1", path)
    return path


def sector_partitions(sid):
    """Partitions of a sector's shape (one synthesis job and one witness file each)."""
    return shape_by_name(SECTORS[sid]["shape"]).partitions


def sector_witnesses(sid):
    """A sector's per-partition witness files."""
    return [R.partition(sid, k) for k in range(sector_partitions(sid))]


BATCH_INDEX = {sid: i for i, b in enumerate(BATCHES) for sid in BATCHES[b]}


def synthesize_priority(wc):
    """Earlier batches' partitions first, so the first batch can prove on the GPU while the next
    one's are synthesized; scaled so that all synthesis jobs together stay below 1 (Snakemake
    sums priorities: see KEY_PRIORITY)."""
    return (1 - BATCH_INDEX[wc.sid] / max(1, len(BATCHES))) / (N_PARTITION_JOBS + 1)


# WinningPoSt first (a deadline of one epoch on chain), then WindowPoSt, then PoRep. Snakemake's
# scheduler maximises the SUM of the chosen jobs' priorities, so a PoRep shape's PCE, key and
# prove jobs (KEY_PRIORITY) must outweigh all synthesis jobs together (below 1: see
# synthesize_priority), or twelve syntheses beat one key (stop 12: setup waited 142 s).
POST_PRIORITY = {"winning": 100, "window": 50}
KEY_PRIORITY = 2
C1_PRIORITY = KEY_PRIORITY + 1
"""import_c1 and check_c1 (cheap, one thread) before any PCE or key job: a damaged C1 is found
before the expensive setup starts, not after it (a new user's truncated C1 waited behind 7 min
of setup on the 2-core machine, 2026-12-04). The PoRep PCE and key jobs are planned only after
the checks of a batch they serve (the check_c1 checkpoint: ``admitted``): none is made for a
shape whose every C1 is rejected."""


def shape_priority(wc):
    """Priority of a shape's PCE and key jobs: the highest PoSt priority among the targets that
    use the shape, else KEY_PRIORITY (every PoRep proof waits on these two jobs)."""
    prios = [POST_PRIORITY[p["kind"]] for p in POSTS.values() if p["shape"] == wc.shape]
    return max(prios, default=KEY_PRIORITY)


def prepare_priority(wc):
    """A sealed sector's priority: that of the highest PoSt target reading it, else 0."""
    prios = [POST_PRIORITY[p["kind"]] for p in POSTS.values() if wc.sid in p["sealed"]]
    return max(prios, default=0)


def partition_jobs():
    """Every (sector id, partition) synthesis job."""
    return [(sid, k) for sid in POREP_SECTORS for k in range(sector_partitions(sid))]


N_PARTITION_JOBS = len(partition_jobs())


def sector_pce(wc):
    return R.pce(sector_shape(wc))


def sector_vk(wc):
    return R.vk(sector_shape(wc))


def sector_proofs(wc):
    """The proofs folder of the sector's batch."""
    return R.proofs(BATCH_OF[wc.sid])


def sector_proof(wc):
    """The sector's proof file in its batch's folder."""
    return R.proof(BATCH_OF[wc.sid], wc.sid)


def wc_shape(wc):
    return wc.shape


def batch_shape_wc(wc):
    return batch_shape(wc.batch)


def batch_size(wc):
    """Sectors a batch proves (``batch_sids``: those whose C1 check admitted them), for the prove
    job's memory declaration (a GPU prove under gpu_mem_limit_gb declares host memory per
    partition in flight: at 64 GiB and no host limit, a 32 GiB batch of 8 declares 781 GB, of 7
    684). The prove job exists only once its sectors' checks have run (its inputs are the admitted
    sectors'), and Snakemake evaluates resources when it schedules a job."""
    return len(batch_sids(wc))


_STALE = {}
"""Per sector whose check record was looked at (``recorded_rejection``): whether it is a stale
rejection a dry run keeps (a real run removes it: its check then writes a new record)."""


def recorded_rejection(sid):
    """Why sector ``sid``'s existing check record rejects its C1 (cuzk.sector.jsondoc.reject), or
    None: no record, an admitting one, or a stale rejection (jsondoc.stale_rejection: the refused
    file changed since, also when its modification time is older). Once per process a real run
    removes a stale rejection (with an imported C1's stale one, so import_c1 runs again), logged,
    so that the sector's check runs again; a dry run plans the sector as admitted. While the
    Snakefile is parsed (no executor yet: a dry run is not known) the record is read as it is.
    """
    if workflow.executor_plugin is not None and sid not in _STALE:
        stale = stale_rejection(R.checked(sid))
        _STALE[sid] = bool(stale) and workflow.dryrun
        for path in [] if workflow.dryrun else stale:
            os.remove(path)
            logger.warning(
                f"cuzk: {path}: a rejection of a file that changed since: removed, checked again"
            )
    return None if _STALE.get(sid) else rejection(R.checked(sid))


def check_pending(sid):
    """Whether sector ``sid``'s check is still to run: no record, or a stale rejection
    (``recorded_rejection``, which it reads first)."""
    recorded_rejection(sid)
    return _STALE.get(sid, False) or not os.path.exists(R.checked(sid))


def rejected_reason(sid):
    """Why sector ``sid``'s C1 check rejected it (``recorded_rejection``), or None. A real run
    asks the check_c1 checkpoint first (after a stale rejection is removed): an input function
    calling this before the sector's check has run is evaluated again after it. A dry run reads an
    existing record only (a sector not checked yet counts as admitted: the plan shows every sector
    proved).
    """
    recorded_rejection(sid)
    if not workflow.dryrun:
        checkpoints.check_c1.get(sid=sid)
    return recorded_rejection(sid)


def admitted(sids):
    """The sectors of ``sids`` (in order) whose C1 passed its check (``rejected_reason``)."""
    return [sid for sid in sids if rejected_reason(sid) is None]


def batch_sids(wc):
    """The sectors a batch proves: those of its sectors whose C1 passed its check."""
    return admitted(BATCHES[wc.batch])


def admitted_batches(wildcards):
    """The all rule's batch proofs folders: each batch with a sector left to prove (a batch whose
    every C1 was rejected has no prove job)."""
    return [R.proofs(b) for b, sids in BATCHES.items() if admitted(sids)]


def verify_inputs(wc):
    """The verify rule's inputs of a sector: its C1 and check record, and its shape's verifying
    key and its batch's proofs folder; where the check rejected the C1 (the job then raises the
    check's error from the record), the report's summary instead: that job fails, and a run
    without ``--keep-going`` stops at its first failed job, so it runs after all the others.
    """
    base = {"vanilla": sector_c1_wc(wc), "checked": R.checked(wc.sid)}
    if rejected_reason(wc.sid) is not None:
        return base | {"after": REPORT_SUMMARY}
    return base | {"vk": sector_vk(wc), "proofs": sector_proofs(wc)}


def batch_inputs(wc):
    """The prove rule's inputs of a batch: its shape's PCE and parameters, and each admitted
    sector's C1 file, check record and witness files."""
    shape, sids = batch_shape(wc.batch), batch_sids(wc)
    return {
        "pce": R.pce(shape),
        "params": R.params(shape),
        "vanilla": [sector_c1(sid) for sid in sids],
        "checked": [R.checked(sid) for sid in sids],
        "wit": [w for sid in sids for w in sector_witnesses(sid)],
    }


def batch_witness_dirs(wc):
    """The witness folder of each sector a batch proves (its partitions' files are the inputs)."""
    return [R.witness(sid) for sid in batch_sids(wc)]


def update_sealed(wc):
    """The sealed file of the CC sector an update encodes its data into (none: synthetic)."""
    u = SECTORS[wc.sid]["update"]
    return [] if u.get("synthetic") else [R.sealed(u["cc"])]


def update_step(sid):
    """The memory model step of sector ``sid``'s update_vanilla job: a synthetic file is sparse
    (no sector in memory), a real update holds the sector's trees as sealing does."""
    return "prepare_synthetic" if SECTORS[sid]["update"].get("synthetic") else "prepare"


def update_step_wc(wc):
    return update_step(wc.sid)


def update_data(wc):
    """The deal data file of an update (a missing one stops the run as sector_data does)."""
    path = SECTORS[wc.sid]["update"].get("data")
    if path is None:
        return []
    if not os.path.exists(path) and not os.path.exists(R.update(wc.sid)):
        missing_input(wc.sid, "update data", path)
    return [path]


def post_shape(wc):
    return POSTS[f"{wc.kind}-{wc.size}"]["shape"]


def post_check_threads(wc):
    """Cores of a PoSt target's check (its paths' hashes) and synthesis: THREADS when its Merkle
    levels split over workers (cuzk.r1cs.parallel), else 1."""
    return useful_workers(shape_by_name(post_shape(wc)).challenges, THREADS)


def post_synthesis_threads(wc):
    """Cores of a PoSt target's synthesis: post_check_threads, but 1 when the GPU computes the
    Poseidon values (no workers)."""
    return synthesis_threads(SYNTHESIS_POSEIDON, post_check_threads(wc))


def post_sealed(wc):
    """The sealed-sector files a PoSt target reads."""
    return [R.sealed(sid) for sid in POSTS[f"{wc.kind}-{wc.size}"]["sealed"]]


def post_synthetic_ids(wc):
    """The synthetic sectors (ids) a PoSt target proves beside its sealed ones."""
    return [int(sid) for sid in POSTS[f"{wc.kind}-{wc.size}"]["synthetic"]]


def _post_sectors(p):
    """Distinct sectors of a PoSt target: those sealed here and the synthetic ones."""
    return len(p["sealed"]) + len(p["synthetic"])


def _post_partitions(p):
    """Partitions of a PoSt target's proof (cuzk.sector.post.partition_count; WinningPoSt: 1)."""
    return partition_count(shape_by_name(p["shape"]).params(), _post_sectors(p))


def post_partitions(wc):
    return _post_partitions(POSTS[f"{wc.kind}-{wc.size}"])


def post_sectors(wc):
    return _post_sectors(POSTS[f"{wc.kind}-{wc.size}"])


def post_vanilla_step(wc):
    """The memory model's step of a post_vanilla job: over sealed sectors their trees are read
    whole ("prepare", as sealing holds them); over synthetic ones only the sparse trees are
    built ("post_vanilla")."""
    return "prepare" if POSTS[f"{wc.kind}-{wc.size}"]["sealed"] else "post_vanilla"


def post_pce(wc):
    return R.pce(post_shape(wc))


def post_vk(wc):
    return R.vk(post_shape(wc))


def post_inputs(wc):
    """The prove rule's inputs of a PoSt target: the shape's PCE and parameters, the vanilla
    proofs with their check record and the witness folder."""
    shape = post_shape(wc)
    return {
        "pce": R.pce(shape),
        "params": R.params(shape),
        "vanilla": [R.post_vanilla(wc.kind, wc.size)],
        "checked": [R.post_checked(wc.kind, wc.size)],
        "wit": [R.witness(post_target(wc.kind, wc.size))],
    }


def post_proof(wc):
    """The PoSt target's proof file in its proofs folder."""
    return R.proof(post_target(wc.kind, wc.size), post_label(wc.kind))


# --- rule names and memory records --------------------------------------------------------------


def post_rules(kind):
    """The PoSt rules of ``kind``, by step: {"post_vanilla", "check", "synthesize", "prove",
    "verify"}."""
    return {"post_vanilla": f"post_vanilla_{kind}"} | {
        step: f"{step}_{kind}_post"
        for step in ("check", "synthesize", "prove", "verify")
    }


def partition_job(sid, k):
    """The job name of a partition's synthesis (its memory record and log): ``<sid>-p<k>``."""
    return f"{sid}-p{k}"


def report_records(checked=False):
    """The memory record of every job the report covers (PoRep steps, then PoSt targets).
    ``checked``: only the synthesize, prove, verify, PCE and key jobs that serve sectors whose
    C1 passed its check (``admitted``) or PoSt targets (the report rule's input), so that none
    is asked for a rejected sector (whose verify job fails). Without it (the reverify target's
    parameter, read when the workflow is parsed) the sectors an existing record rejects are left
    out all the same.
    """
    sids = (
        admitted(POREP_SECTORS)
        if checked
        else [sid for sid in POREP_SECTORS if recorded_rejection(sid) is None]
    )
    used = {SECTORS[sid]["shape"] for sid in sids} | {
        p["shape"] for p in POSTS.values()
    }
    shapes = [sh for sh in SHAPES if sh in used]
    porep = [
        (
            "prepare",
            "{sid}",
            {
                "sid": [
                    sid
                    for sid in SEALED_SIDS
                    if sid in POREP_SECTORS
                    or any(sid in p["sealed"] for p in POSTS.values())
                ]
            },
        ),
        (
            "prepare_synthetic",
            "{sid}",
            {"sid": [sid for sid in SYNTHETIC_SIDS if sid in POREP_SECTORS]},
        ),
        (
            "update_vanilla",
            "{sid}",
            {"sid": [sid for sid in UPDATE_SIDS if sid in POREP_SECTORS]},
        ),
        (
            "import_c1",
            "{sid}",
            {"sid": [sid for sid in IMPORTED_SIDS if sid in POREP_SECTORS]},
        ),
        ("check_c1", "{sid}", {"sid": POREP_SECTORS}),
        ("pce_extract", "{shape}", {"shape": shapes}),
        (
            "setup",
            "{shape}",
            {"shape": [s for s in shapes if s not in OFFICIAL_SHAPES]},
        ),
        (
            "official_params",
            "{shape}",
            {"shape": [s for s in OFFICIAL_SHAPES if s in shapes]},
        ),
        (
            "prove",
            "{batch}",
            {"batch": [b for b in BATCHES if set(BATCHES[b]) & set(sids)]},
        ),
        ("verify", "{sid}", {"sid": sids}),
    ]
    out = [r for rule, job, wc in porep for r in expand(R.record(rule, job), **wc)]
    out += [
        R.record("synthesize", partition_job(sid, k))
        for sid, k in partition_jobs()
        if sid in sids
    ]
    for p in POSTS.values():
        job = f"{p['kind']}-{p['size']}"
        out += [R.record(rule, job) for rule in post_rules(p["kind"]).values()]
    return out


# the reverify target's table; the report rule removes it (a later prove makes it stale)
REVERIFY_TABLE = R.report("reverify.tsv")
# the report's summary: the last file a run writes (the all rule's; a rejected C1's verify job waits for it)
REPORT_SUMMARY = R.report("summary.md")


def reverify_checks():
    """One dict per proof file for the reverify target (cuzk.pipeline.reverify): PoRep sectors
    (but those whose C1 was rejected: no proof), then PoSt targets."""
    out = [
        dict(
            json=R.verified(sid),
            vk=R.vk(s["shape"]),
            vanilla=sector_c1(sid),
            proof=R.proof(BATCH_OF[sid], sid),
            shape=s["shape"],
            checked=R.checked(sid),
        )
        for sid, s in POREP_SECTORS.items()
        if recorded_rejection(sid) is None
    ]
    for p in POSTS.values():
        job = post_target(p["kind"], p["size"])
        out.append(
            dict(
                json=R.verified(job),
                vk=R.vk(p["shape"]),
                vanilla=R.post_vanilla(p["kind"], p["size"]),
                proof=R.proof(job, post_label(p["kind"])),
                shape=p["shape"],
                checked=R.post_checked(p["kind"], p["size"]),
            )
        )
    return out


# --- memory declarations (cuzk.memory.budget) ----------------------------------------------------


def _global_resource(name):
    """--resources name=X as a number, or None when not given."""
    r = workflow.global_resources.get(name)
    v = getattr(r, "value", r)
    return v if isinstance(v, (int, float)) else None


def _budget_gb():
    return _global_resource("mem_gb")


def _refusal(fn, *args):
    """``fn(*args)`` with the library's budget refusal raised as Snakemake's WorkflowError."""
    try:
        return fn(*args)
    except budget.MemoryBudgetError as e:
        raise WorkflowError(str(e)) from None


def upstream_order_of(shape):
    """Is ``shape``'s PCE built in rust-fil-proofs' order (``upstream_order: true`` in the config,
    for the circuits that support it; the others keep cuzk's block order)?"""
    return (
        UPSTREAM_ORDER
        and registry.family_of(shape_by_name(shape)).name in UPSTREAM_ORDER_FAMILIES
    )


def _official_shapes():
    """The shapes of this config (PoRep, PoSt, SnapDeals: the families built in upstream order)
    whose official key is present (``official.official_file``: by family, sector size and IC
    length) and usable (their PCE in upstream order): ``official_params`` links the key in place
    of ``setup``. A key present for a shape in block order is named in a warning, and
    development keys are made; so are they when its files cannot be told apart (no or several
    of its IC length, a file too short), which stops a run only in upstream order."""
    out = []
    for sh in SHAPES:
        if registry.family_of(shape_by_name(sh)).name not in UPSTREAM_ORDER_FAMILIES:
            continue
        try:
            path = official.official_file(shape_by_name(sh), PARAMS_DIR)
        except official.OfficialParamsError as e:
            if upstream_order_of(sh):
                raise WorkflowError(str(e)) from None
            logger.warning(f"{e} (upstream_order is false: development keys are made)")
            continue
        if path is None:
            continue
        if upstream_order_of(sh):
            out.append(sh)
        else:
            logger.warning(
                f"{path}: Filecoin's key for {sh} is present, but upstream_order is false: development "
                "keys are made (set upstream_order: true to prove with it)"
            )
    return out


OFFICIAL_SHAPES = _official_shapes()
# the official_params rule's shapes (a pattern that matches nothing when there are none), and
# setup's: every other one
OFFICIAL_SHAPES_RE = "|".join(re.escape(s) for s in OFFICIAL_SHAPES) or "(?!)"
SETUP_SHAPES_RE = rf"(?!(?:{OFFICIAL_SHAPES_RE})(?![\w-]))[\w-]+"


def _declared(step, shape, threads, batch, partitions=1, sectors=None):
    """Whole GB a job of ``step`` declares: the memory model's prediction with headroom (setup
    and prove on the GPU when the backend resolves to cuda, synthesize when a witness path is
    gpu). ``sectors``: a PoSt target's distinct sectors (padded partitions keep less).
    """
    stats = shape_by_name(shape).stats() if shape else None
    on_gpu = SYNTHESIS_GPUS if step == "synthesize" else JOB_GPUS
    kind = "cuda" if on_gpu else "cpu"
    budget_gb = _budget_gb()
    predicted = predict_step_bytes(
        step,
        stats,
        threads=threads,
        batch=batch,
        backend=kind,
        partitions=partitions,
        gpu_mem_limit=gpu_mem_limit_bytes(GPU_MEM_LIMIT_GB),
        host_limit=None if budget_gb is None else int(budget_gb * 2**30) // 2,
        upstream_order=bool(shape) and upstream_order_of(shape),
        distinct=shape_by_name(shape).distinct_share(sectors) if sectors else 1.0,
        wide_values=WITNESS_POSEIDON == "values",
    )
    return budget.declared_gb(predicted)


def job_memory(rule, step, shape=None, threads=1, batch=1, partitions=1, sectors=None):
    """Resources {"mem_gb", "mem_mb"} of a rule, one prediction: the memory model's with headroom,
    raised per retry (attempt), refused when over --resources mem_gb (Snakemake would silently
    lower the request and run the job anyway). ``step``, ``shape``, ``threads``, ``batch``,
    ``partitions`` and ``sectors`` (of a PoSt target): values or input functions.
    """

    def gb(wildcards, attempt):
        args = [
            x(wildcards) if callable(x) else x
            for x in (step, shape, threads, batch, partitions, sectors)
        ]
        declared = _declared(*args)
        return _refusal(budget.attempt_gb, rule, declared, attempt, _budget_gb())

    def mb(wildcards, attempt):
        return budget.mem_mb(gb(wildcards, attempt))

    # None: a mem_mb_per_cpu default would replace mem_mb in SLURM's request (slurm.smk)
    return {"mem_gb": gb, "mem_mb": mb, "mem_mb_per_cpu": None}


def bench_prove_gb(wildcards, threads):
    """mem_gb of bench_prove: the model's prediction with headroom, whole GiB."""
    return budget.declared_gb(prove_bench_bytes(int(wildcards.n), threads))


def bench_prove_mb(wildcards, threads):
    return budget.mem_mb(bench_prove_gb(wildcards, threads))


# --- checks while the DAG is built ---------------------------------------------------------------


def warn_development_keys():
    """The development-parameters warning on the console, once per run in which a setup job
    runs (the DAG's jobs to run, known at onstart; not for reverify or bench_all). A PoRep
    setup waits on its sectors' check_c1 checkpoints, so it is not among those jobs until they
    have run: with a check to run and a key of the config still to make (``_planned_jobs``), the
    run warns too (also when every C1 is then rejected). Setup's own warning goes to its log
    file only."""
    dag = getattr(workflow, "dag", None)  # Snakemake's; warn when it cannot tell
    rules = None if dag is None else {j.rule.name for j in dag.needrun_jobs()}
    checks = rules is not None and rules & {"check_c1", "import_c1"}
    if rules is None or "setup" in rules or (checks and steps_to_run("setup")):
        logger.warning(DEV_SETUP_WARNING)


def cuda_unavailable_before_run():
    """backend: cuda where CuPy cannot run here (not importable, or no device), while a setup or
    prove job is still to run: a local run stops while the DAG is built, before a PCE job runs
    for minutes only for its setup to fail; a dry run warns (it needs no device). Not checked
    under a cluster executor, whose nodes are not this host."""
    if config["backend"] != "cuda" or cluster_executor():
        return
    if not steps_to_run("setup", "prove"):
        return
    from cuzk.backend.base import BackendUnavailableError
    from cuzk.backend.cuda import require_cuda

    try:
        require_cuda()
    except BackendUnavailableError as e:
        if workflow.dryrun:
            logger.warning(f"cuzk: {CONFIG_NAME}: backend: cuda, but on this host {e}")
        else:
            stop_before_run(
                BackendUnavailableError(f"{CONFIG_NAME}: backend: cuda, but {e}")
            )


_CHECKED_BEFORE_RUN = []


def checks_before_run(wildcards):
    """Input function of the all rule, evaluated at DAG build before any job: damaged or missing
    intermediate files (batch directories missing a proof among them), the memory budget of every
    job still to run. Adds no input. Once per run: the all rule is evaluated again after the
    check_c1 checkpoints (``admitted_batches``)."""
    if _CHECKED_BEFORE_RUN:
        return []
    _CHECKED_BEFORE_RUN.append(True)
    damaged_before_run()
    check_budgets()
    cuda_unavailable_before_run()
    gpu_limit_unset()
    return []


def _existing_intermediates():
    """The intermediate files this config reads that exist now: PCE files, keys, check records,
    witnesses and proofs."""
    for sh in SHAPES:
        yield from (R.pce(sh), R.params(sh), R.vk(sh))
    for sid in POREP_SECTORS:
        yield R.checked(sid)
        yield from sector_witnesses(sid)
    for b, sids in BATCHES.items():
        yield from (R.proof(b, sid) for sid in sids)
    for p in POSTS.values():
        yield R.post_checked(p["kind"], p["size"])
    for job in POST_JOBS:
        d = R.witness(job)
        if os.path.isdir(d):
            yield from (os.path.join(d, f) for f in sorted(os.listdir(d)))
        d = R.proofs(job)
        if os.path.isdir(d):
            yield from (os.path.join(d, f) for f in sorted(os.listdir(d)))


def damaged_before_run():
    """Cheap checks of the existing intermediate files (cuzk.damaged.damaged_files) while the DAG
    is built: a damaged one stops the run before any job starts (so no failing job makes
    Snakemake delete good outputs), named, and is moved aside to <name>.damaged so that the next
    run rebuilds it with its rule; a dry run (-n) names them and moves nothing."""
    bad = damaged_files(_existing_intermediates()) + list(missing_batch_proofs())
    # a sound PCE of older code (or of the other order) is rebuilt like a damaged one
    for sh in SHAPES:
        if os.path.isfile(R.pce(sh)) and not any(p == R.pce(sh) for p, _ in bad):
            why = stale_pce(R.pce(sh), sh, upstream_order_of(sh))
            if why:
                bad.append((R.pce(sh), why))
    if not bad:
        return
    proof_dirs = {R.proofs(job) for job in list(BATCHES) + POST_JOBS}
    lines = []
    for path, why in bad:
        # a batch's proofs folder is its rule's output: the whole folder goes, so it is proved again
        aside = os.path.dirname(path) if os.path.dirname(path) in proof_dirs else path
        moved = aside_path(aside)
        # a dry run changes nothing: it says what the real run will do
        if not workflow.dryrun and os.path.exists(aside):
            set_aside(aside)
        done = "the run will move it aside" if workflow.dryrun else "moved aside"
        lines.append(f"  {path}: {why}\n    ({done} to {moved})")
    if workflow.dryrun:
        then = "run without -n: it moves them aside and stops; then again: their rules rebuild them"
    else:
        then = "run the same command again: their rules rebuild them (and what depends on them)"
    stop_before_run(
        DamagedFilesError(
            "damaged intermediate files, found before any job ran:\n"
            + "\n".join(lines)
            + "\n"
            + then
        )
    )


def cluster_executor():
    """Whether the run's executor is a cluster one (the SLURM profile), dry runs included: for
    -n Snakemake runs its local dry-run executor in place of the one asked for, but a non-local
    executor still forces execution_settings.use_threads (snakemake/api.py execute_workflow),
    which a local run only has with --use-threads."""
    if not workflow.local_exec:
        return True
    return bool(workflow.dryrun and workflow.execution_settings.use_threads)


def gpu_limit_unset():
    """Whether GPU jobs run locally without --resources gpu=N (warned about at DAG build):
    Snakemake then starts them all at once, and each waits for a free device
    (cuzk.backend.gpus). A cluster executor (the SLURM profile) asks for a GPU per job instead:
    no warning there, in a dry run either.
    """
    if (
        (JOB_GPUS or SYNTHESIS_GPUS)
        and not cluster_executor()
        and _global_resource("gpu") is None
    ):
        logger.warning(
            "cuzk: setup, prove or synthesize jobs run on the GPU (gpu=1 each) but --resources gpu=N is not set: "
            "they may all start at once and wait for a free GPU; pass --resources gpu=<number of GPUs>"
        )
        return True
    return False


def missing_batch_proofs():
    """(proof file, why) for each sector's proof missing from its batch's existing directory
    (removed by hand): the directory is the prove rule's output, so Snakemake would see nothing
    to redo and the sector's verify record would stand; damaged_before_run moves the directory
    aside like a damaged one, so the batch is proved (and its sectors verified) again.
    """
    for b, sids in BATCHES.items():
        if os.path.isdir(R.proofs(b)):
            for sid in sids:
                # a rejected C1's sector has no proof in its batch's folder; one whose check is
                # still to run proves its batch again through its new inputs
                if (
                    not os.path.exists(R.proof(b, sid))
                    and not check_pending(sid)
                    and recorded_rejection(sid) is None
                ):
                    yield R.proof(b, sid), "missing from its batch's proofs folder"


def steps_to_run(*steps):
    """Whether a job of one of ``steps`` that this config needs (``_planned_jobs``) has its output
    still to make."""
    return any(
        step in steps and not os.path.exists(out)
        for _rule, step, _sh, _t, _b, out, *_n in _planned_jobs()
    )


def _planned_jobs():
    """(rule, step, shape, threads, batch, output[, partitions[, sectors]]) of every job this
    config needs."""
    for sid, s in POREP_SECTORS.items():
        if s.get("synthetic"):
            yield "prepare_synthetic", "prepare_synthetic", s["shape"], 1, 1, R.c1(sid)
        elif sid in UPDATE_SIDS:
            yield "update_vanilla", update_step(sid), s["shape"], 1, 1, R.update(sid)
        elif "c1" not in s:
            yield "prepare", "prepare", s["shape"], 1, 1, R.c1(sid)
        elif sid in IMPORTED_SIDS:
            yield "import_c1", "check_c1", s["shape"], 1, 1, R.imported_c1(sid)
        yield "check_c1", "check_c1", s["shape"], 1, 1, R.checked(sid)
        for k in range(sector_partitions(sid)):
            yield "synthesize", "synthesize", s["shape"], 1, 1, R.partition(sid, k)
    for sh in SHAPES:
        yield "pce_extract", "pce_extract", sh, 1, 1, R.pce(sh)
        if sh in OFFICIAL_SHAPES:
            yield "official_params", "official_params", sh, 1, 1, R.params(sh)
        else:
            yield "setup", "setup", sh, THREADS, 1, R.params(sh)
    for b, sids in BATCHES.items():
        yield "prove", "prove", batch_shape(b), THREADS, len(sids), R.proofs(b)
    for p in POSTS.values():
        job, rules, n = (
            post_target(p["kind"], p["size"]),
            post_rules(p["kind"]),
            _post_partitions(p),
        )
        vanilla = "prepare" if p["sealed"] else "post_vanilla"
        yield rules["post_vanilla"], vanilla, p["shape"], 1, 1, R.post_vanilla(
            p["kind"], p["size"]
        ), n
        yield rules["check"], "check_c1", p["shape"], 1, 1, R.post_checked(
            p["kind"], p["size"]
        ), n
        threads = useful_workers(shape_by_name(p["shape"]).challenges, THREADS)
        yield rules["synthesize"], "synthesize", p["shape"], threads, 1, R.witness(
            job
        ), n, _post_sectors(p)
        yield rules["prove"], "prove", p["shape"], THREADS, 1, R.proofs(job), n
        yield rules["verify"], "verify", p["shape"], 1, 1, R.verified(job), n


def check_budgets():
    """The check of ``mem_gb`` for every job this config still needs, before any job runs
    (Snakemake evaluates resources only when a job is scheduled, so a setup over the budget
    would otherwise stop the run after the sectors are prepared). Jobs whose output exists are
    left out: they will not run."""
    budget_gb = _budget_gb()
    if budget_gb is None:
        if not cluster_executor() and not workflow.dryrun:
            logger.warning(
                "cuzk: --resources mem_gb=<GiB> is not set: jobs start by cores alone, and the "
                "memory each declares (mem_gb) limits nothing; pass the machine's budget"
            )
        return
    jobs = (
        (rule, _declared(step, shape, threads, b, *n), _declared(step, shape, 1, 1, *n))
        for rule, step, shape, threads, b, out, *n in _planned_jobs()
        if not os.path.exists(out)
    )
    try:
        budget.refuse_any_over_budget(jobs, budget_gb)
    except budget.MemoryBudgetError as e:
        stop_before_run(e)


def _job_gpus():
    """GPUs a setup or prove job takes: 1 when the backend resolves to cuda, 0 on the CPU. Pass
    --resources gpu=N (N: the GPUs to use) to run at most N such jobs at once; each job then
    claims a free GPU of its own (cuzk.backend.gpus)."""
    from cuzk.backend import backend_kind

    return int(backend_kind(config["backend"]) == "cuda")


JOB_GPUS = _job_gpus()
# synthesis_sha of the PoRep synthesize jobs: auto with a cuda prover leaves the SHA-256 bits to it
SYNTHESIS_SHA_PROVE = sha_path.prover_choice(SYNTHESIS_SHA, bool(JOB_GPUS))
