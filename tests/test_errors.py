"""Every typed cuzk error derives from the one base, and the step runner treats it as such."""

import importlib
import inspect
import pkgutil

import cuzk
from cuzk import pipeline
from cuzk.errors import CuzkError

# modules that import CuPy at load time are skipped on CPU machines; their errors live elsewhere
_SKIP = ("cuzk.backend.cuda",)


def _error_classes():
    out = []
    for m in pkgutil.walk_packages(cuzk.__path__, "cuzk."):
        if m.name.startswith(_SKIP):
            continue
        mod = importlib.import_module(m.name)
        for _, cls in inspect.getmembers(mod, inspect.isclass):
            if cls.__module__ == mod.__name__ and issubclass(cls, Exception) and not issubclass(cls, Warning):
                out.append(cls)
    return out


def test_every_cuzk_exception_derives_from_the_base():
    classes = _error_classes()
    assert len(classes) >= 20  # the package's typed errors were found at all
    strays = [f"{c.__module__}.{c.__name__}" for c in classes if not issubclass(c, CuzkError)]
    assert strays == []


def test_step_runner_catches_the_base():
    assert pipeline.INPUT_ERRORS is CuzkError
