# Time and memory of every step: steps.tsv, a memory timeline per rule, summary.md.


rule report:
    input:
        verified=lambda wc: expand(R.verified("{sid}"), sid=admitted(POREP_SECTORS))
        + POST_VERIFIED,
        mem=lambda wc: report_records(checked=True),
        rejected=lambda wc: [
            R.checked(sid) for sid in POREP_SECTORS if rejected_reason(sid) is not None
        ],
    output:
        steps=report(
            R.report("steps.tsv"), caption="../report/steps.rst", category="Steps"
        ),
        summary=report(
            REPORT_SUMMARY, caption="../report/summary.rst", category="Steps"
        ),
        plots=report(
            directory(R.report("memory")),
            patterns=["{rule}.png"],
            caption="../report/memory.rst",
            category="Memory",
        ),
    log:
        f"{RESULTS}/logs/report.log",
    benchmark:
        f"{RESULTS}/benchmarks/report.tsv"
    conda:
        "../envs/cuzk.yaml"
    resources:
        **job_memory("report", "report"),
    params:
        budget_gb=_budget_gb(),
        stale=REVERIFY_TABLE,
    script:
        "../scripts/report.py"
