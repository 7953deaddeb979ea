"""The harness survives faults (issue 35): one run per results folder, children that die with a
``kill -9``-ed driver, a read-only or full results folder (one line, the previous results kept,
no truncated file left behind, a log that says "No space left on device"), and cache entries
that carry a checksum of their key and content (an edited or corrupted entry is recomputed,
with a warning naming the file, never used).

The file-system faults use a small tmpfs (``mount -t tmpfs``, root only); where mounting is not
possible they are skipped, and the full disk is also simulated by an injected ``OSError(ENOSPC)``.
"""
from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

from omkl_core import sweep
from omkl_core.repro import notebooks
from omkl_core.repro.notebooks import ResultsLock, run_notebooks
from omkl_core.repro.process import Signals

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="flock, prctl and /proc: Linux")
ROOT = Path(__file__).resolve().parent.parent

RUNNER = ("import os, sys, pathlib\n"
          "nb, out = sys.argv[1], sys.argv[2]\n"
          "results = pathlib.Path(os.environ['OMKL_RESULTS'])\n"
          "pathlib.Path(out).write_text('{\"cells\": [], \"executed\": \"' + nb + '\"}')\n"
          "exec(pathlib.Path(nb).read_text())\n")
TABLE = ("(results / 'tables').mkdir(exist_ok=True)\n"
         "(results / 'tables' / 'a.csv').write_text('x\\n{v}\\n')\n"
         "print('table {v} written')\n")


def _command(nb: Path, out: Path) -> list[str]:
    return [sys.executable, "-c", RUNNER, str(nb), str(out)]


def _run(nbs: Path, res: Path) -> int:
    with Signals() as signals:
        return run_notebooks(sorted(nbs.glob("*.ipynb")), results=res, mode="quick", command=_command,
                             signals=signals, scorecard=None, tick=0.05)


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _wait_for(cond, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


@pytest.fixture
def ws(tmp_path):
    nbs = tmp_path / "notebooks"
    nbs.mkdir()
    return nbs, tmp_path / "results"


@pytest.fixture
def tmpfs(tmp_path):
    """A 256 KiB tmpfs (root only; skipped where it cannot be mounted)."""
    mnt = tmp_path / "tmpfs"
    mnt.mkdir()
    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root and mount(8)")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mnt)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode(errors='replace').strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


# ------------------------------------------------------------------------------- the lock
def test_a_second_run_in_the_same_results_folder_names_the_running_one(ws, capsys):
    nbs, res = ws
    (nbs / "a.ipynb").write_text(TABLE.format(v=1))
    holder = subprocess.Popen([sys.executable, "-c",
                               "import sys, time; sys.path.insert(0, sys.argv[2])\n"
                               "from omkl_core.repro.notebooks import ResultsLock\n"
                               "ResultsLock(sys.argv[1]).acquire(); print('locked', flush=True); time.sleep(600)",
                               str(res), str(ROOT)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        assert _run(nbs, res) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"another run is writing into {res} (PID {holder.pid}," in err[0], err
        assert not (res / "tables" / "a.csv").exists(), "the second run wrote results"
    finally:
        holder.send_signal(signal.SIGKILL)                  # kill -9: the kernel drops its lock
        holder.wait()
    assert _run(nbs, res) == 0
    assert (res / "tables" / "a.csv").read_text() == "x\n1\n"
    assert (res / ".lock").read_text() == "", "a finished run leaves its PID in the lock file"


REPORT = "import os, pathlib; (pathlib.Path(os.environ['OMKL_RESULTS']) / 'report').mkdir(parents=True)"


def test_a_run_the_lock_refuses_does_not_rebuild_the_report(ws, capsys):
    """Issue 42: a run refused by the lock still rebuilt ``<results>/report`` (outside the lock).
    The report is the run's last step under its lock now."""
    nbs, res = ws
    (nbs / "a.ipynb").write_text(TABLE.format(v=1))
    holder = subprocess.Popen([sys.executable, "-c",
                               "import sys, time; sys.path.insert(0, sys.argv[2])\n"
                               "from omkl_core.repro.notebooks import ResultsLock\n"
                               "ResultsLock(sys.argv[1]).acquire(); print('locked', flush=True); time.sleep(600)",
                               str(res), str(ROOT)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with Signals() as signals:
            rc = run_notebooks(sorted(nbs.glob("*.ipynb")), results=res, mode="quick", command=_command,
                               signals=signals, scorecard=None, tick=0.05, report=[sys.executable, "-c", REPORT])
        assert rc == 1 and not (res / "report").exists(), "a refused run wrote the report"
        assert len(capsys.readouterr().err.strip().splitlines()) == 1
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    with Signals() as signals:
        assert run_notebooks(sorted(nbs.glob("*.ipynb")), results=res, mode="quick", command=_command,
                             signals=signals, scorecard=None, tick=0.05, report=[sys.executable, "-c", REPORT]) == 0
    assert (res / "report").is_dir(), "the report is the last step of a run that holds the lock"


def test_a_lock_file_that_is_a_symlink_is_never_followed(ws, tmp_path, capsys):
    """Issue 42: ``results/.lock`` as a symbolic link was followed and its target truncated."""
    nbs, res = ws
    (nbs / "a.ipynb").write_text(TABLE.format(v=1))
    res.mkdir()
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me\n")
    (res / ".lock").symlink_to(precious)
    assert _run(nbs, res) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and ".lock is a symbolic link" in err[0] and "remove the link" in err[0], err
    assert precious.read_text() == "keep me\n"
    assert not (res / "tables").exists(), "a refused run wrote results"


@pytest.mark.parametrize("fault", ["OMKL_RESULTS names a file", "read-only results folder"])
def test_a_results_folder_that_cannot_be_used_is_one_line_and_no_report(tmp_path, monkeypatch, capsys, fault):
    """Issue 42: with a read-only results folder or ``OMKL_RESULTS`` naming a file, the one-line error
    was followed by a 16-line traceback from the report step."""
    from omkl_core.repro import driver

    nbs = tmp_path / "notebooks"
    nbs.mkdir()
    (nbs / "a.ipynb").write_text("{}")
    target = tmp_path / "results"
    if fault == "OMKL_RESULTS names a file":
        target.write_text("a file\n")
    else:
        def read_only(self):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(self.path))
        monkeypatch.setattr(notebooks.ResultsLock, "acquire", read_only)
    monkeypatch.setenv("OMKL_RESULTS", str(target))
    monkeypatch.setenv("OMKL_NOTEBOOKS", str(nbs))
    monkeypatch.setenv("OMKL_MODE", "unset")                       # the driver sets both; restored after
    calls = []
    monkeypatch.setattr(notebooks, "run_child", lambda cmd, signals, **kw: calls.append(list(cmd)) or 0)
    assert driver.main(["--only", "a"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0], err
    assert ("is a file, not a folder" in err[0]) if fault.startswith("OMKL") else ("Read-only file system" in err[0])
    assert calls == [], "a step ran (the notebook, the scorecard or the report)"
    if fault.startswith("OMKL"):
        assert target.read_text() == "a file\n"


def test_the_lock_is_exclusive_within_one_process_too(tmp_path):
    first = ResultsLock(tmp_path).acquire()
    with pytest.raises(notebooks.ResultsBusy, match=f"PID {os.getpid()}"):
        ResultsLock(tmp_path).acquire()
    first.release()
    ResultsLock(tmp_path).acquire().release()


# ------------------------------------------------------------------------------ kill -9
DRIVER = ("import sys, pathlib; sys.path.insert(0, sys.argv[1])\n"
          "from omkl_core.repro.process import Signals, run_child\n"
          "child = ('import os, pathlib, subprocess, sys, time\\n'\n"
          "         'g = subprocess.Popen([sys.executable, \"-c\", \"import time; time.sleep(600)\"], start_new_session=True,'\n"
          "         ' env={**os.environ, \"JPY_PARENT_PID\": str(os.getpid())})\\n'\n"
          "         'pathlib.Path(sys.argv[1]).write_text(f\"{os.getpid()} {g.pid}\")\\n'\n"
          "         'time.sleep(600)\\n')\n"
          "with Signals() as s:\n"
          "    run_child([sys.executable, '-c', child, sys.argv[2]], s)\n")


def test_kill_9_of_the_driver_takes_its_child_along(tmp_path):
    """The driver's child (papermill's place) gets SIGKILL when the driver dies, however it dies
    (``prctl(PR_SET_PDEATHSIG)``); a kernel-like grandchild in its own session polls its parent
    as ipykernel does -- here the test only checks the child, the grandchild is cleaned up."""
    pids = tmp_path / "pids"
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(ROOT), str(pids)])
    try:
        assert _wait_for(lambda: pids.exists() and pids.read_text().strip(), 30), "the child never started"
        child, grandchild = map(int, pids.read_text().split())
        assert _alive(child)
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait()
        assert _wait_for(lambda: not _alive(child), 10), "the child outlived the kill -9 of its driver"
    finally:
        for pid in (driver.pid, *(map(int, pids.read_text().split()) if pids.exists() and pids.read_text() else ())):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


# ------------------------------------------------------------------ read-only, full disk
def test_a_read_only_results_folder_gives_one_line_and_keeps_the_results(ws, tmpfs, capsys):
    nbs, _ = ws
    res = tmpfs / "results"
    (nbs / "a.ipynb").write_text(TABLE.format(v=1))
    assert _run(nbs, res) == 0
    before = _snapshot(res)
    capsys.readouterr()
    (nbs / "a.ipynb").write_text(TABLE.format(v=2))
    done = subprocess.run(["mount", "-o", "remount,ro", str(tmpfs)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot remount read-only: {done.stderr.decode(errors='replace').strip()}")
    assert _run(nbs, res) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: cannot write into the results folder {res}") \
        and "Read-only file system" in err[0] and "previous results are kept" in err[0], err
    assert _snapshot(res) == before


FILL = ("pathlib.Path(out).write_text('{\"cells\": [{\"source\": \"' + 'x' * 1000)   # papermill cut short\n"
        "with open(results / 'tables' / 'big.csv', 'w') as fh:\n"
        "    fh.write('y' * 10_000_000)\n")


def test_a_full_disk_leaves_no_truncated_file_and_a_log_that_says_so(ws, tmpfs, capsys):
    nbs, _ = ws
    res = tmpfs / "results"
    (nbs / "a.ipynb").write_text(TABLE.format(v=1))
    assert _run(nbs, res) == 0
    before = _snapshot(res)
    capsys.readouterr()
    (nbs / "a.ipynb").write_text("(results / 'tables').mkdir(exist_ok=True)\n" + FILL)
    assert _run(nbs, res) == 1
    out = capsys.readouterr()
    assert "No space left on device" in out.err
    after = _snapshot(res)
    log = after.pop("notebooks/a.FAILED.log").decode()
    assert "No space left on device" in log
    assert "notebooks/a.FAILED.ipynb" not in after, "a truncated executed notebook was kept"
    assert after == before, "the previous results changed"
    assert not (res / ".staging").exists()
    assert "incomplete and is not kept" in out.out


def test_an_injected_full_disk_gives_one_line_and_keeps_the_results(ws, monkeypatch, capsys):
    """Where no tmpfs can be mounted: ENOSPC while staging is one line, the results are kept."""
    nbs, res = ws
    (nbs / "a.ipynb").write_text(TABLE.format(v=1))
    assert _run(nbs, res) == 0
    before = _snapshot(res)
    capsys.readouterr()

    def full(self):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self.path))

    monkeypatch.setattr(notebooks.Stage, "prepare", full)
    assert _run(nbs, res) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "No space left on device" in err[0] and "previous results are kept" in err[0], err
    assert _snapshot(res) == before


# ------------------------------------------------------------------------------ the caches
SPEC = {"datasets": ["airfoil"], "learners": [{"name": "OnlineRidge", "params": {"a": 0.1}}],
        "seeds": [0], "max_steps": 60, "curve_points": 5}


def _rows(cache):
    return sweep.run(SPEC, executor="serial", cache_dir=cache, progress=False)


@pytest.mark.parametrize("fault", ["edited value", "not JSON", "old format"])
def test_an_edited_or_corrupted_sweep_cache_entry_is_recomputed_with_a_warning(tmp_path, fault):
    first = _rows(tmp_path)
    (entry,) = sorted(tmp_path.rglob("*.json"))
    data = json.loads(entry.read_text())
    if fault == "edited value":
        data["entry"]["mse"] = 500.0
        entry.write_text(json.dumps(data))
    elif fault == "not JSON":
        entry.write_bytes(b"\x00\xff{ truncated")
    else:
        entry.write_text(json.dumps(data["entry"]))
    with pytest.warns(RuntimeWarning, match=f"cache entry {entry}") as rec:
        again = _rows(tmp_path)
    assert not again[0]["cached"], "a bad entry was used"
    assert again[0]["mse"] == first[0]["mse"] != 500.0
    msg = str(rec[0].message)
    assert ("cannot be decoded" in msg) if fault == "not JSON" else ("checksum" in msg)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                 # rewritten: the next run uses it quietly
        assert _rows(tmp_path)[0]["cached"]


def test_a_cache_entry_under_another_key_is_not_used(tmp_path):
    """The checksum covers the key: an entry copied to another key's file is refused."""
    store = sweep.Store(tmp_path)
    k1, k2 = "a" * 64, "b" * 64
    store.put(k1, {"mse": 1.0})
    assert store.get(k1) == {"mse": 1.0}
    store._path(k2).parent.mkdir(parents=True)
    shutil.copy(store._path(k1), store._path(k2))
    with pytest.warns(RuntimeWarning, match=f"cache entry {store._path(k2)} does not match its checksum"):
        assert store.get(k2) is None


def test_an_edited_forecast_array_is_recomputed_with_a_warning(tmp_path):
    """The leaderboard's forecasts live in the sweep's store, arrays in ``.npz`` beside the JSON:
    the checksum covers them (an edited forecast, OMKR Airfoil 19.75 -> 500.0, is not used)."""
    store = sweep.Store(tmp_path)
    key = "ab" + "1" * 62
    res = {"predictions": np.array([0.1, 0.2, 0.3]), "abstained": np.array([False, True, False]), "seconds": 1.5}
    store.put(key, res)
    got = store.get(key)
    np.testing.assert_array_equal(got["predictions"], res["predictions"])
    np.testing.assert_array_equal(got["abstained"], res["abstained"])
    assert got["seconds"] == 1.5
    npz = store._path(key).with_suffix(".npz")
    with np.load(npz) as f:
        fields = {k: f[k] for k in f.files}
    name = next(k for k, v in fields.items() if v.dtype == np.float64)
    fields[name] = np.array([0.1, 500.0, 0.3])
    np.savez(npz, **fields)
    with pytest.warns(RuntimeWarning, match=f"cache entry {store._path(key)} does not match its checksum"):
        assert store.get(key) is None
    npz.write_bytes(b"PK\x03\x04 not a zip")
    with pytest.warns(RuntimeWarning, match=f"cache entry {npz} cannot be decoded"):
        assert store.get(key) is None


# ------------------------------------------------- issue 42: resources, children, interrupts
TASKS = ("import os, pathlib, signal, time\n"
         "def task(t):\n"
         "    d = pathlib.Path(t['dir'])\n"
         "    (d / f\"started-{t['i']}-{os.getpid()}\").write_text('')\n"
         "    if t['i'] == t.get('interrupt_at', -1):\n"
         "        # the tasks before this one finish first (on a loaded machine a worker may still be\n"
         "        # on one of them): Ctrl-C comes once they have all returned their results\n"
         "        until = time.monotonic() + 60\n"
         "        while time.monotonic() < until and not all((d / f'finished-{j}').exists() for j in range(t['i'])):\n"
         "            time.sleep(0.01)\n"
         "        os.kill(os.getppid(), signal.SIGINT)      # Ctrl-C reaches the parent\n"
         "    if t['i'] >= t.get('slow_from', 0):\n"
         "        time.sleep(600)\n"
         "    (d / f\"finished-{t['i']}\").write_text('')\n"
         "    return {'i': t['i']}\n")
POOL = ("import sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]\n"
        "import json, faulttasks\n"
        "from omkl_core import sweep\n"
        "tasks = json.loads(sys.argv[3])\n"
        "n, extra = tasks.pop('n'), tasks\n"
        "try:\n"
        "    sweep.map_tasks(faulttasks.task, [{'i': i, **extra} for i in range(n)], executor='processes',\n"
        "                    max_workers=2, progress=False, cache_dir=sys.argv[4])\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', flush=True); sys.exit(130)\n")


def _pool(tmp_path, **task):
    (tmp_path / "faulttasks.py").write_text(TASKS)
    runs = tmp_path / "runs"
    runs.mkdir()
    proc = subprocess.Popen([sys.executable, "-c", POOL, str(tmp_path), str(ROOT),
                             json.dumps({**task, "dir": str(runs)}), str(tmp_path / "cache")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc, runs


def _workers(runs) -> list[int]:
    return sorted({int(p.name.split("-")[2]) for p in runs.glob("started-*")})


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_the_pools_workers_die_with_their_parent(tmp_path, sig):
    """Issue 42: SIGTERM or ``kill -9`` of ``omkl sweep --workers 2`` left the pool's workers blocked
    forever. Every worker now asks for SIGTERM when its parent dies (``prctl(PR_SET_PDEATHSIG)``)."""
    proc, runs = _pool(tmp_path, n=6, slow_from=0)
    try:
        assert _wait_for(lambda: len(_workers(runs)) == 2, 60), "the workers never started"
        pids = _workers(runs)
        os.kill(proc.pid, sig)
        proc.wait(timeout=60)
        assert _wait_for(lambda: not any(_alive(p) for p in pids), 10), "a worker outlived its parent"
    finally:
        proc.kill()
        for pid in _workers(runs):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_an_interrupt_stops_the_pool_at_once_and_keeps_the_finished_tasks(tmp_path):
    """Issue 42: SIGINT while a 300,000-cell grid was being submitted was ignored for minutes (the
    pool waited for every queued task) and the finished cells were thrown away.  The pool is fed as
    tasks finish now; on Ctrl-C the finished tasks are cached, the rest cancelled, the workers ended."""
    proc, runs = _pool(tmp_path, n=20_000, interrupt_at=6, slow_from=6)
    try:
        out, err = proc.communicate(timeout=90)         # before: hung until every queued task ran
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the interrupted pool did not stop")
    assert proc.returncode == 130 and out.strip() == "interrupted", (out, err)
    assert "Traceback" not in err, err
    cached = sorted((tmp_path / "cache").rglob("*.json"))
    assert len(cached) == 6, f"the tasks that finished before the interrupt were not kept: {len(cached)} of 6 cached"
    started = {int(p.name.split("-")[1]) for p in runs.glob("started-*")}
    assert max(started) < 6 + 2 * sweep.IN_FLIGHT_PER_WORKER + 2, "the whole grid was queued"
    assert _wait_for(lambda: not any(_alive(p) for p in _workers(runs)), 10), "a worker outlived the interrupt"


def test_a_grid_beyond_the_limits_is_refused_before_any_work(monkeypatch, capsys, tmp_path):
    """Issue 42: a 1,000,000-cell grid was not refused (2.2-2.9 GB, an ETA of hours); the memory
    checks compared with the machine's total, not what is available (``best_shifting`` with its
    defaults on T = 20,000, N = 50 was killed by the kernel)."""
    from omkl_core import oracles, registry, validation

    def no_work(*a, **k):
        raise AssertionError("work started before the grid was checked")

    monkeypatch.setattr(registry, "load_dataset", no_work)
    monkeypatch.setattr(sweep, "map_tasks", no_work)
    big = {**SPEC, "seeds": list(range(1_000_000))}
    with pytest.raises(ValueError, match=r"the grid has 1,000,000 cells \(1 dataset\(s\) x 1 learner\(s\) x "
                                         r"1,000,000 seed\(s\)\), more than the 500,000 one sweep runs"):
        sweep.run(big, executor="serial", progress=False)
    monkeypatch.setattr(validation, "_meminfo_available", lambda: 2**20)      # 1 MB available, 24 GB total
    monkeypatch.setattr(validation, "physical_memory", lambda: 24 * 2**30)
    with pytest.raises(MemoryError, match=r"the sweep's 1,000 rows .* more than the 1 MB available on this "
                                          r"machine now \(of 24 GB physical\)"):
        sweep.run({**SPEC, "seeds": list(range(1000))}, executor="serial", progress=False)
    from omkl_core.cli import main

    spec = tmp_path / "g.toml"
    spec.write_text('datasets = ["airfoil"]\nseeds = [' + ", ".join(map(str, range(1000))) + ']\n'
                    '[[learners]]\nname = "OnlineRidge"\n')
    assert main(["sweep", str(spec), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "available on this machine now" in err[0], err
    # the shifting oracle: T (K+1) (N + 24) bytes with K = T - 1, checked against what is available
    monkeypatch.setattr(validation, "_meminfo_available", lambda: 16 * 2**30)
    Z, y = np.zeros((20_000, 50)), np.zeros(20_000)
    with pytest.raises(MemoryError, match=r"\(2\.96e\+10 bytes\) of memory, more than the 16 GB available"):
        oracles.best_shifting(Z, y)
    monkeypatch.setattr(validation, "_meminfo_available", lambda: 50 * 2**20)
    with pytest.raises(MemoryError, match=r"T=2000, K=1999, N=5\) needs 111 MB"):
        oracles.best_shifting(np.zeros((2000, 5)), np.zeros(2000))
