"""A SnapDeals partition's synthesize step as the workflow runs it (``synthesize_partition`` in a
process of its own, timed by ``os.wait4``: wall, CPU seconds, peak RSS), on a synthetic update
file (``update_vanilla`` with ``synthetic: true``) and its check record; a header-only PCE as in
``synth_partition.py``. Run (after the synthcpu merge, 4d8bdad):
    PYTHONPATH=src python benchmarks/results/2026-12-02-cpu-2core-synth/update_partition.py update-32GiB OUT
"""
import hashlib, json, os, struct, subprocess, sys, time
from cuzk import pipeline
from cuzk.circuits.registry import shape_by_name
from cuzk.r1cs.pce import MAGIC, VERSION
CHILD = ("import sys; from cuzk.pipeline import synthesize_partition as s; "
         "s(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])")
def main(shape, out):
    os.makedirs(out, exist_ok=True)
    c1, rec, pce = (os.path.join(out, n) for n in ("u.json", "checked.json", "stub.pce"))
    t = time.time()
    if not os.path.exists(pce):
        pipeline.update_vanilla({"id": 7, "update": {"synthetic": True}}, None, c1, shape)
        pipeline.check_input(c1, rec, shape)
        hdr = json.dumps({"description": shape_by_name(shape).describe()}).encode()
        with open(pce, "wb") as f:
            f.write(MAGIC + struct.pack("<II", VERSION, len(hdr)) + hdr + hashlib.sha256(hdr).digest())
    print("inputs", round(time.time() - t, 1), "s", os.path.getsize(c1), "B", flush=True)
    t = time.time()
    p = subprocess.Popen([sys.executable, "-c", CHILD, c1, rec, pce, "0", os.path.join(out, "p0.wit")])
    _, status, ru = os.wait4(p.pid, 0)
    print(json.dumps({"shape": shape, "status": status, "wall": round(time.time() - t, 2), "cpu": round(ru.ru_utime + ru.ru_stime, 2),
                      "peak_rss_bytes": ru.ru_maxrss * 1024, "aux": shape_by_name(shape).stats()["aux"]}), flush=True)
if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
