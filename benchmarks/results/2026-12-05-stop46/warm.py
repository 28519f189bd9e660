"""Stop 46, call 4: compile the prover's cuda modules (CuPy's disk cache) before a timed batch,
from the package's sources or, with hook/sitecustomize.py on the path, CUZK_BENCH_SRC's."""
from cuzk.backend.cuda import runtime

for name, group in (("ntt.cu", None), ("msm.cu", "G1"), ("msm.cu", "G2"), ("spmv.cu", None), ("poseidon_witness.cu", None)):
    runtime._module(name, group)
print("compiled from", runtime._SRC_DIR, flush=True)
