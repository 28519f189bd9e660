# Prover benchmark on a synthetic circuit: setup, witness, prove, verify, with per-phase seconds.
rule bench_prove:
    output:
        json=f"{RESULTS}/bench/prove_{{n}}.json",
    params:
        inputs=config["bench"]["inputs"],
        bit_share=config["bench"]["bit_share"],
        backend=config["backend"],
    threads: workflow.cores
    resources:
        mem_gb=lambda wc, threads: mem_gb_for(prove_bench_bytes(int(wc.n), threads)),
        mem_mb=lambda wc, threads: 1024 * mem_gb_for(prove_bench_bytes(int(wc.n), threads)),
    benchmark:
        f"{RESULTS}/benchmarks/bench_prove_{{n}}.tsv"
    script:
        "../scripts/bench_prove.py"
