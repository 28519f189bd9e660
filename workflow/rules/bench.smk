# Prover benchmark on a synthetic circuit: setup, witness, prove, verify, with per-phase seconds.
rule bench_prove:
    output:
        json=f"{RESULTS}/bench/prove_{{n}}.json",
    params:
        inputs=config["bench"]["inputs"],
        bit_share=config["bench"]["bit_share"],
        backend=config["backend"],
    threads: min(workflow.cores, 16)
    resources:
        mem_gb=bench_prove_gb,
        mem_mb=lambda wc, threads: 1024 * bench_prove_gb(wc, threads),
    benchmark:
        f"{RESULTS}/benchmarks/bench_prove_{{n}}.tsv"
    script:
        "../scripts/bench_prove.py"
