"""The baseline rows of the papers' tables run in a named form, and draw-free row ratios.

* :func:`run_rows` -- learners given as ``{row label: (class name, parameters)}`` (the presets
  :meth:`omkl_core.registry.paper000.baseline_rows` and
  :meth:`omkl_core.registry.paper003.variant_rows`), each run for R batched repetitions on
  each stream -> ``{(dataset, label): per-repetition MSE x 10^3}``, the input of
  :func:`omkl_core.repro.report.compare`.
* :func:`row_ratios` -- a check free of the realisation's *scale*: paper 000's MSE (labels
  normalised by eqs. 33-34) of every method on one stream carries the same factor
  1/(max y - min y)^2 of that realisation, so the ratio of two rows' MSE on one stream
  (e.g. Raker / VAW2 on AR(4): 23.24 / 16.56 = 1.40 in Table 2) cancels it, unlike the cells
  themselves. Published ratios against ours, for all rows.
* :func:`ar4_noise_sweep` and :func:`ratio_ranges` -- what the scale does not capture: the
  cells *and* the row ratios over several AR(4) noise realisations (eq. 32), and whether the
  published cell / ratio lies inside the range they span.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import registry as _registry
from ..mkl import expert_predictions, make_meta
from ..sweep import map_tasks
from ..validation import check_int
from . import paper_values

__all__ = ["run_rows", "row_task", "row_ratios", "published_label", "ar4_noise_sweep", "noise_seed_task",
           "ratio_ranges"]


def published_label(label: str) -> str:
    """The published row a labelled row is compared with: the part before " [" (a named
    variant, e.g. "OMKL-GF [authors' code: J = 2]" -> "OMKL-GF")."""
    return label.split(" [")[0]


def run_rows(rows: dict, streams: dict, repetitions: int, seed=0, progress: bool = False, *, cache_dir=None,
             **executor) -> dict:
    """Run each row on each stream, R repetitions batched (``run_repetitions``).

    Parameters
    ----------
    rows : dict
        ``{label: (class name, constructor parameters)}``; the class is looked up in
        :func:`omkl_core.registry.learners` and must have ``run_repetitions``.
    streams : dict
        ``{dataset label: (X, y)}``, or ``{dataset label: [(X_0, y_0), ..., (X_{R-1}, y_{R-1})]}`` for
        a stream drawn afresh per repetition (paper 000's AR(4)): repetition r is then row r of the
        R-batched run on series r -- the r-th dictionary and repetition r's node draws exactly as
        the batched run draws them, on its own series.
    repetitions : int
        R, the number of independent repetitions (fresh random features and draws each).
    seed : int, default=0
        The learners' seed (repetition r uses the r-th dictionary drawn from it).
    progress : bool, default=False
        One line per finished (dataset, row) with its CPU seconds (with ``executor``: a progress bar).
    cache_dir, **executor :
        Given ``executor=`` (and ``client=`` / ``max_workers=``), each (dataset, row) is one task of
        :func:`omkl_core.sweep.map_tasks` (:func:`row_task`; one BLAS thread, cached in ``cache_dir``);
        without, the rows run here one after the other.

    Returns
    -------
    dict
        ``{(dataset, label): ndarray (R,)}``: MSE = (1/T) sum_t (yhat_t - y_t)^2 of each
        repetition, times 10^3 (the tables' unit).
    """
    import time  # noqa: PLC0415

    R = check_int(repetitions, "repetitions")
    known = _registry.learners()
    for label, (cls, _) in rows.items():
        if cls not in known or not hasattr(known[cls], "run_repetitions"):
            raise ValueError(f"rows[{label!r}]: {cls!r} is not a learner with run_repetitions")
    series = {name: _series(name, v, R) for name, v in streams.items()}   # name -> [(repetition or None, X, y)]
    if executor:
        data, tasks, labels = {}, [], []
        for i, name in enumerate(series):
            for r, X, y in series[name]:
                key = str(i) if r is None else f"{i} rep={r}"
                data[key] = (X, y)
                tasks += [{"dataset": key, "cls": cls, "params": params, "repetitions": R, "seed": seed,
                           **({} if r is None else {"take": r})} for (cls, params) in rows.values()]
                labels += [(name, label) for label in rows]
        res = map_tasks(row_task, tasks, data=data, cache_dir=cache_dir, progress=progress,
                        cost=[len(data[t["dataset"]][1]) for t in tasks], desc="baseline rows", unit="row", **executor)
        out: dict = {}
        for lab, r in zip(labels, res):
            out.setdefault(lab, []).append(r["mse_x1e3"])
        return {lab: np.concatenate(v) for lab, v in out.items()}
    out = {}
    for name, parts in series.items():
        for label, (cls, params) in rows.items():
            t0 = time.process_time()
            mse = []
            for r, X, y in parts:
                y = np.asarray(y, dtype=np.float64)
                P = known[cls](**params, seed=seed).run_repetitions(X, y, R)
                mse.append(((P - y[None, :]) ** 2).mean(axis=1)[slice(None) if r is None else slice(r, r + 1)] * 1e3)
            out[(name, label)] = np.concatenate(mse)
            if progress:
                print(f"{name:9s} {label:34s} MSE x1e3 = {out[(name, label)].mean():8.3f} "
                      f"({time.process_time() - t0:.1f} s CPU)", flush=True)
    return out


def _series(name, value, R: int) -> list:
    """``[(None, X, y)]`` for one stream, ``[(r, X_r, y_r) for r < R]`` for R series (one per repetition)."""
    if isinstance(value, list):
        if len(value) != R:
            raise ValueError(f"streams[{name!r}] holds {len(value)} series, one per repetition is {R}")
        return [(r, X, y) for r, (X, y) in enumerate(value)]
    X, y = value
    return [(None, X, y)]


def row_task(task: dict, X, y) -> dict:
    """One (stream, row) of :func:`run_rows` as a task of :func:`omkl_core.sweep.map_tasks`:
    ``task`` = ``{cls, params, repetitions, seed}`` -> ``{"mse_x1e3": ndarray (R,)}``; with
    ``task["take"] = r`` (repetition r's own series): row r of the batched run alone, shape (1,)."""
    y = np.asarray(y, dtype=np.float64)
    model = _registry.learners()[task["cls"]](**task["params"], seed=task["seed"])
    P = model.run_repetitions(X, y, task["repetitions"])
    if "take" in task:
        P = P[task["take"]:task["take"] + 1]
    return {"mse_x1e3": ((P - y[None, :]) ** 2).mean(axis=1) * 1e3}


def row_ratios(values: dict, *, paper: str = "000", table=2, reference: str = "VAW2",
               rel: float = 0.25) -> pd.DataFrame:
    """Published row ratios against ours, per dataset: MSE(row) / MSE(reference row).

    Parameters
    ----------
    values : dict
        ``{(dataset, label): per-repetition values}`` (or means), as for
        :func:`omkl_core.repro.report.compare`; must hold ``(dataset, reference)`` for every dataset
        it names. A label's published row is :func:`published_label` of it.
    paper, table : the published table (default paper 000, Table 2).
    reference : str, default="VAW2"
        The row every other row is divided by.
    rel : float, default=0.25
        Tolerance on the ratio of ratios (the scorecard's 25 % relative rule).

    Returns
    -------
    pandas.DataFrame
        One row per (dataset, label), reference excluded: ``published_ratio`` = published
        MSE(label) / published MSE(reference), ``ratio`` = ours, ``ratio_over_published`` =
        ratio / published_ratio, ``within_tolerance`` = |ratio_over_published - 1| <= rel;
        also the two published and the two reproduced means.

    Examples
    --------
    >>> df = row_ratios({("AR(4)", "VAW2"): 10.0, ("AR(4)", "Raker"): 14.0})
    >>> round(float(df.published_ratio[0]), 4), float(df.ratio[0])
    (1.4034, 1.4)
    """
    means = {k: float(np.mean(np.asarray(v, dtype=np.float64))) for k, v in values.items()}
    recs = []
    for (dataset, label), mean in means.items():
        if label == reference:
            continue
        if (dataset, reference) not in means:
            raise ValueError(f"values has no ({dataset!r}, {reference!r}) entry to divide by")
        ref = means[(dataset, reference)]
        pub = paper_values.published_value(paper, table, dataset, published_label(label))
        pub_ref = paper_values.published_value(paper, table, dataset, published_label(reference))
        pr, r = pub / pub_ref, mean / ref
        recs.append({"dataset": dataset, "algorithm": label, "reference": reference,
                     "published": pub, "published_reference": pub_ref, "published_ratio": pr,
                     "mse_x1e3": mean, "reference_mse_x1e3": ref, "ratio": r,
                     "ratio_over_published": r / pr, "within_tolerance": bool(abs(r / pr - 1.0) <= rel)})
    return pd.DataFrame(recs)


def ar4_noise_sweep(noise_seeds, *, meta_rows=("VAW2",), baseline_rows: dict | None = None, reference: str = "VAW2",
                    m: int = 50, lam: float = 1.0, seed=0, max_steps: int | None = None,
                    progress: bool = False, cache_dir=None, **executor) -> pd.DataFrame:
    """Paper 000 Table 2's AR(4) rows over several noise realisations of eq. (32).

    Parameters
    ----------
    noise_seeds : iterable of int
        The AR(4) noise seeds (:func:`omkl_core.datasets.ar4`).
    meta_rows : sequence of str, default=("VAW2",)
        VAW-family rows (:func:`omkl_core.mkl.make_meta`) on one shared expert layer
        (m random features, lambda ``lam``, features from ``seed``).
    baseline_rows : dict or None
        ``{label: (class name, parameters)}`` rows run by :func:`run_rows` (e.g.
        :meth:`omkl_core.registry.paper000.baseline_rows`).
    reference : str, default="VAW2"
        The row the ratio columns divide by (must be among the rows).
    m, lam, seed : the expert layer's settings (paper 000: 50, 1) and the features' seed.
    max_steps : int or None
        Truncate each stream (after normalising), as the notebooks' quick mode does.
    progress : bool, default=False
        One line per noise seed (with ``executor``: a progress bar).
    cache_dir, **executor :
        Given ``executor=`` (and ``client=`` / ``max_workers=``), each noise seed is one task of
        :func:`omkl_core.sweep.map_tasks` (:func:`noise_seed_task`, cached in ``cache_dir``);
        without, the seeds run here one after the other.

    Returns
    -------
    pandas.DataFrame
        One row per noise seed (one repetition of the features each): ``noise_seed``,
        ``label_range`` (max - min of the unnormalised labels), the MSE x 10^3 of every row
        (column = row label) and ``ratio: <row> / <reference>`` for every other row.
    """
    baseline_rows = baseline_rows or {}
    labels = [*meta_rows, *baseline_rows]
    if reference not in labels:
        raise ValueError(f"reference {reference!r} is not among the rows {labels}")
    tasks = [{"noise_seed": int(s), "meta_rows": list(meta_rows), "baseline_rows": baseline_rows, "m": m,
              "lam": lam, "seed": seed, "max_steps": max_steps} for s in noise_seeds]
    if executor:
        recs = list(map_tasks(noise_seed_task, tasks, cache_dir=cache_dir, progress=progress,
                              desc="AR(4) noise seeds", unit="seed", **executor))
    else:
        recs = []
        for task in tasks:
            recs.append(noise_seed_task(task))
            if progress:
                print(f"noise seed {task['noise_seed']}: " + ", ".join(f"{k} {recs[-1][k]:.2f}" for k in labels),
                      flush=True)
    for rec in recs:
        for label in labels:
            if label != reference:
                rec[f"ratio: {label} / {reference}"] = rec[label] / rec[reference]
    return pd.DataFrame(recs)


def noise_seed_task(task: dict) -> dict:
    """One noise realisation of :func:`ar4_noise_sweep` (a task of :func:`omkl_core.sweep.map_tasks`):
    ``noise_seed``, ``label_range`` and the MSE x 10^3 of every row."""
    s, max_steps, seed = task["noise_seed"], task["max_steps"], task["seed"]
    X, y = _registry.load_dataset("ar4", max_steps, seed=s)
    _, yr = _registry.load_dataset("ar4", seed=s, normalise=False)
    rec = {"noise_seed": int(s), "label_range": float(yr.max() - yr.min())}
    if task["meta_rows"]:
        Z = expert_predictions(X, y, m=task["m"], lam=task["lam"], repetitions=1, seed=seed)
        for row in task["meta_rows"]:
            P = make_meta(row).run(Z, y)
            rec[row] = float(((P - y) ** 2).mean() * 1e3)
    rows = {label: tuple(v) for label, v in task["baseline_rows"].items()}
    for (_, label), v in run_rows(rows, {"AR(4)": (X, y)}, 1, seed=seed).items():
        rec[label] = float(v[0])
    return rec


def ratio_ranges(sweep: pd.DataFrame, *, paper: str = "000", table=2, dataset: str = "AR(4)",
                 reference: str = "VAW2") -> pd.DataFrame:
    """Does the published cell, and the published row ratio, lie inside what the noise
    realisations of :func:`ar4_noise_sweep` give?

    Returns one row per row label of ``sweep`` (reference included, without a ratio): the
    published cell, the min / max of the cell over the realisations and ``cell_inside``; the
    published ratio to ``reference``, min / max of ours and ``ratio_inside``; ``n_seeds``.
    """
    labels = [c for c in sweep.columns if c not in ("noise_seed", "label_range") and not c.startswith("ratio: ")]
    pub_ref = paper_values.published_value(paper, table, dataset, published_label(reference))
    recs = []
    for label in labels:
        pub = paper_values.published_value(paper, table, dataset, published_label(label))
        cells = sweep[label].to_numpy(dtype=np.float64)
        rec = {"algorithm": label, "published": pub, "cell_min": float(cells.min()), "cell_max": float(cells.max()),
               "cell_inside": bool(cells.min() <= pub <= cells.max()), "n_seeds": int(len(sweep))}
        col = f"ratio: {label} / {reference}"
        if col in sweep:
            r = sweep[col].to_numpy(dtype=np.float64)
            rec.update(published_ratio=pub / pub_ref, ratio_min=float(r.min()), ratio_max=float(r.max()),
                       ratio_inside=bool(r.min() <= pub / pub_ref <= r.max()))
        else:
            rec.update(published_ratio=np.nan, ratio_min=np.nan, ratio_max=np.nan, ratio_inside=np.nan)
        recs.append(rec)
    return pd.DataFrame(recs)
