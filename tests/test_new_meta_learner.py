"""Issue 40: the public extension protocol -- a new meta-learner needs its own file and one export line.

The rule below is written to a module of its own (a temporary file, as a user would write it), imported,
and registered with ONE line, ``omkl_core.registry.register(UniformAverage)``; nothing else in the package
is edited.  Then the registry (``learners``, ``learner_info`` with input "experts"), ``Mixture(meta=...)``,
:func:`omkl_core.regret.regret_report` (its declared bound evaluated), ``Mixture.summary`` and the command
line (``omkl run NAME --forecasts --regret``, ``omkl run Mixture --meta NAME``, ``omkl models`` and the
help's list of meta-learners) all accept it.

Before issue 40 this took the rule's file plus edits of ``regret.stated_bounds`` (an ``isinstance`` chain:
"not a meta-learner"), ``registry.takes_expert_predictions`` (``issubclass(cls, _MetaLearner)``),
``mixture._check_meta``'s and the CLI's typed name lists.

The second part: a wrapper forwards the protocol of what it wraps (``may_abstain``, ``run_alignment``,
the label range) through :class:`omkl_core.base.Wrapper`, once.
"""
from __future__ import annotations

import importlib.util
import sys
import textwrap
import warnings

import numpy as np
import pytest

import omkl_core as ok
from omkl_core import cli, registry
from omkl_core.base import MetaLearner, Wrapper, marked_abstentions, may_abstain_of, run_alignment_of

#: The whole rule: a file of its own (about 20 lines of code), subclassing the public MetaLearner.
RULE = '''
"""The uniform average of the experts' forecasts and the bound it carries (Jensen's inequality)."""
import numpy as np

from omkl_core.base import MetaLearner
from omkl_core.bounds.aggregation import bound_row


class UniformAverage(MetaLearner):
    """The uniform average of N experts' forecasts: yhat_t = (1/N) sum_j z_t,j."""

    convex_weights = True
    regret_bound = {"name": "Jensen's inequality for the uniform average", "source": "convexity of the square loss",
                    "where": "Jensen's inequality", "statement": "sum_t (yhat_t - y_t)^2 <= (1/N) sum_j sum_t (z_t,j - y_t)^2",
                    "symbols": "N experts; the right side is the experts' mean summed square loss", "assumes": "nothing"}

    def __init__(self, n_experts=None):
        self.n_experts = n_experts
        super().__init__()

    @property
    def weights_(self):
        return None if self.n_experts is None else np.full(self.n_experts, 1.0 / self.n_experts)

    def predict_one(self, z):
        return float(np.mean(z))

    def learn_one(self, z, y):
        self.t_ += 1

    def stated_bounds(self, Z, y, predictions, *, expert_layer=None):
        lhs, rhs = float(np.sum((predictions - y) ** 2)), float(np.mean(np.sum((Z - y[:, None]) ** 2, axis=0)))
        return [bound_row("Jensen's inequality", "the average expert", lhs, rhs, "sum (yhat-y)^2")]
'''


@pytest.fixture
def rule(tmp_path):
    """The rule's module imported from its own file, and registered by the one export line."""
    path = tmp_path / "uniform_average.py"
    path.write_text(textwrap.dedent(RULE))
    spec = importlib.util.spec_from_file_location("uniform_average", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    registry.register(module.UniformAverage)                     # the one export line
    try:
        yield module.UniformAverage
    finally:
        registry.unregister("UniformAverage")
        sys.modules.pop("uniform_average", None)


def _experts(T=200, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.uniform(0.0, 1.0, T)
    Z = y[:, None] + rng.normal(0.0, [0.05, 0.2, 0.4], (T, 3))
    return Z, y


def test_a_new_rule_in_its_own_file_with_one_export_line_is_a_meta_learner_everywhere(rule, tmp_path, capsys):
    # the registry: found by name, reads expert forecasts, buildable by plain values
    assert registry.learners()["UniformAverage"] is rule
    info = registry.learner_info("UniformAverage")
    assert info.input == "experts" and info.buildable
    assert registry.takes_expert_predictions(rule)

    # regret_report: a rule (input_kind "experts"), its declared bound evaluated, printed with its name
    Z, y = _experts()
    rep = ok.regret.regret_report(rule(), Z, y)
    assert rep.rule_bound.name == "Jensen's inequality for the uniform average"
    assert [b.equation for b in rep.bounds] == ["Jensen's inequality"] and rep.bounds[0].holds is True
    np.testing.assert_allclose(rep.loss, np.mean((Z.mean(axis=1) - y) ** 2), rtol=1e-12)
    assert "Jensen's inequality for the uniform average" in str(rep)
    assert ok.regret.aggregates_experts(rule())

    # Mixture(meta=...): accepted, cloned with n_experts=N, its bound in summary()
    X = np.linspace(-1.0, 1.0, 2 * 150).reshape(150, 2)
    yx = X @ np.array([0.5, -0.25]) + 0.1
    mix = ok.Mixture([ok.OnlineRidge(a=1.0, fit_intercept=True), ok.RunningMean()], meta=rule())
    preds = mix.run(X, yx)
    assert type(mix.meta_) is rule and mix.meta_.n_experts == 2 and mix.n_abstained_.tolist() == [0, 1]
    assert np.all(np.isfinite(preds))
    summary = mix.summary(X, yx)
    assert summary.rule_bound is rule.regret_bound and summary.bounds[0].holds is True

    # the command line: omkl run NAME --forecasts --regret on a CSV of expert forecasts
    csv = tmp_path / "experts.csv"
    csv.write_text("a,b,c,y\n" + "".join(",".join(repr(float(v)) for v in row) + "\n" for row in np.c_[Z, y]))
    assert cli.main(["run", "UniformAverage", "--csv", str(csv), "--forecasts", "--regret"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("UniformAverage: T=200") and "Jensen's inequality for the uniform average" in out
    assert "against the average expert" in out and "holds with margin" in out

    # omkl run Mixture --meta NAME (the name list of --meta is the registry's), and omkl models
    raw = tmp_path / "raw.csv"
    raw.write_text("x0,x1,y\n" + "".join(",".join(repr(float(v)) for v in row) + "\n" for row in np.c_[X, yx]))
    assert cli.main(["run", "Mixture", "--csv", str(raw), "--expert", "OnlineRidge", "--expert", "RunningMean",
                     "--meta", "UniformAverage", "--regret"]) == 0
    out = capsys.readouterr().out
    assert "meta-learner: UniformAverage()" in out and "its bound: Jensen's inequality" in out
    assert cli.main(["models"]) == 0
    assert any(ln.split()[:1] == ["UniformAverage"] and "expert" in ln for ln in capsys.readouterr().out.splitlines())
    help_text = cli.build_parser()._subparsers._group_actions[0].choices["run"].format_help()
    assert "UniformAverage" in help_text.replace("\n", " ")


def test_regret_asks_the_rule_not_a_list_of_rules(rule):
    """The rows of regret.stated_bounds are the rule's own, for a rule the package never heard of;
    a learner on features is not a rule (its input_kind)."""
    Z, y = _experts(T=50)
    pred = Z.mean(axis=1)
    rows = ok.regret.stated_bounds(rule(), Z, y, pred)
    assert rows == rule().stated_bounds(Z, y, pred)
    assert ok.regret.stated_bounds(ok.OnlineRidge(), Z, y, pred)[0].holds is None


def test_a_rule_without_a_bound_says_why_in_one_row():
    class Median(MetaLearner):
        no_bound_reason = "the median of the forecasts carries no bound here"

        def predict_one(self, z):
            return float(np.median(z))

        def learn_one(self, z, y):
            self.t_ += 1

    Z, y = _experts(T=30)
    rep = ok.regret.regret_report(Median(), Z, y)
    assert [b.holds for b in rep.bounds] == [None]
    assert rep.bounds[0].note == "Median: the median of the forecasts carries no bound here"


# ----------------------------------------------------------------------------- the wrapper forwards
def test_a_wrapped_abstaining_learner_stays_abstaining_through_every_wrapper():
    """RunningMean abstains at t = 1 (NaN in its run inside the protocol): Pipeline and TargetScaler
    forward ``may_abstain`` through Wrapper, so their runs keep the NaN as an abstention -- run_online
    scores it by the fallback f_1 = 0.0 and a Mixture sleeps the expert -- instead of refusing a NaN
    forecast; the run a user calls returns that fallback (omkl_core.base, "What run returns")."""
    X = np.linspace(0.0, 1.0, 40).reshape(20, 2)
    y = np.arange(20, dtype=np.float64)
    for model in (ok.StandardScaler() | ok.RunningMean(), ok.TargetScaler(ok.RunningMean()),
                  ok.TargetScaler(ok.StandardScaler() | ok.RunningMean())):
        assert isinstance(model, Wrapper) and model.may_abstain and may_abstain_of(model)
        with marked_abstentions():
            assert np.isnan(model.clone().run(X, y)[0])
        assert model.clone().run(X, y)[0] == 0.0
        trace = ok.run_online(model.clone(), X, y)
        assert trace.abstained.tolist() == [True] + [False] * 19 and trace.predictions[0] == 0.0
        mix = ok.Mixture([model, ok.OnlineRidge(a=1.0)], meta=ok.MLPoly(bounds=None))
        mix.run(X, y)
        assert mix.n_abstained_.tolist() == [1, 0]
    assert not (ok.StandardScaler() | ok.OnlineRidge()).may_abstain
    assert not ok.Mixture([ok.RunningMean()]).may_abstain            # the mixture answers f_t itself


def test_a_wrapper_forwards_run_alignment_and_the_label_range_of_what_it_wraps():
    vaw = ok.StandardScaler(max_norm=1.0) | ok.VAW2(m=4)
    assert run_alignment_of(vaw) == 32 and run_alignment_of(ok.TargetScaler(vaw)) == 32
    assert ok.Mixture([vaw, ok.OnlineRidge()]).run_alignment == 32
    assert ok.preprocessing.label_bounds(vaw) == (0.0, 1.0)
    assert ok.preprocessing.label_bounds(ok.TargetScaler(vaw)) is None         # labels in the target's units
    assert ok.preprocessing.label_bounds(ok.Mixture([ok.OnlineRidge()], meta=ok.EWA())) == (0.0, 1.0)


def test_a_learner_that_declares_nothing_gets_the_defaults():
    """A duck-typed learner (no base class, no protocol attribute) runs everywhere with the defaults."""

    class Last:
        def __init__(self):
            self.last = 0.0

        def predict_one(self, x):
            return self.last

        def learn_one(self, x, y):
            self.last = y

    X, y = np.zeros((10, 1)), np.arange(10, dtype=np.float64)
    assert ok.run_online(Last(), X, y).predictions.tolist() == [0.0] + list(range(9))
    assert may_abstain_of(Last()) is False and run_alignment_of(Last()) == 1
    wrapped = ok.TargetScaler(Last())
    assert wrapped.may_abstain is False and wrapped.run_alignment == 1
    assert ok.Mixture([Last(), ok.RunningMean()]).run(X, y).shape == (10,)


def test_the_private_names_of_earlier_versions_are_honoured_for_one_release_with_a_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        class Old(ok.OnlineLearner):
            _may_abstain = True
            _run_alignment = 4

            def predict_one(self, x):
                return None

            def learn_one(self, x, y):
                self.t_ += 1

    assert any(issubclass(w.category, DeprecationWarning) and "_may_abstain" in str(w.message) for w in caught)
    assert Old.may_abstain is True and Old.run_alignment == 4 and ok.TargetScaler(Old()).may_abstain
    assert ok.VAW2._run_alignment == 32 and ok.EWA._input_kind == "experts"      # old readers still work


def test_the_vaw_family_gives_regret_its_bound_constants_and_expert_names_by_declaration():
    """regret reads the VAW family's expert layer from ``bound_constants()`` and its experts' names from
    ``expert_names_`` (no isinstance of the family); the report still names the learner, not a Mixture."""
    X, y = ok.datasets.ar4(T=120, seed=0)
    model = ok.VAW2(m=4)
    assert model.bound_constants() == {"m": 4, "lam": 1.0, "vaw": True, "feature_map": "cos"}
    assert len(model.expert_names_) == 76 and model.expert_names_[0] == "j = 0 (Gaussian, sigma = 0.1)"
    rep = ok.regret.regret_report(model, X, y)
    assert rep.learner.startswith("VAW2") and rep.expert_names[0] == model.expert_names_[0]
    assert "P000 eq. (25)" in [b.equation for b in rep.bounds]              # needs the expert layer's constants
