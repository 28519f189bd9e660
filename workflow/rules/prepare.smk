# Sector data -> Fr32 padding -> comm_d tree -> (sealing: SDR labels, tree_c, tree_r_last, comm_r)
# -> challenges -> C1 file (vanilla proofs), and the sealed-sector file when PoSt is on. A
# synthetic sector (config synthetic: true) gets a sparse synthetic C1 instead; a C1 made
# elsewhere (config c1: path) skips this step. Every C1 is then checked once (check_c1).


# With PoSt or SnapDeals on, prepare also writes the sealed-sector file (tree_r_last, comm_c)
# PoSt and update_vanilla read.
rule prepare:
    input:
        data=sector_data,
    output:
        **({"sealed": R.sealed("{sid}")} if POST_KINDS or UPDATE_SIDS else {}),
        c1=R.c1("{sid}"),
        mem=R.record("prepare", "{sid}"),
    log:
        R.log("prepare", "{sid}"),
    benchmark:
        R.benchmark("prepare", "{sid}")
    wildcard_constraints:
        sid=sid_pattern(SEALED_SIDS),
    priority: prepare_priority
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


use rule prepare as prepare_synthetic with:
    input:
        [],
    output:
        c1=R.c1("{sid}"),
        mem=R.record("prepare_synthetic", "{sid}"),
    log:
        R.log("prepare_synthetic", "{sid}"),
    benchmark:
        R.benchmark("prepare_synthetic", "{sid}")
    wildcard_constraints:
        sid=sid_pattern(SYNTHETIC_SIDS),
    resources:
        **job_memory("prepare_synthetic", "prepare_synthetic", shape=sector_shape),


# A configured C1 in Filecoin's form (SealCommitPhase1Output JSON, or lotus-bench's commit2
# input) is converted to cuzk's form first; check_c1 then checks every proof of the conversion.
rule import_c1:
    input:
        vanilla=lambda wc: SECTORS[wc.sid]["c1"],
    output:
        c1=R.imported_c1("{sid}"),
        mem=R.record("import_c1", "{sid}"),
    log:
        R.log("import_c1", "{sid}"),
    benchmark:
        R.benchmark("import_c1", "{sid}")
    wildcard_constraints:
        sid=sid_pattern(IMPORTED_SIDS),
    priority: C1_PRIORITY
    conda:
        "../envs/cuzk.yaml"
    resources:
        **job_memory("import_c1", "check_c1", shape=sector_shape),
    params:
        shape_name=sector_shape,
        sector_id=lambda wc: int(wc.sid),
        prover_id_hex=config["prover_id"],
        reject_bad=True,
    script:
        "../scripts/import_c1.py"


# The C1 checked once, fully (12-18 s at 32 GiB); later steps trust it by its SHA-256. A
# checkpoint: a C1 the check refuses gets a rejection record (the job succeeds), its batch is
# proved without it (common.smk: admitted) and its verify job fails with the check's error.
checkpoint check_c1:
    input:
        vanilla=sector_c1_wc,
    output:
        checked=R.checked("{sid}"),
        mem=R.record("check_c1", "{sid}"),
    log:
        R.log("check_c1", "{sid}"),
    benchmark:
        R.benchmark("check_c1", "{sid}")
    priority: C1_PRIORITY
    conda:
        "../envs/cuzk.yaml"
    resources:
        **job_memory("check_c1", "check_c1", shape=sector_shape),
    params:
        shape=sector_shape,
        reject_bad=True,
    script:
        "../scripts/check_c1.py"
