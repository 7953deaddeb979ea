"""Paper 000 Table 2 beside its oracles in hindsight and its stated bounds (issue 34).

What the Table 2 run already computes per dataset -- the experts' forecasts Z (R, T, N) of the
VAW expert layer (:func:`omkl_core.mkl.expert_predictions`), the labels y (T,) and every
aggregation row's forecasts (R, T) -- gives two tables:

* :func:`oracle_table`: the mean square loss (x 10^3, mean over the R repetitions) of the best
  expert, the best convex and the best linear combination, and the best paths with 1..5 shifts
  in hindsight (:mod:`omkl_core.oracles`), beside every aggregation row's. The oracles are
  computed on the truncated forecasts zbar = clip(Z, 0, 1) (P000 eq. (28)): what every row but
  plain VAW2 aggregates, and what opera's ``oracle()`` was given in the fixture of
  ``tests/fixtures/opera`` (paper 000's Airfoil experts, 300 steps: best expert 8.58, convex
  8.48, linear 1.69 x 10^-3).
* :func:`bound_table`: every bound paper 000 states for each row's meta-learner, evaluated on each
  repetition with the run's constants (:func:`omkl_core.regret.stated_bounds`), with whether it
  holds; rows for which no paper states a bound say so.

:func:`table2_regret` runs one dataset end to end (the notebook's expert layer and rows) and
returns both tables.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import oracles as _oracles
from .. import registry as _registry
from ..mkl import TABLE2_ROWS, expert_predictions, make_meta
from ..regret import stated_bounds

__all__ = ["oracle_table", "bound_table", "table2_regret"]


def _as_batched(Z, y, rows):
    Z = np.asarray(Z, dtype=np.float64)
    if Z.ndim == 2:
        Z = Z[None]
    if Z.ndim != 3:
        raise ValueError(f"Z must be (T, N) or (R, T, N), got shape {Z.shape}")
    y = np.asarray(y, dtype=np.float64)
    if y.shape != (Z.shape[1],):
        raise ValueError(f"y must have shape ({Z.shape[1]},), got {y.shape}")
    if not isinstance(rows, dict):
        raise TypeError(f"rows must be a dict row name -> forecasts (R, T), got {type(rows).__name__}")
    P = {}
    for name, p in rows.items():
        p = np.asarray(p, dtype=np.float64)
        p = p[None] if p.ndim == 1 else p
        if p.shape != Z.shape[:2]:
            raise ValueError(f"rows[{name!r}] must have shape {Z.shape[:2]}, got {p.shape}")
        P[name] = p
    return Z, y, P


def oracle_table(Z, y, rows, *, shifts: int = 5, bounds=(0.0, 1.0), dataset: str | None = None) -> pd.DataFrame:
    """Oracles in hindsight beside the aggregation rows, MSE x 10^3 (mean and sd over repetitions).

    Parameters
    ----------
    Z : array (R, T, N) or (T, N)
        The experts' forecasts (raw; truncated here to ``bounds``, eq. (28), for the oracles).
    y : array (T,)
        Labels.
    rows : dict
        Row name (e.g. "VAW2", "VAW-EWA") -> its forecasts (R, T).
    shifts : int, default=5
        The shifting oracle's K: rows "best k-shift path" for k = 1..K.
    bounds : (float, float) or None, default=(0, 1)
        Truncation of Z for the oracles; None: the raw forecasts.
    dataset : str or None
        Written in a "dataset" column when given.
    """
    Z, y, P = _as_batched(Z, y, rows)
    Zs = Z if bounds is None else np.clip(Z, bounds[0], bounds[1])
    per = {}
    for r in range(Z.shape[0]):
        res = {"best expert": _oracles.best_expert(Zs[r], y).loss, "best convex": _oracles.best_convex(Zs[r], y).loss,
               "best linear": _oracles.best_linear(Zs[r], y).loss}
        sh = _oracles.best_shifting(Zs[r], y, K=min(shifts, len(y) - 1), paths=False)
        res.update({f"best {k}-shift path": float(sh.loss[k]) for k in range(1, sh.K + 1)})
        res.update({name: float(np.mean((p[r] - y) ** 2)) for name, p in P.items()})
        for k, v in res.items():
            per.setdefault(k, []).append(v)
    n_oracles = 3 + min(shifts, len(y) - 1)
    df = pd.DataFrame({"kind": ["oracle"] * n_oracles + ["aggregation"] * len(P),
                       "mse_x1e3": [1e3 * float(np.mean(v)) for v in per.values()],
                       "sd_x1e3": [1e3 * float(np.std(v, ddof=1)) if len(v) > 1 else 0.0 for v in per.values()],
                       "repetitions": Z.shape[0]}, index=pd.Index(list(per), name="row"))
    if dataset is not None:
        df.insert(0, "dataset", dataset)
    return df


def bound_table(Z, y, rows, *, m: int, lam: float, dataset: str | None = None) -> pd.DataFrame:
    """Each stated bound of each Table 2 row (``make_meta(row)``'s rule) on each repetition: equation,
    comparator, left side, bound, holds (True / False / None when no bound is stated or evaluable).

    ``m``, ``lam``: the expert layer's random features per kernel and lambda (for (25))."""
    Z, y, P = _as_batched(Z, y, rows)
    layer = {"m": int(m), "lam": float(lam), "vaw": True, "feature_map": "cos"}
    out = []
    for name, p in P.items():
        rule = make_meta(name)
        for r in range(Z.shape[0]):
            loss = float(np.mean((p[r] - y) ** 2))
            for b in stated_bounds(rule, Z[r], y, p[r], expert_layer=layer, papers_only=True):
                out.append({"dataset": dataset, "row": name, "repetition": r, "mse_x1e3": 1e3 * loss,
                            "equation": b.equation, "comparator": b.comparator, "lhs": b.lhs, "bound": b.bound,
                            "holds": b.holds, "units": b.units, "note": b.note})
    df = pd.DataFrame(out)
    if dataset is None:
        df = df.drop(columns="dataset")
    return df


def table2_regret(dataset: str, *, repetitions: int | None = None, T: int | None = None, seed: int = 0,
                  rows=None, shifts: int = 5):
    """One dataset of paper 000 Table 2 end to end: the expert layer with section 4's settings
    (``registry.paper000.defaults("VAW2")``: m = 50, lambda = 1, 76 kernels), every row of ``rows``
    (default ``omkl_core.mkl.TABLE2_ROWS``) on it, then ``(oracle_table, bound_table)``.
    ``dataset``: a registry name ("airfoil", "bias", "concrete", "naval", "ar4"); ``T``: truncate."""
    d = _registry.paper000.defaults("VAW2")
    R = _registry.paper000.REPETITIONS if repetitions is None else repetitions
    X, y = _registry.load_dataset(dataset, T)
    Z = expert_predictions(X, y, m=d["m"], lam=d["lam"], repetitions=R, seed=seed, dictionary=d["dictionary"])
    rows = list(rows) if rows is not None else None
    preds = {row: make_meta(row).run(Z, y) for row in (rows or TABLE2_ROWS)}
    return (oracle_table(Z, y, preds, shifts=shifts, dataset=dataset),
            bound_table(Z, y, preds, m=d["m"], lam=d["lam"], dataset=dataset))
