"""The published numbers that reproduced results are compared with.

Every value is read from the package data ``omkl_core/data/published_tables.csv`` (a verbatim copy of
the project's table of published cells: paper 000 Table 2, paper 003 Tables 1-4); no
number is typed into the code. Columns: ``paper`` ("000", "003", ...), ``table`` ("2", ...),
``dataset``, ``algorithm``, ``metric`` (e.g. "mse"), ``value``, ``unit`` (e.g. "x1e-3": the
value is the metric times 10^3).
"""
from __future__ import annotations

from functools import lru_cache
from importlib.resources.abc import Traversable

import pandas as pd

from ..datasets import DATA_DIR

__all__ = ["PUBLISHED_CSV", "published", "published_value", "published_table"]

#: The machine-readable copy of every published table cell (package data, found through
#: :mod:`importlib.resources` like the datasets).
PUBLISHED_CSV: Traversable = DATA_DIR / "published_tables.csv"


@lru_cache(maxsize=1)
def _all() -> pd.DataFrame:
    if not PUBLISHED_CSV.is_file():
        raise FileNotFoundError(f"published values not found: {PUBLISHED_CSV}")
    with PUBLISHED_CSV.open("rb") as fh:
        df = pd.read_csv(fh, dtype={"paper": str, "table": str, "dataset": str,
                                    "algorithm": str, "metric": str, "unit": str})
    df["value"] = df["value"].astype(float)
    return df


def published(paper: str = "000", table: str | int = "2", metric: str | None = None) -> pd.DataFrame:
    """All cells of one published table (long format: dataset, algorithm, metric, value, unit)."""
    df = _all()
    paper, table = str(paper).zfill(3), str(table)
    out = df[(df["paper"] == paper) & (df["table"] == table)]
    if metric is not None:
        out = out[out["metric"] == metric]
    if out.empty:
        known = sorted(set(zip(df["paper"], df["table"])))
        raise ValueError(f"no published cells for paper={paper!r}, table={table!r}"
                         f"{'' if metric is None else f', metric={metric!r}'}; known: {known}")
    return out.reset_index(drop=True).copy()


def published_value(paper: str, table: str | int, dataset: str, algorithm: str,
                    metric: str = "mse") -> float:
    """One published cell (in the table's unit, e.g. MSE x 10^3)."""
    df = published(paper, table, metric)
    hit = df[(df["dataset"] == dataset) & (df["algorithm"] == algorithm)]
    if hit.empty:
        raise ValueError(f"no published cell for dataset={dataset!r}, algorithm={algorithm!r} "
                         f"in paper {paper} table {table}; datasets: {sorted(df['dataset'].unique())}, "
                         f"algorithms: {sorted(df['algorithm'].unique())}")
    return float(hit["value"].iloc[0])


def published_table(paper: str = "000", table: str | int = "2", metric: str = "mse") -> pd.DataFrame:
    """The table as printed: algorithms x datasets, in the file's order."""
    df = published(paper, table, metric)
    wide = df.pivot(index="algorithm", columns="dataset", values="value")
    return wide.loc[list(dict.fromkeys(df["algorithm"])), list(dict.fromkeys(df["dataset"]))]
