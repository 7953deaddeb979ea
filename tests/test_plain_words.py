"""Plain words for a user who has not read the papers (issue 53, item 3).

What a newcomer reads first -- ``omkl --help``, ``omkl run --help``, ``omkl models``,
``Mixture.summary()``, ``check_learner``'s report and the first line of each learner's docstring (the
API pages' first lines) -- names things as a user says them: no pointer into the project's
reference notes ("ref. A.4"), no issue numbers, no reST markup, no description cut short.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

import omkl_core as ok
from omkl_core import registry
from omkl_core.cli import main

JARGON = ("``", "ref. A", "reference A", "(issue", "…")


def _clean(text: str, where: str) -> None:
    found = [j for j in JARGON if j in text]
    assert not found, f"{where} contains {found}: {text[max(0, text.find(found[0]) - 80):text.find(found[0]) + 80]!r}"


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"], ["models"]])
def test_omkl_help_and_models_are_in_plain_words(argv, capsys):
    try:
        main(argv)
    except SystemExit:
        pass
    out = capsys.readouterr().out
    assert out.strip()
    _clean(out, f"omkl {' '.join(argv)}")
    if argv == ["models"]:                                     # every description whole, none cut short
        assert not re.search(r"\.\.\.\s*(\[|$)", out, re.M)


def test_summary_of_the_default_mixture_is_in_plain_words():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 2))
    y = 50.0 + X[:, 0] + rng.normal(0, 0.1, 80)
    text = str(ok.Mixture().summary(X, y))
    _clean(text, "Mixture().summary()")
    assert "shift path" not in text and "best expert sequence, <= 3 switches" in text
    assert "symbols:\n    r_t,k" in text                          # one symbol a line, not all on one


def test_check_learner_report_is_in_plain_words():
    _clean(str(ok.checks.check_learner(ok.OnlineRidge())), "check_learner's report")


@pytest.mark.parametrize("name", sorted(registry.learners()))
def test_every_learner_opens_with_a_sentence_in_plain_words(name):
    """The first paragraph of the class docstring (the API page's first line, what omkl models
    prints): no reference-note pointer, no markup, no issue number, and it ends a sentence."""
    doc = registry.learners()[name].__doc__ or ""
    first = " ".join(doc.strip().split("\n\n")[0].split())
    _clean(first, f"{name}'s first line")
    assert re.search(r"\.$", first), f"{name}'s first paragraph is not a sentence: {first!r}"
    assert not re.search(r"\bP00\d\b|\bref\.|reference [A-C]", first), first


def test_reproduce_help_prints_the_drivers_options_too():
    """./reproduce.sh --help promises 'this text and the driver's options': both are printed."""
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    if not (root / ".venv" / "bin" / "python").is_file():
        pytest.skip("no .venv (./reproduce.sh setup)")
    out = subprocess.run([str(root / "reproduce.sh"), "--help"], capture_output=True, text=True, timeout=120,
                         cwd=root).stdout
    assert "Ctrl-C / SIGTERM stops the run" in out                  # the shell's text
    assert "show this help message and exit" in out and "commands:" in out   # the driver's argparse options
