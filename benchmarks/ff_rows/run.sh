#!/usr/bin/env bash
# The cuda kernels from this checkout against those from OLD_SRC_DIR (bench.py), one process each,
# alternated twice (new, old, new, old); then compare.py: every output equal, the ratios.
#   benchmarks/ff_rows/run.sh OUTDIR OLD_SRC_DIR [bench.py options]
set -uo pipefail
cd "$(dirname "$0")/../.."
out=$1 old=$2; shift 2
mkdir -p "$out"
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
for r in 1 2; do
  python3 benchmarks/ff_rows/bench.py "$out/new-$r.json" "$@" > "$out/new-$r.log" 2>&1; echo "new $r rc=$?"
  python3 benchmarks/ff_rows/bench.py "$out/old-$r.json" --src "$old" "$@" > "$out/old-$r.log" 2>&1; echo "old $r rc=$?"
done
python3 benchmarks/ff_rows/compare.py "$out"
