# Thin: one partition's witness file of a checked sector C1.
from cuzk.pipeline import start_log, synthesize_partition

start_log(snakemake.log[0])
synthesize_partition(
    snakemake.input.vanilla,
    snakemake.input.checked,
    snakemake.input.pce,
    int(snakemake.wildcards.k),
    snakemake.output.wit,
    mem_json=snakemake.output.mem,
    mem_gb=snakemake.resources.mem_gb,
    sha=snakemake.params.sha,
    poseidon=snakemake.params.poseidon,
    keep=snakemake.params.keep,
)
