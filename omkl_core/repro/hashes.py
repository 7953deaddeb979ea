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
from pathlib import Path

from . import report
from .counts import is_timing

__all__ = ["current_tables", "compare_tables", "compare_results", "write_reference", "read_reference", "SCORECARD",
           "FORMAT"]

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


def compare_tables(reference: dict, current: dict, max_cells: int = 20) -> tuple[int, int, list[str]]:
    """Compare two ``{name: table}`` maps (see :func:`current_tables`).

    Returns ``(identical, total, lines)``: the number of identical tables, the number of tables
    in either map, and one line per difference (at most ``max_cells`` changed cells per table,
    then a count of the rest).
    """
    names = sorted(set(reference) | set(current))
    identical, lines = 0, []
    for name in names:
        if name not in current:
            lines.append(f"{name}: missing from the current results (the reference has it)")
            continue
        if name not in reference:
            lines.append(f"{name}: not in the reference (a new table; --update adds it)")
            continue
        ref, cur = reference[name], current[name]
        if ref["sha256"] == cur["sha256"]:
            identical += 1
            continue
        head = f"{name}:"
        out = []
        if ref["columns"] != cur["columns"]:
            gone = [c for c in ref["columns"] if c not in cur["columns"]]
            new = [c for c in cur["columns"] if c not in ref["columns"]]
            out.append(f"{head} columns differ: reference {ref['columns']} vs current {cur['columns']}"
                       + (f" (removed {gone})" if gone else "") + (f" (added {new})" if new else ""))
        if len(ref["rows"]) != len(cur["rows"]):
            out.append(f"{head} {len(ref['rows'])} rows in the reference vs {len(cur['rows'])} now "
                       "(the common first rows are compared)")
        if ref.get("roundoff", {}) != cur.get("roundoff", {}):
            out.append(f"{head} round-off bounds differ: reference {ref.get('roundoff', {})} vs current "
                       f"{cur.get('roundoff', {})}")
        common = [c for c in ref["columns"] if c in cur["columns"]]
        ri = {c: ref["columns"].index(c) for c in common}
        ci = {c: cur["columns"].index(c) for c in common}
        cells = []
        for i in range(min(len(ref["rows"]), len(cur["rows"]))):
            for c in common:
                a, b = ref["rows"][i][ri[c]], cur["rows"][i][ci[c]]
                if a != b:
                    cells.append(f"{head} {_label(cur, i)}, column {c}: reference {a} vs current {b}")
        if cells:
            out.append(f"{head} {len(cells)} changed cell{'s' if len(cells) > 1 else ''}")
        out += cells[:max_cells]
        if len(cells) > max_cells:
            out.append(f"{head} ... and {len(cells) - max_cells} more changed cells")
        if not out:     # same cells, different hash: cannot happen unless the file was edited by hand
            out.append(f"{head} hash differs: reference {ref['sha256']} vs current {cur['sha256']}")
        lines += out
    return identical, len(names), lines


def compare_results(results: Path, reference: Path, max_cells: int = 20) -> tuple[int, int, list[str]]:
    """:func:`compare_tables` of the results folder ``results`` against the reference file
    ``reference``: what ``verify`` prints and the report's hashes page shows."""
    return compare_tables(read_reference(reference)["tables"], current_tables(results), max_cells)


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
