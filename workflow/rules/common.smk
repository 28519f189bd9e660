# Helpers shared by the rules: paths and memory declarations from cuzk's memory model.
from cuzk.memory.model import declared_gb, prove_bench_bytes

RESULTS = config["results"]


def bench_prove_gb(wildcards, threads):
    """mem_gb of bench_prove: the model's prediction with headroom, whole GiB."""
    return declared_gb(prove_bench_bytes(int(wildcards.n), threads))
