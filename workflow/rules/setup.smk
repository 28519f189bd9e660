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
    wildcard_constraints:
        shape=SETUP_SHAPES_RE,
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


# In place of setup, for a shape whose official key is present and whose PCE is in upstream
# order (OFFICIAL_SHAPES): Filecoin's .params and .vk checked and linked.
rule official_params:
    output:
        params=R.params("{shape}"),
        vk=R.vk("{shape}"),
        mem=R.record("official_params", "{shape}"),
    log:
        R.log("official_params", "{shape}"),
    wildcard_constraints:
        shape=OFFICIAL_SHAPES_RE,
    priority: shape_priority
    conda:
        "../envs/cuzk.yaml"
    resources:
        **job_memory("official_params", "official_params"),
    params:
        params_dir=PARAMS_DIR,
    script:
        "../scripts/official_params.py"


# Target keys: every shape's PCE and parameters and every sector's C1 check, made ahead of a batch
# (cuzk sweep's shared run); no witness, no proof. A key is made even where every C1 is rejected.
rule keys:
    input:
        [f for sh in SHAPES for f in (R.pce(sh), R.params(sh))],
        expand(R.checked("{sid}"), sid=POREP_SECTORS),
