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
from .notebooks import notebook_list
from .report_inputs import _json, junit_outcomes, theory_rows

__all__ = ["FOLDER", "Age", "age", "publish", "exists", "main", "CODE_PATHS", "compare_scorecard"]

ROOT = Path(__file__).resolve().parent.parent.parent
#: Where the committed full run lives in the checkout.
FOLDER = ROOT / "reproduction"
#: The paths whose change can change a run's numbers (:func:`age` lists those changed since the run).
CODE_PATHS = ("omkl_core", "notebooks", "requirements.lock", "pyproject.toml")
_SCORECARD_FILES = ("scorecard.csv", "scorecard_timing.csv", "scorecard.md", "scorecard.stamp.json", "timings.json")


def exists(folder: Path = FOLDER) -> bool:
    """Whether ``folder`` holds a committed run (its scorecard stamp says a full run)."""
    return _json(Path(folder) / "scorecard.stamp.json").get("mode") == "full"


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
    if dest.exists() and not (dest / "scorecard.stamp.json").is_file():
        raise PublishError(f"{dest} exists and is not a committed run (no scorecard.stamp.json): refusing to replace it")
    if dest.resolve() == results.resolve():
        raise PublishError(f"--dest {dest} is the results folder itself")
    _check_complete(results)
    junit_path = Path(junit) if junit is not None else results / "junit.xml"
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
        stamp["results"] = "reproduction/ (the committed copy of a full run)"
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
    cmp_ = sub.add_parser("compare", help="a run's scorecard (numbers and verdicts) against reproduction/scorecard.csv")
    cmp_.add_argument("--results", type=Path, help="results folder of the run (default: $OMKL_RESULTS or results/)")
    ns = p.parse_args(argv)
    if ns.command == "age":
        print(age().sentence())
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
