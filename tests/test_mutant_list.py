"""The domain mutants of tools/mutants.py stay applicable as the code they mutate changes.

Running the mutants takes many minutes (``./reproduce.sh mutants``), so the suite only checks
that each mutant's pattern still occurs exactly once in its file: a refactor that moves or
rewrites a mutated line must move its mutant with it (otherwise the mutation score would
silently stop measuring that line).
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _load_tool():
    spec = importlib.util.spec_from_file_location("omkl_mutants_tool", ROOT / "tools" / "mutants.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod            # dataclasses look their module up while the file executes
    spec.loader.exec_module(mod)
    return mod


def test_every_mutant_pattern_occurs_exactly_once():
    tool = _load_tool()
    assert tool.MUTANTS, "tools/mutants.py lists no mutant"
    assert tool.check_patterns(tool.MUTANTS) == []


def test_mutant_names_unique_and_engines_known():
    tool = _load_tool()
    names = [m.name for m in tool.MUTANTS]
    assert len(names) == len(set(names))
    assert {m.engine for m in tool.MUTANTS} <= {"numpy", "auto", "numba"}
