"""Paper 001, eq. (1): the comparator min over the ball ||w||^2 <= B_w of the cumulative loss."""
from __future__ import annotations

import math

import numpy as np
from scipy import optimize

from ..validation import (
    check_matrix,
    check_positive,
)
from .feature_maps import DotProductKernel


def best_in_ball(kernel, loss, X, y, B_w: float):
    """``min_{||w||^2 <= B_w} sum_t l(<w, Psi(x_t)>, y_t)`` over the RKHS (the comparator of
    eq. 1). By the representer argument the minimiser lies in ``span{Psi(x_t)}``; with
    ``K = V diag(lam) V^T`` and ``w = sum_t beta_t Psi(x_t)``, ``z = diag(sqrt(lam)) V^T beta``
    turns the problem into ``min_{||z||^2 <= B_w} sum_t l(margin((V sqrt(lam) z)_t))``, solved by
    SLSQP (for a polynomial kernel with a small explicit feature map, ``z = w`` in that map).
    Returns ``(value, scores)`` with ``scores_t = <w*, Psi(x_t)>``.
    """
    X = check_matrix(X, "X")
    y = np.asarray(y, float)
    B_w = check_positive(B_w, "B_w")
    d = X.shape[1]
    if (isinstance(kernel, DotProductKernel) and kernel.degree is not None
            and sum(d ** n for n in range(kernel.degree + 1)) <= 400):
        # finite explicit feature map Psi(x) = (sqrt(beta_n) x^(x)n)_n: w = z directly
        M = np.concatenate([np.stack([kernel.feature_block(n, x) for x in X])
                            for n in range(kernel.degree + 1)], axis=1)
    else:
        K = kernel.gram(X)
        lam, V = np.linalg.eigh((K + K.T) / 2)
        keep = lam > 1e-12 * max(lam.max(), 1e-300)
        M = V[:, keep] * np.sqrt(lam[keep])      # scores = M z
    sgn = y if loss.kind == "classification" else np.ones_like(y)

    def f(z):
        s = M @ z
        return float(np.sum(loss.loss(s, y)))

    def grad(z):
        s = M @ z
        return M.T @ (sgn * loss.derivative(loss.margin(s, y)))

    cons = [{"type": "ineq", "fun": lambda z: B_w - z @ z, "jac": lambda z: -2 * z}]
    best = None
    for z0 in (np.zeros(M.shape[1]), np.full(M.shape[1], math.sqrt(B_w / max(M.shape[1], 1)) * 0.5)):
        res = optimize.minimize(f, z0, jac=grad, constraints=cons, method="SLSQP",
                                options={"ftol": 1e-13, "maxiter": 500})
        z = res.x
        nz = z @ z
        if nz > B_w:
            z = z * math.sqrt(B_w / nz)
        val = f(z)
        if best is None or val < best[0]:
            best = (val, M @ z)
    return best
