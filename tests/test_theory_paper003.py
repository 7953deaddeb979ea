"""Seed 003 -- Ghari & Shen, "Graph-Aided Online Multi-Kernel Learning" (JMLR 24, 2023).

How each result is checked (THEORY.md rows 131-152):

* the unbiasedness identities (14)/(38a), (38b), (16)/(51a)-(51b) and (55) **exactly**: one step
  of the learner has a finite distribution (the drawn node I_t in {0..N-1} with probabilities
  p_t), so the expectation is the sum over the N outcomes -- each outcome produced by the
  learner's own step with the node forced (``model.forced``) -- weighted by p_t, and compared
  with the right-hand side computed here independently (features from ``KernelDictionary``,
  p from the node weights by eq. 12, q by summing p over in-neighbours);
* the sampler itself (that I_t ~ p_t) exactly, at the cdf boundaries;
* the graph statements (q >= p, q >= xi/|D|, (22)-(24)) on Hypothesis-drawn graphs and weights;
* Lemma 1 and Lemma 2 by quadrature in d = 1 and 2;
* the regret statements (Lemma 5, Theorems 3-4) as measured regret against the best kernel in
  hindsight next to the bound, after checking that a non-learning strategy violates the bound on
  the same stream (so the bound is informative there).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.integrate as si
from hypothesis import given, settings
from hypothesis import strategies as st

import omkl_core as ok
from omkl_core import bounds as B
from omkl_core.features import KernelDictionary
from omkl_core.kernels import dissimilarity, dissimilarity_matrix
from omkl_core.mkl import SFGMKL, SFGMKLR, feedback_graph
from omkl_core.mkl._rfbase import draw_nodes
from omkl_core.mkl.graph import adjacency, greedy_dominating_set, is_dominating

EQ_RTOL = 1e-10

SMALL_DICT = (["gaussian", "gaussian", "laplacian", "gaussian", "laplacian", "gaussian"],
              [0.3, 0.6, 0.5, 1.2, 2.0, 3.0])


def _kernel_1d(kind, s):
    return (lambda r: np.exp(-r * r / (2 * s * s))) if kind == "gaussian" else (lambda r: np.exp(-abs(r) / s))


def _stream(T, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(T, d))
    X /= np.linalg.norm(X, axis=1).max()
    y = np.clip(0.5 + 0.4 * np.sin(3 * X[:, 0]) + 0.05 * rng.standard_normal(T), 0, 1)
    return X, y


def _warm(cls, seed, steps=7, **kw):
    """A learner on the small dictionary after a few real steps (non-trivial theta, w, u)."""
    X, y = _stream(steps + 1, 2, seed)
    if cls is SFGMKLR:
        kw.setdefault("beta_rank", 3)
    model = cls(m=3, lam=0.01, eta=0.3, xi=0.2, M=3, greedy_after=None, seed=seed, dictionary=SMALL_DICT, **kw)
    for t in range(steps):
        model.predict_one(X[t])
        model.learn_one(X[t], y[t])
    return model, X[steps], float(y[steps])


def _independent_quantities(model, x, y):
    """p (eq. 12 / 24), q (eq. 15), L_i (eq. 5), grad L_i, L_i(f_RF) (loss of eq. 13 when v_i is
    drawn) computed here from the learner's *state* only."""
    Z = model.dictionaries_[0].transform(x)                           # (N, 2D), features.py's own map
    th = model.theta_[0]
    f = np.einsum("nf,nf->n", th, Z)
    L = (f - y) ** 2 + model.lam * np.einsum("nf,nf->n", th, th)
    gradL = 2 * (f - y)[:, None] * Z + 2 * model.lam * th
    u = np.exp(model.sampling_.log_u[0] - model.sampling_.log_u[0].max())
    ubar = u / u.sum()
    xi, N = model.xi, model.N_
    if isinstance(model, SFGMKLR):
        Dp, A, _ = model.refined_graph(ubar[None, :], xi)
        Dp, A = Dp[0], A[0]
        p = (1 - xi) * ubar + xi / Dp.sum() * Dp
    else:
        A = np.zeros((N, N), dtype=bool)
        for j, row in enumerate(model.out_neighbours_):
            A[j, row] = True
        inD = np.isin(np.arange(N), model.dominating_set_)
        p = (1 - xi) * ubar + xi / inD.sum() * inD
    q = np.array([sum(p[j] for j in range(N) if A[j, i]) for i in range(N)])
    w = np.exp(model.log_w_[0] - model.log_w_[0].max())
    Li_comb = np.empty(N)
    for i in range(N):
        S = np.flatnonzero(A[i])
        Li_comb[i] = (np.sum(w[S] * f[S]) / np.sum(w[S]) - y) ** 2
    return p, q, L, gradL, Li_comb


def _enumerate(model, x, y):
    """The N outcomes of one step: (ell (N, N), ell_hat (N, N), grad ell (N, N, 2D), yhat (N,))."""
    N = model.N_
    ell, ell_hat, grad, yhat = [], [], np.zeros((N, N, 2 * model.m)), []
    for j in range(N):
        twin = model.forced(x, y, j)
        s = twin.last_step_
        ell.append(s.ell[0])
        ell_hat.append(s.ell_hat[0])
        grad[j] = (model.theta_[0] - twin.theta_[0]) / model.eta      # theta_{t+1} = theta_t - eta grad ell
        yhat.append(s.yhat[0])
    return np.array(ell), np.array(ell_hat), grad, np.array(yhat)


LEARNER_CLASSES = [SFGMKL, SFGMKLR]


# ------------------------------------------------------------------------- sampling
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=12).filter(lambda v: sum(v) > 1e-3))
def test_paper003_eq12_node_draw_is_exact_inverse_cdf(weights):
    """I_t ~ p_t: every u in [c_{j-1}, c_j) of the normalised cdf draws node j (so node j has
    probability exactly p_j); checked at both ends of each interval. An off-by-one draw (the
    authors' code returns draw + 1, reference E.4) fails."""
    p = np.asarray(weights)
    c = np.concatenate([[0.0], np.cumsum(p) / p.sum()])
    ulps = 64 * np.finfo(np.float64).eps      # draw_nodes compares cumsum(p) with u sum(p): a few ulps from c
    for j in np.flatnonzero(p > 1e-9):
        lo, hi = c[j], c[j + 1]
        inner = [lo + max(1e-12 * (hi - lo), ulps), lo + 0.5 * (hi - lo), hi - max(1e-9 * (hi - lo), ulps)]
        for u in inner:
            if lo <= u < hi:
                assert draw_nodes(p[None, :], np.array([u]))[0] == j


# ------------------------------------------------------------------------- unbiasedness
@pytest.mark.parametrize("cls", LEARNER_CLASSES, ids=lambda c: c.__name__)
@given(seed=st.integers(0, 2**31 - 1))
def test_paper003_eq14_unbiased(cls, seed):
    """(14)/(38a): E_t[ell_{i,t}] = sum_j p_{j,t} ell_{i,t}(I_t = j) = L(theta_{i,t}' z_i(x_t), y_t)
    for every kernel i, exactly over the N outcomes (also for the refined graph of SFG-MKL-R)."""
    model, x, y = _warm(cls, seed)
    p, q, L, _, _ = _independent_quantities(model, x, y)
    ell, _, _, _ = _enumerate(model, x, y)
    np.testing.assert_allclose(p @ ell, L, rtol=EQ_RTOL, atol=1e-14)


@pytest.mark.parametrize("cls", LEARNER_CLASSES, ids=lambda c: c.__name__)
@given(seed=st.integers(0, 2**31 - 1))
def test_paper003_eq38b_gradient_second_moment(cls, seed):
    """(38b): E_t[||grad ell_{i,t}||^2] = ||grad L_i||^2 / q_{i,t}, and E_t[grad ell_{i,t}] =
    grad L_i (the step of eq. 17 is an unbiased gradient), exactly over the N outcomes; the
    gradient is read off the learner's theta step, (theta_t - theta_{t+1}) / eta."""
    model, x, y = _warm(cls, seed)
    p, q, _, gradL, _ = _independent_quantities(model, x, y)
    _, _, grad, _ = _enumerate(model, x, y)
    second = np.einsum("j,jif->i", p, grad ** 2)
    np.testing.assert_allclose(second, np.sum(gradL ** 2, axis=1) / q, rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(np.einsum("j,jif->if", p, grad), gradL, rtol=1e-9, atol=1e-13)


@pytest.mark.parametrize("cls", LEARNER_CLASSES, ids=lambda c: c.__name__)
@given(seed=st.integers(0, 2**31 - 1))
def test_paper003_eq16_eq51_node_loss_unbiased(cls, seed):
    """(16)/(51a): E_t[ellhat_{i,t}] = L_i(f_RF(x_t), y_t) (the loss of eq. 13 when v_i is drawn),
    and (51b): E_t[ellhat_{i,t}^2] = L_i^2/p_{i,t} <= 1/p_{i,t} (the bound where L_i <= 1, as2)."""
    model, x, y = _warm(cls, seed)
    p, _, _, _, Li = _independent_quantities(model, x, y)
    _, ell_hat, _, _ = _enumerate(model, x, y)
    np.testing.assert_allclose(p @ ell_hat, Li, rtol=EQ_RTOL, atol=1e-14)
    second = p @ ell_hat ** 2
    np.testing.assert_allclose(second, Li ** 2 / p, rtol=1e-9)
    ok_as2 = Li <= 1.0                                   # (as2): the bound needs L in [0, 1]
    assert np.all(second[ok_as2] <= 1.0 / p[ok_as2] * (1 + 1e-12))


@pytest.mark.parametrize("cls", LEARNER_CLASSES, ids=lambda c: c.__name__)
@given(seed=st.integers(0, 2**31 - 1))
def test_paper003_eq55_expected_loss(cls, seed):
    """(55): E_t[L(f_RF(x_t), y_t)] = sum_i p_{i,t} L_i(f_RF(x_t), y_t): the learner's prediction
    for each forced node, weighted by p_t, against the independent combination losses."""
    model, x, y = _warm(cls, seed)
    p, _, _, _, Li = _independent_quantities(model, x, y)
    _, _, _, yhat = _enumerate(model, x, y)
    assert math.isclose(float(p @ (yhat - y) ** 2), float(p @ Li), rel_tol=EQ_RTOL, abs_tol=1e-15)


@pytest.mark.parametrize("cls", LEARNER_CLASSES, ids=lambda c: c.__name__)
@given(seed=st.integers(0, 2**31 - 1))
def test_paper003_eq18_multiplicative_updates(cls, seed):
    """(18a)/(18b) for every outcome j of one step: ln w_{i,t+1} - ln w_{i,t} = -eta L_i/q_i for
    i in S_t (0 elsewhere) and ln u_{j,t+1} - ln u_{j,t} = -eta L_j(f_RF)/p_j for the drawn node
    (0 for the others), with L, L_j, p, q computed independently."""
    model, x, y = _warm(cls, seed)
    p, q, L, _, Li = _independent_quantities(model, x, y)
    for j in range(model.N_):
        twin = model.forced(x, y, j)
        S = np.zeros(model.N_, dtype=bool)
        S[twin.last_step_.idx[0][twin.last_step_.valid[0]]] = True
        np.testing.assert_allclose(twin.log_w_[0] - model.log_w_[0], np.where(S, -model.eta * L / q, 0.0),
                                   rtol=1e-9, atol=1e-13)
        du = np.zeros(model.N_)
        du[j] = -model.eta * Li[j] / p[j]
        np.testing.assert_allclose(twin.sampling_.log_u[0] - model.sampling_.log_u[0], du, rtol=1e-9, atol=1e-13)


# ------------------------------------------------------------------------- graph inequalities
@st.composite
def graphs_and_weights(draw):
    N = draw(st.integers(2, 9))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    M = draw(st.integers(1, N))
    out = np.array([np.concatenate([[i], rng.permutation(np.delete(np.arange(N), i))[: M - 1]]) for i in range(N)])
    log_u = rng.normal(scale=draw(st.floats(0.0, 8.0)), size=N)
    xi = draw(st.floats(0.01, 1.0))
    return out, log_u, xi


def _sfg_on_graph(out, log_u, xi):
    """An SFG-MKL learner whose graph is replaced by ``out`` (rows: out-neighbours, self first)."""
    N = out.shape[0]
    model = SFGMKL(m=2, eta=0.1, xi=xi, M=1, greedy_after=None, dictionary=(["gaussian"] * N, np.linspace(0.5, 2, N)))
    model._ensure(1)
    model.out_neighbours_ = out
    model.A_ = adjacency(out, N)
    model.dominating_set_ = greedy_dominating_set(model.A_)
    model._inD = np.isin(np.arange(N), model.dominating_set_).astype(float)
    model.sampling_.log_u[0] = log_u
    model._predict_step(np.zeros(1))
    return model


@given(graphs_and_weights())
def test_paper003_q_lower_bounds_after_theorem3(g):
    """After Thm 3: with self-loops q_{k,t} >= p_{k,t}; p_{k,t} >= xi/|D| for k in D; and, D
    dominating, q_{k,t} >= xi/|D| for *every* node k (the learner's own p and q)."""
    out, log_u, xi = g
    model = _sfg_on_graph(out, log_u, xi)
    p, q, D = model.sampling_.p[0], model.sampling_.q[0], model.dominating_set_
    assert is_dominating(model.A_, D)
    tol = 1e-12
    assert np.all(q >= p - tol)
    assert np.all(p[D] >= xi / D.size - tol)
    assert np.all(q >= xi / D.size - tol)
    np.testing.assert_allclose(p.sum(), 1.0, rtol=1e-12)


def test_paper003_text_claim_p_above_xi_over_D_for_all_k_fails():
    """The text after Thm 3 says p_{k,t} > xi/|D| for all k. For a node outside D with a small
    weight this is false (THEORY.md note); only q_{k,t} >= xi/|D| holds for every k."""
    out = np.array([[0, 1, 2], [1, 0, 2], [2, 0, 1], [3, 0, 1]])          # D = {0, 3} by the greedy cover
    log_u = np.array([0.0, 0.0, -30.0, 0.0])
    model = _sfg_on_graph(out, log_u, 0.3)
    p, q, D = model.sampling_.p[0], model.sampling_.q[0], model.dominating_set_
    assert 2 not in D
    assert p[2] < 0.3 / D.size                                              # the printed claim fails at k = 2
    assert q[2] >= 0.3 / D.size                                             # the correct statement holds


@given(graphs_and_weights(), st.sampled_from([None, "const"]), st.sampled_from(["algorithm3", "section4"]))
def test_paper003_eq22_eq24_refined_graph(g, beta_kind, refinement):
    """(22): p_{i,t} >= beta_t for i in D'_t; (23)-(24): D'_t dominates G'_t, so q_{i,t} >= beta_t
    for every node; E'_t contains E. Both beta rules: section 5's (1-xi) ubar_[k] + xi/N and a
    constant beta <= 1/N (Thm 4's condition, D'_t non-empty). The edges added: Algorithm 3's
    (d_{i,t}, i) for every i outside D'_t; section 4's only for the i with no edge from D'_t."""
    out, log_u, xi = g
    N = out.shape[0]
    xi = min(xi, 0.99)
    beta = None if beta_kind is None else 0.7 / N
    model = SFGMKLR(m=2, eta=0.1, xi=xi, M=1, beta=beta, beta_rank=min(3, N), greedy_after=None,
                    refinement=refinement, dictionary=(["gaussian"] * N, np.linspace(0.5, 2, N)))
    model._ensure(1)
    model.out_neighbours_ = out
    model.A_ = adjacency(out, N)
    model.sampling_.log_u[0] = log_u
    model._predict_step(np.zeros(1))
    st_ = model._pending[1] if model._pending else None
    s = model.sampling_
    ubar = np.exp(log_u - log_u.max())
    ubar /= ubar.sum()
    Dp, A, b = model.refined_graph(ubar[None, :], xi)
    p, q = s.p[0], s.q[0]
    tol = 1e-12
    assert Dp[0].any()
    assert np.all(A[0] >= model.A_)                                         # E subset of E'_t
    assert is_dominating(A[0], np.flatnonzero(Dp[0]))
    assert np.all(p[Dp[0]] >= b[0] - tol)
    assert np.all(q >= b[0] - tol)
    # (23): the nodes named by the rule get exactly the edge from argmin_{j in D'_t} Delta(i, j) (unless in E)
    D_idx = np.flatnonzero(Dp[0])
    covered = model.A_[D_idx].any(axis=0)
    added = A[0] & ~model.A_
    for i in range(N):
        gets = (not covered[i]) if refinement == "section4" else not Dp[0, i]
        if not gets:
            assert not added[:, i].any()
        else:
            d_it = D_idx[np.argmin(model.delta_[i, D_idx])]
            assert A[0, d_it, i]
            assert set(np.flatnonzero(added[:, i]).tolist()) <= {d_it}
    del st_


# ------------------------------------------------------------------------- Lemma 1, Lemma 2, (11)
@given(st.sampled_from(["gaussian", "laplacian"]), st.floats(0.05, 5.0),
       st.sampled_from(["gaussian", "laplacian"]), st.floats(0.05, 5.0))
def test_paper003_lemma1_dissimilarity_bounded(ki, si_, kj, sj):
    """Lemma 1, (8)-(9) in d = 1: Delta <= int |k_i - k_j| <= int k_i + int k_j < inf, with Delta
    the closed form and the middle integral by quadrature (int k = sqrt(2 pi) s or 2 s)."""
    fi, fj = _kernel_1d(ki, si_), _kernel_1d(kj, sj)
    l1 = 2 * si.quad(lambda r: abs(fi(r) - fj(r)), 0, np.inf, limit=400)[0]
    mass = (math.sqrt(2 * math.pi) * si_ if ki == "gaussian" else 2 * si_) + \
        (math.sqrt(2 * math.pi) * sj if kj == "gaussian" else 2 * sj)
    delta = dissimilarity(ki, si_, kj, sj, 1)
    assert delta <= l1 * (1 + 1e-7) + 1e-12
    assert l1 <= mass * (1 + 1e-9)


@pytest.mark.parametrize("d", [1, 2])
@settings(max_examples=15)
@given(seed=st.integers(0, 2**31 - 1))
def test_paper003_lemma2_average_difference(d, seed):
    """Lemma 2, (10), over the unit ball (U_1 = 2, U_2 = pi): (1/U_d) int |f_i - f_j|^2 <=
    (2 C_m/U_d) sum_t (Delta(k_i, k_j) + 2 U_d), f_i = sum_t alpha_{i,t} k_i(x - x_t), by quadrature."""
    rng = np.random.default_rng(seed)
    T = int(rng.integers(1, 5))
    kinds = rng.choice(["gaussian", "laplacian"], size=2)
    sig = 10 ** rng.uniform(-1, 0.5, size=2)
    centres = rng.uniform(-1, 1, size=(T, d)) / np.sqrt(d)
    alpha = rng.normal(size=(2, T))
    kern = [(str(k), float(s)) for k, s in zip(kinds, sig)]

    def f(which, pts):
        k, s = kern[which]
        return sum(alpha[which, t] * ok.features.exact_kernel(k, s, pts, centres[t]) for t in range(T))

    if d == 1:
        lhs = si.quad(lambda x: (f(0, np.array([x])) - f(1, np.array([x]))) ** 2, -1, 1, limit=200)[0] / 2.0
        U = 2.0
    else:   # Gauss-Legendre in polar coordinates on the unit disc (200 x 256 nodes, vectorised)
        rr, wr = np.polynomial.legendre.leggauss(200)
        rr, wr = (rr + 1) / 2, wr / 2
        ph = np.linspace(0, 2 * np.pi, 256, endpoint=False)
        R_, P_ = np.meshgrid(rr, ph, indexing="ij")
        pts = np.stack([R_ * np.cos(P_), R_ * np.sin(P_)], axis=-1)
        vals = (f(0, pts) - f(1, pts)) ** 2
        lhs = float(np.sum(vals * (wr * rr)[:, None]) * (2 * np.pi / 256)) / math.pi
        U = math.pi
    Cm = float(np.max(np.sum(alpha ** 2, axis=1)))
    delta = dissimilarity(kinds[0], float(sig[0]), kinds[1], float(sig[1]), d) if (kinds[0], sig[0]) != (kinds[1], sig[1]) else 0.0
    rhs = B.paper003_lemma2_rhs(Cm, delta, T, U)
    assert lhs <= rhs * (1 + 1e-9)


def test_paper003_eq11_feedback_graph_m_most_similar():
    """(11)/Alg. 1 on paper 003's 41-kernel dictionary (d = 5): every node has exactly M
    out-neighbours, itself and the M - 1 kernels with the smallest Delta; the reverse order (the
    authors' code picks the most *dissimilar*, reference E.4) fails this."""
    kinds, sig = ok.features.paper003_sigmas()
    delta = dissimilarity_matrix(kinds, sig, 5)
    for M in (1, 3, 5, 10):
        out, D = feedback_graph(delta, M)
        assert out.shape == (41, M)
        for i in range(41):
            assert out[i, 0] == i and len(set(out[i])) == M
            others = np.delete(np.arange(41), i)
            kth = np.sort(delta[i, others])[M - 2] if M > 1 else -np.inf
            assert np.all(delta[i, out[i, 1:]] <= kth)
            rest = np.setdiff1d(others, out[i])
            assert np.all(delta[i, rest] >= kth)
        assert is_dominating(adjacency(out), D)
    out5, _ = feedback_graph(delta, 5)
    assert set(out5[0]) == {0, 1, 2, 3, 4}          # smallest bandwidths are mutually closest


# ------------------------------------------------------------------------- (79)
def test_paper003_eq79_direction():
    """(79) as printed says sum_t (1/qbar_{i,t} + L^2/q_{j*,t}) >= (L^2 + 1) T / beta; the proof
    needs <= (THEORY.md note). On an SFG-MKL-R run with a constant beta <= 1/N, every q_{i,t} >= beta,
    so the <= form holds, and the printed >= fails (strictly) on the same run."""
    X, y = _stream(60, 2, 3)
    N = len(SMALL_DICT[0])
    beta = 0.8 / N
    model = SFGMKLR(m=3, lam=0.01, eta=0.2, xi=0.2, M=2, beta=beta, beta_rank=3, greedy_after=None, seed=1,
                    dictionary=SMALL_DICT)
    Lc = 2.0
    lhs = 0.0
    for t in range(60):
        model.predict_one(X[t])
        s = model.sampling_
        w = np.exp(model.log_w_[0] - model.log_w_[0].max())
        q = s.q[0]
        i = int(np.argmax(s.p[0]))
        S = model.out_neighbours_[i]
        inv_qbar = np.sum(w[S] / q[S]) / np.sum(w[S])
        lhs += inv_qbar + Lc ** 2 / q.min()
        model.learn_one(X[t], y[t])
    rhs = (Lc ** 2 + 1) * 60 / beta
    assert lhs <= rhs
    assert not lhs >= rhs


# ------------------------------------------------------------------------- RF unbiasedness (3)
def test_paper003_eq3_random_feature_estimate_unbiased():
    """(3) + RF: z(x)'z(x') = (1/D) sum_j cos(psi_j'(x - x')) (identity, to round-off) and its mean
    over psi ~ N(0, sigma^-2 I) is the Gaussian kernel: Monte Carlo with D = 200000 frequencies,
    |mean - k| <= 5 standard errors (a wrong scale, psi ~ N(0, sigma^2 I), misses by > 100 se)."""
    rng = np.random.default_rng(7)
    x, xp = rng.uniform(-1, 1, 3) / 2, rng.uniform(-1, 1, 3) / 2
    sigma = 0.6
    Dd = KernelDictionary(["gaussian"], [sigma], d=3, m=200_000, seed=11, feature_map="sincos")
    z, zp = Dd.transform(x)[0], Dd.transform(xp)[0]
    cosines = np.cos((x - xp) @ Dd.omega_[0])
    assert math.isclose(float(z @ zp), float(cosines.mean()), rel_tol=1e-9, abs_tol=1e-12)
    k = ok.kernels.gaussian(x, xp, sigma)
    se = cosines.std(ddof=1) / math.sqrt(cosines.size)
    assert abs(cosines.mean() - k) <= 5 * se
    wrong = np.cos((x - xp) @ (Dd.omega_[0] * sigma * sigma)).mean()
    assert abs(wrong - k) > 100 * se


# ------------------------------------------------------------------------- regret (Thms 3-4)
REG_DICT = (["gaussian", "gaussian", "laplacian", "gaussian"], [0.25, 0.6, 0.8, 2.0])


def _regret_run(cls, T, R, seed, **kw):
    """R batched trajectories of the text algorithm (no greedy switch) on a smooth stream with
    labels in [0.3, 0.7]. Returns per repetition: sum_t E_t[(f_RF(x_t) - y_t)^2] (E_t over the
    node draw, exactly: eq. 55 with every node's combination computed from the state), the
    q-terms of Thm 3 for every (i, j), the largest kernel loss and gradient norm seen (as2), and
    the stream."""
    X, y = _stream(T, 2, seed)
    y = 0.3 + 0.4 * y
    eta = 1.0 / math.sqrt(T)
    model = cls(m=4, lam=1e-3, eta=eta, xi=eta, M=2, greedy_after=None, seed=seed, dictionary=REG_DICT, **kw)
    model._init(2, R)
    model.state_ = True
    N = model.N_
    exp_loss = np.zeros(R)
    inv_qbar = np.zeros((R, N))
    inv_q = np.zeros((R, N))
    maxL, maxG = 0.0, 0.0
    allk = np.broadcast_to(np.arange(N), (R, N))
    for t in range(T):
        st_ = model._predict_step(X[t])
        z = model._features(X[t], allk)                                   # (R, N, 2D)
        f = np.einsum("rnf,rnf->rn", model.theta_, z)
        w = np.exp(model.log_w_ - model.log_w_.max(axis=1, keepdims=True))
        A = st_.A if hasattr(st_, "A") else np.broadcast_to(model.A_, (R, N, N))
        W = np.einsum("rjn,rn->rj", A, w)                                 # W_{j,t}
        comb = np.einsum("rjn,rn->rj", A, w * f) / W                      # prediction when v_j is drawn
        exp_loss += np.einsum("rj,rj->r", st_.p, (comb - y[t]) ** 2)       # eq. (55)
        inv_qbar += np.einsum("rjn,rn->rj", A, w / st_.q) / W
        inv_q += 1.0 / st_.q
        model._learn_step(st_, float(y[t]))
        model.t_ += 1
        maxL = max(maxL, float(st_.loss.max()))
        maxG = max(maxG, float(np.linalg.norm(st_.grad_L, axis=-1).max()))
    return model, X, y, exp_loss, inv_qbar, inv_q, maxL, maxG


def _best_kernel_in_hindsight(model, X, y, lam):
    """min_j min_theta sum_t [(theta' z_j(x_t) - y_t)^2 + lam |theta|^2] per repetition (ridge with
    penalty lam T), the minimiser's squared norm and j*."""
    T = len(y)
    out = []
    for D in model.dictionaries_:
        Z = D.transform(X)                                                # (T, N, 2D)
        best = (np.inf, None, None)
        for j in range(Z.shape[1]):
            Zj = Z[:, j, :]
            th = np.linalg.solve(Zj.T @ Zj + lam * T * np.eye(Zj.shape[1]), Zj.T @ y)
            loss = float(np.sum((Zj @ th - y) ** 2) + lam * T * th @ th)
            best = min(best, (loss, float(th @ th), j), key=lambda b: b[0])
        out.append(best)
    return out


@pytest.mark.parametrize("cls", [SFGMKL, SFGMKLR], ids=lambda c: c.__name__)
def test_paper003_theorem3_theorem4_measured_regret(cls):
    """Thm 3 (21) for SFG-MKL and Thm 4 (26) for SFG-MKL-R (constant beta = 1/N <= 1/N), with the
    random-feature comparator (the step (70) the proofs build on: eps = 0, C^2 -> |theta*_j|^2 of
    the best kernel in hindsight): mean over 4 trajectories of the stochastic regret (20)
    sum_t E_t[L(f_RF)] - min_j sum_t L(theta*_j' z_j) is at most the bound evaluated with the run's
    own q's (Thm 3) and the observed gradient bound L (as2; see the comment on the loss range). The
    regime is informative: the non-learning prediction 0 has regret above the bound on the
    same stream. T = 12000, eta = xi = 1/sqrt(T), N = 4 kernels, M = 2."""
    T, R = 12000, 4
    kw = {"beta": 0.25, "beta_rank": 2} if cls is SFGMKLR else {}
    model, X, y, exp_loss, inv_qbar, inv_q, maxL, maxG = _regret_run(cls, T, R, 21, **kw)
    # (as2) asks for losses in [0, 1]; the importance-weighted steps (eta/q) overshoot in the first
    # steps, so the largest observed kernel loss is reported (not assumed): the check below is of
    # the bound's value against the measured regret, with L = the largest observed gradient norm.
    eta = xi = 1.0 / math.sqrt(T)
    N = model.N_
    regrets, bounds = [], []
    for r, (comp, th2, j) in enumerate(_best_kernel_in_hindsight(model, X, y, model.lam)):
        regrets.append(exp_loss[r] - comp)
        if cls is SFGMKL:
            ins = [i for i in range(N) if model.A_[i, j]]                  # i in N_{j*}^in
            bounds.append(min(B.paper003_theorem3_rhs(N, model.M, eta, xi, T, math.sqrt(th2), 0.0, maxG,
                                                      inv_qbar[r, i], inv_q[r, j]) for i in ins))
        else:
            bounds.append(B.paper003_theorem4_rhs(N, eta, xi, 0.25, T, math.sqrt(th2), 0.0, maxG))
        non_learner = float(np.sum(y ** 2)) - comp
        assert non_learner > bounds[-1]                                   # informative regime
    assert np.mean(regrets) <= np.mean(bounds)
    print(f"\n{cls.__name__}: measured regret {np.mean(regrets):.1f}, bound {np.mean(bounds):.1f}, "
          f"non-learner {float(np.sum(y ** 2)) - comp:.1f} (T = {T}); largest kernel loss {maxL:.2f}, L = {maxG:.2f}")


@pytest.mark.parametrize("which", ["theorem3", "theorem4"])
def test_paper003_after_theorems_rates(which):
    """After Thm 3: with eta = eps = T^{-1/2}, xi = T^{-1/4} and the worst case q = xi/|D| the bound
    (21) grows like T^{3/4} (log-log slope over T = 1e6..1e10 within 0.02 of 3/4); the printed
    xi = O(T^{1/4}) would make xi > 1 (THEORY.md note: T^{-1/4} is meant). After Thm 4: eta = eps =
    xi = T^{-1/2}, beta = 1/N constant gives slope 1/2."""
    Ts = np.logspace(6, 10, 5)
    N, Dsize, L, C = 41, 10, 1.0, 1.0
    vals = []
    for T in Ts:
        T = int(T)
        eta = T ** -0.5
        if which == "theorem3":
            xi = T ** -0.25
            q = xi / Dsize
            vals.append(B.paper003_theorem3_rhs(N, 5, eta, xi, T, C, eta, L, T / q, T / q))
        else:
            vals.append(B.paper003_theorem4_rhs(N, eta, eta, 1 / N, T, C, eta, L))
    slope = np.polyfit(np.log(Ts), np.log(vals), 1)[0]
    assert abs(slope - (0.75 if which == "theorem3" else 0.5)) < 0.02
    if which == "theorem3":                                               # xi = T^{1/4} > 1 is no exploration rate
        with pytest.raises(ValueError, match="xi"):
            SFGMKL(xi=1e4 ** 0.25)


def test_paper003_lemma6_printed_vs_proved():
    """Lemma 6: (42) as printed, ln N/eta + eta(1 + N/2 - eta/2)T, is (56) as proved,
    ln N/eta + (xi + eta N/2 - eta xi/2)T, at xi = eta (the paper's experiments) and differs
    otherwise; Thm 3 uses (56)."""
    for N, eta, T in [(41, 0.01, 10_000), (5, 0.3, 100)]:
        assert B.paper003_lemma6_rhs_printed(N, eta, T) == pytest.approx(B.paper003_lemma6_rhs(N, eta, eta, T), rel=1e-12)
        assert B.paper003_lemma6_rhs_printed(N, eta, T) != pytest.approx(B.paper003_lemma6_rhs(N, eta, 2 * eta, T), rel=1e-6)


def test_paper003_eq72_theta_norm():
    """(72): theta* = sum_t alpha_t z_j(x_t) has |theta*|^2 <= (1 + eps) C^2, C = sum_t |alpha_t|;
    with the sin/cos map z'z <= |z|^2 = 1 always, so it holds with eps = 0 (checked on random
    alpha and inputs)."""
    rng = np.random.default_rng(3)
    D = KernelDictionary(["gaussian", "laplacian"], [0.4, 1.1], d=3, m=20, seed=2, feature_map="sincos")
    for _ in range(20):
        X = rng.uniform(-1, 1, size=(15, 3)) / math.sqrt(3)
        alpha = rng.normal(size=15)
        Z = D.transform(X)                                                # (15, 2, 40)
        for j in range(2):
            th = alpha @ Z[:, j, :]
            assert th @ th <= np.sum(np.abs(alpha)) ** 2 * (1 + 1e-12)


# ------------------------------------------------------------------------- reference loops (issue 23)
# Every learner of paper 003 against a plain per-step NumPy loop written from the equations
# (Algorithm 1 / eq. (7), (11); Algorithm 2 / eqs. (12)-(18); Algorithm 3 / eqs. (22)-(25);
# OMKL-GF of reference C.1; Raker eqs. (4)-(6)). The loop shares nothing with the library but the
# random frequencies omega (read from the learner's public ``dictionaries_``) and the seeded
# uniform stream: host_rng(seed) draws the dictionary first, then one uniform per node draw
# (M per step for OMKL-GF), so the loop replays the same draws. Delta of eq. (7) is computed here
# by 1-D quadrature (both kernels are products over the d coordinates: Delta = a^d + b^d - 2c^d
# with a = int k_i^2, b = int k_j^2, c = int k_i k_j over R).
REF_T, REF_D, REF_M = 24, 2, 3


def _ref_delta(kinds, sigmas, d):
    """Delta(k_i, k_j) of eq. (7) by quadrature of the 1-D factors (independent of kernels.py)."""
    def k1(kind, s):
        return (lambda r: math.exp(-r * r / (2 * s * s))) if kind == "gaussian" else (lambda r: math.exp(-abs(r) / s))

    def integral(f):
        return 2 * si.quad(f, 0, np.inf, limit=400, epsabs=1e-14, epsrel=1e-12)[0]

    N = len(kinds)
    out = np.zeros((N, N))
    for i in range(N):
        for j in range(N):
            if i == j:
                continue
            fi, fj = k1(kinds[i], sigmas[i]), k1(kinds[j], sigmas[j])
            a = integral(lambda r, fi=fi: fi(r) ** 2)
            b = integral(lambda r, fj=fj: fj(r) ** 2)
            c = integral(lambda r, fi=fi, fj=fj: fi(r) * fj(r))
            out[i, j] = a ** d + b ** d - 2 * c ** d
    return out


def _ref_graph(delta, M):
    """Algorithm 1 / eq. (11): out(i) = [i] + the M - 1 nodes j != i with the smallest Delta (ties:
    lower index); D by Chvatal's greedy cover (most newly covered nodes, ties: lower index)."""
    N = delta.shape[0]
    out = []
    for i in range(N):
        others = sorted((j for j in range(N) if j != i), key=lambda j: (delta[i, j], j))
        out.append([i] + others[: M - 1])
    uncovered, D = set(range(N)), []
    while uncovered:
        gains = [len(set(out[j]) & uncovered) for j in range(N)]
        j = max(range(N), key=lambda k: (gains[k], -k))
        D.append(j)
        uncovered -= set(out[j])
    return out, sorted(D)


def _ref_draw(p, u):
    """Inverse cdf: the first j with u * sum(p) < p_0 + ... + p_j."""
    c, target, j = 0.0, u * float(np.sum(p)), 0
    for j in range(len(p)):
        c += p[j]
        if target < c:
            return j
    return len(p) - 1


def _ref_replay_rng(model, seed):
    """host_rng(seed) advanced past the dictionary draw (checked equal to the learner's)."""
    rng = ok.backend.host_rng(seed)
    D = KernelDictionary(list(model.kinds_), model.sigmas_, d=model.d_, m=model.m, seed=rng, feature_map="sincos")
    np.testing.assert_array_equal(D.omega_, model.dictionaries_[0].omega_)
    return rng


def _ref_z(omega, x, m):
    """eq. (4): z_i(x) = D^{-1/2} [sin(omega_i' x), cos(omega_i' x)] for every kernel i."""
    proj = np.einsum("d,ndm->nm", x, omega)
    return np.concatenate([np.sin(proj), np.cos(proj)], axis=1) / math.sqrt(m)


def _ref_kernel_step(theta, logw, z, S, q, y, eta, lam):
    """Combination (13) over S, then for i in S: L_i (5), ell_i = L_i/q_i (14), theta_i -= eta grad L_i/q_i
    (17), ln w_i -= eta ell_i (18a). Returns the prediction."""
    f = np.array([theta[i] @ z[i] for i in range(len(theta))])
    wS = np.exp(logw[S] - logw[S].max())
    yhat = float(np.sum(wS * f[S]) / np.sum(wS))
    for i in S:
        L = (f[i] - y) ** 2 + lam * theta[i] @ theta[i]
        grad = 2 * (f[i] - y) * z[i] + 2 * lam * theta[i]
        theta[i] = theta[i] - eta * grad / q[i]
        logw[i] -= eta * L / q[i]
    return yhat


def _ref_sfg(model, X, y, seed, refined, beta=None, beta_rank=None, after_switch="deterministic",
             refinement="algorithm3"):
    """Algorithm 2 (refined=False) / Algorithm 3 (refined=True) with the section-5 greedy switch.

    After the switch (I_t = argmax u, a point mass): ``after_switch`` "deterministic" divides by
    q = 1, p = 1 (eqs. 14/16/17 for a node chosen with probability 1), "importance" by the p, q of
    eqs. (12)/(15), "frozen_u" as "deterministic" without the update (18b). ``refinement``
    "algorithm3": every i outside D'_t gets (d_{i,t}, i) (Algorithm 3 as printed); "section4": only
    the i with no edge from D'_t in G."""
    N, m, lam, eta, xi = model.N_, model.m, model.lam, model.eta, model.xi
    delta = _ref_delta(model.kinds_, model.sigmas_, model.d_)
    out, D = _ref_graph(delta, model.M)
    rng = _ref_replay_rng(model, seed)
    omega = model.dictionaries_[0].omega_
    theta, logw, logu = np.zeros((N, 2 * m)), np.zeros(N), np.zeros(N)
    preds, weights = [], []
    for t in range(len(y)):
        ubar = np.exp(logu - logu.max())
        ubar /= ubar.sum()
        edges = [list(o) for o in out]                                   # edges[j]: out-neighbours of j
        if not refined:
            inD = np.isin(np.arange(N), D)
            p = (1 - xi) * ubar + xi / len(D) * inD                      # eq. (12)
        else:
            if beta is None:                                             # section 5: beta_t from the k-th largest
                kth = np.sort(ubar)[::-1][beta_rank - 1]
                Dp = ubar >= kth                                         # = eq. (22) with beta_t = (1-xi) kth + xi/N
            else:
                Dp = ubar >= (beta - xi / N) / (1 - xi)                  # eq. (22)
            Dl = list(np.flatnonzero(Dp))
            for i in range(N):                                           # eq. (23)
                if i in Dl:
                    continue
                if refinement == "algorithm3" or not any(i in out[j] for j in Dl):
                    d_it = min(Dl, key=lambda j: (delta[i, j], j))
                    edges[d_it].append(i)
            p = (1 - xi) * ubar + xi / len(Dl) * Dp                      # eq. (24)
        greedy = model.greedy_after is not None and t >= model.greedy_after
        node = int(np.argmax(logu)) if greedy else _ref_draw(p, rng.random())
        S = sorted(set(edges[node]))                                     # S_t = N_{I_t}^out
        q = np.array([sum(p[j] for j in range(N) if i in edges[j]) for i in range(N)])   # eq. (15)
        p_node = p[node]
        if greedy and after_switch != "importance":                       # point mass: q = 1 on S_t, p = 1
            q, p_node = np.ones(N), 1.0
        z = _ref_z(omega, X[t], m)
        yhat = _ref_kernel_step(theta, logw, z, S, q, y[t], eta, lam)
        if not (greedy and after_switch == "frozen_u"):
            logu[node] -= eta * (yhat - y[t]) ** 2 / p_node               # eqs. (16), (18b)
        preds.append(yhat)
        w = np.exp(logw - logw.max())
        weights.append(w / w.sum())
    return np.array(preds), np.array(weights), out, D


def _ref_omkl_gf(model, X, y, seed):
    """OMKL-GF, J = 1 (reference C.1): pi = (1 - eta) wbar + eta/N, M draws i.i.d. from pi,
    S_t = the distinct ones, q_k = 1 - (1 - pi_k)^M, then (13), (14), (17), (18a)."""
    N, m, lam, eta, Md = model.N_, model.m, model.lam, model.eta, model.M
    rng = _ref_replay_rng(model, seed)
    omega = model.dictionaries_[0].omega_
    theta, logw = np.zeros((N, 2 * m)), np.zeros(N)
    preds, weights = [], []
    for t in range(len(y)):
        wbar = np.exp(logw - logw.max())
        wbar /= wbar.sum()
        pi = (1 - eta) * wbar + eta / N
        S = sorted({_ref_draw(pi, u) for u in rng.random(Md)})
        q = 1 - (1 - pi) ** Md
        preds.append(_ref_kernel_step(theta, logw, _ref_z(omega, X[t], m), S, q, y[t], eta, lam))
        w = np.exp(logw - logw.max())
        weights.append(w / w.sum())
    return np.array(preds), np.array(weights)


def _ref_raker(model, X, y):
    """Raker (eqs. 4-6): every kernel every step, q = 1."""
    N, m = model.N_, model.m
    omega = model.dictionaries_[0].omega_
    theta, logw = np.zeros((N, 2 * m)), np.zeros(N)
    preds = [_ref_kernel_step(theta, logw, _ref_z(omega, X[t], m), list(range(N)), np.ones(N), y[t], model.eta, model.lam)
             for t in range(len(y))]
    w = np.exp(logw - logw.max())
    return np.array(preds), w / w.sum()


def _learner_trace(model, X, y):
    preds, weights = [], []
    for t in range(len(y)):
        preds.append(model.predict_one(X[t]))
        model.learn_one(X[t], y[t])
        weights.append(np.array(model.weights_))
    return np.array(preds), np.array(weights)


def _check_run(model, X, y, Pr, w_final):
    """The whole-stream loop ``run`` of a fresh ``model`` (the compiled kernel of omkl_core/mkl/_kernels.py
    on the engine "numba", the NumPy step on "numpy") against the reference loop: every prediction and the
    final kernel weights (the same tolerances as the per-step trace)."""
    np.testing.assert_allclose(model.run(X, y), Pr, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(model.weights_, w_final, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("greedy_after, after_switch", [(None, "auto"), (12, "auto"), (12, "importance"),
                                                        (12, "frozen_u")])
@pytest.mark.parametrize("seed", [4, 9])
def test_paper003_alg2_eq12_to_eq18_sfgmkl_reference_loop(seed, greedy_after, after_switch, engine):
    """Algorithm 2 (SFG-MKL, eqs. 12-18, on the graph of Alg. 1 / eqs. 7, 11 and Chvatal's D) equals
    the reference loop per step (prediction and normalised kernel weights, 1e-10), with and without
    section 5's greedy switch I_t = argmax u after ``greedy_after`` steps, in each form of the
    updates after the switch (default: importance weights 1 for the deterministic node). The whole-stream
    ``run`` equals it too, on each engine (``engine``: the NumPy step, then the compiled loop)."""
    X, y = _stream(REF_T, REF_D, seed)
    model = SFGMKL(m=REF_M, lam=0.01, eta=0.3, xi=0.2, M=3, greedy_after=greedy_after, after_switch=after_switch,
                   seed=seed, dictionary=SMALL_DICT)
    P, W = _learner_trace(model, X, y)
    form = "deterministic" if after_switch == "auto" else after_switch
    Pr, Wr, out, D = _ref_sfg(model, X, y, seed, refined=False, after_switch=form)
    assert [list(o) for o in model.out_neighbours_] == out and list(model.dominating_set_) == D
    np.testing.assert_allclose(P, Pr, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(W, Wr, rtol=1e-9, atol=1e-12)
    _check_run(model.clone(), X, y, Pr, Wr[-1])


@pytest.mark.parametrize("beta, refinement, greedy_after", [(None, "algorithm3", None), (0.12, "algorithm3", None),
                                                             (None, "section4", None), (0.12, "section4", None),
                                                             (None, "algorithm3", 12)])
@pytest.mark.parametrize("seed", [4, 9])
def test_paper003_alg3_eq22_to_eq25_sfgmklr_reference_loop(seed, beta, refinement, greedy_after, engine):
    """Algorithm 3 (SFG-MKL-R, eqs. 22-25: D'_t, the refined edges (23), p of (24), q and S_t in the
    refined graph, then (13)-(18)) equals the reference loop per step, for section 5's beta_t rule
    (the 3rd largest ubar) and a constant beta (printed threshold (beta - xi/N)/(1 - xi) of (22)),
    with Algorithm 3's refinement and section 4's, and with the greedy switch (deterministic form); ``run``
    too, on each engine."""
    X, y = _stream(REF_T, REF_D, seed)
    model = SFGMKLR(m=REF_M, lam=0.01, eta=0.3, xi=0.2, M=2, beta=beta, beta_rank=3, greedy_after=greedy_after,
                    refinement=refinement, seed=seed, dictionary=SMALL_DICT)
    P, W = _learner_trace(model, X, y)
    Pr, Wr, _, _ = _ref_sfg(model, X, y, seed, refined=True, beta=beta, beta_rank=3, refinement=refinement)
    np.testing.assert_allclose(P, Pr, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(W, Wr, rtol=1e-9, atol=1e-12)
    _check_run(model.clone(), X, y, Pr, Wr[-1])


@pytest.mark.parametrize("seed", [4, 9])
def test_paper003_sec5_omklgf_reference_loop(seed, engine):
    """OMKL-GF (the bipartite-graph baseline of section 5; reference C.1, J = 1): per-step
    prediction and kernel weights equal the reference loop (inclusion probability
    q_k = 1 - (1 - pi_k)^M, exploration eta/N); ``run`` too, on each engine."""
    X, y = _stream(REF_T, REF_D, seed)
    model = ok.mkl.OMKLGF(m=REF_M, lam=0.01, eta=0.3, M=3, seed=seed, dictionary=SMALL_DICT)
    P, W = _learner_trace(model, X, y)
    Pr, Wr = _ref_omkl_gf(model, X, y, seed)
    np.testing.assert_allclose(P, Pr, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(W, Wr, rtol=1e-9, atol=1e-12)
    _check_run(model.clone(), X, y, Pr, Wr[-1])


def test_paper003_raker_eq4_to_eq6_reference_loop(engine):
    """Raker (section 5's baseline, eqs. 4-6): per-step predictions and final weights equal the loop;
    ``run`` too, on each engine."""
    X, y = _stream(REF_T, REF_D, 5)
    model = ok.mkl.Raker(m=REF_M, lam=0.01, eta=0.3, seed=5, dictionary=SMALL_DICT)
    P, W = _learner_trace(model, X, y)
    Pr, Wr = _ref_raker(model, X, y)
    np.testing.assert_allclose(P, Pr, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(W[-1], Wr, rtol=1e-9, atol=1e-12)
    _check_run(model.clone(), X, y, Pr, Wr)


@pytest.mark.parametrize("d", [1, 2, 5])
def test_paper003_eq7_dissimilarity_matrix_by_quadrature(d):
    """eq. (7): the (N, N) matrix Delta(k_i, k_j) that Algorithm 1 sorts equals the quadrature value
    (1-D factors, Delta = a^d + b^d - 2 c^d) for Gaussian/Laplacian pairs, relative 1e-8."""
    kinds, sig = SMALL_DICT
    np.testing.assert_allclose(dissimilarity_matrix(kinds, sig, d), _ref_delta(kinds, sig, d), rtol=1e-8, atol=0)


def test_paper003_bound_constants_pinned_by_closed_forms():
    """Every right-hand side of ``bounds.paper003`` against the printed formula evaluated here at fixed
    arguments (a missing 1/2, 2 or square fails): Lemma 2 (10) (2C_m/U_d) T (Delta + 2U_d); Lemma 5 (32)
    |theta*|^2/(2 eta) + sum eta L^2/(2q); Lemma 6 (42) ln N/eta + eta(1 + N/2 - eta/2)T and (56)
    ln N/eta + (xi + eta N/2 - eta xi/2)T; Lemma 7 (57) ln|N^out|/eta + (eta/2) sum 1/qbar; Theorem 3 (21);
    (79) (L^2 + 1)T/beta; Theorem 4 (26)."""
    Cm, dl, T, Ud = 1.7, 0.35, 9, math.pi
    assert B.paper003_lemma2_rhs(Cm, dl, T, Ud) == pytest.approx(2 * Cm / Ud * T * (dl + 2 * Ud), rel=1e-14)
    th2, eta, L, q = 2.5, 0.2, 1.5, np.array([0.5, 0.25, 0.8])
    assert B.paper003_lemma5_rhs(th2, eta, L, q) == pytest.approx(
        th2 / (2 * eta) + sum(eta * L * L / (2 * qq) for qq in q), rel=1e-14)
    N, xi = 7, 0.3
    assert B.paper003_lemma6_rhs_printed(N, eta, T) == pytest.approx(math.log(N) / eta + eta * (1 + N / 2 - eta / 2) * T, rel=1e-14)
    assert B.paper003_lemma6_rhs(N, eta, xi, T) == pytest.approx(math.log(N) / eta + (xi + eta * N / 2 - eta * xi / 2) * T, rel=1e-14)
    inv_qbar = np.array([2.0, 4.0, 1.25])
    assert B.paper003_lemma7_rhs(3, eta, inv_qbar) == pytest.approx(math.log(3) / eta + eta / 2 * 7.25, rel=1e-14)
    C, eps, sq, sqs = 1.3, 0.1, 11.0, 17.0
    assert B.paper003_theorem3_rhs(N, 3, eta, xi, T, C, eps, L, sq, sqs) == pytest.approx(
        math.log(N * 3) / eta + (1 + eps) * C ** 2 / (2 * eta) + eps * L * T * C
        + (xi + eta * N / 2 - eta * xi / 2) * T + eta / 2 * (sq + L ** 2 * sqs), rel=1e-14)
    beta = 0.1
    assert B.paper003_eq79_rhs(L, T, beta) == pytest.approx((L ** 2 + 1) * T / beta, rel=1e-14)
    assert B.paper003_theorem4_rhs(N, eta, xi, beta, T, C, eps, L) == pytest.approx(
        2 * math.log(N) / eta + (1 + eps) * C ** 2 / (2 * eta) + eps * L * T * C
        + (xi + eta / 2 * (L ** 2 + N * beta + 1) / beta - eta * xi / 2) * T, rel=1e-14)


# ------------------------------------------------------------------------- printed errors (errata registry)
def test_paper003_lemma1_eq8_printed_step_fails_for_kernels_with_negative_values():
    """Lemma 1's step (8), int |k_i - k_j|^2 <= int |k_i - k_j|, uses 0 <= k <= 1, which the lemma's hypotheses
    (absolutely integrable, bounded, k(0) = 1) do not give: k_i(r) = exp(-r^2) cos(20 r) is such a kernel (positive
    definite: its Fourier transform is a sum of two Gaussians; checked on a Gram matrix) with negative values, and with
    k_j(r) = exp(-r^2) (d = 1) the printed (8) fails: 1.88 > 1.77 (quadrature). The lemma's conclusion survives with
    |k_i - k_j| <= 2: int |k_i - k_j|^2 <= 2 int |k_i - k_j| <= 2 (int |k_i| + int |k_j|) < inf; for the paper's Gaussian and
    Laplacian dictionary (values in [0, 1]) (8) holds (test_paper003_lemma1_dissimilarity_bounded)."""
    r = np.linspace(-8.0, 8.0, 800_001)                       # the Gaussian envelope is < 1e-27 beyond |r| = 8
    ki = np.exp(-r * r) * np.cos(20.0 * r)
    kj = np.exp(-r * r)
    pts = np.random.default_rng(0).uniform(-2, 2, 40)
    G = np.exp(-np.subtract.outer(pts, pts) ** 2) * np.cos(20.0 * np.subtract.outer(pts, pts))
    assert np.linalg.eigvalsh(G).min() > -1e-10 and ki.max() == 1.0 and ki.min() < -0.5
    sq = np.trapezoid((ki - kj) ** 2, r)
    ab = np.trapezoid(np.abs(ki - kj), r)
    assert sq > ab * 1.05                                                  # printed (8) fails: 1.88 > 1.77
    assert sq <= 2 * ab                                                    # |k_i - k_j| <= 2
    assert ab <= np.trapezoid(np.abs(ki), r) + np.trapezoid(kj, r) + 1e-9  # (9)


def test_paper003_lemma2_proof_eq30_printed_fails():
    """Lemma 2's proof goes from (29) to (30) with sum_t |a_{j,t} - a_{i,t}|^2 <= 2 C_m, but it is only <= 4 C_m (a_j = -a_i),
    and (30) itself is false: d = 1, unit ball [-1, 1], T = 1, x_1 = 0, a_i = 1, a_j = -1, Gaussian kernels of
    sigma 0.55 and 0.5: (1/U) int |f_i - f_j|^2 = 1.84 > 1.77 = the right side of (30). The statement (10) holds anyway,
    because |k| <= 1 gives (1/U) int |f_i - f_j|^2 <= 4 C_m T directly (here 1.84 <= 4 <= (10)'s right side)."""
    ki = lambda r: np.exp(-r * r / (2 * 0.55**2))              # noqa: E731
    kj = lambda r: np.exp(-r * r / (2 * 0.5**2))               # noqa: E731
    U, Cm, T = 2.0, 1.0, 1
    lhs = si.quad(lambda r: (ki(r) + kj(r)) ** 2, -1, 1)[0] / U          # f_i - f_j = k_i - (-k_j)
    diff_ball = si.quad(lambda r: (ki(r) - kj(r)) ** 2, -1, 1)[0]
    kj2_ball = si.quad(lambda r: kj(r) ** 2, -1, 1)[0]
    eq29 = 2 / U * (Cm * diff_ball + 4 * Cm * kj2_ball)                  # sum |a_j - a_i|^2 = 4 = 4 C_m
    eq30 = 2 * Cm / U * diff_ball + 4 * Cm / U * kj2_ball
    assert lhs <= eq29 + 1e-12                                            # (29) holds
    assert lhs > eq30 * (1 + 1e-3)                                        # (30) as printed fails
    delta = dissimilarity("gaussian", 0.55, "gaussian", 0.5, 1)          # (7), over all of R
    assert lhs <= 4 * Cm * T <= 2 * Cm / U * T * (delta + 2 * U)          # (10) holds


def test_paper003_lemma7_proof_eq64a_printed_index_fails():
    """(64a)-(64b) print E_t[ell_{j,t}] = sum_{k in N_i^out} p_{k,t} L / q_{j,t}; the node j is evaluated when I_t is an
    in-neighbour of j, so the sum runs over k in N_j^in (then it is q_{j,t} and the expectation is L, as (38a)). On a
    4-node graph the printed sum gives 0.57 L for (i, j) = (0, 0) and 2.12 L for (3, 3), while the exact expectation
    over the N outcomes of I_t is L."""
    out = np.array([[0, 1, 2], [1, 0, 2], [2, 0, 1], [3, 0, 1]])
    model = _sfg_on_graph(out, np.array([0.0, -0.5, -1.0, 0.3]), 0.3)
    p, q = model.sampling_.p[0], model.sampling_.q[0]
    L = 0.7
    worst = 0.0
    for i in range(4):
        for j in out[i]:
            exact = sum(p[k] * (L / q[j] if j in out[k] else 0.0) for k in range(4))
            assert exact == pytest.approx(L, rel=1e-12)
            printed = sum(p[k] for k in out[i]) * L / q[j]
            worst = max(worst, abs(printed - L) / L)
    assert worst > 0.1


def test_paper003_sec5_settings_printed_outside_theorem3():
    """Section 5 runs SFG-MKL with xi = eta = 1/sqrt(T) and, after 300 steps, I_t = argmax u. Theorem 3's T^{3/4} needs
    xi ~ T^{-1/4}: with xi = 1/sqrt(T) and the worst case q = xi/|D| the bound (21) grows linearly (log-log slope 1 over
    T = 1e6..1e10), i.e. it guarantees nothing; with xi = T^{-1/4} the slope is 3/4. After the greedy switch the draw is a
    point mass, so the importance-weighted loss (14) is no longer unbiased ((38a) fails: E_t ell_{i,t} = L/q_{i,t} > L for
    i in S_t with q_{i,t} < 1 and 0 < L off S_t), and the proofs of Lemmas 5-7 do not apply."""
    Ts = np.logspace(6, 10, 5)
    N, Dsize, L, C = 41, 10, 1.0, 1.0

    def slope(xi_of_T):
        vals = []
        for T in Ts:
            T = int(T)
            eta, xi = T ** -0.5, xi_of_T(T)
            vals.append(B.paper003_theorem3_rhs(N, 5, eta, xi, T, C, eta, L, T * Dsize / xi, T * Dsize / xi))
        return np.polyfit(np.log(Ts), np.log(vals), 1)[0]

    assert abs(slope(lambda T: T ** -0.5) - 1.0) < 0.02                  # section 5's xi: linear, no guarantee
    assert abs(slope(lambda T: T ** -0.25) - 0.75) < 0.02                 # the theorem's xi: T^{3/4}
    X, y = _stream(6, 2, 3)
    model = SFGMKL(m=3, lam=0.01, eta=0.3, xi=0.2, M=3, greedy_after=3, seed=1, dictionary=SMALL_DICT)
    for t in range(5):
        model.predict_one(X[t])
        s = model.sampling_
        if t >= 3:
            assert s.greedy
            S = set(model.out_neighbours_[int(s.node[0])])
            q = s.q[0]
            # the draw is deterministic: E_t ell_{i,t} = L 1[i in S_t] / q_{i,t}, equal to L only if i in S_t and q = 1
            assert any((i in S and q[i] < 1 - 1e-9) or i not in S for i in range(len(q)))
        model.learn_one(X[t], y[t])


def test_paper003_sec5_beta_rule_printed_outside_theorem4():
    """Section 5 runs SFG-MKL-R with beta_t = (1 - xi) ubar_[10,t] + xi/N; Theorem 4 holds for beta <= 1/N. On Airfoil with
    section 5's settings (41 kernels, D = 50, M = 5, eta = xi = 1/sqrt(T)) beta_t exceeds 1/N = 0.0244 from step 2 on
    (max 0.0275 over the first 300 steps), so the experiments run outside Theorem 4's condition; a constant beta <= 1/N
    meets it (test_paper003_theorem3_theorem4_measured_regret)."""
    from omkl_core.mkl._rfbase import _softmax_masked
    X, y = ok.datasets.load("airfoil")
    T = len(y)
    rate = 1 / math.sqrt(T)
    model = SFGMKLR(m=50, eta=rate, xi=rate, M=5, seed=0)
    betas = []
    for t in range(300):
        model.predict_one(X[t])
        s = model.sampling_
        _, _, beta = model.refined_graph(_softmax_masked(s.log_u, np.ones_like(s.log_u, dtype=bool)), rate)
        betas.append(float(beta[0]))
        model.learn_one(X[t], y[t])
    betas = np.array(betas)
    assert model.N_ == 41
    assert betas[0] == pytest.approx(1 / 41, rel=1e-12)                   # uniform weights: beta = 1/N at t = 1
    assert np.mean(betas > 1 / 41) > 0.9 and betas.max() > 1.1 / 41
