"""One process-wide switch among named options, read from a context, a setter or an environment variable.

The library has a few such choices -- the engine of the compiled loops (:mod:`omkl_core.compiled`,
``OMKL_ENGINE``) and the cosine of the feature map (:mod:`omkl_core.cosine`, ``OMKL_COS``) -- and
each is resolved the same way, first to last:

1. :meth:`Setting.using` -- a context manager, for a block;
2. :meth:`Setting.set` -- for the rest of the process (``None``: back to the environment);
3. the environment variable (read at every call, so a child process sees its own);
4. the default (``"auto"``).

A value outside the choices is a ValueError naming where it came from (the setter's argument or the
environment variable), before anything changes.
"""
from __future__ import annotations

import contextlib
import os

__all__ = ["Setting"]


def _environ_key(name: str):
    """``name`` as CPython's ``os.environ`` keys its mapping (``encodekey``), or None elsewhere."""
    encode = getattr(os.environ, "encodekey", None)
    return None if encode is None else encode(name)


def _environ_raw(name: str, key):
    """The raw value of environment variable ``name`` as ``os.environ`` holds it now (None when unset):
    CPython's ``os.environ`` keeps its values in a dict (``_data``, updated by every assignment to
    ``os.environ``) that one look-up under ``key`` (:func:`_environ_key`) reads; elsewhere
    ``os.environ.get``."""
    data = getattr(os.environ, "_data", None)
    if key is not None and type(data) is dict:
        return data.get(key)
    return os.environ.get(name)


class Setting:
    """A named choice among ``choices`` (the first is the default), overridable by ``env``.

    Parameters
    ----------
    what : str
        What an error calls the setter's argument (``"engine"``, ``"library"``).
    choices : tuple of str
        Every accepted value, the default first.
    env : str
        The environment variable read when neither :meth:`set` nor :meth:`using` is in force.

    Examples
    --------
    >>> s = Setting("colour", ("auto", "red", "blue"), "DOC_COLOUR")
    >>> with s.using("red"):
    ...     s.requested()
    'red'
    """

    def __init__(self, what: str, choices: tuple, env: str):
        self.what, self.choices, self.env = what, tuple(choices), env
        self.override: str | None = None          # set() / using(); None: from the environment
        self._parsed: tuple | None = None          # (the variable's raw value, the choice it names): the last read
        self._key = _environ_key(env)

    def check(self, name, what: str | None = None) -> str:
        """``name`` when it is one of :attr:`choices`, else a ValueError naming ``what``."""
        if not isinstance(name, str) or name not in self.choices:
            raise ValueError(f"{what or self.what} must be one of {self.choices}, got {name!r}")
        return name

    def requested(self) -> str:
        """The value in force now (the default ``"auto"`` unresolved). The variable is read at every
        call (a learner's step asks: one dictionary look-up where CPython's ``os.environ`` keeps its
        mapping, and the value parsed again only when it changed)."""
        if self.override is not None:
            return self.override
        raw = _environ_raw(self.env, self._key)
        parsed = self._parsed
        if parsed is not None and parsed[0] == raw:
            return parsed[1]
        text = os.environ.get(self.env, self.choices[0])
        value = self.check(text.strip().lower() or self.choices[0], self.env)
        self._parsed = (raw, value)
        return value

    def set(self, name) -> None:
        """Set the value for the rest of the process (``None``: back to the environment variable)."""
        self.override = None if name is None else self.check(name)

    @contextlib.contextmanager
    def using(self, name: str):
        """Run a block with ``name`` in force, then restore what was."""
        self.check(name)
        old, self.override = self.override, name
        try:
            yield
        finally:
            self.override = old
