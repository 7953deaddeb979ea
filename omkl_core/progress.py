"""Progress for long work: tqdm's bar where tqdm is installed, else one line on stderr every
few seconds with the rate and an ETA (the library does not depend on tqdm)."""
from __future__ import annotations

import sys
import time
from collections.abc import Iterable

__all__ = ["progress_bar", "progress_iter"]

#: Seconds between two lines of the plain-text fallback.
LINE_EVERY = 5.0


class _Lines:
    """The fallback: ``update(n)`` counts, a line at most every :data:`LINE_EVERY` seconds and one at the end."""

    def __init__(self, total: int | None, initial: int, desc: str, unit: str):
        self.total, self.n, self.desc, self.unit = total, initial, desc, unit
        self._start = self._last = time.monotonic()
        self._initial = initial

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        if self.n > self._initial and time.monotonic() - self._start >= LINE_EVERY:
            self._line()

    def update(self, n: int = 1) -> None:
        self.n += n
        now = time.monotonic()
        if now - self._last >= LINE_EVERY:
            self._last = now
            self._line()

    def _line(self) -> None:
        elapsed = time.monotonic() - self._start
        rate = (self.n - self._initial) / elapsed if elapsed > 0 else 0.0
        done = f"{self.n}/{self.total}" if self.total else f"{self.n}"
        eta = ""
        if self.total and rate > 0:
            eta = f", ETA {max(self.total - self.n, 0) / rate:.0f} s"
        print(f"{self.desc}: {done} {self.unit}s, {rate:.3g} {self.unit}/s{eta}", file=sys.stderr, flush=True)


class _Off:
    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass

    def update(self, n: int = 1) -> None:
        pass


def progress_bar(total: int | None, *, desc: str, unit: str = "step", initial: int = 0, enabled: bool = True,
                 leave: bool = True):
    """A context manager with ``update(n)``: tqdm when importable, else :class:`_Lines`; nothing when
    ``enabled`` is false. Progress never changes a result."""
    if not enabled:
        return _Off()
    try:
        from tqdm.auto import tqdm  # noqa: PLC0415
    except ImportError:
        return _Lines(total, initial, desc, unit)
    return tqdm(total=total, initial=initial, desc=desc, unit=unit, leave=leave, dynamic_ncols=True, mininterval=0)


def progress_iter(items: Iterable, *, total: int | None = None, desc: str, unit: str = "step"):
    """Iterate ``items`` with progress (see :func:`progress_bar`)."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)
    with progress_bar(total, desc=desc, unit=unit, leave=False) as bar:
        for item in items:
            yield item
            bar.update(1)
