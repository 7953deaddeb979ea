"""omkl_core.repro.regret_tables on a small synthetic case (issue 34)."""
from __future__ import annotations

import numpy as np
import pytest

from omkl_core import oracles
from omkl_core.mkl import TABLE2_ROWS, make_meta
from omkl_core.regret import NO_BOUND
from omkl_core.repro import regret_tables


def _case(R=2, T=80, N=4, seed=0):
    rng = np.random.default_rng(seed)
    y = np.clip(0.5 + 0.3 * np.sin(np.arange(T) / 7) + 0.05 * rng.standard_normal(T), 0, 1)
    Z = y[None, :, None] + rng.normal(0.0, [0.05, 0.1, 0.2, 0.4], (R, T, N))    # some outside [0, 1]
    return Z, y, {row: make_meta(row).run(Z, y) for row in TABLE2_ROWS}


def test_oracle_table_rows_values_and_order():
    Z, y, preds = _case()
    df = regret_tables.oracle_table(Z, y, preds, dataset="toy")
    assert list(df.index[:8]) == ["best expert", "best convex", "best linear"] + [f"best {k}-shift path" for k in range(1, 6)]
    assert list(df.index[8:]) == TABLE2_ROWS
    Zs = np.clip(Z, 0, 1)
    exp = np.mean([oracles.best_convex(Zs[r], y).loss for r in range(2)]) * 1e3
    assert df.loc["best convex", "mse_x1e3"] == pytest.approx(exp, rel=1e-12)
    assert df.loc["VAW-EWA", "mse_x1e3"] == pytest.approx(1e3 * np.mean((preds["VAW-EWA"] - y) ** 2), rel=1e-12)
    m = df["mse_x1e3"]
    assert m["best linear"] <= m["best convex"] <= m["best expert"] and m["best 5-shift path"] <= m["best 1-shift path"]
    assert (df["dataset"] == "toy").all() and set(df["kind"]) == {"oracle", "aggregation"}


def test_bound_table_every_stated_bound_holds_and_unstated_rows_say_so():
    Z, y, preds = _case()
    df = regret_tables.bound_table(Z, y, preds, m=50, lam=1.0)
    evaluated = df[df["holds"].notna()]
    assert len(evaluated) > 0 and evaluated["holds"].astype(bool).all()
    eqs = set(df["equation"])
    assert {"P000 eq. (11)", "P000 eq. (25)", "P000 after eq. (28)", "P000 eq. (30) (CBL Prop. 3.1): ln N / eta",
            "P000 sec. 4 (CBL Prop. 3.2): ln N / eta", NO_BOUND} <= eqs
    assert set(df.loc[df["equation"] == NO_BOUND, "row"]) == {"VAW-BOA", "VAW-ML-Poly", "VAW-ML-Prod"}
    assert set(df["repetition"]) == {0, 1}


def test_bound_table_flags_a_broken_row():
    """A row whose forecasts ignore the weights (the uniform average) under the name VAW-EWA fails (30)."""
    rng = np.random.default_rng(1)
    y = rng.uniform(0, 1, 300)
    Z = np.stack([np.column_stack([y, rng.uniform(0, 1, 300), rng.uniform(0, 1, 300)]) for _ in range(2)])
    good = regret_tables.bound_table(Z, y, {"VAW-EWA": make_meta("VAW-EWA").run(Z, y)}, m=50, lam=1.0)
    assert good.loc[good["equation"].str.startswith("P000 eq. (30)"), "holds"].astype(bool).all()
    df = regret_tables.bound_table(Z, y, {"VAW-EWA": np.clip(Z, 0, 1).mean(axis=2)}, m=50, lam=1.0)
    assert not df.loc[df["equation"].str.startswith("P000 eq. (30)"), "holds"].astype(bool).any()


def test_tables_refuse_bad_shapes():
    Z, y, preds = _case()
    with pytest.raises(ValueError, match="rows"):
        regret_tables.oracle_table(Z, y, {"VAW2": preds["VAW2"][:, :-1]})
    with pytest.raises(ValueError, match="y"):
        regret_tables.bound_table(Z, y[:-1], preds, m=50, lam=1.0)
