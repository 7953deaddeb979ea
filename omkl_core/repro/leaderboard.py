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
    (``from_river``: nothing learned yet); the leaderboard scores it there by the fallback f_t (the
    midpoint of the bounds at t = 1, the running mean of past labels after): the rule of the
    mixture before issue 41, **pinned here** (:func:`_aggregate_inputs`, then ``aggregate`` of the
    substituted forecasts) so that the published leaderboard stays; ``Mixture`` itself now lets an
    abstaining expert sleep (issue 41), which moves these rows slightly.

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
    Every single-learner run is one task of the sweep's task map (:func:`run_singles` ->
    :func:`omkl_core.sweep.map_tasks`, the project's one pool: serial, processes or a Dask cluster,
    as :func:`omkl_core.repro.runner.executor_kwargs` says; longest first), timed by
    ``time.process_time`` in its worker (one BLAS thread; a worker process first runs every omkl
    row on 8 steps, so that loading the compiled kernels is charged to no row), its forecasts
    cached in the sweep's :class:`omkl_core.sweep.Store` (arrays exactly, in ``.npz``; keyed like
    the sweep's cells: code version, data hash, learner, parameters, seed; River's cells by
    River's version and the interop source), so a re-run recomputes only what changed. Times
    are in the separate :func:`timing_table` (a number table carries no time: issue 22).

The notebook's tables
    :func:`run` does the whole leaderboard (runs, tables, claims, scorecard rows) and saves
    every table; ``notebooks/p_all_leaderboard.ipynb`` calls it and draws :func:`plot_mean_ranks`.
"""
from __future__ import annotations

import hashlib
import json
import math
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from .. import presets, registry, sweep
from ..aggregation import BOA, EWA, AggregatingAlgorithm, MLPoly, MLProd
from ..mixture import aggregate, first_fallback
from ..mkl import expert_predictions
from ..protocol import abstention_fallbacks, predict_learn, run_online
from ..sweep import code_version, data_hash, make_learner, map_tasks
from . import report, runner, style
from .regret_tables import oracle_table as _oracles
from .report import SCORECARD_COLUMNS, claim_row

__all__ = ["NAMES", "DICTS", "VAW_ROWS", "RIVER_POOL", "METAS", "CLAIM_TOLERANCE", "Entry", "Leaderboard",
           "entries", "family", "order", "pool_labels", "run_singles", "mixture_runs", "run",
           "ewa_regressor", "summary", "mixture_claims", "claim_rows", "regret_table", "timing_table",
           "wide_table", "best_table", "best_lines", "paper_claims", "cost_table", "plot_mean_ranks",
           "judged_lines", "paper_claim_lines"]

#: Display names of the datasets: a live view of the one dataset table (``presets.DATASETS``, each
#: entry's ``label``), so a dataset added there has its name here.
NAMES = presets.DATASET_LABELS
#: The two kernel dictionaries: paper 000's 76 kernels, paper 003's 41 Gaussian kernels.
DICTS = {"76": registry.paper000.dictionary(), "41": registry.paper003.dictionary()}
#: Paper 000's VAW-family rows of the leaderboard, in its row order (classes and presets:
#: ``registry.paper000.vaw_rows``; VAW2 (trunc) is VAW2's meta on truncated forecasts, left out).
VAW_ROWS = ("VAW2", "VAW-EWA", "VAW-Aggr", "VAW-ML-Prod", "VAW-ML-Poly", "VAW-BOA")
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
    text = registry.paper000.vaw_rows("text")                         # label -> (class name, preset)
    vaw = {label: text[label] for label in VAW_ROWS}
    rf = {label: row for label, row in registry.paper003.rows(T).items() if label != "OMKR"}
    out = []
    for tag, dic in DICTS.items():
        for label, (cls, params) in vaw.items():                                 # paper 000 section 4
            out.append(Entry(f"{label} [{tag}]", "omkl", cls, {**params, "dictionary": dic}))
        for label, (cls, params) in rf.items():                                  # paper 003 section 5
            out.append(Entry(f"{label} [{tag}]", "omkl", cls, {**params, "dictionary": dic}))
    out.append(Entry("OMKR [41]", "omkl", "OMKR", p003["OMKR"], seeded=False))
    for tag, dic in DICTS.items():                                               # paper 002 floors
        out.append(Entry(f"floor: ridge experts + VAW [{tag}]", "omkl", "VAW2",
                         {**p000["VAW2"], "dictionary": dic, "ridge": True}))
    out.append(Entry("floor: OnlineRidge (linear)", "omkl", "OnlineRidge", {"a": 1.0, "fit_intercept": True},
                     seeded=False))
    if river:
        from ..interop.river import RIVER_BASELINES  # noqa: PLC0415  # lazy: River is an optional extra

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


_WARM = []     # a worker process warms up once (see _warm_up)


def _warm_up() -> None:
    """Once per process: run every omkl row on 8 steps, so that loading the compiled kernels
    (Numba's on-disk cache, once per process) is charged to no row's CPU time."""
    if _WARM:
        return
    _WARM.append(True)
    X, y = registry.load_dataset("airfoil", 8)
    for e in entries(8, river=False):
        _forecast(e.kind, e.name, e.params, 0, X, y)


def _forecast(kind: str, name: str, params: dict, seed: int, X, y):
    if kind == "omkl":
        model = make_learner(registry.learners()[name], params, seed)
        return run_online(model, X, y).predictions, np.zeros(len(y), dtype=bool)
    from ..interop.river import river_forecasts  # noqa: PLC0415  # lazy: River is an optional extra

    r = river_forecasts(name, X, y, seed)
    return r["predictions"], r["abstained"]


def forecast_task(task: dict, X, y) -> dict:
    """One single-learner run (a task of :func:`omkl_core.sweep.map_tasks`): ``task`` has ``kind``,
    ``name``, ``params``, ``seed`` (and ``dataset``, ``label``); returns its forecasts, where it
    abstained, and its wall and process CPU seconds."""
    _warm_up()
    t0, c0 = time.perf_counter(), time.process_time()
    preds, abstained = _forecast(task["kind"], task["name"], task["params"], task["seed"], X, y)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"predictions": np.asarray(preds, dtype=np.float64), "abstained": np.asarray(abstained, dtype=bool),
            "seconds": float(seconds), "cpu_seconds": float(cpu)}


#: The classes of paper 000's VAW family: their rows on one dictionary and seed (the ridge floor
#: ``VAW2(ridge=True)`` included) share one expert layer (:func:`expert_group_task`).
VAW_FAMILY = ("VAW2", "VAWEWA", "VAWAggr", "VAWMLProd", "VAWMLPoly", "VAWBOA")


def _expert_layer(model) -> tuple:
    """What a VAW-family learner's expert layer depends on (its rows with equal values share it)."""
    return (model.m, float(model.lam), json.dumps(model.dictionary), model.feature_map, model.backend)


def expert_group_task(task: dict, X, y) -> dict:
    """The VAW-family rows of one dictionary and seed from one expert-layer pass (a task of
    :func:`omkl_core.sweep.map_tasks`): ``task["rows"]`` lists ``{"label", "name", "params"}``, every
    one a class of :data:`VAW_FAMILY` with the same expert layer. The experts' VAW *and* online-ridge
    forecasts come from one pass (:func:`omkl_core.mkl.expert_predictions` with ``both=True``: eqs.
    (9)-(10), each bit for bit the array of a learner with ``ridge=False`` / ``ridge=True``), then each
    row's own meta-learner (``meta_`` of a fresh learner, as its ``run`` does) runs on the one it
    needs: each row's forecasts are those of ``run_online`` on the row's learner, bit for bit
    (tests/test_leaderboard.py). Returns ``{label: forecast_task's dict}``; a row's CPU and wall
    seconds are the shared expert layer's plus its own meta-learner's (what a lone run costs)."""
    _warm_up()
    models = [make_learner(registry.learners()[r["name"]], r["params"], task["seed"]) for r in task["rows"]]
    layer = {_expert_layer(mdl) for mdl in models}
    if len(layer) != 1:
        raise ValueError(f"the rows of an expert group must share one expert layer, got {sorted(layer)}")
    first = models[0]
    t0, c0 = time.perf_counter(), time.process_time()
    Zv, Zr = expert_predictions(X, y, m=first.m, lam=first.lam, repetitions=1, seed=first.seed,
                                dictionary=first.dictionary, feature_map=first.feature_map, backend=first.backend,
                                both=True)
    shared_s, shared_cpu = time.perf_counter() - t0, time.process_time() - c0
    out = {}
    for row, mdl in zip(task["rows"], models):
        t0, c0 = time.perf_counter(), time.process_time()
        preds = predict_learn(mdl.meta_, (Zr if mdl.ridge else Zv)[0], y)[0]
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        out[row["label"]] = {"predictions": np.asarray(preds, dtype=np.float64),
                             "abstained": np.zeros(len(y), dtype=bool),
                             "seconds": float(shared_s + seconds), "cpu_seconds": float(shared_cpu + cpu)}
    return out


#: Rough CPU cost per step of a row relative to VAW2, to start the long tasks first.
_COST = {"OMKR": 8.0, "River ARF(10)": 6.0, "River AMF(10)": 6.0, "River KNNRegressor(5)": 3.0,
         "River HoeffdingAdaptiveTree": 1.5, "SFGMKL": 0.5, "SFGMKLR": 0.5, "OnlineRidge": 0.1}


def run_singles(datasets, seeds, *, max_steps=None, river: bool = True, cache_dir=None, progress: bool = True,
                **executor):
    """Run every single-learner row of the leaderboard once per seed (once if deterministic),
    as tasks of :func:`omkl_core.sweep.map_tasks` (``executor`` keywords: ``executor``, ``client``,
    ``max_workers``; default :func:`omkl_core.repro.runner.executor_kwargs`).

    Returns ``(rows, forecasts)``: ``rows`` one row per run (``dataset, label, seed, T, mse,
    seconds, cpu_seconds, cached``; a deterministic row's one run has seed -1) and
    ``forecasts[(dataset, label, seed)] = (predictions, abstained)`` for every seed (a
    deterministic row's one run under each seed)."""
    executor = executor or runner.executor_kwargs()
    data = {d: registry.load_dataset(d, max_steps) for d in datasets}
    singles, groups = [], {}          # groups: (dataset, expert layer, seed) -> the VAW-family rows sharing it
    position = {}                     # a row's place in the task list (the rows come back in that order)
    for d, (X, y) in data.items():
        dh = data_hash(X, y)
        for e in entries(len(y), river=river):
            for s in (seeds if e.seeded else [-1]):
                task = {"dataset": d, "label": e.label, "kind": e.kind, "name": e.name, "params": e.params,
                        "seed": max(s, 0), "run_seed": s}
                position[(d, e.label, s)] = len(position)
                if e.kind == "omkl" and e.name in VAW_FAMILY:
                    layer = (e.params["m"], e.params["lam"], json.dumps(e.params["dictionary"]))
                    groups.setdefault((d, layer, s), []).append((task, _key(e, s, dh)))
                else:
                    singles.append((task, _key(e, s, dh), len(y) * _COST.get(e.name, 1.0)))
    results = map_tasks(forecast_task, [t for t, _, _ in singles], data=data, keys=[k for _, k, _ in singles],
                        cost=[c for _, _, c in singles], cache_dir=cache_dir, progress=progress,
                        desc="leaderboard runs", unit="run", **executor)
    done = [(task, r, hit) for (task, _, _), r, hit in zip(singles, results, results.cached)]
    if groups:
        gtasks = [{"dataset": d, "seed": members[0][0]["seed"],
                   "rows": [{"label": t["label"], "name": t["name"], "params": t["params"]} for t, _ in members]}
                  for (d, _, _), members in groups.items()]
        gkeys = [hashlib.sha256("|".join(k for _, k in members).encode()).hexdigest() for members in groups.values()]
        gres = map_tasks(expert_group_task, gtasks, data=data, keys=gkeys,
                         cost=[len(data[g["dataset"]][1]) * (1 + 0.1 * len(g["rows"])) for g in gtasks],
                         cache_dir=cache_dir, progress=progress, desc="leaderboard: VAW-family expert layers",
                         unit="layer", **executor)
        for members, r, hit in zip(groups.values(), gres, gres.cached):
            done += [(task, r[task["label"]], hit) for task, _ in members]
    rows, forecasts = [], {}
    for task, r, hit in sorted(done, key=lambda item: position[(item[0]["dataset"], item[0]["label"],
                                                                 item[0]["run_seed"])]):
        d, s = task["dataset"], task["run_seed"]
        y = data[d][1]
        rows.append({"dataset": d, "label": task["label"], "seed": s, "T": len(y),
                     "mse": float(np.mean((r["predictions"] - y) ** 2)), "seconds": r["seconds"],
                     "cpu_seconds": r["cpu_seconds"], "cached": hit})
        for s2 in (seeds if s == -1 else [s]):
            forecasts[(d, task["label"], s2)] = (r["predictions"], r["abstained"])
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


def mixture_runs(forecasts, datasets, seeds, *, max_steps=None, metas=None, river_ewa: bool = True, keep=None):
    """One row per (dataset, mixture, seed): the mixtures of :data:`METAS` and River's
    EWARegressor over the pool's stored forecasts of that seed.

    Columns ``dataset, label, seed, T, mse, regret`` (cumulative square loss of the row minus
    the best pool expert's in hindsight, the experts as the meta-learner saw them: fallback at
    their abstentions), ``best_expert``, ``cpu_seconds`` (the aggregation alone,
    ``time.process_time``; :func:`timing_table` adds the experts' runs), ``n_experts``. ``keep``: a dict
    that receives, per dataset, ``(Z (seeds, T, N) as the meta-learners saw it, y, {label: forecasts
    (seeds, T)})`` for :func:`oracle_table`."""
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
                p = aggregate(Zsub, y, meta=meta)         # the pinned rule: abstentions = the running mean
                runs.append((mixture_label(name), p, time.process_time() - c0))
            if river_ewa:
                c0 = time.process_time()
                p = ewa_regressor(Zsub, y)
                runs.append((EWA_REGRESSOR, p, time.process_time() - c0))
            if keep is not None:
                Zk, yk, Pk = keep.setdefault(d, ([], y, {}))
                Zk.append(Zsub)
                for label, p, _cpu in runs:
                    Pk.setdefault(label, []).append(p)
            for label, p, cpu in runs:
                loss = float(((p - y) ** 2).sum())
                rows.append({"dataset": d, "label": label, "seed": s, "T": len(y), "mse": loss / len(y),
                             "regret": loss - float(expert_loss[jbest]), "best_expert": pool[jbest],
                             "cpu_seconds": float(cpu), "n_experts": len(pool)})
    return pd.DataFrame(rows)


def oracle_table(kept, mode: str) -> pd.DataFrame:
    """Per dataset, the pool's oracles in hindsight -- best expert, best convex and best linear
    combination, best paths with 1-5 shifts (:mod:`omkl_core.oracles`, R opera's ``oracle()``) on
    the forecasts as the mixtures saw them -- beside every mixture row (MSE x 10^3, mean and sd
    over the seeds); ``kept`` is what :func:`mixture_runs` filled its ``keep`` with (issue 34)."""
    parts = [_oracles(np.stack(Zs), y, {label: np.stack(P) for label, P in preds.items()}, bounds=None,
                      dataset=NAMES[d]).reset_index() for d, (Zs, y, preds) in kept.items()]
    out = pd.concat(parts, ignore_index=True)
    return out[["dataset", *[c for c in out.columns if c != "dataset"]]].assign(mode=mode)


def _aggregate_inputs(Z, A, y, metas) -> np.ndarray:
    """Z with the abstentions replaced by the fallback f_t (what every meta-learner and River's
    EWARegressor see): the one abstention rule of :mod:`omkl_core.protocol` -- the running mean of
    past labels, the midpoint of the bounds at t = 1."""
    first = {first_fallback(m) for m in metas.values()}
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
    out = []
    for r in claims.itertuples(index=False):
        name = NAMES.get(r.dataset, r.dataset)
        out.append(claim_row("all", "leaderboard (issue 24)",
                             f"{r.mixture} MSE <= {tolerance:g} x the best single learner (omkl's or River's) on {name}",
                             r.holds, note=(f"ratio {r.ratio:.4f}: mixture {r.mixture_mse_x1e3:.4g} vs "
                                            f"{r.best_single} {r.best_single_mse_x1e3:.4g} (MSE x 1e3)"
                                            + (f"; {note}" if note else "")), kind="project"))
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


# ------------------------------------------------------------------- the notebook's tables
def _cell_text(r) -> str:
    if r.n_runs > 1:
        return f"{r.mse_x1e3:.2f} ± {r.sd_x1e3:.2f}"
    return f"{r.mse_x1e3:.2f} (1 run)"


def wide_table(long: pd.DataFrame, datasets) -> pd.DataFrame:
    """The leaderboard as printed: one row per learner (:func:`order`), its family, then per dataset
    "mean ± sd" of MSE x 1e3 over the seeds ("(1 run)" for a deterministic row)."""
    cols = [NAMES[d] for d in datasets]
    wide = (long.assign(cell=[_cell_text(r) for r in long.itertuples()], ds=long["dataset"].map(NAMES))
            .pivot(index="label", columns="ds", values="cell").loc[order(long["label"].unique()), cols])
    wide.insert(0, "family", [family(lab) for lab in wide.index])
    return wide.reset_index().rename(columns={"label": "learner"})


def best_table(long: pd.DataFrame, datasets, mode: str) -> pd.DataFrame:
    """Per dataset: the best omkl multi-kernel learner (papers 000 and 003), the best River
    regressor, the best floor, and the ratios River / omkl and floor / omkl of their MSE."""
    best = []
    for d in datasets:
        sub = long[long["dataset"] == d]
        o = sub[sub["family"].isin(["paper 000", "paper 003"])].sort_values("mse_x1e3").iloc[0]
        fl = sub[sub["family"] == "floor (paper 002)"].sort_values("mse_x1e3").iloc[0]
        rv = sub[sub["family"] == "River"].sort_values("mse_x1e3")
        r = rv.iloc[0] if len(rv) else None
        best.append({"dataset": NAMES[d], "best omkl MKL learner": o["label"], "omkl MSE x1e3": o["mse_x1e3"],
                     "best River": None if r is None else r["label"],
                     "River MSE x1e3": np.nan if r is None else r["mse_x1e3"],
                     "ratio River / omkl": np.nan if r is None else r["mse_x1e3"] / o["mse_x1e3"],
                     "best floor": fl["label"], "floor / omkl": fl["mse_x1e3"] / o["mse_x1e3"], "mode": mode})
    return pd.DataFrame(best)


def best_lines(best: pd.DataFrame, mode: str, steps: str, seeds) -> str:
    """The best-learner table in words (Markdown bullets)."""
    lines = []
    for b in best.itertuples(index=False):
        if pd.isna(b[4]):
            lines.append(f"* **{b[0]}**: best omkl learner {b[1]} ({b[2]:.2f}); River not run.")
            continue
        who = "omkl" if b[2] < b[4] else "River"
        lines.append(f"* **{b[0]}**: best omkl learner **{b[1]}** ({b[2]:.2f}), best River learner **{b[3]}** "
                     f"({b[4]:.2f}); ratio River / omkl = {b[5]:.2f} → **{who}** is lower"
                     f" (best floor {b[6]}: {b[7]:.2f}× the best omkl MSE).")
    wins = int((best["ratio River / omkl"] > 1).sum())
    lines.append(f"\nomkl's best multi-kernel learner beats River's best on {wins} of {len(best)} datasets "
                 f"({mode} mode, {steps}, seeds {seeds}).")
    return "\n".join(lines)


#: The datasets of each paper's own tables (paper 000 Table 2; paper 003 Tables 1-4), by display label.
PAPER_DATA = {"000": [NAMES[d] for d in presets.paper000.DATASETS], "003": [NAMES[d] for d in presets.paper003.DATASETS]}


def _claim(paper, text, per_dataset, detail, mode):
    own = [d for d in PAPER_DATA[paper] if d in per_dataset]
    fails = [k for k, v in per_dataset.items() if not v]
    return {"paper": paper, "claim": text,
            "holds on the paper datasets": bool(own) and all(per_dataset[d] for d in own),
            "paper datasets": f"{sum(per_dataset[d] for d in own)}/{len(own)}",
            "holds on all datasets": bool(all(per_dataset.values())),
            "all datasets": f"{sum(per_dataset.values())}/{len(per_dataset)}",
            "fails on": ", ".join(fails) if fails else "-", "detail": detail, "mode": mode}


def paper_claims(long: pd.DataFrame, cpu: pd.DataFrame, datasets, mode: str):
    """Which conclusions of papers 000 (section 4) and 003 (section 5) survive the common protocol,
    judged on the paper's own datasets and on all of them -> ``(claims, speed_claims)`` (the speed
    claims are read off a clock: a timing table of their own). ``cpu``: CPU s per 1,000 steps,
    learner x dataset."""
    cols = [NAMES[d] for d in datasets]
    M = long.assign(ds=long["dataset"].map(NAMES)).pivot(index="label", columns="ds", values="mse_x1e3")[cols]
    C = cpu
    vaw = list(VAW_ROWS)
    claims, speed = [], []
    for tag in DICTS:
        others = [f"{k} [{tag}]" for k in vaw[1:]] + [f"Raker [{tag}]", f"OMKL-GF [{tag}]"]
        v2 = M.loc[f"VAW2 [{tag}]"]
        best_other, arg_other = M.loc[others].min(), M.loc[others].idxmin()
        claims.append(_claim("000", f"VAW2 has the lowest MSE of the VAW family, Raker and OMKL-GF on every dataset [{tag} kernels]",
                             {d: v2[d] < best_other[d] for d in cols},
                             "; ".join(f"{d}: VAW2 {v2[d]:.2f} vs {arg_other[d]} {best_other[d]:.2f}" for d in cols), mode))
        ewa = [f"VAW-EWA [{tag}]", f"VAW-Aggr [{tag}]", f"Raker [{tag}]"]
        claims.append(_claim("000", f"VAW2 beats the EWA-type aggregators (VAW-EWA, VAW-Aggr, Raker = OGD-EWA) on every dataset [{tag} kernels]",
                             {d: v2[d] < M.loc[ewa, d].min() for d in cols},
                             "; ".join(f"{d}: VAW2 {v2[d]:.2f} vs best EWA-type {M.loc[ewa, d].min():.2f}" for d in cols),
                             mode))
        floor = M.loc[f"floor: ridge experts + VAW [{tag}]"]
        claims.append(_claim("000", "(implied by the design, not a Table 2 row) VAW experts beat online-ridge experts "
                             f"on the same features: VAW2 < VAW2 ridge=True [{tag} kernels]",
                             {d: v2[d] < floor[d] for d in cols},
                             "; ".join(f"{d}: {v2[d]:.2f} vs {floor[d]:.2f}" for d in cols), mode))
    for tag in DICTS:
        base = [f"Raker [{tag}]", f"OMKL-GF [{tag}]"] + (["OMKR [41]"] if tag == "41" else [])
        sfg = [f"SFG-MKL [{tag}]", f"SFG-MKL-R [{tag}]"]
        names = ", ".join(b.split(" [")[0] for b in base)
        claims.append(_claim("003", f"SFG-MKL and SFG-MKL-R both have lower MSE than {names} on every dataset [{tag} kernels]",
                             {d: M.loc[sfg, d].max() < M.loc[base, d].min() for d in cols},
                             "; ".join(f"{d}: SFG {M.loc[sfg[0], d]:.2f}/{M.loc[sfg[1], d]:.2f} vs best baseline "
                                       f"{M.loc[base, d].min():.2f}" for d in cols), mode))
        speed.append(_claim("003", f"SFG-MKL runs faster (CPU s / 1000 steps) than {names} on every dataset [{tag} kernels]",
                            {d: C.loc[f"SFG-MKL [{tag}]", d] < C.loc[base, d].min() for d in cols},
                            "; ".join(f"{d}: SFG-MKL {C.loc[f'SFG-MKL [{tag}]', d]:.3f} vs fastest baseline "
                                      f"{C.loc[base, d].min():.3f}" for d in cols), mode))
    return pd.DataFrame(claims), pd.DataFrame(speed)


def cost_table(tidy: pd.DataFrame, mode: str) -> pd.DataFrame:
    """CPU seconds per family (runs, CPU, steps, CPU per 1,000 steps); a mixture's is its aggregation."""
    cost = (tidy.assign(steps=tidy["T"], family=tidy["label"].map(family)).groupby("family")
            .agg(cells=("mse", "size"), cpu_seconds=("cpu_seconds", "sum"), steps=("steps", "sum")))
    cost["cpu_s_per_1000_steps"] = cost["cpu_seconds"] / cost["steps"] * 1e3
    return cost.reset_index().assign(mode=mode)


@dataclass
class Leaderboard:
    """What :func:`run` computed (every table is also saved under ``results/tables/``)."""

    mode: str
    seeds: list
    datasets: list
    steps: str
    singles: pd.DataFrame
    mix: pd.DataFrame
    long: pd.DataFrame
    wide: pd.DataFrame
    cpu: pd.DataFrame
    ranks: pd.Series
    rank_table: pd.DataFrame
    best: pd.DataFrame
    claims_all: pd.DataFrame
    judged: pd.DataFrame
    ratio: pd.DataFrame
    regret: pd.DataFrame
    oracles: pd.DataFrame
    claims: pd.DataFrame
    cost: pd.DataFrame
    pool: list
    wall: dict


def run(datasets, seeds, *, max_steps=None, river: bool = True, mode: str = "full", cache_dir=None,
        progress: bool = True, **executor) -> Leaderboard:
    """The whole leaderboard: the single-learner runs (:func:`run_singles`, on the executor of
    ``executor`` or :func:`omkl_core.repro.runner.executor_kwargs`), the mixtures, every table
    (saved with :func:`omkl_core.repro.report.save_table`) and the scorecard's claim rows
    (section ``leaderboard_mixture``; judged nothing in quick mode)."""
    steps = "whole streams" if max_steps is None else f"first {max_steps} steps"
    cols = [NAMES[d] for d in datasets]
    t0 = time.perf_counter()
    singles, forecasts = run_singles(datasets, seeds, max_steps=max_steps, river=river, cache_dir=cache_dir,
                                     progress=progress, **executor)
    t1 = time.perf_counter()
    kept: dict = {}
    mix = mixture_runs(forecasts, datasets, seeds, max_steps=max_steps, river_ewa=river, keep=kept)
    wall = {"singles": t1 - t0, "mixtures": time.perf_counter() - t1}
    pool = pool_labels(order(singles["label"].unique()))
    T_of = {d: len(registry.load_dataset(d, max_steps)[1]) for d in datasets}

    tidy = pd.concat([singles, mix], ignore_index=True)
    summ = summary(tidy)
    long = summ.assign(T=summ["dataset"].map(T_of), mode=mode)
    report.save_table(long, "leaderboard_long")
    wide = wide_table(long, datasets)
    report.save_table(wide, "leaderboard")
    timing = timing_table(singles, mix).assign(mode=mode)
    report.save_table(timing, "leaderboard_timing", floatfmt=".4g")
    cpu = timing.assign(ds=timing["dataset"].map(NAMES)).pivot(index="label", columns="ds",
                                                               values="cpu_s_per_1000_steps").loc[order(long["label"].unique()), cols]
    report.save_table(cpu.reset_index().rename(columns={"label": "learner"}), "leaderboard_timing_per_1000_steps",
                      floatfmt=".3g")

    ranks = sweep.mean_ranks(tidy.assign(error=""))
    rank_table = ranks.rename_axis("learner").reset_index().assign(family=lambda f: f["learner"].map(family), mode=mode)
    report.save_table(rank_table, "leaderboard_mean_ranks", floatfmt=".2f")

    best = best_table(long, datasets, mode)
    report.save_table(best, "leaderboard_best_omkl_vs_river")

    claims_all = mixture_claims(summ)
    claims_all = claims_all.assign(dataset=claims_all["dataset"].map(NAMES), mode=mode)
    report.save_table(claims_all, "leaderboard_mixture_vs_best_single")
    judged = mixture_claims(summ, mixtures=[mixture_label("BOA"), mixture_label("ML-Poly")])
    sc = claim_rows(judged, note=f"{mode} mode, {steps}, seeds {seeds}, pool of {len(pool)} experts")
    if mode == "quick":
        sc["verdict"] = report.NOT_COMPUTED      # a quick run judges nothing (small horizons)
    report.add_scorecard_rows("leaderboard_mixture", sc)
    regret = regret_table(mix, mixture_claims(summ)).assign(mode=mode)
    regret["dataset"] = regret["dataset"].map(NAMES)
    report.save_table(regret, "leaderboard_mixture_regret", floatfmt=".4g")
    ratio = claims_all.pivot(index="mixture", columns="dataset", values="ratio")[cols]
    oracles = oracle_table(kept, mode)
    report.save_table(oracles, "leaderboard_mixture_oracles")

    claims, speed = paper_claims(long, cpu, datasets, mode)
    report.save_table(claims, "leaderboard_paper_claims")
    report.save_table(speed, "leaderboard_paper_claims_timing")   # apart from the hashed number tables
    claims = pd.concat([claims, speed], ignore_index=True)      # all of them, for the reader
    cost = cost_table(tidy, mode)
    report.save_table(cost, "leaderboard_cost_timing", floatfmt=".4g")
    return Leaderboard(mode=mode, seeds=list(seeds), datasets=list(datasets), steps=steps, singles=singles, mix=mix,
                       long=long, wide=wide, cpu=cpu, ranks=ranks, rank_table=rank_table, best=best,
                       claims_all=claims_all, judged=judged, ratio=ratio, regret=regret, oracles=oracles, claims=claims, cost=cost,
                       pool=pool, wall=wall)


# ------------------------------------------------------------------------------ the figure
#: Legend names of the families (words, no issue numbers).
FAMILY_LEGEND = {"paper 000": "VAW family (paper 000)", "paper 003": "graph-aided learners (paper 003)",
                 "floor (paper 002)": "online-ridge floor (paper 002)", "River": "River regressors",
                 "mixture (issue 24)": "mixtures of all the learners"}


def plot_mean_ranks(lb: Leaderboard):
    """Horizontal bars of the mean rank of every learner over the datasets, coloured by family
    (legend outside the bars); returns the figure."""
    import matplotlib.pyplot as plt  # noqa: PLC0415
    from matplotlib.patches import Patch  # noqa: PLC0415


    # one colour per family (a VAW-family bar has VAW2's colour, a graph-aided one OMKL-GF's, ...)
    colours = dict(zip(FAMILY_LEGEND, (style.color("VAW2"), style.color("OMKL-GF"), style.color("running mean"),
                                       "#D55E00", style.color("Mixture"))))
    ranks = lb.ranks
    fig, ax = plt.subplots(figsize=(7.5, 0.26 * len(ranks) + 1.2))
    ax.barh(range(len(ranks)), ranks.to_numpy(), color=[colours[family(lab)] for lab in ranks.index])
    ax.set_yticks(range(len(ranks)), ranks.index, fontsize=8)
    ax.set_ylabel("learner")
    ax.invert_yaxis()
    ax.set_xlabel(f"mean rank of the seed-mean MSE over {len(lb.datasets)} datasets (1 = lowest MSE)")
    ax.set_title(f"Leaderboard, {lb.mode} mode: seeds {lb.seeds}, {lb.steps}\n"
                 "[76] / [41]: the learner's kernel dictionary; [pool]: a mixture over all the learners", fontsize=9)
    ax.legend(handles=[Patch(color=c, label=FAMILY_LEGEND[fam]) for fam, c in colours.items()], fontsize=8,
              loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, title="family")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    return fig


# ------------------------------------------------------------------------------ in words
def judged_lines(judged: pd.DataFrame) -> str:
    """The judged mixture claims in words (Markdown bullets), one per (dataset, mixture)."""
    return "\n".join(f"* **{NAMES[r.dataset]}**: {r.mixture} {r.mixture_mse_x1e3:.2f} vs best single "
                     f"**{r.best_single}** {r.best_single_mse_x1e3:.2f}: ratio **{r.ratio:.3f}** → "
                     f"{'holds' if r.holds else 'FAILS'}" for r in judged.itertuples(index=False))


def paper_claim_lines(claims: pd.DataFrame) -> str:
    """The papers' claims under the common protocol in words (Markdown bullets)."""
    return "\n".join(f"* **{'HOLDS' if r['holds on the paper datasets'] else 'FAILS'}** on the paper's datasets "
                     f"({r['paper datasets']}; all datasets: {r['all datasets']}) — paper {r['paper']}: {r['claim']}"
                     + ("" if r["fails on"] == "-" else f"; fails on {r['fails on']}") for r in claims.to_dict("records"))
