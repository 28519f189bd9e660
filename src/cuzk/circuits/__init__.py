"""Circuits built from the R1CS gadgets, one module a family.

- ``porep``: the StackedDRG PoRep circuit (Filecoin's C2 statement), one partition; exact
  per-gadget sizes without building it.
- ``commd``: the comm_d inclusion half of PoRep (SHA-256 paths), for small tests.
- ``post``: the fallback PoSt circuit (WinningPoSt, WindowPoSt).
- ``synthetic``: a random satisfiable circuit shaped like a PoRep witness (benchmarks).
- ``registry``: every shape by name, one interface over the three families, and the workflow's
  sector sizes with the shape each is proved with.
"""
