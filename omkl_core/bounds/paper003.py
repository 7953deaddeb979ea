"""Paper 003 -- Ghari & Shen, "Graph-Aided Online Multi-Kernel Learning" (JMLR 24, 2023).

Right-hand sides of Lemma 2 (10), Lemma 5 (32), Lemma 6 ((42) as printed and (56) as proved),
Lemma 7 (57), Theorem 3 (21), (79) and Theorem 4 (26), in the paper's notation. The losses
are the paper's L in [0, 1] (assumption as2); T is the horizon. Checked in
tests/test_theory_paper003.py.
"""
from __future__ import annotations

import math

import numpy as np

from ..validation import check_int, check_nonneg, check_positive

__all__ = ["paper003_lemma2_rhs", "paper003_lemma5_rhs", "paper003_lemma6_rhs_printed",
           "paper003_lemma6_rhs", "paper003_lemma7_rhs", "paper003_theorem3_rhs",
           "paper003_eq79_rhs", "paper003_theorem4_rhs"]


def paper003_lemma2_rhs(C_m: float, delta: float, T: int, U_d: float) -> float:
    """Lemma 2, eq. (10): (2 C_m / U_d) sum_{t=1}^T (Delta(kappa_i, kappa_j) + 2 U_d); Delta of
    shift-invariant kernels does not depend on x_t, so the sum is T (Delta + 2 U_d)."""
    return 2.0 * check_nonneg(C_m, "C_m") / check_positive(U_d, "U_d") * check_int(T, "T") * (
        check_nonneg(delta, "delta") + 2.0 * U_d)


def paper003_lemma5_rhs(theta_norm_sq: float, eta: float, L: float, q) -> float:
    """Lemma 5, eq. (32): ||theta_i*||^2/(2 eta) + sum_t eta L^2 / (2 q_{i,t}) (q: the q_{i,t})."""
    q = np.asarray(q, dtype=np.float64)
    if np.any(q <= 0):
        raise ValueError("q must be > 0")
    eta = check_positive(eta, "eta")
    return check_nonneg(theta_norm_sq, "theta_norm_sq") / (2 * eta) + float(np.sum(eta * L * L / (2 * q)))


def paper003_lemma6_rhs_printed(N: int, eta: float, T: int) -> float:
    """Lemma 6, eq. (42) as printed: ln N/eta + eta (1 + N/2 - eta/2) T."""
    N, T, eta = check_int(N, "N"), check_int(T, "T"), check_positive(eta, "eta")
    return math.log(N) / eta + eta * (1 + N / 2 - eta / 2) * T


def paper003_lemma6_rhs(N: int, eta: float, xi: float, T: int) -> float:
    """Lemma 6 as proved, eq. (56) (used by Thm 3): ln N/eta + (xi + eta N/2 - eta xi/2) T.
    Equals (42) when xi = eta."""
    N, T, eta = check_int(N, "N"), check_int(T, "T"), check_positive(eta, "eta")
    return math.log(N) / eta + (check_nonneg(xi, "xi") + eta * N / 2 - eta * xi / 2) * T


def paper003_lemma7_rhs(n_out: int, eta: float, inv_qbar) -> float:
    """Lemma 7, eq. (57): ln|N_i^out|/eta + (eta/2) sum_t 1/qbar_{i,t}."""
    eta = check_positive(eta, "eta")
    return math.log(check_int(n_out, "n_out")) / eta + eta / 2 * float(np.sum(inv_qbar))


def paper003_theorem3_rhs(N: int, n_out: int, eta: float, xi: float, T: int, C: float, eps: float,
                          L: float, sum_inv_qbar: float, sum_inv_q_star: float) -> float:
    """Theorem 3, eq. (21): ln(N |N_i^out|)/eta + (1+eps) C^2/(2 eta) + eps L T C
    + (xi + eta N/2 - eta xi/2) T + (eta/2) sum_t (1/qbar_{i,t} + L^2/q_{j*,t});
    ``sum_inv_qbar`` = sum_t 1/qbar_{i,t}, ``sum_inv_q_star`` = sum_t 1/q_{j*,t}."""
    N, T, eta = check_int(N, "N"), check_int(T, "T"), check_positive(eta, "eta")
    return (math.log(N * check_int(n_out, "n_out")) / eta + (1 + eps) * C * C / (2 * eta) + eps * L * T * C
            + (xi + eta * N / 2 - eta * xi / 2) * T
            + eta / 2 * (check_nonneg(sum_inv_qbar, "sum_inv_qbar") + L * L * check_nonneg(sum_inv_q_star, "sum_inv_q_star")))


def paper003_eq79_rhs(L: float, T: int, beta: float) -> float:
    """(79): (L^2 + 1) T / beta -- an *upper* bound on sum_t (1/qbar_{i,t} + L^2/q_{j*,t}) when
    every q >= beta (printed with >=; the proof of Thm 4 needs <=)."""
    return (L * L + 1) * check_int(T, "T") / check_positive(beta, "beta")


def paper003_theorem4_rhs(N: int, eta: float, xi: float, beta: float, T: int, C: float, eps: float,
                          L: float) -> float:
    """Theorem 4, eq. (26): 2 ln N/eta + (1+eps) C^2/(2 eta) + eps L T C
    + (xi + (eta/2)(L^2 + N beta + 1)/beta - eta xi/2) T, any beta <= 1/N."""
    N, T, eta = check_int(N, "N"), check_int(T, "T"), check_positive(eta, "eta")
    beta = check_positive(beta, "beta")
    return (2 * math.log(N) / eta + (1 + eps) * C * C / (2 * eta) + eps * L * T * C
            + (xi + eta / 2 * (L * L + N * beta + 1) / beta - eta * xi / 2) * T)
