# Per sector: verify its proof file against its C1 public inputs (a failing proof is an error).
_verify_mem = mem_gb("verify", "verify")


rule verify:
    input:
        vk=lambda wc: f"{RESULTS}/params/{SECTORS[wc.sid]['shape']}.vk",
        vanilla=f"{RESULTS}/c1/{{sid}}.c1.json",
        proofs=lambda wc: f"{RESULTS}/proofs/{BATCH_OF[wc.sid]}",
    output:
        json=f"{RESULTS}/verify/{{sid}}.json",
        mem=bench_paths("verify", "{sid}")[1],
    log:
        bench_paths("verify", "{sid}")[2],
    benchmark:
        bench_paths("verify", "{sid}")[0]
    conda:
        "../envs/cuzk.yaml"
    resources:
        mem_gb=_verify_mem,
        mem_mb=mem_mb(_verify_mem),
    params:
        shape=lambda wc: SECTORS[wc.sid]["shape"],
        proof=lambda wc: f"{RESULTS}/proofs/{BATCH_OF[wc.sid]}/{wc.sid}.proof",
    script:
        "../scripts/verify.py"
