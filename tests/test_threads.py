"""The library's one thread setting (omkl_core.threads): every engine obeys it, whatever loads first.

The counts are read back from the engines themselves (threadpoolctl for BLAS / OpenMP, oneMKL's
``MKL_Get_Max_Threads``); each scenario that depends on the order in which engines load runs in a
fresh interpreter.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from omkl_core import cosine, threads

HAS_MKL = "mkl" in cosine.available()


def _fresh(code: str, **env) -> dict:
    """Run ``code`` (which prints one JSON object) in a fresh interpreter with ``env`` added."""
    full = {k: v for k, v in os.environ.items() if k not in threads.ENGINE_VARIABLES and k != threads.ENV}
    full.update(env)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


_LOAD_MKL = "import numpy as np; from omkl_core import cosine; x = np.linspace(0, 1, 4096); " \
            "cosine.cos_function('mkl')(x, x.copy())"
_REPORT = "import json; from omkl_core import threads; print(json.dumps(threads.info()))"


def test_the_default_is_one_thread_and_the_environment_variable_sets_it(monkeypatch):
    monkeypatch.delenv(threads.ENV, raising=False)
    assert threads.requested() == 1
    monkeypatch.setenv(threads.ENV, "2")
    assert threads.requested() == 2
    monkeypatch.setenv(threads.ENV, "all")
    assert threads.requested() == (os.cpu_count() or 1)
    monkeypatch.setenv(threads.ENV, "auto")
    assert threads.requested() == 1


@pytest.mark.parametrize("bad", ["0", "-1", "two", "1.5"])
def test_a_bad_environment_value_is_an_error_naming_the_variable(monkeypatch, bad):
    monkeypatch.setenv(threads.ENV, bad)
    with pytest.raises(ValueError, match="OMKL_THREADS"):
        threads.requested()


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, "x", None])
def test_a_bad_count_is_an_error_naming_the_argument_and_changes_nothing(bad):
    before = threads.requested()
    with pytest.raises(ValueError, match="n must be"):
        with threads.using(bad):
            pass
    if bad is not None:
        with pytest.raises(ValueError, match="n must be"):
            threads.set(bad)
    assert threads.requested() == before


def test_using_sets_every_loaded_blas_and_gives_the_users_count_back():
    from threadpoolctl import threadpool_info
    before = {i["filepath"]: i["num_threads"] for i in threadpool_info()}
    with threads.using(1):
        inside = {i["filepath"]: i["num_threads"] for i in threadpool_info()}
        assert set(inside.values()) == {1}
    assert {i["filepath"]: i["num_threads"] for i in threadpool_info()} == before


def test_a_library_run_limits_the_blas_for_the_run_only():
    from threadpoolctl import threadpool_info

    import omkl_core as ok

    seen = []

    class Probe(ok.base.OnlineLearner):
        def _reset(self):
            pass

        def predict_one(self, x):
            seen.append({i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"})
            return 0.0

        def learn_one(self, x, y):
            self.t_ += 1

    before = {i["filepath"]: i["num_threads"] for i in threadpool_info()}
    threads.set(1)
    try:
        ok.run_online(Probe(), np.zeros((2, 1)), np.zeros(2))
    finally:
        threads.set(None)
    assert seen and all(s == {1} for s in seen)
    assert {i["filepath"]: i["num_threads"] for i in threadpool_info()} == before


@pytest.mark.skipif(not HAS_MKL, reason="oneMKL (the fast extra) not installed")
def test_mkl_loaded_after_the_setting_starts_at_the_librarys_count():
    # without the library's setting MKL would start a team of every core
    assert _fresh(_LOAD_MKL + "\n" + _REPORT)["mkl"] == 1
    assert _fresh(_LOAD_MKL + "\n" + _REPORT, OMKL_THREADS="2")["mkl"] == min(2, os.cpu_count() or 1)
    code = "from omkl_core import threads; threads.set(1)\n" + _LOAD_MKL + "\n" + _REPORT
    assert _fresh(code, OMKL_THREADS="all")["mkl"] == 1


@pytest.mark.skipif(not HAS_MKL, reason="oneMKL (the fast extra) not installed")
def test_mkl_loaded_before_the_setting_follows_it():
    code = _LOAD_MKL + "\nfrom omkl_core import threads; threads.set(2)\n" + _REPORT
    assert _fresh(code)["mkl"] == min(2, os.cpu_count() or 1)
    code = _LOAD_MKL + "\nfrom omkl_core import threads\nwith threads.using(1):\n" \
        "    import json; print(json.dumps(threads.info()))"
    assert _fresh(code, OMKL_THREADS="all")["mkl"] == 1


def test_a_child_environment_names_every_engine():
    env = threads.child_environment(1)
    assert env[threads.ENV] == "1"
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS"):
        assert env[var] == "1"


def test_a_sweep_worker_runs_every_engine_on_one_thread():
    from omkl_core import sweep

    res = sweep.map_tasks(_report_in_worker, [{"i": 0}], executor="processes", max_workers=1, progress=False)
    info = res[0]
    assert info["requested"] == 1
    assert {int(c.split()[-1]) for c in info["pools"]} == {1}
    if HAS_MKL:
        assert info["mkl"] == 1
    assert set(info["environment"].values()) == {"1"}      # engines the task loads later start at 1 too


def _report_in_worker(task):
    x = np.linspace(0.0, 1.0, 4096)
    if HAS_MKL:
        cosine.cos_function("mkl")(x, x.copy())
    info = threads.info()
    return {"requested": info["requested"], "pools": info["pools"], "mkl": info["mkl"],
            "environment": {var: os.environ.get(var) for var in (threads.ENV, *threads.ENGINE_VARIABLES)}}
