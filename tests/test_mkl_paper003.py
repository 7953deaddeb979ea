"""Unit tests of paper 003's building blocks: the kernel dissimilarity (eq. 7) against numerical
quadrature in d = 1 and 2, the feedback graph and greedy dominating set against brute force,
and the learners (Raker, OMKR, OMKL-GF, SFG-MKL, SFG-MKL-R) against plain reference loops
written here."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import scipy.integrate as si
from hypothesis import given, settings
from hypothesis import strategies as st

import omkl_core as ok
from omkl_core.kernels import dissimilarity, dissimilarity_matrix, log_dissimilarity
from omkl_core.mkl import OMKLGF, OMKR, SFGMKL, SFGMKLR, Raker, feedback_graph
from omkl_core.mkl.graph import adjacency, greedy_dominating_set, is_dominating

KIND = st.sampled_from(["gaussian", "laplacian"])
SIG = st.floats(0.05, 5.0)


def _k1(kind, s):
    return (lambda r: np.exp(-r * r / (2 * s * s))) if kind == "gaussian" else (lambda r: np.exp(-np.abs(r) / s))


def _stream(T=40, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(T, d))
    X /= np.linalg.norm(X, axis=1).max()
    y = np.clip(0.5 + 0.4 * np.sin(3 * X[:, 0]) + 0.05 * rng.standard_normal(T), 0, 1)
    return X, y


# ---------------------------------------------------------------------- dissimilarity (eq. 7)
@given(KIND, SIG, KIND, SIG)
def test_dissimilarity_closed_form_matches_quadrature_d1(ki, si_, kj, sj):
    """Delta = int_R (k_i - k_j)^2 for all three pair types vs adaptive quadrature on [0, inf)
    (the integrand is even); relative 1e-7."""
    fi, fj = _k1(ki, si_), _k1(kj, sj)
    quad = 2 * si.quad(lambda r: (fi(r) - fj(r)) ** 2, 0, np.inf, limit=400, epsabs=1e-13, epsrel=1e-11)[0]
    closed = dissimilarity(ki, si_, kj, sj, 1)
    assert closed == pytest.approx(quad, rel=1e-7, abs=1e-12)


@settings(max_examples=8)
@given(KIND, st.floats(0.2, 2.0), KIND, st.floats(0.2, 2.0))
def test_dissimilarity_closed_form_matches_quadrature_d2(ki, si_, kj, sj):
    """d = 2: a genuine 2-D quadrature of (k_i(r) - k_j(r))^2 with the d-dimensional kernels of
    ``omkl_core.kernels`` (|r|_2^2 for the Gaussian, |r|_1 for the Laplacian), over the quadrant
    [0, 40 max sigma]^2 times 4 (tail < e^-40); this checks the product form a^d + b^d - 2c^d."""
    def k(kind, s, r):
        z = np.zeros(2)
        return ok.kernels.gaussian(r, z, s) if kind == "gaussian" else ok.kernels.laplacian(r, z, s)
    Lb = 40 * max(si_, sj)
    val = si.dblquad(lambda b, a: float((k(ki, si_, np.array([a, b])) - k(kj, sj, np.array([a, b]))) ** 2),
                     0, Lb, 0, Lb, epsabs=1e-10, epsrel=1e-8)[0] * 4
    assert dissimilarity(ki, si_, kj, sj, 2) == pytest.approx(val, rel=1e-5, abs=1e-9)


@given(KIND, SIG, KIND, SIG, st.integers(1, 400))
def test_dissimilarity_log_space_finite_symmetric(ki, si_, kj, sj, d):
    """log Delta is finite (or -inf for identical kernels) even where a^d overflows, symmetric,
    and equals the direct formula where that is representable."""
    lv = log_dissimilarity(ki, si_, kj, sj, d)
    assert lv == pytest.approx(log_dissimilarity(kj, sj, ki, si_, d), rel=1e-12, abs=1e-12)
    if ki == kj and si_ == sj:
        assert lv == -math.inf
        return
    assert math.isfinite(lv)
    if d <= 3:
        direct = dissimilarity(ki, si_, kj, sj, d)
        assert math.log(direct) == pytest.approx(lv, rel=1e-9, abs=1e-9)


def test_dissimilarity_large_d_dominant_term():
    """d = 300, sigma = 10 vs 0.1: Delta ~ (sqrt(pi) 10)^d overflows float64, its log does not."""
    lv = log_dissimilarity("gaussian", 10.0, "gaussian", 0.1, 300)
    assert lv == pytest.approx(300 * math.log(math.sqrt(math.pi) * 10.0), rel=1e-12)
    assert dissimilarity("gaussian", 10.0, "gaussian", 0.1, 300) == math.inf


def test_dissimilarity_matrix_equals_scalar_and_validation():
    kinds = ["gaussian", "laplacian", "gaussian", "laplacian"]
    sig = [0.3, 0.7, 2.0, 4.0]
    M = dissimilarity_matrix(kinds, sig, 3)
    for i, j in itertools.product(range(4), repeat=2):
        assert M[i, j] == pytest.approx(dissimilarity(kinds[i], sig[i], kinds[j], sig[j], 3), rel=1e-10, abs=0)
    with pytest.raises(ValueError, match="kind_i"):
        dissimilarity("cauchy", 1.0, "gaussian", 1.0, 1)
    with pytest.raises(ValueError, match="sigma_j"):
        dissimilarity("gaussian", 1.0, "gaussian", -1.0, 1)
    with pytest.raises(ValueError, match="d"):
        dissimilarity("gaussian", 1.0, "gaussian", 2.0, 0)


# ---------------------------------------------------------------------- graph
def _brute_min_dominating(A):
    N = A.shape[0]
    for size in range(1, N + 1):
        for D in itertools.combinations(range(N), size):
            if A[list(D)].any(axis=0).all():
                return size
    return N


@given(st.integers(2, 8), st.integers(1, 8), st.integers(0, 2**31 - 1))
def test_greedy_dominating_set_against_brute_force(N, M, seed):
    """Chvatal's greedy cover dominates every node, is never smaller than the minimum dominating
    set (brute force), and is within H(M) of it (Chvatal 1979); each pick covers the most nodes."""
    M = min(M, N)
    rng = np.random.default_rng(seed)
    delta = rng.uniform(size=(N, N))
    delta = delta + delta.T
    out, D = feedback_graph(delta, M)
    A = adjacency(out, N)
    assert is_dominating(A, D)
    opt = _brute_min_dominating(A)
    assert opt <= D.size <= sum(1 / k for k in range(1, M + 1)) * opt + 1e-12
    # replay the greedy rule independently
    uncovered, picks = set(range(N)), []
    while uncovered:
        gains = [len(set(out[j]) & uncovered) for j in range(N)]
        j = int(np.argmax(gains))
        picks.append(j)
        uncovered -= set(out[j])
    assert sorted(picks) == list(D)


def test_feedback_graph_validation():
    with pytest.raises(ValueError, match="M"):
        feedback_graph(np.zeros((3, 3)), 4)
    with pytest.raises(ValueError, match="square"):
        feedback_graph(np.zeros((3, 2)), 1)
    with pytest.raises(ValueError, match="no in-edge"):
        greedy_dominating_set(np.zeros((2, 2), dtype=bool))


# ---------------------------------------------------------------------- learners vs reference loops
def _z(D, x):
    return D.transform(x)                                        # (N, 2D): features.py's own map


def test_raker_matches_reference_loop():
    """Raker (reference D.1) against a per-kernel Python loop written from the formulas."""
    X, y = _stream(30)
    model = Raker(m=5, lam=0.01, eta=0.3, seed=2, dictionary=(["gaussian", "laplacian", "gaussian"], [0.3, 1.0, 3.0]))
    P = model.run(X, y)
    D = model.dictionaries_[0]
    theta, w = np.zeros((3, 10)), np.ones(3)
    for t in range(30):
        Z = _z(D, X[t])
        f = [theta[k] @ Z[k] for k in range(3)]
        assert P[t] == pytest.approx(sum(w[k] * f[k] for k in range(3)) / w.sum(), rel=1e-10, abs=1e-12)
        for k in range(3):
            L = (f[k] - y[t]) ** 2 + 0.01 * theta[k] @ theta[k]
            theta[k] = theta[k] - 0.3 * (2 * (f[k] - y[t]) * Z[k] + 2 * 0.01 * theta[k])
            w[k] *= math.exp(-0.3 * L)


def test_omkr_matches_reference_loop_and_grows_geometrically():
    """OMKR (reference D.2) against a loop over kernels and past points; 'code' bandwidth too."""
    X, y = _stream(150, d=2)
    for bandwidth, factor in (("text", 2.0), ("code", 1.0)):
        sig = [0.2, 0.5, 1.5]
        model = OMKR(eta=0.2, sigmas=sig, bandwidth=bandwidth)
        P = model.run(X, y)
        c, w, past = [[] for _ in sig], np.ones(3), []
        for t in range(150):
            f = [sum(c[k][s] * math.exp(-np.sum((X[t] - past[s]) ** 2) / (factor * sig[k] ** 2)) for s in range(t))
                 for k in range(3)]
            assert P[t] == pytest.approx(np.dot(w, f) / w.sum(), rel=1e-9, abs=1e-12)
            for k in range(3):
                c[k].append(-0.2 * (f[k] - y[t]))
                w[k] *= 0.5 ** ((f[k] - y[t]) ** 2)
            past.append(X[t])
        assert model._X.shape[0] == 256 and model.X_.shape == (150, 2)


def test_omkl_gf_inclusion_probability():
    """OMKL-GF (J = 1): q_k = 1 - (1 - pi_k)^M is the inclusion probability of the learner's own
    draws (Monte Carlo over 4000 batched repetitions of one step, 5 standard errors)."""
    X, y = _stream(3)
    model = OMKLGF(m=3, eta=0.3, M=4, seed=5, dictionary=(["gaussian"] * 6, [0.2, 0.4, 0.8, 1.6, 3.2, 6.4]))
    model.run_repetitions(X[:2], y[:2], 4000)
    st_ = model._predict_step(X[2])
    incl = np.zeros((4000, 6), dtype=bool)
    incl[np.arange(4000)[:, None], st_.idx] = st_.valid
    freq, q = incl.mean(axis=0), st_.q.mean(axis=0)
    se = np.sqrt(q * (1 - q) / 4000)
    assert np.all(np.abs(freq - q) <= 5 * se + 1e-12)
    wrong = 1 - (1 - st_.q.mean(axis=0)) ** 1.5     # a plausible wrong exponent is detected
    assert np.any(np.abs(freq - wrong) > 5 * se)


def test_sfg_updates_only_the_chosen_subset_and_switches_to_argmax():
    """SFG-MKL: per step only theta, w of S_t = N_{I_t}^out change; after ``greedy_after`` steps
    I_t = argmax_i u_{i,t} (section 5)."""
    X, y = _stream(30)
    model = SFGMKL(m=4, eta=0.2, xi=0.2, M=3, greedy_after=12, seed=1)
    for t in range(30):
        before_th, before_w = model.theta_.copy() if model.dictionaries_ else None, \
            model.log_w_.copy() if model.dictionaries_ else None
        log_u = model.sampling_.log_u.copy() if model.dictionaries_ else None
        model.predict_one(X[t])
        model.learn_one(X[t], y[t])
        s = model.last_step_
        S = set(model.out_neighbours_[s.node[0]])
        assert len(S) == 3
        if before_th is not None:
            changed = set(np.flatnonzero(np.any(model.theta_[0] != before_th[0], axis=1)))
            assert changed <= S
            assert set(np.flatnonzero(model.log_w_[0] != before_w[0])) <= S
            if t >= 12:
                assert s.node[0] == int(np.argmax(log_u[0]))


@pytest.mark.parametrize("cls", [Raker, OMKLGF, SFGMKL, SFGMKLR])
def test_batched_repetitions_reproducible_and_distinct(cls):
    X, y = _stream(25)
    a = cls(m=3, eta=0.2, seed=4).run_repetitions(X, y, 3)
    b = cls(m=3, eta=0.2, seed=4).run_repetitions(X, y, 3)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a[0], a[1])


@pytest.mark.parametrize("bad", [dict(eta=0.0), dict(eta=float("nan")), dict(m=0), dict(lam=-1.0),
                                 dict(schedule="fast"), dict(seed=-1), dict(dictionary="gaussian")])
def test_sfg_constructor_rejects_bad_arguments(bad):
    name = next(iter(bad))
    with pytest.raises((ValueError, TypeError), match=name if name != "dictionary" else "dictionary"):
        SFGMKL(**bad)


def test_specific_arguments_rejected():
    with pytest.raises(ValueError, match="xi"):
        SFGMKL(xi=0.0)
    with pytest.raises(ValueError, match="beta"):
        SFGMKLR(beta=1.5)
    with pytest.raises(TypeError, match="clip"):
        SFGMKL(clip=0.1)
    with pytest.raises(ValueError, match="q_clip"):
        OMKLGF(q_clip=1.0)
    with pytest.raises(ValueError, match="bandwidth"):
        OMKR(bandwidth="wide")
    with pytest.raises(ValueError, match="M must be <= N"):
        SFGMKL(M=50).predict_one(np.zeros(2))


def test_paper003_dictionary_grid():
    kinds, sig = ok.features.paper003_sigmas()
    assert len(kinds) == 41 and set(kinds) == {"gaussian"}
    np.testing.assert_allclose(sig ** 2, 10.0 ** ((np.arange(1, 42) - 21) / 10))
    D = ok.paper003_dictionary(d=4, m=50, seed=0)
    assert D.n_features == 100 and D.feature_map == "sincos"
    np.testing.assert_allclose(np.linalg.norm(D.transform(np.ones(4) / 2), axis=1), 1.0)
