# SnapDeals: per update sector, the deal data encoded into its CC sector's sealed replica and every
# partition's vanilla proof, in one input file (cuzk.sector.update_doc). From there an update
# sector is a sector like the PoRep ones, with its own shape (update-<size>): check_c1 checks the
# file once, synthesize runs per partition, prove batches it with the sectors of its shape (own
# PCE and key, max_batch_size), verify checks its proof (common.smk: sector_c1, SECTORS, BATCHES).


rule update_vanilla:
    input:
        sealed=update_sealed,
        data=update_data,
    output:
        vanilla=R.update("{sid}"),
        mem=R.record("update_vanilla", "{sid}"),
    log:
        R.log("update_vanilla", "{sid}"),
    benchmark:
        R.benchmark("update_vanilla", "{sid}")
    wildcard_constraints:
        sid=sid_pattern(UPDATE_SIDS),
    conda:
        "../envs/cuzk.yaml"
    resources:
        **job_memory("update_vanilla", update_step_wc, shape=sector_shape),
    params:
        sector=sector,
        shape=sector_shape,
    script:
        "../scripts/update_vanilla.py"
