# Once per circuit shape: record the R1CS (A, B, C) into a PCE file.


rule pce_extract:
    output:
        pce=R.pce("{shape}"),
        mem=R.record("pce_extract", "{shape}"),
    log:
        R.log("pce_extract", "{shape}"),
    benchmark:
        R.benchmark("pce_extract", "{shape}")
    priority: shape_priority
    conda:
        "../envs/cuzk.yaml"
    resources:
        **job_memory("pce_extract", "pce_extract", shape=wc_shape),
    params:
        upstream_order=lambda wc: upstream_order_of(wc.shape),
    script:
        "../scripts/pce_extract.py"
