# Once per circuit shape: development Groth16 parameters (random toxic waste: not for chain use).


rule setup:
    input:
        pce=R.pce("{shape}"),
    output:
        params=R.params("{shape}"),
        vk=R.vk("{shape}"),
        mem=R.record("setup", "{shape}"),
    log:
        R.log("setup", "{shape}"),
    benchmark:
        R.benchmark("setup", "{shape}")
    priority: shape_priority
    conda:
        "../envs/cuzk.yaml"
    threads: THREADS
    resources:
        **job_memory("setup", "setup", shape=wc_shape, threads=THREADS),
        gpu=JOB_GPUS,
    params:
        backend=config["backend"],
        gpu_mem_limit_gb=GPU_MEM_LIMIT_GB,
    script:
        "../scripts/setup.py"
