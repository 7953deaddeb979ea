"""Notebook hygiene: stored without outputs, with a tagged `parameters` cell holding `quick`;
thin (issue 30 item 3): the paper module computes, the cell calls it and draws."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
#: The most lines of code a notebook may hold (non-empty, non-comment lines of its code cells).
MAX_CODE_LINES = 60


def code_lines(path: Path) -> list[str]:
    """The non-empty, non-comment lines of a notebook's code cells."""
    nb = nbformat.read(path, as_version=4)
    lines = [line.strip() for c in nb.cells if c.cell_type == "code" for line in c.source.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


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


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_is_thin(path):
    """At most MAX_CODE_LINES lines of code, no function or class defined in a cell (functions
    live in one place: the paper module), no loop over time steps or repetitions in a cell."""
    lines = code_lines(path)
    assert len(lines) <= MAX_CODE_LINES, f"{path.name}: {len(lines)} lines of code (at most {MAX_CODE_LINES})"
    nb = nbformat.read(path, as_version=4)
    for c in nb.cells:
        if c.cell_type != "code":
            continue
        tree = ast.parse("\n".join(line for line in c.source.splitlines() if not line.lstrip().startswith(("%", "!"))))
        defined = [n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))]
        assert not defined, f"{path.name}: defines {defined} in a cell; put it in omkl_core/repro/ and import it"
        nested = [n for n in ast.walk(tree) if isinstance(n, ast.For)
                  and any(isinstance(m, ast.For) for m in ast.walk(n) if m is not n)]
        assert not nested, f"{path.name}: a loop nested in a loop in a cell (move it into the paper module)"


def test_the_thin_check_counts_code_not_comments(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("text\n\nmore"),
                nbformat.v4.new_code_cell("# a comment\n\nx = 1\n  # indented comment\ny = 2")]
    path = tmp_path / "p009_x.ipynb"
    nbformat.write(nb, path)
    assert code_lines(path) == ["x = 1", "y = 2"]


PAPER_MODULES = sorted(p.stem for p in (ROOT / "omkl_core" / "repro").glob("paper0*.py"))


@pytest.mark.parametrize("name", PAPER_MODULES)
def test_paper_module_imports_without_running_anything(name, tmp_path):
    """Importing omkl_core.repro.paperNNN computes nothing and writes nothing (not even a results
    folder), and loads no plotting library; every public function has a docstring."""
    code = (f"import sys, inspect, omkl_core.repro.{name} as m\n"
            "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot imported at module level'\n"
            "bare = [n for n in m.__all__ if inspect.isfunction(getattr(m, n)) and not inspect.getdoc(getattr(m, n))]\n"
            "assert not bare, bare\n")
    env = {**os.environ, "OMKL_RESULTS": str(tmp_path / "results"), "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert not any(tmp_path.iterdir()), f"importing {name} wrote {sorted(p.name for p in tmp_path.iterdir())}"


#: Decimal numbers notebook prose may state that no run computes, each with its reason (issue 50: a run's
#: numbers in markdown go stale; the cells print them from the tables instead). Published values of the
#: papers' tables are allowed everywhere (``paper_values``), the arXiv number of paper 000 too.
PROSE_CONSTANTS = {
    "p001_noisy_kernels": {"0.05": "a hand-picked step size (a parameter)", "0.25": "a step size from a grid (a parameter)",
                           "0.64": "(0.2 − 1)², the twin's exact average regret (a derivation)"},
    "p002_ridge_equalities": {"0.03": "σ² of the experiment (a parameter)"},
    "p004_additive": {"0.22": "the expected test error stated before running", "0.26": "the same expectation"},
    "p_all_leaderboard": {"0.26": "River's version", "1.02": "the claim's tolerance (lb.CLAIM_TOLERANCE)"},
    "p000_vaw2": {"2503.20087": "the arXiv number", "0.05": "the code's clipping threshold of q (a parameter)",
                  "1.40": "23.24 / 16.56, a ratio of published cells",
                  "1.236": "20.47 / 16.56, a ratio of published cells"},
}
#: Markdown cells whose numbers are the errata's evidence, each computed by the erratum's test
#: (tests/test_theory_paper004.py; omkl_core/repro/errata.py names the tests).
PROSE_ERRATA_CELLS = {("p004_additive", "## Closing note: printed statements found wrong")}


def test_notebook_prose_states_no_number_of_a_run():
    """Issue 50: numbers in a notebook's markdown either come from its cells (printed from the tables)
    or are the papers' published values, a parameter or a derivation named in :data:`PROSE_CONSTANTS`:
    a run's result typed into prose goes stale with the next change of the code."""
    import re

    from omkl_core.repro import paper_values

    published = {f"{v:.2f}" for v in paper_values._all()["value"]} | {f"{v:g}" for v in paper_values._all()["value"]}
    stale = []
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        allowed = PROSE_CONSTANTS.get(path.stem, {})
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "markdown" or any(path.stem == n and cell.source.startswith(h)
                                                   for n, h in PROSE_ERRATA_CELLS):
                continue
            for m in re.finditer(r"(?<![\w.^(])\d+\.\d{2,}", cell.source):
                if m.group() not in published and m.group() not in allowed:
                    stale.append(f"{path.name} cell {i}: {m.group()} ({cell.source[max(0, m.start() - 60):m.end()]!r})")
    assert not stale, "numbers of a run in notebook prose (print them from a cell instead):\n" + "\n".join(stale)


def test_no_file_outside_the_repository_is_cited():
    """Issues 50 and 53: the repository cites its own files (reference/algorithms.md, tests/fixtures/...),
    never the project's shared folder beside the checkout, which a clone does not have."""
    out = subprocess.run(["git", "-C", str(ROOT), "grep", "-n", "-I", "-e", "../shared", "--", ".",
                          ":(exclude)reference/algorithms.md"], capture_output=True, text=True)
    if out.returncode not in (0, 1):
        pytest.skip(f"git grep failed: {out.stderr.strip()}")
    hits = [line for line in out.stdout.splitlines() if "tests/test_notebooks.py" not in line]
    assert not hits, "\n".join(hits)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_survives_a_jupyter_open_and_save_byte_for_byte(path, tmp_path):
    """Issue 53: opening a notebook in JupyterLab and saving it leaves the tracked file unchanged: the
    stored form is the one the notebook format writes (nbformat 4.5: cell ids, sorted keys, one-space
    indent, a final newline) and the Jupyter server's contents manager -- what JupyterLab saves
    through -- reads and writes it back byte for byte."""
    raw = path.read_bytes()
    nb = nbformat.reads(raw.decode("utf-8"), as_version=4)
    assert (nb.nbformat, nb.nbformat_minor) == (4, 5) and all("id" in c for c in nb.cells)
    try:
        from jupyter_server.services.contents.filemanager import FileContentsManager
    except ImportError:                              # the repro extra is not installed: the format alone
        import io
        buf = io.StringIO()
        nbformat.write(nb, buf)
        assert buf.getvalue().encode("utf-8") == raw
        return
    (tmp_path / path.name).write_bytes(raw)
    cm = FileContentsManager(root_dir=str(tmp_path))
    model = cm.get(path.name, content=True, type="notebook")
    cm.save({"type": "notebook", "format": "json", "content": model["content"]}, path.name)
    assert (tmp_path / path.name).read_bytes() == raw, f"{path.name}: saving it through Jupyter changes the file"
