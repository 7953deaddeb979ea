"""Aggregation (meta-learner) bounds -- paper 000 sec. 3, eq. (30); CBL Props. 3.1, 3.2
(owner: omkl_core/aggregation.py)
"""
from __future__ import annotations

__all__ = ["ewa_eta", "aa_eta", "ewa_bound", "aa_bound", "paper000_eq30_rhs"]

import math

from ..validation import (
    check_int,
    check_positive,
    check_scalar,
)


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


def _log_n_over_eta(N, A, B, eta, eta_of, eta_text: str, what: str) -> float:
    """ln N / eta for eta <= eta_of(A, B) (the largest admissible learning rate; the default)."""
    N = check_int(N, "N", minimum=1)
    A, B = _interval(A, B)
    eta_max = eta_of(A, B)
    eta = eta_max if eta is None else check_positive(eta, "eta")
    if eta > eta_max * (1 + 1e-12):
        raise ValueError(f"eta must be <= {eta_text} = {eta_max!r} for {what}, got {eta!r}")
    return math.log(N) / eta


def ewa_bound(N, A, B, eta=None) -> float:
    """EWA regret bound, P000 eq. (30) / CBL Prop. 3.1, in terms of *full* squared losses.

    For labels and truncated expert forecasts in [A, B] and eta <= 1/(2(B-A)^2):

        sum_t (<alpha_t, zbar_t> - y_t)^2 - min_j sum_t (zbar_{t,j} - y_t)^2 <= ln N / eta.

    With eta = 1/(2(B-A)^2) (default) the right-hand side is 2 (B-A)^2 ln N = 8 Y^2 ln N;
    P000 eq. (30) states the same with the factor 1/2 on both losses: 4 Y^2 ln N
    (:func:`paper000_eq30_rhs`).
    """
    return _log_n_over_eta(N, A, B, eta, ewa_eta, "1/(2(B-A)^2)", "bound (30)")


def aa_bound(N, A, B, eta=None) -> float:
    """Aggregating Algorithm bound (CBL Prop. 3.2; ref. B), full squared losses.

    For labels in [A, B], truncated expert forecasts and eta <= 2/(B-A)^2:

        sum_t (gamma_t - y_t)^2 - min_j sum_t (zbar_{t,j} - y_t)^2 <= ln N / eta,

    i.e. (B-A)^2 ln N / 2 with the default eta = 2/(B-A)^2 (= ln N / 2 on [0, 1]).
    """
    return _log_n_over_eta(N, A, B, eta, aa_eta, "2/(B-A)^2", "the AA bound")


def paper000_eq30_rhs(N, Y) -> float:
    """P000 eq. (30) verbatim: R-bar^EWA_{T,j} (half squared losses, [-Y, Y]) <= 4 Y^2 ln N."""
    N = check_int(N, "N", minimum=1)
    Y = check_positive(Y, "Y")
    return 4.0 * Y * Y * math.log(N)


