"""The conformance suite: :func:`omkl_core.checks.check_learner`'s checks over every online
learner that ``omkl_core`` exports.

The learners are **discovered** from ``omkl_core.__all__`` (River's ``yield_checks`` is the
model): every exported class with ``predict_one`` and ``learn_one`` must be an
:class:`~omkl_core.base.OnlineLearner`, and each runs every check of
:func:`omkl_core.checks.yield_checks` once per parameter set of its ``_unit_test_params()``
(one pytest case per learner, parameter set and check). Learners on raw features see x_t in
R^3; meta-learners (``input_kind = "experts"``) see expert forecasts z_t in [0, 1]^4.

Below the suite: checks that the checker itself fails, naming the check, on learners that
break a convention (a checker that passes everything would verify nothing), and the
conventions the generic checks do not cover (a changed input dimension; deep copies).
"""
from __future__ import annotations

import copy
import inspect

import numpy as np
import pytest

import omkl_core as ok
from omkl_core import checks
from omkl_core.base import BatchLearner, OnlineLearner, check_label, check_point
from omkl_core.validation import Positive


def _exported_learners():
    out = []
    for name in sorted(ok.__all__):
        obj = getattr(ok, name)
        if inspect.isclass(obj) and callable(getattr(obj, "predict_one", None)) \
                and callable(getattr(obj, "learn_one", None)) and obj is not OnlineLearner:
            out.append(obj)
    return out


LEARNERS = _exported_learners()


def _cases():
    cases = []
    for cls in LEARNERS:
        for i, params in enumerate(cls._unit_test_params()):
            for check in checks.yield_checks(cls(**params)):
                cases.append(pytest.param(cls, i, check, id=f"{cls.__name__}[{i}]-{check.__name__}"))
    return cases


def test_every_exported_learner_is_an_online_learner_with_test_parameters():
    assert len(LEARNERS) >= 25
    for cls in LEARNERS:
        assert issubclass(cls, OnlineLearner), f"{cls.__name__} does not derive from OnlineLearner"
        assert list(cls._unit_test_params()), f"{cls.__name__} declares no test parameters"
    batch = [getattr(ok, n) for n in ok.PAPER004_EXPORTS if inspect.isclass(getattr(ok, n))
             and callable(getattr(getattr(ok, n), "fit", None))]
    assert batch and all(issubclass(c, BatchLearner) for c in batch)


@pytest.mark.parametrize(("cls", "i", "check"), _cases())
def test_conformance(cls, i, check):
    learner = cls(**list(cls._unit_test_params())[i])
    X, y = checks.stream_for(learner)
    checks.run_check(check, learner, X, y)


def test_check_learner_runs_every_check():
    checks.check_learner(ok.OnlineRidge(a=2.0))
    checks.check_learner(ok.EWA(eta=2.0))


# ----------------------------------------------------------------------------------------
# the checker fails, naming the check, on learners that break a convention
# ----------------------------------------------------------------------------------------
class _Mean(OnlineLearner):
    """Predicts the running mean of the labels (a correct learner)."""

    _parameter_constraints = {"prior": Positive()}

    def __init__(self, prior: float = 1.0):
        self.prior = prior
        super().__init__()

    def _reset(self):
        self.total_ = 0.0

    def predict_one(self, x):
        check_point(x)
        return self.total_ / self.t_ if self.t_ else self.prior

    def learn_one(self, x, y):
        check_point(x)
        self.total_ += check_label(y)
        self.t_ += 1


class _RunRestarts(_Mean):
    def run(self, X, y):                       # the bug of issue 20: run starts over
        self.reset()
        return super().run(X, y)


class _LearnReturns(_Mean):
    def learn_one(self, x, y):
        super().learn_one(x, y)
        return self.total_


class _Unconstrained(_Mean):
    def __init__(self, prior: float = 1.0, scale: float = 1.0):
        self.scale = scale
        super().__init__(prior)


class _WrongRepr(_Mean):
    def __repr__(self):
        return "_WrongRepr()"


class _ForgetsOnPickle(_Mean):
    def __getstate__(self):
        state = self.__dict__.copy()
        state["total_"] = 0.0
        return state


class _ResetKeeps(_Mean):
    def _reset(self):
        self.total_ = getattr(self, "total_", 0.0)


class _Unnamed(_Mean):
    def _validate_params(self):
        if not self.prior > 0:
            raise ValueError("must be > 0")


class _Random(_Mean):
    def predict_one(self, x):
        return float(np.random.default_rng().random())


class _AcceptsNaN(_Mean):
    def learn_one(self, x, y):
        self.total_ += y
        self.t_ += 1


class _WritesInput(_Mean):
    """Writes zeros into its input x (the first broken learner of issue 35)."""

    def learn_one(self, x, y):
        super().learn_one(x, y)
        x[:] = 0.0


class _PredictLearns(_Mean):
    """predict_one changes the state (issue 35's learner: three calls on the same x give 2.0,
    2.333, 2.667); run equals its loop, so only the state check can see it."""

    def predict_one(self, x):
        out = super().predict_one(x)
        self.total_ += 1.0 / 3.0
        return out


class _RunDrifts(_Mean):
    """run() drifts away from the loop by 1e-3 t at step t: 24 of 25 values differ, the largest at
    the last step (index 24), beyond the first few that NumPy's report would list."""

    def run(self, X, y):
        out = super().run(X, y)
        return out + 1e-3 * np.arange(out.shape[0])


@pytest.mark.parametrize(("cls", "check"), [
    (_WritesInput, "check_run_equals_loop"),
    (_PredictLearns, "check_predict_one_keeps_state"),
    (_RunRestarts, "check_run_continues_from_state"),
    (_LearnReturns, "check_learn_one"),
    (_Unconstrained, "check_every_parameter_constrained"),
    (_WrongRepr, "check_repr"),
    (_ForgetsOnPickle, "check_pickle_mid_stream"),
    (_ResetKeeps, "check_reset_equals_fresh"),
    (_Unnamed, "check_bad_parameters_are_named"),
    (_Random, "check_run_equals_loop"),
    (_AcceptsNaN, "check_rejects_nan"),
])
def test_check_learner_names_the_failed_check(cls, check):
    checks.check_learner(_Mean())               # the correct learner passes
    with pytest.raises(AssertionError, match=check):
        checks.check_learner(cls())


def test_a_learner_that_writes_into_its_input_fails_by_the_check_it_writes_in():
    """Each check gets its own read-only copy of the stream: the first check that lets the learner
    learn fails, naming the write, and no later check sees a stream it overwrote."""
    X, y = checks.stream_for(_Mean())
    for check in checks.yield_checks(_WritesInput()):
        if check.__name__ in ("check_repr", "check_every_parameter_constrained", "check_bad_parameters_are_named"):
            continue                                    # they never call learn_one
        with pytest.raises(ValueError, match="read-only"):
            checks.run_check(check, _WritesInput(), X, y)
        checks.run_check(check, _Mean(), X, y)
    assert np.all(X != 0.0)                             # the caller's stream is untouched


def test_predict_one_that_changes_the_state_is_named():
    model = _PredictLearns()
    model.learn_one(np.zeros(3), 2.0)
    assert [round(model.predict_one(np.zeros(3)), 3) for _ in range(3)] == [2.0, 2.333, 2.667]
    with pytest.raises(AssertionError, match="check_predict_one_keeps_state.*twice"):
        checks.check_learner(_PredictLearns())


def test_a_failed_comparison_names_the_largest_difference():
    with pytest.raises(AssertionError) as info:
        checks.check_learner(_RunDrifts())
    msg = str(info.value)
    assert "check_run_equals_loop" in msg
    assert "24 of 25 values differ" in msg
    assert "the largest difference is 0.024 at index [24]" in msg
    X, y = checks.stream_for(_Mean())
    want = _Mean().run(X, y)
    assert f"run {float(want[24] + 0.024)!r}, loop {float(want[24])!r}" in msg


def test_the_comparison_counts_nan_against_a_number_as_the_largest_difference():
    with pytest.raises(AssertionError, match=r"2 of 3 values differ; the largest difference is inf at index \[2\]"):
        checks._compare([1.0, 5.0, np.nan], [1.0, 2.0, 0.5], "x")
    checks._compare([1.0, np.nan], [1.0, np.nan], "NaN equals NaN")


def test_check_learner_refuses_a_non_learner():
    with pytest.raises(TypeError, match="learner"):
        checks.check_learner(object())


# ----------------------------------------------------------------------------------------
# conventions outside the generic checks
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [c for c in LEARNERS if c.input_kind == "features"], ids=lambda c: c.__name__)
def test_conformance_rejects_dimension_change(cls):
    model = cls(**next(iter(cls._unit_test_params())))
    X, y = checks.stream_for(model, T=5)
    model.predict_one(X[0])
    model.learn_one(X[0], float(y[0]))
    with pytest.raises(ValueError):
        model.predict_one(np.full(X.shape[1] + 1, 0.5))


def test_conformance_copy_is_independent():
    """A deep copy learns on its own (no shared mutable state with the original)."""
    a = ok.VAW2(m=6, seed=3)
    X, y = checks.stream_for(a)
    b = copy.deepcopy(a)
    ok.run_online(a, X, y, use_run=False)
    np.testing.assert_array_equal(ok.run_online(b, X, y, use_run=False).predictions,
                                  ok.run_online(ok.VAW2(m=6, seed=3), X, y, use_run=False).predictions)


def test_the_base_classes_are_abstract():
    """``OnlineLearner`` / ``BatchLearner`` are bases, not learners: instantiating one names the
    methods a subclass must define (a default-constructed base would otherwise fail every check)."""
    with pytest.raises(TypeError, match="learn_one, predict_one"):
        OnlineLearner()
    with pytest.raises(TypeError, match="fit, predict"):
        BatchLearner()
