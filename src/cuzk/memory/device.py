"""Memory model of the GPU ``prove`` step: device bytes one Groth16 proof needs on the cuda backend.

Groth16 knowledge (which MSMs and NTTs a proof runs, which arrays stay resident) on top of the
per-kernel sizes of ``cuzk.backend.cuda.plan``; the host side is ``cuzk.memory.model``. Pure
arithmetic: no CuPy.
"""

from __future__ import annotations

from ..backend.cuda.plan import _FR_BYTES, compute_h_device_bytes, msm_device_bytes
from ..curve import G1


def prove_device_bytes(stats: dict, density_a: int | None = None, density_b: int | None = None,
                       staged: bool = False) -> dict:
    """Device bytes one Groth16 proof of a partition needs on the cuda backend with its key
    resident (the memory model of the GPU ``prove`` step; an upper estimate, no memory limit).

    Args:
        stats: the shape's numbers (``shape.stats()`` or ``R1CS.stats()``): inputs, aux,
            constraints, domain, nnz_a, nnz_b, nnz_c.
        density_a, density_b: variables in the A and B queries (default: every variable).
        staged: the next assignment is uploaded while this proof runs (``prove_batch``).

    Returns:
        dict of bytes: "bases" (H, L, A, B_G1 affine G1 at 96 B; B_G2 at 192 B), "pce" (the
        A, B, C index arrays and row offsets kept on the device), "witness" (w, 32 B per
        variable), "h_phase" (a, b, c, their padded copies and ``compute_h``'s fused schedule),
        "msm_phase" (the largest MSM's temporaries beside the H, A, B and L scalars), "staged"
        (a second w when ``staged``), "selections" (the A and B density masks the Prover keeps
        on the device, 1 B per variable each: ``Prover._selections``), and "peak" = bases + pce +
        witness + staged + selections + max(h_phase, msm_phase).
    """
    nv = stats["inputs"] + stats["aux"]
    rows, n = stats["constraints"], stats["domain"]
    da = nv if density_a is None else density_a
    db = nv if density_b is None else density_b
    bases = ((n - 1) + stats["aux"] + da + db) * 96 + db * 192
    nnz = stats["nnz_a"] + stats["nnz_b"] + stats["nnz_c"]
    pce = nnz * 8 + 3 * (rows + 1) * 8
    witness = nv * _FR_BYTES
    h_phase = 3 * rows * _FR_BYTES + 3 * n * _FR_BYTES + compute_h_device_bytes(n, "fused")
    # the H, A, B and L scalar arrays all live through the MSMs (the prover selects them first)
    msm_phase = (n - 1 + da + db + stats["aux"]) * _FR_BYTES + max(
        msm_device_bytes(n - 1, G1, host_scalars=False), msm_device_bytes(db, 2, host_scalars=False))
    out = {"bases": bases, "pce": pce, "witness": witness, "staged": witness if staged else 0,
           "selections": 2 * nv, "h_phase": h_phase, "msm_phase": msm_phase}
    out["peak"] = bases + pce + witness + out["staged"] + out["selections"] + max(h_phase, msm_phase)
    return out
