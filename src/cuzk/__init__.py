"""cuzk: Groth16 over BLS12-381 for Filecoin-style sector proofs, as a memory-aware batch job.

Layers (each imports only the ones before it): memory, field, curve, backend, r1cs, groth16, cli.
See ARCHITECTURE.md in the design notes for the reasons behind the layout.
"""

__version__ = "0.1.0"
