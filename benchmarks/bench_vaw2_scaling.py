"""How VAW2's cost grows: ``python benchmarks/bench_vaw2_scaling.py`` (a few minutes).

CPU time per step of paper 000's VAW2 end to end (features, N expert VAWs, meta VAW), one
thread (``time.process_time``, BLAS pinned to one thread as in ``bench_vaw2_floor.py``), swept
one parameter at a time around the paper's setting (N = 76 kernels, R = 1), on Airfoil:

* m (random features per kernel) 50-1600, T = 512 steps: theory m^2 (the 4 N m^2 flops of the
  expert updates; the N m cosines add a term linear in m that matters at small m, so the
  log-log slope climbs from ~1 towards 2: the two-term fit a m + b m^2 is printed too);
* N (kernels) 8-300, m = 100, T = 512: theory N (a dictionary of N kernels spread over the
  paper's bandwidth range, 51:25 Gaussian:Laplacian as in section 4);
* T (stream length) 256-6012, m = 100: prefixes of Airfoil and Airfoil repeated 2 and 4 times
  (the learner does not care): the cost per step must stay flat (theory T^0);
* R (repetitions batched: ``expert_predictions(repetitions=R)`` + R meta VAWs) 1-20, m = 100,
  T = 512: theory R.

Each point is the best of ``--repeats`` runs after a warm-up. The fitted exponent is the
least-squares slope of log(CPU per step) on log(parameter) over the sweep (for m also over
its three largest values, where m^2 dominates), and separately for the feature map alone (theory:
linear in m) and the rest, the expert and meta VAWs (theory m^2). Memory: the peak of Python-visible
allocations during one ``run`` on 256 steps (one feature block) (``tracemalloc``: NumPy's arrays; the Numba
kernels' scratch -- a few (k, m) arrays -- is not seen) beside the analytic size of the
state, R N m (m + 1) float64 ([S^{-1} | w] per expert), plus one feature block R N 256 m
float64; the analytic formula gives where the learner stops fitting in 24 GiB.

Writes ``vaw2_scaling.md`` (tables + exponents), ``vaw2_scaling.json`` (the measurements) and
``vaw2_scaling.png`` (log-log, 4 panels; ``--plot-only`` redraws it from the json) to
``--out-dir`` (default ``benchmarks/results``); ``--quick`` runs a smoke-test subset.
"""
from __future__ import annotations

import argparse
import json
import os
import time
import tracemalloc

import bench_vaw2_floor as _floor  # before NumPy: it pins BLAS/OpenMP to one thread
import numpy as np

from omkl_core import compiled, registry
from omkl_core.mkl.vaw2 import draw_dictionaries, feature_blocks

__all__ = ["dictionary_of", "sweep", "fit_exponent", "fit_two_term", "state_bytes", "largest_fitting", "main"]

GIB = 2.0 ** 30
TIME_BLOCK = 256


def dictionary_of(N: int):
    """N kernels over paper 000's bandwidth range (section 4): round(51 N / 76) Gaussian with
    log10 sigma^2 evenly in [-2, 2], the rest Laplacian with log10 sigma evenly in [-2, 2]
    (N = 76 gives exactly the paper's 51 + 25 kernels)."""
    n_g = max(1, round(51 * N / 76))
    n_l = N - n_g
    sig = [np.sqrt(10.0 ** np.linspace(-2.0, 2.0, n_g)), 10.0 ** np.linspace(-2.0, 2.0, n_l) if n_l else []]
    return ["gaussian"] * n_g + ["laplacian"] * n_l, np.concatenate([np.asarray(s, dtype=float) for s in sig])


def state_bytes(N: int, m: int, R: int = 1) -> float:
    """Analytic float64 bytes: [S^{-1} | w] of R N experts and one feature block of 256 steps."""
    return 8.0 * R * N * (m * (m + 1) + TIME_BLOCK * m)


def largest_fitting(limit: float, N: int | None = None, m: int | None = None, R: int = 1) -> int:
    """The largest m (given N) or N (given m) whose :func:`state_bytes` fits in ``limit`` bytes."""
    if m is None:
        lo, hi = 1, 1 << 20
        while lo < hi:
            mid = (lo + hi + 1) // 2
            lo, hi = (mid, hi) if state_bytes(N, mid, R) <= limit else (lo, mid - 1)
        return lo
    return int(limit // state_bytes(1, m, R))


def _stream(T: int):
    X, y = registry.load_dataset("airfoil")
    reps = -(-T // X.shape[0])
    return np.tile(X, (reps, 1))[:T].copy(), np.tile(y, reps)[:T].copy()


def _once(X, y, m: int, N: int, R: int):
    _floor.vaw2_once(X, y, m, R, dictionary=None if N == 76 else dictionary_of(N))


def _features_once(X, m: int, N: int, R: int) -> None:
    """The feature map alone, as VAW2 computes it (R dictionaries drawn, every 256-step block)."""
    dicts = draw_dictionaries(X.shape[1], m, R, 0, None if N == 76 else dictionary_of(N), "cos", "numpy")
    for _ in feature_blocks(X, dicts, reuse=True):
        pass


def _best(fn, repeats: int) -> float:
    best = np.inf
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def _point(m: int, N: int, R: int, T: int, repeats: int) -> dict:
    X, y = _stream(T)
    _once(X[:40], y[:40], m, N, R)                             # warm-up (compiled kernels, caches)
    best = _best(lambda: _once(X, y, m, N, R), repeats)
    feat = min(best, _best(lambda: _features_once(X, m, N, R), repeats))
    tracemalloc.start()
    _once(X[:TIME_BLOCK], y[:TIME_BLOCK], m, N, R)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"m": m, "N": N, "R": R, "T": T, "cpu": best, "us_per_step": best / T * 1e6,
            "features_us_per_step": feat / T * 1e6, "experts_us_per_step": (best - feat) / T * 1e6,
            "peak_mib": peak / 2 ** 20, "analytic_mib": state_bytes(N, m, R) / 2 ** 20}


SWEEPS = {          # parameter -> (values, fixed setting)
    "m": ([50, 100, 200, 400, 800, 1600], dict(N=76, R=1, T=512)),
    "N": ([8, 19, 38, 76, 152, 300], dict(m=100, R=1, T=512)),
    "T": ([256, 512, 1024, 1503, 3006, 6012], dict(m=100, N=76, R=1)),
    "R": ([1, 2, 5, 10, 20], dict(m=100, N=76, T=512)),
}
QUICK = {"m": [25, 50, 100], "N": [8, 19, 38], "T": [128, 256, 512], "R": [1, 2, 4]}
THEORY = {"m": 2, "N": 1, "T": 0, "R": 1}
#: Theory exponents of (features, experts + meta) per parameter.
PART_THEORY = {"m": (1, 2), "N": (1, 1), "T": (0, 0), "R": (1, 1)}


def fit_exponent(x, y) -> float:
    """Least-squares slope of log y on log x."""
    return float(np.polyfit(np.log(np.asarray(x, float)), np.log(np.asarray(y, float)), 1)[0])


def fit_two_term(x, y) -> tuple[float, float]:
    """(a, b) of y = a x + b x^2 by least squares on the relative error (each point weighs alike)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    A = np.stack([x / y, x * x / y], axis=1)
    return tuple(float(c) for c in np.linalg.lstsq(A, np.ones_like(y), rcond=None)[0])


def sweep(name: str, values, fixed: dict, repeats: int, log=print) -> list[dict]:
    rows = []
    for v in values:
        kw = {**fixed, name: v}
        r = _point(kw["m"], kw["N"], kw["R"], kw["T"], repeats)
        log(f"  {name} = {v:5d}: {r['us_per_step']:10.1f} us/step (features {r['features_us_per_step']:.1f}, "
            f"experts + meta {r['experts_us_per_step']:.1f}), peak {r['peak_mib']:8.1f} MiB "
            f"(analytic {r['analytic_mib']:8.1f} MiB)")
        rows.append(r)
    return rows


def _plot(results: dict, path: str) -> None:
    import matplotlib  # noqa: PLC0415
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415
    from matplotlib.ticker import NullFormatter  # noqa: PLC0415

    fig, axes = plt.subplots(2, 2, figsize=(7.0, 5.2))
    for ax, name in zip(axes.ravel(), ("m", "N", "T", "R")):
        rows = results[name]["rows"]
        x = np.array([r[name] for r in rows], float)
        y = np.array([r["us_per_step"] for r in rows])
        ax.loglog(x, y, "o-", label=f"measured, slope {results[name]['exponent']:.2f}")
        ax.loglog(x, y[-1] * (x / x[-1]) ** THEORY[name], "k--", lw=1, label=f"theory {name}^{THEORY[name]}")
        if name == "m":
            a, b = results[name]["two_term"]
            xs = np.geomspace(x[0], x[-1], 50)
            ax.loglog(xs, a * xs + b * xs * xs, ":", color="C3", label="fit a m + b m^2")
            for key, label, color in (("features_us_per_step", "features", "C1"),
                                      ("experts_us_per_step", "experts + meta", "C2")):
                part = np.array([r[key] for r in rows])
                ax.loglog(x, part, "s--", ms=3, lw=0.8, color=color,
                          label=f"{label}, slope {results[name]['exponents_parts'][key]:.2f}")
            ax.set_ylim(min(r["features_us_per_step"] for r in rows) / 2, y.max() * 60)   # room for the legend
        if name == "T":
            ax.set_ylim(y.min() / 4, y.max() * 4)
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel(name)
        ax.set_ylabel("CPU µs / step")
        ax.legend(fontsize=7, loc="upper left" if name != "T" else "upper right")   # off the rising data
        ax.grid(True, which="both", lw=0.3)
    fig.suptitle("VAW2 (paper 000) cost per step, one thread", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _markdown(results: dict, header: str) -> str:
    out = [header, ""]
    out.append("| parameter (others fixed) | values | CPU µs / step | fitted exponent | theory |")
    out.append("|---|---|---|---|---|")
    parts = []
    for name, res in results.items():
        fixed = ", ".join(f"{k} = {v}" for k, v in res["fixed"].items())
        vals = ", ".join(str(r[name]) for r in res["rows"])
        us = ", ".join(f"{r['us_per_step']:.0f}" for r in res["rows"])
        exp = f"{res['exponent']:.2f}"
        if name == "m":
            a, b = res["two_term"]
            exp += (f" (largest three: {res['exponent_top']:.2f}; fit {a:.3g} m + {b:.3g} m^2 µs, "
                    f"the m^2 term larger from m = {a / b:.0f})")
        out.append(f"| {name} ({fixed}) | {vals} | {us} | {exp} | {THEORY[name]} |")
        ep = res.get("exponents_parts")
        if ep:
            for key, label, theory in (("features_us_per_step", "features (N m cosines)", PART_THEORY[name][0]),
                                       ("experts_us_per_step", "experts + meta (N m^2 per step)", PART_THEORY[name][1])):
                parts.append(f"| {name} | {label} | " + ", ".join(f"{r[key]:.0f}" for r in res["rows"])
                             + f" | {ep[key]:.2f} | {theory} |")
    if parts:
        out += ["", "The same runs split: the feature map alone (timed on its own, the same blocks), and the rest "
                "(whole run minus features: the N expert VAWs and the meta VAW):", "",
                "| parameter | part | CPU µs / step | fitted exponent | theory |", "|---|---|---|---|---|", *parts]
    out += ["", "Memory (peak of Python-visible allocations during a 256-step run, tracemalloc; analytic "
            "R N m (m + 1) + R N 256 m float64):", "",
            "| parameter | values | peak MiB (tracemalloc) | analytic MiB |", "|---|---|---|---|"]
    for name in [n for n in ("m", "N") if n in results]:
        rows = results[name]["rows"]
        out.append(f"| {name} | " + ", ".join(str(r[name]) for r in rows) + " | "
                   + ", ".join(f"{r['peak_mib']:.1f}" for r in rows) + " | "
                   + ", ".join(f"{r['analytic_mib']:.1f}" for r in rows) + " |")
    lim = 24 * GIB
    out += ["", "Where 24 GiB ends (analytic): "
            f"N = 76, R = 1: m ≤ {largest_fitting(lim, N=76)}; N = 76, R = 5: m ≤ {largest_fitting(lim, N=76, R=5)}; "
            f"m = 100, R = 1: N ≤ {largest_fitting(lim, m=100)}; m = 400, R = 1: N ≤ {largest_fitting(lim, m=400)}."]
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="benchmarks/bench_vaw2_scaling.py", description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=2, help="best of this many runs per point")
    ap.add_argument("--quick", action="store_true", help="smoke test: small values, T <= 512")
    ap.add_argument("--only", nargs="+", choices=list(SWEEPS), default=list(SWEEPS), help="sweeps to run")
    ap.add_argument("--plot-only", action="store_true", help="redraw the figure from vaw2_scaling.json")
    ap.add_argument("--out-dir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"))
    args = ap.parse_args(argv)
    if args.plot_only:
        with open(os.path.join(args.out_dir, "vaw2_scaling.json"), encoding="utf-8") as fh:
            _plot(json.load(fh), os.path.join(args.out_dir, "vaw2_scaling.png"))
        return 0
    limit = _floor._limit_threads()
    results = {}
    t_all = time.perf_counter()
    try:
        for name in args.only:
            values, fixed = SWEEPS[name]
            if args.quick:
                values, fixed = QUICK[name], {k: (min(v, 128) if k == "T" else min(v, 50) if k == "m" else v)
                                              for k, v in fixed.items()}
            print(f"sweep {name} ({', '.join(f'{k} = {v}' for k, v in fixed.items())})", flush=True)
            rows = sweep(name, values, fixed, 1 if args.quick else args.repeats)
            x = [r[name] for r in rows]
            yv = [r["us_per_step"] for r in rows]
            results[name] = {"fixed": fixed, "rows": rows, "exponent": fit_exponent(x, yv),
                             "exponent_top": fit_exponent(x[-3:], yv[-3:]), "two_term": fit_two_term(x, yv),
                             "exponents_parts": {key: fit_exponent(x, [max(r[key], 1e-9) for r in rows])
                                                 for key in ("features_us_per_step", "experts_us_per_step")}}
    finally:
        if limit is not None:
            limit.restore_original_limits()
    with compiled.engine("auto"):
        eng = "numba" if compiled.use_numba() else "numpy"
    header = (f"VAW2 cost per step on Airfoil, one thread, CPU time (process_time), engine {eng}, best of "
              f"{1 if args.quick else args.repeats}; {time.perf_counter() - t_all:.0f} s wall for the sweeps"
              + (" (--quick)" if args.quick else ""))
    text = _markdown(results, header)
    print(text)
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "vaw2_scaling.md"), "w", encoding="utf-8") as fh:
        fh.write(text + "\n")
    with open(os.path.join(args.out_dir, "vaw2_scaling.json"), "w", encoding="utf-8") as fh:
        json.dump(results, fh, indent=1)
    if set(results) == set(SWEEPS):
        _plot(results, os.path.join(args.out_dir, "vaw2_scaling.png"))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
