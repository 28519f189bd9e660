# WinningPoSt and WindowPoSt over the sealed sectors of each size (config post: winning/window).
# Separate targets from PoRep, never batched with it; higher priority (WinningPoSt highest: it
# has a deadline of one epoch on chain). Per target "<kind>-<size>": vanilla proofs from the
# sealed-sector files -> witness -> proof (verified before it is written) -> verify.
POST_PRIORITY = {"winning": 100, "window": 50}


def _post_shape(wc):
    return POSTS[f"{wc.kind}-{wc.size}"]["shape"]


for _kind in POST_KINDS:
    _vmem = mem_gb(f"post_vanilla_{_kind}", "prepare", shape=_post_shape)
    _smem = mem_gb(f"synthesize_{_kind}_post", "synthesize", shape=_post_shape)
    _pmem = mem_gb(
        f"prove_{_kind}_post", "prove", shape=_post_shape, threads=THREADS, batch=1
    )
    _fmem = mem_gb(f"verify_{_kind}_post", "verify")

    rule:
        name:
            f"post_vanilla_{_kind}"
        input:
            sealed=lambda wc: [
                f"{RESULTS}/sealed/{sid}.sealed.npz"
                for sid in POSTS[f"{wc.kind}-{wc.size}"]["sids"]
            ],
        output:
            vanilla=f"{RESULTS}/post/{{kind,{_kind}}}-{{size}}.vanilla.json",
            mem=bench_paths(f"post_vanilla_{_kind}", "{kind}-{size}")[1],
        log:
            bench_paths(f"post_vanilla_{_kind}", "{kind}-{size}")[2],
        benchmark:
            bench_paths(f"post_vanilla_{_kind}", "{kind}-{size}")[0]
        priority: POST_PRIORITY[_kind]
        conda:
            "../envs/cuzk.yaml"
        resources:
            mem_gb=_vmem,
            mem_mb=mem_mb(_vmem),
        params:
            shape=_post_shape,
            randomness=config["randomness"],
            prover_id=config["prover_id"],
        script:
            "../scripts/post_vanilla.py"

    rule:
        name:
            f"synthesize_{_kind}_post"
        input:
            vanilla=f"{RESULTS}/post/{{kind}}-{{size}}.vanilla.json",
            pce=lambda wc: f"{RESULTS}/pce/{_post_shape(wc)}.pce",
        output:
            wit=directory(f"{RESULTS}/witness/{{kind,{_kind}}}-post-{{size}}"),
            mem=bench_paths(f"synthesize_{_kind}_post", "{kind}-{size}")[1],
        log:
            bench_paths(f"synthesize_{_kind}_post", "{kind}-{size}")[2],
        benchmark:
            bench_paths(f"synthesize_{_kind}_post", "{kind}-{size}")[0]
        priority: POST_PRIORITY[_kind]
        conda:
            "../envs/cuzk.yaml"
        resources:
            mem_gb=_smem,
            mem_mb=mem_mb(_smem),
        script:
            "../scripts/synthesize.py"

    rule:
        name:
            f"prove_{_kind}_post"
        input:
            pce=lambda wc: f"{RESULTS}/pce/{_post_shape(wc)}.pce",
            params=lambda wc: f"{RESULTS}/params/{_post_shape(wc)}.params",
            vanilla=[f"{RESULTS}/post/{{kind}}-{{size}}.vanilla.json"],
            wit=[f"{RESULTS}/witness/{{kind}}-post-{{size}}"],
        output:
            proofs=directory(f"{RESULTS}/proofs/{{kind,{_kind}}}-post-{{size}}"),
            mem=bench_paths(f"prove_{_kind}_post", "{kind}-{size}")[1],
        log:
            bench_paths(f"prove_{_kind}_post", "{kind}-{size}")[2],
        benchmark:
            bench_paths(f"prove_{_kind}_post", "{kind}-{size}")[0]
        priority: POST_PRIORITY[_kind]
        conda:
            "../envs/cuzk.yaml"
        threads: THREADS
        resources:
            mem_gb=_pmem,
            mem_mb=mem_mb(_pmem),
            gpu=JOB_GPUS,
        params:
            backend=config["backend"],
            gpu_mem_limit_gb=GPU_MEM_LIMIT_GB,
        script:
            "../scripts/prove.py"

    rule:
        name:
            f"verify_{_kind}_post"
        input:
            vk=lambda wc: f"{RESULTS}/params/{_post_shape(wc)}.vk",
            vanilla=f"{RESULTS}/post/{{kind}}-{{size}}.vanilla.json",
            proofs=f"{RESULTS}/proofs/{{kind}}-post-{{size}}",
        output:
            json=f"{RESULTS}/verify/{{kind,{_kind}}}-post-{{size}}.json",
            mem=bench_paths(f"verify_{_kind}_post", "{kind}-{size}")[1],
        log:
            bench_paths(f"verify_{_kind}_post", "{kind}-{size}")[2],
        benchmark:
            bench_paths(f"verify_{_kind}_post", "{kind}-{size}")[0]
        priority: POST_PRIORITY[_kind]
        conda:
            "../envs/cuzk.yaml"
        resources:
            mem_gb=_fmem,
            mem_mb=mem_mb(_fmem),
        params:
            shape=_post_shape,
            proof=lambda wc: f"{RESULTS}/proofs/{wc.kind}-post-{wc.size}/{wc.kind}-post.proof",
        script:
            "../scripts/verify.py"


POST_VERIFIED = [
    f"{RESULTS}/verify/{p['kind']}-post-{p['size']}.json" for p in POSTS.values()
]
POST_MEM = [
    bench_paths(f"{step}", f"{p['kind']}-{p['size']}")[1]
    for p in POSTS.values()
    for step in (
        f"post_vanilla_{p['kind']}",
        f"synthesize_{p['kind']}_post",
        f"prove_{p['kind']}_post",
        f"verify_{p['kind']}_post",
    )
]
