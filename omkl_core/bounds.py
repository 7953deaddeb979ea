"""Right-hand sides of the papers' bounds, as plain functions (DESIGN.md).

Each function returns the number a test compares a measured quantity with; the docstring
names the paper, the equation and the exact form (which losses, which constants).
"""
from __future__ import annotations

import math

from ._validation import check_int, check_positive, check_scalar

__all__ = ["ewa_eta", "aa_eta", "ewa_bound", "aa_bound", "paper000_eq30_rhs"]


# =======================================================================================
# Aggregation (meta-learner) bounds -- seed paper 000 sec. 3, eq. (30); CBL Props. 3.1, 3.2
# (owner: omkl_core/aggregation.py)
# =======================================================================================
def _interval(A, B):
    A = check_scalar(A, "A")
    B = check_scalar(B, "B")
    if not A < B:
        raise ValueError(f"need A < B, got A={A!r}, B={B!r}")
    return A, B


def ewa_eta(A, B) -> float:
    """Largest eta for which the square loss is eta-exp-concave on [A, B]: 1/(2(B-A)^2).

    P000 sec. 3: eta <= 1/(8 Y^2) on [-Y, Y] (CBL sec. 3.3); with B - A = 2Y this is
    1/(2(B-A)^2).  The default learning rate of :class:`omkl_core.aggregation.EWA`.
    """
    A, B = _interval(A, B)
    return 1.0 / (2.0 * (B - A) ** 2)


def aa_eta(A, B) -> float:
    """Mixability constant of the square loss on [A, B]: 2/(B-A)^2 (CBL sec. 3.6; ref. B)."""
    A, B = _interval(A, B)
    return 2.0 / (B - A) ** 2


def ewa_bound(N, A, B, eta=None) -> float:
    """EWA regret bound, P000 eq. (30) / CBL Prop. 3.1, in terms of *full* squared losses.

    For labels and truncated expert forecasts in [A, B] and eta <= 1/(2(B-A)^2):

        sum_t (<alpha_t, zbar_t> - y_t)^2 - min_j sum_t (zbar_{t,j} - y_t)^2 <= ln N / eta.

    With eta = 1/(2(B-A)^2) (default) the right-hand side is 2 (B-A)^2 ln N = 8 Y^2 ln N;
    P000 eq. (30) states the same with the factor 1/2 on both losses: 4 Y^2 ln N
    (:func:`paper000_eq30_rhs`).
    """
    N = check_int(N, "N", minimum=1)
    A, B = _interval(A, B)
    eta_max = ewa_eta(A, B)
    eta = eta_max if eta is None else check_positive(eta, "eta")
    if eta > eta_max * (1 + 1e-12):
        raise ValueError(f"eta must be <= 1/(2(B-A)^2) = {eta_max!r} for bound (30), got {eta!r}")
    return math.log(N) / eta


def aa_bound(N, A, B, eta=None) -> float:
    """Aggregating Algorithm bound (CBL Prop. 3.2; ref. B), full squared losses.

    For labels in [A, B], truncated expert forecasts and eta <= 2/(B-A)^2:

        sum_t (gamma_t - y_t)^2 - min_j sum_t (zbar_{t,j} - y_t)^2 <= ln N / eta,

    i.e. (B-A)^2 ln N / 2 with the default eta = 2/(B-A)^2 (= ln N / 2 on [0, 1]).
    """
    N = check_int(N, "N", minimum=1)
    A, B = _interval(A, B)
    eta_max = aa_eta(A, B)
    eta = eta_max if eta is None else check_positive(eta, "eta")
    if eta > eta_max * (1 + 1e-12):
        raise ValueError(f"eta must be <= 2/(B-A)^2 = {eta_max!r} for the AA bound, got {eta!r}")
    return math.log(N) / eta


def paper000_eq30_rhs(N, Y) -> float:
    """P000 eq. (30) verbatim: R-bar^EWA_{T,j} (half squared losses, [-Y, Y]) <= 4 Y^2 ln N."""
    N = check_int(N, "N", minimum=1)
    Y = check_positive(Y, "Y")
    return 4.0 * Y * Y * math.log(N)


# =====================================================================================
# Paper 000 -- Rokhlin & Gurtovaya, "Random feature-based double Vovk-Azoury-Warmuth
# algorithm for online multi-kernel learning" (arXiv:2503.20087), sections 2-3.
# Right-hand sides of Lemma 1 (6), Lemma 2 (13), the VAW bounds (11)/(12), the meta-VAW
# bounds (24)/(25) and after (28), Theorem 1 (17), Theorem 2 (20) and Theorem 3 (31), in the paper's
# notation. Losses are the paper's *halved* square losses: R_T(w) = 1/2 sum (<x_t, w_t> - y_t)^2
# - 1/2 sum (<x_t, w> - y_t)^2, and ``comparator_loss`` below is 1/2 sum_t (f(x_t) - y_t)^2.
# (EWA bound (30): ``paper000_eq30_rhs`` above.) Checked in tests/test_theory_paper000.py.
# =====================================================================================

def _p000_pos(value, name):
    return check_positive(value, name)


def _p000_nonneg(value, name):
    value = check_scalar(value, name)
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return value


def _p000_int(value, name):
    return check_int(value, name, minimum=1)


def paper000_lemma1_variance_bound(f_norm_sq: float, m: int) -> float:
    """Lemma 1, eq. (6), first part: E_theta(<w_hat, Phi_theta(x)> - f(x))^2 <= 2 ||f||_H^2 / m.

    ``f_norm_sq`` = ||f||_H^2, ``m`` = number of random features.
    """
    return 2.0 * _p000_nonneg(f_norm_sq, "f_norm_sq") / _p000_int(m, "m")


def paper000_lemma1_weight_norm(f_norm_sq: float, m: int) -> float:
    """Lemma 1, eq. (6), second part (an equality): E_theta ||w_hat||_2^2 = ||f||_H^2 / m."""
    return _p000_nonneg(f_norm_sq, "f_norm_sq") / _p000_int(m, "m")


def paper000_lemma2_bound(f_norm_sq: float, N: int, m: int, f_x: float, y: float) -> float:
    """Lemma 2, eq. (13): E_theta(sum_j <w_hat_j, Phi_theta_j(x)> - y)^2
    <= 2 (N/m) ||f||_H^2 + (f(x) - y)^2, for f = f_1 + ... + f_N in H = H_1 + ... + H_N with
    ||f||_H^2 = sum_j ||f_j||_{H_j}^2 (``f_x`` = f(x))."""
    N = _p000_int(N, "N")
    m = _p000_int(m, "m")
    r = check_scalar(f_x, "f_x") - check_scalar(y, "y")
    return 2.0 * N / m * _p000_nonneg(f_norm_sq, "f_norm_sq") + r * r


def vaw_regret_bound(lam: float, w_norm_sq: float, m: int, Y: float, T: int,
                     rho: float | None = None) -> float:
    """Regret bound of the VAW forecaster (paper 000 eqs. 11 and 12; CBL Theorem 11.8).

    (11): R_T(w) <= lam/2 ||w||_2^2 + m Y^2 / 2 * ln(1 + rho^2 T / (lam m)), whenever
    ||Phi_t||_2 <= rho and |y_t| <= Y; ``m`` is the dimension of the feature vectors.
    (12): ``rho=None`` uses the random-Fourier-feature value rho^2 = 2m (features
    sqrt(2) cos(<omega, x> + b)), i.e. R_T(w) <= lam/2 ||w||^2 + m Y^2/2 * ln(1 + 2T/lam).
    """
    lam = _p000_pos(lam, "lam")
    m = _p000_int(m, "m")
    T = _p000_int(T, "T")
    Y = _p000_nonneg(Y, "Y")
    rho_sq = 2.0 * m if rho is None else _p000_nonneg(rho, "rho") ** 2
    return 0.5 * lam * _p000_nonneg(w_norm_sq, "w_norm_sq") + 0.5 * m * Y * Y * math.log1p(
        rho_sq * T / (lam * m))


def paper000_expert_prediction_bound(N: int, m: int, Y: float, T: int, lam: float) -> float:
    """Eq. (24): sum_j z_{t,j}^2 <= Z_T^2 := 2(T+1) N Y^2 + 2 m N Y^2 ln(1 + 2T/lam), for the
    predictions z_{t,j} = <w_{t,j}, Phi_theta_j(x_t)> of N VAW experts on m random features,
    every t <= T (returns Z_T^2)."""
    N = _p000_int(N, "N")
    m = _p000_int(m, "m")
    T = _p000_int(T, "T")
    Y = _p000_nonneg(Y, "Y")
    lam = _p000_pos(lam, "lam")
    return 2.0 * (T + 1) * N * Y * Y + 2.0 * m * N * Y * Y * math.log1p(2.0 * T / lam)


def paper000_meta_vaw_regret_bound(delta_norm_sq: float, N: int, m: int, Y: float, T: int,
                                   lam: float) -> float:
    """Eq. (25): regret of the meta VAW on the expert predictions z_t w.r.t. delta in R^N:
    R_T(delta) <= lam/2 ||delta||^2 + N Y^2/2 ln(1 + N Y^2/lam (2T(T+1) + 2mT ln(1 + 2T/lam)))."""
    N = _p000_int(N, "N")
    m = _p000_int(m, "m")
    T = _p000_int(T, "T")
    Y = _p000_nonneg(Y, "Y")
    lam = _p000_pos(lam, "lam")
    inner = 2.0 * T * (T + 1) + 2.0 * m * T * math.log1p(2.0 * T / lam)
    return (0.5 * lam * _p000_nonneg(delta_norm_sq, "delta_norm_sq")
            + 0.5 * N * Y * Y * math.log1p(N * Y * Y / lam * inner))


def paper000_truncated_meta_vaw_regret_bound(N: int, Y: float, T: int, lam: float) -> float:
    """After eq. (28) (unnumbered): VAW on the truncated predictions zbar_t in [-Y, Y]^N has
    Rbar_T(delta) <= lam/2 + N Y^2/2 ln(1 + Y^2 T/lam) for every delta in the simplex
    ((11) with rho^2 = N Y^2 and ||delta||^2 <= 1)."""
    N = _p000_int(N, "N")
    T = _p000_int(T, "T")
    Y = _p000_nonneg(Y, "Y")
    lam = _p000_pos(lam, "lam")
    return 0.5 * lam + 0.5 * N * Y * Y * math.log1p(Y * Y * T / lam)


def paper000_theorem1_bound(comparator_loss: float, f_norm_sq: float, N: int, m: int,
                            Y: float, T: int, lam: float) -> float:
    """Theorem 1, eq. (17): VAW on the concatenated N*m random features (16),
    1/2 E_theta sum_t (<w_t, Phi_theta(x_t)> - y_t)^2
    <= 1/2 sum_t (f(x_t) - y_t)^2 + (lam/2 + N T) ||f||_H^2 / m + N m Y^2/2 ln(1 + 2T/lam)
    for every f in the RKHS H of k = k_1 + ... + k_N (``comparator_loss`` = the first term)."""
    N = _p000_int(N, "N")
    m = _p000_int(m, "m")
    T = _p000_int(T, "T")
    Y = _p000_nonneg(Y, "Y")
    lam = _p000_pos(lam, "lam")
    return (_p000_nonneg(comparator_loss, "comparator_loss")
            + (0.5 * lam + N * T) * _p000_nonneg(f_norm_sq, "f_norm_sq") / m
            + 0.5 * N * m * Y * Y * math.log1p(2.0 * T / lam))


def paper000_theorem2_bound(comparator_loss: float, f_norm_sq: float, N: int, m: int,
                            Y: float, T: int, lam: float) -> float:
    """Theorem 2, eq. (20) (VAW2: VAW experts on each kernel's m features, VAW meta-learner),
    1/2 E_theta sum_t (<alpha_t, z_t> - y_t)^2
    <= 1/2 sum_t (y_t - f_j(x_t))^2 + lam/2 + (lam/2 + T) ||f_j||_{H_j}^2 / m
       + m Y^2/2 ln(1 + 2T/lam)
       + N Y^2/2 ln(1 + N Y^2/lam (2T(T+1) + 2mT ln(1 + 2T/lam)))
    for every j and f_j in H_j (``comparator_loss`` = 1/2 sum_t (y_t - f_j(x_t))^2)."""
    N = _p000_int(N, "N")
    m = _p000_int(m, "m")
    T = _p000_int(T, "T")
    Y = _p000_nonneg(Y, "Y")
    lam = _p000_pos(lam, "lam")
    inner = 2.0 * T * (T + 1) + 2.0 * m * T * math.log1p(2.0 * T / lam)
    return (_p000_nonneg(comparator_loss, "comparator_loss") + 0.5 * lam
            + (0.5 * lam + T) * _p000_nonneg(f_norm_sq, "f_norm_sq") / m
            + 0.5 * m * Y * Y * math.log1p(2.0 * T / lam)
            + 0.5 * N * Y * Y * math.log1p(N * Y * Y / lam * inner))


def paper000_theorem3_bound(comparator_loss: float, f_norm_sq: float, N: int, m: int,
                            Y: float, T: int, lam: float) -> float:
    """Theorem 3, eq. (31) (VAW-EWA: VAW experts, EWA (29) on truncated predictions (28)),
    1/2 E_theta sum_t (<alpha_t, zbar_t> - y_t)^2
    <= 1/2 sum_t (f_j(x_t) - y_t)^2 + 4 Y^2 ln N + (lam/2 + T) ||f_j||_{H_j}^2 / m
       + m Y^2/2 ln(1 + 2T/lam)
    for every j and f_j in H_j (``comparator_loss`` = 1/2 sum_t (f_j(x_t) - y_t)^2)."""
    N = _p000_int(N, "N")
    m = _p000_int(m, "m")
    T = _p000_int(T, "T")
    Y = _p000_nonneg(Y, "Y")
    lam = _p000_pos(lam, "lam")
    return (_p000_nonneg(comparator_loss, "comparator_loss") + 4.0 * Y * Y * math.log(N)
            + (0.5 * lam + T) * _p000_nonneg(f_norm_sq, "f_norm_sq") / m
            + 0.5 * m * Y * Y * math.log1p(2.0 * T / lam))


__all__ += ["paper000_lemma1_variance_bound", "paper000_lemma1_weight_norm",
            "paper000_lemma2_bound", "vaw_regret_bound", "paper000_expert_prediction_bound",
            "paper000_meta_vaw_regret_bound", "paper000_truncated_meta_vaw_regret_bound",
            "paper000_theorem1_bound", "paper000_theorem2_bound", "paper000_theorem3_bound"]
