"""Run time per run of paper 003's algorithms beside the paper's (Tables 1-4):
``python benchmarks/bench_paper003.py [--datasets Airfoil Naval] [--repetitions 10]``.

For every dataset and algorithm (section 5 settings: 41 Gaussian kernels, D = 50, eta = xi =
1/sqrt(T), lambda = 1e-3, M = 5; OMKL-GF M = 10) it prints

* ``one run``: wall-clock of one repetition run alone (``run``), the quantity the paper reports
  (its hardware: an i7-10510U laptop; reference E.3);
* ``batched / run``: the time of ``--repetitions`` repetitions run as one batched pass, divided
  by their number (how the notebook runs them);
* the paper's time and the speed-up paper / ours for both.

OMKR is O(T^2): on Naval it is timed on prefixes (``--omkr-prefixes``), a least-squares fit
t(T) = a + b T + c T^2 is reported with its residuals, and the full-length time is extrapolated
from it (``--omkr-full`` also runs the whole stream). Timings are wall-clock on whatever
machine runs this (shared machines are noisy); nothing is asserted.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import omkl_core as ok
import omkl_core.repro as repro

__all__ = ["make", "time_one", "omkr_fit", "main"]

FILES = {"Airfoil": "airfoil", "Concrete": "concrete", "Naval": "naval", "Wine": "wine_white"}
TABLE = {"Airfoil": 1, "Concrete": 2, "Naval": 3, "Wine": 4}
ALGOS = ["OMKR", "Raker", "OMKL-GF", "SFG-MKL", "SFG-MKL-R"]


CLASSES = {"OMKR": "OMKR", "Raker": "Raker", "OMKL-GF": "OMKLGF", "SFG-MKL": "SFGMKL", "SFG-MKL-R": "SFGMKLR"}


def make(name: str, T: int, seed: int = 0):
    """Learner ``name`` with paper 003 section 5's settings for T steps (``ok.registry.paper003``)."""
    cls = CLASSES[name]
    params = ok.registry.paper003.defaults(T, cls)
    return getattr(ok, cls)(**params) if cls == "OMKR" else getattr(ok, cls)(**params, seed=seed)


def time_one(name, X, y):
    t0 = time.perf_counter()
    make(name, len(y)).run(X, y)
    return time.perf_counter() - t0


def time_batched(name, X, y, R):
    t0 = time.perf_counter()
    make(name, len(y)).run_repetitions(X, y, R)
    return (time.perf_counter() - t0) / R


def omkr_fit(X, y, prefixes):
    """Times of OMKR on prefixes and the least-squares fit a + b T + c T^2 (returns coefs, times)."""
    Ts = np.asarray(prefixes)
    times = np.array([time_one("OMKR", X[:T], y[:T]) for T in Ts])
    A = np.stack([np.ones_like(Ts, dtype=float), Ts, Ts.astype(float) ** 2], axis=1)
    coef, *_ = np.linalg.lstsq(A, times, rcond=None)
    return coef, times


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="*", default=list(FILES))
    ap.add_argument("--repetitions", type=int, default=10)
    ap.add_argument("--omkr-prefixes", nargs="*", type=int, default=[1000, 2000, 3000, 4000])
    ap.add_argument("--omkr-full", action="store_true", help="also run OMKR on the whole Naval stream")
    args = ap.parse_args(argv)
    print(f"{'dataset':9s} {'algorithm':10s} {'one run s':>10s} {'batched/run s':>14s} {'paper s':>10s} "
          f"{'speed-up (one)':>15s} {'speed-up (batched)':>19s}")
    for ds in args.datasets:
        X, y = ok.datasets.load(FILES[ds])
        for name in ALGOS:
            paper = repro.paper_values.published_value("003", TABLE[ds], ds, name, "runtime")
            if name == "OMKR" and ds == "Naval" and not args.omkr_full:
                coef, times = omkr_fit(X, y, args.omkr_prefixes)
                T = len(y)
                est = coef[0] + coef[1] * T + coef[2] * T * T
                fit = coef[0] + coef[1] * np.asarray(args.omkr_prefixes) + coef[2] * np.asarray(args.omkr_prefixes) ** 2
                print(f"{ds:9s} {name:10s} {est:10.2f} {'(extrapolated)':>14s} {paper:10.2f} {paper / est:15.1f}"
                      f"   prefixes {args.omkr_prefixes}: {np.round(times, 2).tolist()} s, fit a+bT+cT^2 = "
                      f"{coef[0]:.3g} + {coef[1]:.3g} T + {coef[2]:.3g} T^2 (max rel. residual "
                      f"{np.max(np.abs(fit - times) / times):.1%})")
                continue
            one = time_one(name, X, y)
            bat = one if name == "OMKR" else time_batched(name, X, y, args.repetitions)
            print(f"{ds:9s} {name:10s} {one:10.2f} {bat:14.3f} {paper:10.2f} {paper / one:15.1f} {paper / bat:19.1f}",
                  flush=True)


if __name__ == "__main__":
    main()
