"""The ``omkl`` command (also ``python -m omkl_core``).

    omkl datasets                          list the bundled datasets with T, d and target
    omkl models                            list the learners 'omkl run' builds and the input each takes
    omkl run MODEL --dataset airfoil       run a learner online on a bundled dataset
    omkl run MODEL --csv FILE [--target COL] [--no-normalise]   ... or on your own CSV
        [--param name=value ...] [--predictions out.csv]
    omkl run META --csv experts.csv --experts   a meta-learner on expert predictions
    omkl sweep spec.toml [--executor serial|processes|dask] [--scheduler tcp://host:8786]
        [--cache-dir DIR] [--out rows.csv]  a cached grid of cells (omkl_core.sweep)

MODEL is a learner of ``omkl_core.registry.buildable()`` (e.g. VAW2, OnlineRidge: every
exported learner that plain values can build; ``omkl models`` lists them and the parameters
some need); parameters are passed to its constructor (values parsed as Python literals: 1e-3,
True, "gaussian"). Datasets are the names of ``omkl_core.registry.dataset_names()``: the
bundled files and the AR(4) generator ``ar4``.

Two kinds of learners:

* learners on raw features (VAW, OnlineRidge, VAW2, ...): the non-target columns of the CSV
  (or a bundled dataset) are the features x_t;
* meta-learners on expert predictions (VAWMeta, EWA, AggregatingAlgorithm, MLProd, MLPoly,
  BOA): with ``--experts`` the non-target columns are the experts' forecasts z_t of y_t.

``omkl run`` refuses the wrong kind. Every user error is one line on stderr and a non-zero
exit status (2); ``--debug`` shows the traceback instead.
"""
from __future__ import annotations

import argparse
import ast
import inspect
import os
import sys
import warnings
from pathlib import Path

import numpy as np

from . import datasets, registry
from .protocol import run_online

#: Exit status of a user error (argparse's convention) and of a reader that closed early.
EXIT_USAGE = 2
EXIT_PIPE = 141   # 128 + SIGPIPE, as a shell reports a command killed by a closed pipe


class UserError(Exception):
    """A problem with the command line or its inputs: shown as one line, no traceback."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):   # one line instead of usage + message
        raise UserError(f"{message} (see '{self.prog} --help')")


# ----------------------------------------------------------------------------- learners
def _kind(info: registry.LearnerInfo) -> str:
    kind = "expert predictions (--experts)" if info.input == "experts" else "raw features"
    needs = " ".join(f"--param {k}={repr(v).replace(' ', '')}" for k, v in info.needs.items())
    return f"{kind}; needs {needs}" if needs else kind


def _parse_params(items: list[str] | None) -> dict:
    params = {}
    for item in items or []:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise UserError(f"--param expects NAME=VALUE, got {item!r}")
        try:
            params[key.strip()] = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            params[key.strip()] = raw
    return params


def _construct(name: str, cls: type, params: dict):
    try:
        sig = inspect.signature(cls)
    except (TypeError, ValueError):  # pragma: no cover - every learner has a signature
        sig = None
    if sig is not None:
        known = [p.name for p in sig.parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        takes_any = any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())
        unknown = [k for k in params if k not in known]
        if unknown and not takes_any:
            raise UserError(f"unknown parameter {unknown[0]!r} for {name}; its parameters: {', '.join(known) or 'none'}")
        missing = [p for p in registry.required_parameters(cls) if p not in params]
        if missing:
            raise UserError(f"{name} needs parameter {missing[0]!r}: pass --param {missing[0]}=VALUE")
    try:
        return cls(**params)
    except (TypeError, ValueError) as exc:
        raise UserError(f"invalid parameter for {name}: {exc}") from exc


# ----------------------------------------------------------------------------- inputs
def _column(target: str | None, header: list[str], path: str) -> int:
    n = len(header)
    if target is None:
        return n - 1
    if target in header:
        return header.index(target)
    try:
        col = int(target)
    except ValueError:
        raise UserError(f"--target {target!r} is not a column of {path}; columns: {', '.join(header)}") from None
    if not 0 <= col < n:   # no wrap-around: -1 or 99 is an error, not another column
        raise UserError(f"--target {target}: column index out of range for {path}, which has {n} columns "
                        f"(indices 0 to {n - 1}: {', '.join(header)})")
    return col


def _load_csv(path: str, target: str | None, normalise: bool, experts: bool):
    p = Path(path)
    if not p.exists():
        raise UserError(f"--csv {path}: no such file")
    if p.is_dir():
        raise UserError(f"--csv {path}: is a directory, not a CSV file")
    try:
        if p.stat().st_size == 0 or not p.read_text(encoding="utf-8").strip():
            raise UserError(f"--csv {path}: the file is empty (expected a header row and data rows)")
        header, values, raw = datasets.read_csv(p)
    except UnicodeDecodeError:
        raise UserError(f"--csv {path}: not a text CSV file (cannot decode it as UTF-8)") from None
    except PermissionError:
        raise UserError(f"--csv {path}: permission denied") from None
    except ValueError as exc:  # ragged rows
        raise UserError(f"--csv {exc}") from None
    if not raw:
        raise UserError(f"--csv {path}: has a header but no data rows")
    if len(header) < 2:
        raise UserError(f"--csv {path}: needs at least two columns (features and a target), got {len(header)}")
    col = _column(target, header, path)
    feats = [j for j in range(len(header)) if j != col]
    for j in feats + [col]:
        bad = np.flatnonzero(~np.isfinite(values[:, j]))
        if bad.size:
            i = int(bad[0])
            cell = raw[i][j].strip()
            raise UserError(f"--csv {path}: row {i + 1} (line {i + 2}), column {header[j]!r}: "
                            f"{'empty cell' if not cell else f'{cell!r} is not a finite number'}")
    X, y = values[:, feats], values[:, col]
    if not normalise:
        return X, y
    if experts:   # forecasts of y are scaled as y is (eq. 33), so they stay comparable
        lo, hi = y.min(), y.max()
        if hi == lo:
            raise UserError(f"--csv {path}: the target column {header[col]!r} is constant; cannot normalise (eq. 33)")
        return (X - lo) / (hi - lo), (y - lo) / (hi - lo)
    try:
        return datasets.normalise_stream(X, y)
    except ValueError as exc:
        raise UserError(f"--csv {path}: {exc}") from None


def _check_output(path: str) -> Path:
    """Fail before the run, not after it, when ``--predictions`` cannot be written."""
    p = Path(path)
    if p.is_dir():
        raise UserError(f"--predictions {path}: is a directory; give a file name such as {p / 'predictions.csv'}")
    parent = p.parent if str(p.parent) else Path(".")
    if parent.exists() and not parent.is_dir():
        raise UserError(f"--predictions {path}: {parent} is a file, not a folder")
    if not parent.is_dir():
        raise UserError(f"--predictions {path}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise UserError(f"--predictions {path}: not writable (permission denied)")
    return p


# ----------------------------------------------------------------------------- commands
def _cmd_datasets(args) -> int:
    print(f"{'name':12s} {'T':>6s} {'d':>3s}  target")
    for name in registry.dataset_names():
        meta = registry.dataset_info(name)
        note = f" (generator, {meta.source})" if meta.generator else ""
        print(f"{name:12s} {meta.T:6d} {meta.d:3d}  {meta.target}{note}")
    return 0


def _cmd_models(args) -> int:
    for name, info in registry.buildable().items():
        print(f"{name:24s} {_kind(info)}")
    other = [registry.learner_info(n) for n in sorted(registry.learners()) if n not in registry.buildable()]
    if other:
        print("not buildable by 'omkl run' (Python API only): "
              + "; ".join(f"{i.name} ({i.why_not})" for i in other))
    return 0


def _cmd_run(args) -> int:
    learners = registry.learners()
    if args.model not in learners:
        raise UserError(f"unknown model {args.model!r}; known: {', '.join(sorted(registry.buildable()))}")
    info = registry.learner_info(args.model)
    if not info.buildable:
        raise UserError(f"{args.model} cannot be built from --param values (Python API only): {info.why_not}")
    cls = info.cls
    params = _parse_params(args.param)
    meta = info.input == "experts"
    if meta and not args.experts:
        raise UserError(f"{args.model} is a meta-learner: it aggregates expert predictions, not raw features; "
                        "pass --csv FILE --experts with one column per expert forecast (or pick a learner on "
                        "raw features: 'omkl models')")
    if args.experts and not meta:
        raise UserError(f"{args.model} learns from raw features, not expert predictions; drop --experts "
                        "or pick a meta-learner ('omkl models')")
    if args.experts and args.dataset:
        raise UserError("--experts needs --csv (the bundled datasets hold raw features)")
    if args.target is not None and not args.csv:
        raise UserError("--target applies to --csv only")
    out = _check_output(args.predictions) if args.predictions else None
    if args.dataset:
        if args.dataset not in registry.dataset_names():
            raise UserError(f"unknown dataset {args.dataset!r}; known: {', '.join(registry.dataset_names())}")
        try:
            X, y = registry.load_dataset(args.dataset, normalise=not args.no_normalise, variant=args.variant)
        except ValueError as exc:
            raise UserError(f"--dataset {args.dataset}: {exc}") from None
    else:
        if args.variant is not None:
            raise UserError("--variant applies to --dataset only")
        X, y = _load_csv(args.csv, args.target, not args.no_normalise, args.experts)
    model = _construct(args.model, cls, params)
    trace = run_online(model, X, y, progress=args.progress)
    print(f"{args.model}: T={len(y)} mse={trace.mse:.6g} (x1e3: {1e3 * trace.mse:.4f}) seconds={trace.seconds:.3f}")
    if out is not None:
        import pandas as pd  # noqa: PLC0415

        pd.DataFrame({"t": np.arange(1, len(y) + 1), "y": y, "y_hat": trace.predictions,
                      "mse": trace.mse_curve}).to_csv(out, index=False)
    return 0


def _cmd_sweep(args) -> int:
    from .sweep import main_sweep  # noqa: PLC0415

    return main_sweep(args)


def build_parser() -> argparse.ArgumentParser:
    """The parser; a new subcommand adds a sub-parser with ``set_defaults(func=...)``."""
    parser = _Parser(prog="omkl", description=__doc__.split("\n\n")[0],
                     epilog="Learners on raw features vs. on expert predictions: see 'omkl models'.")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    sub = parser.add_subparsers(dest="cmd", required=True, parser_class=_Parser)
    sub.add_parser("datasets", help="list the bundled datasets").set_defaults(func=_cmd_datasets)
    sub.add_parser("models", help="list the learners and their input kind").set_defaults(func=_cmd_models)
    run = sub.add_parser(
        "run", help="run a learner online and print its MSE",
        description="Run a learner online (predict, then learn) and print its MSE. Learners on raw "
                    "features (VAW, OnlineRidge, BayesianRidge, KernelRidge, VAW2, VAWEWA, ...) read the "
                    "non-target columns as features; meta-learners (VAWMeta, EWA, AggregatingAlgorithm, "
                    "MLProd, MLPoly, BOA) read them as expert predictions and need --experts.")
    run.add_argument("model", help="a learner class, see 'omkl models'")
    src = run.add_mutually_exclusive_group(required=True)
    src.add_argument("--dataset", help=f"one of {', '.join(registry.dataset_names())}")
    src.add_argument("--csv", help="your own CSV (header row; numeric columns)")
    run.add_argument("--target", help="target column name or index 0..ncols-1 of --csv (default: last)")
    run.add_argument("--experts", action="store_true",
                     help="the non-target columns are expert forecasts of y (for meta-learners)")
    run.add_argument("--variant", default=None, help="dataset variant (naval: 17, bias: dropna)")
    run.add_argument("--no-normalise", action="store_true", help="skip paper 000 eqs. (33)-(34)")
    run.add_argument("--param", action="append", metavar="NAME=VALUE", help="constructor argument")
    run.add_argument("--predictions", help="write t, y, y_hat, running MSE to this CSV")
    run.add_argument("--progress", action="store_true", help="show a progress bar on stderr")
    run.set_defaults(func=_cmd_run)
    sweep = sub.add_parser("sweep", help="run a (dataset, learner, params, seed) grid from a TOML spec")
    sweep.add_argument("spec", help="TOML file: datasets, seeds, [[learners]] name/params, max_steps")
    sweep.add_argument("--executor", choices=["serial", "processes", "dask"], default=None,
                       help="default: processes (every core), or dask when --scheduler is given")
    sweep.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://host:8786")
    sweep.add_argument("--workers", type=int, default=None, help="processes for --executor processes")
    sweep.add_argument("--cache-dir", default=None, help="on-disk cache folder (default: no cache)")
    sweep.add_argument("--out", default=None, help="write one row per cell to this CSV")
    sweep.add_argument("--quiet", action="store_true", help="no progress bar")
    sweep.set_defaults(func=_cmd_sweep)
    return parser


def _warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A library warning on the command line: one line, without the source location."""
    print(f"omkl: warning: {' '.join(str(message).split())}", file=sys.stderr)


def _error(msg: str) -> None:
    print(f"omkl: error: {' '.join(str(msg).split())}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run the command; every user error becomes one line on stderr and exit status 2."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv          # accepted anywhere on the line
    argv = [a for a in argv if a != "--debug"]
    try:
        try:
            with warnings.catch_warnings():
                warnings.showwarning = _warning
                args = build_parser().parse_args(argv)
                status = args.func(args)
            sys.stdout.flush()
            return status
        except (UserError, ValueError, TypeError, MemoryError, OverflowError, FloatingPointError) as exc:
            if debug:
                raise
            _error(exc)
            return EXIT_USAGE
        except BrokenPipeError:
            raise
        except OSError as exc:   # a file that cannot be read or written
            if debug:
                raise
            _error(f"{exc.strerror or exc}: {exc.filename}" if exc.filename else exc)
            return EXIT_USAGE
        except KeyboardInterrupt:
            if debug:
                raise
            _error("interrupted")
            return 130
    except BrokenPipeError:
        # the reader (e.g. `head`) closed early: stop quietly, as a Unix tool does
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:  # pragma: no cover
            pass
        return EXIT_PIPE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
