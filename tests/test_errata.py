"""The errata registry (omkl_core/errata.py) stays honest: every entry names tests that exist
(resolved file::function by an AST scan of tests/, parameter ids against the function's
parametrize decorators), entries are unique, results/errata.md is generated deterministically
by every scorecard run, and THEORY.md and the registry point at each other."""
from __future__ import annotations

import ast
import dataclasses
import re
from functools import cache
from pathlib import Path

import pytest

import omkl_core.repro as repro
from omkl_core.repro import errata

ROOT = Path(__file__).resolve().parent.parent
THEORY = (ROOT / "THEORY.md").read_text(encoding="utf-8")


@cache
def _functions(rel_path: str) -> dict[str, ast.FunctionDef]:
    """Top-level test functions of one test file: name -> AST node."""
    path = ROOT / rel_path
    if not path.is_file():
        return {}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")}


def _resolve(node_id: str) -> str | None:
    """None if ``tests/FILE.py::test_name[params]`` names an existing test, else the reason it does not."""
    file, _, rest = node_id.partition("::")
    name, _, params = rest.partition("[")
    funcs = _functions(file)
    if not funcs:
        return f"{file} does not exist or has no test functions"
    if name not in funcs:
        return f"{file} has no function {name}"
    if params:
        deco = " ".join(ast.unparse(d) for d in funcs[name].decorator_list if "parametrize" in ast.unparse(d))
        if not deco:
            return f"{name} is not parametrized but the node id gives [{params}"
        missing = [p for p in params.rstrip("]").split("-") if p not in deco]
        if missing:
            return f"{name}'s parametrize decorators have no value {missing}"
    return None


def test_registry_is_non_empty_and_ordered_by_paper():
    assert len(errata.ERRATA) >= 15
    papers = [e.paper for e in errata.ERRATA]
    assert papers == sorted(papers)


def test_entries_are_unique():
    ids = [e.id for e in errata.ERRATA]
    assert len(ids) == len(set(ids)), f"duplicate ids: {sorted(i for i in ids if ids.count(i) > 1)}"
    keys = [(e.paper, e.item) for e in errata.ERRATA]
    assert len(keys) == len(set(keys)), "two entries for the same printed item"
    for paper in errata.PAPERS:           # ids numbered 1..k within a paper, in registry order
        nums = [int(e.id.split("-")[1]) for e in errata.ERRATA if e.paper == paper]
        assert nums == list(range(1, len(nums) + 1)), f"paper {paper}: ids {nums}"


@pytest.mark.parametrize("entry", errata.ERRATA, ids=lambda e: e.id)
def test_every_entry_names_existing_tests(entry):
    """A test fails if an entry has no test for the printed form or the corrected form, or names one that
    does not exist."""
    assert entry.printed_fails and entry.corrected_holds
    problems = {t: _resolve(t) for t in entry.tests}
    problems = {t: why for t, why in problems.items() if why}
    assert not problems, f"{entry.id} names tests that do not exist: {problems}"


def test_resolver_rejects_missing_tests():
    """The check above can fail: a missing file, a missing function and a missing parameter are caught."""
    assert _resolve("tests/test_theory_paper004.py::test_paper004_theorem31_printed_fails") is None
    assert _resolve("tests/test_theory_paper004.py::test_paper004_theorem31_corrected[0.05-0]") is None
    assert _resolve("tests/test_nope.py::test_x") is not None
    assert _resolve("tests/test_theory_paper004.py::test_paper004_no_such_test") is not None
    assert _resolve("tests/test_theory_paper004.py::test_paper004_theorem31_corrected[0.07-0]") is not None
    assert _resolve("tests/test_theory_paper004.py::test_paper004_theorem31_printed_fails[x]") is not None


def test_erratum_validates_its_fields():
    e = errata.ERRATA[0]
    with pytest.raises(TypeError, match="printed_fails"):
        dataclasses.replace(e, printed_fails=())
    with pytest.raises(ValueError, match="corrected_holds"):
        dataclasses.replace(e, corrected_holds=("test_errata.py::test_x",))
    with pytest.raises(ValueError, match="id"):
        dataclasses.replace(e, id="E004-2")                       # id and paper disagree
    with pytest.raises(ValueError, match="kind"):
        dataclasses.replace(e, kind="typo")
    with pytest.raises(ValueError, match="evidence"):
        dataclasses.replace(e, evidence=" ")
    with pytest.raises(ValueError, match="erratum_id"):
        errata.by_id("E999-1")
    with pytest.raises(TypeError, match="path"):
        errata.write_markdown(3)
    assert errata.by_id("E004-7").item.startswith("Theorem 31")


def test_markdown_is_deterministic_and_complete(tmp_path):
    a = errata.write_markdown(tmp_path / "a" / "errata.md").read_bytes()
    b = errata.write_markdown(tmp_path / "b.md").read_bytes()
    assert a == b == errata.render_markdown().encode("utf-8")
    text = a.decode("utf-8")
    assert not re.search(r"\b20\d\d-\d\d-\d\d\b", text), "the errata list must not carry a date"
    for e in errata.ERRATA:
        assert f"### {e.id}: " in text and e.printed in text and e.evidence in text
        for t in e.tests:
            assert f"`{t}`" in text
    assert text.count("\n### ") == len(errata.ERRATA)


def test_scorecard_writes_errata_md(tmp_path, monkeypatch):
    """Every run (quick or full) writes results/errata.md: report.scorecard() writes it, even with no rows."""
    monkeypatch.setenv("OMKL_RESULTS", str(tmp_path))
    repro.report.scorecard()
    assert (tmp_path / "errata.md").read_text(encoding="utf-8") == errata.render_markdown()


def _theory_rows(paper: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip().strip("|").split("|")]
            for line in THEORY.splitlines() if line.startswith(f"| {paper} ")]


@pytest.mark.parametrize("entry", errata.ERRATA, ids=lambda e: e.id)
def test_theory_md_row_points_to_the_entry(entry):
    rows = [r for r in _theory_rows(entry.paper) if r[1] == entry.theory_row]
    assert rows, f"{entry.id}: THEORY.md has no row '{entry.theory_row}' for paper {entry.paper}"
    assert any(f"erratum {entry.id}" in " | ".join(r) for r in rows), \
        f"THEORY.md row '{entry.theory_row}' of paper {entry.paper} does not name 'erratum {entry.id}'"


def test_theory_md_names_only_registered_errata():
    named = set(re.findall(r"\bE\d{3}-\d+\b", THEORY))
    missing = sorted(named - {e.id for e in errata.ERRATA})
    assert not missing, f"THEORY.md names errata that are not in omkl_core/errata.py: {missing}"


def test_every_printed_form_test_belongs_to_an_entry():
    """The other direction: a theory test that evaluates a printed form ('printed' in its name, or a name ending
    in '_fails') is an erratum's evidence, so it must be named by an entry."""
    named = {t.split("::")[1].split("[")[0] for e in errata.ERRATA for t in e.tests}
    printed_tests = {name for path in sorted((ROOT / "tests").glob("test_theory_paper*.py"))
                     for name in _functions(f"tests/{path.name}")
                     if "printed" in name or name.endswith("_fails")}
    assert printed_tests, "no printed-form tests found: the scan is broken"
    orphans = sorted(printed_tests - named)
    assert not orphans, f"tests of printed forms that no erratum names: {orphans}"


def test_an_equality_where_the_paper_prints_le_is_not_an_erratum():
    """Theorem 26's bound (paper 004) holds with equality for the exact w_t: "≤" is true, so it is no erratum."""
    assert not [e.id for e in errata.ERRATA if "Theorem 26" in e.item]
