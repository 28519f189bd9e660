# Per batch of up to max_batch_size sectors of one shape: parameters loaded once, every proof
# verified before it is written. Outputs one <sid>.proof per sector in the batch directory.


rule prove:
    input:
        unpack(batch_inputs),
    output:
        proofs=directory(R.proofs("{batch}")),
        mem=R.record("prove", "{batch}"),
    log:
        R.log("prove", "{batch}"),
    benchmark:
        R.benchmark("prove", "{batch}")
    priority: KEY_PRIORITY
    conda:
        "../envs/cuzk.yaml"
    threads: THREADS
    resources:
        **job_memory("prove", "prove", batch_shape_wc, THREADS, batch_size),
        gpu=JOB_GPUS,
    params:
        sids=batch_sids,
        witness_dirs=batch_witness_dirs,
        backend=config["backend"],
        gpu_mem_limit_gb=GPU_MEM_LIMIT_GB,
    script:
        "../scripts/prove.py"
