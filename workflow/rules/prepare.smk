# Sector data -> Fr32 padding -> comm_d tree -> challenges -> C1 file (vanilla proofs).


_prep_mem = mem_gb("prepare", "prepare", shape=lambda wc: SECTORS[wc.sid]["shape"])


rule prepare:
    input:
        data=sector_data,
    output:
        c1=f"{RESULTS}/c1/{{sid}}.c1.json",
        mem=bench_paths("prepare", "{sid}")[1],
    log:
        bench_paths("prepare", "{sid}")[2],
    benchmark:
        bench_paths("prepare", "{sid}")[0]
    conda:
        "../envs/cuzk.yaml"
    resources:
        mem_gb=_prep_mem,
        mem_mb=mem_mb(_prep_mem),
    params:
        sector=lambda wc: SECTORS[wc.sid],
        randomness=config["randomness"],
        prover_id=config["prover_id"],
    script:
        "../scripts/prepare.py"
