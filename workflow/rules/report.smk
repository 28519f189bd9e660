# Time and memory of every step: steps.tsv, a memory timeline per rule, summary.md.
_report_mem = mem_gb("report", "report")


rule report:
    input:
        verified=expand(f"{RESULTS}/verify/{{sid}}.json", sid=SECTORS) + POST_VERIFIED,
        mem=(
            expand(bench_paths("prepare", "{sid}")[1], sid=SECTORS)
            + expand(bench_paths("pce_extract", "{shape}")[1], shape=SHAPES)
            + expand(bench_paths("setup", "{shape}")[1], shape=SHAPES)
            + expand(bench_paths("synthesize", "{sid}")[1], sid=SECTORS)
            + expand(bench_paths("prove", "{batch}")[1], batch=BATCHES)
            + expand(bench_paths("verify", "{sid}")[1], sid=SECTORS)
            + POST_MEM
        ),
    output:
        steps=report(
            f"{RESULTS}/report/steps.tsv",
            caption="../report/steps.rst",
            category="Steps",
        ),
        summary=report(
            f"{RESULTS}/report/summary.md",
            caption="../report/summary.rst",
            category="Steps",
        ),
        plots=report(
            directory(f"{RESULTS}/report/memory"),
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
        mem_gb=_report_mem,
        mem_mb=mem_mb(_report_mem),
    script:
        "../scripts/report.py"
