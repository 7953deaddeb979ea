"""The ``omkl`` command (also ``python -m omkl_core``)::

    omkl datasets                          list the bundled datasets with T, d and target
    omkl models                            list the learners 'omkl run' builds and the input each takes
    omkl run MODEL --dataset airfoil       run a learner online on a bundled dataset
    omkl run MODEL --csv FILE [--target COL] [--scale online|standardise|paper|none]   ... or on your
        own CSV ('-': standard input) [--param name=value ...] [--predictions out.csv]
    omkl run --csv FILE                    the default Mixture (running mean, VAW2, OnlineRidge by ML-Poly)
    omkl run Mixture --csv FILE [--expert NAME[:k=v,...] ...] [--meta NAME[:k=v,...]]
        a Mixture of omkl learners (and River's, river.MODULE.CLASS, when River is installed)
    omkl run META --csv forecasts.csv --forecasts  a meta-learner on expert predictions
    omkl sweep spec.toml [--executor serial|processes|dask] [--scheduler tcp://host:8786 | --local N]
        [--cache-dir DIR] [--out rows.csv]  a cached grid of cells (omkl_core.sweep)

MODEL is a learner of ``omkl_core.registry.buildable()`` (e.g. VAW2, OnlineRidge: every
exported learner that plain values can build; ``omkl models`` lists them and the parameters
some need); parameters are passed to its constructor (values parsed as Python literals: 1e-3,
True, "gaussian"). Datasets are the names of ``omkl_core.registry.dataset_names()``: the
bundled files and the AR(4) generator ``ar4``.

Two kinds of learners:

* learners on raw features (VAW, OnlineRidge, VAW2, ...): the non-target columns of the CSV
  (or a bundled dataset) are the features x_t;
* meta-learners on expert predictions (every learner whose ``input_kind`` is ``"experts"``: the rules
  of ``omkl_core.aggregation`` and any registered; ``omkl models`` lists them): with ``--forecasts``
  the non-target columns are the experts' forecasts z_t of y_t.

Scaling (``--scale``), the default for a CSV is ``online``: features AND target scaled online,
from the rows and labels already seen (no look-ahead), by the learners of
:mod:`omkl_core.preprocessing` -- the learner runs as
``TargetScaler(StandardScaler(max_norm=1.0) | MODEL, method=--target-scale)``: each feature
column standardised by the mean and sd of rows 1..t, the row then scaled to ||x_t|| <= 1 (the
online form of paper 000 eq. (34)); the label scaled online into the label range the learner
assumes (``minmax``: the online form of eq. (33) into its ``bounds``, [0, 1] for the VAW family
and a Mixture's meta-learner) or centred and standardised where it assumes none (``standard``:
``OnlineRidge`` without an intercept then does not lose to the mean); predictions mapped back
to the target's units.  The paper learners keep their class defaults; the wrapper supplies the
normalisation they assume.  ``standardise`` scales the features only (y as given); ``paper`` is
paper 000's eqs. (33)-(34) (whole-stream statistics: look-ahead), the default for ``--dataset``
and ``--forecasts`` so the published numbers stay; ``none`` uses the values as given.
The printed ``mse`` and ``baseline_mse`` and ``--predictions`` are in the target's units; the
baseline is the running mean of the raw labels (y_hat_t = mean of y_1..y_{t-1}, 0 at t = 1),
the same whatever ``--scale``; ``mse_scaled`` (with ``paper``) is the MSE on the papers' [0, 1]
scale.

Mixture: ``omkl run --csv F`` (no model name) and ``omkl run Mixture`` run the default mixture
(:func:`omkl_core.mixture.default_pool`, :func:`omkl_core.mixture.default_meta`): the running mean,
VAW2 and OnlineRidge, each in its own online scalers (features and target, no look-ahead), so each
forecasts in the target's units, aggregated by ML-Poly in the target's units.  Because the running
mean is one of its experts, the bound ML-Poly carries (Gaillard, Stoltz & van Erven 2014; printed
by ``--regret``) bounds its regret against the mean and against every expert, in the target's units.
``--expert`` (repeated) and ``--meta`` choose others.  A spec is ``NAME`` or ``NAME:k=v,k=v``
(values as in ``--param``), e.g. ``--expert VAW2:m=20 --expert OnlineRidge:fit_intercept=True
--expert river.neighbors.KNNRegressor:n_neighbors=5 --meta MLPoly:bounds=None``; NAME is a learner
of ``omkl models`` on raw features (``RunningMean`` included), or a River regressor
``river.MODULE.CLASS`` (through :func:`omkl_core.interop.from_river`; River must be installed).
Under ``--scale online`` a meta-learner without label bounds (the default) aggregates in the
target's units, each expert in its own scalers; one with bounds [A, B] (e.g. ``--meta BOA``) sees
the labels scaled online into [A, B] (the whole mixture in the scalers, each expert in its own
``TargetScaler``; ``--regret`` then needs a fixed scaling).  The run names the experts (with their
final weights and abstentions) and the meta-learner.

``omkl run`` refuses the wrong kind. Every user error is one line on stderr and a non-zero
exit status (2); ``--debug`` shows the traceback instead.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings

from .. import registry
from .build import DEFAULT_EXPERTS, DEFAULT_META
from .commands import _cmd_datasets, _cmd_models, _cmd_run, _cmd_sweep
from .errors import EXIT_PIPE, EXIT_USAGE, Terminated, UserError, _error, _raise_terminated, _warning
from .stream import SCALINGS


class _Renamed(argparse.Action):
    """A flag kept for one release under its old spelling: it sets ``const`` and prints one line on
    stderr naming the spelling to use (``--experts`` -> ``--forecasts``, ``--no-normalise`` ->
    ``--scale none``)."""

    def __init__(self, option_strings, dest, const=True, instead: str = "", **kwargs):
        super().__init__(option_strings, dest, nargs=0, const=const, default=None, **kwargs)
        self.instead = instead

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"omkl: warning: {option_string} is deprecated and will be removed; use {self.instead}", file=sys.stderr)
        setattr(namespace, self.dest, self.const)


#: what ``omkl --help`` says first, in plain words (the module docstring is the API page's)
DESCRIPTION = ("The omkl command (also: python -m omkl_core): run an online learner, or a mixture of learners, "
               "on a bundled dataset or on your own CSV and print its mean squared error beside the running "
               "mean's; list the datasets and the learners; run a grid of runs.")


class _Parser(argparse.ArgumentParser):
    def error(self, message):   # one line instead of usage + message
        raise UserError(f"{message} (see '{self.prog} --help')")


def build_parser() -> argparse.ArgumentParser:
    """The parser; a new subcommand adds a sub-parser with ``set_defaults(func=...)``."""
    parser = _Parser(prog="omkl", description=DESCRIPTION,
                     epilog="Learners on raw features vs. on expert predictions: see 'omkl models'. "
                            "The user guide: ./reproduce.sh docs, then docs/_build/html/guide/cli.html.")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    sub = parser.add_subparsers(dest="cmd", required=True, parser_class=_Parser)
    sub.add_parser("datasets", help="list the bundled datasets").set_defaults(func=_cmd_datasets)
    sub.add_parser("models", help="list the learners and their input kind").set_defaults(func=_cmd_models)
    metas = ", ".join(n for n, i in registry.buildable().items() if i.input == "experts")   # the registry's
    run = sub.add_parser(
        "run", help="run a learner online and print its MSE",
        description="Run a learner online (predict, then learn) and print its MSE. Learners on raw "
                    "features (VAW, OnlineRidge, VAW2 and every other learner 'omkl models' marks [raw features]) read "
                    "the non-target columns as features; meta-learners need --forecasts and read them as expert "
                    f"predictions (meta-learners: {metas}).")
    run.add_argument("model", nargs="?", default="Mixture",
                     help="a learner class, see 'omkl models' (default: Mixture, the default mixture: the running "
                          "mean, VAW2 and OnlineRidge aggregated by ML-Poly in the target's units)")
    src = run.add_mutually_exclusive_group(required=True)
    src.add_argument("--dataset", help=f"one of {', '.join(registry.dataset_names())}")
    src.add_argument("--csv", help="your own CSV (a header row naming the columns, then numeric rows; "
                                   "'-' reads standard input)")
    run.add_argument("--target", help="target column name or index 0..ncols-1 of --csv (default: last)")
    run.add_argument("--forecasts", action="store_true",
                     help="the non-target columns are expert forecasts of y (for meta-learners)")
    run.add_argument("--experts", action=_Renamed, dest="forecasts", const=True, instead="--forecasts",
                     help=argparse.SUPPRESS)
    run.add_argument("--variant", default=None, help="dataset variant (naval: 17, bias: dropna)")
    run.add_argument("--scale", choices=list(SCALINGS), default=None,
                     help="online (default for --csv): features and target scaled online from the rows and "
                          "labels already seen (no look-ahead): each feature column standardised by the running "
                          "mean and sd of its rows 1..t, rows scaled to norm <= 1, the label scaled into the "
                          "range the learner assumes, predictions mapped back (omkl_core.preprocessing). "
                          "standardise: the features only, y as given. paper (default for --dataset and --forecasts): paper 000 "
                          "eqs. (33)-(34), y min-max scaled to [0, 1] and X divided by its largest row norm, "
                          "whole-stream statistics as the papers use them. none: as given. The MSE and "
                          "--predictions are in the target's units whichever is used")
    run.add_argument("--target-scale", choices=["auto", "minmax", "standard"], default=None,
                     help="with --scale online: minmax (online eq. (33) into the learner's label bounds), "
                          "standard (centred, unit sd), auto (default: minmax where the learner declares "
                          "label bounds -- the VAW family, a Mixture -- else standard)")
    run.add_argument("--expert", action="append", metavar="NAME[:k=v,...]",
                     help="omkl run Mixture: an expert (repeat; default: " + ", ".join(DEFAULT_EXPERTS) + "): a "
                          "learner of 'omkl models' or a River regressor river.MODULE.CLASS")
    run.add_argument("--meta", metavar="NAME[:k=v,...]",
                     help=f"omkl run Mixture: the meta-learner (default {DEFAULT_META}; one of {metas})")
    run.add_argument("--no-normalise", action=_Renamed, dest="no_normalise", const=True, instead="--scale none",
                     help=argparse.SUPPRESS)
    run.add_argument("--param", action="append", metavar="NAME=VALUE", help="constructor argument")
    run.add_argument("--predictions", help="write t, y, y_hat, running MSE (in the target's units) to this CSV")
    run.add_argument("--progress", action="store_true", help="show a progress bar on stderr")
    run.add_argument("--regret", action="store_true",
                     help="also print the regret table (learners that combine experts): the learner's summed "
                          "squared error beside each expert's and beside the best choices in hindsight (the best "
                          "expert, the best convex and linear combinations, the best sequences of experts "
                          "switching up to 5 times), and the regret bound its meta-learner carries, evaluated on "
                          "this run (see the glossary of the user guide)")
    run.set_defaults(func=_cmd_run)
    sweep = sub.add_parser("sweep", help="run a (dataset, learner, params, seed) grid from a TOML spec")
    sweep.add_argument("spec", help="TOML file: datasets, seeds, [[learners]] name/params, max_steps")
    sweep.add_argument("--executor", choices=["serial", "processes", "dask"], default=None,
                       help="default: processes (every core), or dask when --scheduler or --local is given")
    sweep.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://host:8786")
    sweep.add_argument("--local", type=int, default=None, metavar="N",
                       help="with --executor dask: start a Dask LocalCluster of N worker processes (1 thread "
                            "each) for this sweep and stop it afterwards")
    sweep.add_argument("--workers", type=int, default=None, help="processes for --executor processes")
    sweep.add_argument("--cache-dir", default=None, help="on-disk cache folder (default: no cache)")
    sweep.add_argument("--out", default=None, help="write one row per cell to this CSV")
    sweep.add_argument("--quiet", action="store_true", help="no progress bar")
    sweep.set_defaults(func=_cmd_sweep)
    return parser


def _check_environment() -> None:
    """The settings read from the environment (``OMKL_THREADS``, ``OMKL_ENGINE``, ``OMKL_COS``), checked
    before any work: a bad value is one line naming the variable, not a learner's failure."""
    from .. import compiled, cosine, threads  # noqa: PLC0415  # lazy: load time of the CLI (engines only when checked)

    for check in (threads.requested, compiled.get_engine, cosine.library):
        try:
            check()
        except ValueError as exc:
            raise UserError(str(exc)) from None
        except ImportError as exc:
            raise UserError(str(exc)) from None


@contextlib.contextmanager
def _stop_on_sigterm():
    """SIGTERM raises :class:`Terminated` in the main thread while the command runs (the default
    action killed the process mid-work: a local Dask cluster's workers printed tracebacks and
    multiprocessing a leaked-semaphore warning, and omkl said nothing); the previous handler is
    put back afterwards. Off the main thread (no handler can be set) nothing changes."""
    import signal  # noqa: PLC0415

    try:
        previous = signal.signal(signal.SIGTERM, _raise_terminated)
    except ValueError:                       # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _stopped(exc: KeyboardInterrupt) -> int:
    """The one line of an interrupted command (and what the work kept: ``exc.detail``), its exit status."""
    detail = getattr(exc, "detail", "")
    if isinstance(exc, Terminated):
        print(f"omkl: stopped by {exc.name}" + (f"; {detail}" if detail else ""), file=sys.stderr)
        return 128 + exc.signum
    _error("interrupted" + (f"; {detail}" if detail else ""))
    return 130


def main(argv: list[str] | None = None) -> int:
    """Run the command; every user error becomes one line on stderr and exit status 2."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv          # accepted anywhere on the line
    argv = [a for a in argv if a != "--debug"]
    with _stop_on_sigterm():
        return _main(argv, debug)


def _main(argv: list[str], debug: bool) -> int:
    try:
        try:
            with warnings.catch_warnings():
                warnings.showwarning = _warning
                args = build_parser().parse_args(argv)
                _check_environment()
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
        except KeyboardInterrupt as exc:    # Ctrl-C, or SIGTERM (Terminated)
            if debug:
                raise
            return _stopped(exc)
    except BrokenPipeError:
        # the reader (e.g. `head`) closed early: stop quietly, as a Unix tool does
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:  # pragma: no cover
            pass
        return EXIT_PIPE


__all__ = ["main", "build_parser", "UserError", "DEFAULT_EXPERTS", "DEFAULT_META", "SCALINGS"]
