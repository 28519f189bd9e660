# Per sector: witness generation (one witness file per partition, bits packed).
_syn_mem = mem_gb("synthesize", "synthesize", shape=lambda wc: SECTORS[wc.sid]["shape"])


rule synthesize:
    input:
        vanilla=f"{RESULTS}/c1/{{sid}}.c1.json",
        pce=lambda wc: f"{RESULTS}/pce/{SECTORS[wc.sid]['shape']}.pce",
    output:
        wit=directory(f"{RESULTS}/witness/{{sid}}"),
        mem=bench_paths("synthesize", "{sid}")[1],
    log:
        bench_paths("synthesize", "{sid}")[2],
    benchmark:
        bench_paths("synthesize", "{sid}")[0]
    conda:
        "../envs/cuzk.yaml"
    resources:
        mem_gb=_syn_mem,
        mem_mb=mem_mb(_syn_mem),
    script:
        "../scripts/synthesize.py"
