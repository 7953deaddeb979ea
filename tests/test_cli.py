"""The `omkl` command line."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import omkl_core
from omkl_core import registry
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
    monkeypatch.setitem(registry._REGISTERED, "_Mean", _Mean)
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
    (["--csv", "ok.csv", "--forecasts"], ["raw features", "--forecasts"]),
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
    (["run", "EWA", "--dataset", "airfoil"], ["meta-learner", "expert predictions", "--forecasts"]),
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
    assert omkl("run", "OnlineRidge", "--csv", "ok.csv", "--target", "0", "--scale", "none",
                "--predictions", preds, cwd=csvs).returncode == 0
    import pandas as pd

    assert list(pd.read_csv(preds)["y"]) == [1, 4, 7, 2]


def test_cli_meta_learner_on_expert_predictions(csvs):
    (csvs / "z.csv").write_text("e1,e2,y\n0.1,0.9,0.2\n0.2,0.8,0.3\n0.3,0.7,0.25\n")
    res = omkl("run", "EWA", "--csv", "z.csv", "--forecasts", cwd=csvs)
    assert res.returncode == 0, res.stderr
    assert "EWA: T=3" in res.stdout


def test_cli_old_flag_spellings_work_for_one_release_and_name_the_new_one(csvs):
    """``--experts`` (a boolean beside the repeatable ``--expert``) is now ``--forecasts``, and ``--no-normalise``
    is ``--scale none``: the old spellings give the same output, with one line on stderr naming the new one."""
    (csvs / "z.csv").write_text("e1,e2,y\n0.1,0.9,0.2\n0.2,0.8,0.3\n0.3,0.7,0.25\n")
    new, old = (omkl("run", "EWA", "--csv", "z.csv", flag, cwd=csvs) for flag in ("--forecasts", "--experts"))
    assert old.returncode == new.returncode == 0, old.stderr
    assert _seconds_free(old.stdout) == _seconds_free(new.stdout)
    assert old.stderr.strip() == "omkl: warning: --experts is deprecated and will be removed; use --forecasts"
    new = omkl("run", "OnlineRidge", "--csv", "ok.csv", "--scale", "none", cwd=csvs)
    old = omkl("run", "OnlineRidge", "--csv", "ok.csv", "--no-normalise", cwd=csvs)
    assert old.returncode == new.returncode == 0, old.stderr
    assert _seconds_free(old.stdout) == _seconds_free(new.stdout)
    assert "--no-normalise is deprecated and will be removed; use --scale none" in old.stderr
    clash = omkl("run", "OnlineRidge", "--csv", "ok.csv", "--scale", "paper", "--no-normalise", cwd=csvs)
    assert clash.returncode == 2 and "--no-normalise contradicts --scale paper" in clash.stderr


def _seconds_free(text: str) -> str:
    import re

    return re.sub(r"seconds=[0-9.]+", "seconds=?", text)


def test_cli_models_says_which_input_each_learner_takes_and_what_it_is():
    """Issue 39 item 4: one line per learner -- its name, a one-line description and its input."""
    res = omkl("models")
    assert res.returncode == 0
    rows = {}
    for line in res.stdout.splitlines():
        if line.startswith("  "):
            name, rest = line.strip().split(None, 1)
            rows[name] = rest
    for name in ("OnlineRidge", "VAW2", "RunningMean", "ExponentialMean", "LastValue", "Mixture"):
        assert rows[name].split("[")[0].strip(), f"{name} has no description"
    assert rows["OnlineRidge"].endswith("[raw features]") and rows["VAW2"].endswith("[raw features]")
    for meta in ("EWA", "BOA", "MLPoly", "VAWMeta"):
        assert "[expert predictions" in rows[meta]
    assert "running mean" in rows["Mixture"] and "ML" in rows["Mixture"]
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
    res = omkl("run", "VAW2", "--dataset", "airfoil", "--scale", "none", "--param", "m=4")
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


# ---------------------------------------------------------------- issue 21: the user's data
def _day_stream(path, T=1500, seed=0):
    """The issue's shape (River's TrumpApproval): a day number ~7e5 beside five columns ~0.5,
    the target a function of the small ones."""
    rng = np.random.default_rng(seed)
    day = 7.3e5 + np.arange(T)
    polls = rng.uniform(0.3, 0.7, size=(T, 5))
    y = 40 + 30 * polls @ np.array([1.0, -0.5, 0.8, 0.2, -0.3]) + rng.normal(0, 0.3, T)
    rows = "\n".join(",".join(f"{v:.9g}" for v in (d, *p, t)) for d, p, t in zip(day, polls, y))
    path.write_text("day,p1,p2,p3,p4,p5,approve\n" + rows + "\n")
    return y


def _field(stdout, name):
    return float(stdout.split(f" {name}=")[1].split()[0])


def test_cli_csv_standardises_columns_and_beats_the_running_mean(tmp_path):
    csv = tmp_path / "trump.csv"
    y = _day_stream(csv)
    res = omkl("run", "OnlineRidge", "--csv", csv, "--target", "approve", "--param", "fit_intercept=True",
               "--predictions", tmp_path / "p.csv")
    assert res.returncode == 0 and res.stderr == "", res.stderr
    mse, base = _field(res.stdout, "mse"), _field(res.stdout, "baseline_mse")
    assert mse < 0.2 * base, res.stdout                       # a wide margin over the running mean
    assert "scaling: online" in res.stdout and "units of the target 'approve'" in res.stdout
    import pandas as pd

    df = pd.read_csv(tmp_path / "p.csv")
    np.testing.assert_allclose(df["y"], y, rtol=1e-8)          # the target's units, not [0, 1]
    assert np.mean((df["y"] - df["y_hat"]) ** 2) == pytest.approx(mse, rel=1e-5)
    baseline = [0.0] + [np.mean(y[:t]) for t in range(1, len(y))]
    assert np.mean((y - baseline) ** 2) == pytest.approx(base, rel=1e-5)
    # the papers' scaling (34) flattens the polls under the day number: it says so, and it shows
    paper = omkl("run", "OnlineRidge", "--csv", csv, "--target", "approve", "--param", "fit_intercept=True",
                 "--scale", "paper")
    assert paper.returncode == 0
    warning = paper.stderr.strip().splitlines()
    assert len(warning) == 1 and warning[0].startswith("omkl: warning: column scales differ"), paper.stderr
    assert "'day'" in warning[0] and "--scale online" in warning[0]
    assert _field(paper.stdout, "mse") > 0.8 * _field(paper.stdout, "baseline_mse")
    assert "scaling: paper" in paper.stdout


def test_standardise_online_has_no_look_ahead():
    """Row t uses the mean and sd of rows 1..t only: the rows after t cannot change it, and
    each row equals the direct (x_t - mean(x_1..x_t)) / std(x_1..x_t)."""
    from omkl_core.datasets import standardise_online

    rng = np.random.default_rng(3)
    X = np.column_stack([7e5 + np.arange(60.0), rng.normal(size=60), np.full(60, 2.5)])
    Z = standardise_online(X)
    for t in range(1, 61):
        past = X[:t]
        sd = past.std(axis=0)
        want = np.where(sd > 0, (X[t - 1] - past.mean(axis=0)) / np.where(sd > 0, sd, 1), 0.0)
        np.testing.assert_allclose(Z[t - 1], want, rtol=1e-9, atol=1e-12)
    future = X.copy()
    future[30:] *= 1e3                                         # change only the future
    np.testing.assert_array_equal(standardise_online(future)[:30], Z[:30])
    assert np.all(Z[:, 2] == 0) and np.all(Z[0] == 0)


def test_cli_predictions_before_t_do_not_depend_on_later_rows(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    _day_stream(a, T=200)
    lines = a.read_text().splitlines()
    lines[150:] = [",".join(str(1e4 * float(v)) for v in ln.split(",")) for ln in lines[150:]]
    b.write_text("\n".join(lines) + "\n")
    import pandas as pd

    preds = []
    for src in (a, b):
        assert omkl("run", "OnlineRidge", "--csv", src, "--predictions", tmp_path / "p.csv").returncode == 0
        preds.append(pd.read_csv(tmp_path / "p.csv")["y_hat"].to_numpy())
    np.testing.assert_array_equal(preds[0][:149], preds[1][:149])


def test_cli_paper_dataset_keeps_the_papers_numbers_and_reports_target_units(tmp_path):
    X, y = omkl_core.datasets.load("airfoil")
    _, y_raw = omkl_core.datasets.load("airfoil", normalise=False)
    published = omkl_core.run_online(omkl_core.OnlineRidge(), X, y).mse
    res = omkl("run", "OnlineRidge", "--dataset", "airfoil", "--predictions", tmp_path / "p.csv")
    assert res.returncode == 0, res.stderr
    assert _field(res.stdout, "mse_scaled") == float(f"{published:.6g}")    # the papers' scale, unchanged
    assert "scaling: paper" in res.stdout
    import pandas as pd

    df = pd.read_csv(tmp_path / "p.csv")
    np.testing.assert_allclose(df["y"], y_raw, rtol=1e-12)
    lo, hi = y_raw.min(), y_raw.max()
    assert _field(res.stdout, "mse") == pytest.approx(published * (hi - lo) ** 2, rel=1e-5)


def test_cli_csv_byte_order_mark_and_standard_input(csvs):
    bom = csvs / "bom.csv"
    bom.write_bytes(b"\xef\xbb\xbfa,b,y\n1,2,3\n2,3,5\n4,1,4\n")
    res = omkl("run", "OnlineRidge", "--csv", "bom.csv", "--target", "a", cwd=csvs)
    assert res.returncode == 0 and "target 'a'" in res.stdout, res.stderr
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for src in ("-", "/dev/stdin"):
        piped = subprocess.run([sys.executable, "-m", "omkl_core", "run", "OnlineRidge", "--csv", src],
                               input=bom.read_bytes(), capture_output=True, env=env, timeout=120)
        assert piped.returncode == 0, piped.stderr
        assert b"T=3 " in piped.stdout and b"target 'y'" in piped.stdout


@pytest.mark.parametrize("text, needles", [
    ("1,2,3\n4,5,6\n", ["first row (1,2,3) is all numbers", "header"]),
    ("a,b,a,y\n1,2,3,4\n", ["duplicate column names", "'a' (columns 0, 2)"]),
])
def test_cli_csv_without_header_or_with_duplicate_names_is_refused(csvs, text, needles):
    (csvs / "x.csv").write_text(text)
    res = omkl("run", "OnlineRidge", "--csv", "x.csv", cwd=csvs)
    assert res.returncode == 2
    _one_line_error(res, "x.csv", *needles)


@pytest.mark.parametrize("args, needles", [
    (["VAW2", "--dataset", "airfoil", "--param", "lam=nan"], ["--param", "lam must be finite, got nan"]),
    (["VAW2", "--dataset", "airfoil", "--param", "lam=1e-300"], ["--param lam=1e-300"]),
    (["EWA", "--csv", "ok.csv", "--forecasts", "--scale", "standardise"], ["--scale standardise", "--forecasts"]),
])
def test_cli_parameter_errors_name_the_flag(csvs, args, needles):
    res = omkl("run", *args, cwd=csvs)
    assert res.returncode == 2
    _one_line_error(res, *needles)


def test_cli_cupy_backend_without_a_gpu_is_one_line():
    from omkl_core import backend

    try:
        backend.get_namespace("cupy")
        pytest.skip("a CuPy GPU is usable here")
    except RuntimeError:
        pass
    res = omkl("run", "VAW2", "--dataset", "airfoil", "--param", "backend='cupy'")
    assert res.returncode == 2
    _one_line_error(res, "--param backend='cupy'", "no usable CuPy GPU")


@pytest.fixture
def grid(tmp_path):
    spec = tmp_path / "g.toml"
    spec.write_text('datasets = ["airfoil"]\nseeds = [0]\nmax_steps = 30\n[[learners]]\nname = "OnlineRidge"\n')
    return spec


@pytest.mark.parametrize("flags, needles", [
    (["--out", "/missing/dir/x.csv"], ["--out /missing/dir/x.csv", "does not exist"]),
    (["--executor", "dask"], ["--executor dask", "--scheduler"]),
    (["--workers", "0"], ["--workers", ">= 1"]),
    (["--executor", "serial", "--workers", "2"], ["--workers", "--executor processes"]),
    (["--executor", "serial", "--scheduler", "tcp://x:1"], ["--scheduler", "--executor dask"]),
])
def test_cli_sweep_flags_checked_before_any_cell_runs(grid, monkeypatch, capsys, flags, needles):
    from omkl_core import sweep

    def no_cell(*a, **k):
        raise AssertionError("a cell ran before the flags were checked")

    monkeypatch.setattr(sweep, "run", no_cell)
    assert main(["sweep", str(grid), "--quiet", *flags]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("omkl: error: "), err
    for n in needles:
        assert n in err[0], (n, err[0])
    assert "client=" not in err[0] and "max_workers" not in err[0]


def test_cli_kernel_ridge_budget_for_the_whole_stream_up_front(monkeypatch, capsys):
    """Refused with the bytes the whole stream needs, before any step; or one warning for the
    whole stream (T), not for a chunk of it."""
    from omkl_core import ridge, validation

    T = omkl_core.registry.dataset_info("airfoil").T
    monkeypatch.setattr(validation, "physical_memory", lambda: 10**6)
    assert main(["run", "KernelRidge", "--dataset", "airfoil", "--param", "kernel='gaussian'"]) == 2
    err = capsys.readouterr().err
    need = 8 * T * (T + 1) // 2
    assert err.count("\n") == 1 and f"T={T} steps" in err and f"{need:.3g} bytes" in err, err
    monkeypatch.setattr(validation, "physical_memory", lambda: 10**12)
    monkeypatch.setattr(ridge.KernelRidge, "LONG_STREAM_BYTES", 1e6)
    assert main(["run", "KernelRidge", "--dataset", "airfoil", "--param", "kernel='gaussian'"]) == 0
    warns = [ln for ln in capsys.readouterr().err.splitlines() if "warning" in ln]
    assert len(warns) == 1 and f"T={T} steps" in warns[0] and "whole stream" in warns[0], warns


def test_cli_predictions_through_a_link_write_the_target_and_keep_the_link(tmp_path):
    """An output path that is a symbolic link (as /dev/stdout is) is written through, never replaced."""
    real, link = tmp_path / "real.csv", tmp_path / "link.csv"
    real.write_text("old\n")
    link.symlink_to(real)
    assert main(["run", "OnlineRidge", "--dataset", "airfoil", "--predictions", str(link)]) == 0
    assert link.is_symlink() and real.read_text().splitlines()[0] == "t,y,y_hat,mse"
    assert len(real.read_text().splitlines()) == 1504


# ---------------------------------------------------------------- issue 32: defaults that work on a raw stream
def _raw_csv(path, T=600, seed=0):
    """A raw stream: a day number, two columns of other scales, the target ~1000 (not [0, 1])."""
    rng = np.random.default_rng(seed)
    day = 7.3e5 + np.arange(T)
    a, b = rng.normal(40, 5, T), rng.normal(0, 0.01, T)
    y = 1000 + 30 * np.tanh((a - 40) / 5) + 300 * b + rng.normal(0, 1, T)
    path.write_text("day,a,b,target\n" + "\n".join(f"{d:.9g},{u:.9g},{v:.9g},{t:.9g}" for d, u, v, t in zip(day, a, b, y)) + "\n")
    return y


@pytest.mark.parametrize("model", ["VAW2", "OnlineRidge", "Mixture"])
def test_cli_default_scales_features_and_target_online_and_beats_the_running_mean(tmp_path, model):
    """``omkl run MODEL --csv F`` and no other flag: features and target scaled online (the paper
    learners with their class defaults; OnlineRidge without an intercept), MSE in the target's units
    below the running mean's; VAW2 gets the normalised stream it assumes (no warning)."""
    csv = tmp_path / "raw.csv"
    y = _raw_csv(csv)
    res = omkl("run", model, "--csv", csv, "--predictions", tmp_path / "p.csv")
    assert res.returncode == 0 and res.stderr == "", res.stderr
    assert "scaling: online" in res.stdout
    mse, base = _field(res.stdout, "mse"), _field(res.stdout, "baseline_mse")
    import pandas as pd

    df = pd.read_csv(tmp_path / "p.csv")
    assert np.mean((df["y"] - df["y_hat"]) ** 2) == pytest.approx(mse, rel=1e-5)
    steps = ((df["y"] - df["y_hat"]) ** 2)[1:].mean()          # steps 2..T (step 1: 0 for both)
    mean = np.mean([(y[t] - y[:t].mean()) ** 2 for t in range(1, len(y))])
    assert mse < base and steps < 0.5 * mean, (res.stdout, steps, mean)


def test_cli_baseline_does_not_depend_on_the_scaling(tmp_path):
    csv = tmp_path / "raw.csv"
    y = _raw_csv(csv, T=200)
    want = np.mean((y - np.r_[0.0, [y[:t].mean() for t in range(1, len(y))]]) ** 2)
    for scale in ("online", "standardise", "paper", "none"):
        res = omkl("run", "OnlineRidge", "--csv", csv, "--scale", scale)
        assert res.returncode == 0, res.stderr
        assert _field(res.stdout, "baseline_mse") == pytest.approx(want, rel=1e-5), scale


def test_cli_mixture_experts_and_meta_from_the_command_line(tmp_path):
    csv = tmp_path / "raw.csv"
    _raw_csv(csv, T=150)
    res = omkl("run", "Mixture", "--csv", csv, "--expert", "VAW2:m=5,bounds=(0,1)", "--expert",
               "OnlineRidge:fit_intercept=True", "--meta", "MLPoly")
    assert res.returncode == 0 and res.stderr == "", res.stderr
    assert res.stdout.startswith("Mixture: T=150 mse=")
    pytest.importorskip("river")
    res = omkl("run", "Mixture", "--csv", csv, "--expert", "river.neighbors.KNNRegressor:n_neighbors=3",
               "--expert", "OnlineRidge")
    assert res.returncode == 0, res.stderr


@pytest.mark.parametrize(("args", "words"), [
    (["Mixture", "--expert", "NoSuch"], ["--expert", "NoSuch"]),
    (["Mixture", "--expert", "EWA"], ["--meta EWA"]),
    (["Mixture", "--meta", "VAW2"], ["--meta VAW2", "--expert VAW2"]),
    (["Mixture", "--param", "m=3"], ["--expert", "--param"]),
    (["Mixture", "--expert", "VAW2:m=0"], ["--expert", "m"]),
    (["Mixture", "--expert", "VAW2:nope"], ["--expert", "k=v"]),
    (["Mixture", "--expert", "river.neighbors.NoSuchRegressor"], ["NoSuchRegressor"]),
    (["VAW2", "--expert", "VAW2"], ["--expert", "Mixture"]),
    (["VAW2", "--scale", "paper", "--target-scale", "minmax"], ["--target-scale", "--scale online"]),
])
def test_cli_mixture_and_scaling_errors_are_one_line(tmp_path, args, words):
    csv = tmp_path / "raw.csv"
    _raw_csv(csv, T=20)
    res = omkl("run", *args, "--csv", csv)
    assert res.returncode == 2
    _one_line_error(res, *words)


# ---------------------------------------------------------------- issue 42: dialects and bounded memory
@pytest.mark.parametrize("text, needles", [
    ("a;b;y\n1,5;2,0;3,5\n2,5;1,0;4,0\n", ["separated by ';' (semicolons), not commas", "decimal point"]),
    ("a\tb\ty\n1.5\t2\t3\n2\t1\t4\n", ["separated by tabs, not commas"]),
    ("a,b,y\n1,5,2,0,3,5\n", ["row 1 (line 2) has 6 fields, header has 3", "decimal comma"]),
    ("a,b,y\n1_000,2,3\n2,1,4\n", ["row 1 (line 2), column 'a'", "'1_000' is not a finite number", "'_'"]),
    ("a,,y\n1,2,3\n2,1,4\n", ["column 1 of the header row 'a,,y' has no name"]),
    ("a,b,y,\n1,2,3,\n2,1,4,\n", ["column 3", "has no name", "trailing comma"]),
    ("a,b,y\n1,2,3\n\u0661,1,4\n", ["row 2 (line 3), column 'a'", "is not a finite number"]),
    ("a,b,y\n1,2,3\n2,1,inf\n", ["row 2 (line 3), column 'y'", "'inf' is not a finite number"]),
    ("a,b,y\n1,2,3\n2,1e300,4\n", ["row 2 (line 3), column 'b'", "too large"]),
])
def test_cli_csv_dialects_and_odd_numbers_are_refused_by_name(csvs, text, needles):
    """Issue 42: semicolon, tab and decimal-comma files got errors that never named the separator;
    ``1_000`` was read as 1000 (Python's ``float``); a column with no name was accepted."""
    (csvs / "d.csv").write_text(text, encoding="utf-8")
    res = omkl("run", "OnlineRidge", "--csv", "d.csv", cwd=csvs)
    assert res.returncode == 2 and res.stdout == ""
    _one_line_error(res, "--csv d.csv", *needles)


def _write_stream(path, T=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(T, 3)) * [1.0, 30.0, 0.01] + [0.0, 500.0, 0.0]
    y = 100 + X @ [1.0, 0.05, 200.0] + rng.normal(0, 0.1, T)
    path.write_text("a,b,c,y\n" + "\n".join(",".join(f"{v:.12g}" for v in row) for row in np.column_stack([X, y])) + "\n")


@pytest.mark.parametrize("flags", [["--scale", "none"], ["--scale", "standardise"], ["--scale", "paper"], [],
                                   ["--scale", "paper", "--param", "fit_intercept=True", "--progress"]])
def test_cli_csv_runs_block_by_block_with_the_numbers_of_one_run(tmp_path, monkeypatch, capsys, flags):
    """Issue 42: ``omkl run --csv`` loaded the whole file (text, cells, arrays: 1.77 GB for a 160 MB
    file).  It reads the file in blocks now (the values spooled to an anonymous temporary file) and
    runs the learner block by block; a run in blocks of 64 rows gives the numbers of one block."""
    from omkl_core import csvstream

    csv = tmp_path / "s.csv"
    _write_stream(csv)
    outs = []
    for rows in (csvstream.BLOCK_ROWS, 64):
        monkeypatch.setattr(csvstream, "BLOCK_ROWS", rows)
        pred = tmp_path / f"p{rows}.csv"
        assert main(["run", "OnlineRidge", "--csv", str(csv), "--predictions", str(pred), *flags]) == 0
        outs.append((capsys.readouterr().out.split(" seconds=")[0], pred.read_text()))
    assert outs[0] == outs[1]
    assert len(outs[0][1].splitlines()) == 301


def test_csv_reader_spools_a_large_file_and_hands_it_back_in_blocks(tmp_path, monkeypatch):
    """The reader keeps at most one block of rows in memory: beyond it the values go to an
    anonymous temporary file, and come back block by block, exactly."""
    from omkl_core import csvstream

    monkeypatch.setattr(csvstream, "BLOCK_ROWS", 50)
    csv = tmp_path / "s.csv"
    _write_stream(csv, T=175)
    want = np.loadtxt(csv, delimiter=",", skiprows=1)
    with csvstream.read_table(str(csv)) as table:
        assert table.T == 175 and table._spool is not None and table._memory == []
        blocks = list(table.blocks())
        assert [len(b) for b in blocks] == [50, 50, 50, 25]
        np.testing.assert_array_equal(np.concatenate(blocks), want)
        np.testing.assert_array_equal(table.maximum, want.max(axis=0))
        spool = table._spool
    assert spool.closed


@pytest.mark.parametrize("model", ["VAW2", "Mixture"])
def test_cli_default_scaling_on_a_tiny_target_stays_near_the_running_mean(tmp_path, model):
    """Issue 42: ``omkl run VAW2 --csv F`` (default ``--scale online``) on a target of about 1e-4
    reported an MSE 1.6e4 x the running mean's (Mixture 4.0e3 x): the target scaler's rule for
    "all labels so far equal" used a scale of 1 in the target's units."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = 1e-4 * (1.0 + 0.1 * np.sin(X[:, 0]))
    csv = tmp_path / "tiny.csv"
    csv.write_text("a,b,c,y\n" + "\n".join(",".join(f"{v:.12g}" for v in row) for row in np.column_stack([X, y])) + "\n")
    res = omkl("run", model, "--csv", csv)
    assert res.returncode == 0 and res.stderr == "", res.stderr
    assert _field(res.stdout, "mse") < 2.0 * _field(res.stdout, "baseline_mse"), res.stdout


# ---------------------------------------------------------------- issue 41: the default Mixture
def test_cli_run_with_no_model_is_the_default_mixture_and_vaw2_stays_vaw2(tmp_path):
    csv = tmp_path / "raw.csv"
    y = _raw_csv(csv, T=200)
    res = omkl("run", "--csv", csv)
    assert res.returncode == 0 and res.stderr == "", res.stderr
    assert res.stdout.startswith("Mixture: T=200 mse=")
    assert "experts (weight at the end): running mean " in res.stdout and "VAW2 " in res.stdout
    assert "meta-learner: MLPoly(bounds=None) in the target's units" in res.stdout
    import omkl_core as ok
    X = np.loadtxt(csv, delimiter=",", skiprows=1)[:, :3]
    assert _field(res.stdout, "mse") == pytest.approx(ok.run_online(ok.Mixture(), X, y).mse, rel=1e-5)
    assert omkl("run", "Mixture", "--csv", csv).stdout.split(" seconds=")[0] == res.stdout.split(" seconds=")[0]
    vaw = omkl("run", "VAW2", "--csv", csv)
    assert vaw.stdout.startswith("VAW2: T=200 mse=") and "experts (weight" not in vaw.stdout


def test_cli_regret_of_the_default_mixture_in_the_target_units(tmp_path):
    """``--regret`` on a raw CSV with the default mixture (online scaling inside each expert): one regret
    per comparator in the target's units, the bound, a verdict; a mixture whose meta-learner works on
    labels scaled online into [A, B] is refused (the scale moves)."""
    csv = tmp_path / "raw.csv"
    _raw_csv(csv, T=150)
    res = omkl("run", "--csv", csv, "--regret")
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "in the target's units (target)" in out and "x1e3" not in out
    assert "against running mean:" in out and "holds with margin" in out and "\nverdict: " in out
    bad = omkl("run", "Mixture", "--csv", csv, "--expert", "OnlineRidge", "--expert", "RunningMean", "--meta", "BOA",
               "--regret")
    assert bad.returncode == 2
    _one_line_error(bad, "--regret", "fixed scaling")
