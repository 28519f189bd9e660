# Thin: one shape's development parameters.
from cuzk.pipeline import setup_params, start_log

if __name__ == "__main__":  # worker processes are spawned: guard the entry point
    start_log(snakemake.log[0])
    setup_params(
        snakemake.input.pce,
        snakemake.output.params,
        snakemake.output.vk,
        backend=snakemake.params.backend,
        gpu_mem_limit_gb=snakemake.params.gpu_mem_limit_gb,
        threads=snakemake.threads,
        mem_json=snakemake.output.mem,
        mem_gb=snakemake.resources.mem_gb,
    )
