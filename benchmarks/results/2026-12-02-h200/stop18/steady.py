"""Steady seconds per proof of each limited point in this folder's calls (limits.log): the time
from one group's last MSM (msm_b_g2) to the next one's, divided by the group's size, over the
groups after the first (the first pays the pinned allocations and the matrices' one-time
conversion). Run: python benchmarks/results/2026-12-02-h200/stop18/steady.py"""
import json
import re
from pathlib import Path

here = Path(__file__).parent
for call in sorted(p for p in here.iterdir() if p.is_dir()):
    log = (call / "limits.log").read_text().splitlines()
    pts = json.loads((call / "limits.json").read_text())["points"]
    point, ends, flight = None, [], {}
    limited = iter(x for x in pts if x["limit_gib"] is not None)   # in the order the log runs them
    for line in log:
        m = re.match(r"L=(\S+) GiB plan: in flight (\d+)", line)
        if m:
            point, ends = m.group(1), []
            flight[point] = int(m.group(2))
        m = re.match(r"\s+\[\s*([\d.]+) s\] msm_b_g2", line)
        if m and point:
            ends.append(float(m.group(1)))
        if point and "done" in line and line.startswith("["):
            gaps = [b - a for a, b in zip(ends, ends[1:])][:-1] or [b - a for a, b in zip(ends, ends[1:])]
            p = next(limited)
            unl = next(x for x in pts if x["limit_gib"] is None)["s_per_proof"]
            st = sum(gaps) / len(gaps) / flight[point] if gaps else float("nan")
            print(f"{call.name} L={p['limit_gib']}, {p['planned']['h_phase']} H phase: in flight {flight[point]}, all {p['s_per_proof']:.2f} s/proof, steady "
                  f"{st:.2f} s/proof ({st / unl:.2f}x the unlimited {unl:.2f}), GPU peak {p['gpu_peak_bytes'] / 2**30:.1f} GiB, "
                  f"host RSS {p['host_rss_peak_bytes'] / 2**30:.1f} GiB, bus {p['bus_bytes_per_proof_measured'] / 1e9:.1f} GB/proof, "
                  f"{p['verified']}/{p['proofs']} verified")
            point = None
