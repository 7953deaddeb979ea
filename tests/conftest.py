"""Shared test configuration: Hypothesis profiles and the GPU skip marker.

Profiles (select with HYPOTHESIS_PROFILE=..., ``./reproduce.sh test`` uses ``ci``):
  ci        deterministic (derandomized), modest example counts -- the default;
  dev       random exploration, for local runs;
  thorough  many more examples, no deadline -- a longer run before a release.
"""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

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
