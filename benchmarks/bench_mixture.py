"""Mixture of heterogeneous learners vs its experts and vs River's ``EWARegressor`` (issue 24):
``python benchmarks/bench_mixture.py [--datasets airfoil concrete] [--max-steps T]``.

On each **whole** stream (``omkl_core.registry.load_dataset(name)``, normalised by P000
eqs. (33)-(34)) and under the project's protocol (predict then learn at every step, MSE over
every step, x 10^3), one row per:

* each expert alone: ``OnlineRidge(fit_intercept=True)``, ``VAW2()`` (paper 000's defaults),
  River's ``StandardScaler() | KNNRegressor(n_neighbors=5)`` (SWINN engine, seed 0, as
  ``interop.river.river_baseline``); the River model's first forecast (before any label) is
  scored as 0.0, as ``evaluate_river`` does;
* ``Mixture(pool, meta=BOA())`` and ``Mixture(pool, meta=MLPoly())`` over that pool (River's
  model through ``interop.from_river``; abstention -> the documented fallback);
* River's ``ensemble.EWARegressor`` (defaults: square loss, learning_rate=0.5) over the same
  three models (the omkl ones through ``interop.to_river``); a ``None`` forecast scores as 0.0.

``ratio`` is the row's MSE over the best single expert's on that dataset (the issue's
"done when": a mixture within 10 %, i.e. ratio <= 1.10). ``cpu_s`` is the process CPU time of
the row (the experts of a mixture row are recomputed inside it; a time is not reproducible,
the MSE is). :func:`pool` and :func:`rows` are what a leaderboard can import.
"""
from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

import omkl_core as ok
from omkl_core import registry

EXPERTS = ("OnlineRidge(fit_intercept=True)", "VAW2()", "River StandardScaler | KNNRegressor(5)")


def river_knn(seed: int = 0):
    """River's scaled KNN regressor (the leaderboard's KNN row, behind a StandardScaler)."""
    from river import preprocessing  # noqa: PLC0415

    from omkl_core.interop.river import river_baseline  # noqa: PLC0415  # lazy: River is an optional extra

    return preprocessing.StandardScaler() | river_baseline("River KNNRegressor(5)", seed)


def pool(seed: int = 0) -> list:
    """The three experts of issue 24's "done when" as omkl learners (River's through from_river)."""
    from omkl_core.interop import from_river  # noqa: PLC0415  # lazy: River is an optional extra

    return [ok.OnlineRidge(fit_intercept=True), ok.VAW2(), from_river(river_knn(seed))]


def _river_stream(model, X, y):
    names = [f"x{i}" for i in range(X.shape[1])]
    out = np.empty(len(y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for t in range(len(y)):
            x = dict(zip(names, X[t].tolist()))
            p = model.predict_one(x)
            out[t] = 0.0 if p is None else p
            model.learn_one(x, float(y[t]))
    return out


def _timed(fn):
    c0 = time.process_time()
    out = fn()
    return out, time.process_time() - c0


def rows(name: str, max_steps: int | None = None, seed: int = 0) -> pd.DataFrame:
    """One row per expert, mixture and River EWARegressor on dataset ``name`` (whole stream)."""
    from river import ensemble  # noqa: PLC0415

    from omkl_core.interop import to_river  # noqa: PLC0415  # lazy: River is an optional extra

    X, y = registry.load_dataset(name, max_steps)
    out = []

    def add(label, preds, cpu):
        out.append({"dataset": name, "T": len(y), "learner": label,
                    "mse_x1e3": 1e3 * float(np.mean((preds - y) ** 2)), "cpu_s": cpu})

    experts = pool(seed)
    for label, e in zip(EXPERTS, experts):
        if label.startswith("River"):
            preds, cpu = _timed(lambda: _river_stream(river_knn(seed), X, y))
        else:
            preds, cpu = _timed(lambda e=e: e.clone().run(X, y))
        add(label, preds, cpu)
    for meta in (ok.BOA(), ok.MLPoly()):
        mix = ok.Mixture(pool(seed), meta=meta)
        preds, cpu = _timed(lambda mix=mix: mix.run(X, y))
        add(f"Mixture(meta={type(meta).__name__})", preds, cpu)
    ewa = ensemble.EWARegressor([to_river(ok.OnlineRidge(fit_intercept=True)), to_river(ok.VAW2()), river_knn(seed)])
    preds, cpu = _timed(lambda: _river_stream(ewa, X, y))
    add("River EWARegressor (same pool)", preds, cpu)
    df = pd.DataFrame(out)
    best = df[df.learner.isin(EXPERTS)].mse_x1e3.min()
    df["ratio"] = df.mse_x1e3 / best
    return df


def main(argv=None) -> pd.DataFrame:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=["airfoil", "concrete"])
    ap.add_argument("--max-steps", type=int, default=None)
    args = ap.parse_args(argv)
    df = pd.concat([rows(n, args.max_steps) for n in args.datasets], ignore_index=True)
    with pd.option_context("display.width", 140, "display.max_columns", 10):
        print(df.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    return df


if __name__ == "__main__":
    main()
