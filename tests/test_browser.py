"""Every page of the HTML report and of the documentation site, opened in headless Chromium (issue 31).

A page fails on a console error (a script error, a resource that did not load), a broken internal
link (a local file that does not exist, or an ``#anchor`` its target page lacks), an image that did
not load, or an empty ``<title>``. The report's front page and paper 000's Table 2 are saved as
screenshots under ``<results>/screenshots/``.

Which pages: the report of the last run (``results/report/``, else ``results/quick/report/``;
``OMKL_RESULTS`` is followed) and the site ``docs/_build/html/`` (``./reproduce.sh docs``). Skips
where no Chromium is installed (Debian: ``apt-get install chromium``) or nothing is built. The
browser is driven over the Chrome DevTools protocol on the loopback interface
(``--remote-debugging-port``), through ``websocket-client``.
"""
from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--hide-scrollbars", "--window-size=1300,1000"]


def _browser() -> str | None:
    return next((p for p in map(shutil.which, BROWSERS) if p), None)


def _results() -> Path:
    return Path(os.environ.get("OMKL_RESULTS") or ROOT / "results")


def _report_dir() -> Path | None:
    for cand in (_results() / "report", _results() / "quick" / "report"):
        if (cand / "index.html").is_file():
            return cand
    return None


SITE = ROOT / "docs" / "_build" / "html"


class CDP:
    """A minimal Chrome DevTools protocol client: one page, commands in order, events kept."""

    def __init__(self, binary: str):
        websocket = pytest.importorskip("websocket")
        self.profile = tempfile.mkdtemp(prefix="omkl-chromium-")
        self.proc = subprocess.Popen([binary, *FLAGS, f"--user-data-dir={self.profile}", "--remote-debugging-port=0",
                                      "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        port, deadline = None, time.monotonic() + 30
        while port is None and time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            m = re.search(r"DevTools listening on ws://127\.0\.0\.1:(\d+)/", line)
            if m:
                port = int(m.group(1))
            elif not line and self.proc.poll() is not None:
                break
        if port is None:
            self.close()
            pytest.fail("Chromium did not start its DevTools endpoint")
        pages = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10))
        url = next(p["webSocketDebuggerUrl"] for p in pages if p.get("type") == "page")
        self.ws = websocket.create_connection(url, timeout=30, suppress_origin=True)
        self.next_id, self.events = 0, []
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=1300, height=1000, deviceScaleFactor=1, mobile=False)

    def call(self, method: str, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)

    def wait_for(self, method: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(e.get("method") == method for e in self.events):
                return
            self.ws.settimeout(max(0.1, deadline - time.monotonic()))
            self.events.append(json.loads(self.ws.recv()))
        raise TimeoutError(method)

    def open(self, url: str) -> list[str]:
        """Navigate to ``url``; return the console errors the page raised while loading."""
        self.events = []
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")
        self.evaluate("new Promise(r => setTimeout(r, 150))")          # late errors of scripts
        errors = []
        for e in self.events:
            p = e.get("params", {})
            if e.get("method") == "Runtime.exceptionThrown":
                errors.append("exception: " + p["exceptionDetails"].get("text", "")
                              + " " + str(p["exceptionDetails"].get("exception", {}).get("description", "")))
            elif e.get("method") == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                errors.append("console.error: " + " ".join(str(a.get("value", a.get("description", "")))
                                                           for a in p.get("args", [])))
            elif e.get("method") == "Log.entryAdded" and p["entry"].get("level") == "error":
                errors.append(f"log: {p['entry'].get('text')} {p['entry'].get('url', '')}")
            elif e.get("method") == "Network.loadingFailed" and not p.get("canceled"):
                errors.append(f"load failed: {p.get('errorText')} ({p.get('type')})")
        return errors

    def evaluate(self, expr: str):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        return r.get("result", {}).get("value")

    def screenshot(self, path: Path) -> None:
        height = int(self.evaluate("Math.min(document.documentElement.scrollHeight, 6000)") or 1000)
        shot = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                         clip={"x": 0, "y": 0, "width": 1300, "height": max(height, 400), "scale": 1})
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(shot["data"]))

    def close(self) -> None:
        try:
            if getattr(self, "ws", None) is not None:
                self.ws.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            shutil.rmtree(self.profile, ignore_errors=True)


@pytest.fixture(scope="module")
def browser():
    binary = _browser()
    if binary is None:
        pytest.skip("no Chromium installed (Debian: apt-get install chromium)")
    cdp = CDP(binary)
    yield cdp
    cdp.close()


_IDS = re.compile(r"""\b(?:id|name)=["']([^"']+)["']""")


def _ids(path: Path, cache: dict) -> set:
    if path not in cache:
        cache[path] = set(_IDS.findall(path.read_text(encoding="utf-8", errors="replace")))
    return cache[path]


def _check_pages(cdp: CDP, root: Path, pages: list[Path]) -> list[str]:
    problems, ids = [], {}
    for page in pages:
        where = page.relative_to(root).as_posix()
        url = page.resolve().as_uri()
        for err in cdp.open(url):
            problems.append(f"{where}: {err}")
        title = cdp.evaluate("document.title") or ""
        if not title.strip():
            problems.append(f"{where}: no <title>")
        broken = cdp.evaluate("Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0)"
                              ".map(i => i.getAttribute('src'))")
        problems += [f"{where}: image not loaded: {src}" for src in broken or []]
        for href in cdp.evaluate("Array.from(document.querySelectorAll('a[href]')).map(a => a.href)") or []:
            parsed = urllib.parse.urlparse(href)
            if parsed.scheme != "file":
                continue
            target = Path(urllib.parse.unquote(parsed.path))
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                problems.append(f"{where}: broken link {href}")
            elif parsed.fragment and target.suffix == ".html" and \
                    urllib.parse.unquote(parsed.fragment) not in _ids(target, ids):
                problems.append(f"{where}: no anchor #{parsed.fragment} in {target.name}")
    return problems


def test_every_report_page_loads_without_errors_and_screenshots(browser):
    report = _report_dir()
    if report is None:
        pytest.skip("no report yet (./reproduce.sh or ./reproduce.sh --quick writes it)")
    pages = sorted(report.glob("*.html"))
    assert (report / "index.html") in pages and (report / "paper000_table2.html") in pages
    problems = _check_pages(browser, report, pages)
    assert not problems, "\n".join(problems[:40])
    # paper 000's Table 2: the 7 VAW rows and Raker / OMKL-GF by 5 datasets, each cell published + ours
    browser.open((report / "paper000_table2.html").as_uri())
    rows = browser.evaluate("Array.from(document.querySelectorAll('table.paper')[0].rows).slice(1)"
                            ".map(r => [r.cells[0].innerText, r.querySelectorAll('td.cell').length])")
    assert [r[0] for r in rows] == ["Raker", "OMKL-GF", "VAW2", "VAW2 (trunc)", "VAW-Aggr", "VAW-EWA", "VAW-BOA",
                                    "VAW-ML-Poly", "VAW-ML-Prod"]
    assert all(n == 5 for _, n in rows)
    shots = report.parent / "screenshots"
    browser.screenshot(shots / "report_paper000_table2.png")
    browser.open((report / "index.html").as_uri())
    browser.screenshot(shots / "report_index.png")
    assert (shots / "report_index.png").stat().st_size > 10_000


def test_every_page_of_the_documentation_site_loads_without_errors(browser):
    if not (SITE / "index.html").is_file():
        pytest.skip("the documentation site is not built (./reproduce.sh docs)")
    pages = sorted(p for p in SITE.rglob("*.html") if "_static" not in p.parts and p.name != "search.html"
                   and "report" not in p.relative_to(SITE).parts[:1])
    assert len(pages) > 50
    problems = _check_pages(browser, SITE, pages)
    assert not problems, "\n".join(problems[:40])
    browser.open((SITE / "index.html").as_uri())
    browser.screenshot(_results() / "screenshots" / "docs_index.png")


def _all_reports() -> list[Path]:
    return [c for c in (_results() / "report", _results() / "quick" / "report") if (c / "index.html").is_file()]


def _text(cdp: CDP, page: Path) -> str:
    cdp.open(page.resolve().as_uri())
    return cdp.evaluate("document.body.innerText") or ""


def test_every_report_page_prints_the_counts_and_cells_of_the_one_source(browser):
    """Issue 39: the index said 57 tables, the scorecard 42, verify 43, the numbers page 50, and the
    browser test passed it all. Here every count a page prints, as a reader sees it, is compared
    with :func:`omkl_core.repro.counts.of`, and every published cell with the scorecard row it shows."""
    from omkl_core.repro import committed, counts, html_report, report

    reports = _all_reports()
    if not reports:
        pytest.skip("no report yet (./reproduce.sh or ./reproduce.sh --quick writes it)")
    for rep in reports:
        c = counts.of(rep.parent)
        quick = c.mode == "quick"
        full = counts.of(committed.FOLDER) if quick and committed.exists() else None
        for page in sorted(rep.glob("*.html")):
            text = _text(browser, page)
            got = {int(n) for n in re.findall(r"(\d+) number tables?\b", text)}
            assert got <= {len(c.number_tables)}, f"{page.name}: number tables {got} vs {len(c.number_tables)}"
            for _same, total in re.findall(r"(\d+) of (\d+) tables identical", text):
                assert int(total) == c.compared, f"{page.name}: verify counts {total} tables, the source {c.compared}"
        index = _text(browser, rep / "index.html")
        judged = full if full is not None else c
        for line in counts.summary_lines(judged):
            assert line in index, f"{rep}: the index lacks the source's line {line!r}"
        assert f"{c.tiers['cells']} published cells" in index and c.tiers["cells"] == counts.published_cells()
        # every published cell: the published value and the mean it shows are the scorecard row's
        rows = {(r["paper"].zfill(3), r["item"], r["row"], r["column"]): r
                for r in (full.rows if full is not None else c.rows) if r["kind"] == report.CELL}
        for page in sorted(rep.glob("paper*_table*.html")):
            paper, table = re.match(r"paper(\d{3})_table(\d+)", page.stem).groups()
            browser.open(page.resolve().as_uri())
            cells = browser.evaluate(
                "(() => { const t = document.querySelector('table.paper'); const head = Array.from(t.rows[0].cells)"
                ".map(c => c.innerText); return Array.from(t.querySelectorAll('td.cell:not(.timing)')).map(td => "
                "[td.closest('tr').cells[0].innerText, head[td.cellIndex], td.querySelector('.pub').innerText, "
                "td.querySelector('.ours').innerText]); })()")
            assert cells, page.name
            for row, col, pub, ours in cells:
                r = rows[(paper, f"Table {table}", row, col)]
                assert pub == f"published {html_report._fmt(float(r['published']))}", (page.name, row, col, pub)
                assert ours.split(" ± ")[0].endswith(" " + html_report._fmt(float(r["reproduced_mean"]))), \
                    (page.name, row, col, ours)


def test_the_documentation_site_shows_the_committed_full_run_with_its_counts(browser):
    from omkl_core.repro import committed, counts

    page = SITE / "_generated" / "report.html"
    if not page.is_file() or not committed.exists():
        pytest.skip("the documentation site is not built, or there is no committed full run")
    text = _text(browser, page)
    c = counts.of(committed.FOLDER)
    for line in counts.summary_lines(c):
        assert line in text, line
    assert counts.phrase_tables(len(c.number_tables)) in text
    assert text.count("published ") >= c.tiers["cells"]          # every published cell laid out on the page


def test_the_verify_output_on_the_numbers_page_wraps_instead_of_scrolling_sideways(browser):
    """The hashes-and-verify page prints ``./reproduce.sh verify``'s output in a ``pre``: its longest
    line (what verify promises, on which machines) ran off the page, to be read by scrolling sideways."""
    reports = _all_reports()
    if not reports:
        pytest.skip("no report yet (./reproduce.sh or ./reproduce.sh --quick writes it)")
    for report in reports:
        browser.open((report / "numbers.html").as_uri())
        wide = browser.evaluate("Array.from(document.querySelectorAll('pre'))"
                                ".filter(p => p.scrollWidth > p.clientWidth + 1).length")
        assert browser.evaluate("document.querySelectorAll('pre').length") >= 1, report
        assert wide == 0, f"{report / 'numbers.html'}: {wide} block(s) wider than the page"
