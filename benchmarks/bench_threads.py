"""Do more threads pay? ``python benchmarks/bench_threads.py`` (the threads table of issue 44).

The library's one thread setting (:mod:`omkl_core.threads`) drives NumPy's BLAS, oneMKL's vector
math (the feature map's cosine, ``fast`` extra) and Numba. This script runs the library's heavy
single-process workloads -- VAW2's ``run`` at m = 100 and 400 (features: one GEMM and one cosine
call per block of steps; experts: the compiled Sherman-Morrison loop), OMKR's ``run`` (exact
kernels) and SFG-MKL's ``run`` (paper 003; small per-step GEMVs) -- on Airfoil with
``threads.using(1)`` and ``threads.using(2)`` ... ``using(cores)``, and prints the wall time
(``perf_counter``) and the CPU time (``process_time``, every thread of the process) of each, best
of ``--repeats``, with the speed-up (wall at 1 / wall at n) and the parallel efficiency
(speed-up / n). All numbers come from one run, alternating the counts, so the ratios are what to
read on a shared machine. The predictions are checked to be the same at every count.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

import omkl_core as ok
from omkl_core import threads


def _workloads(X, y):
    return [
        ("VAW2 m = 100 (run)", lambda: ok.VAW2(m=100).run(X, y)),
        ("VAW2 m = 400 (run)", lambda: ok.VAW2(m=400).run(X, y)),
        ("OMKR (run, exact kernels, first 1000 steps)", lambda: ok.OMKR().run(X[:1000], y[:1000])),
        ("SFG-MKL m = 50 (run)", lambda: ok.SFGMKL(m=50).run(X, y)),
    ]


def measure(fn, n: int, repeats: int):
    """(best wall s, CPU s of that run, predictions) of ``fn()`` with ``n`` threads."""
    best = (np.inf, np.inf, None)
    with threads.using(n):
        for _ in range(repeats):
            t0, c0 = time.perf_counter(), time.process_time()
            out = fn()
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            if wall < best[0]:
                best = (wall, cpu, out)
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="benchmarks/bench_threads.py", description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=None, help="also write the table (markdown) to this file")
    args = ap.parse_args(argv)
    X, y = ok.datasets.load("airfoil")
    cores = os.cpu_count() or 1
    counts = list(range(1, cores + 1))
    ok.VAW2(m=4).run(X[:40], y[:40])                       # compile / load the kernels and libmkl_rt
    lines = [f"Airfoil (T = {X.shape[0]}), {cores} cores; engine {ok.config.config()['engine']}, feature-map "
             f"cosine {ok.cosine.library()}; best wall time of {args.repeats} per count, its CPU time "
             "(every thread of the process); counts alternated within one run",
             "", "| workload | threads | wall (s) | CPU (s) | CPU / wall | speed-up | parallel efficiency | "
             "same predictions |", "|---|---|---|---|---|---|---|---|"]
    for name, fn in _workloads(X, y):
        res = {n: measure(fn, n, args.repeats) for n in counts}
        w1, _, p1 = res[1]
        for n in counts:
            wall, cpu, pred = res[n]
            same = "bit for bit" if np.array_equal(pred, p1) else f"to {np.max(np.abs(pred - p1)):.0e}"
            lines.append(f"| {name} | {n} | {wall:.3f} | {cpu:.3f} | {cpu / wall:.2f} | {w1 / wall:.2f}× | "
                         f"{w1 / wall / n:.0%} | {same} |")
        print(lines[-len(counts)], "\n".join(lines[-len(counts) + 1:]), sep="\n", flush=True)
    lines += ["", f"threads.info() at the end: {threads.info()}"]
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
