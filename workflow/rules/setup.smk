# Once per circuit shape: development Groth16 parameters (random toxic waste: not for chain use).
_setup_mem = mem_gb("setup", "setup", shape=lambda wc: wc.shape, threads=THREADS)


rule setup:
    input:
        pce=f"{RESULTS}/pce/{{shape}}.pce",
    output:
        params=f"{RESULTS}/params/{{shape}}.params",
        vk=f"{RESULTS}/params/{{shape}}.vk",
        mem=bench_paths("setup", "{shape}")[1],
    log:
        bench_paths("setup", "{shape}")[2],
    benchmark:
        bench_paths("setup", "{shape}")[0]
    conda:
        "../envs/cuzk.yaml"
    threads: THREADS
    resources:
        mem_gb=_setup_mem,
        mem_mb=mem_mb(_setup_mem),
        gpu=JOB_GPUS,
    params:
        backend=config["backend"],
        gpu_mem_limit_gb=GPU_MEM_LIMIT_GB,
    script:
        "../scripts/setup.py"
