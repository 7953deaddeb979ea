"""``omkl_core.Mixture`` (issue 24): the meta-learners' regret bounds hold for any experts.

The theory (P000 sec. 3): a meta-learner's bound against the best expert only asks that the
expert forecasts z_{t,j} be fixed before y_t is revealed.  So a mixture is right when

(a) its forecasts are the meta-learner's forecasts over the forecasts that the experts make
    **alone** (each expert run by itself, predict-then-learn: it never sees y_t before z_t),
    with the documented fallback in place of an abstention -- on both paths, ``run`` and the
    ``predict_one``/``learn_one`` loop, and, per step, yhat_t = <p_t, zbar_t> with p_t the
    ``weights_`` reported before step t; and
(b) its regret against the best of those experts obeys the meta-learner's bound: P000 eq.
    (30) for EWA (ln N / eta = 2 (B-A)^2 ln N, CBL Prop. 3.1) and CBL Prop. 3.2 for the
    Aggregating Algorithm ((B-A)^2 ln N / 2), ``omkl_core.bounds.ewa_bound`` / ``aa_bound``.

Each bound is checked only where it is informative: on the same stream the uniform average of
the same experts (a non-learning mixture) violates it.  Two plausible wrong mixtures are built
here and the criterion must catch them: one that ignores its meta weights (plain average, the
meta-learner still learning), one whose experts learn (x_t, y_t) before forecasting x_t.
"""
from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import omkl_core as ok
from omkl_core import bounds, checks
from omkl_core.base import OnlineLearner, check_label, check_point
from omkl_core.mixture import Mixture

# exact_fp: this file compares floating-point results exactly (two paths that run the same operations in
# the same order by construction); .ci/run runs it again under each OpenBLAS kernel the CPU can run
pytestmark = pytest.mark.exact_fp


# ------------------------------------------------------------------------------ test experts
class _Constant(OnlineLearner):
    """Forecasts ``c`` whatever it sees (a non-learning expert)."""

    _parameter_constraints = {}

    def __init__(self, c: float = 0.0):
        self.c = c
        super().__init__()

    def predict_one(self, x):
        check_point(x)
        return self.c

    def learn_one(self, x, y):
        check_point(x)
        check_label(y)
        self.t_ += 1


class _Sleepy(OnlineLearner):
    """The running mean of the labels plus ``shift``, abstaining (None) at the steps
    t = 1, 1 + every, 1 + 2 every, ... (a duck-typed expert: no ``run``)."""

    def __init__(self, shift: float = 0.1, every: int = 3):
        self.shift = shift
        self.every = every
        super().__init__()

    def _reset(self):
        self.total_ = 0.0

    def predict_one(self, x):
        check_point(x)
        if self.t_ % self.every == 0:
            return None
        return self.total_ / self.t_ + self.shift

    def learn_one(self, x, y):
        self.total_ += check_label(y)
        self.t_ += 1


_Sleepy.run = None     # no vectorised driver: the mixture loops over this expert alone


# ------------------------------------------------------------------------------ wrong mixtures
class _IgnoresWeights(Mixture):
    """Wrong: forecasts the plain average of the truncated expert forecasts (its meta-learner
    still learns, so weights_ move, but the forecast does not use them)."""

    def predict_one(self, x):
        z, _ = self._forecasts(check_point(x))
        self.meta_.predict_one(z)
        return float(np.mean(np.clip(z, 0.0, 1.0)))

    def run(self, X, y):
        Z, _ = self._expert_stream(np.asarray(X, float), np.asarray(y, float))
        self.meta_.run(Z, y)
        self.t_ += len(y)
        return np.mean(np.clip(Z, 0.0, 1.0), axis=1)


class _LooksAhead(Mixture):
    """Wrong: each expert learns (x_t, y_t) and *then* forecasts x_t (it has seen y_t)."""

    def _expert_column(self, j, X, y):
        e = self.learners_[j]
        z = np.empty(len(y))
        for t in range(len(y)):
            e.learn_one(X[t], float(y[t]))
            z[t] = e.predict_one(X[t])
        return z, np.zeros(len(y), dtype=bool)


# ------------------------------------------------------------------------------ the criterion
def _alone(learners, X, y):
    """Each expert run by itself (fresh copy, predict then learn): (Z (T, N) with NaN where an
    expert abstained, the abstention mask)."""
    T, N = len(y), len(learners)
    Z = np.empty((T, N))
    for j, template in enumerate(learners):
        e = template.clone() if hasattr(template, "clone") else copy.deepcopy(template)
        for t in range(T):
            p = e.predict_one(X[t])
            Z[t, j] = np.nan if p is None else p
            e.learn_one(X[t], float(y[t]))
    return Z, np.isnan(Z)


def _sleeping(meta, Z, A, y):
    """The meta-learner over Z with the module docstring's abstention rule, written here step by step
    from the docstring: an abstaining expert forecasts the aggregate of the awake experts under the
    weights the rule had before the step (the rules whose forecast is <p_t, zbar_t>: all but VAWMeta
    and the AA), the fallback f_t (f_1 the midpoint of bounds, then the mean of past labels) for
    VAWMeta, the AA and a step at which every expert abstains. Returns (forecasts, Z as substituted)."""
    T, N = Z.shape
    m = meta.clone(n_experts=N)
    convex = not isinstance(meta, (ok.VAWMeta, ok.AggregatingAlgorithm))
    b = meta.bounds
    Zs = np.array(Z, dtype=float)
    out = np.empty(T)
    for t in range(T):
        a = A[t]
        if a.any():
            f = (0.5 * (b[0] + b[1]) if b is not None else 0.0) if t == 0 else float(np.mean(y[:t]))
            if a.all() or not convex:
                Zs[t, a] = f
            else:
                p = np.asarray(m.weights_, dtype=float)
                zb = Zs[t] if b is None else np.clip(Zs[t], *b)
                w = p[~a]
                Zs[t, a] = float(w @ zb[~a]) / w.sum() if w.sum() > 0 else float(np.mean(zb[~a]))
        out[t] = m.predict_one(Zs[t])
        m.learn_one(Zs[t], float(y[t]))
    return out, Zs


def _loop(model, X, y, with_weights=False):
    preds, weights = np.empty(len(y)), []
    for t in range(len(y)):
        if with_weights:
            weights.append(np.asarray(model.weights_, dtype=float).copy())
        preds[t] = model.predict_one(X[t])
        model.learn_one(X[t], float(y[t]))
    return (preds, np.array(weights)) if with_weights else preds


def _assert_is_the_meta_over_experts_alone(mix_cls, learners, meta, X, y):
    """Criterion (a): ``run`` and the loop give the meta-learner over Z_alone (abstentions by the rule
    of :func:`_sleeping`); per step yhat_t = <p_t, zbar_t> (for the rules that forecast a weighted
    average: not VAWMeta (signed weights on raw z), not the AA (a substitution function, ref. B))."""
    Z, A = _alone(learners, X, y)
    expected, Zs = _sleeping(meta, Z, A, y) if A.any() else (meta.clone().run(Z, y), Z)
    got_run = mix_cls(learners, meta=meta).run(X, y)
    np.testing.assert_allclose(got_run, expected, rtol=1e-9, atol=1e-12, err_msg="run")
    got_loop, P = _loop(mix_cls(learners, meta=meta), X, y, with_weights=True)
    np.testing.assert_allclose(got_loop, expected, rtol=1e-9, atol=1e-12, err_msg="loop")
    if not isinstance(meta, (ok.VAWMeta, ok.AggregatingAlgorithm)):    # linear, convex-weight aggregates
        np.testing.assert_allclose(got_loop, np.sum(P * np.clip(Zs, *meta.bounds), axis=1),
                                   rtol=1e-9, atol=1e-12, err_msg="yhat_t = <weights_, zbar_t>")
    return Zs, got_run


def _regret(preds, Z, y, A=0.0, B=1.0):
    """sum_t (yhat_t - y_t)^2 - min_j sum_t (zbar_{t,j} - y_t)^2."""
    return float(np.sum((preds - y) ** 2) - np.min(np.sum((np.clip(Z, A, B) - y[:, None]) ** 2, axis=0)))


def _stream(T=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(T, 2)) / np.sqrt(2)
    y = np.clip(0.5 + 0.6 * X[:, 0] - 0.3 * X[:, 1] + 0.03 * rng.standard_normal(T), 0, 1)
    return X, y


def _pool():
    return [ok.OnlineRidge(fit_intercept=True, solver="sherman-morrison"), _Constant(0.0), _Constant(1.0)]


# ------------------------------------------------------------------------------ theory
@pytest.mark.parametrize(("meta", "bound"), [
    (ok.EWA(), bounds.ewa_bound(3, 0.0, 1.0)),                     # P000 eq. (30): 2 ln 3
    (ok.AggregatingAlgorithm(), bounds.aa_bound(3, 0.0, 1.0)),     # CBL Prop. 3.2: ln 3 / 2
])
def test_mixture_regret_against_the_best_expert_within_the_meta_bound(meta, bound):
    X, y = _stream()
    Z, preds = _assert_is_the_meta_over_experts_alone(Mixture, _pool(), meta, X, y)
    uniform = np.mean(np.clip(Z, 0, 1), axis=1)
    assert _regret(uniform, Z, y) > 4 * bound, "the bound is not informative on this stream"
    assert _regret(preds, Z, y) <= bound + 1e-9 * np.sum((preds - y) ** 2)


@pytest.mark.parametrize("meta", [ok.EWA(), ok.CalibratedEWA(), ok.AggregatingAlgorithm(), ok.MLProd(), ok.MLPoly(),
                                  ok.BOA(), ok.BOA(version="v122"), ok.VAWMeta()])
def test_mixture_is_the_meta_learner_over_the_experts_run_alone(meta):
    X, y = _stream(T=120, seed=1)
    _assert_is_the_meta_over_experts_alone(Mixture, _pool(), meta, X, y)


def test_the_criteria_catch_a_mixture_that_ignores_its_meta_weights():
    X, y = _stream()
    with pytest.raises(AssertionError):
        _assert_is_the_meta_over_experts_alone(_IgnoresWeights, _pool(), ok.EWA(), X, y)
    Z, _ = _alone(_pool(), X, y)
    wrong = _IgnoresWeights(_pool(), meta=ok.EWA()).run(X, y)
    assert _regret(wrong, Z, y) > bounds.ewa_bound(3, 0.0, 1.0)          # and it breaks eq. (30)


def test_the_criterion_catches_experts_that_see_y_t_before_forecasting():
    X, y = _stream()
    with pytest.raises(AssertionError, match="run"):
        _assert_is_the_meta_over_experts_alone(_LooksAhead, _pool(), ok.EWA(), X, y)
    # the look-ahead is no accident of one expert: the ridge expert's column differs
    mix = _LooksAhead(_pool(), meta=ok.EWA())
    Z_wrong, _ = mix._expert_stream(X, y)
    assert np.max(np.abs(Z_wrong[:, 0] - _alone(_pool(), X, y)[0][:, 0])) > 1e-3


# ------------------------------------------------------------------------------ River experts
def test_mixture_with_a_river_expert_is_the_meta_over_the_experts_alone():
    pytest.importorskip("river")
    from river import linear_model, neighbors, preprocessing

    from omkl_core.interop import from_river
    X, y = _stream(T=150, seed=2)
    knn = preprocessing.StandardScaler() | neighbors.KNNRegressor(n_neighbors=5)
    learners = [ok.OnlineRidge(fit_intercept=True, solver="sherman-morrison"), from_river(knn),
                from_river(linear_model.LinearRegression()), _Constant(1.0)]
    for meta, bound in ((ok.EWA(), bounds.ewa_bound(4, 0.0, 1.0)), (ok.BOA(), None)):
        Z, preds = _assert_is_the_meta_over_experts_alone(Mixture, learners, meta, X, y)
        assert np.all(Z[0, 1:3] == 0.5)             # the River experts sleep at t = 1: the aggregate of 0 and 1
        if bound is not None:
            assert _regret(np.mean(np.clip(Z, 0, 1), axis=1), Z, y) > bound
            assert _regret(preds, Z, y) <= bound + 1e-9
    mix = Mixture(learners, meta=ok.BOA())
    mix.run(X, y)
    assert mix.n_abstained_.tolist() == [0, 1, 1, 0]
    assert knn.predict_one({"x0": 0.0, "x1": 0.0}) == 0.0 and learners[1].t_ == 0   # templates untouched
    checks.check_learner(Mixture(learners[:2], meta=ok.MLPoly()))


def test_from_river_abstains_until_it_has_learned_and_names_bad_input():
    pytest.importorskip("river")
    from river import linear_model

    from omkl_core.interop import from_river
    r = from_river(linear_model.LinearRegression(), features=["a", "b"])
    assert r.predict_one(np.array([0.1, 0.2])) is None
    r.learn_one(np.array([0.1, 0.2]), 0.3)
    assert isinstance(r.predict_one(np.array([0.1, 0.2])), float)
    with pytest.raises(ValueError, match="x"):
        r.predict_one(np.array([0.1, 0.2, 0.3]))
    with pytest.raises(TypeError, match="model"):
        from_river(ok.OnlineRidge())
    a, b = (from_river(linear_model.LinearRegression()).run(*_stream(T=30)) for _ in range(2))
    assert a[0] == 0.0 and np.array_equal(a[1:], b[1:])               # t = 1: the fallback 0.0; deterministic after
    checks.check_learner(from_river(linear_model.LinearRegression(), features=["a", "b", "c"]))


# ------------------------------------------------------------------------------ abstention
def test_an_abstaining_expert_sleeps_its_forecast_is_the_aggregate_of_the_awake_ones():
    """Issue 41 item 4: at a step an expert abstains, a convex-weight rule sees it forecast the
    aggregate of the awake experts under the weights before the step (its regret there is 0); the
    AA and VAWMeta see the fallback f_t (midpoint of bounds at t = 1, then the mean of past labels)."""
    X, y = _stream(T=40, seed=3)
    learners = [_Sleepy(0.1, 3), ok.OnlineRidge(fit_intercept=True, solver="sherman-morrison"), _Constant(0.9)]
    for meta in (ok.EWA(bounds=(0.0, 2.0)), ok.MLPoly(bounds=(0.0, 2.0)), ok.AggregatingAlgorithm(bounds=(0.0, 2.0))):
        mix = Mixture(learners, meta=meta)
        for t in range(len(y)):
            p = np.asarray(mix.weights_, dtype=float).copy()
            yhat = mix.predict_one(X[t])
            mix.learn_one(X[t], float(y[t]))
            z = mix.expert_predictions_
            if t % 3 == 0:
                assert mix.abstained_.tolist() == [True, False, False]
                if isinstance(meta, ok.AggregatingAlgorithm):
                    fallback = 1.0 if t == 0 else np.mean(y[:t])
                    np.testing.assert_allclose(z[0], fallback, rtol=1e-12)
                else:
                    awake = np.clip(z[1:], 0.0, 2.0)
                    np.testing.assert_allclose(z[0], p[1:] @ awake / p[1:].sum(), rtol=1e-12)
                    np.testing.assert_allclose(z[0], yhat, rtol=1e-12)          # its regret at t is 0
            else:
                assert not mix.abstained_.any()
        assert mix.n_abstained_.tolist() == [14, 0, 0]
        twin = Mixture(learners, meta=meta)
        np.testing.assert_allclose(twin.run(X[:17], y[:17]), _loop(Mixture(learners, meta=meta), X[:17], y[:17]),
                                   rtol=1e-12)


class _Never(OnlineLearner):
    """An expert that never forecasts (always abstains)."""

    def predict_one(self, x):
        check_point(x)

    def learn_one(self, x, y):
        check_label(y)
        self.t_ += 1


_Never.run = None


@pytest.mark.parametrize("meta", [ok.MLPoly(bounds=None), ok.EWA(bounds=(-1.0, 3.0)),
                                  ok.EWA(gradient=True, eta=2.0, bounds=(-1.0, 3.0))])
def test_an_expert_that_never_forecasts_gets_no_credit_and_changes_no_forecast(meta):
    """Issue 41 item 4: under the earlier fallback an expert that never forecast was scored as the
    running mean and took the weight on a stream where the mean forecasts well; as a sleeping expert
    it gains nothing: the mixture's forecasts are those of the mixture without it (for rules whose
    weights of the awake experts do not depend on N), and its weight stays ~0 (ML-Poly: its regret is 0)."""
    rng = np.random.default_rng(7)
    T = 200
    X = rng.normal(size=(T, 2))
    y = 1.0 + 0.05 * rng.standard_normal(T)                         # the mean is the best forecaster
    experts = [_Constant(0.6), ok.OnlineRidge(a=50.0)]
    with_sleeper = Mixture([_Never(), *experts], meta=meta)
    got = with_sleeper.run(X, y)
    np.testing.assert_allclose(got, Mixture(experts, meta=meta).run(X, y), rtol=1e-12, atol=1e-12)
    assert with_sleeper.n_abstained_.tolist() == [T, 0, 0]
    if isinstance(meta, ok.MLPoly):
        assert with_sleeper.weights_[0] < 1e-6
        # the earlier rule (the sleeper scored as the running mean of past labels) gave it the weight
        Z, _ = _alone([_Never(), *experts], X, y)
        old = np.where(np.isnan(Z), np.array([0.0] + [np.mean(y[:t]) for t in range(1, T)])[:, None], Z)
        legacy = meta.clone(n_experts=3)
        legacy.run(old, y)
        assert legacy.weights_[0] > 0.9


def test_summary_says_which_expert_abstained_and_names_the_experts():
    X, y = _stream(T=60, seed=5)
    mix = Mixture({"sleepy": _Sleepy(0.1, 4), "ridge": ok.OnlineRidge(fit_intercept=True), "never": _Never()},
                  meta=ok.MLPoly())
    text = str(mix.summary(X, y))
    assert "sleepy (abstained 15 of 60 steps)" in text and "never (abstained 60 of 60 steps)" in text
    assert "ridge" in text and "expert 0" not in text and "x1e3" not in text


def test_aggregate_of_stored_forecasts_is_the_mixture_bit_for_bit():
    """``mixture.aggregate``: a fresh mixture's forecasts from the experts' forecasts made alone
    (what a leaderboard stores), abstentions marked -- the numbers of ``Mixture.run``."""
    from omkl_core.mixture import aggregate
    X, y = _stream(T=60, seed=4)
    learners = [_Sleepy(0.1, 4), ok.OnlineRidge(fit_intercept=True), _Constant(0.9)]
    raw = np.empty((len(y), 3))
    for j, template in enumerate(learners):
        e = template.clone()
        for t in range(len(y)):
            p = e.predict_one(X[t])
            raw[t, j] = np.nan if p is None else p
            e.learn_one(X[t], float(y[t]))
    for meta in (ok.BOA(), ok.MLPoly(), ok.EWA(bounds=(-1.0, 2.0))):
        np.testing.assert_array_equal(aggregate(raw, y, meta=meta, abstained=np.isnan(raw)),
                                      Mixture(learners, meta=meta).run(X, y))
    with pytest.raises(ValueError, match="abstained"):
        aggregate(raw, y)
    with pytest.raises(ValueError, match="Z"):
        aggregate(raw[:, :0], y)


def test_a_nan_forecast_is_an_error_naming_the_expert():
    X, y = _stream(T=5)
    for run in (True, False):
        mix = Mixture([_Constant(float("nan")), _Constant(0.5)], meta=ok.EWA())
        with pytest.raises(FloatingPointError, match=r"learners\[0\]"):
            mix.run(X, y) if run else mix.predict_one(X[0])


# ------------------------------------------------------------------------------ API
def test_bad_learners_and_meta_are_named():
    with pytest.raises(ValueError, match="learners"):
        Mixture([])
    with pytest.raises(TypeError, match="names"):
        Mixture({3: ok.OnlineRidge()})
    with pytest.raises(TypeError, match=r"learners\[1\]"):
        Mixture([ok.OnlineRidge(), object()])
    with pytest.raises(TypeError, match=r"learners\[0\].*meta="):
        Mixture([ok.EWA()])
    with pytest.raises(TypeError, match="meta"):
        Mixture([ok.OnlineRidge()], meta=ok.OnlineRidge())
    with pytest.raises(ValueError, match="meta"):
        Mixture([ok.OnlineRidge(), ok.OnlineRidge(a=2.0)], meta=ok.EWA(n_experts=3))
    Mixture([ok.OnlineRidge()], meta=ok.BOA())       # N = 1 (issue 32): test_one_expert_mixture_is_its_truncated_forecast
    linear_model = pytest.importorskip("river.linear_model")    # the submodule itself (river does not import it)
    with pytest.raises(TypeError, match="from_river"):
        Mixture([linear_model.LinearRegression()])


def test_templates_are_not_modified_and_state_is_exposed():
    X, y = _stream(T=50)
    meta, learners = ok.MLPoly(), [ok.OnlineRidge(fit_intercept=True), ok.VAW2(m=5, seed=1)]
    mix = Mixture(learners, meta=meta)
    np.testing.assert_array_equal(mix.weights_, [0.5, 0.5])          # n_experts fixed: weights from the start
    mix.run(X, y)
    assert meta.t_ == 0 and meta.n_experts is None and all(e.t_ == 0 for e in learners)
    assert mix.weights_.shape == (2,) and np.isclose(mix.weights_.sum(), 1.0)
    np.testing.assert_array_equal(mix.weights_, mix.meta_.weights_)
    assert mix.expert_predictions_.shape == (2,) and mix.t_ == 50
    assert mix.reset() is mix and mix.t_ == 0 and mix.learners_[0].t_ == 0


# ------------------------------------------------------------------------------ issue 32
class _Counted(ok.OnlineRidge):
    """OnlineRidge that records every forecast it makes (class-level log, so clones share it)."""

    log: list = []

    def predict_one(self, x):
        p = super().predict_one(x)
        _Counted.log.append((self.a, p))
        return p


def test_one_expert_mixture_is_its_truncated_forecast():
    """N = 1 (the docstring's N >= 1): for a convex-weight rule the only expert's weight is 1, so
    the mixture forecasts zbar_t = clip(z_t, A, B) (eq. (28)), BOA "v120" included."""
    X, y = ok.datasets.ar4(T=200, seed=1)
    alone = ok.run_online(ok.VAW2(m=5), X, y).predictions
    for meta in (ok.BOA(), ok.MLProd(), ok.EWA(), ok.BOA(bounds=(0.2, 0.6))):
        mix = Mixture([ok.VAW2(m=5)], meta=meta)
        A, B = meta.bounds
        np.testing.assert_array_equal(ok.run_online(mix, X, y).predictions, np.clip(alone, A, B))
        np.testing.assert_array_equal(mix.weights_, [1.0])
    checks.check_learner(Mixture([ok.VAW2(m=5)]))


def test_mixture_in_a_river_pipeline_forecasts_once_per_step_and_learns_the_emitted_forecasts():
    """River's ``StandardScaler | to_river(Mixture(...))``: River updates the scaler between
    predict_one and learn_one, so the row learned differs from the row predicted on. Each expert
    forecasts once per step, and the meta-learner learns from the forecasts behind the prediction
    it emitted: its weights equal a fresh meta-learner's run over the logged predict-time forecasts."""
    from river import compose, evaluate, metrics, stream
    from river import preprocessing as rp

    from omkl_core.interop import to_river

    X, y = ok.datasets.ar4(T=120, seed=2)
    X = np.column_stack([X, 3.0 + 2.0 * X[:, 0] ** 2])
    _Counted.log = []
    model = compose.Pipeline(rp.StandardScaler(), to_river(Mixture([_Counted(a=1.0), _Counted(a=5.0)], meta=ok.EWA())))
    evaluate.progressive_val_score(stream.iter_array(X, y), model, metrics.MSE())
    log = _Counted.log
    assert len(log) == 2 * len(y)                                 # one forecast per expert per step
    Z = np.array([[p for a, p in log if a == 1.0], [p for a, p in log if a == 5.0]]).T
    meta = ok.EWA(n_experts=2)
    meta.run(Z, y)
    mix = model[-1].learner_
    np.testing.assert_array_equal(mix.weights_, meta.weights_)
    np.testing.assert_array_equal(mix.expert_predictions_, Z[-1])


def test_learn_one_alone_forecasts_first_and_a_pending_forecast_is_used_once():
    X, y = ok.datasets.ar4(T=30, seed=0)
    a, b = Mixture([ok.OnlineRidge(), ok.OnlineRidge(a=3.0)]), Mixture([ok.OnlineRidge(), ok.OnlineRidge(a=3.0)])
    for t in range(30):
        a.learn_one(X[t], y[t])                                   # no predict_one: the experts forecast x first
        b.predict_one(X[t])
        b.learn_one(X[t], y[t])
    np.testing.assert_array_equal(a.weights_, b.weights_)
    assert a._last is None and b._last is None


# ------------------------------------------------------------- issue 42: an atomic mixture step
_FLAKY = {"failures_left": 0}      # outside the learners: a rolled-back state does not reset it


class _Flaky(OnlineLearner):
    """The running mean of the labels that raises ``RuntimeError`` when it learns step ``fail_at``
    (1-based) while ``_FLAKY["failures_left"]`` > 0 -- an expert whose update fails half-way
    through a mixture (a disk, a network, a resource), then works on the retry."""

    _parameter_constraints = {}

    def __init__(self, fail_at: int = 3):
        self.fail_at = fail_at
        super().__init__()

    def _reset(self):
        self.total_ = 0.0

    def predict_one(self, x):
        check_point(x)
        return self.total_ / self.t_ if self.t_ else 0.0

    def learn_one(self, x, y):
        if self.t_ + 1 == self.fail_at and _FLAKY["failures_left"] > 0:
            _FLAKY["failures_left"] -= 1
            raise RuntimeError(f"flaky expert fails at step {self.fail_at}")
        self.total_ += check_label(y)
        self.t_ += 1


_Flaky.run = None      # the mixture's run loops over it step by step


def _seen(mix):
    return [e.t_ for e in mix.learners_], mix.meta_.t_, mix.t_


@pytest.mark.parametrize("path", ["learn_one", "run"])
def test_an_expert_that_raises_leaves_the_mixture_as_before_the_step(path):
    """Issue 42: when expert 1 raised in ``learn_one``, expert 0 had learned step t while ``t_``
    and the meta-learner had not, so a retry learned the step twice (after a failed ``run``
    expert 0 had seen 300 steps and the mixture 0).  A mixture's step is atomic now: all of
    it or none of it, and the retry gives the numbers of a run that never failed."""
    X, y = _stream(T=40)
    _FLAKY["failures_left"] = 0
    clean = ok.run_online(Mixture([ok.OnlineRidge(a=1.0), _Flaky()], meta=ok.EWA()), X, y, use_run=False).predictions
    mix = Mixture([ok.OnlineRidge(a=1.0), _Flaky(fail_at=3 if path == "learn_one" else 30)], meta=ok.EWA())
    _FLAKY["failures_left"] = 1
    if path == "learn_one":
        preds = []
        for t in range(40):
            preds.append(mix.predict_one(X[t]))
            if t == 2:
                state = pickle.dumps(mix.learners_[0])
                with pytest.raises(RuntimeError, match="flaky"):
                    mix.learn_one(X[t], y[t])
                assert _seen(mix) == ([2, 2], 2, 2)
                assert pickle.dumps(mix.learners_[0]) == state
                assert mix.predict_one(X[t]) == preds[-1]
            mix.learn_one(X[t], y[t])                    # step 3: the retry learns the step once
        assert _seen(mix) == ([40, 40], 40, 40)
        np.testing.assert_array_equal(preds, clean)
    else:
        with pytest.raises(RuntimeError, match="flaky"):
            mix.run(X, y)
        assert _seen(mix) == ([0, 0], 0, 0)
        np.testing.assert_array_equal(mix.run(X, y), clean)


@pytest.mark.parametrize("bad", ["0.3", b"0.3", [0.3], True, 1 + 0j])
@pytest.mark.parametrize("path", ["predict_one", "run"])
def test_an_expert_forecast_that_is_not_a_real_number_is_refused_by_name(bad, path):
    """Issue 42: an expert returning the string "0.3" was accepted (``float("0.3")``)."""
    X, y = _stream(T=5)
    mix = Mixture([_Constant(0.5), _Constant(bad)], meta=ok.EWA())
    with pytest.raises(TypeError, match=r"learners\[1\] \(_Constant\).* not a real number"):
        mix.predict_one(X[0]) if path == "predict_one" else mix.run(X, y)
    assert _seen(mix) == ([0, 0], 0, 0)


# ------------------------------------------------------------------------------ ML-Poly's bound (issue 41)
def _mlpoly_case(T, N, seed, kind):
    rng = np.random.default_rng(seed)
    if kind == "scaled":              # any scale, one expert close to the labels
        y = rng.normal(size=T) * 10.0 ** rng.uniform(-3, 3)
        Z = y[:, None] + rng.normal(size=(T, N)) * rng.uniform(0.0, 3.0, N) * np.std(y)
    elif kind == "jumps":             # the scale jumps from step to step
        s = 10.0 ** rng.uniform(-3, 3, T)
        y, Z = rng.normal(size=T) * s, rng.normal(size=(T, N)) * s[:, None]
    elif kind == "binary":            # adversarial-looking 0/1 sequences
        Z, y = rng.choice([0.0, 1.0], size=(T, N)), rng.choice([0.0, 1.0], size=T)
    else:                             # ties first (regrets of rounding size), then the experts differ
        Z = np.repeat(rng.normal(size=(T, 1)), N, axis=1)
        Z[T // 2:] += rng.normal(size=(T - T // 2, N))
        y = rng.normal(size=T)
    return Z, y


@settings(deadline=None, max_examples=60)
@given(T=st.integers(1, 60), N=st.integers(2, 5), seed=st.integers(0, 10 ** 6),
       kind=st.sampled_from(["scaled", "jumps", "binary", "ties"]), truncated=st.booleans())
def test_mlpoly_bound_holds_against_every_expert_on_random_streams(T, N, seed, kind, truncated):
    """Gaillard, Stoltz & van Erven (2014), ML-Poly's bound as restated for opera's rates
    (``omkl_core.bounds.mlpoly_potential_bound``): for every expert k, regret_k <= sqrt((S_k + B) C) -
    sum (yhat - zbar_k)^2, on any stream (no label range assumed), truncated or not."""
    Z, y = _mlpoly_case(T, N, seed, kind)
    meta = ok.MLPoly(bounds=(0.0, 1.0) if truncated else None)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pred = meta.clone().run(Z, y)
    rows = meta.stated_bounds(Z, y, pred)
    assert len(rows) == N and all(r.holds for r in rows), [(r.lhs, r.bound) for r in rows]
    Zb = Z if not truncated else np.clip(Z, 0.0, 1.0)
    regret = np.sum((pred - y) ** 2) - np.sum((Zb - y[:, None]) ** 2, axis=0)
    np.testing.assert_allclose([r.lhs for r in rows], regret, rtol=1e-9, atol=1e-9 * (1 + np.sum((pred - y) ** 2)))


def test_mlpoly_bound_holds_inside_the_default_mixture_with_sleeping_experts():
    """The bound on a Mixture whose experts abstain (sleeping): against every expert, the running mean
    included, on a raw stream (target units)."""
    X, y = _stream(T=300, seed=8)
    y = 250.0 + 40.0 * y
    learners = {"running mean": ok.RunningMean(), "sleepy": _Sleepy(0.3, 5), "ridge": ok.OnlineRidge(fit_intercept=True),
                "last": ok.LastValue()}
    rep = Mixture(learners).summary(X, y)
    assert [r.expert for r in rep.bounds] == [0, 1, 2, 3] and rep.all_hold is True
    assert rep.bounds[0].comparator == "expert" and rep.expert_names[0] == "running mean"


def test_mlpoly_bound_is_informative_a_non_learning_average_violates_it():
    """The bound is checked where it means something: on the same stream the uniform average of the
    experts (no learning) breaks it against the good expert."""
    rng = np.random.default_rng(3)
    T = 400
    y = rng.normal(size=T)
    Z = np.column_stack([y + 0.05 * rng.normal(size=T), rng.normal(size=T), rng.normal(size=T) + 2.0])
    good = bounds.mlpoly_potential_bound(Z, y, ok.MLPoly(bounds=None).run(Z, y))
    assert np.all(good.regret <= good.bound)
    bad = bounds.mlpoly_potential_bound(Z, y, Z.mean(axis=1))
    assert bad.regret[0] > bad.bound[0] + 1.0


def test_mlpoly_bound_formula_pinned_exactly_on_a_tiny_stream():
    """Every factor of the bound pinned by an exact (Fraction) evaluation on T = 3, N = 2: r, S, B,
    the rates 1/(S + B), C by its recursion (both branches), sqrt((S_k + B) C) - curvature."""
    from fractions import Fraction as F
    Z = [[F(0), F(1)], [F(1), F(0)], [F(2), F(1)]]
    y = [F(1, 2), F(1), F(3, 2)]
    pred = [F(1, 4), F(3, 4), F(5, 4)]                 # any forecasts: the bound is a function of the run
    T, N = 3, 2
    r = [[2 * (pred[t] - y[t]) * (pred[t] - Z[t][k]) for k in range(N)] for t in range(T)]
    S = [[sum(r[s][k] ** 2 for s in range(t + 1)) for k in range(N)] for t in range(T)]
    R = [[sum(r[s][k] for s in range(t + 1)) for k in range(N)] for t in range(T)]
    B = [max(r[s][k] ** 2 for s in range(t + 1) for k in range(N)) for t in range(T)]
    C = F(0)
    for t in range(T):
        Sp = [F(0)] * N if t == 0 else S[t - 1]
        Bp = F(0) if t == 0 else B[t - 1]
        Rp = [F(0)] * N if t == 0 else R[t - 1]
        eta_next = [1 / (S[t][k] + B[t]) for k in range(N)]
        eta_t = [None if Sp[k] + Bp == 0 else 1 / (Sp[k] + Bp) for k in range(N)]
        c = sum((eta_t[k] if Rp[k] > 0 else eta_next[k]) * r[t][k] ** 2 for k in range(N))
        if t == 0:                                     # eta_1 = e^700: rho_1 ~ 0, the restart branch is 2 sum eta_2 r^2
            C = min(C + c, 2 * sum(eta_next[k] * r[t][k] ** 2 for k in range(N)))
        else:
            rho = max(eta_next[k] / eta_t[k] for k in range(N))
            C = min(C + c, 2 * rho * C + 2 * sum(eta_next[k] * r[t][k] ** 2 for k in range(N)))
    curv = [sum((pred[t] - Z[t][k]) ** 2 for t in range(T)) for k in range(N)]
    pot = bounds.mlpoly_potential_bound(np.array(Z, float), np.array(y, float), np.array(pred, float))
    assert pot.C == pytest.approx(float(C), rel=1e-12)
    want = [float(C * (S[-1][k] + B[-1])) ** 0.5 - float(curv[k]) for k in range(N)]
    np.testing.assert_allclose(pot.bound, want, rtol=1e-12)
    np.testing.assert_allclose(pot.regret, [float(sum((pred[t] - y[t]) ** 2 - (Z[t][k] - y[t]) ** 2
                                                      for t in range(T))) for k in range(N)], rtol=1e-12)


def test_default_mixture_holds_the_running_mean_so_its_bound_covers_it():
    """Issue 41: ``Mixture()`` (the default of the library and of ``omkl run --csv F``) holds the running
    mean among its experts and aggregates in the target's units (no truncation), so ML-Poly's bound is a
    bound against the mean too; on a raw stream (labels ~ 500) it holds and the mixture beats the mean."""
    mix = Mixture()
    assert mix.expert_names_[0] == "running mean" and isinstance(mix.learners_[0], ok.RunningMean)
    assert isinstance(mix.meta_, ok.MLPoly) and mix.meta_.bounds is None
    X, y = _stream(T=250, seed=9)
    y = 500.0 + 100.0 * y
    rep = mix.summary(X, y)
    row = [b for b in rep.bounds if b.expert == 0][0]
    assert row.holds and rep.abstained[0] == 1                       # the mean abstains at t = 1 only
    mean = ok.run_online(ok.RunningMean(), X, y).mse
    assert rep.loss < mean
    assert row.lhs == pytest.approx(rep.T * (rep.loss - rep.expert_losses[0]), rel=1e-9)
    checks.check_learner(Mixture())
