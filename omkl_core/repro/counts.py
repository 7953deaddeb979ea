"""Every count the reproduction prints, from one place.

The HTML report (index, table pages, hashes page, all-tables page), the scorecard's markdown, the
``verify`` command and the documentation site print how many number tables, published cells,
tiers, claims and verified tables a run has. They call :func:`of` (what a results folder holds)
and the phrase functions below, so that no two pages can count differently; ``tests/test_browser.py``
reads the counts off every page and compares them with :func:`of`.

Definitions (the words every page uses):

* a *number table*: ``<results>/tables/<name>.csv`` whose name does not end in ``_timing``
  (:func:`is_timing`); each has a hash, all of them together the run's
  numbers hash;
* ``verify`` compares the number tables **and the scorecard** (``scorecard.csv``) with the
  committed reference: one more table than the number tables;
* a *published cell*: one numeric cell of a table the papers print (``paper_values``); each is
  scored once, in one form, with one tier (:mod:`omkl_core.repro.verdicts`);
* a *claim*: a scorecard row of kind ``paper``, ``printed`` or ``project``, counted apart by kind.

The counting of scorecard rows (:func:`tier_counts`, :func:`claim_counts`, :func:`summary_lines`) lives
here and only here; :mod:`omkl_core.repro.report` imports it (the arrow runs one way: report -> counts).

>>> phrase_tables(52)
'52 number tables (verify compares them and the scorecard: 53 tables)'
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from . import paper_values, verdicts
from .report_inputs import _json, _records, verdict

__all__ = ["Counts", "of", "grade_counts", "wide_noise", "explained_phrase", "speed_counts", "EXPLAINED_TIERS",
           "published_cells", "phrase_tables", "phrase_verify", "summary_lines", "is_timing",
           "tier_counts", "claim_counts", "CLAIM_KIND_LABELS", "tier_phrase"]


def is_timing(name: str) -> bool:
    """Whether the table ``name`` is a timing table: ``timing`` is one of the ``_``-separated
    parts of its name (``paper003_table1_timing``, ``leaderboard_timing_per_1000_steps``)."""
    return "timing" in str(name).split("_")


def published_cells() -> int:
    """The number of published numeric cells of the five papers (the scorecard scores each once)."""
    pub = paper_values._all()
    return int((pub["metric"] == "mse").sum())


@dataclass(frozen=True)
class Counts:
    """What a results folder holds, counted once (:func:`of`)."""

    #: ``quick``, ``full`` or ``unspecified`` (the scorecard stamp's mode).
    mode: str
    #: Names of the number tables (not ``*_timing``), sorted.
    number_tables: tuple[str, ...]
    #: Names of the timing tables, sorted.
    timing_tables: tuple[str, ...]
    #: Names of the figures (``figures/*.png`` without the suffix), sorted.
    figures: tuple[str, ...]
    #: Notebooks that finished, and those that failed or were interrupted.
    notebooks: tuple[str, ...]
    failed_notebooks: tuple[str, ...]
    #: Whether ``scorecard.csv`` exists (verify compares it too).
    has_scorecard: bool
    #: :func:`tier_counts` of the scorecard's cells.
    tiers: dict = field(default_factory=dict)
    #: :func:`claim_counts` of the scorecard's claims.
    claims: dict = field(default_factory=dict)
    #: The merged scorecard's rows (``timing`` True for the speed claims of ``scorecard_timing.csv``).
    rows: tuple[dict, ...] = ()
    #: The machine of the run (the scorecard stamp's), which judged its speed claims.
    machine: str = ""

    @property
    def compared(self) -> int:
        """How many tables ``verify`` compares: the number tables and the scorecard."""
        return len(self.number_tables) + int(self.has_scorecard)

    @property
    def judged_cells(self) -> int:
        return self.tiers.get("cells", 0) - self.tiers.get("not computed", 0)


def _scorecard_rows(results: Path) -> list[dict]:
    rows = []
    for name, timing in (("scorecard.csv", False), ("scorecard_timing.csv", True)):
        path = results / name
        for r in (_records(path) if path.is_file() else []):
            r.update(timing=timing, verdict=verdict(r.get("verdict", "")))
            rows.append(r)
    return rows


def of(results: str | Path) -> Counts:
    """The counts of the results folder ``results`` (a run's, or the committed full run's)."""
    results = Path(results)
    names = sorted(p.name[:-4] for p in (results / "tables").glob("*.csv"))
    nb = results / "notebooks"
    finished = sorted(p.stem for p in nb.glob("*.ipynb") if not p.stem.endswith(".FAILED"))
    failed = sorted({p.name.split(".")[0] for p in nb.glob("*.FAILED.ipynb")}
                    | {p.stem for p in nb.glob("*.INTERRUPTED")})
    if not finished:                       # a committed run keeps the notebooks' timings, not the notebooks
        finished = sorted(_json(results / "timings.json").get("notebooks", {}))
    rows = _scorecard_rows(results)
    scored = [r for r in rows if not r["timing"]]
    stamp = _json(results / "scorecard.stamp.json")
    return Counts(mode=stamp.get("mode", "unspecified"),
                  number_tables=tuple(n for n in names if not is_timing(n)),
                  timing_tables=tuple(n for n in names if is_timing(n)),
                  figures=tuple(sorted(p.stem for p in (results / "figures").glob("*.png"))),
                  notebooks=tuple(finished), failed_notebooks=tuple(failed),
                  has_scorecard=(results / "scorecard.csv").is_file(),
                  tiers=tier_counts(scored) if scored else tier_counts([]),
                  claims=claim_counts(scored), rows=tuple(rows), machine=str(stamp.get("machine", "")))


def phrase_tables(n_number: int, with_scorecard: bool = True) -> str:
    """How the pages name the tables: ``"52 number tables (verify compares them and the scorecard: 53 tables)"``."""
    s = "" if n_number == 1 else "s"
    if not with_scorecard:
        return f"{n_number} number table{s} (no scorecard yet)"
    return f"{n_number} number table{s} (verify compares them and the scorecard: {n_number + 1} tables)"


def phrase_verify(same: int, total: int, within: int = 0, differ: int | None = None, largest: str | None = None) -> str:
    """The outcome of ``verify`` in words, as the command and the pages print it: ``same`` of ``total``
    tables identical (at 8 significant digits), ``within`` within tolerance (``largest``: the largest
    relative deviation and where), ``differ`` that differ (default: the rest)."""
    differ = total - same - within if differ is None else differ
    out = f"{same} of {total} tables identical"
    if within:
        out += f", {within} within tolerance" + (f" (largest relative deviation {largest})" if largest else "")
    if differ:
        out += f", {differ} differ{'s' if differ == 1 else ''}"
    return out


def tier_counts(rows) -> dict:
    """``{tier: number of judged published cells}`` over :data:`omkl_core.repro.verdicts.TIERS`
    (every tier present, 0 included), plus ``"not computed"`` (cells of a quick run), ``"cells"``
    (all cells) and ``"unexplained"`` (misses without a measured cause). ``rows``: scorecard rows
    (a DataFrame or records with ``kind``, ``verdict``, ``cause``)."""
    recs = rows.to_dict("records") if isinstance(rows, pd.DataFrame) else list(rows)
    cells = [r for r in recs if str(r["kind"]) == verdicts.CELL]
    out = {t: sum(str(r["verdict"]) == t for r in cells) for t in verdicts.TIERS}
    out["not computed"] = sum(str(r["verdict"]) == verdicts.NOT_COMPUTED for r in cells)
    out["cells"] = len(cells)
    out["unexplained"] = sum(_unexplained(r) for r in cells if str(r["verdict"]) == verdicts.MISS)
    out[verdicts.WIDE_NOISE] = len(_wide(cells))
    return out


def _unexplained(r) -> bool:
    return (str(r.get("cause", "")) == verdicts.UNEXPLAINED
            or str(r.get("grade", "")) == verdicts.NOT_NARROWED)


def _wide(cells) -> list:
    return [r for r in cells if str(r["verdict"]) == verdicts.WITHIN_NOISE
            and verdicts.relative_gap(float(r["published"]), float(r["reproduced_mean"])) > verdicts.REL_TIERS[0][1]]


#: The tiers whose cells carry a cause or *unexplained* (beyond *≤ 5 %*).
EXPLAINED_TIERS = tuple(t for t in verdicts.TIERS if t not in verdicts.LANDED)


def grade_counts(rows) -> dict:
    """``{tier: {grade: n}}`` for the tiers beyond *≤ 5 %* (:data:`EXPLAINED_TIERS`): the judged cells
    by the grade of their cause (:data:`omkl_core.repro.verdicts.GRADES` but *does not narrow the
    gap*), and ``"unexplained"`` (no cause, or one that does not narrow the gap)."""
    recs = rows.to_dict("records") if isinstance(rows, pd.DataFrame) else list(rows)
    cells = [r for r in recs if str(r["kind"]) == verdicts.CELL]
    words = [g for g in verdicts.GRADES if g != verdicts.NOT_NARROWED]
    out = {}
    for t in EXPLAINED_TIERS:
        mine = [r for r in cells if str(r["verdict"]) == t]
        out[t] = {g: sum(str(r.get("grade", "")) == g and not _unexplained(r) for r in mine) for g in words}
        out[t][verdicts.UNEXPLAINED] = sum(_unexplained(r) for r in mine)
    return out


def explained_phrase(rows, tier: str) -> str:
    """``"3 closed, 1 hypothesis, 2 partly explained, 3 unexplained"``: a tier's cells by grade (the
    grades with no cell left out, *unexplained* always said)."""
    g = grade_counts(rows)[tier]
    return ", ".join(f"{n} {w}" for w, n in g.items() if n or w == verdicts.UNEXPLAINED)


def wide_noise(rows) -> tuple[int, str]:
    """The cells *within noise* but more than 5 % off and the reason in words (their n and sd, the
    band as a share of the published value): ``(count, reason)``."""
    recs = rows.to_dict("records") if isinstance(rows, pd.DataFrame) else list(rows)
    wide = _wide([r for r in recs if str(r["kind"]) == verdicts.CELL])
    if not wide:
        return 0, ""
    n = sorted({int(float(r["n_runs"])) for r in wide})
    sd_rel = [float(r["reproduced_sd"]) / abs(float(r["published"])) for r in wide]
    band_rel = [float(r["noise_band"]) / abs(float(r["published"])) for r in wide]
    gaps = [verdicts.relative_gap(float(r["published"]), float(r["reproduced_mean"])) for r in wide]
    return len(wide), (f"{min(gaps):.1%}–{max(gaps):.1%} off; n = {', '.join(map(str, n))}, sd up to {max(sd_rel):.1%} "
                       f"of the value, band up to {max(band_rel):.1%}")


def speed_counts(c: Counts) -> dict:
    """``{verdict word: n}`` of the paper claims judged from measured times (``scorecard_timing.csv``)."""
    speed = [r for r in c.rows if r["timing"] and str(r["kind"]) == "paper"]
    return {w: sum(str(r["verdict"]) == w for r in speed) for w in (*verdicts.CLAIM_WORDS["paper"], verdicts.NOT_COMPUTED)}


def claim_counts(rows) -> dict:
    """``{kind: {verdict word: number}}`` of the claim rows, each kind of
    :data:`omkl_core.repro.verdicts.CLAIM_KINDS` with both its words and :data:`omkl_core.repro.verdicts.NOT_COMPUTED`."""
    recs = rows.to_dict("records") if isinstance(rows, pd.DataFrame) else list(rows)
    out = {}
    for kind in verdicts.CLAIM_KINDS:
        mine = [r for r in recs if str(r["kind"]) == kind]
        out[kind] = {w: sum(str(r["verdict"]) == w for r in mine) for w in (*verdicts.CLAIM_WORDS[kind], verdicts.NOT_COMPUTED)}
    return out


#: How each kind of claim is named in the summaries.
CLAIM_KIND_LABELS = {"paper": "the papers' claims judged on our numbers",
                     "printed": "checks of the papers' printed numbers against their text (no run of ours)",
                     "project": "this project's own claims"}


def summary_lines(rows) -> list[str]:
    """The scorecard's counts in words: one line for the cells' tiers, one per claim kind. ``rows``:
    scorecard rows (a DataFrame or records), or a :class:`Counts` (its rows but the speed claims)."""
    counted = rows if isinstance(rows, Counts) else None
    if isinstance(rows, Counts):
        rows = [r for r in rows.rows if not r["timing"]]
    t = tier_counts(rows)
    lines = []
    if t["cells"]:
        judged = t["cells"] - t["not computed"]
        if judged:
            wide, why = wide_noise(rows)
            lines.append(f"Published numeric cells: {judged} judged — " + ", ".join(
                f"{t[k]} {k}" for k in verdicts.TIERS) + "."
                + (f" Of the {t[verdicts.WITHIN_NOISE]} within noise, {wide} are {verdicts.WIDE_NOISE} ({why})."
                   if wide else "")
                + " Beyond 5 %, by the grade of their measured cause: " + "; ".join(
                    f"{k}: {explained_phrase(rows, k)}" for k in EXPLAINED_TIERS if t[k]) + ".")
        if t["not computed"]:
            lines.append(f"{t['not computed']} published cells {verdicts.NOT_COMPUTED}: a quick run computes them on its short "
                         "horizon only (the values are in its tables) and judges none of them.")
    for kind, n in claim_counts(rows).items():
        words = verdicts.CLAIM_WORDS[kind]
        total = sum(n.values())
        if total:
            lines.append(f"Claims, {CLAIM_KIND_LABELS[kind]}: " + ", ".join(
                f"{n[w]} {w}" for w in (*words, verdicts.NOT_COMPUTED) if n[w] or w in words and n[verdicts.NOT_COMPUTED] < total) + ".")
    if counted is not None:
        sp = speed_counts(counted)
        total = sum(sp.values())
        if total:
            words = verdicts.CLAIM_WORDS["paper"]
            lines.append(f"Speed claims of the papers, judged from CPU times measured on {counted.machine or 'the run’s machine'}: "
                         + ", ".join(f"{sp[w]} {w}" for w in (*words, verdicts.NOT_COMPUTED)
                                     if sp[w] or w in words and sp[verdicts.NOT_COMPUTED] < total) + ".")
    return lines


def tier_phrase(tiers: dict) -> str:
    """``"33 within noise, 9 ≤ 5 %, 4 ≤ 10 %, 10 ≤ 25 %, 9 miss"``: the judged cells per tier."""
    return ", ".join(f"{tiers.get(t, 0)} {t}" for t in verdicts.TIERS)
