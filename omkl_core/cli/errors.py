"""The command line's error and exit statuses: a :class:`UserError` is one line on stderr and exit status 2."""
from __future__ import annotations

import contextlib
import sys

#: Exit status of a user error (argparse's convention) and of a reader that closed early.
EXIT_USAGE = 2
EXIT_PIPE = 141   # 128 + SIGPIPE, as a shell reports a command killed by a closed pipe


class UserError(Exception):
    """A problem with the command line or its inputs: shown as one line, no traceback."""


class Terminated(KeyboardInterrupt):
    """SIGTERM (or SIGHUP) received: raised in the main thread by the command's signal handler, so
    that the work stops as on Ctrl-C (pools and clusters closed, finished cells cached) and the
    command ends with one line and exit status 128 + the signal's number."""

    def __init__(self, signum: int):
        import signal  # noqa: PLC0415

        super().__init__(signal.Signals(signum).name)
        self.signum = int(signum)
        self.name = signal.Signals(signum).name


_DEFERRED: list = []      # [depth, pending signal or None]: a SIGTERM held back while a resource starts


def _raise_terminated(signum, frame) -> None:
    """The command's SIGTERM handler: :class:`Terminated` now, or at the end of :func:`deferred_sigterm`."""
    if _DEFERRED and _DEFERRED[0] > 0:
        _DEFERRED[1] = signum
        return
    raise Terminated(signum)


@contextlib.contextmanager
def deferred_sigterm():
    """Hold a SIGTERM back while something starts that cannot be closed half-started (a local Dask
    cluster: stopped in its constructor it was closed at exit with a traceback); it is raised when
    the block ends, inside whatever then closes the thing cleanly."""
    if not _DEFERRED:
        _DEFERRED[:] = [0, None]
    _DEFERRED[0] += 1
    try:
        yield
    finally:
        _DEFERRED[0] -= 1
        pending, _DEFERRED[1] = _DEFERRED[1], None
    if pending is not None and _DEFERRED[0] == 0:
        raise Terminated(pending)


def _warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A library warning on the command line: one line, without the source location."""
    print(f"omkl: warning: {' '.join(str(message).split())}", file=sys.stderr)


def _error(msg) -> None:
    """An error on the command line: one line on stderr, never empty (an exception without a message,
    e.g. a bare ``MemoryError``, is named by its kind)."""
    text = " ".join(str(msg).split())
    if not text:
        text = ("out of memory: the input or the learner's state does not fit in the memory available"
                if isinstance(msg, MemoryError) else f"{type(msg).__name__} without a message")
        text += " (--debug shows the traceback)"
    print(f"omkl: error: {text}", file=sys.stderr)
