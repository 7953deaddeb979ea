"""The `omkl` command line."""
from __future__ import annotations

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


def test_cli_bad_param_syntax():
    with pytest.raises(SystemExit):
        main(["run", "X", "--dataset", "airfoil", "--param", "novalue"])
