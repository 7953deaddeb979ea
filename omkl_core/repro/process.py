"""Child processes of the reproduction driver: each in its own session, stopped as a group.

The driver runs one long child at a time (papermill, pytest, the mutation tester, the
scorecard step). The child starts in its own session (``start_new_session=True``), so a
terminal's Ctrl-C reaches the driver only; the driver forwards it. :class:`Signals` turns
SIGINT/SIGTERM into an :class:`Interrupted` exception in the driver (also when the driver was
started with SIGINT ignored, as ``./reproduce.sh &`` from a script does); :func:`run_child`
then stops the child's process group and the sessions of the child's own children (a Jupyter
kernel leads a session of its own): SIGINT first, so that papermill shuts its kernel down and
pytest prints its summary, SIGKILL after ``grace`` seconds. The driver exits 128 + signal
number (130 for SIGINT, 143 for SIGTERM).

A driver that dies without a chance to stop its child (``kill -9``, a crash) takes the child
with it: the child asks the kernel for SIGKILL when its parent dies (Linux
``prctl(PR_SET_PDEATHSIG)``, set between fork and exec), and papermill's Jupyter kernel polls
its parent (``JPY_PARENT_PID``) and exits when papermill is gone.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import resource
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from pathlib import Path

__all__ = ["Interrupted", "Signals", "run_child", "stop_child", "children_cpu_seconds", "child_pids",
           "die_with_parent"]

#: Seconds a stopped child gets to exit after SIGINT before its group is killed.
GRACE_S = 2.0


#: ``prctl`` option: the signal a process receives when its parent dies (linux/prctl.h)
PR_SET_PDEATHSIG = 1


@functools.lru_cache(maxsize=1)
def _libc():
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    except OSError:
        return None


def die_with_parent(parent_pid: int) -> None:
    """In a child between fork and exec: ask for SIGKILL when the parent dies (Linux), and exit
    at once if it already has (``getppid()`` is no longer ``parent_pid``). Nothing elsewhere."""
    libc = _libc()
    if libc is not None:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent_pid:
            os._exit(1)


class Interrupted(Exception):  # noqa: N818 -- a signal, not an error
    """SIGINT or SIGTERM reached the driver; ``exit_code`` is 128 + the signal number."""

    def __init__(self, signum: int):
        self.signum = signum
        self.name = signal.Signals(signum).name
        self.exit_code = 128 + signum
        super().__init__(f"interrupted by {self.name}")


class Signals:
    """SIGINT/SIGTERM -> :class:`Interrupted`, except inside :meth:`deferred` blocks, where the
    first signal is kept and raised when the outermost block ends (so that a process is never
    half-started and a folder never half-moved).

    Use as a context manager: the previous handlers are restored on exit.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self):
        self.received: int | None = None
        self._defer = 0
        self._previous: dict = {}

    def _handler(self, signum, frame):  # noqa: ARG002 -- the signal module's signature
        if self.received is None:
            self.received = signum
        if not self._defer:
            raise Interrupted(self.received)

    def __enter__(self) -> Signals:
        for sig in self.SIGNALS:
            self._previous[sig] = signal.signal(sig, self._handler)
        return self

    def __exit__(self, *exc) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)

    @contextmanager
    def deferred(self):
        """Hold SIGINT/SIGTERM back for the duration of the block."""
        self._defer += 1
        try:
            yield
        finally:
            self._defer -= 1
        if not self._defer and self.received is not None:
            raise Interrupted(self.received)

    @contextmanager
    def ignored(self):
        """Ignore further signals (while the driver is already stopping)."""
        old = {sig: signal.signal(sig, signal.SIG_IGN) for sig in self.SIGNALS}
        try:
            yield
        finally:
            for sig, handler in old.items():
                signal.signal(sig, handler)


def child_pids(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from ``/proc``; empty where there is none)."""
    kids = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return kids
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 1 and fields[1] == str(pid):
            kids.append(int(entry))
    return kids


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def stop_child(proc: subprocess.Popen, grace: float = GRACE_S) -> None:
    """Stop ``proc``'s process group (SIGINT, then SIGKILL after ``grace`` s) and the process
    groups its children lead (e.g. papermill's Jupyter kernel), then reap ``proc``."""
    if proc.poll() is not None:
        return
    kids = child_pids(proc.pid)          # before the child dies: orphans are re-parented
    _signal_group(proc.pid, signal.SIGINT)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        pass
    _signal_group(proc.pid, signal.SIGKILL)
    for kid in kids:
        _signal_group(kid, signal.SIGKILL)
    proc.wait()


def run_child(cmd: Sequence[str], signals: Signals, *, env: dict | None = None, cwd=None, stdout=None,
              stderr=None, tick: float = 1.0, on_tick: Callable[[], None] | None = None,
              grace: float = GRACE_S) -> int:
    """Run ``cmd`` in its own session and return its exit status.

    ``on_tick()`` is called every ``tick`` seconds while it runs (progress lines). On
    :class:`Interrupted` (or any other exception) the child is stopped with :func:`stop_child`
    before the exception propagates.
    """
    proc = None
    try:
        with signals.deferred():
            proc = subprocess.Popen(list(cmd), env=env, cwd=cwd, stdout=stdout, stderr=stderr,
                                    start_new_session=True,
                                    preexec_fn=functools.partial(die_with_parent, os.getpid()))  # noqa: PLW1509
        while True:
            try:
                return proc.wait(timeout=tick)
            except subprocess.TimeoutExpired:
                if on_tick is not None:
                    on_tick()
    except BaseException:
        if proc is not None:
            with signals.ignored():
                stop_child(proc, grace)
        raise


def children_cpu_seconds() -> float:
    """User + system CPU seconds of the driver's finished (reaped) children and their reaped
    descendants (``getrusage(RUSAGE_CHILDREN)``): papermill, its kernel, the sweep's workers."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


