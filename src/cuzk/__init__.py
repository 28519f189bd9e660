"""cuzk: Groth16 over BLS12-381 for Filecoin sector proofs, as a memory-aware batch job.

Layers, one package each; a layer imports only the layers before it in this list (and
``cuzk.errors``, the one error base, which any layer may import): ``field``, ``hash``, ``curve``,
``backend``, ``memory``, ``r1cs``, ``sector``, ``circuits``, ``groth16``, ``formats``, then the
workflow steps (``pipeline``, ``report``), the benchmarks and ``cli``. ``fileio`` (crash-safe
writes) is used by every layer. ARCHITECTURE.md in the design notes gives the reasons.
"""

__version__ = "0.1.0"
