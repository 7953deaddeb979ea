"""VAW2 end to end against its arithmetic floor: ``python benchmarks/bench_vaw2_floor.py``.

Paper 000's VAW2 (N = 76 kernels x m random features, VAW experts, VAW meta-learner) on the
whole Airfoil stream (T = 1503), one core. Its cost is set by two things only:

* the 4 N m^2 flops per step of the N expert updates (u = S^{-1} phi: 2 m^2; the rank-1
  update of eq. (10): 2 m^2), at this machine's float64 GEMM rate -- measured here as one
  large single-threaded product (2048 x 2048, best of 3, before and after the runs: the best);
* the N m cosines per step of the feature map (paper 000 section 2), at NumPy's ``np.cos``
  rate -- measured here on the very arguments <omega, x_t> + b of the run (the same T N m
  numbers, in the learner's time blocks of 256 steps, best of 3).

floor = 4 N m^2 T / GEMM rate + (T N m cosines) / cos rate. CPU = ``VAW2(m=m).run(X, y)``
(features, expert layer and meta-learner; best of ``--repeats``, after one warm-up run that
compiles the Numba kernels), ``time.process_time`` of this single-threaded process. "R = 5":
the 5 repetitions of Table 2 batched (``expert_predictions(..., repetitions=5)`` + 5 meta
VAWs) against 5 x the floor. BLAS and OpenMP are pinned to one thread (environment set before
NumPy is imported, and threadpoolctl when installed). CPU time is still inflated when other
processes share the cores (caches, frequency): the floor is measured in the same run, so the
ratio is the number to read. ``--out`` writes the table (markdown) to a file as well. ``--method``
names the experts' VAW driver (:class:`omkl_core.vaw.VAWExperts`: "sm", the compiled per-step kernel;
"blocked", the compiled blocked Woodbury driver of issue 54; "block", the NumPy one); the default,
"auto", is what ``VAW2`` itself runs (on the Numba engine "sm" below m = 150 features, "blocked" from
m = 150 on).
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"      # before NumPy/SciPy load their BLAS: one core by definition

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from omkl_core import compiled, cosine, mkl, registry  # noqa: E402
from omkl_core.mkl.vaw2 import draw_dictionaries  # noqa: E402
from omkl_core.vaw import METHODS, VAWExperts  # noqa: E402

__all__ = ["gemm_rate", "cos_seconds", "vaw2_once", "vaw2_seconds", "floor_table", "main"]

N_PAPER = 76


def _limit_threads():
    try:
        from threadpoolctl import threadpool_limits  # noqa: PLC0415
    except ImportError:  # pragma: no cover
        return None
    return threadpool_limits(limits=1)


def gemm_rate(n: int = 2048, repeats: int = 3) -> float:
    """float64 flop/s of one large n x n matrix product on this thread (best of ``repeats``)."""
    rng = np.random.default_rng(0)
    A, B = rng.standard_normal((n, n)), rng.standard_normal((n, n))
    C = np.empty((n, n))
    np.matmul(A, B, out=C)
    best = np.inf
    for _ in range(repeats):
        t0 = time.process_time()
        np.matmul(A, B, out=C)
        best = min(best, time.process_time() - t0)
    return 2.0 * n ** 3 / best


#: Variables some machines set to pin OpenBLAS to an older kernel (the Haswell one, AVX2); the
#: floor takes the GEMM rate of this environment as it is, and reports the one without them too.
OPENBLAS_PINS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def unpinned_gemm_rate() -> tuple[float, str] | None:
    """(flop/s, OpenBLAS kernel) of :func:`gemm_rate` in a child process with :data:`OPENBLAS_PINS`
    unset (OpenBLAS then picks its kernel for this CPU, e.g. the AVX-512 one), or None when neither
    variable is set here (the rate measured in this process is already that one)."""
    import json  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    if not any(v in os.environ for v in OPENBLAS_PINS):
        return None
    env = {k: v for k, v in os.environ.items() if k not in OPENBLAS_PINS}
    code = ("import json, bench_vaw2_floor as b\n"
            "from threadpoolctl import threadpool_info\n"
            "arch = ','.join(sorted({str(i.get('architecture')) for i in threadpool_info() if i.get('internal_api') == 'openblas'}))\n"
            "print(json.dumps([b.gemm_rate(), arch]))")
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=os.path.dirname(os.path.abspath(__file__)),
                         capture_output=True, text=True, check=True).stdout
    rate, arch = json.loads(out.strip().splitlines()[-1])
    return float(rate), arch


def _kernel_name() -> str:
    try:
        from threadpoolctl import threadpool_info  # noqa: PLC0415
    except ImportError:  # pragma: no cover
        return "?"
    return ",".join(sorted({str(i.get("architecture")) for i in threadpool_info() if i.get("internal_api") == "openblas"}))


def cos_seconds(X, m: int, seed=0, repetitions: int = 1, repeats: int = 3, time_block: int = 256,
                layout: str = "kernel", library: str = "numpy") -> float:
    """CPU seconds of ``np.cos`` on the T x N x m arguments <omega, x_t> + b of the run (the
    dictionaries ``VAW2(m=m, seed=seed)`` draws; R of them for ``repetitions=R``), in time blocks
    of 256 steps, in place; only the cos calls are timed. ``layout="kernel"``: each block laid
    out (R N, T_b, m), kernel by kernel (the learner's layout); ``"stream"``: (T_b, R N m), one
    row per step. The same numbers, but NumPy's cos runs about twice as fast kernel by kernel
    (runs of arguments of one bandwidth, mostly small, take its fast path together). ``library``:
    whose cosine (:func:`omkl_core.cosine.cos_function`; ``"numpy"``: ``np.cos``)."""
    cos = cosine.cos_function(library)
    dicts = draw_dictionaries(X.shape[1], m, repetitions, seed, None, "cos", "numpy")
    T = X.shape[0]
    if layout == "kernel":
        W = np.concatenate([D.omega_ for D in dicts])                        # (R*N, d, m)
        b = np.concatenate([D.b_ for D in dicts])[:, None, :]
        buf = np.empty(W.shape[0] * min(time_block, T) * m)
    else:
        W = np.concatenate([D._W for D in dicts], axis=1)                   # (d, R*N*m)
        b = np.concatenate([D.b_.ravel() for D in dicts])
        buf = np.empty(min(time_block, T) * W.shape[1])
    best = np.inf
    for _ in range(repeats):
        spent = 0.0
        for s in range(0, T, time_block):
            Xb = X[s:s + time_block]
            shape = (W.shape[0], Xb.shape[0], m) if layout == "kernel" else (Xb.shape[0], W.shape[1])
            a = buf[:int(np.prod(shape))].reshape(shape)
            np.matmul(Xb, W, out=a)
            a += b
            t0 = time.process_time()
            cos(a, a)
            spent += time.process_time() - t0
        best = min(best, spent)
    return best


def _vaw2(m: int, seed, dictionary, method: str, d: int):
    """``VAW2(m=m)`` whose expert layer runs the VAW driver ``method`` ("auto": VAW2's own)."""
    learner = mkl.VAW2(m=m, seed=seed, dictionary=dictionary)
    if method != "auto":
        learner._ensure(d)                      # the expert layer, created now to name its driver
        learner.experts_.method = method
        learner.experts_.reset()
    return learner


def resolved_method(m: int, method: str = "auto") -> str:
    """The VAW driver ``method`` means for m features with the engine in force ("auto": as
    :meth:`omkl_core.vaw.VAWExperts.resolved_method` decides it at the first step)."""
    layer = VAWExperts(method=method)
    layer.run(np.zeros((1, m)), np.zeros(1))
    return layer.resolved_method()


def vaw2_once(X, y, m: int, repetitions: int = 1, seed=0, dictionary=None, method: str = "auto") -> None:
    """VAW2 end to end once: ``VAW2(m=m).run(X, y)`` (R = 1) or the R repetitions batched
    (the expert layer of all R at once, then R meta VAWs); ``method``: the experts' VAW driver."""
    if repetitions == 1:
        _vaw2(m, seed, dictionary, method, X.shape[1]).run(X, y)
        return
    Z = mkl.expert_predictions(X, y, m=m, repetitions=repetitions, seed=seed, dictionary=dictionary, method=method)
    for r in range(repetitions):
        mkl.make_meta("VAW2").run(Z[r], y)


def vaw2_seconds(X, y, m: int, repetitions: int = 1, repeats: int = 3, seed=0, method: str = "auto") -> float:
    """CPU seconds of :func:`vaw2_once`, best of ``repeats``."""
    best = np.inf
    for _ in range(repeats):
        t0 = time.process_time()
        vaw2_once(X, y, m, repetitions, seed, method=method)
        best = min(best, time.process_time() - t0)
    return best


def floor_table(ms=(100, 200, 400), repetitions=(1, 5), repeats: int = 3, dataset: str = "airfoil",
                max_steps: int | None = None, method: str = "auto") -> dict:
    """CPU, floor and ratio of VAW2 for each m and each R, all measured in this process."""
    X, y = registry.load_dataset(dataset, max_steps)
    T = X.shape[0]
    limit = _limit_threads()
    try:
        mkl.VAW2(m=8).run(X[:40], y[:40])                       # compile / load the kernels
        mkl.expert_predictions(X[:40], y[:40], m=8, repetitions=2)
        for drv in ("sm", "blocked"):                           # both compiled drivers
            vaw2_once(X[:40], y[:40], 8, 1, method=drv)
        g0 = gemm_rate()
        fast_libs = [n for n in cosine.available() if n != "mkl_umath"]   # mkl_umath: not call-invariant
        rows = []
        for m in ms:
            for R in repetitions:
                cpu = vaw2_seconds(X, y, m, R, repeats, method=method)
                cos_k = cos_seconds(X, m, repetitions=R, repeats=repeats, layout="kernel")
                cos_s = cos_seconds(X, m, repetitions=R, repeats=repeats, layout="stream")
                fast = {lib: cos_seconds(X, m, repetitions=R, repeats=repeats, library=lib) for lib in fast_libs}
                lib = min(fast, key=fast.get)
                rows.append({"m": m, "R": R, "cpu": cpu, "method": resolved_method(m, method), "cos": min(cos_k, cos_s), "cos_stream": cos_s,
                             "cos_fast": fast[lib], "cos_fast_library": lib})
        g = max(g0, gemm_rate())
        arch = _kernel_name()
    finally:
        if limit is not None:
            limit.restore_original_limits()
    native = unpinned_gemm_rate()
    for r in rows:
        r["flops"] = 4.0 * r["R"] * N_PAPER * r["m"] ** 2 * T / g
        r["floor"] = r["flops"] + r["cos"]
        r["ratio"] = r["cpu"] / r["floor"]
        r["ratio_stream"] = r["cpu"] / (r["flops"] + r["cos_stream"])
        if native is not None:
            r["floor_native"] = r["flops"] * g / native[0] + r["cos"]
            r["ratio_native"] = r["cpu"] / r["floor_native"]
        # the stricter floor (issue 33): flops at the best GEMM rate of this run (the unpinned one where
        # OpenBLAS is pinned) + the cosines at the fastest vectorised rate available
        best = max(g, native[0]) if native is not None else g
        r["flops_strict"] = r["flops"] * g / best
        r["floor_strict"] = r["flops_strict"] + r["cos_fast"]
        r["ratio_strict"] = r["cpu"] / r["floor_strict"]
    with compiled.engine("auto"):
        eng = "numba" if compiled.use_numba() else "numpy"
    return {"method": method,
            "cos_library": cosine.library(), "T": T, "dataset": dataset, "gflops": g / 1e9, "engine": eng, "rows": rows, "blas_kernel": arch,
            "native": None if native is None else {"gflops": native[0] / 1e9, "blas_kernel": native[1]}}


def format_table(res: dict) -> str:
    """The markdown table: m | CPU | floor | ratio, then the same for R = 5 batched."""
    Rs = sorted({r["R"] for r in res["rows"]})
    head = "| m | " + " | ".join(("CPU | floor | ratio | strict floor | ratio (strict)" if R == 1 else
                                  f"CPU (R = {R}) | floor (R = {R}) | ratio (R = {R}) | strict floor (R = {R}) | "
                                  f"ratio (strict, R = {R})") for R in Rs) + " |"
    lines = [head, "|---|" + "---|---|---|---|---|" * len(Rs)]
    for m in dict.fromkeys(r["m"] for r in res["rows"]):
        cells = []
        for R in Rs:
            r = next(x for x in res["rows"] if x["m"] == m and x["R"] == R)
            cells.append(f"{r['cpu']:.2f} s | {r['floor']:.2f} s | {r['ratio']:.2f}× | {r['floor_strict']:.2f} s | "
                         f"{r['ratio_strict']:.2f}×")
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="benchmarks/bench_vaw2_floor.py", description=__doc__.split("\n")[0])
    ap.add_argument("--m", type=int, nargs="+", default=[100, 200, 400], help="random features per kernel")
    ap.add_argument("--R", type=int, nargs="+", default=[1, 5], help="repetitions batched (1 = one learner)")
    ap.add_argument("--repeats", type=int, default=3, help="best of this many runs")
    ap.add_argument("--dataset", default="airfoil")
    ap.add_argument("--max-steps", type=int, default=None, help="a prefix of the stream (default: all of it)")
    ap.add_argument("--out", default=None, help="also write the table (markdown) to this file")
    ap.add_argument("--method", default="auto", choices=METHODS,
                    help="the experts' VAW driver (default: auto, what VAW2 runs: 'sm' below m = 150, 'blocked' from 150 on)")
    args = ap.parse_args(argv)
    res = floor_table(args.m, args.R, args.repeats, args.dataset, args.max_steps, args.method)
    text = (f"VAW2 on {res['dataset']} (T = {res['T']}, N = {N_PAPER}), one thread, CPU time (process_time), engine "
            f"{res['engine']}; GEMM {res['gflops']:.1f} GFLOP/s (2048^2, single-threaded, this run, OpenBLAS kernel "
            f"{res['blas_kernel']}); expert driver: method={res['method']} ("
            + ", ".join(f"m={m}: {r}" for m, r in dict.fromkeys((x["m"], x["method"]) for x in res["rows"])) + ")\n\n"
            + format_table(res) + "\n\nfloor = 4 N m^2 T R / GEMM rate + np.cos time of the run's T N m R arguments "
            + "(in place, kernel by kernel: the faster layout); split (flops + cos): "
            + ", ".join(f"m={r['m']} R={r['R']}: {r['flops']:.2f} + {r['cos']:.2f} s" for r in res["rows"])
            + ".\nWith np.cos timed on the same arguments one row per step (T_b, N m), about 2x slower, the "
            + "ratios would be: " + ", ".join(f"m={r['m']} R={r['R']}: {r['ratio_stream']:.2f}x" for r in res["rows"]))
    if res["native"] is not None:
        text += (f"\nThis environment pins OpenBLAS ({', '.join(OPENBLAS_PINS)}); unpinned, it runs its "
                 f"{res['native']['blas_kernel']} kernel at {res['native']['gflops']:.1f} GFLOP/s (measured in a child "
                 "process of this run). Against the floor at that rate the ratios are: "
                 + ", ".join(f"m={r['m']} R={r['R']}: {r['ratio_native']:.2f}x (floor {r['floor_native']:.2f} s)"
                             for r in res["rows"]))
    text += ("\nStricter floor (issue 33) = 4 N m^2 T R / (the best GEMM rate measured in this run"
             + (", the unpinned one" if res["native"] is not None else "") + ") + the cosines of the run's arguments at "
             "the fastest vectorised rate available (library: " + ", ".join(sorted({r["cos_fast_library"] for r in res["rows"]}))
             + "); split (flops + cos): " + ", ".join(f"m={r['m']} R={r['R']}: {r['flops_strict']:.2f} + {r['cos_fast']:.2f} s"
                                                     for r in res["rows"])
             + f". VAW2's own feature map used the cosine of: {res['cos_library']}.")
    print(text)
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
