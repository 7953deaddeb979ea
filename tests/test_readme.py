"""The README's Python examples run as written (issue 21: the scikit-learn grid key and River's
target scaling were wrong there).

Every fenced ```` ```python ```` block of README.md is extracted, in order, and run in one
namespace, as a reader would paste them one after the other: a block with ``>>>`` prompts is a
doctest (its printed values are checked, ELLIPSIS and NORMALIZE_WHITESPACE on), any other block
is executed. Nothing is copied into this file, so the examples cannot drift from the tests.
"""
from __future__ import annotations

import contextlib
import doctest
import io
import re
import sys
import types
import warnings
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def blocks() -> list[tuple[int, str]]:
    """(first line number, source) of every ```python block of the README."""
    text = README.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start(1)) + 1, m.group(1)) for m in FENCE.finditer(text)]


def test_the_readme_is_a_front_door():
    """At most 150 lines (issue 30 item 8): what omkl is, install, the commands, one example, where
    results land, links; the measurement history lives in CHANGELOG.md."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150, len(text.splitlines())
    assert len(blocks()) >= 1 and (README.parent / "CHANGELOG.md").is_file()


def test_every_python_block_of_the_readme_runs(tmp_path, monkeypatch):
    pytest.importorskip("river")
    pytest.importorskip("sklearn")
    monkeypatch.chdir(tmp_path)                       # a block that writes files writes them here
    monkeypatch.setenv("OMKL_RESULTS", str(tmp_path / "results"))
    module = types.ModuleType("readme_examples")      # a real module, so classes defined there pickle
    monkeypatch.setitem(sys.modules, module.__name__, module)
    namespace = module.__dict__
    # "my_stream.csv", the reader's own stream: a raw CSV nobody here wrote (scikit-learn's diabetes,
    # labels in their units, 25-346), features first and the label last, as the first block reads it
    import numpy as np
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True)
    np.savetxt(tmp_path / "my_stream.csv", np.column_stack([X, y]), delimiter=",",
               header=",".join([f"x{i}" for i in range(X.shape[1])] + ["y"]), comments="")
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    found = blocks()
    assert found, "the README's Python examples were not found"
    caught = []
    for line, src in found:
        where = f"README.md line {line}"
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            if ">>>" in src:
                test = parser.get_doctest(src, namespace, where, str(README), line - 1)
                report: list[str] = []
                result = runner.run(test, out=report.append, clear_globs=False)
                namespace.update(test.globs)       # get_doctest copied the namespace
                assert result.failed == 0, (f"{result.failed} doctest example(s) failed in the block at {where}:\n"
                                            + "".join(report))
            else:
                printed = io.StringIO()
                with contextlib.redirect_stdout(printed):
                    exec(compile(src, where, "exec"), namespace)  # noqa: S102 -- the README's own code
                # issue 53: every block prints what it computed, the MSE over steps 2..T included
                assert printed.getvalue().strip(), f"the block at {where} prints nothing"
                if "run_online(" in src:
                    assert "over steps 2.." in printed.getvalue(), f"the block at {where} prints no MSE over steps 2..T"
        if line == found[0][0]:        # issue 39: the first snippet, on a raw stream, beats the running mean
            mean_mse = float(np.mean((namespace["ok"].protocol.running_mean(y) - y) ** 2))
            assert namespace["trace"].mse < mean_mse, (namespace["trace"].mse, mean_mse)
        caught += [(where, str(x.message)) for x in w if issubclass(x.category, RuntimeWarning)]
    # the only RuntimeWarning the README announces: VAW2 in River sees standardised inputs, ||x_t|| > 1
    unexpected = [c for c in caught if "> 1" not in c[1] or "label" in c[1]]
    assert not unexpected, unexpected


def test_the_readme_headline_is_the_committed_full_run():
    """Issues 39, 50: the README's first screen states the committed full run's verdict (counts per
    tier, the within-noise cells more than 5 % off, the cells beyond 5 % by the grade of their cause,
    every claim kind with the speed claims and their machine, its commit), written from that run by
    ``committed headline``: not numbers typed once."""
    from omkl_core.repro import committed

    if not committed.exists():
        pytest.skip("no committed full run (reproduction/)")
    text = README.read_text(encoding="utf-8")
    head = text[text.index("<!-- headline"):text.index("<!-- /headline -->")]
    head = " ".join(head.split("\n", 1)[1].split())
    assert head == " ".join(committed.headline().split()), "run: python -m omkl_core.repro.committed headline"
