"""Paper 002 -- Zhdanov & Vovk, "Competing with Gaussian linear experts" (2009):
right-hand sides of the equalities of Theorems 1-4 (computed in batch, independently of
the online recursions in omkl_core/ridge/), the regret term of (16), the bounds
(2), (3), (4), (15), (18) and the kernel log-det bound stated after (18).
(owner: omkl_core/ridge/)
"""
from __future__ import annotations

import math

import numpy as np
import scipy.linalg as sla

from ..validation import (
    check_int,
    check_matrix,
    check_positive,
    check_scalar,
    check_square_matrix,
    check_vector,
)


def paper002_ridge_minimiser(X, y, a) -> np.ndarray:
    """theta_0 = argmin_theta sum_t (y_t - theta'x_t)^2 + a||theta||^2, by least squares on
    the stacked system [X; sqrt(a) I] theta = [y; 0] (batch, no online recursion)."""
    X, a = check_matrix(X, "X"), check_positive(a, "a")
    y = check_vector(y, "y", length=X.shape[0])
    n = X.shape[1]
    Z = np.vstack([X, math.sqrt(a) * np.eye(n)])
    return np.linalg.lstsq(Z, np.concatenate([y, np.zeros(n)]), rcond=None)[0]


def _gaussian_log_loss_min(T: int, sigma2: float, square_min: float) -> float:
    """min over experts of L_T + a/(2 sigma^2)||.||^2 for the Gaussian log loss (11), given the
    square-loss minimum ``square_min`` of (1)/(17): (T/2) ln(2 pi sigma^2) + square_min/(2 sigma^2)."""
    return 0.5 * T * math.log(2.0 * math.pi * sigma2) + square_min / (2.0 * sigma2)


def paper002_theorem1_rhs(X, y, a) -> float:
    """Right-hand side of (1): min_theta (sum_t (y_t - theta'x_t)^2 + a||theta||^2)."""
    theta = paper002_ridge_minimiser(X, y, a)
    X, a = check_matrix(X, "X"), check_positive(a, "a")
    r = np.asarray(y, dtype=np.float64) - X @ theta
    return float(r @ r + a * theta @ theta)


def paper002_logdet(X, a) -> float:
    """ln det(I + (1/a) sum_t x_t x_t') (slogdet); the regret term of (2) and (14). By (16)
    it equals sum_t ln(1 + x_t'A_{t-1}^{-1}x_t)."""
    X, a = check_matrix(X, "X"), check_positive(a, "a")
    return float(np.linalg.slogdet(np.eye(X.shape[1]) + X.T @ X / a)[1])


def paper002_theorem2_rhs(X, y, a, sigma2) -> float:
    """Right-hand side of (14): min_theta (L_T(theta) + a/(2 sigma^2)||theta||^2)
    + (1/2) ln det(I + (1/a) sum x_t x_t'), with L_T(theta) the log loss of the expert
    N(theta'x_t, sigma^2) (11): L_T(theta) = (T/2) ln(2 pi sigma^2) + sum (y_t - theta'x_t)^2/(2 sigma^2)."""
    sigma2 = check_positive(sigma2, "sigma2")
    X, a = check_matrix(X, "X"), check_positive(a, "a")
    T = X.shape[0]
    return _gaussian_log_loss_min(T, sigma2, paper002_theorem1_rhs(X, y, a)) + 0.5 * paper002_logdet(X, a)


def paper002_eq3_bound(T, n, a, X_inf) -> float:
    """(3): ln det(I + (1/a) sum x_t x_t') <= n ln(1 + T X^2/a) when ||x_t||_inf <= X."""
    T = check_int(T, "T", minimum=0)
    n = check_int(n, "n", minimum=1)
    a = check_positive(a, "a")
    X_inf = check_scalar(X_inf, "X_inf")
    if X_inf < 0:
        raise ValueError(f"X_inf must be >= 0, got {X_inf!r}")
    return n * math.log1p(T * X_inf * X_inf / a)


def paper002_corollary1_bound(X, y, a, Y) -> float:
    """(2): min_theta(...) + 4 Y^2 ln det(I + (1/a) sum x_t x_t'), for |y_t| <= Y; bounds the
    square loss of Ridge Regression clipped to [-Y, Y]."""
    Y = check_scalar(Y, "Y")
    if Y < 0:
        raise ValueError(f"Y must be >= 0, got {Y!r}")
    return paper002_theorem1_rhs(X, y, a) + 4.0 * Y * Y * paper002_logdet(X, a)


def paper002_corollary2_bound(X, y, a, Z=None) -> float:
    """(4): (1 + Z^2/a) min_theta(...) for ||x_t||_2 <= Z (default Z = max_t ||x_t||_2);
    bounds the unclipped square loss of Ridge Regression."""
    X, a = check_matrix(X, "X"), check_positive(a, "a")
    Z = float(np.sqrt((X * X).sum(axis=1)).max()) if Z is None else check_scalar(Z, "Z")
    return (1.0 + Z * Z / a) * paper002_theorem1_rhs(X, y, a)


def paper002_eq15_bound(X, y, a, sigma2, X_inf=None) -> float:
    """(15): min_theta (L_T(theta) + a/(2 sigma^2)||theta||^2) + (n/2) ln(1 + T X^2/a), for
    ||x_t||_inf <= X (default X = max_t ||x_t||_inf); bounds L_T of Bayesian Ridge Regression."""
    X, a = check_matrix(X, "X"), check_positive(a, "a")
    T, n = X.shape
    X_inf = float(np.abs(X).max()) if X_inf is None else X_inf
    sigma2 = check_positive(sigma2, "sigma2")
    reg_min = _gaussian_log_loss_min(T, sigma2, paper002_theorem1_rhs(X, y, a))
    return reg_min + 0.5 * paper002_eq3_bound(T, n, a, X_inf)


def paper002_kernel_ridge_dual(K, y, a) -> np.ndarray:
    """Dual coefficients c = (K + aI)^{-1} y of the batch minimiser f = sum_i c_i K(x_i, .) of
    sum_t (y_t - f(x_t))^2 + a||f||_F^2 (representer theorem; scipy Cholesky solve)."""
    K, a = check_square_matrix(K, "K"), check_positive(a, "a")
    y = check_vector(y, "y", length=K.shape[0])
    return sla.solve(K + a * np.eye(K.shape[0]), y, assume_a="pos")


def paper002_theorem3_rhs(K, y, a) -> float:
    """Right-hand side of (17): min_{f in F} (sum_t (y_t - f(x_t))^2 + a||f||_F^2), evaluated
    at the batch minimiser: sum_t (y_t - (Kc)_t)^2 + a c'Kc."""
    c = paper002_kernel_ridge_dual(K, y, a)
    K, a = check_square_matrix(K, "K"), check_positive(a, "a")
    r = np.asarray(y, dtype=np.float64) - K @ c
    return float(r @ r + a * c @ K @ c)


def paper002_kernel_logdet(K, a) -> float:
    """ln det(I + K_T/a), the regret term of Theorem 4 and (18)."""
    K, a = check_square_matrix(K, "K"), check_positive(a, "a")
    return float(np.linalg.slogdet(np.eye(K.shape[0]) + K / a)[1])


def paper002_theorem4_rhs(K, y, a, sigma2) -> float:
    """Right-hand side of Theorem 4: min_f (L_T(f) + a/(2 sigma^2)||f||^2) + (1/2) ln det(I + K_T/a)."""
    sigma2 = check_positive(sigma2, "sigma2")
    K, a = check_square_matrix(K, "K"), check_positive(a, "a")
    T = K.shape[0]
    return _gaussian_log_loss_min(T, sigma2, paper002_theorem3_rhs(K, y, a)) + 0.5 * paper002_kernel_logdet(K, a)


def paper002_corollary4_bound(K, y, a, Y) -> float:
    """(18): min_f (...) + 4 Y^2 ln det(I + K_T/a), for |y_t| <= Y (clipped kernel ridge)."""
    Y = check_scalar(Y, "Y")
    if Y < 0:
        raise ValueError(f"Y must be >= 0, got {Y!r}")
    return paper002_theorem3_rhs(K, y, a) + 4.0 * Y * Y * paper002_kernel_logdet(K, a)


def paper002_kernel_logdet_bound(T, a, c2) -> float:
    """After (18): ln det(I + K_T/a) <= T ln(1 + c_F^2/a), c_F^2 = sup_x K(x, x)."""
    T = check_int(T, "T", minimum=0)
    a = check_positive(a, "a")
    c2 = check_scalar(c2, "c2")
    if c2 < 0:
        raise ValueError(f"c2 must be >= 0, got {c2!r}")
    return T * math.log1p(c2 / a)


__all__ = ["paper002_ridge_minimiser", "paper002_theorem1_rhs", "paper002_logdet",
            "paper002_theorem2_rhs", "paper002_eq3_bound", "paper002_corollary1_bound",
            "paper002_corollary2_bound", "paper002_eq15_bound", "paper002_kernel_ridge_dual",
            "paper002_theorem3_rhs", "paper002_kernel_logdet", "paper002_theorem4_rhs",
            "paper002_corollary4_bound", "paper002_kernel_logdet_bound"]
