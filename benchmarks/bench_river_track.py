"""The meta-learner study behind the default Mixture, and River's regression track (issue 41).

Two parts, one pool of experts (the issue's): VAW2, OnlineRidge with an intercept, and River's
LinearRegression, KNNRegressor(5), HoeffdingAdaptiveTreeRegressor, ARFRegressor(10) and AMRules,
each behind its own online scalers (features standardised by the rows seen -- rows scaled to norm
<= 1 for VAW2, eq. (34) -- and the label centred and scaled by the labels seen, forecasts mapped
back to the target's units), plus the running mean (``omkl_core.RunningMean``), which every omkl
mixture here holds.

1. The study (``--part study``): meta-learners aggregating that pool on the streams the project
   ships or generates, in raw units -- the five bundled UCI streams (``normalise=False``), AR(4)
   (eq. 32, its first 2000 steps, the registry's seed) and a near-unpredictable stream generated here (i.i.d. Student-t
   "daily returns", T = 1250, seed 0), each whole and cut to its first 150 steps (short streams).
   Variants: the rule (ML-Poly, BOA v1.2.0 / v1.2.2, ML-Prod, opera's calibrated EWA), the loss
   scale the rule is handed (the target's units; labels scaled online into [0, 1] as a
   ``TargetScaler`` around the mixture does, forecasts truncated, eq. (28); labels standardised
   online), the gradient trick (EWA on the true square loss, P000 eq. (29), at the theory's rate
   and at River's 0.5 -- no guarantee), and a mixture of meta-learners (ML-Poly over the pool and
   the aggregates of ML-Poly, BOA and River-rate EWA). The default is chosen on these streams
   only, by the geometric mean of RMSE / RMSE(best expert) and the worst RMSE / RMSE(running
   mean), among the variants whose bound holds in the target's units.
2. River's regression track (``--part track``): River's streams (ChickWeights, TrumpApproval,
   Friedman seed 42 (7000 steps), AirlinePassengers, WaterFlow, Planes2D, Mv, FriedmanDrift; the
   synthetic ones seed 42, 5000 steps), River's protocol (progressive validation, RMSE in the
   target's units): River's ``TargetStandardScaler(StandardScaler() | EWARegressor(pool))``
   (default learning rate 0.5; the pool with River's running mean ``StatisticRegressor(Mean())``,
   and without it as in the issue), River's best single model of the pool run the same way, and
   the default ``Mixture`` over the same pool (``Mixture(pool, meta=default_meta())``).

Every number is one run of a deterministic stream (seeds fixed); expert forecasts are cached in
``--cache`` (default ``$TMPDIR/omkl_bench_river_track``) so the aggregation variants cost nothing
more. Results: ``benchmarks/results/meta_study.{md,csv}`` and ``river_track.{md,csv}``.

    PYTHONPATH=. python benchmarks/bench_river_track.py --part study
    PYTHONPATH=. python benchmarks/bench_river_track.py --part track
"""
from __future__ import annotations

import argparse
import csv
import math
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

import omkl_core as ok
from omkl_core import registry
from omkl_core.mixture import aggregate, default_pool
from omkl_core.protocol import fill_abstentions

sys.path.insert(0, str(Path(__file__).resolve().parent))

TRACK = ("ChickWeights", "TrumpApproval", "Friedman", "AirlinePassengers", "WaterFlow", "Planes2D", "Mv",
         "FriedmanDrift")
STUDY = ("airfoil", "concrete", "wine_white", "bias", "naval", "ar4", "iid_returns")
SHORT = 150
POOL = ("running mean", "VAW2", "OnlineRidge", "LinearRegression", "KNN(5)", "HAT", "ARF(10)", "AMRules")
RESULTS = Path(__file__).resolve().parent / "results"


# ----------------------------------------------------------------------------- streams
def iid_returns(T: int = 1250, seed: int = 0):
    """A near-unpredictable stream: i.i.d. Student-t(4) "daily returns" (scale 1 %, drift 0.03 %)
    with five features that carry no information (the previous five returns)."""
    rng = np.random.default_rng(seed)
    r = 0.0003 + 0.01 * rng.standard_t(4, size=T + 5) / math.sqrt(2.0)
    X = np.column_stack([r[4 - k:T + 4 - k] for k in range(5)])
    return X, r[5:]


def load(name: str):
    """(X, y) in raw units."""
    if name == "iid_returns":
        return iid_returns()
    if name in registry.dataset_names():            # the bundled streams and AR(4) (2000 steps), raw units
        return registry.load_dataset(name, 2000 if registry.dataset_info(name).generator else None, normalise=False)
    from bench_raw_streams import _river_rows, load_stream  # noqa: PLC0415
    from river import datasets  # noqa: PLC0415
    from river.datasets import synth  # noqa: PLC0415

    if name == "Friedman":
        rows = _river_rows(synth.Friedman(seed=42), 7000)
        keys = list(rows[0][0])
        return np.array([[float(x[k]) for k in keys] for x, _ in rows]), np.array([y for _, y in rows])
    if name == "WaterFlow":             # the timestamp as hours since the start, hour of day, day of week
        rows = _river_rows(datasets.WaterFlow())
        t0 = rows[0][0]["Time"]
        X = np.array([[(x["Time"] - t0).total_seconds() / 3600.0, x["Time"].hour, x["Time"].weekday()] for x, _ in rows])
        return X, np.array([y for _, y in rows])
    _, X, y = load_stream(name)
    return X, y


# ----------------------------------------------------------------------------- the pool
def river_models(seed: int = 0) -> dict:
    from river import forest, linear_model, neighbors, rules, tree  # noqa: PLC0415
    from river import utils as river_utils  # noqa: PLC0415

    return {"LinearRegression": linear_model.LinearRegression(),
            "KNN(5)": neighbors.KNNRegressor(n_neighbors=5, engine=neighbors.SWINN(
                dist_func=river_utils.math._euclidean_distance, seed=seed)),
            "HAT": tree.HoeffdingAdaptiveTreeRegressor(seed=seed),
            "ARF(10)": forest.ARFRegressor(n_models=10, seed=seed),
            "AMRules": rules.AMRules()}


def omkl_pool() -> dict:
    """The pool as omkl experts in the target's units (module docstring)."""
    from omkl_core.interop import from_river  # noqa: PLC0415  # lazy: River is an optional extra

    pool = dict(default_pool())          # running mean, VAW2, OnlineRidge as the default Mixture holds them
    for k, m in river_models().items():
        pool[k] = ok.TargetScaler(ok.StandardScaler() | from_river(m))
    return pool


def expert_forecasts(name: str, X, y, cache: Path):
    """Z (T, N) in the target's units (NaN where an expert abstains), in POOL order; cached."""
    f = cache / f"experts_{name}.npz"
    if f.exists():
        return np.load(f)["Z"]
    pool = omkl_pool()
    cols = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k in POOL:
            t0 = time.perf_counter()
            cols.append(np.asarray(pool[k].run(X, y), dtype=np.float64))
            print(f"  {name}: {k} {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    Z = np.column_stack(cols)
    np.savez(f, Z=Z)
    return Z


def river_side(name: str, X, y, cache: Path) -> dict:
    """River's protocol over the same pool: EWARegressor (with / without River's mean) and each single
    model, each as ``TargetStandardScaler(StandardScaler() | model)``; forecasts, cached."""
    f = cache / f"river_{name}.npz"
    if f.exists():
        return dict(np.load(f))
    from river import compose, dummy, ensemble, preprocessing, stats, stream  # noqa: PLC0415

    from omkl_core.interop import to_river  # noqa: PLC0415  # lazy: River is an optional extra

    def pool(mean: bool):
        out = {"VAW2": to_river(ok.StandardScaler(max_norm=1.0) | ok.VAW2()),
               "OnlineRidge": to_river(ok.OnlineRidge(fit_intercept=True)), **river_models()}
        if mean:
            out["running mean"] = dummy.StatisticRegressor(stats.Mean())
        return out

    def score(model):
        out = np.empty(len(y))
        for t, (x, yy) in enumerate(stream.iter_array(X, y)):
            p = model.predict_one(x)
            out[t] = 0.0 if p is None else p
            model.learn_one(x, yy)
        return out

    def wrap(m):
        return preprocessing.TargetStandardScaler(compose.Pipeline(preprocessing.StandardScaler(), m))

    res = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        res["EWA (pool + mean)"] = score(wrap(ensemble.EWARegressor(list(pool(True).values()))))
        res["EWA (pool)"] = score(wrap(ensemble.EWARegressor(list(pool(False).values()))))
        for k, m in pool(False).items():
            res[f"single {k}"] = score(wrap(m))
        print(f"  {name}: River side {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    np.savez(f, **res)
    return res


# ----------------------------------------------------------------------------- the variants
def _online_scale(y, kind: str):
    """(c_{t-1}, s_{t-1}) for every t: the statistics of the labels before step t (identity before any):
    ``minmax`` (lo, hi - lo), ``standard`` (mean, sd)."""
    T = len(y)
    c, s = np.zeros(T), np.ones(T)
    lo = hi = None
    n, mean, m2 = 0, 0.0, 0.0
    for t in range(T):
        if kind == "minmax" and lo is not None:
            c[t], s[t] = lo, (hi - lo) if hi > lo else 1.0
        if kind == "standard" and n:
            c[t], s[t] = mean, math.sqrt(m2 / n) if m2 > 0 else 1.0
        v = float(y[t])
        lo, hi = (v, v) if lo is None else (min(lo, v), max(hi, v))
        n += 1
        d = v - mean
        mean += d / n
        m2 += d * (v - mean)
    return c, s


def run_rule(rule, Z, A, y, scale: str = "target"):
    """The rule's forecasts in the target's units over Z (abstentions: sleeping experts, as the Mixture
    does), the rule handed the labels and forecasts in the target's units or scaled online by the
    labels before each step (``minmax``: into [0, 1]; ``standard``: standardised)."""
    if scale == "target":
        return aggregate(np.where(A, 0.0, Z), y, meta=rule, abstained=A)
    c, s = _online_scale(y, scale)
    Zs, ys = (Z - c[:, None]) / s[:, None], (y - c) / s
    return c + s * aggregate(np.where(A, 0.0, Zs), ys, meta=rule, abstained=A)


def ewa_true(Z, A, y, eta_of):
    """EWA on the true square loss (P000 eq. (29), no gradient trick) with eta_t = eta_of(t), over
    the forecasts in the target's units; a sleeping expert is charged the aggregate's loss."""
    T, N = Z.shape
    L = np.zeros(N)
    out = np.empty(T)
    for t in range(T):
        awake = ~A[t]
        if not awake.any():
            out[t] = 0.0 if t == 0 else float(np.mean(y[:t]))
        else:
            e = eta_of(t)
            w = np.where(awake, np.exp(-e * (L - L[awake].min())), 0.0)
            out[t] = float(w @ np.where(awake, Z[t], 0.0) / w.sum())
        L += np.where(awake, (np.where(awake, Z[t], 0.0) - y[t]) ** 2, (out[t] - y[t]) ** 2)
    return out


def variants(Z, A, y) -> dict:
    """label -> (forecasts, holds: whether the rule's bound is one in the target's units)."""
    _, sd = _online_scale(y, "standard")
    c, width = _online_scale(y, "minmax")
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out["ML-Poly, target units"] = (run_rule(ok.MLPoly(bounds=None), Z, A, y), True)
        out["BOA v1.2.0, target units"] = (run_rule(ok.BOA(bounds=None), Z, A, y), False)
        out["BOA v1.2.2, target units"] = (run_rule(ok.BOA(version="v122", bounds=None), Z, A, y), False)
        out["ML-Prod, target units"] = (run_rule(ok.MLProd(bounds=None), Z, A, y), False)
        out["calibrated EWA (opera), target units"] = (run_rule(ok.CalibratedEWA(bounds=None), Z, A, y), False)
        out["ML-Poly, labels in [0, 1] online, truncated"] = (run_rule(ok.MLPoly(), Z, A, y, "minmax"), False)
        out["BOA v1.2.0, labels in [0, 1] online, truncated"] = (run_rule(ok.BOA(), Z, A, y, "minmax"), False)
        out["ML-Poly, labels standardised online"] = (run_rule(ok.MLPoly(bounds=None), Z, A, y, "standard"), False)
        # the gradient trick off: EWA on the true loss, eq. (29), eta in the target's units
        out["EWA true loss, eta = 1/(2 range^2) (eq. 30's rate)"] = (
            ewa_true(Z, A, y, lambda t: 1.0 / (2.0 * width[t] ** 2)), False)
        out["EWA true loss, eta = 0.5/sd^2 (River's rate)"] = (ewa_true(Z, A, y, lambda t: 0.5 / sd[t] ** 2), False)
        # a mixture of meta-learners: ML-Poly over the pool and three aggregates of it
        subs = np.column_stack([out["ML-Poly, target units"][0], out["BOA v1.2.0, target units"][0],
                                out["EWA true loss, eta = 0.5/sd^2 (River's rate)"][0]])
        Z2 = np.column_stack([np.where(A, 0.0, Z), subs])
        A2 = np.column_stack([A, np.zeros(subs.shape, dtype=bool)])
        out["ML-Poly over the pool + 3 meta-learners"] = (run_rule(ok.MLPoly(bounds=None), Z2, A2, y), True)
    return out


def rmse(p, y) -> float:
    return float(np.sqrt(np.mean((np.asarray(p) - y) ** 2)))


def _expert_rmse(Z, A, y):
    return np.array([rmse(fill_abstentions(np.where(A[:, j], 0.0, Z[:, j]), y, A[:, j]), y) for j in range(Z.shape[1])])


# ----------------------------------------------------------------------------- parts
def vaw2_minmax(name: str, X, y, cache: Path):
    """VAW2 with its labels scaled by min-max into [0, 1] (``TargetScaler``'s "auto" for VAW2, eq. (33)
    online) instead of standardised: the pool's alternative the study compares; cached."""
    f = cache / f"vaw2_minmax_{name}.npz"
    if f.exists():
        return np.load(f)["z"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        z = np.asarray(ok.TargetScaler(ok.StandardScaler(max_norm=1.0) | ok.VAW2()).run(X, y), dtype=np.float64)
    np.savez(f, z=z)
    return z


def study(cache: Path) -> list[dict]:
    rows = []
    for name in STUDY:
        X, y = load(name)
        Zfull = expert_forecasts(name, X, y, cache)
        zmm = vaw2_minmax(name, X, y, cache)
        for cut in (None, SHORT):
            T = len(y) if cut is None else cut
            Z, yy = Zfull[:T], y[:T]
            A = ~np.isfinite(Z)
            e = _expert_rmse(Z, A, yy)
            label = name if cut is None else f"{name}[:{SHORT}]"
            row = {"stream": label, "T": T, "running mean": float(e[0]), "best expert": float(e.min()),
                   "best expert name": POOL[int(np.argmin(e))], "VAW2 (labels standardised)": float(e[1]),
                   "VAW2 (labels min-max)": rmse(zmm[:T], yy)}
            for k, (p, _holds) in variants(Z, A, yy).items():
                row[k] = rmse(p, yy)
            Zm = Z.copy()
            Zm[:, 1] = zmm[:T]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                row["ML-Poly, target units, VAW2 with min-max labels"] = rmse(
                    run_rule(ok.MLPoly(bounds=None), Zm, ~np.isfinite(Zm), yy), yy)
            rows.append(row)
            print(f"{label} done", file=sys.stderr, flush=True)
    return rows


def track(cache: Path) -> list[dict]:
    rows = []
    for name in TRACK:
        X, y = load(name)
        Z = expert_forecasts(name, X, y, cache)
        A = ~np.isfinite(Z)
        rs = river_side(name, X, y, cache)
        singles = {k.removeprefix("single "): rmse(v, y) for k, v in rs.items() if k.startswith("single ")}
        best = min(singles, key=singles.get)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mix = ok.Mixture({k: v for k, v in omkl_pool().items()}, meta=ok.mixture.default_meta())
            t0 = time.perf_counter()
            Zseen, pred = mix._run_with_forecasts(X, y)     # the default Mixture itself, end to end
            secs = time.perf_counter() - t0
            rep = ok.regret.report_from_forecasts(Zseen, y, pred, rule=mix.meta_, expert_names=POOL, shifts=0)
        e = _expert_rmse(Z, A, y)
        row = {"stream": name, "T": len(y), "River best single": singles[best], "River best single name": best,
               "River EWARegressor (pool + mean)": rmse(rs["EWA (pool + mean)"], y),
               "River EWARegressor (pool, as the issue)": rmse(rs["EWA (pool)"], y),
               "default Mixture (ML-Poly)": rmse(pred, y),
               "Mixture BOA v1.2.0": rmse(run_rule(ok.BOA(bounds=None), Z, A, y), y),
               "running mean": float(e[0]), "best expert (omkl side)": float(e.min()),
               "best expert name": POOL[int(np.argmin(e))],
               "bound holds vs every expert": bool(rep.all_hold),
               "regret vs best expert": float(rep.T * (rep.loss - rep.oracles["best expert"])),
               "its bound": float(min(b.bound for b in rep.bounds if b.expert == rep.best_expert)),
               "mixture seconds": secs}
        for k, (p, _holds) in variants(Z, A, y).items():          # every variant of the study, for the record
            row[f"study: {k}"] = rmse(p, y)
        rows.append(row)
        print(f"{name} done", file=sys.stderr, flush=True)
    return rows


def track_summary(rows: list[dict]) -> str:
    """The goal per stream (default Mixture <= River's EWARegressor and <= River's best single), and where
    the default ranks among the study's variants on these streams (chosen on the study's streams only)."""
    out = ["", "Goal: default Mixture <= River's EWARegressor over the same pool and <= River's best single model.", ""]
    for r in rows:
        m, e, e2, s1 = (r["default Mixture (ML-Poly)"], r["River EWARegressor (pool + mean)"],
                        r["River EWARegressor (pool, as the issue)"], r["River best single"])
        ok = m <= min(e, e2) and m <= s1
        out.append(f"- {r['stream']}: {'met' if ok else 'MISSED'}: {m:.4g} vs EWARegressor {e:.4g} / {e2:.4g} "
                   f"({m / min(e, e2) - 1:+.2%}), best single {s1:.4g} ({m / s1 - 1:+.2%})")
    keys = [k for k in rows[0] if k.startswith("study: ")]
    out += ["", "| variant (study) | geo. mean RMSE / River's EWARegressor (pool + mean) | streams at or below it |",
            "|---|---|---|"]
    for k in keys:
        ratio = np.array([r[k] / r["River EWARegressor (pool + mean)"] for r in rows])
        out.append(f"| {k.removeprefix('study: ')} | {np.exp(np.mean(np.log(ratio))):.4f} | {int(np.sum(ratio <= 1))} "
                   f"of {len(rows)} |")
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- output
def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def write(rows: list[dict], stem: str, extra: str = "") -> str:
    cols = list(rows[0])
    RESULTS.mkdir(exist_ok=True)
    with open(RESULTS / f"{stem}.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        w.writerows(rows)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(_fmt(r[c]) for c in cols) + " |" for r in rows]
    text = "\n".join(lines) + "\n" + extra
    (RESULTS / f"{stem}.md").write_text(text)
    return text


def study_summary(rows: list[dict]) -> str:
    """Per variant: geometric mean of RMSE / best expert, worst RMSE / running mean, worst / best expert."""
    keys = [k for k in rows[0] if k not in ("stream", "T", "running mean", "best expert", "best expert name",
                                            "VAW2 (labels standardised)", "VAW2 (labels min-max)")]
    out = ["", "| variant | geo. mean RMSE / best expert | worst RMSE / best expert | worst RMSE / running mean | "
           "streams above the running mean |", "|---|---|---|---|---|"]
    for k in keys:
        rb = np.array([r[k] / r["best expert"] for r in rows])
        rm = np.array([r[k] / r["running mean"] for r in rows])
        out.append(f"| {k} | {np.exp(np.mean(np.log(rb))):.4f} | {rb.max():.4f} | {rm.max():.4f} | "
                   f"{int(np.sum(rm > 1))} |")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", choices=["study", "track"], required=True)
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "omkl_bench_river_track"))
    args = ap.parse_args(argv)
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    if args.part == "study":
        rows = study(cache)
        text = write(rows, "meta_study", study_summary(rows))
    else:
        rows = track(cache)
        text = write(rows, "river_track", track_summary(rows))
    print(text)
    print(f"{time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
