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
results together; identical: the same cells at 8 significant digits, the same hash), then one line per
table: *identical*, *within tolerance* (every number within the relative tolerance of
:func:`omkl_core.repro.hashes.rtol_of`, :data:`~omkl_core.repro.hashes.DEFAULT_RTOL` unless a table's
override says why; the largest relative deviation and its cell) or *differs* (a table missing from the
results, a table the reference lacks, changed columns or row counts, and each cell beyond the
tolerance as ``reference`` vs ``current``); then the numbers hash (the fingerprint) and whether it is
the reference's, and what the comparison promises across machines
(:data:`~omkl_core.repro.hashes.PROMISE`). Exit status 0 when no table differs, 1 otherwise (also
when there is no reference or no result to compare). The reading, comparing and writing live in
:mod:`omkl_core.repro.hashes` (``publish`` checks with them too; the report's numbers page prints
:func:`~omkl_core.repro.hashes.outcome`'s lines, as this command does) and are re-exported here.

Updating the reference (after a change that is meant to change numbers, or after merging
branches): run the notebooks (``./reproduce.sh --quick``, or the full run), then
``./reproduce.sh verify --quick --update`` (full: ``verify --update``) and commit
``reference/``. ``--update`` first prints the comparison with the old reference, so the commit
message can say which tables changed.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from . import committed, report
from .hashes import (  # noqa: F401  (compare_results: re-exported, a public name of this module)
    FORMAT,
    PROMISE,
    SCORECARD,
    _numbers_hash,
    compare,
    compare_results,
    compare_tables,
    current_tables,
    outcome,
    read_reference,
    write_reference,
)

__all__ = ["main", "current_tables", "compare", "compare_tables", "compare_results", "write_reference", "read_reference", "ROOT",
           "SCORECARD", "FORMAT", "outcome", "PROMISE", "blas_in_use"]

#: The checkout this module belongs to (``reference/`` and ``results/`` live there).
ROOT = Path(__file__).resolve().parent.parent.parent


def blas_in_use() -> str:
    """The BLAS libraries NumPy computes with and their kernel, as threadpoolctl names them
    (``openblas 0.3.31 kernel SkylakeX``; ``OPENBLAS_CORETYPE`` chooses OpenBLAS's)."""
    import numpy  # noqa: F401, PLC0415  (loads the BLAS that threadpoolctl then finds)
    try:
        import threadpoolctl  # noqa: PLC0415
    except ImportError:
        return "unknown (threadpoolctl is not installed)"
    libs = [i for i in threadpoolctl.threadpool_info() if i.get("user_api") == "blas"]
    return "; ".join(f"{i.get('internal_api')} {i.get('version')} kernel {i.get('architecture')}" for i in libs) or "none found"


def _results_dir(quick: bool) -> Path:
    # the same folder the notebook run writes: $OMKL_RESULTS or results/, quick runs in quick/
    base = Path(os.environ.get("OMKL_RESULTS") or ROOT / "results")
    return base / "quick" if quick else base


def _reference_path(quick: bool) -> Path:
    return ROOT / "reference" / ("quick" if quick else "full") / "hashes.json"


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
          f"(numbers rounded to {report.HASH_DIGITS} significant digits; timing tables excluded); "
          f"this process's BLAS: {blas_in_use()}")
    status = 0
    if reference is not None:
        result, lines = outcome(reference, current, ns.max_cells)
        print("\n".join(lines))
        status = 0 if result.passed else 1
    if committed.exists():
        print(committed.age().sentence())
    if ns.update:
        write_reference(ref_path, current, mode)
        print(f"reference written: {ref_path} ({len(current)} tables, numbers hash {_numbers_hash(current)})")
        return 0
    return status


if __name__ == "__main__":  # pragma: no cover - python -m omkl_core.repro.verify
    sys.exit(main())
