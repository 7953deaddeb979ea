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
