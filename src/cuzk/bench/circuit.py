"""``cuzk bench circuit``: cost of a PoRep shape's PCE extraction, one partition's witness and (on
request) its setup and proofs.

Per PoRep shape, each phase runs in its own spawned process so its peak RSS is its own:

1. **input**: the C1 of a sector of that size — sealed for real (random Fr32 data,
   :func:`cuzk.sector.porep_c1.seal_and_prove`) up to ``seal_limit`` bytes, above it a sparse
   synthetic sector (:func:`cuzk.sector.synthetic.synthetic_c1`, marked ``"synthetic": true``);
2. **pce**: build one partition's R1CS in shape mode and write the PCE file
   (what the ``pce_extract`` rule does);
3. **witness**: partition 0's witness in witness-only mode, written as a witness file (what
   ``synthesize`` does per partition), once per SHA-256 witness path asked for (``sha``:
   ``numpy``, ``native``, ``auto``; ``cuzk.r1cs.sha_path``) and Poseidon witness path asked for
   (``poseidon``: ``python``, ``native``, ``auto``; ``cuzk.r1cs.poseidon_path``), each pair in
   its own process, the files compared byte for byte;
4. **prove** (only when asked): a development setup kept resident, then proofs of partition 0
   through ``Prover.prove_many`` (what the ``prove`` step runs), each verified.

Reported per phase: seconds (wall), peak RSS of the phase's process (bytes, ``ru_maxrss``), and
the bytes of the file it wrote; plus the shape's exact sizes (the shape's ``stats()``).
"""

from __future__ import annotations

import json
import multiprocessing as mp
import resource
import time
import warnings
from pathlib import Path

import numpy as np

from ..backend import get_backend
from ..circuits.porep import PoRepShape
from ..circuits.registry import family_of, shape_by_name
from ..field import FR, from_limbs
from ..fileio import atomic_write_text
from ..groth16 import DevelopmentSetupWarning, Prover, file_digest, setup_resident, verify
from ..memory.device import prove_device_bytes
from ..r1cs import ConstraintSystem
from ..pipeline import pce_description
from ..r1cs.pce import read_pce, write_pce
from ..r1cs.poseidon_path import POSEIDON_PATHS, WITNESS_POSEIDON, PoseidonPathError, choose_poseidon
from ..r1cs.sha_path import SHA_PATHS, ShaPathError, choose_sha
from ..r1cs.witness import read_witness_compact, write_witness_compact
from ..sector.porep_c1 import seal_and_prove, write_porep_c1
from ..sector.synthetic import synthetic_c1

__all__ = ["bench_circuit", "format_circuit"]


def _peak() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _phase_input(shape_name: str, path: str, seal_limit: int) -> dict:
    sh = shape_by_name(shape_name)
    t = time.perf_counter()
    ids = dict(sector_id=1, prover_id=bytes(32), ticket=bytes(range(32)), seed=bytes(range(1, 33)))
    if sh.sector_size <= seal_limit:
        data = bytearray(np.random.default_rng(1).integers(0, 256, sh.sector_size, dtype=np.uint8).tobytes())
        data[31::32] = bytes(b & 0x3F for b in data[31::32])  # Fr32: top two bits of each node zero
        c1 = seal_and_prove(bytes(data), sh.sector_size, ids["sector_id"], ids["prover_id"], ids["ticket"],
                            ids["seed"], sh.layers, partitions=sh.partitions, challenges=sh.challenges)
        kind = "sealed"
    else:
        c1 = synthetic_c1(sh.sector_size, ids["sector_id"], ids["prover_id"], ids["ticket"], ids["seed"],
                          layers=sh.layers, partitions=sh.partitions, challenges=sh.challenges)
        kind = "synthetic"
    secs = time.perf_counter() - t
    write_porep_c1(path, c1)
    return {"seconds": secs, "rss_peak_bytes": _peak(), "bytes": Path(path).stat().st_size, "sector": kind}


def _phase_pce(shape_name: str, path: str) -> dict:
    sh = shape_by_name(shape_name)
    t = time.perf_counter()
    cs = ConstraintSystem(shape=True, witness=False)
    family_of(sh).synthesize(cs, sh)
    build = time.perf_counter() - t
    r1cs = cs.finalize(consume=True)
    stats = r1cs.stats()
    write_pce(path, r1cs, pce_description(sh))
    return {"seconds": time.perf_counter() - t, "synthesize_seconds": build, "rss_peak_bytes": _peak(),
            "bytes": Path(path).stat().st_size, "r1cs": stats}


def _phase_witness(shape_name: str, c1_path: str, path: str, sha: str = "auto", poseidon: str = "auto") -> dict:
    sh = shape_by_name(shape_name)
    fam = family_of(sh)
    inp = json.loads(Path(c1_path).read_text())  # written by the input phase (verified there)
    naux = sh.stats()["aux"]  # cached per shape; outside the timing
    sha_path = choose_sha(sha)   # native builds (once per machine) outside the timing
    pos_path = choose_poseidon(poseidon, WITNESS_POSEIDON[0])   # what the synthesize step keeps by default
    t = time.perf_counter()
    cs = ConstraintSystem(shape=False, witness=True, aux_capacity=naux)
    with sha_path.active(), pos_path.active():
        fam.synthesize(cs, sh, fam.values(inp, 0))
    cw = sha_path.finish(cs.assignment_compact(lazy=True))   # as the synthesize step writes it
    synth = time.perf_counter() - t
    write_witness_compact(path, cw)
    out = {"seconds": time.perf_counter() - t, "synthesize_seconds": synth, "rss_peak_bytes": _peak(),
           "bytes": Path(path).stat().st_size, "aux": cw.num_aux, "sha": sha_path.name,
           "poseidon": pos_path.name, "witness_poseidon": pos_path.keep, "sha256": file_digest(path)}
    if cw.sha is not None:   # synthesis_sha: prover: the file the other paths write, its bits resolved here
        t = time.perf_counter()
        full = cw.resolved()
        out["resolve_seconds"] = time.perf_counter() - t
        write_witness_compact(f"{path}.resolved", full)
        out["sha256"], out["file_sha256"] = file_digest(f"{path}.resolved"), out["sha256"]
        Path(f"{path}.resolved").unlink()
    return out


def _phase_prove(shape_name: str, pce_path: str, c1_path: str, wit_path: str, backend: str, repeat: int) -> dict:
    sh = shape_by_name(shape_name)
    fam = family_of(sh)
    res: dict = {"seconds": {}, "proofs": []}
    t = time.perf_counter()
    r1cs, _ = read_pce(pce_path)
    cw = read_witness_compact(wit_path)   # as the prove step stages it
    pub = fam.public_inputs(json.loads(Path(c1_path).read_text()), 0)
    if [int(v) for v in from_limbs(cw.inputs[1:])] != pub:
        raise ValueError(f"{wit_path}: public inputs differ from those of {c1_path} partition 0")
    res["seconds"]["read_pce_witness"] = time.perf_counter() - t
    with get_backend(backend) as bk:
        res["backend"] = bk.name
        setup_times: dict = {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DevelopmentSetupWarning)
            t = time.perf_counter()
            rk = setup_resident(r1cs, bk, times=setup_times)
            res["seconds"]["setup"] = time.perf_counter() - t
        res["setup_seconds"] = setup_times
        print(f"{shape_name} setup on {bk.name}: {res['seconds']['setup']:.2f} s ("
              + ", ".join(f"{k} {v:.2f}" for k, v in setup_times.items()) + ")", flush=True)
        res["rss_peak_after_setup_bytes"] = _peak()
        with Prover(rk, r1cs, bk) as prover:
            # as the prove step: the next assignment is staged (host checks + upload on a side
            # stream) in a background thread while the current proof runs
            rejected: list[bool] = []

            def check(proof, public) -> bool:   # the proof verifies; with a wrong input it does not
                ok = verify(rk.vk, proof, public)
                bad = verify(rk.vk, proof, [(public[0] + 1) % FR.modulus] + public[1:]) if public else False
                rejected.append(not bad)
                return ok

            def done(item) -> None:
                res["proofs"].append({"seconds": item.seconds, "staging_waited_seconds": item.waited_seconds,
                                      "phases": item.phases, "verify_seconds": item.verify_seconds,
                                      "verified": item.verified, "wrong_input_rejected": rejected[-1]})
                print(f"{shape_name} proof {item.index}: {item.seconds:.2f} s (waited {item.waited_seconds:.2f} s "
                      f"for staging), verified {item.verified}, phases "
                      + ", ".join(f"{k} {v:.2f}" for k, v in item.phases.items()), flush=True)

            t_all = time.perf_counter()
            prover.prove_many(range(repeat), lambda _: (pub, prover.stage_compact(cw)), check, done)
            res["seconds"]["proofs_wall"] = time.perf_counter() - t_all
        res["gpu_peak_bytes"] = int(getattr(bk, "gpu_peak_bytes", 0))
        res["gpu_pool_peak_bytes"] = int(getattr(bk, "gpu_pool_peak_bytes", 0))
        if bk.name == "cuda":
            res["gpu_predicted_bytes"] = prove_device_bytes(
                sh.stats(), int(np.count_nonzero(r1cs.density_a)), int(np.count_nonzero(r1cs.density_b)))
    res["rss_peak_bytes"] = _peak()
    return res


def _run(fn, *args) -> dict:
    ctx = mp.get_context("spawn")
    with ctx.Pool(1) as pool:
        return pool.apply(fn, args)


def bench_circuit(shapes: list[str], workdir, json_out=None, seal_limit: int = 8 << 20,
                  phases: tuple[str, ...] = ("input", "pce", "witness"), backend: str = "auto",
                  repeat: int = 2, parallel: bool = False, sha: tuple[str, ...] = ("auto",),
                  poseidon: tuple[str, ...] = ("auto",)) -> list[dict]:
    """Measure PCE extraction and one partition's witness for each PoRep shape; optionally set
    up and prove that partition.

    Args:
        shapes: PoRep shape names (``cuzk shapes``).
        workdir: where the C1, PCE and witness files go (kept: they can be large).
        json_out: write the list of results here (atomically).
        seal_limit: largest sector size (bytes) sealed for real; larger ones are synthetic.
        phases: a subset of ("input", "pce", "witness", "prove"); "witness" needs the input's
            C1 file, "prove" the C1, PCE and witness files (made by earlier phases or runs).
        backend: where "prove" runs: a development setup kept resident (``setup_resident``:
            the parameters are never written), then ``repeat`` proofs of partition 0, each
            verified on the CPU (and checked to fail with a wrong public input).
        parallel: run the pce and witness phases at the same time (two processes).
        sha: the SHA-256 witness paths the witness phase runs with (``SHA_PATHS``).
        poseidon: the Poseidon witness paths (``POSEIDON_PATHS``). The witness phase runs every
            (sha, poseidon) pair in turn, poseidon varying fastest: the first writes
            ``<shape>.partition-0.wit`` (what "prove" reads), each further one
            ``<shape>.partition-0.<label>.wit``, label ``<sha>`` (one poseidon path),
            ``poseidon-<poseidon>`` (one sha path) or ``<sha>-poseidon-<poseidon>``.

    Returns:
        one dict per shape: name, stats (exact, from the shape), and per phase seconds,
        rss_peak_bytes, bytes (file size); the witness phase's ``sha`` and ``poseidon`` (the
        paths taken) and ``sha256`` (of its file); with more than one pair, ``witness_<label>``
        for each further one and ``witness_identical`` (every file the same bytes).

    Raises:
        ValueError: not a PoRep shape, or an empty ``sha`` or ``poseidon``.
        ShaPathError: an unknown ``sha`` value. PoseidonPathError: an unknown ``poseidon`` value.
    """
    if not sha or not poseidon:
        raise ValueError("bench circuit: no SHA-256 or Poseidon witness path given")
    unknown = [x for x in sha if x not in SHA_PATHS]
    if unknown:   # before any work
        raise ShaPathError(f"bench circuit: SHA-256 witness path {', '.join(unknown)} is not one of {', '.join(SHA_PATHS)}")
    unknown = [x for x in poseidon if x not in POSEIDON_PATHS]
    if unknown:
        raise PoseidonPathError(f"bench circuit: Poseidon witness path {', '.join(unknown)} is not one of "
                                f"{', '.join(POSEIDON_PATHS)}")
    pairs = [(s, p) for s in sha for p in poseidon]
    labels = ["-".join(([s] if len(sha) > 1 else []) + ([f"poseidon-{p}"] if len(poseidon) > 1 else []))
              for s, p in pairs]
    work = Path(workdir)
    work.mkdir(parents=True, exist_ok=True)
    out = []
    for name in shapes:
        sh = shape_by_name(name)
        if not isinstance(sh, PoRepShape):
            raise ValueError(f"bench circuit: {name} is not a PoRep shape")
        res = {"name": name, "stats": sh.stats()}
        c1, pce, wit = work / f"{name}.c1.json", work / f"{name}.pce", work / f"{name}.partition-0.wit"
        out.append(res)
        runs = {"input": (_phase_input, str(c1), seal_limit),
                "witness": (_phase_witness, str(c1), str(wit), *pairs[0]),
                "pce": (_phase_pce, str(pce)), "prove": (_phase_prove, str(pce), str(c1), str(wit), backend, repeat)}

        def record(ph, value):
            res[ph] = value
            print(format_circuit([{"name": name, "stats": res["stats"], ph: res[ph]}]), flush=True)
            if json_out:  # after every phase: a run cut short keeps what it measured
                atomic_write_text(json_out, json.dumps(out, indent=1) + "\n")

        def more_witnesses():   # the further pairs of paths, each in its own process, then the files compared
            for x, pair in zip(labels[1:], pairs[1:]):
                record(f"witness_{x}", _run(_phase_witness, name, str(c1), str(wit.with_suffix(f".{x}.wit")), *pair))
            if len(pairs) > 1:
                record("witness_identical", len({res[f"witness_{x}"]["sha256"] for x in labels[1:]}
                                                | {res["witness"]["sha256"]}) == 1)

        todo = [ph for ph in ("input", "witness", "pce", "prove") if ph in phases]  # witness first: cheaper
        if parallel and "witness" in todo and "pce" in todo:
            if "input" in todo:
                record("input", _run(runs["input"][0], name, *runs["input"][1:]))
            ctx = mp.get_context("spawn")
            with ctx.Pool(2) as pool:
                jobs = {ph: pool.apply_async(runs[ph][0], (name, *runs[ph][1:])) for ph in ("witness", "pce")}
                for ph, job in jobs.items():
                    record(ph, job.get())
            more_witnesses()
            todo = [ph for ph in todo if ph == "prove"]
        for ph in todo:
            fn, *args = runs[ph]
            record(ph, _run(fn, name, *args))
            if ph == "witness":
                more_witnesses()
    return out


def format_circuit(results: list[dict]) -> str:
    """One line per shape and phase: seconds, peak RSS (GiB) and file size (MB)."""
    lines = []
    for r in results:
        st = r["stats"]
        lines.append(f"{r['name']}: {st['constraints']:,} constraints, {st['inputs']} inputs, "
                     f"nnz {st['nnz_a'] + st['nnz_b'] + st['nnz_c']:,}")
        pr = r.get("prove")
        if pr:
            st_ = pr["setup_seconds"]
            lines.append(f"  prove    setup {pr['seconds']['setup']:.2f} s on {pr['backend']} ("
                         + ", ".join(f"{k} {v:.2f}" for k, v in st_.items()) + f"), GPU peak "
                         f"{pr['gpu_peak_bytes'] / 2**30:.2f} GiB (pool {pr.get('gpu_pool_peak_bytes', 0) / 2**30:.2f}), peak RSS {pr['rss_peak_bytes'] / 2**30:.2f} GiB")
            for i, p in enumerate(pr["proofs"]):
                lines.append(f"    proof {i}: {p['seconds']:.2f} s, verified {p['verified']} ("
                             + ", ".join(f"{k} {v:.2f}" for k, v in p["phases"].items()) + ")")
        for ph in ("input", "pce", "witness", *sorted(k for k in r if k.startswith("witness_") and isinstance(r[k], dict))):
            if ph in r:
                p = r[ph]
                note = p.get("sector") or (f"sha {p['sha']}" if "sha" in p else "")
                note += f", poseidon {p['poseidon']}" if "poseidon" in p else ""
                lines.append(f"  {ph:8s} {p['seconds']:9.2f} s  peak RSS {p['rss_peak_bytes'] / 2**30:7.2f} GiB  "
                             f"file {p['bytes'] / 1e6:10.1f} MB" + (f"  ({note})" if note else ""))
        if "witness_identical" in r:
            lines.append(f"  witness files identical across witness paths: {r['witness_identical']}")
    return "\n".join(lines)
