"""Benchmarks: the ``cuzk bench`` subcommands, each a module that measures, prints and writes JSON.

- ``prove``: ``cuzk bench prove``, a synthetic circuit through setup, proof and verification.
- ``kernels``: ``cuzk bench ntt|compute-h|msm|spmv|fixed-base``, one kernel at sizes 2^k (the former
  ``benchmarks/bench_cuda.py`` on the cuda backend).
- ``circuit``: ``cuzk bench circuit``, PoRep shapes' PCE extraction, witness and proofs.
- ``snarkjs``: ``cuzk bench snarkjs``, snarkjs and cuzk on the same circom circuit and key.
- ``sweep``: ``cuzk bench sweep``, one batch through the whole workflow at several RAM budgets
  (every point measured): the deployment table and its Pareto plot.
- ``witness``: checks of the GPU witness against the CPU path (tests, ``benchmarks/witness_gpu``).

Committed results and the command lines that made them are under ``benchmarks/results``.
"""

from __future__ import annotations

from .circuit import bench_circuit, format_circuit
from .kernels import KINDS, bench_kernels, kernels_ok
from .prove import bench_prove, format_prove
from .snarkjs import CIRCUIT_HELP, bench_snarkjs, format_snarkjs, parse_sizes
from .sweep import sweep, table

__all__ = ["CIRCUIT_HELP", "KINDS", "bench_circuit", "bench_kernels", "bench_prove", "bench_snarkjs", "format_circuit",
           "format_prove", "format_snarkjs", "kernels_ok", "parse_sizes", "sweep",
           "table"]
