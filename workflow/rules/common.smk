# Helpers shared by the rules: paths and the memory model.
from cuzk.memory.model import prove_bench_bytes

RESULTS = config["results"]


def mem_gb_for(predicted_bytes, headroom=1.25, floor_gb=1):
    """Whole GiB to declare for a step predicted to peak at predicted_bytes."""
    import math

    return max(floor_gb, math.ceil(predicted_bytes * headroom / 2**30))
