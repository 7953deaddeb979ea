"""Vectorised cosines against ``np.cos``: ``python benchmarks/bench_cosine.py``.

The feature map of paper 000 (section 2: sqrt(2) cos(<omega, x> + b)) spends half of VAW2's
run at m = 100 in the cosine. This script times, on one thread, every cosine it can import
(:data:`omkl_core.cosine.LIBRARIES`: NumPy's ``np.cos``, oneMKL's ``vmdCos``, ``mkl_umath.cos``,
``numexpr``'s ``cos`` and Numba's compiled ``np.cos`` loop) on the run's own arguments (the
T x N x m values <omega, x_t> + b that ``VAW2(m=m, seed=0)`` computes on the whole Airfoil stream,
in its time blocks of 256 steps, in place), and reports each one's largest difference from
``np.cos`` in units of the last place (ulp of ``np.cos``'s result) on those arguments and on a
wide sweep (|x| up to 1e6, and the feature map's whole argument range). ``omkl_core.cosine``
uses the fastest library that is installed, agrees with ``np.cos`` to 2 ulp and gives an element
the same bits whatever call it is computed in.
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"      # one core by definition

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from omkl_core import cosine, registry  # noqa: E402
from omkl_core.mkl.vaw2 import draw_dictionaries  # noqa: E402


def run_arguments(m: int = 100, seed=0, time_block: int = 256, dataset: str = "airfoil"):
    """The arguments <omega_j, x_t> + b_j of VAW2(m=m, seed=seed) on the whole stream, as the
    learner lays them out: a list of (N, T_b, m) blocks."""
    X, _ = registry.load_dataset(dataset, None)
    (D,) = draw_dictionaries(X.shape[1], m, 1, seed, None, "cos", "numpy")
    W, b = D.omega_, D.b_[:, None, :]
    return [np.matmul(X[s:s + time_block], W) + b for s in range(0, X.shape[0], time_block)]


def wide_sweep(n: int = 2_000_000, seed: int = 1) -> np.ndarray:
    """Arguments from 1e-8 to 1e6 in size (log-uniform, both signs), plus a dense uniform grid
    over [-200, 200] (the feature map's arguments on normalised data: |<omega, x>| + 2 pi)."""
    rng = np.random.default_rng(seed)
    a = np.exp(rng.uniform(np.log(1e-8), np.log(1e6), n)) * rng.choice([-1.0, 1.0], n)
    return np.concatenate([a, np.linspace(-200.0, 200.0, n)])


def max_ulp(f, x: np.ndarray) -> float:
    """Largest |f(x) - np.cos(x)| in ulps of np.cos(x)."""
    ref = np.cos(x)
    got = np.empty_like(x)
    f(x.copy(), got)
    return float(np.max(np.abs(got - ref) / np.spacing(np.abs(ref))))


def call_invariant(f, x: np.ndarray) -> bool:
    """Whether f gives each element the same bits computed in one call, in calls of 7 elements,
    one element at a time (first 2000) and on a strided view (the property a learner needs for
    ``run``, block by block, and ``predict_one`` to agree bit for bit)."""
    whole = f(x.copy(), np.empty_like(x))
    parts = np.concatenate([f(x[s:s + 7].copy(), np.empty(len(x[s:s + 7]))) for s in range(0, x.size, 7)])
    ones = np.array([f(x[i:i + 1].copy(), np.empty(1))[0] for i in range(2000)])
    strided = f(x[::2], np.empty(x[::2].size))
    return bool(np.array_equal(whole, parts) and np.array_equal(whole[:2000], ones)
                and np.array_equal(whole[::2], strided))


def seconds(f, blocks, repeats: int = 3) -> float:
    """CPU seconds of f on every block (in place), best of ``repeats``."""
    work = [blk.copy() for blk in blocks]
    f(work[0], work[0])                                     # load / compile
    best = np.inf
    for _ in range(repeats):
        for w, blk in zip(work, blocks):
            w[...] = blk
        t0 = time.process_time()
        for w in work:
            f(w, w)
        best = min(best, time.process_time() - t0)
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="benchmarks/bench_cosine.py", description=__doc__.split("\n")[0])
    ap.add_argument("--m", type=int, nargs="+", default=[100], help="random features per kernel")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    sweep = wide_sweep()
    libs = cosine.available()
    print(f"libraries importable: {', '.join(libs)}; cosine uses: {cosine.library()}")
    for m in args.m:
        blocks = run_arguments(m)
        n = sum(b.size for b in blocks)
        run_args = np.concatenate([b.ravel() for b in blocks])
        print(f"\nm = {m}: {n / 1e6:.1f} M cosines of VAW2's arguments on Airfoil (|x| <= {np.abs(run_args).max():.3g})")
        print("| library | M cos/s | vs np.cos | max ulp (run's args) | max ulp (wide sweep) | same bits in any call |")
        print("|---|---|---|---|---|---|")
        base = None
        for name in libs:
            f = cosine.cos_function(name)
            s = seconds(f, blocks, args.repeats)
            base = base or s
            inv = "yes" if call_invariant(f, run_args[:200_000]) else "no"
            print(f"| {name} | {n / s / 1e6:.0f} | {base / s:.2f}× | {max_ulp(f, run_args):.2f} | {max_ulp(f, sweep):.2f} "
                  f"| {inv} |")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
