"""The workflow's steps: one function per Snakemake rule, each measuring its own memory.

Each step checks its inputs before expensive work, writes outputs through temporary files, and
(when given ``mem_json``) writes its seconds, average/peak RSS, GPU peak, the memory model's
prediction and the RSS timeline as JSON beside Snakemake's benchmark file.
"""

from __future__ import annotations

import json
import logging
import sys
import time
import warnings
from contextlib import contextmanager
from pathlib import Path

from .backend import get_backend
from .circuits import commd
from .fileio import atomic_dir, atomic_write_text
from .groth16 import DevelopmentSetupWarning, Prover, read_params, read_proofs, read_vk, setup, verify, write_params, write_proofs, write_vk
from .memory import MemorySampler, write_report
from .memory.model import check_budget, predict_step_bytes
from .r1cs import ConstraintSystem
from .r1cs.pce import read_pce, read_pce_header, write_pce
from .r1cs.witness import read_witness, write_witness
from .sector import prepare_sector, read_c1

log = logging.getLogger(__name__)
progress = logging.getLogger("cuzk.progress")


class ProofVerificationError(RuntimeError):
    """A proof failed verification (names the sector, the partition and the file)."""


class ShapeMismatchError(ValueError):
    """An input was made for another circuit shape (names the file and both shapes)."""


@contextmanager
def measured(step: str, mem_json, predicted: int | None, budget_gb: float | None = None, extra: dict | None = None):
    """Check the budget, then sample memory around the block and write ``mem_json``.

    Raises:
        MemoryBudgetError: ``predicted`` exceeds ``budget_gb``, before the block runs.
    """
    if predicted is not None:
        check_budget(step, predicted, budget_gb)
    started = time.time()
    sampler = MemorySampler().start()
    try:
        yield
    finally:
        rep = sampler.stop()
        if mem_json:
            info = {"step": step, "rss_predicted_bytes": predicted, "mem_gb": budget_gb, "started_at": started}
            write_report(mem_json, rep, info | (extra or {}))


def pce_digest(pce_path) -> str:
    """A PCE file's identity: the hex SHA-256 checksum stored in its last 32 bytes."""
    with open(pce_path, "rb") as f:
        f.seek(-32, 2)
        return f.read(32).hex()


def check_c1_shape(c1: dict, c1_path, shape: commd.CommDShape) -> None:
    """The C1 file must carry exactly the shape's sector size, partitions and challenges.

    A C1 file cut to fewer partitions or challenges is consistent in itself, so only the
    shape (from the PCE, or the sector size) can catch it.

    Raises:
        ShapeMismatchError: names the file, what it has and the shape.
    """
    have = (c1["sector_size"], c1["partitions"], c1["challenges_per_partition"])
    if have != (shape.sector_size, shape.partitions, shape.challenges):
        raise ShapeMismatchError(
            f"{c1_path}: sector of {have[0]} bytes with {have[1]} partition(s) × {have[2]} challenge(s) does not fit "
            f"shape {shape.name} ({shape.partitions} × {shape.challenges})"
        )


def shape_of_pce(pce_path) -> commd.CommDShape:
    """The circuit shape a PCE file records (from its header only)."""
    desc = read_pce_header(pce_path)["description"]
    return commd.shape_by_name(desc["name"])


def start_log(path) -> None:
    """Send this process's log records (INFO and up) to ``path`` (a rule's ``log:`` file), and
    progress of long steps (the ``cuzk.progress`` logger) to stderr, which Snakemake shows."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(filename=path, level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", force=True)
    console = logging.StreamHandler(sys.stderr)
    console.setFormatter(logging.Formatter("cuzk: %(message)s"))
    progress.addHandler(console)
    logging.captureWarnings(True)
    previous = sys.excepthook

    def hook(etype, value, tb):  # the error that stops a job belongs in its log too
        logging.getLogger("cuzk").error("%s: %s", etype.__name__, value)
        previous(etype, value, tb)

    sys.excepthook = hook


# --- steps --------------------------------------------------------------------------------------


def prepare(sector: dict, out, shape_name: str, randomness: str, prover_id_hex: str, mem_json=None, mem_gb=None) -> None:
    """C1 file of one configured sector ({"id", "data" or "generate"}) for ``shape_name``."""
    shape = commd.shape_by_name(shape_name)
    with measured("prepare", mem_json, predict_step_bytes("prepare", shape.stats()), mem_gb):
        prepare_sector(
            out, int(sector["id"]), shape.sector_size, shape.partitions, shape.challenges,
            data=sector.get("data"), generate_seed=sector.get("generate"),
            prover_id=bytes.fromhex(prover_id_hex), randomness=randomness,
        )


def pce_extract(shape_name: str, out, mem_json=None, mem_gb=None) -> None:
    """Record the R1CS of one partition of ``shape_name`` into a PCE file."""
    shape = commd.shape_by_name(shape_name)
    with measured("pce_extract", mem_json, predict_step_bytes("pce_extract", shape.stats()), mem_gb):
        cs = ConstraintSystem(shape=True, witness=False)
        commd.synthesize(cs, shape)
        r1cs = cs.finalize(consume=True)
        write_pce(out, r1cs, shape.describe())
        log.info("pce %s: %s", shape_name, r1cs.stats())


def setup_params(pce, params_out, vk_out, backend="auto", threads=1, mem_json=None, mem_gb=None) -> None:
    """Development setup for the shape of ``pce``; writes ``.params`` and ``.vk``."""
    shape = shape_of_pce(pce)
    with measured("setup", mem_json, predict_step_bytes("setup", shape.stats(), threads=threads), mem_gb):
        r1cs, _ = read_pce(pce)
        with get_backend(backend, threads=threads) as bk, warnings.catch_warnings():
            warnings.simplefilter("ignore", DevelopmentSetupWarning)
            log.warning("setup %s: development parameters (random toxic waste), not for chain use", shape.name)
            progress.info("setup %s: %d constraints, computing the key with %d worker(s)…", shape.name, r1cs.num_constraints, threads)
            pk = setup(r1cs, bk)
            progress.info("setup %s: key computed, writing %s", shape.name, params_out)
        write_params(params_out, pk)
        write_vk(vk_out, pk.vk)


def synthesize_sector(c1_path, pce, out_dir, mem_json=None, mem_gb=None) -> list[Path]:
    """Witness files (one per partition, ``out_dir/partition-<k>.wit``) for one sector.

    Raises:
        C1Error: the C1 file is malformed or inconsistent.
        ShapeMismatchError: the C1 file is for another sector size or proof setting.
    """
    shape = shape_of_pce(pce)
    c1 = read_c1(c1_path)
    check_c1_shape(c1, c1_path, shape)
    digest = pce_digest(pce)
    with measured("synthesize", mem_json, predict_step_bytes("synthesize", shape.stats()), mem_gb), atomic_dir(out_dir) as tmp:
        for k in range(shape.partitions):
            cs = ConstraintSystem(shape=False, witness=True)
            commd.synthesize(cs, shape, commd.witness_from_c1(c1, k))
            ins, aux = cs.assignment()
            write_witness(tmp / f"partition-{k}.wit", ins, aux, digest)
    return [Path(out_dir) / f"partition-{k}.wit" for k in range(shape.partitions)]


def prove_batch(pce, params, c1_paths, witness_dirs, out_dir, backend="auto", threads=1, mem_json=None, mem_gb=None) -> None:
    """Prove a batch of sectors of one shape with one resident parameter set.

    Each sector's partitions are proved in turn; every proof is verified before the sector's
    proof file ``out_dir/<sector id>.proof`` (partitions × 192 bytes) is written. The
    directory appears only when the whole batch is done.

    Raises:
        ShapeMismatchError: a C1 file of another shape, or a witness made from another C1.
        WitnessFormatError: a witness file is corrupt, truncated, or made for another PCE.
        ProofVerificationError: a proof does not verify (nothing is written for that sector).
    """
    shape = shape_of_pce(pce)
    n = len(c1_paths)
    if n != len(witness_dirs):
        raise ValueError("prove_batch: c1_paths and witness_dirs differ in length")
    digest = pce_digest(pce)
    c1s = [read_c1(p) for p in c1_paths]
    for c1, p in zip(c1s, c1_paths):
        check_c1_shape(c1, p, shape)
    pred = predict_step_bytes("prove", shape.stats(), threads=threads, batch=n)
    with measured("prove", mem_json, pred, mem_gb, {"sectors": n}), atomic_dir(out_dir) as tmp:
        r1cs, _ = read_pce(pce)
        pk = read_params(params)
        with get_backend(backend, threads=threads) as bk, Prover(pk, r1cs, bk) as prover:
            for c1, wdir in zip(c1s, witness_dirs):
                proofs = []
                for k in range(shape.partitions):
                    wpath = Path(wdir) / f"partition-{k}.wit"
                    ins, aux = read_witness(wpath, pce_digest=digest)
                    if [int(v) for v in ins[1:]] != commd.public_inputs(c1, k):
                        raise ShapeMismatchError(f"{wpath}: its public inputs are not those of sector {c1['sector_id']} partition {k} (witness of another C1?)")
                    proof = prover.prove(ins, aux)
                    if not verify(pk.vk, proof, commd.public_inputs(c1, k)):
                        raise ProofVerificationError(f"sector {c1['sector_id']} partition {k}: proof does not verify")
                    proofs.append(proof)
                write_proofs(tmp / f"{c1['sector_id']}.proof", proofs)
                progress.info("prove: sector %s verified (%d of %d in this batch)", c1["sector_id"], c1s.index(c1) + 1, n)


def verify_sector(vk_path, c1_path, proof_path, out_json, mem_json=None, mem_gb=None) -> dict:
    """Verify one sector's proof file against its C1 public inputs; write the result JSON.

    The number of partitions and challenges comes from the sector size's shape, not from the
    C1 file, so a C1 cut to fewer partitions or challenges is refused.

    Raises:
        ShapeMismatchError: the C1 file does not have its shape's partitions and challenges, or
            the verifying key takes another number of public inputs.
        ProofVerificationError: any partition's proof fails (the result file is not written).
    """
    with measured("verify", mem_json, predict_step_bytes("verify"), mem_gb):
        vk = read_vk(vk_path)
        c1 = read_c1(c1_path)
        shape = commd.shape_for(c1["sector_size"], allow_test=True)
        check_c1_shape(c1, c1_path, shape)
        if len(vk.ic) != shape.challenges + 2:
            raise ShapeMismatchError(f"{vk_path}: takes {len(vk.ic) - 1} public inputs, shape {shape.name} has {shape.challenges + 1}")
        proofs = read_proofs(proof_path)
        if len(proofs) != c1["partitions"]:
            raise ProofVerificationError(f"{proof_path}: {len(proofs)} proofs for {c1['partitions']} partitions")
        for k, p in enumerate(proofs):
            if not verify(vk, p, commd.public_inputs(c1, k)):
                raise ProofVerificationError(f"{proof_path}: sector {c1['sector_id']} partition {k} does not verify")
        res = {"sector_id": c1["sector_id"], "partitions": len(proofs), "verified": True,
               "comm_d": bytes(c1["comm_d"]).hex()}
        atomic_write_text(out_json, json.dumps(res, indent=2) + "\n")
        return res
