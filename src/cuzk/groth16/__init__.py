"""Groth16 over BLS12-381, one module a job.

- ``keys``: verifying/proving keys and proofs, bellperson's ``.vk``/``.params`` layout.
- ``setup``: development setup (random toxic waste; never for chain use), also resident on a GPU.
- ``prover``: the prover on any ``Backend`` (bellperson's algorithm): one proof or a staged
  batch (``prove_many``); bellperson's coset H by default, other quotients pluggable.
- ``verifier``: single proofs and randomized batches.
"""

from __future__ import annotations

from .keys import (
    PROOF_SIZE,
    KeyFileError,
    Proof,
    ProvingKey,
    ResidentKey,
    VerifyingKey,
    check_params_file,
    file_digest,
    read_params,
    read_proofs,
    read_vk,
    write_params,
    resident_to_host,
    trust_params_file,
    vk_ic_length,
    write_resident_params,
    write_proofs,
    write_vk,
)
from .prover import BatchProof, BatchTimes, CosetQuotient, Prover, Quotient, StagingError, WitnessError, prove
from .setup import DevelopmentSetupWarning, domain_size, setup, setup_resident
from .verifier import PublicInputError, verify, verify_batch

__all__ = [
    "check_params_file",
    "trust_params_file",
    "vk_ic_length",
    "file_digest",
    "PROOF_SIZE",
    "BatchProof",
    "BatchTimes",
    "CosetQuotient",
    "DevelopmentSetupWarning",
    "KeyFileError",
    "Proof",
    "Prover",
    "ProvingKey",
    "PublicInputError",
    "Quotient",
    "ResidentKey",
    "StagingError",
    "VerifyingKey",
    "WitnessError",
    "domain_size",
    "prove",
    "read_params",
    "read_proofs",
    "read_vk",
    "setup",
    "setup_resident",
    "verify",
    "verify_batch",
    "write_params",
    "resident_to_host",
    "write_resident_params",
    "write_proofs",
    "write_vk",
]
