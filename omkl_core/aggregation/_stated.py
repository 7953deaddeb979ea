"""Each rule's stated bound evaluated on a run: the rows behind the rules' ``stated_bounds`` methods.

A meta-learner class declares its bound beside its update -- ``regret_bound`` (a
:class:`omkl_core.bounds.aggregation.RuleBound`: paper, theorem / equation, statement, symbols,
assumptions) and ``stated_bounds(Z, y, predictions, expert_layer=None)``, which returns
:class:`~omkl_core.bounds.aggregation.BoundCheck` rows -- so that
:func:`omkl_core.regret.regret_report`, ``Mixture.summary`` and ``omkl run --regret`` print any
rule's bound without knowing the rule (issue 41; issue 40's direction). The functions here
compute those rows; the formulas are in :mod:`omkl_core.bounds` (one place each).

``Z`` is always the experts' forecasts *as given to the rule* (before its truncation), ``y`` the
labels, ``predictions`` the rule's forecasts on that run.
"""
from __future__ import annotations

import math

import numpy as np

from ..bounds import aggregation as _bagg
from ..bounds import paper000 as _b000
from ..bounds import paper002 as _b002
from ..bounds.aggregation import NO_BOUND, RuleBound, bound_row, no_bound_row
from ..oracles import best_convex, best_expert, best_linear

__all__ = ["MLPOLY_BOUND", "EWA_BOUND", "AA_BOUND", "VAW_BOUND", "mlpoly_rows", "exp_concave_rows", "vaw_rows",
           "no_bound_rows"]

#: units of the rows: full square losses summed over the run, in the units of the labels given
FULL = "sum (yhat-y)^2"
HALF = "1/2 sum (yhat-y)^2"

MLPOLY_BOUND = RuleBound(
    name="ML-Poly's second-order bound (Gaillard, Stoltz & van Erven 2014)",
    source="Gaillard, Stoltz & van Erven (2014), 'A second-order bound with excess losses', COLT, PMLR 35:176-196",
    where="section 2, the bound of ML-Poly, restated for the learning rates that adapt to the scale of the "
          "losses (as R's opera package runs the rule); proof: omkl_core.bounds.mlpoly_potential_bound",
    statement="sum_t (yhat_t - y_t)^2 - sum_t (z_t,k - y_t)^2 <= sqrt((S_k + B) C) - sum_t (yhat_t - z_t,k)^2, "
              "for every expert k",
    symbols="r_t,k = 2 (yhat_t - y_t)(yhat_t - z_t,k): how much better expert k would have done than the mixture "
            "at step t, to first order; S_k = the sum over t of r_t,k^2 (the 'second order' of the bound's name); "
            "B = the largest r_t,j^2 of the run (the scale of the losses, learnt as the run goes); C = what the "
            "rule's learning rates add up over the run (about 2 N (1 + ln T))",
    assumes="nothing: any forecasts and labels, no range (the learning rates adapt to the scale)")

EWA_BOUND = RuleBound(
    name="EWA's bound ln N / eta (paper 000 eq. (30))",
    source="Rokhlin & Gurtovaya (paper 000), citing Cesa-Bianchi & Lugosi (2006) Prop. 3.1",
    where="eq. (30)",
    statement="sum_t (yhat_t - y_t)^2 - min_j sum_t (zbar_t,j - y_t)^2 <= ln N / eta",
    symbols="N experts; eta the learning rate; zbar the forecasts truncated to [A, B] (eq. (28))",
    assumes="labels in [A, B] and eta <= 1/(2 (B - A)^2) (exp-concavity of the square loss on [A, B])")

AA_BOUND = RuleBound(
    name="the Aggregating Algorithm's bound ln N / eta (CBL Prop. 3.2)",
    source="Vovk's Aggregating Algorithm, Cesa-Bianchi & Lugosi (2006) Prop. 3.2 (cited by paper 000, section 4)",
    where="Prop. 3.2",
    statement="sum_t (yhat_t - y_t)^2 - min_j sum_t (zbar_t,j - y_t)^2 <= ln N / eta",
    symbols="N experts; eta the learning rate; zbar the forecasts truncated to [A, B]",
    assumes="labels in [A, B] and eta <= 2/(B - A)^2 (mixability of the square loss on [A, B])")

VAW_BOUND = RuleBound(
    name="VAW's bound (paper 000 eq. (11))",
    source="Rokhlin & Gurtovaya (paper 000)",
    where="eq. (11) (and (25), after (28) for the truncated forecasts)",
    statement="1/2 sum_t (yhat_t - y_t)^2 - 1/2 sum_t (<delta, z_t> - y_t)^2 <= lam/2 |delta|^2 + N Y^2/2 ln(1 + "
              "rho^2 T / (N lam)), for every weight vector delta",
    symbols="rho = the largest norm |z_t| of the vector of expert forecasts (how large the forecasts are); Y = "
            "the largest |y_t|; lam the ridge parameter; N experts; T steps",
    assumes="nothing beyond bounded forecasts and labels (the constants are read off the run)")


def mlpoly_rows(rule, Z, y, pred) -> list:
    """One row per expert: ML-Poly's bound (:func:`omkl_core.bounds.mlpoly_potential_bound`) on the
    forecasts as the rule saw them (truncated to its ``bounds``, if any), full square losses."""
    b = getattr(rule, "bounds", None)
    Zb = Z if b is None else np.clip(Z, float(b[0]), float(b[1]))
    pot = _bagg.mlpoly_potential_bound(Zb, y, pred)
    note = (f"S_k (per expert) in [{pot.S.min():.4g}, {pot.S.max():.4g}], B = {pot.B:.4g}, C = {pot.C:.4g}, "
            f"N = {Z.shape[1]}")
    eq = "ML-Poly's bound (Gaillard et al. 2014)"
    size = float(np.sum((pred - y) ** 2)) + np.sum((Zb - y[:, None]) ** 2, axis=0)   # slack scale of each row
    return [bound_row(eq, "expert", pot.regret[k], pot.bound[k], FULL, note if k == 0 else "", expert=k,
                      size=float(size[k])) for k in range(Z.shape[1])]


def exp_concave_rows(rule, Z, y, pred, expert_layer=None, *, aa: bool = False) -> list:
    """EWA (P000 eq. (30), CBL Prop. 3.1) or the AA (CBL Prop. 3.2): ln N / eta against the best
    truncated expert, when the labels lie in [A, B] and eta is admissible."""
    b = getattr(rule, "bounds", None)
    if b is not None:
        A, B = float(b[0]), float(b[1])
    else:
        A, B = float(min(Z.min(), y.min())), float(max(Z.max(), y.max()))
    T, N = Z.shape
    Zs = np.clip(Z, A, B)
    eq = "P000 sec. 4 (CBL Prop. 3.2)" if aa else "P000 eq. (30) (CBL Prop. 3.1)"
    eta_max = _bagg.aa_eta(A, B) if aa else _bagg.ewa_eta(A, B)
    eta = eta_max if rule.eta is None else float(rule.eta)
    if y.min() < A or y.max() > B:
        return [no_bound_row("best expert", f"labels outside [A, B] = [{A:g}, {B:g}]: the bound assumes them inside",
                             eq)]
    if eta > eta_max * (1 + 1e-12):
        return [no_bound_row("best expert", f"eta = {eta:g} > {'2' if aa else '1/2'}/(B-A)^2 = {eta_max:g}: "
                             f"{NO_BOUND} for this eta", eq)]
    loss = float(np.sum((pred - y) ** 2))
    per_expert = np.sum((Zs - y[:, None]) ** 2, axis=0)
    j = int(np.argmin(per_expert))
    best = float(np.min(per_expert))
    rhs = _bagg.aa_bound(N, A, B, eta) if aa else _bagg.ewa_bound(N, A, B, eta)
    rows = [bound_row(eq + ": ln N / eta", "best expert (truncated)", loss - best, rhs, FULL,
                      f"[A, B] = [{A:g}, {B:g}], eta = {eta:g}, N = {N}", expert=j)]
    if expert_layer is not None and not aa:
        rows.append(no_bound_row("f_j in H_j", "bounds the expected loss over the random features against an RKHS "
                                 "function: not evaluable on one run; its meta step (30) is checked above",
                                 "P000 Theorem 3, eq. (31)"))
    return rows


def vaw_rows(rule, Z, y, pred, expert_layer=None) -> list:
    """VAWMeta: P000 eq. (11) / (25) / after (28) for the best expert, convex and linear combination
    and the ridge delta_lam (half losses); ``ridge=True``: P002 Corollary 2, eq. (4)."""
    if rule.shrink_to != "zero":
        return [no_bound_row("-", "VAWMeta(shrink_to='uniform') is opera's Ridge aggregation")]
    Zs = Z if rule.bounds is None else np.clip(Z, float(rule.bounds[0]), float(rule.bounds[1]))
    if rule.ridge:
        a = float(rule.lam)
        Zn = float(np.sqrt(np.max(np.sum(Zs * Zs, axis=1))))
        loss = float(np.sum((pred - y) ** 2))
        return [bound_row("P002 Corollary 2, eq. (4)", "(1 + Z^2/a) min_theta (sum (y - theta'z)^2 + a|theta|^2)",
                          loss, _b002.paper002_corollary2_bound(Zs, y, a, Zn), "sum (yhat-y)^2 (a loss)",
                          f"a = lam = {a:g}, Z = max ||z_t|| = {Zn:.4g}")]
    T, N = Zs.shape
    lam = float(rule.lam)
    half = 0.5 * float(np.sum((pred - y) ** 2))
    Y = float(np.max(np.abs(y)))
    e = best_expert(Zs, y)
    comps = {"best expert": (e.weights, e.expert), "best convex": (best_convex(Zs, y).weights, None),
             "best linear": (best_linear(Zs, y).weights, None),
             "sup over delta (ridge delta_lam)": (_b002.paper002_ridge_minimiser(Zs, y, lam), None)}
    rows = []

    def regret(d):
        r = Zs @ d - y
        return half - 0.5 * float(r @ r)

    if rule.bounds is None:
        rho = float(np.sqrt(np.max(np.sum(Zs * Zs, axis=1))))
        note = f"rho = max ||z_t|| = {rho:.4g}, Y = max |y_t| = {Y:.4g}, lam = {lam:g}, dimension N"
        for name, (d, j) in comps.items():
            rows.append(bound_row("P000 eq. (11)", name, regret(d),
                                  _b000.vaw_regret_bound(lam, float(d @ d), N, Y, T, rho=rho), HALF,
                                  note if name == "best expert" else "", expert=j))
        if expert_layer is not None:
            m, lam_e = expert_layer["m"], expert_layer["lam"]
            if not expert_layer.get("vaw", True) or expert_layer.get("feature_map", "cos") != "cos":
                rows.append(no_bound_row("sup over delta", "(25) assumes VAW experts on cos random features (24); "
                                         "these experts differ: only (11) above applies", "P000 eq. (25)"))
            elif lam_e != lam:
                rows.append(no_bound_row("sup over delta", f"(25) states one lambda for both levels; lam = {lam_e:g}, "
                                         f"lam_meta = {lam:g}: only (11) above applies", "P000 eq. (25)"))
            else:
                d = comps["sup over delta (ridge delta_lam)"][0]
                rows.append(bound_row("P000 eq. (25)", "sup over delta (ridge delta_lam)", regret(d),
                                      _b000.paper000_meta_vaw_regret_bound(float(d @ d), N, m, Y, T, lam), HALF,
                                      f"m = {m}, Y = {Y:.4g}"))
            rows.append(no_bound_row("f_j in H_j", "bounds the expected loss over the random features against an "
                                     "RKHS function: not evaluable on one run; its meta step (25)/(11) is checked "
                                     "above", "P000 Theorem 2, eq. (20)"))
        return rows
    A, B = float(rule.bounds[0]), float(rule.bounds[1])
    Yt = max(abs(A), abs(B), Y)
    note = f"Y = max(|A|, |B|, max |y_t|) = {Yt:.4g}, lam = {lam:g}"
    for name, (d, j) in comps.items():
        if name in ("best expert", "best convex"):
            rows.append(bound_row("P000 after eq. (28)", name, regret(d),
                                  _b000.paper000_truncated_meta_vaw_regret_bound(N, Yt, T, lam), HALF,
                                  note if name == "best expert" else "", expert=j))
        else:
            rows.append(bound_row("P000 eq. (11), rho^2 = N Y^2 (after (28))", name, regret(d),
                                  _b000.vaw_regret_bound(lam, float(d @ d), N, Yt, T, rho=math.sqrt(N) * Yt), HALF))
    return rows


def no_bound_rows(rule, why: str) -> list:
    """The one row of a rule that carries no bound: ``why`` says what is known and why nothing is evaluated."""
    return [no_bound_row("-", f"{type(rule).__name__}: {why}")]
