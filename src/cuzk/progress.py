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
from contextlib import contextmanager

from tqdm import tqdm

log = logging.getLogger("cuzk.progress")

#: Seconds between two log lines of one bar outside a terminal.
LOG_EVERY_S = 20.0
#: Seconds between two reads of a watched counter.
WATCH_EVERY_S = 0.5

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

    def write(self, s: str) -> None:
        s = s.strip("\r\n ")
        if s:
            log.info("%s", s)

    def flush(self) -> None:
        pass


@contextmanager
def bar(total: float, desc: str, unit: str = "it"):
    """A progress bar of ``total`` units (``tqdm``: rate and time left); yields it (``.update(n)``).

    Live on a terminal; otherwise a log line every ``LOG_EVERY_S`` seconds and one at the end.
    """
    if interactive():
        kw = {"file": sys.stderr, "dynamic_ncols": True}
    else:
        kw = {"file": _LogLines(), "mininterval": LOG_EVERY_S, "maxinterval": LOG_EVERY_S, "ncols": 80,
              "ascii": True}
    b = tqdm(total=total, desc=desc, unit=unit, unit_scale=total >= 10_000, **kw)
    try:
        yield b
    finally:
        b.close()


@contextmanager
def watch(read, total: float, desc: str, unit: str = "it"):
    """A :func:`bar` advanced from a side thread to ``read()`` every ``WATCH_EVERY_S`` seconds
    (``read``: a cheap counter of work done, in ``unit``, that the block keeps anyway)."""
    stop = threading.Event()
    with bar(total, desc, unit) as b:

        def poll():
            while not stop.wait(WATCH_EVERY_S):
                b.update(min(read(), total) - b.n)

        t = threading.Thread(target=poll, name="cuzk-progress", daemon=True)
        t.start()
        try:
            yield b
        finally:
            stop.set()
            t.join()
            b.update(min(read(), total) - b.n)
