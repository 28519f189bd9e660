# Thin: every proof verified again, then the report rewritten from the fresh verify records (also
# when a proof fails, so the report names it before the job fails).
from cuzk.pipeline import reverify, start_log
from cuzk.report import write_report

start_log(snakemake.log[0])
checks = snakemake.params.checks
try:
    reverify(checks, snakemake.params.table)
finally:
    write_report(snakemake.params.mem, [c["json"] for c in checks], snakemake.params.steps, snakemake.input[0],
                 snakemake.params.plots, budget_gb=snakemake.params.budget_gb)
