"""The reproduction driver: ``python -m omkl_core.repro [--quick] [--only NAME] [COMMAND [ARGS]]``.

``./reproduce.sh`` sets the environment up and ``exec``\\ s this module; it can also be run
directly from the repository root. Commands:

* (none): execute the notebooks (``--quick``: quick mode, results in ``<results>/quick/``;
  ``--only NAME``: one notebook by name, path or unique prefix), each staged
  (:mod:`omkl_core.repro.notebooks`), then merge the scorecard; ``--local N`` starts one Dask
  ``LocalCluster`` of N single-thread worker processes for the whole run and stops it at the end
  (also on Ctrl-C / SIGTERM), ``--scheduler ADDRESS`` names a running cluster: either way every
  notebook runs with ``OMKL_SCHEDULER`` set to the cluster's address, so its learner runs go
  there (:func:`omkl_core.repro.runner.executor_kwargs`), with the same numbers;
* ``test [ARGS]``: ruff, then pytest with exactly ``ARGS`` (none: ``tests``);
* ``setup``: nothing more (the bootstrap has set the environment up);
* ``mutants [ARGS]``: ``tools/mutants.py ARGS``;
* ``verify [--quick] [ARGS]``: :func:`omkl_core.repro.verify.main`;
* ``publish [ARGS]``: copy the last full run into ``reproduction/`` (:mod:`omkl_core.repro.committed`);
* ``docs [ARGS]``: the documentation site, ``sphinx -W`` (warnings are errors) from ``docs/`` into
  ``docs/_build/html/`` (extra ``docs``), with the executed notebooks and the HTML report of the
  last run (ARGS go to sphinx-build).

Ctrl-C / SIGTERM stop the running child within seconds (:mod:`omkl_core.repro.process`)
and the driver exits 130 / 143. Environment: ``OMKL_RESULTS`` (results folder, default
``results/``), ``OMKL_NOTEBOOKS`` (notebooks folder, default ``notebooks/``).
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import shutil
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .notebooks import UsageError, notebook_list, papermill_command, resolve_only, run_notebooks
from .process import Interrupted, Signals, run_child

__all__ = ["ROOT", "COMMANDS", "Invocation", "parse", "main"]

#: The checkout the driver belongs to.
ROOT = Path(__file__).resolve().parent.parent.parent
COMMANDS = ("test", "setup", "mutants", "verify", "docs", "publish")
PROG = "./reproduce.sh"
SCORECARD = "import omkl_core.repro.report as r; r.scorecard(verbose=True)"
REPORT = "import omkl_core.repro.html_report as h; h.build(verbose=True)"
#: Where ``test`` writes pytest's JUnit XML (read by the HTML report's theory register), under the results folder.
JUNIT = "junit.xml"


@dataclass
class Invocation:
    """A parsed command line: ``command`` (``run`` or one of :data:`COMMANDS`), the notebook
    options and the arguments passed on to the command."""
    command: str = "run"
    quick: bool = False
    only: str | None = None
    args: list[str] = field(default_factory=list)
    local: int | None = None
    scheduler: str | None = None


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG, formatter_class=argparse.RawDescriptionHelpFormatter,
        usage=f"{PROG} [--no-venv] [--quick] [--only NAME] [--local N | --scheduler ADDRESS] "
              "[test|setup|mutants|verify|docs|publish [ARGS ...]]",
        description="Set the environment up and regenerate every table and figure of the papers.",
        epilog="commands:\n"
               "  (none)            execute every notebook in notebooks/, then merge the scorecard\n"
               "  test [ARGS]       ruff, then pytest ARGS as given (test tests/test_cli.py runs only that file)\n"
               "  setup             set-up only\n"
               "  mutants [ARGS]    domain mutation testing of the theory tests (tools/mutants.py)\n"
               "  verify [--quick]  check the recorded results (omkl_core.repro.verify)\n"
               "  docs [ARGS]       build the documentation site (Sphinx, warnings as errors) -> docs/_build/html\n"
               "  publish [ARGS]    copy the last full run into reproduction/ (the committed run readers see)\n\n"
               "Each notebook writes into a staging folder; its tables, figures, scorecard rows and\n"
               "executed copy replace the previous ones only when it succeeds.\n"
               "Ctrl-C / SIGTERM stops the whole run within seconds (exit status 130/143); an\n"
               "interrupted notebook leaves the previous complete outputs in place.\n"
               "Progress: one line per notebook with an ETA from the last run (results/timings.json).\n"
               "Learner runs: a local process pool; --local N: a Dask LocalCluster of N single-thread\n"
               "workers for the whole run; --scheduler ADDRESS: a running Dask cluster (same numbers).\n"
               "Environment: PYTHON (interpreter for set-up), OMKL_RESULTS (results folder),\n"
               "OMKL_NOTEBOOKS (notebooks folder), OMKL_SKIP_SETUP=1 (use the environment as it is).\n"
               "--no-venv: use PYTHON's environment (e.g. conda) instead of .venv (bootstrap option).")
    p.add_argument("--quick", action="store_true",
                   help="quick mode (small horizons, for CI); results in results/quick/")
    p.add_argument("--only", metavar="NAME", help="one notebook: a name, a path or a unique prefix")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--local", metavar="N", type=_workers,
                       help="run the learner runs on a Dask LocalCluster of N single-thread worker processes")
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="run the learner runs on the running Dask cluster at ADDRESS (e.g. tcp://host:8786)")
    p.add_argument("--no-venv", action="store_true", help=argparse.SUPPRESS)   # the bootstrap's
    return p


def _workers(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"N must be a positive integer, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"N must be a positive integer, got {n}")
    return n


def parse(argv: list[str]) -> Invocation:
    """Parse the driver's command line (``SystemExit(2)`` with a one-line error on a wrong one)."""
    parser = _parser()
    split = len(argv)
    i = 0
    while i < len(argv):
        if argv[i] in ("--only", "--local", "--scheduler"):
            i += 2                                   # its value may be any word, even "test"
            continue
        if argv[i] in COMMANDS:
            split = i
            break
        i += 1
    head, command = argv[:split], (argv[split] if split < len(argv) else "run")
    rest = argv[split + 1:]
    if command == "setup":                           # takes no argument; notebook options are an error
        head, rest = head + rest, []
    ns = parser.parse_args(head)
    if ns.only is not None and not ns.only:
        parser.error("--only needs a notebook name")
    if ns.scheduler is not None and not ns.scheduler.strip():
        parser.error("--scheduler needs an address (e.g. tcp://host:8786)")
    run_opts = ((["--quick"] if ns.quick and command != "verify" else []) + (["--only"] if ns.only is not None else [])
                + (["--local"] if ns.local is not None else []) + (["--scheduler"] if ns.scheduler is not None else []))
    if command != "run" and run_opts:
        parser.error(f"{' '.join(run_opts)} applies to notebook runs, not to '{command}' (see {PROG} --help)")
    args = (["--quick"] if ns.quick and command == "verify" else []) + rest
    return Invocation(command=command, quick=ns.quick, only=ns.only, args=args, local=ns.local, scheduler=ns.scheduler)


def _error(msg: str, code: int = 2) -> int:
    print(f"{PROG}: error: {msg}", file=sys.stderr, flush=True)
    return code


def _results_dir(quick: bool) -> Path:
    """``$OMKL_RESULTS`` or ``results/``; a quick run uses its ``quick/`` sub-folder, so it never
    overwrites or mixes with the full results."""
    base = Path(os.environ.get("OMKL_RESULTS") or ROOT / "results")
    return base / "quick" if quick else base


def _test(args: list[str], signals: Signals) -> int:
    env = {**os.environ, "HYPOTHESIS_PROFILE": os.environ.get("HYPOTHESIS_PROFILE", "ci"), "MPLBACKEND": "Agg"}
    ruff = Path(sys.executable).parent / "ruff"
    ruff = str(ruff) if ruff.exists() else shutil.which("ruff")
    if ruff is None:
        return _error("ruff not found next to the interpreter or on PATH (it is in requirements.lock)", 1)
    print("[lint] ruff check omkl_core tests benchmarks tools", flush=True)
    if run_child([ruff, "check", "--quiet", "omkl_core", "tests", "benchmarks", "tools"], signals, env=env, cwd=ROOT):
        return _error("ruff found problems (above)", 1)
    # pytest gets exactly the user's arguments: paths run only those files, options alone
    # (-k, -x) fall back to pyproject's testpaths; no argument: the whole suite
    junit = [] if any(a.startswith("--junit") for a in args) else [f"--junitxml={_results_dir(False) / JUNIT}"]
    return run_child([sys.executable, "-m", "pytest", *(args or ["tests"]), *_xdist_args(args), *junit], signals,
                     env=env, cwd=ROOT)


def _xdist_args(args: list[str]) -> list[str]:
    """pytest-xdist's options for every core (``-n N --dist loadgroup``: tests marked with one
    ``xdist_group`` run one after the other in one worker), unless the arguments choose (``-n``,
    ``-p no:xdist``), there is one core, or pytest-xdist is not installed."""
    chosen = any(a == "-n" or a.startswith(("-n", "--numprocesses")) or a in ("no:xdist", "-pno:xdist")
                 for a in args)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if chosen or cores < 2 or importlib.util.find_spec("xdist") is None:
        return []
    return ["-n", str(cores), "--dist", "loadgroup"]


def _verify(args: list[str]) -> int:
    try:
        verify = importlib.import_module(f"{__package__}.verify")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__package__}.verify":
            raise
        return _error("verify is not available in this checkout (omkl_core/repro/verify.py is missing)", 1)
    return int(verify.main(args) or 0)


#: The documentation site's sources and output.
DOCS, DOCS_OUT = ROOT / "docs", ROOT / "docs" / "_build" / "html"


def _docs(args: list[str], signals: Signals) -> int:
    missing = [m for m in ("sphinx", "myst_nb", "pydata_sphinx_theme", "numpydoc") if importlib.util.find_spec(m) is None]
    if missing:
        return _error(f"the documentation needs the extra 'docs' ({', '.join(missing)} missing): "
                      "pip install -e '.[docs]' (./reproduce.sh setup installs it from requirements.lock)", 1)
    print(f"[docs] sphinx-build -W: {DOCS} -> {DOCS_OUT}", flush=True)
    env = {**os.environ, "MPLBACKEND": "Agg"}
    rc = run_child([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-E", "-b", "html", *args,
                    str(DOCS), str(DOCS_OUT)], signals, env=env, cwd=ROOT)
    if rc:
        return _error("the documentation build failed (warnings are errors; above)", 1)
    print(f"[docs] {DOCS_OUT / 'index.html'}", flush=True)
    return 0


def _run(inv: Invocation, signals: Signals) -> int:
    folder = Path(os.environ.get("OMKL_NOTEBOOKS") or ROOT / "notebooks")
    try:
        nbs = [resolve_only(inv.only, folder)] if inv.only is not None else notebook_list(folder)
    except UsageError as exc:
        return _error(str(exc))
    if not nbs:
        return _error(f"no notebook in {folder}")
    mode = "quick" if inv.quick else "full"
    results = _results_dir(inv.quick)
    top = results
    while not top.exists() and top != top.parent:
        top = top.parent
    if not top.is_dir():          # OMKL_RESULTS naming a file: one line, before anything starts
        return _error(f"the results folder {results} cannot be used: {top} is a file, not a folder "
                      f"(OMKL_RESULTS={os.environ.get('OMKL_RESULTS') or '(unset)'})", 1)
    os.environ["OMKL_RESULTS"], os.environ["OMKL_MODE"] = str(results), mode
    try:
        cluster = _cluster(inv, signals)
        address = cluster.__enter__()
    except (ImportError, OSError, ValueError) as exc:
        return _error(f"could not start the Dask cluster: {exc}", 1)
    previous = os.environ.get("OMKL_SCHEDULER")
    try:
        if address is not None:
            os.environ["OMKL_SCHEDULER"] = address
        # then, under the same lock, the HTML report of whatever the results folder holds
        # (results/report/, quick: results/quick/report/): a run the lock refuses rebuilds nothing
        return run_notebooks(nbs, results=results, mode=mode, command=papermill_command(sys.executable, inv.quick),
                             signals=signals, scorecard=[sys.executable, "-c", SCORECARD],
                             report=[sys.executable, "-c", REPORT])
    finally:
        if previous is None:
            os.environ.pop("OMKL_SCHEDULER", None)
        else:
            os.environ["OMKL_SCHEDULER"] = previous
        cluster.__exit__(None, None, None)


@contextmanager
def _cluster(inv: Invocation, signals: Signals):
    """The Dask scheduler address the notebooks' runs go to: a ``LocalCluster`` of ``--local N``
    single-thread worker processes started here (and stopped on leaving, signals held back while it
    stops), the address of ``--scheduler``, or None (the notebooks' own process pool)."""
    if inv.scheduler is not None:
        print(f"[dask] learner runs go to the cluster at {inv.scheduler}", flush=True)
        yield inv.scheduler
        return
    if inv.local is None:
        yield None
        return
    from .runner import local_cluster  # noqa: PLC0415  # lazy: load time of the driver (a command line)

    cm, started = local_cluster(inv.local), False
    try:
        with signals.deferred():                 # a signal while it starts: stop it once started
            address = cm.__enter__()
            started = True
        print(f"[dask] local cluster of {inv.local} single-thread worker process(es) at {address}", flush=True)
        yield address
    finally:
        if started:
            with signals.ignored():
                cm.__exit__(None, None, None)
            print("[dask] local cluster stopped", flush=True)


def main(argv: list[str] | None = None) -> int:
    """Run the driver; returns the exit status (130/143 after SIGINT/SIGTERM)."""
    inv = parse(sys.argv[1:] if argv is None else list(argv))
    with Signals() as signals:
        try:
            if inv.command == "setup":
                print(f"[setup] environment ready: {sys.prefix}", flush=True)
                return 0
            if inv.command == "test":
                return _test(inv.args, signals)
            if inv.command == "mutants":
                return run_child([sys.executable, str(ROOT / "tools" / "mutants.py"), *inv.args], signals, cwd=ROOT)
            if inv.command == "verify":
                return _verify(inv.args)
            if inv.command == "docs":
                return _docs(inv.args, signals)
            if inv.command == "publish":
                from . import committed  # noqa: PLC0415  # lazy: load time of the driver (a command line)

                return committed.main(["publish", *inv.args])
            return _run(inv, signals)
        except Interrupted as stop:
            print(f"error: interrupted ({stop.name}); no further step started", file=sys.stderr, flush=True)
            return stop.exit_code
