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


def _error(msg: str) -> None:
    """An error on the command line: one line on stderr."""
    print(f"omkl: error: {' '.join(str(msg).split())}", file=sys.stderr)
