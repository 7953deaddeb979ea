"""The committed full run: the reproduction a reader sees without running anything.

A full ``./reproduce.sh`` takes tens of minutes; a reader of the repository, of the documentation
site or of a quick run's report should still see what the full run found. ``reproduction/`` at
the root of the repository holds one full run, small enough to review in a diff:

* ``scorecard.csv`` / ``scorecard_timing.csv`` / ``scorecard.md`` / ``scorecard.stamp.json``: every
  published cell scored once (tier, cause) and every claim, with the run's stamp (mode, date,
  commit, machine) and its numbers hash;
* ``tables/``: every table of the run (``<name>.csv`` and its ``<name>.stamp.json``), the number
  tables identical to ``reference/full/hashes.json`` (:func:`publish` checks it);
* ``figures/``: every figure (PNG);
* ``timings.json``: the notebooks' wall and CPU time; ``theory_outcomes.json``: the outcome of
  every test that ``THEORY.md`` and the errata name, from the test run given to :func:`publish`;
* ``README.md``: its headline (counts per tier and per claim kind, the stamp).

It is laid out as a results folder, so the HTML report builds from it as from any run
(:func:`omkl_core.repro.html_report.build`); the documentation site renders that report, a quick
run's report shows the committed full run's values and verdicts beside its own short-horizon
numbers, and ``verify`` says whether the code changed since the committed run
(:func:`age`).

Commands (``./reproduce.sh publish`` runs the first)::

    python -m omkl_core.repro.committed publish [--results DIR] [--junit FILE]
    python -m omkl_core.repro.committed age
    python -m omkl_core.repro.committed headline     (the README's headline from reproduction/)
    python -m omkl_core.repro.committed compare [--results DIR]   (a run's scorecard against the committed one)
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import counts as _counts
from . import errata, hashes, report
from .notebooks import ResultsBusy, notebook_list, results_lock
from .report_inputs import _json, inside, junit_outcomes, theory_rows

__all__ = ["FOLDER", "Age", "age", "publish", "exists", "main", "CODE_PATHS", "headline", "write_headline",
           "compare_scorecard"]

ROOT = Path(__file__).resolve().parent.parent.parent
#: Where the committed full run lives in the checkout.
FOLDER = ROOT / "reproduction"
#: The paths whose change can change a run's numbers (:func:`age` lists those changed since the run).
CODE_PATHS = ("omkl_core", "notebooks", "requirements.lock", "pyproject.toml")
_SCORECARD_FILES = ("scorecard.csv", "scorecard_timing.csv", "scorecard.md", "scorecard.stamp.json", "timings.json")


def exists(folder: Path = FOLDER) -> bool:
    """Whether ``folder`` holds a committed run (its scorecard stamp says a full run)."""
    return _json(Path(folder) / "scorecard.stamp.json").get("mode") == "full"


#: What :func:`publish` writes into a committed-run folder, and nothing else.
_COMMITTED_ENTRIES = frozenset({"README.md", "tables", "figures", "theory_outcomes.json", *_SCORECARD_FILES})
_STAMP_RESULTS = "reproduction/ (the committed copy of a full run)"
_README_HEAD = "# The committed full run"


def is_committed_run(folder: Path) -> bool:
    """Whether ``folder`` is a committed-run folder :func:`publish` wrote, recognised by more than one
    file: its scorecard stamp (a full run, ``results`` naming the committed copy), its README's
    heading, a ``tables/`` folder, and nothing but what :func:`publish` writes (a results folder has
    ``notebooks/``, a ``.lock``, a report ...: it is never one)."""
    folder = Path(folder)
    if not folder.is_dir() or folder.is_symlink():
        return False
    stamp = _json(folder / "scorecard.stamp.json")
    readme = folder / "README.md"
    try:
        head = readme.read_text(encoding="utf-8").split("\n", 1)[0].strip() if readme.is_file() else ""
    except (OSError, UnicodeDecodeError):
        return False
    return (stamp.get("mode") == "full" and stamp.get("results") == _STAMP_RESULTS and head == _README_HEAD
            and (folder / "tables").is_dir() and all(p.name in _COMMITTED_ENTRIES for p in folder.iterdir()))


# ----------------------------------------------------------------------------- age
@dataclass(frozen=True)
class Age:
    """How the committed run relates to the code of this checkout.

    ``commit``: the commit that produced it (``-dirty``: from a working copy with uncommitted
    changes); ``current``: True when no file of :data:`CODE_PATHS` differs between that commit and
    this working tree, False when some do (``changed`` names them), None when it cannot be told (no
    git, an installed package, the commit not in this clone's history)."""

    commit: str
    date: str
    current: bool | None
    changed: tuple[str, ...]
    why: str = ""

    def sentence(self) -> str:
        """One line for the pages, ``verify`` and the docs."""
        head = f"The committed full run (reproduction/) is from commit {self.commit}, {self.date}"
        if not self.commit:
            return "No committed full run in this checkout (reproduction/ is missing)."
        if self.current is None:
            return f"{head}; whether the code changed since cannot be told here ({self.why})."
        if self.current:
            return f"{head}; no file of {', '.join(CODE_PATHS)} changed since: it is the run of this code."
        shown = ", ".join(self.changed[:4]) + (f" and {len(self.changed) - 4} more" if len(self.changed) > 4 else "")
        return (f"{head}; it is older than the code: {len(self.changed)} file(s) changed since ({shown}). "
                "Its numbers hold for that commit; CI (.ci/run) reruns the full reproduction at every landing and "
                f"compares its scorecard with this one (relative tolerance {hashes.DEFAULT_RTOL:g}, verdicts exactly), "
                "so a landed commit reproduces them; for a working copy, ./reproduce.sh and then verify tell.")


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=30)


def age(folder: Path = FOLDER) -> Age:
    """How old the committed run in ``folder`` is against this checkout's code (:class:`Age`)."""
    stamp = _json(Path(folder) / "scorecard.stamp.json")
    commit, date = str(stamp.get("commit", "")), str(stamp.get("date", ""))
    if not commit:
        return Age("", "", None, ())
    sha = commit.removesuffix("-dirty")
    if not (ROOT / ".git").exists():
        return Age(commit, date, None, (), "not a git checkout")
    try:
        if _git("rev-parse", "--verify", "--quiet", f"{sha}^{{commit}}").returncode != 0:
            return Age(commit, date, None, (), f"commit {sha} is not in this clone's history")
        out = _git("diff", "--name-only", sha, "--", *CODE_PATHS)
    except (OSError, subprocess.SubprocessError) as exc:
        return Age(commit, date, None, (), f"git failed: {exc}")
    if out.returncode != 0:
        return Age(commit, date, None, (), f"git diff failed: {out.stderr.strip()[:200]}")
    changed = tuple(line for line in out.stdout.splitlines() if line.strip())
    dirty = commit.endswith("-dirty")
    return Age(commit, date, not changed and not dirty, changed,
               "the run was made from a working copy with uncommitted changes" if dirty else "")


# ----------------------------------------------------------------------------- publish
class PublishError(ValueError):
    """A results folder that cannot be committed as the full run (the message says why)."""


def _check_complete(results: Path) -> None:
    stamp = _json(results / "scorecard.stamp.json")
    if stamp.get("mode") != "full":
        raise PublishError(f"{results} is not a full run (its scorecard stamp says mode {stamp.get('mode')!r}); "
                           "run ./reproduce.sh without --quick first")
    c = _counts.of(results)
    wanted = {p.stem for p in notebook_list(ROOT / "notebooks")}
    timings = _json(results / "timings.json").get("notebooks", {})
    missing = sorted(n for n in wanted if timings.get(n, {}).get("mode") != "full")
    if c.failed_notebooks or missing:
        raise PublishError(f"{results} is not a complete full run: "
                           + "; ".join(filter(None, [f"failed or interrupted: {', '.join(c.failed_notebooks)}"
                                                     if c.failed_notebooks else "",
                                                     f"not run in full mode: {', '.join(missing)}" if missing else ""])))
    reference = hashes.read_reference(ROOT / "reference" / "full" / "hashes.json")["tables"]
    result = hashes.compare(reference, hashes.current_tables(results))
    if result.identical != result.total:    # the committed run is the reference's run: identical, not only close
        lines = [x.strip() for x in result.lines() if "identical at" not in x]
        raise PublishError(f"{results}: {result.summary()} to reference/full/hashes.json; the "
                           "committed run must be the reference's run (./reproduce.sh verify --update first, if the "
                           "change of numbers is meant): " + "; ".join(lines[:3]))


def _check_consistent(results: Path, junit: Path | None) -> None:
    """Refuse a run whose parts do not agree (issue 52: a forged run whose tables match the reference
    was published): the stamp's commit is in this checkout's history and every table's stamp names the
    same commit and a full run; ``scorecard.md`` is the one written from ``scorecard.csv`` (its counts);
    every figure is a PNG inside the results folder, written before the scorecard that sums up the
    run; no test that THEORY.md or the errata name failed in the JUnit XML."""
    stamp = _json(results / "scorecard.stamp.json")
    commit = str(stamp.get("commit", ""))
    sha = commit.removesuffix("-dirty")
    if not (ROOT / ".git").exists():
        raise PublishError(f"cannot check the stamp's commit {commit!r}: {ROOT} is not a git checkout")
    try:
        known = _git("rev-parse", "--verify", "--quiet", f"{sha}^{{commit}}").returncode == 0 and sha != ""
    except (OSError, subprocess.SubprocessError) as exc:
        raise PublishError(f"cannot check the stamp's commit {commit!r}: git failed: {exc}") from None
    if not known:
        raise PublishError(f"{results}/scorecard.stamp.json names commit {commit!r}, which is not in this checkout's "
                           "history: not a run of this code")
    other = sorted(p.name for p in (results / "tables").glob("*.stamp.json")
                   if (_json(p).get("commit"), _json(p).get("mode")) != (commit, "full"))
    if other:
        raise PublishError(f"{results}: {len(other)} table stamp(s) name another commit or mode than the scorecard's "
                           f"(commit {commit!r}, full): {', '.join(other[:3])}; one run makes every table")
    md = results / "scorecard.md"
    text = md.read_text(encoding="utf-8") if md.is_file() else ""
    scored = [r for r in _counts.of(results).rows if not r["timing"]]       # scorecard.md's own lines (the speed
    missing = [line for line in _counts.summary_lines(scored) if line not in text]   # claims have their section)
    if missing:
        raise PublishError(f"{md} does not say what scorecard.csv counts ({missing[0]!r} is not in it): it was not "
                           "written from this scorecard.csv; rerun the scorecard")
    written = (results / "scorecard.stamp.json").stat().st_mtime
    for f in sorted((results / "figures").glob("*.png")):
        try:
            inside(f, results, f"figures/{f.name}")
        except ValueError as exc:
            raise PublishError(str(exc)) from None
        with open(f, "rb") as fh:
            if fh.read(8) != b"\x89PNG\r\n\x1a\n":
                raise PublishError(f"{f} is not a PNG image")
        if f.stat().st_mtime > written + 1.0:
            raise PublishError(f"{f} was modified after the run's scorecard was written: not the run's figure")
    outcomes = _theory_outcomes(junit).get("outcomes", {})
    failed = sorted(n for n, got in outcomes.items() if "failed" in got or "error" in got)
    if failed:
        raise PublishError(f"{len(failed)} of the {len(outcomes)} tests THEORY.md and the errata name failed in "
                           f"{junit} (e.g. {failed[0]}): a run whose theory checks fail is not committed")


def _theory_outcomes(junit: Path | None) -> dict:
    """The outcomes of the tests THEORY.md and the errata name, from the JUnit XML ``junit``."""
    if junit is None or not junit.is_file():
        return {}
    outcomes, summary = junit_outcomes(junit)
    nodes = set()
    theory = ROOT / "THEORY.md"
    if theory.is_file():
        for r in theory_rows(theory.read_text(encoding="utf-8")):
            nodes.update(r["tests"])
    for e in errata.ERRATA:
        nodes.update(e.printed_fails)
        nodes.update(e.corrected_holds)
    return {"summary": summary, "outcomes": {n: outcomes[n] for n in sorted(nodes) if n in outcomes}}


def _readme(c: _counts.Counts, stamp: dict) -> str:
    lines = _counts.summary_lines(c)
    return ("# The committed full run\n\n"
            "One full `./reproduce.sh` run of this repository, committed so that it can be read without running "
            "anything (`python -m omkl_core.repro.committed publish` wrote this folder; the documentation site and "
            "every quick run's report show it).\n\n"
            f"- **Run**: {stamp.get('mode')} mode, {stamp.get('date')}, commit `{stamp.get('commit')}`, "
            f"{stamp.get('machine')}\n"
            f"- **Numbers hash**: `{stamp.get('numbers_sha256')}` over {_counts.phrase_tables(len(c.number_tables))}; "
            "`reference/full/hashes.json` holds the same hashes\n"
            f"- **Published cells**: {c.tiers.get('cells', 0)}; **figures**: {len(c.figures)}; "
            f"**notebooks**: {len(c.notebooks)}\n\n"
            "## Verdict\n\n" + "\n".join(f"- {line}" for line in lines) + "\n\n"
            "Every cell, claim and cause: [`scorecard.md`](scorecard.md). The HTML report of this run: the "
            "documentation site (`./reproduce.sh docs`), or `python -m omkl_core.repro.html_report --committed`.\n")


#: The README's headline block: between these two markers, written by :func:`write_headline`.
HEADLINE_START, HEADLINE_END = ("<!-- headline: written from reproduction/ (the committed full run) by "
                                "`python -m omkl_core.repro.committed headline`; tests/test_readme.py checks it -->",
                                "<!-- /headline -->")


def headline(folder: Path = FOLDER) -> str:
    """The README's headline, in markdown, from the committed run in ``folder``: the run's stamp,
    the cells per tier, the within-noise cells more than 5 % off, the cells beyond 5 % by the grade of
    their cause, and every claim kind with the speed claims (and the machine that judged them); every
    count from :mod:`omkl_core.repro.counts`."""
    c = _counts.of(folder)
    stamp = _json(Path(folder) / "scorecard.stamp.json")
    rows = [r for r in c.rows if not r["timing"]]
    t, k = c.tiers, c.claims
    wide, why = _counts.wide_noise(rows)
    sp = _counts.speed_counts(c)
    beyond = "; ".join(f"{tier}: {_counts.explained_phrase(rows, tier)}" for tier in _counts.EXPLAINED_TIERS if t[tier])
    return (f"The committed full run ([`reproduction/`](reproduction/README.md): full mode, {stamp.get('date', '?')[:10]}, "
            f"commit `{stamp.get('commit', '?')}`) scores each of the **{t['cells']} published cells** once, in the form "
            f"the paper describes: **{_counts.tier_phrase(t)}**"
            + (f" ({wide} within noise but more than 5 % off: {why})" if wide else "")
            + f". Cells beyond 5 %, by the grade of their measured cause — {beyond}. "
            f"The papers' claims on our numbers: {k['paper']['holds']} hold, {k['paper']['fails']} fail; their speed "
            f"claims, judged from CPU times on {c.machine or 'the run’s machine'}: {sp['holds']} hold, {sp['fails']} "
            f"fail; checks of the printed numbers: {k['printed']['consistent in print']} consistent in print, "
            f"{k['printed']['inconsistent in print']} inconsistent; this project's claims: {k['project']['holds']} "
            f"hold, {k['project']['fails']} fail. Every cell with its tier, gap, cause and grade: "
            "[`reproduction/scorecard.md`](reproduction/scorecard.md); as an HTML report: the documentation site's "
            "report page (`./reproduce.sh docs`).")


def write_headline(readme: Path = ROOT / "README.md", folder: Path = FOLDER) -> bool:
    """Rewrite the README's headline block from the committed run (:func:`headline`); True if it changed."""
    text = readme.read_text(encoding="utf-8")
    start = text.index("<!-- headline")
    end = text.index(HEADLINE_END)
    new = text[:start] + HEADLINE_START + "\n" + _wrap(headline(folder)) + "\n" + text[end:]
    if new != text:
        readme.write_text(new, encoding="utf-8")
    return new != text


def _wrap(text: str, width: int = 118) -> str:
    import textwrap  # noqa: PLC0415

    return "\n".join(textwrap.wrap(text, width=width, break_long_words=False, break_on_hyphens=False))


def _shrink_png(src: Path, dst: Path) -> None:
    """Copy a figure, re-encoded with an adaptive palette where Pillow is there and it is smaller
    (the committed copy stays small; the pixels a reader sees are the same to the eye)."""
    try:
        from PIL import Image  # noqa: PLC0415
    except ImportError:
        shutil.copyfile(src, dst)
        return
    with Image.open(src) as im:
        small = im.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        small.save(dst, optimize=True)
    if dst.stat().st_size >= src.stat().st_size:
        shutil.copyfile(src, dst)


def publish(results: str | Path | None = None, *, dest: str | Path = FOLDER, junit: str | Path | None = None,
            verbose: bool = False) -> Path:
    """Commit-ready copy of the full run in ``results`` (default ``$OMKL_RESULTS`` or ``results/``)
    into ``dest`` (default :data:`FOLDER`), after checking that it is a complete full run whose number
    tables are identical to ``reference/full/hashes.json`` (:class:`PublishError` otherwise, before
    anything is written). ``junit``: the JUnit XML of a test run (default ``<results>/junit.xml``)
    for the theory register's outcomes. ``dest`` is replaced whole, atomically; it must be absent or a
    committed run (this function refuses to replace anything else)."""
    results = Path(results) if results is not None else report.results_dir()
    dest = Path(dest)
    if not results.is_dir():
        raise PublishError(f"results folder {results} does not exist; run ./reproduce.sh first")
    res, dst = results.resolve(), dest.resolve()
    if dst == res or dst in res.parents or res in dst.parents:
        raise PublishError(f"--dest {dest} is the results folder {results}, holds it or lies inside it: refusing "
                           "to replace it")
    if dest.exists() and not is_committed_run(dest):
        raise PublishError(f"--dest {dest} exists and is not a committed run (publish recognises its own by its "
                           "stamp, README and tables, and nothing else in it): refusing to replace it")
    try:
        with results_lock(results):
            return _publish_locked(results, dest, junit, verbose)
    except ResultsBusy as exc:
        raise PublishError(str(exc)) from None


def _publish_locked(results: Path, dest: Path, junit, verbose: bool) -> Path:
    _check_complete(results)
    junit_path = Path(junit) if junit is not None else results / "junit.xml"
    _check_consistent(results, junit_path)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}-", dir=dest.parent))
    try:
        (tmp / "tables").mkdir()
        (tmp / "figures").mkdir()
        for p in sorted((results / "tables").iterdir()):
            if p.name.endswith((".csv", ".stamp.json")):
                shutil.copyfile(p, tmp / "tables" / p.name)
        for p in sorted((results / "figures").glob("*.png")):
            _shrink_png(p, tmp / "figures" / p.name)
        for name in _SCORECARD_FILES:
            if (results / name).is_file():
                shutil.copyfile(results / name, tmp / name)
        stamp = _json(tmp / "scorecard.stamp.json")
        stamp["results"] = _STAMP_RESULTS
        (tmp / "scorecard.stamp.json").write_text(json.dumps(stamp, indent=1) + "\n", encoding="utf-8")
        outcomes = _theory_outcomes(junit_path)
        if outcomes:
            (tmp / "theory_outcomes.json").write_text(json.dumps(outcomes, indent=1) + "\n", encoding="utf-8")
        (tmp / "README.md").write_text(_readme(_counts.of(tmp), stamp), encoding="utf-8")
        old = None
        if dest.exists():
            old = dest.with_name(f".{dest.name}-old-{os.getpid()}")
            os.replace(dest, old)
        os.replace(tmp, dest)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if dest.resolve() == FOLDER.resolve() and (ROOT / "README.md").is_file():
        write_headline(ROOT / "README.md", dest)            # the README's headline is the committed run's
    if verbose:
        c = _counts.of(dest)
        print(f"committed run: {dest} ({_counts.phrase_tables(len(c.number_tables))}, {len(c.figures)} figures, "
              f"theory outcomes: {'yes' if outcomes else 'none (no JUnit XML)'})", flush=True)
        for line in _counts.summary_lines(c):
            print("  " + line, flush=True)
    return dest


# ----------------------------------------------------------------------------- compare
def compare_scorecard(results: str | Path | None = None, folder: Path = FOLDER) -> hashes.TableOutcome:
    """The scorecard of the run in ``results`` (default ``$OMKL_RESULTS`` or ``results/``) against the
    committed run's (``reproduction/scorecard.csv``), cell by cell as ``verify`` compares a table
    (:func:`omkl_core.repro.hashes.compare`: numbers within the relative tolerance, verdicts, causes
    and notes the same). The timing claims live in ``scorecard_timing.csv`` and are not compared."""
    results = Path(results) if results is not None else report.results_dir()
    found = []
    for where in (results, Path(folder)):
        if not (where / "scorecard.csv").is_file():
            raise PublishError(f"no scorecard in {where} (run ./reproduce.sh first)" if where == results
                               else f"no committed run in {where} (no scorecard.csv)")
        found.append(hashes.current_tables(where).get(hashes.SCORECARD))
    committed_card, fresh = found[1], found[0]
    return hashes.compare({hashes.SCORECARD: committed_card}, {hashes.SCORECARD: fresh}).tables[0]


def main(argv: list[str] | None = None) -> int:
    """``python -m omkl_core.repro.committed {publish,age,compare}``."""
    p = argparse.ArgumentParser(prog="python -m omkl_core.repro.committed",
                                description="The committed full run (reproduction/): write it from a full run, "
                                            "or say how old it is against the code.")
    sub = p.add_subparsers(dest="command", required=True)
    pub = sub.add_parser("publish", help="copy a complete full run into reproduction/ (checked against reference/full)")
    pub.add_argument("--results", type=Path, help="results folder of the full run (default: $OMKL_RESULTS or results/)")
    pub.add_argument("--junit", type=Path, help="JUnit XML of a test run (default: <results>/junit.xml)")
    pub.add_argument("--dest", type=Path, default=FOLDER, help="where to write it (default: reproduction/)")
    sub.add_parser("age", help="whether the code changed since the committed run")
    sub.add_parser("headline", help="rewrite the README's headline from reproduction/")
    cmp_ = sub.add_parser("compare", help="a run's scorecard (numbers and verdicts) against reproduction/scorecard.csv")
    cmp_.add_argument("--results", type=Path, help="results folder of the run (default: $OMKL_RESULTS or results/)")
    ns = p.parse_args(argv)
    if ns.command == "age":
        print(age().sentence())
        return 0
    if ns.command == "headline":
        changed = write_headline()
        print(f"README.md headline {'rewritten' if changed else 'already current'} from {FOLDER}")
        return 0
    if ns.command == "compare":
        try:
            out = compare_scorecard(ns.results)
        except (PublishError, OSError, ValueError) as exc:
            print(f"compare: error: {exc}", file=sys.stderr)
            return 1
        print(f"the run's scorecard against the committed run's (reproduction/scorecard.csv; timing claims excluded): "
              f"{out.line().removeprefix(hashes.SCORECARD + ': ')}")
        for line in out.problems[:40]:
            print("  " + line)
        return 0 if out.status != hashes.DIFFERS else 1
    try:
        publish(ns.results, dest=ns.dest, junit=ns.junit, verbose=True)
    except (PublishError, OSError) as exc:
        print(f"publish: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
