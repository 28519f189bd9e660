"""Gadget counts from a committed table, so a shape's ``stats()`` builds no circuit.

:func:`tabled` wraps a function that builds a gadget in a shape-only system and counts what it
adds (aux, constraints, non-zeros): the result comes from ``gadget_costs.json`` when the table
holds it (microseconds), else from the build (seconds: SHA-256 and labeling gadgets), cached in
the process. The tests rebuild every entry and compare (``tests/test_porep_circuit.py``);
``cuzk.circuits.registry.write_cost_table()`` regenerates the file after a gadget changes.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

#: The committed table: ``[{"fn": name, "args": [...], "counts": {...}}, ...]``.
TABLE_PATH = Path(__file__).with_name("gadget_costs.json")
#: Every tabled builder by name (what the table's ``fn`` refers to).
BUILDERS: dict = {}
#: ``(builder name, args)`` of every call made in this process (what :func:`write_table` builds).
CALLED: set = set()


def _freeze(a):
    return tuple(_freeze(x) for x in a) if isinstance(a, list) else a


@functools.lru_cache(maxsize=1)
def _table() -> dict:
    if not TABLE_PATH.exists():
        return {}
    return {(e["fn"], _freeze(e["args"])): e["counts"] for e in json.loads(TABLE_PATH.read_text())}


def tabled(build):
    """Decorator: ``build(*args)`` (hashable args) read from the table when it holds the entry,
    else built once per process. The plain builder stays reachable as ``.build``."""
    name = build.__name__
    BUILDERS[name] = build

    @functools.lru_cache(maxsize=None)
    def counts(*args):
        CALLED.add((name, args))
        hit = _table().get((name, args))
        return dict(hit) if hit is not None else build(*args)

    counts.build = build
    return counts


def table_entries() -> list[tuple[str, tuple, dict]]:
    """``(builder name, args, counts)`` of every entry of the committed table."""
    return [(fn, args, dict(c)) for (fn, args), c in _table().items()]


def write_table(calls) -> None:
    """Write the table anew from builds of ``calls``: ``(builder name, args)`` pairs."""
    rows = [{"fn": fn, "args": list(args), "counts": BUILDERS[fn](*args)} for fn, args in calls]
    TABLE_PATH.write_text("[\n" + ",\n".join(json.dumps(r) for r in rows) + "\n]\n")
    _table.cache_clear()
