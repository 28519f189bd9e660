# Thin: Filecoin's official key of one shape, checked and linked in place of setup.
from cuzk.pipeline import start_log, use_official_params

start_log(snakemake.log[0])
use_official_params(
    snakemake.wildcards.shape,
    snakemake.output.params,
    snakemake.output.vk,
    params_dir=snakemake.params.params_dir,
    mem_json=snakemake.output.mem,
    mem_gb=snakemake.resources.mem_gb,
)
