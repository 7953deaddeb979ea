"""The ``omkl`` command (also ``python -m omkl_core``).

    omkl datasets                          list the bundled datasets with T, d and target
    omkl run MODEL --dataset airfoil       run a learner online on a bundled dataset
    omkl run MODEL --csv FILE [--target COL] [--no-normalise]   ... or on your own CSV
        [--param name=value ...] [--predictions out.csv]

MODEL is any learner class exported by ``omkl_core`` (e.g. VAW2, OnlineRidge); parameters
are passed to its constructor (values parsed as Python literals: 1e-3, True, "gaussian").
"""
from __future__ import annotations

import argparse
import ast
import sys

import numpy as np

from . import datasets
from .protocol import run_online


def _learners() -> dict[str, type]:
    import omkl_core  # noqa: PLC0415

    return {name: obj for name, obj in vars(omkl_core).items()
            if isinstance(obj, type) and callable(getattr(obj, "learn_one", None))
            and callable(getattr(obj, "predict_one", None))}


def _parse_params(items: list[str]) -> dict:
    params = {}
    for item in items or []:
        if "=" not in item:
            raise SystemExit(f"error: --param expects name=value, got {item!r}")
        key, raw = item.split("=", 1)
        try:
            params[key] = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            params[key] = raw
    return params


def _load_csv(path: str, target: str | None, normalise: bool):
    header, values, _ = datasets.read_csv(path)
    col = len(header) - 1 if target is None else (
        int(target) if target.lstrip("-").isdigit() else header.index(target) if target in header else None)
    if col is None:
        raise SystemExit(f"error: --target {target!r} is not a column of {path} ({header})")
    col %= len(header)
    feats = [j for j in range(len(header)) if j != col]
    X, y = values[:, feats], values[:, col]
    if not (np.isfinite(X).all() and np.isfinite(y).all()):
        raise SystemExit(f"error: {path} has missing or non-numeric values in the selected columns")
    return datasets.normalise_stream(X, y) if normalise else (X, y)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="omkl", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("datasets", help="list the bundled datasets")
    sub.add_parser("models", help="list the learner classes")
    run = sub.add_parser("run", help="run a learner online and print its MSE")
    run.add_argument("model")
    src = run.add_mutually_exclusive_group(required=True)
    src.add_argument("--dataset", help=f"one of {datasets.names()} or ar4")
    src.add_argument("--csv", help="your own CSV (header row; numeric columns)")
    run.add_argument("--target", help="target column name or index of --csv (default: last)")
    run.add_argument("--variant", default=None, help="dataset variant (naval: 17, bias: dropna)")
    run.add_argument("--no-normalise", action="store_true", help="skip paper 000 eqs. (33)-(34)")
    run.add_argument("--param", action="append", metavar="NAME=VALUE", help="constructor argument")
    run.add_argument("--predictions", help="write t, y, y_hat, running MSE to this CSV")
    args = parser.parse_args(argv)

    if args.cmd == "datasets":
        print(f"{'name':12s} {'T':>6s} {'d':>3s}  target")
        for name in datasets.names():
            meta = datasets.info(name)
            print(f"{name:12s} {meta['T']:6d} {meta['d']:3d}  {meta['target']}")
        print(f"{'ar4':12s} {5000:6d} {1:3d}  x_(t+1) (generator, paper 000 eq. 32)")
        return 0
    learners = _learners()
    params = _parse_params(args.param) if args.cmd == "run" else {}
    if args.cmd == "models":
        print("\n".join(sorted(learners)))
        return 0
    if args.model not in learners:
        print(f"error: unknown model {args.model!r}; known: {', '.join(sorted(learners))}", file=sys.stderr)
        return 2
    if args.dataset == "ar4":
        X, y = datasets.ar4(normalise=not args.no_normalise)
    elif args.dataset:
        X, y = datasets.load(args.dataset, normalise=not args.no_normalise, variant=args.variant)
    else:
        X, y = _load_csv(args.csv, args.target, not args.no_normalise)
    model = learners[args.model](**params)
    trace = run_online(model, X, y)
    print(f"{args.model}: T={len(y)} mse={trace.mse:.6g} (x1e3: {1e3 * trace.mse:.4f}) seconds={trace.seconds:.3f}")
    if args.predictions:
        import pandas as pd  # noqa: PLC0415

        pd.DataFrame({"t": np.arange(1, len(y) + 1), "y": y, "y_hat": trace.predictions,
                      "mse": trace.mse_curve}).to_csv(args.predictions, index=False)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
