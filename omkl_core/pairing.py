"""One pairing of experts with a meta-learner: the base of :class:`~omkl_core.mixture.Mixture`
and of the VAW family (:mod:`omkl_core.mkl.vaw2`).

Paper 000 (Rokhlin & Gurtovaya, arXiv:2503.20087), section 3, the two-level procedure before
Theorem 2: at step t

1. every expert j forecasts z_{t,j} from x_t and its state after steps < t
   (z_t = (z_{t,1}, ..., z_{t,N}), Theorem 2);
2. the meta-learner forecasts yhat_t from z_t (VAW eqs. (9)-(10) on z_t for VAW2; EWA
   eq. (29) on zbar_t = clip(z_t, A, B), eq. (28), for VAW-EWA; section 4's AA, ML-Poly,
   ML-Prod, BOA: :mod:`omkl_core.aggregation`);
3. y_t is revealed: every expert learns (x_t, y_t) and the meta-learner learns (z_t, y_t).

The meta-learner's regret bounds (eq. (30), Theorems 2-3, references A.4-A.6 and B) ask only
that z_t be fixed before y_t, whatever the experts are; and no expert depends on the
meta-learner or on another expert.  So a whole stream is two passes (:meth:`Pairing.run`):
the experts' forecasts Z (T, N) for the whole stream (each expert predict-then-learn on its
own), then the meta-learner's vectorised ``run(Z, y)``.  The numbers are those of the
``predict_one`` / ``learn_one`` loop (bit for bit, or to rounding where an expert's or the
meta-learner's whole-stream driver sums in another order).

:class:`Pairing` owns that protocol and its bookkeeping -- the forecasts of a step cached
between ``predict_one`` and ``learn_one``, ``meta_``, ``weights_``, ``expert_predictions_``,
``t_``, ``run`` -- and leaves t  he experts to a subclass:

===============================  ===============================================================
hook                             what the subclass supplies
===============================  ===============================================================
``_make_meta()``                 a fresh meta-learner (called by ``reset``)
``_predict_experts(x)``          ``(z, aux)``: z_t (N,) a fresh float64 array, ``aux`` whatever
                                 ``_learn_experts`` needs again (features, an abstention mask)
``_learn_experts(x, y, aux)``    every expert learns (x_t, y_t)
``_expert_stream(X, y, **kw)``   ``(Z, aux)``: the experts' forecasts (T, N) over a stream,
                                 predict-then-learn, continuing from their state
``_meta_stream(Z, y, aux)``      ``(Z as the meta-learner saw it, forecasts)`` (default: Z, the
                                 meta-learner's ``run``)
``_check_step(x, y)``,           checks / warnings on a labelled step or a stream before anything
``_check_stream(X, y)``          learns (default: none)
``_finish_step``,                bookkeeping after a step / a stream (extend with ``super()``)
``_finish_run``
===============================  ===============================================================

:class:`~omkl_core.mixture.Mixture` pairs any online learners (a list, one forecast each,
abstentions replaced by a fallback) with any meta-learner; the VAW family pairs the batched
VAW expert layer over N kernels' random features (paper 000 eqs. (9)-(10),
:class:`omkl_core.vaw.VAWExperts`) with the meta-learner its class names.
"""
from __future__ import annotations

import numpy as np

from .base import OnlineLearner
from .protocol import predict_learn
from .validation import MAX_MAGNITUDE, Checked, check_label, check_matrix, check_point, check_vector

__all__ = ["Pairing"]


class Pairing(OnlineLearner):
    """Experts forecast, the meta-learner aggregates, all learn (paper 000 section 3).

    An abstract base: subclasses supply the experts and the meta-learner (module docstring).

    Attributes
    ----------
    meta_ : meta-learner
        The meta-learner that learns (:mod:`omkl_core.aggregation`), from ``_make_meta()``.
    weights_ : ndarray of shape (N,) or None
        The meta weights the next prediction uses (``meta_.weights_``).
    expert_predictions_ : ndarray of shape (N,) or None
        z of the last step learned, as the meta-learner saw it (before truncation).
    t_ : int
        Steps learned.
    """

    # ---- the subclass's part -------------------------------------------------------------
    def _make_meta(self):
        """A fresh meta-learner."""
        raise NotImplementedError

    def _predict_experts(self, x):
        """``(z_t, aux)`` from the experts' states after steps < t (x already checked)."""
        raise NotImplementedError

    def _learn_experts(self, x, y: float, aux) -> None:
        """Every expert learns (x_t, y_t); ``aux`` is what ``_predict_experts`` returned."""
        raise NotImplementedError

    def _expert_stream(self, X, y, **options):
        """``(Z, aux)``: the experts' forecasts Z (T, N) over the stream, predict-then-learn."""
        raise NotImplementedError

    def _check_step(self, x, y: float) -> None:
        """Checks or warnings on a labelled step (x_t, y_t), before anything learns."""

    def _check_forecasts(self, z) -> None:
        """The forecasts z_t as the meta-learner's ``learn_one`` checks them (|z| <= MAX_MAGNITUDE),
        before any expert learns: a step the meta-learner would refuse changes nothing (atomic)."""
        v = np.asarray(z, dtype=np.float64)
        if v.size and np.maximum.reduce(abs(v)) <= MAX_MAGNITUDE:   # one scan (NaN compares false: located below)
            return
        big = np.flatnonzero(~(np.abs(v) <= MAX_MAGNITUDE))
        if big.size:
            j = int(big[0])
            raise ValueError(f"{self._expert_label(j)} forecast {float(v[j])!r} at step {self.t_ + 1}, too large for "
                             f"the meta-learner (|value| > {MAX_MAGNITUDE:g}: squared losses overflow float64); the "
                             "step is refused, nothing learned; rescale the data first")

    def _expert_label(self, j: int) -> str:
        return f"expert {j}"

    def _point(self, x):
        """x_t checked before any expert sees it (``check_point``, naming x)."""
        return check_point(x, name="x")

    def _label(self, y, pending: bool) -> float:
        """y_t checked before anything learns it (``check_label``, naming y), as a float; ``pending``:
        the experts' forecasts of x_t are cached (nothing runs before the experts learn y_t)."""
        return check_label(y, "y")

    def _meta_forecast(self, z) -> float:
        """The meta-learner's forecast from z_t (default: its ``predict_one``)."""
        return self.meta_.predict_one(z)

    def _learn_meta(self, z, y: float) -> None:
        """The meta-learner learns (z_t, y_t), y_t already checked (default: its ``learn_one``)."""
        self.meta_.learn_one(z, y)

    def _check_stream(self, X, y) -> None:
        """Checks or warnings on a stream (X, y), before anything learns."""

    # ---- state ----------------------------------------------------------------------------
    def _reset(self):
        self.meta_ = self._make_meta()
        self.expert_predictions_ = None
        self._last = None        # (Checked x, z, aux) of the step predicted and not yet learned

    @property
    def weights_(self):
        """The meta weights the next prediction uses ((N,)); see the meta-learner's ``weights_``."""
        return self.meta_.weights_

    # ---- one step -------------------------------------------------------------------------
    def _forecasts(self, x):
        """(z_t, aux) for the checked point x_t, cached until ``learn_one``: the experts forecast
        once per step however often ``predict_one`` asks (the same x_t recognised by
        :class:`~omkl_core.validation.Checked`: the same values)."""
        last = self._last
        if last is not None and last[0].matches(x):
            return last[1], last[2]
        z, aux = self._predict_experts(x)
        self._last = (Checked(x), z, aux)
        return z, aux

    def predict_one(self, x) -> float:
        """yhat_t = meta(z_t) from x_t (d,): the experts' forecasts, then the meta-learner's."""
        z, _ = self._forecasts(self._point(x))
        return float(self._meta_forecast(z))

    def learn_one(self, x, y) -> None:
        """Reveal y_t: every expert learns (x_t, y_t), then the meta-learner learns (z_t, y_t)."""
        last = self._last
        pending = last is not None and last[0].matches(x)   # the x_t predict_one checked and forecast
        if not pending:
            x = self._point(x)
        y = self._label(y, pending)
        self._check_step(x, y)
        z, aux = (last[1], last[2]) if pending else self._forecasts(x)   # z_t: forecasts made before y_t
        self._check_forecasts(z)                 # what the meta-learner refuses, refused before any expert learns
        self._learn_experts(x, y, aux)
        self._learn_meta(z, y)
        self._finish_step(z, aux, y)

    def _finish_step(self, z, aux, y: float) -> None:
        self.expert_predictions_ = z
        self._last = None
        self.t_ += 1

    # ---- whole stream ---------------------------------------------------------------------
    def run(self, X, y):
        """Predict-then-learn over (X, y), continuing from the current state: the experts'
        whole-stream forecasts Z (T, N), then the meta-learner's ``run(Z, y)``."""
        return self._run(X, y)

    def _run(self, X, y, **options):
        return self._run_with_forecasts(X, y, **options)[1]

    def _run_with_forecasts(self, X, y, **options):
        """``run`` that also returns the experts' forecasts: (Z (T, N), predictions (T,))."""
        X = check_matrix(X, "X")
        y = check_vector(y, "y", length=X.shape[0])
        self._check_stream(X, y)
        self._last = None                           # a pending predict_one's forecasts: dropped
        Z, aux = self._expert_stream(X, y, **options)
        Z, preds = self._meta_stream(Z, y, aux)
        self._finish_run(Z, aux, y)
        return Z, preds

    def _meta_stream(self, Z, y, aux):
        """``(Z as the meta-learner saw it, its forecasts)`` over the stream: by default Z as given
        and :meth:`_meta_run` (a subclass may substitute entries of Z first, e.g. a Mixture's
        sleeping experts)."""
        return Z, self._meta_run(Z, y)

    def _meta_run(self, Z, y):
        """The meta-learner over the stream of forecasts: its vectorised ``run`` where it has one,
        else its predict_one/learn_one loop (:func:`omkl_core.protocol.predict_learn`)."""
        return predict_learn(self.meta_, Z, y, step0=self.t_)[0]

    def _finish_run(self, Z, aux, y) -> None:
        self.expert_predictions_ = Z[-1].copy()
        self.t_ += Z.shape[0]
