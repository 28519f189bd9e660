# Sector data -> Fr32 padding -> comm_d tree -> (sealing: SDR labels, tree_c, tree_r_last, comm_r)
# -> challenges -> C1 file (vanilla proofs), and the sealed-sector file when PoSt is on.


_prep_mem = mem_gb("prepare", "prepare", shape=lambda wc: SECTORS[wc.sid]["shape"])


# With PoSt on, prepare also writes the sealed-sector file (tree_r_last, comm_c) PoSt reads.
rule prepare:
    input:
        data=sector_data,
    output:
        **({"sealed": f"{RESULTS}/sealed/{{sid}}.sealed.npz"} if POST_KINDS else {}),
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
