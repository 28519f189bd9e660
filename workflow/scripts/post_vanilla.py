# Thin: vanilla PoSt proofs over the sealed and synthetic sectors of one size.
from cuzk.pipeline import post_vanilla, start_log

start_log(snakemake.log[0])
post_vanilla(
    snakemake.wildcards.kind,
    snakemake.params.shape,
    snakemake.input.sealed,
    snakemake.output.vanilla,
    snakemake.params.randomness,
    snakemake.params.prover_id,
    synthetic_ids=snakemake.params.synthetic,
    mem_json=snakemake.output.mem,
    mem_gb=snakemake.resources.mem_gb,
)
