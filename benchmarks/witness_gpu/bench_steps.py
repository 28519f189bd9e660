"""The synthesize steps with the witness kernels as workflow choices (``synthesis_sha: gpu``,
``synthesis_poseidon: gpu``) against the native cores, each step a fresh process as a workflow job
is (imports, the CUDA context and the GPU claim included), side by side in one run.

Usage: PYTHONPATH=src:tests python benchmarks/witness_gpu/bench_steps.py DIR OUT.json [SHAPES] [REPEAT] [THREADS]

SHAPES (comma-separated; default porep-32GiB,window-post-32GiB): a PoRep shape's partition 0 of a
synthetic sector (``synthesize_partition``, one job per partition in the workflow); a WindowPoSt
shape's whole target over DISTINCT (env, default 1) synthetic sectors padded to the partition's slots (``synthesize_sector``, native with THREADS workers,
default 16, and gpu, which starts none; GPU_FIRST=1 runs gpu first). The PCE is a header-only file (what synthesis reads of
it: ``tests/pce_util.py``). Cases alternate, REPEAT (default 2) times; each run's wall seconds,
the step's sampled host RSS peak (its memory record) and its witness files' SHA-256 (all runs of a
shape must agree). Prints a line per case; writes OUT.json.
"""

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from cuzk import pipeline
from cuzk.groth16 import file_digest
from pce_util import header_pce

STEP = """import sys; from cuzk import pipeline
from cuzk.groth16 import file_digest
a = sys.argv[1:]
if a[0] == "partition":
    pipeline.synthesize_partition(a[1], a[2], a[3], 0, a[4], mem_json=a[5], sha=a[6], poseidon=a[7])
else:
    pipeline.synthesize_sector(a[1], a[3], a[4], mem_json=a[5], checked=a[2], sha=a[6], poseidon=a[7], threads=int(a[8]))
"""


def digest(path: Path) -> str:
    """A witness file's SHA-256, or a witness directory's files' digests joined (``file_digest``)."""
    files = sorted(f for f in path.rglob("*") if f.is_file()) if path.is_dir() else [path]
    return ",".join(file_digest(f) for f in files)


def make_inputs(d: Path, name: str) -> tuple[Path, Path, Path]:
    """(input file, its check record, a header-only PCE) of shape ``name`` in ``d``: a synthetic
    sector's C1, or a WindowPoSt target over DISTINCT (env, default 1) synthetic sectors."""
    src, rec, pce = d / f"{name}.input.json", d / f"{name}.checked.json", d / f"{name}.pce"
    if "post" in name:
        # DISTINCT synthetic sectors (default 1), padded over the partition's slots as the
        # workflow's benchmarks/configs/h200-32gib-windowpost.yaml pads one. Identical slots'
        # Poseidon rows are hashed once (cuzk.r1cs.poseidon), so a padded target times the
        # rest of the synthesis, not the hashes; each distinct sector costs about 0.1 s to
        # generate and 0.15 s to check (2-core box): 2,349 took over 370 s on the H200 host
        # (stop 40, call 5)
        ids = list(range(1, int(os.environ.get("DISTINCT", "1")) + 1))
        pipeline.post_vanilla("window", name, [], src, "bench", "00" * 32, synthetic_ids=ids)
        pipeline.check_input(src, rec, name, partitions=1)
    else:
        pipeline.prepare({"id": 7, "synthetic": True}, src, name, "bench", "00" * 32)
        pipeline.check_input(src, rec, name)
    header_pce(pce, name)
    return src, rec, pce


def main():
    d, out = Path(sys.argv[1]), Path(sys.argv[2])
    shapes = (sys.argv[3] if len(sys.argv) > 3 else "porep-32GiB,window-post-32GiB").split(",")
    repeat = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    threads = int(sys.argv[5]) if len(sys.argv) > 5 else 16
    d.mkdir(parents=True, exist_ok=True)
    res = {"shapes": {}}
    for name in shapes:
        post = "post" in name
        t = time.perf_counter()
        src, rec, pce = make_inputs(d, name)
        inputs_s = time.perf_counter() - t
        print(f"{name}: inputs {inputs_s:.0f} s", flush=True)
        cases = [("native", "native", threads if post else 1), ("native" if post else "gpu", "gpu", 1)]
        if os.environ.get("GPU_FIRST") == "1":
            cases.reverse()
        runs = {f"{s}/{p}": [] for s, p, _ in cases}
        for r in range(repeat):
            for sha, pos, th in cases:
                key = f"{sha}/{pos}"
                wit, mem = d / f"{name}.{sha}-{pos}.{r}.wit", d / f"{name}.{sha}-{pos}.{r}.mem.json"
                t = time.perf_counter()
                p = subprocess.run([sys.executable, "-c", STEP, "sector" if post else "partition", str(src), str(rec),
                                    str(pce), str(wit), str(mem), sha, pos, str(th)], capture_output=True, text=True)
                sec = time.perf_counter() - t
                if p.returncode:
                    print(p.stderr[-3000:], flush=True)
                    raise SystemExit(f"{name} {key}: rc {p.returncode}")
                m = json.loads(mem.read_text())
                runs[key].append({"seconds": sec, "step_seconds": m.get("seconds"), "rss_peak_bytes": m.get("rss_peak_bytes"),
                                  "sha256": digest(wit), "threads": th})
                print(f"{name} {key} (threads {th}) run {r}: {sec:.2f} s wall, step {m.get('seconds', 0):.2f} s, "
                      f"RSS peak {m.get('rss_peak_bytes', 0) / 2**30:.2f} GiB", flush=True)
        same = len({x["sha256"] for v in runs.values() for x in v}) == 1
        med = {k: statistics.median(x["seconds"] for x in v) for k, v in runs.items()}
        rss = {k: max(x["rss_peak_bytes"] or 0 for x in v) for k, v in runs.items()}
        res["shapes"][name] = {"inputs_s": inputs_s, "runs": runs, "median_s": med, "rss_peak_bytes": rss,
                               "files_identical": same}
        print(f"{name}: medians {({k: round(v, 2) for k, v in med.items()})} s, RSS peaks "
              f"{({k: round(v / 2**30, 2) for k, v in rss.items()})} GiB, files identical {same} "
              f"(inputs {inputs_s:.0f} s)", flush=True)
    out.write_text(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
