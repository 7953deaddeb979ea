"""Benchmark: Algorithm 1 of paper 001 (NoisyKernelOGD), vectorised Prod versus the naive
reference that calls the literal Subroutine 3 / 6 once per stored estimate.

    .venv/bin/python benchmarks/bench_noisy.py [T ...]

Prints, per kernel and horizon T, the wall-clock seconds of one pass (d = 5, p = 2, Gaussian
noise, smoothed hinge loss) and the ratio naive / vectorised. Both modes use the same seeds
and agree to round-off (checked here on the final predictor).
"""
from __future__ import annotations

import sys
import time

import numpy as np

import omkl_core as ok
from omkl_core import noisy as nz


def one_pass(kernel, T, mode, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.5, 0.5, size=(T, 5))
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1.0, -1.0)
    m = ok.NoisyKernelOGD(kernel, nz.SmoothedHingeLoss(1.0), T=T, eta=1.0, p=2.0, B_w=4.0,
                          noise=nz.GaussianNoise(0.1), seed=seed, prod_mode=mode)
    t0 = time.perf_counter()
    m.trajectory(X, y)
    return time.perf_counter() - t0, m


def main(Ts=(500,)):
    rows = []
    for kname, kernel in (("polynomial(2,1)", nz.polynomial_kernel(2, 1.0)),
                          ("gaussian(1)", nz.GaussianKernel(1.0))):
        for T in Ts:
            tv, mv = one_pass(kernel, T, "vectorised")
            tl, ml = one_pass(kernel, T, "loop")
            xq = np.full(5, 0.1)
            assert np.isclose(mv.predict_one(xq), ml.predict_one(xq), rtol=1e-8, atol=1e-12)
            rows.append((kname, T, tv, tl, tl / tv))
            print(f"{kname:16s} T={T:5d}  vectorised {tv:7.3f} s   naive loop {tl:8.3f} s   "
                  f"ratio {tl / tv:6.1f}", flush=True)
    return rows


if __name__ == "__main__":
    main(tuple(int(a) for a in sys.argv[1:]) or (500,))
