"""Disk figures of the window-post-32GiB shape: PCE file, parameter (key) file and one witness
file, from the file formats (cuzk.r1cs.pce, cuzk.groth16.keys, cuzk.r1cs.witness docstrings).

The formulas are first checked against real files written here at small PoSt shapes with the
32 GiB tree (S sectors x C challenges); the counts they need beyond ``shape.stats()`` (variables
in the A and B queries, coefficient table, gadget segments, bit-valued witness values) are taken
from built systems at several (S, C) and extrapolated linearly in S and S*C (checked at a point
left out of the fit). Run: PYTHONPATH=src nice -n 10 python benchmarks/results/postscale/disk.py DIR
"""
import json
import math
import os
import sys
import warnings

import numpy as np

from cuzk.backend import get_backend
from cuzk.circuits import post as cp
from cuzk.groth16 import setup, write_params
from cuzk.r1cs import ConstraintSystem
from cuzk.r1cs.pce import write_pce
from cuzk.r1cs.witness import write_witness_compact
from cuzk.sector.post import generate_post
from cuzk.sector.post_synthetic import SyntheticSector

SIZE = 32 << 30
G1, G2 = 96, 192
pad8 = lambda n: n + (-n) % 8  # noqa: E731


def pce_bytes(rows, nnz, ncoeffs, nvars, gadgets, header):
    idx, cid = (4 if nvars < 2**32 else 8), (2 if ncoeffs < 2**16 else 4)
    arrays = sum(pad8((rows + 1) * 8) + pad8(n * idx) + pad8(n * cid) for n in nnz)
    arrays += pad8(ncoeffs * 32) + 2 * pad8(math.ceil(nvars / 8)) + pad8(gadgets * 8) + pad8(gadgets * 4)
    return pad8(16 + header) + arrays + 32


def params_bytes(inputs, domain, aux, dens_a, dens_b):
    vk = 3 * G1 + 3 * G2 + 4 + G1 * inputs
    return vk + 5 * 4 + G1 * ((domain - 1) + aux + dens_a + dens_b) + G2 * dens_b


def witness_bytes(inputs, aux, bits, header):
    return pad8(16 + header) + 32 * inputs + math.ceil(aux / 8) + math.ceil(bits / 8) + 32 * (aux - bits) + 32


def counts(S, C, d, with_params=False):
    """Build the (S, C) shape with the 32 GiB tree, write its files, return counts and sizes."""
    shape = cp.PoStShape(f"test-only-window-post-32GiB-{S}x{C}", "window", SIZE, S, C, test_only=True)
    doc = generate_post("window", [SyntheticSector(900 + i, SIZE) for i in range(S)], bytes(range(1, 32)) + b"\x0f",
                        bytes(32), sector_count=S, challenge_count=C)
    cs = ConstraintSystem(shape=True, witness=True)
    cp.synthesize(cs, shape, cp.values(doc, 0))
    r1cs = cs.finalize()
    pce = os.path.join(d, "p.pce")
    write_pce(pce, r1cs, shape.describe())
    with open(pce, "rb") as f:
        hlen = int.from_bytes(f.read(16)[12:16], "little")
    cw = cs.assignment_compact()
    wit = os.path.join(d, "w.wit")
    write_witness_compact(wit, cw, "0" * 64)
    with open(wit, "rb") as f:
        whlen = int.from_bytes(f.read(16)[12:16], "little")
    out = {"S": S, "C": C, "rows": r1cs.num_constraints, "nnz": [r1cs.A.nnz, r1cs.B.nnz, r1cs.C.nnz],
           "ncoeffs": len(r1cs.A.coeffs), "nvars": r1cs.num_vars, "gadgets": len(r1cs.gadget_starts),
           "dens_a": int(np.count_nonzero(r1cs.density_a)), "dens_b": int(np.count_nonzero(r1cs.density_b)),
           "bits": int(cw.num_bits), "inputs": r1cs.num_inputs, "aux": r1cs.num_aux, "domain": shape.stats()["domain"],
           "pce_header": hlen, "wit_header": whlen}
    assert os.path.getsize(pce) == pce_bytes(out["rows"], out["nnz"], out["ncoeffs"], out["nvars"], out["gadgets"], hlen)
    assert os.path.getsize(wit) == witness_bytes(out["inputs"], out["aux"], out["bits"], whlen)
    if with_params:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pk = setup(r1cs, get_backend("cpu"))
        par = os.path.join(d, "k.params")
        write_params(par, pk, known_good=False)
        assert os.path.getsize(par) == params_bytes(out["inputs"], out["domain"], out["aux"], out["dens_a"], out["dens_b"])
    return out


d = sys.argv[1]
os.makedirs(d, exist_ok=True)
pts = [counts(1, 1, d, with_params=True), counts(2, 1, d), counts(1, 2, d), counts(3, 2, d)]
keys = ["rows", "ncoeffs", "gadgets", "dens_a", "dens_b", "bits", "aux", "nvars"]
# fit x = c0 + cs*S + ck*S*C on the first three, check the fourth
A = np.array([[1, p["S"], p["S"] * p["C"]] for p in pts[:3]], dtype=float)
fit = {}
for k in keys + ["nnz0", "nnz1", "nnz2"]:
    y = [p["nnz"][int(k[-1])] if k.startswith("nnz") else p[k] for p in pts]
    c = np.linalg.solve(A, np.array(y[:3], dtype=float))
    pred = c @ [1, pts[3]["S"], pts[3]["S"] * pts[3]["C"]]
    assert round(pred) == y[3], (k, pred, y[3])
    fit[k] = c
big = cp.shape_by_name("window-post-32GiB")
st = big.stats()
at = lambda k: int(round(fit[k] @ [1, big.sector_count, big.challenges]))  # noqa: E731
for k, mine in (("rows", st["constraints"]), ("aux", st["aux"]), ("nnz0", st["nnz_a"]), ("nnz1", st["nnz_b"]),
                ("nnz2", st["nnz_c"])):
    assert at(k) == mine, (k, at(k), mine)   # the fit reproduces the exact stats()
hdr = pts[-1]["pce_header"] + 64        # the description grows by a few digits at 32 GiB
res = {
    "shape": big.name, "constraints": st["constraints"], "aux": st["aux"], "inputs": st["inputs"],
    "nnz": [st["nnz_a"], st["nnz_b"], st["nnz_c"]], "domain": st["domain"],
    "density_a": at("dens_a"), "density_b": at("dens_b"), "ncoeffs": at("ncoeffs"), "gadgets": at("gadgets"),
    "witness_bits": at("bits"),
}
res["pce_bytes"] = pce_bytes(st["constraints"], res["nnz"], res["ncoeffs"], st["inputs"] + st["aux"], res["gadgets"], hdr)
res["params_bytes"] = params_bytes(st["inputs"], st["domain"], st["aux"], res["density_a"], res["density_b"])
res["vk_bytes"] = 3 * G1 + 3 * G2 + 4 + G1 * st["inputs"]
res["witness_bytes"] = witness_bytes(st["inputs"], st["aux"], res["witness_bits"], pts[-1]["wit_header"])
res["vanilla_json_bytes_measured"] = 202014557   # time_synthetic_post.py, one sector padded
res["total_gb"] = round((res["pce_bytes"] + res["params_bytes"] + res["vk_bytes"] + res["witness_bytes"]
                         + res["vanilla_json_bytes_measured"]) / 1e9, 2)
print(json.dumps({"small_points": pts, "window_post_32GiB": res}, indent=1))
