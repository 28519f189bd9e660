"""``cuzk bench circuit``: cost of a circuit shape's PCE extraction and of one partition's witness.

Per PoRep shape, each phase runs in its own spawned process so its peak RSS is its own:

1. **input**: the C1 of a sector of that size — sealed for real (random Fr32 data,
   :func:`cuzk.sector.porep_c1.seal_and_prove`) up to ``seal_limit`` bytes, above it a sparse
   synthetic sector (:func:`cuzk.sector.synthetic.synthetic_c1`, marked ``"synthetic": true``);
2. **pce**: build one partition's R1CS in shape mode and write the PCE file
   (what the ``pce_extract`` rule does);
3. **witness**: partition 0's witness in witness-only mode, written as a witness file (what
   ``synthesize`` does per partition).

Reported per phase: seconds (wall), peak RSS of the phase's process (bytes, ``ru_maxrss``), and
the bytes of the file it wrote; plus the shape's exact sizes (:meth:`stats`).
"""

from __future__ import annotations

import json
import multiprocessing as mp
import resource
import time
from pathlib import Path

__all__ = ["bench_circuit", "format_circuit"]


def _peak() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _phase_input(shape_name: str, path: str, seal_limit: int) -> dict:
    import numpy as np

    from .circuits.registry import shape_by_name
    from .sector.porep_c1 import seal_and_prove, write_porep_c1
    from .sector.synthetic import synthetic_c1

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
    from .circuits.registry import family_of, shape_by_name
    from .r1cs import ConstraintSystem
    from .r1cs.pce import write_pce

    sh = shape_by_name(shape_name)
    t = time.perf_counter()
    cs = ConstraintSystem(shape=True, witness=False)
    family_of(sh).synthesize(cs, sh)
    build = time.perf_counter() - t
    r1cs = cs.finalize(consume=True)
    stats = r1cs.stats()
    write_pce(path, r1cs, sh.describe())
    return {"seconds": time.perf_counter() - t, "synthesize_seconds": build, "rss_peak_bytes": _peak(),
            "bytes": Path(path).stat().st_size, "r1cs": stats}


def _phase_witness(shape_name: str, c1_path: str, path: str) -> dict:
    from .circuits.registry import family_of, shape_by_name
    from .r1cs import ConstraintSystem
    from .r1cs.witness import write_witness

    sh = shape_by_name(shape_name)
    fam = family_of(sh)
    inp = json.loads(Path(c1_path).read_text())  # written by the input phase (verified there)
    t = time.perf_counter()
    cs = ConstraintSystem(shape=False, witness=True)
    fam.synthesize(cs, sh, fam.values(inp, 0))
    ins, aux = cs.assignment()
    synth = time.perf_counter() - t
    write_witness(path, ins, aux)
    return {"seconds": time.perf_counter() - t, "synthesize_seconds": synth, "rss_peak_bytes": _peak(),
            "bytes": Path(path).stat().st_size, "aux": int(len(aux))}


def _run(fn, *args) -> dict:
    ctx = mp.get_context("spawn")
    with ctx.Pool(1) as pool:
        return pool.apply(fn, args)


def bench_circuit(shapes: list[str], workdir, json_out=None, seal_limit: int = 8 << 20,
                  phases: tuple[str, ...] = ("input", "pce", "witness")) -> list[dict]:
    """Measure PCE extraction and one partition's witness for each PoRep shape.

    Args:
        shapes: PoRep shape names (``cuzk shapes``).
        workdir: where the C1, PCE and witness files go (kept: they can be large).
        json_out: write the list of results here (atomically).
        seal_limit: largest sector size (bytes) sealed for real; larger ones are synthetic.
        phases: a subset of ("input", "pce", "witness"); "witness" needs the input's C1 file.

    Returns:
        one dict per shape: name, stats (exact, from the shape), and per phase seconds,
        rss_peak_bytes, bytes (file size).

    Raises:
        ValueError: not a PoRep shape.
    """
    from .circuits.porep import PoRepShape
    from .circuits.registry import shape_by_name
    from .fileio import atomic_write_text

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
        runs = {"input": (_phase_input, str(c1), seal_limit), "witness": (_phase_witness, str(c1), str(wit)),
                "pce": (_phase_pce, str(pce))}
        for ph in ("input", "witness", "pce"):  # the witness first: it is the cheaper of the two
            if ph in phases:
                fn, *args = runs[ph]
                res[ph] = _run(fn, name, *args)
                print(format_circuit([{"name": name, "stats": res["stats"], ph: res[ph]}]), flush=True)
                if json_out:  # after every phase: a run cut short keeps what it measured
                    atomic_write_text(json_out, json.dumps(out, indent=1) + "\n")
    return out


def format_circuit(results: list[dict]) -> str:
    """One line per shape and phase: seconds, peak RSS (GiB) and file size (MB)."""
    lines = []
    for r in results:
        st = r["stats"]
        lines.append(f"{r['name']}: {st['constraints']:,} constraints, {st['inputs']} inputs, "
                     f"nnz {st['nnz_a'] + st['nnz_b'] + st['nnz_c']:,}")
        for ph in ("input", "pce", "witness"):
            if ph in r:
                p = r[ph]
                lines.append(f"  {ph:8s} {p['seconds']:9.2f} s  peak RSS {p['rss_peak_bytes'] / 2**30:7.2f} GiB  "
                             f"file {p['bytes'] / 1e6:10.1f} MB" + (f"  ({p['sector']})" if "sector" in p else ""))
    return "\n".join(lines)
