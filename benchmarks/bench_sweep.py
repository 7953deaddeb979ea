"""Speed-up of :func:`omkl_core.sweep.run` with the number of workers: ``python benchmarks/bench_sweep.py``.

Runs one small grid (default: VAW2 and VAW-EWA, m = 50, 76 kernels, Airfoil and Concrete,
first 1,000 steps, 6 seeds = 24 cells) with the serial executor, the process pool and a Dask
``LocalCluster`` of 1, 2 and 4 single-threaded worker processes (cluster start-up excluded),
without a cache, and prints wall-clock seconds, the speed-up over one worker of the same
executor, the CPU seconds per cell, and whether every run's rows equal the serial rows (all
columns but the timings). The load average is printed before and after: on a shared machine
the speed-ups say little, so read them with it.

Nothing here is asserted by a test.
"""
from __future__ import annotations

import argparse
import logging
import os
import time

import pandas as pd

from omkl_core import sweep

__all__ = ["grid", "main"]

_TIMING = ["seconds", "cpu_seconds", "cached"]


def grid(max_steps: int = 1000, seeds: int = 6) -> dict:
    return {"datasets": ["airfoil", "concrete"],
            "learners": [{"name": "VAW2", "params": {"m": 50}}, {"name": "VAWEWA", "params": {"m": 50}}],
            "seeds": list(range(seeds)), "max_steps": max_steps}


def _same(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    cols = [c for c in a.columns if c not in _TIMING]
    return a[cols].astype(str).equals(b[cols].astype(str))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-steps", type=int, default=1000)
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--no-dask", action="store_true")
    args = ap.parse_args(argv)
    spec = grid(args.max_steps, args.seeds)
    n = len(sweep.cells(spec))
    print(f"grid: {n} cells; cores: {os.cpu_count()}; load average before: {os.getloadavg()[0]:.2f}")

    t0 = time.perf_counter()
    ref = sweep.run(spec, executor="serial", progress=False, as_frame=True)
    base = time.perf_counter() - t0
    print(f"  serial                 {base:7.1f} s   CPU/cell {ref['cpu_seconds'].mean():.3f} s")

    def report(label, rows, wall, one):
        print(f"  {label:22s} {wall:7.1f} s   x{one / wall:4.2f} vs 1 worker   CPU/cell "
              f"{rows['cpu_seconds'].mean():.3f} s   rows == serial: {_same(ref, rows)}")

    one = None
    for w in args.workers:
        t0 = time.perf_counter()
        rows = sweep.run(spec, executor="processes", max_workers=w, progress=False, as_frame=True)
        wall = time.perf_counter() - t0
        one = one or wall
        report(f"processes, {w} worker(s)", rows, wall, one)

    if not args.no_dask:
        import distributed  # noqa: PLC0415

        one = None
        for w in args.workers:
            with distributed.LocalCluster(n_workers=w, threads_per_worker=1, processes=True,
                                          dashboard_address=None, silence_logs=logging.CRITICAL) as cluster, distributed.Client(cluster) as client:
                t0 = time.perf_counter()
                rows = sweep.run(spec, executor="dask", client=client, progress=False, as_frame=True)
                wall = time.perf_counter() - t0
            one = one or wall
            report(f"dask, {w} worker(s)", rows, wall, one)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
