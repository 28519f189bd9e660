import time, sys, gc
from cuzk import pipeline
from cuzk.sector import jsondoc
if sys.argv[2] == "freeze":
    orig = jsondoc.loads
    def loads(*a, **k):
        d = orig(*a, **k); gc.freeze(); return d
    jsondoc.loads = loads
t = time.perf_counter()
pipeline.check_input(sys.argv[1], "/tmp/tc.rec.json", "window-post-32GiB", partitions=1, threads=2)
print(sys.argv[2], f"{time.perf_counter() - t:.1f} s")
