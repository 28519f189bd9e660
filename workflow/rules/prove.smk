# Per batch of up to max_batch_size sectors of one shape: parameters loaded once, every proof
# verified before it is written. Outputs one <sid>.proof per sector in the batch directory.
_prove_mem = mem_gb(
    "prove",
    "prove",
    shape=lambda wc: batch_shape(wc.batch),
    threads=THREADS,
    batch=lambda wc: len(BATCHES[wc.batch]),
)


rule prove:
    input:
        pce=lambda wc: f"{RESULTS}/pce/{batch_shape(wc.batch)}.pce",
        params=lambda wc: f"{RESULTS}/params/{batch_shape(wc.batch)}.params",
        vanilla=lambda wc: [f"{RESULTS}/c1/{sid}.c1.json" for sid in BATCHES[wc.batch]],
        wit=lambda wc: [f"{RESULTS}/witness/{sid}" for sid in BATCHES[wc.batch]],
    output:
        proofs=directory(f"{RESULTS}/proofs/{{batch}}"),
        mem=bench_paths("prove", "{batch}")[1],
    log:
        bench_paths("prove", "{batch}")[2],
    benchmark:
        bench_paths("prove", "{batch}")[0]
    conda:
        "../envs/cuzk.yaml"
    threads: THREADS
    resources:
        mem_gb=_prove_mem,
        mem_mb=mem_mb(_prove_mem),
        gpu=JOB_GPUS,
    params:
        sids=lambda wc: BATCHES[wc.batch],
        backend=config["backend"],
        gpu_mem_limit_gb=GPU_MEM_LIMIT_GB,
    script:
        "../scripts/prove.py"
