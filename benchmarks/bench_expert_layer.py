"""Benchmark of the batched VAW expert layer: ``python benchmarks/bench_expert_layer.py``.

Prints steps/second of the expert layer of paper 000 (N = 76 kernels, m = 50 random
features, lambda = 1) for R = 1 and R = 5 repetitions run together, for both batched
drivers of :class:`omkl_core.vaw.VAWExperts` ("block" = Woodbury over blocks of steps,
"sm" = per-step Sherman-Morrison), and the speed-up over :func:`naive_expert_layer`, the
plain per-expert Python loop kept here as the reference implementation (the tests check
that the batched layer reproduces it)). ``--table2`` also times the whole VAW family of
Table 2 (5 datasets x 5 repetitions: the expert layer once per dataset + 7 meta-learners).

Timings are wall-clock on whatever machine runs it; nothing here is asserted by a test.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from omkl_core import backend as _backend
from omkl_core.features import paper000_dictionary
from omkl_core.vaw import VAWExperts, naive_expert_layer

__all__ = ["bench_expert_layer", "bench_table2", "main"]


def _features(R: int, T: int, d: int, m: int, seed: int):
    """(R, N, T, m) features of the paper-000 dictionary for a random stream, and y."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(T, d))
    X /= np.linalg.norm(X, axis=1).max()
    y = rng.uniform(0, 1, size=T)
    dicts = [paper000_dictionary(d, m=m, seed=seed + r) for r in range(R)]
    Phi = np.stack([D.transform(X).transpose(1, 0, 2) for D in dicts])     # (R, N, T, m)
    return np.ascontiguousarray(Phi), y


def bench_expert_layer(R: int = 1, T: int = 1500, d: int = 5, m: int = 50, method: str = "block",
                       backend: str = "numpy", repeats: int = 3, seed: int = 0) -> dict:
    """Steps/second of the batched layer on (R, 76, T, m) features (best of ``repeats``)."""
    Phi, y = _features(R, T, d, m, seed)
    xp = _backend.get_namespace(backend)
    Phi_dev = Phi if xp is np else _backend.asarray(Phi, xp)
    best = np.inf
    Z = None
    for _ in range(repeats):
        layer = VAWExperts(lam=1.0, backend=backend, method=method)
        t0 = time.perf_counter()
        Z = layer.run(Phi_dev, y)
        if xp is not np:
            xp.cuda.Stream.null.synchronize()
        best = min(best, time.perf_counter() - t0)
    return {"R": R, "N": Phi.shape[1], "m": m, "T": T, "method": method, "backend": backend,
            "seconds": best, "steps_per_s": T / best, "us_per_step": best / T * 1e6, "Z": Z,
            "Phi": Phi, "y": y}


def bench_naive(R: int = 1, T: int = 100, d: int = 5, m: int = 50, seed: int = 0) -> dict:
    Phi, y = _features(R, T, d, m, seed)
    t0 = time.perf_counter()
    Z = naive_expert_layer(Phi, y)
    sec = time.perf_counter() - t0
    return {"R": R, "T": T, "seconds": sec, "steps_per_s": T / sec, "us_per_step": sec / T * 1e6, "Z": Z}


def bench_table2(repetitions: int = 5, backend: str = "numpy", quick: bool = False) -> dict:
    """Wall-clock of the whole VAW family of Table 2: per dataset the expert layer once
    (R repetitions batched) + the 7 meta-learners on the shared expert predictions."""
    from . import datasets, mkl  # noqa: PLC0415

    out = {}
    t_all = time.perf_counter()
    for name in ("ar4", "airfoil", "bias", "concrete", "naval"):
        X, y = datasets.ar4() if name == "ar4" else datasets.load(name)
        if quick:
            X, y = X[:500], y[:500]
        t0 = time.perf_counter()
        Z = mkl.expert_predictions(X, y, repetitions=repetitions, seed=0, backend=backend)
        t1 = time.perf_counter()
        for row in mkl.TABLE2_ROWS:
            mkl.make_meta(row).run(Z, y)
        t2 = time.perf_counter()
        out[name] = (X.shape[0], t1 - t0, t2 - t1)
    out["total"] = time.perf_counter() - t_all
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="benchmarks/bench_expert_layer.py", description=__doc__.split("\n")[0])
    ap.add_argument("--T", type=int, default=1500, help="time steps for the batched layer")
    ap.add_argument("--naive-T", type=int, default=100, help="time steps for the naive loop")
    ap.add_argument("--backend", default="numpy", choices=["numpy", "cupy", "auto"])
    ap.add_argument("--table2", action="store_true", help="also time the whole Table-2 VAW family")
    ap.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    args = ap.parse_args(argv)
    T, nT = (200, 20) if args.quick else (args.T, args.naive_T)

    print("VAW expert layer of paper 000: N = 76 kernels, m = 50 features, lambda = 1")
    naive = bench_naive(R=1, T=nT)
    print(f"  naive per-expert Python loop (R=1): {naive['steps_per_s']:10.1f} steps/s "
          f"({naive['us_per_step']:9.1f} us/step)")
    for R in (1, 5):
        for method in ("sm", "block"):
            r = bench_expert_layer(R=R, T=T, method=method, backend=args.backend,
                                   repeats=1 if args.quick else 3)
            # identical predictions to the naive reference on the first steps (R=1 only)
            check = ""
            if R == 1:
                ref = naive_expert_layer(r["Phi"][:, :, :nT], r["y"][:nT])
                err = float(np.max(np.abs(r["Z"][..., :nT] - ref)))
                check = f"  max|Z - Z_naive| = {err:.1e}"
            ratio = r["steps_per_s"] / naive["steps_per_s"] * (1 if R == 1 else R)
            print(f"  batched {method:5s} R={R} ({args.backend}): {r['steps_per_s']:10.1f} steps/s "
                  f"({r['us_per_step']:9.1f} us/step), {ratio:7.1f}x the naive loop "
                  f"(per expert-step){check}")
    if args.table2:
        res = bench_table2(quick=args.quick, backend=args.backend)
        print("Table 2 VAW family (5 repetitions): expert layer + 7 meta-learners")
        for name, v in res.items():
            if name != "total":
                print(f"  {name:9s} T={v[0]:6d}: experts {v[1]:6.1f} s, meta-learners {v[2]:6.1f} s")
        print(f"  total {res['total']:.1f} s")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
