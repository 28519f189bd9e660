"""Host libraries built once and cached (``cuzk.backend.native``): the compiler runs once per key
(counted by a wrapper script standing in for ``$CXX``), a damaged cached library is found by its
recorded SHA-256 and rebuilt, two processes building at once make one library, and a missing or
failing compiler is a ``NativeBuildError`` that names it. The library's function is called and
its result checked (x·3 + 1 on given values)."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cuzk.backend.native import NativeBuildError, build_library, load_library, verified
from cuzk.errors import CuzkError

ROOT = Path(__file__).resolve().parents[1]
SRC = 'extern "C" long triple_plus_one(long x) { return 3 * x + 1; }\n'


@pytest.fixture
def cxx(tmp_path, monkeypatch):
    """``$CXX``: a wrapper that appends a line to ``compiles.log`` for each compile (a command with
    ``-o``), waits ``$WRAP_SLEEP`` seconds, then runs g++ (or c++) with the same arguments."""
    real = shutil.which("g++") or shutil.which("c++")
    if real is None:
        pytest.skip("no C++ compiler")
    log = tmp_path / "compiles.log"
    wrap = tmp_path / "cxx-wrap"
    wrap.write_text(textwrap.dedent(f"""\
        #!/bin/sh
        case " $* " in *" -o "*) echo "$$" >> '{log}'; sleep "${{WRAP_SLEEP:-0}}";; esac
        exec '{real}' "$@"
        """))
    wrap.chmod(0o755)
    monkeypatch.setenv("CXX", str(wrap))
    monkeypatch.setenv("CUZK_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "src.cpp").write_text(SRC)
    return log


def _compiles(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def _call(lib: Path, x: int) -> int:
    fn = load_library(lib).triple_plus_one
    fn.restype, fn.argtypes = ctypes.c_long, [ctypes.c_long]
    return fn(x)


def test_second_build_is_the_cached_library(cxx, tmp_path):
    lib = build_library("t", [tmp_path / "src.cpp"])
    assert lib.parent == tmp_path / "cache" / "native" and verified(lib)
    stat = lib.stat()
    assert build_library("t", [tmp_path / "src.cpp"]) == lib
    assert _compiles(cxx) == 1 and lib.stat().st_ino == stat.st_ino
    assert [_call(lib, x) for x in (0, 5, -7)] == [1, 16, -20]
    # an edited source is another key: built again, beside the first
    (tmp_path / "src.cpp").write_text(SRC.replace("3 * x + 1", "3 * x + 2"))
    other = build_library("t", [tmp_path / "src.cpp"])
    assert other != lib and _compiles(cxx) == 2 and _call(other, 5) == 17


def test_a_damaged_cached_library_is_rebuilt(cxx, tmp_path):
    lib = build_library("t", [tmp_path / "src.cpp"])
    good = lib.read_bytes()
    lib.write_bytes(good[: len(good) // 2])          # truncated, as by a full disk
    assert not verified(lib)
    with pytest.raises(NativeBuildError, match="recorded SHA-256"):
        load_library(lib)
    assert build_library("t", [tmp_path / "src.cpp"]) == lib
    assert _compiles(cxx) == 2 and verified(lib) and _call(lib, 2) == 7
    Path(f"{lib}.sha256").unlink()                   # no record: not trusted either
    build_library("t", [tmp_path / "src.cpp"])
    assert _compiles(cxx) == 3 and verified(lib)


def test_two_processes_build_one_library(cxx, tmp_path, monkeypatch):
    """Both processes wait for each other's start, then build; the compiler (slowed by 1 s)
    runs once, both get the same verified file, and no temporary is left."""
    monkeypatch.setenv("WRAP_SLEEP", "1")
    code = textwrap.dedent(f"""\
        import os, sys, time
        from pathlib import Path
        from cuzk.backend.native import build_library
        me, other = Path(sys.argv[1]), Path(sys.argv[2])
        me.touch()
        while not other.exists():
            time.sleep(0.01)
        print(build_library("t", [{str(tmp_path / "src.cpp")!r}]))
        """)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path / a), str(tmp_path / b)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for a, b in (("ready-0", "ready-1"), ("ready-1", "ready-0"))]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    paths = {out.strip() for out, _ in outs}
    assert len(paths) == 1 and _compiles(cxx) == 1
    assert verified(Path(paths.pop()))
    assert sorted(p.suffix for p in (tmp_path / "cache" / "native").iterdir()) == [".lock", ".sha256", ".so"]


def test_a_missing_compiler_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv("CUZK_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "src.cpp").write_text(SRC)
    monkeypatch.setenv("CXX", str(tmp_path / "no" / "such-g++"))
    with pytest.raises(NativeBuildError, match="such-g\\+\\+") as e:
        build_library("t", [tmp_path / "src.cpp"])
    assert isinstance(e.value, CuzkError)
    monkeypatch.delenv("CXX")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(NativeBuildError, match="no C\\+\\+ compiler"):
        build_library("t", [tmp_path / "src.cpp"])
    assert not (tmp_path / "cache").exists()


def test_a_failed_build_names_compiler_source_and_error(cxx, tmp_path):
    bad = tmp_path / "bad.cpp"
    bad.write_text('extern "C" int f() { return undeclared_name; }\n')
    with pytest.raises(NativeBuildError) as e:
        build_library("bad", [bad])
    msg = str(e.value)
    assert "cxx-wrap" in msg and str(bad) in msg and "undeclared_name" in msg
    assert list((tmp_path / "cache" / "native").glob("bad-*.so*")) == []
