"""One pairing of experts and meta-learner (issue 30 item 5; paper 000 section 3).

The VAW family (paper 000 Theorem 2 / section 4: VAW experts on N kernels' random features,
eqs. (9)-(10), + a meta-learner on z_t) and :class:`omkl_core.Mixture` (any experts + any
meta-learner) are the same two-level procedure, :class:`omkl_core.pairing.Pairing`.  Checked
here numerically: a VAW-family learner gives the forecasts of a ``Mixture`` whose experts are
its N kernel experts run one by one (VAW on kernel j's random features) and whose meta-learner
is the row's, written out here from paper 000 section 4 -- and both are the meta-learner run
on the experts' forecasts made alone (predict-then-learn), so a fault shared by both through
the common base (an expert that sees y_t, a meta-learner fed the wrong z_t) fails too.
"""
from __future__ import annotations

import copy

import numpy as np
import pytest

import omkl_core as ok
from omkl_core import mkl, registry

# exact_fp: this file compares floating-point results exactly (two paths that run the same operations in
# the same order by construction); .ci/run runs it again under each OpenBLAS kernel the CPU can run
pytestmark = pytest.mark.exact_fp

#: five kernels (both kinds), m = 4 random features each: a small dictionary of paper 000's kind
DIC = (["gaussian", "laplacian", "gaussian", "laplacian", "gaussian"], [0.3, 0.5, 1.0, 2.0, 0.1])
M, SEED = 4, 3

#: row -> (class, parameters, the meta-learner of paper 000 section 4 written out): VAW on z_t
#: with lambda = 1 (Theorem 2), every other rule on zbar_t = clip(z_t, 0, 1) (eq. 28)
ROWS = {
    "VAW2": (ok.VAW2, {}, lambda: ok.VAWMeta(lam=1.0)),
    "VAW2 (trunc)": (ok.VAW2, {"truncate": True}, lambda: ok.VAWMeta(lam=1.0, bounds=(0, 1))),
    "VAW-Aggr": (ok.VAWAggr, {}, lambda: ok.AggregatingAlgorithm(bounds=(0, 1))),
    "VAW-EWA": (ok.VAWEWA, {}, lambda: ok.EWA(bounds=(0, 1))),
    "VAW-BOA": (ok.VAWBOA, {}, lambda: ok.BOA(version="v120", bounds=(0, 1))),
    "VAW-ML-Poly": (ok.VAWMLPoly, {}, lambda: ok.MLPoly(bounds=(0, 1))),
    "VAW-ML-Prod": (ok.VAWMLProd, {}, lambda: ok.MLProd(bounds=(0, 1))),
    "VAW-EWA [opera calibrated]": (ok.VAWEWA, {"calibrated": True}, lambda: ok.CalibratedEWA(bounds=(0, 1))),
}
#: further settings of the same classes (not Table 2 rows)
MORE = {
    "VAW2 [TVAW: ridge at both levels]": (ok.VAW2, {"ridge": True, "meta_ridge": True},
                                          lambda: ok.VAWMeta(lam=1.0, ridge=True)),
    "VAW2 [lam_meta = 0.5]": (ok.VAW2, {"lam_meta": 0.5}, lambda: ok.VAWMeta(lam=0.5)),
    "VAW-EWA [gradient, eta = 0.7]": (ok.VAWEWA, {"gradient": True, "eta": 0.7},
                                      lambda: ok.EWA(eta=0.7, gradient=True, bounds=(0, 1))),
    "VAW-Aggr [eta = 1]": (ok.VAWAggr, {"eta": 1.0}, lambda: ok.AggregatingAlgorithm(eta=1.0, bounds=(0, 1))),
    "VAW-BOA [v122]": (ok.VAWBOA, {"version": "v122"}, lambda: ok.BOA(version="v122", bounds=(0, 1))),
}


class _KernelExpert:
    """Expert j of the VAW family on its own: one VAW forecaster (eqs. 9-10; online ridge with
    ``ridge=True``) on kernel j's random features Phi_{theta_j}(x) (a plain object: the mixture
    copies it with ``copy.deepcopy``)."""

    def __init__(self, dictionary, j: int, ridge: bool = False):
        self.dictionary, self.j, self.vaw = dictionary, j, ok.VAW(1.0, ridge=ridge)

    def predict_one(self, x):
        return self.vaw.predict_one(self.dictionary.transform(x)[self.j])

    def learn_one(self, x, y):
        self.vaw.learn_one(self.dictionary.transform(x)[self.j], y)


def _stream(T=90):
    X, y = ok.datasets.load("airfoil")
    return X[:T], y[:T]


def _kernel_experts(d: int, ridge: bool) -> list:
    # the features a VAW-family learner with seed=SEED draws (repetition 0 of host_rng(SEED))
    D = ok.KernelDictionary(*DIC, d=d, m=M, seed=ok.backend.host_rng(SEED))
    return [_KernelExpert(D, j, ridge) for j in range(D.N)]


def _alone(experts, X, y):
    """Z (T, N): each expert run by itself (a fresh copy), predict then learn."""
    Z = np.empty((len(y), len(experts)))
    for j, template in enumerate(experts):
        e = copy.deepcopy(template)
        for t in range(len(y)):
            Z[t, j] = e.predict_one(X[t])
            e.learn_one(X[t], float(y[t]))
    return Z


def _meta_loop(meta, Z, y):
    """The meta-learner alone over the forecasts Z: predict_one then learn_one, step by step."""
    preds = np.empty(len(y))
    for t in range(len(y)):
        preds[t] = meta.predict_one(Z[t])
        meta.learn_one(Z[t], float(y[t]))
    return preds


@pytest.mark.parametrize("row", [*ROWS, *MORE])
def test_vaw_family_is_the_mixture_of_its_kernel_experts_under_the_rows_meta_learner(row):
    """predict_one / learn_one: the VAW-family learner, Mixture(its N kernel experts, the row's
    meta-learner) and that meta-learner over the experts' forecasts made alone give the same
    forecasts, weights and z_t at every step, bit for bit (also when another point is forecast
    between two steps)."""
    cls, kw, meta = {**ROWS, **MORE}[row]
    X, y = _stream()
    family = cls(m=M, seed=SEED, dictionary=DIC, **kw)
    experts = _kernel_experts(X.shape[1], kw.get("ridge", False))
    mix = ok.Mixture(experts, meta=meta())
    Z = _alone(experts, X, y)
    reference = _meta_loop(meta(), Z, y)
    for t in range(len(y)):
        family.predict_one(X[-1 - t])               # a forecast of another point changes no state
        mix.predict_one(X[-1 - t])
        f, g = family.predict_one(X[t]), mix.predict_one(X[t])
        assert f == g == reference[t], f"step {t + 1}: VAW family {f!r}, Mixture {g!r}, meta alone {reference[t]!r}"
        family.learn_one(X[t], y[t])
        mix.learn_one(X[t], y[t])
        np.testing.assert_array_equal(family.expert_predictions_, Z[t])
        np.testing.assert_array_equal(mix.expert_predictions_, Z[t])
        np.testing.assert_array_equal(family.weights_, mix.weights_)
    assert family.t_ == mix.t_ == len(y)


@pytest.mark.parametrize("row", list(ROWS))
def test_vaw_family_run_is_the_mixture_run_of_its_kernel_experts(row):
    """``run`` (the experts' whole stream, then the meta-learner's run) in two pieces: the VAW
    family's expert layer runs block-wise (batched VAW: the same forecasts to rounding), the
    mixture's experts one step at a time; the same forecasts, last z_t and weights."""
    cls, kw, meta = ROWS[row]
    X, y = _stream()
    family = cls(m=M, seed=SEED, dictionary=DIC, **kw)
    mix = ok.Mixture(_kernel_experts(X.shape[1], False), meta=meta())
    f = np.concatenate([family.run(X[:64], y[:64]), family.run(X[64:], y[64:])])
    g = np.concatenate([mix.run(X[:64], y[:64]), mix.run(X[64:], y[64:])])
    Z = _alone(_kernel_experts(X.shape[1], False), X, y)
    reference = _meta_loop(meta(), Z, y)
    np.testing.assert_allclose(f, reference, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(g, reference, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(family.expert_predictions_, Z[-1], rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(mix.expert_predictions_, Z[-1])
    np.testing.assert_allclose(family.weights_, mix.weights_, rtol=1e-8, atol=1e-10)
    assert family.t_ == mix.t_ == len(y)


@pytest.mark.parametrize("row", list(ROWS))
def test_make_meta_is_the_rows_class_meta_learner(row):
    """mkl.make_meta(row) is the meta-learner of the row's class (registry.paper000.vaw_rows),
    the one paper 000 section 4 names."""
    cls, kw, meta = ROWS[row]
    name, params = registry.paper000.vaw_rows()[row]
    assert registry.learners()[name] is cls
    assert {k: params[k] for k in kw} == kw
    assert repr(mkl.make_meta(row)) == repr(meta()) == repr(cls(**kw).meta_)
    assert list(registry.paper000.vaw_rows("text")) == mkl.TABLE2_ROWS
    assert list(registry.paper000.vaw_rows("code")) == mkl.VARIANT_META


def test_make_meta_takes_only_the_meta_learners_parameters():
    assert mkl.make_meta("VAW2", meta_ridge=True).ridge is True
    assert mkl.make_meta("VAW-EWA", eta=0.5).eta == 0.5
    with pytest.raises(TypeError, match="m"):
        mkl.make_meta("VAW-EWA", m=3)               # an expert-layer parameter, not the meta-learner's
    with pytest.raises(ValueError, match="eta must be None when calibrated"):
        mkl.make_meta("VAW-EWA [opera calibrated]", eta=0.5)
    with pytest.raises(ValueError, match="unknown algorithm 'VAW-XYZ'"):
        mkl.make_meta("VAW-XYZ")
    with pytest.raises(ValueError, match="form"):
        registry.paper000.vaw_rows("paper")
