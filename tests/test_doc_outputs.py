"""Docs that cannot go stale (issue 53, item 2).

Every block of shown output in docs/ and the README is a ```text fence right after
``<!-- output of: omkl ARGS -->``: each command is run here and what it prints now is compared with
the block, numbers included (doctest's ELLIPSIS and NORMALIZE_WHITESPACE: ``...`` stands for what
varies, a time; lines may be wrapped at spaces).  ``python tools/doc_outputs.py`` refreshes them.
The Python blocks are run by tests/test_docs.py and tests/test_readme.py (``>>>`` output compared).
Defaults named in the guide's prose are read from the code here.
"""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "guide"


def _tool():
    spec = importlib.util.spec_from_file_location("omkl_doc_outputs", ROOT / "tools" / "doc_outputs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


TOOL = _tool()
SHOWN = [(page.relative_to(ROOT).as_posix(), m.group("cmd"), m.group("out"))
         for page in TOOL.pages() for m in TOOL.BLOCK.finditer(page.read_text(encoding="utf-8"))]


def test_every_block_of_shown_output_names_the_command_that_prints_it():
    bare = []
    for page in TOOL.pages():
        text = page.read_text(encoding="utf-8")
        fences = len(re.findall(r"^```(text|console|output)\s*$", text, re.M))
        if fences != len(TOOL.BLOCK.findall(text)):
            bare.append(page.relative_to(ROOT).as_posix())
    assert not bare, f"shown output without an '<!-- output of: omkl ... -->' line above it: {bare}"
    assert len(SHOWN) >= 2                                   # stream.md and regret.md show output


@pytest.mark.parametrize("page,cmd,want", SHOWN, ids=[f"{p}:{c}" for p, c, _ in SHOWN])
def test_shown_output_is_what_the_command_prints_now(page, cmd, want):
    got = TOOL.run(cmd)
    assert TOOL.matches(want, got), (f"{page}: the output shown for {cmd!r} is stale (python tools/doc_outputs.py "
                                     f"refreshes it); it prints now:\n{TOOL.shown(got)}")


def test_a_changed_number_in_a_shown_output_is_caught():
    """The comparison is not vacuous: one digit changed in a shown block no longer matches."""
    page, cmd, want = next(s for s in SHOWN if "mse=" in s[2])
    got = TOOL.run(cmd)
    assert TOOL.matches(want, got)
    m = re.search(r"mse=(\d)", want)
    wrong = want[:m.start(1)] + str((int(m.group(1)) + 1) % 10) + want[m.end(1):]
    assert not TOOL.matches(wrong, got)


def test_the_guide_names_the_default_mixture_as_the_code_builds_it():
    from omkl_core.cli import DEFAULT_EXPERTS, DEFAULT_META
    from omkl_core.mixture import default_meta, default_pool

    assert list(default_pool()) == list(DEFAULT_EXPERTS)
    experts = ", ".join(f"`{e}`" if e != "running mean" else "the running mean" for e in DEFAULT_EXPERTS[:-1])
    text = " ".join((GUIDE / "stream.md").read_text(encoding="utf-8").split())
    assert f"default: {experts} and `{DEFAULT_EXPERTS[-1]}`" in text
    assert f"(default `{DEFAULT_META}`: ML-Poly in the target's units)" in text
    assert type(default_meta()).__name__ == DEFAULT_META.split(":")[0] and default_meta().bounds is None
    assert "(default `BOA`)" not in text


def test_regret_runs_under_the_default_online_scaling_for_the_default_mixture(tmp_path, capsys):
    """stream.md: '--regret runs under every scaling for the default Mixture'."""
    from omkl_core.cli import main

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    f = tmp_path / "s.csv"
    np.savetxt(f, np.column_stack([X, 20 + X[:, 0]]), delimiter=",", header="a,b,y", comments="")
    assert main(["run", "--csv", str(f), "--regret"]) == 0
    assert "bound of the meta-learner: ML-Poly" in capsys.readouterr().out
    assert main(["run", "VAW2", "--csv", str(f), "--regret"]) == 2                  # a learner scaled as a whole
    assert "--scale paper" in capsys.readouterr().err


def test_the_table_of_bounds_says_which_rules_carry_one_as_the_rules_declare():
    """regret.md's table: a rule listed under 'none' declares no bound; one that declares a bound has its
    own row naming it."""
    import omkl_core as ok

    text = (GUIDE / "regret.md").read_text(encoding="utf-8")
    none_row = next(line for line in text.splitlines() if line.startswith("|") and "| none" in line)
    for name in re.findall(r"`(\w+)`", none_row.split("|")[1]):
        cls = getattr(ok, name)
        assert cls.regret_bound is None, f"regret.md lists {name} as carrying no bound; it declares {cls.regret_bound.name}"
    for name in ("MLPoly", "EWA", "AggregatingAlgorithm", "VAWMeta"):
        rb = getattr(ok, name).regret_bound
        rows = [line for line in text.splitlines() if line.startswith(f"| `{name}`")]
        assert rb is not None and rows, f"regret.md has no row of its own for {name}"
