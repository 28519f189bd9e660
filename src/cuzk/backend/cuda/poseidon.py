"""Witness generation on the GPU, phase 2 (issue 17): the Poseidon hashes' values.

neptune ``circuit.rs`` ``poseidon_hash`` values of many hashes on the current CUDA device, one
thread per hash (``poseidon_witness.cu``; the walk is ``poseidon_witness.cuh``, the same as the
host core ``cuzk.backend.poseidon_host``, over the kernels' Fr arithmetic ``ff.cuh``). What it
is for: a PoSt partition's witness is nearly all Poseidon values (a 32 GiB WindowPoSt partition:
127 M of them, 2349 sectors × 10 challenges × a Merkle path of arity-8 hashes), and PoRep's column
and tree hashes are most of what its SHA-256 leaves.

Bit identity: ``tests/test_poseidon_gpu_host.py`` builds the same core for the host (g++, the PTX
carry-chain model) and compares its values with the native core's and gmpy2's byte for byte;
``tests/test_poseidon_gpu.py`` does the same for the kernel on a device;
``benchmarks/witness_gpu/bench_poseidon.py`` times it against the native core.

The workflow's ``synthesis_poseidon: gpu`` (``cuzk.r1cs.poseidon_path``): its synthesize jobs then
take a GPU as setup and prove jobs do (``gpu=1``: ``--resources gpu=N`` runs them in turn with
those, each on a GPU of its own, ``cuzk.backend.gpus``).
"""

from __future__ import annotations

import functools

import numpy as np

from ...field import FR, limbs_below_modulus, to_limbs
from ...hash import poseidon as _pos
from .. import poseidon_host
from .runtime import _cupy, _grid, _i32, _kernel, _u64

_BLOCK = 128
"""Threads per block (the kernel's ``__launch_bounds__``)."""

_R = FR.modulus


@functools.lru_cache(maxsize=None)
def mont_constants(arity: int, tag: int, strength: str) -> np.ndarray:
    """``cuzk.backend.poseidon_host.constants`` (the same layout and values) in Montgomery form
    (x·2^256 mod r) as ``(n, 4)`` uint64 limbs: what the kernel reads. Cached per process."""
    canon = poseidon_host.constants(arity, tag, strength)
    vals = [sum(int(w) << (64 * i) for i, w in enumerate(row)) for row in canon]
    out = to_limbs([(v << 256) % _R for v in vals], FR.limbs)
    out.setflags(write=False)
    return out


def legacy_limbs_device(inputs: np.ndarray, arity: int, tag: int, strength: str, block: int = _BLOCK, out=None):
    """neptune ``circuit.rs`` ``poseidon_hash`` values of kc hashes on the GPU, left there: the
    same values as ``cuzk.backend.poseidon_host.legacy_limbs`` (every op value of the hash's walk
    in order; the digest last).

    Args:
        inputs: ``(kc, arity, 4)`` uint64 canonical little-endian limbs of the Fr inputs (host).
        arity, tag, strength: the hash (width arity + 1, domain tag, ``"standard"`` or
            ``"strengthened"``).
        block: threads per block, 1 to 128.
        out: a C-contiguous CuPy uint64 array of ``(kc, nops, 4)`` elements to write into (e.g. a
            slice of the prover's wide values), or None for a new one.

    Returns:
        ``(kc, nops, 4)`` uint64 canonical limbs on the current device (``out`` when given), nops
        = ``poseidon_host.legacy_nops(arity, strength)``; asynchronous on the current stream.

    Raises:
        ValueError: an arity outside 1..``poseidon_host.MAX_ARITY``, inputs of another shape, a tag
            that is not canonical, an input not below r (the message names the hash, the position
            and the value), ``block`` out of range, or an ``out`` of another size or dtype.
        BackendUnavailableError: no CuPy or no device.
    """
    if not 1 <= block <= _BLOCK:
        raise ValueError(f"poseidon gpu: block must be 1 to {_BLOCK} threads, not {block}")
    x = poseidon_host.legacy_inputs(inputs, arity, tag, "poseidon gpu")
    bad = np.flatnonzero(~limbs_below_modulus(x.reshape(-1, FR.limbs), FR))
    if bad.size:
        raise poseidon_host.input_not_below_r(x, int(bad[0]), "poseidon gpu")
    cp = _cupy()
    kc = x.shape[0]
    rf, rp = _pos.round_numbers(arity, strength)
    nops = poseidon_host.legacy_nops(arity, strength)
    if out is None:
        out = cp.empty((kc, nops, FR.limbs), dtype=cp.uint64)
    elif out.dtype != cp.uint64 or out.size != kc * nops * FR.limbs or not out.flags.c_contiguous:
        raise ValueError(f"poseidon gpu: out must be {kc * nops * FR.limbs} contiguous uint64, got {out.dtype} {out.shape}")
    if kc:
        consts = cp.asarray(mont_constants(arity, tag, strength))
        _kernel("poseidon_witness.cu", "poseidon_legacy")(
            (_grid(kc, block),), (block,),
            (consts, _i32(arity + 1), _i32(rf), _i32(rp), cp.asarray(x), _u64(kc), out, _u64(nops)))
    return out.reshape(kc, nops, FR.limbs)


def legacy_limbs(inputs: np.ndarray, arity: int, tag: int, strength: str, block: int = _BLOCK) -> np.ndarray:
    """:func:`legacy_limbs_device`'s values copied to the host: ``(kc, nops, 4)`` uint64 canonical
    limbs, the same array as ``cuzk.backend.poseidon_host.legacy_limbs``.

    Raises:
        As :func:`legacy_limbs_device`.
    """
    return legacy_limbs_device(inputs, arity, tag, strength, block).get()


__all__ = ["legacy_limbs", "legacy_limbs_device", "mont_constants"]
