"""The Poseidon witness core built for the host (``poseidon_host.cpp``, through
:mod:`cuzk.backend.native`: compiled once per machine and cached): the values of neptune's
``circuit.rs`` ``poseidon_hash`` for many hashes, in C++ with 4×64-bit Montgomery arithmetic.

User: the CPU synthesis (``cuzk.r1cs.poseidon_path``, ``synthesis_poseidon: native``):
:func:`legacy_limbs` returns exactly what ``cuzk.r1cs.poseidon._legacy_limbs`` computes with
gmpy2 (``tests/test_poseidon_native.py`` checks them byte for byte). The constants are neptune's
optimized ones (:func:`cuzk.hash.poseidon.optimized_constants`), made in Python and handed to the
library as canonical limbs; the library holds only the field (r, 2^256 mod r, 2^512 mod r,
−r⁻¹ mod 2^64), checked against Python's values when it is loaded.
"""

from __future__ import annotations

import ctypes
import functools
import os
from pathlib import Path

import numpy as np

from ..field import FR, to_limbs
from ..hash import poseidon as _pos
from .native import NativeBuildError, build_library, load_library

SOURCES = (Path(__file__).resolve().parent / "poseidon_host.cpp",)
"""What the host build compiles (hashed into the cached library's key)."""

R = FR.modulus
MAX_ARITY = 15
"""The widest hash the library takes (its state arrays: t ≤ 16)."""


def field_words() -> list[int]:
    """The 13 words the library's field must hold: r, 2^256 mod r, 2^512 mod r (4 little-endian
    limbs each) and −r⁻¹ mod 2^64 (the Montgomery constants of 4×64-bit limbs)."""
    words = []
    for v in (R, (1 << 256) % R, (1 << 512) % R):
        words += [(v >> (64 * i)) & (2**64 - 1) for i in range(4)]
    return words + [-pow(R, -1, 1 << 64) % (1 << 64)]


def build(out_dir: str | os.PathLike | None = None) -> Path:
    """The library's path (:func:`cuzk.backend.native.build_library`, cached under ``out_dir``,
    default ``$CUZK_CACHE_DIR/native``), its field checked (:func:`field_words`).

    Raises:
        NativeBuildError: no C++ compiler, the build failed, the library cannot be loaded, or its
            field constants are not BLS12-381 Fr's.
    """
    lib = build_library("poseidon_host", SOURCES, root=out_dir)
    _library(str(lib))
    return lib


@functools.lru_cache(maxsize=None)
def _library(lib: str):
    """The library (its ``poseidon_host_legacy`` and ``poseidon_host_digests`` typed), loaded once
    per process (a synthesis worker loads it on its first chunk), after its field is checked."""
    dll = load_library(Path(lib))
    dll.poseidon_host_field.restype = None
    dll.poseidon_host_field.argtypes = [ctypes.c_void_p]
    got = np.zeros(13, dtype=np.uint64)
    dll.poseidon_host_field(got.ctypes.data)
    if [int(w) for w in got] != field_words():
        raise NativeBuildError(f"native build: {lib} does not hold BLS12-381 Fr's Montgomery constants")
    for fn in (dll.poseidon_host_legacy, dll.poseidon_host_digests):
        fn.restype = ctypes.c_int64
        fn.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_void_p,
                       ctypes.c_uint64, ctypes.c_void_p]
    return dll


def legacy_nops(arity: int, strength: str) -> int:
    """Values (ops) of one hash: 3·(t − 1) + 4·(t·(R_F − 1) + R_P) + 1 (311, 505, 598 for arities
    2, 8, 11), one per constraint of neptune ``circuit.rs``'s hash (what
    ``cuzk.r1cs.poseidon.hash_constraints(arity, strength, legacy=True)`` returns)."""
    rf, rp = _pos.round_numbers(arity, strength)
    t = arity + 1
    return 3 * (t - 1) + 4 * (t * (rf - 1) + rp) + 1


@functools.lru_cache(maxsize=None)
def constants(arity: int, tag: int, strength: str) -> np.ndarray:
    """The library's constant array for one (arity, domain tag, strength): ``(n, 4)`` uint64
    canonical limbs of the round-0 tag S-box constant ``(tag + pre[0])^5 + post[0]``, neptune's
    compressed round constants, M, the pre-sparse matrix, and each partial round's ``w_hat``
    then ``v_rest`` (:func:`cuzk.hash.poseidon.optimized_constants`), cached per process."""
    oc = _pos.optimized_constants(arity, strength)
    t = arity + 1
    cr = [int(c) for c in oc.compressed]
    vals = [(pow((tag + cr[0]) % R, 5, R) + cr[t]) % R, *cr]
    for m in (oc.mds, oc.pre_sparse):
        vals += [int(v) for row in m for v in row]
    for w_hat, v_rest in oc.sparse:
        vals += [int(v) for v in (*w_hat, *v_rest)]
    out = to_limbs(vals, FR.limbs)
    out.setflags(write=False)
    return out


def legacy_inputs(inputs, arity: int, tag: int, what: str) -> np.ndarray:
    """The checks every Poseidon witness core makes before its work (this library's and the GPU
    kernel's, ``cuzk.backend.cuda.poseidon``): ``inputs`` as a contiguous ``(kc, arity, 4)``
    uint64 array. Whether each input is below r is the core's own check (:func:`input_not_below_r`).

    Raises:
        ValueError: an arity outside 1..:data:`MAX_ARITY`, inputs of another shape, or a tag that is
            not a canonical Fr element (messages begin with ``what``).
    """
    if not 1 <= arity <= MAX_ARITY:
        raise ValueError(f"{what}: arity {arity} is outside 1..{MAX_ARITY}")
    x = np.ascontiguousarray(inputs, dtype=np.uint64)
    if x.ndim != 3 or x.shape[1:] != (arity, FR.limbs):
        raise ValueError(f"{what}: inputs must have shape (kc, {arity}, {FR.limbs}), got {x.shape}")
    if not 0 <= tag < R:
        raise ValueError(f"{what}: domain tag {tag:#x} is not a canonical Fr element")
    return x


def input_not_below_r(x: np.ndarray, flat: int, what: str) -> ValueError:
    """The error for input ``flat`` (hash·arity + position) of ``x`` ((kc, arity, 4) limbs), which is
    not below r: it names the hash, the position and the value."""
    h, j = divmod(flat, x.shape[1])
    v = sum(int(w) << (64 * i) for i, w in enumerate(x[h, j]))
    return ValueError(f"{what}: input {j} of hash {h} is {v:#x}, not below r")


def legacy_limbs(lib: str | os.PathLike, inputs: np.ndarray, arity: int, tag: int, strength: str) -> np.ndarray:
    """neptune ``circuit.rs`` ``poseidon_hash`` values of kc hashes, as
    ``cuzk.r1cs.poseidon._legacy_limbs``: every op value of its walk in order (per S-box the
    input's allocation where it is not yet allocated, x², x⁴, the output; the digest last).

    Args:
        lib: the library (:func:`build`).
        inputs: ``(kc, arity, 4)`` uint64 canonical little-endian limbs of the Fr inputs.
        arity, tag, strength: the hash (width arity + 1, domain tag, ``"standard"`` or
            ``"strengthened"``).

    Returns:
        ``(kc, nops, 4)`` uint64 canonical limbs, nops = :func:`legacy_nops`.

    Raises:
        ValueError: an arity above :data:`MAX_ARITY`, inputs of another shape, or an input not below r (the message names the
            hash, the position and the value). The synthesis hands only store values, which are
            canonical by construction (``ConstraintSystem.value_limbs``).
        NativeBuildError: the library cannot be loaded.
    """
    return _call(lib, "poseidon_host_legacy", inputs, arity, tag, strength, legacy_nops(arity, strength))


def legacy_digests(lib: str | os.PathLike, inputs: np.ndarray, arity: int, tag: int, strength: str) -> np.ndarray:
    """The digests alone of the hashes :func:`legacy_limbs` computes (each one's last op value),
    as ``(kc, 4)`` uint64 canonical limbs: the op values are neither converted nor stored
    (``poseidon_host_digests``). Arguments and errors as :func:`legacy_limbs`'s."""
    return _call(lib, "poseidon_host_digests", inputs, arity, tag, strength, 1)[:, 0]


def _call(lib, name: str, inputs: np.ndarray, arity: int, tag: int, strength: str, per_hash: int) -> np.ndarray:
    """The library's function ``name`` on ``inputs``: ``(kc, per_hash, 4)`` uint64 limbs out."""
    x = legacy_inputs(inputs, arity, tag, "poseidon host")
    kc = x.shape[0]
    rf, rp = _pos.round_numbers(arity, strength)
    out = np.empty((kc, per_hash, FR.limbs), dtype=np.uint64)
    c = constants(arity, tag, strength)
    rc = getattr(_library(str(lib)), name)(c.ctypes.data, arity + 1, rf, rp, x.ctypes.data, kc, out.ctypes.data)
    if rc >= 0:
        raise input_not_below_r(x, rc, "poseidon host")
    if rc != -1:   # constants made above and a width checked by round_numbers: a library fault
        raise NativeBuildError(f"native build: {lib} refused the constants of arity {arity} (code {rc})")
    return out


__all__ = ["MAX_ARITY", "SOURCES", "build", "constants", "field_words", "legacy_digests", "legacy_limbs", "legacy_nops"]
