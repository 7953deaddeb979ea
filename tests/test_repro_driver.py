"""The reproduction driver (omkl_core.repro) in-process: argument parsing, --only resolution,
staging, the timings file, and signal handling with a fake notebook runner.

The fake runner is ``python -c RUNNER NB OUT``: it executes the "notebook" NB (plain Python
source, with ``results`` = ``$OMKL_RESULTS``) and writes OUT like papermill's executed copy (a
JSON notebook).
The end-to-end runs through ``./reproduce.sh`` and papermill are in tests/test_reproduce.py.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from omkl_core.repro import driver, notebooks, process
from omkl_core.repro.notebooks import Stage, Timings, UsageError, resolve_only, run_notebooks
from omkl_core.repro.process import Interrupted, Signals, run_child

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="process groups and /proc: Linux")

RUNNER = ("import os, sys, pathlib\n"
          "nb, out = sys.argv[1], sys.argv[2]\n"
          "results = pathlib.Path(os.environ['OMKL_RESULTS'])\n"
          "pathlib.Path(out).write_text('{\"cells\": [], \"executed\": \"' + nb + '\"}')\n"
          "exec(pathlib.Path(nb).read_text())\n")


def fake_command(nb: Path, out: Path) -> list[str]:
    return [sys.executable, "-c", RUNNER, str(nb), str(out)]


WRITE = ("(results / 'tables').mkdir(exist_ok=True)\n"
         "(results / 'tables' / 'a.csv').write_text('x\\n{v}\\n')\n"
         "(results / 'scorecard').mkdir(exist_ok=True)\n"
         "(results / 'scorecard' / 'a.csv').write_text('rows {v}')\n"
         "(results / 'sweep-cache' / 'cell-{v}').write_text('cached')\n"
         "(results / 'scorecard.md').write_text('merged view of this stage')\n")


@pytest.fixture
def ws(tmp_path):
    nbs, res = tmp_path / "notebooks", tmp_path / "results"
    nbs.mkdir()
    return nbs, res


def _nb(folder: Path, name: str, source: str) -> Path:
    path = folder / f"{name}.ipynb"
    path.write_text(source)
    return path


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _later(seconds: float, sig: int = signal.SIGINT) -> threading.Timer:
    """Send ``sig`` to this process after ``seconds`` (the handler runs in the main thread)."""
    t = threading.Timer(seconds, os.kill, (os.getpid(), sig))
    t.start()
    return t


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


# ----------------------------------------------------------------------------- parsing
@pytest.mark.parametrize("argv, want", [
    ([], ("run", False, None, [])),
    (["--quick"], ("run", True, None, [])),
    (["--only", "p000"], ("run", False, "p000", [])),
    (["--only=p000", "--quick"], ("run", True, "p000", [])),
    (["--only", "test"], ("run", False, "test", [])),            # a notebook named like a command
    (["test"], ("test", False, None, [])),
    (["test", "tests/test_cli.py", "-x", "--quick"], ("test", False, None, ["tests/test_cli.py", "-x", "--quick"])),
    (["mutants", "--list"], ("mutants", False, None, ["--list"])),
    (["setup"], ("setup", False, None, [])),
    (["verify", "--quick"], ("verify", False, None, ["--quick"])),
    (["--quick", "verify"], ("verify", True, None, ["--quick"])),
    (["--no-venv", "--quick"], ("run", True, None, [])),
])
def test_parse(argv, want):
    inv = driver.parse(argv)
    assert (inv.command, inv.quick, inv.only, inv.args) == want


@pytest.mark.parametrize("argv, message", [
    (["--quick", "test"], "--quick applies to notebook runs, not to 'test'"),
    (["--only", "x", "mutants"], "--only applies to notebook runs, not to 'mutants'"),
    (["setup", "--quick"], "--quick applies to notebook runs, not to 'setup'"),
    (["--only", "x", "verify"], "--only applies to notebook runs, not to 'verify'"),
    (["setup", "extra"], "unrecognized arguments: extra"),
    (["--only", ""], "--only needs a notebook name"),
    (["--only"], "argument --only: expected one argument"),
    (["bogus"], "unrecognized arguments: bogus"),
])
def test_parse_errors_are_one_line_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        driver.parse(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"{driver.PROG}: error: {message}" in err


@pytest.mark.parametrize("argv, want", [
    (["--quick", "--local", "2"], (2, None, "run")),
    (["--local=3", "--only", "p000"], (3, None, "run")),
    (["--scheduler", "tcp://10.0.0.1:8786", "--quick"], (None, "tcp://10.0.0.1:8786", "run")),
    (["--local", "2", "--only", "test"], (2, None, "run")),            # a notebook named like a command
    (["--quick"], (None, None, "run")),
])
def test_parse_local_and_scheduler(argv, want):
    inv = driver.parse(argv)
    assert (inv.local, inv.scheduler, inv.command) == want


@pytest.mark.parametrize("argv, message", [
    (["--local", "0"], "argument --local: N must be a positive integer, got 0"),
    (["--local", "two"], "argument --local: N must be a positive integer, got 'two'"),
    (["--local", "2", "--scheduler", "tcp://h:1"], "argument --scheduler: not allowed with argument --local"),
    (["--scheduler", " "], "--scheduler needs an address"),
    (["--local", "2", "verify"], "--local applies to notebook runs, not to 'verify'"),
    (["--scheduler", "tcp://h:1", "test"], "--scheduler applies to notebook runs, not to 'test'"),
])
def test_parse_local_and_scheduler_errors_are_one_line_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        driver.parse(argv)
    assert exc.value.code == 2
    assert f"{driver.PROG}: error: {message}" in capsys.readouterr().err


def _cluster_seen(seen, *, stop=None):
    """A stand-in for run_notebooks: records OMKL_SCHEDULER as the notebooks would see it and runs one
    task on that cluster (or raises ``stop``, as a signal would)."""
    def run(nbs, **kw):
        address = os.environ.get("OMKL_SCHEDULER")
        seen.append(address)
        if address is not None and address.startswith("tcp://127.0.0.1"):
            distributed = pytest.importorskip("distributed")
            with distributed.Client(address, timeout=20) as client:
                seen.append(sum(client.gather(client.map(abs, [-1, -2, 3]))))
                seen.append(len(client.scheduler_info()["workers"]))
        if stop is not None:
            raise stop
        return 0
    return run


def _stopped(address) -> bool:
    distributed = pytest.importorskip("distributed")
    try:
        distributed.Client(address, timeout=2).close()
    except (OSError, TimeoutError):
        return True
    return False


@pytest.mark.xdist_group("dask")   # a Dask cluster of processes: one at a time (pytest-xdist)
def test_local_starts_one_cluster_for_the_run_and_stops_it(ws, monkeypatch, capsys):
    pytest.importorskip("distributed")
    nbs, res = ws
    _nb(nbs, "a", "")
    monkeypatch.setenv("OMKL_NOTEBOOKS", str(nbs))
    monkeypatch.setenv("OMKL_RESULTS", str(res))
    monkeypatch.delenv("OMKL_SCHEDULER", raising=False)
    seen = []
    monkeypatch.setattr(driver, "run_notebooks", _cluster_seen(seen))
    assert driver.main(["--quick", "--local", "2"]) == 0
    address, total, workers = seen
    assert address.startswith("tcp://") and total == 6 and workers == 2
    assert "OMKL_SCHEDULER" not in os.environ                       # the driver's environment is restored
    assert _stopped(address)
    out = capsys.readouterr().out
    assert "[dask] local cluster of 2 single-thread worker process(es)" in out and "[dask] local cluster stopped" in out


@pytest.mark.xdist_group("dask")   # a Dask cluster of processes: one at a time (pytest-xdist)
def test_local_cluster_is_stopped_on_a_signal(ws, monkeypatch):
    pytest.importorskip("distributed")
    nbs, res = ws
    _nb(nbs, "a", "")
    monkeypatch.setenv("OMKL_NOTEBOOKS", str(nbs))
    monkeypatch.setenv("OMKL_RESULTS", str(res))
    seen = []
    monkeypatch.setattr(driver, "run_notebooks", _cluster_seen(seen, stop=Interrupted(signal.SIGINT)))
    assert driver.main(["--local", "1"]) == 130
    assert seen[2] == 1 and _stopped(seen[0])


@pytest.mark.xdist_group("dask")   # a Dask cluster of processes: one at a time (pytest-xdist)
def test_scheduler_sets_the_address_for_the_notebooks(ws, monkeypatch):
    nbs, res = ws
    _nb(nbs, "a", "")
    monkeypatch.setenv("OMKL_NOTEBOOKS", str(nbs))
    monkeypatch.setenv("OMKL_RESULTS", str(res))
    monkeypatch.setenv("OMKL_SCHEDULER", "tcp://before:1")
    seen = []
    monkeypatch.setattr(driver, "run_notebooks", _cluster_seen(seen))
    assert driver.main(["--scheduler", "tcp://elsewhere:8786"]) == 0
    assert seen == ["tcp://elsewhere:8786"]
    assert os.environ["OMKL_SCHEDULER"] == "tcp://before:1"


@pytest.mark.xdist_group("dask")   # a Dask cluster of processes: one at a time (pytest-xdist)
def test_runner_executor_kwargs_follow_the_environment(monkeypatch):
    from omkl_core.repro import runner

    monkeypatch.delenv("OMKL_SCHEDULER", raising=False)
    monkeypatch.delenv("OMKL_EXECUTOR", raising=False)
    assert runner.executor_kwargs(3) == {"executor": "processes", "max_workers": 3}
    monkeypatch.setenv("OMKL_EXECUTOR", "serial")
    assert runner.executor_kwargs(3) == {"executor": "serial"}
    monkeypatch.setenv("OMKL_SCHEDULER", "tcp://h:1")
    assert runner.executor_kwargs(3) == {"executor": "dask", "client": "tcp://h:1"}
    monkeypatch.delenv("OMKL_SCHEDULER")
    monkeypatch.setenv("OMKL_EXECUTOR", "threads")
    with pytest.raises(ValueError, match="OMKL_EXECUTOR must be 'serial' or 'processes'"):
        runner.executor_kwargs()


def test_resolve_only_by_name_path_and_prefix(ws):
    nbs, _ = ws
    for name in ("p000_vaw2", "p000_datasets", "p001_noisy"):
        _nb(nbs, name, "")
    assert resolve_only("p000_vaw2", nbs).name == "p000_vaw2.ipynb"
    assert resolve_only("notebooks/p000_vaw2.ipynb", nbs).name == "p000_vaw2.ipynb"
    assert resolve_only(str(nbs / "p001_noisy.ipynb"), nbs).name == "p001_noisy.ipynb"
    assert resolve_only("p001", nbs).name == "p001_noisy.ipynb"
    with pytest.raises(UsageError, match="ambiguous prefix, matches: p000_datasets p000_vaw2"):
        resolve_only("p000", nbs)
    with pytest.raises(UsageError, match="no notebook matches; choose from: p000_datasets p000_vaw2 p001_noisy"):
        resolve_only("zz", nbs)
    with pytest.raises(UsageError, match="needs a notebook name"):
        resolve_only("", nbs)


def test_main_reports_a_wrong_only_and_a_missing_verify(ws, monkeypatch, capsys):
    nbs, res = ws
    _nb(nbs, "a", "")
    monkeypatch.setenv("OMKL_NOTEBOOKS", str(nbs))
    monkeypatch.setenv("OMKL_RESULTS", str(res))
    assert driver.main(["--only", "zz"]) == 2
    assert "--only zz: no notebook matches; choose from: a" in capsys.readouterr().err
    monkeypatch.setattr(driver.importlib, "import_module", _missing_verify)
    assert driver.main(["verify"]) == 1
    assert "verify is not available" in capsys.readouterr().err
    assert not res.exists(), "a wrong command line wrote results"


def _missing_verify(name):
    raise ModuleNotFoundError(f"No module named {name!r}", name=name)


def test_verify_dispatches_its_arguments(monkeypatch):
    seen = []

    class FakeVerify:
        @staticmethod
        def main(argv):
            seen.append(argv)
            return 3

    monkeypatch.setattr(driver.importlib, "import_module", lambda name: FakeVerify)
    assert driver.main(["--quick", "verify", "--strict"]) == 3
    assert seen == [["--quick", "--strict"]]


# ----------------------------------------------------------------------------- staging
def test_stage_moves_only_what_the_run_wrote(tmp_path):
    res = tmp_path / "results"
    (res / "scorecard").mkdir(parents=True)
    (res / "scorecard" / "other.csv").write_text("other rows")
    (res / "scorecard" / "a.csv").write_text("old a rows")
    stage = Stage(res, "a")
    path = stage.prepare()
    assert (path / "sweep-cache").is_symlink() and (path / "notebooks").is_dir()
    assert (path / "scorecard" / "other.csv").read_text() == "other rows"    # the merged view
    (path / "scorecard" / "a.csv").write_text("new a rows")
    (path / "tables").mkdir()
    (path / "tables" / "t.csv").write_text("t")
    (path / "sweep-cache" / "cell").write_text("c")                          # straight into the cache
    (path / "scorecard.md").write_text("merged by the notebook")
    assert stage.outputs() == ["scorecard/a.csv", "tables/t.csv"]
    (res / "scorecard" / "other.csv").write_text("changed meanwhile")
    stage.commit()
    assert (res / "scorecard" / "a.csv").read_text() == "new a rows"
    assert (res / "scorecard" / "other.csv").read_text() == "changed meanwhile"   # not overwritten by the copy
    assert (res / "tables" / "t.csv").read_text() == "t"
    assert (res / "sweep-cache" / "cell").read_text() == "c"
    assert not (res / "scorecard.md").exists()
    assert not (res / ".staging").exists()


def test_timings_file(tmp_path):
    path = tmp_path / "timings.json"
    t = Timings(path)
    assert t.last("a") is None
    t.record("a", 12.345, 6.7, "quick")
    data = json.loads(path.read_text())
    assert data["notebooks"]["a"]["wall_s"] == 12.35 and data["notebooks"]["a"]["cpu_s"] == 6.7
    assert data["notebooks"]["a"]["mode"] == "quick"
    assert Timings(path).last("a") == 12.35
    path.write_text("{not json")
    assert Timings(path).last("a") is None


# ----------------------------------------------------------------------------- runs
def _run(nbs, res, signals, heartbeat=60.0, **kw):
    return run_notebooks(sorted(nbs.glob("*.ipynb")), results=res, mode="quick", command=fake_command,
                         signals=signals, scorecard=None, heartbeat=heartbeat, tick=0.05, **kw)


def test_success_replaces_outputs_and_records_timings_and_eta(ws, capsys):
    nbs, res = ws
    nb = _nb(nbs, "a", WRITE.format(v=1))
    with Signals() as signals:
        assert _run(nbs, res, signals) == 0
        first = capsys.readouterr().out
        assert "[1/1] a: started" in first and "ok  (CPU" in first and "ETA" not in first
        assert (res / "tables" / "a.csv").read_text() == "x\n1\n"
        assert json.loads((res / "notebooks" / "a.ipynb").read_text())["executed"].endswith("a.ipynb")
        assert Timings(res / "timings.json").last("a") is not None
        nb.write_text(WRITE.format(v=2) + "import time; time.sleep(0.4)\n")
        assert _run(nbs, res, signals, heartbeat=0.1) == 0
    second = capsys.readouterr().out
    assert "last run" in second and "ETA" in second
    assert "a: running" in second                                          # the heartbeat line
    assert (res / "tables" / "a.csv").read_text() == "x\n2\n"
    assert (res / "scorecard" / "a.csv").read_text() == "rows 2"
    assert sorted(p.name for p in (res / "sweep-cache").iterdir()) == ["cell-1", "cell-2"]
    assert not (res / "scorecard.md").exists() and not (res / ".staging").exists()


def test_a_failed_run_keeps_the_previous_outputs(ws, capsys):
    nbs, res = ws
    nb = _nb(nbs, "a", WRITE.format(v=1))
    with Signals() as signals:
        assert _run(nbs, res, signals) == 0
        before = _snapshot(res)
        nb.write_text(WRITE.format(v=2) + "raise RuntimeError('boom')\n")
        assert _run(nbs, res, signals) == 1
    out = capsys.readouterr()
    assert "FAILED" in out.out and "boom" in out.out and "previous complete outputs" in out.out
    assert "error: failed: a" in out.err
    after = _snapshot(res)
    failed = after.pop("notebooks/a.FAILED.ipynb")
    assert json.loads(failed)["executed"].endswith("a.ipynb")
    assert b"boom" in after.pop("notebooks/a.FAILED.log")                  # the log is staged: a.log is the last good one
    after.pop("sweep-cache/cell-2")                                       # the shared cache keeps cells
    assert after == before


def test_sigint_during_a_rerun_keeps_the_earlier_outputs_byte_identical(ws, capsys):
    """Issue 21: an interrupted re-run deleted the finished results of the earlier run."""
    nbs, res = ws
    _nb(nbs, "a", WRITE.format(v=1))
    _nb(nbs, "b", "(results / 'tables').mkdir()\n(results / 'tables' / 'b.csv').write_text('b')\n")
    with Signals() as signals:
        assert _run(nbs, res, signals) == 0
    before = _snapshot(res)
    pidfile = nbs / "child.pid"
    _nb(nbs, "a", WRITE.format(v=2) + f"pathlib.Path({str(pidfile)!r}).write_text(str(os.getpid()))\n"
        "import time; time.sleep(600)\n")
    (nbs / "b.ipynb").write_text(f"pathlib.Path({str(nbs / 'b_started')!r}).write_text('yes')\n")
    capsys.readouterr()
    t0 = time.monotonic()
    timer = _later(1.5)
    try:
        with Signals() as signals, pytest.raises(Interrupted) as exc:
            _run(nbs, res, signals)
    finally:
        timer.cancel()
    elapsed = time.monotonic() - t0
    assert exc.value.exit_code == 130 and exc.value.name == "SIGINT"
    assert elapsed < 1.5 + process.GRACE_S + 3, elapsed
    child = int(pidfile.read_text())
    assert not _alive(child), "the notebook's process still runs"
    assert not (nbs / "b_started").exists(), "a further notebook started after the interrupt"
    after = _snapshot(res)
    marker = after.pop("notebooks/a.INTERRUPTED").decode()
    assert "INTERRUPTED by SIGINT" in marker and "previous complete outputs" in marker
    assert b"INTERRUPTED by SIGINT" in after.pop("notebooks/a.FAILED.log")   # a.log is the last good one
    after.pop("sweep-cache/cell-2")
    assert after == before, "the earlier outputs changed"
    assert "previous complete outputs" in capsys.readouterr().err
    assert not (res / ".staging").exists()


def test_sigterm_stops_a_child_group_within_seconds(tmp_path):
    """``sleep`` in a shell in its own session, with a grandchild: SIGTERM to the driver stops both."""
    pids = tmp_path / "pids"
    script = f"sleep 600 & echo $! > '{pids}'; sleep 600"
    t0 = time.monotonic()
    timer = _later(0.5, signal.SIGTERM)
    try:
        with Signals() as signals, pytest.raises(Interrupted) as exc:
            run_child(["bash", "-c", script], signals, tick=0.05)
    finally:
        timer.cancel()
    assert exc.value.exit_code == 143
    assert time.monotonic() - t0 < 0.5 + process.GRACE_S + 2
    grandchild = int(pids.read_text())
    end = time.monotonic() + 3
    while _alive(grandchild) and time.monotonic() < end:
        time.sleep(0.05)
    assert not _alive(grandchild)


def test_signals_are_deferred_while_a_stage_moves():
    with Signals() as signals:
        with pytest.raises(Interrupted), signals.deferred():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
            moved = True                          # the block finished before the exception
    assert moved


def test_a_driver_started_with_sigint_ignored_still_stops(tmp_path):
    """``./reproduce.sh &`` from a script: SIGINT ignored on entry; the driver installs its handler."""
    ready = tmp_path / "ready"
    code = ("import sys, pathlib; from omkl_core.repro.process import Signals, run_child, Interrupted\n"
            "with Signals() as s:\n"
            f"    pathlib.Path({str(ready)!r}).write_text('1')\n"
            "    try: run_child(['sleep', '600'], s)\n"
            "    except Interrupted as e: sys.exit(e.exit_code)\n")
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=Path(driver.ROOT),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))  # noqa: PLW1509
    try:
        end = time.monotonic() + 60
        while not ready.exists() and time.monotonic() < end:
            time.sleep(0.05)
        time.sleep(0.3)
        os.kill(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=10) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_children_cpu_seconds_counts_a_finished_child():
    with Signals() as signals:
        before = process.children_cpu_seconds()
        assert run_child([sys.executable, "-c", "sum(i * i for i in range(3_000_000))"], signals) == 0
    assert process.children_cpu_seconds() - before > 0.05


def test_papermill_command_passes_quick_and_the_notebook_folder(tmp_path):
    cmd = notebooks.papermill_command("/py", True)(tmp_path / "n.ipynb", tmp_path / "o.ipynb")
    assert cmd[:3] == ["/py", "-m", "papermill"] and cmd[cmd.index("-p") + 2] == "True"
    assert cmd[cmd.index("--cwd") + 1] == str(tmp_path) and cmd[cmd.index("-k") + 1] == "omkl"


def test_test_command_runs_ruff_then_pytest_with_exactly_the_users_arguments(monkeypatch):
    """Issue 21: the driver put ``tests`` in front of the user's arguments (the whole suite ran)."""
    calls = []
    monkeypatch.setattr(driver, "run_child", lambda cmd, signals, **kw: calls.append((list(cmd), kw)) or 0)
    monkeypatch.setattr(driver.os, "sched_getaffinity", lambda pid: {0, 1})     # two cores: both used
    par = ["-n", "2", "--dist", "loadgroup"]                                     # issue 54: pytest-xdist
    assert driver.main(["test", "tests/test_cli.py", "-x"]) == 0
    (ruff, _), (pytest_cmd, kw) = calls
    junit = f"--junitxml={driver._results_dir(False) / 'junit.xml'}"    # issue 31: the report reads the outcomes
    assert ruff[1:3] == ["check", "--quiet"] and pytest_cmd[1:] == ["-m", "pytest", "tests/test_cli.py", "-x", *par, junit]
    assert kw["env"]["HYPOTHESIS_PROFILE"] and kw["cwd"] == driver.ROOT
    calls.clear()
    assert driver.main(["test"]) == 0
    assert calls[1][0][1:] == ["-m", "pytest", "tests", *par, junit]
    calls.clear()
    assert driver.main(["test", "--junitxml=elsewhere.xml"]) == 0     # the user's own JUnit path wins
    assert calls[1][0][1:] == ["-m", "pytest", "--junitxml=elsewhere.xml", *par]
    calls.clear()
    assert driver.main(["test", "-n", "1"]) == 0                       # the user's own choice of workers wins
    assert calls[1][0][1:] == ["-m", "pytest", "-n", "1", junit]
    calls.clear()
    monkeypatch.setattr(driver.os, "sched_getaffinity", lambda pid: {0})     # one core: no workers
    assert driver.main(["test"]) == 0 and calls[1][0][1:] == ["-m", "pytest", "tests", junit]
    calls.clear()
    monkeypatch.setattr(driver, "run_child", lambda cmd, signals, **kw: calls.append(list(cmd)) or 1)
    assert driver.main(["test", "-k", "x"]) == 1                  # ruff failed: pytest never starts
    assert len(calls) == 1


def test_mutants_passes_its_arguments_on(monkeypatch):
    calls = []
    monkeypatch.setattr(driver, "run_child", lambda cmd, signals, **kw: calls.append(list(cmd)) or 0)
    assert driver.main(["mutants", "--list", "--only", "x"]) == 0
    assert calls[0][1:] == [str(driver.ROOT / "tools" / "mutants.py"), "--list", "--only", "x"]


def test_every_notebook_run_ends_by_writing_the_html_report(monkeypatch, tmp_path):
    """Issue 31: quick and full runs write <results>/report/index.html after the scorecard, also when a
    notebook failed (the report shows what the results folder holds)."""
    seen, calls = {}, []
    monkeypatch.setenv("OMKL_RESULTS", str(tmp_path))
    monkeypatch.setenv("OMKL_MODE", "unspecified")        # the driver sets both; restored after the test

    def fake_run(nbs, *, results, mode, **kw):
        seen.update(results=results, mode=mode, scorecard=kw["scorecard"], report=kw["report"])
        return 1
    monkeypatch.setattr(driver, "run_notebooks", fake_run)
    monkeypatch.setattr(driver, "run_child", lambda cmd, signals, **kw: calls.append((list(cmd), kw)) or 0)
    assert driver.main(["--quick"]) == 1
    assert seen["results"] == tmp_path / "quick" and seen["mode"] == "quick"
    assert seen["report"][1:] == ["-c", driver.REPORT] and "html_report" in driver.REPORT
    assert calls == [], "the report is built by run_notebooks, under the results folder's lock (issue 42)"


def test_docs_command_builds_the_site_with_warnings_as_errors(monkeypatch):
    """Issue 31: ./reproduce.sh docs runs sphinx-build -W on docs/ into docs/_build/html (ARGS passed on)."""
    calls = []
    monkeypatch.setattr(driver, "run_child", lambda cmd, signals, **kw: calls.append((list(cmd), kw)) or 0)
    monkeypatch.setattr(driver.importlib.util, "find_spec", lambda name: object())
    assert driver.main(["docs", "-j", "2"]) == 0
    (cmd, kw), = calls
    assert cmd[1:3] == ["-m", "sphinx"] and "-W" in cmd and "-j" in cmd
    assert cmd[-2:] == [str(driver.ROOT / "docs"), str(driver.ROOT / "docs" / "_build" / "html")]
    monkeypatch.setattr(driver, "run_child", lambda cmd, signals, **kw: 1)
    assert driver.main(["docs"]) == 1                                  # a warning fails the build


def test_docs_command_names_the_missing_extra(monkeypatch, capsys):
    monkeypatch.setattr(driver.importlib.util, "find_spec", lambda name: None if name == "myst_nb" else object())
    assert driver.main(["docs"]) == 1
    assert "myst_nb missing" in capsys.readouterr().err
