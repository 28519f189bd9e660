"""run.sh's table: per measure the new and old builds' times (each the better of the two runs),
new / old, and whether every output (SHA-256) of the four runs agrees. Writes OUTDIR/compare-NEW-OLD.json.
Two other names of runs (OUTDIR/NAME-*.json) may be given instead of new and old.

Usage: python3 benchmarks/ff_rows/compare.py OUTDIR [NEW OLD]
"""
import json
import sys
from pathlib import Path

d = Path(sys.argv[1])
names = sys.argv[2:4] if len(sys.argv) > 3 else ["new", "old"]
runs = dict(zip(("new", "old"), ([json.loads(p.read_text()) for p in sorted(d.glob(f"{name}-*.json"))] for name in names)))
rows, agree = [], True
for kind, key, unit in (("ntt", "loop_ms_per", "ms"), ("ntt", "single_ms", "ms"), ("compute_h", "seconds", "s"),
                        ("msm_g1", "seconds", "s"), ("poseidon", "ms", "ms")):
    sizes = runs["new"][0][kind].keys() if kind != "poseidon" else [""]
    for k in sizes:
        def pick(r):
            v = r[kind] if kind == "poseidon" else r[kind].get(k)
            return v or {}
        vals = {name: [pick(r).get(key) for r in rs] for name, rs in runs.items()}
        if any(v is None for vs in vals.values() for v in vs):
            continue
        shas = {pick(r).get("sha256") for rs in runs.values() for r in rs}
        ok = len(shas) == 1 and all(pick(r).get("h_ok", True) for rs in runs.values() for r in rs)
        agree &= ok
        new, old = min(vals["new"]), min(vals["old"])
        rows.append({"what": f"{kind} {key}" + (f" 2^{k}" if k else ""), "new": new, "old": old,
                     "ratio": new / old, "outputs_agree": ok, "all_new": vals["new"], "all_old": vals["old"]})
for r in rows:
    print(f"{r['what']:28s} new {r['new']:.4f} old {r['old']:.4f} ratio {r['ratio']:.3f} {'equal' if r['outputs_agree'] else 'DIFFER'}")
(d / f"compare-{names[0]}-{names[1]}.json").write_text(json.dumps({"rows": rows, "all_outputs_agree": agree}, indent=1))
print("all outputs agree" if agree else "OUTPUTS DIFFER")
sys.exit(0 if agree else 1)
