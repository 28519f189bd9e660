# WinningPoSt and WindowPoSt over the sealed and the synthetic sectors of each size (config post:
# winning/window; a synthetic sector's tree_r_last openings are made sparse by post_vanilla, and
# the vanilla file, the verify record and the report say synthetic).
# Separate targets from PoRep, never batched with it; higher priority (POST_PRIORITY, common.smk),
# also for the PCE, key and sealed sectors they read. Per target "<kind>-<size>": vanilla proofs
# from the sealed-sector files -> checked once (as a C1 is: later steps trust it by its SHA-256)
# -> witness -> proof (verified before it is written) -> verify.
# Each rule below is written once for both kinds (rule names must differ per kind); check,
# synthesize, prove and verify run the PoRep rules' scripts on the PoSt files.
POST_JOB = "{kind}-{size}"


# a job name splits one way only when the kind is a PoSt kind (sizes may hold "-": test-only-256B)
wildcard_constraints:
    kind="|".join(registry.POST_KINDS),


POST_TARGET = post_target("{kind}", "{size}")

for _kind in POST_KINDS:
    _post = post_rules(_kind)
    _target = post_target(f"{{kind,{_kind}}}", "{size}")

    rule:
        name:
            _post["post_vanilla"]
        input:
            sealed=post_sealed,
        output:
            vanilla=R.post_vanilla(f"{{kind,{_kind}}}", "{size}"),
            mem=R.record(_post["post_vanilla"], POST_JOB),
        log:
            R.log(_post["post_vanilla"], POST_JOB),
        benchmark:
            R.benchmark(_post["post_vanilla"], POST_JOB)
        priority: POST_PRIORITY[_kind]
        conda:
            "../envs/cuzk.yaml"
        resources:
            **job_memory(
                _post["post_vanilla"],
                post_vanilla_step,
                shape=post_shape,
                partitions=post_partitions,
            ),
        params:
            shape=post_shape,
            synthetic=post_synthetic_ids,
            randomness=config["randomness"],
            prover_id=config["prover_id"],
        script:
            "../scripts/post_vanilla.py"

    # The vanilla file checked once, fully (28 s for a 32 GiB WindowPoSt partition on the H200
    # host before its paths were hashed natively and in workers); synthesize, prove and verify
    # trust it by its SHA-256.
    rule:
        name:
            _post["check"]
        input:
            vanilla=R.post_vanilla("{kind}", "{size}"),
        output:
            checked=R.post_checked(f"{{kind,{_kind}}}", "{size}"),
            mem=R.record(_post["check"], POST_JOB),
        log:
            R.log(_post["check"], POST_JOB),
        benchmark:
            R.benchmark(_post["check"], POST_JOB)
        priority: POST_PRIORITY[_kind]
        conda:
            "../envs/cuzk.yaml"
        threads: post_check_threads
        resources:
            **job_memory(
                _post["check"],
                "check_c1",
                shape=post_shape,
                threads=post_check_threads,
                partitions=post_partitions,
            ),
        params:
            shape=post_shape,
            partitions=post_partitions,
        script:
            "../scripts/check_c1.py"

    rule:
        name:
            _post["synthesize"]
        input:
            vanilla=R.post_vanilla("{kind}", "{size}"),
            checked=R.post_checked("{kind}", "{size}"),
            pce=post_pce,
        output:
            wit=directory(R.witness(_target)),
            mem=R.record(_post["synthesize"], POST_JOB),
        log:
            R.log(_post["synthesize"], POST_JOB),
        benchmark:
            R.benchmark(_post["synthesize"], POST_JOB)
        priority: POST_PRIORITY[_kind]
        conda:
            "../envs/cuzk.yaml"
        threads: post_synthesis_threads
        resources:
            **job_memory(
                _post["synthesize"],
                "synthesize",
                shape=post_shape,
                threads=post_synthesis_threads,
                partitions=post_partitions,
                sectors=post_sectors,
            ),
            gpu=SYNTHESIS_GPUS,
        params:
            sha=SYNTHESIS_SHA,
            poseidon=SYNTHESIS_POSEIDON,
            keep=WITNESS_POSEIDON,
        script:
            "../scripts/synthesize.py"

    rule:
        name:
            _post["prove"]
        input:
            unpack(post_inputs),
        output:
            proofs=directory(R.proofs(_target)),
            mem=R.record(_post["prove"], POST_JOB),
        log:
            R.log(_post["prove"], POST_JOB),
        benchmark:
            R.benchmark(_post["prove"], POST_JOB)
        priority: POST_PRIORITY[_kind]
        conda:
            "../envs/cuzk.yaml"
        threads: THREADS
        resources:
            **job_memory(
                _post["prove"], "prove", post_shape, THREADS, 1, post_partitions
            ),
            gpu=JOB_GPUS,
        params:
            backend=config["backend"],
            gpu_mem_limit_gb=GPU_MEM_LIMIT_GB,
        script:
            "../scripts/prove.py"

    rule:
        name:
            _post["verify"]
        input:
            vk=post_vk,
            vanilla=R.post_vanilla("{kind}", "{size}"),
            checked=R.post_checked("{kind}", "{size}"),
            proofs=R.proofs(POST_TARGET),
        output:
            json=R.verified(_target),
            mem=R.record(_post["verify"], POST_JOB),
        log:
            R.log(_post["verify"], POST_JOB),
        benchmark:
            R.benchmark(_post["verify"], POST_JOB)
        priority: POST_PRIORITY[_kind]
        conda:
            "../envs/cuzk.yaml"
        resources:
            **job_memory(
                _post["verify"], "verify", post_shape, partitions=post_partitions
            ),
        params:
            shape=post_shape,
            proof=post_proof,
        script:
            "../scripts/verify.py"


POST_VERIFIED = [R.verified(job) for job in POST_JOBS]
