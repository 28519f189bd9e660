"""G1 MSMs with two builds of the XYZZ formulas' Fq products side by side in one run (issue 17:
the 2^27 H MSM's bucket sums run near the multiply peak, so only fewer instructions, the wide
products first, can make them faster), each a build of ``msm.cu``:

- two_products (``-DCUZK_Y3_TWO_PRODUCTS``): Y3 = a (u - v) - c d as two products and a
  difference; a mixed addition 2,748 wide products;
- one_reduction (the default): Y3 one Montgomery reduction for both products (``fq.cuh`` ``fp_y3``,
  ``ff.cuh`` ``fp_mul_sum``: 432 against 576): 2,604.

A third build, every product by one Karatsuba level and a separate reduction (252 wide products
against 288, commit f51bd04, since removed), ran 1.32 times two_products' time at 2^24 and 2^27 on
an H100: its additions cost more issue slots than the products it saved
(``results/2026-12-06-stop51/call1``).

Usage: python benchmarks/msm_fq/products.py OUT.json [PLAIN_LOGS] [SHIFTED_LOGS] [REPEAT]
(defaults 24,27 / 24 / 5)

2^max distinct G1 bases on the device (``bench_bases``), random device scalars per size. Per size:
every build's result checked equal to two_products', with profiled phases, then REPEAT runs of
each, alternated (wall seconds around ``msm``). Writes OUT.json.
"""

import sys

from cuzk.backend import get_backend
from cuzk.backend.cuda import runtime as rt
from cuzk.bench.kernels import alternated, bench_bases, mode_rows, msm_cases, write_rows
from cuzk.curve import G1

KEY = ("msm.cu", "G1")


BUILDS = {"two_products": ("-DCUZK_Y3_TWO_PRODUCTS",), "one_reduction": ()}


def modules() -> dict:
    """{build name: the G1 ``msm.cu`` module compiled with the default options and BUILDS'}."""
    default = rt._MSM_OPTIONS["G1"]
    mods = {}
    try:
        for name, extra in BUILDS.items():
            rt._MODULES.pop(KEY, None)
            rt._MSM_OPTIONS["G1"] = (*default, *extra)
            mods[name] = rt._module(*KEY)
    finally:
        rt._MSM_OPTIONS["G1"] = default
    return mods


def main():
    path = sys.argv[1]
    ints = lambda i, d: [int(x) for x in (sys.argv[i] if len(sys.argv) > i else d).split(",") if x]
    plain, shifted = ints(2, "24,27"), ints(3, "24")
    repeat = ints(4, "5")[0]
    be = get_backend("cuda")
    mods = modules()
    switch = {name: (lambda m=m: rt._MODULES.__setitem__(KEY, m)) for name, m in mods.items()}
    bases = bench_bases(be, G1, max(plain + shifted))
    rows = []
    try:
        for mode, k, ctx, s in msm_cases(be, G1, bases, (("plain", plain), ("shifted", shifted))):
            switch["two_products"]()
            want = ctx.msm(s)
            info = alternated(ctx, s, switch, repeat, want)
            rows += mode_rows(info, "two_products", f"G1 2^{k} {mode}", key="y3", log_n=k, msm=mode)
    finally:
        rt._MODULES[KEY] = mods["one_reduction"]
    write_rows(path, rows)


if __name__ == "__main__":
    main()
