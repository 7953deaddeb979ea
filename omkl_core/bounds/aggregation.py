"""Aggregation (meta-learner) bounds -- paper 000 sec. 3, eq. (30); CBL Props. 3.1, 3.2; ML-Poly's
second-order bound (Gaillard, Stoltz & van Erven 2014) -- and the report row of a bound evaluated on a
run (:class:`BoundCheck`) and the declaration a rule carries beside its update (:class:`RuleBound`).
(owner: omkl_core/aggregation/)
"""
from __future__ import annotations

__all__ = ["ewa_eta", "aa_eta", "ewa_bound", "aa_bound", "paper000_eq30_rhs", "BoundCheck", "RuleBound", "NO_BOUND",
           "bound_row", "no_bound_row", "MLPolyPotential", "mlpoly_potential_bound"]

import math
from dataclasses import dataclass

import numpy as np

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




# ------------------------------------------------------------------------------------------------
# A meta-learner's bound, declared beside its rule (issue 41): the report row and the declaration
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BoundCheck:
    """One stated bound evaluated on a run: ``lhs <= bound`` (``holds``), in the equation's units."""

    equation: str                 # e.g. "P000 eq. (30) (CBL Prop. 3.1)"; NO_BOUND when none is stated
    comparator: str               # what the learner is compared with, e.g. "best expert"
    lhs: float | None             # the left side on this run (a regret, or a loss for P002 (4))
    bound: float | None           # the right side with the run's constants
    holds: bool | None            # lhs <= bound up to float slack; None: nothing evaluated
    units: str = ""               # "sum (yhat-y)^2", "1/2 sum (yhat-y)^2"
    note: str = ""                # constants used, or why nothing was evaluated
    expert: int | None = None     # the expert compared with (index into Z), when it is one expert


#: The text of a row for a meta-learner for which no bound is stated (in papers 000-004 or beside its rule).
NO_BOUND = "no bound stated in papers 000-004"


def _slack(*values) -> float:
    """Float slack of a one-sided check between sums of T terms."""
    return 1e-10 * max(1.0, *(abs(float(v)) for v in values))


def bound_row(equation, comparator, lhs, bound, units, note="", expert=None, size=0.0) -> BoundCheck:
    """A :class:`BoundCheck` with ``holds`` = lhs <= bound up to float slack (relative to the largest of
    |lhs|, |bound| and ``size``: the sums of squared losses a regret is the difference of)."""
    return BoundCheck(equation, comparator, float(lhs), float(bound),
                      bool(lhs <= bound + _slack(lhs, bound, size)), units, note, expert)


def no_bound_row(comparator: str, note: str, equation: str = NO_BOUND) -> BoundCheck:
    """A row that evaluates nothing (``note`` says why)."""
    return BoundCheck(equation, comparator, None, None, None, "", note)


@dataclass(frozen=True)
class RuleBound:
    """A meta-learner's stated regret bound, declared as a class attribute beside its rule
    (``regret_bound``) so that :func:`omkl_core.regret.regret_report`, ``Mixture.summary`` and
    ``omkl run --regret`` print it without knowing the rule (each rule's ``stated_bounds``
    evaluates it on a run)."""

    name: str          # a short name: "ML-Poly's second-order bound (Gaillard, Stoltz & van Erven 2014)"
    source: str        # the paper (authors, year, venue)
    where: str         # theorem / equation / section
    statement: str     # the inequality, in the notation of ``symbols``
    symbols: str       # what each symbol is, in words, and how the run gives it
    assumes: str       # what the bound needs (label range, learning rate, ...): "nothing" when scale-free

    def cite(self) -> str:
        """``source, where`` in one line."""
        return f"{self.source}, {self.where}"


#: ``exp(-700)``: opera's "infinite" first learning rate 1/eta_1 (ref. A.4) -- the same constant as the rule's
_EPS700 = math.exp(-700.0)


@dataclass(frozen=True)
class MLPolyPotential:
    """The terms of :func:`mlpoly_potential_bound` on one run (arrays over the N experts)."""

    regret: np.ndarray       # (N,) sum_t (yhat_t - y_t)^2 - sum_t (zbar_{t,k} - y_t)^2
    linearised: np.ndarray   # (N,) R_{T,k} = sum_t r_{t,k}
    curvature: np.ndarray    # (N,) sum_t (yhat_t - zbar_{t,k})^2  (regret = linearised - curvature, exactly)
    bound: np.ndarray        # (N,) sqrt((e^-700 + S_{T,k} + B_T) C_T) - curvature: the bound on ``regret``
    S: np.ndarray            # (N,) S_{T,k} = sum_t r_{t,k}^2
    B: float                 # B_T = max_{t,k} r_{t,k}^2
    C: float                 # C_T, the bound on the potential (see mlpoly_potential_bound)


def mlpoly_potential_bound(Zb, y, predictions) -> MLPolyPotential:
    """ML-Poly's regret bound against every expert, evaluated on a run (issue 41).

    ML-Poly is the polynomially weighted average with one learning rate per expert of Gaillard,
    Stoltz & van Erven (2014), "A second-order bound with excess losses", COLT 2014, PMLR 35,
    pp. 176-196, section 2 (their ML-Poly and its second-order bound, proved with the potential
    Phi = sum_k eta_k (R_k)_+^2); :class:`omkl_core.aggregation.MLPoly` runs it as opera's ``MLpol``
    (ref. A.4) with the gradient trick and the scale-free learning rates

        1/eta_{t,k} = e^-700 + S_{t-1,k} + B_{t-1},  S_{t,k} = sum_{s<=t} r_{s,k}^2,  B_t = max_{s<=t, j} r_{s,j}^2,

    where the paper has 1 + S_{t-1,k} for regrets in [-1, 1]. The paper's potential argument
    carried out with opera's rates gives, for *any* forecasts and labels (no range assumed) and
    every expert k:

        R_{T,k} = sum_t r_{t,k} <= sqrt((e^-700 + S_{T,k} + B_T) C_T),

    r_{t,k} = 2 (yhat_t - y_t)(yhat_t - zbar_{t,k}) the instantaneous linearised regret (ref. A.1),
    zbar the forecasts as the rule sees them (truncated to its ``bounds``, eq. (28), if any), and
    C_T the bound on the potential accumulated step by step from C_0 = 0:

        C_t = min(C_{t-1} + sum_j c_{t,j},  2 rho_t C_{t-1} + 2 sum_j eta_{t+1,j} r_{t,j}^2),
        c_{t,j} = eta_{t,j} r_{t,j}^2 if R_{t-1,j} > 0, else eta_{t+1,j} r_{t,j}^2,
        rho_t = max_j eta_{t+1,j} / eta_{t,j}  (the factor by which the rates shrank at step t).

    With the exact identity (yhat - y)^2 - (z - y)^2 = r - (yhat - z)^2 of the square loss:

        sum_t (yhat_t - y_t)^2 - sum_t (zbar_{t,k} - y_t)^2 <= sqrt((e^-700 + S_{T,k} + B_T) C_T) - sum_t (yhat_t - zbar_{t,k})^2.

    Proof. p_{t,k} proportional to eta_{t,k} (R_{t-1,k})_+ (uniform when no R_{t-1,k} > 0) and
    yhat_t = <p_t, zbar_t> give sum_k p_{t,k} r_{t,k} = 2 (yhat_t - y_t)(yhat_t - <p_t, zbar_t>) = 0,
    so sum_k eta_{t,k} a_k r_{t,k} = 0 with a_k = (R_{t-1,k})_+. Let Phi_t = sum_k eta_{t+1,k} (R_{t,k})_+^2
    and delta_k = eta_{t,k} - eta_{t+1,k} >= 0 (the rates do not increase); eta_{T+1,k} (R_{T,k})_+^2 <= Phi_T,
    and Phi_t <= C_t by induction from two bounds on one step (both increase with Phi_{t-1})::

        (i) (R_{t-1,k} + r)_+^2 <= (a_k + r)^2 and the zero sum give
            Phi_t <= sum_k eta_{t+1,k} (a_k^2 + 2 a_k r_{t,k} + r_{t,k}^2) - 2 sum_k eta_{t,k} a_k r_{t,k}
                  = Phi_{t-1} + sum_k [eta_{t+1,k} r_{t,k}^2 - delta_k a_k (a_k + 2 r_{t,k})] <= Phi_{t-1} + sum_k c_{t,k}
            (-delta a (a + 2r) <= delta r^2, and = 0 when a = 0);
        (ii) (R_{t-1,k} + r)_+^2 <= 2 a_k^2 + 2 r^2 and the zero sum give
            Phi_t <= 2 sum_k eta_{t+1,k} a_k^2 + 2 sum_k eta_{t+1,k} r_{t,k}^2 <= 2 rho_t Phi_{t-1} + 2 sum_k eta_{t+1,k} r_{t,k}^2

    -- a restart when the scale jumps (rho_t < 1/2), e.g. from the rounding-sized regrets of a step at
    which every expert forecast the same number to the first real ones.

    Size: eta_{t+1,j} r_{t,j}^2 <= 1; without jumps of the scale (r_{t,j}^2 <= B_{t-1}) each
    c_{t,j} <= 2 ln((S_{t,j} + B_t) / (S_{t-1,j} + B_{t-1})), so after the last restart s,
    C_T <= 2 N + 2 N ln((S + B_T) / B_s): the bound is of order sqrt(N ln T * sum_t r_{t,k}^2), the
    second-order rate of the paper.

    ``Zb`` (T, N): the forecasts as the rule saw them; ``predictions`` (T,) its forecasts yhat_t.
    """
    Zb = np.asarray(Zb, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64).reshape(-1)
    p = np.asarray(predictions, dtype=np.float64).reshape(-1)
    T, N = Zb.shape
    d = p[:, None] - Zb
    r = (2.0 * (p - y))[:, None] * d                                  # r_{t,k} (ref. A.1)
    r2 = r * r
    R = np.cumsum(r, axis=0)
    S = np.cumsum(r2, axis=0)
    B = np.maximum.accumulate(np.max(r2, axis=1))
    zeros = np.zeros((1, N))
    R_prev = np.vstack([zeros, R[:-1]])
    S_prev = np.vstack([zeros, S[:-1]])
    B_prev = np.concatenate([[0.0], B[:-1]])
    eta_t = 1.0 / (_EPS700 + S_prev + B_prev[:, None])               # the rates step t used
    eta_next = 1.0 / (_EPS700 + S + B[:, None])                      # the rates after step t
    c = np.sum(np.where(R_prev > 0.0, eta_t, eta_next) * r2, axis=1)      # sum_j c_{t,j}
    restart = 2.0 * np.sum(eta_next * r2, axis=1)                         # 2 sum_j eta_{t+1,j} r_{t,j}^2
    rho = np.max(eta_next / eta_t, axis=1)                                # rho_t
    C = 0.0
    for t in range(T):                                                    # C_t (docstring)
        C = min(C + float(c[t]), 2.0 * float(rho[t]) * C + float(restart[t]))
    curvature = np.sum(d * d, axis=0)
    rad = np.sqrt((_EPS700 + S[-1] + B[-1]) * C)
    regret = float(np.sum((p - y) ** 2)) - np.sum((Zb - y[:, None]) ** 2, axis=0)
    return MLPolyPotential(regret=regret, linearised=R[-1].copy(), curvature=curvature, bound=rad - curvature,
                           S=S[-1].copy(), B=float(B[-1]), C=C)
