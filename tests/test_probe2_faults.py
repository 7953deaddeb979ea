"""The faults of the second adversarial probe (issue 52): no crash, no loss, no silent NaN.

Each test reproduces one probe; each failed on the code before the fix (the note of issue 52
lists the failure). A probe that could kill the interpreter runs in a child process."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import omkl_core as ok
from omkl_core import compiled


def _python(code: str, timeout: int = 300, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter (a segfault there cannot take the test run with it)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def _omkl(*args, timeout: int = 300, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "omkl_core", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})}, **kw)


def _one_error_line(res: subprocess.CompletedProcess) -> str:
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert res.returncode not in (0, -11, -6, 134, 139), (res.returncode, res.stderr[-2000:])
    assert len(lines) == 1 and lines[0].startswith("omkl: error: ") and len(lines[0]) > len("omkl: error: "), \
        res.stderr[-2000:]
    return lines[0]


# ----------------------------------------------------------------------------- 1. crash
@pytest.mark.parametrize("cls", ["SFGMKL", "SFGMKLR"])
@pytest.mark.parametrize("eng", ["numpy", "numba"])
def test_greedy_node_beyond_the_kernels_is_a_value_error_on_both_engines(cls, eng):
    if eng == "numba" and not compiled.numba_available():
        pytest.skip("no Numba")
    res = _python(f"""
        import omkl_core as ok
        from omkl_core import compiled
        X, y = ok.datasets.load("airfoil")
        with compiled.engine({eng!r}):
            m = ok.{cls}(m=4, greedy_node=41, greedy_after=10)
            try:
                m.run(X[:30], y[:30])
            except ValueError as exc:
                print("ValueError:", exc)
            else:
                print("no error")
        """)
    assert res.returncode == 0, (res.returncode, res.stderr[-1500:])
    assert "ValueError:" in res.stdout and "greedy_node" in res.stdout and "41" in res.stdout, res.stdout


def test_greedy_node_beyond_the_kernels_refused_before_any_step():
    X, y = ok.datasets.load("airfoil")
    m = ok.SFGMKL(m=4, greedy_node=41, greedy_after=10)
    with pytest.raises(ValueError, match=r"greedy_node must be < N .*= 41.*got 41"):
        m.predict_one(X[0])
    assert m.t_ == 0
    m = ok.SFGMKL(m=4, greedy_after=10)
    m.run(X[:3], y[:3])
    m.greedy_node = 50                          # a parameter written after the start: checked at the next step
    with pytest.raises(ValueError, match="greedy_node"):
        m.learn_one(X[3], y[3])
    assert m.t_ == 3


def test_cli_greedy_node_beyond_the_kernels_is_one_line():
    res = _omkl("run", "SFGMKL", "--dataset", "airfoil", "--param", "greedy_node=41", "--param", "greedy_after=10")
    line = _one_error_line(res)
    assert "greedy_node" in line


@pytest.mark.parametrize("eng", ["numpy", "numba"])
def test_omkr_wrong_length_log_w_is_a_value_error_not_a_segfault(eng):
    if eng == "numba" and not compiled.numba_available():
        pytest.skip("no Numba")
    res = _python(f"""
        import numpy as np, omkl_core as ok
        from omkl_core import compiled
        X, y = ok.datasets.load("airfoil")
        with compiled.engine({eng!r}):
            m = ok.OMKR()
            m.run(X[:5], y[:5])
            m.log_w_ = np.zeros(3)
            try:
                m.run(X[5:400], y[5:400])
            except ValueError as exc:
                print("ValueError:", exc)
            else:
                print("no error")
        """)
    assert res.returncode == 0, (res.returncode, res.stderr[-1500:])
    assert "ValueError:" in res.stdout and "log_w_" in res.stdout, res.stdout


@pytest.mark.parametrize("attr", ["log_w_", "theta_"])
def test_rf_learner_wrong_shape_state_is_a_value_error(attr, engine):
    X, y = ok.datasets.load("airfoil")
    m = ok.SFGMKL(m=4, greedy_after=10)
    m.run(X[:5], y[:5])
    setattr(m, attr, np.zeros((1, 3)))
    with pytest.raises(ValueError, match=attr):
        m.run(X[5:20], y[5:20])


# ----------------------------------------------------------------------------- 5. step path = run
def _omkr_failure(eng, path):
    X, y = ok.datasets.load("airfoil")
    X, y = X[:200], y[:200]
    m = ok.OMKR(eta=100)
    with compiled.engine(eng):
        if path == "run":
            with pytest.raises(FloatingPointError) as err:
                m.run(X, y)
            return str(err.value)
        with pytest.raises(FloatingPointError) as err:
            for t in range(len(y)):
                p = m.predict_one(X[t])
                assert np.isfinite(p), f"a non-finite forecast {p} returned at step {t + 1}"
                m.learn_one(X[t], y[t])
        return str(err.value)


def test_omkr_diverging_step_path_and_run_fail_at_the_same_step_with_the_same_error():
    engines = ["numpy"] + (["numba"] if compiled.numba_available() else [])
    messages = {(eng, path): _omkr_failure(eng, path) for eng in engines for path in ("step", "run")}
    assert len(set(messages.values())) == 1, messages
    msg = messages[("numpy", "step")]
    assert "step t = 108" in msg and "eta" in msg
