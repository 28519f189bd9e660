# Thin: one shape's PCE file.
from cuzk.pipeline import pce_extract, start_log

start_log(snakemake.log[0])
pce_extract(
    snakemake.wildcards.shape,
    snakemake.output.pce,
    mem_json=snakemake.output.mem,
    mem_gb=snakemake.resources.mem_gb,
    upstream_order=snakemake.params.upstream_order,
)
