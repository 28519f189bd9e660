"""``cuzk bench snarkjs``: the same circom circuit proved by snarkjs and by cuzk, whole-process figures.

For each size N (about N constraints):

1. a circom circuit (:func:`circuit_source`) is generated into the work directory and compiled
   with ``circom2 --prime bls12381 --r1cs --wasm``; the witness comes from ``snarkjs wtns
   calculate`` and is checked against our ``.r1cs`` reader;
2. the ``.zkey`` comes from OUR development setup and writer (``formats.setup_zkey`` +
   ``write_zkey``, snarkjs-form H bases): a real snarkjs ceremony at power 17 takes too long, and
   snarkjs proves with our keys (tests/test_formats_iden3.py);
3. ``snarkjs groth16 prove KEY WTNS`` runs as a subprocess (snarkjs' ffjavascript uses one worker
   thread per CPU the OS reports, ``os.cpus().length``), then cuzk proves the same key and
   witness as a subprocess too (``python -m cuzk.formats.snarkjs_prove …``, what ``cuzk
   snarkjs-prove`` runs: reads the ``.zkey`` without point checks — snarkjs does none either —
   and the ``.wtns``, proves on the chosen backend with ``threads`` threads, writes
   ``proof.json``/``public.json``; before numpy loads it turns off OpenBLAS's threads and raises
   two glibc malloc thresholds, ``cuzk.formats.snarkjs_prove._tune_process``).
   Each run is measured from outside: wall seconds from spawn to reaping, user+sys CPU seconds
   and the largest single-process ``maxrss`` from ``wait4``, and the peak RSS of the whole
   process tree (cuzk's worker processes included) by psutil polling every 20 ms;
4. both proofs are verified by our verifier and by ``snarkjs groth16 verify``.

The ratio is snarkjs seconds / cuzk seconds (> 1: cuzk is faster). cuzk's child also reports
seconds per phase (import, read_zkey, read_wtns, qap_matrices, load_bases, prove — of which qap,
msm_wait and combine on the main thread, and msm_* as seconds of each MSM on whichever thread ran
it, concurrently — write, close), so the table says where its time goes.

cuzk keeps a converted copy of each ``.zkey`` (``read_zkey``'s cache, keyed by the file's
SHA-256); the benchmark gives the child a cache directory in the work directory, emptied before
each size, so the first cuzk run converts the key ("cuzk_cold") and the later ones load it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path

import psutil

from ..backend import get_backend
from ..fileio import atomic_write_text
from ..formats import read_proof_json, read_public_json, read_r1cs, read_vk_json, read_wtns, setup_zkey, write_vk_json, write_zkey
from ..groth16 import DevelopmentSetupWarning, verify
from ..memory import process_tree_rss

GIB = 1 << 30
MIB = 1 << 20
DEFAULT_SIZES = (2**10, 2**14, 2**16)
BITS = 16
"""Width of each bit decomposition in the benchmark circuit."""
SEED = 39516
"""The private input ``s``; block k decomposes s + k, so s + blocks must stay below 2^BITS."""
N_PUBLIC = 2
"""Public values besides ONE: the output ``out`` and the public input ``y``."""

CIRCUIT_HELP = f"""\
The circuit (generated per size N, template Bench(M, K, {BITS})): K blocks that decompose the
{BITS}-bit value s + k into bits (a booleanity constraint b·(b − 1) = 0 per bit and one linear
sum constraint per block, {BITS + 1} constraints a block), and a multiplication chain of M
constraints t[i+1] = t[i]·(y + bit) that walks the bits; y public, x and s private, out = t[M]
public. K = ⌊(N − 3)/2 / {BITS + 1}⌋ and M = N − 3 − {BITS + 1}·K, so the R1CS has N − 3
constraints and, with snarkjs' {N_PUBLIC + 1} input rows, a QAP domain of exactly N. About half
of the constraints are booleanity checks, half full-width multiplications; circom puts y + bit in
A, so the A MSM's scalars are the bits (0/1) and y, the B MSMs' are bits and chain values.
"""


# --- node tools -------------------------------------------------------------------------------


def node_bin_dir() -> Path | None:
    """``node_modules/.bin`` holding snarkjs and circom2: $CUZK_NODE_BIN, the current directory's,
    or the one at the root of the source tree this package runs from; None if none exists."""
    cands = []
    if os.environ.get("CUZK_NODE_BIN"):
        cands.append(Path(os.environ["CUZK_NODE_BIN"]))
    cands.append(Path.cwd() / "node_modules" / ".bin")
    cands.append(Path(__file__).resolve().parents[3] / "node_modules" / ".bin")   # src/cuzk/bench/snarkjs.py
    for c in cands:
        if (c / "snarkjs").exists() and (c / "circom2").exists():
            return c
    return None


def _tool(name: str) -> str:
    d = node_bin_dir()
    if d is None or shutil.which("node") is None:
        raise RuntimeError(
            "snarkjs/circom2 not found: run `npm ci` at the repository root (needs node), "
            "or set CUZK_NODE_BIN to a node_modules/.bin"
        )
    return str(d / name)


def _package_version(name: str) -> str | None:
    d = node_bin_dir()
    if d is None:
        return None
    try:
        return json.loads((d.parent / name / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def _node_cpus() -> int | None:
    """What snarkjs sees: node's ``os.cpus().length`` (ffjavascript's worker count)."""
    try:
        out = subprocess.run(["node", "-e", "console.log(require('os').cpus().length)"],
                             capture_output=True, text=True, timeout=30)
        return int(out.stdout.strip())
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def _run_checked(argv: list[str], cwd: Path, what: str, timeout: float = 3600) -> float:
    """Run a tool; return its wall seconds; raise RuntimeError with its output on failure."""
    t = time.perf_counter()
    p = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f"{what} failed ({p.returncode}): {' '.join(argv)}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    return time.perf_counter() - t


# --- the circuit ------------------------------------------------------------------------------


def circuit_shape(n: int) -> tuple[int, int]:
    """(M, K): multiplications and bit-decomposition blocks for a domain of size n (see CIRCUIT_HELP)."""
    total = n - (N_PUBLIC + 1)
    if total < 2:
        raise ValueError(f"size {n} is too small for the benchmark circuit (need ≥ {N_PUBLIC + 3})")
    k = (total // 2) // (BITS + 1)
    return total - (BITS + 1) * k, k


def circuit_source(n: int) -> str:
    """circom source of the benchmark circuit for size n."""
    m, k = circuit_shape(n)
    chain = "t[i] * (y + bits[(i \\ B) % K][i % B])" if k else "t[i] * y"
    return f"""pragma circom 2.0.0;

// cuzk bench snarkjs: K {BITS}-bit decompositions of s + k (booleanity + one linear sum each)
// and a multiplication chain t[i+1] = t[i] * (y + bit) of M constraints; out = t[M].
// M = {m}, K = {k}: {m + (BITS + 1) * k} constraints, QAP domain {n} with the {N_PUBLIC + 1} input rows.
template Bench(M, K, B) {{
    signal input x;
    signal input y;
    signal input s;
    signal output out;
    signal bits[K][B];
    for (var k = 0; k < K; k++) {{
        var acc = 0;
        for (var i = 0; i < B; i++) {{
            bits[k][i] <-- ((s + k) >> i) & 1;
            bits[k][i] * (bits[k][i] - 1) === 0;
            acc += bits[k][i] * (1 << i);
        }}
        acc === s + k;
    }}
    signal t[M + 1];
    t[0] <== x;
    for (var i = 0; i < M; i++) {{
        t[i + 1] <== {chain};
    }}
    out <== t[M];
}}

component main {{public [y]}} = Bench({m}, {k}, {BITS});
"""


CIRCUIT_INPUT = {"x": "3", "y": "5", "s": str(SEED)}


# --- measuring a subprocess -------------------------------------------------------------------


def measure_process(argv: list[str], cwd: Path, log_path: Path, interval: float = 0.02,
                    timeout: float = 3600, env: dict | None = None) -> dict:
    """Run ``argv`` to completion and measure it from outside (``env``: its environment, default
    this process's).

    Returns:
        dict: "seconds" (wall, spawn to reaping), "cpu_seconds" (user + sys of the process and
        its reaped descendants, from wait4), "cpu_utilization" (cpu/wall), "rss_peak_bytes"
        (peak of the summed RSS of the process tree, polled every ``interval`` s),
        "maxrss_bytes" (largest single-process peak RSS, from wait4), "returncode", "samples",
        "start_epoch" (time.time() at spawn).

    Raises:
        RuntimeError: the process ran past ``timeout`` (it is killed).
    """
    with open(log_path, "wb") as log:
        start_epoch = time.time()
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, env=env)
        done = threading.Event()
        out: dict = {}

        def reap():
            _, status, ru = os.wait4(p.pid, 0)
            out["t1"] = time.perf_counter()
            out["status"], out["ru"] = status, ru
            done.set()

        th = threading.Thread(target=reap, name="cuzk-bench-reap", daemon=True)
        th.start()
        try:
            ps = psutil.Process(p.pid)
        except psutil.Error:
            ps = None
        peak, n = 0, 0
        while not done.wait(interval):
            if ps is not None:
                peak = max(peak, process_tree_rss(ps))
                n += 1
            if time.perf_counter() - t0 > timeout:
                p.kill()
                done.wait()
                raise RuntimeError(f"{argv[0]} ran past {timeout} s")
        th.join()
    p.returncode = os.waitstatus_to_exitcode(out["status"])  # reaped here, not by Popen
    ru = out["ru"]
    wall = out["t1"] - t0
    cpu = ru.ru_utime + ru.ru_stime
    return {
        "seconds": round(wall, 4),
        "cpu_seconds": round(cpu, 3),
        "cpu_utilization": round(cpu / wall, 3) if wall > 0 else None,
        "rss_peak_bytes": max(peak, ru.ru_maxrss * 1024),
        "maxrss_bytes": ru.ru_maxrss * 1024,
        "returncode": p.returncode,
        "samples": n,
        "start_epoch": start_epoch,
    }


# --- the benchmark ----------------------------------------------------------------------------


def _default_threads() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _prepare(n: int, d: Path, threads: int, backend: str) -> dict:
    """Circuit, witness and key for size n in ``d`` (reused when the source and files match)."""
    d.mkdir(parents=True, exist_ok=True)
    src = circuit_source(n)
    digest = hashlib.sha256((src + json.dumps(CIRCUIT_INPUT, sort_keys=True)).encode()).hexdigest()
    meta_path = d / "prepared.json"
    files = [d / x for x in ("bench.r1cs", "bench.wtns", "bench.zkey", "vk.json")]
    if meta_path.exists() and all(f.exists() for f in files):
        try:
            meta = json.loads(meta_path.read_text())
            if meta.get("source_sha256") == digest:
                meta["cached"] = True
                return meta
        except ValueError:
            pass
    atomic_write_text(d / "bench.circom", src)
    atomic_write_text(d / "input.json", json.dumps(CIRCUIT_INPUT) + "\n")
    secs: dict[str, float] = {}
    secs["compile"] = _run_checked([_tool("circom2"), "bench.circom", "--r1cs", "--wasm", "--prime", "bls12381",
                                    "-o", "."], d, "circom2")
    secs["witness"] = _run_checked([_tool("snarkjs"), "wtns", "calculate", "bench_js/bench.wasm", "input.json",
                                    "bench.wtns"], d, "snarkjs wtns calculate")
    t = time.perf_counter()
    r = read_r1cs(d / "bench.r1cs")
    w = read_wtns(d / "bench.wtns", r.n_wires)
    r.check(w)
    cs = r.to_r1cs()
    secs["read_check"] = time.perf_counter() - t
    t = time.perf_counter()
    setup_log = logging.getLogger("cuzk.formats.zkey_setup")
    level = setup_log.level
    setup_log.setLevel(logging.ERROR)  # the development-setup warning, once per size, is noise here
    try:
        with warnings.catch_warnings(), get_backend(backend, threads=threads) as bk:
            warnings.simplefilter("ignore", DevelopmentSetupWarning)
            zk = setup_zkey(cs, bk)
    finally:
        setup_log.setLevel(level)
    secs["setup"] = time.perf_counter() - t
    t = time.perf_counter()
    write_zkey(d / "bench.zkey", zk)
    write_vk_json(d / "vk.json", zk.verifying_key())
    secs["write_zkey"] = time.perf_counter() - t
    meta = {
        "source_sha256": digest,
        "constraints": r.n_constraints,
        "wires": r.n_wires,
        "public": r.n_public,
        "domain_size": zk.domain_size,
        "zkey_bytes": (d / "bench.zkey").stat().st_size,
        "public_signals": [str(v) for v in r.public_signals(w)],
        "seconds": {k: round(v, 3) for k, v in secs.items()},
    }
    atomic_write_text(meta_path, json.dumps(meta, indent=2) + "\n")
    meta["cached"] = False
    return meta


def _snarkjs_verifies(vk: Path, public: Path, proof: Path, cwd: Path) -> bool:
    p = subprocess.run([_tool("snarkjs"), "groth16", "verify", str(vk), str(public), str(proof)],
                       cwd=cwd, capture_output=True, text=True, timeout=600)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"snarkjs groth16 verify failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    return p.returncode == 0 and "OK" in p.stdout


def _ours_verifies(vk_path: Path, public: Path, proof: Path) -> bool:
    return bool(verify(read_vk_json(vk_path), read_proof_json(proof), read_public_json(public)))


def _cuzk_run(d: Path, threads: int, backend: str, env: dict | None = None) -> dict:
    cz = measure_process([sys.executable, "-m", "cuzk.formats.snarkjs_prove", "bench.zkey", "bench.wtns",
                          "proof_cuzk.json", "public_cuzk.json", "--threads", str(threads), "--backend", backend,
                          "--times", "cuzk_times.json"], d, d / "cuzk_prove.log", env=env)
    if cz["returncode"] != 0:
        raise RuntimeError(f"cuzk prove failed ({cz['returncode']}), see {d / 'cuzk_prove.log'}:\n"
                           + (d / "cuzk_prove.log").read_text()[-3000:])
    child = json.loads((d / "cuzk_times.json").read_text())
    phases = {"startup": round(child["main_epoch"] - cz["start_epoch"], 4), **child["seconds"]}
    phases["exit"] = round(max(0.0, cz["seconds"] - (child["end_epoch"] - cz["start_epoch"])), 4)
    cz["phases"] = phases
    if "prove" in phases:  # wall of ZKeyProver.prove (its MSM phases run concurrently: thread seconds)
        cz["prove_seconds"] = phases["prove"]
    else:
        cz["prove_seconds"] = round(sum(v for k, v in phases.items()
                                        if k in ("qap", "combine") or k.startswith("msm_")), 4)
    cz["backend"] = child["backend"]
    cz["zkey_cache"] = child.get("zkey_cache")
    return cz


def _snarkjs_run(d: Path) -> dict:
    sj = measure_process([_tool("snarkjs"), "groth16", "prove", "bench.zkey", "bench.wtns",
                          "proof_snarkjs.json", "public_snarkjs.json"], d, d / "snarkjs_prove.log")
    if sj["returncode"] != 0:
        raise RuntimeError(f"snarkjs groth16 prove failed ({sj['returncode']}), see {d / 'snarkjs_prove.log'}")
    return sj


def _bench_size(n: int, d: Path, threads: int, backend: str, repeat: int = 1) -> dict:
    prep = _prepare(n, d, threads, backend)
    load_before = os.getloadavg()
    # cuzk's converted-key cache lives in the work directory and starts empty for each size, so
    # the first cuzk run converts the key (reported as "cuzk_cold") and later runs load it
    cache = d / "cuzk-cache"
    shutil.rmtree(cache, ignore_errors=True)
    env = {**os.environ, "CUZK_CACHE_DIR": str(cache)}
    sj_runs, cz_runs = [], []
    for _ in range(max(1, repeat)):  # alternate, so both see the same background load
        for f in ("proof_snarkjs.json", "public_snarkjs.json", "proof_cuzk.json", "public_cuzk.json",
                  "cuzk_times.json"):
            (d / f).unlink(missing_ok=True)
        sj_runs.append(_snarkjs_run(d))
        cz_runs.append(_cuzk_run(d, threads, backend, env))
    load_after = os.getloadavg()
    # the fastest run of each is reported (its proof files are the last run's; all verify alike)
    sj = dict(min(sj_runs, key=lambda r: r["seconds"]))
    cz = dict(min(cz_runs, key=lambda r: r["seconds"]))
    if repeat > 1:
        sj["all_seconds"] = [r["seconds"] for r in sj_runs]
        cz["all_seconds"] = [r["seconds"] for r in cz_runs]
        sj["all_cpu_seconds"] = [r["cpu_seconds"] for r in sj_runs]
        cz["all_cpu_seconds"] = [r["cpu_seconds"] for r in cz_runs]
        cz["all_zkey_cache"] = [r["zkey_cache"] for r in cz_runs]
    cold = cz_runs[0]
    cz_cold = {k: cold[k] for k in ("seconds", "cpu_seconds", "rss_peak_bytes", "zkey_cache")}
    cz_cold["read_zkey"] = cold["phases"].get("read_zkey")
    for run in (sj, cz):
        run.pop("start_epoch", None)
    vk = d / "vk.json"
    sj["verified_by_snarkjs"] = _snarkjs_verifies(vk, d / "public_snarkjs.json", d / "proof_snarkjs.json", d)
    sj["verified_by_cuzk"] = _ours_verifies(vk, d / "public_snarkjs.json", d / "proof_snarkjs.json")
    cz["verified_by_snarkjs"] = _snarkjs_verifies(vk, d / "public_cuzk.json", d / "proof_cuzk.json", d)
    cz["verified_by_cuzk"] = _ours_verifies(vk, d / "public_cuzk.json", d / "proof_cuzk.json")
    pub_sj = json.loads((d / "public_snarkjs.json").read_text())
    pub_cz = json.loads((d / "public_cuzk.json").read_text())
    same_public = pub_sj == pub_cz == prep["public_signals"]
    verified = same_public and all(r[k] for r in (sj, cz) for k in ("verified_by_snarkjs", "verified_by_cuzk"))
    return {
        "size": n,
        "constraints": prep["constraints"],
        "wires": prep["wires"],
        "public": prep["public"],
        "domain_size": prep["domain_size"],
        "zkey_bytes": prep["zkey_bytes"],
        "prepare": {"cached": prep["cached"], "seconds": prep["seconds"]},
        "snarkjs": sj,
        "cuzk": cz,
        "cuzk_cold": cz_cold,
        "same_public_signals": same_public,
        "verified": verified,
        "ratio_seconds": round(sj["seconds"] / cz["seconds"], 3) if cz["seconds"] else None,
        "ratio_cpu_seconds": round(sj["cpu_seconds"] / cz["cpu_seconds"], 3) if cz["cpu_seconds"] else None,
        "ratio_rss": round(sj["rss_peak_bytes"] / cz["rss_peak_bytes"], 3) if cz["rss_peak_bytes"] else None,
        "loadavg_1min": [round(load_before[0], 2), round(load_after[0], 2)],
    }


def bench_snarkjs(
    sizes=DEFAULT_SIZES,
    threads: int | None = None,
    backend: str = "cpu",
    json_path: str | None = None,
    workdir: str | None = None,
    repeat: int = 1,
) -> dict:
    """Prove the benchmark circuit at each size with snarkjs and with cuzk; return and write the figures.

    Args:
        sizes: target sizes N (the QAP domain; the circuit has N − 3 constraints).
        threads: cuzk's CPU worker processes (for the setup too); default: the CPUs this process
            may run on. snarkjs always uses every CPU node reports (recorded as
            "snarkjs_threads").
        backend: cuzk backend ("cpu", "cuda", "auto").
        json_path: where to write the JSON (atomically, rewritten after each size); None to skip.
        workdir: where circuits, keys, witnesses and proofs go (kept; a size whose circuit source
            is unchanged reuses its compiled circuit, witness and key); None: a temporary
            directory, removed afterwards.
        repeat: prove this many times with each (alternating) and report each one's fastest
            run ("all_seconds" lists them all when > 1).

    Raises:
        RuntimeError: snarkjs/circom2 missing, or a tool or the cuzk child failed.
        ValueError: a size too small for the circuit.

    Returns:
        dict with "sizes" (one entry per size: constraints, domain, "snarkjs" and "cuzk" runs with
        seconds, cpu_seconds, rss_peak_bytes, maxrss_bytes, verified_by_snarkjs/cuzk; cuzk's
        "phases"; "ratio_seconds" = snarkjs/cuzk, "ratio_rss"), "verified" (all proofs
        accepted by both verifiers), tool versions and machine info.
    """
    threads = threads or _default_threads()
    sizes = [int(s) for s in sizes]
    for s in sizes:
        circuit_shape(s)
    _tool("snarkjs")
    tmp = None
    if workdir is None:
        tmp = tempfile.mkdtemp(prefix="cuzk-bench-snarkjs-")
        root = Path(tmp)
    else:
        root = Path(workdir)
        root.mkdir(parents=True, exist_ok=True)
    result = {
        "benchmark": "snarkjs",
        "backend": backend,
        "threads": threads,
        "snarkjs_threads": _node_cpus(),
        "cpus_available": _default_threads(),
        "circuit": " ".join(CIRCUIT_HELP.split()),
        "key": "cuzk development setup + zkey writer (snarkjs-form H); not a ceremony",
        "versions": {"snarkjs": _package_version("snarkjs"), "circom2": _package_version("circom2"),
                     "node": _node_version()},
        "machine": {"python": platform.python_version(), "cpu": _cpu_model(), "cpus": os.cpu_count()},
        "sizes": [],
        "note": "the 1-minute load average before/after each size's runs is in loadavg_1min: "
                "other work on the machine slows both sides",
        "repeat": repeat,
        "verified": True,
    }
    try:
        for n in sizes:
            entry = _bench_size(n, root / f"n{n}", threads, backend, repeat)
            result["sizes"].append(entry)
            result["verified"] = result["verified"] and entry["verified"]
            if json_path:
                atomic_write_text(json_path, json.dumps(result, indent=2) + "\n")
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    if json_path:
        atomic_write_text(json_path, json.dumps(result, indent=2) + "\n")
    return result


def _node_version() -> str | None:
    try:
        return subprocess.run(["node", "--version"], capture_output=True, text=True, timeout=30).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def format_snarkjs(result: dict) -> str:
    """Human-readable table of a ``bench_snarkjs`` result, with cuzk's seconds per phase."""
    lines = [
        f"snarkjs {result['versions']['snarkjs']} vs cuzk (backend {result['backend']}, {result['threads']} worker "
        f"processes); snarkjs uses {result['snarkjs_threads']} threads; whole-process figures; "
        f"verified={result['verified']}",
        f"{'size':>7} {'constr':>7} {'snarkjs s':>10} {'cuzk s':>8} {'ratio':>6} "
        f"{'snarkjs RSS':>12} {'cuzk RSS':>10} {'snarkjs cpu-s':>13} {'cuzk cpu-s':>10} {'ratio':>6}  verified",
    ]
    for e in result["sizes"]:
        sj, cz = e["snarkjs"], e["cuzk"]
        ok = "/".join("ok" if e[r][k] else "FAIL" for r in ("snarkjs", "cuzk")
                      for k in ("verified_by_snarkjs", "verified_by_cuzk"))
        lines.append(
            f"{e['size']:>7} {e['constraints']:>7} {sj['seconds']:>10.2f} {cz['seconds']:>8.2f} "
            f"{e['ratio_seconds']:>5.2f}x {sj['rss_peak_bytes'] / MIB:>8.0f} MiB {cz['rss_peak_bytes'] / MIB:>6.0f} MiB "
            f"{sj['cpu_seconds']:>13.2f} {cz['cpu_seconds']:>10.2f} {e['ratio_cpu_seconds']:>5.2f}x  {ok}"
        )
    lines.append("ratio = snarkjs / cuzk (> 1: cuzk faster), wall seconds and user+sys CPU seconds; "
                 "verified = snarkjs proof by snarkjs/cuzk, cuzk proof by snarkjs/cuzk")
    if all("cuzk_cold" in e for e in result["sizes"]):
        lines.append("cuzk's first run (converts the .zkey into its cache; later runs load the converted key): "
                     + ", ".join(f"{e['size']}: {e['cuzk_cold']['seconds']:.2f} s, "
                                 f"{e['cuzk_cold']['cpu_seconds']:.2f} cpu-s" for e in result["sizes"]))
    lines.append("load average (1 min) before/after: " + ", ".join(
        f"{e['size']}: {e['loadavg_1min'][0]:.1f}/{e['loadavg_1min'][1]:.1f}" for e in result["sizes"]))
    lines.append("cuzk seconds per phase:")
    for e in result["sizes"]:
        ph = e["cuzk"]["phases"]
        lines.append(f"  {e['size']:>7}: " + ", ".join(f"{k} {v:.2f}" for k, v in ph.items()))
    return "\n".join(lines)


def parse_sizes(text: str) -> list[int]:
    """``"1024,16384,2^16"`` → [1024, 16384, 65536] (also accepts ``2**16``)."""
    out = []
    for part in text.split(","):
        part = part.strip().replace("**", "^")
        if not part:
            continue
        if "^" in part:
            b, e = part.split("^", 1)
            out.append(int(b) ** int(e))
        else:
            out.append(int(part))
    if not out:
        raise ValueError(f"no sizes in {text!r}")
    return out


__all__ = ["CIRCUIT_HELP", "DEFAULT_SIZES", "bench_snarkjs", "circuit_shape", "circuit_source", "format_snarkjs",
           "measure_process", "node_bin_dir", "parse_sizes"]
