"""THEORY.md stays honest: every test it names exists, and the papers whose issues are done
have no `todo` rows left."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
THEORY = (ROOT / "THEORY.md").read_text(encoding="utf-8")
DONE_PAPERS = ["000", "001", "002", "003", "004"]


def _test_functions() -> set[str]:
    names = set()
    for path in (ROOT / "tests").glob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                names.add(node.name)
    return names


def _rows(paper: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip().strip("|").split("|")]
            for line in THEORY.splitlines() if line.startswith(f"| {paper} ")]


def test_theory_md_names_only_existing_tests():
    named = set(re.findall(r"\btest_[A-Za-z0-9_]+", THEORY))
    modules = {p.stem for p in (ROOT / "tests").glob("test_*.py")} | {"test_theory_paperNNN"}
    missing = sorted(named - _test_functions() - modules)
    assert not missing, f"THEORY.md names tests that do not exist: {missing}"


@pytest.mark.parametrize("paper", DONE_PAPERS)
def test_theory_md_rows_have_status(paper):
    rows = _rows(paper)
    assert rows, f"THEORY.md has no rows for paper {paper}"
    todo = [r[1] for r in rows if r[-1].lower() == "todo"]
    assert not todo, f"paper {paper}: rows still marked todo: {todo}"
