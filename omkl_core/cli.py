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
import ast
import contextlib
import csv
import inspect
import json
import math
import os
import re
import sys
import warnings
from pathlib import Path

import numpy as np

from . import datasets, registry
from .preprocessing import Pipeline, StandardScaler, TargetScaler
from .validation import check_memory

#: Exit status of a user error (argparse's convention) and of a reader that closed early.
EXIT_USAGE = 2
EXIT_PIPE = 141   # 128 + SIGPIPE, as a shell reports a command killed by a closed pipe


class UserError(Exception):
    """A problem with the command line or its inputs: shown as one line, no traceback."""


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


class _Parser(argparse.ArgumentParser):
    def error(self, message):   # one line instead of usage + message
        raise UserError(f"{message} (see '{self.prog} --help')")


# ----------------------------------------------------------------------------- learners
def _kind(info: registry.LearnerInfo) -> str:
    kind = "expert predictions (--forecasts)" if info.input == "experts" else "raw features"
    needs = " ".join(f"--param {k}={repr(v).replace(' ', '')}" for k, v in info.needs.items())
    return f"{kind}; needs {needs}" if needs else kind


def _parse_params(items: list[str] | None) -> dict:
    params = {}
    for item in items or []:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise UserError(f"--param expects NAME=VALUE, got {item!r}")
        special = {"nan": math.nan, "inf": math.inf, "+inf": math.inf, "-inf": -math.inf}
        try:
            params[key.strip()] = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            params[key.strip()] = special.get(raw.strip().lower(), raw)
    return params


def _construct(name: str, cls: type, params: dict, flag: str = "--param"):
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
            raise UserError(f"{name} needs parameter {missing[0]!r}: pass "
                            + (f"--param {missing[0]}=VALUE" if flag == "--param" else f"{flag} {name}:{missing[0]}=VALUE"))
    try:
        return cls(**params)
    except (TypeError, ValueError) as exc:
        raise UserError(f"invalid {flag} value for {name}: {exc}") from exc
    except (RuntimeError, ImportError) as exc:   # e.g. --param backend=cupy on a machine without a GPU
        shown = " ".join(f"{flag} {k}={v!r}" for k, v in params.items())
        raise UserError(f"{name} cannot be built with {shown}: {exc}") from exc


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


def _load_csv(path: str, target: str | None):
    """``(table, feature columns, target column, feature names, target name)`` of ``--csv PATH``:
    read and checked in one pass in bounded memory (:mod:`omkl_core.csvstream`), refusing what
    would be silently misread (another dialect, a column without a name, ``1_000``, ...)."""
    from . import csvstream  # noqa: PLC0415

    name = "standard input" if path == "-" else path
    try:
        table = csvstream.read_table(path, name)
    except ValueError as exc:
        raise UserError(f"--csv {exc}") from None
    try:
        col = _column(target, table.header, name)
    except UserError:
        table.close()
        raise
    feats = [j for j in range(len(table.header)) if j != col]
    return table, feats, col, [table.header[j] for j in feats], table.header[col]


def _check_budget(name: str, model, shape: tuple[int, int]) -> None:
    """Before the run: a learner whose state grows with the stream (``cost_estimate(T)``, the
    kernel ridge family: O(T^2) memory, O(T^3) time) is refused when the whole stream's state
    exceeds physical memory, with the bytes it needs, and otherwise warned about once, for the
    whole stream (not for the first chunk of it, after that chunk has run)."""
    estimate = getattr(type(model), "cost_estimate", None)
    if estimate is None:
        return
    T = int(shape[0])
    flops, nbytes = estimate(T)
    try:
        check_memory(nbytes, f"{name} on the whole stream (T={T} steps, O(T^2) state)")
    except MemoryError as exc:
        raise UserError(f"{exc} or a shorter stream, or a random-feature learner (VAW2, OnlineRidge)") from None
    long_flops = getattr(model, "LONG_STREAM_FLOPS", math.inf)
    long_bytes = getattr(model, "LONG_STREAM_BYTES", math.inf)
    if flops > long_flops or nbytes > long_bytes:
        warnings.warn(f"{name}: the whole stream (T={T} steps) costs O(T^3) time and O(T^2) memory: about "
                      f"{flops:.2g} flops (~{flops / 1e9 / 60:.2g} min at ~1 GFLOP/s) and {nbytes / 1e9:.3g} GB; "
                      "a random-feature learner (VAW2, OnlineRidge) is linear in T", UserWarning, stacklevel=2)
        model._long_warned = True   # the learner's own warning would speak of one chunk only


# ----------------------------------------------------------------------------- scaling
#: What each ``--scale`` does, as printed after the MSE.
SCALINGS = {
    "online": "online (features standardised by the mean and sd of rows 1..t and scaled to ||x_t|| <= 1, "
              "target scaled by the labels 1..t-1 and predictions mapped back: no look-ahead; "
              "omkl_core.preprocessing)",
    "standardise": "standardise (X: each column centred and scaled by the mean and sd of its rows 1..t, "
                   "no look-ahead; y as given)",
    "paper": "paper (eqs. (33)-(34) of paper 000: y min-max scaled to [0, 1] and X divided by its largest "
             "row norm, both over the whole stream)",
    "none": "none (X and y as given)",
}
#: Column scales (root mean square) further apart than this factor draw a warning under a
#: scaling that keeps them apart (``paper``, ``none``).
SCALE_SPREAD = 1e3


def _scale_warning(rms, names: list[str], scaling: str) -> None:
    """Warn when the columns' root mean squares ``rms`` differ by more than :data:`SCALE_SPREAD`."""
    live = np.flatnonzero(rms > 0)
    if live.size < 2:
        return
    big, small = live[np.argmax(rms[live])], live[np.argmin(rms[live])]
    if rms[big] > SCALE_SPREAD * rms[small]:
        warnings.warn(f"column scales differ by a factor {rms[big] / rms[small]:.3g} ({names[big]!r} ~ "
                      f"{rms[big]:.3g}, {names[small]!r} ~ {rms[small]:.3g}); --scale {scaling} keeps them "
                      "apart (a penalty or kernel width shared by all columns treats them very unequally; under "
                      "paper the small columns end up near 0): --scale online (the default for --csv) or --scale standardise "
                      "scales each column", UserWarning, stacklevel=2)


def _resolve_scaling(args) -> str:
    if getattr(args, "no_normalise", None) and args.scale not in (None, "none"):
        raise UserError(f"--no-normalise contradicts --scale {args.scale} (--no-normalise is --scale none)")
    scaling = "none" if getattr(args, "no_normalise", None) else args.scale
    if scaling is None:   # the paper datasets keep the papers' protocol, a user's CSV is scaled online
        scaling = "paper" if (args.dataset or args.forecasts) else "online"
    if args.forecasts and scaling in ("standardise", "online"):
        raise UserError(f"--scale {scaling} does not apply to --forecasts: expert forecasts are scaled as y is "
                        "(--scale paper) or left as given (--scale none)")
    if args.target_scale is not None and scaling != "online":
        raise UserError(f"--target-scale applies to --scale online only, got --scale {scaling}")
    return scaling


def _scaled(X, y, scaling: str, experts: bool, source: str):
    """The stream the learner sees and the affine map (lo, width) back to the target's units."""
    if scaling in ("none", "online"):     # online: the wrappers scale while the learner runs
        return X, y, 0.0, 1.0
    if scaling == "standardise":
        return datasets.standardise_online(X), y, 0.0, 1.0
    lo, hi = float(y.min()), float(y.max())
    if hi == lo:
        raise UserError(f"{source}: the target column is constant; cannot scale it to [0, 1] (eq. 33): "
                        "use --scale online, --scale standardise or --scale none")
    if experts:   # forecasts of y are scaled as y is (eq. 33), so they stay comparable
        return (X - lo) / (hi - lo), (y - lo) / (hi - lo), lo, hi - lo
    try:
        Xs, ys = datasets.normalise_stream(X, y)
    except ValueError as exc:
        raise UserError(f"{source}: {exc}") from None
    return Xs, ys, lo, hi - lo


def _check_output(path: str, flag: str = "--predictions") -> Path:
    """Fail before the run, not after it, when the output file of ``flag`` cannot be written."""
    p = Path(path)
    if p.is_dir():
        raise UserError(f"{flag} {path}: is a directory; give a file name such as {p / 'predictions.csv'}")
    parent = p.parent if str(p.parent) else Path(".")
    if parent.exists() and not parent.is_dir():
        raise UserError(f"{flag} {path}: {parent} is a file, not a folder")
    if not parent.is_dir():
        raise UserError(f"{flag} {path}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise UserError(f"{flag} {path}: not writable (permission denied)")
    return p


# ----------------------------------------------------------------------------- the stream
class _Standardiser:
    """:func:`omkl_core.datasets.standardise_online` over consecutive blocks of one stream: the
    same numbers (its running sums are sequential, carried from block to block)."""

    def __init__(self):
        self.x1 = self.s1 = self.s2 = None
        self.t = 0

    def __call__(self, X):
        if self.x1 is None:
            self.x1, self.s1, self.s2 = X[:1].copy(), np.zeros((1, X.shape[1])), np.zeros((1, X.shape[1]))
        D = X - self.x1
        t = np.arange(self.t + 1, self.t + X.shape[0] + 1, dtype=np.float64)[:, None]
        c1 = np.cumsum(np.concatenate([self.s1, D]), axis=0)[1:]
        c2 = np.cumsum(np.concatenate([self.s2, D * D]), axis=0)[1:]
        mean = c1 / t
        sd = np.sqrt(np.maximum(c2 / t - mean * mean, 0.0))
        with np.errstate(invalid="ignore", divide="ignore"):
            Z = np.where(sd > 0, (D - mean) / np.where(sd > 0, sd, 1.0), 0.0)
        self.s1, self.s2, self.t = c1[-1:], c2[-1:], self.t + X.shape[0]
        return Z


def _csv_stream(table, feats: list[int], col: int, scaling: str, experts: bool, source: str):
    """``(lo, width, blocks)`` for ``--csv``: the affine map back to the target's units and
    ``blocks(rows)``, the stream the learner sees as ``(X, y, raw y)`` blocks of ``rows`` rows,
    scaled as :func:`_scaled` scales the whole stream (the same numbers); whole-stream statistics
    come from the reader's pass, and every refusal comes before a block is handed out."""
    def raw(rows):
        return ((B[:, feats], B[:, col], B[:, col]) for B in table.blocks(rows))

    if scaling in ("none", "online"):     # online: the wrappers scale while the learner runs
        return 0.0, 1.0, raw
    if scaling == "standardise":
        def standardised(rows):
            st = _Standardiser()
            return ((st(X), y, y_raw) for X, y, y_raw in raw(rows))
        return 0.0, 1.0, standardised
    lo, hi = float(table.minimum[col]), float(table.maximum[col])
    if hi == lo:
        raise UserError(f"{source}: the target column is constant; cannot scale it to [0, 1] (eq. 33): "
                        "use --scale online, --scale standardise or --scale none")
    if experts:   # forecasts of y are scaled as y is (eq. 33), so they stay comparable
        return lo, hi - lo, lambda rows: (((X - lo) / (hi - lo), (y - lo) / (hi - lo), y_raw) for X, y, y_raw in raw(rows))
    # paper 000 eqs. (33)-(34) as omkl_core.datasets.normalise_stream computes them
    big = float(table.largest[feats].max())
    if big == 0:
        raise UserError(f"{source}: every row of X is zero: the scaling of eq. (34) is undefined")
    norms = np.concatenate([big * np.sqrt(((X / big) ** 2).sum(axis=1)) for X, _, _ in raw(table.T)])
    scale = norms.max()
    datasets.warn_outlier_row(norms)
    del norms
    half = hi / 2 - lo / 2                  # halves: hi - lo may overflow float64
    return lo, hi - lo, lambda rows: ((X / scale, (y / 2 - lo / 2) / half, y_raw) for X, y, y_raw in raw(rows))


def _block_rows(model, T: int, progress: bool, whole: bool) -> int:
    """Rows per block of a run: the whole stream (``whole``) or :data:`omkl_core.csvstream.BLOCK_ROWS`,
    with ``progress`` the chunks of :func:`omkl_core.protocol.run_online`; always a multiple of the
    learner's ``_run_alignment`` (pieces of such lengths give the numbers of one run)."""
    from .csvstream import BLOCK_ROWS  # noqa: PLC0415
    from .protocol import PROGRESS_CHUNK  # noqa: PLC0415

    if progress:
        rows = max(PROGRESS_CHUNK, -(-T // 50 // PROGRESS_CHUNK) * PROGRESS_CHUNK)
    else:
        rows = max(T, 1) if whole else BLOCK_ROWS
    return math.lcm(rows, int(getattr(model, "_run_alignment", 1)))


def _run_blocks(model, blocks, T: int, *, paper: bool, lo: float, width: float, progress: bool, writer=None,
                keep=None) -> dict:
    """Predict-then-learn over the ``(X, y, raw y)`` blocks (each ``run`` continues from the state
    the last one left), as :func:`omkl_core.protocol.run_online` does over the whole stream: its
    abstention fallback, its refusal of a non-finite prediction, and the scores in the target's
    units computed by the same sequential sums (one block: the very numbers of ``run_online``).
    ``writer``: a ``csv.writer`` that gets the rows of ``--predictions`` block by block; ``keep``:
    a list that gets each block's (X, y) (``--regret`` needs the whole stream)."""
    import time  # noqa: PLC0415

    from .backend import to_numpy  # noqa: PLC0415
    from .progress import progress_bar  # noqa: PLC0415
    from .protocol import fill_abstentions  # noqa: PLC0415
    from .validation import check_forecast  # noqa: PLC0415

    run = getattr(model, "run", None)
    may_abstain = bool(getattr(model, "_may_abstain", False))
    t0, label_sum, raw_sum = 0, 0.0, 0.0
    loss_sum, base_sum, cum_loss, cum_scaled, seconds = 0.0, 0.0, 0.0, 0.0, 0.0
    with progress_bar(T, desc=type(model).__name__, unit="step", leave=False, enabled=progress) as bar:
        for X, y, y_raw in blocks:
            n = y.shape[0]
            start = time.perf_counter()
            if callable(run):
                p = np.asarray(to_numpy(run(X, y)), dtype=np.float64).reshape(-1)
                abstained = np.isnan(p) if may_abstain else np.zeros(n, dtype=bool)
            else:
                p, abstained = np.empty(n), np.zeros(n, dtype=bool)
                for i in range(n):
                    f = check_forecast(model.predict_one(X[i]), f"the forecast of {type(model).__name__} "
                                                                f"at step {t0 + i + 1}")
                    abstained[i] = f is None
                    p[i] = math.nan if f is None else f
                    model.learn_one(X[i], float(y[i]))
            seconds += time.perf_counter() - start
            p = fill_abstentions(p, y, abstained, label_sum=label_sum, n_labels=t0)
            if not np.all(np.isfinite(p)):
                raise FloatingPointError(f"the learner produced a non-finite prediction at step "
                                         f"{t0 + int(np.flatnonzero(~np.isfinite(p))[0])}")
            cum_scaled = float(np.cumsum(np.concatenate([[cum_scaled], (p - y) ** 2]))[-1])
            pred = lo + width * p if paper else p
            losses = (pred - y_raw) ** 2
            loss_sum += float(losses.sum())
            sums = np.cumsum(np.concatenate([[raw_sum], y_raw]))      # sums of the raw labels before step t
            counts = np.arange(t0, t0 + n, dtype=np.float64)
            base = np.where(counts > 0, sums[:-1] / np.maximum(counts, 1.0), 0.0)
            base_sum += float(((base - y_raw) ** 2).sum())
            cum = np.cumsum(np.concatenate([[cum_loss], losses]))[1:]
            if writer is not None:
                t = np.arange(t0 + 1, t0 + n + 1)
                writer.writerows(zip(t.tolist(), y_raw.tolist(), pred.tolist(), (cum / t).tolist(), strict=True))
            if keep is not None:
                keep.append((X, y))
            label_sum = float(np.cumsum(np.concatenate([[label_sum], y]))[-1])
            raw_sum, cum_loss, t0 = float(sums[-1]), float(cum[-1]), t0 + n
            bar.update(n)
    return {"T": t0, "mse": loss_sum / t0, "base_mse": base_sum / t0, "mse_scaled": cum_scaled / t0,
            "seconds": seconds}


# ----------------------------------------------------------------------------- commands
def _cmd_datasets(args) -> int:
    print(f"{'name':12s} {'T':>6s} {'d':>3s}  target")
    for name in registry.dataset_names():
        meta = registry.dataset_info(name)
        note = f" (generator, {meta.source})" if meta.generator else ""
        print(f"{name:12s} {meta.T:6d} {meta.d:3d}  {meta.target}{note}")
    return 0


_SENTENCE_END = re.compile(r"(?<!\bref)(?<!\beq)(?<!\beqs)(?<!\bsec)(?<!\bProp)(?<!\bal)(?<!e\.g)(?<!i\.e)\.\s+(?=[A-Z(`])")


def _describe(cls, width: int = 100) -> str:
    """The first sentence of a learner class's docstring, markup dropped, cut at ``width`` characters
    (what ``omkl models`` prints)."""
    doc = " ".join((cls.__doc__ or "").replace("``", "").split())
    if not doc:
        return ""
    m = _SENTENCE_END.search(doc)
    first = doc if m is None else doc[:m.start() + 1]
    if len(first) <= width:
        return first
    cut = max(first.rfind("; ", 0, width), first.rfind(": ", 0, width), first.rfind(", ", 0, width))
    return (first[:cut] if cut > width // 2 else first[:width - 3].rstrip()) + " ..."


def _cmd_models(args) -> int:
    print("learners of 'omkl run MODEL' (input; what it is):")
    for name, info in registry.buildable().items():
        print(f"  {name:22s} {_describe(info.cls)}  [{_kind(info)}]")
    print(f"  {'Mixture':22s} The default of 'omkl run --csv F': {', '.join(DEFAULT_EXPERTS)} aggregated by ML-Poly "
          f"in the target's units, with its regret bound  [raw features; --expert NAME[:k=v,...] and --meta "
          f"NAME[:k=v,...] choose others]")
    other = [registry.learner_info(n) for n in sorted(registry.learners())
             if n not in registry.buildable() and n != "Mixture"]
    if other:
        print("not buildable by 'omkl run' (Python API only): "
              + "; ".join(f"{i.name} ({i.why_not})" for i in other))
    return 0


#: The experts of ``omkl run Mixture`` (and ``omkl run --csv F``) when no ``--expert`` is given:
#: :func:`omkl_core.mixture.default_pool` (each in its own online scalers).
DEFAULT_EXPERTS = ("running mean", "VAW2", "OnlineRidge")
#: The meta-learner of ``omkl run Mixture`` when no ``--meta`` is given (:func:`omkl_core.mixture.default_meta`).
DEFAULT_META = "MLPoly:bounds=None"


def _split_top(text: str) -> list[str]:
    """``text`` split at the commas outside brackets and quotes (``bounds=(0,1),m=5`` -> two)."""
    parts, depth, quote, cur = [], 0, None, []
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return [p for p in (q.strip() for q in parts) if p]


def _parse_spec(spec: str, flag: str) -> tuple[str, dict]:
    """``NAME`` or ``NAME:k=v,k=v`` -> (NAME, parameters)."""
    name, _, rest = spec.partition(":")
    name = name.strip()
    if not name:
        raise UserError(f"{flag} expects NAME or NAME:k=v,...; got {spec!r}")
    try:
        params = _parse_params(_split_top(rest))
    except UserError:
        raise UserError(f"{flag} {spec!r}: parameters must be k=v separated by commas") from None
    return name, params


def _river_expert(name: str, params: dict, flag: str):
    """``river.MODULE.CLASS`` with ``params`` as an omkl learner (from_river)."""
    import importlib  # noqa: PLC0415

    module, _, clsname = name.rpartition(".")
    try:
        importlib.import_module("river")
    except ImportError:
        raise UserError(f"{flag} {name}: River is not installed (pip install river)") from None
    try:
        cls = getattr(importlib.import_module(module), clsname)
    except (ImportError, AttributeError):
        raise UserError(f"{flag} {name}: no River class {clsname!r} in {module!r} "
                        "(e.g. river.neighbors.KNNRegressor, river.linear_model.LinearRegression)") from None
    try:
        model = cls(**params)
    except (TypeError, ValueError) as exc:
        raise UserError(f"invalid {flag} value for {name}: {exc}") from None
    from .interop.river import from_river  # noqa: PLC0415

    try:
        return from_river(model)
    except (TypeError, ValueError) as exc:
        raise UserError(f"{flag} {name}: {exc}") from None


def _expert(spec: str):
    """One ``--expert`` spec -> (label, learner on raw features)."""
    name, params = _parse_spec(spec, "--expert")
    if name.startswith("river."):
        return name, _river_expert(name, params, "--expert")
    info = _buildable_info(name, "--expert")
    if info.input == "experts":
        raise UserError(f"--expert {name} is a meta-learner (it reads expert forecasts): pass it as --meta {name}")
    return name, _construct(name, info.cls, params, "--expert")


def _buildable_info(name: str, flag: str) -> registry.LearnerInfo:
    if name not in registry.learners():
        raise UserError(f"{flag}: unknown learner {name!r}; known: {', '.join(sorted(registry.buildable()))}")
    info = registry.learner_info(name)
    if not info.buildable:
        raise UserError(f"{flag} {name} cannot be built from plain values: {info.why_not}")
    return info


def _scaled_expert(label: str, learner):
    """An expert of a mixture in the target's units: its own online scalers (features standardised by
    the rows seen -- rows scaled to norm <= 1 for omkl's learners (eq. (34), online), not for River's,
    whose distances a moving divisor would distort -- and the label scaled by ``TargetScaler``)."""
    river = label.startswith("river.")
    return TargetScaler(StandardScaler(max_norm=None if river else 1.0) | learner)


def _mixture(args, scaling: str):
    """``(learner to run, the Mixture itself, raw experts for the budget checks, in_target_units)`` of
    ``omkl run Mixture`` (module docstring). With no ``--expert``/``--meta``: ``Mixture()``, the
    default (its experts carry their own scalers). A meta-learner without label bounds (the default
    ML-Poly, or ``--meta NAME:bounds=None``) aggregates in the target's units, each expert in its own
    scalers; one with bounds [A, B] sees the labels scaled online into [A, B] (the whole mixture in
    ``TargetScaler(StandardScaler(max_norm=1) | ...)``, each expert in its own ``TargetScaler``)."""
    from .mixture import Mixture, default_meta, default_pool  # noqa: PLC0415

    if args.param:
        raise UserError("Mixture takes its experts and meta-learner as --expert NAME[:k=v,...] and --meta "
                        "NAME[:k=v,...], not --param")
    if not args.expert and not args.meta:
        mix = Mixture()
        return mix, mix, list(default_pool().items()), True
    experts = [_expert(spec) for spec in args.expert] if args.expert else None
    if args.meta:
        meta_name, meta_params = _parse_spec(args.meta, "--meta")
        info = _buildable_info(meta_name, "--meta")
        if info.input != "experts":
            raise UserError(f"--meta {meta_name} learns from raw features, not expert forecasts: pass it as "
                            f"--expert {meta_name} (meta-learners: {', '.join(n for n, i in registry.buildable().items() if i.input == 'experts')})")
        meta = _construct(meta_name, info.cls, meta_params, "--meta")
    else:
        meta = default_meta()
    raw_units = getattr(meta, "bounds", None) is None
    if experts is None:
        pool = default_pool()
        learners = pool if raw_units or scaling != "online" else {k: TargetScaler(v) for k, v in pool.items()}
        raw = list(pool.items())
    else:
        names = _unique([label for label, _ in experts])
        if scaling == "online":
            wrap = _scaled_expert if raw_units else (lambda _label, e: TargetScaler(e))
            learners = {n: wrap(label, e) for n, (label, e) in zip(names, experts)}
        else:
            learners = {n: e for n, (_label, e) in zip(names, experts)}
        raw = experts
    try:
        mix = Mixture(learners, meta=meta)
    except (TypeError, ValueError) as exc:
        raise UserError(f"Mixture: {exc}") from None
    if scaling == "online" and not raw_units:
        return TargetScaler(Pipeline(StandardScaler(max_norm=1.0), mix), method=args.target_scale or "auto"), mix, raw, False
    return mix, mix, raw, scaling == "online"


def _unique(labels: list[str]) -> list[str]:
    """``labels`` with repeats numbered (``VAW2 #1``, ``VAW2 #2``)."""
    out, seen = [], {}
    for lab in labels:
        if labels.count(lab) > 1:
            seen[lab] = seen.get(lab, 0) + 1
            lab = f"{lab} #{seen[lab]}"
        out.append(lab)
    return out


def _steps(n: int) -> str:
    return f"{n} step" if n == 1 else f"{n} steps"


def _mixture_lines(mix, in_target_units: bool) -> list[str]:
    """What ``omkl run Mixture`` says about the mixture it ran: its experts (with their last weights
    and abstentions), its meta-learner and the bound it carries."""
    meta = mix.meta_
    w = mix.weights_
    names = mix.expert_names_
    experts = ", ".join(f"{n} {float(w[j]):.2f}" + (f" (abstained {_steps(int(mix.n_abstained_[j]))})"
                                                   if mix.n_abstained_[j] else "")
                        for j, n in enumerate(names))
    bounds = getattr(meta, "bounds", None)
    where = ("in the target's units, each expert in its own online scalers" if in_target_units and bounds is None
             else "on the labels as given" if bounds is None else
             f"on labels scaled into [{float(bounds[0]):g}, {float(bounds[1]):g}]")
    rb = getattr(meta, "regret_bound", None)
    lines = [f"experts (weight at the end): {experts}",
             f"meta-learner: {type(meta).__name__}({', '.join(f'{k}={v!r}' for k, v in meta.get_params().items() if k != 'n_experts')}) {where}; "
             + (f"its bound: {rb.name} (printed by --regret)" if rb is not None else "it carries no stated bound")]
    if not any(n.lower().replace("_", " ") in ("running mean", "runningmean") for n in names):
        lines.append("note: the pool holds no running mean, so the bound does not cover it (add --expert RunningMean)")
    return lines


def _cmd_run(args) -> int:
    learners = registry.learners()
    if args.model not in learners:
        raise UserError(f"unknown model {args.model!r}; known: {', '.join(sorted(registry.buildable()))}")
    is_mixture = args.model == "Mixture"
    if (args.expert or args.meta) and not is_mixture:
        raise UserError("--expert and --meta apply to 'omkl run Mixture' only")
    info = registry.learner_info(args.model)
    if not info.buildable and not is_mixture:
        raise UserError(f"{args.model} cannot be built from --param values (Python API only): {info.why_not}")
    cls = info.cls
    params = _parse_params(args.param)
    meta = info.input == "experts"
    if is_mixture and args.forecasts:
        raise UserError("Mixture learns from raw features and aggregates its own experts; drop --forecasts "
                        "(a meta-learner on a CSV of expert forecasts: omkl run BOA --csv F --forecasts)")
    if meta and not args.forecasts:
        raise UserError(f"{args.model} is a meta-learner: it aggregates expert predictions, not raw features; "
                        "pass --csv FILE --forecasts with one column per expert forecast (or pick a learner on "
                        "raw features: 'omkl models')")
    if args.forecasts and not meta:
        raise UserError(f"{args.model} learns from raw features, not expert predictions; drop --forecasts "
                        "or pick a meta-learner ('omkl models')")
    if args.forecasts and args.dataset:
        raise UserError("--forecasts needs --csv (the bundled datasets hold raw features)")
    if args.target is not None and not args.csv:
        raise UserError("--target applies to --csv only")
    out = _check_output(args.predictions) if args.predictions else None
    scaling = _resolve_scaling(args)
    with contextlib.ExitStack() as stack:
        return _run_on_stream(args, stack, cls, params, is_mixture, out, scaling)


def _run_on_stream(args, stack, cls, params, is_mixture, out, scaling) -> int:
    """The part of ``omkl run`` that reads the stream, builds the learner, runs it (block by block
    for ``--csv``: bounded memory) and reports."""
    if args.dataset:
        if args.dataset not in registry.dataset_names():
            raise UserError(f"unknown dataset {args.dataset!r}; known: {', '.join(registry.dataset_names())}")
        try:
            X_raw, y_raw = registry.load_dataset(args.dataset, normalise=False, variant=args.variant)
            if scaling == "paper":   # exactly the papers' stream, as the notebooks load it
                X, y = registry.load_dataset(args.dataset, normalise=True, variant=args.variant)
                lo, width = float(y_raw.min()), float(y_raw.max() - y_raw.min())
            else:
                X, y, lo, width = _scaled(X_raw, y_raw, scaling, False, f"--dataset {args.dataset}")
        except ValueError as exc:
            raise UserError(f"--dataset {args.dataset}: {exc}") from None
        target = registry.dataset_info(args.dataset).target
        shape = X.shape

        def blocks(rows):
            return ((X[i:i + rows], y[i:i + rows], y_raw[i:i + rows]) for i in range(0, len(y), rows))
    else:
        if args.variant is not None:
            raise UserError("--variant applies to --dataset only")
        table, feats, col, names, target = _load_csv(args.csv, args.target)
        stack.callback(table.close)
        if scaling not in ("standardise", "online") and not args.forecasts:
            _scale_warning(np.sqrt(table.sum_squares[feats] / table.T), names, scaling)
        lo, width, blocks = _csv_stream(table, feats, col, scaling, args.forecasts,
                                        "--csv " + ("standard input" if args.csv == "-" else args.csv))
        shape = (table.T, len(feats))
    mix, in_target_units = None, False
    if is_mixture:
        if args.target_scale is not None and not args.meta:
            raise UserError("--target-scale applies to a single learner or to --meta with label bounds; the default "
                            "Mixture aggregates in the target's units (each expert scales its own labels)")
        model, mix, experts, in_target_units = _mixture(args, scaling)
        for label, e in experts:
            _check_budget(label, e, shape)
    else:
        model = _construct(args.model, cls, params)
        _check_budget(args.model, model, shape)
    if args.regret:
        from .regret import aggregates_experts  # noqa: PLC0415

        if not aggregates_experts(model if mix is None else mix):
            raise UserError(f"--regret needs a learner that aggregates experts (a meta-learner with --forecasts, a "
                            f"VAW-family learner or a Mixture); {args.model} is not one")
        if scaling == "online" and not in_target_units:
            raise UserError("--regret evaluates the bounds on a fixed scaling: pass --scale paper or --scale none "
                            "(--scale online rescales the stream while it runs), or use the default Mixture (it "
                            "aggregates in the target's units)")
    if scaling == "online" and mix is None:   # features and target scaled online (module docstring)
        model = TargetScaler(Pipeline(StandardScaler(max_norm=1.0), model), method=args.target_scale or "auto")
    writer = stack.enter_context(_csv_output(out, ["t", "y", "y_hat", "mse"])) if out is not None else None
    kept = [] if args.regret else None
    try:
        res = _run_blocks(model, blocks(_block_rows(model, shape[0], args.progress, bool(args.dataset))), shape[0],
                          paper=scaling == "paper", lo=lo, width=width, progress=args.progress, writer=writer,
                          keep=kept)
    except (ValueError, FloatingPointError, OverflowError) as exc:
        shown = " ".join(f"--param {item}" for item in args.param or []) or "its default parameters"
        raise UserError(f"{args.model} with {shown} failed on this stream: {exc} (a parameter outside the "
                        "range where the computation stays finite?)") from None
    mse, base_mse = res["mse"], res["base_mse"]
    ratio = f" ({mse / base_mse:.3g} of the baseline)" if base_mse > 0 else ""
    scaled = f" mse_scaled={res['mse_scaled']:.6g}" if scaling == "paper" else ""
    print(f"{args.model}: T={res['T']} mse={mse:.6g} baseline_mse={base_mse:.6g}{ratio}{scaled} "
          f"seconds={res['seconds']:.3f} [mse, baseline_mse in the units of the target {target!r}; baseline: "
          f"the running mean of the raw labels before step t"
          f"{'; mse_scaled on the [0, 1] target of eq. (33) (the papers tables print 1000 times it)' if scaled else ''}; "
          f"scaling: {SCALINGS[scaling]}]")
    if mix is not None:
        for line in _mixture_lines(mix, in_target_units):
            print(line)
    if args.regret:   # issues 34, 39, 41: the regret per comparator, the bound and a verdict, in the target's units
        from .regret import regret_report  # noqa: PLC0415

        X, y = (np.concatenate([b[0] for b in kept]), np.concatenate([b[1] for b in kept])) if len(kept) > 1 else kept[0]
        print(regret_report(model if mix is None else mix, X, y, scale=width ** 2 if scaling == "paper" else 1.0,
                            target=target))
    return 0


@contextlib.contextmanager
def _csv_output(path, header: list[str]):
    """A ``csv.writer`` (floats as ``repr``, the exact shortest form) on a temporary name beside
    ``path``, renamed into place when the block ends without an error and removed otherwise (a
    failed run writes nothing). /dev/stdout, a pipe or a link are written in place (an atomic
    rename would replace the link itself), from an anonymous temporary file when the block ends
    (after what the command prints)."""
    import shutil  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    path = Path(path)
    special = path.is_symlink() or (path.exists() and not path.is_file()) or path.parts[:2] in (("/", "dev"), ("/", "proc"))
    if special:
        with tempfile.TemporaryFile("w+", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(header)
            yield w
            fh.seek(0)
            sys.stdout.flush()
            with open(path, "w", newline="", encoding="utf-8") as dest:
                shutil.copyfileobj(fh, dest)
        return
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(header)
            yield w
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _write_csv(path, header: list[str], rows) -> None:
    """Write a CSV (floats as ``repr``, the exact shortest form; NaN as an empty cell) to a temporary
    name, then rename it into place."""
    with _csv_output(path, header) as w:
        w.writerows(["" if isinstance(v, float) and math.isnan(v) else v for v in row] for row in rows)


def _markdown(records: list[dict], columns: list[str], floatfmt: str = ".5g") -> str:
    """A GitHub-flavoured markdown table of ``records`` (plain Python, no pandas)."""
    def fmt(v) -> str:
        if isinstance(v, float):
            return "" if math.isnan(v) else format(v, floatfmt)
        return str(v).replace("|", "\\|")

    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    lines += ["| " + " | ".join(fmt(r[c]) for c in columns) + " |" for r in records]
    return "\n".join(lines) + "\n"


def _cmd_sweep(args) -> int:
    """``omkl sweep``: run the spec, print the summary, optionally write the rows.

    Exit status 0, 1 when some cell failed (the others still ran and are reported), 2 for a
    bad spec or option (one line on stderr)."""
    from . import sweep  # noqa: PLC0415  (the sweep loads only for this command)

    local = getattr(args, "local", None)
    executor = args.executor or ("dask" if args.scheduler or local is not None else "processes")
    try:
        # the flags are checked here, before any cell runs, and named as the user typed them
        if args.scheduler and local is not None:
            raise UserError("--scheduler and --local exclude each other: a running cluster or a local one")
        for flag, given in (("--scheduler", args.scheduler), ("--local", local is not None)):
            if given and executor != "dask":
                raise UserError(f"{flag} needs --executor dask, got --executor {executor}")
        if executor == "dask" and not args.scheduler and local is None:
            raise UserError("--executor dask needs --scheduler ADDRESS (a running Dask scheduler, e.g. "
                            "tcp://host:8786) or --local N (a local cluster of N worker processes)")
        if local is not None and local < 1:
            raise UserError(f"--local must be >= 1 (worker processes), got {local}")
        if executor == "dask":
            sweep._import_distributed()
        if args.workers is not None and executor != "processes":
            raise UserError(f"--workers applies to --executor processes, got --executor {executor}")
        if args.workers is not None and args.workers < 1:
            raise UserError(f"--workers must be >= 1, got {args.workers}")
        if args.out:
            _check_output(args.out, "--out")
        with sweep.local_client(local) if local is not None else contextlib.nullcontext(args.scheduler) as client:
            rows = sweep.run(args.spec, executor=executor, client=client, cache_dir=args.cache_dir,
                             max_workers=args.workers if executor == "processes" else None, progress=not args.quiet)
    except (UserError, ValueError, TypeError, ImportError, OSError) as exc:
        msg = str(exc)
        for python, flag in (("executor='dask'", "--executor dask"), ("client=", "--scheduler"),
                             ("max_workers", "--workers"), ("cache_dir", "--cache-dir")):
            msg = msg.replace(python, flag)
        _error(msg)
        return 2
    print(_markdown(sweep.summarise(rows), sweep.SUMMARY_COLUMNS), end="")
    failed = [r for r in rows if r["error"] != ""]
    for r in failed:
        print(f"failed: {r['dataset']} {r['label']} {r['params']} seed={r['seed']}: {r['error']}")
    print(f"{len(rows)} cells, {sum(bool(r['cached']) for r in rows)} from the cache, {len(failed)} failed")
    if args.out:
        cols = sweep.ROW_COLUMNS        # curves as JSON lists; floats as repr: exact round trip
        _write_csv(args.out, cols, ([json.dumps(r[c]) if c in ("curve_t", "curve") else r[c] for c in cols]
                                    for r in rows))
    return 1 if failed else 0


def build_parser() -> argparse.ArgumentParser:
    """The parser; a new subcommand adds a sub-parser with ``set_defaults(func=...)``."""
    parser = _Parser(prog="omkl", description=__doc__.split("\n\n")[0],
                     epilog="Learners on raw features vs. on expert predictions: see 'omkl models'.")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error")
    sub = parser.add_subparsers(dest="cmd", required=True, parser_class=_Parser)
    sub.add_parser("datasets", help="list the bundled datasets").set_defaults(func=_cmd_datasets)
    sub.add_parser("models", help="list the learners and their input kind").set_defaults(func=_cmd_models)
    metas = ", ".join(n for n, i in registry.buildable().items() if i.input == "experts")   # the registry's
    run = sub.add_parser(
        "run", help="run a learner online and print its MSE",
        description="Run a learner online (predict, then learn) and print its MSE. Learners on raw "
                    "features (VAW, OnlineRidge, BayesianRidge, KernelRidge, VAW2, VAWEWA, ...) read the "
                    "non-target columns as features; meta-learners need --forecasts and read them as expert "
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
                     help="also print the regret table: the loss beside the best expert / convex / linear "
                          "combination and 1-5 shift paths in hindsight, and each bound papers 000-004 state "
                          "for the meta-learner, evaluated on this run (learners that aggregate experts)")
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
