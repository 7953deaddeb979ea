"""./reproduce.sh as a driver: interruptible, callable from anywhere, strict about options.

The notebooks run here are tiny ones written into a temporary folder (``OMKL_NOTEBOOKS``),
with results in another (``OMKL_RESULTS``) and ``OMKL_SKIP_SETUP=1`` so that the shared
virtual environment is used as it is. The only timed assertion of the suite is the
interrupt bound: SIGINT to exit within ``INTERRUPT_BOUND_S`` seconds.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
DRIVER = ROOT / "reproduce.sh"
INTERRUPT_BOUND_S = 15.0

pytestmark = pytest.mark.skipif(not (ROOT / ".venv" / "bin" / "python").exists() or sys.platform != "linux",
                                reason="needs the project's .venv (with the 'omkl' kernel) on Linux")


def _notebook(path: Path, cells: list[str]) -> None:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "omkl", "display_name": "Python (omkl)", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    params = nbformat.v4.new_code_cell("quick = False")
    params.metadata["tags"] = ["parameters"]
    nb.cells = [params] + [nbformat.v4.new_code_cell(c) for c in cells]
    nbformat.write(nb, path)


@pytest.fixture
def workspace(tmp_path):
    nbs, res = tmp_path / "notebooks", tmp_path / "results"
    nbs.mkdir()
    _notebook(nbs / "a_sleep.ipynb", [
        "import os, time, pathlib\npathlib.Path('kernel.pid').write_text(str(os.getpid()))",
        "import omkl_core.repro.report as r, pandas as pd\nr.save_table(pd.DataFrame({'x': [1]}), 'partial_table')",
        "print('sleeping', flush=True)\ntime.sleep(600)",
    ])
    _notebook(nbs / "b_next.ipynb", [
        "import pathlib\npathlib.Path('b_started').write_text('yes')",
        "import omkl_core.repro.report as r, pandas as pd\nr.save_table(pd.DataFrame({'q': [quick]}), 'b_table')",
    ])
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMKL_SKIP_SETUP": "1", "OMKL_NOTEBOOKS": str(nbs),
           "OMKL_RESULTS": str(res)}
    env.pop("OMKL_MODE", None)
    return nbs, res, env


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie waiting for its parent to reap it counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state != "Z"


def _wait_for(pred, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.2)
    return pred()


def _interrupt(proc, pid: int, sig=signal.SIGINT, group: bool = True) -> float:
    t0 = time.monotonic()
    if group:
        os.killpg(pid, sig)
    else:
        os.kill(pid, sig)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the driver was still running 60 s after the signal")
    return time.monotonic() - t0


def _check_stopped(nbs, res, elapsed):
    assert elapsed < INTERRUPT_BOUND_S, f"SIGINT -> exit took {elapsed:.1f} s"
    assert not (nbs / "b_started").exists(), "a further notebook started after the interrupt"
    kernel = int((nbs / "kernel.pid").read_text())
    assert _wait_for(lambda: not _alive(kernel), 5.0), f"the kernel (pid {kernel}) still runs"
    out = res / "notebooks"
    assert not (out / "a_sleep.ipynb").exists() and not (out / "a_sleep.partial.ipynb").exists()
    assert "INTERRUPTED" in (out / "a_sleep.INTERRUPTED").read_text()
    assert not (res / "tables" / "partial_table.csv").exists(), "the interrupted notebook's table was kept"


def _staged_log(res, name):
    """The log of a running notebook: staged with its outputs (``NAME.log`` after a success)."""
    return res / ".staging" / name / "notebooks" / f"{name}.log"


def test_sigint_mid_cell_stops_the_whole_run(workspace, capsys):
    """Ctrl-C as a terminal sends it: SIGINT to the driver's whole process group."""
    nbs, res, env = workspace
    proc = subprocess.Popen([str(DRIVER)], env=env, cwd=ROOT, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log = _staged_log(res, "a_sleep")
    assert _wait_for(lambda: log.exists() and "sleeping" in log.read_text(), 120), "the notebook never started"
    elapsed = _interrupt(proc, proc.pid)
    output = proc.stdout.read()
    assert proc.returncode == 130, output
    assert "interrupted" in output and "ZMQ" not in output
    _check_stopped(nbs, res, elapsed)
    with capsys.disabled():
        print(f"\n[measured] SIGINT mid-cell -> driver exit: {elapsed:.2f} s")


def test_sigint_when_started_in_the_background_by_a_script(workspace, capsys):
    """A script runs ``./reproduce.sh &``: bash starts it with SIGINT ignored."""
    nbs, res, env = workspace
    pidfile = nbs.parent / "driver.pid"
    script = f"'{DRIVER}' > '{nbs.parent / 'driver.out'}' 2>&1 & echo $! > '{pidfile}'; wait $!"
    proc = subprocess.Popen(["bash", "-c", script], env=env, cwd=ROOT, start_new_session=True)
    log = _staged_log(res, "a_sleep")
    assert _wait_for(lambda: log.exists() and "sleeping" in log.read_text(), 120), "the notebook never started"
    driver = int(pidfile.read_text())
    t0 = time.monotonic()
    os.kill(driver, signal.SIGINT)
    assert _wait_for(lambda: not _alive(driver), 60), "the driver ignored SIGINT"
    elapsed = time.monotonic() - t0
    proc.wait(timeout=30)
    assert proc.returncode == 130, (nbs.parent / "driver.out").read_text()
    _check_stopped(nbs, res, elapsed)
    with capsys.disabled():
        print(f"\n[measured] SIGINT to a background driver -> exit: {elapsed:.2f} s")


def test_kill_9_of_the_driver_stops_papermill_and_its_kernel(workspace):
    """Issue 35: ``kill -9`` of the driver (no chance to stop anything) used to leave papermill
    and the kernel running to completion. papermill dies with the driver (PR_SET_PDEATHSIG),
    the kernel with papermill (it polls its parent); the lock is free for the next run."""
    from omkl_core.repro.process import child_pids
    nbs, res, env = workspace
    proc = subprocess.Popen([str(DRIVER)], env=env, cwd=ROOT, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    log = _staged_log(res, "a_sleep")
    try:
        assert _wait_for(lambda: log.exists() and "sleeping" in log.read_text(), 120), "the notebook never started"
        kernel = int((nbs / "kernel.pid").read_text())
        papermill = [p for p in child_pids(proc.pid) if _alive(p)]
        assert papermill and _alive(kernel)
        proc.kill()
        proc.wait()
        assert _wait_for(lambda: not any(_alive(p) for p in papermill), 10), "papermill outlived its driver"
        assert _wait_for(lambda: not _alive(kernel), 20), "the kernel outlived papermill"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert not (nbs / "b_started").exists()


def test_sigterm_during_papermill_start_up(workspace):
    nbs, res, env = workspace
    proc = subprocess.Popen([str(DRIVER)], env=env, cwd=ROOT, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert _wait_for(lambda: _staged_log(res, "a_sleep").exists(), 60)
    elapsed = _interrupt(proc, proc.pid, signal.SIGTERM)     # papermill is still importing
    assert proc.returncode == 143
    assert elapsed < INTERRUPT_BOUND_S
    assert not (nbs / "b_started").exists()
    assert (res / "notebooks" / "a_sleep.INTERRUPTED").exists()
    assert not (res / "notebooks" / "a_sleep.ipynb").exists()


def _run(args, env, cwd=ROOT, driver=DRIVER, timeout=300):
    """Run the driver to completion; on a timeout SIGTERM its group (it then stops its kernel)."""
    proc = subprocess.Popen([str(driver), *args], env=env, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.communicate(timeout=60)
        raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.mark.parametrize("args", [["--quick", "test"], ["--only", "b_next", "test"], ["--quick", "setup"],
                                  ["setup", "--quick"], ["setup", "--only", "x"]])
def test_option_that_does_not_apply_is_an_error(workspace, args):
    _, _, env = workspace
    res = _run(args, env)
    assert res.returncode == 2
    assert "applies to notebook runs" in res.stderr
    assert "pytest" not in res.stdout and "passed" not in res.stdout


def test_works_through_a_symlink_from_another_directory(workspace, tmp_path):
    _, _, env = workspace
    # a wrong root would find no .venv there (OMKL_SKIP_SETUP stays: never install into the shared venv)
    env = {**env, "PYTHON": "/nonexistent/python3"}
    env.pop("OMKL_NOTEBOOKS")
    link = tmp_path / "bin" / "omkl-reproduce"
    link.parent.mkdir()
    link.symlink_to(DRIVER)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    res = _run(["--only", "zz_no_such_notebook"], env, cwd=elsewhere, driver=link)
    assert res.returncode == 2, res.stderr
    assert "no notebook matches" in res.stderr
    real = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert real and all(name in res.stderr for name in real)
    assert "Ctrl-C" in _run(["--help"], env, cwd=elsewhere, driver=link).stdout


def test_only_prefix_and_path_progress_and_quick_results_folder(workspace):
    nbs, res, env = workspace
    first = _run(["--quick", "--only", "b_n"], env)               # a unique prefix
    assert first.returncode == 0, first.stdout + first.stderr
    assert "[1/1] b_next: started" in first.stdout and "(CPU " in first.stdout
    quick = res / "quick"
    assert (quick / "notebooks" / "b_next.ipynb").exists() and (quick / "tables" / "b_table.csv").exists()
    assert not (res / "tables").exists() and not (res / "notebooks").exists(), "a quick run wrote into the full results"
    second = _run(["--quick", "--only", str(nbs / "b_next.ipynb")], env)   # a path
    assert second.returncode == 0, second.stdout + second.stderr
    assert "last run" in second.stdout and "ETA" in second.stdout          # the ETA from the first run
    assert "quick" in (quick / "tables" / "b_table.md").read_text()
    _notebook(nbs / "bx_extra.ipynb", [])
    ambiguous = _run(["--quick", "--only", "b"], env)
    assert ambiguous.returncode == 2 and "ambiguous" in ambiguous.stderr and "bx_extra" in ambiguous.stderr
    for bad in (["--only", ""], ["--only", "zz"]):
        res_bad = _run(bad, env)
        assert res_bad.returncode == 2 and "error: --only" in res_bad.stderr


@pytest.mark.parametrize("ignored", [False, True], ids=["terminal", "started-with-sigint-ignored"])
def test_sigint_during_set_up(tmp_path, ignored):
    """A fresh checkout (a copy of the driver, no .venv) whose set-up hangs in `python -m venv`;
    Ctrl-C from a terminal (the whole group), or SIGINT to a driver a script started in the
    background (SIGINT ignored on entry)."""
    repo = tmp_path / "checkout"
    repo.mkdir()
    (repo / "reproduce.sh").write_bytes(DRIVER.read_bytes())
    (repo / "reproduce.sh").chmod(0o755)
    for name in ("requirements.lock", "pyproject.toml"):
        (repo / name).write_text("")
    fake = tmp_path / "python3"
    fake.write_text("#!/usr/bin/env bash\n"
                    "case \"$1\" in\n"
                    "  -V) echo 'Python 3.11.0' ;;\n"
                    "  -c) exit 0 ;;\n"
                    f"  -m) echo $$ > '{tmp_path}/venv.pid'; exec sleep 600 ;;\n"
                    "esac\n")
    fake.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("OMKL_")}
    env["PYTHON"] = str(fake)
    proc = subprocess.Popen([str(repo / "reproduce.sh"), "setup"], env=env, cwd=tmp_path, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if ignored else None)  # noqa: PLW1509
    pidfile = tmp_path / "venv.pid"
    assert _wait_for(pidfile.exists, 30), proc.stdout.read() if proc.poll() is not None else "set-up never started"
    child = int(pidfile.read_text())
    elapsed = _interrupt(proc, proc.pid, group=not ignored)
    output = proc.stdout.read()
    assert proc.returncode == 130, output
    assert "set-up interrupted by SIGINT" in output, output     # issue 21: it showed only ^C
    assert elapsed < INTERRUPT_BOUND_S
    assert _wait_for(lambda: not _alive(child), 5.0), "the set-up child still runs"


def _collected(res) -> list[str]:
    return [line.split("::")[0] for line in res.stdout.splitlines() if "::" in line]


def test_test_with_paths_runs_only_those(workspace):
    """`./reproduce.sh test tests/test_mutant_list.py` collects that file alone (issue 21: the driver
    put `tests` in front of the user's arguments and ran the whole suite)."""
    _, _, env = workspace
    res = _run(["test", "tests/test_mutant_list.py", "--collect-only", "-q", "-p", "no:cacheprovider"], env)
    assert res.returncode == 0, res.stdout + res.stderr
    files = _collected(res)
    assert files and set(files) == {"tests/test_mutant_list.py"}, sorted(set(files))[:10]


def test_test_with_options_only_keeps_pytests_testpaths(workspace):
    """Options alone (`test -k ...`) add no path: pytest falls back to testpaths. Shown with testpaths
    overridden to two files -- a `tests` argument from the driver would collect the whole suite."""
    _, _, env = workspace
    two = "tests/test_mutant_list.py tests/test_theory_register.py"
    res = _run(["test", "-o", f"testpaths={two}", "--collect-only", "-q", "-p", "no:cacheprovider"], env)
    assert res.returncode == 0, res.stdout + res.stderr
    assert set(_collected(res)) == set(two.split()), sorted(set(_collected(res)))[:10]


def test_sigint_during_a_rerun_keeps_the_earlier_results(workspace, capsys):
    """Issue 21: `--only NAME` (ok), the same again and Ctrl-C: the earlier run's files were
    "removed partial output". Now the earlier outputs stay byte-identical."""
    nbs, res, env = workspace
    _notebook(nbs / "c_rerun.ipynb", [
        "import pathlib, time\nimport omkl_core.repro.report as r, pandas as pd\n"
        "slow = pathlib.Path('slow').exists()\n"
        "r.save_table(pd.DataFrame({'slow': [slow]}), 'c_table')\n"
        "r.add_scorecard_rows('c_rows', pd.DataFrame([r.claim_row('x', 'y', 'z', not slow, kind='project')]))",
        "print('sleeping' if slow else 'done', flush=True)\nif slow: time.sleep(600)",
    ])
    first = _run(["--only", "c_rerun"], env)
    assert first.returncode == 0, first.stdout + first.stderr
    keep = {p: p.read_bytes() for p in sorted(res.rglob("*")) if p.is_file() and p.suffix != ".log"}
    assert res / "notebooks" / "c_rerun.ipynb" in keep and res / "tables" / "c_table.csv" in keep
    assert res / "scorecard" / "c_rows.csv" in keep and res / "scorecard.md" in keep
    (nbs / "slow").write_text("1")
    proc = subprocess.Popen([str(DRIVER), "--only", "c_rerun"], env=env, cwd=ROOT, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log = _staged_log(res, "c_rerun")
    assert _wait_for(lambda: log.exists() and "sleeping" in log.read_text(), 120), \
        "the re-run never reached its slow cell"
    elapsed = _interrupt(proc, proc.pid)
    output = proc.stdout.read()
    assert proc.returncode == 130, output
    assert "previous complete outputs" in output and elapsed < INTERRUPT_BOUND_S
    now = {p: p.read_bytes() for p in sorted(res.rglob("*")) if p.is_file() and p.suffix != ".log"}
    assert "INTERRUPTED by SIGINT" in now.pop(res / "notebooks" / "c_rerun.INTERRUPTED").decode()
    assert now == keep, sorted(set(now) ^ set(keep)) or "a file changed"
    with capsys.disabled():
        print(f"\n[measured] SIGINT during a re-run -> driver exit: {elapsed:.2f} s; {len(keep)} earlier files kept")


def test_no_venv_uses_the_given_environment_and_installs_only_what_is_missing(tmp_path):
    """`PYTHON=... ./reproduce.sh --no-venv` (a conda environment): no .venv, the package installed
    only when it cannot be imported, the kernel registered there only when missing. The
    interpreter is a stand-in that records what it is asked to do (nothing is installed)."""
    prefix, calls, importable = tmp_path / "env", tmp_path / "calls", tmp_path / "importable"
    prefix.mkdir()
    fake = tmp_path / "python"
    fake.write_text("#!/usr/bin/env bash\n"
                    f"echo \"$*\" >> '{calls}'\n"
                    "case \"$*\" in\n"
                    f"  *sys.version_info*) exec '{sys.executable}' \"$@\" ;;\n"
                    f"  *sys.prefix*) echo '{prefix}' ;;\n"
                    f"  *'import omkl_core, papermill, ipykernel'*) [[ -f '{importable}' ]] ;;\n"
                    f"  *'ipykernel install'*) mkdir -p '{prefix}/share/jupyter/kernels/omkl' && "
                    f"touch '{prefix}/share/jupyter/kernels/omkl/kernel.json' ;;\n"
                    "  *) exit 0 ;;\n"
                    "esac\n")
    fake.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("OMKL_")}
    env["PYTHON"] = str(fake)
    first = _run(["--no-venv", "setup"], env)
    assert first.returncode == 0, first.stdout + first.stderr
    lines = calls.read_text().splitlines()
    assert any(line.startswith("-m pip install") and line.endswith(f"-e {ROOT}") for line in lines), lines
    assert any(line.startswith("-m ipykernel install --sys-prefix --name omkl") for line in lines), lines
    assert lines[-1].startswith("-c ") and "omkl_core.repro" in lines[-1] and lines[-1].endswith(" setup"), lines
    assert not any("venv" in line.split()[:2] for line in lines), "a .venv was created"
    calls.unlink()
    importable.write_text("")
    second = _run(["--no-venv", "setup"], env)
    assert second.returncode == 0, second.stdout + second.stderr
    lines = calls.read_text().splitlines()
    assert not any("pip" in line or "ipykernel install" in line for line in lines), lines
    assert lines[-1].startswith("-c ") and lines[-1].endswith(" setup"), lines     # --no-venv is the bootstrap's


def test_ctrl_c_while_the_driver_starts_is_one_line(workspace):
    """Issue 42: Ctrl-C while the driver was still importing (numpy loaded, the rest of omkl on its
    way) printed a 40-line traceback of the import. Now: one line, exit 130. The signal is sent once
    the driver's process has mapped NumPy and before it prints its first line."""
    nbs, res, env = workspace
    proc = subprocess.Popen([str(DRIVER), "--quick"], env=env, cwd=nbs, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def importing() -> bool:
        try:
            return "_multiarray_umath" in Path(f"/proc/{proc.pid}/maps").read_text()
        except OSError:
            return False

    try:
        assert _wait_for(importing, 60), "the driver never started importing"
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert len(err.strip().splitlines()) <= 2 and "interrupted (SIGINT)" in err, err
    assert not (res / "quick" / "report").exists()
