# Thin: one sector's C1 file (and sealed-sector file when PoSt is on).
from cuzk.pipeline import prepare, start_log

start_log(snakemake.log[0])
prepare(
    snakemake.params.sector,
    snakemake.output.c1,
    snakemake.params.sector["shape"],
    snakemake.params.randomness,
    snakemake.params.prover_id,
    sealed_out=getattr(snakemake.output, "sealed", None),
    mem_json=snakemake.output.mem,
    mem_gb=snakemake.resources.mem_gb,
)
