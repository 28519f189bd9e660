# Thin: one batch (sectors of one shape, or one PoSt) proved with one resident parameter set.
from cuzk.pipeline import prove_batch, start_log

if __name__ == "__main__":  # worker processes are spawned: guard the entry point
    start_log(snakemake.log[0])
    prove_batch(
        snakemake.input.pce,
        snakemake.input.params,
        snakemake.input.vanilla,
        snakemake.params.get("witness_dirs", snakemake.input.wit),
        snakemake.output.proofs,
        checked=snakemake.input.get("checked"),
        backend=snakemake.params.backend,
        gpu_mem_limit_gb=snakemake.params.gpu_mem_limit_gb,
        threads=snakemake.threads,
        mem_json=snakemake.output.mem,
        mem_gb=snakemake.resources.mem_gb,
    )
