# Snakemake script of rule update_vanilla: cuzk.pipeline.update_vanilla.
from cuzk.pipeline import start_log, update_vanilla

start_log(snakemake.log[0])
update_vanilla(
    snakemake.params.sector,
    (list(snakemake.input.sealed) or [None])[0],  # none for a synthetic update
    snakemake.output.vanilla,
    snakemake.params.shape,
    mem_json=snakemake.output.mem,
    mem_gb=snakemake.resources.mem_gb,
)
