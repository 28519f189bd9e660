"""The WindowPoSt synthesize step (``pipeline.synthesize_sector``, native Poseidon) on a 32 GiB
target of DISTINCT synthetic sectors padded over the partition's 2,349 slots, each run a fresh
process as a workflow job is; the code is whatever CODE/src holds; KEEP is ``witness_poseidon``
(values or inputs). Then (READ=1) the prove step's read of the file: ``read_witness_compact``
and the host's whole assignment (``CompactAssignment.limbs``: the values computed on the CPU
where the file holds inputs), in a fresh process.

Usage: PYTHONPATH=<checkout>/src:<checkout>/tests python time_post_step.py DIR CODE DISTINCT THREADS RUNS KEEP [READ]
(UPSTREAM=1 in the environment: a PCE in rust-fil-proofs' order, ``upstream_order: true``.)
Prints per run: wall s, the step's own seconds and sampled RSS peak (its memory record), the
process's peak RSS (ru_maxrss of the child), and the witness file's SHA-256.
"""
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from cuzk import pipeline
from cuzk.groth16 import file_digest
from pce_util import header_pce

STEP = """import sys; from cuzk import pipeline
a = sys.argv[1:]
pipeline.synthesize_sector(a[0], a[2], a[3], mem_json=a[4], checked=a[1], poseidon="native", threads=int(a[5]), keep=a[6])
"""
READ = """import resource, sys, time; from cuzk.r1cs.witness import read_witness_compact
t = time.perf_counter(); cw = read_witness_compact(sys.argv[1]); t1 = time.perf_counter(); w = cw.limbs(); t2 = time.perf_counter()
print(f"read {t1 - t:.2f} s, limbs {t2 - t1:.2f} s, peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.2f} GiB")
"""
d, code, distinct, threads, runs = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
keep, read = sys.argv[6], len(sys.argv) > 7 and sys.argv[7] == "1"
name = "window-post-32GiB"
up = os.environ.get("UPSTREAM") == "1"
src, rec, pce = d / f"in{distinct}.json", d / f"in{distinct}.checked.json", d / ("post-up.pce" if up else "post.pce")
d.mkdir(parents=True, exist_ok=True)
if not rec.exists():
    pipeline.post_vanilla("window", name, [], src, "bench", "00" * 32, synthetic_ids=list(range(1, distinct + 1)))
    pipeline.check_input(src, rec, name, partitions=1)
if not pce.exists():
    header_pce(pce, name, upstream=up)
env = dict(os.environ, PYTHONPATH=f"{code}/src")
for r in range(runs):
    wit, mem = d / f"w{r}", d / f"m{r}.json"
    subprocess.run(["rm", "-rf", str(wit)], check=True)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", STEP, str(src), str(rec), str(pce), str(wit), str(mem), str(threads), keep], env=env, check=True)
    wall = time.perf_counter() - t
    m = json.loads(mem.read_text())
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    files = sorted(wit.iterdir())
    print(f"{code.name} {keep}{' upstream' if up else ''} distinct {distinct} threads {threads} run {r}: {wall:.2f} s wall, step {m['seconds']:.2f} s, "
          f"sampled RSS peak {m['rss_peak_bytes'] / 2**30:.2f} GiB, children max RSS so far {peak / 2**30:.2f} GiB, "
          f"{sum(f.stat().st_size for f in files) / 2**30:.2f} GiB written, sha256 {file_digest(files[0])[:16]}", flush=True)
    if read:
        p = subprocess.run([sys.executable, "-c", READ, str(files[0])], env=env, check=True, capture_output=True, text=True)
        print(f"    prove-side read of {files[0].name}: {p.stdout.strip()}", flush=True)
