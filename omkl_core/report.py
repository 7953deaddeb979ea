"""Tables, figures and the reproduction scorecard, all written under ``results/``.

Notebooks call :func:`save_table` / :func:`save_figure` for their outputs and
:func:`add_scorecard_rows` for their published-vs-reproduced comparisons; :func:`scorecard`
merges every notebook's rows into ``results/scorecard.{md,csv}`` (``reproduce.sh`` calls it
after the notebooks). Nothing in the library reads ``results/`` except this merge.

The results folder is ``$OMKL_RESULTS`` if set, else ``results/`` at the repository root,
so notebooks behave the same whether papermill or JupyterLab runs them. ``reproduce.sh
--quick`` points it at ``results/quick/``, so a quick run never overwrites or mixes with the
full results.

Every table and the scorecard carry a stamp (:func:`run_stamp`): the mode (``quick``/``full``,
from ``$OMKL_MODE``, which ``reproduce.sh`` sets, or :func:`set_mode`; ``unspecified``
otherwise), the date, the commit and a summary of the machine.
"""
from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import subprocess
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from . import errata, paper_values

__all__ = ["results_dir", "save_table", "save_figure", "plain_log_ticks", "add_scorecard_rows", "scorecard",
           "SCORECARD_COLUMNS", "to_markdown", "TOLERANCE_RULE", "REL_TOL", "N_SD",
           "within_tolerance", "cell_row", "claim_row", "compare", "scorecard_rows", "run_stamp", "set_mode", "MODES"]

#: The modes a run can be stamped with.
MODES = ("quick", "full", "unspecified")
_REPO = Path(__file__).resolve().parent.parent


def set_mode(mode: str) -> None:
    """Declare the mode of this run for the stamps (a notebook: ``set_mode("quick" if quick else "full")``)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(map(repr, MODES))}; got {mode!r}")
    os.environ["OMKL_MODE"] = mode


@lru_cache(maxsize=1)
def _commit() -> str:
    try:
        out = subprocess.run(["git", "-C", str(_REPO), "describe", "--always", "--dirty", "--abbrev=10"],
                             capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or "unknown (not a git checkout)"
    except (OSError, subprocess.SubprocessError):
        return "unknown (git not available)"


@lru_cache(maxsize=1)
def _machine() -> str:
    import numpy  # noqa: PLC0415

    from ._validation import physical_memory  # noqa: PLC0415

    mem = physical_memory()
    parts = [f"{platform.system()} {platform.machine()}", f"{os.cpu_count()} CPUs",
             f"{mem / 2**30:.0f} GiB RAM" if mem else "RAM unknown",
             f"Python {platform.python_version()}", f"NumPy {numpy.__version__}"]
    proc = platform.processor()
    return ", ".join(([proc] if proc else []) + parts)


def run_stamp() -> dict:
    """What produced a result: mode, UTC date, commit (``-dirty``: uncommitted changes), machine."""
    mode = os.environ.get("OMKL_MODE", "unspecified")
    return {"mode": mode if mode in MODES else "unspecified",
            "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": _commit(), "machine": _machine()}


def _stamp_line(stamp: dict) -> str:
    warn = " — QUICK RUN: small horizons, not comparable with the published numbers" if stamp["mode"] == "quick" else ""
    return (f"_Produced by a **{stamp['mode']}** run on {stamp['date']}, commit `{stamp['commit']}`, "
            f"on {stamp['machine']}{warn}._\n")

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
    """``results/`` (or ``results/<sub>``), created if missing: ``$OMKL_RESULTS`` if set, else
    ``results/quick/`` in quick mode (:func:`set_mode`) and ``results/`` otherwise."""
    default = _REPO / "results" / ("quick" if os.environ.get("OMKL_MODE") == "quick" else "")
    root = Path(os.environ.get("OMKL_RESULTS") or default)
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
    """Write ``results/tables/<name>.csv``, ``.md`` (first line: the :func:`run_stamp`) and
    ``<name>.stamp.json``; returns the markdown path."""
    out = results_dir("tables")
    stamp = run_stamp()
    df.to_csv(out / f"{name}.csv", index=index)
    (out / f"{name}.stamp.json").write_text(json.dumps(stamp, indent=1) + "\n", encoding="utf-8")
    md = out / f"{name}.md"
    md.write_text(_stamp_line(stamp) + "\n" + to_markdown(df, floatfmt=floatfmt, index=index), encoding="utf-8")
    return md


def save_figure(fig, name: str, dpi: int = 130) -> Path:
    """Write ``results/figures/<name>.png``."""
    path = results_dir("figures") / f"{name}.png"
    fig.savefig(path, dpi=dpi, bbox_inches="tight")
    return path


def plain_log_ticks(ax, axis: str = "y", subs=(1.0, 2.0, 5.0)) -> None:
    """Label a log-scaled axis of ``ax`` with plain numbers at 1, 2, 5 x 10^k ("0.02", "50")
    instead of "2×10⁻²" and unlabelled minor ticks: for figures a reader can read."""
    import matplotlib.ticker as mticker  # noqa: PLC0415

    if axis not in ("x", "y"):
        raise ValueError(f"axis must be 'x' or 'y', got {axis!r}")
    target = ax.yaxis if axis == "y" else ax.xaxis
    target.set_major_locator(mticker.LogLocator(subs=subs))
    target.set_major_formatter(mticker.FuncFormatter(lambda v, _: f"{v:g}"))
    target.set_minor_formatter(mticker.NullFormatter())


def add_scorecard_rows(section: str, rows: pd.DataFrame) -> Path:
    """Store one notebook's scorecard rows (columns :data:`SCORECARD_COLUMNS`) as
    ``results/scorecard/<section>.csv``; re-running the notebook replaces them."""
    missing = [c for c in SCORECARD_COLUMNS if c not in rows.columns]
    if missing:
        raise ValueError(f"rows lacks scorecard columns {missing}")
    path = results_dir("scorecard") / f"{section}.csv"
    rows[SCORECARD_COLUMNS].to_csv(path, index=False)
    path.with_suffix(".stamp.json").write_text(json.dumps(run_stamp(), indent=1) + "\n", encoding="utf-8")
    return path


def scorecard(verbose: bool = False) -> pd.DataFrame:
    """Merge every notebook's rows into ``results/scorecard.{csv,md}`` and return them.

    The markdown names, for each section, the mode, date, commit and machine of the run that
    produced it; with no rows yet it says so instead of a "0 of 0" summary.
    """
    parts = sorted(results_dir("scorecard").glob("*.csv"))
    frames, sections = [], []
    for p in parts:
        f = pd.read_csv(p, dtype={"paper": str})   # keep "000", not 0
        if f.empty:
            continue
        frames.append(f)
        sp = p.with_suffix(".stamp.json")
        st = json.loads(sp.read_text(encoding="utf-8")) if sp.exists() else {
            "mode": "unknown", "date": "unknown", "commit": "unknown", "machine": "unknown"}
        sections.append(f"| {p.stem} | {len(f)} | {st['mode']} | {st['date']} | `{st['commit']}` | {st['machine']} |")
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=SCORECARD_COLUMNS)
    root = results_dir()
    errata.write_markdown(root / "errata.md")        # results/errata.md, from the one registry
    df.to_csv(root / "scorecard.csv", index=False)
    stamp = run_stamp()
    # True only (read back from CSV: booleans or strings; NaN = not judged, e.g. a quick run)
    n_in = int(df["within_tolerance"].astype(str).str.lower().eq("true").sum()) if len(df) else 0
    if len(df):
        summary = f"{n_in} of {len(df)} rows within tolerance."
        table = to_markdown(df)
        origin = ("Produced by (one row per notebook section):\n\n"
                  "| section | rows | mode | date | commit | machine |\n|---|---|---|---|---|---|\n"
                  + "\n".join(sections) + "\n\n")
    else:
        summary = ("No scorecard rows yet: no notebook that compares with published numbers has "
                   f"finished in {root}. Run ./reproduce.sh (all notebooks) to fill it.")
        table, origin = "", ""
    quick = any(" | quick | " in s for s in sections) or stamp["mode"] == "quick"
    header = ("# omkl reproduction scorecard\n\n" + _stamp_line(stamp) + "\n"
              + ("**Quick run**: small horizons for a smoke test; these numbers are not a reproduction "
                 "of the papers (full results: ./reproduce.sh without --quick).\n\n" if quick else "")
              + "Published value, reproduced mean ± sd over repetitions, ratio reproduced/published, "
              "and whether the cell is within its stated tolerance.\n\n"
              f"Tolerance rule: {TOLERANCE_RULE}\n\n" + origin + f"{summary}\n\n")
    (root / "scorecard.md").write_text(header + table, encoding="utf-8")
    if verbose:
        what = f"{len(df)} cells, {n_in} within tolerance" if len(df) else "no rows yet"
        print(f"scorecard ({stamp['mode']} run): {what} -> {root / 'scorecard.md'}")
    return df


def compare(values, *, paper: str, table, quick: bool = False, note: str = "", metric: str = "mse",
            published_name=None) -> pd.DataFrame:
    """Published-versus-reproduced rows of one table: the one function table notebooks use.

    Parameters
    ----------
    values : mapping
        ``{(dataset, algorithm): per-repetition values}`` in the published table's units
        (e.g. MSE x 1e3); each value is a scalar or a 1-D array over repetitions.
    paper : str
        Paper id as in ``omkl_core/data/published_tables.csv`` (e.g. ``"000"``).
    table : str or int
        Table number in that paper.
    quick : bool, default=False
        Quick (truncated) runs are not comparable with the paper: ``within_tolerance`` is
        left empty (NaN) for them.
    note : str, default=""
        Copied into every row.
    metric : str, default="mse"
        The published metric the values are compared with.
    published_name : callable or None, default=None
        ``published_name(algorithm) -> name in the published table``, for named variants of a
        published row (e.g. ``"SFG-MKL [code: node 0]"`` -> ``"SFG-MKL"``).

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
        pub_algorithm = algorithm if published_name is None else published_name(algorithm)
        pub = paper_values.published_value(paper, table, dataset, pub_algorithm, metric)
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
