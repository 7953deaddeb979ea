"""The online protocol: at each step t the learner predicts y_t from x_t, then sees y_t.

:func:`run_online` drives any learner with the River-style interface
``predict_one(x) -> float`` / ``learn_one(x, y) -> None`` (the public protocol of
:mod:`omkl_core.base`, "The extension protocol"). A learner may also offer a vectorised
``run(X, y) -> predictions`` over the whole stream (e.g. the batched VAW expert layer); it must
give the same predictions as the loop.  :func:`predict_learn` is the one rule that calls ``run``
where a learner has one and loops otherwise, ``None`` becoming NaN: :func:`run_online`, the
wrappers (``Pipeline``, ``TargetScaler``, ``Mixture``'s experts), the pairing's meta-learner and
:mod:`omkl_core.regret` all go through it.

Abstention
----------
The one meaning of ``None`` (DESIGN.md, "one meaning per operation"), used by
:func:`run_online`, :class:`omkl_core.Mixture`, the River adapters
(:func:`omkl_core.interop.from_river`, :func:`omkl_core.interop.to_river`,
:func:`omkl_core.interop.river.evaluate_river`) and the leaderboard of the reproduction wing:

* a learner **abstains** at step t when ``predict_one(x_t)`` returns ``None``: it has no
  forecast (a River regressor before its first label -- what River returns then, ``None`` or a
  default 0.0, is not a forecast -- or a model that returns ``None`` itself).  Inside the
  protocol (:func:`predict_learn`) a vectorised ``run`` marks an abstention by NaN, and only for a
  learner that declares ``may_abstain = True`` (for any other learner NaN or inf is an error,
  never an abstention); the ``run`` a user calls returns the fallback f_t below there, the number
  :func:`run_online` scores, never NaN (:mod:`omkl_core.base`, "What ``run`` returns");
* wherever a number is needed for that step -- the prediction a trace scores, the forecast a
  meta-learner aggregates, what a River adapter returns to River -- it is the **fallback**
  :func:`abstention_fallback`: the running mean of the labels seen before step t,

      f_t = (1 / (t - 1)) sum_{s<t} y_s  (t > 1),   f_1 = ``first``,

  ``first`` the midpoint (A + B) / 2 of the label range the consumer assumes (a meta-learner's
  ``bounds``: 0.5 on [0, 1]) and 0.0 where it assumes none (what an omkl learner forecasts at
  t = 1).  Computed from past labels only (no look-ahead), the forecast of the best constant on
  the past: an abstaining learner is scored as a neutral forecaster, never as a wild one;
* the steps a learner abstained are counted where a result is reported (``Trace.abstained``,
  ``Mixture.n_abstained_`` and ``Mixture.summary``, ``evaluate_river``'s ``abstained``).

The first step (issue 41): a learner that has seen no label has no information on the label, and
the one rule covers it -- it abstains (the baselines of :mod:`omkl_core.baselines`, River's
regressors through ``from_river``), and the step is scored by f_1 = ``first`` (0.0 in the target's
units for :func:`run_online` and the command line: the same 0.0 as the running-mean baseline's
:func:`running_mean`); omkl's learners whose state starts at zero (VAW, VAW2, OnlineRidge, ...)
forecast that same 0.0 themselves. Inside a :class:`omkl_core.Mixture` an abstaining expert is a
*sleeping* expert (:mod:`omkl_core.mixture`, "Abstention"): its forecast there is the mixture's own
aggregate of the awake experts, so it gets neither credit nor blame for the others' forecasts; the
mixture itself uses f_t only when every expert abstains.

Which forecast before any label: 0.0, kept (issue 53).  It is River's convention too (its linear
models and KNN return 0.0 before learning), and no other choice is better for every learner on
every stream: a constant c != 0 is worse on streams centred near 0 and better only where the
labels sit near c, which nothing before the first label tells.  On a raw stream far from 0 that
one step can carry most of the squared error, so every report gives both scores, each named: the
MSE over all T steps (``Trace.mse``, the papers' score) and over steps 2..T
(``Trace.mse_after_first``), and one line (:func:`first_step_note`) where the first forecast
carries more than :data:`FIRST_STEP_SHARE` of the summed squared error.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from . import threads
from .backend import to_numpy
from .base import abstention_fallbacks, marked_abstentions, may_abstain_of, run_alignment_of
from .progress import progress_bar, progress_iter
from .validation import check_forecast, check_magnitude, check_matrix, check_vector

__all__ = ["Trace", "FIRST_STEP_SHARE", "first_step_note",
           "run_online", "predict_learn", "running_mean", "mse_curve", "PROGRESS_CHUNK", "abstention_fallback",
           "abstention_fallbacks", "fill_abstentions"]

#: With ``progress=True`` a vectorised ``run`` is called on chunks of a multiple of this many
#: steps (the VAW family's feature block, so the blocks and hence the numbers stay the same).
PROGRESS_CHUNK = 256


def abstention_fallback(label_sum: float, n_labels: int, first: float = 0.0) -> float:
    """f_t, the number that stands in for an abstention (module docstring): the mean
    ``label_sum / n_labels`` of the labels seen before step t, ``first`` before any."""
    return label_sum / n_labels if n_labels else float(first)


def fill_abstentions(predictions, y, abstained, *, label_sum: float = 0.0, n_labels: int = 0,
                     first: float = 0.0) -> np.ndarray:
    """``predictions`` (T,) with the steps marked in ``abstained`` (T,) bool replaced by f_t."""
    p = np.asarray(predictions, dtype=np.float64).reshape(-1)
    A = np.asarray(abstained, dtype=bool).reshape(-1)
    if not A.any():
        return p
    return np.where(A, abstention_fallbacks(y, label_sum=label_sum, n_labels=n_labels, first=first), p)


def mse_curve(losses) -> np.ndarray:
    """Running mean e_t = (1/t) sum_{tau <= t} loss_tau (the curve of Figure 1, paper 000)."""
    losses = np.asarray(losses, dtype=np.float64)
    return np.cumsum(losses) / np.arange(1, losses.shape[0] + 1)


@dataclass
class Trace:
    """Result of one online pass.

    Attributes
    ----------
    predictions : ndarray of shape (T,)
        The predictions y_hat_t made *before* y_t was revealed.
    losses : ndarray of shape (T,)
        Squared losses (y_hat_t - y_t)^2.
    mse_curve : ndarray of shape (T,)
        Running mean of the losses, e_t = (1/t) sum_{tau<=t} (y_hat_tau - y_tau)^2.
    mse : float
        Final mean squared error e_T, over all T steps (the papers' score).
    mse_after_first : float
        The mean squared error over steps 2..T (NaN when T = 1): the score without the first
        forecast, made before any label was seen (0.0 in the target's units: "The first step" below).
    first_share : float
        The first step's share of the summed squared error, (y_hat_1 - y_1)^2 / sum_t (y_hat_t - y_t)^2
        (0.0 when every loss is 0).
    seconds : float
        Wall-clock time of the pass.
    abstained : ndarray of shape (T,) of bool, or None
        The steps at which the learner abstained (its prediction there is the fallback f_t of the
        module docstring); None when it never did.
    """

    predictions: np.ndarray
    losses: np.ndarray
    mse_curve: np.ndarray
    mse: float
    seconds: float
    abstained: np.ndarray | None = None

    @classmethod
    def from_predictions(cls, predictions, y, seconds: float = 0.0, abstained=None) -> Trace:
        """The trace of ``predictions``; ``abstained`` (T,) bool marks abstentions, replaced by the
        fallback f_t (module docstring); any other non-finite prediction is an error."""
        p = np.asarray(to_numpy(predictions), dtype=np.float64).reshape(-1)
        y = np.asarray(y, dtype=np.float64)
        if p.shape != y.shape:
            raise ValueError(f"predictions have shape {p.shape}, y has {y.shape}")
        if abstained is not None:
            abstained = np.asarray(abstained, dtype=bool).reshape(-1)
            p = fill_abstentions(p, y, abstained)
            abstained = abstained if abstained.any() else None
        if not np.all(np.isfinite(p)):
            i = int(np.flatnonzero(~np.isfinite(p))[0])
            raise FloatingPointError(f"the learner produced a non-finite prediction at step {i}")
        losses = (p - y) ** 2
        curve = mse_curve(losses)
        return cls(predictions=p, losses=losses, mse_curve=curve, mse=float(curve[-1]),
                   seconds=float(seconds), abstained=abstained)

    @property
    def mse_after_first(self) -> float:
        """The mean squared error over steps 2..T (NaN when T = 1)."""
        return float(np.mean(self.losses[1:])) if self.losses.shape[0] > 1 else math.nan

    @property
    def first_share(self) -> float:
        """The first step's share of the summed squared error (0.0 when every loss is 0)."""
        total = float(np.sum(self.losses))
        return float(self.losses[0]) / total if total > 0 else 0.0

    def first_step_note(self) -> str:
        """One line when the first forecast carries more than :data:`FIRST_STEP_SHARE` of the summed
        squared error (a raw stream far from 0), else ``""``."""
        return first_step_note(self.first_share, self.predictions[0], self.predictions.shape[0])

    def __repr__(self) -> str:
        return (f"Trace(T={self.predictions.shape[0]}, mse={self.mse:.6g} (steps 1..T), "
                f"mse_after_first={self.mse_after_first:.6g} (steps 2..T), seconds={self.seconds:.3g})")


#: The share of the summed squared error above which the output says the first forecast carries it.
FIRST_STEP_SHARE = 0.10


def first_step_note(share: float, first_forecast: float | None, T: int) -> str:
    """The one line every report prints when the first step carries more than
    :data:`FIRST_STEP_SHARE` of the summed squared error (``""`` otherwise); ``first_forecast``
    (None: not shown) is that forecast in the target's units."""
    if not share > FIRST_STEP_SHARE:
        return ""
    shown = "" if first_forecast is None else f"{float(first_forecast):.4g}, "
    return (f"note: the first forecast ({shown}made before any label was seen) carries {100 * share:.3g} % of "
            f"the summed squared error; the MSE over steps 2..{T} leaves it out")


def run_online(model, X, y, progress: bool = False, use_run: bool = True) -> Trace:
    """Predict-then-learn over the stream (X, y) and return a :class:`Trace`.

    At step t: ``y_hat_t = model.predict_one(x_t)``, then ``model.learn_one(x_t, y_t)``.
    When ``model`` has a vectorised ``run(X, y)`` and ``use_run`` is true it is used instead
    (same results, much faster). A learner that abstains (``None``; NaN in the ``run`` of a
    learner declaring ``may_abstain``) is scored at that step by the fallback f_t, the running
    mean of the labels before step t (0.0 at t = 1; module docstring), and the step is marked in
    ``Trace.abstained``. ``progress=True`` shows a tqdm bar on both paths: the
    vectorised one then runs the stream in consecutive chunks of a multiple of
    :data:`PROGRESS_CHUNK` steps (``run`` continues from the learner's state), so the bar
    advances while it works.

    Parameters
    ----------
    model : online learner
        Anything with ``predict_one(x) -> float`` and ``learn_one(x, y)`` (or ``run(X, y)``).
    X : array-like of shape (T, d)
        The inputs x_1..x_T (finite).
    y : array-like of shape (T,)
        The labels (finite).
    progress : bool, default=False
        Show a progress bar (also on the vectorised path, see above).
    use_run : bool, default=True
        Use the model's vectorised ``run`` when it has one.

    Returns
    -------
    Trace
        ``predictions``, ``losses`` (squared), ``mse_curve`` (running MSE), ``mse`` (over all T
        steps), ``mse_after_first`` (over steps 2..T), ``first_share``, ``seconds``.

    Examples
    --------
    >>> import numpy as np, omkl_core as ok
    >>> X = np.ones((4, 1)); y = np.array([1.0, 1.0, 1.0, 1.0])
    >>> trace = ok.run_online(ok.OnlineRidge(a=1.0), X, y)
    >>> trace.predictions.round(12).tolist()       # gamma_t = b_{t-1}'A_{t-1}^{-1} x_t = (t-1)/t
    [0.0, 0.5, 0.666666666667, 0.75]
    """
    X = check_matrix(X, "X")
    y = check_vector(y, "y", length=X.shape[0])
    check_magnitude(X, "X")
    check_magnitude(y, "y")
    t0 = time.perf_counter()
    preds, abstained = predict_learn(model, X, y, use_run=use_run, progress=progress)
    return Trace.from_predictions(preds, y, time.perf_counter() - t0, abstained)


def predict_learn(model, X, y, *, use_run: bool = True, progress: bool = False, name: str | None = None,
                  step0: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Predict-then-learn ``model`` over the stream (X, y), continuing from its state: the one
    run-or-loop rule of the package.

    ``model.run(X, y)`` where it has one (and ``use_run``), else the loop: at step t
    ``p = model.predict_one(x_t)`` (checked by :func:`~omkl_core.validation.check_forecast`: a real
    number or None), then ``model.learn_one(x_t, y_t)``.  ``None`` (an abstention) becomes NaN; in
    ``run``'s output NaN is an abstention only for a learner declaring ``may_abstain``
    (:mod:`omkl_core.base`).  ``progress=True`` shows a bar on both paths; the vectorised one then
    runs consecutive chunks of a multiple of :data:`PROGRESS_CHUNK` and of the learner's
    ``run_alignment`` steps (the same numbers bit for bit).

    Returns
    -------
    predictions : ndarray of float64
        The forecasts ((T,); the shape ``run`` returned), NaN where the learner abstained (and any
        other non-finite forecast as it came: the caller decides what it means).
    abstained : ndarray of bool
        Its abstentions (the shape of ``predictions``).

    ``name`` (default ``"the forecast of <class>"``) and ``step0`` (the steps before this stream)
    name a forecast that is not a real number in the error.
    """
    # every engine at the library's thread count (omkl_core.threads); a run's abstentions as NaN
    with threads.limited(), marked_abstentions():
        return _predict_learn(model, X, y, use_run, progress, name, step0)


def _predict_learn(model, X, y, use_run, progress, name, step0):
    name = f"the forecast of {type(model).__name__}" if name is None else name
    run = getattr(model, "run", None) if use_run else None
    if callable(run):
        if not progress:
            out = run(X, y)
        else:   # the stream in consecutive chunks (``run`` continues from the current state)
            T = X.shape[0]
            chunk = max(PROGRESS_CHUNK, -(-T // 50 // PROGRESS_CHUNK) * PROGRESS_CHUNK)
            chunk = math.lcm(chunk, run_alignment_of(model))   # block drivers: bit for bit
            parts = []
            with progress_bar(T, desc=type(model).__name__, unit="step", leave=False) as bar:
                for start in range(0, T, chunk):
                    parts.append(np.asarray(to_numpy(model.run(X[start:start + chunk], y[start:start + chunk]))))
                    bar.update(min(chunk, T - start))
            out = np.concatenate(parts, axis=-1)
        preds = np.asarray(to_numpy(out))
        if preds.dtype.kind not in "fiu":               # no "0.3" -> 0.3, no True -> 1.0
            raise TypeError(f"{name} {preds.reshape(-1)[:1].tolist()} (dtype {preds.dtype}) in its run, which is "
                            "not a real number (a forecast is a float, or NaN to abstain in a run)")
        preds = preds.astype(np.float64)
        if may_abstain_of(model):                       # NaN is its abstention (module docstring)
            return preds, np.isnan(preds)
        return preds, np.zeros(preds.shape, dtype=bool)
    for attr in ("predict_one", "learn_one"):
        if not callable(getattr(model, attr, None)):
            raise TypeError(f"model must have predict_one/learn_one (or run); "
                            f"{type(model).__name__} lacks {attr}")
    T = X.shape[0]
    preds = np.empty(T)
    abstained = np.zeros(T, dtype=bool)
    steps = range(T)
    if progress:
        steps = progress_iter(steps, desc=type(model).__name__)
    for t in steps:
        x_t = X[t]
        p = check_forecast(model.predict_one(x_t), f"{name} at step {step0 + t + 1}")
        if p is None:                                   # an abstention (module docstring)
            abstained[t] = True
            p = math.nan
        preds[t] = p
        model.learn_one(x_t, float(y[t]))
    return preds, abstained


def running_mean(y, prior: float = 0.0) -> np.ndarray:
    """The forecasts of the running mean, the baseline every learner should beat on its stream:
    y_hat_1 = ``prior`` and y_hat_t = (y_1 + ... + y_{t-1}) / (t - 1) for t >= 2 (no look-ahead).

    >>> running_mean([1.0, 3.0, 2.0]).tolist()
    [0.0, 1.0, 2.0]
    """
    y = check_vector(y, "y")
    s = np.concatenate([[0.0], np.cumsum(y)[:-1]])
    n = np.arange(y.shape[0], dtype=np.float64)
    return np.where(n > 0, s / np.maximum(n, 1.0), float(prior))


#: A step whose squared error is more than this share of the sum over all T steps is named in
#: the output (issue 52): an outlier label there decides the MSE on its own.  Above one half at
#: most one step can qualify (the largest), so a run kept block by block needs only its running
#: maximum.  Steps 2..T only: the first step has its own note (a forecast made before any label,
#: issue 53), and naming it again would say the same twice.
DOMINANT_SHARE = 0.5


def dominant_step(losses) -> tuple[int, float] | None:
    """``(t, share)`` of the one step t of 2..T (1-based) whose squared error is more than
    :data:`DOMINANT_SHARE` of the sum of ``losses`` (T,) over all T steps, or None when no step is."""
    losses = np.asarray(losses, dtype=np.float64).reshape(-1)
    if losses.shape[0] < 2:
        return None
    total = float(np.sum(losses))
    i = 1 + int(np.argmax(losses[1:]))
    share = float(losses[i]) / total if total > 0 else 0.0
    return (i + 1, share) if share > DOMINANT_SHARE else None


def dominant_step_note(t: int, share: float, T: int, *, label: float, forecast: float,
                       mse_rest: float, base_mse_rest: float | None = None, row: str = "") -> str:
    """The one line the output prints when step ``t`` carries ``share`` > :data:`DOMINANT_SHARE`
    of the summed squared error (``""`` otherwise): the step, ``row`` (where it is in the input,
    e.g. "row 1235 of --csv f.csv"), its label and forecast, and the MSE over the other T - 1 steps
    (``mse_rest``; the baseline's, ``base_mse_rest``, when given)."""
    if not share > DOMINANT_SHARE or T < 2:
        return ""
    where = f" ({row})" if row else ""
    base = "" if base_mse_rest is None else f", the baseline's {base_mse_rest:.6g}"
    return (f"note: step {t}{where} carries {100 * share:.4g} % of the summed squared error (label {label:.6g}, "
            f"forecast {forecast:.6g}): an outlier? The MSE over the other {T - 1} steps is {mse_rest:.6g}{base}")
