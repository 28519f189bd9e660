"""The package's shape: no import loop, no oversized file, function-level imports only for CuPy.

These are the rules of ARCHITECTURE.md and of the tidy-up issue, checked on the source itself
(``ast``), so a later change that breaks one fails CI instead of waiting for a review.
"""

import ast
import collections
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
MAX_LINES = 1000
# a function-level import is allowed only for these (costly or absent on CPU machines)
LAZY_OK = ("cupy", "cupyx", "cuzk.backend.cuda")
# modules allowed lazy imports of their own: the snarkjs prover process must set OpenBLAS and
# malloc settings before numpy loads, and hash its .zkey while its imports run (it is measured
# as a whole process against snarkjs)
LAZY_MODULES = ("cuzk.formats.snarkjs_prove",)


def _modules() -> dict[str, Path]:
    out = {}
    for f in SRC.rglob("*.py"):
        name = ".".join(f.relative_to(SRC).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = f
    return out


def _imports(name: str, f: Path):
    """(target module, node, outside any function?) for every import in ``f``."""
    mods = _modules()
    pkg = name if f.name == "__init__.py" else name.rsplit(".", 1)[0]
    tree = ast.parse(f.read_text())
    in_fn = {id(n) for fn in ast.walk(tree) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
             for n in ast.walk(fn)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
                m = ".".join(base + ([node.module] if node.module else []))
            else:
                m = node.module or ""
            for a in node.names:
                cand = f"{m}.{a.name}"
                yield (cand if cand in mods else m), node, id(node) not in in_fn
        elif isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, node, id(node) not in in_fn


def test_no_file_over_the_limit():
    big = {str(f.relative_to(SRC)): n for f in SRC.rglob("*.py") if (n := len(f.read_text().splitlines())) > MAX_LINES}
    assert big == {}


def test_no_import_loop_function_level_imports_included():
    mods = _modules()
    graph = collections.defaultdict(set)
    for name, f in mods.items():
        for tgt, _, _ in _imports(name, f):
            if tgt in mods and tgt != name:
                graph[name].add(tgt)
    cycles, state = [], {}

    def dfs(u, stack):
        state[u] = 1
        stack.append(u)
        for v in sorted(graph[u]):
            if state.get(v) == 1:
                cycles.append(" -> ".join(stack[stack.index(v):] + [v]))
            elif v not in state:
                dfs(v, stack)
        stack.pop()
        state[u] = 2

    for u in sorted(mods):
        if u not in state:
            dfs(u, [])
    assert cycles == []


def test_function_level_imports_only_for_cupy_with_a_reason():
    mods = _modules()
    bad = []
    for name, f in mods.items():
        if name in LAZY_MODULES:
            continue
        lines = f.read_text().splitlines()
        for tgt, node, at_top in _imports(name, f):
            if at_top:
                continue
            if any(tgt == p or tgt.startswith(p + ".") for p in LAZY_OK):
                if "#" not in lines[node.lineno - 1]:
                    bad.append(f"{name}:{node.lineno} {tgt} (no reason given)")
                continue
            bad.append(f"{name}:{node.lineno} {tgt}")
    assert bad == []


# cuzk/__init__.py's layer list: a module imports only its own layer and the layers before it
LAYERS = ("errors", "fileio", "progress", "field", "hash", "curve", "backend", "memory", "r1cs", "sector", "circuits",
          "groth16", "formats", "paths", "damaged", "pipeline", "report", "bench", "cli")


def test_layers_import_only_layers_before_them():
    rank = {p: i for i, p in enumerate(LAYERS)}
    mods = _modules()
    up = []
    for name, f in mods.items():
        parts = name.split(".")
        if len(parts) < 2:
            continue
        for tgt, node, _ in _imports(name, f):
            if tgt.startswith("cuzk.") and tgt.split(".")[1] != parts[1]:
                if rank.get(tgt.split(".")[1], len(LAYERS)) > rank.get(parts[1], len(LAYERS)):
                    up.append(f"{name}:{node.lineno} -> {tgt}")
    assert up == []
