"""Shared test configuration: Hypothesis profiles, the GPU skip marker and the ``engine`` fixture.

``engine`` (parametrised ``numpy``/``numba``): a test that uses it runs once with the NumPy
rules and once with their compiled kernels (:mod:`omkl_core.compiled`), in the default
``pytest tests``; the ``numba`` run is skipped when Numba is not installed. The aggregation,
VAW and paper 000 theory test files apply it to every test (``pytestmark``).

Profiles (select with HYPOTHESIS_PROFILE=..., ``./reproduce.sh test`` uses ``ci``):
  ci        deterministic (derandomized), modest example counts -- the default;
  dev       random exploration, for local runs;
  thorough  many more examples, no deadline -- a longer run before a release.
"""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from omkl_core import compiled

settings.register_profile("ci", derandomize=True, max_examples=40, deadline=None,
                          print_blob=True, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=60, deadline=None)
settings.register_profile("thorough", max_examples=400, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_modifyitems(config, items):
    if not any("gpu" in item.keywords for item in items):
        return
    from omkl_core.backend import cupy_available

    if cupy_available():
        return
    skip = pytest.mark.skip(reason="no usable CuPy GPU on this machine")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(params=["numpy", "numba"])
def engine(request):
    """Run the test under ``compiled.engine(name)``: the NumPy rules, then the compiled kernels."""
    name = request.param
    if name == "numba" and not compiled.numba_available():
        pytest.skip("Numba is not installed: the compiled engine cannot run")
    with compiled.engine(name):
        yield name


_PREVIOUS_TEST: list = [None]


@pytest.fixture(autouse=True)
def _no_engine_or_cosine_left_in_force(request):
    """Every test starts with neither the engine nor the cosine library set in the process
    (``compiled.set_engine`` / ``cosine.set_library``, or a ``using`` block or a monkeypatch undone in
    the wrong order): one left in force by a test made the tests after it in that pytest-xdist worker
    compute with another arithmetic than a fresh process, and a Dask test then failed with 'code
    version mismatch'. The test that left it is named; the settings are cleared so that only this one
    test fails. (Defined before the fixtures that take ``monkeypatch``: it runs before them.)"""
    from omkl_core import cosine

    left = {name: s.override for name, s in (("engine", compiled._ENGINE), ("cosine library", cosine._LIBRARY))
            if s.override is not None}
    previous, _PREVIOUS_TEST[0] = _PREVIOUS_TEST[0], request.node.nodeid
    if left:
        compiled._ENGINE.override = cosine._LIBRARY.override = None
        pytest.fail(f"{previous} left {left} in force in this process")


@pytest.fixture(autouse=True)
def _run_mode_unset(monkeypatch):
    """Every test starts with no run mode declared (``OMKL_MODE`` unset) and leaves none behind:
    ``report.set_mode`` and the driver write it into the process's environment (a notebook declares
    its mode once), so a test that sets it must not decide the mode of the tests that run after it
    in the same process (under pytest-xdist the order differs from a serial run). A test that needs
    a mode sets it itself."""
    monkeypatch.delenv("OMKL_MODE", raising=False)


@pytest.fixture(autouse=True)
def _cosine_choice_restored():
    """The cosine library's import probes (``cosine._importable``) are cached for the process; a test
    that patches what imports (or loads a library under a patched environment) must not leave its
    answer to the tests after it -- a pytest-xdist worker would then compute its features with NumPy's
    cos while a fresh process (a Dask worker) takes oneMKL's: the same numbers only to 2 ulp."""
    from omkl_core import cosine

    saved = dict(cosine._importable)
    yield
    cosine._importable.clear()
    cosine._importable.update(saved)
