"""circom/snarkjs interoperability on BLS12-381 (iden3 binary files and snarkjs JSON).

Modules, one job each:
- ``iden3``: the binary container (magic, version, sections) and the typed errors
  (``Iden3FormatError`` naming file and section; ``Iden3CurveError``, ``Iden3TruncatedError``,
  ``WitnessLengthError``).
- ``encoding``: Fr/point encodings (little-endian Montgomery points ↔ cuzk's uncompressed
  arrays) and ffjavascript's roots of unity (generator 5) against cuzk's (7).
- ``r1cs``: circom ``.r1cs`` → ``CircomR1CS`` → cuzk ``R1CS`` (bellperson/snarkjs input rows).
- ``wtns``: ``.wtns`` witness files.
- ``zkey``: snarkjs Groth16 ``.zkey`` read/write (``ZKey``).
- ``zkey_prover``: snarkjs' odd-coset H as a quotient of cuzk's ``Prover``, and ``ZKeyProver``:
  proofs from a ``.zkey`` + witness on a cuzk backend.
- ``snarkjs_prove``: the ``cuzk snarkjs-prove`` command (``snarkjs groth16 prove`` on cuzk; its
  process is also what ``cuzk bench snarkjs`` measures).
- ``digest``: SHA-256 of key files (the converted-key cache's index), computable ahead in a thread.
- ``zkey_setup``: a development setup that emits a ``ZKey`` (snarkjs-form H bases).
- ``snarkjs_json``: ``proof.json``, ``public.json``, ``verification_key.json``.
- ``bellman``: proving with ``snarkjs zkey export bellman`` output through cuzk's bellperson
  prover (infinity points, ffjavascript's row order).

Typical use::

    r1cs = read_r1cs("c.r1cs"); w = read_wtns("c.wtns", r1cs.n_wires)
    zk = read_zkey("c.zkey")
    proof, public = prove_zkey(zk, w, get_backend("cpu"))
    write_proof_json("proof.json", proof); write_public_json("public.json", public)
    verify(read_vk_json("verification_key.json"), proof, public)
"""

from __future__ import annotations

import importlib

# Names are imported from their modules on first use (PEP 562), so that importing one module of
# the package (say ``formats.digest`` in a thread while numpy loads) does not import them all.
_EXPORTS = {
    ".bellman": ("adapt_bellman_export", "ffjs_row_permuted", "read_bellman_export"),
    ".iden3": ("Iden3CurveError", "Iden3FormatError", "Iden3TruncatedError", "WitnessLengthError",
               "read_container", "write_container"),
    ".r1cs": ("CircomR1CS", "read_r1cs"),
    ".snarkjs_json": ("SnarkjsJSONError", "proof_from_json", "proof_to_json", "read_proof_json",
                      "read_public_json", "read_vk_json", "vk_from_json", "vk_to_json", "write_proof_json",
                      "write_public_json", "write_vk_json"),
    ".wtns": ("read_wtns", "split_witness", "write_wtns"),
    ".zkey": ("ZKey", "read_zkey", "write_zkey"),
    ".zkey_prover": ("OddCosetQuotient", "ZKeyProver", "prove_zkey"),
    ".zkey_setup": ("setup_zkey",),
}
_WHERE = {name: mod for mod, names in _EXPORTS.items() for name in names}

__all__ = sorted(_WHERE)


def __getattr__(name: str):
    mod = _WHERE.get(name)
    if mod is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(mod, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
