# Per partition of a sector: its witness file (bits packed), a job of its own, so a sector's
# partitions run as many at once as --cores and --resources mem_gb allow.


rule synthesize:
    input:
        vanilla=sector_c1_wc,
        checked=R.checked("{sid}"),
        pce=sector_pce,
    output:
        wit=R.partition("{sid}", "{k}"),
        mem=R.record("synthesize", "{sid}-p{k}"),
    log:
        R.log("synthesize", "{sid}-p{k}"),
    benchmark:
        R.benchmark("synthesize", "{sid}-p{k}")
    priority: synthesize_priority
    conda:
        "../envs/cuzk.yaml"
    resources:
        **job_memory("synthesize", "synthesize", shape=sector_shape),
        gpu=SYNTHESIS_GPUS,
    params:
        sha=SYNTHESIS_SHA_PROVE,
        poseidon=SYNTHESIS_POSEIDON,
        keep=WITNESS_POSEIDON,
    script:
        "../scripts/synthesize_partition.py"
