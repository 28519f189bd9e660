# Thin: one sector's C1 file.
from cuzk.pipeline import prepare, start_log

start_log(snakemake.log[0])
prepare(
    snakemake.params.sector,
    snakemake.output.c1,
    snakemake.params.sector["shape"],
    snakemake.params.randomness,
    snakemake.params.prover_id,
    mem_json=snakemake.output.mem,
    mem_gb=snakemake.resources.mem_gb,
)
