# Per sector: witness generation (one witness file per partition, bits packed).


rule synthesize:
    input:
        vanilla=R.c1("{sid}"),
        pce=sector_pce,
    output:
        wit=directory(R.witness("{sid}")),
        mem=R.record("synthesize", "{sid}"),
    log:
        R.log("synthesize", "{sid}"),
    benchmark:
        R.benchmark("synthesize", "{sid}")
    conda:
        "../envs/cuzk.yaml"
    resources:
        **job_memory("synthesize", "synthesize", shape=sector_shape),
    script:
        "../scripts/synthesize.py"
