for i in 1 2 3; do for s in /tmp/base_src $PWD/src; do
  echo -n "$s parse "; PYTHONPATH=$s python3 -c "
import time
from cuzk.sector import jsondoc
d = open('/tmp/pv.json','rb').read()
t = time.perf_counter(); jsondoc.loads(d, 'pv.json', lambda *a: ValueError(a)); print(round(time.perf_counter() - t, 2))"
  echo -n "$s check "; PYTHONPATH=$s python3 benchmarks/results/2026-12-05-local/jsonparse/time_check.py /tmp/pv.json plain 2>&1 | tail -1
done; done
