"""The ``cuzk`` command: one subcommand per workflow step, ``shapes``, ``snarkjs-prove``, and
``bench`` (``cuzk.bench``); argument parsing only, each subcommand calls one function."""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
import time

from . import __version__, pipeline
from .backend import BACKENDS
from .bench import (
    CIRCUIT_HELP,
    bench_circuit,
    bench_kernels,
    bench_prove,
    bench_snarkjs,
    format_prove,
    format_snarkjs,
    kernels_ok,
    parse_sizes,
    sweep,
    table,
)
from .circuits.registry import format_shape_table, shape_table
from .fileio import atomic_write_text
from .groth16 import official
from .sector import filecoin_c1 as fc
from .sector import filecoin_post as fpost
from .sector import filecoin_update as fupd
from .formats.snarkjs_prove import add_arguments as add_snarkjs_prove_arguments
from .formats.snarkjs_prove import snarkjs_prove
from .r1cs.poseidon_path import POSEIDON_PATHS, WITNESS_POSEIDON
from .r1cs.sha_path import SHA_PATHS

BACKEND_HELP = "where to compute: cpu, cuda, or auto (cuda when CuPy sees a GPU, else cpu; default auto)"

BENCH_PROVE_HELP = """\
Build a random satisfiable circuit, run the development setup, prove and verify once, and print
seconds per phase, peak host RSS and peak GPU memory (JSON with --json).

N (--constraints) counts the circuit's own constraints; the R1CS adds one `input * 0 = 0` row per
public input and for ONE (bellperson's convention), so it has N + inputs + 1 rows and an NTT
domain of the next power of two. The default witness is shaped like a PoRep one: about 90% of
the aux variables are bits, each with a booleanity constraint; the remaining constraints are
multiplications (x + X) * (8 packed bits) = z with x random in Fr and X a public input.
"""


def _bench_prove(args) -> int:
    res = bench_prove(
        constraints=args.constraints,
        inputs=args.inputs,
        bit_share=args.bit_share,
        backend=args.backend,
        threads=args.threads,
        json_path=args.json,
        seed=args.seed,
    )
    print(format_prove(res))
    return 0 if res["verified"] else 1


BENCH_SNARKJS_HELP = """\
Prove the same circom circuit with snarkjs (`snarkjs groth16 prove`, node) and with cuzk, each
as its own process, at each size, and print whole-process seconds and peak RSS of both and the
ratio snarkjs/cuzk (JSON with --json). Both proofs are checked by snarkjs' and by cuzk's verifier.

Per size N the circuit is generated into the work directory, compiled with `circom2 --prime
bls12381 --r1cs --wasm`, its witness computed by `snarkjs wtns calculate`, and its .zkey made by
cuzk's development setup and zkey writer (not a ceremony; snarkjs proves with it). cuzk reads
the .zkey without point checks (as snarkjs does), proves on --backend (the CPU backend: the main thread and one MSM thread; setup with
--threads worker processes) and reports seconds per phase. snarkjs uses one worker thread per CPU node reports.
Needs node and `npm ci` at the repository root (node_modules/.bin/snarkjs, circom2).

"""


def _bench_snarkjs(args) -> int:
    res = bench_snarkjs(
        sizes=parse_sizes(args.sizes),
        threads=args.threads,
        backend=args.backend,
        json_path=args.json,
        workdir=args.workdir,
        repeat=args.repeat,
    )
    print(format_snarkjs(res))
    return 0 if res["verified"] else 1


def _steps(sub) -> None:
    """Workflow steps as subcommands (the rules call the same functions through scripts)."""
    def add(name, help_, fn, *args):
        sp = sub.add_parser(name, help=help_, description=help_)
        for flags, kw in args:
            sp.add_argument(*flags, **kw)
        sp.add_argument("--mem-json", help="write seconds, RSS average/peak and timeline here")
        sp.set_defaults(func=lambda a: (fn(a), 0)[1])

    req = {"required": True}
    be = (("--backend",), {"choices": BACKENDS, "default": "auto", "help": BACKEND_HELP})
    th = (("--threads", "-t"), {"type": int, "default": 1, "help": "CPU worker processes (default 1)"})
    shape = (("--shape",), {**req, "help": "circuit shape by name (`cuzk shapes --all` lists them)"})
    pce = (("--pce",), {**req, "help": "the shape's PCE file (`cuzk pce-extract`)"})
    rnd = (("--randomness",), {"default": "cuzk-dev", "help": "stands in for chain randomness (default cuzk-dev)"})
    pid = (("--prover-id",), {"default": "00" * 32, "help": "prover id, 32 bytes as hex (default all zeros)"})
    gm = (("--gpu-mem-limit-gb",), {"type": float, "default": None, "metavar": "GIB",
                                    "help": "device memory the cuda backend may use (GiB; MSMs run in chunks under it; default: no limit)"})
    add("prepare", "sector data -> C1 file (and sealed-sector file)", lambda a: pipeline.prepare(
        {"id": a.sector_id, "data": a.data, "generate": a.generate}, a.out, a.shape, a.randomness, a.prover_id,
        sealed_out=a.sealed, mem_json=a.mem_json),
        (("--sector-id",), {"type": int, **req, "help": "the sector's id (a number)"}), shape,
        (("--data",), {"help": "the sector's payload file (at most 127/128 of the sector size)"}),
        (("--generate",), {"type": int, "help": "seed of a random payload instead of --data"}),
        rnd, pid, (("--out", "-o"), {**req, "help": "the C1 file to write"}),
        (("--sealed",), {"help": "also write the sealed-sector file (tree_r_last, comm_c) PoSt reads"}))
    add("post-vanilla", "sealed-sector files and/or synthetic sectors -> vanilla WinningPoSt/WindowPoSt proofs",
        lambda a: pipeline.post_vanilla(a.kind, a.shape, a.sealed, a.out, a.randomness, a.prover_id,
                                        synthetic_ids=a.synthetic, mem_json=a.mem_json),
        (("--kind",), {"choices": ["winning", "window"], **req, "help": "WinningPoSt or WindowPoSt"}), shape,
        (("--sealed",), {"nargs": "+", "default": [], "help": "sealed-sector files (`cuzk prepare --sealed`)"}),
        (("--synthetic",), {"nargs": "+", "type": int, "default": [], "metavar": "ID",
                            "help": "ids of synthetic sectors (sparse tree_r_last openings, any size; the "
                                    "file is marked synthetic)"}), rnd, pid,
        (("--out", "-o"), {**req, "help": "the vanilla proofs file to write (JSON)"}))
    add("pce-extract", "record a circuit shape's R1CS into a PCE file",
        lambda a: pipeline.pce_extract(a.shape, a.out, a.mem_json), shape,
        (("--out", "-o"), {**req, "help": "the PCE file to write"}))
    add("setup", "development parameters for a PCE (not for chain use)",
        lambda a: pipeline.setup_params(a.pce, a.params, a.vk, a.backend, a.threads, a.mem_json,
                                        gpu_mem_limit_gb=a.gpu_mem_limit_gb),
        pce, (("--params",), {**req, "help": "the proving key to write (bellperson .params layout)"}),
        (("--vk",), {**req, "help": "the verifying key to write"}), be, th, gm)
    add("synthesize", "C1 or PoSt vanilla file -> witness files",
        lambda a: pipeline.synthesize_sector(a.c1, a.pce, a.out, a.mem_json, threads=a.threads, sha=a.sha,
                                             poseidon=a.poseidon, keep=a.witness_poseidon),
        (("--c1",), {**req, "help": "the C1 file, or a PoSt vanilla file"}), pce,
        (("--out", "-o"), {**req, "help": "witness directory"}), th,
        (("--sha",), {"choices": list(SHA_PATHS), "default": "auto",
                      "help": "who computes the SHA-256 witness bits: native (C++ core, built once and cached), "
                              "numpy, gpu (the CUDA kernel, on a free GPU), or auto (default: native when it "
                              "builds, else numpy); same witness; or prover (the file keeps the compressions' "
                              "inputs, the prove step computes the bits)"}),
        (("--poseidon",), {"choices": list(POSEIDON_PATHS), "default": "auto",
                           "help": "who computes the Poseidon witness values: native (C++ core, built once and "
                                   "cached), python, gpu (the CUDA kernel, on a free GPU, in this process), or auto "
                                   "(default: native when it builds, else python); same witness"}),
        (("--witness-poseidon",), {"choices": list(WITNESS_POSEIDON), "default": WITNESS_POSEIDON[0],
                                   "help": "what the witness files keep of the Poseidon hashes: inputs (default: the "
                                           "prover computes the values) or values (every op value); same assignment"}))
    add("prove", "prove a batch of sectors of one shape", lambda a: pipeline.prove_batch(
        a.pce, a.params, a.c1, a.witness, a.out, a.backend, a.threads, a.mem_json, gpu_mem_limit_gb=a.gpu_mem_limit_gb),
        pce, (("--params",), {**req, "help": "the shape's proving key (`cuzk setup`)"}),
        (("--c1",), {"nargs": "+", **req, "help": "C1 files (or one PoSt vanilla file), one per sector"}),
        (("--witness",), {"nargs": "+", **req, "help": "witness directories, in --c1 order"}),
        (("--out", "-o"), {**req, "help": "proof directory"}), be, th, gm)
    add("verify", "verify a proof file (exit status 1 when it does not verify, 2 on an error)",
        lambda a: pipeline.verify_sector(a.vk, a.c1, a.proof, a.out, a.shape, a.mem_json),
        (("--vk",), {**req, "help": "the verifying key (`cuzk setup`)"}),
        (("--c1",), {**req, "help": "the C1 file, or a PoSt vanilla file"}),
        (("--proof",), {**req, "help": "the proof file (`cuzk prove`)"}),
        (("--out", "-o"), {**req, "help": "the result JSON to write"}), (("--shape",), {"help": "circuit shape (default: the PoRep or comm_d shape of the C1's size "
                                                    "whose public inputs the key takes)"}))


def _miner(text: str) -> int:
    """A miner's actor id from ``1000``, ``t01000`` or ``f01000``."""
    m = re.fullmatch(r"[tf]0(\d+)|(\d+)", text)
    if not m:
        raise argparse.ArgumentTypeError(f"{text!r} is not an actor id (1000, t01000 or f01000)")
    return int(m[1] or m[2])


def _c1_convert(args) -> int:
    pid = bytes.fromhex(args.prover_id) if args.prover_id else (
        fc.prover_id_of_actor(args.miner) if args.miner is not None else None)
    form, to = fc.convert(args.src, args.dst, args.to, lotus_bench=args.lotus_bench, sector_id=args.sector_id,
                          prover_id=pid)
    print(f"cuzk c1 convert: {args.src} ({form}) -> {args.dst} ({to}{', lotus-bench commit2 input' if args.lotus_bench and to != 'cuzk' else ''})")
    return 0


def _c1(sub) -> None:
    c1 = sub.add_parser("c1", help="C1 files: convert between cuzk's form and Filecoin's")
    c1sub = c1.add_subparsers(dest="c1cmd", required=True)
    cv = c1sub.add_parser("convert", help="convert a C1 file (checked fully) between cuzk's and Filecoin's forms",
                          description="Reads a C1 in cuzk's form, Filecoin's SealCommitPhase1Output JSON (as filecoin-ffi's "
                          "seal_commit_phase1 returns it) or lotus-bench's commit2 input (detected), checks every proof, "
                          "and writes the other form (or --to). Filecoin's form has no sector number or prover id: "
                          "give them (lotus-bench's file carries the sector number).")
    cv.add_argument("src", help="input C1 file")
    cv.add_argument("dst", help="output file")
    cv.add_argument("--to", choices=["filecoin", "cuzk"], help="form to write (default: the other one)")
    cv.add_argument("--lotus-bench", action="store_true", help="write Filecoin's form wrapped as lotus-bench's commit2 input")
    cv.add_argument("--sector-id", type=int, help="sector number (reading Filecoin's form)")
    who = cv.add_mutually_exclusive_group()
    who.add_argument("--prover-id", help="32-byte prover id, hex (reading Filecoin's form)")
    who.add_argument("--miner", type=_miner, help="miner actor id (1000 or t01000): its prover id, as filecoin-ffi makes it")
    cv.set_defaults(func=_c1_convert)


def _comm_r_arg(text: str) -> tuple[int, bytes]:
    """``N=HEX``: sector number N's comm_r, 32 bytes little-endian as hex."""
    m = re.fullmatch(r"(\d+)=([0-9a-fA-F]{64})", text)
    if not m:
        raise argparse.ArgumentTypeError(f"{text!r} is not SECTOR=COMM_R (64 hex digits)")
    return int(m[1]), bytes.fromhex(m[2])


def _post_convert(args) -> int:
    to = args.to or ("filecoin" if len(args.src) == 1 and fpost.is_cuzk_post(args.src[0]) else "cuzk")
    if to == "filecoin":
        if len(args.src) != 1:
            raise fpost.PoStError(args.src[1], "<arguments>", "--to filecoin takes one cuzk vanilla file")
        out = fpost.convert_to_filecoin(args.src[0], args.out)
        print(f"cuzk post convert: {args.src[0]} (cuzk) -> {len(out)} Filecoin vproof file(s) in {args.out}")
        return 0
    pid = bytes.fromhex(args.prover_id) if args.prover_id else (
        fc.prover_id_of_actor(args.miner) if args.miner is not None else None)
    doc = fpost.convert_to_cuzk(args.src, args.out, args.public, post_proof=args.post_proof,
                                randomness=bytes.fromhex(args.randomness) if args.randomness else None,
                                prover_id=pid, comm_r=dict(args.comm_r) if args.comm_r else None)
    print(f"cuzk post convert: {len(args.src)} Filecoin vproof file(s) -> {args.out} (cuzk, {doc['registered_proof']}, "
          f"{len(doc['sectors'])} sector(s), checked)")
    return 0


def _convert_parser(sub, family: str, help_: str, convert_help: str, description: str, src_help: str, out_help: str,
                    nargs=None):
    """``cuzk <family> convert``'s parser with the arguments every converter shares (src, --out, --to)."""
    fam = sub.add_parser(family, help=help_)
    cv = fam.add_subparsers(dest=f"{family}cmd", required=True).add_parser("convert", help=convert_help,
                                                                           description=description)
    cv.add_argument("src", nargs=nargs, help=src_help)
    cv.add_argument("--out", "-o", required=True, help=out_help)
    cv.add_argument("--to", choices=["filecoin", "cuzk"], help="form to write (default: the other one)")
    return cv


def _post(sub) -> None:
    cv = _convert_parser(sub, "post", "PoSt vanilla files: convert between cuzk's form and Filecoin's",
                         "convert WindowPoSt vanilla proofs (checked fully) between Filecoin's per-sector "
                         "vproof files and cuzk's vanilla file",
                         "Reads Filecoin's per-sector vanilla proofs (bincode FallbackPoStSectorProof, as "
                         "filecoin-ffi's GenerateSingleVanillaProof returns them and curio stores them) with the public "
                         "facts (a WindowPoStVerifyInfo JSON such as curio's postpub.json, or the options), checks every "
                         "path, and writes cuzk's vanilla file; or writes a cuzk vanilla file's sectors as "
                         "<out>/<sector>.vproof (--to filecoin, the default for one cuzk file).",
                         "vproof files (one per sector), or one cuzk vanilla file",
                         "the cuzk vanilla file to write, or (--to filecoin) a directory", nargs="+")
    cv.add_argument("--public", help="WindowPoStVerifyInfo JSON (Randomness, Proofs[].PoStProof, ChallengedSectors, Prover)")
    cv.add_argument("--post-proof", type=int, help="RegisteredPoStProof number (go-state-types abi; e.g. 13 = "
                    "StackedDrgWindow32GiBV1_1)")
    cv.add_argument("--randomness", help="32-byte randomness, hex (used as given: a canonical Fr element)")
    cv.add_argument("--comm-r", type=_comm_r_arg, action="append", metavar="SECTOR=HEX",
                    help="a sector's public comm_r (repeat per sector); overrides --public's SealedCIDs")
    who = cv.add_mutually_exclusive_group()
    who.add_argument("--prover-id", help="32-byte prover id, hex")
    who.add_argument("--miner", type=_miner, help="miner actor id (1000 or t01000)")
    cv.set_defaults(func=_post_convert)


def _hex32(text: str) -> bytes:
    """32 bytes as 64 hex digits (a commitment, little-endian as stored)."""
    if not re.fullmatch(r"[0-9a-fA-F]{64}", text):
        raise argparse.ArgumentTypeError(f"{text!r} is not 64 hex digits")
    return bytes.fromhex(text)


def _update_convert(args) -> int:
    form, to = fupd.convert(args.src, args.out, args.to, vproofs_only=args.vproofs_only, sector_id=args.sector_id,
                            proof_type=args.proof_type, comm_r_old=args.comm_r_old, comm_r_new=args.comm_r_new,
                            comm_d_new=args.comm_d_new)
    print(f"cuzk update convert: {args.src} ({form}) -> {args.out} ({to}, checked)")
    return 0


def _update(sub) -> None:
    desc = ("Reads Filecoin's SnapDeals vanilla proofs (bincode PartitionProof per partition, as filecoin-ffi's "
            "GenerateUpdateVanillaProofs returns them): curio's snap-vproof.json or lotus-bench's vproofs.json (a JSON "
            "list of base64; public facts from the options), or curio's proof.Snap / ProofData JSON (facts included); "
            "checks every proof and writes cuzk's update document. A cuzk update document (detected) is written as "
            "proof.Snap JSON (--vproofs-only: the bare list).")
    cv = _convert_parser(sub, "update", "SnapDeals vanilla files: convert between cuzk's form and Filecoin's",
                         "convert SnapDeals partition proofs (checked fully) between the two forms", desc,
                         "Filecoin SnapDeals file, or a cuzk update document", "file to write")
    cv.add_argument("--vproofs-only", action="store_true", help="write Filecoin's form as the bare list (snap-vproof.json)")
    cv.add_argument("--sector-id", type=int, help="sector number (reading Filecoin's form; ProofData carries it)")
    cv.add_argument("--proof-type", type=int, help="RegisteredUpdateProof number (go-state-types abi; 0 = "
                    "StackedDrg2KiBV1 … 3 = StackedDrg32GiBV1, 4 = 64GiB)")
    for name, what in (("comm-r-old", "the sector key's comm_r"), ("comm-r-new", "the updated replica's comm_r"),
                       ("comm-d-new", "the new data's comm_d")):
        cv.add_argument(f"--{name}", type=_hex32, help=f"{what}, 32 bytes hex; overrides the file's")
    cv.set_defaults(func=_update_convert)


def _params_verify(args) -> int:
    manifest = official.read_manifest()
    d = official.params_dir(args.params_dir)
    if not d.is_dir():   # else "0 file(s) match" reads as a check that passed
        raise official.OfficialParamsError(d, "<missing>", "no such directory (give --params-dir or set "
                                           "$FIL_PROOFS_PARAMETER_CACHE)")
    names = args.names or sorted(n for n in manifest if (d / n).is_file())
    for n in names:
        official.verify_official(n, d, manifest)
        print(f"ok {d / n} ({manifest[n]['digest']})")
    print(f"cuzk params verify: {len(names)} file(s) in {d} match parameters.json")
    return 0


def _params(sub) -> None:
    pp = sub.add_parser("params", help="Filecoin's official parameter files")
    psub = pp.add_subparsers(dest="paramscmd", required=True)
    pv = psub.add_parser("verify", help="check official files' BLAKE2b digests against parameters.json (recorded once checked)")
    pv.add_argument("names", nargs="*", help="file names as parameters.json names them (default: every one present)")
    pv.add_argument("--params-dir", help="default: $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters")
    pv.set_defaults(func=_params_verify)


def _check_params(args) -> int:
    try:
        res = pipeline.check_official_params(args.shape, args.params_dir, args.c1, args.workdir, args.backend,
                                             args.threads, full_check=args.full_check)
    except pipeline.ProofVerificationError as e:
        print(f"cuzk check-params: FAILED: {e}: a proof made with the official key does not verify under the "
              f"official vk, so {args.shape}'s constraint system (built in upstream order) is not "
              "rust-fil-proofs'", file=sys.stderr)
        return 1
    what = f"sector {res['sector_id']}" if "sector_id" in res else res["proof"]   # a PoSt names its kind
    print(f"cuzk check-params: {args.shape}: a proof made with {res['params']} verifies under {res['vk']} "
          f"({res['partitions']} partition(s), {what}{', synthetic' if res['synthetic'] else ''}): "
          "its constraint system is rust-fil-proofs'")
    return 0


def _check_params_parser(sub) -> None:
    cp = sub.add_parser("check-params", help="prove one sector (PoRep) or one vanilla PoSt with Filecoin's official "
                        "key and verify it with the official vk (is the shape's R1CS rust-fil-proofs' own?)")
    cp.add_argument("--shape", default="porep-2KiB", help="a PoRep or PoSt shape, e.g. window-post-2KiB or "
                    "winning-post-2KiB (default porep-2KiB: the smallest official files)")
    cp.add_argument("--params-dir", help="default: $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters")
    cp.add_argument("--c1", help="the input in cuzk's form: a C1 (cuzk c1 convert) or, for a PoSt shape, a vanilla "
                    "PoSt file (cuzk post convert); default synthetic (a CC sector; PoSt over synthetic sectors)")
    cp.add_argument("--workdir", help="where the scratch folder goes (default: the system's temporary folder)")
    cp.add_argument("--backend", choices=BACKENDS, default="auto", help=BACKEND_HELP)
    cp.add_argument("--threads", type=int, default=1, help="worker processes of the cpu backend's prove (default 1)")
    cp.add_argument("--full-check", action="store_true", help="check every point of the .params (curve and "
                    "subgroup) too, not only its BLAKE2b digest")
    cp.set_defaults(func=_check_params)


def _shapes(args) -> int:
    rows = shape_table(include_test=args.all)
    if args.json:
        atomic_write_text(args.json, json.dumps(rows, indent=1) + "\n")
    print(format_shape_table(rows))
    return 0


def _bench_circuit(args) -> int:
    bench_circuit([x for x in args.shapes.split(",") if x], args.workdir, args.json, args.seal_limit,
                  tuple(x for x in args.phases.split(",") if x), backend=args.backend, repeat=args.repeat,
                  parallel=args.parallel, sha=tuple(x for x in args.sha.split(",") if x),
                  poseidon=tuple(x for x in args.poseidon.split(",") if x))
    return 0


def _bench_sweep(args) -> int:
    budgets = [float(x) for x in args.budgets.split(",") if x]
    points = sweep(args.configfile, budgets, args.cores, args.out, gpus=args.gpus, snakefile=args.snakefile,
                   point_timeout=args.point_timeout)
    print(table(points), end="")
    return 0 if all(p.rc == 0 for p in points) else 1


def _bench_kernel(args) -> int:
    sizes = [int(x) for x in args.log_sizes.split(",") if x]
    what = f"{args.what}-{args.group}" if args.what in ("msm", "fixed-base") else args.what
    windows = [int(x) for x in getattr(args, "windows", "").split(",") if x]
    shifts = [int(x) for x in getattr(args, "shift", "").split(",") if x]
    res = bench_kernels(what, sizes, args.backend, args.threads, args.repeat, args.json, windows=windows,
                        budget=args.budget, shifts=shifts)
    return 0 if kernels_ok(res) else 1


def _snarkjs_prove(args) -> int:
    t = time.perf_counter()
    rc = snarkjs_prove(args.zkey, args.wtns, args.proof, args.public, args.threads, args.backend, args.times)
    print(f"cuzk snarkjs-prove: wrote {args.proof} and {args.public} in {time.perf_counter() - t:.2f} s")
    return rc


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``cuzk`` command."""
    p = argparse.ArgumentParser(prog="cuzk", description="Groth16 over BLS12-381 for sector proofs")
    p.add_argument("-v", "--verbose", action="store_true", help="log progress")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)
    _steps(sub)
    _c1(sub)
    _post(sub)
    _update(sub)
    _params(sub)
    _check_params_parser(sub)
    sh = sub.add_parser("shapes", help="inputs, aux, constraints and non-zeros of every circuit shape, next to upstream's")
    sh.add_argument("--all", action="store_true", help="include test-only shapes")
    sh.add_argument("--json", help="write the rows as JSON here")
    sh.set_defaults(func=_shapes)
    zp = sub.add_parser("snarkjs-prove", help="prove a circom circuit's snarkjs .zkey + .wtns; write snarkjs' proof.json and public.json",
                        description="Proves with cuzk's backends what `snarkjs groth16 prove ZKEY WTNS PROOF PUBLIC` proves: "
                        "the same files in, the same JSON out (snarkjs groth16 verify accepts it). The .zkey is read without "
                        "point checks, as snarkjs does, and its converted copy is cached under $CUZK_CACHE_DIR. "
                        "`cuzk bench snarkjs` times this same code.")
    add_snarkjs_prove_arguments(zp)
    zp.set_defaults(func=_snarkjs_prove)
    bench = sub.add_parser("bench", help="benchmarks (JSON out)")
    bsub = bench.add_subparsers(dest="what", required=True)
    bp = bsub.add_parser("prove", help="setup + prove + verify a synthetic circuit",
                         description=BENCH_PROVE_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    bp.add_argument("--constraints", "-n", type=int, required=True, help="N: circuit constraints before the input rows")
    bp.add_argument("--inputs", type=int, default=4, help="public inputs besides ONE (default 4)")
    bp.add_argument("--bit-share", type=float, default=0.9, help="share of bit-valued aux variables (default 0.9)")
    bp.add_argument("--backend", choices=BACKENDS, default="auto", help=BACKEND_HELP)
    bp.add_argument("--threads", "-t", type=int, default=1, help="CPU worker processes (default 1)")
    bp.add_argument("--seed", type=int, default=0, help="witness seed (r, s are always fresh)")
    bp.add_argument("--json", help="write the result JSON here")
    bp.set_defaults(func=_bench_prove)
    for what in ("ntt", "compute-h", "msm", "spmv", "fixed-base"):
        bk = bsub.add_parser(what, help=f"time {what} on a backend for sizes 2^k (data on the device; "
                             "checked; on cuda beside the H200's peak and sppark)")
        if what in ("msm", "fixed-base"):
            bk.add_argument("--group", choices=["g1", "g2"], default="g1", help="G1 (default) or G2")
        if what == "msm":
            bk.add_argument("--windows", default="", help="cuda: also time each size at these window widths")
            bk.add_argument("--shift", default="", help="cuda: also time each size over shifted bases (precomputed "
                            "2^(w·c) multiples) of these window widths")
        bk.add_argument("--log-sizes", default="10,14,16", help="comma-separated exponents k (default 10,14,16)")
        bk.add_argument("--backend", choices=BACKENDS, default="auto", help=BACKEND_HELP)
        bk.add_argument("--threads", "-t", type=int, default=1, help="CPU worker processes (default 1)")
        bk.add_argument("--repeat", type=int, default=3, help="timed calls per size after a warm-up")
        bk.add_argument("--budget", type=float, default=None, help="skip sizes not started within this many seconds")
        bk.add_argument("--json", help="write the result JSON here")
        bk.set_defaults(func=_bench_kernel, what=what)
    bc = bsub.add_parser("circuit", help="PCE extraction, one partition's witness and (optionally) its setup and proof for PoRep shapes: seconds, peak RSS, bytes")
    bc.add_argument("--shapes", default="porep-2KiB", help="comma-separated PoRep shape names (cuzk shapes)")
    bc.add_argument("--workdir", required=True, help="C1, PCE and witness files go here (large at 32/64 GiB)")
    bc.add_argument("--seal-limit", type=int, default=8 << 20,
                    help="largest sector (bytes) sealed for real; larger ones are sparse synthetic (default 8 MiB)")
    bc.add_argument("--phases", default="input,pce,witness",
                    help="subset of input,pce,witness,prove (prove: resident development setup + proofs of partition 0)")
    bc.add_argument("--backend", default="auto", choices=BACKENDS, help="where the prove phase runs")
    bc.add_argument("--repeat", type=int, default=2, help="proofs in the prove phase (the first includes compilation)")
    bc.add_argument("--parallel", action="store_true", help="run the pce and witness phases at the same time")
    bc.add_argument("--sha", default="auto", help="SHA-256 witness paths of the witness phase, comma-separated, "
                    "each timed in its own process and the files compared (e.g. numpy,native; default auto)")
    bc.add_argument("--poseidon", default="auto", help="Poseidon witness paths of the witness phase, comma-separated "
                    "(e.g. python,native; default auto): every --sha path runs with each, the files compared")
    bc.add_argument("--json", help="write the results here")
    bc.set_defaults(func=_bench_circuit)
    bs = bsub.add_parser("snarkjs", help="snarkjs vs cuzk on the same circom circuit and .zkey",
                         description=BENCH_SNARKJS_HELP + CIRCUIT_HELP,
                         formatter_class=argparse.RawDescriptionHelpFormatter)
    bs.add_argument("--sizes", default="1024,16384,65536",
                    help="comma-separated sizes N = QAP domain, N - 3 constraints (default 1024,16384,65536; 2^k accepted)")
    bs.add_argument("--threads", "-t", type=int, default=None,
                    help="cuzk threads/worker processes, setup included (default: all CPUs available)")
    bs.add_argument("--backend", choices=BACKENDS, default="cpu", help="cuzk backend (default cpu)")
    bs.add_argument("--json", help="write the result JSON here")
    bs.add_argument("--workdir", help="keep circuits, keys and proofs here and reuse them (default: a temp dir)")
    bs.add_argument("--repeat", type=int, default=1,
                    help="prove this many times with each, alternating; report each one's fastest (default 1)")
    bs.set_defaults(func=_bench_snarkjs)
    sw = bsub.add_parser("sweep", help="one batch through the workflow at several --resources mem_gb budgets, "
                                       "each measured: deployment table (sweep.md/.json) and Pareto plot")
    sw.add_argument("--configfile", required=True, help="the batch (its results folder is set per budget)")
    sw.add_argument("--budgets", required=True, help="comma-separated mem_gb values, e.g. 32,48,64,96,120")
    sw.add_argument("--cores", type=int, required=True, help="--cores of every run")
    sw.add_argument("--gpus", type=int, default=0, help="--resources gpu=N of every run (0: none declared)")
    sw.add_argument("--snakefile", default="Snakefile", help="the workflow (default ./Snakefile)")
    sw.add_argument("--out", required=True, help="the sweep's folder: shared inputs, one results folder per budget, "
                                                 "the table (points measured there before are kept)")
    sw.add_argument("--point-timeout", type=float, default=None,
                    help="seconds one budget's run may take; past it the run is stopped and its row says so")
    sw.set_defaults(func=_bench_sweep)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        return args.func(args)
    except pipeline.ProofVerificationError as e:   # a proof that does not verify: not an error's 2
        print(f"cuzk: not verified: {e}", file=sys.stderr)
        return 1
    except (ValueError, RuntimeError, OSError) as e:
        print(f"cuzk: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
