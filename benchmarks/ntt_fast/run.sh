#!/usr/bin/env bash
# NTT pass variants against "old" on the device (bench.py): checks each variant's output against
# old's, then times them; table on stdout, JSON to OUT. Run from anywhere:
#   benchmarks/ntt_fast/run.sh OUT.json [--log-sizes 16-27] [--variants old,r8,...] [--budget 130]
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" exec python3 benchmarks/ntt_fast/bench.py "$@"
