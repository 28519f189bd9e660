# Stop 46, call 4: on the path of the "old" processes only (copied into src/ for its limits run), so
# that every cuda module there is built from CUZK_BENCH_SRC (stop 45's sources), not the package's.
import os

if os.environ.get("CUZK_BENCH_SRC"):
    from cuzk.backend.cuda import runtime

    runtime._SRC_DIR = os.environ["CUZK_BENCH_SRC"]
