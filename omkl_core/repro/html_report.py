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
relative links, the figures copied next to the pages. This module writes the pages and builds the
site; the frame they share is :mod:`~omkl_core.repro.html_site`, the published tables, claims and
figures :mod:`~omkl_core.repro.html_tables`.

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
import math
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

from . import committed, errata, papers, report, verdicts, verify
from . import counts as _counts
from .html_site import _CSS, _PAGE, PAPER_TITLES, _badge, _e, _fmt, _md_inline, _Site, _slug  # noqa: F401  (the report's pieces live there)
from .html_tables import (  # noqa: F401
    QUICK_CAPTION,
    _beyond,
    _claim_rows,
    _claims_html,
    _figure_html,
    _holds,
    _paper_of_figure,
    _paper_of_table,
    _published,
    _table_page,
)
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


# Figures, causes and scored forms are declared per paper in omkl_core.repro.papers (one home).
FIGURES, CAUSES = papers.FIGURES, papers.CAUSES


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
