"""Explanations measured and the figures' claims computed (issue 22, item 4).

The reproduction notebooks explain their misses ("the argmax keeps rotating", "1/q ~ 10 acts as
a 10x step", "Python overhead dominates") and the papers state claims about their figures
("VAW2 has the lowest MSE throughout", "ML-Prod is sparse, EWA broad, VAW2 has negative
weights", "SFG-MKL converges faster", "SFG-MKL-R costs more than SFG-MKL"). This module turns
each into a number a table holds, and each claim into a verdict evaluated on the reproduced
numbers and, where the paper prints numbers (:mod:`omkl_core.paper_values`), on the published
ones. The notebooks call these functions; nothing here reads ``results/``.

Step records (paper 003, Algorithms 2-3)
    :func:`record_steps` runs an :class:`~omkl_core.SFGMKL` / :class:`~omkl_core.SFGMKLR`
    over a stream (R repetitions batched, the same numbers as ``run_repetitions``) and keeps,
    per step and repetition, the drawn node I_t, the size |S_t| of the evaluated subset
    (S_t = N_{I_t}^out, eq. 13 / 25) and the mean importance weight 1/q_{i,t} over S_t
    (eq. 15; unclipped). It can change parameters at a step (``switch_at``), which is how the
    1/q ablation continues the same run with q := 1 and a scaled step.

Claims
    :func:`count_switches` (changes of I_t between consecutive greedy steps),
    :func:`checkpoints` / :func:`lowest_share` (running-MSE curves at checkpoints),
    :func:`effective_number` (Hill number of a weight vector), :func:`negative_share`,
    :func:`lowest_in` (a row lowest among others in a published or reproduced table).

Costs
    :func:`profile_split` (cProfile: time in compiled calls vs Python frames) and
    :func:`per_step_cost` (CPU time per step against the number of repetitions batched). Their
    outputs are timings: they go into ``*_timing`` tables, never into the scorecard.
"""
from __future__ import annotations

import cProfile
import pstats
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ._validation import check_int, check_matrix, check_vector

__all__ = ["StepRecord", "record_steps", "count_switches", "checkpoints", "lowest_share",
           "effective_number", "negative_share", "lowest_in", "profile_split", "per_step_cost",
           "PROFILE_CATEGORIES"]


# ----------------------------------------------------------------------------- step records
@dataclass
class StepRecord:
    """What SFG-MKL(-R) did at every step (R repetitions, T steps)."""

    predictions: np.ndarray    # (R, T) the prediction f_RF(x_t), eq. (13) / (25)
    node: np.ndarray           # (R, T) the drawn (or greedy) node I_t
    subset_size: np.ndarray    # (R, T) |S_t|: kernels evaluated at step t
    inv_q: np.ndarray          # (R, T) mean over i in S_t of 1/q_{i,t}, eq. (15), before any clip
    greedy: np.ndarray         # (T,) True where I_t = argmax u (or the fixed code node), section 5


def record_steps(learner, X, y, repetitions: int, *, switch_at: int | None = None,
                 after: Mapping | None = None) -> StepRecord:
    """Run ``learner`` (SFGMKL or SFGMKLR) for ``repetitions`` batched repetitions from a fresh
    start and record every step (:class:`StepRecord`).

    Without ``switch_at`` the predictions equal ``learner.run_repetitions(X, y, repetitions)``
    bit for bit (the same steps; the record only reads them). With ``switch_at = k`` the first
    k steps run with the learner's parameters, then the attributes in ``after`` (e.g.
    ``{"clip": (1.0, tiny), "eta": 10 * eta}``) are set on the running learner and the stream
    continues from its state: an ablation of the steps after k only. The learner keeps the
    ``after`` values (clone it first to keep the original).
    """
    from .mkl.sfg import SFGMKL  # noqa: PLC0415

    if not isinstance(learner, SFGMKL):
        raise TypeError(f"learner must be an SFGMKL or SFGMKLR, got {type(learner).__name__}")
    X = check_matrix(X, "X")
    y = check_vector(y, "y", length=X.shape[0])
    R = check_int(repetitions, "repetitions")
    T = X.shape[0]
    if switch_at is not None:
        check_int(switch_at, "switch_at", minimum=0)
        if switch_at > T:
            raise ValueError(f"switch_at must be <= T = {T}, got {switch_at}")
        unknown = set(after or {}) - set(learner._get_params())
        if unknown:
            raise ValueError(f"after names unknown parameters {sorted(unknown)}")
    elif after:
        raise ValueError("after needs switch_at")
    node, size, inv_q, greedy = [], [], [], []
    cls_learn = type(learner)._learn_step

    def learn(st, y_t):                      # the class's step, then read what it used
        cls_learn(learner, st, y_t)
        rows = np.arange(st.idx.shape[0])[:, None]
        q_sel = st.q[rows, st.idx]
        node.append(np.asarray(st.node).copy())
        size.append(st.valid.sum(axis=1))
        inv_q.append(np.where(st.valid, 1.0 / q_sel, 0.0).sum(axis=1) / st.valid.sum(axis=1))
        greedy.append(learner.sampling_.greedy)

    learner._learn_step = learn              # instance attribute: shadows the method for this run
    try:
        if switch_at is None:
            P = learner.run_repetitions(X, y, R)
        else:
            P0 = learner.run_repetitions(X[:switch_at], y[:switch_at], R)
            for key, value in (after or {}).items():
                setattr(learner, key, value)
            P1 = learner._run_steps(X[switch_at:], y[switch_at:]) if switch_at < T else np.empty((R, 0))
            P = np.concatenate([P0, P1], axis=1)
    finally:
        del learner._learn_step
    return StepRecord(predictions=P, node=np.stack(node, axis=1), subset_size=np.stack(size, axis=1),
                      inv_q=np.stack(inv_q, axis=1), greedy=np.asarray(greedy, dtype=bool))


def count_switches(nodes, start: int = 0) -> np.ndarray:
    """Number of steps t > ``start`` (0-based) with I_t != I_{t-1}, per repetition.

    ``nodes`` (T,) or (R, T); ``start`` the first greedy step (section 5: 300), so only changes
    between two greedy steps count. Returns an int array (R,) (a scalar array for 1-D input).

    >>> count_switches([3, 3, 1, 1, 2, 2, 2, 1], start=2)
    array(2)
    """
    a = np.asarray(nodes)
    if a.ndim not in (1, 2):
        raise ValueError(f"nodes must be 1-D or 2-D, got shape {a.shape}")
    start = check_int(start, "start", minimum=0)
    if start >= a.shape[-1]:
        raise ValueError(f"start must be < T = {a.shape[-1]}, got {start}")
    seg = a[..., start:]
    return (seg[..., 1:] != seg[..., :-1]).sum(axis=-1)


# ----------------------------------------------------------------------------- curves
def checkpoints(curve_t, n: int = 20, first: float = 0.05) -> np.ndarray:
    """Indices into ``curve_t`` (increasing steps) of ``n`` checkpoints evenly spaced from
    ``first`` x T to T (T = curve_t[-1]): for each target, the last point at or before it.

    "Throughout" is read from 5 % of the stream on: the first few steps of every running MSE
    are a handful of squared errors, not a comparison of the learners.
    """
    t = np.asarray(curve_t, dtype=np.float64)
    if t.ndim != 1 or t.size == 0 or np.any(np.diff(t) <= 0):
        raise ValueError("curve_t must be a non-empty increasing 1-D array")
    n = check_int(n, "n", minimum=1)
    if not 0 < first <= 1:
        raise ValueError(f"first must be in (0, 1], got {first!r}")
    targets = np.linspace(first * t[-1], t[-1], n)
    idx = np.searchsorted(t, targets + 1e-9 * t[-1], side="right") - 1
    return np.unique(np.clip(idx, 0, t.size - 1))


def lowest_share(curves: Mapping[str, np.ndarray], target: str | Sequence[str], idx) -> float:
    """Share of the checkpoints ``idx`` at which ``target`` (a row, or the best of several rows)
    is strictly below every other curve of ``curves``."""
    targets = [target] if isinstance(target, str) else list(target)
    missing = [r for r in targets if r not in curves]
    if missing or len(targets) == len(curves):
        raise ValueError(f"target must name some, not all, rows of curves; got {targets}")
    idx = np.asarray(idx)
    mine = np.min([np.asarray(curves[r])[idx] for r in targets], axis=0)
    rest = np.min([np.asarray(v)[idx] for k, v in curves.items() if k not in targets], axis=0)
    return float(np.mean(mine < rest))


def lowest_in(values: Mapping[str, float], target: str | Sequence[str], among: Sequence[str] | None = None) -> bool:
    """True if ``target`` (or the best of several rows) is strictly lowest among ``among``
    (default: every key of ``values``) -- e.g. one dataset's column of a published table."""
    targets = [target] if isinstance(target, str) else list(target)
    among = list(values) if among is None else list(among)
    missing = [r for r in targets + among if r not in values]
    if missing:
        raise ValueError(f"values has no row(s) {missing}")
    others = [values[r] for r in among if r not in targets]
    if not others:
        raise ValueError("among must name a row besides target")
    return bool(min(values[r] for r in targets) < min(others))


# ----------------------------------------------------------------------------- weights
def effective_number(w, order: float = 1.0) -> float:
    """Effective number of experts of a weight vector: the Hill number of order ``order`` of
    p = |w| / sum |w| (order 1: exp of the Shannon entropy; order 2: 1 / sum p^2).

    1 for a single expert, k for k equal weights; |w| so that signed (VAW2) weights count by size.

    >>> round(effective_number([0.5, 0.5, 0, 0]), 12), effective_number([0, 1.0, 0])
    (2.0, 1.0)
    """
    a = np.abs(np.asarray(w, dtype=np.float64)).ravel()
    if a.size == 0 or not np.all(np.isfinite(a)) or a.sum() == 0:
        raise ValueError("w must be a non-empty finite vector with a non-zero entry")
    p = a / a.sum()
    p = p[p > 0]
    if order == 1:
        return float(np.exp(-np.sum(p * np.log(p))))
    if order <= 0:
        raise ValueError(f"order must be > 0, got {order!r}")
    return float(np.sum(p ** order) ** (1.0 / (1.0 - order)))


def negative_share(w) -> tuple[float, float]:
    """(share of the weights that are negative, share of the total |w| they carry)."""
    a = np.asarray(w, dtype=np.float64).ravel()
    if a.size == 0 or not np.all(np.isfinite(a)):
        raise ValueError("w must be a non-empty finite vector")
    neg = a < 0
    total = np.abs(a).sum()
    return float(neg.mean()), float(np.abs(a[neg]).sum() / total) if total > 0 else 0.0


# ----------------------------------------------------------------------------- costs (timings)
#: Categories of :func:`profile_split`.
PROFILE_CATEGORIES = ("compiled calls (NumPy / builtins)", "Python: omkl_core", "Python: NumPy wrappers",
                      "Python: other")


def _category(filename: str) -> str:
    if filename == "~" or filename.startswith("<"):
        return PROFILE_CATEGORIES[0]
    parts = Path(filename).parts
    if "omkl_core" in parts:
        return PROFILE_CATEGORIES[1]
    if "numpy" in parts:
        return PROFILE_CATEGORIES[2]
    return PROFILE_CATEGORIES[3]


def profile_split(fn, *args, top: int = 8, **kwargs) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Profile ``fn(*args, **kwargs)`` with cProfile and split its own time (tottime).

    Returns ``(split, top_functions)``: ``split`` one row per :data:`PROFILE_CATEGORIES`
    entry (seconds of own time, share of the total, number of calls); ``top_functions`` the
    ``top`` functions by own time. cProfile adds a fixed cost to every Python call, so the
    Python share is an upper bound; :func:`per_step_cost` measures without the profiler.
    """
    prof = cProfile.Profile()
    prof.enable()
    try:
        fn(*args, **kwargs)
    finally:
        prof.disable()
    stats = pstats.Stats(prof).stats
    recs = [{"category": _category(f), "function": f"{Path(f).name}:{line}({name})" if f != "~" else name,
             "calls": int(nc), "own_s": float(tt)} for (f, line, name), (_, nc, tt, _, _) in stats.items()]
    df = pd.DataFrame(recs)
    total = df["own_s"].sum()
    split = (df.groupby("category").agg(own_s=("own_s", "sum"), calls=("calls", "sum"))
             .reindex(PROFILE_CATEGORIES, fill_value=0).reset_index())
    split["share"] = split["own_s"] / total if total > 0 else np.nan
    top_df = df.sort_values("own_s", ascending=False).head(top).reset_index(drop=True)
    top_df["share"] = top_df["own_s"] / total if total > 0 else np.nan
    return split, top_df


def per_step_cost(make, X, y, repetitions: Sequence[int] = (1, 10, 50), runs: int = 3) -> pd.DataFrame:
    """CPU time per step of ``make().run_repetitions(X, y, R)`` for each R (best of ``runs``).

    A line c(R) = a + b R through the per-step times splits the cost into a fixed part a (per
    step, whatever R: Python dispatch, array creation) and a part b per repetition (the
    arithmetic that grows with the data). ``fixed_share`` = a / (a + b) is the share of the fixed
    part in a single run (R = 1). Returns one row per R with ``fixed_per_step_s``, ``per_rep_per_step_s``
    and ``fixed_share`` repeated on every row. Timings: keep them in a ``*_timing`` table.
    """
    X = check_matrix(X, "X")
    y = check_vector(y, "y", length=X.shape[0])
    runs = check_int(runs, "runs", minimum=1)
    Rs = [check_int(r, "repetitions") for r in repetitions]
    if len(set(Rs)) < 2:
        raise ValueError("repetitions must hold at least two different values")
    T = X.shape[0]
    recs = []
    for R in Rs:
        best = np.inf
        for _ in range(runs):
            model = make()
            c0 = time.process_time()
            model.run_repetitions(X, y, R)
            best = min(best, time.process_time() - c0)
        recs.append({"repetitions": R, "cpu_s": best, "per_step_s": best / T})
    df = pd.DataFrame(recs)
    b, a = np.polyfit(df["repetitions"], df["per_step_s"], 1)
    df["fixed_per_step_s"] = a
    df["per_rep_per_step_s"] = b
    df["fixed_share"] = a / (a + b)
    return df
