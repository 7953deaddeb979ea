"""The Gibbs posterior, eq. (8) of paper 004 (T. Zhang, ch. 10 slides "Gibbs Algorithm").

q_hat(w | S_n) prop. to q_0(w) exp(-(1/(lam n)) sum_i phi(w, Z_i)) over a finite parameter set;
by Proposition 7.16 it is the minimiser (9) of E_{w~q} (1/n) sum_i phi(w, Z_i) + lam KL(q || q_0)
(``gibbs_objective`` evaluates (9); the identity is checked in tests/test_theory_paper004.py).
"""
from __future__ import annotations

import numpy as np

from ..validation import check_matrix, check_positive, check_vector

__all__ = ["gibbs_posterior", "gibbs_objective", "kl_divergence"]


def _prior(prior, N):
    if prior is None:
        return np.full(N, 1.0 / N)
    q0 = check_vector(prior, "prior", length=None)
    if q0.shape[0] != N:
        raise ValueError(f"prior has length {q0.shape[0]} but Phi has {N} parameters (rows)")
    if np.any(q0 < 0) or not np.isclose(q0.sum(), 1.0, rtol=1e-12, atol=0):
        raise ValueError("prior must be a probability vector (non-negative, summing to 1)")
    return q0


def _risks(Phi):
    A = np.asarray(Phi, dtype=np.float64)
    if A.ndim == 2:
        return check_matrix(A, "Phi").mean(axis=1)
    return check_vector(A, "Phi")


def gibbs_posterior(Phi, lam, prior=None) -> np.ndarray:
    """Eq. (8): q_hat_k prop. to q0_k exp(-(1/(lam n)) sum_i phi(w_k, Z_i)), in log-sum-exp form.

    Parameters
    ----------
    Phi : array of shape (N, n) or (N,)
        phi(w_k, Z_i) for N parameters and n samples, or directly the empirical risks
        (1/n) sum_i phi(w_k, Z_i) as a vector.
    lam : float
        lam > 0 of (8)-(9).
    prior : array of shape (N,) or None, default=None
        q_0 (uniform when None); zero entries get zero posterior mass.

    Returns
    -------
    q : ndarray of shape (N,), a probability vector.
    """
    lam = check_positive(lam, "lam")
    risk = _risks(Phi)
    q0 = _prior(prior, risk.shape[0])
    with np.errstate(divide="ignore"):
        logit = np.log(q0) - risk / lam                        # eq. (8), log scale
    m = logit.max()
    e = np.exp(logit - m)
    return e / e.sum()


def kl_divergence(q, q0) -> float:
    """KL(q || q0) = sum_k q_k ln(q_k / q0_k) (0 ln 0 = 0; inf if q puts mass where q0 has none)."""
    q = np.asarray(q, dtype=np.float64)
    q0 = np.asarray(q0, dtype=np.float64)
    pos = q > 0
    if np.any(q0[pos] == 0):
        return float("inf")
    return float(np.sum(q[pos] * np.log(q[pos] / q0[pos])))


def gibbs_objective(q, Phi, lam, prior=None) -> float:
    """Eq. (9): E_{w~q} (1/n) sum_i phi(w, Z_i) + lam KL(q || q_0)."""
    lam = check_positive(lam, "lam")
    risk = _risks(Phi)
    q0 = _prior(prior, risk.shape[0])
    q = check_vector(q, "q", length=None)
    return float(q @ risk + lam * kl_divergence(q, q0))
