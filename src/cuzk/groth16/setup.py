"""Development Groth16 setup: random toxic waste → ProvingKey. NOT for chain use.

The parameters come from one process's random τ, α, β, γ, δ, which this process knows: anyone
holding them can forge proofs. They exist for tests and benchmarks of circuits whose real
(ceremony) parameters are not available here. Source: Groth, "On the Size of Pairing-based
Non-interactive Arguments" (EUROCRYPT 2016), with bellperson's ``generate_parameters`` layout.
"""

from __future__ import annotations

import logging
import secrets
import time
import warnings
from typing import TYPE_CHECKING

import numpy as np

from ..backend import Backend
from ..backend.cpu import CPUBackend
from ..curve import G1, G2
from ..field import FR, lagrange_at  # noqa: F401  (lagrange_at: re-exported)
from .keys import ProvingKey, ResidentKey, VerifyingKey

if TYPE_CHECKING:  # annotations only
    from ..memory.gpu_plan import SetupPlan

log = logging.getLogger(__name__)

DEV_SETUP_WARNING = (
    "cuzk development setup: random toxic waste known to this process; these parameters are for "
    "tests and benchmarks only and must never be used on chain"
)


class DevelopmentSetupWarning(UserWarning):
    """Warns that parameters come from a development (insecure) setup."""


def domain_size(num_constraints: int) -> int:
    """Smallest power of two ≥ num_constraints (bellperson ``EvaluationDomain``); at least 2."""
    return max(2, 1 << (num_constraints - 1).bit_length())


def _random_nonzero() -> int:
    while True:
        v = secrets.randbelow(FR.modulus)
        if v:
            return v


def toxic_waste(toxic: dict | None, domain: int) -> tuple[int, int, int, int, int]:
    """(τ, α, β, γ, δ) for a development setup, after the development-setup warning.

    Args:
        toxic: fixed {"tau", "alpha", "beta", "gamma", "delta"} (tests) or None for fresh secrets.
        domain: τ must not be a root of x^domain − 1 (Z(τ) = 0 breaks the key).

    Raises:
        ValueError: given toxic waste with γ or δ zero, or τ in the domain.
    """
    warnings.warn(DEV_SETUP_WARNING, DevelopmentSetupWarning, stacklevel=3)
    log.warning(DEV_SETUP_WARNING)
    r = FR.modulus
    names = ("tau", "alpha", "beta", "gamma", "delta")
    tau, alpha, beta, gamma, delta = ((toxic[k] if toxic else _random_nonzero()) % r for k in names)
    if toxic is not None:
        if 0 in (gamma, delta):
            raise ValueError("toxic waste: gamma and delta must be non-zero")
        if pow(tau, domain, r) == 1:
            raise ValueError("toxic waste: tau lies in the evaluation domain (Z(tau) = 0)")
    while pow(tau, domain, r) == 1:  # resample: probability ~domain/r
        tau = _random_nonzero()
    return tau, alpha, beta, gamma, delta


def qap_at_tau(r1cs, lag, alpha: int, beta: int, gamma: int, delta: int, backend: Backend | None = None):
    """u_i(τ), v_i(τ) and the IC and private scalars (β·u_i + α·v_i + w_i)/γ resp. /δ.

    Args:
        lag: the Lagrange basis at τ for the constraint rows (num_constraints; a device array of
            ``backend``, or an int array when backend is None).
        backend: where the products run (``spmv_t``: u = Aᵀ·lag, v = Bᵀ·lag, w = Cᵀ·lag);
            None: a one-process CPU backend.

    Returns:
        (u, v, ic_scalars (num_inputs), private_scalars (num_aux)) as device arrays of ``backend``.
    """
    if backend is None:
        backend = CPUBackend()
    bk, r = backend, FR.modulus
    u, v, w = (bk.spmv_t(m, lag) for m in (r1cs.A, r1cs.B, r1cs.C))
    combo = _combo(bk, u, v, w, alpha, beta)
    del w
    ni, nv = r1cs.num_inputs, r1cs.num_inputs + r1cs.num_aux
    ic = bk.scale(bk.slice(combo, 0, ni), pow(gamma, -1, r))
    private = bk.scale(bk.slice(combo, ni, nv), pow(delta, -1, r))
    return u, v, ic, private


def _combo(bk: Backend, u, v, w, alpha: int, beta: int):
    """β·u + α·v + w (device arrays of equal length): the IC and L scalars before 1/γ or 1/δ."""
    return bk.add(bk.add(bk.scale(u, beta), bk.scale(v, alpha)), w)


def key_points(alpha: int, beta: int, gamma: int, delta: int) -> dict:
    """α_G1, β_G1, β_G2, γ_G2, δ_G1, δ_G2 as generator multiples (the fields of a verifying key)."""
    g1, g2 = G1.generator(), G2.generator()
    return {
        "alpha_g1": G1.mul(g1, alpha),
        "beta_g1": G1.mul(g1, beta),
        "beta_g2": G2.mul(g2, beta),
        "gamma_g2": G2.mul(g2, gamma),
        "delta_g1": G1.mul(g1, delta),
        "delta_g2": G2.mul(g2, delta),
    }


def point_counts(r1cs) -> dict[str, int]:
    """How many fixed-base points each query of ``r1cs``'s key has (known before any scalar is
    computed, so progress has its total from the start): G1 ``ic`` (inputs, ONE included), ``h``
    (domain − 1), ``l`` (aux), ``a`` (density_a), ``b_g1`` and G2 ``b_g2`` (density_b)."""
    nb = int(np.count_nonzero(r1cs.density_b))
    return {"ic": r1cs.num_inputs, "h": domain_size(r1cs.num_constraints) - 1, "l": r1cs.num_aux,
            "a": int(np.count_nonzero(r1cs.density_a)), "b_g1": nb, "b_g2": nb}


def setup_scalars(r1cs, backend: Backend, toxic: dict | None = None) -> tuple[dict, dict]:
    """The verifying key's points and the scalars of every query, computed on ``backend``.

    τ's Lagrange basis (``backend.lagrange_basis``: an inverse NTT of τ's powers on the GPU, a
    batch inversion on the CPU), then u, v, w = Aᵀ·L, Bᵀ·L, Cᵀ·L (``spmv_t``), then the Groth16
    query scalars: IC (β·u + α·v + w)/γ over the inputs, L the same /δ over the aux, H τ^i·Z(τ)/δ
    for i < n − 1, A u over density_a, B v over density_b.

    Returns:
        (key_points dict, {"ic", "h", "l", "a", "b"} device arrays of ``backend``).

    Raises:
        ValueError: given toxic waste with gamma or delta zero, or tau in the domain.
    """
    r = FR.modulus
    bk = backend
    n = domain_size(r1cs.num_constraints)
    tau, alpha, beta, gamma, delta = toxic_waste(toxic, n)
    lag = bk.slice(bk.lagrange_basis(tau, n), 0, r1cs.num_constraints)
    u, v, ic, private = qap_at_tau(r1cs, lag, alpha, beta, gamma, delta, bk)
    del lag
    zd = (pow(tau, n, r) - 1) * pow(delta, -1, r) % r
    scalars = {
        "ic": ic,
        "h": bk.scale(bk.powers(tau, n - 1), zd),
        "l": private,
        "a": bk.select(u, np.asarray(r1cs.density_a, dtype=bool)),
        "b": bk.select(v, np.asarray(r1cs.density_b, dtype=bool)),
    }
    return key_points(alpha, beta, gamma, delta), scalars


#: ``setup`` computes each group's points in this many slices, reporting each (progress); one
#: fixed-base window table per slice costs milliseconds against minutes of products.
SETUP_SLICES = 16
#: Phases ``setup_resident`` reports (its ``times`` keys), in order.
RESIDENT_PHASES = ("scalars", "fixed_base_ic", "fixed_base_h", "fixed_base_l", "fixed_base_a", "fixed_base_b_g1",
                   "fixed_base_b_g2")


def setup(r1cs, backend: Backend, toxic: dict | None = None, step=None, plan: SetupPlan | None = None) -> ProvingKey:
    """Generate a development proving key for ``r1cs`` (see the module warning).

    Args:
        r1cs: a finalized ``cuzk.r1cs.R1CS`` (num_inputs incl. ONE, num_aux, A, B, C, densities).
        backend: where the scalars (``setup_scalars``) and the fixed-base products run (worker
            processes on the CPU, the GPU on cuda).
        toxic: optional fixed {"tau", "alpha", "beta", "gamma", "delta"} for reproducible tests;
            default: fresh secrets.
        step: optional callback ``step(done, total)``: fixed-base points computed so far and in
            all (G1 then G2, :func:`point_counts`), before the scalars and after each of
            ``SETUP_SLICES`` slices per group (progress).
        plan: a device-limited schedule (``cuzk.memory.gpu_plan.plan_setup`` with a limit): the
            sliced path (``_setup_sliced``) instead of whole arrays; same key.

    Raises:
        ValueError: given toxic waste with gamma or delta zero, or tau in the domain.
        GPUMemoryError: an operation found no room under the backend's limit.

    Returns:
        ProvingKey with h (n−1), l (num_aux), a (density_a), b_g1/b_g2 (density_b) point arrays.

    Warns:
        DevelopmentSetupWarning, always.
    """
    if plan is not None and plan.limit is not None:
        return _setup_sliced(r1cs, backend, toxic, step, plan)
    counts = point_counts(r1cs)
    n1, total = sum(counts.values()) - counts["b_g2"], sum(counts.values())
    report = (lambda done: step(done, total)) if step else (lambda done: None)
    report(0)
    points, sc = setup_scalars(r1cs, backend, toxic)
    # All G1 vectors as one array of scalars (one pool round per slice, not five).
    names = ("ic", "h", "l", "a", "b_g1")
    parts = [sc["b"] if k == "b_g1" else sc[k] for k in names]
    g1_scalars = backend.concat(parts)
    pts = _fixed_base_sliced(backend, G1, g1_scalars, lambda done: report(done))
    g1_arrays, lo = {}, 0
    for name, part in zip(names, parts):
        size = backend.length(part)
        g1_arrays[name], lo = pts[lo : lo + size], lo + size
    vk = VerifyingKey(**points, ic=G1.from_array(g1_arrays.pop("ic"), check_subgroup=False))
    b_g2 = _fixed_base_sliced(backend, G2, sc["b"], lambda done: report(n1 + done))
    return ProvingKey(vk=vk, b_g2=b_g2, **g1_arrays)


def _setup_sliced(r1cs, bk: Backend, toxic: dict | None, step, plan: SetupPlan) -> ProvingKey:
    """``setup`` under a device limit: τ's Lagrange basis, then u, v, w = Aᵀ·L, Bᵀ·L, Cᵀ·L one
    matrix at a time into host memory: whole (``spmv_t``, then ``Backend.offload`` and the
    matrix's device copy dropped) or, when the plan says so (``plan.spmv_cols``), with L on the
    host and the products in column slices and row blocks (``Backend.spmv_t_blocks``); then,
    ``plan.slice`` variables (or H powers) at a time, the slice's query scalars formed on the
    device from restored slices (``_combo``, the density masks) and their fixed-base products
    written into the host arrays of the key. The same key as the whole-array path for the same
    toxic waste; the device holds one slice's arrays at a time."""
    r = FR.modulus
    width = plan.slice
    n = domain_size(r1cs.num_constraints)
    out = {k: np.empty((m, (G2 if k == "b_g2" else G1).uncompressed_size), np.uint8)   # untouched pages: no RSS yet
           for k, m in point_counts(r1cs).items()}
    total = sum(len(v) for v in out.values())
    done, at = 0, dict.fromkeys(out, 0)
    report = (lambda: step(done, total)) if step else (lambda: None)
    report()
    tau, alpha, beta, gamma, delta = toxic_waste(toxic, n)
    lag = bk.slice(bk.lagrange_basis(tau, n), 0, r1cs.num_constraints)
    uvw = []
    if plan.spmv_cols:
        lag = bk.offload(lag)
        for m in (r1cs.A, r1cs.B, r1cs.C):
            uvw.append(bk.spmv_t_blocks(m, lag, plan.spmv_rows, plan.spmv_nnz, plan.spmv_cols))
    else:
        for m in (r1cs.A, r1cs.B, r1cs.C):
            uvw.append(bk.offload(bk.spmv_t(m, lag)))
            bk.drop_cached(m)
    del lag
    ni, nv = r1cs.num_inputs, r1cs.num_inputs + r1cs.num_aux
    dens_a = np.asarray(r1cs.density_a, dtype=bool)
    dens_b = np.asarray(r1cs.density_b, dtype=bool)
    g1, g2 = G1.generator(), G2.generator()

    def put(name, group, base, scalars):
        nonlocal done
        m = bk.length(scalars)
        if m:
            out[name][at[name] : at[name] + m] = bk.fixed_base_mul(group, base, scalars)
            at[name] += m
            done += m

    ginv, dinv = pow(gamma, -1, r), pow(delta, -1, r)
    for lo in range(0, nv, width):
        hi = min(nv, lo + width)
        u, v, w = (bk.restore(x, lo, hi) for x in uvw)
        combo = _combo(bk, u, v, w, alpha, beta)
        del w
        if lo < ni:
            put("ic", G1, g1, bk.scale(bk.slice(combo, 0, min(hi, ni) - lo), ginv))
        if hi > ni:
            put("l", G1, g1, bk.scale(bk.slice(combo, max(lo, ni) - lo, hi - lo), dinv))
        del combo
        put("a", G1, g1, bk.select(u, dens_a[lo:hi]))
        b = bk.select(v, dens_b[lo:hi])
        put("b_g1", G1, g1, b)
        put("b_g2", G2, g2, b)
        del u, v, b
        report()
    del uvw
    zd = (pow(tau, n, r) - 1) * dinv % r
    for lo in range(0, n - 1, width):
        hi = min(n - 1, lo + width)
        put("h", G1, g1, bk.scale(bk.powers(tau, hi - lo), pow(tau, lo, r) * zd % r))
        report()
    vk = VerifyingKey(**key_points(alpha, beta, gamma, delta), ic=G1.from_array(out.pop("ic"), check_subgroup=False))
    return ProvingKey(vk=vk, **out)


def _fixed_base_sliced(backend: Backend, group, scalars, report):
    """``backend.fixed_base_mul`` by the group's generator in ``SETUP_SLICES`` slices, written
    into one preallocated array (no second copy); ``report(points done)`` after each slice."""
    n = backend.length(scalars)
    out = np.empty((n, group.uncompressed_size), dtype=np.uint8)
    width = max(1, -(-n // SETUP_SLICES))
    for lo in range(0, n, width):
        hi = min(n, lo + width)
        out[lo:hi] = backend.fixed_base_mul(group, group.generator(), backend.slice(scalars, lo, hi))
        report(hi)
    return out


def setup_resident(r1cs, backend: Backend, toxic: dict | None = None, times: dict | None = None,
                   step=None) -> ResidentKey:
    """A development key whose queries stay where ``backend`` computed them (GPU memory on cuda):
    for proving shapes whose parameters are too large to write out and read back (a 32 GiB
    partition: ≈ 75 GB). Same key as ``setup`` for the same toxic waste (see its module warning).

    Args: as ``setup``, and ``times``: when given, receives seconds per part ("scalars", then
    "fixed_base_<query>" for ic, h, l, a, b_g1, b_g2: ``RESIDENT_PHASES``); ``step``: optional callback
    called with each of those names as its part ends (progress).

    Returns a ``ResidentKey`` (verifying key + one MSM context per query; ``Prover`` takes it in
    place of a ProvingKey and closes its contexts).

    Raises:
        ValueError: given toxic waste with gamma or delta zero, or tau in the domain.
        GPUMemoryError: the queries do not fit in device memory.
    """
    times = {} if times is None else times
    t = time.perf_counter()

    def lap(name):
        nonlocal t
        backend.synchronize()
        now = time.perf_counter()
        times[name] = now - t
        t = now
        if step is not None:
            step(name)

    points, sc = setup_scalars(r1cs, backend, toxic)
    lap("scalars")
    g1, g2 = G1.generator(), G2.generator()
    vk = VerifyingKey(**points, ic=G1.from_array(backend.fixed_base_mul(G1, g1, sc.pop("ic")), check_subgroup=False))
    lap("fixed_base_ic")
    ctx = {}
    try:
        for name in ("h", "l", "a"):
            ctx[name] = backend.fixed_base_context(G1, g1, sc.pop(name))
            lap(f"fixed_base_{name}")
        b = sc.pop("b")
        ctx["b_g1"] = backend.fixed_base_context(G1, g1, b)
        lap("fixed_base_b_g1")
        ctx["b_g2"] = backend.fixed_base_context(G2, g2, b)
        lap("fixed_base_b_g2")
    except BaseException:
        for c in ctx.values():
            c.close()
        raise
    return ResidentKey(vk, ctx)


__all__ = ["RESIDENT_PHASES", "SETUP_SLICES", "point_counts", "setup", "setup_resident", "setup_scalars", "domain_size", "lagrange_at", "qap_at_tau", "DevelopmentSetupWarning"]
