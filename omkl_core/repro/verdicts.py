"""The verdict rules of the reproduction: one tier per published numeric cell, one kind per claim.

This module is the rule; :mod:`omkl_core.repro.report` applies it to the scorecard and every page
reads the verdicts it wrote. The rule was written down (issue 38) before looking at which cells
move under it, and is not to be changed to move a cell.

**Numeric cells: tiers.**
A published cell ``p`` and our ``n`` repetitions with mean ``m`` and sample sd ``s`` (ddof = 1;
0 for one run) get the first tier of :data:`TIERS` that holds:

1. *within noise*: ``|m - p| <= 2 sqrt(s²/n + s_p²/n_p)``, the two-sided ~95 % band of the
   difference of two independent means. The papers print means only (paper 000 Table 2, paper 003
   Tables 1-4 give no sd), so ``s_p``, the per-run spread of the paper's own runs, is *estimated by
   ours* (``s_p = s``: the same protocol on the same data has the same per-run spread; the paper's
   random features and our features are independent draws of one distribution), and ``n_p`` is the
   number of repetitions the paper states for that table (paper 000 §4: "averaged over 5
   experiments"; paper 003 §5: "we average the MSE over R = 50 different sets of random features").
   A deterministic row (one run, s = 0) has a band of 0: only an equal value is within noise.
2. *≤ 5 %*: ``|m - p| <= 0.05 |p|``.
3. *≤ 10 %*: ``|m - p| <= 0.10 |p|``.
4. *≤ 25 %*: ``|m - p| <= 0.25 |p|``.
5. *miss*: none of the above. A miss names a measured cause (a table of ``results/tables`` that
   shows it: a variant within a tier, a seed range, an ablation; :mod:`omkl_core.repro.papers`)
   or says *unexplained*.

Why these: the band is the statistical question a reviewer asks first ("is the difference larger
than both runs' noise?"); the relative tiers say how far a cell is when it is not noise, on fixed
marks fixed in advance, instead of one 25 % threshold twenty times the median run-to-run spread
(1.3 %) that made 18 cells more than 10 % off count as reproduced. The noise band uses our spread
for the paper's only because the paper gives none; it never uses a tolerance of its own, so a
noisier variant does not widen a relative tier.

**Causes: grades.** A measured cause (:class:`omkl_core.repro.papers.Cause`) names a form or setting
and where its values are; its grade is computed from them over the cells it covers (the scored cells
beyond *≤ 5 %* that it matches), never declared (:func:`grade`):

* *closed*: the named form lands *within noise* or *≤ 5 %* on every cell it covers, and the setting is
  the paper's text or the authors' code;
* *hypothesis*: it lands on every cell, but the setting is neither the text nor the authors' code;
* *partly explained*: it narrows the mean relative gap |mean − published| / |published| over its cells
  without landing on all of them (the scorecard prints by how much);
* *does not narrow the gap*: counted with the unexplained cells.

A cell *within noise* but more than 5 % from the published value is counted apart wherever the tiers
are counted (:data:`WIDE_NOISE`): its band is wide because of its sd and n, which the rows print.

**Claims: kinds.**
Every qualitative claim row has one kind of :data:`CLAIM_KINDS`, counted apart:

* ``paper``: a claim of a paper judged on *our* numbers -> *holds* / *fails*;
* ``printed``: a check of a paper's *printed* numbers against its own text (no run of ours is
  involved) -> *consistent in print* / *inconsistent in print*, never *holds*;
* ``project``: a claim of this project (the leaderboard's) -> *holds* / *fails*.
"""
from __future__ import annotations

import math
import numbers

__all__ = ["GRADES", "CLOSED", "PARTLY", "HYPOTHESIS", "NOT_NARROWED", "WIDE_NOISE", "LANDED", "grade",
           "relative_gap", "TIERS", "WITHIN_NOISE", "MISS", "REL_TIERS", "N_SIGMA", "PAPER_REPETITIONS", "TIER_RULE",
           "CLAIM_KINDS", "CLAIM_WORDS", "NOT_COMPUTED", "UNEXPLAINED", "noise_band", "tier", "claim_verdict",
           "is_cell_verdict"]

WITHIN_NOISE = "within noise"
MISS = "miss"
#: The relative tiers (label, bound on |mean - published| / |published|), tightest first.
REL_TIERS = (("≤ 5 %", 0.05), ("≤ 10 %", 0.10), ("≤ 25 %", 0.25))
#: Every tier of a numeric cell, best first.
TIERS = (WITHIN_NOISE, *(label for label, _ in REL_TIERS), MISS)
#: Width of the noise band in standard errors of the difference.
N_SIGMA = 2.0
#: The repetitions each paper states for its tables (the ``n_p`` of the noise band).
PAPER_REPETITIONS = {"000": 5, "003": 50}
#: What a cell or claim row says when a quick run computed it on its short horizon only.
NOT_COMPUTED = "not computed at full size"
#: What a miss says when no measured cause covers it.
UNEXPLAINED = "unexplained"

#: The grades of a measured cause (:func:`grade`), strongest first.
CLOSED, HYPOTHESIS, PARTLY, NOT_NARROWED = "closed", "hypothesis", "partly explained", "does not narrow the gap"
GRADES = (CLOSED, HYPOTHESIS, PARTLY, NOT_NARROWED)
#: The tiers a cause's named form must reach on a cell for the cell to count as landed.
LANDED = (WITHIN_NOISE, REL_TIERS[0][0])
#: How the counts name a cell within noise whose relative gap is above the first relative tier (5 %).
WIDE_NOISE = "within noise but more than 5 % off"

#: The rule in one paragraph, as scorecard.md and the report print it.
TIER_RULE = (
    "Each published numeric cell gets the first tier that holds: *within noise* when |mean − published| ≤ "
    f"{N_SIGMA:g}·√(sd²/n + sd_paper²/n_paper) (the papers print no sd: sd_paper is estimated by our sd, n_paper "
    "is the paper's stated number of repetitions, 5 for paper 000 and 50 for paper 003; one deterministic run "
    "has a band of 0); else *≤ 5 %*, *≤ 10 %* or *≤ 25 %* relative to the published value; else *miss*. "
    "Every cell beyond 5 % names a measured cause and its grade (computed from tables of this run) or says "
    "*unexplained*. The rule and its reasons: "
    "omkl_core/repro/verdicts.py; it was fixed before looking at which cells it moves.")

#: The ``kind`` of a scorecard row that is a published numeric cell (a claim's row has its claim kind).
CELL = "cell"
#: Kinds of claim rows and the two verdict words of each (holds, fails).
CLAIM_KINDS = ("paper", "printed", "project")
CLAIM_WORDS = {"paper": ("holds", "fails"), "printed": ("consistent in print", "inconsistent in print"),
               "project": ("holds", "fails")}


def noise_band(sd: float, n: int, n_paper: int | None) -> float:
    """``N_SIGMA * sqrt(sd²/n + sd²/n_paper)``: the half-width of the noise band (0 for one run
    with sd 0 or an unknown ``n_paper`` with n = 1).

    >>> round(noise_band(1.0, 5, 5), 6)
    1.264911
    >>> noise_band(0.0, 1, 50)
    0.0
    """
    if isinstance(n, bool) or not (isinstance(n, numbers.Integral) and n >= 1):
        raise ValueError(f"n must be a positive integer; got {n!r}")
    sd = float(sd) if sd is not None and math.isfinite(float(sd)) else 0.0
    if sd < 0:
        raise ValueError(f"sd must be >= 0; got {sd!r}")
    var = sd * sd / n + (sd * sd / n_paper if n_paper else 0.0)
    return N_SIGMA * math.sqrt(var)


def tier(published: float, mean: float, sd: float, n: int, n_paper: int | None) -> str:
    """The tier of a numeric cell (the module's rule): one of :data:`TIERS`.

    >>> tier(10.0, 10.4, 0.5, 5, 5)        # |diff| 0.4 <= 2 sqrt(0.05 + 0.05) = 0.63
    'within noise'
    >>> tier(10.0, 10.4, 0.0, 1, 5)        # one deterministic run: 4 %
    '≤ 5 %'
    >>> tier(10.0, 13.0, 0.1, 5, 5)
    'miss'
    """
    published, mean = float(published), float(mean)
    if not (math.isfinite(published) and math.isfinite(mean)):
        raise ValueError(f"a tier needs a finite published value and mean; got {published!r}, {mean!r}")
    diff = abs(mean - published)
    if diff <= noise_band(sd, n, n_paper):
        return WITHIN_NOISE
    for label, rel in REL_TIERS:
        if diff <= rel * abs(published):
            return label
    return MISS


def claim_verdict(kind: str, holds: bool) -> str:
    """The verdict word of a claim of ``kind`` (:data:`CLAIM_WORDS`)."""
    if kind not in CLAIM_WORDS:
        raise ValueError(f"kind must be one of {', '.join(CLAIM_KINDS)}; got {kind!r}")
    return CLAIM_WORDS[kind][0 if holds else 1]


def is_cell_verdict(text: str) -> bool:
    """Whether ``text`` is a numeric cell's verdict (a tier)."""
    return text in TIERS


def relative_gap(published: float, mean: float) -> float:
    """``|mean - published| / |published|`` (inf for a published 0 with a different mean).

    >>> relative_gap(10.0, 11.0)
    0.1
    """
    published, mean = float(published), float(mean)
    if published == 0:
        return 0.0 if mean == 0 else math.inf
    return abs(mean - published) / abs(published)


def grade(source: str, landed, gaps_before, gaps_after) -> str:
    """The grade of a measured cause over the cells it covers (the module's rule): ``source`` where
    its setting comes from (``"text"``, ``"code"`` or ``"neither"``); per covered cell, whether the
    named form lands (``landed``: its tier is one of :data:`LANDED`) and the relative gap of the
    scored form (``gaps_before``) and of the named form (``gaps_after``; the scored gap where the
    named form has no value for the cell).

    >>> grade("code", [True, True], [0.3, 0.2], [0.01, 0.02])
    'closed'
    >>> grade("neither", [True], [0.3], [0.01])
    'hypothesis'
    >>> grade("code", [True, False], [0.3, 0.4], [0.01, 0.2])
    'partly explained'
    >>> grade("code", [False], [0.3], [0.5])
    'does not narrow the gap'
    """
    if source not in ("text", "code", "neither"):
        raise ValueError(f"source must be 'text', 'code' or 'neither'; got {source!r}")
    landed, before, after = list(landed), [float(g) for g in gaps_before], [float(g) for g in gaps_after]
    if not landed or not (len(landed) == len(before) == len(after)):
        raise ValueError("grade needs one landed flag and two gaps per covered cell (at least one cell)")
    if all(landed):
        return CLOSED if source in ("text", "code") else HYPOTHESIS
    if sum(after) < sum(before):
        return PARTLY
    return NOT_NARROWED
