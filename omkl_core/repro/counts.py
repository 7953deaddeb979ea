"""Every count the reproduction prints, from one place.

The HTML report (index, table pages, hashes page, all-tables page), the scorecard's markdown, the
``verify`` command and the documentation site print how many number tables, published cells,
tiers, claims and verified tables a run has. They call :func:`of` (what a results folder holds)
and the phrase functions below, so that no two pages can count differently; ``tests/test_browser.py``
reads the counts off every page and compares them with :func:`of`.

Definitions (the words every page uses):

* a *number table*: ``<results>/tables/<name>.csv`` whose name does not end in ``_timing``
  (:func:`omkl_core.repro.report.is_timing`); each has a hash, all of them together the run's
  numbers hash;
* ``verify`` compares the number tables **and the scorecard** (``scorecard.csv``) with the
  committed reference: one more table than the number tables;
* a *published cell*: one numeric cell of a table the papers print (``paper_values``); each is
  scored once, in one form, with one tier (:mod:`omkl_core.repro.verdicts`);
* a *claim*: a scorecard row of kind ``paper``, ``printed`` or ``project``, counted apart by kind.

>>> phrase_tables(52)
'52 number tables (verify compares them and the scorecard: 53 tables)'
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from . import verdicts
from .report_inputs import _records, verdict

__all__ = ["Counts", "of", "published_cells", "phrase_tables", "phrase_verify", "summary_lines"]


def published_cells() -> int:
    """The number of published numeric cells of the five papers (the scorecard scores each once)."""
    from . import paper_values  # noqa: PLC0415

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
    #: :func:`omkl_core.repro.report.tier_counts` of the scorecard's cells.
    tiers: dict = field(default_factory=dict)
    #: :func:`omkl_core.repro.report.claim_counts` of the scorecard's claims.
    claims: dict = field(default_factory=dict)
    #: The merged scorecard's rows (``timing`` True for the speed claims of ``scorecard_timing.csv``).
    rows: tuple[dict, ...] = ()

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
    from . import report  # noqa: PLC0415
    from .report_inputs import _json  # noqa: PLC0415

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
                  number_tables=tuple(n for n in names if not report.is_timing(n)),
                  timing_tables=tuple(n for n in names if report.is_timing(n)),
                  figures=tuple(sorted(p.stem for p in (results / "figures").glob("*.png"))),
                  notebooks=tuple(finished), failed_notebooks=tuple(failed),
                  has_scorecard=(results / "scorecard.csv").is_file(),
                  tiers=report.tier_counts(scored) if scored else report.tier_counts([]),
                  claims=report.claim_counts(scored), rows=tuple(rows))


def phrase_tables(n_number: int, with_scorecard: bool = True) -> str:
    """How the pages name the tables: ``"52 number tables (verify compares them and the scorecard: 53 tables)"``."""
    s = "" if n_number == 1 else "s"
    if not with_scorecard:
        return f"{n_number} number table{s} (no scorecard yet)"
    return f"{n_number} number table{s} (verify compares them and the scorecard: {n_number + 1} tables)"


def phrase_verify(same: int, total: int) -> str:
    """The outcome of ``verify`` in words, as the command and the pages print it."""
    return f"{same} of {total} tables identical"


def summary_lines(c: Counts) -> list[str]:
    """The scorecard's counts in words (:func:`omkl_core.repro.report.summary_lines`) of ``c``."""
    from . import report  # noqa: PLC0415

    return report.summary_lines([r for r in c.rows if not r["timing"]])


def tier_phrase(tiers: dict) -> str:
    """``"33 within noise, 9 ≤ 5 %, 4 ≤ 10 %, 10 ≤ 25 %, 9 miss"``: the judged cells per tier."""
    return ", ".join(f"{tiers.get(t, 0)} {t}" for t in verdicts.TIERS)
