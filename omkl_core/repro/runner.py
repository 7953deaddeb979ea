"""Where the reproduction's learner runs go: the one runner is :mod:`omkl_core.sweep`'s executors.

``./reproduce.sh --local N`` and ``--scheduler ADDRESS`` set ``OMKL_EXECUTOR`` / ``OMKL_SCHEDULER``
for the notebooks they run; every paper module passes :func:`executor_kwargs` to
:func:`omkl_core.sweep.run` (or the sweep's task map), so the same numbers come out of a
serial run, a local process pool or a Dask cluster.
"""
from __future__ import annotations

import os
from contextlib import contextmanager

__all__ = ["executor_kwargs", "describe", "local_cluster"]


def executor_kwargs(max_workers: int | None = None) -> dict:
    """``executor=`` / ``client=`` / ``max_workers=`` for the sweep, from the environment:
    ``OMKL_SCHEDULER`` (a Dask scheduler address: the cluster the driver started with ``--local N``
    or the one named by ``--scheduler``) -> ``executor="dask"``; else ``OMKL_EXECUTOR``
    (``serial`` / ``processes``, default ``processes``) with ``max_workers`` processes (default:
    every core)."""
    scheduler = os.environ.get("OMKL_SCHEDULER")
    if scheduler:
        return {"executor": "dask", "client": scheduler}
    executor = os.environ.get("OMKL_EXECUTOR", "processes")
    if executor not in ("serial", "processes"):
        raise ValueError(f"OMKL_EXECUTOR must be 'serial' or 'processes' (Dask: set OMKL_SCHEDULER), got {executor!r}")
    return {"executor": executor, "max_workers": max_workers} if executor == "processes" else {"executor": "serial"}


def describe() -> str:
    """One line naming where the runs go (for the notebooks' first output)."""
    kw = executor_kwargs()
    if kw["executor"] == "dask":
        return f"runs on the Dask cluster at {kw['client']}"
    if kw["executor"] == "serial":
        return "runs serially in this process"
    return f"runs on a local process pool ({kw.get('max_workers') or os.cpu_count()} workers)"


@contextmanager
def local_cluster(n_workers: int):
    """A Dask ``LocalCluster`` of ``n_workers`` worker processes with one thread each (tasks pin
    BLAS to one thread too), no dashboard; yields its scheduler address, closes it on exit. What
    ``./reproduce.sh --local N`` runs the notebooks' learner runs on."""
    if isinstance(n_workers, bool) or not isinstance(n_workers, int) or n_workers < 1:
        raise ValueError(f"n_workers must be a positive integer, got {n_workers!r}")
    try:
        import distributed  # noqa: PLC0415
    except ImportError:
        raise ImportError("--local needs dask.distributed, which is not installed: pip install 'omkl[dask]'") from None
    cluster = distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                                       dashboard_address=":0")      # any free port: never a clash
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()
