# Prover benchmark on synthetic circuits (target: bench_all): seconds per phase, peak memory.
rule bench_all:
    input:
        expand(f"{RESULTS}/bench/prove_{{n}}.json", n=config["bench"]["constraints"])
        if "bench" in config
        else [],


rule bench_prove:
    output:
        json=f"{RESULTS}/bench/prove_{{n}}.json",
    log:
        f"{RESULTS}/logs/bench_prove/{{n}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/bench_prove/{{n}}.tsv"
    conda:
        "../envs/cuzk.yaml"
    threads: THREADS
    resources:
        mem_gb=bench_prove_gb,
        mem_mb=lambda wc, threads: 1024 * bench_prove_gb(wc, threads),
    params:
        inputs=config.get("bench", {}).get("inputs", 4),
        bit_share=config.get("bench", {}).get("bit_share", 0.9),
        backend=config["backend"],
    script:
        "../scripts/bench_prove.py"
