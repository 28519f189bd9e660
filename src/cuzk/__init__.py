"""cuzk: Groth16 over BLS12-381 for Filecoin sector proofs, as a memory-aware batch job.

Packages, one per layer (each imports only the ones before it): ``field``, ``hash``, ``curve``,
``backend``, ``memory``, ``r1cs``, ``sector``, ``circuits``, ``groth16``, ``formats``; and the
modules ``errors`` (the one error base, ``CuzkError``, which any layer may import), ``fileio`` (atomic writes), ``progress`` (bars of long steps), ``paths`` (the
name of every output file of a run), ``pipeline`` (one function per workflow step), ``report``
(the run's time and memory report), ``bench*`` (benchmarks) and ``cli`` (the ``cuzk`` command).
See ARCHITECTURE.md in the design notes for the reasons behind the layout.
"""

__version__ = "0.1.0"
