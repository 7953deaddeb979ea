"""The online protocol: at each step t the learner predicts y_t from x_t, then sees y_t.

:func:`run_online` drives any learner with the River-style interface
``predict_one(x) -> float`` / ``learn_one(x, y) -> None``. A learner may also offer a
vectorised ``run(X, y) -> predictions`` over the whole stream (e.g. the batched VAW expert
layer); :func:`run_online` then uses it instead of the per-step loop -- it must give the
same predictions as the loop.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ._progress import progress_bar, progress_iter
from .backend import to_numpy
from .validation import check_magnitude, check_matrix, check_vector

__all__ = ["Trace", "run_online", "running_mean", "mse_curve", "PROGRESS_CHUNK"]

#: With ``progress=True`` a vectorised ``run`` is called on chunks of a multiple of this many
#: steps (the VAW family's feature block, so the blocks and hence the numbers stay the same).
PROGRESS_CHUNK = 256


def mse_curve(losses) -> np.ndarray:
    """Running mean e_t = (1/t) sum_{tau <= t} loss_tau (the curve of Figure 1, paper 000)."""
    losses = np.asarray(losses, dtype=np.float64)
    return np.cumsum(losses) / np.arange(1, losses.shape[0] + 1)


@dataclass
class Trace:
    """Result of one online pass.

    predictions : (T,) the predictions y_hat_t made *before* y_t was revealed;
    losses      : (T,) squared losses (y_hat_t - y_t)^2;
    mse_curve   : (T,) running mean of the losses, e_t = (1/t) sum_{tau<=t} (y_hat_tau - y_tau)^2;
    mse         : final mean squared error e_T;
    seconds     : wall-clock time of the pass.
    """

    predictions: np.ndarray
    losses: np.ndarray
    mse_curve: np.ndarray
    mse: float
    seconds: float

    @classmethod
    def from_predictions(cls, predictions, y, seconds: float = 0.0) -> Trace:
        p = np.asarray(to_numpy(predictions), dtype=np.float64).reshape(-1)
        y = np.asarray(y, dtype=np.float64)
        if p.shape != y.shape:
            raise ValueError(f"predictions have shape {p.shape}, y has {y.shape}")
        if not np.all(np.isfinite(p)):
            i = int(np.flatnonzero(~np.isfinite(p))[0])
            raise FloatingPointError(f"the learner produced a non-finite prediction at step {i}")
        losses = (p - y) ** 2
        curve = mse_curve(losses)
        return cls(predictions=p, losses=losses, mse_curve=curve, mse=float(curve[-1]),
                   seconds=float(seconds))

    def __repr__(self) -> str:
        return f"Trace(T={self.predictions.shape[0]}, mse={self.mse:.6g}, seconds={self.seconds:.3g})"


def run_online(model, X, y, progress: bool = False, use_run: bool = True) -> Trace:
    """Predict-then-learn over the stream (X, y) and return a :class:`Trace`.

    At step t: ``y_hat_t = model.predict_one(x_t)``, then ``model.learn_one(x_t, y_t)``.
    When ``model`` has a vectorised ``run(X, y)`` and ``use_run`` is true it is used instead
    (same results, much faster). ``progress=True`` shows a tqdm bar on both paths: the
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
        ``predictions``, ``losses`` (squared), ``mse_curve`` (running MSE), ``mse``, ``seconds``.

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
    if use_run and callable(getattr(model, "run", None)):
        t0 = time.perf_counter()
        if not progress:
            preds = model.run(X, y)
        else:   # the stream in consecutive chunks (``run`` continues from the current state)
            T = X.shape[0]
            chunk = max(PROGRESS_CHUNK, -(-T // 50 // PROGRESS_CHUNK) * PROGRESS_CHUNK)
            chunk = math.lcm(chunk, int(getattr(model, "_run_alignment", 1)))   # block drivers: bit for bit
            parts = []
            with progress_bar(T, desc=type(model).__name__, unit="step", leave=False) as bar:
                for start in range(0, T, chunk):
                    parts.append(np.asarray(to_numpy(model.run(X[start:start + chunk], y[start:start + chunk]))))
                    bar.update(min(chunk, T - start))
            preds = np.concatenate(parts, axis=-1)
        return Trace.from_predictions(preds, y, time.perf_counter() - t0)
    for attr in ("predict_one", "learn_one"):
        if not callable(getattr(model, attr, None)):
            raise TypeError(f"model must have predict_one/learn_one (or run); "
                            f"{type(model).__name__} lacks {attr}")
    T = X.shape[0]
    preds = np.empty(T)
    steps = range(T)
    if progress:
        steps = progress_iter(steps, desc=type(model).__name__)
    t0 = time.perf_counter()
    for t in steps:
        x_t = X[t]
        preds[t] = float(model.predict_one(x_t))
        model.learn_one(x_t, float(y[t]))
    return Trace.from_predictions(preds, y, time.perf_counter() - t0)


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
