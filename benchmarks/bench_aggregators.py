"""Aggregator speed beside opera, NumPy engine vs Numba engine: ``python benchmarks/bench_aggregators.py``.

Prints microseconds per step of ``model.run(Z, y)`` for each rule -- fixed-eta EWA
(eta = 1/2, square loss, P000 eq. 29), calibrated EWA (opera's ``ewaCalib``), ML-Poly, ML-Prod
and BOA (opera 1.2.0 rule) -- on the **whole** Airfoil (T = 1503) and Bias (T = 7750) streams
with the 76 VAW experts of paper 000, as ``tests/fixtures/opera/README.md``
("Speed") describes them: ``Z = omkl_core.mkl.expert_predictions(X, y, m=50, lam=1.0,
repetitions=1, seed=0)[0]`` on ``omkl_core.datasets.load(name)``, the raw ``Z`` given to the
learner (which truncates to [0, 1]).  "5 batched" stacks Z five times on a leading axis
(``(5, T, N)``, one call) and divides by 5.  Each figure is the minimum over ``--repeats``
fresh learners of the **CPU time** (``time.process_time``) of one ``run``.

Two columns for omkl, measured in the same run: the ``"numpy"`` engine (the NumPy loops) and
the ``"numba"`` engine (the compiled loops of ``omkl_core.aggregation._kernels``; compiled and
warmed up before timing, so compile time is excluded), with their ratio and the largest
|difference| of their predictions.  Beside them: opera's figures copied from the fixtures
README (opera 1.2.2, pure R; opera 1.2.0 with ``use_cpp = TRUE``) and the ratios ours / opera
1.2.0 C++ (< 1: we are faster; opera's figures come from another run of the same machine kind,
so compare them loosely).  Absolute times on shared machines move from run to run: compare
ratios measured in one run.
"""
from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import omkl_core as ok
from omkl_core import aggregation as agg
from omkl_core import compiled

__all__ = ["OPERA_US", "RULES", "main"]

# opera µs/step from tests/fixtures/opera/README.md ("Speed"): (1.2.2 R, 1.2.0 C++)
OPERA_US = {
    ("airfoil", "EWA eta=0.5"): (43.9, 1.3),
    ("airfoil", "EWA calibrated"): (227.0, 43.2),
    ("airfoil", "ML-Poly"): (44.6, 2.0),
    ("airfoil", "ML-Prod"): (55.9, 2.0),
    ("airfoil", "BOA (1.2.0)"): (44.6, 4.0),
    ("bias", "EWA eta=0.5"): (45.5, 1.9),
    ("bias", "EWA calibrated"): (237.0, 54.1),
    ("bias", "ML-Poly"): (48.3, 2.3),
    ("bias", "ML-Prod"): (56.9, 2.7),
    ("bias", "BOA (1.2.0)"): (47.1, 4.9),
}

def _rules(mod):
    """rule name -> factory of a fresh learner from module ``mod``."""
    return {
        "EWA eta=0.5": lambda: mod.EWA(eta=0.5, bounds=(0, 1)),
        "EWA calibrated": lambda: mod.CalibratedEWA(bounds=(0, 1)),
        "ML-Poly": lambda: mod.MLPoly(bounds=(0, 1)),
        "ML-Prod": lambda: mod.MLProd(bounds=(0, 1)),
        "BOA (1.2.0)": lambda: mod.BOA(version="v120", bounds=(0, 1)),
    }


RULES = list(_rules(agg))


def _inputs(name: str):
    X, y = ok.datasets.load(name)
    Z = ok.mkl.expert_predictions(X, y, m=50, lam=1.0, repetitions=1, seed=0)[0]
    return Z, y


def _time(make, Z, y, repeats: int, engine: str):
    """Minimum CPU time of ``make().run(Z, y)`` over ``repeats`` fresh learners on ``engine``."""
    best, out = np.inf, None
    with compiled.engine(engine):
        make().run(Z[..., :20, :], y[:20])          # compile / warm up (not timed)
        for _ in range(repeats):
            model = make()
            t0 = time.process_time()
            P = model.run(Z, y)
            best = min(best, time.process_time() - t0)
            out = (P, model.weights_)
    return best, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", default=["airfoil", "bias"])
    ap.add_argument("--rules", nargs="+", default=RULES, choices=RULES, metavar="RULE")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--batch", type=int, default=5, help="streams run together for the batched figure")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore", DeprecationWarning)
    if not compiled.numba_available():
        print("Numba is not installed: only the numpy engine can be timed (pip install 'omkl[fast]')")
        return 1
    now = _rules(agg)
    hdr = (f"{'stream':8s} {'rule':15s} {'streams':>9s} {'numpy':>8s} {'numba':>8s} {'np/nb':>6s} "
           f"{'opera R':>8s} {'opera C++':>9s} {'np/C++':>7s} {'nb/C++':>7s} {'max|diff|':>9s}")
    print("CPU microseconds per step (per stream for the batched rows)")
    print(hdr)
    print("-" * len(hdr))
    for name in args.datasets:
        Z, y = _inputs(name)
        T = len(y)
        Zb = np.broadcast_to(Z, (args.batch,) + Z.shape).copy()
        for rule in args.rules:
            opera_r, opera_cpp = OPERA_US.get((name, rule), (np.nan, np.nan))
            for label, ZZ, div in (("1", Z, 1), (f"{args.batch} batched", Zb, args.batch)):
                t_np, (P_np, W_np) = _time(now[rule], ZZ, y, args.repeats, "numpy")
                t_nb, (P_nb, W_nb) = _time(now[rule], ZZ, y, args.repeats, "numba")
                us_np, us_nb = t_np / T / div * 1e6, t_nb / T / div * 1e6
                diff = max(float(np.max(np.abs(P_np - P_nb))), float(np.max(np.abs(W_np - W_nb))))
                o_r = opera_r if div == 1 else np.nan
                print(f"{name:8s} {rule:15s} {label:>9s} {us_np:8.2f} {us_nb:8.2f} {us_np / us_nb:6.1f} "
                      f"{o_r:8.1f} {opera_cpp:9.1f} {us_np / opera_cpp:7.2f} {us_nb / opera_cpp:7.2f} {diff:9.1e}",
                      flush=True)
    print("np/C++, nb/C++ < 1: faster per stream than opera 1.2.0's compiled path (its figure from the fixtures README, "
          "another run of the same machine kind; the batched rows are compared with the same 1-stream figure).\n"
          "max|diff|: largest difference between the two engines' predictions and final weights.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
