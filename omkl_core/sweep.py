"""Sweeps: a grid of (dataset, learner, parameters, seed) cells -> one tidy row per cell.

This module sits at the top of the library's dependency graph (it imports learners, datasets and
the protocol; only the CLI imports it). It needs NumPy alone: rows are plain dicts, a pandas
DataFrame only when asked for (``as_frame=True``)::

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
    A small content-addressed store of JSON files (:mod:`omkl_core.cache`), ``cache_dir/ab/<sha256>.json``, keyed by
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

The task map
    :func:`map_tasks` is the general form and the one pool of the whole project (the
    reproduction's leaderboard and paper modules run their learners through it):
    ``map_tasks(fn, tasks, executor=..., cache_dir=...)`` calls a top-level (picklable) ``fn`` on
    every task -- a JSON-able dict -- and returns the results in task order. A result is a dict
    (nested dicts and lists allowed) of plain values and NumPy arrays; it is cached under the key
    (code version, ``fn``'s qualified name, canonical task, hash of the arrays it was given), its
    arrays stored exactly in an ``.npz`` beside the JSON entry, its floats exactly through ``repr``;
    a computed result passes through the same encoding as a cached one, so results are the same
    whichever executor ran them and whether or not they came from the cache. :func:`run` is a
    task map over the grid's cells (its keys are the cells' keys above).

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
import logging
import math
import os
import time
import tomllib
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from . import registry, threads
from .cache import Store, _cell_key, _check_cache_dir, _normalised, code_version, data_hash, numerics  # noqa: F401  (sweep.Store, sweep.code_version, ... stay importable)
from .progress import progress_bar
from .protocol import Trace, run_online
from .validation import check_bool, check_int, check_memory, check_option

__all__ = ["run", "map_tasks", "TaskResults", "task_key", "load_spec", "cells", "code_version", "numerics", "data_hash", "summarise", "mean_ranks",
           "to_frame", "local_client", "EXECUTORS", "ROW_COLUMNS", "Store", "MAX_CELLS",
           "make_learner", "one_blas_thread"]

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
            make_learner(known[name], params, 0)
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


def make_learner(cls: type, params: dict, seed: int):
    """``cls(**params, seed=seed)`` when the constructor takes ``seed``, else ``cls(**params)``: how the
    sweep (and the leaderboard) build a learner of a cell."""
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


# ------------------------------------------------------------------------- one cell
def one_blas_thread():
    """Run a block with one thread in every engine (BLAS, oneMKL's vector math, Numba):
    :func:`omkl_core.threads.using` (1). A cell's numbers do not depend on it."""
    return threads.using(1)


def _curve_points(trace, n: int) -> tuple[list[int], list[float]]:
    T = len(trace.losses)
    idx = np.unique(np.linspace(0, T - 1, min(n, T)).round().astype(np.int64))
    return [int(i) + 1 for i in idx], [float(v) for v in trace.mse_curve[idx]]


def _run_repetitions(model, cell: dict, X, y, row: dict) -> None:
    """A batched cell: ``model.run_repetitions(X, y, R)`` once -> ``row["runs"]``, one entry a repetition."""
    R = cell["repetitions"]
    with one_blas_thread():
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
    row = {"mse": math.nan, "mean_loss": math.nan, "final_loss": math.nan,
           "seconds": math.nan, "cpu_seconds": math.nan, "curve_t": [], "curve": [], "error": "", "T": int(len(y))}
    try:
        cls = registry.learners()[cell["learner"]]
        model = make_learner(cls, json.loads(cell["params"]), cell["seed"])
        if cell.get("repetitions") is not None:
            _run_repetitions(model, cell, X, y, row)
            return row
        with one_blas_thread():
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


# ------------------------------------------------------------------------ the task map
class TaskResults(list):
    """The results of :func:`map_tasks`, in task order; ``cached[i]``: result i came from the cache."""

    def __init__(self, results, cached):
        super().__init__(results)
        self.cached = list(cached)


def _qualname(fn) -> str:
    module, name = getattr(fn, "__module__", None), getattr(fn, "__qualname__", None)
    if not module or not name or "<" in name or module == "__main__":
        raise TypeError(f"fn must be a top-level function of an importable module (it is pickled by name "
                        f"for the workers), got {fn!r}")
    return f"{module}.{name}"


def task_key(fn, task: dict, arrays=(), *, version: str | None = None) -> str:
    """The cache key of ``fn(task, *arrays)``: SHA-256 of the code version (:func:`code_version`
    unless ``version`` is given), ``fn``'s qualified name, the canonical JSON of ``task`` and the
    SHA-256 of the arrays' shapes and float64 bytes."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a, dtype=np.float64)
        h.update(repr(a.shape).encode())
        h.update(a.tobytes())
    payload = {"code": code_version() if version is None else version, "fn": _qualname(fn),
               "task": task, "data": h.hexdigest() if len(arrays) else None}
    return hashlib.sha256(json.dumps(payload, sort_keys=True, allow_nan=False).encode()).hexdigest()


def _call_task(fn, task: dict, *args) -> dict:
    """Run one task in whichever process: one BLAS thread, the worker's code version attached."""
    with one_blas_thread():
        result = fn(task, *args)
    if not isinstance(result, dict):
        raise TypeError(f"{_qualname(fn)} must return a dict, got {type(result).__name__}")
    return {"version": code_version(), "numerics": numerics(), "result": result}


def map_tasks(fn, tasks, *, executor: str = "processes", client=None, max_workers: int | None = None,
              cache_dir=None, progress: bool = True, data=None, data_field: str = "dataset", keys=None,
              cost=None, on_error=None, desc: str = "tasks", unit: str = "task") -> TaskResults:
    """``fn(task)`` (or ``fn(task, *data[task[data_field]])``) for every task, on one executor,
    cached: the one pool of omkl (the sweep, the leaderboard and the paper modules use it).

    Parameters
    ----------
    fn : callable
        A top-level function of an importable module (the workers import it by name),
        ``fn(task, *arrays) -> dict``. Its result holds plain values (numbers, strings, lists,
        dicts with string keys) and NumPy arrays; a result with a non-empty ``"error"`` entry is
        returned but not cached.
    tasks : sequence of dict
        JSON-able task descriptions (they enter the cache key as canonical JSON).
    executor : {"serial", "processes", "dask"}, default="processes"
        Where tasks run; results are identical whichever is chosen (one BLAS thread per task).
    client : distributed.Client or str, optional
        For ``executor="dask"``: a client or a scheduler address (connected to and closed
        afterwards); None: the current default client.
    max_workers : int, optional
        Processes for ``executor="processes"`` (default: every core).
    cache_dir : str or path, optional
        Folder of the :class:`Store`; None: no cache.
    progress : bool, default=True
        One progress bar over the tasks (``desc``, ``unit``).
    data : dict, optional
        ``{name: tuple of arrays}``; a task naming ``name`` in ``task[data_field]`` gets the arrays
        as ``fn``'s further arguments. Each entry is sent to every Dask worker once, and its hash
        enters the task's key.
    keys : sequence of str, optional
        The tasks' cache keys, to replace :func:`task_key` (e.g. the sweep's cell keys).
    cost : sequence of float, optional
        Expected cost of each task: the costliest are submitted first (results stay in task order).
    on_error : callable, optional
        ``on_error(exception) -> result`` for a task that raised (in ``fn`` or its worker); None:
        the exception propagates, after the tasks already finished are cached.

    Returns
    -------
    TaskResults
        A list of the results in task order, with ``.cached`` (one bool per task). Tasks with the
        same key are computed once (each gets the result).
    """
    executor = check_option(executor, "executor", EXECUTORS)
    progress = check_bool(progress, "progress")
    if max_workers is not None:
        max_workers = check_int(max_workers, "max_workers")
    if client is not None and executor != "dask":
        raise ValueError(f"client is only used with executor='dask', got executor={executor!r}")
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {fn!r}")
    _qualname(fn)
    tasks = list(tasks)
    for i, task in enumerate(tasks):
        if not isinstance(task, dict):
            raise TypeError(f"tasks[{i}] must be a dict, got {type(task).__name__}")
        if data is not None and task.get(data_field) not in data:
            raise ValueError(f"tasks[{i}][{data_field!r}] = {task.get(data_field)!r} is not a key of data")
    if keys is None:
        keys = [task_key(fn, t, data[t[data_field]] if data is not None else ()) for t in tasks]
    elif len(keys) != len(tasks):
        raise ValueError(f"keys has {len(keys)} entries for {len(tasks)} tasks")
    if cost is not None and len(cost) != len(tasks):
        raise ValueError(f"cost has {len(cost)} entries for {len(tasks)} tasks")
    version = code_version()
    if cache_dir is not None:
        _check_cache_dir(cache_dir)
    store = Store(cache_dir) if cache_dir is not None else None
    results: list = [None] * len(tasks)
    cached = [False] * len(tasks)
    missing, first, twins = [], {}, []
    for i, key in enumerate(keys):
        hit = store.get(key) if store is not None else None
        if hit is not None:
            results[i], cached[i] = hit, True
        elif key in first:                  # the same task twice: computed once
            twins.append((i, first[key]))
        else:
            first[key] = i
            missing.append(i)
    if cost is not None:
        missing.sort(key=lambda i: -cost[i])

    with progress_bar(total=len(tasks), initial=len(tasks) - len(missing), desc=desc, unit=unit,
                      enabled=progress) as bar:
        def done(i: int, get) -> None:
            try:
                out = get()
                if out["version"] != version:
                    here, there = numerics(), out.get("numerics", "?")
                    what = (f"arithmetic libraries (worker: {there}; this process: {here})" if here != there
                            else "omkl_core sources")
                    raise RuntimeError(f"the worker runs different {what} (code version mismatch)")
                result = _normalised(out["result"])
            except Exception as exc:  # noqa: BLE001 - handed to on_error, or raised
                if on_error is None:
                    raise
                result = on_error(exc)
            else:
                if store is not None and not (isinstance(result, dict) and result.get("error")):
                    store.put(keys[i], result)
            results[i] = result
            bar.update(1)

        def args_of(i: int) -> tuple:
            return tuple(data[tasks[i][data_field]]) if data is not None else ()

        try:
            if executor == "serial":
                for i in missing:
                    done(i, lambda i=i: _call_task(fn, tasks[i], *args_of(i)))
            elif executor == "processes" and missing:
                workers = min(max_workers or os.cpu_count() or 1, len(missing))
                _map_processes(fn, tasks, missing, args_of, workers, done)
            elif executor == "dask" and missing:
                _map_dask(fn, tasks, missing, data, data_field, client, done)
        except KeyboardInterrupt as stop:           # Ctrl-C or SIGTERM: (tasks done, cached or not; tasks)
            stop.progress = (sum(r is not None for r in results), len(tasks))
            raise
        for i, j in twins:
            results[i] = results[j]
            bar.update(1)
    return TaskResults(results, cached)


#: Tasks in flight per worker process: the pool is fed as tasks finish, never the whole grid at
#: once (a 300,000-task grid is not queued before the first result is kept).
IN_FLIGHT_PER_WORKER = 4
#: Seconds an interrupted pool waits for results already on their way back before it stops.
RESULT_GRACE_S = 1.0


def _worker_start(parent: int) -> None:
    """In each worker process of the pool: die with the parent, however it dies (Linux:
    ``prctl(PR_SET_PDEATHSIG, SIGTERM)``; elsewhere a thread that polls the parent's PID), and
    leave Ctrl-C to the parent (which stops the pool, keeping the tasks that finished)."""
    import signal  # noqa: PLC0415
    import sys  # noqa: PLC0415
    import threading  # noqa: PLC0415

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threads.worker_environment()        # one thread per engine: the pool's workers are the parallelism
    armed = False
    if sys.platform.startswith("linux"):
        import ctypes  # noqa: PLC0415
        import ctypes.util  # noqa: PLC0415

        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            armed = libc.prctl(1, signal.SIGTERM, 0, 0, 0) == 0        # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):
            armed = False
    if os.getppid() != parent:                                          # the parent died before that
        os._exit(1)
    if not armed:
        def watch():
            while os.getppid() == parent:
                time.sleep(1.0)
            os._exit(1)
        threading.Thread(target=watch, name="omkl-parent-watch", daemon=True).start()


def _stop_pool(pool) -> None:
    """Stop a process pool now: cancel what has not started, end the workers (a task running in one
    is lost, the others are kept by the caller), reap them."""
    procs = list((getattr(pool, "_processes", None) or {}).values())    # before shutdown forgets them
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        if p.is_alive():
            p.terminate()
    for p in procs:
        p.join(timeout=5)
        if p.is_alive():       # pragma: no cover - a worker that ignores SIGTERM
            p.kill()
            p.join()
    if manager is not None:    # it sees the workers gone and closes its pipes: nothing left racing at exit
        manager.join(timeout=5)


def _map_processes(fn, tasks, missing, args_of, workers: int, done) -> None:
    """The missing tasks on a pool of ``workers`` processes, :data:`IN_FLIGHT_PER_WORKER` per worker in
    flight; ``done(i, get)`` keeps each result as it finishes. On an interrupt (or any error) the
    results that finished are kept first, then the pool is stopped at once (:func:`_stop_pool`)."""
    from concurrent.futures import ALL_COMPLETED, FIRST_COMPLETED, wait  # noqa: PLC0415

    pool = ProcessPoolExecutor(max_workers=workers, initializer=_worker_start, initargs=(os.getpid(),))
    queue = iter(missing)
    pending: dict = {}

    def feed() -> None:
        while len(pending) < IN_FLIGHT_PER_WORKER * workers:
            i = next(queue, None)
            if i is None:
                return
            pending[pool.submit(_call_task, fn, tasks[i], *args_of(i))] = i

    kept: set = set()       # futures whose result ``done`` has kept (a future leaves ``pending`` only after)

    def keep(fut) -> None:
        # an interrupt inside ``done`` leaves the future pending, so the handler below keeps it
        if fut not in kept:
            done(pending[fut], fut.result)
            kept.add(fut)
        del pending[fut]

    try:
        feed()
        while pending:
            finished, _ = wait(list(pending), return_when=FIRST_COMPLETED)
            for fut in finished:
                keep(fut)
            feed()
    except BaseException:
        try:                                       # results already on their way back: a moment to arrive
            wait(list(pending), timeout=RESULT_GRACE_S, return_when=ALL_COMPLETED)
        except BaseException:  # noqa: BLE001, S110 - a second Ctrl-C: stop at once
            pass
        for fut in [f for f in pending if f.done() and not f.cancelled() and f.exception() is None]:
            try:                                   # keep what finished (cached), then stop
                keep(fut)
            except Exception:  # noqa: BLE001, S112 - the interrupt is what is raised
                continue
        _stop_pool(pool)
        raise
    pool.shutdown(wait=True)


# ---------------------------------------------------------------------------- the run
#: Most cells (rows) one sweep runs: a larger grid is refused before any work (split it into
#: several sweeps over one cache folder; ``run(..., max_cells=...)`` moves the limit).
MAX_CELLS = 500_000
#: Memory one row holds (a dict of ``ROW_COLUMNS`` and the cell's result, measured with tracemalloc:
#: ~3 KB at 50 curve points), for the estimate checked against the memory available.
_ROW_BYTES, _POINT_BYTES = 1500, 40


def _check_grid(spec: dict, n_rows: int, max_cells: int) -> None:
    """Refuse, before any work, a grid of more than ``max_cells`` rows or whose rows would not fit
    in the memory available (the size and the limit named)."""
    shape = (f"{len(spec['datasets'])} dataset(s) x {len(spec['learners'])} learner(s) x "
             f"{len(spec['seeds']):,} seed(s)")
    per = _ROW_BYTES + _POINT_BYTES * spec["curve_points"]
    if n_rows > max_cells:
        raise ValueError(f"spec: the grid has {n_rows:,} cells ({shape}), more than the {max_cells:,} one sweep "
                         f"runs (its rows alone would hold ~{n_rows * per / 1e9:.3g} GB); split it into several "
                         "sweeps over one cache folder (--cache-dir), or pass max_cells")
    check_memory(n_rows * per, f"the sweep's {n_rows:,} rows ({shape}, ~{per} bytes each)")


def run(spec, *, executor: str = "processes", client=None, cache_dir=None, max_workers: int | None = None,
        progress: bool = True, as_frame: bool = False, max_cells: int | None = None):
    """Run every cell of ``spec`` and return one row per cell (see the module docstring).

    Parameters
    ----------
    spec : dict or str or path, or a list of them
        The grid (keys ``datasets``, ``learners``, ``seeds``, optional ``max_steps`` and
        ``curve_points``; see :func:`load_spec`), or the path of a TOML file holding it. A list of
        grids runs all their cells on one executor (one pool of processes started once), the rows
        of the first grid first: the rows of running each grid on its own.
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
    max_cells : int, optional
        A grid of more cells (rows) is refused before any work (default :data:`MAX_CELLS`), as is
        one whose rows would not fit in the memory available (:func:`omkl_core.validation.check_memory`).

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
    max_cells = MAX_CELLS if max_cells is None else check_int(max_cells, "max_cells")
    specs = [load_spec(one) for one in (spec if isinstance(spec, list) else [spec])]
    if not specs:
        raise ValueError("spec: an empty list of grids")
    for one in specs:
        _check_grid(one, len(one["datasets"]) * len(one["seeds"]) * sum(lrn["repetitions"] or 1 for lrn in one["learners"]),
                    max_cells)
    # each cell names its stream (dataset, max_steps): the grids may cut one dataset differently
    todo = [{**c, "stream": f"{c['dataset']}|{one['max_steps']}"} for one in specs for c in cells(one)]
    version = code_version()
    data = {}
    for one in specs:
        for name in one["datasets"]:
            data.setdefault(f"{name}|{one['max_steps']}", registry.load_dataset(name, one["max_steps"]))
    dhash = {stream: data_hash(*xy) for stream, xy in data.items()}

    keys = [_cell_key(c, dhash[c["stream"]], version) for c in todo]
    results = map_tasks(_run_cell, todo, executor=executor, client=client, max_workers=max_workers,
                        cache_dir=cache_dir, progress=progress, data=data, data_field="stream", keys=keys,
                        on_error=_error_row, desc="sweep cells", unit="cell")
    results = [{**r, "cached": hit} for r, hit in zip(results, results.cached)]

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


def _error_row(exc: BaseException) -> dict:
    """The row of a cell whose task failed outside ``_run_cell`` (e.g. a worker process that died)."""
    return {"mse": math.nan, "mean_loss": math.nan, "final_loss": math.nan, "seconds": math.nan,
            "cpu_seconds": math.nan, "curve_t": [], "curve": [], "T": 0, "error": f"{type(exc).__name__}: {exc}"}


def import_distributed():
    try:
        import distributed  # noqa: PLC0415
    except ImportError:
        raise ImportError("executor='dask' needs dask.distributed, which is not installed: "
                          "pip install 'omkl[dask]'") from None
    return distributed


@contextmanager
def local_client(n_workers: int):
    """A :class:`distributed.Client` of a ``LocalCluster`` of ``n_workers`` processes with one
    thread each (cells pin BLAS to one thread too), closed with the cluster on exit -- also on an
    interrupt (Ctrl-C, or SIGTERM turned into one by ``omkl``), when the cells still running are
    cancelled. The cluster's own log lines below ERROR are not shown (``silence_logs``; Dask's
    default shows warnings, e.g. one per cancelled cell at an interrupt): a failed cell is reported
    in its row.

    >>> with local_client(2) as client:                      # doctest: +SKIP
    ...     rows = run(spec, executor="dask", client=client)
    """
    n_workers = check_int(n_workers, "n_workers")
    distributed = import_distributed()
    with distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=logging.ERROR) as cluster, distributed.Client(cluster) as client:
        yield client


def _dask_client(client):
    """``(client, own)``: the given client, one connected to the given address (``own``: close it
    afterwards) or the current default client."""
    distributed = import_distributed()
    if client is None:
        try:
            return distributed.get_client(), False
        except ValueError:
            raise ValueError("executor='dask' needs client= (a distributed.Client or a scheduler "
                             "address such as 'tcp://host:8786'); no default client exists") from None
    if isinstance(client, str):
        return distributed.Client(client), True
    if not isinstance(client, distributed.Client):
        raise TypeError(f"client must be a distributed.Client or a scheduler address, got {type(client).__name__}")
    return client, False


def _map_dask(fn, tasks, missing, data, data_field, client, done) -> None:
    """Submit the missing tasks to a Dask cluster; each data entry goes to every worker once."""
    distributed = import_distributed()
    client, own = _dask_client(client)
    try:
        needed = dict.fromkeys(tasks[i][data_field] for i in missing) if data is not None else {}
        shared = {name: client.scatter(list(data[name]), broadcast=True) for name in needed}
        futures = {}
        for i in missing:
            args = shared[tasks[i][data_field]] if data is not None else []
            futures[client.submit(_call_task, fn, tasks[i], *args, pure=False)] = i
        for fut in distributed.as_completed(list(futures)):
            done(futures[fut], fut.result)
    finally:
        if own:
            client.close()


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
