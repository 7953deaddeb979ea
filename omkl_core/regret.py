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
``MLPoly`` (opera's MLpol)                  Gaillard, Stoltz & van Erven (2014): ML-Poly's second-order
                                            bound against every expert, restated for opera's scale-free
                                            rates (``omkl_core.bounds.mlpoly_potential_bound``). Full losses.
``EWA(gradient=True)``, ``CalibratedEWA``,  no bound evaluated (a row says why: none is stated in papers
``MLProd``, ``BOA``,                        000-004, and opera's codes differ from the algorithms the
``VAWMeta(shrink_to="uniform")``            external papers bound)
==========================================  ============================================================

Each rule declares its bound beside its update (issues 40, 41; :class:`omkl_core.base.MetaLearner`):
the class attribute ``regret_bound`` (:class:`omkl_core.bounds.aggregation.RuleBound`: source, theorem /
equation, statement, symbols in words, assumptions) and the method ``stated_bounds(Z, y, predictions)``,
or ``no_bound_reason`` when it carries none; this module calls the rule's ``stated_bounds`` -- no list
of rules and no ``isinstance`` test of a rule here: any learner whose ``input_kind`` is ``"experts"`` is a rule, so a
new rule's bound is printed with no other edit.  A VAW-family learner gives the constants its meta
step's bounds need ((25), Theorem 2) by its ``bound_constants()``, and its experts' names by
``expert_names_``, as a :class:`~omkl_core.mixture.Mixture` does.

Plain output (issue 39, item 4): :meth:`RegretReport.to_text` prints one regret number per
comparator -- the running mean, each expert by name, the best expert, the best convex and linear
combinations and shifting paths -- in the target's units (summed squared errors; ``scale`` maps the
stream the learner saw back to the target), each with the bound it is compared with and a
one-line verdict, and explains the bound's symbols in words.

Theorems 2 (20) and 3 (31) of paper 000 bound the *expected* loss over the random features
against a function f_j of an RKHS: one run with unknown f_j cannot evaluate them; the report
says so and evaluates their deterministic meta-level steps ((25), (30)) instead.
"""
from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field

import numpy as np

from .base import MetaLearner, Wrapper, fresh, input_kind_of
from .bounds.aggregation import NO_BOUND, BoundCheck, no_bound_row
from .oracles import best_convex, best_expert, best_linear, best_shifting
from .pairing import Pairing
from .protocol import first_step_note, predict_learn
from .validation import check_int, check_matrix, check_vector

__all__ = ["BoundCheck", "RegretReport", "regret_report", "report_from_forecasts", "stated_bounds", "aggregates_experts",
           "NO_BOUND"]

#: The note of the no-bound row of an opera rule in the papers-only view (the reproduction's bound tables).
_OPERA_NOTE = "{name} (opera's rule; its own bounds are in Gaillard et al. / Wintenberger, not in these papers)"


def _from_papers(rule) -> bool:
    """Whether the bound ``rule`` declares is one that papers 000-004 state."""
    rb = getattr(rule, "regret_bound", None)
    return rb is not None and "paper 000" in rb.source


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
    expert_names: tuple = ()                  # the experts' names (index order)
    expert_losses: tuple = ()                 # each expert's mean square loss (forecasts as the rule saw them)
    abstained: tuple = ()                     # steps each expert abstained (a Mixture's experts)
    scale: float = 1.0                        # squared losses of the stream seen x scale = the target's units
    target: str = ""                          # the target's name, for the text
    rule_bound: object = None                 # the meta-learner's RuleBound (or None)
    loss_after_first: float = math.nan        # mean square loss over steps 2..T (NaN when T = 1)
    first_share: float = 0.0                  # the first step's share of the summed squared error
    first_forecast: float = 0.0               # the learner's forecast at step 1 (on the stream it saw)

    def regret(self, oracle: str) -> float:
        """Cumulative regret sum_t (yhat_t - y_t)^2 - sum_t (u_t - y_t)^2 against ``oracle`` (on the
        stream the learner saw; x ``scale`` for the target's units)."""
        if oracle not in self.oracles:
            raise ValueError(f"oracle must be one of {', '.join(self.oracles)}, got {oracle!r}")
        return self.T * (self.loss - self.oracles[oracle])

    @property
    def all_hold(self) -> bool | None:
        """True when every evaluated bound holds, False when one fails, None when none was evaluated."""
        vals = [b.holds for b in self.bounds if b.holds is not None]
        return None if not vals else all(vals)

    def name(self, j: int | None) -> str:
        """The name of expert ``j`` (``"expert j"`` without names)."""
        if j is None:
            return "-"
        return self.expert_names[j] if j < len(self.expert_names) else f"expert {j}"

    def to_dict(self) -> dict:
        """Plain Python values (floats, lists, dicts): the learner, the losses, regrets and bound rows."""
        return {"learner": self.learner, "T": self.T, "N": self.N, "loss": self.loss,
                "loss_after_first": self.loss_after_first, "first_share": self.first_share,
                "forecasts": self.forecasts, "best_expert": self.best_expert,
                "expert_names": list(self.expert_names), "expert_losses": list(self.expert_losses),
                "abstained": [int(a) for a in self.abstained], "scale": self.scale,
                "oracles": dict(self.oracles), "regret": {k: self.regret(k) for k in self.oracles},
                "bounds": [asdict(b) for b in self.bounds], "all_hold": self.all_hold}

    # ---- the plain text (issue 39, item 4) -------------------------------------------------
    def _pct(self, regret_sum: float, comparator_sum: float) -> str:
        if comparator_sum <= 0.0:
            return "lost" if regret_sum > 0 else "matched"
        pct = 100.0 * regret_sum / comparator_sum
        if abs(pct) < 0.05:
            return "matched"
        return f"lost {pct:.3g} % to" if pct > 0 else f"won {-pct:.3g} % over"

    def _row_text(self, b: BoundCheck) -> str:
        """``<regret> <= <bound>: holds (margin m)`` in the target's units (a half-loss row doubled)."""
        f = self.scale * (2.0 if b.units.startswith("1/2") else 1.0)
        what = "loss" if "(a loss)" in b.units else "regret"
        verdict = (f"holds with margin {f * (b.bound - b.lhs):.4g}" if b.holds
                   else f"VIOLATED by {f * (b.lhs - b.bound):.4g}")
        return f"{what} {f * b.lhs:.4g} <= {f * b.bound:.4g}: {verdict}"

    def to_text(self) -> str:
        """The report in plain words: one regret per comparator in the target's units, the bound it is
        compared with and a verdict (issue 39, item 4)."""
        units = f"the target's units{f' ({self.target})' if self.target else ''}"
        mine = self.scale * self.T * self.loss
        lines = [f"Regret of {self.learner}: T = {self.T} steps, N = {self.N} experts.",
                 f"MSE of this learner in {units}: {self.scale * self.loss:.6g} over all {self.T} steps, "
                 + (f"{self.scale * self.loss_after_first:.6g} over steps 2..{self.T}."
                    if self.T > 1 else "no steps after the first.")]
        note = first_step_note(self.first_share, self.first_forecast if self.scale == 1.0 else None, self.T)
        if note:
            lines.append(note)
        lines += ["regret = this learner's summed squared error minus the comparator's, in the target's units "
                  "(negative: it did better); experts " + ("as the meta-learner saw them, " if self.forecasts != "as given" else "")
                  + (f"truncated to the label range {self.forecasts.split('to ', 1)[1]}" if "truncated" in self.forecasts
                     else "as given") + ".",
                  f"  {'':44s}{'summed sq. error':>18s}{'regret':>14s}   verdict",
                  f"  {'this learner':44s}{mine:>18.6g}"]
        header = len(lines)
        comps = []                                    # (label, its summed squared error, expert index or None)
        shown = self._shown_experts()
        for j, ell in enumerate(self.expert_losses):
            if j not in shown:
                continue
            extra = (f" (abstained {self.abstained[j]} of {self.T} steps)" if j < len(self.abstained) and self.abstained[j]
                     else "")
            comps.append((f"{self.name(j)}{extra}", self.scale * self.T * ell, j))
        for k, v in self.oracles.items():
            label = f"best expert ({self.name(self.best_expert)})" if k == "best expert" else _oracle_words(k)
            comps.append((label, self.scale * self.T * v, None))
        for label, total, _j in comps:                 # a label longer than the column pushes its row, never cut
            reg = mine - total
            lines.append(f"  {label:44s}{total:>18.6g}{reg:>+14.4g}   {self._pct(reg, total)} it")
        if len(shown) < len(self.expert_losses):
            lines.insert(header + len(shown), f"  ({len(self.expert_losses) - len(shown)} more experts, between the "
                         f"best and the worst shown)")
        # the bound
        rb = self.rule_bound
        evaluated = [b for b in self.bounds if b.holds is not None]
        if rb is not None and evaluated:
            lines.append(f"bound of the meta-learner: {rb.name}")
            lines.append(f"  source: {rb.cite()}")
            lines.append(f"  {rb.statement}")
            lines.append(f"  assumes: {rb.assumes}")
        elif rb is not None:
            lines.append(f"bound of the meta-learner: {rb.cite()} -- not evaluated on this run:")
        else:
            lines.append("bound of the meta-learner:")
        for b in self.bounds:
            if b.comparator == "expert" and b.expert is not None and b.expert not in self._shown_rows():
                continue
            who = (self.name(b.expert) if b.comparator == "expert" else
                   f"{b.comparator} ({self.name(b.expert)})" if b.expert is not None else b.comparator)
            if b.holds is None:
                lines.append(f"  {b.equation}: {b.note}" if b.equation != NO_BOUND or b.comparator == "-" else
                             f"  {b.equation}, {who}: {b.note}")
                continue
            lines.append(f"  against {who}: {self._row_text(b)}   [{b.equation}]")
        if rb is not None and evaluated:
            lines.append("  symbols:")
            lines += [f"    {part.strip()}" for part in rb.symbols.split("; ") if part.strip()]
            notes = [b.note for b in evaluated if b.note]
            if notes:
                lines.append(f"  on this run: {notes[0]}")
        lines.append("verdict: " + self.verdict())
        return _plain("\n".join(lines))

    #: with more experts than this, the text shows the running mean, the 3 best and the worst (the rest summarised)
    MAX_EXPERT_LINES = 8

    def _is_mean(self, j: int) -> bool:
        return j < len(self.expert_names) and self.expert_names[j].lower().replace("_", " ") in ("running mean",
                                                                                                "runningmean")

    def _shown_experts(self) -> set:
        N = len(self.expert_losses)
        if N <= self.MAX_EXPERT_LINES:
            return set(range(N))
        order = np.argsort(self.expert_losses)
        return {int(j) for j in order[:3]} | {int(order[-1])} | {j for j in range(N) if self._is_mean(j)}

    def _shown_rows(self) -> set:
        """The experts whose bound rows the text prints: those shown, and the one with the smallest margin."""
        rows = [b for b in self.bounds if b.comparator == "expert" and b.holds is not None]
        if len(rows) <= self.MAX_EXPERT_LINES:
            return {b.expert for b in rows}
        tight = min(rows, key=lambda b: b.bound - b.lhs)
        return self._shown_experts() | {tight.expert}

    def verdict(self) -> str:
        """One line: how the learner did against the running mean (when an expert is one) and the best
        single expert, and whether its meta-learner's bound held (with the smallest margin)."""
        mine = self.T * self.loss
        parts = []
        names = list(self.expert_names)
        for j, _n in enumerate(names):
            if self._is_mean(j) and j < len(self.expert_losses):
                parts.append(f"{self._pct(mine - self.T * self.expert_losses[j], self.T * self.expert_losses[j])} "
                             f"the running mean")
        if self.best_expert is not None:
            e = self.T * self.oracles["best expert"]
            parts.append(f"{self._pct(mine - e, e)} the best single expert ({self.name(self.best_expert)})")
        evaluated = [b for b in self.bounds if b.holds is not None]
        if evaluated:
            f = [self.scale * (2.0 if b.units.startswith("1/2") else 1.0) for b in evaluated]
            margins = [fi * (b.bound - b.lhs) for fi, b in zip(f, evaluated)]
            i = int(np.argmin(margins))
            b = evaluated[i]
            who = self.name(b.expert) if b.comparator == "expert" else b.comparator
            eq = b.equation.split(":")[0]
            if all(b.holds for b in evaluated):
                per_expert = all(b.comparator == "expert" for b in evaluated)
                scope = ("every expert" if per_expert else f"all {len(evaluated)} comparators") if len(evaluated) > 1 else who
                parts.append(f"{eq} holds against {scope} (smallest margin {margins[i]:.4g}, against {who})")
            else:
                bad = [bb for bb in evaluated if not bb.holds]
                parts.append(f"{eq} is VIOLATED against {len(bad)} comparator(s), e.g. {who}")
        else:
            parts.append("no bound evaluated for this meta-learner")
        return "; ".join(parts)

    __str__ = to_text


def _plain(text: str) -> str:
    """The report's text with the papers' short names spelt out ("P000 eq. (11)" -> "paper 000, eq.
    (11)"; "CBL" -> Cesa-Bianchi & Lugosi); the rows keep the short forms the bound tables print."""
    text = re.sub(r"\bP(00\d) ", r"paper \1, ", text)
    return re.sub(r"\bCBL\b", "Cesa-Bianchi & Lugosi 2006,", text)


def _oracle_words(key: str) -> str:
    """An oracle's name as a user says it: "best 3-shift path" -> the best sequence of experts that
    switches at most 3 times (the k-shift comparator of the glossary)."""
    if key.endswith("-shift path"):
        k = int(key.split()[1].split("-")[0])
        return f"best expert sequence, <= {k} switch{'es' if k > 1 else ''}"
    return key.replace("best convex", "best convex combination").replace("best linear", "best linear combination")


# ------------------------------------------------------------------------------------------- bounds
def stated_bounds(rule, Z, y, predictions, expert_layer: dict | None = None, *, papers_only: bool = False) -> list:
    """The :class:`BoundCheck` rows of meta-learner ``rule`` (its hyper-parameters, not its state) on the
    forecasts ``Z`` (T, N) *as given*, labels ``y`` and the run's ``predictions``: the rule's own
    ``stated_bounds`` (each rule declares its bound beside its update; module docstring).

    ``expert_layer``: for a VAW-family learner, ``{"m", "lam", "vaw", "feature_map"}`` of its expert
    layer (enables (25) and the Theorem 2 row). ``papers_only``: only the bounds papers 000-004 state
    (a rule whose bound comes from elsewhere gets the no-bound row: the reproduction's bound tables)."""
    Z, y, pred = _check_run(Z, y, predictions)
    if rule is None:
        return [no_bound_row("-", "no meta-learner given: no bound evaluated")]
    name = type(rule).__name__
    if input_kind_of(rule) != "experts":
        return [no_bound_row("-", f"{name} is not a meta-learner (its input_kind is not 'experts')")]
    if papers_only and not _from_papers(rule):
        return [no_bound_row("-", _OPERA_NOTE.format(name=name))]
    own = getattr(rule, "stated_bounds", None)
    if not callable(own):                             # a rule of the protocol that does not derive from MetaLearner
        return MetaLearner.stated_bounds(rule, Z, y, pred, expert_layer=expert_layer)
    return list(rule.stated_bounds(Z, y, pred, expert_layer=expert_layer))


# --------------------------------------------------------------------------------------- reports
def _check_run(Z, y, predictions):
    Z = check_matrix(Z, "Z")
    y = check_vector(y, "y", length=Z.shape[0])
    pred = check_vector(predictions, "predictions", length=Z.shape[0])
    return Z, y, pred


def report_from_forecasts(Z, y, predictions, *, rule=None, name: str | None = None, shifts: int = 5,
                          expert_layer: dict | None = None, expert_names=None, abstained=None, scale: float = 1.0,
                          target: str = "") -> RegretReport:
    """A :class:`RegretReport` from the experts' forecasts ``Z`` (T, N), labels ``y`` (T,) and the
    learner's ``predictions`` (T,); ``rule`` is the meta-learner whose stated bounds are evaluated (its
    hyper-parameters; None: no bound), ``shifts`` the largest number of shifts K of the shifting oracle;
    ``expert_names`` (N,), ``abstained`` (N,) counts, ``scale`` (the factor that maps squared losses of
    this stream to the target's units) and ``target`` (its name) are for the text."""
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
    names = tuple(str(n) for n in expert_names) if expert_names is not None else ()
    losses = (pred - y) ** 2
    total = float(np.sum(losses))
    return RegretReport(learner=name or (repr(rule) if rule is not None else "predictions"), T=T, N=N,
                        loss=float(np.mean(losses)), oracles=orc,
                        loss_after_first=float(np.mean(losses[1:])) if T > 1 else math.nan,
                        first_share=float(losses[0]) / total if total > 0 else 0.0,
                        first_forecast=float(pred[0]),
                        bounds=tuple(stated_bounds(rule, Z, y, pred, expert_layer)),
                        forecasts=f"truncated to [{float(b[0]):g}, {float(b[1]):g}] (eq. 28)" if trunc else "as given",
                        best_expert=e.expert, extra={"convex_weights": c.weights, "linear_weights": lin.weights},
                        expert_names=names, expert_losses=tuple(float(v) for v in np.mean((Zs - y[:, None]) ** 2, axis=0)),
                        abstained=tuple(int(a) for a in abstained) if abstained is not None else (),
                        scale=float(scale), target=str(target), rule_bound=getattr(rule, "regret_bound", None))


def aggregates_experts(learner) -> bool:
    """Whether :func:`regret_report` accepts ``learner``: an aggregation rule (a learner whose
    ``input_kind`` is ``"experts"``: :class:`omkl_core.base.MetaLearner`), or a pairing of experts and
    a meta-learner (:class:`omkl_core.pairing.Pairing`: a VAW-family learner or a Mixture)."""
    return input_kind_of(learner) == "experts" or isinstance(learner, Pairing)


def _run_with_experts(learner, X, y):
    """(Z, predictions, rule, expert_layer, names, abstained) of a fresh copy of ``learner`` over (X, y)."""
    if input_kind_of(learner) == "experts":           # a rule: X is the experts' forecasts
        Z = check_matrix(X, "X")
        y = check_vector(y, "y", length=Z.shape[0])
        rule = fresh(learner)
        return Z, predict_learn(rule, Z, y)[0], rule, None, None, None
    if isinstance(learner, Pairing):                  # the learner's run(X, y), keeping Z
        pair = learner.clone()
        Z, preds = pair._run_with_forecasts(X, y)     # a Mixture's abstentions: substituted (its docstring)
        constants = getattr(pair, "bound_constants", None)
        layer = constants() if callable(constants) else None      # the VAW family's expert layer
        names = getattr(pair, "expert_names_", None) or None      # a Mixture's, the VAW family's kernels
        abst = getattr(pair, "n_abstained_", None)                # a Mixture's abstentions
        return np.asarray(Z), preds, pair.meta_, layer, names, abst
    raise TypeError(f"regret_report needs a learner that aggregates experts (an omkl_core.aggregation rule, a "
                    f"VAW-family learner or a Mixture), got {type(learner).__name__}; for others pass the experts' "
                    "forecasts to report_from_forecasts(Z, y, predictions)")


def _short(learner) -> str:
    """A name of the learner for the report: its repr when short, else a description."""
    names = getattr(learner, "expert_names_", None) if isinstance(learner, Wrapper) else None   # a Mixture
    if names is not None:
        meta = type(learner.meta_).__name__
        mb = getattr(learner.meta_, "bounds", None)
        where = "in the target's units" if mb is None else f"labels in [{float(mb[0]):g}, {float(mb[1]):g}]"
        return f"Mixture of {len(names)} experts ({', '.join(names)}) by {meta} ({where})"
    text = repr(learner)
    return text if len(text) <= 80 else type(learner).__name__


def regret_report(learner, X, y, *, shifts: int = 5, scale: float = 1.0, target: str = "") -> RegretReport:
    """Run a fresh copy of ``learner`` on (X, y) and report its regret and stated bounds.

    ``learner``: an aggregation rule (then ``X`` is the experts' forecasts Z, (T, N)), a VAW-family
    learner (VAW2, VAWEWA, ...; Z is its expert layer, the same numbers as its ``run``) or a
    :class:`~omkl_core.mixture.Mixture`. ``learner`` itself is not modified. ``shifts``: K of the
    shifting oracle (1..K shifts are reported). ``scale``: squared losses of (X, y) times ``scale`` are
    in the target's units (e.g. (max y - min y)^2 for a stream normalised by eq. (33)); ``target``: its
    name. Print the report for the plain text (:meth:`RegretReport.to_text`).

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
    if not (isinstance(scale, (int, float)) and math.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a finite number > 0, got {scale!r}")
    Z, pred, rule, layer, names, abst = _run_with_experts(learner, X, y)
    fresh_name = _short(learner.clone()) if isinstance(learner, Pairing) else _short(learner)
    return report_from_forecasts(Z, y, pred, rule=rule, name=fresh_name, shifts=shifts, expert_layer=layer,
                                 expert_names=names, abstained=abst, scale=scale, target=target)
