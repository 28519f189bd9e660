# Thin: witness files of one input (a sector's C1, or a PoSt vanilla file).
from cuzk.pipeline import start_log, synthesize_sector

start_log(snakemake.log[0])
synthesize_sector(
    snakemake.input.vanilla, snakemake.input.pce, snakemake.output.wit, mem_json=snakemake.output.mem, mem_gb=snakemake.resources.mem_gb,
    threads=snakemake.threads,
)
