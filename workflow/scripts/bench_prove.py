# Thin: read the rule's params and run cuzk's prove benchmark.
from cuzk.bench import bench_prove
from cuzk.pipeline import start_log

if __name__ == "__main__":  # worker processes are spawned: guard the entry point
    start_log(snakemake.log[0])
    bench_prove(
        constraints=int(snakemake.wildcards.n),
        inputs=snakemake.params.inputs,
        bit_share=snakemake.params.bit_share,
        backend=snakemake.params.backend,
        threads=snakemake.threads,
        json_path=snakemake.output.json,
        mem_gb=snakemake.resources.mem_gb,
    )
