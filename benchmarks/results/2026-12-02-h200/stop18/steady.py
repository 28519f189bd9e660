"""Steady seconds per proof of each limited point in this folder's calls (limits.log): each group's
time from the previous group's last MSM (msm_b_g2) to its own, over the full groups (in_flight
partitions) after the first, divided by their partitions; the first group pays the pinned host
buffers and the matrices' one-time conversion, and a last group smaller than in_flight shares the
key's passes among fewer partitions (used only when no full group follows the first, and said).
A group's size is its count of "combine" lines (one per proof made, also when a point was stopped
early); with even groups (stop 19 on: ``Prover.prove_groups`` by ``even_groups``) a group as
large as the first counts as full.
Run: python benchmarks/results/2026-12-02-h200/stop18/steady.py [FOLDER: the calls' parent; this one]"""
import json
import re
import sys
from pathlib import Path

here = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent
for call in sorted(p for p in here.iterdir() if (p / "limits.log").exists()):
    log = (call / "limits.log").read_text().splitlines()
    pts = json.loads((call / "limits.json").read_text())["points"]
    unl = next(x for x in pts if x["limit_gib"] is None)["s_per_proof"]
    limited = iter(x for x in pts if x["limit_gib"] is not None)   # in the order the log runs them
    point, ends, flight, sizes = None, [], 0, []
    for line in log:
        m = re.match(r"L=(\S+) GiB plan(?: \(compact w \S+\))?: in flight (\d+)", line)
        if m:
            point, ends, flight, sizes = m.group(1), [], int(m.group(2)), []
        m = re.match(r"\s+\[\s*([\d.]+) s\] msm_b_g2", line)
        if m and point:
            ends.append(float(m.group(1)))
            sizes.append(0)
        if point and sizes and re.match(r"\s+\[\s*[\d.]+ s\] combine", line):
            sizes[-1] += 1
        if point and "done" in line and line.startswith("["):
            p = next(limited)
            later = list(zip([b - a for a, b in zip(ends, ends[1:])], sizes[1:]))
            full = [(g, s) for g, s in later if s in (flight, sizes[0])]   # even groups: the first is the largest
            use, note = (full, "") if full else (later, " (last group partial)")
            st = sum(g for g, _ in use) / sum(s for _, s in use) if use else float("nan")
            print(f"{call.name} L={p['limit_gib']}, {p['planned']['h_phase']} H phase: in flight {flight}, "
                  f"{p['proofs']} proofs, all {p['s_per_proof']:.2f} s/proof ({p['s_per_proof'] / unl:.2f}x), steady "
                  f"{st:.2f} s/proof{note} ({st / unl:.2f}x the unlimited {unl:.2f}), GPU peak "
                  f"{p['gpu_peak_bytes'] / 2**30:.1f} GiB, host RSS {p['host_rss_peak_bytes'] / 2**30:.1f} GiB, bus "
                  f"{p['bus_bytes_per_proof_measured'] / 1e9:.1f} GB/proof, {p['verified']}/{p['proofs']} verified")
            point = None
