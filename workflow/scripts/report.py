# Thin: the time and memory report of the whole batch.
from pathlib import Path

from cuzk.pipeline import start_log
from cuzk.report import write_report

start_log(snakemake.log[0])
# the report is made again after proofs changed: an earlier reverify's table names them as they were
Path(snakemake.params.stale).unlink(missing_ok=True)
write_report(snakemake.input.mem, snakemake.input.verified, snakemake.output.steps, snakemake.output.summary, snakemake.output.plots,
             budget_gb=snakemake.params.budget_gb, rejected=snakemake.input.get("rejected", []))
