# Thin: check one input file (a sector's C1, or a PoSt vanilla file) once and write its check record.
from cuzk.pipeline import check_input, start_log

start_log(snakemake.log[0])
check_input(
    snakemake.input.vanilla,
    snakemake.output.checked,
    snakemake.params.shape,
    mem_json=snakemake.output.mem,
    mem_gb=snakemake.resources.mem_gb,
    partitions=snakemake.params.get("partitions", 1),
    threads=snakemake.threads,
    reject_bad=snakemake.params.get("reject_bad", False),
)
