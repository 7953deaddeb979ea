"""What the reproduction report reads from a results folder (:mod:`omkl_core.repro.html_report`):
the saved tables and their stamps, the scorecard's verdicts (tiers and claim words,
:mod:`omkl_core.repro.verdicts`; quick rows are :data:`NOT_COMPUTED`), the JUnit XML of the last test run and the theory register of THEORY.md."""
from __future__ import annotations

import csv
import json
import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

__all__ = ["NOT_COMPUTED", "verdict", "junit_outcomes", "theory_rows", "inside"]

#: The verdict of a cell or claim that a quick run computes on its short horizon only.
NOT_COMPUTED = "not computed at full size"   # = omkl_core.repro.verdicts.NOT_COMPUTED (this module stays light)


def _read_csv(path: Path) -> tuple[list[str], list[list[str]]]:
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    return (rows[0], rows[1:]) if rows else ([], [])


def _records(path: Path) -> list[dict]:
    cols, rows = _read_csv(path)
    return [dict(zip(cols, r, strict=False)) for r in rows]


def _json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _float(text) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return math.nan


def verdict(value) -> str:
    """The verdict of a merged scorecard row as the pages show it: the row's own (a tier, a claim
    word; a quick run's rows already say :data:`NOT_COMPUTED`), or :data:`NOT_COMPUTED` when empty."""
    text = str(value).strip()
    return NOT_COMPUTED if not text or text.lower() == "nan" else text


def junit_outcomes(path: Path) -> tuple[dict, dict]:
    """Outcomes of a pytest JUnit XML: ``({"tests/test_x.py::test_name": [outcome, ...]}, summary)``;
    parametrised cases are listed under their function (and under their full id). Outcomes:
    ``passed``, ``failed``, ``error``, ``skipped``."""
    out: dict[str, list[str]] = {}
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return {}, {}
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    summary = {k: sum(int(s.get(k, 0) or 0) for s in suites) for k in ("tests", "failures", "errors", "skipped")}
    summary["timestamp"] = suites[0].get("timestamp", "") if suites else ""
    summary["hostname"] = suites[0].get("hostname", "") if suites else ""
    for case in root.iter("testcase"):
        cls, name = case.get("classname", ""), case.get("name", "")
        file = "tests/" + cls.split(".")[-1] + ".py" if cls else ""
        if case.find("failure") is not None:
            outcome = "failed"
        elif case.find("error") is not None:
            outcome = "error"
        elif case.find("skipped") is not None:
            outcome = "skipped"
        else:
            outcome = "passed"
        base = name.split("[", 1)[0]
        for key in {f"{file}::{base}", f"{file}::{name}"}:
            out.setdefault(key, []).append(outcome)
    return out, summary


def _outcome(node: str, outcomes: dict) -> str:
    got = outcomes.get(node)
    if not got:
        return "not run"
    for worst in ("failed", "error"):
        if worst in got:
            return worst
    return "passed" if "passed" in got else "skipped"


_NODE = re.compile(r"tests/test_[A-Za-z0-9_]+\.py::test_[A-Za-z0-9_]+(?:\[[^\]\s`]*\])?")


def theory_rows(text: str) -> list[dict]:
    """The rows of THEORY.md's register: ``paper, number, statement, kind, status, tests``
    (``tests``: the pytest node ids the status cell names)."""
    rows = []
    for line in text.splitlines():
        if not re.match(r"^\| (\d{3}|all) \|", line):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if len(cells) < 5:
            continue
        paper, number, statement, kind, status = cells[0], cells[1], cells[2], cells[3], " | ".join(cells[4:])
        rows.append({"paper": paper, "number": number, "statement": statement, "kind": kind, "status": status,
                     "tests": list(dict.fromkeys(_NODE.findall(status)))})
    return rows


def inside(path: Path, folder: Path, what: str) -> Path:
    """``path`` when it stays inside ``folder`` once links are resolved; a ``ValueError`` naming it
    otherwise (a figure linked to ``/etc/passwd`` is never copied into a report or a committed run)."""
    real = path.resolve()
    if path.is_symlink() and real != folder.resolve() and folder.resolve() not in real.parents:
        raise ValueError(f"{what} is a symbolic link to {real}, outside the results folder {folder}: refusing to "
                         "copy it; replace the link by the file")
    return path
