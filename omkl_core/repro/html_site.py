"""The reproduction report's frame (:mod:`omkl_core.repro.html_report`): the inline style sheet, the
HTML pieces every page uses (escaping, numbers, badges, markdown's inline marks) and :class:`_Site`, what
the pages share (the results folder, its stamps and counts, the committed full run beside a quick run,
the page frame and the links between pages). Nothing here computes a number."""
from __future__ import annotations

import html
import math
import re
from pathlib import Path

from . import committed, papers
from . import counts as _counts
from .report_inputs import NOT_COMPUTED, _json, _outcome, junit_outcomes

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
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#fff;border:1px solid #d5d9de;padding:.6em}
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
