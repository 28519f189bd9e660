"""The name of every file a workflow run writes, in one place.

:class:`Results` names each output under the results folder (the workflow's rules take their
``input:``/``output:``/``log:``/``benchmark:`` paths from it; any argument may be a Snakemake
wildcard such as ``"{sid}"``); the module functions name the files inside a step's output folder
(a partition's witness, an input's proof) and the per-job memory record. Imports nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: Suffix of a job's memory record (:mod:`cuzk.memory.record`), beside Snakemake's benchmark TSV.
RECORD_SUFFIX = ".mem.json"


def post_target(kind, size) -> str:
    """The job name of a PoSt target: ``<kind>-post-<size>`` (its witness and proof folders)."""
    return f"{kind}-post-{size}"


def post_label(kind) -> str:
    """The label of a PoSt input (its proof file's stem): ``<kind>-post``."""
    return f"{kind}-post"


def partition_witness(witness_dir, k) -> Path:
    """Partition ``k``'s witness file in a witness folder: ``partition-<k>.wit``."""
    return Path(witness_dir) / f"partition-{k}.wit"


def proof_file(proof_dir, label) -> str:
    """The proof file of one input in a proofs folder: ``<label>.proof`` (label: a sector id,
    or :func:`post_label`)."""
    return f"{proof_dir}/{label}.proof"


def record_job(path) -> str:
    """The job a memory record belongs to, from its file name (``<job>.mem.json``)."""
    return Path(path).name.removesuffix(RECORD_SUFFIX)


def record_rule(path) -> str | None:
    """The workflow rule a memory record belongs to, from its folder (``benchmarks/<rule>/``,
    :meth:`Results.record`), or None for a record kept elsewhere."""
    p = Path(path)
    return p.parent.name if p.parent.parent.name == "benchmarks" else None


@dataclass(frozen=True)
class Results:
    """Every output of a run under ``root`` (a string, as Snakemake's patterns are)."""

    root: str

    def c1(self, sid) -> str:
        """A sector's C1 file (its vanilla proofs)."""
        return f"{self.root}/c1/{sid}.c1.json"

    def imported_c1(self, sid) -> str:
        """A sector's C1 given in Filecoin's form (config ``c1``), converted to cuzk's."""
        return f"{self.root}/c1/{sid}.imported.c1.json"

    def update(self, sid) -> str:
        """A SnapDeals sector's input file (its partition vanilla proofs, :mod:`cuzk.sector.update_doc`)."""
        return f"{self.root}/update/{sid}.update.json"

    def checked(self, sid) -> str:
        """A sector's check record: its C1 checked once, trusted later by SHA-256."""
        return f"{self.root}/c1/{sid}.checked.json"

    def partition(self, sid, k) -> str:
        """Partition ``k``'s witness file of a sector (a job of its own)."""
        return str(partition_witness(self.witness(sid), k))

    def sealed(self, sid) -> str:
        """A sector's sealed-sector file (read by PoSt)."""
        return f"{self.root}/sealed/{sid}.sealed.npz"

    def post_vanilla(self, kind, size) -> str:
        """The vanilla PoSt proofs of ``kind`` over the sectors of ``size``."""
        return f"{self.root}/post/{kind}-{size}.vanilla.json"

    def post_checked(self, kind, size) -> str:
        """The check record of a vanilla PoSt file: checked once, trusted later by SHA-256."""
        return f"{self.root}/post/{kind}-{size}.checked.json"

    def pce(self, shape) -> str:
        """A circuit shape's PCE file."""
        return f"{self.root}/pce/{shape}.pce"

    def params(self, shape) -> str:
        """A circuit shape's Groth16 parameters."""
        return f"{self.root}/params/{shape}.params"

    def vk(self, shape) -> str:
        """A circuit shape's verifying key."""
        return f"{self.root}/params/{shape}.vk"

    def witness(self, job) -> str:
        """A witness folder (one file per partition): job = sector id or :func:`post_target`."""
        return f"{self.root}/witness/{job}"

    def proofs(self, job) -> str:
        """A proofs folder (one file per input): job = batch id or :func:`post_target`."""
        return f"{self.root}/proofs/{job}"

    def proof(self, job, label) -> str:
        """The proof file of input ``label`` in proofs folder ``job``."""
        return proof_file(self.proofs(job), label)

    def verified(self, job) -> str:
        """A verification result: job = sector id or :func:`post_target`."""
        return f"{self.root}/verify/{job}.json"

    def benchmark(self, rule, job) -> str:
        """Snakemake's benchmark TSV of a rule's job."""
        return f"{self.root}/benchmarks/{rule}/{job}.tsv"

    def record(self, rule, job) -> str:
        """The memory record (:class:`cuzk.memory.StepRecord`) of a rule's job."""
        return f"{self.root}/benchmarks/{rule}/{job}{RECORD_SUFFIX}"

    def log(self, rule, job) -> str:
        """The log of a rule's job."""
        return f"{self.root}/logs/{rule}/{job}.log"

    def report(self, name) -> str:
        """A file (or folder) of the run's report: steps.tsv, summary.md, memory."""
        return f"{self.root}/report/{name}"

    def bench(self, n) -> str:
        """The prove benchmark's JSON for ``n`` constraints."""
        return f"{self.root}/bench/prove_{n}.json"


__all__ = ["RECORD_SUFFIX", "Results", "partition_witness", "post_label", "post_target", "proof_file", "record_job"]
