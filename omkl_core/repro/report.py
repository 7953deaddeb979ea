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

A number in a table is reproducible; a time is not. A table whose name has ``timing`` as one of
its ``_``-separated parts (``paper003_table1_timing``, ``leaderboard_timing_per_1000_steps``:
:func:`is_timing`) holds times and is never hashed; every other table is a *number table*:
its ``stamp.json`` carries ``numbers_sha256``, the SHA-256 of its :func:`canonical_table`
(numbers rounded to :data:`HASH_DIGITS` significant digits), so that two runs — two machines,
the NumPy and the Numba engine — can be compared in one line; the scorecard carries one hash over
all of them (:func:`combined_hash`), and ``python -m omkl_core.repro.verify`` compares them cell by
cell with the reference committed in ``reference/``.
"""
from __future__ import annotations

import csv
import datetime as _dt
import hashlib
import io
import json
import math
import os
import platform
import re
import subprocess
import warnings
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from . import errata, paper_values

__all__ = ["results_dir", "save_table", "save_figure", "plain_log_ticks", "add_scorecard_rows", "scorecard",
           "HASH_DIGITS", "TIMING_SUFFIX", "is_timing", "canonical_table", "numbers_hash", "combined_hash",
           "table_hashes",
           "SCORECARD_COLUMNS", "to_markdown", "TOLERANCE_RULE", "REL_TOL", "N_SD",
           "within_tolerance", "NOT_COMPUTED", "cell_row", "claim_row", "compare", "scorecard_rows", "run_stamp", "set_mode", "MODES"]

#: The modes a run can be stamped with.
MODES = ("quick", "full", "unspecified")
_REPO = Path(__file__).resolve().parent.parent.parent


def _checkout() -> Path | None:
    """The omkl checkout this package runs from (its root holds ``reproduce.sh``), or None for an
    installed package (a wheel in site-packages)."""
    return _REPO if (_REPO / "reproduce.sh").is_file() and (_REPO / "omkl_core").is_dir() else None


def set_mode(mode: str) -> None:
    """Declare the mode of this run for the stamps (a notebook: ``set_mode("quick" if quick else "full")``)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(map(repr, MODES))}; got {mode!r}")
    os.environ["OMKL_MODE"] = mode


@lru_cache(maxsize=1)
def _commit() -> str:
    if _checkout() is None:
        from .. import __version__  # noqa: PLC0415

        return f"omkl {__version__} (installed package, not a checkout)"
    try:
        out = subprocess.run(["git", "-C", str(_REPO), "describe", "--always", "--dirty", "--abbrev=10"],
                             capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or "unknown (not a git checkout)"
    except (OSError, subprocess.SubprocessError):
        return "unknown (git not available)"


@lru_cache(maxsize=1)
def _machine() -> str:
    import numpy  # noqa: PLC0415

    from ..validation import physical_memory  # noqa: PLC0415

    mem = physical_memory()
    parts = [f"{platform.system()} {platform.machine()}", f"{os.cpu_count()} CPUs",
             f"{mem / 2**30:.0f} GiB RAM" if mem else "RAM unknown",
             f"Python {platform.python_version()}", f"NumPy {numpy.__version__}"]
    proc = platform.processor()
    return ", ".join(([proc] if proc else []) + parts)


def run_stamp() -> dict:
    """What produced a result: mode, UTC date, commit (``-dirty``: uncommitted changes; the
    version for an installed package), machine, and the results folder it went to."""
    mode = os.environ.get("OMKL_MODE", "unspecified")
    return {"mode": mode if mode in MODES else "unspecified",
            "date": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": _commit(), "machine": _machine(), "results": str(_results_root())}


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


def _results_root() -> Path:
    env = os.environ.get("OMKL_RESULTS")
    if env:
        return Path(env)
    base = _checkout() or Path.cwd()         # never the package's own installation
    return base / "results" / ("quick" if os.environ.get("OMKL_MODE") == "quick" else "")


def results_dir(sub: str | None = None) -> Path:
    """The results folder (or its subfolder ``sub``), created if missing: ``$OMKL_RESULTS`` if set;
    else ``results/`` of the checkout this package runs from (``results/quick/`` in quick mode,
    :func:`set_mode`), and for an installed package ``./results`` of the working directory -- an
    installed omkl never writes into its own installation."""
    root = _results_root()
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


#: Significant digits of the numbers in a table's hash. The NumPy and the Numba engine agreed to
#: 1.5e-14 relative at most on the quick p000/p003 tables (measured; ~1e-12 is the agreement the
#: issue states): two values that close straddle a rounding boundary of 8 digits with probability
#: about their relative difference / 1e-8 (1e-6 to 1e-4 per cell), while any change a reader could
#: see in a 4-digit table changes the hash. tests/test_verify.py checks both engines on a table.
HASH_DIGITS = 8
#: A table named ``<name>_timing`` (or with ``timing`` as any ``_``-separated part of its name)
#: holds run times: never hashed, never compared.
TIMING_SUFFIX = "_timing"
# a column name that reads as a time (run_time_s, "seconds per run", CPU s / 1000 steps, speedup):
# a number table with one is warned about (times belong in a *_timing table)
_TIME_COLUMN = re.compile(r"(?<![a-z])(seconds?|secs?|runtime|run_time|wall|cpu|speed-?up)(?![a-z])"
                          r"|_s$|\[s[\] ]", re.IGNORECASE)
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(nan|inf|infinity)", re.IGNORECASE)
_INTEGER = re.compile(r"[+-]?\d+")


def is_timing(name: str) -> bool:
    """Whether the table ``name`` is a timing table: ``timing`` is one of the ``_``-separated
    parts of its name (``paper003_table1_timing``, ``leaderboard_timing_per_1000_steps``)."""
    return "timing" in str(name).split("_")


def _canonical_cell(text: str, roundoff: float | None, digits: int) -> str:
    if not _NUMBER.fullmatch(text):
        return text                                   # strings (and empty cells) as they are
    if _INTEGER.fullmatch(text) and roundoff is None:
        return text                                   # integers exactly as written (counts, T, ids "000")
    x = float(text)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if roundoff is not None and abs(x) <= roundoff:
        return f"<={roundoff:g}"                      # a round-off measurement below its bound
    if x == 0.0:
        return "0"                                    # also -0.0
    return format(x, f".{digits}g")


def canonical_table(csv_text: str, *, roundoff: dict | None = None, digits: int = HASH_DIGITS) -> dict:
    """The canonical form of a saved table, from its CSV text: ``{"columns": [...], "rows": [[...]]}``.

    Every cell is a string: a number (any cell that reads as a decimal, ``nan`` or ``inf``)
    rounded to ``digits`` significant digits (``format(x, ".8g")``; ``-0`` as ``0``), an integer
    literal (``3``, ``000``) and anything else as written. Built from the CSV text rather than the
    DataFrame, so that the hash does not depend on the dtypes pandas infers when reading it back.

    Parameters
    ----------
    csv_text : str
        The table as :func:`save_table` wrote it (header line first; the index is a column
        when it was saved with ``index=True``).
    roundoff : dict or None, default=None
        ``{column: bound}`` for columns that measure floating-point round-off (residuals of an
        exact equality, ~1e-16, which differ from machine to machine in every digit): a cell
        with ``|x| <= bound`` becomes ``"<=bound"``; a larger one is rounded like any number.
    digits : int, default=HASH_DIGITS
        Significant digits of the rounded numbers.

    Examples
    --------
    >>> canonical_table("a,b,res\\nx,0.1234567891,3e-16\\n", roundoff={"res": 1e-12})
    {'columns': ['a', 'b', 'res'], 'rows': [['x', '0.12345679', '<=1e-12']]}
    """
    if not isinstance(digits, int) or isinstance(digits, bool) or not 1 <= digits <= 17:
        raise ValueError(f"digits must be an integer in [1, 17]; got {digits!r}")
    roundoff = dict(roundoff or {})
    lines = list(csv.reader(io.StringIO(csv_text)))
    if not lines:
        raise ValueError("csv_text has no header line")
    columns = lines[0]
    unknown = sorted(set(roundoff) - set(columns))
    if unknown:
        raise ValueError(f"roundoff names columns {unknown} that the table does not have")
    bounds = [roundoff.get(c) for c in columns]
    rows = [[_canonical_cell(v, b, digits) for v, b in zip(line, bounds, strict=True)] for line in lines[1:]]
    return {"columns": columns, "rows": rows}


def numbers_hash(canonical: dict) -> str:
    """SHA-256 (hex) of a :func:`canonical_table` (compact JSON, UTF-8)."""
    text = json.dumps([canonical["columns"], canonical["rows"]], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def combined_hash(hashes: dict) -> str:
    """One SHA-256 over the number tables' hashes ``{name: hash}`` (one ``name hash`` line each, sorted by name)."""
    text = "".join(f"{name} {hashes[name]}\n" for name in sorted(hashes))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def save_table(df: pd.DataFrame, name: str, floatfmt: str = ".4g", index: bool = False,
               roundoff: dict | None = None) -> Path:
    """Write ``results/tables/<name>.csv``, ``.md`` (first line: the :func:`run_stamp`) and
    ``<name>.stamp.json``; returns the markdown path.

    The stamp carries ``numbers_sha256``, the :func:`numbers_hash` of the CSV's
    :func:`canonical_table` (``null`` for a timing table, :func:`is_timing`), the rule
    (``hash_digits``) and the ``roundoff`` bounds, so that the hash can be recomputed from the CSV.
    ``roundoff``: ``{column: bound}`` for the columns that measure floating-point round-off (see
    :func:`canonical_table`); not allowed on a timing table. A number table with a column whose name
    reads as a time (``run_time_s``, ``seconds per run``, ``CPU s``, ``speedup``) gets a
    ``UserWarning``: times belong in a ``*_timing`` table.
    """
    if roundoff is not None and (not isinstance(roundoff, dict)
                                 or not all(isinstance(b, (int, float)) and b > 0 for b in roundoff.values())):
        raise ValueError(f"roundoff must be a dict {{column: positive bound}}; got {roundoff!r}")
    out = results_dir("tables")
    stamp = run_stamp()
    text = df.to_csv(index=index)
    if is_timing(name):
        if roundoff:
            raise ValueError(f"roundoff applies to number tables; {name!r} is a timing table")
        stamp.update(numbers_sha256=None, hash_rule="timing table (name part 'timing'): not hashed")
    else:
        timeish = [str(c) for c in df.columns if _TIME_COLUMN.search(str(c))]
        if timeish:
            warnings.warn(f"table {name!r}: columns {timeish} look like run times; a number table is hashed "
                          f"and compared, times belong in a table named '{name}{TIMING_SUFFIX}'", stacklevel=2)
        canon = canonical_table(text, roundoff=roundoff)
        stamp.update(numbers_sha256=numbers_hash(canon), hash_digits=HASH_DIGITS, roundoff=dict(roundoff or {}),
                     hash_rule=f"SHA-256 of the CSV's cells, numbers rounded to {HASH_DIGITS} significant digits "
                               "(omkl_core.repro.report.canonical_table)")
    (out / f"{name}.csv").write_text(text, encoding="utf-8")
    (out / f"{name}.stamp.json").write_text(json.dumps(stamp, indent=1) + "\n", encoding="utf-8")
    md = out / f"{name}.md"
    md.write_text(_stamp_line(stamp) + "\n" + to_markdown(df, floatfmt=floatfmt, index=index), encoding="utf-8")
    return md


def table_hashes(root: Path | None = None) -> dict:
    """``{name: numbers_sha256}`` of the number tables in ``<root>/tables`` (default: :func:`results_dir`),
    read from their stamps; timing tables and tables without a hash are left out."""
    tables = Path(root or results_dir()) / "tables"
    out = {}
    for sp in sorted(tables.glob("*.stamp.json")):
        name = sp.name[:-len(".stamp.json")]
        h = json.loads(sp.read_text(encoding="utf-8")).get("numbers_sha256")
        if h and not is_timing(name):
            out[name] = h
    return out


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
    ``results/scorecard/<section>.csv``; re-running the notebook replaces them.

    A section whose name ends in ``_timing`` holds claims judged from measured times (speed
    claims): :func:`scorecard` lists them apart, outside ``scorecard.csv`` and its hash. Notes of
    any other section must not carry run times."""
    missing = [c for c in SCORECARD_COLUMNS if c not in rows.columns]
    if missing:
        raise ValueError(f"rows lacks scorecard columns {missing}")
    path = results_dir("scorecard") / f"{section}.csv"
    rows[SCORECARD_COLUMNS].to_csv(path, index=False)
    path.with_suffix(".stamp.json").write_text(json.dumps(run_stamp(), indent=1) + "\n", encoding="utf-8")
    return path


def _read_sections(parts) -> tuple[pd.DataFrame, list[str]]:
    """The rows of the scorecard sections ``parts`` (CSV paths) and one markdown line of origin each."""
    frames, sections = [], []
    for p in parts:
        f = pd.read_csv(p, dtype={"paper": str})   # keep "000", not 0
        if f.empty:
            continue
        sp = p.with_suffix(".stamp.json")
        st = json.loads(sp.read_text(encoding="utf-8")) if sp.exists() else {
            "mode": "unknown", "date": "unknown", "commit": "unknown", "machine": "unknown"}
        frames.append(f.assign(_section=p.stem, _mode=st["mode"]))
        sections.append(f"| {p.stem} | {len(f)} | {st['mode']} | {st['date']} | `{st['commit']}` | {st['machine']} |")
    df = (pd.concat(frames, ignore_index=True) if frames
          else pd.DataFrame(columns=[*SCORECARD_COLUMNS, "_section", "_mode"]))
    return df, sections


def _n_true(df: pd.DataFrame) -> int:
    # True only (read back from CSV: booleans or strings; NaN = not judged, e.g. a quick run)
    return int(df["within_tolerance"].astype(str).str.lower().eq("true").sum()) if len(df) else 0


#: What the scorecard says for a row that a quick run computed on its short horizon only.
NOT_COMPUTED = "not computed at full size"


def _judged(df: pd.DataFrame, quick_sections: set) -> pd.Series:
    """Which rows carry a verdict: a boolean ``within_tolerance`` from a section that is not a quick run's."""
    if not len(df):
        return pd.Series([], dtype=bool)
    known = df["within_tolerance"].astype(str).str.lower().isin(["true", "false"])
    return known & ~df["_section"].isin(quick_sections)


def _display(df: pd.DataFrame, judged: pd.Series) -> pd.DataFrame:
    """The rows as scorecard.md shows them: ``within_tolerance`` yes / no / :data:`NOT_COMPUTED`."""
    out = df.drop(columns="_section")
    text = out["within_tolerance"].astype(str).str.lower().map({"true": "yes", "false": "no"})
    out["within_tolerance"] = text.where(judged, NOT_COMPUTED)
    return out


def scorecard(verbose: bool = False) -> pd.DataFrame:
    """Merge every notebook's rows into ``results/scorecard.{csv,md}`` and return them.

    The markdown names, for each section, the mode, date, commit and machine of the run that
    produced it; with no rows yet it says so instead of a "0 of 0" summary. It carries one hash
    over all the number tables in ``results/tables`` (:func:`combined_hash`; also in
    ``scorecard.stamp.json`` with each table's hash). Sections named ``*_timing`` (speed claims,
    judged from measured CPU time) are listed in a section of their own and written to
    ``scorecard_timing.csv``, not to ``scorecard.csv``.
    """
    parts = sorted(results_dir("scorecard").glob("*.csv"))
    df, sections = _read_sections([p for p in parts if not is_timing(p.stem)])
    speed, speed_sections = _read_sections([p for p in parts if is_timing(p.stem)])
    root = results_dir()
    errata.write_markdown(root / "errata.md")        # results/errata.md, from the one registry
    # a quick run's rows are computed on its short horizon only: never judged, whatever they hold
    quick_sections = set(df.loc[df["_mode"] == "quick", "_section"]) | set(speed.loc[speed["_mode"] == "quick", "_section"])
    judged, speed_judged = _judged(df, quick_sections), _judged(speed, quick_sections)
    df, speed = df.drop(columns="_mode"), speed.drop(columns="_mode")
    shown, speed_shown = _display(df, judged), _display(speed, speed_judged)
    df = df.drop(columns="_section")
    df.to_csv(root / "scorecard.csv", index=False)
    stamp = run_stamp()
    hashes = table_hashes(root)
    combined = combined_hash(hashes)
    (root / "scorecard.stamp.json").write_text(json.dumps(
        {**stamp, "numbers_sha256": combined, "hash_digits": HASH_DIGITS, "tables": hashes}, indent=1) + "\n",
        encoding="utf-8")
    n_in, n_judged = _n_true(df[judged.to_numpy()]), int(judged.sum())
    n_quick = len(df) - n_judged
    if len(df):
        summary = (f"{n_in} of {n_judged} rows within tolerance." if n_judged else "No row judged.")
        if n_quick:
            summary += (f" {n_quick} row{'s' * (n_quick != 1)} {NOT_COMPUTED}: a quick run computes them on its "
                        "short horizon only (the values are in its tables) and judges none of them.")
        table = to_markdown(shown)
        origin = ("Produced by (one row per notebook section):\n\n"
                  "| section | rows | mode | date | commit | machine |\n|---|---|---|---|---|---|\n"
                  + "\n".join(sections) + "\n\n")
    else:
        summary = ("No scorecard rows yet: no notebook that compares with published numbers has "
                   f"finished in {root}. Run ./reproduce.sh (all notebooks) to fill it.")
        table, origin = "", ""
    if len(speed):
        speed.drop(columns="_section").to_csv(root / "scorecard_timing.csv", index=False)
        n_speed = int(speed_judged.sum())
        speed_summary = (f"{_n_true(speed[speed_judged.to_numpy()])} of {n_speed} speed claims hold on this machine"
                         + (f"; {len(speed) - n_speed} {NOT_COMPUTED}" if len(speed) > n_speed else "") + ".")
        table += ("\n## Speed claims (measured CPU time; not part of the numbers hash)\n\n"
                  "Judged from CPU time (`time.process_time`, best of several runs, one BLAS thread) on the "
                  "machine named below; times live in the `*_timing` tables, never in the rows above.\n\n"
                  f"{speed_summary}\n\n"
                  "| section | rows | mode | date | commit | machine |\n|---|---|---|---|---|---|\n"
                  + "\n".join(speed_sections) + "\n\n" + to_markdown(speed_shown))
    else:
        (root / "scorecard_timing.csv").unlink(missing_ok=True)
    quick = any(" | quick | " in s for s in sections + speed_sections) or stamp["mode"] == "quick"
    numbers = (f"Numbers hash: `{combined}` (SHA-256 over the {len(hashes)} number tables in `tables/`, each "
               f"table's numbers rounded to {HASH_DIGITS} significant digits; timing tables `*{TIMING_SUFFIX}*` "
               "excluded; per-table hashes in `scorecard.stamp.json`). Compare with the committed reference: "
               "`./reproduce.sh verify` (quick run: `./reproduce.sh verify --quick`).\n\n")
    header = ("# omkl reproduction scorecard\n\n" + _stamp_line(stamp) + "\n"
              + ("**Quick run**: small horizons for a smoke test; these numbers are not a reproduction "
                 "of the papers (full results: ./reproduce.sh without --quick).\n\n" if quick else "")
              + numbers
              + "Published value, reproduced mean ± sd over repetitions, ratio reproduced/published, "
              "and whether the cell is within its stated tolerance.\n\n"
              f"Tolerance rule: {TOLERANCE_RULE}\n\n" + origin + f"{summary}\n\n")
    (root / "scorecard.md").write_text(header + table, encoding="utf-8")
    if verbose:
        what = (f"{len(df)} rows, {n_in} of {n_judged} judged within tolerance" if n_judged else f"{len(df)} rows")
        what = (what + (f", {n_quick} {NOT_COMPUTED} (quick run)" if n_quick else "")) if len(df) else "no rows yet"
        print(f"scorecard ({stamp['mode']} run): {what}; numbers hash {combined[:16]}… over {len(hashes)} "
              f"tables -> {root / 'scorecard.md'}")
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
