"""The number tables of a results folder and the committed reference, in their canonical form.

Read, compare and write what ``verify`` compares (:mod:`omkl_core.repro.verify`, the command) and what
``publish`` checks before committing a full run (:mod:`omkl_core.repro.committed`): both import these
functions from here, neither imports the other for them. :func:`current_tables` puts every number
table of ``<results>/tables/`` (not ``*_timing``) and ``<results>/scorecard.csv`` in the canonical form of
:func:`omkl_core.repro.report.canonical_table`; :func:`compare_tables` says, table by table and cell by
cell, what differs; :func:`read_reference` and :func:`write_reference` read and write
``reference/{quick,full}/hashes.json``. ``omkl_core.repro.verify`` re-exports them under the same names.
"""
from __future__ import annotations

import datetime as _dt
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from . import report
from .counts import is_timing, phrase_verify

__all__ = ["current_tables", "compare", "compare_tables", "compare_results", "write_reference", "read_reference",
           "SCORECARD", "FORMAT", "DEFAULT_RTOL", "TOLERANCES", "Tolerance", "Comparison", "TableOutcome", "rtol_of",
           "relative_deviation", "PROMISE", "outcome"]

#: Name of the scorecard (``<results>/scorecard.csv``) among the compared tables.
SCORECARD = "scorecard"
#: The format number of a reference file.
FORMAT = 1


def current_tables(results: Path) -> dict:
    """The number tables of a results folder: ``{name: {"sha256", "roundoff", "columns", "rows"}}``.

    ``<results>/tables/<name>.csv`` for every name not ending in ``_timing`` (the round-off
    bounds from its ``stamp.json``), and ``<results>/scorecard.csv`` as ``"scorecard"``.
    The hash is recomputed from the CSV, not read from the stamp.
    """
    results = Path(results)
    found = {}
    paths = sorted((results / "tables").glob("*.csv"))
    if (results / "scorecard.csv").exists():
        paths.append(results / "scorecard.csv")
    for path in paths:
        name = SCORECARD if path.parent == results else path.stem
        if is_timing(name):
            continue
        stamp_path = path.with_name(f"{path.stem}.stamp.json")
        roundoff = {}
        if name != SCORECARD and stamp_path.exists():
            roundoff = json.loads(stamp_path.read_text(encoding="utf-8")).get("roundoff") or {}
        canon = report.canonical_table(path.read_text(encoding="utf-8"), roundoff=roundoff)
        found[name] = {"sha256": report.numbers_hash(canon), "roundoff": roundoff, **canon}
    return found


def _numbers_hash(tables: dict) -> str:
    # the scorecard's hash: over the tables of tables/ (the scorecard itself is not one of them)
    return report.combined_hash({n: t["sha256"] for n, t in tables.items() if n != SCORECARD})


def _label(table: dict, i: int) -> str:
    first = table["rows"][i][0] if table["rows"][i] else ""
    return f"row {i + 1} ({table['columns'][0]} = {first})" if table["columns"] else f"row {i + 1}"


#: The relative tolerance of every table (``verify``'s cell-by-cell comparison). The tables hold
#: numbers rounded to :data:`~omkl_core.repro.report.HASH_DIGITS` = 8 significant digits, so a
#: last-bit difference of the run (another BLAS kernel orders a dot product's terms differently:
#: ~1e-16 relative per operation; the largest seen, 1.6e-12 relative in a feature map, issue 51)
#: shows as at most one unit in the 8th digit, <= 1e-7 relative; 1e-6 allows ten such units and no
#: more, while a change of an algorithm, a seed or a parameter moves a table's numbers by far more.
#: A discrete choice that rounding could flip (a grid argmin) is made stable instead of widening
#: this (CalibratedEWA's ties).
DEFAULT_RTOL = 1e-6


class Tolerance(NamedTuple):
    """A per-table override of :data:`DEFAULT_RTOL`: ``rtol`` and the written reason it is needed."""

    rtol: float
    reason: str


#: ``{table: Tolerance}``: the tables compared with another tolerance than :data:`DEFAULT_RTOL`, each
#: with its reason. None is needed so far (the quick run's 53 tables are identical at 8 digits under
#: OpenBLAS's Prescott, Haswell and SkylakeX kernels, issue 51).
TOLERANCES: dict[str, Tolerance] = {}

#: What ``verify``'s outcome promises across machines (printed by ``verify`` and on the report's page).
PROMISE = (f"verify passes when every table is identical at {report.HASH_DIGITS} significant digits or within relative "
           f"{DEFAULT_RTOL:g} of the reference, cell by cell: promised on any x86-64 CPU and any OpenBLAS kernel with "
           "the NumPy and SciPy of requirements.lock (CI runs Prescott, Haswell and SkylakeX); not promised with "
           "another BLAS library (MKL, Accelerate) or another NumPy, whose results may differ beyond it.")

IDENTICAL, WITHIN, DIFFERS = "identical", "within tolerance", "differs"


def rtol_of(name: str) -> float:
    """The relative tolerance table ``name`` is compared with (:data:`TOLERANCES`, else :data:`DEFAULT_RTOL`)."""
    t = TOLERANCES.get(name)
    return DEFAULT_RTOL if t is None else t.rtol


def _number(cell: str) -> float | None:
    try:
        return float(cell)
    except ValueError:
        return None


def relative_deviation(a: str, b: str) -> float:
    """The relative deviation of two canonical cells: 0 when the strings are equal, ``|a - b| / max(|a|, |b|)``
    for two finite numbers, ``inf`` otherwise (a string, a round-off bound, nan or inf that differ)."""
    if a == b:
        return 0.0
    x, y = _number(a), _number(b)
    if x is None or y is None or not (math.isfinite(x) and math.isfinite(y)):
        return math.inf
    return 0.0 if x == y else abs(x - y) / max(abs(x), abs(y))     # x == y: "0" and "0.0", "1" and "1.0"


@dataclass(frozen=True)
class TableOutcome:
    """One table's comparison: ``status`` (:data:`IDENTICAL`, :data:`WITHIN`, :data:`DIFFERS`), the
    largest relative deviation over its common cells and where it is, and one line per difference
    (structural ones and the cells beyond the tolerance; ``n_cells`` of them in all)."""

    name: str
    status: str
    rtol: float
    max_rel: float = 0.0
    where: str = ""
    problems: tuple[str, ...] = ()
    n_cells: int = 0

    def line(self) -> str:
        """The table's outcome in one line."""
        if self.status == IDENTICAL:
            return f"{self.name}: identical at {report.HASH_DIGITS} significant digits"
        worst = f"largest relative deviation {self.max_rel:.2g} ({self.where})" if self.where else ""
        if self.status == WITHIN:
            return f"{self.name}: within tolerance (rel {self.rtol:g}), {worst}"
        what = f"{self.n_cells} cell{'s' if self.n_cells != 1 else ''} beyond rel {self.rtol:g}" if self.n_cells else ""
        return f"{self.name}: differs" + "".join(f"; {x}" for x in (what, worst if math.isfinite(self.max_rel) else "")
                                                  if x)


@dataclass(frozen=True)
class Comparison:
    """Every table's :class:`TableOutcome` (sorted by name); what ``verify`` prints and the report's
    numbers page shows (:meth:`summary`, :meth:`lines`)."""

    tables: tuple[TableOutcome, ...]

    def count(self, status: str) -> int:
        return sum(t.status == status for t in self.tables)

    @property
    def total(self) -> int:
        return len(self.tables)

    @property
    def identical(self) -> int:
        return self.count(IDENTICAL)

    @property
    def passed(self) -> bool:
        """No table differs (each identical or within its tolerance)."""
        return self.count(DIFFERS) == 0

    def largest(self) -> TableOutcome | None:
        """The table within tolerance of the largest relative deviation (None when there is none)."""
        dev = [t for t in self.tables if t.status == WITHIN]
        return max(dev, key=lambda t: t.max_rel) if dev else None

    def summary(self) -> str:
        """``N of M tables identical (at 8 significant digits), K within tolerance ..., D differ``."""
        worst = self.largest()
        return phrase_verify(self.identical, self.total, self.count(WITHIN), self.count(DIFFERS),
                             None if worst is None else f"{worst.max_rel:.2g} in {worst.name}, {worst.where}")

    def lines(self, max_cells: int = 20) -> list[str]:
        """One line per table (its outcome), then for a table that differs its differences (at most
        ``max_cells`` cells, then a count of the rest)."""
        out = []
        for t in self.tables:
            out.append(t.line())
            cells = [x for x in t.problems if x.startswith(f"{t.name}: row")]
            other = [x for x in t.problems if not x.startswith(f"{t.name}: row")]
            out += ["  " + x for x in other + cells[:max_cells]]
            if len(cells) > max_cells:
                out.append(f"  {t.name}: ... and {len(cells) - max_cells} more changed cells")
        return out


def _compare_one(name: str, ref: dict | None, cur: dict | None) -> TableOutcome:
    rtol = rtol_of(name)
    if cur is None:
        return TableOutcome(name, DIFFERS, rtol, math.inf, "", (f"{name}: missing from the current results (the reference has it)",))
    if ref is None:
        return TableOutcome(name, DIFFERS, rtol, math.inf, "", (f"{name}: not in the reference (a new table; --update adds it)",))
    if ref["sha256"] == cur["sha256"]:
        return TableOutcome(name, IDENTICAL, rtol)
    head = f"{name}:"
    problems = []
    if ref["columns"] != cur["columns"]:
        gone = [c for c in ref["columns"] if c not in cur["columns"]]
        new = [c for c in cur["columns"] if c not in ref["columns"]]
        problems.append(f"{head} columns differ: reference {ref['columns']} vs current {cur['columns']}"
                        + (f" (removed {gone})" if gone else "") + (f" (added {new})" if new else ""))
    if len(ref["rows"]) != len(cur["rows"]):
        problems.append(f"{head} {len(ref['rows'])} rows in the reference vs {len(cur['rows'])} now "
                        "(the common first rows are compared)")
    if ref.get("roundoff", {}) != cur.get("roundoff", {}):
        problems.append(f"{head} round-off bounds differ: reference {ref.get('roundoff', {})} vs current "
                        f"{cur.get('roundoff', {})}")
    common = [c for c in ref["columns"] if c in cur["columns"]]
    ri = {c: ref["columns"].index(c) for c in common}
    ci = {c: cur["columns"].index(c) for c in common}
    worst, where, cells = 0.0, "", []
    for i in range(min(len(ref["rows"]), len(cur["rows"]))):
        for c in common:
            a, b = ref["rows"][i][ri[c]], cur["rows"][i][ci[c]]
            r = relative_deviation(a, b)
            if r > worst or (r == worst == math.inf and not where):
                worst, where = r, f"{_label(cur, i)}, column {c}"
            if r > rtol:
                cells.append(f"{head} {_label(cur, i)}, column {c}: reference {a} vs current {b}")
    if not problems and not cells and worst == 0.0:
        # same cells, different hash: cannot happen unless the file was edited by hand
        problems.append(f"{head} hash differs: reference {ref['sha256']} vs current {cur['sha256']}")
    status = WITHIN if not problems and not cells else DIFFERS
    return TableOutcome(name, status, rtol, worst, where, tuple(problems + cells), len(cells))


def compare(reference: dict, current: dict) -> Comparison:
    """Compare two ``{name: table}`` maps (see :func:`current_tables`) table by table, cell by cell: a
    table is *identical* (same cells at 8 significant digits: same hash), *within tolerance* (every
    number within its relative tolerance, :func:`rtol_of`; every other cell the same) or *differs*
    (a cell beyond it, another shape, a table missing on one side)."""
    names = sorted(set(reference) | set(current))
    return Comparison(tuple(_compare_one(n, reference.get(n), current.get(n)) for n in names))


def compare_tables(reference: dict, current: dict, max_cells: int = 20) -> tuple[int, int, list[str]]:
    """``(identical, total, lines)`` of :func:`compare`: the number of tables identical at 8 significant
    digits, the number of tables in either map, and :meth:`Comparison.lines`."""
    c = compare(reference, current)
    return c.identical, c.total, c.lines(max_cells)


def outcome(reference: dict, current: dict, max_cells: int = 20) -> tuple[Comparison, list[str]]:
    """What ``verify`` prints and the report's numbers page shows, from one place: the :class:`Comparison`
    of the reference file's content ``reference`` (:func:`read_reference`) with ``current``
    (:func:`current_tables`), and its lines: the summary, each table's outcome and differences, the
    numbers hash (the fingerprint) and whether it is the reference's, and :data:`PROMISE`."""
    result = compare(reference["tables"], current)
    n = sum(name != SCORECARD for name in current)
    ref_hash, cur_hash = reference.get("numbers_sha256"), _numbers_hash(current)
    lines = [f"{result.summary()} ({n} number tables" + (" and the scorecard)" if SCORECARD in current
                                                          else ", no scorecard)")]
    lines += ["  " + line for line in result.lines(max_cells)]
    lines.append(f"numbers hash (fingerprint): current {cur_hash}, "
                 + ("the reference's" if ref_hash == cur_hash else f"the reference has {ref_hash}"))
    lines.append(PROMISE)
    return result, lines


def compare_results(results: Path, reference: Path) -> Comparison:
    """:func:`compare` of the results folder ``results`` against the reference file ``reference``:
    what ``verify`` prints and the report's numbers page shows."""
    return compare(read_reference(reference)["tables"], current_tables(results))


def read_reference(path: Path) -> dict:
    """The reference file written by :func:`write_reference`."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if data.get("format") != FORMAT or "tables" not in data:
        raise ValueError(f"{path}: not a reference of format {FORMAT} (rewrite it with --update)")
    if data.get("hash_digits") != report.HASH_DIGITS:
        raise ValueError(f"{path}: numbers rounded to {data.get('hash_digits')} digits, this code rounds to "
                         f"{report.HASH_DIGITS} (rewrite it with --update)")
    return data


def write_reference(path: Path, tables: dict, mode: str) -> None:
    """Write ``tables`` (see :func:`current_tables`) as the reference ``path``: JSON, one line per
    table row, so that a change of the reference reads as a small diff."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    dump = lambda v: json.dumps(v, ensure_ascii=False)  # noqa: E731
    stamp = report.run_stamp()
    out = ["{", f' "format": {FORMAT},', f' "mode": {dump(mode)},',
           f' "hash_digits": {report.HASH_DIGITS},',
           f' "written": {dump(_dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"))},',
           f' "commit": {dump(stamp["commit"])},',
           f' "numbers_sha256": {dump(_numbers_hash(tables))},',
           ' "tables": {']
    for k, name in enumerate(sorted(tables)):
        t = tables[name]
        rows = ",\n".join(f"    {dump(r)}" for r in t["rows"])
        out += [f"  {dump(name)}: {{",
                f'   "sha256": {dump(t["sha256"])},',
                f'   "roundoff": {dump(t["roundoff"])},',
                f'   "columns": {dump(t["columns"])},',
                '   "rows": [' + ("\n" + rows + "\n   ]" if t["rows"] else "]"),
                "  }" + ("," if k < len(tables) - 1 else "")]
    out += [" }", "}"]
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
