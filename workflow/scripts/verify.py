# Thin: verify one sector's proof file.
from pathlib import Path

from cuzk.pipeline import start_log, verify_sector

start_log(snakemake.log[0])
verify_sector(
    snakemake.input.vk,
    snakemake.input.c1,
    Path(snakemake.input.proofs) / f"{snakemake.wildcards.sid}.proof",
    snakemake.output.json,
    mem_json=snakemake.output.mem,
    mem_gb=snakemake.resources.mem_gb,
)
