# Sector data -> Fr32 padding -> comm_d tree -> (sealing: SDR labels, tree_c, tree_r_last, comm_r)
# -> challenges -> C1 file (vanilla proofs), and the sealed-sector file when PoSt is on.


# With PoSt on, prepare also writes the sealed-sector file (tree_r_last, comm_c) PoSt reads.
rule prepare:
    input:
        data=sector_data,
    output:
        **({"sealed": R.sealed("{sid}")} if POST_KINDS else {}),
        c1=R.c1("{sid}"),
        mem=R.record("prepare", "{sid}"),
    log:
        R.log("prepare", "{sid}"),
    benchmark:
        R.benchmark("prepare", "{sid}")
    conda:
        "../envs/cuzk.yaml"
    resources:
        **job_memory("prepare", "prepare", shape=sector_shape),
    params:
        sector=sector,
        randomness=config["randomness"],
        prover_id=config["prover_id"],
    script:
        "../scripts/prepare.py"
