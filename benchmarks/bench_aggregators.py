"""Aggregator speed beside opera: ``python benchmarks/bench_aggregators.py`` (issue 16).

Prints microseconds per step of ``model.run(Z, y)`` for each rule -- fixed-eta EWA
(eta = 1/2, square loss, P000 eq. 29), calibrated EWA (opera's ``ewaCalib``), ML-Poly, ML-Prod
and BOA (opera 1.2.0 rule) -- on the **whole** Airfoil (T = 1503) and Bias (T = 7750) streams
with the 76 VAW experts of paper 000, as ``../shared/reference/opera_fixtures/README.md``
("Speed") describes them: ``Z = omkl_core.mkl.expert_predictions(X, y, m=50, lam=1.0,
repetitions=1, seed=0)[0]`` on ``omkl_core.datasets.load(name)``, the raw ``Z`` given to the
learner (which truncates to [0, 1]).  "5 batched" stacks Z five times on a leading axis
(``(5, T, N)``, one call) and divides by 5.  Each figure is the minimum over ``--repeats``
fresh learners.

Beside each figure: opera's figures copied from the fixtures README (opera 1.2.2, pure R; opera
1.2.0 with ``use_cpp = TRUE``), and the ratio ours / opera 1.2.0 C++ (< 1: we are faster).
The README also gives omkl's own figures for the code before this issue (``README_OMKL_US``);
``est.aft`` scales them by the after/before ratio measured here, because the shared machines
running this are often several times slower than the one that timed opera.
With ``--before REV`` (default: the commit before issue 16 restructured the rules) the same
rules of ``omkl_core/aggregation.py`` at that git revision run in the same process, on the
same inputs, so the before/after ratio is measured in one run; the script also prints the
largest |difference| between the two versions' predictions and final weights (0 means "no
number changed").  Absolute times on shared machines move from run to run: compare ratios.
"""
from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

import omkl_core as ok
from omkl_core import aggregation as after

__all__ = ["OPERA_US", "RULES", "load_before", "main"]

ROOT = Path(__file__).resolve().parent.parent
BEFORE_REV = "320eabb"   # omkl_core/aggregation.py before issue 16's restructuring

# opera µs/step from ../shared/reference/opera_fixtures/README.md ("Speed"): (1.2.2 R, 1.2.0 C++)
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

# omkl's own figures in the same README table (commit 13ca7f0, the "before" code): (1 stream, per stream of 5 batched)
README_OMKL_US = {
    ("airfoil", "EWA eta=0.5"): (9.5, 2.4),
    ("airfoil", "EWA calibrated"): (108.0, 32.7),
    ("airfoil", "ML-Poly"): (17.7, 4.4),
    ("airfoil", "ML-Prod"): (16.6, 4.2),
    ("airfoil", "BOA (1.2.0)"): (19.4, 4.9),
    ("bias", "EWA eta=0.5"): (9.8, np.nan),
    ("bias", "EWA calibrated"): (112.0, np.nan),
    ("bias", "ML-Poly"): (18.0, np.nan),
    ("bias", "ML-Prod"): (16.8, np.nan),
    ("bias", "BOA (1.2.0)"): (19.8, np.nan),
}


def _rules(mod):
    """rule name -> factory of a fresh learner from module ``mod`` (old or new spelling)."""
    calibrated = getattr(mod, "CalibratedEWA", None)
    return {
        "EWA eta=0.5": lambda: mod.EWA(eta=0.5, bounds=(0, 1)),
        "EWA calibrated": (lambda: calibrated(bounds=(0, 1))) if calibrated is not None
        else (lambda: mod.EWA(eta=None, bounds=(0, 1), calibrated=True)),
        "ML-Poly": lambda: mod.MLPoly(bounds=(0, 1)),
        "ML-Prod": lambda: mod.MLProd(bounds=(0, 1)),
        "BOA (1.2.0)": lambda: mod.BOA(version="v120", bounds=(0, 1)),
    }


RULES = list(_rules(after))


def load_before(rev: str = BEFORE_REV):
    """``omkl_core/aggregation.py`` at git revision ``rev``, imported as a sibling module."""
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:omkl_core/aggregation.py"],
                         capture_output=True, text=True, check=True).stdout
    tmp = Path(tempfile.mkdtemp()) / "_aggregation_before.py"
    tmp.write_text(src, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("omkl_core._aggregation_before", tmp)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def _inputs(name: str):
    X, y = ok.datasets.load(name)
    Z = ok.mkl.expert_predictions(X, y, m=50, lam=1.0, repetitions=1, seed=0)[0]
    return Z, y


def _time(make, Z, y, repeats: int):
    best, out = np.inf, None
    for _ in range(repeats):
        model = make()
        t0 = time.perf_counter()
        P = model.run(Z, y)
        best = min(best, time.perf_counter() - t0)
        out = (P, model.weights_)
    return best, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets", nargs="+", default=["airfoil", "bias"])
    ap.add_argument("--rules", nargs="+", default=RULES, choices=RULES, metavar="RULE")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--batch", type=int, default=5, help="streams run together for the batched figure")
    ap.add_argument("--before", default=BEFORE_REV, help="git revision to compare with ('' to skip)")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore", DeprecationWarning)
    before = None
    if args.before:
        try:
            before = _rules(load_before(args.before))
        except (subprocess.CalledProcessError, FileNotFoundError) as exc:
            print(f"(no before column: cannot read omkl_core/aggregation.py at {args.before!r}: {exc})")
    now = _rules(after)
    hdr = (f"{'stream':8s} {'rule':15s} {'streams':>9s} {'before':>8s} {'after':>8s} {'bef/aft':>7s} "
           f"{'opera R':>8s} {'opera C++':>9s} {'aft/C++':>7s} {'est.aft':>7s} {'est/C++':>7s} {'max|diff|':>9s}")
    print("microseconds per step (per stream for the batched rows)")
    print(hdr)
    print("-" * len(hdr))
    for name in args.datasets:
        Z, y = _inputs(name)
        T = len(y)
        Zb = np.broadcast_to(Z, (args.batch,) + Z.shape).copy()
        for rule in args.rules:
            opera_r, opera_cpp = OPERA_US.get((name, rule), (np.nan, np.nan))
            for label, ZZ, div in (("1", Z, 1), (f"{args.batch} batched", Zb, args.batch)):
                t_after, (P_a, W_a) = _time(now[rule], ZZ, y, args.repeats)
                us_after = t_after / T / div * 1e6
                us_before, diff = np.nan, np.nan
                if before is not None:
                    t_before, (P_b, W_b) = _time(before[rule], ZZ, y, args.repeats)
                    us_before = t_before / T / div * 1e6
                    diff = max(float(np.max(np.abs(P_a - P_b))), float(np.max(np.abs(W_a - W_b))))
                o_r, o_c = (opera_r, opera_cpp) if div == 1 else (np.nan, np.nan)
                # the README's figure for the before code, divided by the before/after ratio measured here
                readme = README_OMKL_US.get((name, rule), (np.nan, np.nan))[0 if div == 1 else 1]
                est = readme * us_after / us_before
                print(f"{name:8s} {rule:15s} {label:>9s} {us_before:8.2f} {us_after:8.2f} {us_before / us_after:7.2f} "
                      f"{o_r:8.1f} {o_c:9.1f} {us_after / opera_cpp:7.2f} {est:7.2f} {est / opera_cpp:7.2f} {diff:9.1e}",
                      flush=True)
    print("aft/C++ < 1: faster per stream than opera 1.2.0's compiled path (its figure from the fixtures README, measured "
          "on another run of the same machine kind; the batched rows are compared with the same 1-stream figure).\n"
          "est.aft: the README's omkl figure for the before code (same table, same machine kind) times after/before measured "
          "here -- an estimate of 'after' on an unloaded machine; est/C++ compares it with opera's C++ figure.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
