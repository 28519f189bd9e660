"""Groth16 over BLS12-381: development setup, the prover (one proof or a staged batch; bellperson's
coset H by default, other quotients pluggable), verifier, batch verifier, bellperson files."""

from __future__ import annotations

from .keys import (
    PROOF_SIZE,
    KeyFileError,
    Proof,
    ProvingKey,
    ResidentKey,
    VerifyingKey,
    read_params,
    read_proofs,
    read_vk,
    write_params,
    write_proofs,
    write_vk,
)
from .prover import BatchProof, BatchTimes, CosetQuotient, Prover, Quotient, WitnessError, prove
from .setup import DevelopmentSetupWarning, domain_size, setup, setup_resident
from .verifier import PublicInputError, verify, verify_batch

__all__ = [
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
    "write_proofs",
    "write_vk",
]
