"""Sweeps: a grid of (dataset, learner, parameters, seed) cells -> one tidy row per cell.

This module sits at the top of the library's dependency graph (it imports learners, datasets and
the protocol; only the CLI imports it). It needs NumPy alone: rows are plain dicts, a pandas
DataFrame only when asked for (``as_frame=True``).

    rows = sweep.run({"datasets": ["airfoil", "concrete"],
                      "learners": [{"name": "VAW2", "params": {"m": 50}},
                                   {"name": "OnlineRidge", "params": {"a": 0.1}}],
                      "seeds": [0, 1, 2, 3, 4],
                      "max_steps": 1000},
                     executor="processes", cache_dir="results/sweep-cache")

or ``omkl sweep spec.toml [--executor serial|processes|dask] [--scheduler tcp://host:8786 | --local N]``
with the same keys in a TOML file.

Cells
    The grid is ``datasets x learners x seeds`` in that order (the order of the rows, whatever
    order the cells finish in). A cell's randomness comes only from the cell itself: its
    ``seed`` is passed to the learner's constructor (``seed=...``) when the learner takes one,
    so a row never depends on which worker ran it or when. Every cell runs with one BLAS
    thread (parallelism comes from running cells side by side), so floating-point reductions
    are the same in every executor and **rows are bit-for-bit identical** across ``serial``,
    ``processes`` and ``dask`` (all columns but ``seconds`` and ``cached``).

Rows (columns)
    ``dataset, learner, label, params`` (canonical JSON), ``seed, repetition`` (0 unless the
    learner entry sets ``repetitions``, below), ``T, mse`` (the running MSE e_T, i.e. the last
    point of the curve), ``mean_loss`` (mean of the squared losses, summed pairwise by NumPy; equal to
    mse up to rounding), ``final_loss`` (the squared loss of the last step), ``seconds`` and ``cpu_seconds``
    (wall-clock and CPU time of the online pass; from the cache: of the run that filled it;
    on a shared machine the CPU time is the stable one), ``curve_t, curve`` (the
    running MSE e_t at ``curve_points`` steps, evenly spaced from 1 to T), ``error`` (``""`` or
    ``"ExceptionType: message"`` -- a failing cell is recorded, the sweep goes on), ``cached``
    and ``key`` (the cache key).

Batched repetitions
    A learner entry may set ``repetitions = R`` when its class has a batched
    ``run_repetitions(X, y, R)`` (paper 003's random-feature learners: R independent runs in
    one pass, drawn from the one ``seed``, see :mod:`omkl_core.mkl._rfbase`). Such a cell runs
    that pass once and yields R rows, ``repetition`` = 0..R-1, with the same numbers as
    ``run_repetitions`` gives in a notebook (repetition r of a batched pass is *not* the run of
    any single seed: the node draws interleave over repetitions). Their ``seconds`` and
    ``cpu_seconds`` are the pass's time divided by R (the amortised cost of one repetition).

Cache
    A small content-addressed store of JSON files, ``cache_dir/ab/<sha256>.json``, keyed by
    (code version, data hash, learner, canonical parameters, seed, max_steps, curve_points):
    the code version is the SHA-256 of every ``omkl_core/**/*.py`` source, the data hash the
    SHA-256 of the (X, y) bytes a cell sees. Re-running a sweep after an interruption or a
    change elsewhere recomputes only the cells whose key changed. Only the process that calls
    :func:`run` reads and writes the cache (workers just compute), so on a cluster the cache
    lives on the client's disk and workers need no shared file system; files are written to
    a temporary name and renamed, so an interrupted sweep never leaves a half-written entry.
    Failed cells are not cached (they are retried next time). Floats round-trip exactly
    through JSON (``repr`` is the shortest exact form), so a cached row equals a computed one.

    Why not ``joblib.Memory``: it keys a call by the pickled arguments and the *one* decorated
    function's source, so a change in a learner the function calls would not invalidate it;
    it stores pickles (not readable, not portable across library versions) and it is not a
    dependency of omkl. The store here is a few lines, keys exactly what matters, and its
    entries are human-readable.

Executors
    ``"serial"`` (this process), ``"processes"`` (:class:`concurrent.futures.ProcessPoolExecutor`,
    every core by default, ``max_workers=`` to change it) and ``"dask"`` (``client`` is a
    :class:`distributed.Client` or a scheduler address such as ``"tcp://host:8786"``;
    :func:`local_client` starts and stops a ``LocalCluster`` on this machine, which is what
    ``omkl sweep --local N`` does; Dask is imported only on this path). The data of each dataset is sent to the workers once
    (Dask: ``client.scatter(..., broadcast=True)``), so workers need omkl installed and never read
    the dataset files; each result carries the worker's code version and a cell computed by
    different omkl sources is recorded as an error instead of entering the cache.
"""
from __future__ import annotations

import hashlib
import inspect
import json
import math
import os
import time
import tomllib
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import numpy as np

from . import registry
from ._progress import progress_bar
from .protocol import Trace, run_online
from .validation import check_bool, check_int, check_option

__all__ = ["run", "load_spec", "cells", "code_version", "data_hash", "summarise", "mean_ranks",
           "to_frame", "local_client", "EXECUTORS", "ROW_COLUMNS", "Store"]

EXECUTORS = ("serial", "processes", "dask")
#: Columns of the rows :func:`run` returns, in order.
ROW_COLUMNS = ["dataset", "learner", "label", "params", "seed", "repetition", "T", "mse", "mean_loss",
               "final_loss", "seconds", "cpu_seconds", "curve_t", "curve", "error", "cached", "key"]
#: Columns that may differ between two runs of the same cell (everything else is bit-identical).
VOLATILE_COLUMNS = ("seconds", "cpu_seconds", "cached")
_SPEC_KEYS = ("datasets", "learners", "seeds", "max_steps", "curve_points")


# ----------------------------------------------------------------------------- the spec
def load_spec(spec) -> dict:
    """Validate a sweep spec (a dict, or the path of a TOML file) and return it normalised.

    Keys: ``datasets`` (names of :func:`omkl_core.registry.load_dataset`: the bundled files and
    ``"ar4"``), ``learners`` (a list of ``{"name": <a learner of omkl_core.registry.buildable()>,
    "params": {...}, "label": optional, "repetitions": optional}``, see "Batched repetitions"
    in the module docstring),
    ``seeds`` (non-negative ints), optional ``max_steps`` (run on the first ``max_steps`` steps
    of every stream) and ``curve_points`` (points of the down-sampled MSE curve, default 50).
    Every error names the offending key, e.g. ``spec['learners'][1]['name']``.
    """
    if isinstance(spec, (str, os.PathLike)):
        path = Path(spec)
        if not path.is_file():
            raise ValueError(f"spec: no such TOML file {str(path)!r}")
        try:
            spec = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"spec: {path} is not valid TOML: {exc}") from None
    if not isinstance(spec, dict):
        raise TypeError(f"spec must be a dict or the path of a TOML file, got {type(spec).__name__}")
    unknown = sorted(set(spec) - set(_SPEC_KEYS))
    if unknown:
        raise ValueError(f"spec has unknown key(s) {unknown}; known: {list(_SPEC_KEYS)}")
    for key in ("datasets", "learners", "seeds"):
        if key not in spec:
            raise ValueError(f"spec['{key}'] is missing")
        if not isinstance(spec[key], (list, tuple)) or len(spec[key]) == 0:
            raise ValueError(f"spec['{key}'] must be a non-empty list, got {spec[key]!r}")
    known_data = registry.dataset_names()
    for i, name in enumerate(spec["datasets"]):
        if name not in known_data:
            raise ValueError(f"spec['datasets'][{i}]: unknown dataset {name!r}; known: {', '.join(known_data)}")
    known = registry.learners()
    out_learners = []
    for i, item in enumerate(spec["learners"]):
        where = f"spec['learners'][{i}]"
        if not isinstance(item, dict) or "name" not in item:
            raise ValueError(f"{where} must be a table {{name = ..., params = {{...}}}}, got {item!r}")
        extra = sorted(set(item) - {"name", "params", "label", "repetitions"})
        if extra:
            raise ValueError(f"{where} has unknown key(s) {extra}; known: ['name', 'params', 'label', 'repetitions']")
        name = item["name"]
        if name not in known:
            raise ValueError(f"{where}['name']: unknown learner {name!r}; known: {', '.join(registry.buildable())}")
        info = registry.learner_info(name)
        if not info.buildable:
            raise ValueError(f"{where}['name']: {name} cannot be built from plain parameters: {info.why_not}")
        params = dict(item.get("params", {}) or {})
        if "seed" in params:
            raise ValueError(f"{where}['params'] must not set 'seed': seeds come from spec['seeds']")
        try:
            json.dumps(params, sort_keys=True, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{where}['params'] must hold plain values (numbers, strings, lists, tables): {exc}") from None
        try:                                           # bad hyper-parameters fail here, not in every cell
            _make_learner(known[name], params, 0)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{where}['params'] rejected by {name}: {exc}") from None
        label = item.get("label", name)
        if not isinstance(label, str):
            raise TypeError(f"{where}['label'] must be a string, got {label!r}")
        repetitions = item.get("repetitions")
        if repetitions is not None:
            repetitions = check_int(repetitions, f"{where}['repetitions']", minimum=1)
            if not callable(getattr(known[name], "run_repetitions", None)):
                raise ValueError(f"{where}['repetitions']: {name} has no batched run_repetitions(X, y, R)")
        out_learners.append({"name": name, "params": params, "label": label, "repetitions": repetitions})
    seeds = []
    for i, s in enumerate(spec["seeds"]):
        seeds.append(check_int(s, f"spec['seeds'][{i}]", minimum=0))
    max_steps = spec.get("max_steps")
    if max_steps is not None:
        max_steps = check_int(max_steps, "spec['max_steps']", minimum=2)
    curve_points = check_int(spec.get("curve_points", 50), "spec['curve_points']", minimum=2)
    return {"datasets": list(spec["datasets"]), "learners": out_learners, "seeds": seeds,
            "max_steps": max_steps, "curve_points": curve_points}


def _make_learner(cls: type, params: dict, seed: int):
    """``cls(**params, seed=seed)`` when the constructor takes ``seed``, else ``cls(**params)``."""
    try:
        takes_seed = "seed" in inspect.signature(cls).parameters
    except (TypeError, ValueError):
        takes_seed = False
    return cls(**params, seed=seed) if takes_seed else cls(**params)


def cells(spec) -> list[dict]:
    """The cells of a spec, in row order: datasets x learners x seeds."""
    spec = load_spec(spec)
    return [{"dataset": d, "learner": lrn["name"], "label": lrn["label"], "params": _canonical(lrn["params"]),
             "seed": s, "repetitions": lrn["repetitions"], "max_steps": spec["max_steps"],
             "curve_points": spec["curve_points"]}
            for d in spec["datasets"] for lrn in spec["learners"] for s in spec["seeds"]]


def _canonical(params: dict) -> str:
    return json.dumps(params, sort_keys=True, separators=(",", ":"), allow_nan=False)


# ----------------------------------------------------------------------- keys and data
@lru_cache(maxsize=1)
def code_version() -> str:
    """SHA-256 of every ``omkl_core/**/*.py`` source (paths and contents, sorted by path)."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def data_hash(X, y) -> str:
    """SHA-256 of a stream's shapes and float64 bytes."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    h = hashlib.sha256(repr((X.shape, y.shape)).encode())
    h.update(X.tobytes())
    h.update(y.tobytes())
    return h.hexdigest()


def _cell_key(cell: dict, dhash: str, version: str) -> str:
    payload = {"code": version, "data": dhash, **{k: cell[k] for k in
               ("learner", "params", "seed", "max_steps", "curve_points")}}
    if cell.get("repetitions") is not None:          # ordinary cells keep the key they always had
        payload["repetitions"] = cell["repetitions"]
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


class Store:
    """Content-addressed JSON store: ``root/ab/<key>.json``, written atomically (the sweep's
    cache; public so that cells the sweep cannot run -- e.g. River's models in the leaderboard --
    can be cached the same way; :class:`omkl_core.repro.leaderboard.ForecastStore` keeps arrays in it
    as ``.npz``). ``get(key) -> dict | None``, ``put(key, row)``."""

    suffix = ".json"

    def __init__(self, root):
        self.root = Path(root)

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}{self.suffix}"

    def get(self, key: str) -> dict | None:
        try:
            return json.loads(self._path(key).read_text(encoding="utf-8"))
        except (FileNotFoundError, json.JSONDecodeError):
            return None

    def put(self, key: str, row: dict) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(row, allow_nan=True), encoding="utf-8")
        os.replace(tmp, path)


# ------------------------------------------------------------------------- one cell
@contextmanager
def _one_blas_thread():
    """Run with one BLAS/OpenMP thread (threadpoolctl when installed, else unchanged)."""
    try:
        from threadpoolctl import threadpool_limits  # noqa: PLC0415
    except ImportError:  # pragma: no cover - threadpoolctl ships with scikit-learn/dask setups
        yield
        return
    with threadpool_limits(limits=1):
        yield


def _curve_points(trace, n: int) -> tuple[list[int], list[float]]:
    T = len(trace.losses)
    idx = np.unique(np.linspace(0, T - 1, min(n, T)).round().astype(np.int64))
    return [int(i) + 1 for i in idx], [float(v) for v in trace.mse_curve[idx]]


def _run_repetitions(model, cell: dict, X, y, row: dict) -> None:
    """A batched cell: ``model.run_repetitions(X, y, R)`` once -> ``row["runs"]``, one entry a repetition."""
    R = cell["repetitions"]
    with _one_blas_thread():
        t0, c0 = time.perf_counter(), time.thread_time()
        P = np.asarray(model.run_repetitions(X, y, R), dtype=np.float64)
        seconds, cpu_seconds = time.perf_counter() - t0, time.thread_time() - c0
    if P.shape != (R, len(y)):
        raise ValueError(f"run_repetitions returned shape {P.shape}, expected {(R, len(y))}")
    runs = []
    for r in range(R):
        trace = Trace.from_predictions(P[r], y)       # raises on a non-finite prediction
        curve_t, curve = _curve_points(trace, cell["curve_points"])
        runs.append({"mse": float(trace.mse), "mean_loss": float(np.mean(trace.losses)),
                     "final_loss": float(trace.losses[-1]), "curve_t": curve_t, "curve": curve})
    row.update(seconds=float(seconds / R), cpu_seconds=float(cpu_seconds / R), runs=runs)


def _run_cell(cell: dict, X, y) -> dict:
    """Compute one cell (in whichever process runs it); never raises."""
    row = {"version": code_version(), "mse": math.nan, "mean_loss": math.nan, "final_loss": math.nan,
           "seconds": math.nan, "cpu_seconds": math.nan, "curve_t": [], "curve": [], "error": "", "T": int(len(y))}
    try:
        cls = registry.learners()[cell["learner"]]
        model = _make_learner(cls, json.loads(cell["params"]), cell["seed"])
        if cell.get("repetitions") is not None:
            _run_repetitions(model, cell, X, y, row)
            return row
        with _one_blas_thread():
            t0, c0 = time.perf_counter(), time.thread_time()
            trace = run_online(model, X, y)
            seconds, cpu_seconds = time.perf_counter() - t0, time.thread_time() - c0
        curve_t, curve = _curve_points(trace, cell["curve_points"])
        row.update(mse=float(trace.mse), mean_loss=float(np.mean(trace.losses)),
                   final_loss=float(trace.losses[-1]), seconds=float(seconds), cpu_seconds=float(cpu_seconds),
                   curve_t=curve_t, curve=curve)
    except Exception as exc:  # noqa: BLE001 - a failing cell is recorded, the sweep goes on
        row["error"] = f"{type(exc).__name__}: {exc}"
    return row


# ---------------------------------------------------------------------------- the run
def run(spec, *, executor: str = "processes", client=None, cache_dir=None, max_workers: int | None = None,
        progress: bool = True, as_frame: bool = False):
    """Run every cell of ``spec`` and return one row per cell (see the module docstring).

    Parameters
    ----------
    spec : dict or str or path
        The grid (keys ``datasets``, ``learners``, ``seeds``, optional ``max_steps`` and
        ``curve_points``; see :func:`load_spec`), or the path of a TOML file holding it.
    executor : {"serial", "processes", "dask"}, default="processes"
        Where cells run. Rows are identical whichever is chosen.
    client : distributed.Client or str, optional
        For ``executor="dask"``: a client, or a scheduler address (``"tcp://host:8786"``)
        to connect to (and disconnect from afterwards). None: the current default client.
    cache_dir : str or path, optional
        Folder of the on-disk cache (created if missing); None disables caching.
    max_workers : int, optional
        Processes for ``executor="processes"`` (default: every core).
    progress : bool, default=True
        One progress bar over the cells, with ETA.
    as_frame : bool, default=False
        Return a pandas DataFrame (pandas must be installed) instead of a list of dicts.

    Returns
    -------
    list of dict, or pandas.DataFrame
        One row per cell (per repetition of a batched cell) in grid order, keys
        :data:`ROW_COLUMNS`.
    """
    executor = check_option(executor, "executor", EXECUTORS)
    progress = check_bool(progress, "progress")
    as_frame = check_bool(as_frame, "as_frame")
    if max_workers is not None:
        max_workers = check_int(max_workers, "max_workers")
    if client is not None and executor != "dask":
        raise ValueError(f"client is only used with executor='dask', got executor={executor!r}")
    spec = load_spec(spec)
    todo = cells(spec)
    version = code_version()
    data = {name: registry.load_dataset(name, spec["max_steps"]) for name in spec["datasets"]}
    dhash = {name: data_hash(*xy) for name, xy in data.items()}
    store = Store(cache_dir) if cache_dir is not None else None

    results: list[dict | None] = [None] * len(todo)
    keys = [_cell_key(c, dhash[c["dataset"]], version) for c in todo]
    missing = []
    for i, key in enumerate(keys):
        hit = store.get(key) if store is not None else None
        if hit is not None:
            results[i] = {**hit, "cached": True}
        else:
            missing.append(i)

    bar = _bar(len(todo), len(todo) - len(missing), progress)
    with bar:
        def done(i: int, row: dict) -> None:
            if row.pop("version", version) != version and not row["error"]:
                row["error"] = "RuntimeError: the worker runs different omkl_core sources (code version mismatch)"
            row["cached"] = False
            if store is not None and not row["error"]:
                store.put(keys[i], {k: v for k, v in row.items() if k != "cached"})
            results[i] = row
            bar.update(1)

        if executor == "serial":
            for i in missing:
                done(i, _run_cell(todo[i], *data[todo[i]["dataset"]]))
        elif executor == "processes" and missing:
            workers = max_workers or os.cpu_count() or 1
            with ProcessPoolExecutor(max_workers=min(workers, len(missing))) as pool:
                futures = {pool.submit(_run_cell, todo[i], *data[todo[i]["dataset"]]): i for i in missing}
                for fut in as_completed(futures):
                    done(futures[fut], _result_or_error(fut.result))
        elif executor == "dask" and missing:
            _run_dask(todo, missing, data, client, done)

    rows = []
    for c, r, k in zip(todo, results, keys):
        base = {**c, **r, "key": k}
        runs = base.pop("runs", None)
        if runs is None:                                   # an ordinary cell (or a failed one)
            rows.append({**base, "repetition": 0})
        else:                                              # a batched cell: one row per repetition
            rows.extend({**base, **run, "repetition": i} for i, run in enumerate(runs))
    rows = [{c: r.get(c) for c in ROW_COLUMNS} for r in rows]
    return to_frame(rows) if as_frame else rows


def to_frame(rows):
    """The rows of :func:`run` as a pandas DataFrame (columns :data:`ROW_COLUMNS`; needs pandas)."""
    try:
        import pandas as pd  # noqa: PLC0415
    except ImportError:
        raise ImportError("as_frame=True / to_frame need pandas, which is not installed: pip install pandas "
                          "(or use the rows as a list of dicts)") from None
    return rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows), columns=ROW_COLUMNS)


def _result_or_error(get) -> dict:
    try:
        return get()
    except Exception as exc:  # noqa: BLE001 - e.g. a worker process that died
        return {"mse": math.nan, "mean_loss": math.nan, "final_loss": math.nan, "seconds": math.nan,
                "cpu_seconds": math.nan, "curve_t": [], "curve": [], "T": 0, "error": f"{type(exc).__name__}: {exc}"}


def _import_distributed():
    try:
        import distributed  # noqa: PLC0415
    except ImportError:
        raise ImportError("executor='dask' needs dask.distributed, which is not installed: "
                          "pip install 'omkl[dask]'") from None
    return distributed


@contextmanager
def local_client(n_workers: int):
    """A :class:`distributed.Client` of a ``LocalCluster`` of ``n_workers`` processes with one
    thread each (cells pin BLAS to one thread too), closed with the cluster on exit.

    >>> with local_client(2) as client:                      # doctest: +SKIP
    ...     rows = run(spec, executor="dask", client=client)
    """
    n_workers = check_int(n_workers, "n_workers")
    distributed = _import_distributed()
    with distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        yield client


def _run_dask(todo, missing, data, client, done) -> None:
    """Submit the missing cells to a Dask cluster; the data goes to every worker once."""
    distributed = _import_distributed()
    own = False
    if client is None:
        try:
            client = distributed.get_client()
        except ValueError:
            raise ValueError("executor='dask' needs client= (a distributed.Client or a scheduler "
                             "address such as 'tcp://host:8786'); no default client exists") from None
    elif isinstance(client, str):
        client = distributed.Client(client)
        own = True
    elif not isinstance(client, distributed.Client):
        raise TypeError(f"client must be a distributed.Client or a scheduler address, got {type(client).__name__}")
    try:
        shared = {name: client.scatter(list(xy), broadcast=True) for name, xy in data.items()
                  if any(todo[i]["dataset"] == name for i in missing)}
        futures = {}
        for i in missing:
            cell = todo[i]
            X_f, y_f = shared[cell["dataset"]]
            fut = client.submit(_run_cell, cell, X_f, y_f, pure=False)
            futures[fut] = i
        for fut in distributed.as_completed(list(futures)):
            done(futures[fut], _result_or_error(fut.result))
    finally:
        if own:
            client.close()


def _bar(total: int, initial: int, enabled: bool):
    return progress_bar(total=total, initial=initial, desc="sweep cells", unit="cell", enabled=enabled)


# ------------------------------------------------------------------------ reporting
SUMMARY_COLUMNS = ["dataset", "label", "params", "mse_mean", "mse_sd", "n_seeds", "sec_per_1000", "cpu_per_1000"]


def summarise(rows):
    """MSE mean and sd over seeds (and repetitions), wall-clock and CPU seconds per 1,000 steps, per
    (dataset, label, params), in first-seen order; ``n_seeds`` counts the runs (rows) of each group,
    failed cells are left out. A list of dicts in, a list of dicts out (keys :data:`SUMMARY_COLUMNS`);
    a DataFrame in, a DataFrame out (with ``attrs["failed_cells"]``)."""
    frame = not isinstance(rows, list)
    records = rows.to_dict("records") if frame else rows
    groups: dict[tuple, list[dict]] = {}
    for r in records:
        if r["error"] == "":
            groups.setdefault((r["dataset"], r["label"], r["params"]), []).append(r)
    out = []
    for (dataset, label, params), g in groups.items():
        mse = np.array([r["mse"] for r in g], dtype=np.float64)
        out.append({"dataset": dataset, "label": label, "params": params, "mse_mean": float(np.mean(mse)),
                    "mse_sd": float(np.std(mse, ddof=1)) if len(g) > 1 else math.nan, "n_seeds": len(g),
                    "sec_per_1000": float(np.mean([1e3 * r["seconds"] / r["T"] for r in g])),
                    "cpu_per_1000": float(np.mean([1e3 * r["cpu_seconds"] / r["T"] for r in g]))})
    if not frame:
        return out
    import pandas as pd  # noqa: PLC0415

    df = pd.DataFrame(out, columns=SUMMARY_COLUMNS)
    df.attrs["failed_cells"] = sum(1 for r in records if r["error"] != "")
    return df


def mean_ranks(rows):
    """Mean rank of each learner label over datasets (rank 1 = lowest seed-mean MSE on a dataset;
    ties share the mean rank), sorted best first -- the leaderboard's summary (needs pandas)."""
    rows = to_frame(rows)
    ok = rows[rows["error"] == ""]
    per = ok.groupby(["dataset", "label"], sort=False)["mse"].mean()
    ranks = per.groupby(level="dataset", sort=False).rank(method="average")
    return ranks.groupby(level="label", sort=False).mean().sort_values().rename("mean_rank")
