"""The `omkl` command line."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import omkl_core
from omkl_core.cli import main


def test_cli_datasets_lists_every_stream(capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    for name in ["airfoil", "bias", "concrete", "naval", "wine_white", "ar4"]:
        assert name in out


def test_cli_unknown_model_is_named(capsys):
    assert main(["run", "NoSuchModel", "--dataset", "airfoil"]) == 2
    assert "NoSuchModel" in capsys.readouterr().err


class _Mean:
    def __init__(self, shift=0.0):
        self.shift, self.n_, self.s_ = shift, 0, 0.0

    def predict_one(self, x):
        return self.shift + (self.s_ / self.n_ if self.n_ else 0.0)

    def learn_one(self, x, y):
        self.n_ += 1
        self.s_ += y


def test_cli_run_on_own_csv(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(omkl_core, "_Mean", _Mean, raising=False)
    csv = tmp_path / "s.csv"
    rng = np.random.default_rng(0)
    rows = "\n".join(f"{a:.6f},{b:.6f},{a + b:.6f}" for a, b in rng.random((20, 2)))
    csv.write_text("a,b,c\n" + rows + "\n")
    out = tmp_path / "p.csv"
    assert main(["run", "_Mean", "--csv", str(csv), "--param", "shift=0.5",
                 "--predictions", str(out)]) == 0
    assert "mse=" in capsys.readouterr().out
    import pandas as pd

    df = pd.read_csv(out)
    assert list(df.columns) == ["t", "y", "y_hat", "mse"] and len(df) == 20
    assert df["y_hat"].iloc[0] == pytest.approx(0.5)


def test_cli_bad_param_syntax(capsys):
    assert main(["run", "OnlineRidge", "--dataset", "airfoil", "--param", "novalue"]) == 2
    assert "NAME=VALUE" in capsys.readouterr().err



# ---------------------------------------------------------------- the real entry point
ROOT = Path(__file__).resolve().parent.parent


def omkl(*args, cwd=None):
    """Run ``python -m omkl_core ARGS`` in a subprocess (the real entry point)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "omkl_core", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=120)


def _one_line_error(res, *needles):
    assert res.returncode != 0, res
    assert "Traceback" not in res.stderr, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("omkl: error: "), lines
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


@pytest.fixture
def csvs(tmp_path):
    files = {
        "ok": "a,b,c\n1,2,3\n4,5,6\n7,8,10\n2,1,0\n",
        "empty": "",
        "header_only": "a,b,c\n",
        "malformed": "a,b,c\n1,2,3\n1,x,3\n",
        "ragged": "a,b,c\n1,2,3\n1,2\n",
        "one_column": "a\n1\n2\n",
    }
    for name, text in files.items():
        (tmp_path / f"{name}.csv").write_text(text)
    return tmp_path


@pytest.mark.parametrize("args, needles", [
    (["--csv", "missing.csv"], ["missing.csv", "no such file"]),
    (["--csv", "empty.csv"], ["empty.csv", "empty"]),
    (["--csv", "header_only.csv"], ["header_only.csv", "no data rows"]),
    (["--csv", "malformed.csv"], ["malformed.csv", "'x'", "column 'b'"]),
    (["--csv", "ragged.csv"], ["ragged.csv", "2 fields"]),
    (["--csv", "one_column.csv"], ["two columns"]),
    (["--csv", "."], ["directory"]),
    (["--csv", "ok.csv", "--target", "99"], ["--target 99", "out of range"]),
    (["--csv", "ok.csv", "--target", "3"], ["--target 3", "out of range"]),      # one past the last column
    (["--csv", "ok.csv", "--target", "-7"], ["--target -7", "out of range"]),
    (["--csv", "ok.csv", "--target", "-1"], ["--target -1", "out of range"]),    # no wrap-around
    (["--csv", "ok.csv", "--target", "zz"], ["'zz'", "a, b, c"]),
    (["--csv", "ok.csv", "--param", "foo=1"], ["unknown parameter 'foo'", "OnlineRidge"]),
    (["--csv", "ok.csv", "--param", "a=-1"], ["a must be > 0"]),
    (["--csv", "ok.csv", "--param", "novalue"], ["NAME=VALUE"]),
    (["--csv", "ok.csv", "--predictions", "."], ["--predictions", "directory"]),
    (["--csv", "ok.csv", "--predictions", "no/such/folder/p.csv"], ["--predictions", "does not exist"]),
    (["--csv", "ok.csv", "--predictions", "ok.csv/p.csv"], ["--predictions", "not a folder"]),
    (["--csv", "ok.csv", "--experts"], ["raw features", "--experts"]),
    (["--dataset", "nosuch"], ["unknown dataset 'nosuch'"]),
    (["--dataset", "airfoil", "--variant", "17"], ["variant '17'"]),
    (["--dataset", "naval", "--variant", "99"], ["variant '99'"]),
    (["--dataset", "ar4", "--variant", "x"], ["ar4", "no variants"]),
    ([], ["--dataset", "--csv"]),
])
def test_cli_user_errors_are_one_line_without_traceback(csvs, args, needles):
    res = omkl("run", "OnlineRidge", *args, cwd=csvs)
    assert res.returncode == 2
    _one_line_error(res, *needles)
    assert res.stdout == ""


@pytest.mark.parametrize("argv, needles", [
    (["run", "NoSuchModel", "--dataset", "airfoil"], ["unknown model 'NoSuchModel'"]),
    (["run", "KernelRidge", "--csv", "ok.csv"], ["kernel is required"]),
    (["run", "BayesianAlgorithm", "--csv", "ok.csv"], ["needs parameter 'thetas'"]),
    (["run", "EWA", "--dataset", "airfoil"], ["meta-learner", "expert predictions", "--experts"]),
    (["frobnicate"], ["invalid choice"]),
])
def test_cli_model_errors_are_one_line(csvs, argv, needles):
    res = omkl(*argv, cwd=csvs)
    assert res.returncode == 2
    _one_line_error(res, *needles)


def test_cli_debug_shows_the_traceback(csvs):
    res = omkl("--debug", "run", "OnlineRidge", "--csv", "ok.csv", "--target", "99", cwd=csvs)
    assert res.returncode != 0 and "Traceback" in res.stderr and "out of range" in res.stderr


def test_cli_target_in_range_selects_that_column(csvs):
    preds = csvs / "p.csv"
    assert omkl("run", "OnlineRidge", "--csv", "ok.csv", "--target", "0", "--no-normalise",
                "--predictions", preds, cwd=csvs).returncode == 0
    import pandas as pd

    assert list(pd.read_csv(preds)["y"]) == [1, 4, 7, 2]


def test_cli_meta_learner_on_expert_predictions(csvs):
    (csvs / "z.csv").write_text("e1,e2,y\n0.1,0.9,0.2\n0.2,0.8,0.3\n0.3,0.7,0.25\n")
    res = omkl("run", "EWA", "--csv", "z.csv", "--experts", cwd=csvs)
    assert res.returncode == 0, res.stderr
    assert "EWA: T=3" in res.stdout


def test_cli_models_says_which_input_each_learner_takes():
    res = omkl("models")
    assert res.returncode == 0
    kinds = dict(line.split(None, 1) for line in res.stdout.splitlines())
    assert kinds["OnlineRidge"] == "raw features" and kinds["VAW2"] == "raw features"
    for meta in ("EWA", "BOA", "MLPoly", "VAWMeta"):
        assert kinds[meta].startswith("expert predictions")
    assert "expert predictions" in omkl("run", "--help").stdout


def test_cli_reader_that_closes_early_is_no_error(tmp_path):
    """`omkl run ... --predictions /dev/stdout | head -2`: no traceback, no "Exception ignored"."""
    err = tmp_path / "err.txt"
    script = (f"'{sys.executable}' -m omkl_core run OnlineRidge --dataset airfoil --predictions /dev/stdout "
              f"2>'{err}' | head -n 2; echo \"status=${{PIPESTATUS[0]}}\"")
    res = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert res.stdout.splitlines()[1] == "t,y,y_hat,mse"
    assert "Traceback" not in err.read_text() and "Exception" not in err.read_text(), err.read_text()
    assert "status=141" in res.stdout


def test_cli_unscaled_data_warns_in_one_line():
    res = omkl("run", "VAW2", "--dataset", "airfoil", "--no-normalise", "--param", "m=4")
    assert res.returncode == 0, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("omkl: warning: VAW2: the stream is not normalised")


def test_cli_refuses_a_model_that_cannot_fit_in_memory():
    res = omkl("run", "VAW2", "--dataset", "airfoil", "--param", "m=10000000")
    assert res.returncode == 2
    _one_line_error(res, "bytes", "m=10000000")


def test_cli_intercept_for_the_linear_learners():
    plain = omkl("run", "OnlineRidge", "--dataset", "airfoil")
    inter = omkl("run", "OnlineRidge", "--dataset", "airfoil", "--param", "fit_intercept=True")
    mse = [float(r.stdout.split("mse=")[1].split()[0]) for r in (plain, inter)]
    assert mse[1] < 0.5 * mse[0]
