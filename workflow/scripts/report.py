# Thin: the time and memory report of the whole batch.
from cuzk.pipeline import start_log
from cuzk.report import write_report

start_log(snakemake.log[0])
write_report(snakemake.input.mem, snakemake.input.verified, snakemake.output.steps, snakemake.output.summary, snakemake.output.plots,
             budget_gb=snakemake.params.budget_gb)
