# Sector data -> Fr32 padding -> comm_d tree -> challenges -> C1 file (vanilla proofs).


def sector_data(wc):
    """The data file as an input when it exists; a missing one fails this sector's own job
    (with the file named) instead of the whole DAG, so --keep-going proves the others."""
    path = SECTORS[wc.sid].get("data")
    return [path] if path and os.path.exists(path) else []


_prep_mem = mem_gb("prepare", "prepare", shape=lambda wc: SECTORS[wc.sid]["shape"])


rule prepare:
    input:
        data=sector_data,
    output:
        c1=f"{RESULTS}/c1/{{sid}}.c1.json",
        mem=bench_paths("prepare", "{sid}")[1],
    params:
        sector=lambda wc: SECTORS[wc.sid],
        randomness=config["randomness"],
        prover_id=config["prover_id"],
    resources:
        mem_gb=_prep_mem,
        mem_mb=mem_mb(_prep_mem),
    log:
        bench_paths("prepare", "{sid}")[2],
    benchmark:
        bench_paths("prepare", "{sid}")[0]
    conda:
        "../envs/cuzk.yaml"
    script:
        "../scripts/prepare.py"
