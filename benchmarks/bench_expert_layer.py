"""Benchmark of the batched VAW expert layer: ``python benchmarks/bench_expert_layer.py``.

Prints steps/second of the expert layer of paper 000 (N = 76 kernels, m = 50 random
features, lambda = 1) for R = 1 and R = 5 repetitions run together, for both batched
drivers of :class:`omkl_core.vaw.VAWExperts` ("block" = Woodbury over blocks of steps,
"sm" = per-step Sherman-Morrison), and the speed-up over :func:`naive_expert_layer`, the
plain per-expert Python loop kept here as the reference implementation (the tests check
that the batched layer reproduces it)). ``--table2`` also times the whole VAW family of
Table 2 (5 datasets x 5 repetitions: the expert layer once per dataset + 7 meta-learners).

**Flop floor.** One step of the expert layer is, per expert, the Sherman-Morrison recursion
(10): u = P phi (2m^2 flops), s = phi.u, r = w.phi, k = u/(1+s), w += k (y - r) (7m) and
P -= k u^T (2m^2), i.e. N (4m^2 + 7m) flops per step -- 0.79 MFLOP for N = 76, m = 50.
``floor`` measures this machine's matrix throughput on the products the layer is made of
(batched (N, 16, m) @ (N, m, m + 1) and (N, m, 16) @ (N, 16, m + 1), best of several runs, one
thread) and on one large square product (peak), and prints floor = flops / throughput, our
us/step and the ratio, all measured in the same run (absolute times on shared machines are noisy).
Every number is printed for both engines of :mod:`omkl_core.compiled` ("numpy" and, when
Numba is installed, "numba") and both drivers, measured in the same run, for R = 1 and R = 5.
``--compare-gpu`` times the expert layer of all R repetitions batched on NumPy and on CuPy
(when a CuPy GPU is usable).

Timings are wall-clock on whatever machine runs it; nothing here is asserted by a test.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from omkl_core import backend as _backend
from omkl_core import compiled, mkl, registry
from omkl_core.features import paper000_dictionary
from omkl_core.vaw import VAWExperts, naive_expert_layer

__all__ = ["bench_expert_layer", "bench_table2", "bench_floor", "bench_cpu_vs_gpu", "flops_per_step", "main"]


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
                       backend: str = "numpy", repeats: int = 3, seed: int = 0, clock=time.perf_counter) -> dict:
    """Steps/second of the batched layer on (R, 76, T, m) features (best of ``repeats``);
    ``clock=time.process_time`` measures CPU time instead of wall-clock."""
    Phi, y = _features(R, T, d, m, seed)
    xp = _backend.get_namespace(backend)
    Phi_dev = Phi if xp is np else _backend.asarray(Phi, xp)
    best = np.inf
    Z = None
    for _ in range(repeats):
        layer = VAWExperts(lam=1.0, backend=backend, method=method)
        t0 = clock()
        Z = layer.run(Phi_dev, y)
        if xp is not np:
            xp.cuda.Stream.null.synchronize()
        best = min(best, clock() - t0)
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
    out = {}
    t_all = time.perf_counter()
    for name in ("ar4", "airfoil", "bias", "concrete", "naval"):
        X, y = registry.load_dataset(name, 500 if quick else None)
        t0 = time.perf_counter()
        Z = mkl.expert_predictions(X, y, repetitions=repetitions, seed=0, backend=backend)
        t1 = time.perf_counter()
        for row in mkl.TABLE2_ROWS:
            mkl.make_meta(row).run(Z, y)
        t2 = time.perf_counter()
        out[name] = (X.shape[0], t1 - t0, t2 - t1)
    out["total"] = time.perf_counter() - t_all
    return out


def flops_per_step(N: int = 76, m: int = 50) -> int:
    """Flops of one step of the Sherman-Morrison recursion (10) for N experts: N (4 m^2 + 7 m)."""
    return N * (4 * m * m + 7 * m)


def _best_time(f, repeats: int, clock=time.process_time, inner: int = 20) -> float:
    """Best over ``repeats`` of the mean time of ``inner`` calls (CPU time by default)."""
    f()
    best = np.inf
    for _ in range(repeats):
        t0 = clock()
        for _ in range(inner):
            f()
        best = min(best, (clock() - t0) / inner)
    return best


def matmul_gflops(N: int = 76, m: int = 50, k: int = 16, repeats: int = 5, seed: int = 0) -> dict:
    """GFLOP/s of the dense products of the expert layer's sizes (best of ``repeats``):
    ``layer``: (N, k, m) @ (N, m, m+1) and (N, m, k) @ (N, k, m+1) batched, as in a block;
    ``square``: one 512 x 512 product (the machine's peak for reference)."""
    rng = np.random.default_rng(seed)
    F, Pw = rng.standard_normal((N, k, m)), rng.standard_normal((N, m, m + 1))
    Vt, VG = rng.standard_normal((N, m, k)), rng.standard_normal((N, k, m + 1))
    out1, out2 = np.empty((N, k, m + 1)), np.empty((N, m, m + 1))
    t1 = _best_time(lambda: np.matmul(F, Pw, out=out1), repeats)
    t2 = _best_time(lambda: np.matmul(Vt, VG, out=out2), repeats)
    A = rng.standard_normal((512, 512))
    t3 = _best_time(lambda: A @ A, repeats, inner=3)
    fl = 2 * N * k * m * (m + 1)
    return {"layer": 2 * fl / (t1 + t2) / 1e9, "square": 2 * 512 ** 3 / t3 / 1e9}


def bench_floor(T: int = 1500, repeats: int = 5, method: str = "block", N: int = 76, m: int = 50,
                R: int = 1, engines=("numpy", "numba")) -> dict:
    """Our us/step (one BLAS thread when threadpoolctl is installed) for each engine of
    :mod:`omkl_core.compiled` (``numba`` only when Numba imports) against the flop floor of R x N
    experts at the matrix throughput measured just before and just after (best of both).
    All are CPU time of this process (``time.process_time``), so other processes sharing the
    cores slow neither side of the ratio. ``method``: a driver name or a tuple of them."""
    try:
        from threadpoolctl import threadpool_limits  # noqa: PLC0415
        limit = threadpool_limits(limits=1)
    except ImportError:  # pragma: no cover
        limit = None
    methods = (method,) if isinstance(method, str) else tuple(method)
    engines = [e for e in engines if e != "numba" or compiled.numba_available()]
    times = {}
    try:
        g0 = matmul_gflops(N=N, m=m)
        for eng in engines:
            with compiled.engine(eng):
                bench_expert_layer(R=R, T=min(T, 40), m=m, method=methods[0], repeats=1)   # compile/warm up
                for meth in methods:
                    r = bench_expert_layer(R=R, T=T, m=m, method=meth, repeats=repeats, clock=time.process_time)
                    times[(eng, meth)] = r["us_per_step"]
        g1 = matmul_gflops(N=N, m=m)
    finally:
        if limit is not None:
            limit.restore_original_limits()
    fl = R * flops_per_step(N, m)
    out = {"R": R, "flops_per_step": fl, "us_per_step": times, "us_per_step_default": times[(engines[0], methods[0])]}
    for name in ("layer", "square"):
        gf = max(g0[name], g1[name])
        out[f"gflops_{name}"] = gf
        out[f"floor_us_{name}"] = fl / (gf * 1e3)
        out[f"ratio_{name}"] = {key: t / out[f"floor_us_{name}"] for key, t in times.items()}
    return out


def bench_cpu_vs_gpu(R: int = 5, T: int = 1500, d: int = 5, m: int = 50) -> dict | None:
    """Seconds of the expert layer with all R repetitions batched on NumPy and on CuPy
    (None when no CuPy GPU is usable)."""
    if not _backend.cupy_available():
        return None
    cpu = bench_expert_layer(R=R, T=T, d=d, m=m, backend="numpy", repeats=1)
    gpu = bench_expert_layer(R=R, T=T, d=d, m=m, backend="cupy", repeats=3)
    err = float(np.max(np.abs(cpu["Z"] - gpu["Z"])))
    return {"R": R, "T": T, "cpu_s": cpu["seconds"], "gpu_s": gpu["seconds"],
            "speedup": cpu["seconds"] / gpu["seconds"], "max_abs_diff": err}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="benchmarks/bench_expert_layer.py", description=__doc__.split("\n")[0])
    ap.add_argument("--T", type=int, default=1500, help="time steps for the batched layer")
    ap.add_argument("--naive-T", type=int, default=100, help="time steps for the naive loop")
    ap.add_argument("--backend", default="numpy", choices=["numpy", "cupy", "auto"])
    ap.add_argument("--table2", action="store_true", help="also time the whole Table-2 VAW family")
    ap.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    ap.add_argument("--floor-only", action="store_true", help="only the flop floor / our time / ratio")
    ap.add_argument("--compare-gpu", action="store_true", help="also NumPy vs CuPy, R = 5 repetitions batched")
    args = ap.parse_args(argv)
    T, nT = (200, 20) if args.quick else (args.T, args.naive_T)


    with compiled.engine("auto"):
        auto = "numba" if compiled.use_numba() else "numpy"
        chosen = VAWExperts().resolved_method()
    print(f"engine 'auto' runs: {auto} (OMKL_ENGINE={compiled.get_engine()!r} in force); VAWExperts default method "
          f"'auto' runs {chosen!r} there")
    for R in (1, 5):
        f = bench_floor(T=T, R=R, repeats=1 if args.quick else 3, method=("block", "sm"))
        print(f"flop floor of the expert layer (R = {R} x N = 76, m = 50, one thread, CPU time): "
              f"{f['flops_per_step'] / 1e6:.3f} MFLOP/step")
        for name, what in (("layer", "batched products of the layer's sizes"), ("square", "512 x 512 product (peak)")):
            print(f"  {what:40s}: {f[f'gflops_{name}']:6.1f} GFLOP/s -> floor {f[f'floor_us_{name}']:7.1f} us/step")
        for (eng, meth), us in f["us_per_step"].items():
            print(f"  engine {eng:5s} method {meth:5s}: {us:7.1f} us/step = {f['ratio_layer'][(eng, meth)]:5.2f}x the "
                  f"layer floor, {f['ratio_square'][(eng, meth)]:5.2f}x the peak floor")
    if args.floor_only:
        return 0

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
    if args.compare_gpu:
        g = bench_cpu_vs_gpu(R=5, T=T)
        if g is None:
            print("CPU vs GPU: no usable CuPy GPU on this machine (skipped)")
        else:
            print(f"CPU vs GPU, expert layer, R = {g['R']} repetitions batched, T = {g['T']}: numpy {g['cpu_s']:.2f} s, "
                  f"cupy {g['gpu_s']:.2f} s ({g['speedup']:.1f}x), max|Z_cpu - Z_gpu| = {g['max_abs_diff']:.1e}")
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
