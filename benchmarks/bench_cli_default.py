"""The default of the command line on raw streams nobody here wrote (issue 41): ``omkl run --csv F``.

Each stream is written to a CSV (from the installed scikit-learn and River, or generated here;
nothing downloaded), then run as a new user would: ``omkl run --csv F`` (no model name: the default
Mixture -- the running mean, VAW2 and OnlineRidge, each scaled online, aggregated by ML-Poly in the
target's units), ``omkl run VAW2 --csv F`` and ``omkl run OnlineRidge --csv F``, beside the running
mean of the raw labels. For the default Mixture also its regret against its best expert and the bound
ML-Poly carries for it (what ``--regret`` prints; ``omkl_core.regret.regret_report``). MSE in the
target's units; every number is one run of a deterministic stream.

Streams: the public streams of ``bench_raw_streams.py`` (scikit-learn's diabetes; River's
TrumpApproval, ChickWeights, Friedman, AirlinePassengers, Planes2D, Mv, FriedmanDrift), scikit-learn's
linnerud (T = 20, target Weight), River's SP500Stocks (daily returns) and a near-unpredictable
stream generated here (i.i.d. Student-t daily returns, ``bench_river_track.iid_returns``).

    PYTHONPATH=. python benchmarks/bench_cli_default.py     # -> benchmarks/results/cli_default.{md,csv}
"""
from __future__ import annotations

import contextlib
import csv
import io
import re
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

import omkl_core as ok
from omkl_core import cli as omkl_cli
from omkl_core.protocol import running_mean

sys.path.insert(0, str(Path(__file__).resolve().parent))

STREAMS = ("diabetes", "TrumpApproval", "ChickWeights", "Friedman", "AirlinePassengers", "Planes2D", "Mv",
           "FriedmanDrift", "linnerud", "SP500Stocks", "iid_returns")
RESULTS = Path(__file__).resolve().parent / "results"


def load(name: str):
    """(header, X, y) in raw units."""
    if name == "linnerud":
        from sklearn.datasets import load_linnerud  # noqa: PLC0415

        d = load_linnerud()
        return list(d.feature_names), d.data.astype(float), d.target[:, 0].astype(float)   # Weight
    if name == "SP500Stocks":
        from river import datasets  # noqa: PLC0415

        rows = [(x, float(y)) for x, y in datasets.SP500Stocks()]
        keys = list(rows[0][0])
        return keys, np.array([[float(x[k]) for k in keys] for x, _ in rows]), np.array([y for _, y in rows])
    if name == "iid_returns":
        from bench_river_track import iid_returns  # noqa: PLC0415

        X, y = iid_returns()
        return [f"r_lag{k}" for k in range(1, 6)], X, y
    from bench_raw_streams import load_stream  # noqa: PLC0415

    return load_stream(name)


def write_csv(name: str, folder: Path) -> Path:
    header, X, y = load(name)
    path = folder / f"{name}.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow([*header, "target"])
        w.writerows([*map(repr, r.tolist()), repr(float(v))] for r, v in zip(X, y))
    return path


def cli(args: list[str]) -> tuple[float, str]:
    """``omkl ARGS`` in this process -> (the printed mse, the whole output)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status = omkl_cli.main(args)
    if status != 0:
        raise RuntimeError(f"omkl {' '.join(args)} exited {status}")
    return float(re.search(r" mse=(\S+)", buf.getvalue()).group(1)), buf.getvalue()


def measure(name: str, folder: Path) -> dict:
    path = write_csv(name, folder)
    _, X, y = load(name)
    t0 = time.perf_counter()
    mix, out = cli(["run", "--csv", str(path)])
    secs = time.perf_counter() - t0
    vaw2, _ = cli(["run", "VAW2", "--csv", str(path)])
    ridge, _ = cli(["run", "OnlineRidge", "--csv", str(path)])
    mean = float(np.mean((running_mean(y) - y) ** 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = ok.Mixture().summary(X, y, shifts=0)
    j = rep.best_expert
    row = [b for b in rep.bounds if b.expert == j][0]
    best = min((("VAW2", vaw2), ("OnlineRidge", ridge)), key=lambda kv: kv[1])
    return {"stream": name, "T": len(y), "running mean": mean, "omkl run --csv F": mix,
            "ratio to the mean": mix / mean, "omkl run VAW2": vaw2, "omkl run OnlineRidge": ridge,
            "best single (CLI)": f"{best[1]:.4g} ({best[0]})",
            "mixture's best expert": f"{rep.expert_names[j]} ({rep.expert_losses[j]:.4g})",
            "regret vs it": row.lhs, "its printed bound": row.bound, "within the bound": bool(row.holds),
            "regret vs the mean": [b for b in rep.bounds if b.expert == 0][0].lhs,
            "bound vs the mean": [b for b in rep.bounds if b.expert == 0][0].bound,
            "seconds (--csv F)": secs, "weights at the end": out.split("experts (weight at the end): ")[1].split("\n")[0]}


def _fmt(v) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def main(argv=None) -> int:
    names = STREAMS if not argv else argv
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            rows.append(measure(name, Path(tmp)))
            print(f"{name} done", file=sys.stderr, flush=True)
    cols = list(rows[0])
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(_fmt(r[c]) for c in cols) + " |" for r in rows]
    notes = [f"- {r['stream']}: omkl run --csv F {r['omkl run --csv F']:.4g} >= running mean {r['running mean']:.4g} "
             f"({r['ratio to the mean'] - 1:+.2%}); regret vs the mean {r['regret vs the mean']:.4g} <= its bound "
             f"{r['bound vs the mean']:.4g}" for r in rows if r["ratio to the mean"] >= 1]
    text = "\n".join(lines) + "\n\n" + ("\n".join(notes) if notes else "below the running mean on every stream") + "\n"
    print(text)
    if not argv:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "cli_default.md").write_text(text)
        with open(RESULTS / "cli_default.csv", "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=cols)
            w.writeheader()
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
