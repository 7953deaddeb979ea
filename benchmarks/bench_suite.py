"""Where the test suite's time goes, before and after a change:
``python benchmarks/bench_suite.py BEFORE/junit.xml AFTER/junit.xml [--top 15] [--out FILE]``.

Each ``junit.xml`` is what ``./reproduce.sh test`` writes (``results/junit.xml``: pytest's JUnit XML,
one ``testcase`` per test with its seconds; the ``testsuite`` element's ``time`` is pytest's own
wall time of the session). Run both on the idle machine, one after the other. The report gives
per run the tests that passed, failed, skipped, pytest's wall seconds, the sum of the tests' own
seconds (over the workers: with pytest-xdist the sum exceeds the wall time, their ratio is the
cores in use), then the slowest tests of each run (a test's seconds are its setup, call and
teardown, as pytest reports them) and the test files that take longest.
"""
from __future__ import annotations

import argparse
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path


def load(path) -> dict:
    """``{"wall", "tests", "failures", "errors", "skipped", "cases": {test id: seconds}}`` of a JUnit XML."""
    root = ET.parse(Path(path)).getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    out = {"wall": 0.0, "tests": 0, "failures": 0, "errors": 0, "skipped": 0, "cases": {}}
    for s in suites:
        out["wall"] += float(s.get("time", 0.0))
        for key in ("tests", "failures", "errors", "skipped"):
            out[key] += int(s.get(key, 0))
        for case in s.iter("testcase"):
            name = f"{case.get('classname', '')}::{case.get('name', '')}"
            out["cases"][name] = out["cases"].get(name, 0.0) + float(case.get("time", 0.0))
    return out


def by_file(cases: dict) -> dict:
    """Seconds per test file (the classname up to the module: ``tests.test_x`` -> ``tests/test_x.py``)."""
    files: dict = defaultdict(float)
    for name, sec in cases.items():
        module = name.split("::", 1)[0]
        parts = module.split(".")
        stem = next((i for i, p in enumerate(parts) if p.startswith("test_")), len(parts) - 1)
        files["/".join(parts[:stem + 1]) + ".py"] += sec
    return dict(files)


def summary(runs: dict) -> str:
    """The totals of each run, one row per run."""
    lines = ["| run | tests | failed | skipped | pytest wall (s) | sum of tests (s) | cores in use |",
             "|---|---|---|---|---|---|---|"]
    for label, r in runs.items():
        total = sum(r["cases"].values())
        lines.append(f"| {label} | {r['tests']} | {r['failures'] + r['errors']} | {r['skipped']} | "
                     f"{r['wall']:.0f} | {total:.0f} | {total / max(r['wall'], 1e-9):.2f} |")
    return "\n".join(lines)


def slowest(cases: dict, top: int) -> list[tuple[str, float]]:
    return sorted(cases.items(), key=lambda kv: -kv[1])[:top]


def report(runs: dict, top: int = 15) -> str:
    """The markdown report: totals, then per run its slowest tests and files."""
    parts = [summary(runs)]
    for label, r in runs.items():
        parts.append(f"Slowest {top} tests, {label}:\n\n| test | s |\n|---|---|\n" +
                     "\n".join(f"| `{n}` | {s:.1f} |" for n, s in slowest(r["cases"], top)))
        parts.append(f"Slowest {top} files, {label} (sum of their tests):\n\n| file | s |\n|---|---|\n" +
                     "\n".join(f"| `{n}` | {s:.0f} |" for n, s in slowest(by_file(r["cases"]), top)))
    return "\n\n".join(parts) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="benchmarks/bench_suite.py", description=__doc__.split("\n")[0])
    ap.add_argument("junit", nargs="+", help="junit.xml of each run (e.g. before, then after)")
    ap.add_argument("--labels", nargs="+", default=None, help="a label per run (default: before, after)")
    ap.add_argument("--top", type=int, default=15, help="slowest tests and files listed per run")
    ap.add_argument("--out", default=None, help="also write the report (markdown) to this file")
    args = ap.parse_args(argv)
    labels = args.labels or (["before", "after"] if len(args.junit) == 2 else [str(p) for p in args.junit])
    if len(labels) != len(args.junit):
        ap.error(f"--labels: {len(labels)} label(s) for {len(args.junit)} run(s)")
    text = report({lab: load(p) for lab, p in zip(labels, args.junit)}, args.top)
    print(text, end="")
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
