"""Adding a dataset takes its CSV, its SOURCES.md entry and one line in the dataset table (issue 40).

The three steps, as :mod:`omkl_core.presets` documents them, done here in a temporary copy of the
package data: every layer then knows the new stream -- :func:`omkl_core.datasets.load`,
:func:`omkl_core.registry.load_dataset` and :func:`~omkl_core.registry.dataset_names`, ``omkl run
--dataset``, ``omkl datasets``, a sweep spec and the leaderboard's display names -- with no other edit.
And the SOURCES.md entry is not optional: every file of the table is listed there with its sha256 and
its shape (the test below fails for a CSV added without it).
"""
from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from omkl_core import cli, datasets, presets, registry, sweep
from omkl_core.presets import DatasetInfo
from omkl_core.repro import leaderboard

_ROW = re.compile(r"^\|\s*([\w.-]+\.csv)\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|\s*([0-9a-f]{64})\s*\|", re.MULTILINE)


def sources_rows(folder) -> dict[str, tuple[int, int, str]]:
    """The file table of ``folder/SOURCES.md``: ``{file: (rows, columns, sha256)}``."""
    text = (Path(str(folder)) / "SOURCES.md").read_text(encoding="utf-8")
    return {m[1]: (int(m[2]), int(m[3]), m[4]) for m in _ROW.finditer(text)}


def unlisted_files(folder) -> list[str]:
    """The files of the dataset table that ``folder/SOURCES.md`` does not list with their sha256 and
    shape (rows without the header, columns)."""
    rows, bad = sources_rows(folder), []
    for entry in presets.DATASETS.values():
        if entry.generator:
            continue
        path = Path(str(folder)) / entry.file
        header, values, _ = datasets.read_csv(path)
        fact = (values.shape[0], len(header), hashlib.sha256(path.read_bytes()).hexdigest())
        if rows.get(entry.file) != fact:
            bad.append(f"{entry.file}: SOURCES.md says {rows.get(entry.file)}, the file is {fact}")
    return bad


def test_every_file_of_the_table_is_in_sources_md():
    assert not unlisted_files(datasets.DATA_DIR)


def test_the_table_is_the_one_map_of_datasets():
    """The registry, the data layer and the reproduction read the same table."""
    assert registry.dataset_names() == list(presets.DATASETS)
    assert datasets.names() == [n for n, e in presets.DATASETS.items() if not e.generator]
    assert dict(leaderboard.NAMES) == {n: e.display for n, e in presets.DATASETS.items()}
    for name, entry in presets.DATASETS.items():
        info = registry.dataset_info(name)
        assert (info.T, info.d, info.target, info.source, info.generator) == (
            entry.T, entry.d, entry.target, entry.source, bool(entry.generator))


# ----------------------------------------------------------------------------- a new dataset
T_NEW, D_NEW = 60, 3


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """Step 1-3 in a temporary copy of the package data: ``toy.csv``, its SOURCES.md row, one line."""
    data = tmp_path / "data"
    shutil.copytree(str(datasets.DATA_DIR), data)
    rng = np.random.default_rng(7)
    X = rng.normal(size=(T_NEW, D_NEW))
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.1 * rng.normal(size=T_NEW)
    lines = ["a,b,c,target"] + [",".join(repr(float(v)) for v in (*x, t)) for x, t in zip(X, y)]
    (data / "toy.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")                        # step 1
    digest = hashlib.sha256((data / "toy.csv").read_bytes()).hexdigest()
    with (data / "SOURCES.md").open("a", encoding="utf-8") as fh:                                    # step 2
        fh.write(f"\n| file | rows | cols | sha256 |\n|---|---|---|---|\n| toy.csv | {T_NEW} | {D_NEW + 1} | {digest} |\n")
    monkeypatch.setattr(datasets, "DATA_DIR", data)
    monkeypatch.setitem(presets.DATASETS, "toy", DatasetInfo(                                        # step 3
        name="toy", file="toy.csv", title="A toy stream", label="Toy", target="target",
        source="synthetic, tests/test_add_dataset.py", T=T_NEW, d=D_NEW))
    return X, y


def test_a_new_dataset_is_known_to_every_layer(toy, capsys):
    X_raw, y_raw = toy
    assert not unlisted_files(datasets.DATA_DIR)
    # the data layer and the registry
    assert "toy" in datasets.names() and "toy" in registry.dataset_names()
    Xr, yr = datasets.load("toy", normalise=False)
    np.testing.assert_allclose(Xr, X_raw, rtol=0, atol=0)
    np.testing.assert_allclose(yr, y_raw, rtol=0, atol=0)
    X, y = registry.load_dataset("toy")
    assert X.shape == (T_NEW, D_NEW) and y.min() == 0.0 and y.max() == 1.0        # eqs. (33)-(34)
    assert registry.load_dataset("toy", 10)[0].shape == (10, D_NEW)
    assert registry.dataset_info("toy").T == T_NEW
    # the command line, in-process
    assert cli.main(["datasets"]) == 0
    assert re.search(r"^toy\s+60\s+3\s+target$", capsys.readouterr().out, re.MULTILINE)
    assert cli.main(["run", "OnlineRidge", "--dataset", "toy"]) == 0
    assert "mse=" in capsys.readouterr().out
    # a sweep spec
    rows = sweep.run({"datasets": ["toy"], "learners": [{"name": "OnlineRidge"}], "seeds": [0]},
                     executor="serial", progress=False)
    assert [r["dataset"] for r in rows] == ["toy"] and rows[0]["T"] == T_NEW
    # the leaderboard's display names
    assert leaderboard.NAMES["toy"] == "Toy"
    assert presets.dataset_label("toy") == "Toy"


def test_a_csv_without_its_sources_entry_is_caught(toy):
    text = (datasets.DATA_DIR / "SOURCES.md").read_text(encoding="utf-8")
    (datasets.DATA_DIR / "SOURCES.md").write_text(re.sub(r"\| toy\.csv \|.*\n", "", text), encoding="utf-8")
    assert unlisted_files(datasets.DATA_DIR) == [f"toy.csv: SOURCES.md says None, the file is "
                                                 f"({T_NEW}, {D_NEW + 1}, "
                                                 f"'{hashlib.sha256((datasets.DATA_DIR / 'toy.csv').read_bytes()).hexdigest()}')"]


def test_an_unknown_dataset_is_named_in_every_layer():
    with pytest.raises(ValueError, match="unknown dataset 'nosuch'"):
        registry.load_dataset("nosuch")
    with pytest.raises(ValueError, match="unknown dataset 'nosuch'"):
        datasets.load("nosuch")
    with pytest.raises(KeyError, match="unknown dataset 'nosuch'"):
        leaderboard.NAMES["nosuch"]
    assert cli.main(["run", "OnlineRidge", "--dataset", "nosuch"]) == 2
