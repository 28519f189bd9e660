import cProfile, pstats, sys, shutil  # noqa: F401 (sys, pipeline: used inside the profiled string)
from cuzk import pipeline  # noqa: F401
d = "/tmp/lw3"
shutil.rmtree("/tmp/sm/wprof", ignore_errors=True)
cProfile.run('pipeline.synthesize_sector(f"{d}/in2349.json", f"{d}/post.pce", "/tmp/sm/wprof", mem_json="/tmp/sm/mprof.json", checked=f"{d}/in2349.checked.json", poseidon="native", threads=int(sys.argv[1]), keep="inputs")', "/tmp/sm/synth.prof")
p = pstats.Stats("/tmp/sm/synth.prof"); p.sort_stats("cumulative").print_stats(35)
