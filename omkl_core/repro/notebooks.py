"""Notebook runs of the reproduction driver: selection, staging, timings, progress.

Each notebook runs under papermill with ``OMKL_RESULTS`` pointing at a staging folder
``<results>/.staging/<name>/`` (the notebooks write through :func:`omkl_core.repro.report.results_dir`),
and its files replace the previous ones in ``<results>`` only when it succeeded
(:class:`Stage`). A failed or interrupted run leaves the previous complete outputs -- tables,
figures, scorecard rows, the executed notebook -- as they were and says so. Two kinds of
files are not staged:

* the caches in :data:`SHARED` (``sweep-cache``): linked into the stage, so a re-run reuses
  them and an interrupted run keeps the cells it finished (entries are content-addressed);
* the merged scorecard ``scorecard.{csv,md}``, rebuilt from ``scorecard/<section>.csv`` by the
  driver's last step (:func:`omkl_core.repro.report.scorecard`). The stage starts with copies of the
  other sections' rows, so a notebook that shows the scorecard shows the merged one; only
  rows the notebook wrote or changed move back.

Faults: one run per results folder (:class:`ResultsLock`, ``<results>/.lock`` holding the
running driver's PID; a second run says which one is running and exits 1). The log of a
notebook is staged like its tables (``NAME.log`` is replaced only by a successful run; a failed
one leaves ``NAME.FAILED.log``), ``NAME.FAILED.ipynb`` is kept only when papermill wrote it
completely (it must parse), and a results folder that cannot be written (read-only, full) ends
the run with one line saying so -- "No space left on device" when that is the cause -- with
the previous results kept.

Per-notebook wall and CPU seconds (``getrusage(RUSAGE_CHILDREN)``: papermill, its kernel and
the kernel's workers) of the last successful run go to ``<results>/timings.json``; the next
run prints an ETA from them.
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import fcntl
import json
import os
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from .. import threads
from .process import Interrupted, Signals, children_cpu_seconds, run_child

__all__ = ["UsageError", "notebook_list", "resolve_only", "Stage", "Timings", "run_notebooks",
           "papermill_command", "SHARED", "MERGED", "HEARTBEAT_S", "ResultsLock", "ResultsBusy",
           "results_lock", "HELD_ENV"]

#: Sub-folders of the results shared by every run (caches): linked into a stage, never staged.
SHARED = ("sweep-cache",)
#: Files at the top of the results folder that the final scorecard step rebuilds.
MERGED = ("scorecard.csv", "scorecard.md")
#: Seconds between two "running" lines of a notebook.
HEARTBEAT_S = 60.0
STAGING = ".staging"


class UsageError(Exception):
    """A wrong command line (exit status 2)."""


def notebook_list(folder: Path) -> list[Path]:
    """The notebooks ``folder/*.ipynb``, sorted by name."""
    return sorted(Path(folder).glob("*.ipynb"))


def resolve_only(only: str, folder: Path) -> Path:
    """The notebook ``--only`` names: a name (``p000_vaw2``), a path
    (``notebooks/p000_vaw2.ipynb``) or a unique prefix (``p000_v``)."""
    if not only:
        raise UsageError("--only needs a notebook name")
    folder = Path(folder)
    name = Path(only).name.removesuffix(".ipynb")
    exact = folder / f"{name}.ipynb"
    if exact.is_file():
        return exact
    every = notebook_list(folder)
    matches = [p for p in every if p.stem.startswith(name)] if name else []
    if not matches:
        raise UsageError(f"--only {only}: no notebook matches; choose from: {' '.join(p.stem for p in every)}")
    if len(matches) > 1:
        raise UsageError(f"--only {only}: ambiguous prefix, matches: {' '.join(p.stem for p in matches)}")
    return matches[0]


class ResultsBusy(Exception):
    """Another run holds the results folder's lock (or the lock file is not one a run may use)."""


class ResultsLock:
    """One run per results folder: an exclusive ``flock`` on ``<results>/.lock``, which holds the
    PID and start time of the run holding it. The kernel drops the lock when that process ends,
    however it ends (``kill -9`` included), so a stale file never blocks a later run.

    ``shared=True``: a reader's lock (the HTML report, ``publish``): any number of readers at once,
    none while a run holds the exclusive lock (nor a run while a reader holds it); a reader writes
    nothing into the file."""

    def __init__(self, results: Path, shared: bool = False):
        self.path = Path(results) / ".lock"
        self.shared = shared
        self._fd: int | None = None

    def acquire(self) -> ResultsLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:                        # never through a link: truncating the lock would truncate its target
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise
            raise ResultsBusy(f"{self.path} is a symbolic link (to {os.readlink(self.path)}); a run never follows "
                              "it, as writing its PID there would overwrite the file it points to: remove the "
                              "link") from None
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(fd)
            raise ResultsBusy(f"{self.path} is not a regular file; remove it")
        if info.st_nlink > 1:       # writing the PID would overwrite the other names' file
            os.close(fd)
            raise ResultsBusy(f"{self.path} is a hard link ({info.st_nlink} names share the file); a run never writes "
                              "into it, as that would overwrite the other names' contents: remove it")
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if self.shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = (os.read(fd, 200).decode(errors="replace").strip()
                      or "a process that has not written its PID yet, or a report being built from it")
            os.close(fd)
            raise ResultsBusy(f"another run is writing into {self.path.parent} ({holder}); wait for it "
                              "to finish or stop it") from None
        if self.shared:
            self._fd = fd
            return self
        os.ftruncate(fd, 0)
        os.write(fd, f"PID {os.getpid()}, started {_utc_now()}\n".encode())
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            try:
                if not self.shared:
                    os.ftruncate(self._fd, 0)          # no stale PID once the run is over
            except OSError:
                pass
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


#: Set by a run for the children it starts under its lock (the HTML report): the results folder
#: (resolved) whose lock the parent holds, so that the child does not wait for its own parent.
HELD_ENV = "OMKL_RESULTS_LOCK_HELD"


@contextlib.contextmanager
def results_lock(results: Path):
    """Hold ``<results>/.lock`` (:class:`ResultsLock`, shared: readers together, never beside a run)
    for a block that reads a whole results folder (the HTML report, ``publish``); :class:`ResultsBusy`
    when a run holds it. A child
    started by a run under that lock (:data:`HELD_ENV` naming the folder, and the lock held) runs
    under its parent's."""
    results = Path(results)
    if os.environ.get(HELD_ENV) == str(results.resolve()) and (results / ".lock").is_file():
        probe = ResultsLock(results)
        try:
            fd = os.open(probe.path, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            fd = None
        if fd is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                fcntl.flock(fd, fcntl.LOCK_UN)       # nobody holds it: the variable is stale, lock as usual
            except BlockingIOError:
                yield                                 # the parent run holds it
                return
            finally:
                os.close(fd)
    lock = ResultsLock(results, shared=True).acquire()
    try:
        yield
    finally:
        lock.release()


def _fault(results: Path, exc: OSError) -> str:
    """One line for a results folder that cannot be written."""
    why = "No space left on device" if exc.errno == errno.ENOSPC else (exc.strerror or str(exc))
    where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
    return f"cannot write into the results folder {results}: {why}{where}; the previous results are kept"


def _disk_full(path: Path, log: Path | None = None) -> bool:
    """Whether the file system of ``path`` is (nearly) full, or the log says it was."""
    try:
        st = os.statvfs(path)
        if st.f_bavail * st.f_frsize < 64 * 1024:
            return True
    except OSError:
        pass
    if log is not None:
        try:
            text = log.read_text(errors="replace")
        except OSError:
            return False
        return "No space left on device" in text or "[Errno 28]" in text
    return False


def _complete_notebook(path: Path) -> bool:
    """A notebook file that parses (papermill wrote it completely)."""
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(nb, dict) and isinstance(nb.get("cells"), list)


class Stage:
    """The staging folder of one notebook run inside ``results``.

    :meth:`prepare` creates it (links :data:`SHARED`, copies the other sections' scorecard
    rows), :meth:`commit` moves what the run wrote over ``results`` and removes the stage,
    :meth:`discard` removes it and leaves ``results`` untouched.
    """

    def __init__(self, results: Path, name: str):
        self.results = Path(results)
        self.name = name
        self.path = self.results / STAGING / name
        self._seeded: dict[str, bytes] = {}

    def prepare(self) -> Path:
        self.discard()
        (self.path / "notebooks").mkdir(parents=True)
        for sub in SHARED:
            (self.results / sub).mkdir(parents=True, exist_ok=True)
            (self.path / sub).symlink_to(self.results / sub, target_is_directory=True)
        rows = self.results / "scorecard"
        if rows.is_dir():
            (self.path / "scorecard").mkdir()
            for f in sorted(rows.iterdir()):
                if f.is_file():
                    data = f.read_bytes()
                    (self.path / "scorecard" / f.name).write_bytes(data)
                    self._seeded[f"scorecard/{f.name}"] = data
        return self.path

    def outputs(self) -> list[str]:
        """Files the run wrote or changed, relative to the stage (links, seeded copies left
        unchanged and the merged scorecard excluded)."""
        out = []
        for dirpath, _dirs, files in os.walk(self.path):          # does not follow the links
            for f in files:
                full = Path(dirpath) / f
                rel = full.relative_to(self.path).as_posix()
                if full.is_symlink() or rel in MERGED:
                    continue
                if rel in self._seeded and full.read_bytes() == self._seeded[rel]:
                    continue
                out.append(rel)
        return sorted(out)

    def commit(self) -> list[Path]:
        """Move the run's outputs over ``results`` (one ``os.replace`` each); returns them."""
        moved = []
        for rel in self.outputs():
            dest = self.results / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.replace(self.path / rel, dest)
            moved.append(dest)
        self.discard()
        return moved

    def discard(self) -> None:
        if self.path.is_symlink():
            self.path.unlink()
        elif self.path.exists():
            shutil.rmtree(self.path)
        try:
            self.path.parent.rmdir()               # .staging, when no other stage is left
        except OSError:
            pass


class Timings:
    """``<results>/timings.json``: per notebook, the wall and CPU seconds of its last successful
    run (``{"notebooks": {name: {"wall_s", "cpu_s", "finished", "mode"}}}``)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        try:
            self.data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.data = {}
        if not isinstance(self.data.get("notebooks"), dict):
            self.data = {"notebooks": {}}

    def last(self, name: str) -> float | None:
        entry = self.data["notebooks"].get(name)
        try:
            return float(entry["wall_s"])
        except (TypeError, KeyError, ValueError):
            return None

    def record(self, name: str, wall_s: float, cpu_s: float, mode: str) -> None:
        self.data["notebooks"][name] = {"wall_s": round(wall_s, 2), "cpu_s": round(cpu_s, 2),
                                        "finished": _utc_now(), "mode": mode}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(self.data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, self.path)


def _utc_now() -> str:
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def papermill_command(python: str, quick: bool, kernel: str = "omkl") -> Callable[[Path, Path], list[str]]:
    """The command that executes notebook ``nb`` into ``out`` (papermill, parameter ``quick``)."""
    def command(nb: Path, out: Path) -> list[str]:
        return [python, "-m", "papermill", str(nb), str(out), "-k", kernel, "--cwd", str(nb.parent),
                "-p", "quick", str(bool(quick)), "--no-progress-bar", "--log-output"]
    return command


def _say(*parts, err: bool = False) -> None:
    print(*parts, file=sys.stderr if err else sys.stdout, flush=True)


def _cells(log: Path) -> int:
    try:
        return log.read_text(errors="replace").count("Executing Cell ")
    except OSError:
        return 0


def run_notebooks(notebooks: list[Path], *, results: Path, mode: str, command: Callable[[Path, Path], list[str]],
                  signals: Signals, scorecard: list[str] | None, heartbeat: float = HEARTBEAT_S,
                  tick: float = 1.0, report: list[str] | None = None) -> int:
    """Run ``notebooks`` one after the other, each staged; then ``scorecard`` and ``report`` (the
    HTML report; commands, or None), all under the results folder's lock: a run the lock refuses
    writes nothing, not even the report. Returns 0, or 1 when a notebook, the scorecard or the
    report failed (or the lock refused the run); :class:`Interrupted` propagates after the running
    notebook was stopped and marked."""
    results = Path(results)
    lock = ResultsLock(results)
    try:
        lock.acquire()
    except ResultsBusy as exc:
        _say(f"error: {exc}", err=True)
        return 1
    except OSError as exc:
        _say(f"error: {_fault(results, exc)}", err=True)
        return 1
    try:
        rc = _run_locked(notebooks, results=results, mode=mode, command=command, signals=signals,
                         scorecard=scorecard, heartbeat=heartbeat, tick=tick)
        # the HTML report of whatever the results folder holds now (also after a failed notebook)
        if report is not None and run_child(report, signals, env={**os.environ, "OMKL_RESULTS": str(results),
                                                                  "OMKL_MODE": mode, "MPLBACKEND": "Agg",
                                                                  HELD_ENV: str(results.resolve())}) != 0:
            _say("error: writing the HTML report failed (above)", err=True)
            rc = 1
        return rc
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EPERM, errno.EDQUOT):
            raise
        _say(f"error: {_fault(results, exc)}", err=True)
        return 1
    finally:
        lock.release()


def _run_locked(notebooks, *, results, mode, command, signals, scorecard, heartbeat, tick) -> int:
    nbdir = results / "notebooks"
    for sub in ("notebooks", "tables", "figures"):
        (results / sub).mkdir(parents=True, exist_ok=True)
    timings = Timings(results / "timings.json")
    n = len(notebooks)
    _say(f"[run] {mode} mode, {n} notebook(s), results in {results} (logs: {nbdir}/NAME.log, "
         "NAME.FAILED.log for a failed run)")
    failed, t_all = [], time.monotonic()
    for k, nb in enumerate(notebooks, 1):
        name = nb.stem
        kept, failed_log = nbdir / f"{name}.ipynb", nbdir / f"{name}.FAILED.log"
        stage = Stage(results, name)
        log = stage.path / "notebooks" / f"{name}.log"      # staged: NAME.log only from a run that succeeded
        last = timings.last(name)
        eta = ""
        if last is not None:
            eta_at = (_dt.datetime.now() + _dt.timedelta(seconds=last)).strftime("%H:%M:%S")
            eta = f", last run {last:.0f}s, ETA {eta_at}"
        _say(f"[{k}/{n}] {name}: started {_dt.datetime.now():%H:%M:%S}{eta}")
        (nbdir / f"{name}.INTERRUPTED").unlink(missing_ok=True)
        env = {**os.environ, **threads.child_environment(), "OMKL_RESULTS": str(stage.path), "OMKL_MODE": mode,
               "MPLBACKEND": "Agg"}      # the kernel's engines start at the library's count (omkl_core.threads)
        t0, cpu0 = time.monotonic(), children_cpu_seconds()
        next_beat = [t0 + heartbeat]

        def beat(name=name, log=log, t0=t0, next_beat=next_beat, last=last):
            now = time.monotonic()
            if now >= next_beat[0]:
                cells = _cells(log)
                _say(f"    {name}: running {now - t0:.0f}s" + (f", cell {cells}" if cells else "")
                     + (f" of ~{last:.0f}s last time" if last is not None else ""))
                next_beat[0] = now + heartbeat

        try:
            with signals.deferred():
                stage.prepare()
            with open(log, "w", encoding="utf-8") as fh:
                rc = run_child(command(nb, stage.path / "notebooks" / f"{name}.ipynb"), signals, env=env,
                               cwd=nb.parent, stdout=fh, stderr=subprocess.STDOUT, tick=tick, on_tick=beat)
        except Interrupted as stop:
            with signals.ignored():
                _keep_failed_log(log, failed_log)
                _mark_interrupted(stage, kept, failed_log, stop, time.monotonic() - t0)
            raise
        except OSError:
            with signals.ignored():
                _keep_failed_log(log, failed_log)
                stage.discard()
            raise
        wall, cpu = time.monotonic() - t0, children_cpu_seconds() - cpu0
        with signals.deferred():
            if rc == 0:
                status = "ok"
                stage.commit()
                (nbdir / f"{name}.FAILED.ipynb").unlink(missing_ok=True)
                timings.record(name, wall, cpu, mode)
            else:
                status = "FAILED"
                failed.append(name)
                full = _disk_full(stage.path, log)
                executed = stage.path / "notebooks" / f"{name}.ipynb"
                failed_nb = nbdir / f"{name}.FAILED.ipynb"
                failed_nb.unlink(missing_ok=True)
                incomplete = executed.exists() and not _complete_notebook(executed)
                if executed.exists() and not incomplete:
                    os.replace(executed, failed_nb)             # atomic: a complete notebook or none
                executed.unlink(missing_ok=True)                # frees the space a truncated one took
                _keep_failed_log(log, failed_log)
                stage.discard()
                if full:
                    _note(failed_log, f"error: No space left on device in {results}: the run failed because "
                                      "the disk is full; free space and run it again")
        _say(f"[{k}/{n}] {name:<28} {wall:6.0f}s  {status}  (CPU {cpu:.0f}s)")
        if rc != 0:
            try:
                tail = failed_log.read_text(errors="replace").splitlines()[-25:]
            except OSError:
                tail = []
            _say("\n".join(f"    | {line}" for line in tail))
            if full:
                _say(f"error: No space left on device in {results}; the previous results are kept", err=True)
            _say(f"    {name}: " + (f"the previous complete outputs (executed notebook {kept}) are kept"
                                    if kept.exists() else "no earlier outputs; nothing written")
                 + (f"; this run's notebook: {failed_nb}" if failed_nb.exists() else
                    ("; this run's notebook was incomplete and is not kept" if incomplete else ""))
                 + f"; its log: {failed_log}")
    if scorecard is not None:
        env = {**os.environ, "OMKL_RESULTS": str(results), "OMKL_MODE": mode, "MPLBACKEND": "Agg"}
        if run_child(scorecard, signals, env=env) != 0:
            failed.append("scorecard")
    _say(f"{'total':<34} {time.monotonic() - t_all:6.0f}s")
    if failed:
        _say(f"error: failed: {' '.join(failed)} (logs in {nbdir}/)", err=True)
        return 1
    return 0


def _keep_failed_log(log: Path, failed_log: Path) -> None:
    """Move a failed run's staged log to ``NAME.FAILED.log`` (the last good ``NAME.log`` stays)."""
    try:
        if log.exists():
            os.replace(log, failed_log)
    except OSError:
        pass


def _note(log: Path, line: str) -> None:
    try:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
    except OSError:
        pass


def _mark_interrupted(stage: Stage, kept: Path, log: Path, stop: Interrupted, wall: float) -> None:
    """Drop the stage of the interrupted notebook; write ``NAME.INTERRUPTED`` and say what is kept."""
    stage.discard()
    if kept.exists():
        when = _dt.datetime.fromtimestamp(kept.stat().st_mtime, _dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        what = f"the previous complete outputs (executed notebook of {when}) are kept unchanged"
    else:
        what = "it had no earlier complete outputs; nothing was written"
    line = (f"INTERRUPTED by {stop.name} at {_utc_now()} after {wall:.0f}s: this notebook did not finish; "
            f"its partial outputs were discarded and {what}.\n")
    (log.parent / f"{stage.name}.INTERRUPTED").write_text(line, encoding="utf-8")
    try:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(line)
    except OSError:
        pass
    _say(f"\ninterrupted by {stop.name}: notebook {stage.name} stopped after {wall:.0f}s; {what}", err=True)
