# Thin: verify one proof file (a sector's PoRep proofs, or a PoSt proof).
from cuzk.pipeline import start_log, verify_sector

start_log(snakemake.log[0])
verify_sector(
    snakemake.input.get("vk"),  # none for a rejected sector: its check record raises first
    snakemake.input.vanilla,
    snakemake.params.proof,
    snakemake.output.json,
    shape_name=snakemake.params.shape,
    mem_json=snakemake.output.mem,
    mem_gb=snakemake.resources.mem_gb,
    checked=snakemake.input.get("checked"),
)
