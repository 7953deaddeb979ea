"""The step-by-step path against the batch: ``python benchmarks/bench_per_step.py``.

A streaming user (River pipelines, ``Mixture``, the adapters) calls ``predict_one`` then
``learn_one`` on every event; ``run`` processes the whole stream at once. This script prints, on
the whole Airfoil stream (T = 1503), one thread, CPU time per step of both paths and their
ratio for VAW2 (m = 50, 100), ``OnlineRidge``, BOA over 8 experts, a ``Mixture`` of 8
``OnlineRidge`` experts under BOA and the README's
``RunningMean`` learner -- the cost of the protocol itself (two Python calls and the input
checks), the floor of any step-by-step learner. For learners whose arithmetic per step is tiny
(``OnlineRidge``, BOA) the step-by-step cost is also given as a multiple of RunningMean's.
All numbers come from one run (the ratios are what to read on a shared machine).
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import omkl_core as ok  # noqa: E402
from omkl_core.base import OnlineLearner, check_label, check_point  # noqa: E402
from omkl_core.validation import Real  # noqa: E402


class RunningMean(OnlineLearner):
    """The README's example learner: predicts the mean of the labels seen so far."""
    _parameter_constraints = {"prior": Real()}

    def __init__(self, prior: float = 0.0):
        self.prior = prior
        super().__init__()

    def _reset(self):
        self.total_ = 0.0

    def predict_one(self, x):
        check_point(x)
        return self.total_ / self.t_ if self.t_ else self.prior

    def learn_one(self, x, y):
        check_point(x)
        self.total_ += check_label(y)
        self.t_ += 1


def _best(f, repeats):
    best = np.inf
    for _ in range(repeats):
        t0 = time.process_time()
        f()
        best = min(best, time.process_time() - t0)
    return best


def per_step(make, X, y, repeats: int = 3, steps: int | None = None) -> dict:
    """µs per step of ``make().run(X, y)`` and of the predict_one/learn_one loop over the first
    ``steps`` rows (all by default), best of ``repeats``; and whether both give the same numbers."""
    T = X.shape[0]
    S = T if steps is None else min(steps, T)

    def batch():
        return make().run(X, y)

    def loop():
        m = make()
        out = np.empty(S)
        for t in range(S):
            out[t] = m.predict_one(X[t])
            m.learn_one(X[t], y[t])
        return out

    ref = batch()
    same = np.array_equal(ref[:S], loop())
    run_s = _best(batch, repeats)
    loop_s = _best(loop, repeats)
    return {"run_us": run_s / T * 1e6, "step_us": loop_s / S * 1e6, "same": same,
            "maxdiff": float(np.max(np.abs(ref[:S] - loop())))}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="benchmarks/bench_per_step.py", description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--steps", type=int, default=None, help="steps of the loop (default: the whole stream)")
    ap.add_argument("--out", default=None, help="also write the table (markdown) to this file")
    args = ap.parse_args(argv)
    X, y = ok.datasets.load("airfoil")
    rng = np.random.default_rng(0)
    Z8 = np.clip(y[:, None] + 0.1 * rng.standard_normal((y.size, 8)), 0.0, 1.0)   # 8 experts' forecasts
    ok.VAW2(m=4).run(X[:40], y[:40])                                               # compile / load kernels
    rows = [("RunningMean (README; the protocol's cost)", lambda: RunningMean(), X)]
    rows += [(f"VAW2 m = {m}", (lambda m=m: ok.VAW2(m=m)), X) for m in (50, 100)]
    rows += [("OnlineRidge", lambda: ok.OnlineRidge(), X), ("BOA over 8 experts", lambda: ok.BOA(), Z8),
             ("Mixture of 8 OnlineRidge (a = 0.1 ... 100), BOA", lambda: ok.Mixture(
                 [ok.OnlineRidge(a=float(a)) for a in np.logspace(-1, 2, 8)], meta=ok.BOA()), X)]
    res = []
    for name, make, inputs in rows:
        r = per_step(make, inputs, y, args.repeats, args.steps)
        res.append((name, r))
    floor = res[0][1]["step_us"]
    lines = [f"Whole Airfoil (T = {X.shape[0]}), one thread, CPU time per step (best of {args.repeats}); "
             f"engine {ok.config.config()['engine']}, feature-map cosine {ok.cosine.library()}",
             "", "| learner | run (µs/step) | predict_one + learn_one (µs/step) | step / run | step / RunningMean's step "
             "| same numbers as run |", "|---|---|---|---|---|---|"]
    for name, r in res:
        same = "bit for bit" if r["same"] else f"to {r['maxdiff']:.0e}"
        lines.append(f"| {name} | {r['run_us']:.2f} | {r['step_us']:.1f} | {r['step_us'] / r['run_us']:.2f}× | "
                     f"{r['step_us'] / floor:.2f}× | {same} |")
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
