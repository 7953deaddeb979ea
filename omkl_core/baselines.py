"""Baselines as learners: the running mean, an exponentially weighted mean, the last value.

Every learner should beat these on its stream; :class:`omkl_core.Mixture`'s default pool holds
:class:`RunningMean`, so the regret bound of its meta-learner bounds its regret against the
running mean too (:mod:`omkl_core.mixture`, "The default").  They read the labels only (the
features x_t are checked and ignored) and forecast in the target's units.

The first step (the one abstention rule, :mod:`omkl_core.protocol`, "Abstention"): a baseline
that has seen no label has no forecast, so ``predict_one`` returns ``None`` (abstains)
(``may_abstain = True``).  ``run`` returns there what every learner's ``run`` returns for an
abstention (:mod:`omkl_core.base`, "What ``run`` returns"): the fallback f_1 = 0.0 that
:func:`omkl_core.run_online` and the command line score (the same 0.0 as
:func:`omkl_core.protocol.running_mean`'s ``prior``), never NaN; inside a
:class:`~omkl_core.Mixture` the abstaining expert is a sleeping expert (no credit, no blame).

==========================  ======================================================================
class                       forecast of y_t from the labels y_1 .. y_{t-1} (t >= 2)
==========================  ======================================================================
:class:`RunningMean`        (1 / (t - 1)) sum_{s<t} y_s -- the best constant on the past
:class:`ExponentialMean`    sum_{s<t} w^{t-1-s} y_s / sum_{s<t} w^{t-1-s},  w = 2^{-1/h}, h the
                            half-life in steps (the label h steps back weighs half the newest)
:class:`LastValue`          y_{t-1} (the persistence forecast)
==========================  ======================================================================

Examples
--------
>>> import numpy as np, omkl_core as ok
>>> X = np.zeros((4, 1)); y = np.array([2.0, 4.0, 6.0, 8.0])
>>> ok.RunningMean().run(X, y).tolist()                           # t = 1: the fallback 0.0
[0.0, 2.0, 3.0, 4.0]
>>> ok.run_online(ok.LastValue(), X, y).abstained.tolist()        # the step it abstained
[True, False, False, False]
>>> ok.ExponentialMean(half_life=1.0).run(X, y).round(4).tolist()
[0.0, 2.0, 3.3333, 4.8571]
"""
from __future__ import annotations

from .base import OnlineLearner, check_label, check_point
from .validation import Positive

__all__ = ["RunningMean", "ExponentialMean", "LastValue"]


class _LabelBaseline(OnlineLearner):
    """Shared parts: x checked (dimension fixed by the first row) and ignored; abstains before
    the first label; ``run`` is the step loop (the numbers of predict_one / learn_one, bit for
    bit), its abstention returned as the fallback 0.0 (module docstring)."""

    may_abstain = True
    _unit_test_skips = {}

    def _reset(self):
        self.d_ = None

    def _x(self, x):
        x = check_point(x, self.d_, "x")
        if self.d_ is None:
            self.d_ = int(x.shape[0])
        return x

    def _forecast_value(self):            # the forecast after >= 1 label
        raise NotImplementedError

    def _observe(self, y: float) -> None:
        raise NotImplementedError

    def predict_one(self, x):
        """The forecast of y_t in the target's units, or None before the first label (abstains)."""
        self._x(x)
        return None if self.t_ == 0 else float(self._forecast_value())

    def learn_one(self, x, y) -> None:
        """Observe y_t (x_t is checked and ignored)."""
        self._x(x)
        self._observe(check_label(y, "y"))
        self.t_ += 1



class RunningMean(_LabelBaseline):
    """The mean of the labels seen so far: the best constant forecast on the past; no forecast before the
    first label.

    The running mean of the labels: yhat_t = (1 / (t - 1)) sum_{s<t} y_s (t >= 2); abstains at
    t = 1 (module docstring).  The baseline of ``omkl run`` (:func:`omkl_core.protocol.running_mean`,
    the same numbers) and the expert of :class:`omkl_core.Mixture`'s default pool that makes its
    meta-learner's bound a bound against the mean.

    Attributes
    ----------
    total_ : float
        Sum of the labels learned (the forecast is ``total_ / t_``).
    d_ : int or None
        The input dimension (fixed by the first row; the rows are otherwise ignored).
    """

    def _reset(self):
        super()._reset()
        self.total_ = 0.0

    def _forecast_value(self):
        return self.total_ / self.t_

    def _observe(self, y):
        self.total_ += y


class ExponentialMean(_LabelBaseline):
    """A weighted mean of the labels seen so far in which a label half_life steps older weighs half as
    much; no forecast before the first label.

    An exponentially weighted mean of the labels with half-life ``half_life`` (in steps):

        yhat_t = sum_{s<t} w^{t-1-s} y_s / sum_{s<t} w^{t-1-s},   w = 2^{-1/half_life}  (t >= 2),

    the normalised (bias-free) form: yhat_2 = y_1, and the label ``half_life`` steps before the
    newest weighs half as much as the newest.  Abstains at t = 1 (module docstring).  Computed by
    the recursions num_t = w num_{t-1} + y_t, den_t = w den_{t-1} + 1 (den_t <= 1 / (1 - w)).

    Parameters
    ----------
    half_life : float, default=10.0
        h > 0, in steps; a large h approaches :class:`RunningMean`, h -> 0 :class:`LastValue`.

    Attributes
    ----------
    num_, den_ : float
        The weighted sum of the labels and of the weights (the forecast is ``num_ / den_``).
    d_ : int or None
        The input dimension (fixed by the first row; the rows are otherwise ignored).
    """

    _parameter_constraints = {"half_life": Positive()}

    @classmethod
    def _unit_test_params(cls):
        yield {"half_life": 10.0}
        yield {"half_life": 0.5}

    def __init__(self, half_life: float = 10.0):
        self.half_life = half_life
        super().__init__()

    def _reset(self):
        super()._reset()
        self._w = 2.0 ** (-1.0 / float(self.half_life))
        self.num_ = 0.0
        self.den_ = 0.0

    def _forecast_value(self):
        return self.num_ / self.den_

    def _observe(self, y):
        self.num_ = self._w * self.num_ + y
        self.den_ = self._w * self.den_ + 1.0


class LastValue(_LabelBaseline):
    """The last label seen (the persistence forecast); no forecast before the first label.

    The last label seen: yhat_t = y_{t-1} (t >= 2), the persistence forecast; abstains at t = 1
    (module docstring).

    Attributes
    ----------
    last_ : float or None
        The last label learned.
    d_ : int or None
        The input dimension (fixed by the first row; the rows are otherwise ignored).
    """

    def _reset(self):
        super()._reset()
        self.last_ = None

    def _forecast_value(self):
        return self.last_

    def _observe(self, y):
        self.last_ = y
