# The PoSt synthesize step's memory against the model (stop 44, 2-core box): full 32 GiB WindowPoSt
# partitions, the check record with its compact slice (current code), witness_poseidon inputs and
# values, 2 and 1 workers; padded partitions of 1 and 200 distinct sectors. Code: /tmp/snap44 = HEAD.
T=benchmarks/results/2026-12-05-local/postinputs/time_post_step.py
export PYTHONPATH=/tmp/snap44/src:/tmp/snap44/tests
for keep in inputs values; do
  for th in 2 1; do python3 $T /tmp/lw3 /tmp/snap44 2349 $th 1 $keep; cp /tmp/lw3/m0.json /tmp/sm/m-2349-$th-$keep.json; done
  for dis in 1 200; do python3 $T /tmp/sm /tmp/snap44 $dis 2 1 $keep; cp /tmp/sm/m0.json /tmp/sm/m-$dis-2-$keep.json; done
done
