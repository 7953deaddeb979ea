"""The reproduction report: static HTML pages generated from a results folder (issue 31).

``./reproduce.sh`` writes it at the end of every run (``results/report/index.html``; a quick run
``results/quick/report/index.html``); ``python -m omkl_core.repro.html_report [--quick]`` rebuilds
it from the results already there. Nothing here runs a learner: every number comes from the
results folder (tables, their ``stamp.json``, figures, the scorecard sections), from the package
data (the published values, :mod:`omkl_core.repro.paper_values`), from the registries of the
reproduction wing (:mod:`~omkl_core.repro.errata`; the claims evaluated on the published numbers
alone, :mod:`~omkl_core.repro.claims`), from ``THEORY.md`` and from the JUnit XML that
``./reproduce.sh test`` writes (``results/junit.xml``).

The pages open from the file system: no server, no network, no script; one inline style sheet,
relative links, the figures copied next to the pages.

Pages
    ``index.html`` (the verdict: counts per tier and per claim kind; stamps, what the run
    computed, one summary line per paper), ``paperNNN.html`` (per paper: its published tables,
    figures with captions and claims by kind, errata, tables), ``paperNNN_tableK.html`` (each
    published table laid out as printed: rows x columns, each cell the published value beside our
    mean ± sd in its scored form, coloured by its tier (:mod:`~omkl_core.repro.verdicts`), the
    ratio beneath and the numbers on hover, each miss linked to its measured cause or marked
    *unexplained* with what was investigated (:mod:`~omkl_core.repro.papers`); the scored form with
    the paper's sentence; the ablation rows, never scored),
    ``leaderboard.html``, ``errata.html``, ``theory.html`` (every row of THEORY.md with its tests'
    outcomes in the last test run), ``numbers.html`` (hashes and the ``verify`` outcome),
    ``timing.html`` (the ``*_timing`` tables and the speed claims, apart), ``tables.html``.

A quick run (small horizons) is labelled on every page; its cells are shown as computed on the
quick horizon and marked *not computed at full size*, never as misses. Beside the committed full
run every number says which run it comes from: the cells show the full run's value and tier with
the quick value beneath; the causes (text, grade, the tables they are measured in) are labelled as
the full run's; each ablation, variant and investigation table is shown as the committed full run's
first, then as this quick run's (:data:`QUICK_CAPTION`).
"""
from __future__ import annotations

import argparse
import contextlib
import html
import math
import os
import re
import shutil
import sys
import tempfile
import urllib.parse
from pathlib import Path

from . import claims, committed, errata, paper_values, papers, report, verdicts, verify
from . import counts as _counts
from .notebooks import ResultsBusy, results_lock
from .papers import Cause, Figure  # noqa: F401  (part of this module's API)
from .report_inputs import (  # noqa: F401  (part of this module's API)
    NOT_COMPUTED,
    _float,
    _json,
    _outcome,
    _read_csv,
    _records,
    inside,
    junit_outcomes,
    theory_rows,
    verdict,
)

__all__ = ["build", "main", "embed", "embed_css", "MARKER", "FIGURES", "CAUSES", "Cause", "junit_outcomes",
           "theory_rows", "verdict", "NOT_COMPUTED", "PAPER_TITLES"]

ROOT = Path(__file__).resolve().parent.parent.parent

#: Short titles of the pages (the errata registry holds the full references).
PAPER_TITLES = {
    "000": "Random-feature double VAW (VAW2)",
    "001": "Online learning of noisy data with kernels",
    "002": "Competing with Gaussian linear experts",
    "003": "Graph-aided online multi-kernel learning",
    "004": "Additive and sparse models (Zhang, ch. 10)",
    "all": "Cross-paper leaderboard",
}
_PAGE = {"000": "paper000.html", "001": "paper001.html", "002": "paper002.html", "003": "paper003.html",
         "004": "paper004.html", "all": "leaderboard.html"}


# Figures, causes and scored forms are declared per paper in omkl_core.repro.papers (one home).
FIGURES, CAUSES = papers.FIGURES, papers.CAUSES


# ----------------------------------------------------------------------------- HTML pieces
_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d232b;background:#fbfbfc;
line-height:1.45}
header{background:#1f3b57;color:#fff;padding:.6em 1.2em}header a{color:#fff;margin-right:1em;text-decoration:none}
header a:hover{text-decoration:underline}header .brand{font-weight:700;margin-right:1.5em}
main{padding:1em 1.6em;max-width:1400px}h1{font-size:1.6em;margin:.3em 0 .6em}h2{margin-top:1.6em;font-size:1.3em}
.quick{background:#fff3cd;border:2px solid #e0a800;padding:.6em 1em;margin:.6em 0;font-weight:600}
.stamp{color:#555;font-size:.9em}.muted{color:#666}code{background:#eef0f3;padding:0 .25em;border-radius:3px;
font-size:.92em}
table{border-collapse:collapse;margin:.6em 0;font-size:.92em}th,td{border:1px solid #c9cdd3;padding:.3em .5em;
vertical-align:top}th{background:#eef1f5;text-align:left}
table.paper td.cell{min-width:8.5em;text-align:right}td.cell .pub{display:block;color:#333}
td.cell .ours{display:block;font-weight:600}td.cell .ratio{display:block;font-size:.82em;color:#444}
td.yes{background:#d9f2dc}td.no{background:#f9d6d2}td.nc{background:#eceef1;color:#555}td.none{background:#fff}
.t0{background:#c6ecc9}.t1{background:#dcf3de}.t2{background:#fbf1c7}.t3{background:#fde0c2}.t4{background:#f9d6d2}
td.cell .tier{display:block;font-size:.82em;font-weight:600}
td.cell .quickval{display:block;font-size:.82em;color:#5b4a00;border-top:1px dashed #b9a04a;margin-top:.2em}
td.unstable{background:#fde8e6}
td.timing{background:#eef3fb}
.badge{display:inline-block;padding:0 .45em;border-radius:.7em;font-size:.85em;font-weight:600}
.b-yes,.b-passed{background:#cdeccf;color:#14532d}.b-no,.b-failed,.b-error{background:#f6c9c3;color:#7f1d1d}
.b-nc,.b-skipped,.b-notrun{background:#e3e5e8;color:#333}.b-print{background:#e3ecf7;color:#1f3b57}
figure{margin:1.2em 0;padding:.8em;background:#fff;border:1px solid #d5d9de;max-width:1150px}
figure img{max-width:100%;height:auto}figcaption{margin-top:.5em}
.legend span{display:inline-block;padding:.1em .6em;margin-right:.5em;border:1px solid #c9cdd3}
.cause{margin:.4em 0 .8em}.small{font-size:.85em}.scroll{overflow-x:auto}
"""


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _fmt(x: float, digits: int = 4) -> str:
    if not math.isfinite(x):
        return ""
    return f"{x:.{digits}g}"


def _badge(v: str) -> str:
    cls = {"yes": "yes", "no": "no", NOT_COMPUTED: "nc", "passed": "passed", "failed": "failed", "error": "error",
           "skipped": "skipped", "not run": "notrun", "unknown": "notrun"}.get(v, "nc")
    return f'<span class="badge b-{cls}">{_e(v)}</span>'


def _md_inline(text: str) -> str:
    """Escape ``text`` and render markdown's inline code, bold and italics (THEORY.md cells)."""
    parts = re.split(r"(`[^`]*`)", text)
    out = []
    for p in parts:
        if p.startswith("`") and p.endswith("`") and len(p) > 1:
            out.append(f"<code>{_e(p[1:-1])}</code>")
        else:
            s = _e(p)
            s = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", s)
            s = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"<em>\1</em>", s)
            out.append(s)
    return "".join(out)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"


class _Site:
    """What the pages share: the results folder, the mode, the stamps, the scorecard rows."""

    def __init__(self, results: Path, out: Path, committed_folder: Path | None = None):
        self.results, self.out = results, out
        self.stamp = _json(results / "scorecard.stamp.json")
        modes = {_json(p).get("mode") for p in (results / "tables").glob("*.stamp.json")} - {None}
        self.mode = self.stamp.get("mode") or (modes.pop() if len(modes) == 1 else "unspecified")
        if results.name == "quick" and self.mode == "unspecified":
            self.mode = "quick"
        self.quick = self.mode == "quick"
        #: every count the pages print (:mod:`omkl_core.repro.counts`: one source)
        self.counts = _counts.of(results)
        self.tables = sorted(self.counts.number_tables + self.counts.timing_tables)
        self.figures = list(self.counts.figures)
        # the merged scorecard's rows: verdicts (a quick run's already *not computed at full size*),
        # causes filled; the speed claims of scorecard_timing.csv have ``timing`` True
        self.rows = [dict(r) for r in self.counts.rows]
        folder = committed.FOLDER if committed_folder is None else committed_folder
        #: this report is the committed full run's own
        self.is_committed = folder.is_dir() and results.resolve() == folder.resolve()
        #: the committed full run, beside a quick run (its rows and counts; None when absent)
        self.full = _counts.of(folder) if self.quick and committed.exists(folder) else None
        self.full_stamp = _json(folder / "scorecard.stamp.json") if self.full is not None else {}
        self.full_rows = {(r["paper"].zfill(3), r["item"], r["row"], r["column"]): r
                          for r in (self.full.rows if self.full is not None else ())}
        #: beside a quick run, the committed full run's tables folder and the tables it holds (by name)
        self.full_folder = folder if self.full is not None else None
        #: the committed full run's tables a quick report shows (on its tables page, before this run's
        #: copy): the ablation, variant and investigation tables and every table a cause names
        named = {t for c in (*papers.CAUSES, *papers.INVESTIGATIONS) for t in c.evidence}
        self.full_tables = sorted(
            t for t in (p.name[:-4] for p in (folder / "tables").glob("*.csv") if self.full is not None)
            if "timing" not in t.split("_") and (t in named or re.search(r"ablation|variant|investigation", t)))
        self.age = committed.age(folder) if committed.exists(folder) else None
        self.junit_path = next((p for p in (results / "junit.xml", results.parent / "junit.xml") if p.is_file()), None)
        self.outcomes, self.junit = junit_outcomes(self.junit_path) if self.junit_path else ({}, {})
        stored = _json(results / "theory_outcomes.json")      # a committed run keeps its test run's outcomes
        if not self.junit and stored:
            self.outcomes, self.junit = stored.get("outcomes", {}), stored.get("summary", {})
            self.junit_path = results / "theory_outcomes.json"

    # --- page frame
    def page(self, name: str, title: str, body: str) -> None:
        label = " (quick run)" if self.quick else ""
        nav = [("index.html", "Overview")] + [(_PAGE[p], f"Paper {p}" if p != "all" else "Leaderboard")
                                                for p in _PAGE] + [
            ("errata.html", "Errata"), ("theory.html", "Theory"), ("numbers.html", "Hashes & verify"),
            ("timing.html", "Timing"), ("tables.html", "All tables")]
        banner = ""
        if self.quick:
            shown = ("the published tables show the committed full run's values and tiers, this run's values "
                     "beneath them, and the claims are the full run's" if self.full is not None else
                     f"every published-vs-reproduced cell is marked “{NOT_COMPUTED}”")
            banner = ('<div class="quick">QUICK RUN: small horizons (a smoke test of every notebook). '
                      f"Its numbers are not a reproduction of the papers and judge nothing; {shown}. Full results: "
                      "<code>./reproduce.sh</code> without <code>--quick</code>.</div>")
        doc = (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
               f'<meta name="viewport" content="width=device-width, initial-scale=1">'
               f"<title>{_e(title)}{label} — omkl reproduction report</title><style>{_CSS}</style></head><body>"
               f'<header><span class="brand">omkl reproduction{_e(label)}</span>'
               + "".join(f'<a href="{h}">{_e(t)}</a>' for h, t in nav) + "</header><main>"
               + banner + f"<h1>{_e(title)}{_e(label)}</h1>" + body + self.footer() + "</main></body></html>\n")
        (self.out / name).write_text(doc, encoding="utf-8")

    def footer(self) -> str:
        s = self.stamp
        if not s:
            return '<p class="stamp">No scorecard stamp in this results folder.</p>'
        return (f'<hr><p class="stamp">Run: <b>{_e(s.get("mode", "?"))}</b> mode · {_e(s.get("date", "?"))} · '
                f'commit <code>{_e(s.get("commit", "?"))}</code> · {_e(s.get("machine", "?"))}</p>')

    # --- whose numbers: beside a quick run, every number says which run it comes from
    def full_run_label(self) -> str:
        """``the committed full run (commit …, date)`` (HTML)."""
        s = self.full_stamp
        return (f"the committed full run (commit <code>{_e(s.get('commit', '?'))}</code>, {_e(s.get('date', '?'))}; "
                "<code>reproduction/</code>)")

    # --- links
    def table_link(self, name: str, *, full: bool = False) -> str:
        """A link to table ``name`` on the tables page: this run's, or with ``full`` (a quick report's
        text that comes from the committed full run) the committed full run's copy where it has one."""
        if full and self.quick and name in self.full_tables:
            return (f'<a href="tables.html#t-full-{_e(name)}"><code>{_e(name)}</code></a> '
                    '<span class="small muted">(committed full run)</span>')
        if name in self.tables:
            page = "timing.html" if "timing" in name.split("_") else "tables.html"
            whose = ' <span class="small muted">(this quick run\'s)</span>' if full and self.quick else ""
            return f'<a href="{page}#t-{_e(name)}"><code>{_e(name)}</code></a>{whose}'
        return f'<code>{_e(name)}</code> <span class="muted">(not in this run)</span>'

    def evidence_link(self, item: str, *, full: bool = False) -> str:
        if re.fullmatch(r"E\d{3}-\d+", item):
            return f'<a href="errata.html#{_e(item)}">erratum {_e(item)}</a>'
        if item.startswith("tests/"):
            return f"<code>{_e(item)}</code> {_badge(_outcome(item, self.outcomes))}"
        return self.table_link(item, full=full)

    def linkify(self, text: str, *, full: bool = False) -> str:
        """Escape a note and link the table names and erratum ids it names (``full``: the note is the
        committed full run's, beside a quick run: its tables are linked, :meth:`table_link`)."""
        out = _e(text)
        names = set(self.tables) | (set(self.full_tables) if full and self.quick else set())
        for name in sorted(names, key=len, reverse=True):
            out = re.sub(rf"(?<![\w>#-]){re.escape(name)}(?![\w<])",
                         lambda m, n=name: self.table_link(n, full=full), out)
        return re.sub(r"\b(E\d{3}-\d+)\b", r'<a href="errata.html#\1">\1</a>', out)


# ----------------------------------------------------------------------------- published tables
def _published():
    return paper_values._all()


def _ablation_rows(site: _Site, paper: str, table: str, *, full: bool = False) -> list[dict]:
    """The ablation rows of a published table (the other forms, never scored): the records of
    ``paper{P}_table{K}_ablations`` (columns ``form, algorithm, dataset, mse_x1e3, sd, n_runs,
    published, ratio``), written by the paper's notebook; ``full``: the committed full run's
    (beside a quick run; none when there is no committed run)."""
    folder = site.full_folder if full else site.results
    if folder is None:
        return []
    path = folder / "tables" / f"paper{paper}_table{table}_ablations.csv"
    return _records(path) if path.is_file() else []


#: The caption of a quick run's own numbers on a page that also shows the committed full run's.
QUICK_CAPTION = "this quick run (short horizon; not comparable with the published cells)"


def _ablation_table(abl: list[dict], cols: list[str]) -> str:
    keys = list(dict.fromkeys((r.get("form", ""), r.get("algorithm", "")) for r in abl))
    by = {(r.get("form", ""), r.get("algorithm", ""), r.get("dataset", "")): r for r in abl}
    trs = []
    for form, alg in keys:
        tds = []
        for c in cols:
            r = by.get((form, alg, c))
            if r is None:
                tds.append("<td></td>")
                continue
            m_, sd_, ratio_ = _float(r.get("mse_x1e3")), _float(r.get("sd")), _float(r.get("ratio"))
            tds.append(f'<td class="cell">{_fmt(m_)}{" ± " + _fmt(sd_, 3) if math.isfinite(sd_) and sd_ > 0 else ""}'
                       f'<span class="ratio">×{ratio_:.2f}</span></td>')
        trs.append(f"<tr><th>{_e(alg)}</th><td class='small'>{_e(form)}</td>{''.join(tds)}</tr>")
    col_heads = "".join(f"<th>{_e(c)}</th>" for c in cols)
    return (f'<div class="scroll"><table class="paper"><tr><th>row</th><th>form</th>{col_heads}'
            f"</tr>{''.join(trs)}</table></div>")


def _ablations_html(site: _Site, paper: str, table: str, cols: list[str]) -> str:
    """The ablation rows of a published table. Beside a quick run, each table says whose numbers it
    holds: the committed full run's first (where it has the table), then this quick run's."""
    name = f"paper{paper}_table{table}_ablations"
    abl = _ablation_rows(site, paper, table)
    full = _ablation_rows(site, paper, table, full=True) if site.quick else []
    if not abl and not full:
        return ""
    out = ["<h2>Ablation rows: the other forms (shown, never scored)</h2><p>Each row is another form of a "
           "published row (the paper's text where the code is scored, the authors' code where the text is "
           "scored, or a reading the text leaves open), with its ratio to the published value.</p>"]
    if not site.quick:
        return out[0] + f"<p class='small'>Source: {site.table_link(name)}.</p>" + _ablation_table(abl, cols)
    if full:
        out.append(f"<h3>The committed full run</h3><p class='small'>The numbers of {site.full_run_label()}, the "
                   f"run the cells' tiers and the causes above come from. Source: {site.table_link(name, full=True)}."
                   "</p>" + _ablation_table(full, cols))
    if abl:
        out.append(f"<h3>This quick run</h3><p class='small quicklabel'><b>{_e(QUICK_CAPTION[0].upper() + QUICK_CAPTION[1:])}"
                   "</b>: the same forms on the quick notebook's short horizon; their ratios to the published "
                   "values judge nothing" + ("" if full else " (no committed full run in this checkout to show "
                                                              "beside them)")
                   + f". Source: {site.table_link(name)}.</p>" + _ablation_table(abl, cols))
    return "".join(out)


def _timing_cells(site: _Site, paper: str, table: str) -> dict:
    path = site.results / "tables" / f"paper{paper}_table{table}_timing.csv"
    if not path.is_file():
        return {}
    return {r["algorithm"]: _float(r.get("cpu_s_one_run")) for r in _records(path) if "algorithm" in r}


#: The mark of a cell whose tier rests on one deterministic run (sd 0, so a noise band of 0).
DETERMINISTIC = "(one deterministic run: band 0)"

#: CSS class of each tier (best first), of a quick run's cell and of a missing one.
_TIER_CLASS = {**{t: f"t{i}" for i, t in enumerate(verdicts.TIERS)}, NOT_COMPUTED: "nc"}


def _table_page(site: _Site, paper: str, table: str, pub) -> dict:
    """Write ``paperNNN_tableK.html``; return the tier counts of its cells (:func:`report.tier_counts`)."""
    sub = pub[(pub["paper"] == paper) & (pub["table"] == table)]
    mse = sub[sub["metric"] == "mse"]
    rows = list(dict.fromkeys(mse["algorithm"]))
    cols = list(dict.fromkeys(mse["dataset"]))
    unit = mse["unit"].iloc[0] if len(mse) else ""
    runtime = sub[sub["metric"] == "runtime"]
    item = f"Table {table}"
    sc = {(r["row"], r["column"]): r for r in site.rows
          if r["paper"].zfill(3) == paper and r["item"] == item and r.get("kind") == report.CELL and not r["timing"]}
    timing = _timing_cells(site, paper, table)
    shown: list[dict] = []
    investigated: dict = {}
    deterministic: list[str] = []          # the rows of the cells marked DETERMINISTIC
    # the verdict and cause a cell shows: its own, or beside a quick run the committed full run's
    judged = {k: site.full_rows.get((paper, item, *k), r) if site.quick else r for k, r in sc.items()}
    causes_used: dict[str, Cause] = {c.key: c for c in CAUSES
                                     if any(r.get("cause") == c.key for r in judged.values())}

    def cell(row: str, col: str, published: float) -> str:
        r = sc.get((row, col))
        if r is None:
            shown.append({"kind": report.CELL, "verdict": "missing", "cause": ""})
            return (f'<td class="cell none" title="no scorecard row for this cell in this run">'
                    f'<span class="pub">published {_fmt(published)}</span><span class="ours muted">not run</span></td>')
        shown.append(r)
        quick_mean = _float(r["reproduced_mean"])
        f = judged[(row, col)] if site.quick and judged[(row, col)] is not r else None
        j = f if f is not None else r                      # the row whose numbers and verdict are shown
        mean, sd, n, v = _float(j["reproduced_mean"]), _float(j["reproduced_sd"]), j.get("n_runs", ""), j["verdict"]
        ratio = mean / published if published and math.isfinite(mean) else math.nan
        band = _float(j.get("noise_band"))
        sd_txt = f" ± {_fmt(sd, 3)}" if math.isfinite(sd) and sd > 0 else ""
        who = "full run" if f is not None else ("quick" if site.quick else "ours")
        tip = (f"ratio reproduced/published = {ratio:.4f}; |mean − published| = {abs(mean - published):.4g}, "
               f"noise band ± {band:.4g}; tier: {v}. {verdicts.TIER_RULE}")
        extra = ""
        if f is not None:
            tip = (f"The committed full run (commit {site.full_stamp.get('commit', '?')}): {tip} This quick run: "
                   f"{_fmt(quick_mean)} on its short horizon, not judged.")
            q_ratio = quick_mean / mean if mean and math.isfinite(quick_mean) else math.nan
            extra = (f'<span class="quickval">quick {_fmt(quick_mean)}'
                     + (f" (×{q_ratio:.2f} of full)" if math.isfinite(q_ratio) else "") + "</span>")
            v_shown = f"full run: {v}"
        elif v == NOT_COMPUTED:
            tip = "quick run: computed on a short horizon only, not judged (no committed full run to compare with)."
            v_shown = v
        else:
            v_shown = v
        link = ""
        cause = j.get("cause", "")
        if cause == verdicts.UNEXPLAINED:
            found = papers.investigations_for(paper, table, row, col)
            for c in found:
                investigated[c.key] = c
            link = ('<span class="small"><b>unexplained</b> (no measured cause)</span>'
                    + "".join(f' <a class="small" href="#cause-{_e(c.key)}">investigated: {_e(c.key)}</a>' for c in found))
        elif cause:
            grade = j.get("grade", "")
            found = papers.investigations_for(paper, table, row, col)     # also measured for this cell
            for c in found:
                investigated[c.key] = c
            link = (f'<a class="small" href="#cause-{_e(cause)}">cause: {_e(cause)}</a>'
                    + (f' <span class="small">({_e(grade)})</span>' if grade else "")
                    + "".join(f' <a class="small" href="#cause-{_e(c.key)}">also investigated: {_e(c.key)}</a>'
                              for c in found))
        gap = f", {100 * (ratio - 1):+.1f} %" if math.isfinite(ratio) else ""
        if v == verdicts.WITHIN_NOISE and math.isfinite(ratio) and abs(ratio - 1) > verdicts.REL_TIERS[0][1]:
            gap += " (band ± " + _fmt(band) + ")"
        elif v != NOT_COMPUTED and math.isfinite(band) and band == 0 and str(n).split(".")[0] == "1":
            gap += " " + DETERMINISTIC
            deterministic.append(row)
        return (f'<td class="cell {_TIER_CLASS.get(v, "none")}" title="{_e(tip)}">'
                f'<span class="pub">published {_fmt(published)}</span>'
                f'<span class="ours">{who} {_fmt(mean)}{sd_txt}</span>'
                f'<span class="ratio">×{ratio:.2f}{_e(gap)}{" (n = " + _e(n) + ")" if n else ""}</span>'
                f'<span class="tier">{_e(v_shown)}</span>{link}{extra}</td>')

    values = {(r.algorithm, r.dataset): float(r.value) for r in mse.itertuples(index=False)}
    head = "".join(f"<th>{_e(c)}</th>" for c in cols)
    rt = {r.algorithm: float(r.value) for r in runtime.itertuples(index=False)}
    if rt:
        head += "<th>run time (s)</th>"
    body = []
    for row in rows:
        tds = "".join(cell(row, c, values[(row, c)]) if (row, c) in values else "<td></td>" for c in cols)
        if rt:
            ours_t = timing.get(row, math.nan)
            t_txt = ((("quick run: " if site.quick else "") + _fmt(ours_t, 3) + " s CPU") if math.isfinite(ours_t)
                     else "not timed")
            tds += (f'<td class="cell timing" title="times are not judged">'
                    f'<span class="pub">published {_fmt(rt.get(row, math.nan))} s</span>'
                    f'<span class="ours">{t_txt}</span>'
                    "</td>")
        body.append(f"<tr><th>{_e(row)}</th>{tds}</tr>")
    forms = [f for f in papers.PAPERS[paper].forms if re.fullmatch(f.table, table)] if paper in papers.PAPERS else []
    form_html = ""
    if forms:
        form_html = "<h2>Scored form</h2><ul>" + "".join(
            f"<li><b>{_e(', '.join(r for r in rows if re.fullmatch(f.rows, r)))}</b>: {_e(f.form)}. <i>{_e(f.quote)}</i>"
            + (" Other forms (ablations, never scored): " + site.linkify("; ".join(f.ablations)) if f.ablations else "")
            + "</li>" for f in forms) + "</ul>"
    ablations = _ablations_html(site, paper, table, cols)
    legend = ('<p class="legend">' + "".join(
        f'<span class="{_TIER_CLASS[t]}" style="display:inline-block">{_e(t)}</span>' for t in verdicts.TIERS)
        + f'<span class="nc" style="display:inline-block">{NOT_COMPUTED}</span>'
        + '<span style="background:#eef3fb">time (not judged)</span></p>')
    if deterministic:
        legend += ("<p class='small'>" + _e(f"A cell marked “{DETERMINISTIC}” ({', '.join(dict.fromkeys(deterministic))} "
                   "here) is a single run of a learner that draws nothing at random (sd 0), so its noise band is 0: "
                   "it is “within noise” only where it equals the published value, and even a gap of a fraction of a "
                   "per cent reads “≤ 5 %”, where a randomised row's band (from its sd over its runs) can cover it.")
                   + "</p>")
    what = (f"<p>Published value (paper {paper}, Table {table}, MSE {_e(unit.replace('x1e-3', '× 10³'))}) above our "
            "mean ± sd over repetitions; beneath it the ratio reproduced / published, the number of repetitions and "
            f"the tier (hover a cell for the numbers). {_md_inline(verdicts.TIER_RULE)}</p>")
    counts = report.tier_counts([r for r in shown if r["verdict"] != "missing"])
    missing = sum(r["verdict"] == "missing" for r in shown)
    if site.quick and site.full is not None:
        full_counts = report.tier_counts([r for k, r in judged.items()])
        what += (f"<p><b>Quick run:</b> each cell shows the <b>committed full run</b>'s mean ± sd, ratio and tier "
                 f"(commit <code>{_e(site.full_stamp.get('commit', '?'))}</code>, {_e(site.full_stamp.get('date', '?'))}; "
                 "the colour is its tier) and, beneath, this quick run's value on its short horizon with its ratio "
                 "to the full run's; the quick run judges nothing. The full run's tiers in this table: "
                 + ", ".join(f"{full_counts[t]} {t}" for t in verdicts.TIERS) + "." + _beyond(list(judged.values()))
                 + "</p>")
    elif site.quick:
        what += (f"<p><b>Quick run:</b> the values are from the quick notebook's short horizon and are not judged: "
                 f"every cell is “{NOT_COMPUTED}” (no committed full run in this checkout to show beside them).</p>")
    else:
        what += ("<p><b>This table:</b> " + ", ".join(f"{counts[t]} {t}" for t in verdicts.TIERS)
                 + (f", {missing} not run" if missing else "") + "."
                 + _beyond([r for r in shown if r["verdict"] != "missing"]) + "</p>")
    causes = ""
    full_run = site.quick and site.full is not None        # the causes beside a quick run: the full run's
    whose = (f"<p class='small'><b>From the committed full run:</b> these texts, grades and the tables they are "
             f"measured in are those of {site.full_run_label()}, the run the cells' tiers come from; the "
             "links open its tables (this quick run's short-horizon copies are on the tables page).</p>"
             if full_run else "")
    if causes_used:
        items = []
        graded = (site.full_stamp if site.quick else site.stamp).get("causes", {})
        for c in causes_used.values():
            g = graded.get(c.key, {})
            grade = (f" <b>Grade: {_e(g['grade'])}</b> ({'the committed full run: ' if site.quick else ''}the named form "
                     f"lands within noise or ≤ 5 % on {g['landed']} of the {g['cells']} cells it covers; mean relative "
                     f"gap {g['gap_before']:.1%} in the scored form, {g['gap_after']:.1%} in this form; rule: "
                     "omkl_core/repro/verdicts.py)." if g else "")
            items.append(f'<div class="cause" id="cause-{_e(c.key)}"><b>{_e(c.key)}</b>: {_e(c.text)}{grade} Measured in: '
                         + ", ".join(site.evidence_link(x, full=full_run) for x in c.evidence) + "</div>")
        causes = ("<h2>Measured causes of the misses" + (" (the committed full run's)" if full_run else "") + "</h2>"
                  + whose + "".join(items))
    if investigated:
        causes += ("<h2>Investigations (what was measured; no cause of their own)"
                   + (" (the committed full run's)" if full_run else "") + "</h2>"
                   + (whose if not causes_used else "") + "".join(
            f'<div class="cause" id="cause-{_e(c.key)}"><b>{_e(c.key)}</b>: {_e(c.text)} Measured in: '
            + ", ".join(site.evidence_link(x, full=full_run) for x in c.evidence) + "</div>" for c in investigated.values()))
    claims = _claims_html(site, [r for r in _claim_rows(site, paper) if r["item"].startswith(("Table", "Tables"))])
    body_html = (what + legend + f'<div class="scroll"><table class="paper"><tr><th>{_e(paper)} · Table {_e(table)}</th>'
                 f"{head}</tr>{''.join(body)}</table></div>" + form_html + causes + ablations
                 + ("<h2>Claims about this table</h2>" + claims if claims else ""))
    site.page(f"paper{paper}_table{table}.html", f"Paper {paper}, Table {table}", body_html)
    if site.quick and site.full is not None:          # the summaries beside a quick run: the full run's tiers
        counts = {**report.tier_counts(list(judged.values())), "full_run": True}
    counts["missing"] = missing
    return counts


# ----------------------------------------------------------------------------- claims and figures
def _published_claims(paper: str) -> list[dict]:
    if paper == "000":
        return claims.paper000_table2_claims_published()
    if paper == "003":
        return claims.paper003_table_claims_published()
    return []


def _claim_rows(site: _Site, paper: str) -> list[dict]:
    """The claim rows of ``paper`` in the scorecard, plus the checks of the printed numbers (kind
    ``printed``) that the run did not write: those need no run and are evaluated here. Beside a
    quick run (which judges no claim) the committed full run's rows, marked ``full_run``."""
    source = site.rows
    if site.quick and site.full is not None:
        source = [{**r, "full_run": True} for r in site.full.rows]
    rows = [r for r in source if r["paper"].zfill(3) == paper.zfill(3) and r["column"] == "claim" and not r["timing"]]
    seen = {r["row"] for r in rows}
    for c in _published_claims(paper):
        if c["row"] not in seen:      # evaluated on the printed numbers: no run needed, no quick caveat
            rows.append({**{k: str(v) for k, v in c.items()}, "verdict": c["verdict"],
                         "section": "published numbers (evaluated by the report)", "timing": False})
    return rows


#: The claim kinds in the order the pages list them, with their headings.
_KIND_HEADINGS = (("paper", "The paper's claims, judged on our numbers"),
                  ("project", "This project's own claims"),
                  ("printed", "Checks of the printed numbers against the paper's text (no run of ours; never “holds”)"))


def _claims_html(site: _Site, rows: list[dict]) -> str:
    """The claim rows, one table per kind (:data:`_KIND_HEADINGS`)."""
    if not rows:
        return ""
    out = []
    if any(r.get("full_run") for r in rows):
        out.append(f"<p class='small'><b>Verdicts of the committed full run</b> (commit "
                   f"<code>{_e(site.full_stamp.get('commit', '?'))}</code>, {_e(site.full_stamp.get('date', '?'))}): "
                   "a quick run judges no claim.</p>")
    for kind, heading in _KIND_HEADINGS:
        mine = [r for r in rows if r.get("kind") == kind]
        if not mine:
            continue
        trs = "".join(f"<tr><td>{_e(r['item'])}</td><td>{_e(r['row'])}</td><td>{_holds(r)}</td>"
                      f"<td class='small'>{site.linkify(r.get('note', ''), full=bool(r.get('full_run')))}</td></tr>" for r in mine)
        out.append(f"<h3>{_e(heading)}</h3><table><tr><th>item</th><th>claim</th><th>verdict</th><th>measured</th>"
                   f"</tr>{trs}</table>")
    return "".join(out)


def _holds(r: dict) -> str:
    v = r["verdict"]
    if v == "holds":
        return '<span class="badge b-yes">holds</span>'
    if v == "fails":
        return '<span class="badge b-no">fails</span>'
    if v in verdicts.CLAIM_WORDS["printed"]:
        return f'<span class="badge b-print">{_e(v)}</span>'
    return _badge(v)


def _figure_html(site: _Site, name: str) -> str:
    fig = FIGURES.get(name)
    src = _e("figures/" + urllib.parse.quote(f"{name}.png"))      # a file name is data: quoted, then escaped
    if fig is None:
        cap = f"<b>{_e(name)}</b>: <span class='muted'>no caption registered (omkl_core.repro.html_report.FIGURES)</span>"
        return f'<figure id="f-{_e(name)}"><img src="{src}" alt="{_e(name)}"><figcaption>{cap}</figcaption></figure>'
    cap = f"<b>{_e(name)}</b>. {_e(fig.shows)}"
    if site.quick:
        cap += f" <br><b>The figure: {_e(QUICK_CAPTION)}.</b>"
    claims = [r for r in _claim_rows(site, fig.paper) if any(r["item"].startswith(p) for p in fig.claims)]
    if fig.claims:
        if claims:
            ours = [r for r in claims if r.get("kind") != "printed"]
            pub = [r for r in claims if r.get("kind") == "printed"]
            parts = []
            mine = "The committed full run" if any(r.get("full_run") for r in ours) else "On our run"
            for label, rs in ((mine, ours), ("The printed numbers (no run of ours)", pub)):
                if rs:
                    parts.append(f"<br><b>{label}:</b> " + "; ".join(f"{_e(r['row'])} {_holds(r)}" for r in rs))
            cap += "".join(parts)
        else:
            cap += (" <br><b>Claims:</b> not judged in this run"
                    + (" (a quick run judges no claim, and there is no committed full run to show)." if site.quick
                       else "."))
    return (f'<figure id="f-{_e(name)}"><img src="{src}" alt="{_e(fig.shows[:120])}" loading="lazy">'
            f"<figcaption>{cap}</figcaption></figure>")


def _paper_of_figure(name: str) -> str:
    if name in FIGURES:
        return FIGURES[name].paper
    m = re.match(r"paper(\d{3})_", name)
    return m.group(1) if m else "all"


def _paper_of_table(name: str) -> str:
    m = re.match(r"paper(\d{3})_", name)
    if m:
        return m.group(1)
    return "000" if name == "table_datasets" else "all"


# ----------------------------------------------------------------------------- pages
def _paper_page(site: _Site, paper: str, tables_summary: dict) -> None:
    title = f"Paper {paper}: {PAPER_TITLES[paper]}" if paper != "all" else PAPER_TITLES["all"]
    parts = []
    if paper in errata.PAPERS:
        parts.append(f"<p class='muted'>{_e(errata.PAPERS[paper])}</p>")
    pubs = [(t, c) for (p, t), c in tables_summary.items() if p == paper]
    if pubs:
        lis = "".join(f'<li><a href="paper{paper}_table{t}.html">Table {_e(t)}</a>: {_summary_line(c, site)}</li>'
                      for t, c in pubs)
        parts.append(f"<h2>Published tables, laid out as printed</h2><ul>{lis}</ul>")
    elif paper == "all":
        parts.append("<p>The leaderboard runs the learners of every paper, River's regressors and their mixtures "
                     "under one protocol. No paper prints it, so no cell is scored against a published number; "
                     "its claims are this project's own, below.</p>")
    else:
        parts.append("<p>This paper prints no table of numbers to compare with; its results are checked by the "
                     "tests of the <a href='theory.html'>theory register</a> and the tables below.</p>")
    claims = _claims_html(site, _claim_rows(site, paper))
    if claims:
        parts.append("<h2>Claims</h2>" + claims)
    speed = [r for r in site.rows if r["timing"] and r["paper"].zfill(3) == paper.zfill(3)]
    if speed:
        parts.append(f"<p>{len(speed)} speed claim(s), judged from measured CPU time apart from the numbers: "
                     "<a href='timing.html'>timing page</a>.</p>")
    order = {name: i for i, name in enumerate(FIGURES)}
    figs = sorted((f for f in site.figures if _paper_of_figure(f) == paper), key=lambda f: (order.get(f, len(order)), f))
    if figs:
        parts.append("<h2>Figures</h2>" + "".join(_figure_html(site, f) for f in figs))
    errs = [e for e in errata.ERRATA if e.paper == paper]
    if errs:
        parts.append("<h2>Errata</h2><ul>" + "".join(
            f'<li><a href="errata.html#{e.id}">{e.id}</a>: {_e(e.item)} ({_e(e.kind)})</li>' for e in errs) + "</ul>")
    tabs = [t for t in site.tables if _paper_of_table(t) == paper]
    if tabs:
        parts.append("<h2>Tables of this run</h2><ul>" + "".join(f"<li>{site.table_link(t)}</li>" for t in tabs)
                     + "</ul>")
    site.page(_PAGE[paper], title, "".join(parts))


def _beyond(rows: list) -> str:
    """The cells within noise but more than 5 % off, and the cells beyond 5 % by the grade of their cause."""
    t = report.tier_counts(rows)
    wide, why = _counts.wide_noise(rows)
    out = f" {wide} {verdicts.WIDE_NOISE} ({why})." if wide else ""
    parts = [f"{k}: {_counts.explained_phrase(rows, k)}" for k in _counts.EXPLAINED_TIERS if t.get(k)]
    return out + (" Beyond 5 %, by the grade of their measured cause — " + "; ".join(parts) + "." if parts else "")


def _summary_line(c: dict, site: _Site) -> str:
    """One table's cells in words: the count per tier (a quick run: not computed)."""
    judged = sum(c[t] for t in verdicts.TIERS)
    if c.get("full_run") and judged:
        return "full run: " + ", ".join(f"{c[t]} {t}" for t in verdicts.TIERS if c[t]) + (
            f"; {c['unexplained']} unexplained miss{'es' * (c['unexplained'] != 1)}" if c["unexplained"] else "")
    if site.quick or judged == 0:
        return f"{c['cells'] + c.get('missing', 0)} cells, {NOT_COMPUTED}" + (" (quick run)" if site.quick else "")
    return (", ".join(f"{c[t]} {t}" for t in verdicts.TIERS if c[t])
            + (f"; {c['unexplained']} unexplained miss{'es' * (c['unexplained'] != 1)}" if c["unexplained"] else "")
            + (f"; {c['missing']} not run" if c.get("missing") else ""))


_MEAN_SD = re.compile(r"([+-]?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?) ± (\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)")


def _render_csv(site: _Site, name: str, *, full: bool = False) -> str:
    """Table ``name`` of this run, or with ``full`` the committed full run's (beside a quick run).
    Beside a quick run each says whose it is."""
    path = (site.full_folder if full else site.results) / "tables" / f"{name}.csv"
    cols, rows = _read_csv(path)
    stamp = _json(path.with_name(f"{name}.stamp.json"))

    def fmt(v: str) -> str:
        x = _float(v)
        if v and math.isfinite(x) and re.search(r"[.eE]", v):
            return _e(_fmt(x))
        return _e(v)

    st = (f"{_e(stamp.get('mode', '?'))} · {_e(stamp.get('date', '?'))} · commit <code>{_e(stamp.get('commit', '?'))}</code>"
          + (f" · numbers hash <code>{_e(stamp['numbers_sha256'][:16])}…</code>" if stamp.get("numbers_sha256") else ""))
    head = "".join(f"<th>{_e(c)}</th>" for c in cols)
    unstable = 0

    def td(v: str) -> str:
        nonlocal unstable
        m = _MEAN_SD.fullmatch(v.strip())
        if m and float(m.group(2)) > abs(float(m.group(1))):
            unstable += 1
            return (f'<td class="unstable" title="sd larger than the mean: some repetitions diverged or differ by '
                    f'orders of magnitude">{fmt(v)} ⚠</td>')
        return f"<td>{fmt(v)}</td>"

    body = "".join("<tr>" + "".join(td(v) for v in r) + "</tr>" for r in rows)
    note = (f'<p class="small">⚠ {unstable} cell(s) with a standard deviation larger than the mean: at least one '
            "repetition diverged or lies orders of magnitude from the others"
            + (" on the quick run's short horizon" if site.quick else "") + "; read the mean with care.</p>"
            if unstable else "")
    if full:
        label = site.full_run_label()
        whose = f"<p class='small'><b>The committed full run</b>{label[len('the committed full run'):]}.</p>"
        anchor = f"t-full-{name}"
    elif site.quick:
        whose, anchor = (f"<p class='small quicklabel'><b>{_e(QUICK_CAPTION[0].upper() + QUICK_CAPTION[1:])}</b>"
                         + (": the committed full run's table is just above." if name in site.full_tables else ".")
                         + "</p>"), f"t-{name}"
    else:
        whose, anchor = "", f"t-{name}"
    title = _e(name) + (" — committed full run" if full else " — this quick run" if site.quick else "")
    return (f'<h2 id="{_e(anchor)}">{title}</h2>{whose}<p class="stamp">{st}</p>'
            f'<div class="scroll"><table><tr>{head}</tr>{body}</table></div>{note}')


def _verdict_html(c: _counts.Counts) -> str:
    lines = _counts.summary_lines(c)
    if not lines:
        return "<p>No scorecard rows in this results folder.</p>"
    return ("<p>" + "<br>".join(_e(line) for line in lines) + f"</p><p class='small'>{_md_inline(verdicts.TIER_RULE)} "
            "Claims are counted apart by kind: "
            + "; ".join(f"<b>{_e(k)}</b>: {_e(v)}" for k, v in report.CLAIM_KIND_LABELS.items()) + ".</p>")


def _index(site: _Site, summaries: dict) -> None:
    s, c = site.stamp, site.counts
    what = ("the committed full run of this repository (<code>reproduction/</code>)" if site.is_committed
            else "this run's results folder")
    parts = [f"<p>The reproduction of five papers on online kernel learning, generated from {what}: each published "
             "table laid out as printed with our values beside the published ones, the figures with their claims, "
             "the errata, the theory register with its tests' outcomes, the number hashes and the timing tables.</p>"]
    age = f"<p class='small'>{_e(site.age.sentence())}</p>" if site.age is not None else ""
    if site.quick and site.full is not None:
        fs = site.full_stamp
        parts.append(f"<h2>Verdict of the committed full run</h2><p class='small'>Full mode, {_e(fs.get('date', '?'))}, "
                     f"commit <code>{_e(fs.get('commit', '?'))}</code>, {_e(fs.get('machine', '?'))}. A quick run "
                     "judges nothing; this is what the full run found.</p>" + _verdict_html(site.full) + age)
        parts.append("<h2>This quick run</h2><p>" + "<br>".join(_e(line) for line in _counts.summary_lines(c))
                     + "</p>")
    elif site.quick:
        parts.append("<h2>Verdict</h2><p>A quick run judges nothing, and this checkout has no committed full run "
                     "(<code>reproduction/</code>) to show. " + "<br>".join(_e(x) for x in _counts.summary_lines(c))
                     + "</p>")
    else:
        parts.append("<h2>Verdict</h2>" + _verdict_html(c) + age)
        if not site.is_committed and site.age is not None:
            theirs = _json(committed.FOLDER / "scorecard.stamp.json").get("numbers_sha256")
            same = theirs == s.get("numbers_sha256")
            parts.append(f"<p class='small'>This run's numbers hash {'equals' if same else 'differs from'} the "
                         "committed full run's.</p>")
    parts.append("<h2>Stamp</h2><table>" + "".join(
        f"<tr><th>{k}</th><td>{_e(s.get(k, 'unknown'))}</td></tr>" for k in ("mode", "date", "commit", "machine"))
        + f"<tr><th>results</th><td><code>{_e(s.get('results') if site.is_committed else site.results)}</code></td></tr>"
        + f"<tr><th>counts</th><td>{_e(_counts.phrase_tables(len(c.number_tables), c.has_scorecard))}, "
          f"{len(c.timing_tables)} timing tables, {len(c.figures)} figures, {len(c.notebooks)} notebooks, "
          f"{c.tiers.get('cells', 0)} published cells</td></tr></table>")
    nb = _json(site.results / "timings.json").get("notebooks", {})
    executed, failed = list(c.notebooks), list(c.failed_notebooks)
    if site.quick:
        parts.append(
            "<h2>What a quick run computes</h2><p>Every notebook runs with <code>quick=True</code>: short horizons "
            "(a few hundred steps) and one or two repetitions. It writes every table and figure below at that "
            "size, the errata and the number hashes (compared with <code>reference/quick</code>). It does not "
            "compute the published tables at full size and judges no claim: each published cell shows the "
            + ("committed full run's value and tier, with this run's short-horizon value beneath."
               if site.full is not None else f"short-horizon value beside the published one, “{NOT_COMPUTED}”.")
            + "</p>")
    rows = "".join(f"<tr><td>{_e(n)}</td><td>{_e(nb.get(n, {}).get('wall_s', ''))}</td>"
                   f"<td>{_e(nb.get(n, {}).get('mode', ''))}</td><td>{_e(nb.get(n, {}).get('finished', ''))}</td></tr>"
                   for n in executed)
    parts.append("<h2>Notebooks executed</h2><table><tr><th>notebook</th><th>wall s</th><th>mode</th>"
                 f"<th>finished</th></tr>{rows}</table>"
                 + (f"<p><b>Failed or interrupted:</b> {_e(', '.join(failed))}</p>" if failed else ""))
    trs = []
    for paper in _PAGE:
        pubs = [(t, c) for (p, t), c in summaries.items() if p == paper]
        cells = "; ".join(f'<a href="paper{paper}_table{t}.html">Table {_e(t)}</a>: {_summary_line(c, site)}'
                          for t, c in pubs) or "no published table"
        cl = _claim_rows(site, paper)
        ctext = []
        for kind, n in report.claim_counts(cl).items():
            if sum(n.values()):
                ctext.append(f"{kind}: " + ", ".join(f"{v} {w}" for w, v in n.items() if v))
        ctext = "<br>".join(_e(t) for t in ctext) or "–"
        nfig = sum(_paper_of_figure(f) == paper for f in site.figures)
        trs.append(f'<tr><td><a href="{_PAGE[paper]}">{_e("Paper " + paper if paper != "all" else "Leaderboard")}'
                   f"</a></td><td>{_e(PAPER_TITLES[paper])}</td><td>{cells}</td><td>{ctext}</td><td>{nfig}</td></tr>")
    whose = " (the committed full run's)" if site.full is not None else ""
    parts.append(f"<h2>Papers</h2><table><tr><th>page</th><th>paper</th><th>published tables{whose}</th>"
                 f"<th>claims{whose}</th><th>figures</th></tr>{''.join(trs)}</table>")
    parts.append("<p><a href='paper000_table2.html'>Paper 000, Table 2</a> · <a href='errata.html'>errata</a> · "
                 "<a href='theory.html'>theory register</a> · <a href='numbers.html'>hashes and verify</a></p>")
    site.page("index.html", "Reproduction report", "".join(parts))


def _errata_page(site: _Site) -> None:
    parts = ["<p>Printed statements of the five papers found false, inconsistent with their own proof or not "
             "usable as printed (registry <code>omkl_core.repro.errata</code>). Each names the tests that show the "
             "printed form failing and the corrected form holding, with their outcome in the last "
             + (f"test run ({_e(site.junit.get('timestamp', ''))})." if site.junit else
                "test run: <b>no JUnit XML found</b> (run <code>./reproduce.sh test</code>).") + "</p>",
             "<p>Kinds: " + "; ".join(f"<b>{_e(k)}</b>: {_e(v)}" for k, v in errata.KINDS.items()) + ".</p>"]
    for paper, ref in errata.PAPERS.items():
        parts.append(f"<h2>Paper {paper}</h2><p class='muted'>{_e(ref)}</p>")
        entries = [e for e in errata.ERRATA if e.paper == paper]
        if not entries:
            parts.append(f"<p>{_e(errata.NO_ERRATA.get(paper, 'No printed error found.'))}</p>")
        for e in entries:
            tests = lambda nodes: "<ul>" + "".join(  # noqa: E731
                f"<li><code>{_e(n)}</code> {_badge(_outcome(n, site.outcomes))}</li>" for n in nodes) + "</ul>"
            parts.append(
                f'<h3 id="{e.id}">{e.id}: {_e(e.item)} <span class="badge b-nc">{_e(e.kind)}</span></h3>'
                f"<p><b>Printed:</b> {_e(e.printed)}</p><p><b>Corrected:</b> {_e(e.corrected)}</p>"
                f"<p><b>Evidence:</b> {_e(e.evidence)}</p><p><b>Printed form fails:</b></p>{tests(e.printed_fails)}"
                f"<p><b>Corrected form holds:</b></p>{tests(e.corrected_holds)}"
                f'<p class="small">THEORY.md row: paper {e.paper}, {_e(e.theory_row)}</p>')
    site.page("errata.html", "Errata of the five papers", "".join(parts))


def _theory_page(site: _Site) -> None:
    path = ROOT / "THEORY.md"
    if not path.is_file():
        site.page("theory.html", "Theory register", "<p>THEORY.md is not available (an installed package).</p>")
        return
    rows = theory_rows(path.read_text(encoding="utf-8"))
    j = site.junit
    if j:
        intro = (f"<p>Outcomes from <code>{_e(site.junit_path.name)}</code>, written by the "
                 f"<code>./reproduce.sh test</code> run at {_e(j.get('timestamp', '?'))} on {_e(j.get('hostname', '?'))}: "
                 f"{j['tests']} tests, {j['failures']} failures, {j['errors']} errors, {j['skipped']} skipped. "
                 "A test that run did not include reads “not run”.</p>")
    else:
        intro = ("<p><b>No test run recorded for this results folder</b> (no <code>junit.xml</code>): the outcomes "
                 "below are unknown here, not failed. <code>./reproduce.sh test</code> records them; the committed "
                 "full run's report carries the outcomes of its test run.</p>")
    unknown = "unknown" if not j else "not run"
    tally = {"passed": 0, "failed": 0, "error": 0, "skipped": 0, unknown: 0, "with a written reason": 0}
    body = []
    for r in rows:
        outs = [(t, _outcome(t, site.outcomes) if j else "unknown") for t in r["tests"]]
        if not outs:
            tally["with a written reason"] += 1
            res = '<span class="badge b-nc">written reason</span>'
        else:
            worst = next((o for o in ("failed", "error", "not run", "unknown", "skipped") if any(x == o for _, x in outs)),
                         "passed")
            tally[worst] += 1
            res = _badge(worst)
        tests = "<br>".join(f"<code>{_e(t.split('::')[1])}</code> {_badge(o)}" for t, o in outs)
        body.append(f'<tr id="{_e(r["paper"])}-{_slug(r["number"])}"><td>{_e(r["paper"])}</td><td>{_md_inline(r["number"])}</td>'
                    f"<td>{_md_inline(r['statement'])}</td><td>{_e(r['kind'])}</td><td>{res}</td>"
                    f"<td class='small'>{tests or _md_inline(r['status'])}</td></tr>")
    summary = ", ".join(f"{v} {k}" for k, v in tally.items() if v)
    how = " (a row's result is its worst test)" if j else " (outcome unknown: no test run recorded)"
    parts = [intro, f"<p>{len(rows)} numbered results: {summary}{how}.</p>",
             '<div class="scroll"><table><tr><th>paper</th><th>number</th><th>statement</th><th>kind</th>'
             f"<th>result</th><th>tests</th></tr>{''.join(body)}</table></div>"]
    site.page("theory.html", "Theory register (THEORY.md)", "".join(parts))


def _numbers_page(site: _Site) -> None:
    s, c = site.stamp, site.counts
    hashes = s.get("tables", {})
    parts = [f"<p>Numbers hash of this run: <code>{_e(s.get('numbers_sha256', 'none'))}</code> (SHA-256 over the "
             f"{_e(_counts.phrase_tables(len(c.number_tables), c.has_scorecard))}: the hash covers the number tables, "
             f"numbers rounded to {report.HASH_DIGITS} significant digits; timing tables excluded). Two runs with the "
             "same hash have the same numbers.</p>"]
    ref_path = ROOT / "reference" / ("quick" if site.quick else "full") / "hashes.json"
    try:
        result, lines = verify.outcome(verify.read_reference(ref_path), verify.current_tables(site.results))
        parts.append(f"<h2>verify</h2><p>{_badge('passed' if result.passed else 'failed')} "
                     f"<code>./reproduce.sh verify{' --quick' if site.quick else ''}</code> against the committed "
                     f"reference <code>reference/{'quick' if site.quick else 'full'}/hashes.json</code> "
                     "says (the same lines as the command):</p>"
                     f"<pre>{_e(chr(10).join(lines[:400]))}</pre>")
    except (OSError, ValueError, KeyError) as exc:
        parts.append(f"<h2>verify</h2><p>{_badge('not run')} not compared: {_e(exc)}</p>")
    if site.age is not None:
        parts.append(f"<h2>The committed full run</h2><p>{_e(site.age.sentence())}</p>")
    trs = "".join(f"<tr><td>{site.table_link(n)}</td><td><code>{_e(h)}</code></td></tr>" for n, h in sorted(hashes.items()))
    parts.append(f"<h2>Per-table hashes</h2><table><tr><th>table</th><th>numbers_sha256</th></tr>{trs}</table>")
    site.page("numbers.html", "Number hashes and verify", "".join(parts))


def _timing_page(site: _Site) -> None:
    parts = ["<p>Times are not reproducible numbers: they live in tables named <code>*_timing</code> (CPU time, "
             "<code>time.process_time</code>, one BLAS thread), never in the hash, and depend on the machine "
             f"named in the stamp ({_e(site.stamp.get('machine', '?'))}).</p>"]
    speed = [r for r in site.rows if r["timing"]]
    if speed:
        trs = "".join(f"<tr><td>{_e(r['paper'])}</td><td>{_e(r['row'])}</td><td>{_holds(r)}</td>"
                      f"<td class='small'>{site.linkify(r.get('note', ''))}</td></tr>" for r in speed)
        parts.append(f"<h2>Speed claims</h2><table><tr><th>paper</th><th>claim</th><th>holds</th><th>measured</th>"
                     f"</tr>{trs}</table>")
    parts += [_render_csv(site, t) for t in site.tables if "timing" in t.split("_")]
    site.page("timing.html", "Timing tables", "".join(parts))


def _tables_page(site: _Site) -> None:
    tabs = [t for t in site.tables if "timing" not in t.split("_")]
    c = site.counts
    intro = (f"<p>{_e(_counts.phrase_tables(len(c.number_tables), c.has_scorecard))} "
             "in this run; the timing tables are on the timing page.</p>")
    if not site.full_tables:
        toc = "<ul>" + "".join(f'<li><a href="#t-{_e(t)}">{_e(t)}</a></li>' for t in tabs) + "</ul>"
        site.page("tables.html", "Number tables", intro + toc + "".join(_render_csv(site, t) for t in tabs))
        return
    # beside a quick run: the committed full run's ablation, variant and investigation tables (what its
    # causes are measured in), each just before this quick run's copy, each labelled
    order = tabs + [t for t in site.full_tables if t not in tabs]
    toc = "<ul>" + "".join(
        "<li>" + " · ".join(([f'<a href="#t-full-{_e(t)}">{_e(t)}</a> (committed full run)'] if t in site.full_tables else [])
                            + ([f'<a href="#t-{_e(t)}">{_e(t)}</a> (this quick run)'] if t in tabs else []))
        + "</li>" for t in order) + "</ul>"
    intro += (f"<p>Every table below says whose numbers it holds: {QUICK_CAPTION}, or {site.full_run_label()} "
              "(its ablation, variant and investigation tables, which its causes are measured in, each before this "
              "run's copy).</p>")
    site.page("tables.html", "Number tables", intro + toc + "".join(
        (_render_csv(site, t, full=True) if t in site.full_tables else "") + (_render_csv(site, t) if t in tabs else "")
        for t in order))


#: The file a report folder carries: :func:`build` replaces only a folder that has it (or that looks
#: like a report an older omkl wrote), never anything else.
MARKER = ".omkl-report"


def _is_report_folder(path: Path) -> bool:
    """Whether ``path`` is a folder :func:`build` may replace: absent, empty, or marked (:data:`MARKER`,
    which only :func:`build` writes). A folder shaped like a report but unmarked is not: a website of
    the user's own has the same shape (issue 52)."""
    if not path.exists():
        return True
    if not path.is_dir() or path.is_symlink():
        return False
    marker = path / MARKER
    return not any(path.iterdir()) or (marker.is_file() and not marker.is_symlink())


def _swap_in(tmp: Path, out: Path, tries: int = 100) -> None:
    """Put the folder ``tmp`` at ``out``: the previous report is moved aside and removed. Another
    build swapping its own report in at the same moment may move ``out`` first or put its folder
    there in between: then the move is tried again (the last build to arrive wins, whole)."""
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
    try:
        for _ in range(tries):
            try:
                os.replace(out, old / out.name)       # the previous report, aside (already gone: fine)
            except FileNotFoundError:
                pass
            try:
                os.replace(tmp, out)
                return
            except OSError:                           # another build's folder arrived at out meanwhile
                shutil.rmtree(old / out.name, ignore_errors=True)
        raise OSError(f"could not put the report at {out}: other builds kept replacing it")
    finally:
        shutil.rmtree(old, ignore_errors=True)


def build(results: str | os.PathLike | None = None, *, out: str | os.PathLike | None = None,
          verbose: bool = False, committed_folder: str | os.PathLike | None = None) -> Path:
    """Write the report for the results folder ``results`` (default: ``$OMKL_RESULTS`` or
    ``results/``) into ``out`` (default ``<results>/report``) and return the path of its
    ``index.html``. Reads only what is there: a partial results folder gives a partial report.

    ``out`` is replaced whole and atomically (the pages are written to a fresh temporary folder
    beside it, so two builds never share one), and only when it is a report folder (:data:`MARKER`):
    a ``ValueError`` names any other folder, and the results folder or a folder holding it, before
    anything is written. ``committed_folder``: the committed full run shown beside a quick run
    (default :data:`omkl_core.repro.committed.FOLDER`)."""
    results = Path(results) if results is not None else report.results_dir()
    if not results.is_dir():
        raise FileNotFoundError(f"results folder {results} does not exist; run ./reproduce.sh first")
    out = Path(out) if out is not None else results / "report"
    res, dst = results.resolve(), out.resolve()
    if dst == res or dst in res.parents:
        raise ValueError(f"--out {out} is the results folder or holds it: the report would replace the results")
    if not _is_report_folder(out):
        raise ValueError(f"--out {out} exists and is not a report folder (no {MARKER}): refusing to replace it; "
                         "name a new or empty folder")
    committed_run = committed.is_committed_run(results)   # no run writes there: not locked (no .lock left in it)
    try:
        with contextlib.nullcontext() if committed_run else results_lock(results):
            return _build(results, out, verbose, committed_folder)
    except ResultsBusy as exc:
        raise ValueError(f"{exc}; the report is built once it finished") from None


def _build(results: Path, out: Path, verbose: bool, committed_folder) -> Path:
    for f in _counts.of(results).figures:             # before anything is written
        inside(results / "figures" / f"{f}.png", results, f"figures/{f}.png")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    try:
        (tmp / "figures").mkdir()
        site = _Site(results, tmp, Path(committed_folder) if committed_folder is not None else None)
        for f in site.figures:
            src = inside(results / "figures" / f"{f}.png", results, f"figures/{f}.png")
            shutil.copyfile(src, tmp / "figures" / f"{f}.png")
        pub = _published()
        summaries = {}
        for paper, table in dict.fromkeys(zip(pub["paper"], pub["table"], strict=True)):
            summaries[(paper, table)] = _table_page(site, paper, table, pub)
        for paper in _PAGE:
            _paper_page(site, paper, summaries)
        _errata_page(site)
        _theory_page(site)
        _numbers_page(site)
        _timing_page(site)
        _tables_page(site)
        _index(site, summaries)
        (tmp / MARKER).write_text("written by omkl_core.repro.html_report; replaced whole by the next build\n",
                                  encoding="utf-8")
        _swap_in(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if verbose:
        print(f"report ({site.mode} run): {len(list(out.glob('*.html')))} pages, {len(site.figures)} figures -> "
              f"{out / 'index.html'}", flush=True)
    return out / "index.html"


def embed_css(scope: str = ".omkl-report") -> str:
    """The report's style sheet with every rule scoped under ``scope`` (the page frame's rules
    dropped), for pages that show report pages inside their own (the documentation site)."""
    out = []
    for block in _CSS.replace("\n", "").split("}"):
        if "{" not in block:
            continue
        sel, rules = block.split("{", 1)
        sels = [x.strip() for x in sel.split(",") if x.strip() and not x.strip().startswith(("body", "header", "main"))]
        if sels:
            out.append(",".join(f"{scope} {x}" for x in sels) + "{" + rules + "}")
    return "\n".join(out)


def embed(page: str | os.PathLike, *, base: str = "") -> str:
    """The body of a built report page (its ``<main>`` without the title, the quick-run banner and
    the footer), its relative links prefixed with ``base`` (anchors within the page kept), to show
    inside another page: the documentation site shows the committed run's pages this way."""
    text = Path(page).read_text(encoding="utf-8")
    body = text[text.index("<main>") + len("<main>"):text.rindex("</main>")]
    body = re.sub(r'^<div class="quick">.*?</div>', "", body, count=1, flags=re.S)
    body = re.sub(r"<h1>.*?</h1>", "", body, count=1, flags=re.S)
    body = re.sub(r'<hr><p class="stamp">.*$', "", body, flags=re.S)
    return re.sub(r"""(href|src)=(["'])(?![a-z]+:|#|/)(.*?)\2""",
                  lambda m: f'{m.group(1)}="{base}{m.group(3)}"', body)


def main(argv: list[str] | None = None) -> int:
    """``python -m omkl_core.repro.html_report [--quick | --committed] [--results DIR] [--out DIR]``."""
    p = argparse.ArgumentParser(prog="python -m omkl_core.repro.html_report",
                                description="Write the HTML reproduction report from a results folder.")
    p.add_argument("--quick", action="store_true", help="the quick run's results (results/quick/)")
    p.add_argument("--committed", action="store_true",
                   help="the committed full run (reproduction/); default --out: <results>/committed-report")
    p.add_argument("--results", help="results folder (default: $OMKL_RESULTS or results/)")
    p.add_argument("--out", help="output folder (default: <results>/report); replaced only if it is a report folder")
    ns = p.parse_args(argv)
    base = Path(os.environ.get("OMKL_RESULTS") or ROOT / "results")
    results = Path(ns.results) if ns.results else base
    out = ns.out
    if ns.committed:
        results = committed.FOLDER
        out = out or base / "committed-report"
    elif ns.quick and not ns.results:
        results = results / "quick"
    try:
        build(results, out=out, verbose=True)
    except (FileNotFoundError, ValueError) as exc:
        print(f"html_report: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"html_report: error: could not write the report: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
