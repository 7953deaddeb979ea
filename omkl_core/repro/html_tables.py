"""The reproduction report's published tables, claims and figures (:mod:`omkl_core.repro.html_report`):
each published table laid out as printed, each cell the published value beside ours in its scored form
with its tier, ratio and cause; the ablation rows (never scored); the claims by kind; the figures with
their captions. Every number comes from the results folder through :class:`~.html_site._Site`."""
from __future__ import annotations

import math
import re
import urllib.parse

from . import claims, paper_values, papers, report, verdicts
from . import counts as _counts
from .html_site import _badge, _e, _fmt, _md_inline, _Site
from .papers import Cause
from .report_inputs import NOT_COMPUTED, _float, _records


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
    causes_used: dict[str, Cause] = {c.key: c for c in papers.CAUSES
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
    fig = papers.FIGURES.get(name)
    src = _e("figures/" + urllib.parse.quote(f"{name}.png"))      # a file name is data: quoted, then escaped
    if fig is None:
        cap = f"<b>{_e(name)}</b>: <span class='muted'>no caption registered (omkl_core.repro.papers.FIGURES)</span>"
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
    if name in papers.FIGURES:
        return papers.FIGURES[name].paper
    m = re.match(r"paper(\d{3})_", name)
    return m.group(1) if m else "all"


def _paper_of_table(name: str) -> str:
    m = re.match(r"paper(\d{3})_", name)
    if m:
        return m.group(1)
    return "000" if name == "table_datasets" else "all"


def _beyond(rows: list) -> str:
    """The cells within noise but more than 5 % off, and the cells beyond 5 % by the grade of their cause."""
    t = report.tier_counts(rows)
    wide, why = _counts.wide_noise(rows)
    out = f" {wide} {verdicts.WIDE_NOISE} ({why})." if wide else ""
    parts = [f"{k}: {_counts.explained_phrase(rows, k)}" for k in _counts.EXPLAINED_TIERS if t.get(k)]
    return out + (" Beyond 5 %, by the grade of their measured cause — " + "; ".join(parts) + "." if parts else "")
