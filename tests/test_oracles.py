"""omkl_core.oracles: opera's oracle() outputs, brute force on tiny cases, and the order of the oracles.

Fixtures: tests/fixtures/opera (opera 1.2.0 ``oracle(Y, experts, model, loss.type = "square")`` on the
synthetic, airfoil and tie inputs; NOTE.md and README.md there).
"""
from __future__ import annotations

import csv
import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from omkl_core import oracles

FIX = Path(__file__).parent / "fixtures" / "opera"
CASES = ["synthetic", "airfoil", "tie"]


def _load(name):
    return np.loadtxt(FIX / name, delimiter=",", skiprows=1, ndmin=2)


def _case(case):
    experts = FIX / f"{case}__experts.csv"
    Z = _load(experts.name if experts.exists() else f"{case}__experts.csv.gz")
    return Z, _load(f"{case}__y.csv")[:, 0]


def _opera_loss(case, model):
    return _load(f"{case}__oracle_{model}__1.2.0__loss.csv")


def _opera_coefficients(case, model):
    with open(FIX / f"{case}__oracle_{model}__1.2.0__coefficients.csv") as fh:
        return np.array([float(r[1]) for r in list(csv.reader(fh))[1:]])


# ---------------------------------------------------------------------------------- opera
@pytest.mark.parametrize("case", CASES)
def test_best_expert_equals_opera_oracle_expert(case):
    Z, y = _case(case)
    res = oracles.best_expert(Z, y)
    opera = _opera_loss(case, "expert")[0, 0]
    assert res.loss == pytest.approx(opera, rel=1e-9)
    assert res.expert == int(np.argmax(_opera_coefficients(case, "expert")))   # opera's one-hot weights
    np.testing.assert_array_equal(res.predictions, Z[:, res.expert])


@pytest.mark.parametrize("case", CASES)
def test_best_convex_not_worse_than_opera_oracle_convex(case):
    """Ours is the exact minimiser: <= opera's optimiser + 1e-12, and opera's is within 1e-9 of it."""
    Z, y = _case(case)
    res = oracles.best_convex(Z, y)
    opera = _opera_loss(case, "convex")[0, 0]
    assert res.loss <= opera + 1e-12
    assert res.loss == pytest.approx(opera, rel=1e-9)
    assert np.all(res.weights >= 0) and abs(res.weights.sum() - 1.0) <= 1e-14
    # opera's convex weights come from an optimiser: equal to ~1e-6 (fixture README); on `tie`
    # X1 == X2, so only w1 + w2 is determined
    w, wo = res.weights, _opera_coefficients(case, "convex")
    if case == "tie":
        w, wo = np.array([w[0] + w[1], w[2]]), np.array([wo[0] + wo[1], wo[2]])
    np.testing.assert_allclose(w, wo, atol=2e-6)


@pytest.mark.parametrize("case", ["synthetic", "airfoil"])
def test_best_linear_equals_opera_oracle_linear(case):
    """synthetic: to 1e-9; airfoil: opera's normal equations are ill-conditioned (8e-9 relative,
    fixture README), so ours (least squares) must be <= opera's and within 1e-7."""
    Z, y = _case(case)
    res = oracles.best_linear(Z, y)
    opera = _opera_loss(case, "linear")[0, 0]
    if case == "synthetic":
        assert res.loss == pytest.approx(opera, rel=1e-9)
    else:
        assert res.loss <= opera * (1 + 1e-12)
        assert res.loss == pytest.approx(opera, rel=1e-7)


def test_best_linear_singular_gram_tie_case_is_least_squares_not_an_error():
    """tie: X1 == X2, opera stops with "system is computationally singular"; the least-squares loss
    is 0.0114861942399 (numpy.linalg.lstsq, fixture README)."""
    Z, y = _case("tie")
    assert np.linalg.matrix_rank(Z.T @ Z) == 2
    res = oracles.best_linear(Z, y)
    assert res.loss == pytest.approx(0.0114861942399, rel=1e-11)
    assert res.weights[0] == pytest.approx(res.weights[1], rel=1e-9)   # minimum norm splits the tie evenly


@pytest.mark.parametrize("case", CASES)
def test_best_shifting_equals_opera_oracle_shifting_every_k(case):
    Z, y = _case(case)
    opera = _opera_loss(case, "shifting")
    res = oracles.best_shifting(Z, y)                      # K = T - 1, as opera
    np.testing.assert_array_equal(opera[:, 0], np.arange(Z.shape[0]))
    np.testing.assert_allclose(res.loss, opera[:, 1], rtol=1e-9, atol=0)
    # every path: at most k shifts, and its loss is the reported one
    shifts = (np.diff(res.paths, axis=1) != 0).sum(axis=1)
    assert np.all(shifts <= np.arange(res.K + 1))
    np.testing.assert_allclose(np.mean((res.predictions - y) ** 2, axis=1), res.loss, rtol=1e-12)


@pytest.mark.parametrize("case", CASES)
def test_best_convex_satisfies_kkt_conditions(case):
    """KKT of min ||Zw - y||^2 on the simplex, checked here from scratch: g = Z^T(Zw - y) is equal to
    mu on the support and >= mu off it; w >= 0, sum w = 1."""
    Z, y = _case(case)
    w = oracles.best_convex(Z, y).weights
    g = Z.T @ (Z @ w - y)
    S = w > 0
    mu = float(np.mean(g[S]))
    scale = float(np.max(np.abs(g)))
    assert np.max(np.abs(g[S] - mu)) <= 1e-12 * scale + 1e-15
    assert np.all(g[~S] >= mu - 1e-12 * scale - 1e-15)
    assert oracles.best_convex(Z, y).kkt_residual <= 1e-12


# ---------------------------------------------------------------------------- brute force
def _tiny(draw_seed, T, N):
    rng = np.random.default_rng(draw_seed)
    return rng.uniform(-1, 2, (T, N)), rng.uniform(0, 1, T)


@pytest.mark.parametrize("N", [2, 3])
@pytest.mark.parametrize("seed", range(6))
def test_best_convex_against_vertices_and_a_fine_simplex_grid(N, seed):
    Z, y = _tiny(seed, 12, N)
    res = oracles.best_convex(Z, y)
    n = 400 if N == 2 else 120
    grid = np.array([c for c in itertools.product(range(n + 1), repeat=N - 1) if sum(c) <= n], float) / n
    W = np.column_stack([grid, 1.0 - grid.sum(axis=1)])                 # every grid point, vertices included
    losses = np.mean((Z @ W.T - y[:, None]) ** 2, axis=0)
    assert res.loss <= losses.min() + 1e-15                             # exact: no grid point is better
    assert res.loss <= np.min(np.mean((Z - y[:, None]) ** 2, axis=0)) + 1e-15   # every vertex
    # and the grid comes close to it (the minimum is not a spurious low value): within the grid's resolution
    G = Z.T @ Z / Z.shape[0]
    assert losses.min() - res.loss <= 2.0 * np.abs(G).max() * (1.0 / n) ** 2 * N + 1e-12


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("T,N", [(5, 2), (6, 3), (4, 3)])
def test_best_shifting_against_every_path(seed, T, N):
    Z, y = _tiny(seed, T, N)
    L = (Z - y[:, None]) ** 2
    best = np.full(T, np.inf)
    for path in itertools.product(range(N), repeat=T):
        k = sum(a != b for a, b in zip(path, path[1:], strict=False))
        best[k:] = np.minimum(best[k:], sum(L[t, j] for t, j in enumerate(path)))   # at most k shifts
    res = oracles.best_shifting(Z, y)
    np.testing.assert_allclose(res.cumulative_loss, best, rtol=1e-13)
    for k in range(T):
        assert sum(L[t, j] for t, j in enumerate(res.paths[k])) == pytest.approx(best[k], rel=1e-13)


# ---------------------------------------------------------------------------- properties
@st.composite
def _streams(draw, max_T=25, max_N=5):
    T = draw(st.integers(1, max_T))
    N = draw(st.integers(1, max_N))
    el = st.floats(-3, 3, allow_nan=False, allow_infinity=False)
    Z = draw(arrays(np.float64, (T, N), elements=el))
    y = draw(arrays(np.float64, (T,), elements=el))
    return Z, y


@settings(max_examples=60)
@given(_streams())
def test_shifting_loss_non_increasing_in_k_and_k0_is_best_expert(stream):
    Z, y = stream
    res = oracles.best_shifting(Z, y, K=min(Z.shape[0] - 1, 6))
    assert np.all(np.diff(res.cumulative_loss) <= 0)
    # k = 0 is the best expert (the DP sums over t in order, np.sum pairwise: equal to rounding)
    assert res.cumulative_loss[0] == pytest.approx(oracles.best_expert(Z, y).cumulative_loss, rel=1e-12, abs=1e-300)
    full = oracles.best_shifting(Z, y, paths=False)
    assert full.cumulative_loss[-1] == pytest.approx(np.sum(np.min((Z - y[:, None]) ** 2, axis=1)), rel=1e-12,
                                                     abs=1e-300)
    shifts = (np.diff(res.paths, axis=1) != 0).sum(axis=1)
    assert np.all(shifts <= np.arange(res.K + 1))


@settings(max_examples=60)
@given(_streams())
def test_linear_le_convex_le_expert(stream):
    Z, y = stream
    e, c, lin = oracles.best_expert(Z, y), oracles.best_convex(Z, y), oracles.best_linear(Z, y)
    tol = 1e-12 * (1.0 + e.cumulative_loss)
    assert c.cumulative_loss <= e.cumulative_loss + tol
    assert lin.cumulative_loss <= c.cumulative_loss + tol
    assert np.all(c.weights >= 0) and c.weights.sum() == pytest.approx(1.0, rel=1e-14)


# ---------------------------------------------------------------------------- interface
def test_oracle_dispatches_opera_model_names():
    Z, y = _case("synthetic")
    assert oracles.oracle(Z, y, "expert").loss == oracles.best_expert(Z, y).loss
    assert oracles.oracle(Z, y).model == "convex"                       # opera's default model
    assert oracles.oracle(Z, y, "linear").loss == oracles.best_linear(Z, y).loss
    np.testing.assert_array_equal(oracles.oracle(Z, y, "shifting", K=3).loss, oracles.best_shifting(Z, y, 3).loss)


@pytest.mark.parametrize("call, exc, name", [
    (lambda: oracles.best_expert(np.ones(3), np.ones(3)), ValueError, "Z"),
    (lambda: oracles.best_convex(np.ones((3, 2)), np.ones(4)), ValueError, "y"),
    (lambda: oracles.best_linear(np.array([[1.0, np.nan]]), np.ones(1)), ValueError, "Z"),
    (lambda: oracles.best_linear(np.ones((2, 2)), np.array([1.0, np.inf])), ValueError, "y"),
    (lambda: oracles.best_shifting(np.ones((3, 2)), np.ones(3), K=-1), ValueError, "K"),
    (lambda: oracles.best_shifting(np.ones((3, 2)), np.ones(3), K=1.5), TypeError, "K"),
    (lambda: oracles.oracle(np.ones((3, 2)), np.ones(3), "ridge"), ValueError, "model"),
    (lambda: oracles.best_expert(np.ones((0, 2)), np.ones(0)), ValueError, "Z"),
])
def test_bad_input_names_the_argument(call, exc, name):
    with pytest.raises(exc, match=name):
        call()
