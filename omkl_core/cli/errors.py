"""The command line's error and exit statuses: a :class:`UserError` is one line on stderr and exit status 2."""
from __future__ import annotations

import sys

#: Exit status of a user error (argparse's convention) and of a reader that closed early.
EXIT_USAGE = 2
EXIT_PIPE = 141   # 128 + SIGPIPE, as a shell reports a command killed by a closed pipe


class UserError(Exception):
    """A problem with the command line or its inputs: shown as one line, no traceback."""


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
