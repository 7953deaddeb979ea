"""Compare the current results with the reference committed in the repository, table by table.

``./reproduce.sh verify [--quick]`` (or ``python -m omkl_core.repro.verify [--quick]``) reads
every number table in ``results/tables/`` (``results/quick/tables/`` with ``--quick``; the folder
follows ``$OMKL_RESULTS`` like the notebook run) and ``results/scorecard.csv``, puts each in the
canonical form of :func:`omkl_core.repro.report.canonical_table` (numbers rounded to
:data:`~omkl_core.repro.report.HASH_DIGITS` significant digits, so the NumPy and the Numba engine give
the same form), and compares it with ``reference/quick/hashes.json`` or
``reference/full/hashes.json``: per table its SHA-256 and its rounded cells, so that a
difference is shown cell by cell. Timing tables (``*_timing``) are never compared.

It prints ``N of M tables identical`` (M: the tables of the reference and of the current
results together), then each difference: a table missing from the results, a table the
reference lacks, changed columns or row counts, and each changed cell as ``reference`` vs
``current``. Exit status 0 when every table is identical, 1 otherwise (also when there is no
reference or no result to compare).

Updating the reference (after a change that is meant to change numbers, or after merging
branches): run the notebooks (``./reproduce.sh --quick``, or the full run), then
``./reproduce.sh verify --quick --update`` (full: ``verify --update``) and commit
``reference/``. ``--update`` first prints the comparison with the old reference, so the commit
message can say which tables changed.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import sys
from pathlib import Path

from . import committed, counts, report

__all__ = ["main", "current_tables", "compare_tables", "compare_results", "write_reference", "read_reference", "ROOT",
           "SCORECARD"]

#: The checkout this module belongs to (``reference/`` and ``results/`` live there).
ROOT = Path(__file__).resolve().parent.parent.parent
#: Name of the scorecard (``<results>/scorecard.csv``) among the compared tables.
SCORECARD = "scorecard"
FORMAT = 1


def _results_dir(quick: bool) -> Path:
    # the same folder the notebook run writes: $OMKL_RESULTS or results/, quick runs in quick/
    base = Path(os.environ.get("OMKL_RESULTS") or ROOT / "results")
    return base / "quick" if quick else base


def _reference_path(quick: bool) -> Path:
    return ROOT / "reference" / ("quick" if quick else "full") / "hashes.json"


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
        if report.is_timing(name):
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


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="./reproduce.sh verify",
        description="Compare the current results with the committed reference, table by table "
                    f"(numbers rounded to {report.HASH_DIGITS} significant digits; timing tables excluded).",
        epilog="After a change meant to change numbers: run the notebooks, then verify --update "
               "(with --quick for the quick reference) and commit reference/.")
    p.add_argument("--quick", action="store_true",
                   help="the quick run's results (results/quick/) against reference/quick/hashes.json")
    p.add_argument("--update", action="store_true",
                   help="print the comparison, then rewrite the reference from the current results")
    p.add_argument("--results", type=Path, default=None,
                   help="results folder (default: $OMKL_RESULTS or results/, plus quick/ with --quick)")
    p.add_argument("--reference", type=Path, default=None,
                   help="reference file (default: reference/quick/hashes.json or reference/full/hashes.json)")
    p.add_argument("--max-cells", type=int, default=20, help="changed cells shown per table (default: 20)")
    return p


def main(argv=None) -> int:
    """Command line: see the module docstring. Returns the exit status (0: every table identical)."""
    ns = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    if ns.max_cells < 0:
        _parser().error("--max-cells must be >= 0")
    mode = "quick" if ns.quick else "full"
    results = ns.results if ns.results is not None else _results_dir(ns.quick)
    ref_path = ns.reference if ns.reference is not None else _reference_path(ns.quick)
    current = current_tables(results) if results.is_dir() else {}
    if not any(n != SCORECARD for n in current):
        print(f"verify ({mode}): no number tables in {results / 'tables'}; run the notebooks first "
              f"(./reproduce.sh{' --quick' if ns.quick else ''})")
        return 1
    reference = None
    if ref_path.exists():
        try:
            reference = read_reference(ref_path)
        except (ValueError, json.JSONDecodeError) as exc:
            print(f"verify ({mode}): {exc}")
            if not ns.update:
                return 1
    elif not ns.update:
        print(f"verify ({mode}): no reference at {ref_path}; write one from these results with "
              f"./reproduce.sh verify{' --quick' if ns.quick else ''} --update")
        return 1
    print(f"verify ({mode}): {results} against {ref_path} "
          f"(numbers rounded to {report.HASH_DIGITS} significant digits; timing tables excluded)")
    status = 0
    if reference is not None:
        same, total, lines = compare_tables(reference["tables"], current, ns.max_cells)
        n = sum(name != SCORECARD for name in current)
        print(f"{counts.phrase_verify(same, total)} ({n} number tables" + (" and the scorecard)" if SCORECARD in current
                                                                          else ", no scorecard)"))
        for line in lines:
            print("  " + line)
        print(f"numbers hash: reference {reference.get('numbers_sha256')}, current {_numbers_hash(current)}")
        status = 0 if same == total else 1
    if committed.exists():
        print(committed.age().sentence())
    if ns.update:
        write_reference(ref_path, current, mode)
        print(f"reference written: {ref_path} ({len(current)} tables, numbers hash {_numbers_hash(current)})")
        return 0
    return status


if __name__ == "__main__":  # pragma: no cover - python -m omkl_core.repro.verify
    sys.exit(main())
