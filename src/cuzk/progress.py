"""Progress of long steps: one place for the bar, its rate and its time left (``tqdm``).

Interactive (stderr is a terminal and no step log is set): a live bar on stderr. Otherwise, and
always inside a Snakemake step (:func:`log_mode`, set by ``cuzk.pipeline.start_log``): the bar's
text as a log line of the ``cuzk.progress`` logger every ``LOG_EVERY_S`` seconds and at the end
(the step's log file, and the console through the handler ``start_log`` adds), so parallel jobs
never draw over each other.

Hot loops stay cheap: :func:`bar` is advanced once per unit of coarse work (a partition, a phase,
a budget), and :func:`watch` reads a counter the work keeps anyway (e.g. a constraint system's
``num_aux``) from a side thread, adding nothing to the loop itself.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from contextlib import contextmanager

from tqdm import tqdm

log = logging.getLogger("cuzk.progress")

#: Seconds between two log lines of one bar outside a terminal.
LOG_EVERY_S = 20.0
#: Seconds between two reads of a watched counter.
WATCH_EVERY_S = 0.5
#: Totals from which counts are shown scaled (12.3M rather than 12345678).
SCALE_FROM = 10_000

_log_mode = False


def log_mode(on: bool = True) -> None:
    """Bars become log lines (a Snakemake step: its stderr is shared with other jobs)."""
    global _log_mode
    _log_mode = on


def interactive() -> bool:
    """Whether bars are drawn live: stderr is a terminal and :func:`log_mode` is off."""
    return not _log_mode and sys.stderr.isatty()


class _LogLines:
    """A file for tqdm that turns each refresh into one log line (the bar's text, no ``\\r``)."""

    def __init__(self):
        self.last = time.monotonic()   # when the last line was written

    def write(self, s: str) -> None:
        s = s.strip("\r\n ")
        if s:
            self.last = time.monotonic()
            log.info("%s", s)

    def flush(self) -> None:
        pass


@contextmanager
def bar(total: float, desc: str, unit: str = "it", read=None):
    """A progress bar of ``total`` units (``tqdm``: rate and time left); yields it (``.update(n)``).

    Live on a terminal; otherwise a log line at least every ``LOG_EVERY_S`` seconds (also while
    no unit ends) and one at the end. ``read``: a cheap counter of units done that the block keeps
    anyway; a side thread reads it every ``WATCH_EVERY_S`` seconds (see :func:`watch`).
    """
    live = interactive()
    out = sys.stderr if live else _LogLines()
    kw = {"dynamic_ncols": True} if live else {"mininterval": LOG_EVERY_S, "ncols": 100, "ascii": True}
    # rate and time left from the average since the start (smoothing 0): units of uneven length
    # (a partition's H phase, then its five MSMs) would make a moving average swing by 5x
    b = tqdm(total=total, desc=desc, unit=unit, unit_scale=total >= SCALE_FROM, file=out, smoothing=0, **kw)
    stop = threading.Event()

    def tick():   # counter reads, and the elapsed time kept current between units
        while not stop.wait(WATCH_EVERY_S):
            if read is not None:
                b.update(min(read(), total) - b.n)
            if live or time.monotonic() - out.last >= LOG_EVERY_S:
                b.refresh()

    t = threading.Thread(target=tick, name="cuzk-progress", daemon=True)
    t.start()
    try:
        yield b
    finally:
        stop.set()
        t.join()
        if read is not None:
            b.update(min(read(), total) - b.n)
        b.close()


def watch(read, total: float, desc: str, unit: str = "it"):
    """A :func:`bar` advanced only from ``read()`` (the block's own counter of work done, in
    ``unit``), so the block's loops carry no progress calls at all."""
    return bar(total, desc, unit, read=read)
