"""The HTML reproduction report (issue 31), built from a small results folder made here: each
published table laid out as printed with our values beside the published ones, misses linked to
their measured cause, a quick run labelled on every page and never judged, outcomes read from the
JUnit XML, every link and image local."""
from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
import omkl_core.repro as repro  # noqa: E402

VAW_ROWS = ("VAW2", "VAW2 (trunc)", "VAW-Aggr", "VAW-EWA", "VAW-BOA", "VAW-ML-Poly", "VAW-ML-Prod")
DATASETS = ("AR(4)", "Airfoil", "Bias", "Concrete", "Naval")
THEORY_TEST = "tests/test_theory_paper000.py::test_paper000_vaw_bound_11"


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.title, self.in_title, self.links, self.images, self.ids = "", False, [], [], set()
        self.cells: list[dict] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "title":
            self.in_title = True
        if tag == "a" and "href" in a:
            self.links.append(a["href"])
        if tag in ("img", "link", "script"):
            self.images.append(a.get("src") or a.get("href") or "")
        if tag == "td" and "cell" in a.get("class", ""):
            self.cells.append(a)

    def handle_endtag(self, tag):
        if tag == "title":
            self.in_title = False

    def handle_data(self, data):
        if self.in_title:
            self.title += data


def _parse(path: Path) -> _Page:
    p = _Page()
    p.feed(path.read_text(encoding="utf-8"))
    return p


@pytest.fixture(autouse=True)
def _no_committed_run(tmp_path, monkeypatch):
    """The reports built here see no committed full run unless a test makes one (the checkout's
    own ``reproduction/`` would otherwise appear beside every quick report)."""
    monkeypatch.setattr(repro.committed, "FOLDER", tmp_path / "no-committed-run")


def _results(tmp_path, monkeypatch, mode: str, *, one_run=(), ablation_scale=None) -> Path:
    """A results folder as a run of ``mode`` leaves it: paper 000's Table 2 (VAW2 on Naval a miss),
    its scorecard rows (full mode only, as the notebook writes them), one figure, a timing table.
    ``one_run``: (row, dataset) cells computed by one run (sd 0); ``ablation_scale``: write the
    ablation table ``paper000_table2_ablations`` with every value this multiple of the published one."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    res = tmp_path / ("quick" if mode == "quick" else "results")
    monkeypatch.setenv("OMKL_RESULTS", str(res))
    monkeypatch.setenv("OMKL_MODE", mode)                # restored after the test (set_mode is not)
    pub = repro.paper_values.published_table("000", 2)
    recs, cmp_values = [], {}
    for alg in pub.index:
        for d in DATASETS:
            v = float(pub.loc[alg, d]) * (1.5 if (alg == "VAW2" and d == "Naval") else 1.02)
            cmp_values[(d, alg)] = np.array([v] if (alg, d) in one_run else [v * 0.99, v * 1.01])
    comparison = repro.report.compare(cmp_values, paper="000", table=2, quick=mode == "quick", note="MSE x 1e3")
    for r in comparison.itertuples(index=False):
        recs.append({"dataset": r.dataset, "algorithm": r.algorithm, "mse_x1e3": r.mean, "sd": r.sd, "n_runs": r.n_runs,
                     "published": r.published, "ratio": r.ratio, "mode": mode})
    repro.report.save_table(pd.DataFrame(recs), "paper000_table2")
    repro.report.save_table(pd.DataFrame({"dataset": ["Naval"], "variant": ["tvaw"], "algorithm": ["VAW2"],
                                          "mse_x1e3": [0.3], "sd": [0.0], "n_runs": [5]}), "paper000_table2_variants")
    repro.report.save_table(pd.DataFrame({"algorithm": ["Raker"], "cpu_s_one_run": [0.5]}), "paper003_table1_timing")
    if ablation_scale is not None:
        repro.report.save_table(pd.DataFrame(
            [{"form": "online ridge", "algorithm": alg, "dataset": d, "mse_x1e3": float(pub.loc[alg, d]) * ablation_scale,
              "sd": 0.01, "n_runs": 2, "published": float(pub.loc[alg, d]), "ratio": ablation_scale}
             for alg in ("VAW2", "VAW-EWA") for d in DATASETS]), "paper000_table2_ablations")
    repro.report.add_scorecard_rows("paper000_table2", repro.report.scorecard_rows(comparison, paper="000",
                                                                                 item="Table 2"))
    if mode == "quick":
        rows = pd.DataFrame([repro.report.claim_row("all", "leaderboard", "mixture <= 1.02 x best", True, kind="project")])
        repro.report.add_scorecard_rows("leaderboard_mixture", rows)
    cause = repro.papers.Cause("test-naval", "000", "2", r"VAW2", r"Naval", "a measured cause",
                               ("paper000_table2_variants",),
                               repro.papers.FormRef("paper000_table2_variants", (("variant", "tvaw"),), "code", "tvaw"))
    monkeypatch.setattr(repro.papers, "CAUSES", (cause,))
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    repro.report.save_figure(fig, "paper000_fig1")
    plt.close(fig)
    repro.report.scorecard()
    (res / "junit.xml").write_text(
        '<?xml version="1.0"?><testsuites><testsuite name="pytest" tests="2" failures="1" errors="0" skipped="0" '
        'timestamp="2026-11-27T00:00:00" hostname="ci">'
        '<testcase classname="tests.test_theory_paper000" name="test_paper000_vaw_bound_11"><failure message="x"/>'
        '</testcase><testcase classname="tests.test_theory_paper000" name="test_paper000_vaw_bound_12_random_features"/>'
        "</testsuite></testsuites>", encoding="utf-8")
    return res


def _pages(report_dir: Path) -> list[Path]:
    return sorted(report_dir.glob("*.html"))


def _check_links(report_dir: Path) -> None:
    for page in _pages(report_dir):
        p = _parse(page)
        assert p.title.strip(), f"{page.name} has no title"
        for ref in p.links + p.images:
            assert not re.match(r"^[a-z]+:|^//", ref), f"{page.name}: non-local reference {ref}"
            target, _, frag = ref.partition("#")
            dest = report_dir / target if target else page
            assert dest.is_file(), f"{page.name}: broken link {ref}"
            if frag:
                assert frag in _parse(dest).ids, f"{page.name}: no anchor #{frag} in {dest.name}"


def test_full_report_lays_out_paper000_table2_as_printed_with_misses_linked_to_their_cause(tmp_path, monkeypatch):
    res = _results(tmp_path, monkeypatch, "full")
    index = repro.html_report.build(res)
    assert index == res / "report" / "index.html"
    page = res / "report" / "paper000_table2.html"
    text = page.read_text(encoding="utf-8")
    table = text[text.index('<table class="paper">'):]
    rows = re.findall(r"<tr><th>([^<]+)</th>", table[:table.index("</table>")])[1:]     # [0]: the header
    assert rows == ["Raker", "OMKL-GF", *VAW_ROWS]           # the printed order (published_tables.csv)
    cells = _parse(page).cells
    assert len(cells) == 45                                   # 9 rows x 5 datasets
    classes = [c["class"].split()[-1] for c in cells]
    assert classes.count("t4") == 1 and classes.count("t0") == 44     # one miss, the rest within noise (2 %, sd 1.4 %)
    assert "published 0.29" in text and "ours 0.435" in text   # VAW2 on Naval: 1.5 x 0.29
    miss = next(c for c in cells if c["class"].endswith("t4"))
    assert "ratio reproduced/published = 1.5000" in miss["title"] and "tier: miss" in miss["title"]
    assert 'href="#cause-test-naval"' in text and 'id="cause-test-naval"' in text
    assert "44 within noise, 0 ≤ 5 %, 0 ≤ 10 %, 0 ≤ 25 %, 1 miss" in text
    index = (res / "report" / "index.html").read_text(encoding="utf-8")
    assert "Published numeric cells: 45 judged — 44 within noise, 0 ≤ 5 %, 0 ≤ 10 %, 0 ≤ 25 %, 1 miss" in index
    assert 'href="tables.html#t-paper000_table2_variants"' in text      # the cause's measurement, in this run
    assert "QUICK RUN" not in text and "(quick run)" not in text
    _check_links(res / "report")


def test_quick_report_is_labelled_on_every_page_and_judges_no_cell(tmp_path, monkeypatch):
    res = _results(tmp_path, monkeypatch, "quick")
    repro.html_report.build(res)
    pages = _pages(res / "report")
    assert len(pages) >= 15
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "QUICK RUN" in text and "(quick run)" in _parse(page).title, page.name
        assert not re.search(r"\b0 (of \d+ )?(judged )?(cells |rows )?within tolerance", text), page.name
    t2 = res / "report" / "paper000_table2.html"
    cells = _parse(t2).cells
    assert len(cells) == 45 and all(c["class"].endswith("nc") for c in cells)
    text = t2.read_text(encoding="utf-8")
    assert "quick 0.435" in text and "not computed at full size" in text and "cause-" not in text
    index = (res / "report" / "index.html").read_text(encoding="utf-8")
    assert "What a quick run computes" in index and "not computed at full size" in index
    _check_links(res / "report")


def test_report_reads_test_outcomes_from_the_junit_xml(tmp_path, monkeypatch):
    res = _results(tmp_path, monkeypatch, "full")
    repro.html_report.build(res)
    theory = (res / "report" / "theory.html").read_text(encoding="utf-8")
    row = re.search(r"<tr id=\"000-bound-11\">.*?</tr>", theory, re.S).group(0)
    assert "test_paper000_vaw_bound_11</code> <span class=\"badge b-failed\">failed" in row
    row12 = re.search(r"<tr id=\"000-bound-12\">.*?</tr>", theory, re.S).group(0)
    assert "b-passed" in row12 and "b-failed" not in row12
    assert "2 tests, 1 failures" in theory
    outcomes, summary = repro.html_report.junit_outcomes(res / "junit.xml")
    assert outcomes[THEORY_TEST] == ["failed"] and summary["tests"] == 2
    errata = (res / "report" / "errata.html").read_text(encoding="utf-8")
    assert 'id="E000-1"' in errata and "not run" in errata


def test_every_theory_row_is_in_the_report_with_its_tests():
    rows = repro.html_report.theory_rows((repro.html_report.ROOT / "THEORY.md").read_text(encoding="utf-8"))
    papers = {r["paper"] for r in rows}
    assert {"000", "001", "002", "003", "004"} <= papers and len(rows) > 100
    assert any(THEORY_TEST in r["tests"] for r in rows)


def test_build_names_a_missing_results_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        repro.html_report.build(tmp_path / "nowhere")


def test_verify_page_counts_the_tables_as_verify_does(tmp_path, monkeypatch):
    """Issue 38/39: the report's verify page read the whole reference file as its tables ("0 of 50
    identical", naming format, mode ... as missing tables) where verify said 43 of 43."""
    res = _results(tmp_path, monkeypatch, "full")
    root = tmp_path / "checkout"
    current = repro.verify.current_tables(res)
    repro.verify.write_reference(root / "reference" / "full" / "hashes.json", current, "full")
    monkeypatch.setattr(repro.html_report, "ROOT", root)
    repro.html_report.build(res)
    page = (res / "report" / "numbers.html").read_text(encoding="utf-8")
    assert f"{len(current)} of {len(current)} tables identical" in page and "b-passed" in page
    assert "format: missing" not in page and "missing from the current results" not in page
    # issue 51: the page prints verify's own lines (hashes.outcome), a table within tolerance included
    ref = json.loads((root / "reference" / "full" / "hashes.json").read_text(encoding="utf-8"))
    name = next(n for n, t in current.items() if any(_is_number(c) for r in t["rows"] for c in r))
    i, j = next((i, j) for i, r in enumerate(ref["tables"][name]["rows"]) for j, c in enumerate(r) if _is_number(c))
    x = float(ref["tables"][name]["rows"][i][j])
    ref["tables"][name]["rows"][i][j] = format(x * (1 + 2e-7), ".8g")   # 2e-7: a changed 8-digit string, within 1e-6
    ref["tables"][name]["sha256"] = "0" * 64
    (root / "reference" / "full" / "hashes.json").write_text(json.dumps(ref), encoding="utf-8")
    repro.html_report.build(res)
    page = html.unescape((res / "report" / "numbers.html").read_text(encoding="utf-8"))
    _, lines = repro.verify.outcome(ref, current)
    assert "b-passed" in page and f"{name}: within tolerance (rel 1e-06)" in page
    assert all(line in page for line in lines), [line for line in lines if line not in page][:2]


def _is_number(cell: str) -> bool:
    try:
        return float(cell) != 0 and cell.strip() not in ("nan", "inf", "-inf")
    except ValueError:
        return False


def _committed_copy(tmp_path, monkeypatch, **kw) -> Path:
    """A committed full run (``reproduction/``) made from a full results folder: Table 2 with one miss."""
    import shutil

    full = _results(tmp_path / "f", monkeypatch, "full", **kw)
    folder = tmp_path / "reproduction"
    shutil.copytree(full, folder)
    monkeypatch.setattr(repro.committed, "FOLDER", folder)
    return folder


def test_quick_report_shows_the_committed_full_run_beside_its_own_values_and_judges_nothing(tmp_path, monkeypatch):
    """Issue 39: after the README's path every cell read "not computed at full size"; beside a
    committed full run a quick report shows the full run's value and tier, its own value beneath
    (compared with the full run's, never with the published one), and the full run's claims."""
    _committed_copy(tmp_path, monkeypatch)
    res = _results(tmp_path / "q", monkeypatch, "quick")
    repro.html_report.build(res)
    t2 = (res / "report" / "paper000_table2.html").read_text(encoding="utf-8")
    cells = _parse(res / "report" / "paper000_table2.html").cells
    classes = [c["class"].split()[-1] for c in cells]
    assert len(cells) == 45 and classes.count("t4") == 1 and classes.count("t0") == 44    # the full run's tiers
    assert "full run 0.435" in t2 and "full run: miss" in t2 and "quick 0.435 (×1.00 of full)" in t2
    assert "This quick run: 0.435 on its short horizon, not judged." in t2
    index = (res / "report" / "index.html").read_text(encoding="utf-8")
    assert "Verdict of the committed full run" in index
    assert "Published numeric cells: 45 judged — 44 within noise" in index       # the full run's counts
    assert "45 published cells not computed at full size" in index              # this run's: judged none
    _check_links(res / "report")


def test_every_page_counts_tables_cells_and_tiers_as_the_one_source_does(tmp_path, monkeypatch):
    """Issue 39: the index said 57 tables, the scorecard 42, verify 43, the numbers page 50. Every
    count a page prints is read here and compared with :func:`omkl_core.repro.counts.of`."""
    res = _results(tmp_path, monkeypatch, "full")
    repro.html_report.build(res)
    c = repro.counts.of(res)
    phrase = repro.counts.phrase_tables(len(c.number_tables))
    rep = res / "report"
    for page in ("index.html", "numbers.html", "tables.html"):
        text = (rep / page).read_text(encoding="utf-8")
        assert phrase in text, page
        assert {int(n) for n in re.findall(r"(\d+) number tables?", text)} == {len(c.number_tables)}, page
    index = (rep / "index.html").read_text(encoding="utf-8")
    t = c.tiers
    assert (f"{c.judged_cells} judged — {t['within noise']} within noise, {t['≤ 5 %']} ≤ 5 %, {t['≤ 10 %']} ≤ 10 %, "
            f"{t['≤ 25 %']} ≤ 25 %, {t['miss']} miss") in index
    assert f"{len(c.figures)} figures, {len(c.notebooks)} notebooks, {t['cells']} published cells" in index
    md = (res / "scorecard.md").read_text(encoding="utf-8")
    assert all(line in md for line in repro.counts.summary_lines(c))


def test_build_never_replaces_a_folder_it_did_not_write(tmp_path, monkeypatch):
    """Issue 42, item 1: ``--out DIR`` deleted everything in DIR; ``--out`` the results folder
    deleted the tables; ``--out .`` raised a traceback. Each is refused before anything is written."""
    res = _results(tmp_path, monkeypatch, "full")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("precious", encoding="utf-8")
    for out, why in ((mine, "not a report folder"), (res, "is the results folder"), (res.parent, "holds it")):
        with pytest.raises(ValueError, match=why):
            repro.html_report.build(res, out=out)
    assert (mine / "thesis.tex").read_text(encoding="utf-8") == "precious"
    assert (res / "tables" / "paper000_table2.csv").is_file()
    assert repro.html_report.main(["--results", str(res), "--out", str(mine)]) == 2
    repro.html_report.build(res, out=tmp_path / "new")                      # a new folder: written, marked
    assert (tmp_path / "new" / repro.html_report.MARKER).is_file()
    repro.html_report.build(res, out=tmp_path / "new")                      # and replaced by the next build
    assert not list(tmp_path.glob(".new.*")), "a temporary folder was left behind"


def test_concurrent_builds_of_one_report_never_collide(tmp_path, monkeypatch):
    """Issue 42, item 4: two builds shared ``report.tmp`` (a FileNotFoundError in 2 of 5 rounds)."""
    from concurrent.futures import ThreadPoolExecutor

    res = _results(tmp_path, monkeypatch, "full")
    for _ in range(3):                  # each round: 6 builds replacing one report at the same moments
        with ThreadPoolExecutor(6) as pool:
            done = list(pool.map(lambda _: repro.html_report.build(res), range(6)))
        assert all(p == res / "report" / "index.html" for p in done) and done[0].is_file()
    assert sorted(p.name for p in res.iterdir() if p.name.startswith(".report")) == []


def test_a_file_name_with_a_quote_never_reaches_the_html_unescaped(tmp_path, monkeypatch):
    """Issue 42, item 5: a figure named with a quote reached ``<img src="…">`` as it was."""
    res = _results(tmp_path, monkeypatch, "full")
    evil = 'x" onerror="alert(1)'
    (res / "figures" / f"{evil}.png").write_bytes((res / "figures" / "paper000_fig1.png").read_bytes())
    repro.html_report.build(res)
    page = (res / "report" / "leaderboard.html").read_text(encoding="utf-8")
    assert 'onerror="alert' not in page and "x%22%20onerror%3D%22alert%281%29.png" in page


def test_theory_page_without_a_test_run_says_unknown_not_not_run(tmp_path, monkeypatch):
    """Issue 39: the theory register read "135 not run, 10 reason" unless the tests ran first."""
    res = _results(tmp_path, monkeypatch, "full")
    (res / "junit.xml").unlink()
    repro.html_report.build(res)
    theory = (res / "report" / "theory.html").read_text(encoding="utf-8")
    assert "No test run recorded" in theory and " not run," not in theory
    assert re.search(r"\d+ numbered results: \d+ unknown, \d+ with a written reason", theory)


def test_a_cell_whose_sd_exceeds_its_mean_is_flagged(tmp_path, monkeypatch):
    """Issue 39: a quick SFG-MKL cell of 135045 ± 190782 was shown without a word."""
    res = _results(tmp_path, monkeypatch, "quick")
    repro.report.save_table(pd.DataFrame({"learner": ["SFG-MKL", "Raker"], "Naval": ["135045.28 ± 190782.29", "1.0 ± 0.1"]}),
                            "leaderboard")
    repro.html_report.build(res)
    text = (res / "report" / "tables.html").read_text(encoding="utf-8")
    assert text.count('class="unstable"') == 1 and "1 cell(s) with a standard deviation larger than the mean" in text


def _text(html_text: str) -> str:
    """A page's text as a reader sees it: tags dropped, white space collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html_text))


def test_quick_report_labels_the_committed_ablation_table_and_its_own(tmp_path, monkeypatch):
    """Issue 53: a quick page said the ablation form "reproduces the published column" (the full
    run's cause) above an ablation table of the quick run's numbers (×1.71) with no label. Now the
    committed full run's table comes first, labelled, then this quick run's, labelled; the causes
    say they are the full run's and link its tables."""
    _committed_copy(tmp_path, monkeypatch, ablation_scale=1.04)
    res = _results(tmp_path / "q", monkeypatch, "quick", ablation_scale=1.71)
    repro.html_report.build(res)
    page = (res / "report" / "paper000_table2.html").read_text(encoding="utf-8")
    text = _text(page)
    abl = text[text.index("Ablation rows"):]
    full_at, quick_at = abl.index("The committed full run"), abl.index("This quick run")
    assert full_at < abl.index("×1.04") < quick_at < abl.index("×1.71")      # each table under its own label
    assert "×1.71" not in abl[:quick_at] and "×1.04" not in abl[quick_at:]
    assert "this quick run (short horizon; not comparable with the published cells)" in abl.lower()
    causes = text[text.index("Measured causes of the misses"):text.index("Ablation rows")]
    assert "(the committed full run's)" in causes and "From the committed full run:" in causes
    assert 'href="tables.html#t-full-paper000_table2_variants"' in page       # the evidence: the full run's table
    tables = (res / "report" / "tables.html").read_text(encoding="utf-8")
    t_text = _text(tables)
    for name in ("paper000_table2_ablations", "paper000_table2_variants"):
        full_h = t_text.index(f"{name} — committed full run")
        assert full_h < t_text.index(f"{name} — this quick run")               # the full run's first
    assert "×1.04" not in t_text                                               # (the csv holds ratio 1.04)
    _check_links(res / "report")
    # a full run's own report has no such labels
    full_res = _results(tmp_path / "g", monkeypatch, "full", ablation_scale=1.04)
    repro.html_report.build(full_res)
    own = _text((full_res / "report" / "paper000_table2.html").read_text(encoding="utf-8"))
    assert "quick run" not in own.lower() and "committed full run" not in own


def test_a_deterministic_cell_says_its_band_is_zero_in_the_cell_and_the_legend(tmp_path, monkeypatch):
    """Issue 53: OMKR's cells (one run, sd 0) read "≤ 5 %" beside Raker's "within noise" with no word
    why. The cell carries the mark and the legend explains it, naming the row; a page without such a
    cell says nothing of it."""
    res = _results(tmp_path, monkeypatch, "full", one_run={("VAW-EWA", "Airfoil")})
    repro.html_report.build(res)
    page = (res / "report" / "paper000_table2.html").read_text(encoding="utf-8")
    mark = "(one deterministic run: band 0)"
    cells = re.findall(r'<td class="cell[^"]*"[^>]*>(.*?)</td>', page)
    marked = [c for c in cells if _text(mark).strip() in _text(c)]
    assert len(marked) == 1 and "≤ 5 %" in marked[0] and "(n = 1)" in marked[0]
    legend = _text(page[:page.index('<table class="paper">')])
    assert f"A cell marked “{mark}” (VAW-EWA here)" in legend and "noise band is 0" in legend
    assert repro.html_tables.DETERMINISTIC == mark
    plain = _results(tmp_path / "p", monkeypatch, "full")
    repro.html_report.build(plain)
    plain_page = (plain / "report" / "paper000_table2.html").read_text(encoding="utf-8")
    assert mark not in plain_page and "A cell marked" not in plain_page
