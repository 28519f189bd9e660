"""The native Poseidon core: arity-8 Merkle digests of 16,384 random hashes, as _legacy_digests made
them before (legacy_limbs in chunks of 2,048, op values converted and stored, the last kept) and
now (legacy_digests: the digests alone); equal outputs asserted, then 3 alternated rounds.
Run: PYTHONPATH=src python3 benchmarks/results/2026-12-05-local/digests/bench_digests.py"""
import time, numpy as np
from cuzk.backend import poseidon_host as ph
lib = str(ph.build())
rng = np.random.default_rng(1); kc = 16384
x = rng.integers(0, 2**63, size=(kc, 8, 4), dtype=np.uint64); x[..., 3] &= (1 << 60) - 1
def old():
    out = np.empty((kc, 4), dtype=np.uint64)
    for lo in range(0, kc, 2048):
        out[lo:lo + 2048] = ph.legacy_limbs(lib, x[lo:lo + 2048], 8, 255, "standard")[:, -1]
    return out
def new():
    return ph.legacy_digests(lib, x, 8, 255, "standard")
assert (old() == new()).all()
for _ in range(3):
    for name, f in (("chunked op values", old), ("digests alone", new)):
        t = time.perf_counter(); f(); print(f"{name}: {(time.perf_counter() - t) / kc * 1e6:.1f} us/hash", flush=True)
