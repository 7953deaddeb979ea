"""Paper 000 -- Rokhlin & Gurtovaya, "Random feature-based double Vovk-Azoury-Warmuth
algorithm for online multi-kernel learning" (arXiv:2503.20087), sections 2-3.
Right-hand sides of Lemma 1 (6), Lemma 2 (13), the VAW bounds (11)/(12), the meta-VAW
bounds (24)/(25) and after (28), Theorem 1 (17), Theorem 2 (20) and Theorem 3 (31), in the paper's
notation. Losses are the paper's *halved* square losses: R_T(w) = 1/2 sum (<x_t, w_t> - y_t)^2
- 1/2 sum (<x_t, w> - y_t)^2, and ``comparator_loss`` below is 1/2 sum_t (f(x_t) - y_t)^2.
(EWA bound (30): ``paper000_eq30_rhs`` above.) Checked in tests/test_theory_paper000.py.
"""
from __future__ import annotations

import math

from ..validation import (
    check_int,
    check_nonneg,
    check_positive,
    check_scalar,
)


def paper000_lemma1_variance_bound(f_norm_sq: float, m: int) -> float:
    """Lemma 1, eq. (6), first part: E_theta(<w_hat, Phi_theta(x)> - f(x))^2 <= 2 ||f||_H^2 / m.

    ``f_norm_sq`` = ||f||_H^2, ``m`` = number of random features.
    """
    return 2.0 * check_nonneg(f_norm_sq, "f_norm_sq") / check_int(m, "m")


def paper000_lemma1_weight_norm(f_norm_sq: float, m: int) -> float:
    """Lemma 1, eq. (6), second part (an equality): E_theta ||w_hat||_2^2 = ||f||_H^2 / m."""
    return check_nonneg(f_norm_sq, "f_norm_sq") / check_int(m, "m")


def paper000_lemma2_bound(f_norm_sq: float, N: int, m: int, f_x: float, y: float) -> float:
    """Lemma 2, eq. (13): E_theta(sum_j <w_hat_j, Phi_theta_j(x)> - y)^2
    <= 2 (N/m) ||f||_H^2 + (f(x) - y)^2, for f = f_1 + ... + f_N in H = H_1 + ... + H_N with
    ||f||_H^2 = sum_j ||f_j||_{H_j}^2 (``f_x`` = f(x))."""
    N = check_int(N, "N")
    m = check_int(m, "m")
    r = check_scalar(f_x, "f_x") - check_scalar(y, "y")
    return 2.0 * N / m * check_nonneg(f_norm_sq, "f_norm_sq") + r * r


def vaw_regret_bound(lam: float, w_norm_sq: float, m: int, Y: float, T: int,
                     rho: float | None = None) -> float:
    """Regret bound of the VAW forecaster (paper 000 eqs. 11 and 12; CBL Theorem 11.8).

    (11): R_T(w) <= lam/2 ||w||_2^2 + m Y^2 / 2 * ln(1 + rho^2 T / (lam m)), whenever
    ||Phi_t||_2 <= rho and |y_t| <= Y; ``m`` is the dimension of the feature vectors.
    (12): ``rho=None`` uses the random-Fourier-feature value rho^2 = 2m (features
    sqrt(2) cos(<omega, x> + b)), i.e. R_T(w) <= lam/2 ||w||^2 + m Y^2/2 * ln(1 + 2T/lam).
    """
    lam = check_positive(lam, "lam")
    m = check_int(m, "m")
    T = check_int(T, "T")
    Y = check_nonneg(Y, "Y")
    rho_sq = 2.0 * m if rho is None else check_nonneg(rho, "rho") ** 2
    return 0.5 * lam * check_nonneg(w_norm_sq, "w_norm_sq") + 0.5 * m * Y * Y * math.log1p(
        rho_sq * T / (lam * m))


def paper000_expert_prediction_bound(N: int, m: int, Y: float, T: int, lam: float) -> float:
    """Eq. (24): sum_j z_{t,j}^2 <= Z_T^2 := 2(T+1) N Y^2 + 2 m N Y^2 ln(1 + 2T/lam), for the
    predictions z_{t,j} = <w_{t,j}, Phi_theta_j(x_t)> of N VAW experts on m random features,
    every t <= T (returns Z_T^2)."""
    N = check_int(N, "N")
    m = check_int(m, "m")
    T = check_int(T, "T")
    Y = check_nonneg(Y, "Y")
    lam = check_positive(lam, "lam")
    return 2.0 * (T + 1) * N * Y * Y + 2.0 * m * N * Y * Y * math.log1p(2.0 * T / lam)


def paper000_meta_vaw_regret_bound(delta_norm_sq: float, N: int, m: int, Y: float, T: int,
                                   lam: float) -> float:
    """Eq. (25): regret of the meta VAW on the expert predictions z_t w.r.t. delta in R^N:
    R_T(delta) <= lam/2 ||delta||^2 + N Y^2/2 ln(1 + N Y^2/lam (2T(T+1) + 2mT ln(1 + 2T/lam)))."""
    N = check_int(N, "N")
    m = check_int(m, "m")
    T = check_int(T, "T")
    Y = check_nonneg(Y, "Y")
    lam = check_positive(lam, "lam")
    inner = 2.0 * T * (T + 1) + 2.0 * m * T * math.log1p(2.0 * T / lam)
    return (0.5 * lam * check_nonneg(delta_norm_sq, "delta_norm_sq")
            + 0.5 * N * Y * Y * math.log1p(N * Y * Y / lam * inner))


def paper000_truncated_meta_vaw_regret_bound(N: int, Y: float, T: int, lam: float) -> float:
    """After eq. (28) (unnumbered): VAW on the truncated predictions zbar_t in [-Y, Y]^N has
    Rbar_T(delta) <= lam/2 + N Y^2/2 ln(1 + Y^2 T/lam) for every delta in the simplex
    ((11) with rho^2 = N Y^2 and ||delta||^2 <= 1)."""
    N = check_int(N, "N")
    T = check_int(T, "T")
    Y = check_nonneg(Y, "Y")
    lam = check_positive(lam, "lam")
    return 0.5 * lam + 0.5 * N * Y * Y * math.log1p(Y * Y * T / lam)


def paper000_theorem1_bound(comparator_loss: float, f_norm_sq: float, N: int, m: int,
                            Y: float, T: int, lam: float) -> float:
    """Theorem 1, eq. (17): VAW on the concatenated N*m random features (16),
    1/2 E_theta sum_t (<w_t, Phi_theta(x_t)> - y_t)^2
    <= 1/2 sum_t (f(x_t) - y_t)^2 + (lam/2 + N T) ||f||_H^2 / m + N m Y^2/2 ln(1 + 2T/lam)
    for every f in the RKHS H of k = k_1 + ... + k_N (``comparator_loss`` = the first term)."""
    N = check_int(N, "N")
    m = check_int(m, "m")
    T = check_int(T, "T")
    Y = check_nonneg(Y, "Y")
    lam = check_positive(lam, "lam")
    return (check_nonneg(comparator_loss, "comparator_loss")
            + (0.5 * lam + N * T) * check_nonneg(f_norm_sq, "f_norm_sq") / m
            + 0.5 * N * m * Y * Y * math.log1p(2.0 * T / lam))


def paper000_theorem2_bound(comparator_loss: float, f_norm_sq: float, N: int, m: int,
                            Y: float, T: int, lam: float) -> float:
    """Theorem 2, eq. (20) (VAW2: VAW experts on each kernel's m features, VAW meta-learner)::

        1/2 E_theta sum_t (<alpha_t, z_t> - y_t)^2
        <= 1/2 sum_t (y_t - f_j(x_t))^2 + lam/2 + (lam/2 + T) ||f_j||_{H_j}^2 / m
           + m Y^2/2 ln(1 + 2T/lam)
           + N Y^2/2 ln(1 + N Y^2/lam (2T(T+1) + 2mT ln(1 + 2T/lam)))

    for every j and f_j in H_j (``comparator_loss`` = 1/2 sum_t (y_t - f_j(x_t))^2)."""
    m = check_int(m, "m")
    T = check_int(T, "T")
    Y = check_nonneg(Y, "Y")
    lam = check_positive(lam, "lam")
    # the meta VAW's regret (25) against delta = e_j (||delta||^2 = 1) gives lam/2 + its log term
    return (check_nonneg(comparator_loss, "comparator_loss")
            + (0.5 * lam + T) * check_nonneg(f_norm_sq, "f_norm_sq") / m
            + 0.5 * m * Y * Y * math.log1p(2.0 * T / lam)
            + paper000_meta_vaw_regret_bound(1.0, N, m, Y, T, lam))


def paper000_theorem3_bound(comparator_loss: float, f_norm_sq: float, N: int, m: int,
                            Y: float, T: int, lam: float) -> float:
    """Theorem 3, eq. (31) (VAW-EWA: VAW experts, EWA (29) on truncated predictions (28))::

        1/2 E_theta sum_t (<alpha_t, zbar_t> - y_t)^2
        <= 1/2 sum_t (f_j(x_t) - y_t)^2 + 4 Y^2 ln N + (lam/2 + T) ||f_j||_{H_j}^2 / m
           + m Y^2/2 ln(1 + 2T/lam)

    for every j and f_j in H_j (``comparator_loss`` = 1/2 sum_t (f_j(x_t) - y_t)^2)."""
    N = check_int(N, "N")
    m = check_int(m, "m")
    T = check_int(T, "T")
    Y = check_nonneg(Y, "Y")
    lam = check_positive(lam, "lam")
    return (check_nonneg(comparator_loss, "comparator_loss") + 4.0 * Y * Y * math.log(N)
            + (0.5 * lam + T) * check_nonneg(f_norm_sq, "f_norm_sq") / m
            + 0.5 * m * Y * Y * math.log1p(2.0 * T / lam))


__all__ = ["paper000_lemma1_variance_bound", "paper000_lemma1_weight_norm",
            "paper000_lemma2_bound", "vaw_regret_bound", "paper000_expert_prediction_bound",
            "paper000_meta_vaw_regret_bound", "paper000_truncated_meta_vaw_regret_bound",
            "paper000_theorem1_bound", "paper000_theorem2_bound", "paper000_theorem3_bound"]


