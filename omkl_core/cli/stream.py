"""How ``omkl run`` reads a stream and runs a learner over it: the ``--csv`` file read once in bounded
memory, the scaling (``--scale``), the blocks of rows, ``--predictions`` written block by block."""
from __future__ import annotations

import contextlib
import csv
import math
import os
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from .. import csvstream, datasets, registry
from ..base import run_alignment_of
from ..csvstream import BLOCK_ROWS
from ..progress import progress_bar
from ..protocol import PROGRESS_CHUNK, fill_abstentions, predict_learn
from .errors import UserError


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
    if args.no_normalise and args.scale not in (None, "none"):
        raise UserError(f"--no-normalise contradicts --scale {args.scale} (--no-normalise is --scale none)")
    scaling = "none" if args.no_normalise else args.scale
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


def _check_output(path: str, flag: str = "--predictions", inputs: dict | None = None) -> Path:
    """Fail before the run, not after it, when the output file of ``flag`` cannot be written, or is
    one of the ``inputs`` (``{flag: path}``; the same file also through a symbolic or hard link)."""
    p = Path(path)
    for in_flag, src in (inputs or {}).items():
        if src is None or src == "-":
            continue
        try:
            same = os.path.samefile(p, src)
        except OSError:                      # either is absent or unreadable: not the same file
            same = False
        if same:
            raise UserError(f"{flag} {path} is the same file as {in_flag} {src}: writing it would overwrite the "
                            "input; name another file")
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
    learner's ``run_alignment`` (pieces of such lengths give the numbers of one run)."""

    if progress:
        rows = max(PROGRESS_CHUNK, -(-T // 50 // PROGRESS_CHUNK) * PROGRESS_CHUNK)
    else:
        rows = max(T, 1) if whole else BLOCK_ROWS
    return math.lcm(rows, run_alignment_of(model))


def _run_blocks(model, blocks, T: int, *, paper: bool, lo: float, width: float, progress: bool, writer=None,
                keep=None) -> dict:
    """Predict-then-learn over the ``(X, y, raw y)`` blocks (each ``run`` continues from the state
    the last one left), as :func:`omkl_core.protocol.run_online` does over the whole stream: its
    abstention fallback, its refusal of a non-finite prediction, and the scores in the target's
    units computed by the same sequential sums (one block: the very numbers of ``run_online``).
    ``writer``: a ``csv.writer`` that gets the rows of ``--predictions`` block by block; ``keep``:
    a list that gets each block's (X, y) (``--regret`` needs the whole stream)."""


    t0, label_sum, raw_sum = 0, 0.0, 0.0
    loss_sum, base_sum, cum_loss, cum_scaled, seconds = 0.0, 0.0, 0.0, 0.0, 0.0
    first_loss = first_base = first_pred = 0.0          # step 1's squared errors and forecast (target's units)
    top = (0, -1.0, 0.0, 0.0, 0.0)    # the step of steps 2..T with the largest squared error (protocol.dominant_step):
    #                                   (step, its squared error, the baseline's, its label, its forecast)
    with progress_bar(T, desc=type(model).__name__, unit="step", leave=False, enabled=progress) as bar:
        for X, y, y_raw in blocks:
            n = y.shape[0]
            start = time.perf_counter()
            p, abstained = predict_learn(model, X, y, step0=t0)         # the one run-or-loop rule
            p = p.reshape(-1)
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
            base_losses = (base - y_raw) ** 2
            base_sum += float(base_losses.sum())
            if t0 == 0 and n:
                first_loss, first_base, first_pred = float(losses[0]), float(base_losses[0]), float(pred[0])
            skip = 1 if t0 == 0 else 0       # the largest squared error of steps 2..t (step 1 has its own note)
            i = skip + int(np.argmax(losses[skip:])) if n > skip else 0
            if n > skip and losses[i] > top[1]:
                top = (t0 + i + 1, float(losses[i]), float(base_losses[i]), float(y_raw[i]), float(pred[i]))
            cum = np.cumsum(np.concatenate([[cum_loss], losses]))[1:]
            if writer is not None:
                t = np.arange(t0 + 1, t0 + n + 1)
                writer.writerows(zip(t.tolist(), y_raw.tolist(), pred.tolist(), (cum / t).tolist(), strict=True))
            if keep is not None:
                keep.append((X, y))
            label_sum = float(np.cumsum(np.concatenate([[label_sum], y]))[-1])
            raw_sum, cum_loss, t0 = float(sums[-1]), float(cum[-1]), t0 + n
            bar.update(n)
    after = (lambda total, first: (total - first) / (t0 - 1) if t0 > 1 else math.nan)   # steps 2..T
    return {"T": t0, "mse": loss_sum / t0, "base_mse": base_sum / t0, "mse_scaled": cum_scaled / t0,
            "mse_after_first": after(loss_sum, first_loss), "base_mse_after_first": after(base_sum, first_base),
            "first_share": first_loss / loss_sum if loss_sum > 0 else 0.0, "first_forecast": first_pred,
            "seconds": seconds, "largest": dict(zip(("t", "loss", "base_loss", "label", "forecast"), top))}


@contextlib.contextmanager
def _csv_output(path, header: list[str]):
    """A ``csv.writer`` (floats as ``repr``, the exact shortest form) on a temporary name beside
    ``path``, renamed into place when the block ends without an error and removed otherwise (a
    failed run writes nothing). /dev/stdout, a pipe or a link are written in place (an atomic
    rename would replace the link itself), from an anonymous temporary file when the block ends
    (after what the command prints)."""

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


def _open_stream(args, stack, scaling: str):
    """``(blocks, shape, lo, width, target)`` of ``omkl run``'s stream: ``--dataset`` (loaded whole) or
    ``--csv`` (read once, then block by block: bounded memory), scaled by ``scaling``; ``blocks(rows)``
    yields ``(X, y, raw y)`` blocks of ``rows`` steps, ``lo + width * y`` maps back to the target's units."""
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
    return blocks, shape, lo, width, target
