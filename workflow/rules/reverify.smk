# Target reverify: every proof file on disk verified again against its verifying key and inputs;
# the verify records and the report are rewritten, and a proof that no longer verifies is named.


def reverify_checks():
    """One dict per proof file (cuzk.pipeline.reverify): PoRep sectors, then PoSt targets."""
    out = [
        dict(
            json=R.verified(sid),
            vk=R.vk(s["shape"]),
            vanilla=sector_c1(sid),
            proof=R.proof(BATCH_OF[sid], sid),
            shape=s["shape"],
            checked=R.checked(sid),
        )
        for sid, s in SECTORS.items()
    ]
    for p in POSTS.values():
        job = post_target(p["kind"], p["size"])
        out.append(
            dict(
                json=R.verified(job),
                vk=R.vk(p["shape"]),
                vanilla=R.post_vanilla(p["kind"], p["size"]),
                proof=R.proof(job, post_label(p["kind"])),
                shape=p["shape"],
                checked=None,
            )
        )
    return out


# no output: runs whenever it is asked for (after everything is proved and reported once)
rule reverify:
    input:
        rules.report.output.summary,
    log:
        f"{RESULTS}/logs/reverify.log",
    conda:
        "../envs/cuzk.yaml"
    resources:
        **job_memory("reverify", "verify"),
    params:
        checks=reverify_checks(),
        table=R.report("reverify.tsv"),
        mem=report_records(),
        steps=R.report("steps.tsv"),
        plots=R.report("memory"),
        budget_gb=_budget_gb(),
    script:
        "../scripts/reverify.py"
