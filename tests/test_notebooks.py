"""Notebook hygiene: stored without outputs, with a tagged `parameters` cell holding `quick`."""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ holds no notebook"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    dirty = [i for i, c in enumerate(nb.cells)
             if c.cell_type == "code" and (c.get("outputs") or c.get("execution_count") is not None)]
    assert not dirty, f"{path.name}: cells {dirty} carry outputs; clear them before committing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_has_parameters_cell_with_quick(path):
    nb = nbformat.read(path, as_version=4)
    tagged = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(tagged) == 1, f"{path.name}: needs exactly one cell tagged 'parameters'"
    assert "quick" in tagged[0].source, f"{path.name}: the parameters cell must define quick"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_name_pattern(path):
    import re
    assert re.fullmatch(r"p(\d{3}|_all)_[a-z0-9_]+", path.stem), f"{path.name}: use pNNN_topic.ipynb"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_declares_its_mode(path):
    """An interactive run (JupyterLab, no OMKL_MODE) must still stamp its outputs quick/full:
    the first code cell after `parameters` that imports omkl calls report.set_mode from `quick`."""
    nb = nbformat.read(path, as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    where = [i for i, s in enumerate(code) if "report.set_mode(" in s]
    assert where, f"{path.name}: call repro.report.set_mode(\"quick\" if quick else \"full\") after the parameters cell"
    assert where[0] <= 2, f"{path.name}: set_mode must come before the notebook computes anything (code cell {where[0]})"
