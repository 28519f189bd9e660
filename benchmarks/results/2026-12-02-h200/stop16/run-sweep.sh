# Stop 16, device call B: the sweep (cuzk bench sweep) of two synthetic 32 GiB sectors
# (benchmarks/configs/h200-32gib-sweep.yaml) at the budgets in $BUDGETS, on the machine call A
# left warm (/tmp/sw/shared holds its PCE, key and checked C1 files: the shared run finds them
# made); each budget's run stopped at $POINT s. The table gathers every budget run into /tmp/sw.
# From the repository root, .whl carried:
#   BUDGETS=32,48,64,96,120 POINT=105 bash benchmarks/results/2026-12-02-h200/stop16/run-sweep.sh
set -u
python -m pip install -q --no-index --find-links .whl gmpy2 py_arkworks_bls12381 pyblst jsonschema fastjsonschema snakemake 2>&1 | tail -2
export PYTHONPATH=$PWD/src PYTHONUNBUFFERED=1
S=/tmp/sw; ls $S/shared/params $S/shared/pce || exit 1
T0=$(date +%s)
timeout 580 python -m cuzk.cli bench sweep --configfile benchmarks/configs/h200-32gib-sweep.yaml --budgets $BUDGETS \
  --cores 16 --gpus 1 --point-timeout ${POINT:-270} --out $S
echo "sweep rc=$? after $(( $(date +%s) - T0 )) s"; df -h / | tail -1
cat $S/sweep.md
N=$(echo $BUDGETS | tr ',' '-')
tar czf $OUT/sweep-$N.tgz -C $S --exclude='*.wit' --exclude='*.params' --exclude='*.pce' --exclude='*.c1.json' \
  --exclude=shared sweep.json sweep.md sweep.png $(cd $S && ls -d mem* 2>/dev/null) 2>/dev/null; ls -la $OUT
