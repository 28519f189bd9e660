"""``cuzk bench snarkjs`` at one tiny size (issue 6): both proofs verify both ways, the JSON has
its fields. No timing assertions. Skips without node_modules/.bin/snarkjs and circom2."""

from __future__ import annotations

import json
import shutil

import pytest

from cuzk.bench.snarkjs import bench_snarkjs, circuit_shape, format_snarkjs, node_bin_dir, parse_sizes
from cuzk.cli import build_parser

needs_node = pytest.mark.skipif(
    node_bin_dir() is None or shutil.which("node") is None,
    reason="snarkjs/circom2 not installed: run `npm ci` at the repository root (needs node)",
)


def test_circuit_shape_and_sizes():
    for n in (64, 1024, 65536):
        m, k = circuit_shape(n)
        assert m + 17 * k == n - 3 and k >= 1
    assert parse_sizes("1024, 2^14,2**16") == [1024, 16384, 65536]
    args = build_parser().parse_args(["bench", "snarkjs", "--sizes", "64", "--threads", "1"])
    assert args.what == "snarkjs" and args.threads == 1


@needs_node
def test_bench_snarkjs_smallest(tmp_path):
    out = tmp_path / "res" / "bench.json"
    res = bench_snarkjs(sizes=(64,), threads=2, json_path=str(out), workdir=str(tmp_path / "w"), repeat=2)
    assert res["verified"] is True
    data = json.loads(out.read_text())
    assert data == json.loads(json.dumps(res))
    for key in ("benchmark", "backend", "threads", "snarkjs_threads", "versions", "machine", "sizes"):
        assert key in data, key
    (e,) = data["sizes"]
    assert e["size"] == 64 and e["constraints"] == 61 and e["domain_size"] == 64
    for run in ("snarkjs", "cuzk"):
        r = e[run]
        assert r["returncode"] == 0
        assert r["verified_by_snarkjs"] is True and r["verified_by_cuzk"] is True
        for key in ("seconds", "cpu_seconds", "rss_peak_bytes", "maxrss_bytes"):
            assert r[key] > 0, (run, key)
    assert e["same_public_signals"] is True
    assert e["ratio_seconds"] > 0 and e["ratio_cpu_seconds"] > 0 and e["ratio_rss"] > 0
    for phase in ("startup", "read_zkey", "load_bases", "qap", "msm_b_g2", "msm_c_h0", "combine", "prove"):
        assert phase in e["cuzk"]["phases"], phase
    assert e["cuzk"]["prove_seconds"] == e["cuzk"]["phases"]["prove"]
    # the first cuzk run converts the .zkey into the (per-size, emptied) cache, the others load it
    assert e["cuzk_cold"]["zkey_cache"] == "miss" and e["cuzk"]["all_zkey_cache"] == ["miss", "hit"]
    assert e["cuzk_cold"]["seconds"] > 0 and e["cuzk_cold"]["cpu_seconds"] > 0
    assert any(p.name == "converted-zkey" for p in (tmp_path / "w" / "n64" / "cuzk-cache").iterdir())
    text = format_snarkjs(res)
    assert "64" in text and "first run" in text
