# Per sector: verify its proof file against its C1 public inputs (a failing proof is an error; a
# C1 its check rejected: that error).


rule verify:
    input:
        unpack(verify_inputs),
    output:
        json=R.verified("{sid}"),
        mem=R.record("verify", "{sid}"),
    log:
        R.log("verify", "{sid}"),
    benchmark:
        R.benchmark("verify", "{sid}")
    conda:
        "../envs/cuzk.yaml"
    resources:
        **job_memory("verify", "verify"),
    params:
        shape=sector_shape,
        proof=sector_proof,
    script:
        "../scripts/verify.py"
