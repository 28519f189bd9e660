# cuzk: the batch job. Rules live in workflow/rules; each calls one cuzk function via a thin script.
from snakemake.utils import min_version

min_version("9.0")


configfile: "config.yaml"


include: "workflow/rules/config.smk"


wildcard_constraints:
    sid=r"\d+",
    batch=r".+-b\d+",


include: "workflow/rules/common.smk"
include: "workflow/rules/slurm.smk"
include: "workflow/rules/prepare.smk"
include: "workflow/rules/pce.smk"
include: "workflow/rules/setup.smk"
include: "workflow/rules/synthesize.smk"
include: "workflow/rules/prove.smk"
include: "workflow/rules/verify.smk"
include: "workflow/rules/post.smk"
include: "workflow/rules/update.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/reverify.smk"
include: "workflow/rules/bench.smk"


# the workflow's one onstart (Snakemake keeps only the last one defined): every start hook here
onstart:
    slurm_status_command()
    warn_development_keys()


rule all:
    default_target: True
    input:
        expand(R.verified("{sid}"), sid=POREP_SECTORS),
        POST_VERIFIED,
        # the proofs themselves: a deleted batch directory is proved again (and re-verified)
        admitted_batches,
        [R.proofs(job) for job in POST_JOBS],
        # evaluated while the DAG is built, before any job runs (and only for this target)
        checks_before_run,
        REPORT_SUMMARY,
