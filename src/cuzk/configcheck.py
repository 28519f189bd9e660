"""The workflow configuration checked strictly, every problem at once, before any job.

JSON Schema's ``integer`` admits ``2.0`` and ``number`` admits ``.nan`` and ``.inf`` (YAML
parses all three), and a path may be empty or the file system's root: each would pass the
schema and fail late (``threads: 2.0`` reaching a worker pool), or worse (``results: /``).
:func:`config_problems` validates with integers that are Python ints (not bools, not floats),
finite numbers, and the configured paths (``results``, sectors' ``data`` and ``c1``) non-empty
and not a root, and ``synthesis_sha: native``, ``gpu`` or ``prover`` not with ``upstream_order: true`` (the native
and GPU SHA-256 witness is in block order only: ``cuzk.r1cs.sha_path``); it returns one line per
problem, with its place in the config.
"""

from __future__ import annotations

import math
import os

import jsonschema

from .errors import CuzkError


class ConfigError(CuzkError, ValueError):
    """A workflow configuration that does not fit its schema; names the file and every problem."""


_TYPES = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine_many({
    "integer": lambda _, x: isinstance(x, int) and not isinstance(x, bool),
    "number": lambda _, x: isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x),
})
_Strict = jsonschema.validators.extend(jsonschema.Draft202012Validator, type_checker=_TYPES)


def _path_problem(value) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return "an empty path"
    if os.path.abspath(os.path.expanduser(value)) == os.path.abspath(os.sep):
        return "the file system's root"
    return None


def config_problems(config: dict, schema: dict) -> list[str]:
    """Every problem of ``config`` against ``schema`` (strict types), the path rules, sector ids
    given twice and test-only shapes without ``allow_test_shapes``, one line each (``place:
    message``), sorted by place; empty when the config is good."""
    out = []
    for e in _Strict(schema).iter_errors(config):
        place = ".".join(map(str, e.path)) or "(top level)"
        out.append((list(map(str, e.path)), f"  {place}: {e.message}"))
    paths = [(["results"], config.get("results"))]
    for i, s in enumerate(config.get("sectors") or []):
        if isinstance(s, dict):
            paths += [(["sectors", str(i), k], s[k]) for k in ("data", "c1") if k in s]
            if isinstance(s.get("update"), dict) and "data" in s["update"]:
                paths.append((["sectors", str(i), "update", "data"], s["update"]["data"]))
    for place, value in paths:
        why = _path_problem(value)
        if why and value is not None:
            out.append((place, f"  {'.'.join(place)}: {value!r} is {why}"))
    sectors = [s for s in config.get("sectors") or [] if isinstance(s, dict)]
    ids = [str(s["id"]) for s in sectors if "id" in s]
    for sid in sorted({i for i in ids if ids.count(i) > 1}):
        out.append((["sectors"], f"  sectors: sector id {sid} appears {ids.count(sid)} times"))
    if config.get("allow_test_shapes", False) is not True:
        for i, s in enumerate(sectors):
            size = s.get("sector_size")
            if isinstance(size, str) and size.startswith("test-only"):
                out.append((["sectors", str(i), "sector_size"], f"  sectors.{i}.sector_size: {size} is a test-only "
                                                               "shape, not a Filecoin sector size (allow_test_shapes)"))
    sha = config.get("synthesis_sha")
    if sha in ("native", "gpu", "prover") and config.get("upstream_order") is True:
        out.append((["synthesis_sha"], f"  synthesis_sha: {sha} computes the SHA-256 witness in block order only; "
                                       "with upstream_order: true use auto (numpy there) or numpy"))
    return [line for _, line in sorted(out, key=lambda t: t[0])]


__all__ = ["ConfigError", "config_problems"]
