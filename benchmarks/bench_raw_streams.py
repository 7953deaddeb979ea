"""Raw streams nobody here wrote, run as a new user would (issue 32): the table of the issue.

Writes each stream to a CSV (from the installed scikit-learn and River; nothing downloaded), then
for each: ``omkl run VAW2 --csv F`` (no other flag), ``omkl run Mixture --csv F`` (no other
flag), the running mean of the raw labels, the best single learner the default Mixture mixes
(each under the CLI's default scaling), River's best reference model (raw stream, River's
defaults), and a Mixture of omkl and River learners from Python (``Mixture`` wrapped in the
online scalers) and through River (``to_river`` of the same, River's ``progressive_val_score``).
MSE in the target's units; every number is one run of a deterministic stream.

    PYTHONPATH=. python benchmarks/bench_raw_streams.py [--out benchmarks/results/raw_streams.md]
"""
from __future__ import annotations

import argparse
import contextlib
import csv
import io
import re
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

import omkl_core as ok
from omkl_core import cli
from omkl_core.cli import DEFAULT_EXPERTS
from omkl_core.protocol import running_mean

#: The issue's four streams, then the ones added here (River's other offline regression data).
ISSUE_STREAMS = ("diabetes", "TrumpApproval", "ChickWeights", "Friedman")
ADDED_STREAMS = ("AirlinePassengers", "Planes2D", "Mv", "FriedmanDrift")


def _river_rows(ds, T=None):
    rows = []
    for i, (x, y) in enumerate(ds):
        if T is not None and i >= T:
            break
        rows.append((x, float(y)))
    return rows


def load_stream(name: str):
    """(header, X, y) of stream ``name`` (features as the package gives them, made numeric)."""
    if name == "diabetes":
        from sklearn.datasets import load_diabetes  # noqa: PLC0415

        d = load_diabetes(scaled=False)
        return list(d.feature_names), d.data.astype(float), d.target.astype(float)
    from river import datasets  # noqa: PLC0415
    from river.datasets import synth  # noqa: PLC0415

    if name == "AirlinePassengers":     # month -> months since the start, and the month of the year
        rows = _river_rows(datasets.AirlinePassengers())
        X = np.array([[12 * (x["month"].year - 1949) + x["month"].month - 1, x["month"].month] for x, _ in rows], float)
        return ["months", "month_of_year"], X, np.array([y for _, y in rows])
    if name == "Mv":                     # categorical features one-hot encoded
        rows = _river_rows(synth.Mv(seed=42), 5000)
        cats = {3: ("red", "green", "brown"), 7: ("yes", "no"), 8: ("normal", "large")}
        header, X = [], []
        for k in range(1, 11):
            header += [f"x{k}_{c}" for c in cats[k]] if k in cats else [f"x{k}"]
        for x, _ in rows:
            r = []
            for k in range(1, 11):
                r += [float(x[k] == c) for c in cats[k]] if k in cats else [float(x[k])]
            X.append(r)
        return header, np.array(X), np.array([y for _, y in rows])
    src = {"TrumpApproval": lambda: datasets.TrumpApproval(), "ChickWeights": lambda: datasets.ChickWeights(),
           "Friedman": lambda: synth.Friedman(seed=42), "Planes2D": lambda: synth.Planes2D(seed=42),
           "FriedmanDrift": lambda: synth.FriedmanDrift(drift_type="gra", position=(1500, 3500), seed=42)}[name]()
    rows = _river_rows(src, 5000 if name in ("Friedman", "Planes2D", "FriedmanDrift") else None)
    keys = list(rows[0][0])
    return [str(k) for k in keys], np.array([[float(x[k]) for k in keys] for x, _ in rows]), np.array([y for _, y in rows])


def write_csv(name: str, folder: Path) -> Path:
    header, X, y = load_stream(name)
    path = folder / f"{name}.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow([*header, "target"])
        w.writerows([*map(repr, r.tolist()), repr(float(v))] for r, v in zip(X, y))
    return path


def _cli_mse(args: list[str]) -> float:
    """``omkl run ARGS`` in this process -> the printed mse (target units)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status = cli.main(args)
    if status != 0:
        raise RuntimeError(f"omkl {' '.join(args)} exited {status}")
    return float(re.search(r" mse=(\S+)", buf.getvalue()).group(1))


def _river_experts():
    """River's reference models used as experts of the omkl + River mixture (River's defaults)."""
    from omkl_core.interop.river import river_baseline  # noqa: PLC0415  # lazy: River is an optional extra

    return [river_baseline("River KNNRegressor(5)", 0), river_baseline("River ARF(10)", 0)]


def mixed_mixture():
    """A Mixture of omkl and River learners on a raw stream: VAW2, OnlineRidge, River's
    KNNRegressor(5) and ARF(10), each in its own TargetScaler, the whole scaled online."""
    from omkl_core.interop import from_river  # noqa: PLC0415  # lazy: River is an optional extra

    experts = [ok.VAW2(), ok.OnlineRidge(), *(from_river(m) for m in _river_experts())]
    return ok.TargetScaler(ok.StandardScaler(max_norm=1.0) | ok.Mixture([ok.TargetScaler(e) for e in experts]))


def measure(name: str, folder: Path) -> dict:
    from omkl_core.interop import to_river  # noqa: PLC0415  # lazy: River is an optional extra
    from omkl_core.interop.river import RIVER_BASELINES, evaluate_river  # noqa: PLC0415  # lazy: River is an optional extra

    path = write_csv(name, folder)
    _, X, y = load_stream(name)
    row = {"stream": name, "T": X.shape[0], "d": X.shape[1],
           "running mean": float(np.mean((running_mean(y) - y) ** 2)),
           "CLI VAW2": _cli_mse(["run", "VAW2", "--csv", str(path)]),
           "CLI Mixture": _cli_mse(["run", "Mixture", "--csv", str(path)])}
    singles = {e: _cli_mse(["run", e, "--csv", str(path)]) for e in DEFAULT_EXPERTS if e in ("VAW2", "OnlineRidge")}
    best = min(singles, key=singles.get)
    row["best single (CLI)"] = f"{singles[best]:.4g} ({best})"
    row["_best_single"] = singles[best]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        river = {k: evaluate_river(k, X, y, seed=0)["mse"] for k in RIVER_BASELINES}
        rbest = min(river, key=river.get)
        row["River's best"] = f"{river[rbest]:.4g} ({rbest.removeprefix('River ')})"
        row["_river_best"] = river[rbest]
        row["omkl+River Mixture (Python)"] = ok.run_online(mixed_mixture(), X, y).mse
        from river import evaluate, metrics, stream  # noqa: PLC0415

        model = to_river(mixed_mixture())
        row["same, through River"] = evaluate.progressive_val_score(stream.iter_array(X, y), model, metrics.MSE()).get()
    return row


COLUMNS = ["stream", "T", "d", "running mean", "CLI VAW2", "CLI Mixture", "best single (CLI)", "River's best",
           "omkl+River Mixture (Python)", "same, through River"]


def _fmt(v) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=None, help="also write the markdown table here")
    ap.add_argument("--streams", default=",".join(ISSUE_STREAMS + ADDED_STREAMS))
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.streams.split(","):
            rows.append(measure(name, Path(tmp)))
            print(f"{name} done", file=sys.stderr, flush=True)
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(_fmt(r[c]) for c in COLUMNS) + " |" for r in rows]
    notes = []
    for r in rows:
        for col in ("CLI VAW2", "CLI Mixture"):
            if r[col] >= r["running mean"]:
                notes.append(f"- {r['stream']}: {col} {r[col]:.4g} >= running mean {r['running mean']:.4g}")
        if r["CLI Mixture"] > r["_best_single"]:
            notes.append(f"- {r['stream']}: CLI Mixture {r['CLI Mixture']:.4g} > best single {r['_best_single']:.4g} "
                         f"({r['CLI Mixture'] / r['_best_single'] - 1:+.1%})")
        if r["omkl+River Mixture (Python)"] > r["_river_best"]:
            notes.append(f"- {r['stream']}: omkl+River Mixture {r['omkl+River Mixture (Python)']:.4g} > River's best "
                         f"{r['_river_best']:.4g}")
    text = "\n".join(lines) + "\n\n" + ("\n".join(notes) if notes else "no losses") + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
