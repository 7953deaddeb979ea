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
from omkl_core import compiled, cosine
from omkl_core.kernels import dissimilarity, dissimilarity_matrix, log_dissimilarity
from omkl_core.mkl import OMKLGF, OMKR, SFGMKL, SFGMKLR, Raker, feedback_graph
from omkl_core.mkl.graph import adjacency, greedy_dominating_set, is_dominating

# exact_fp: this file compares floating-point results exactly (two paths that run the same operations in
# the same order by construction); .ci/run runs it again under each OpenBLAS kernel the CPU can run
pytestmark = pytest.mark.exact_fp

needs_numba = pytest.mark.skipif(not compiled.numba_available(),
                                 reason="Numba is not installed (the optional omkl[fast] extra)")


@pytest.fixture
def numpy_engine():
    """Run a test on the NumPy step (the reference), whichever engine is the default."""
    with compiled.engine("numpy"):
        yield

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


# ------------------------------------------------------------------ issue 38: after the greedy switch, refinement
SMALL_DICT = (["gaussian", "gaussian", "laplacian", "gaussian", "laplacian", "gaussian"], [0.3, 0.6, 0.5, 1.2, 2.0, 3.0])


def _after_switch_step(after_switch, cls=SFGMKL, **kw):
    """A learner warmed up past ``greedy_after`` = 8 (state before step 12 kept) and the step it then takes."""
    X, y = _stream(T=14, d=2, seed=6)
    model = cls(m=3, lam=0.01, eta=0.3, xi=0.2, M=3, greedy_after=8, after_switch=after_switch, seed=6,
                dictionary=SMALL_DICT, **kw)
    for t in range(12):
        model.predict_one(X[t])
        model.learn_one(X[t], y[t])
    before = (model.theta_[0].copy(), model.log_w_[0].copy(), model.sampling_.log_u[0].copy())
    model.predict_one(X[12])
    model.learn_one(X[12], y[12])
    return model, before, X[12], float(y[12])


def _expected_step(model, before, x, y, q, p_node):
    """Eqs. (13), (14), (16), (17), (18) for one step, computed here from the state before it: the node
    I_t = argmax u (section 5), S_t = N_{I_t}^out, importance weights q (per kernel) and p_node."""
    theta, logw, logu = (a.copy() for a in before)
    node = int(np.argmax(logu))
    S = list(model.out_neighbours_[node])
    Z = model.dictionaries_[0].transform(x)                                 # features.py's own map (eq. 4)
    f = np.einsum("nf,nf->n", theta, Z)
    w = np.exp(logw[S] - logw[S].max())
    yhat = float(np.sum(w * f[S]) / np.sum(w))                              # eq. (13)
    for i in S:
        L = (f[i] - y) ** 2 + model.lam * theta[i] @ theta[i]              # eq. (5)
        grad = 2 * (f[i] - y) * Z[i] + 2 * model.lam * theta[i]
        theta[i] = theta[i] - model.eta * grad / q[i]                       # eq. (17)
        logw[i] -= model.eta * L / q[i]                                     # eqs. (14), (18a)
    if p_node is not None:
        logu[node] -= model.eta * (yhat - y) ** 2 / p_node                  # eqs. (16), (18b)
    return node, yhat, theta, logw, logu


def test_sfg_after_switch_deterministic_update_is_the_full_information_update_on_S_t():
    """Section 5's I_t = argmax u is a point mass: p_{I_t} = 1 and q_i = 1 on S_t, so eqs. (14), (16), (17)
    carry importance weight 1 -- the full-information (Raker) step on the kernels of S_t, and u_{I_t}
    multiplied by exp(-eta L(f_RF, y)). Exact per-entry values (1e-12); the importance form (dividing by
    p, q of eqs. 12/15, the pre-issue-38 step) gives other values on the same state."""
    model, before, x, y = _after_switch_step("auto")
    assert model.after_switch_form() == "deterministic" and model.last_step_.greedy
    node, yhat, theta, logw, logu = _expected_step(model, before, x, y, np.ones(model.N_), 1.0)
    st_ = model.last_step_
    assert int(st_.node[0]) == node
    np.testing.assert_allclose(st_.yhat[0], yhat, rtol=1e-12)
    np.testing.assert_allclose(model.theta_[0], theta, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(model.log_w_[0], logw, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(model.sampling_.log_u[0], logu, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(st_.q_used[st_.valid], 1.0)
    # the importance form on the same state: divides by q (eq. 15) and p (eq. 12) of the unused pmf
    imp, before_i, _, _ = _after_switch_step("importance")
    s = imp.last_step_
    q, p = s.q[0], s.p[0]
    assert np.all(q[list(imp.out_neighbours_[int(s.node[0])])] < 1)       # so the two forms differ
    _, _, theta_i, logw_i, logu_i = _expected_step(imp, before_i, x, y, q, p[int(s.node[0])])
    np.testing.assert_allclose(imp.theta_[0], theta_i, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(imp.log_w_[0], logw_i, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(imp.sampling_.log_u[0], logu_i, rtol=1e-12, atol=1e-15)
    assert not np.allclose(imp.theta_[0], theta, rtol=1e-6)


def test_sfg_after_switch_frozen_u_keeps_node_weights_and_the_node():
    """after_switch="frozen_u": (18b) is skipped after the switch, so u and I_t = argmax u stay those of step
    greedy_after; the kernels get the deterministic (importance weight 1) step."""
    X, y = _stream(T=30, d=2, seed=2)
    model = SFGMKL(m=3, lam=0.01, eta=0.3, xi=0.2, M=3, greedy_after=8, after_switch="frozen_u", seed=2,
                   dictionary=SMALL_DICT)
    nodes, logus = [], []
    for t in range(30):
        model.predict_one(X[t])
        model.learn_one(X[t], y[t])
        nodes.append(int(model.last_step_.node[0]))
        logus.append(model.sampling_.log_u[0].copy())
    assert len(set(nodes[8:])) == 1 and nodes[8] == int(np.argmax(logus[7]))
    for t in range(8, 30):
        np.testing.assert_array_equal(logus[t], logus[7])
    model2, before, x, y1 = _after_switch_step("frozen_u")
    _, _, theta, logw, logu = _expected_step(model2, before, x, y1, np.ones(model2.N_), None)
    np.testing.assert_allclose(model2.theta_[0], theta, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(model2.log_w_[0], logw, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(model2.sampling_.log_u[0], logu)


def test_sfg_after_switch_auto_resolves_to_the_text_for_argmax_and_the_code_for_a_fixed_node():
    assert SFGMKL().after_switch_form() == "deterministic"                 # section 5: argmax u
    assert SFGMKL(greedy_node=0).after_switch_form() == "importance"       # code (E.4): node 0, keeps 1/q
    assert SFGMKL(greedy_node=0, after_switch="deterministic").after_switch_form() == "deterministic"
    assert SFGMKLR(after_switch="frozen_u").after_switch_form() == "frozen_u"


def _hand_made_refinement(refinement):
    """N = 5, G: 0 -> {0, 1}, 1 -> {1, 0}, 2 -> {2, 3}, 3 -> {3, 2}, 4 -> {4, 3}; D'_t = {0, 2} (the two
    largest u); Delta chosen so that d_1 = 2 (node 1 has an edge from 0 in E), d_3 = 0 (edge from 2 in E),
    d_4 = 0 (no edge from D'_t)."""
    N = 5
    model = SFGMKLR(m=2, eta=0.1, xi=0.2, M=2, beta_rank=2, greedy_after=None, refinement=refinement,
                    dictionary=(["gaussian"] * N, np.linspace(0.5, 2, N)))
    model._ensure(1)
    out = np.array([[0, 1], [1, 0], [2, 3], [3, 2], [4, 3]])
    model.out_neighbours_, model.A_ = out, adjacency(out, N)
    delta = np.full((N, N), 3.0)
    np.fill_diagonal(delta, -np.inf)
    delta[1, 0], delta[1, 2] = 5.0, 1.0
    delta[3, 0], delta[3, 2] = 1.0, 5.0
    delta[4, 0], delta[4, 2] = 2.0, 3.0
    model.delta_ = delta
    ubar = np.array([0.3, 0.05, 0.5, 0.1, 0.05])
    Dp, A, _ = model.refined_graph(ubar[None, :], model.xi)
    added = {(int(j), int(i)) for j, i in zip(*np.nonzero(A[0] & ~model.A_))}
    return set(np.flatnonzero(Dp[0]).tolist()), added, A[0]


def test_sfgr_refinement_algorithm3_adds_d_it_to_every_node_outside_Dprime():
    """Algorithm 3: "For all i in V \\ D'_t, append (d_{i,t}, i) to E'_t if (d_{i,t}, i) not in E": nodes 1 and 3
    (already reached from D'_t in G, by another node than d_{i,t}) and node 4 (not reached) all get their
    edge; section 4's sentence ("if there is not any edge from D'_t to v_i", the pre-issue-38 rule) adds
    only node 4's."""
    Dp, added, A = _hand_made_refinement("algorithm3")
    assert Dp == {0, 2}
    assert added == {(2, 1), (0, 3), (0, 4)}
    Dp4, added4, A4 = _hand_made_refinement("section4")
    assert Dp4 == {0, 2} and added4 == {(0, 4)}
    assert is_dominating(A, [0, 2]) and is_dominating(A4, [0, 2])


@pytest.mark.usefixtures("numpy_engine")
def test_sfg_named_options_reproduce_pre_issue38_numbers_bit_for_bit():
    """after_switch="importance" (and for SFG-MKL-R refinement="section4") give the numbers of the code before
    issue 38 bit for bit (MSE per repetition, float hex, recorded with commit 073e7f4): a small dictionary with
    the switch at step 20 and section 5's settings on the first 400 Airfoil steps; the new defaults differ.
    On the NumPy step (engine "numpy"), which those numbers come from: the compiled loop (engine "numba", issue
    44) adds its sums in another order and agrees with it to rounding (test_compiled_loop_equals_the_reference_step)."""
    X, y = _stream(T=40, d=2, seed=5)
    kw = dict(m=3, lam=0.01, eta=0.3, xi=0.2, M=2, greedy_after=20, seed=5, dictionary=SMALL_DICT)
    old = dict(after_switch="importance")
    old_r = dict(after_switch="importance", refinement="section4")

    def mse(P, y):
        return [float(v).hex() for v in ((P - y) ** 2).mean(axis=1)]

    assert mse(SFGMKL(**kw, **old).run_repetitions(X, y, 3), y) == [
        "0x1.8e95182e6577ap-3", "0x1.79f6a50527818p-2", "0x1.b03e265fbf6c6p-4"]
    assert mse(SFGMKLR(**kw, beta_rank=3, **old_r).run_repetitions(X, y, 3), y) == [
        "0x1.35111d4c86206p-3", "0x1.3c7fe27e03633p-2", "0x1.d39d22688f4e3p-4"]
    assert mse(SFGMKLR(**kw, beta_rank=3, after_switch="importance").run_repetitions(X, y, 3), y) != [
        "0x1.35111d4c86206p-3", "0x1.3c7fe27e03633p-2", "0x1.d39d22688f4e3p-4"]      # the refinement matters here
    Xa, ya = ok.datasets.load("airfoil")
    Xa, ya = Xa[:400], ya[:400]
    p = ok.registry.paper003.defaults(1503)
    assert mse(SFGMKL(**p["SFGMKL"], **old, seed=0).run_repetitions(Xa, ya, 2), ya) == [
        "0x1.c0e96779e111ap-6", "0x1.b890018fa8f1cp-6"]
    assert mse(SFGMKLR(**p["SFGMKLR"], **old_r, seed=0).run_repetitions(Xa, ya, 2), ya) == [
        "0x1.b901213c7ba38p-6", "0x1.ad2fd28549171p-6"]
    assert mse(SFGMKL(**p["SFGMKL"], seed=0).run_repetitions(Xa, ya, 2), ya) != [
        "0x1.c0e96779e111ap-6", "0x1.b890018fa8f1cp-6"]


def test_sfg_after_switch_and_refinement_arguments_validated():
    with pytest.raises(ValueError, match="after_switch"):
        SFGMKL(after_switch="greedy")
    with pytest.raises(ValueError, match="after_switch"):
        SFGMKLR(after_switch=None)
    with pytest.raises(ValueError, match="refinement"):
        SFGMKLR(refinement="text")
    for form in ("deterministic", "frozen_u"):       # the code's frozen refinement keeps drawing the node
        with pytest.raises(ValueError, match="after_switch.*freeze_refinement"):
            SFGMKLR(freeze_refinement=True, after_switch=form, m=2).predict_one(np.zeros(2))
    SFGMKLR(freeze_refinement=True, after_switch="importance", m=2).predict_one(np.zeros(2))


# ------------------------------------------------------------------ issue 44: the compiled whole-stream loop
_OPT = dict(m=3, lam=0.01, eta=0.3, seed=5, dictionary=SMALL_DICT)
_SFG = dict(_OPT, xi=0.2, M=3, greedy_after=15)
ENGINE_CASES = [
    (Raker, dict(_OPT)),
    (Raker, dict(_OPT, loss_after_step=True, schedule="inv_sqrt_t")),
    (OMKLGF, dict(_OPT, M=4)),
    (OMKLGF, dict(_OPT, M=3, J=3, weighted_gradient=False, eta_e=0.1)),
    (OMKLGF, dict(_OPT, M=2, J=2, off_by_one=True, q_clip=0.05, freeze_after=9, loss_after_step=True,
                  schedule="inv_sqrt_t")),
    (OMKLGF, dict(_OPT, M=1, freeze_after=0)),
    (SFGMKL, dict(_SFG)),
    (SFGMKL, dict(_SFG, greedy_node=0, clip=(0.1, 0.2))),
    (SFGMKL, dict(_SFG, after_switch="frozen_u")),
    (SFGMKL, dict(_SFG, after_switch="importance", greedy_after=None, schedule="inv_sqrt_t")),
    (SFGMKLR, dict(_SFG, beta_rank=3)),
    (SFGMKLR, dict(_SFG, M=2, beta_rank=3, freeze_refinement=True, clip=(0.1, 0.2))),
    (SFGMKLR, dict(_SFG, beta=0.12, beta_rank=3, refinement="section4", greedy_after=None)),
    (SFGMKLR, dict(_SFG, beta_rank=2, greedy_node=2, after_switch="importance", refinement="section4")),
]
_CASE_IDS = [f"{cls.__name__}-{i}" for i, (cls, _) in enumerate(ENGINE_CASES)]
#: the sin/cos (exp) of the compiled loop: the C library's (cosine library "numpy") and oneMKL's where it loads
COS_LIBRARIES = [c for c in ("numpy", "mkl") if c in cosine.available()]


def _pass(cls, kw, X, y, R, eng, cos="numpy"):
    """run_repetitions on engine ``eng`` -> (predictions, step log, state after, next uniform of the Generator)."""
    T = len(y)
    log = {"node": np.zeros((R, T), np.int64), "subset_size": np.zeros((R, T), np.int64), "inv_q": np.zeros((R, T)),
           "greedy": np.zeros(T, bool)}
    with compiled.engine(eng), cosine.using(cos):
        model = cls(**kw)
        P = model.run_repetitions(X, y, R, record=log)
    state = [model.theta_, model.log_w_] + ([model.sampling_.log_u] if isinstance(model, SFGMKL) else [])
    return P, log, state, model._rng.random()


@needs_numba
@pytest.mark.parametrize("cos", COS_LIBRARIES, ids=lambda c: "C-library" if c == "numpy" else "oneMKL")
@pytest.mark.parametrize("cls, kw", ENGINE_CASES, ids=_CASE_IDS)
def test_compiled_loop_equals_the_reference_step(cls, kw, cos):
    """The compiled loop (engine "numba", omkl_core/mkl/_kernels.py; sin/cos of eq. 4 from the C library
    or oneMKL) equals the NumPy step (the reference) to rounding, for every option of the four learners:
    the predictions of R = 3 repetitions, theta, ln w, ln u after the pass, the step log (node, |S_t|,
    greedy exactly; mean 1/q to rounding) and the Generator (the same uniforms drawn, in the same order)."""
    X, y = _stream(T=40, d=2, seed=3)
    P0, log0, st0, u0 = _pass(cls, kw, X, y, 3, "numpy")
    P1, log1, st1, u1 = _pass(cls, kw, X, y, 3, "numba", cos)
    np.testing.assert_allclose(P1, P0, rtol=1e-10, atol=1e-12)
    for a, b in zip(st1, st0):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    for key in ("node", "subset_size", "greedy"):
        np.testing.assert_array_equal(log1[key], log0[key])
    np.testing.assert_allclose(log1["inv_q"], log0["inv_q"], rtol=1e-10)
    assert u1 == u0


@needs_numba
@pytest.mark.parametrize("cls, kw", ENGINE_CASES, ids=_CASE_IDS)
def test_compiled_loop_continues_from_the_state(cls, kw):
    """``run(X[:k]); run(X[k:])`` on the compiled engine equals ``run(X)`` bit for bit (blocks of steps share
    nothing but the learner's state and Generator), and with the second half on the NumPy step to rounding;
    a predict_one before the run (step 0's node already drawn) is honoured on either engine."""
    X, y = _stream(T=40, d=2, seed=4)
    with compiled.engine("numba"):
        whole = cls(**kw).run(X, y)
        for k in (1, 9, 20):
            model = cls(**kw)
            np.testing.assert_array_equal(np.concatenate([model.run(X[:k], y[:k]), model.run(X[k:], y[k:])]), whole)
    model = cls(**kw)
    with compiled.engine("numba"):
        first = model.run(X[:20], y[:20])
    with compiled.engine("numpy"):
        mixed = np.concatenate([first, model.run(X[20:], y[20:])])
    np.testing.assert_allclose(mixed, whole, rtol=1e-10, atol=1e-12)
    preds = {}
    for eng in ("numpy", "numba"):
        with compiled.engine(eng):
            model = cls(**kw)
            p0 = model.predict_one(X[0])
            preds[eng] = model.run(X, y)
            assert preds[eng][0] == p0
    np.testing.assert_allclose(preds["numba"], preds["numpy"], rtol=1e-10, atol=1e-12)


@needs_numba
@pytest.mark.parametrize("R", [1, 3])
def test_compiled_loop_fails_where_the_reference_step_fails(R):
    """A diverging run (off-by-one edge draws without the clip, a large step) raises the NumPy step's
    FloatingPointError at the same step t on the compiled engine, and leaves the learner as the NumPy
    step does: t_ steps done, the Generator after the failing step's draws, theta and ln w of the last
    finite step."""
    rng = np.random.default_rng(0)
    X, y = rng.uniform(-1, 1, (300, 2)), rng.uniform(0, 1, 300)
    gauss = (["gaussian"] * 7, [0.3, 0.6, 0.5, 1.2, 2.0, 3.0, 0.9])
    out = {}
    for eng in ("numpy", "numba"):
        model = OMKLGF(m=3, eta=5.0, M=1, off_by_one=True, seed=1, dictionary=gauss)
        with compiled.engine(eng), np.errstate(all="ignore"), pytest.raises(FloatingPointError) as err:
            model.run_repetitions(X, y, R)
        out[eng] = (str(err.value), model.t_, model._rng.random(), model.theta_, model.log_w_)
    assert out["numba"][:3] == out["numpy"][:3]
    assert 0 < out["numba"][1] < 300
    with np.errstate(all="ignore"):
        for a, b in zip(out["numba"][3:], out["numpy"][3:]):
            fin = np.isfinite(b)
            np.testing.assert_array_equal(np.isfinite(a), fin)
            np.testing.assert_allclose(a[fin], b[fin], rtol=1e-8)


@needs_numba
@pytest.mark.parametrize("cos", COS_LIBRARIES, ids=lambda c: "C-library" if c == "numpy" else "oneMKL")
@pytest.mark.parametrize("kw", [dict(eta=0.2, sigmas=[0.2, 0.5, 1.5]),
                                dict(eta=0.3, schedule="inv_sqrt_t", bandwidth="code", sigmas=[0.3, 0.9]),
                                dict(eta=0.05)])
def test_omkr_compiled_loop_equals_the_reference_step(kw, cos):
    """OMKR's compiled loop (engine "numba", the exp from the C library or oneMKL, past points in blocks of
    OMKR_BLOCK) equals the NumPy step to rounding -- predictions, weights, coefficients, the last experts'
    predictions -- over more than one block of past points; a run split in two equals one run bit for bit,
    and the learner continues on the NumPy step (predict_one / learn_one) from the compiled run's state."""
    X, y = _stream(700, d=3, seed=2)
    with compiled.engine("numpy"):
        ref = OMKR(**kw)
        P0 = ref.run(X, y)
    with compiled.engine("numba"), cosine.using(cos):
        model = OMKR(**kw)
        P1 = model.run(X, y)
        split = OMKR(**kw)
        P2 = np.concatenate([split.run(X[:333], y[:333]), split.run(X[333:], y[333:])])
    np.testing.assert_allclose(P1, P0, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(P2, P1)
    np.testing.assert_allclose(model.weights_, ref.weights_, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(model.C_, ref.C_, rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(model.expert_predictions_, ref.expert_predictions_, rtol=1e-10, atol=1e-12)
    assert model.X_.shape == ref.X_.shape and model._X.shape == ref._X.shape == (1024, 3)
    x, y_new = np.full(3, 0.1), 0.4
    with compiled.engine("numpy"):
        assert model.predict_one(x) == pytest.approx(ref.predict_one(x), rel=1e-10)
        model.learn_one(x, y_new)
        ref.learn_one(x, y_new)
    np.testing.assert_allclose(model.weights_, ref.weights_, rtol=1e-10, atol=1e-14)
