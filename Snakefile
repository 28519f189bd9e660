# cuzk: the batch job. Rules live in workflow/rules; each calls one cuzk function via a thin script.
from snakemake.utils import min_version, validate

min_version("9.0")

configfile: "config.yaml"


validate(config, "workflow/schemas/config.schema.yaml")

include: "workflow/rules/common.smk"
include: "workflow/rules/bench.smk"


rule all:
    input:
        expand(f"{RESULTS}/bench/prove_{{n}}.json", n=config["bench"]["constraints"]),
