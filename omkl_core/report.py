"""Tables, figures and the reproduction scorecard, all written under ``results/``.

Notebooks call :func:`save_table` / :func:`save_figure` for their outputs and
:func:`add_scorecard_rows` for their published-vs-reproduced comparisons; :func:`scorecard`
merges every notebook's rows into ``results/scorecard.{md,csv}`` (``reproduce.sh`` calls it
after the notebooks). Nothing in the library reads ``results/`` except this merge.

The results folder is ``$OMKL_RESULTS`` if set, else ``results/`` at the repository root,
so notebooks behave the same whether papermill or JupyterLab runs them.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from . import paper_values

__all__ = ["results_dir", "save_table", "save_figure", "add_scorecard_rows", "scorecard",
           "SCORECARD_COLUMNS", "to_markdown", "TOLERANCE_RULE", "REL_TOL", "N_SD",
           "within_tolerance", "cell_row", "claim_row", "compare", "scorecard_rows"]

#: Columns of every scorecard row (see :func:`add_scorecard_rows`).
SCORECARD_COLUMNS = ["paper", "item", "row", "column", "published", "reproduced_mean",
                     "reproduced_sd", "n_runs", "ratio", "tolerance", "within_tolerance", "note"]


#: Relative tolerance and number of standard deviations of the scorecard's rule.
REL_TOL = 0.25
N_SD = 2.0
#: The rule, as written into scorecard.md.
TOLERANCE_RULE = (f"a reproduced cell is *within tolerance* when |mean - published| <= "
                  f"max({REL_TOL:g} x published, {N_SD:g} x sd), i.e. within {REL_TOL:.0%} relative "
                  f"error or within {N_SD:g} standard deviations of the reproduced repetitions "
                  "(sd = sample standard deviation over repetitions, ddof = 1; 0 for a single run). "
                  "Qualitative claims of a paper are rows with column 'claim': within_tolerance = "
                  "the claim holds in the reproduction.")


def within_tolerance(published: float, mean: float, sd: float = 0.0,
                     rel: float = REL_TOL, n_sd: float = N_SD) -> bool:
    """The scorecard rule: |mean - published| <= max(rel * |published|, n_sd * sd)."""
    if not (np.isfinite(published) and np.isfinite(mean)):
        return False
    sd = 0.0 if not np.isfinite(sd) else float(sd)
    return bool(abs(mean - published) <= max(rel * abs(published), n_sd * sd))


def cell_row(paper: str, item: str, row: str, column: str, published: float, values,
             note: str = "") -> dict:
    """One scorecard row for a numeric cell from the per-repetition ``values``."""
    v = np.asarray(values, dtype=np.float64).ravel()
    mean = float(v.mean())
    sd = float(v.std(ddof=1)) if v.size > 1 else 0.0
    return {"paper": paper, "item": item, "row": row, "column": column,
            "published": float(published), "reproduced_mean": mean, "reproduced_sd": sd,
            "n_runs": int(v.size), "ratio": mean / published if published else np.nan,
            "tolerance": f"{REL_TOL:.0%} rel or {N_SD:g} sd",
            "within_tolerance": within_tolerance(published, mean, sd), "note": note}


def claim_row(paper: str, item: str, claim: str, holds: bool, note: str = "") -> dict:
    """One scorecard row for a qualitative claim (``holds``: true in the reproduction)."""
    return {"paper": paper, "item": item, "row": claim, "column": "claim", "published": np.nan,
            "reproduced_mean": np.nan, "reproduced_sd": np.nan, "n_runs": 0, "ratio": np.nan,
            "tolerance": "qualitative", "within_tolerance": bool(holds), "note": note}


def results_dir(sub: str | None = None) -> Path:
    """``results/`` (or ``results/<sub>``), created if missing."""
    root = Path(os.environ.get("OMKL_RESULTS", Path(__file__).resolve().parent.parent / "results"))
    path = root / sub if sub else root
    path.mkdir(parents=True, exist_ok=True)
    return path


def to_markdown(df: pd.DataFrame, floatfmt: str = ".4g", index: bool = False) -> str:
    """A GitHub-flavoured markdown table without the optional ``tabulate`` dependency."""
    frame = df.reset_index() if index else df

    def fmt(v) -> str:
        if isinstance(v, (float, np.floating)):
            return "" if np.isnan(v) else format(float(v), floatfmt)
        if isinstance(v, (bool, np.bool_)):
            return "yes" if v else "no"
        return str(v).replace("|", "\\|")

    cols = [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    lines += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines) + "\n"


def save_table(df: pd.DataFrame, name: str, floatfmt: str = ".4g", index: bool = False) -> Path:
    """Write ``results/tables/<name>.csv`` and ``.md``; returns the markdown path."""
    out = results_dir("tables")
    df.to_csv(out / f"{name}.csv", index=index)
    md = out / f"{name}.md"
    md.write_text(to_markdown(df, floatfmt=floatfmt, index=index), encoding="utf-8")
    return md


def save_figure(fig, name: str, dpi: int = 130) -> Path:
    """Write ``results/figures/<name>.png``."""
    path = results_dir("figures") / f"{name}.png"
    fig.savefig(path, dpi=dpi, bbox_inches="tight")
    return path


def add_scorecard_rows(section: str, rows: pd.DataFrame) -> Path:
    """Store one notebook's scorecard rows (columns :data:`SCORECARD_COLUMNS`) as
    ``results/scorecard/<section>.csv``; re-running the notebook replaces them."""
    missing = [c for c in SCORECARD_COLUMNS if c not in rows.columns]
    if missing:
        raise ValueError(f"rows lacks scorecard columns {missing}")
    path = results_dir("scorecard") / f"{section}.csv"
    rows[SCORECARD_COLUMNS].to_csv(path, index=False)
    return path


def scorecard(verbose: bool = False) -> pd.DataFrame:
    """Merge every notebook's rows into ``results/scorecard.{csv,md}`` and return them."""
    parts = sorted(results_dir("scorecard").glob("*.csv"))
    frames = [pd.read_csv(p, dtype={"paper": str}) for p in parts]   # keep "000", not 0
    frames = [f for f in frames if not f.empty]
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=SCORECARD_COLUMNS)
    root = results_dir()
    df.to_csv(root / "scorecard.csv", index=False)
    n_in = int(df["within_tolerance"].astype(bool).sum()) if len(df) else 0
    header = ("# omkl reproduction scorecard\n\n"
              "Published value, reproduced mean ± sd over repetitions, ratio reproduced/published, "
              "and whether the cell is within its stated tolerance.\n\n"
              f"Tolerance rule: {TOLERANCE_RULE}\n\n"
              f"{n_in} of {len(df)} rows within tolerance.\n\n")
    (root / "scorecard.md").write_text(header + to_markdown(df), encoding="utf-8")
    if verbose:
        n_in = int(df["within_tolerance"].astype(bool).sum()) if len(df) else 0
        print(f"scorecard: {len(df)} cells, {n_in} within tolerance -> {root / 'scorecard.md'}")
    return df


def compare(values, *, paper: str, table, quick: bool = False, note: str = "") -> pd.DataFrame:
    """Published-versus-reproduced rows of one table: the one function table notebooks use.

    Parameters
    ----------
    values : mapping
        ``{(dataset, algorithm): per-repetition values}`` in the published table's units
        (e.g. MSE x 1e3); each value is a scalar or a 1-D array over repetitions.
    paper : str
        Paper id as in ``data/published_tables.csv`` (e.g. ``"000"``).
    table : str or int
        Table number in that paper.
    quick : bool, default=False
        Quick (truncated) runs are not comparable with the paper: ``within_tolerance`` is
        left empty (NaN) for them.
    note : str, default=""
        Copied into every row.

    Returns
    -------
    pandas.DataFrame
        One row per cell: ``dataset, algorithm, mean, sd, n_runs, published, ratio,
        within_tolerance, note`` (sd: ddof = 1, 0 for one run; the rule of
        :func:`within_tolerance`). Pass it to :func:`scorecard_rows` for the scorecard.

    Examples
    --------
    >>> import numpy as np
    >>> df = compare({("Airfoil", "VAW2"): np.array([22.0, 23.0, 24.0])}, paper="000", table=2)
    >>> df[["dataset", "algorithm", "mean", "published"]].to_dict("records")
    [{'dataset': 'Airfoil', 'algorithm': 'VAW2', 'mean': 23.0, 'published': 22.8}]
    >>> bool(df.within_tolerance[0])
    True
    """
    recs = []
    for (dataset, algorithm), v in values.items():
        v = np.asarray(v, dtype=np.float64).ravel()
        if v.size == 0:
            raise ValueError(f"values[({dataset!r}, {algorithm!r})] is empty")
        pub = paper_values.published_value(paper, table, dataset, algorithm)
        mean = float(v.mean())
        sd = float(v.std(ddof=1)) if v.size > 1 else 0.0
        recs.append({"dataset": dataset, "algorithm": algorithm, "mean": mean, "sd": sd,
                     "n_runs": int(v.size), "published": pub,
                     "ratio": mean / pub if pub else np.nan,
                     "within_tolerance": np.nan if quick else within_tolerance(pub, mean, sd),
                     "note": note})
    return pd.DataFrame(recs, columns=["dataset", "algorithm", "mean", "sd", "n_runs", "published",
                                       "ratio", "within_tolerance", "note"])


def scorecard_rows(comparison: pd.DataFrame, *, paper: str, item: str) -> pd.DataFrame:
    """Scorecard rows (:data:`SCORECARD_COLUMNS`) from a :func:`compare` frame: the row is the
    algorithm, the column the dataset, the item e.g. ``"Table 2"``."""
    rows = [{"paper": paper, "item": item, "row": r.algorithm, "column": r.dataset,
             "published": r.published, "reproduced_mean": r.mean, "reproduced_sd": r.sd,
             "n_runs": r.n_runs, "ratio": r.ratio, "tolerance": f"{REL_TOL:.0%} rel or {N_SD:g} sd",
             "within_tolerance": within_tolerance(r.published, r.mean, r.sd), "note": r.note}
            for r in comparison.itertuples(index=False)]
    return pd.DataFrame(rows, columns=SCORECARD_COLUMNS)
