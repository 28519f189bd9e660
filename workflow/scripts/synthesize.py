# Thin: witness files of one input (a PoSt vanilla file, trusted by its check record).
from cuzk.pipeline import start_log, synthesize_sector

start_log(snakemake.log[0])
synthesize_sector(
    snakemake.input.vanilla,
    snakemake.input.pce,
    snakemake.output.wit,
    mem_json=snakemake.output.mem,
    mem_gb=snakemake.resources.mem_gb,
    sha=snakemake.params.sha,
    poseidon=snakemake.params.poseidon,
    keep=snakemake.params.keep,
    checked=snakemake.input.get("checked"),
    threads=snakemake.threads,
)
