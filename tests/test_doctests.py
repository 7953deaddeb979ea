"""Every ``Examples`` block in the library's docstrings runs (``doctest``, one test per module).

Equivalent to ``pytest --doctest-modules omkl_core``, but part of ``pytest tests`` so that
``./reproduce.sh test`` runs them; the optional interop adapters are skipped when their
library is not installed.
"""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import omkl_core

MODULES = sorted(m.name for m in pkgutil.walk_packages(omkl_core.__path__, "omkl_core.")
                 if m.name != "omkl_core.__main__")


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    try:
        module = importlib.import_module(name)
    except ImportError as exc:  # an optional extra (river, scikit-learn, dask) is absent
        pytest.skip(f"{name}: {exc}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    path = name.replace(".", "/") + ".py"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name} (pytest --doctest-modules {path})"


def test_headline_classes_have_examples():
    """The headline learners and functions each carry a runnable Examples block."""
    import omkl_core as ok
    import omkl_core.repro as repro

    for obj in (ok.VAW2, ok.OnlineRidge, ok.NoisyKernelOGD, ok.noisy.estimate_analytic, ok.RandomFourierFeatures,
                ok.run_online, repro.report.compare, ok.VAW, ok.KernelRidge):
        doc = obj.__doc__ or ""
        head = "Examples\n    --------\n"
        assert head in doc and ">>>" in doc.split(head, 1)[1], f"{obj.__qualname__} has no Examples block"
