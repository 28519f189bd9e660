# Prover benchmark on synthetic circuits (target: bench_all): seconds per phase, peak memory.
rule bench_all:
    input:
        expand(R.bench("{n}"), n=config["bench"]["constraints"])
        if "bench" in config
        else [],


rule bench_prove:
    output:
        json=R.bench("{n}"),
    log:
        R.log("bench_prove", "{n}"),
    benchmark:
        R.benchmark("bench_prove", "{n}")
    conda:
        "../envs/cuzk.yaml"
    threads: THREADS
    resources:
        mem_gb=bench_prove_gb,
        mem_mb=bench_prove_mb,
        mem_mb_per_cpu=None,
    params:
        inputs=config.get("bench", {}).get("inputs", 4),
        bit_share=config.get("bench", {}).get("bit_share", 0.9),
        backend=config["backend"],
    script:
        "../scripts/bench_prove.py"
