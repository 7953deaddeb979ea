"""Regret on a run: the learner's loss beside opera's oracles, and each stated bound evaluated.

:func:`regret_report` runs a fresh copy of a learner that aggregates experts -- an aggregation
rule of :mod:`omkl_core.aggregation` (its input *is* the experts' forecasts Z), a VAW-family
learner of paper 000 (:mod:`omkl_core.mkl.vaw2`; Z is its expert layer) or a
:class:`omkl_core.mixture.Mixture` -- on (X, y) and returns a :class:`RegretReport`: its mean
square loss beside the oracles in hindsight of :mod:`omkl_core.oracles` (best expert, best
convex and best linear combination, best sequences with 1..K shifts), its cumulative regret
against each, and every regret bound that one of the papers 000-004 states for that
meta-learner, evaluated with the run's own constants (T, N, lambda, eta, [A, B], Y = max_t |y_t|,
rho = max_t ||z_t||), with whether it holds. :func:`report_from_forecasts` does the same from
(Z, y, predictions) and a meta-learner that names the rule. The oracles (and the bounds' comparators) are
computed on the forecasts *as the meta-learner sees them*: truncated to [A, B] (P000 eq. (28))
by every rule that truncates.

The bounds (paper 000 = Rokhlin & Gurtovaya, arXiv:2503.20087; losses as each equation states them):

==========================================  ============================================================
meta-learner                                stated bound evaluated (``omkl_core.bounds``)
==========================================  ============================================================
``VAWMeta`` (VAW2: VAW on z_t)              P000 eq. (11) with rho = max ||z_t||, dimension N, for
                                            delta = best expert / convex / linear and the sup over delta
                                            (the ridge delta_lam); (25) (Theorem 2's meta step) for VAW
                                            experts on cos features with one lambda (``vaw_regret_bound``,
                                            ``paper000_meta_vaw_regret_bound``). Half losses.
``VAWMeta(bounds=(A, B))`` (VAW2 (trunc))   after (28): lam/2 + N Y^2/2 ln(1 + Y^2 T/lam) for simplex
                                            delta; (11) with rho^2 = N Y^2 for the others. Half losses.
``VAWMeta(ridge=True)``                     P002 Corollary 2, eq. (4): loss <= (1 + Z^2/a) min_theta(...)
``EWA`` (eq. (29), fixed eta)               P000 eq. (30) / CBL Prop. 3.1: ln N / eta (full losses),
                                            eta <= 1/(2 (B - A)^2), labels in [A, B]
``AggregatingAlgorithm``                    P000 sec. 4 (cites CBL Prop. 3.2): ln N / eta, eta <= 2/(B-A)^2
``EWA(gradient=True)``, ``CalibratedEWA``,  no bound stated in papers 000-004 (a row says so; none is
``MLPoly``, ``MLProd``, ``BOA``,            borrowed from elsewhere)
``VAWMeta(shrink_to="uniform")``
==========================================  ============================================================

Theorems 2 (20) and 3 (31) of paper 000 bound the *expected* loss over the random features
against a function f_j of an RKHS: one run with unknown f_j cannot evaluate them; the report
says so and evaluates their deterministic meta-level steps ((25), (30)) instead.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from . import aggregation as _agg
from .bounds import aggregation as _bagg
from .bounds import paper000 as _b000
from .bounds import paper002 as _b002
from .oracles import best_convex, best_expert, best_linear, best_shifting
from .pairing import Pairing
from .validation import check_int, check_matrix, check_vector

__all__ = ["BoundCheck", "RegretReport", "regret_report", "report_from_forecasts", "stated_bounds", "aggregates_experts",
           "NO_BOUND"]

#: The text of a row for a meta-learner for which no paper states a bound.
NO_BOUND = "no bound stated in papers 000-004"


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


@dataclass(frozen=True)
class RegretReport:
    """A learner's run beside the oracles in hindsight and its stated bounds (module docstring)."""

    learner: str                              # repr-like name of the learner
    T: int                                    # steps
    N: int                                    # experts
    loss: float                               # mean square loss (1/T) sum (yhat_t - y_t)^2
    oracles: dict                             # oracle name -> mean square loss
    bounds: tuple                             # BoundCheck rows
    forecasts: str = "as given"               # how the oracles saw Z ("as given" / "truncated to [A, B] (eq. 28)")
    best_expert: int | None = None            # index of the best expert
    extra: dict = field(default_factory=dict)  # convex / linear weights (arrays)

    def regret(self, oracle: str) -> float:
        """Cumulative regret sum_t (yhat_t - y_t)^2 - sum_t (u_t - y_t)^2 against ``oracle``."""
        if oracle not in self.oracles:
            raise ValueError(f"oracle must be one of {', '.join(self.oracles)}, got {oracle!r}")
        return self.T * (self.loss - self.oracles[oracle])

    @property
    def all_hold(self) -> bool | None:
        """True when every evaluated bound holds, False when one fails, None when none was evaluated."""
        vals = [b.holds for b in self.bounds if b.holds is not None]
        return None if not vals else all(vals)

    def to_dict(self) -> dict:
        """Plain Python values (floats, lists, dicts): the learner, the losses, regrets and bound rows."""
        return {"learner": self.learner, "T": self.T, "N": self.N, "loss": self.loss,
                "forecasts": self.forecasts, "best_expert": self.best_expert,
                "oracles": dict(self.oracles), "regret": {k: self.regret(k) for k in self.oracles},
                "bounds": [asdict(b) for b in self.bounds], "all_hold": self.all_hold}

    def to_text(self) -> str:
        """A small plain-text table: losses (x 10^3) and regrets, then the stated bounds."""
        lines = [f"regret report: {self.learner}, T={self.T}, N={self.N} experts (oracles on the forecasts "
                 f"{self.forecasts})",
                 f"  {'':<28}{'mean loss x1e3':>16}{'cumulative regret':>20}",
                 f"  {'learner':<28}{1e3 * self.loss:>16.4f}{'':>20}"]
        for k, v in self.oracles.items():
            name = f"{k} (j={self.best_expert})" if k == "best expert" else k
            lines.append(f"  {name:<28}{1e3 * v:>16.4f}{self.regret(k):>20.4f}")
        lines.append("  stated bounds (left side <= bound, with this run's constants):")
        for b in self.bounds:
            if b.holds is None:
                lines.append(f"  - {b.equation}: {b.comparator}: {b.note}")
                continue
            lines.append(f"  - {b.equation} vs {b.comparator}: {b.lhs:.6g} <= {b.bound:.6g} "
                         f"[{b.units}] {'holds' if b.holds else 'VIOLATED'}" + (f" ({b.note})" if b.note else ""))
        return "\n".join(lines)

    __str__ = to_text


# ------------------------------------------------------------------------------------------- bounds
def _slack(*values) -> float:
    """Float slack of a one-sided check between sums of T terms."""
    return 1e-10 * max(1.0, *(abs(float(v)) for v in values))


def _row(equation, comparator, lhs, bound, units, note=""):
    return BoundCheck(equation, comparator, float(lhs), float(bound),
                      bool(lhs <= bound + _slack(lhs, bound)), units, note)


def _none(comparator: str, note: str, equation: str = NO_BOUND) -> BoundCheck:
    return BoundCheck(equation, comparator, None, None, None, "", note)


def _interval(rule, Z, y):
    b = getattr(rule, "bounds", None)
    if b is not None:
        return float(b[0]), float(b[1])
    return float(min(Z.min(), y.min())), float(max(Z.max(), y.max()))


def _vaw_meta_rows(rule, Zs, y, pred, expert_layer):
    T, N = Zs.shape
    lam = float(rule.lam)
    half = 0.5 * float(np.sum((pred - y) ** 2))
    Y = float(np.max(np.abs(y)))
    units = "1/2 sum (yhat-y)^2"
    comps = {"best expert": best_expert(Zs, y).weights, "best convex": best_convex(Zs, y).weights,
             "best linear": best_linear(Zs, y).weights,
             "sup over delta (ridge delta_lam)": _b002.paper002_ridge_minimiser(Zs, y, lam)}
    rows = []

    def regret(d):
        r = Zs @ d - y
        return half - 0.5 * float(r @ r)

    if rule.bounds is None:
        rho = float(np.sqrt(np.max(np.sum(Zs * Zs, axis=1))))
        note = f"rho = max ||z_t|| = {rho:.4g}, Y = max |y_t| = {Y:.4g}, lam = {lam:g}, dimension N"
        for name, d in comps.items():
            rows.append(_row("P000 eq. (11)", name, regret(d),
                             _b000.vaw_regret_bound(lam, float(d @ d), N, Y, T, rho=rho), units,
                             note if name == "best expert" else ""))
        if expert_layer is not None:
            m, lam_e = expert_layer["m"], expert_layer["lam"]
            if not expert_layer.get("vaw", True) or expert_layer.get("feature_map", "cos") != "cos":
                rows.append(_none("sup over delta", "(25) assumes VAW experts on cos random features (24); "
                                  "these experts differ: only (11) above applies", "P000 eq. (25)"))
            elif lam_e != lam:
                rows.append(_none("sup over delta", f"(25) states one lambda for both levels; lam = {lam_e:g}, "
                                  f"lam_meta = {lam:g}: only (11) above applies", "P000 eq. (25)"))
            else:
                d = comps["sup over delta (ridge delta_lam)"]
                rows.append(_row("P000 eq. (25)", "sup over delta (ridge delta_lam)", regret(d),
                                 _b000.paper000_meta_vaw_regret_bound(float(d @ d), N, m, Y, T, lam), units,
                                 f"m = {m}, Y = {Y:.4g}"))
            rows.append(_none("f_j in H_j", "bounds the expected loss over the random features against an RKHS "
                              "function: not evaluable on one run; its meta step (25)/(11) is checked above",
                              "P000 Theorem 2, eq. (20)"))
        return rows
    A, B = float(rule.bounds[0]), float(rule.bounds[1])
    Yt = max(abs(A), abs(B), Y)
    note = f"Y = max(|A|, |B|, max |y_t|) = {Yt:.4g}, lam = {lam:g}"
    for name, d in comps.items():
        if name in ("best expert", "best convex"):
            rows.append(_row("P000 after eq. (28)", name, regret(d),
                             _b000.paper000_truncated_meta_vaw_regret_bound(N, Yt, T, lam), units,
                             note if name == "best expert" else ""))
        else:
            rows.append(_row("P000 eq. (11), rho^2 = N Y^2 (after (28))", name, regret(d),
                             _b000.vaw_regret_bound(lam, float(d @ d), N, Yt, T, rho=math.sqrt(N) * Yt), units))
    return rows


def stated_bounds(rule, Z, y, predictions, expert_layer: dict | None = None) -> list:
    """The :class:`BoundCheck` rows of meta-learner ``rule`` (its hyper-parameters, not its state) on the
    forecasts ``Z`` (T, N) *as given*, labels ``y`` and the run's ``predictions`` (module docstring table).

    ``expert_layer``: for a VAW-family learner, ``{"m", "lam", "vaw", "feature_map"}`` of its expert
    layer (enables (25) and the Theorem 2 row)."""
    Z, y, pred = _check_run(Z, y, predictions)
    T, N = Z.shape
    name = type(rule).__name__
    if rule is None:
        return [_none("-", "no meta-learner given: no bound evaluated")]
    if isinstance(rule, _agg.VAWMeta):
        if rule.shrink_to != "zero":
            return [_none("-", "VAWMeta(shrink_to='uniform') is opera's Ridge aggregation")]
        Zs = _agg.truncate(Z, None if rule.bounds is None else tuple(map(float, rule.bounds)))
        if rule.ridge:
            a = float(rule.lam)
            Zn = float(np.sqrt(np.max(np.sum(Zs * Zs, axis=1))))
            loss = float(np.sum((pred - y) ** 2))
            return [_row("P002 Corollary 2, eq. (4)", "(1 + Z^2/a) min_theta (sum (y - theta'z)^2 + a|theta|^2)",
                         loss, _b002.paper002_corollary2_bound(Zs, y, a, Zn), "sum (yhat-y)^2 (a loss)",
                         f"a = lam = {a:g}, Z = max ||z_t|| = {Zn:.4g}")]
        return _vaw_meta_rows(rule, Zs, y, pred, expert_layer)
    if isinstance(rule, _agg.EWA) or isinstance(rule, _agg.AggregatingAlgorithm):
        aa = isinstance(rule, _agg.AggregatingAlgorithm)
        if not aa and rule.gradient:
            return [_none("-", "EWA(gradient=True) is opera's linearised-loss EWA")]
        A, B = _interval(rule, Z, y)
        Zs = np.clip(Z, A, B)
        eq = "P000 sec. 4 (CBL Prop. 3.2)" if aa else "P000 eq. (30) (CBL Prop. 3.1)"
        eta_max = _bagg.aa_eta(A, B) if aa else _bagg.ewa_eta(A, B)
        eta = eta_max if rule.eta is None else float(rule.eta)
        if y.min() < A or y.max() > B:
            return [_none("best expert", f"labels outside [A, B] = [{A:g}, {B:g}]: the bound assumes them inside",
                          eq)]
        if eta > eta_max * (1 + 1e-12):
            return [_none("best expert", f"eta = {eta:g} > {'2' if aa else '1/2'}/(B-A)^2 = {eta_max:g}: "
                          f"{NO_BOUND} for this eta", eq)]
        loss = float(np.sum((pred - y) ** 2))
        best = float(np.min(np.sum((Zs - y[:, None]) ** 2, axis=0)))
        rhs = _bagg.aa_bound(N, A, B, eta) if aa else _bagg.ewa_bound(N, A, B, eta)
        rows = [_row(eq + ": ln N / eta", "best expert (truncated)", loss - best, rhs, "sum (yhat-y)^2",
                     f"[A, B] = [{A:g}, {B:g}], eta = {eta:g}, N = {N}")]
        if expert_layer is not None and not aa:
            rows.append(_none("f_j in H_j", "bounds the expected loss over the random features against an RKHS "
                              "function: not evaluable on one run; its meta step (30) is checked above",
                              "P000 Theorem 3, eq. (31)"))
        return rows
    if isinstance(rule, (_agg.CalibratedEWA, _agg.MLPoly, _agg.MLProd, _agg.BOA)):
        return [_none("-", f"{name} (opera's rule; its own bounds are in Gaillard et al. / Wintenberger, not "
                      "in these papers)")]
    return [_none("-", f"{name} is not a meta-learner of omkl_core.aggregation")]


# --------------------------------------------------------------------------------------- reports
def _check_run(Z, y, predictions):
    Z = check_matrix(Z, "Z")
    y = check_vector(y, "y", length=Z.shape[0])
    pred = check_vector(predictions, "predictions", length=Z.shape[0])
    return Z, y, pred


def report_from_forecasts(Z, y, predictions, *, rule=None, name: str | None = None, shifts: int = 5,
                          expert_layer: dict | None = None) -> RegretReport:
    """A :class:`RegretReport` from the experts' forecasts ``Z`` (T, N), labels ``y`` (T,) and the
    learner's ``predictions`` (T,); ``rule`` is the meta-learner whose stated bounds are evaluated (its
    hyper-parameters; None: no bound), ``shifts`` the largest number of shifts K of the shifting oracle."""
    Z, y, pred = _check_run(Z, y, predictions)
    shifts = check_int(shifts, "shifts", minimum=0)
    T, N = Z.shape
    b = getattr(rule, "bounds", None)
    trunc = b is not None
    Zs = np.clip(Z, float(b[0]), float(b[1])) if trunc else Z
    e, c, lin = best_expert(Zs, y), best_convex(Zs, y), best_linear(Zs, y)
    orc = {"best expert": e.loss, "best convex": c.loss, "best linear": lin.loss}
    if shifts:
        sh = best_shifting(Zs, y, K=min(shifts, T - 1), paths=False)
        for k in range(1, sh.K + 1):
            orc[f"best {k}-shift path"] = float(sh.loss[k])
    return RegretReport(learner=name or (repr(rule) if rule is not None else "predictions"), T=T, N=N,
                        loss=float(np.mean((pred - y) ** 2)), oracles=orc,
                        bounds=tuple(stated_bounds(rule, Z, y, pred, expert_layer)),
                        forecasts=f"truncated to [{float(b[0]):g}, {float(b[1]):g}] (eq. 28)" if trunc else "as given",
                        best_expert=e.expert, extra={"convex_weights": c.weights, "linear_weights": lin.weights})


def aggregates_experts(learner) -> bool:
    """Whether :func:`regret_report` accepts ``learner``: an aggregation rule, or a pairing of experts
    and a meta-learner (:class:`omkl_core.pairing.Pairing`: a VAW-family learner or a Mixture)."""
    return isinstance(learner, (_agg._MetaLearner, Pairing))


def _run_with_experts(learner, X, y):
    """(Z, predictions, rule, expert_layer) of a fresh copy of ``learner`` over (X, y)."""
    from .mkl.vaw2 import _VAWFamily  # noqa: PLC0415

    if isinstance(learner, _agg._MetaLearner):
        Z = check_matrix(X, "X")
        y = check_vector(y, "y", length=Z.shape[0])
        fresh = learner.clone()
        return Z, fresh.run(Z, y), fresh, None
    if isinstance(learner, Pairing):                  # the learner's run(X, y), keeping Z
        fresh = learner.clone()
        Z, preds = fresh._run_with_forecasts(X, y)    # a Mixture's abstentions: the fallback (its docstring)
        layer = None
        if isinstance(fresh, _VAWFamily):
            layer = {"m": fresh.m, "lam": float(fresh.lam), "vaw": not fresh.ridge, "feature_map": fresh.feature_map}
        return np.asarray(Z), preds, fresh.meta_, layer
    raise TypeError(f"regret_report needs a learner that aggregates experts (an omkl_core.aggregation rule, a "
                    f"VAW-family learner or a Mixture), got {type(learner).__name__}; for others pass the experts' "
                    "forecasts to report_from_forecasts(Z, y, predictions)")


def regret_report(learner, X, y, *, shifts: int = 5) -> RegretReport:
    """Run a fresh copy of ``learner`` on (X, y) and report its regret and stated bounds.

    ``learner``: an aggregation rule (then ``X`` is the experts' forecasts Z, (T, N)), a VAW-family
    learner (VAW2, VAWEWA, ...; Z is its expert layer, the same numbers as its ``run``) or a
    :class:`~omkl_core.mixture.Mixture`. ``learner`` itself is not modified. ``shifts``: K of the
    shifting oracle (1..K shifts are reported).

    Examples
    --------
    >>> import numpy as np
    >>> from omkl_core.aggregation import EWA
    >>> rng = np.random.default_rng(0)
    >>> y = rng.uniform(0, 1, 200); Z = np.clip(y[:, None] + rng.normal(0, [0.05, 0.2, 0.3], (200, 3)), 0, 1)
    >>> rep = regret_report(EWA(), Z, y)
    >>> rep.bounds[0].equation, rep.bounds[0].holds
    ('P000 eq. (30) (CBL Prop. 3.1): ln N / eta', True)
    """
    shifts = check_int(shifts, "shifts", minimum=0)
    Z, pred, rule, layer = _run_with_experts(learner, X, y)
    return report_from_forecasts(Z, y, pred, rule=rule, name=repr(learner) if len(repr(learner)) <= 80
                                 else type(learner).__name__, shifts=shifts, expert_layer=layer)
