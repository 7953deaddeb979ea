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
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from .. import __version__
from ..validation import physical_memory
from . import errata, paper_values, papers, verdicts
from .counts import (  # noqa: F401  (the counting lives in counts; these names stay importable from here)
    CLAIM_KIND_LABELS,
    claim_counts,
    is_timing,
    phrase_tables,
    summary_lines,
    tier_counts,
)

__all__ = ["results_dir", "save_table", "save_figure", "plain_log_ticks", "add_scorecard_rows", "scorecard",
           "HASH_DIGITS", "TIMING_SUFFIX", "is_timing", "canonical_table", "numbers_hash", "combined_hash",
           "table_hashes",
           "SCORECARD_COLUMNS", "CELL", "to_markdown", "TIER_RULE", "cell_verdict", "holds", "tier_counts",
           "claim_counts", "NOT_COMPUTED", "cell_row", "claim_row", "compare", "scorecard_rows", "run_stamp",
           "set_mode", "MODES"]

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

    mem = physical_memory()
    parts = [f"{platform.system()} {platform.machine()}", f"{os.cpu_count()} CPUs",
             f"{mem / 2**30:.0f} GiB RAM" if mem else "RAM unknown",
             f"Python {platform.python_version()}", f"NumPy {numpy.__version__}"]
    proc = platform.processor()
    try:                                    # the CPU model, where Linux says it
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            model = next((ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")), "")
    except OSError:
        model = ""
    try:                                    # the BLAS library and the kernel it picked (e.g. OpenBLAS Haswell)
        from threadpoolctl import threadpool_info  # noqa: PLC0415
        blas = next((f"{i.get('internal_api')} {i.get('architecture')}" for i in threadpool_info()
                     if i.get("user_api") == "blas"), "")
    except Exception:  # noqa: BLE001 -- a description only
        blas = ""
    return ", ".join([x for x in (model or proc,) if x] + parts + ([f"BLAS {blas}"] if blas else []))


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

#: Columns of every scorecard row (see :func:`add_scorecard_rows`): ``kind`` is ``cell`` for a
#: published numeric cell, else the claim's kind (:data:`omkl_core.repro.verdicts.CLAIM_KINDS`);
#: ``verdict`` a cell's tier or a claim's word (:mod:`omkl_core.repro.verdicts`); ``noise_band`` the
#: half-width of the cell's noise band; ``cause`` the measured cause of a cell beyond *≤ 5 %* (a key of
#: :data:`omkl_core.repro.papers.CAUSES`) or *unexplained*, and ``grade`` that cause's grade
#: (:func:`omkl_core.repro.verdicts.grade`, computed by :func:`grade_causes`), both filled by :func:`scorecard`.
SCORECARD_COLUMNS = ["paper", "item", "row", "column", "kind", "published", "reproduced_mean",
                     "reproduced_sd", "n_runs", "ratio", "noise_band", "verdict", "cause", "grade", "note"]
#: The ``kind`` of a published numeric cell's row.
CELL = verdicts.CELL
#: The rule of the tiers, as scorecard.md and the report print it (:mod:`omkl_core.repro.verdicts`).
TIER_RULE = verdicts.TIER_RULE


def _n_paper(paper: str) -> int | None:
    return verdicts.PAPER_REPETITIONS.get(str(paper).zfill(3))


def cell_verdict(paper: str, published: float, mean: float, sd: float, n: int) -> tuple[float, str]:
    """``(noise band, tier)`` of a published numeric cell of ``paper`` (:func:`omkl_core.repro.verdicts.tier`)."""
    sd = float(sd) if np.isfinite(sd) else 0.0
    return verdicts.noise_band(sd, int(n), _n_paper(paper)), verdicts.tier(published, mean, sd, int(n), _n_paper(paper))


def cell_row(paper: str, item: str, row: str, column: str, published: float, values,
             note: str = "", quick: bool = False) -> dict:
    """One scorecard row for a published numeric cell from the per-repetition ``values``: its tier
    (:mod:`omkl_core.repro.verdicts`; ``quick``: :data:`NOT_COMPUTED`). ``row`` is the published
    row's name: a cell is scored in one form (:data:`omkl_core.repro.papers.PAPERS`' scored forms)."""
    v = np.asarray(values, dtype=np.float64).ravel()
    if v.size == 0:
        raise ValueError(f"values of {row!r} / {column!r} is empty")
    mean = float(v.mean())
    sd = float(v.std(ddof=1)) if v.size > 1 else 0.0
    band, tier = cell_verdict(paper, published, mean, sd, v.size)
    return {"paper": paper, "item": item, "row": row, "column": column, "kind": CELL,
            "published": float(published), "reproduced_mean": mean, "reproduced_sd": sd,
            "n_runs": int(v.size), "ratio": mean / published if published else np.nan, "noise_band": band,
            "verdict": NOT_COMPUTED if quick else tier, "cause": "", "grade": "", "note": note}


def claim_row(paper: str, item: str, claim: str, holds: bool, note: str = "", *, kind: str) -> dict:
    """One scorecard row for a qualitative claim: ``kind`` ``"paper"`` (a paper's claim judged on our
    numbers), ``"printed"`` (a paper's printed numbers checked against its text) or ``"project"``
    (this project's own claim); ``holds``: true in what it is judged on."""
    return {"paper": paper, "item": item, "row": claim, "column": "claim", "kind": kind, "published": np.nan,
            "reproduced_mean": np.nan, "reproduced_sd": np.nan, "n_runs": 0, "ratio": np.nan, "noise_band": np.nan,
            "verdict": verdicts.claim_verdict(kind, bool(holds)), "cause": "", "grade": "", "note": note}


def holds(row) -> bool:
    """Whether a claim row (a mapping with ``verdict``) holds (or its printed numbers are consistent)."""
    return str(row["verdict"]) in {words[0] for words in verdicts.CLAIM_WORDS.values()}


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
        missing = [c for c in SCORECARD_COLUMNS if c not in f.columns]
        if missing:       # a section an older omkl wrote (before the tiers), e.g. one since retired: not merged
            warnings.warn(f"scorecard section {p} lacks the columns {missing} (written by an older omkl, before the "
                          "tiers): left out of the scorecard; run its notebook again or delete the file", stacklevel=2)
            print(f"warning: scorecard section {p.name} is in an older format (no {', '.join(missing)}): left out; "
                  "run its notebook again or delete it", flush=True)
            continue
        for c in ("kind", "verdict", "cause", "grade", "note"):
            f[c] = f[c].astype(object).where(f[c].notna(), "").astype(str)
        sp = p.with_suffix(".stamp.json")
        st = json.loads(sp.read_text(encoding="utf-8")) if sp.exists() else {
            "mode": "unknown", "date": "unknown", "commit": "unknown", "machine": "unknown"}
        frames.append(f.assign(_section=p.stem, _mode=st["mode"]))
        sections.append(f"| {p.stem} | {len(f)} | {st['mode']} | {st['date']} | `{st['commit']}` | {st['machine']} |")
    df = (pd.concat(frames, ignore_index=True) if frames
          else pd.DataFrame(columns=[*SCORECARD_COLUMNS, "_section", "_mode"]))
    return df, sections


#: What the scorecard says for a row that a quick run computed on its short horizon only.
NOT_COMPUTED = verdicts.NOT_COMPUTED
_ITEM = re.compile(r"Table (\d+)")


def _with_quick(df: pd.DataFrame, quick_sections: set) -> pd.DataFrame:
    """The rows with the verdict of every row of a quick section (and every row without a verdict)
    set to :data:`NOT_COMPUTED`: a quick run computes on its short horizon only and judges nothing."""
    if not len(df):
        return df
    df = df.copy()
    verdict = df["verdict"].astype(object).where(df["verdict"].notna(), "").astype(str)
    printed = df["kind"].astype(str).eq("printed")          # checks of the printed numbers need no run
    df["verdict"] = verdict.where((printed | ~df["_section"].isin(quick_sections)) & verdict.ne(""), NOT_COMPUTED)
    return df


def check_rows(df: pd.DataFrame) -> None:
    """Refuse scorecard rows that break the rules of :mod:`omkl_core.repro.verdicts` and
    :mod:`omkl_core.repro.papers` (a ``ValueError`` naming the row):

    * every row has a known ``kind`` and a verdict of that kind (a tier for a cell; the kind's
      words for a claim) or :data:`NOT_COMPUTED`;
    * a cell's item is ``"Table K"``, its row a published row of that table and column, and **no
      published cell is scored twice** (in two forms, or by two sections)."""
    kinds = {CELL, *verdicts.CLAIM_KINDS}
    seen: dict = {}
    for i, r in enumerate(df.to_dict("records")):
        where = f"scorecard row {i} ({r.get('_section', '?')}: {r['paper']} / {r['item']} / {r['row']} / {r['column']})"
        kind, verdict = str(r.get("kind")), str(r.get("verdict"))
        if kind not in kinds:
            raise ValueError(f"{where}: kind must be one of {sorted(kinds)}; got {kind!r}")
        allowed = set(verdicts.TIERS) if kind == CELL else set(verdicts.CLAIM_WORDS[kind])
        if verdict not in allowed | {NOT_COMPUTED}:
            raise ValueError(f"{where}: verdict {verdict!r} is not one of {sorted(allowed)} for kind {kind!r}")
        if kind != CELL:
            continue
        m = _ITEM.fullmatch(str(r["item"]))
        if m is None:
            raise ValueError(f"{where}: a published cell's item must be 'Table K' (one scored form per cell; "
                             "other forms are ablation rows of a table, never scored)")
        paper_values.published_value(str(r["paper"]).zfill(3), m.group(1), str(r["column"]), str(r["row"]))
        key = (str(r["paper"]).zfill(3), m.group(1), str(r["row"]), str(r["column"]))
        if key in seen:
            raise ValueError(f"{where}: published cell paper {key[0]} Table {key[1]} {key[2]} / {key[3]} is scored "
                             f"twice (also by {seen[key]}); score one form and show the others as ablations")
        seen[key] = where


def _causes(df: pd.DataFrame, tables: set) -> pd.Series:
    """The ``cause`` of each row: for a judged cell beyond *≤ 5 %* (≤ 10 %, ≤ 25 %, miss), the key of
    the first declared cause (:func:`omkl_core.repro.papers.cause_for`) whose evidence tables are in
    this run, else *unexplained*."""
    out = []
    for r in df.to_dict("records"):
        cause = ""
        if r["kind"] == CELL and r["verdict"] not in (NOT_COMPUTED, *verdicts.LANDED):
            table = _ITEM.fullmatch(str(r["item"])).group(1)
            c = papers.cause_for(str(r["paper"]).zfill(3), table, str(r["row"]), str(r["column"]), tables)
            cause = c.key if c is not None else verdicts.UNEXPLAINED
        out.append(cause)
    return pd.Series(out, index=df.index, dtype=object)


@dataclass(frozen=True)
class CauseGrade:
    """A cause's grade in one run (:func:`grade_causes`): the grade, the cells it covers, on how many
    its named form lands, the scored and the named form's mean relative gap over them, the cells the
    evidence has no value for, and the cause's line for the pages."""
    key: str
    grade: str
    cells: int
    landed: int
    gap_before: float
    gap_after: float
    missing: int
    line: str


def _form_values(cause, root: Path) -> dict:
    """``{(published row, column): (mean, sd, n)}`` of a cause's named form (:class:`~omkl_core.repro.papers.FormRef`)
    from the evidence tables in ``root/tables``."""
    out: dict = {}
    f = cause.form
    for path in sorted((root / "tables").glob("*.csv")):
        if re.fullmatch(f.tables, path.stem) is None:
            continue
        t = pd.read_csv(path)
        for col, value in f.where:
            t = t[t[col].astype(str) == value] if col in t.columns else t.iloc[0:0]
        for r in t.to_dict("records"):
            row = str(r["algorithm"]).split(" [")[0]
            n = int(r["n_runs"]) if "n_runs" in r and pd.notna(r["n_runs"]) else 1
            out[(row, str(r["dataset"]))] = (float(r["mse_x1e3"]), float(r["sd"]) if pd.notna(r.get("sd")) else 0.0, n)
    return out


def grade_causes(df: pd.DataFrame, root: Path) -> dict[str, CauseGrade]:
    """The grade of every cause that covers a cell of ``df`` (scorecard rows, ``cause`` filled),
    computed from its named form's values in ``root/tables`` (:func:`omkl_core.repro.verdicts.grade`)."""
    out = {}
    for cause in papers.CAUSES:
        cells = df[(df["kind"] == CELL) & (df["cause"] == cause.key)]
        if not len(cells):
            continue
        values = _form_values(cause, root)
        landed, before, after, missing = [], [], [], 0
        for r in cells.to_dict("records"):
            pub, mean = float(r["published"]), float(r["reproduced_mean"])
            before.append(verdicts.relative_gap(pub, mean))
            v = values.get((str(r["row"]), str(r["column"])))
            if v is None:
                missing += 1
                landed.append(False)
                after.append(before[-1])
                continue
            m, sd, n = v
            landed.append(verdicts.tier(pub, m, sd, n, _n_paper(str(r["paper"]))) in verdicts.LANDED)
            after.append(verdicts.relative_gap(pub, m))
        g = verdicts.grade(cause.form.source, landed, before, after)
        k = len(landed)
        gb, ga = float(np.mean(before)), float(np.mean(after))
        line = (f"{cause.key}: **{g}** — {cause.form.label} ({papers.SOURCES[cause.form.source]}) lands within noise "
                f"or ≤ 5 % on {sum(landed)} of the {k} cell{'s' * (k != 1)} it covers; mean relative gap "
                f"{gb:.1%} in the scored form, {ga:.1%} in this form"
                + (f"; no value for {missing} of them in {', '.join(cause.evidence)}" if missing else "") + ".")
        out[cause.key] = CauseGrade(cause.key, g, k, sum(landed), gb, ga, missing, line)
    return out


def scorecard(verbose: bool = False) -> pd.DataFrame:
    """Merge every notebook's rows into ``results/scorecard.{csv,md}`` and return them.

    Checks the rows (:func:`check_rows`: one scored form per published cell), fills each cell's
    measured ``cause`` from :data:`omkl_core.repro.papers.CAUSES` (a miss without one:
    *unexplained*), and marks every row of a quick section :data:`NOT_COMPUTED`. The markdown names,
    for each section, the mode, date, commit and machine of the run that produced it, the tier rule
    and the counts per tier and per claim kind (:func:`summary_lines`); with no rows yet it says so.
    It carries one hash over all the number tables in ``results/tables`` (:func:`combined_hash`;
    also in ``scorecard.stamp.json`` with each table's hash). Sections named ``*_timing`` (speed
    claims, judged from measured CPU time) are listed apart and written to
    ``scorecard_timing.csv``, not to ``scorecard.csv``.
    """
    parts = sorted(results_dir("scorecard").glob("*.csv"))
    df, sections = _read_sections([p for p in parts if not is_timing(p.stem)])
    speed, speed_sections = _read_sections([p for p in parts if is_timing(p.stem)])
    root = results_dir()
    errata.write_markdown(root / "errata.md")        # results/errata.md, from the one registry
    quick_sections = set(df.loc[df["_mode"] == "quick", "_section"]) | set(speed.loc[speed["_mode"] == "quick", "_section"])
    df, speed = _with_quick(df, quick_sections), _with_quick(speed, quick_sections)
    check_rows(pd.concat([df, speed], ignore_index=True) if len(speed) else df)
    hashes = table_hashes(root)
    tables = {p.name[:-4] for p in (root / "tables").glob("*.csv")}
    grades: dict = {}
    if len(df):
        df["cause"] = _causes(df, tables)
        grades = grade_causes(df, root)
        df["grade"] = [grades[c].grade if c in grades else "" for c in df["cause"]]
    df, speed = df.drop(columns=["_mode", "_section"]), speed.drop(columns="_mode")
    df.to_csv(root / "scorecard.csv", index=False)
    stamp = run_stamp()
    combined = combined_hash(hashes)
    (root / "scorecard.stamp.json").write_text(json.dumps(
        {**stamp, "numbers_sha256": combined, "hash_digits": HASH_DIGITS, "tables": hashes,
         "tiers": tier_counts(df), "claims": claim_counts(df),
         "causes": {k: {"grade": g.grade, "cells": g.cells, "landed": g.landed, "gap_before": g.gap_before,
                        "gap_after": g.gap_after, "missing": g.missing} for k, g in grades.items()}},
        indent=1) + "\n", encoding="utf-8")
    if len(df):
        summary = "\n\n".join(summary_lines(df))
        if grades:
            summary += ("\n\nMeasured causes, each graded from its evidence (the rule: omkl_core/repro/verdicts.py):\n\n"
                        + "\n".join(f"- {g.line}" for g in grades.values()))
        shown = df.copy()
        gap = [(m - p) / abs(p) if k == CELL and p else np.nan
               for k, p, m in zip(shown["kind"], shown["published"], shown["reproduced_mean"])]
        shown.insert(shown.columns.get_loc("ratio") + 1, "gap", [f"{g:+.1%}" if np.isfinite(g) else "" for g in gap])
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
        table += ("\n## Speed claims (measured CPU time; not part of the numbers hash)\n\n"
                  "Judged from CPU time (`time.process_time`, best of several runs, one BLAS thread) on the "
                  "machine named below; times live in the `*_timing` tables, never in the rows above.\n\n"
                  + " ".join(summary_lines(speed)) + "\n\n"
                  "| section | rows | mode | date | commit | machine |\n|---|---|---|---|---|---|\n"
                  + "\n".join(speed_sections) + "\n\n" + to_markdown(speed.drop(columns="_section")))
    else:
        (root / "scorecard_timing.csv").unlink(missing_ok=True)
    quick = any(" | quick | " in s for s in sections + speed_sections) or stamp["mode"] == "quick"
    numbers = (f"Numbers hash: `{combined}` (SHA-256 over the number tables in `tables/`: "
               f"{phrase_tables(len(hashes), True)}; each "
               f"table's numbers rounded to {HASH_DIGITS} significant digits; timing tables `*{TIMING_SUFFIX}*` "
               "excluded; per-table hashes in `scorecard.stamp.json`). Compare with the committed reference: "
               "`./reproduce.sh verify` (quick run: `./reproduce.sh verify --quick`).\n\n")
    header = ("# omkl reproduction scorecard\n\n" + _stamp_line(stamp) + "\n"
              + ("**Quick run**: small horizons for a smoke test; these numbers are not a reproduction "
                 "of the papers (full results: ./reproduce.sh without --quick).\n\n" if quick else "")
              + numbers
              + "Each published cell: published value, reproduced mean ± sd over repetitions, ratio "
              "reproduced/published, the relative gap (reproduced − published) / published, the noise band and its "
              "tier; a cell beyond ≤ 5 % names its measured cause (a key of `omkl_core.repro.papers`, whose tables "
              "are in `tables/`) and that cause's grade, or *unexplained*. Each claim: its kind and verdict.\n\n"
              f"Tier rule: {TIER_RULE}\n\n" + origin + f"{summary}\n\n")
    (root / "scorecard.md").write_text(header + table, encoding="utf-8")
    if verbose:
        what = " ".join(summary_lines(df)) if len(df) else "no rows yet"
        print(f"scorecard ({stamp['mode']} run): {len(df)} rows. {what} Numbers hash {combined[:16]}… over "
              f"{len(hashes)} tables -> {root / 'scorecard.md'}")
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
        Quick (truncated) runs are not comparable with the paper: ``tier`` is
        :data:`NOT_COMPUTED` for them.
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
        One row per cell: ``dataset, algorithm, mean, sd, n_runs, published, ratio, noise_band,
        tier, note`` (sd: ddof = 1, 0 for one run; the tier of :mod:`omkl_core.repro.verdicts`,
        the distance of *this* row to the published one: only the scored form's row becomes a
        scorecard row, :func:`scorecard_rows`).

    Examples
    --------
    >>> import numpy as np
    >>> df = compare({("Airfoil", "VAW2"): np.array([22.0, 23.0, 24.0])}, paper="000", table=2)
    >>> df[["dataset", "algorithm", "mean", "published"]].to_dict("records")
    [{'dataset': 'Airfoil', 'algorithm': 'VAW2', 'mean': 23.0, 'published': 22.8}]
    >>> df.tier[0]
    'within noise'
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
        band, tier = cell_verdict(paper, pub, mean, sd, v.size)
        recs.append({"dataset": dataset, "algorithm": algorithm, "mean": mean, "sd": sd,
                     "n_runs": int(v.size), "published": pub,
                     "ratio": mean / pub if pub else np.nan, "noise_band": band,
                     "tier": NOT_COMPUTED if quick else tier, "note": note})
    return pd.DataFrame(recs, columns=["dataset", "algorithm", "mean", "sd", "n_runs", "published",
                                       "ratio", "noise_band", "tier", "note"])


def scorecard_rows(comparison: pd.DataFrame, *, paper: str, item: str, published_name=None) -> pd.DataFrame:
    """Scorecard rows (:data:`SCORECARD_COLUMNS`) from a :func:`compare` frame: the row is the
    published algorithm (``published_name(algorithm)``, default the algorithm itself: pass the
    scored form's rows only), the column the dataset, the item ``"Table K"``."""
    name = published_name or (lambda a: a)
    rows = [{"paper": paper, "item": item, "row": name(r.algorithm), "column": r.dataset, "kind": CELL,
             "published": r.published, "reproduced_mean": r.mean, "reproduced_sd": r.sd,
             "n_runs": r.n_runs, "ratio": r.ratio, "noise_band": r.noise_band, "verdict": r.tier, "cause": "", "grade": "",
             "note": r.note}
            for r in comparison.itertuples(index=False)]
    return pd.DataFrame(rows, columns=SCORECARD_COLUMNS)
