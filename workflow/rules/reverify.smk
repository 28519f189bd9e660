# Target reverify: every proof file on disk verified again against its verifying key and inputs;
# the verify records and the report are rewritten, and a proof that no longer verifies is named.


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
        table=REVERIFY_TABLE,
        mem=report_records(),
        steps=R.report("steps.tsv"),
        plots=R.report("memory"),
        budget_gb=_budget_gb(),
    script:
        "../scripts/reverify.py"
