"""Per function of a cubin: SASS instructions and IMAD.WIDE (64-bit products), from ``cuobjdump
-sass`` (the device's CUDA toolkit), to set the builds of ``products.py`` side by side.

Usage: python benchmarks/msm_fq/sass_counts.py CUBIN [NAME_SUBSTRINGS] (default fq_,msm_bucket_chunks)
"""

import re
import subprocess
import sys


def counts(cubin: str, names: list) -> dict:
    """{function name: {"instructions": n, "imad_wide": n}} for functions whose name holds one of names."""
    text = subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True, text=True, check=True).stdout
    out, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            cur = m.group(1) if any(n in m.group(1) for n in names) else None
            if cur:
                out[cur] = {"instructions": 0, "imad_wide": 0}
        elif cur and re.match(r"\s*/\*[0-9a-f]{4}\*/", line):
            out[cur]["instructions"] += 1
            out[cur]["imad_wide"] += "IMAD.WIDE" in line
    return out


if __name__ == "__main__":
    names = (sys.argv[2] if len(sys.argv) > 2 else "fq_,msm_bucket_chunks").split(",")
    for name, c in counts(sys.argv[1], names).items():
        print(f"{name}: {c['instructions']} instructions, {c['imad_wide']} IMAD.WIDE")
