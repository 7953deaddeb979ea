"""The cross-paper leaderboard (issues 14, 16, 24): its presets, its runs, its mixture rows, its claim.

``notebooks/p_all_leaderboard.ipynb`` calls this module and plots; everything it reports is
computed here. This module sits at the top of the dependency graph with :mod:`omkl_core.sweep`
(it imports learners, datasets, the registry, :mod:`omkl_core.mixture` and River's interop);
nothing in the library imports it.

Rows
    *Single learners*: every online multi-kernel learner of the library with each paper's
    default hyper-parameters (:func:`entries`: paper 000 section 4, ``registry.paper000``;
    paper 003 section 5, ``registry.paper003``) on both dictionaries (76 and 41 kernels), OMKR,
    the online-ridge floors of paper 002, and River's regressors
    (:data:`omkl_core.interop.river.RIVER_BASELINES`). A learner that takes a ``seed`` runs once
    per seed; a deterministic one (``OnlineRidge``, ``OMKR``, River's linear models) runs once
    and its forecasts serve every seed.

    *Mixtures* (issue 24): ``Mixture(pool, meta=...)`` over :func:`pool_labels` -- every omkl
    row of the leaderboard plus River's ARF and KNN (:data:`RIVER_POOL`) -- under each
    meta-learner of :data:`METAS` (BOA and ML-Poly as the issue asks; ML-Prod, EWA and the
    Aggregating Algorithm because they cost nothing more). A mixture of seed s aggregates the
    pool's runs of seed s. Each expert runs **once**: the mixture rows are
    :func:`omkl_core.mixture.aggregate` over the stored forecasts, which gives the numbers of
    ``Mixture(pool, meta=meta).run(X, y)`` bit for bit (tests/test_mixture.py), because no expert
    depends on the meta-learner or on another expert. A River expert abstains at the first step
    (``from_river``: nothing learned yet) and gets the mixture's documented fallback there.

    *River's* ``ensemble.EWARegressor`` over the same pool with its default learning rate 0.5
    and square loss (:func:`ewa_regressor`): River's own code, fed the stored forecasts of the
    same experts through replay models, i.e. exactly the forecasts z_t the
    meta-learners see (fallback included), so the rows differ only by the aggregation rule.

The claim (issue 24)
    "The mixture is at least as good as the best single learner, omkl's or River's":
    :func:`mixture_claims` computes per dataset ratio = MSE(mixture) / min over *every* single
    learner of the leaderboard (the seed-mean MSEs; River's five other regressors included,
    although they are not in the pool); it holds at ratio <= :data:`CLAIM_TOLERANCE` (1.02).
    :func:`regret_table` gives the measured regret behind it: the cumulative square loss of the
    mixture minus that of the best expert of its pool in hindsight, per seed.

Cost
    Every single-learner run is one task of a process pool (:func:`run_singles`; longest first),
    timed by ``time.process_time`` in its worker (one BLAS thread; each worker first runs every
    omkl row on 8 steps, so that loading the compiled kernels is charged to no row), its forecasts cached on disk
    (:class:`ForecastStore`, keyed like the sweep's cells: code version, data hash, learner,
    parameters, seed; River's cells by River's version and the interop source), so a re-run
    recomputes only what changed. Why not :func:`omkl_core.sweep.run`: its rows carry the MSE
    curve, not the forecasts a mixture needs, and it runs omkl's learners only. Times are in the
    separate :func:`timing_table` (a number table carries no time: issue 22).
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from .. import registry
from ..aggregation import BOA, EWA, AggregatingAlgorithm, MLPoly, MLProd
from ..mixture import aggregate
from ..sweep import Store, _make_learner, _one_blas_thread, code_version, data_hash

__all__ = ["NAMES", "DICTS", "VAW_FAMILY", "PAPER003", "RIVER_POOL", "METAS", "CLAIM_TOLERANCE", "Entry",
           "entries", "family", "order", "pool_labels", "ForecastStore", "run_singles", "mixture_runs",
           "ewa_regressor", "summary", "mixture_claims", "claim_rows", "regret_table", "timing_table"]

#: Display names of the datasets.
NAMES = {"ar4": "AR(4)", "airfoil": "Airfoil", "bias": "Bias", "concrete": "Concrete", "naval": "Naval",
         "wine_white": "Wine"}
#: The two kernel dictionaries: paper 000's 76 kernels, paper 003's 41 Gaussian kernels.
DICTS = {"76": registry.paper000.dictionary(), "41": registry.paper003.dictionary()}
#: Paper 000's VAW family, label -> class name.
VAW_FAMILY = {"VAW2": "VAW2", "VAW-EWA": "VAWEWA", "VAW-Aggr": "VAWAggr", "VAW-ML-Prod": "VAWMLProd",
              "VAW-ML-Poly": "VAWMLPoly", "VAW-BOA": "VAWBOA"}
#: Paper 003's random-feature learners, label -> class name.
PAPER003 = {"Raker": "Raker", "OMKL-GF": "OMKLGF", "SFG-MKL": "SFGMKL", "SFG-MKL-R": "SFGMKLR"}
#: River's regressors in every mixture's pool (issue 24: ARF and KNN).
RIVER_POOL = ("River ARF(10)", "River KNNRegressor(5)")
#: The mixtures' meta-learners, label -> template (BOA and ML-Poly: issue 24; the others are free).
METAS = {"BOA": BOA(), "ML-Poly": MLPoly(), "ML-Prod": MLProd(), "EWA": EWA(), "AA": AggregatingAlgorithm()}
#: The claim holds on a dataset when MSE(mixture) <= CLAIM_TOLERANCE x the best single learner's.
CLAIM_TOLERANCE = 1.02
#: The label of River's EWARegressor row (default learning rate).
EWA_REGRESSOR = "River EWARegressor(lr=0.5, default) [pool]"


def mixture_label(meta: str) -> str:
    """The label of the mixture row under meta-learner ``meta`` (a key of :data:`METAS`)."""
    return f"Mixture({meta}) [pool]"


# ----------------------------------------------------------------------------- the rows
@dataclass(frozen=True)
class Entry:
    """One single-learner row: ``kind`` ``"omkl"`` (class ``name`` of the registry built from
    ``params``) or ``"river"`` (``name`` a key of ``RIVER_BASELINES``); ``seeded``: runs per seed."""

    label: str
    kind: str
    name: str
    params: dict = field(default_factory=dict)
    seeded: bool = True


def entries(T: int, *, river: bool = True) -> list[Entry]:
    """The single-learner rows for a stream of T steps (paper 003's eta = xi = 1/sqrt(T)): each
    paper's preset on both dictionaries, OMKR (41 Gaussian kernels, exact kernels), the floors,
    then River's regressors."""
    p000, p003 = registry.paper000.defaults(), registry.paper003.defaults(T)
    out = []
    for tag, dic in DICTS.items():
        for label, cls in VAW_FAMILY.items():                                    # paper 000 section 4
            out.append(Entry(f"{label} [{tag}]", "omkl", cls, {**p000[cls], "dictionary": dic}))
        for label, cls in PAPER003.items():                                      # paper 003 section 5
            out.append(Entry(f"{label} [{tag}]", "omkl", cls, {**p003[cls], "dictionary": dic}))
    out.append(Entry("OMKR [41]", "omkl", "OMKR", p003["OMKR"], seeded=False))
    for tag, dic in DICTS.items():                                               # paper 002 floors
        out.append(Entry(f"floor: ridge experts + VAW [{tag}]", "omkl", "VAW2",
                         {**p000["VAW2"], "dictionary": dic, "ridge": True}))
    out.append(Entry("floor: OnlineRidge (linear)", "omkl", "OnlineRidge", {"a": 1.0, "fit_intercept": True},
                     seeded=False))
    if river:
        from ..interop.river import RIVER_BASELINES  # noqa: PLC0415  (River is an optional extra)

        out += [Entry(label, "river", label, seeded=stochastic) for label, stochastic in RIVER_BASELINES.items()]
    return out


def family(label: str) -> str:
    """The family of a row label: paper 000, paper 003, floor (paper 002), River, mixture."""
    if label.startswith("Mixture") or label.startswith("River EWARegressor"):
        return "mixture (issue 24)"
    if label.startswith("River"):
        return "River"
    if label.startswith("floor"):
        return "floor (paper 002)"
    if label.startswith("VAW"):
        return "paper 000"
    return "paper 003"


def order(labels) -> list[str]:
    """``labels`` in the leaderboard's row order (the order of :func:`entries`, then the mixtures)."""
    ref = [e.label for e in entries(1000)] + [mixture_label(m) for m in METAS] + [EWA_REGRESSOR]
    have = set(labels)
    return [lab for lab in ref if lab in have] + sorted(have - set(ref))


def pool_labels(singles) -> list[str]:
    """The mixtures' pool among the single-learner labels ``singles``: every omkl row and River's
    :data:`RIVER_POOL` (those present)."""
    return [lab for lab in singles if family(lab) in ("paper 000", "paper 003", "floor (paper 002)")
            or lab in RIVER_POOL]


# ----------------------------------------------------------------------- the forecasts
class ForecastStore(Store):
    """The sweep's content-addressed store (:class:`omkl_core.sweep.Store`) holding one run's
    forecasts: ``root/ab/<key>.npz`` with ``predictions`` (T,), ``abstained`` (T,) bool and
    ``info`` (JSON: times), written atomically."""

    suffix = ".npz"

    def get(self, key: str) -> dict | None:
        try:
            with np.load(self._path(key)) as f:
                return {"predictions": f["predictions"], "abstained": f["abstained"],
                        **json.loads(str(f["info"]))}
        except (FileNotFoundError, ValueError, KeyError, OSError):
            return None

    def put(self, key: str, res: dict) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{key}.{os.getpid()}.tmp.npz")
        info = {k: v for k, v in res.items() if k not in ("predictions", "abstained")}
        np.savez(tmp, predictions=res["predictions"], abstained=res["abstained"], info=json.dumps(info))
        os.replace(tmp, path)


@lru_cache(maxsize=1)
def _river_version() -> str:
    import river  # noqa: PLC0415

    src = Path(__file__).resolve().parent.parent.joinpath("interop").joinpath("river.py").read_bytes()
    return f"{river.__version__}:{hashlib.sha256(src).hexdigest()}"


def _key(entry: Entry, seed: int, dhash: str) -> str:
    version = code_version() if entry.kind == "omkl" else _river_version()
    payload = {"kind": entry.kind, "name": entry.name, "params": entry.params, "seed": seed, "data": dhash,
               "version": version}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


@lru_cache(maxsize=8)
def _stream(dataset: str, max_steps):
    return registry.load_dataset(dataset, max_steps)


def _forecast_task(entry: Entry, dataset: str, max_steps, seed: int) -> dict:
    """One single-learner run in a worker: its forecasts and its process CPU time."""
    X, y = _stream(dataset, max_steps)
    with _one_blas_thread():
        t0, c0 = time.perf_counter(), time.process_time()
        if entry.kind == "omkl":
            model = _make_learner(registry.learners()[entry.name], entry.params, seed)
            from ..protocol import run_online  # noqa: PLC0415

            preds = run_online(model, X, y).predictions
            abstained = np.zeros(len(y), dtype=bool)
        else:
            from ..interop.river import river_forecasts  # noqa: PLC0415

            r = river_forecasts(entry.name, X, y, seed)
            preds, abstained = r["predictions"], r["abstained"]
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"predictions": np.asarray(preds, dtype=np.float64), "abstained": abstained,
            "seconds": float(seconds), "cpu_seconds": float(cpu)}


def _warm_up() -> None:
    """A worker's initializer: run every omkl row once on 8 steps, so that loading the compiled
    kernels (Numba's on-disk cache, once per process) is charged to no row's CPU time."""
    for e in entries(8, river=False):
        _forecast_task(e, "airfoil", 8, 0)


#: Rough CPU cost per step of a row relative to VAW2, to start the long tasks first.
_COST = {"OMKR": 8.0, "River ARF(10)": 6.0, "River AMF(10)": 6.0, "River KNNRegressor(5)": 3.0,
         "River HoeffdingAdaptiveTree": 1.5, "SFGMKL": 0.5, "SFGMKLR": 0.5, "OnlineRidge": 0.1}


def run_singles(datasets, seeds, *, max_steps=None, river: bool = True, workers: int = 2, cache_dir=None,
                progress: bool = True):
    """Run every single-learner row of the leaderboard once per seed (once if deterministic).

    Returns ``(rows, forecasts)``: ``rows`` one row per run (``dataset, label, seed, T, mse,
    seconds, cpu_seconds, cached``; a deterministic row's one run has seed -1) and
    ``forecasts[(dataset, label, seed)] = (predictions, abstained)`` for every seed (a
    deterministic row's one run under each seed)."""
    store = ForecastStore(cache_dir) if cache_dir is not None else None
    tasks, results = [], {}
    for d in datasets:
        X, y = registry.load_dataset(d, max_steps)
        dh = data_hash(X, y)
        for e in entries(len(y), river=river):
            for s in (seeds if e.seeded else [-1]):
                key = _key(e, s, dh)
                hit = store.get(key) if store is not None else None
                if hit is not None:
                    results[(d, e.label, s)] = {**hit, "cached": True}
                else:
                    tasks.append((d, e, s, key, len(y) * _COST.get(e.name, 1.0)))
    tasks.sort(key=lambda t: -t[4])
    bar = None
    if progress:
        from tqdm.auto import tqdm  # noqa: PLC0415

        bar = tqdm(total=len(tasks) + len(results), initial=len(results), desc="leaderboard runs", unit="run")
    try:
        with ProcessPoolExecutor(max_workers=max(1, min(workers, len(tasks) or 1)),
                                 initializer=_warm_up if tasks else None) as pool:
            futs = {pool.submit(_forecast_task, e, d, max_steps, max(s, 0)): (d, e, s, key)
                    for d, e, s, key, _ in tasks}
            for fut in as_completed(futs):
                d, e, s, key = futs[fut]
                res = fut.result()
                if store is not None:
                    store.put(key, res)
                results[(d, e.label, s)] = {**res, "cached": False}
                if bar is not None:
                    bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    rows, forecasts = [], {}
    for d in datasets:
        X, y = registry.load_dataset(d, max_steps)
        for e in entries(len(y), river=river):
            for s in (seeds if e.seeded else [-1]):
                r = results[(d, e.label, s)]
                rows.append({"dataset": d, "label": e.label, "seed": s, "T": len(y),
                             "mse": float(np.mean((r["predictions"] - y) ** 2)), "seconds": r["seconds"],
                             "cpu_seconds": r["cpu_seconds"], "cached": r["cached"]})
                for s2 in (seeds if s == -1 else [s]):
                    forecasts[(d, e.label, s2)] = (r["predictions"], r["abstained"])
    return pd.DataFrame(rows), forecasts


# ------------------------------------------------------------------------ the mixtures
def _pool_matrix(forecasts, dataset, seed, pool):
    Z = np.stack([forecasts[(dataset, lab, seed)][0] for lab in pool], axis=1)
    A = np.stack([forecasts[(dataset, lab, seed)][1] for lab in pool], axis=1)
    return Z, A


@lru_cache(maxsize=1)
def _replay_class():
    """A River regressor that replays stored forecasts: ``predict_one`` returns z_t, ``learn_one``
    moves to t + 1 (what an expert of River's ensemble sees, without running it again)."""
    from river import base  # noqa: PLC0415  (River is an optional extra)

    class Replay(base.Regressor):
        def __init__(self, z):
            self.z = z
            self.t = 0

        def predict_one(self, x):
            return float(self.z[self.t])

        def learn_one(self, x, y):
            self.t += 1

    return Replay


def ewa_regressor(Z, y, *, learning_rate: float = 0.5) -> np.ndarray:
    """The forecasts of River's ``ensemble.EWARegressor(models, learning_rate=learning_rate)``
    (square loss) when its N models forecast the columns of Z (T, N): River's own code, predict
    (``predict_one``) then learn (``learn_one``) at every step, the models replaying Z.

    River 0.26 starts every weight at 1, not 1/N, and normalises them after each update: its
    first forecast is the *sum* of the N first forecasts (kept as River computes it; on the
    leaderboard's streams the omkl experts forecast 0 at t = 1, so that step costs little)."""
    from river import ensemble  # noqa: PLC0415

    Z = np.asarray(Z, dtype=np.float64)
    replay = _replay_class()
    model = ensemble.EWARegressor([replay(Z[:, j]) for j in range(Z.shape[1])], learning_rate=learning_rate)
    out = np.empty(len(y))
    x = {}
    for t in range(len(y)):
        out[t] = model.predict_one(x)
        model.learn_one(x, float(y[t]))
    return out


def mixture_runs(forecasts, datasets, seeds, *, max_steps=None, metas=None, river_ewa: bool = True):
    """One row per (dataset, mixture, seed): the mixtures of :data:`METAS` and River's
    EWARegressor over the pool's stored forecasts of that seed.

    Columns ``dataset, label, seed, T, mse, regret`` (cumulative square loss of the row minus
    the best pool expert's in hindsight, the experts as the meta-learner saw them: fallback at
    their abstentions), ``best_expert``, ``cpu_seconds`` (the aggregation alone,
    ``time.process_time``; :func:`timing_table` adds the experts' runs), ``n_experts``."""
    metas = METAS if metas is None else metas
    rows = []
    for d in datasets:
        _, y = registry.load_dataset(d, max_steps)
        singles = sorted({lab for (dd, lab, _s) in forecasts if dd == d})
        pool = pool_labels([e.label for e in entries(len(y)) if e.label in singles])
        for s in seeds:
            Z, A = _pool_matrix(forecasts, d, s, pool)
            Zsub = _aggregate_inputs(Z, A, y, metas)
            expert_loss = ((Zsub - y[:, None]) ** 2).sum(axis=0)
            jbest = int(np.argmin(expert_loss))
            runs = []
            for name, meta in metas.items():
                c0 = time.process_time()
                p = aggregate(Z, y, meta=meta, abstained=A)
                runs.append((mixture_label(name), p, time.process_time() - c0))
            if river_ewa:
                c0 = time.process_time()
                p = ewa_regressor(Zsub, y)
                runs.append((EWA_REGRESSOR, p, time.process_time() - c0))
            for label, p, cpu in runs:
                loss = float(((p - y) ** 2).sum())
                rows.append({"dataset": d, "label": label, "seed": s, "T": len(y), "mse": loss / len(y),
                             "regret": loss - float(expert_loss[jbest]), "best_expert": pool[jbest],
                             "cpu_seconds": float(cpu), "n_experts": len(pool)})
    return pd.DataFrame(rows)


def _aggregate_inputs(Z, A, y, metas) -> np.ndarray:
    """Z with the abstentions replaced by the fallback f_t (what every meta-learner and River's
    EWARegressor see): the one abstention rule of :mod:`omkl_core.protocol` -- the running mean of
    past labels, the midpoint of the bounds at t = 1."""
    from ..mixture import _first_fallback  # noqa: PLC0415
    from ..protocol import abstention_fallbacks  # noqa: PLC0415

    first = {_first_fallback(m) for m in metas.values()}
    if len(first) != 1:
        raise ValueError(f"metas disagree on the first fallback (their bounds): {sorted(first)}")
    if not A.any():
        return Z
    return np.where(A, abstention_fallbacks(y, first=first.pop())[:, None], Z)


# --------------------------------------------------------------------- tables and claim
def summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, label): ``mse_x1e3`` (mean over runs), ``sd_x1e3`` (ddof 1; NaN for one run),
    ``n_runs``, ``family``: the leaderboard's numbers, no time."""
    g = runs.groupby(["dataset", "label"], sort=False)["mse"]
    out = g.agg(mse_mean="mean", mse_sd="std", n_runs="size").reset_index()
    out["mse_x1e3"] = out["mse_mean"] * 1e3
    out["sd_x1e3"] = out["mse_sd"] * 1e3
    out["family"] = out["label"].map(family)
    return out[["dataset", "family", "label", "mse_x1e3", "sd_x1e3", "n_runs"]]


def mixture_claims(summ: pd.DataFrame, *, mixtures=None, tolerance: float = CLAIM_TOLERANCE) -> pd.DataFrame:
    """Per (dataset, mixture row): ratio = seed-mean MSE of the mixture / the lowest seed-mean
    MSE of any single learner (every row whose family is not "mixture": omkl's and River's),
    and ``holds`` = ratio <= ``tolerance``.

    ``summ`` has columns ``dataset, label, mse_x1e3`` (:func:`summary`); ``mixtures`` the labels
    judged (default: every mixture row present). A dataset without a single learner, or a
    mixture absent on a dataset, is a ValueError naming it."""
    if not (isinstance(tolerance, (int, float)) and math.isfinite(tolerance) and tolerance > 0):
        raise ValueError(f"tolerance must be a positive finite number, got {tolerance!r}")
    for col in ("dataset", "label", "mse_x1e3"):
        if col not in summ.columns:
            raise ValueError(f"summ lacks column {col!r}")
    is_mix = summ["label"].map(family) == "mixture (issue 24)"
    mixtures = list(dict.fromkeys(summ.loc[is_mix, "label"])) if mixtures is None else list(mixtures)
    rows = []
    for d in dict.fromkeys(summ["dataset"]):
        sub = summ[summ["dataset"] == d]
        single = sub[~is_mix.loc[sub.index]]
        if single.empty:
            raise ValueError(f"dataset {d!r} has no single-learner row")
        best = single.loc[single["mse_x1e3"].idxmin()]
        for m in mixtures:
            hit = sub[sub["label"] == m]
            if hit.empty:
                raise ValueError(f"mixture {m!r} has no row on dataset {d!r}")
            mse = float(hit["mse_x1e3"].iloc[0])
            ratio = mse / float(best["mse_x1e3"])
            rows.append({"dataset": d, "mixture": m, "mixture_mse_x1e3": mse, "best_single": best["label"],
                         "best_single_mse_x1e3": float(best["mse_x1e3"]), "ratio": ratio,
                         "holds": bool(ratio <= tolerance)})
    return pd.DataFrame(rows)


def claim_rows(claims: pd.DataFrame, *, tolerance: float = CLAIM_TOLERANCE, note: str = "") -> pd.DataFrame:
    """Scorecard claim rows (``report.claim_row``), one per (dataset, mixture) of
    :func:`mixture_claims`, the ratio and the best single learner in the note."""
    from .report import SCORECARD_COLUMNS, claim_row  # noqa: PLC0415

    out = []
    for r in claims.itertuples(index=False):
        name = NAMES.get(r.dataset, r.dataset)
        out.append(claim_row("all", "leaderboard (issue 24)",
                             f"{r.mixture} MSE <= {tolerance:g} x the best single learner (omkl's or River's) on {name}",
                             r.holds, note=(f"ratio {r.ratio:.4f}: mixture {r.mixture_mse_x1e3:.4g} vs "
                                            f"{r.best_single} {r.best_single_mse_x1e3:.4g} (MSE x 1e3)"
                                            + (f"; {note}" if note else ""))))
    return pd.DataFrame(out, columns=SCORECARD_COLUMNS)


def regret_table(mix: pd.DataFrame, claims: pd.DataFrame) -> pd.DataFrame:
    """The measured regret where the claim fails: per failing (dataset, mixture), the cumulative
    square loss of the mixture minus that of the best expert of its pool in hindsight, mean, min
    and max over seeds, and that regret per step (x 1e3, comparable with the MSE)."""
    fail = claims[~claims["holds"]]
    rows = []
    for r in fail.itertuples(index=False):
        sub = mix[(mix["dataset"] == r.dataset) & (mix["label"] == r.mixture)]
        rows.append({"dataset": r.dataset, "mixture": r.mixture, "ratio": r.ratio, "T": int(sub["T"].iloc[0]),
                     "regret_mean": float(sub["regret"].mean()), "regret_min": float(sub["regret"].min()),
                     "regret_max": float(sub["regret"].max()),
                     "regret_per_step_x1e3": float(sub["regret"].mean() / sub["T"].iloc[0] * 1e3),
                     "best_expert (mode over seeds)": sub["best_expert"].mode().iloc[0]})
    return pd.DataFrame(rows, columns=["dataset", "mixture", "ratio", "T", "regret_mean", "regret_min", "regret_max",
                                       "regret_per_step_x1e3", "best_expert (mode over seeds)"])


def timing_table(singles: pd.DataFrame, mix: pd.DataFrame) -> pd.DataFrame:
    """CPU seconds (``time.process_time`` of the worker, one BLAS thread) of every row, per
    dataset: ``cpu_s_per_run`` (mean over its runs; a cached run reports the run that filled the
    cache), ``cpu_s_per_1000_steps``, and for a mixture row ``cpu_s_per_run_incl_experts``: its
    aggregation plus one run of every expert of its pool (for a single learner: its run)."""
    s = singles.groupby(["dataset", "label"], sort=False).agg(T=("T", "first"), cpu=("cpu_seconds", "mean"))
    s = s.reset_index()
    s["cpu_incl"] = s["cpu"]
    parts = [s]
    if len(mix):
        m = mix.groupby(["dataset", "label"], sort=False).agg(T=("T", "first"), cpu=("cpu_seconds", "mean"))
        m = m.reset_index()
        pool_cpu = {}
        for d in m["dataset"].unique():
            sub = s[s["dataset"] == d]
            pool = pool_labels(list(sub["label"]))
            pool_cpu[d] = float(sub[sub["label"].isin(pool)]["cpu"].sum())
        m["cpu_incl"] = m["cpu"] + m["dataset"].map(pool_cpu)
        parts.append(m)
    t = pd.concat(parts, ignore_index=True)
    t["family"] = t["label"].map(family)
    return pd.DataFrame({"dataset": t["dataset"], "family": t["family"], "label": t["label"], "T": t["T"],
                         "cpu_s_per_run": t["cpu"], "cpu_s_per_1000_steps": 1e3 * t["cpu"] / t["T"],
                         "cpu_s_per_run_incl_experts": t["cpu_incl"]})
