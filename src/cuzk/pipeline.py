"""The workflow's steps: one function per Snakemake rule, each measuring its own memory.

Each step checks its inputs before expensive work, writes outputs through temporary files, and
(when given ``mem_json``) writes its :class:`~cuzk.memory.StepRecord` (seconds, average/peak RSS,
GPU peak, the memory model's prediction, the RSS timeline) as JSON beside Snakemake's benchmark
file.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import tempfile
import time
import warnings
from contextlib import ExitStack, contextmanager
from pathlib import Path

from .errors import CuzkError
from .damaged import damaged_witness_aside, refuse_set_aside
from .backend import backend_kind, get_backend, gpu_mem_limit_bytes
from .backend.gpus import claim, visible_gpus
from .backend.workers import WorkerDiedError
from .circuits import commd, porep
from .circuits.post import PoStShape
from .circuits.registry import ShapeMismatchError, family_of, shape_by_name
from .field import from_limbs
from .fileio import atomic_dir, atomic_write_text
from . import progress as bars
from .groth16 import (DevelopmentSetupWarning, Prover, file_digest, read_params, trust_params_file, read_proofs, read_vk, setup, setup_resident, verify,
                      write_params, write_proofs, write_resident_params, write_vk)
from .groth16 import official
from .groth16.prover import MSMS_PER_PROOF
from .groth16.setup import RESIDENT_PHASES, point_counts
from .memory import MemorySampler, StepRecord, note_backend_gpu, write_record
from .memory.budget import check_budget
from .memory.device import prove_device_bytes
from .memory.gpu_plan import plan_prove, plan_setup
from .memory.model import predict_step_bytes
from .memory.record import set_field
from .paths import partition_witness, proof_file
from .r1cs import ConstraintSystem
from .r1cs.native_path import synthesis_on_gpu, synthesis_threads
from .r1cs.parallel import synthesis_workers
from .r1cs.poseidon_path import WITNESS_POSEIDON, choose_poseidon
from .r1cs.sha_path import choose_sha
from .r1cs.pce import read_pce, read_pce_header, write_pce
from .r1cs.witness import (keeps_values, read_witness_compact,
                           witness_compact_bytes, write_witness_compact)
from .sector.jsondoc import admit, load_checked, load_checked_partition, reject, write_doc
from .sector.porep_c1 import write_porep_c1
from .sector.fr32 import pad_sector
from .sector.post import generate_post, partition_count, read_sealed, write_post
from .sector.post_synthetic import SyntheticSector
from .sector.prepare import dev_randomness, load_payload
from .sector.replica import fr_to_nodes
from .sector.update_doc import generate_update
from .sector.update_synthetic import synthetic_update
from .sector.synthetic import synthetic_c1
from .sector import filecoin_c1, prepare_sector, read_c1
from .sector.c1 import C1Error, build_c1, write_c1

log = logging.getLogger(__name__)
progress = logging.getLogger("cuzk.progress")


SYNTHETIC_COMMD_MAX = 512 << 20  # a synthetic porep-commd sector is built whole (all zeros)


class ProofVerificationError(CuzkError, RuntimeError):
    """A proof failed verification (names the sector, the partition and the file)."""


@contextmanager
def measured(step: str, mem_json, predicted: int | None, budget_gb: float | None = None,
             record: StepRecord | None = None):
    """Check the budget, then sample memory around the block and write the step's record to
    ``mem_json`` (also when the block raises); yields the ``MemorySampler`` (steps fold their
    backend's GPU peak into it with ``note_gpu``). ``record``: the step's :class:`StepRecord`
    when the step fills fields of its own (GPU, batch, staging figures) in the block.

    Raises:
        MemoryBudgetError: ``predicted`` exceeds ``budget_gb``, before the block runs.
        WorkerDiedError: a worker process of the block ended (killed by the OOM killer, say):
            raised again naming ``step``, its predicted peak and its budget.
    """
    if predicted is not None:
        check_budget(step, predicted, budget_gb)
    rec = record if record is not None else StepRecord(step)
    rec.step, rec.rss_predicted_bytes, rec.mem_gb, rec.started_at = step, predicted, budget_gb, time.time()
    sampler = MemorySampler().start()
    try:
        yield sampler
    except WorkerDiedError as e:
        note = (f"the model predicts a {predicted / 1e9:.2f} GB peak for this step" if predicted else "")
        note += f"{', ' if note else ''}its budget is mem_gb = {budget_gb}" if budget_gb else ""
        raise e.in_step(step, note) from None
    finally:
        rec.measured(sampler.stop())
        if mem_json:
            write_record(mem_json, rec)


def _plural(n: int, noun: str) -> str:
    """``"1 partition"``, ``"3 partitions"``: a count with its noun."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def pce_digest(pce_path) -> str:
    """A PCE file's identity: the hex SHA-256 checksum stored in its last 32 bytes."""
    with open(pce_path, "rb") as f:
        f.seek(-32, 2)
        return f.read(32).hex()


def check_c1_shape(c1: dict, c1_path, shape) -> None:
    """The C1 file must carry exactly the shape's sector size, partitions and challenges (and
    layers, for PoRep).

    A C1 file cut to fewer partitions or challenges is consistent in itself, so only the
    shape (from the PCE, or the workflow's configuration) can catch it.

    Raises:
        ShapeMismatchError: names the file, what it has and the shape.
    """
    family_of(shape).check(c1, c1_path, shape)


def shape_of_pce(pce_path):
    """The circuit shape a PCE file records (from its header only)."""
    desc = read_pce_header(pce_path)["description"]
    return shape_by_name(desc["name"])


INPUT_ERRORS = CuzkError
"""Errors about the job's inputs or resources (bad files, wrong shape, out of memory): a step
stopped by one prints its message alone on stderr; its log keeps the traceback."""


def start_log(path) -> None:
    """Send this process's log records (INFO and up) to ``path`` (a rule's ``log:`` file), and
    progress of long steps (the ``cuzk.progress`` logger) to stderr, which Snakemake shows."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(filename=path, level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", force=True)
    console = logging.StreamHandler(sys.stderr)
    console.setFormatter(logging.Formatter("cuzk: %(message)s"))
    progress.addHandler(console)
    bars.log_mode()   # parallel jobs share the console: bars as log lines, not live
    logging.captureWarnings(True)
    previous = sys.excepthook

    def hook(etype, value, tb):  # the error that stops a job belongs in its log too, traceback included
        logging.getLogger("cuzk").error("%s: %s", etype.__name__, value, exc_info=(etype, value, tb))
        if issubclass(etype, INPUT_ERRORS):   # its message names the file and the fault: no traceback
            sys.stderr.write(f"cuzk: {etype.__name__}: {value}\n")
        else:
            previous(etype, value, tb)

    sys.excepthook = hook


# --- steps --------------------------------------------------------------------------------------


def prepare(sector: dict, out, shape_name: str, randomness: str, prover_id_hex: str, sealed_out=None,
            mem_json=None, mem_gb=None) -> None:
    """C1 file of one configured sector ({"id", "data" or "generate"}, or ``"synthetic": true``: a
    committed-capacity sector, for circuit porep a sparse synthetic one (:mod:`cuzk.sector.synthetic`,
    any size), for porep-commd the comm_d proofs of an all-zero sector; marked synthetic in the C1
    and every output made from it) for ``shape_name``; with ``sealed_out``, also the
    sealed-sector file PoSt reads (:func:`cuzk.sector.post.write_sealed`).

    Raises:
        ValueError: a synthetic sector with PoSt, or a porep-commd one over 512 MiB.
        SectorInputError: see :func:`cuzk.sector.prepare_sector`.
    """
    shape = shape_by_name(shape_name)
    fam = family_of(shape).name
    if fam not in ("porep", "porep-commd"):
        raise ValueError(f"prepare: {shape_name} is not a PoRep shape")
    if sector.get("synthetic"):
        if sealed_out is not None:
            raise ValueError(f"sector {sector['id']}: a synthetic sector has no sealed data for PoSt")
        sid, pid = int(sector["id"]), bytes.fromhex(prover_id_hex)
        ticket, seed = dev_randomness("ticket", randomness, sid), dev_randomness("seed", randomness, sid)
        with measured("prepare", mem_json, predict_step_bytes("prepare_synthetic", shape.stats()), mem_gb):
            if fam == "porep":   # sparse: only the opened nodes exist, any size
                write_porep_c1(out, synthetic_c1(shape.sector_size, sid, pid, ticket, seed, layers=shape.layers,
                                                 partitions=shape.partitions, challenges=shape.challenges))
            elif shape.sector_size <= SYNTHETIC_COMMD_MAX:  # comm_d of a real all-zero (CC) sector
                c1 = build_c1(bytes(shape.sector_size), shape.sector_size, sid, pid, ticket, seed,
                              shape.partitions, shape.challenges)
                write_c1(out, c1 | {"synthetic": True})
            else:
                raise ValueError(f"sector {sid}: synthetic porep-commd sectors go up to {SYNTHETIC_COMMD_MAX} bytes; "
                                 f"use circuit porep for {shape.sector_size}-byte sectors")
        return
    with measured("prepare", mem_json, predict_step_bytes("prepare", shape.stats()), mem_gb):
        prepare_sector(
            out, int(sector["id"]), shape.sector_size, shape.partitions, shape.challenges, data=sector.get("data"),
            generate_seed=sector.get("generate"), prover_id=bytes.fromhex(prover_id_hex), randomness=randomness,
            layers=getattr(shape, "layers", None) if fam == "porep" else None, sealed_out=sealed_out,
        )


def post_vanilla(kind: str, shape_name: str, sealed_paths, out, randomness: str, prover_id_hex: str,
                 synthetic_ids=(), mem_json=None, mem_gb=None) -> None:
    """Vanilla PoSt proofs of ``kind`` ("winning"/"window") over sectors of one size, with the
    counts of ``shape_name``: the sealed-sector files ``sealed_paths`` and the synthetic sectors
    ``synthetic_ids`` (sparse tree_r_last openings, :mod:`cuzk.sector.post_synthetic`; the file
    then says ``"synthetic": true``). The chain randomness is stood in for by ``randomness``.

    Raises:
        ValueError: no sectors, duplicate ids, sectors of another size.
        PoStError: a sealed-sector file is damaged (names it).
    """
    shape = shape_by_name(shape_name)
    rnd = bytearray(dev_randomness(f"{kind}-post", randomness, 0))
    rnd[31] &= 0x3F  # a canonical Fr element
    sectors = list(sealed_paths) + [SyntheticSector(int(sid), shape.sector_size) for sid in synthetic_ids]
    step = "prepare" if sealed_paths else "post_vanilla"   # sealed trees are read whole: as prepare holds them
    pred = predict_step_bytes(step, shape.stats(), partitions=partition_count(shape.params(), len(sectors)))
    with measured("post_vanilla", mem_json, pred, mem_gb):
        doc = generate_post(kind, sectors, bytes(rnd), bytes.fromhex(prover_id_hex),
                            sector_count=shape.sector_count, challenge_count=shape.challenge_count)
        write_post(out, doc)


def update_vanilla(sector: dict, sealed_path, out, shape_name: str, mem_json=None, mem_gb=None) -> None:
    """A SnapDeals sector's input file: with ``sector["update"]["synthetic"]`` a structured synthetic
    sector of any size (:func:`cuzk.sector.update_synthetic.synthetic_update`, seeded by the id;
    ``sealed_path`` unused), else the deal data of ``sector["update"]["data"]`` (Fr32-padded)
    encoded into the replica of the sealed sector file ``sealed_path`` (its tree_r_last leaves,
    comm_c, comm_r_last), every partition proved (:func:`cuzk.sector.update_doc.generate_update`,
    h = h_default) and written as ``out``. The new replica itself is not kept. Memory: the
    ``prepare`` model (both hold a sector's trees).

    Raises:
        ValueError: ``shape_name`` is not a SnapDeals shape, or the sealed sector's size differs.
        SectorInputError: the data file (see :func:`cuzk.sector.prepare.load_payload`).
        PoStError: a bad sealed-sector file.
    """
    shape = shape_by_name(shape_name)
    if family_of(shape).name != "update":
        raise ValueError(f"update_vanilla: {shape_name} is not a SnapDeals shape")
    if sector["update"].get("synthetic"):
        with measured("update_vanilla", mem_json, predict_step_bytes("prepare_synthetic", shape.stats()), mem_gb):
            write_doc(out, synthetic_update(int(sector["id"]), shape.sector_size, int(sector["id"])))
        return
    sealed = read_sealed(sealed_path)
    if sealed.sector_size != shape.sector_size:
        raise ValueError(f"{sealed_path}: a {sealed.sector_size}-byte sector; shape {shape_name} updates "
                         f"{shape.sector_size}-byte sectors")
    data = pad_sector(load_payload(sector["update"]["data"], shape.sector_size), shape.sector_size)
    with measured("update_vanilla", mem_json, predict_step_bytes("prepare", shape.stats()), mem_gb):
        doc, _ = generate_update(int(sector["id"]), fr_to_nodes(sealed.tree_r_last[0]).tobytes(), data,
                                 sealed.comm_c, sealed.comm_r_last, shape.sector_size)
        write_doc(out, doc)


#: Circuit families whose gadgets mark their loops (``ConstraintSystem.instances``), so that
#: ``upstream_order`` gives rust-fil-proofs' row and column order: checked against naive
#: sequential builders (tests/test_upstream_order.py; PoRep gadget by gadget, a whole PoSt
#: partition, a whole SnapDeals partition). The comm_d-only circuit is not marked: there the
#: flag would leave cuzk's block order.
UPSTREAM_ORDER_FAMILIES = ("porep", "post", "update")

#: Per circuit family, raised whenever its matrices change (rows, columns, their order,
#: coefficients), so that a PCE written by older code, and the key and witnesses made from it,
#: are rebuilt rather than used (``stale_pce``); per family, so that a change to one circuit
#: does not cost every other shape's key (a 32 GiB PoRep's is 47 GB). "post" 2: upstream's
#: allocation order (stop 16); "update" 3: upstream's order and its digest bits' packing row (stop 17).
CIRCUIT_VERSIONS = {"porep-commd": 2, "porep": 2, "post": 2, "update": 3}


def circuit_version(shape) -> int:
    """``CIRCUIT_VERSIONS`` of the shape's family (``registry.family_of``)."""
    return CIRCUIT_VERSIONS[family_of(shape).name]


def pce_description(shape, upstream_order: bool = False) -> dict:
    """The description ``pce_extract`` stores in a PCE header for ``shape`` (its ``describe()``, its
    family's ``circuit_version``, and ``upstream_order`` when set), as the header's JSON gives it back."""
    desc = shape.describe() | {"circuit_version": circuit_version(shape)} | ({"upstream_order": True} if upstream_order else {})
    return json.loads(json.dumps(desc))


def stale_pce(path, shape_name: str, upstream_order: bool = False) -> str | None:
    """Why the PCE file at ``path`` is not the one ``pce_extract`` would write for ``shape_name``
    now (another circuit version, shape or order), or None when it is.

    Raises:
        PCEFormatError: the header cannot be read.
    """
    have = read_pce_header(path).get("description", {})
    want = pce_description(shape_by_name(shape_name), upstream_order)
    if have == want:
        return None
    if have.get("circuit_version") != want["circuit_version"]:
        return (f"written for circuit version {have.get('circuit_version', 1)}, this code builds version "
                f"{want['circuit_version']} (the key and witnesses made from it are rebuilt too)")
    if bool(have.get("upstream_order")) != upstream_order:
        return f"built in {'upstream' if have.get('upstream_order') else 'block'} order, the config asks for the other"
    return f"its description is not {shape_name}'s"


def pce_extract(shape_name: str, out, mem_json=None, mem_gb=None, upstream_order: bool = False) -> None:
    """Record the R1CS of one partition of ``shape_name`` into a PCE file.

    ``upstream_order``: rows and aux columns in rust-fil-proofs' enforce/allocation order
    (``ConstraintSystem(upstream_order=True)``; the header's description says so, and
    ``synthesize_*`` then write witnesses in that order). It needs about twice the host memory of
    the block order (porep-2KiB: 0.95 against 0.46 GiB on the 2-core machine).

    Raises:
        ShapeMismatchError: ``upstream_order`` for a shape outside ``UPSTREAM_ORDER_FAMILIES``
            (before any work).
    """
    shape = shape_by_name(shape_name)
    if upstream_order and family_of(shape).name not in UPSTREAM_ORDER_FAMILIES:
        raise ShapeMismatchError(f"{shape_name}: upstream order is built only for the "
                                 f"{', '.join(UPSTREAM_ORDER_FAMILIES)} circuits (its gadgets' loops are not marked)")
    pred = predict_step_bytes("pce_extract", shape.stats(), upstream_order=upstream_order)
    with measured("pce_extract", mem_json, pred, mem_gb):
        cs = ConstraintSystem(shape=True, witness=False, upstream_order=upstream_order)
        with bars.watch(lambda: cs.num_aux, shape.stats()["aux"], f"pce {shape_name}", "aux"):
            family_of(shape).synthesize(cs, shape)
        r1cs = cs.finalize(consume=True)
        write_pce(out, r1cs, pce_description(shape, upstream_order))
        log.info("pce %s%s: %s", shape_name, " (upstream order)" if upstream_order else "", r1cs.stats())


def pce_upstream_order(pce) -> bool:
    """Was the PCE file built in rust-fil-proofs' order (``pce_extract(upstream_order=True)``)?
    Its witnesses must then be written in that order too.

    Raises:
        PCEFormatError: the header cannot be read.
    """
    return bool(read_pce_header(pce).get("description", {}).get("upstream_order", False))


@contextmanager
def step_backend(name: str, threads: int, gpu_mem_limit: int | None, record: StepRecord | dict):
    """The step's backend (``get_backend``); on cuda, on the first visible GPU no other cuzk step
    holds (``cuzk.backend.gpus.claim``: waits while all are held), recorded in ``record``'s
    ``gpu_device`` as {"index", "id", "name"} (a :class:`StepRecord`, or a dict).

    Raises:
        BackendUnavailableError: cuda asked for and no device (before anything is claimed).
        GPULockError: the lock directory cannot be used.
    """
    gpus = visible_gpus() if backend_kind(name) == "cuda" else []
    if not gpus:   # the cpu backend, or cuda without a device: get_backend raises its error
        with get_backend(name, threads=threads, gpu_mem_limit=gpu_mem_limit) as bk:
            yield bk
        return
    with claim(gpus) as gpu:
        set_field(record, "gpu_device", {"index": gpu.index, "id": gpu.id, "name": gpu.name})
        if len(gpus) > 1:
            progress.info("on GPU %d of %d (%s)", gpu.index, len(gpus), gpu.name)
        with get_backend(name, threads=threads, gpu_mem_limit=gpu_mem_limit, device=gpu.index) as bk:
            yield bk


def setup_params(pce, params_out, vk_out, backend="auto", threads=1, mem_json=None, mem_gb=None,
                 gpu_mem_limit_gb=None) -> None:
    """Development setup for the shape of ``pce``; writes ``.params`` and ``.vk``.

    ``gpu_mem_limit_gb`` (GiB; None = no limit) caps the cuda backend's device memory: the key is
    then computed slice by slice into host memory (``plan_setup``; ``GPUMemoryError`` before any
    work when not even its smallest schedule fits).
    """
    shape = shape_of_pce(pce)
    limit = gpu_mem_limit_bytes(gpu_mem_limit_gb)
    rec = StepRecord("setup", gpu_mem_limit_bytes=limit)
    with measured("setup", mem_json, predict_step_bytes("setup", shape.stats(), threads=threads, backend=backend_kind(backend),
                                                        gpu_mem_limit=limit), mem_gb,
                  rec) as sampler:
        # the backend first: a child process started while this one holds the matrices reports
        # their pages as its own peak (ru_maxrss, which the record adds); the cuda steps' kernel
        # peaks exceed the sampled ones by what they held when CuPy was first imported (setup
        # 24.4 GiB for 12.8 sampled, prove 2.9 for 2.4: H200, stop 16)
        with step_backend(backend, threads, limit, rec) as bk, warnings.catch_warnings():
            r1cs, _ = read_pce(pce)
            warnings.simplefilter("ignore", DevelopmentSetupWarning)
            log.warning("setup %s: development parameters (random toxic waste), not for chain use", shape.name)
            progress.info("setup %s: %d constraints, computing the key on %s (%s)", shape.name, r1cs.num_constraints,
                          bk.name, _plural(threads, "worker"))
            plan = plan_setup(shape.stats(), limit) if bk.name == "cuda" and limit is not None else None
            if plan is None and bk.name == "cuda":  # the key stays on the GPU and is written in slices (47 GB at 32 GiB)
                # one unit per phase, and one for writing the key
                with bars.bar(len(RESIDENT_PHASES) + 1, f"setup {shape.name}", "phase") as b:
                    key = setup_resident(r1cs, bk, step=lambda _: b.update(1))
                    try:
                        write_resident_params(params_out, key)
                    finally:
                        key.close()
                    b.update(1)
            else:   # fixed-base points, G1 then G2 (the scalars before them: about a tenth of the time)
                with bars.bar(sum(point_counts(r1cs).values()), f"setup {shape.name}", "point") as b:
                    key = setup(r1cs, bk, step=lambda done, _: b.update(done - b.n), plan=plan)   # under a limit: sliced
                write_params(params_out, key)
            note_backend_gpu(sampler, bk, rec)
        write_vk(vk_out, key.vk)


def import_c1(path, out, shape_name: str, sector_id: int, prover_id_hex: str, mem_json=None, mem_gb=None,
              reject_bad: bool = False) -> str:
    """The ``import_c1`` step: a C1 in Filecoin's form (SealCommitPhase1Output JSON or lotus-bench's
    commit2 input, :mod:`cuzk.sector.filecoin_c1`) written in cuzk's form for ``check_c1``, which
    then checks every proof. Returns the form read, or "rejected" with ``reject_bad``: a refused
    file's rejection record (``jsondoc.reject``, never a C1) at ``out``, passed on by ``check_input``.

    Raises:
        C1Error (without ``reject_bad``): a faulty layout, cuzk's form already (the workflow sends
            only Filecoin's here), or lotus-bench's SectorNum is not ``sector_id``."""
    shape = shape_by_name(shape_name)
    with measured("import_c1", mem_json, predict_step_bytes("check_c1", shape.stats()), mem_gb):
        try:
            form, c1 = filecoin_c1.read_any(path, sector_id, bytes.fromhex(prover_id_hex), verify=False)
            if form == filecoin_c1.CUZK:
                raise C1Error(path, "format", "already cuzk's form: give it as c1 directly")
        except C1Error as e:
            if not reject_bad:
                raise
            reject(path, out, e)
            return "rejected"
        write_porep_c1(out, c1)
    progress.info("imported %s (%s form) as %s", path, form, out)
    return form


def check_input(path, out, shape_name: str, mem_json=None, mem_gb=None, partitions: int = 1, threads: int = 1,
                reject_bad: bool = False) -> dict:
    """The ``check_c1`` step: check an input file (a sector's C1, a SnapDeals file, or a PoSt vanilla
    file) fully, once, and write its check record (:func:`cuzk.sector.jsondoc.admit`); later steps
    trust it by the record (:func:`_read_input`; 2-core box: 5.4 s for a 32 GiB C1, 31 s for a 32 GiB
    WindowPoSt partition's vanilla file). A C1's partition slices go beside it (``Family.slices``).

    ``partitions``: of a PoSt target, for the memory prediction (the file is held whole).
    ``threads`` > 1: the paths' hashes in that many worker processes (``cuzk.r1cs.parallel``).
    ``reject_bad``: a file the check refuses (the family's typed error, ShapeMismatchError, or
    ``import_c1``'s rejection record) gets a rejection record (``jsondoc.reject``, logged) and the
    step returns: the workflow proves the batch-mates without it; every reader raises the reason.

    Returns the record. Raises (without ``reject_bad``) the family's typed error (``C1Error``,
    ``PoStError``) or ShapeMismatchError before writing anything."""
    shape = shape_by_name(shape_name)
    fam = family_of(shape)

    def verify_and_fit(doc, p):
        fam.verify(doc, p)
        fam.check(doc, p, shape)
        return {"synthetic": bool(doc.get("synthetic", False)), "label": fam.label(doc), "shape": shape.name}

    pred = predict_step_bytes("check_c1", shape.stats(), partitions=partitions, threads=threads)
    with synthesis_workers(threads), measured("check_c1", mem_json, pred, mem_gb), \
            choose_poseidon("auto").active():   # the paths' Poseidon hashes by the native core where it builds
        try:   # admit refuses import_c1's rejection record in the C1's place with its reason
            rec = admit(path, out, verify_and_fit, fam.error, slices=fam.slices)
        except (fam.error, ShapeMismatchError) as e:
            if not reject_bad:
                raise
            return reject(path, out, e)
    progress.info("checked %s (%s%s)", path, shape.name, ", synthetic" if rec["synthetic"] else "")
    return rec


def _read_input(path, shape, checked=None, partition: int | None = None) -> dict:
    """An input file for ``shape``: checked fully, or, given its check record (``check_input``),
    trusted by digest (a file changed since its check is refused, naming it); with ``partition``
    (or ``Family.whole_slice``), its slice where the check wrote one (``jsondoc.load_checked_partition``)."""
    fam = family_of(shape)
    if checked is None:
        inp = fam.read(path)
    elif partition is not None or fam.whole_slice:
        inp = load_checked_partition(path, checked, fam.error, 0 if fam.whole_slice else partition)
    else:
        inp = load_checked(path, checked, fam.error)
    fam.check(inp, path, shape)
    return inp


def _witness_paths(sha: str, poseidon: str, upstream: bool, keep: str):
    """The SHA-256 and Poseidon witness paths (built now, before any input is read), logged."""
    path, ppath = choose_sha(sha, upstream), choose_poseidon(poseidon, keep)
    log.info("synthesize: SHA-256 witness by %s (synthesis_sha %s), Poseidon by %s (synthesis_poseidon %s), "
             "the witness keeps its %s", path.name, sha, ppath.name, poseidon, keep)
    return path, ppath


def _synthesis_kind(path, ppath) -> str:
    """The memory model's backend of a synthesize step: "cuda" where a witness path is gpu."""
    return "cuda" if synthesis_on_gpu(path.name, ppath.name) else "cpu"


@contextmanager
def _synthesis_gpu(path, ppath):
    """Where a witness path runs on the GPU (``synthesis_sha`` or ``synthesis_poseidon`` ``gpu``):
    the first visible GPU no other cuzk step holds (``cuzk.backend.gpus.claim``: waits while all
    are held) is CuPy's current device for the block, and is logged. Else nothing.

    Raises:
        BackendUnavailableError: a gpu path and no visible device.
        GPULockError: the lock directory cannot be used.
    """
    if _synthesis_kind(path, ppath) == "cpu":
        yield None
        return
    from .backend.cuda.runtime import _cupy   # CuPy on use: the GPU paths only

    cp = _cupy()
    with claim(visible_gpus()) as gpu, cp.cuda.Device(gpu.index):
        log.info("synthesize: on GPU %d (%s)", gpu.index, gpu.name)
        yield gpu


def synthesize_partition(c1_path, checked, pce, partition: int, out, mem_json=None, mem_gb=None,
                         sha: str = "auto", poseidon: str = "auto", keep: str = WITNESS_POSEIDON[0]) -> Path:
    """One partition's witness file of a checked input (a sector's C1): a job of its own, so a
    32 GiB sector's ten partitions run as ten jobs, as many at once as cores and ``mem_gb`` allow.
    ``sha``: who computes the SHA-256 compressions' bits (``synthesis_sha``: auto, native, numpy
    or gpu; ``cuzk.r1cs.sha_path``) and the Poseidon values (``poseidon``, ``synthesis_poseidon``:
    auto, native, python or gpu; ``cuzk.r1cs.poseidon_path``), chosen before the input is read;
    the file is the same. A gpu path runs on a GPU the step claims (``_synthesis_gpu``).
    ``keep`` (``witness_poseidon``): the file keeps the Poseidon hashes' ``values`` or ``inputs``.

    Raises:
        C1Error: the file changed since its check, or has no such partition.
        ShapeMismatchError: the input is for another shape.
        ShaPathError: an unknown ``sha``, or native with an upstream-order PCE.
        PoseidonPathError: an unknown ``poseidon`` or ``keep``.
        NativeBuildError: ``sha`` or ``poseidon`` is ``"native"`` and its native core cannot be built.
        BackendUnavailableError: ``sha`` or ``poseidon`` is ``"gpu"`` and there is no CUDA device.
    """
    shape = shape_of_pce(pce)
    fam = family_of(shape)
    upstream = pce_upstream_order(pce)
    path, ppath = _witness_paths(sha, poseidon, upstream, keep)
    inp = _read_input(c1_path, shape, checked, partition)
    n = fam.partitions(inp)
    if not 0 <= partition < n:
        raise fam.error(c1_path, "partitions", f"has {n} partition(s), partition {partition} was asked for")
    stats = shape.stats()
    with measured("synthesize", mem_json, predict_step_bytes("synthesize", stats, backend=_synthesis_kind(path, ppath),
                                                             wide_values=keep == "values", upstream_order=upstream), mem_gb):
        cs = ConstraintSystem(shape=False, witness=True, aux_capacity=stats["aux"], upstream_order=upstream)
        with bars.watch(lambda: cs.num_aux, stats["aux"], f"synthesize {Path(c1_path).name} partition {partition}", "aux"), \
                _synthesis_gpu(path, ppath), path.active(), ppath.active():
            fam.synthesize(cs, shape, fam.values(inp, partition))
        write_witness_compact(out, path.finish(cs.assignment_compact(lazy=True)), pce_digest(pce))
    return Path(out)


def synthesize_sector(c1_path, pce, out_dir, mem_json=None, mem_gb=None, checked=None,
                      threads: int = 1, sha: str = "auto", poseidon: str = "auto", keep: str = WITNESS_POSEIDON[0]) -> list[Path]:
    """Witness files (one per partition, ``out_dir/partition-<k>.wit``) for one input file (a
    sector's C1, or a PoSt vanilla file). ``checked``: its check record (``check_input``), so
    the file is trusted by its SHA-256 instead of being checked again; None checks it fully.
    ``threads`` > 1 computes the Poseidon values in that many worker processes
    (``cuzk.r1cs.parallel``): a PoSt partition is nearly all of them. ``sha``, ``poseidon``, ``keep``:
    as in :func:`synthesize_partition` (the workers take the path chosen here; with ``poseidon``
    gpu the hashes run in this process on the GPU, and ``threads`` starts no workers).

    Raises:
        C1Error, PoStError: the input file is malformed or inconsistent, or changed since its
            check record was written.
        ShapeMismatchError: the input file is for another sector size or proof setting.
        ShaPathError, PoseidonPathError, NativeBuildError, BackendUnavailableError: as in
            :func:`synthesize_partition`.
    """
    shape = shape_of_pce(pce)
    fam = family_of(shape)
    upstream = pce_upstream_order(pce)
    path, ppath = _witness_paths(sha, poseidon, upstream, keep)
    threads = synthesis_threads(ppath.name, threads)
    # the workers fork first, while this process is small (no input read yet) and runs no
    # sampler or progress thread: a child's RSS counts the parent's pages it was forked with
    with synthesis_workers(threads):
        inp = _read_input(c1_path, shape, checked)
        digest = pce_digest(pce)
        n = fam.partitions(inp)
        stats = shape.stats()
        done = [0, None]   # aux of the partitions written, the current constraint system
        share = shape.distinct_share(len({s["id"] for s in inp["sectors"]})) if isinstance(shape, PoStShape) else 1.0
        pred = predict_step_bytes("synthesize", stats, threads=threads, partitions=n, backend=_synthesis_kind(path, ppath),
                                  distinct=share, wide_values=keep == "values", upstream_order=upstream)
        with measured("synthesize", mem_json, pred, mem_gb), \
                atomic_dir(out_dir) as tmp, _synthesis_gpu(path, ppath), \
                bars.watch(lambda: done[0] + (done[1].num_aux if done[1] else 0), n * stats["aux"],
                           f"synthesize {Path(c1_path).name}", "aux"):
            for k in range(n):
                cs = done[1] = ConstraintSystem(shape=False, witness=True, aux_capacity=stats["aux"], upstream_order=upstream)
                with path.active(), ppath.active():
                    fam.synthesize(cs, shape, fam.values(inp, k))
                write_witness_compact(partition_witness(tmp, k), path.finish(cs.assignment_compact(lazy=True)), digest)
                done[:] = [done[0] + cs.num_aux, None]
    return [partition_witness(out_dir, k) for k in range(n)]


def _stage_partition(prover: Prover, fam, inp: dict, label: str, k: int, wpath: Path, digest: str,
                     defer: bool = False):
    """Read, check and stage one partition's witness (``prove_batch``'s background work).

    Returns:
        (public inputs as ints, StagedAssignment).

    Raises:
        WitnessFormatError: the file is corrupt, truncated, or made for another PCE.
        ShapeMismatchError: its public inputs are not those of ``label`` partition ``k``.
        WitnessError: the assignment does not fit the circuit.
    """
    cw = read_witness_compact(wpath, pce_digest=digest)   # as stored: the GPU expands the bits
    pub = fam.public_inputs(inp, k)
    if [int(v) for v in from_limbs(cw.inputs[1:])] != pub:
        raise ShapeMismatchError(f"{wpath}: its public inputs are not those of {label} partition {k} (witness of another C1?)")
    return pub, prover.stage_compact(cw, defer=defer)


def prove_batch(pce, params, c1_paths, witness_dirs, out_dir, backend="auto", threads=1, mem_json=None, mem_gb=None,
                gpu_mem_limit_gb=None, checked=None) -> None:
    """Prove a batch of input files (sectors' C1 files, or one PoSt vanilla file) of one shape
    with one resident parameter set.

    ``gpu_mem_limit_gb`` (GiB; None = no limit) caps the cuda backend's device memory: the batch
    then follows ``cuzk.memory.gpu_plan.plan_prove`` (key queries resident or streamed from host
    memory in pieces, each piece serving a group of partitions; ``Prover.prove_groups``), whose
    predicted peak is recorded; ``GPUMemoryError`` before any work when nothing fits. The memory
    JSON records the GPU peak (and the limit).

    ``checked``: each input's check record (``check_input``), so inputs are trusted by their
    SHA-256 instead of being checked again; None checks them fully.

    Each input's partitions are proved in turn; every proof is verified before the input's
    proof file ``out_dir/<label>.proof`` (partitions × 192 bytes; label = sector id, or
    ``winning-post``/``window-post``) is written. The directory appears when the whole batch is done.

    Pipelined (``Prover.prove_many``): one background thread reads, decodes and stages
    (``Prover.stage``: host conversion, and on cuda the copy on a side stream) the next
    partition — of this input or the next one — while the current one is proved and verified;
    at most one staged assignment is ahead. Its errors are raised when the loop reaches that
    partition, so the same inputs raise the same error as a sequential loop. The memory JSON
    gets ``staging_seconds`` (the background thread's wall seconds), ``staging_waited_seconds``
    (the prover's wait for it) and ``staging_overlapped_seconds`` (their difference: staging
    hidden behind proofs).

    Raises:
        ShapeMismatchError: an input of another shape, or a witness made from another input.
        WitnessFormatError: a witness file is corrupt, truncated, or made for another PCE: it is
            moved aside to ``<name>.damaged`` (the batch's other files stay), so that the next run
            of the workflow makes it again with its synthesize step.
        ProofVerificationError: a proof does not verify (nothing is written for that input).
    """
    shape = shape_of_pce(pce)
    fam = family_of(shape)
    n = len(c1_paths)
    if n != len(witness_dirs):
        raise ValueError("prove_batch: c1_paths and witness_dirs differ in length")
    digest = pce_digest(pce)
    records = list(checked) if checked else [None] * len(c1_paths)
    if len(records) != len(c1_paths):
        raise ValueError(f"prove_batch: {len(c1_paths)} inputs but {len(records)} check records")
    inputs = [_read_input(p, shape, rec) for p, rec in zip(c1_paths, records)]
    labels = [fam.label(inp) for inp in inputs]
    jobs = [(i, k) for i, inp in enumerate(inputs) for k in range(fam.partitions(inp))]
    refuse_set_aside(partition_witness(witness_dirs[i], k) for i, k in jobs)
    limit = gpu_mem_limit_bytes(gpu_mem_limit_gb)
    host_limit = None if mem_gb is None else int(mem_gb * 2**30) // 2   # what waiting scalars may take
    pred = predict_step_bytes("prove", shape.stats(), threads=threads, batch=n, backend=backend_kind(backend),
                              partitions=len(jobs), gpu_mem_limit=limit, host_limit=host_limit,
                              wide_values=keeps_values(partition_witness(witness_dirs[0], 0)) if n else True)
    rec = StepRecord("prove", sectors=n, gpu_mem_limit_bytes=limit)  # staging figures are added before measured() writes it
    rec.phase_seconds = phases = {}
    clock = [0.0]

    def lap(name):   # seconds since the last lap, recorded as phase ``name``
        now = time.perf_counter()
        phases[name] = round(now - clock[0], 3)
        clock[0] = now

    with damaged_witness_aside(witness_dirs), measured("prove", mem_json, pred, mem_gb, rec) as sampler, \
            atomic_dir(out_dir) as tmp:
        clock[0] = time.perf_counter()
        pk = read_params(params)
        lap("key_read")
        with ExitStack() as stack:
            bk = stack.enter_context(step_backend(backend, threads, limit, rec))
            lap("backend_start")
            # under a device limit the batch follows the streaming plan (GPUMemoryError before any
            # work when not even its smallest schedule fits); partitions in flight from it
            plan = None
            if bk.name == "cuda" and limit is not None:
                # the witnesses stay on the device as their files store them (A's, B's and L's
                # scalars expanded per piece): the largest one's size, from the headers
                compact = max(witness_compact_bytes(partition_witness(witness_dirs[i], k)) for i, k in jobs)
                # the PCE's coefficient count: the streamed matrices' id width (``host_csr_bytes``)
                stats = shape.stats() | {"coeffs": int(read_pce_header(pce)["ncoeffs"])}
                plan = plan_prove(stats, len(pk.a), len(pk.b_g1), len(jobs), limit, host_limit=host_limit,
                                  compact_w=compact)
                rec.gpu_predicted_bytes = plan.peak
                progress.info("prove: under the %.2f GiB GPU limit, %d partition(s) share each pass over the key "
                              "(%s resident; H's %s), predicted peak %.2f GiB", limit / 2**30, plan.in_flight,
                              ", ".join(q.name for q in plan.queries if q.resident) or "none",
                              "shared" if plan.h_shared else "walked per partition", plan.peak / 2**30)
            # on the GPU the matrices are uploaded from the mapped file slice by slice (8.7 GB
            # at 32 GiB never resident on the host); the CPU backend indexes them on the host
            r1cs, _ = read_pce(pce, mapped=bk.name == "cuda")
            lap("pce_read")
            prover = stack.enter_context(Prover(pk, r1cs, bk, plan=plan))
            lap("prover_start")   # the key's and the matrices' uploads on cuda
            what = _plural(n, fam.noun)
            progress.info("prove %s: key loaded on %s; %s of %s to prove", shape.name, bk.name,
                          _plural(len(jobs), "partition"), what)
            defer = plan is not None   # stage the next assignment on the host only (no device copy ahead)
            if bk.name == "cuda" and plan is None:   # no limit: the device model beside the measured peak
                need = prove_device_bytes(shape.stats(), len(pk.a), len(pk.b_g1), staged=len(jobs) > 1)
                rec.gpu_predicted_bytes = need["peak"]

            def stage(job):
                ji, jk = job
                return _stage_partition(prover, fam, inputs[ji], labels[ji], jk,
                                        partition_witness(witness_dirs[ji], jk), digest, defer)

            proofs: list = []

            def done(item):   # in job order; a proof is kept only once it verified
                i, k = item.job
                if not item.verified:
                    raise ProofVerificationError(f"{labels[i]} partition {k}: proof does not verify")
                proofs.append(item.proof)
                if k + 1 == fam.partitions(inputs[i]):
                    write_proofs(proof_file(tmp, labels[i]), proofs)
                    proofs.clear()
                    progress.info("prove: %s verified (%d of %d in this batch)", fam.describe(labels[i]), i + 1, n)

            # leaving prove_many (also by an error) joins its stager before the backend closes
            # counted in MSMs (five per partition) for a rate and time left before the first partition ends
            with bars.watch(lambda: prover.times.msms, len(jobs) * MSMS_PER_PROOF, f"prove {shape.name}", "MSM"):
                check = lambda proof, pub: verify(pk.vk, proof, pub)  # noqa: E731
                staging = (prover.prove_groups(jobs, stage, check, done, plan) if plan is not None
                           else prover.prove_many(jobs, stage, check, done))
            lap("partitions")
            staged_s, waited_s = staging.staging_seconds, staging.waited_seconds
            note_backend_gpu(sampler, bk, rec)
        rec.staging_seconds, rec.staging_waited_seconds = round(staged_s, 3), round(waited_s, 3)
        rec.staging_overlapped_seconds = round(max(0.0, staged_s - waited_s), 3)


def verify_sector(vk_path, c1_path, proof_path, out_json, shape_name: str | None = None, mem_json=None,
                  mem_gb=None, checked=None) -> dict:
    """Verify one input's proof file against its public inputs; write the result JSON.

    The shape (``shape_name``; by default the PoRep or comm_d shape of the C1's sector size whose
    public inputs the verifying key takes, ``_shape_of_vk``) fixes the partitions and challenges,
    so an input cut to fewer of them is refused. ``checked``: the
    input's check record (read by digest, not checked again). The result names the proof file's
    SHA-256 (the file verified) and whether the sector is synthetic.

    Raises:
        ShapeMismatchError: the input does not have its shape's partitions and challenges, or
            the verifying key takes another number of public inputs.
        ProofVerificationError: any partition's proof fails (the result file is not written).
    """
    shape = shape_by_name(shape_name) if shape_name is not None else None
    # the prediction scales with the sector size (the C1 read whole), as the rule declares it
    with measured("verify", mem_json, predict_step_bytes("verify", shape.stats() if shape else None), mem_gb):
        if shape is None:   # the key picks the shape
            vk = read_vk(vk_path)
            shape, inp = _shape_of_vk(vk, vk_path, c1_path, checked)
        else:               # the input checked first (a C1 changed since its check is named before the key is read)
            inp = _read_input(c1_path, shape, checked)
            vk = read_vk(vk_path)
        fam = family_of(shape)
        label = fam.label(inp)
        n = fam.partitions(inp)
        proofs = read_proofs(proof_path)
        if len(proofs) != n:
            raise ProofVerificationError(f"{proof_path}: {len(proofs)} proofs for {n} partitions")
        for k, p in enumerate(proofs):
            pub = fam.public_inputs(inp, k)
            if len(vk.ic) != len(pub) + 1:
                raise ShapeMismatchError(f"{vk_path}: takes {len(vk.ic) - 1} public inputs, shape {shape.name} has {len(pub)}")
            if not verify(vk, p, pub):
                raise ProofVerificationError(f"{proof_path}: {fam.describe(label)} partition {k} does not verify")
        res = {"proof": label, "shape": shape.name, "partitions": len(proofs), "verified": True,
               "synthetic": bool(inp.get("synthetic", False)), "proof_file": str(proof_path),
               "proof_sha256": file_digest(proof_path)}
        if "sector_id" in inp:  # a sector's commitments (a SnapDeals file's comm_d is comm_d_new)
            res |= {"sector_id": inp["sector_id"]} | {
                k: bytes(inp[k]).hex() for k in ("comm_d", "comm_d_new", "comm_r_new") if k in inp}
        atomic_write_text(out_json, json.dumps(res, indent=2) + "\n")
        return res


def _shape_of_vk(vk, vk_path, c1_path, checked) -> tuple:
    """(shape, input) for ``verify_sector`` without a shape: among the PoRep and comm_d shapes of
    the C1's sector size (Filecoin's PoRep first, test-only ones last), the first the C1 fits
    whose partitions take the verifying key's number of public inputs.

    A C1 that no shape's family reads (each refuses it with its input error: a damaged file, or one
    of another kind) raises the first shape's error, not a shape mismatch.

    Raises:
        ShapeMismatchError: none does (naming those tried and ``--shape``).
        C1Error (or the family's input error): no shape of the C1's size reads it.
    """
    size = read_c1(c1_path)["sector_size"]
    cands = [s for fam in (porep.SHAPES, commd.SHAPES) for s in fam.values() if s.sector_size == size]
    tried, refused = [], []
    for shape in sorted(cands, key=lambda s: s.test_only):   # stable: PoRep before comm_d
        try:
            inp = _read_input(c1_path, shape, checked)
        except ShapeMismatchError:
            continue
        except family_of(shape).error as e:   # e.g. a comm_d C1 read as a PoRep one
            refused.append(e)
            continue
        n = len(family_of(shape).public_inputs(inp, 0))
        if len(vk.ic) == n + 1:
            return shape, inp
        tried.append(f"{shape.name} ({n})")
    if refused and len(refused) == len(cands):
        raise refused[0]
    raise ShapeMismatchError(f"{vk_path}: takes {len(vk.ic) - 1} public inputs, and no shape of {c1_path}'s sector "
                             f"size does (tried {', '.join(tried) or 'none that fits the C1'}): give --shape")


def reverify(checks, out_tsv) -> list[dict]:
    """Verify every proof file on disk again (the workflow's ``reverify`` target) and rewrite each
    one's verify record, so the report describes the files as they are now.

    ``checks``: one dict per proof file with ``proof``, ``vk``, ``vanilla`` (its C1 or PoSt
    vanilla file), ``shape``, ``json`` (its verify record) and ``checked`` (the input's check record,
    or None). A proof that verifies gets a fresh record (:func:`verify_sector`: the digest of the
    file now on disk); one that does not (wrong proof, unreadable, missing) gets
    ``{"verified": false, "proof_file", "error"}``. ``out_tsv``: one row per proof (proof_file,
    verified, error). Returns the rows.

    Raises:
        ProofVerificationError: after everything is written, naming every proof that failed.
    """
    rows = []
    for c in checks:
        try:
            verify_sector(c["vk"], c["vanilla"], c["proof"], c["json"], shape_name=c["shape"], checked=c.get("checked"))
            rows.append({"proof_file": str(c["proof"]), "verified": True, "error": ""})
        except (CuzkError, OSError) as e:
            why = " ".join(str(e).split())  # one line: a table cell
            rows.append({"proof_file": str(c["proof"]), "verified": False, "error": why})
            atomic_write_text(c["json"], json.dumps({"verified": False, "proof_file": str(c["proof"]), "error": why},
                                                    indent=2) + "\n")
    lines = ["proof_file\tverified\terror"] + [f"{r['proof_file']}\t{r['verified']}\t{r['error']}" for r in rows]
    atomic_write_text(out_tsv, "\n".join(lines) + "\n")
    bad = [r for r in rows if not r["verified"]]
    if bad:
        raise ProofVerificationError(
            f"{len(bad)} of {len(rows)} proofs do not verify now:\n"
            + "\n".join(f"  {r['proof_file']}: {r['error']}" for r in bad)
            + "\ndelete a failing proof's batch folder (results/proofs/<batch>/) and run again to prove it anew"
        )
    return rows


def _official_pair(shape, params_dir, manifest, full_check: bool = False) -> dict:
    """Filecoin's ``.params`` and ``.vk`` of ``shape`` ({".params": path, ".vk": path}; the
    .params is ``official.official_file``'s pick, the .vk of the same name), each digest-checked
    against the manifest (once per file version), the .params beginning with the .vk's key,
    trusted by its digest (every point checked with ``full_check``), its h and l counts the shape's.

    Raises:
        OfficialParamsError: a file missing, of another digest, or a .params of another vk;
            no or several files of the shape's IC length (``official_file``).
        KeyFileError: (``full_check``) a point off its curve or subgroup.
        ShapeMismatchError: the key's point counts are not the shape's.
    """
    manifest = official.read_manifest() if manifest is None else manifest
    found = official.official_file(shape, params_dir, manifest)
    if found is None:
        names = official.family_files(family_of(shape).name, shape.sector_size, ".params", manifest)
        where = official.params_dir(params_dir)
        raise official.OfficialParamsError(where / names[0] if len(names) == 1 else where, "<missing>",
                                           f"no file of Filecoin's key for {shape.name} "
                                           f"({' or '.join(names) or 'the manifest names none'})")
    stem = found.name.removesuffix(".params")
    paths = {ext: official.verify_official(stem + ext, params_dir, manifest) for ext in (".params", ".vk")}
    vk_bytes = paths[".vk"].read_bytes()
    with open(paths[".params"], "rb") as f:   # bellperson writes a Parameters' vk first, as a .vk file holds it
        if f.read(len(vk_bytes)) != vk_bytes:
            raise official.OfficialParamsError(paths[".params"], "vk", f"does not begin with the verifying key of "
                                               f"{paths['.vk'].name}")
    if not full_check:
        trust_params_file(paths[".params"])   # trusted by its BLAKE2b digest, as Filecoin trusts it
    # with full_check every point is checked here (on the curve, in its subgroup) and recorded
    pk, st = read_params(paths[".params"], check=True if full_check else None), shape.stats()
    if (len(pk.h), len(pk.l)) != (st["domain"] - 1, st["aux"]):
        raise ShapeMismatchError(f"{paths['.params']}: h has {len(pk.h):,} points and l {len(pk.l):,}; shape "
                                 f"{shape.name} needs {st['domain'] - 1:,} and {st['aux']:,}")
    return paths


def use_official_params(shape_name: str, params_out, vk_out, params_dir=None, mem_json=None, mem_gb=None,
                        manifest: dict | None = None) -> None:
    """The workflow's ``official_params`` step, in place of ``setup`` for a shape whose official
    key is present (``official.official_file``) and whose PCE is in upstream order: Filecoin's
    ``.params`` and ``.vk`` checked (:func:`_official_pair`: digests on first use, the vk prefix,
    the counts) and linked as ``params_out`` and ``vk_out`` (symbolic links, each made under a
    temporary name and renamed: a 44 GiB file is not copied). Every proof made with it is verified
    under the official vk before it is written (``prove_batch``).

    Raises:
        OfficialParamsError, ShapeMismatchError: as ``_official_pair``; nothing is linked.
    """
    shape = shape_by_name(shape_name)
    with measured("official_params", mem_json, predict_step_bytes("official_params"), mem_gb):
        paths = _official_pair(shape, params_dir, manifest)
        for src, dst in ((paths[".params"], params_out), (paths[".vk"], vk_out)):
            dst = Path(dst)
            tmp = dst.with_name(f".{dst.name}.link")
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(Path(src).resolve())
            os.replace(tmp, dst)
        progress.info("%s: Filecoin's official key %s (setup skipped)", shape_name, paths[".params"])


def _synthetic_input(shape, out) -> Path:
    """``check_official_params``' default input of ``shape``, written as ``out``: for PoRep a
    synthetic committed-capacity sector, id 1 (``prepare``); for PoSt the vanilla proof over
    synthetic sealed sectors (``post_vanilla``): a WindowPoSt over ids 1..sector_count (one
    partition filled), a WinningPoSt over a set of sector 1 alone."""
    rnd, prover = "check-params", "00" * 32
    if family_of(shape).name == "post":
        ids = range(1, shape.sector_count + 1) if shape.kind == "window" else [1]
        post_vanilla(shape.kind, shape.name, [], out, rnd, prover, synthetic_ids=ids)
    else:
        prepare({"id": 1, "synthetic": True}, out, shape.name, rnd, prover)
    return Path(out)


def check_official_params(shape_name: str = "porep-2KiB", params_dir=None, c1=None, workdir=None,
                          backend: str = "auto", threads: int = 1, manifest: dict | None = None,
                          full_check: bool = False) -> dict:
    """``cuzk check-params``: one input of ``shape_name`` (a PoRep sector, or a PoSt vanilla proof)
    proved with Filecoin's official ``.params`` of the shape (``official.official_file``) and the
    proof verified with the official ``.vk``, through the workflow's own steps (pce_extract,
    check_c1, synthesize, prove, verify) in a scratch folder. A proof made with a key whose constraint system differs from ours in any row,
    column or coefficient does not verify, so this is the end-to-end check that the shape's
    R1CS is rust-fil-proofs' (its rows in enforce order, its columns in allocation order); the
    key's point counts are checked against the shape's first (h: domain − 1, l: aux, a/b: the
    densities).

    Args:
        shape_name: a PoRep or PoSt shape (``cuzk shapes``); its files are the manifest's
            ``v28-stacked-proof-of-replication-…`` (PoRep) or ``v28-proof-of-spacetime-fallback-…``
            (PoSt: the one whose vk has the shape's IC length) ``.params`` and ``.vk`` of its
            sector size.
        params_dir: the official files' folder (``official.params_dir``'s default when None).
        c1: the input in cuzk's form, a C1 (``cuzk c1 convert`` converts Filecoin's) or a PoSt
            vanilla file (``cuzk post convert``); default synthetic (:func:`_synthetic_input`).
        workdir: parent of the scratch folder (default: the system's temporary folder).
        backend, threads: as the prove step.
        manifest: file name → {digest, sector_size, …} (default: the packaged
            ``parameters.json``; tests pass their own).
        full_check: check every point of the ``.params`` (curve and subgroup) besides its
            digest; by default the digest alone is trusted (``trust_params_file``).

    Returns:
        the verify step's result (``verify_sector``) with "params" and "vk" (the official paths).

    Raises:
        OfficialParamsError: a file is missing or its BLAKE2b digest differs from the manifest
            (names the file), or the ``.params`` does not begin with the ``.vk``'s key.
        KeyFileError: with ``full_check``, a point off its curve or outside its subgroup.
        ShapeMismatchError: the key's point counts are not the shape's.
        ProofVerificationError: the proof made with the official key does not verify (the
            constraint systems differ).
        ValueError: not a PoRep or PoSt shape.
    """
    shape = shape_by_name(shape_name)
    if family_of(shape).name not in ("porep", "porep-commd", "post"):
        raise ValueError(f"check-params: {shape_name} is not a PoRep or PoSt shape")
    paths = _official_pair(shape, params_dir, manifest, full_check)
    with tempfile.TemporaryDirectory(prefix="cuzk-check-params-", dir=workdir) as tmp:
        wd = Path(tmp)
        pce = wd / f"{shape.name}.pce"
        pce_extract(shape.name, pce, upstream_order=family_of(shape).name in UPSTREAM_ORDER_FAMILIES)
        if c1 is None:
            c1 = _synthetic_input(shape, wd / "input.json")
        record = wd / "c1.checked.json"
        label = check_input(c1, record, shape.name)["label"]
        synthesize_sector(c1, pce, wd / "witness", checked=record)
        prove_batch(pce, paths[".params"], [c1], [wd / "witness"], wd / "proofs", backend=backend, threads=threads,
                    checked=[record])
        res = verify_sector(paths[".vk"], c1, proof_file(wd / "proofs", label), wd / "verify.json", shape.name,
                            checked=record)
    return res | {"params": str(paths[".params"]), "vk": str(paths[".vk"])}
