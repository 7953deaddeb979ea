"""Paper 001's regret experiments run their repetitions on the one pool: the same numbers as the
serial loop, repetition by repetition, wherever a repetition ran."""
from __future__ import annotations

import numpy as np
import pytest

from omkl_core.repro import paper001 as P


@pytest.mark.parametrize("experiment", ["alg1", "poly", "twin"])
@pytest.mark.parametrize("executor", ["serial", "processes"])
def test_pooled_repetitions_equal_the_serial_loop(monkeypatch, tmp_path, experiment, executor):
    monkeypatch.setenv("OMKL_EXECUTOR", executor)
    T, R, seed0 = 40, 2, 7
    X, y, loss, *_, learners = P._EXPERIMENTS[experiment](T)
    pooled = P._curves(experiment, T, list(learners), R, seed0, cache_dir=tmp_path)
    for label, make in learners.items():
        curves, queries, _ = P.regret_curves(make, X, y, loss, R, seed0)
        assert np.array_equal(pooled[label][0], curves), label
        assert pooled[label][1] == queries
    again = P._curves(experiment, T, list(learners), R, seed0, cache_dir=tmp_path)   # from the cache
    assert all(np.array_equal(again[k][0], pooled[k][0]) for k in learners)


def test_a_repetition_depends_on_its_seed():
    X, y, loss, *_, learners = P._EXPERIMENTS["alg1"](40)
    label = next(iter(learners))
    a = P.curve_task({"experiment": "alg1", "T": 40, "learner": label, "seed": 1})["curve"]
    b = P.curve_task({"experiment": "alg1", "T": 40, "learner": label, "seed": 2})["curve"]
    assert not np.array_equal(a, b)
