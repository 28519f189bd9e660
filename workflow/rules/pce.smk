# Once per circuit shape: record the R1CS (A, B, C) into a PCE file.
_pce_mem = mem_gb("pce_extract", "pce_extract", shape=lambda wc: wc.shape)


rule pce_extract:
    output:
        pce=f"{RESULTS}/pce/{{shape}}.pce",
        mem=bench_paths("pce_extract", "{shape}")[1],
    log:
        bench_paths("pce_extract", "{shape}")[2],
    benchmark:
        bench_paths("pce_extract", "{shape}")[0]
    conda:
        "../envs/cuzk.yaml"
    resources:
        mem_gb=_pce_mem,
        mem_mb=mem_mb(_pce_mem),
    script:
        "../scripts/pce_extract.py"
