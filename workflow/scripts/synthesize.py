# Thin: one sector's witness files.
from cuzk.pipeline import start_log, synthesize_sector

start_log(snakemake.log[0])
synthesize_sector(
    snakemake.input.c1, snakemake.input.pce, snakemake.output.wit, mem_json=snakemake.output.mem, mem_gb=snakemake.resources.mem_gb
)
