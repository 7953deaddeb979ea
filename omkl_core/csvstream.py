"""A user's numeric CSV read in bounded memory: the reader of ``omkl run --csv``.

``read_table(path, name)`` passes once over the text (a file, or ``"-"``: standard input),
checks every row as it goes and keeps the values as float64 rows: in memory while they fit in
one block of :data:`BLOCK_ROWS` rows, else spooled to an anonymous temporary file (unlinked when
it is created, so nothing is left behind, however the process ends).  :meth:`CsvTable.blocks`
then hands them back a block at a time, so a learner runs over a 2,000,000-row file with a few
blocks in memory, never the file's text, a list of its cells or the whole stream as Python
objects.  Per-column statistics (min, max, largest size, sum of squares) are gathered on the
way for the scalings that need the whole stream (paper 000 eqs. (33)-(34)).

What is refused, each with a ``ValueError`` naming the file, the row, the line and the column
(the CLI shows it as one line):

* a file that is not UTF-8 text, is empty, has no header, no data rows or fewer than two columns;
* a header in another dialect: one column whose name holds ``;``, a tab or ``|`` (a
  semicolon- or tab-separated file; decimal commas come with it) -- the separator is named;
* a column without a name (``a,,y``; a trailing comma), duplicate names, a header that is all
  numbers (data, not names);
* a row with another number of fields than the header (with a hint at decimal commas when it
  has more);
* a cell that is empty, not a plain number (``1_000``, ``1,5``, non-ASCII digits, ``0x10``),
  not finite (``nan``, ``inf``) or larger than :data:`omkl_core.validation.MAX_MAGNITUDE` in size.
"""
from __future__ import annotations

import csv
import io
import sys
import tempfile
from pathlib import Path

import numpy as np

from .validation import MAX_MAGNITUDE

__all__ = ["BLOCK_ROWS", "CsvTable", "read_table"]

#: Rows per block: what the reader holds in memory at a time, and what ``blocks()`` hands out.
BLOCK_ROWS = 65536

#: Separators of other CSV dialects, by the name an error gives them.
_OTHER_SEPARATORS = {";": "';' (semicolons)", "\t": "tabs", "|": "'|'"}


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _plain(cell: str) -> bool:
    """A cell omkl reads as a number: ASCII, no ``_`` digit separators (``float`` takes both)."""
    return cell.isascii() and "_" not in cell


class CsvTable:
    """A checked numeric CSV: ``header``, ``T`` rows, per-column statistics, and its values a block
    at a time (:meth:`blocks`).  Use as a context manager (or call :meth:`close`)."""

    def __init__(self, name: str, header: list[str]):
        self.name = name
        self.header = header
        self.T = 0
        n = len(header)
        self.minimum = np.full(n, np.inf)
        self.maximum = np.full(n, -np.inf)
        self.sum_squares = np.zeros(n)
        self._memory: list[np.ndarray] = []
        self._spool = None

    # ---- writing (the reader) ---------------------------------------------------------
    def _append(self, block: np.ndarray) -> None:
        self.T += block.shape[0]
        self.minimum = np.minimum(self.minimum, block.min(axis=0))
        self.maximum = np.maximum(self.maximum, block.max(axis=0))
        self.sum_squares += (block * block).sum(axis=0)
        if self._spool is None and sum(b.shape[0] for b in self._memory) + block.shape[0] <= BLOCK_ROWS:
            self._memory.append(block)
            return
        if self._spool is None:
            self._spool = tempfile.TemporaryFile(prefix="omkl-csv-")
            for b in self._memory:
                self._spool.write(np.ascontiguousarray(b).tobytes())
            self._memory = []
        self._spool.write(np.ascontiguousarray(block).tobytes())

    # ---- reading ------------------------------------------------------------------------
    @property
    def largest(self) -> np.ndarray:
        """The largest |value| of each column."""
        return np.maximum(np.abs(self.minimum), np.abs(self.maximum))

    def blocks(self, rows: int | None = None):
        """The values (rows, n columns) in file order, ``rows`` (default :data:`BLOCK_ROWS`) at a time
        (the last block shorter)."""
        rows = BLOCK_ROWS if rows is None else rows
        n = len(self.header)
        if self._spool is None:
            whole = np.concatenate(self._memory) if len(self._memory) > 1 else self._memory[0]
            for start in range(0, self.T, rows):
                yield whole[start:start + rows]
            return
        self._spool.seek(0)
        for start in range(0, self.T, rows):
            k = min(rows, self.T - start)
            data = self._spool.read(8 * n * k)
            yield np.frombuffer(data, dtype=np.float64).reshape(k, n)

    def columns(self, cols: list[int]) -> np.ndarray:
        """The whole of columns ``cols`` (T, len(cols)) in memory (for what needs the whole stream)."""
        return np.concatenate([b[:, cols] for b in self.blocks()]) if self.T else np.empty((0, len(cols)))

    def close(self) -> None:
        if self._spool is not None:
            self._spool.close()
            self._spool = None

    def __enter__(self) -> CsvTable:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _text(path: str):
    """A text stream of ``path`` (``"-"``: standard input), a UTF-8 byte-order mark dropped."""
    if path == "-":
        raw = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else io.BytesIO(sys.stdin.read().encode())
        return io.TextIOWrapper(raw, encoding="utf-8-sig", newline="")
    p = Path(path)
    if not p.exists():
        raise ValueError(f"{path}: no such file")
    if p.is_dir():
        raise ValueError(f"{path}: is a directory, not a CSV file")
    try:
        return open(p, encoding="utf-8-sig", newline="")   # noqa: SIM115 (closed by read_table)
    except PermissionError:
        raise ValueError(f"{path}: permission denied") from None


def _check_header(header: list[str], raw: str, name: str) -> None:
    if len(header) == 1:
        for sep, what in _OTHER_SEPARATORS.items():
            if sep in header[0]:
                raise ValueError(f"{name}: the header row {raw!r} is separated by {what}, not commas: omkl reads "
                                 "comma-separated files with '.' as the decimal point; save it as such (e.g. "
                                 "pandas.read_csv(FILE, sep=';', decimal=',').to_csv(NEW, index=False))")
    unnamed = [j for j, h in enumerate(header) if not h]
    if unnamed and len(header) > 1:
        raise ValueError(f"{name}: column {unnamed[0]} of the header row {raw!r} has no name"
                         f"{' (a trailing comma?)' if unnamed[0] == len(header) - 1 else ''}; name every column")
    if header and all(h and _is_number(h) for h in header):
        raise ValueError(f"{name}: the first row ({','.join(header)}) is all numbers: it looks like data, "
                         "not a header; add a header row naming the columns (e.g. x1,x2,y)")
    seen: dict[str, list[int]] = {}
    for j, h in enumerate(header):
        seen.setdefault(h, []).append(j)
    dup = {h: js for h, js in seen.items() if len(js) > 1}
    if dup:
        raise ValueError(f"{name}: duplicate column names: "
                         + "; ".join(f"{h!r} (columns {', '.join(map(str, js))})" for h, js in dup.items()))


def _bad_cell(rows: list[list[str]], lines: list[int], first_row: int, header: list[str], name: str) -> ValueError:
    """The error for the first cell of ``rows`` that is not a finite number of size <= MAX_MAGNITUDE."""
    for i, row in enumerate(rows):
        for j, cell in enumerate(row):
            cell = cell.strip()
            where = f"{name}: row {first_row + i + 1} (line {lines[i]}), column {header[j]!r}"
            if not cell:
                return ValueError(f"{where}: empty cell")
            if not _plain(cell) or not _is_number(cell):
                hint = (" ('_' digit separators are not read: write 1000)" if "_" in cell and cell.isascii() else
                        " (a decimal comma? write 1.5, not 1,5)" if "," in cell else "")
                return ValueError(f"{where}: {cell!r} is not a finite number{hint}")
            v = float(cell)
            if not np.isfinite(v):
                return ValueError(f"{where}: {cell!r} is not a finite number")
            if abs(v) > MAX_MAGNITUDE:
                return ValueError(f"{where}: {cell} is too large (|value| > {MAX_MAGNITUDE:g}): squared losses and "
                                  "products overflow float64; rescale the column first")
    return ValueError(f"{name}: rows {first_row + 1}..{first_row + len(rows)}: a cell is not a number")  # pragma: no cover


#: Longest line read (characters): a stream without newlines (``/dev/zero``, a binary file) is
#: refused when a line reaches it, in bounded memory, instead of growing without end.
MAX_LINE_CHARS = 1 << 24


def _lines(fh, name: str, limit: int | None = None):
    """The lines of ``fh``, each read with a bound (:data:`MAX_LINE_CHARS`): a ValueError naming the
    file at the first line that reaches it without a newline."""
    limit = MAX_LINE_CHARS if limit is None else limit
    n = 0
    while True:
        line = fh.readline(limit)
        if not line:
            return
        n += 1
        if len(line) >= limit and not line.endswith(("\n", "\r")):
            raise ValueError(f"{name}: line {n} runs past {limit:,} characters without a line break: not a CSV "
                             "file (a binary file or an endless stream such as /dev/zero?)")
        yield line


def read_table(path: str, name: str | None = None) -> CsvTable:
    """Read and check the CSV at ``path`` (``"-"``: standard input) in one pass (module docstring);
    ``name`` is the file's name in errors (default: ``path``)."""
    name = name or ("standard input" if path == "-" else path)
    fh = _text(path)
    table = None
    try:
        reader = csv.reader(_lines(fh, name))
        header_row = []
        while header_row == []:                           # blank lines before the header
            try:
                header_row = next(reader, None)
            except UnicodeDecodeError:
                raise ValueError(f"{name}: not a text CSV file (cannot decode it as UTF-8)") from None
            except csv.Error as exc:
                raise ValueError(f"{name}: line {reader.line_num}: {exc}") from None
        if header_row is None or not any(h.strip() for h in header_row) and len(header_row) <= 1:
            raise ValueError(f"{name}: the file is empty (expected a header row and data rows)")
        header = [h.strip() for h in header_row]
        _check_header(header, ",".join(header_row), name)
        n = len(header)
        table = CsvTable(name, header)
        rows: list[list[str]] = []
        lines: list[int] = []

        def flush():
            if not rows:
                return
            try:
                ok = all(_plain("".join(r)) for r in rows)
                block = np.array(rows, dtype=np.float64) if ok else None
            except ValueError:
                block = None
            if block is None or not np.all(np.isfinite(block)) or np.max(np.abs(block)) > MAX_MAGNITUDE:
                raise _bad_cell(rows, lines, table.T, header, name)
            table._append(block)
            rows.clear()
            lines.clear()

        while True:
            try:
                row = next(reader, None)
            except UnicodeDecodeError:
                raise ValueError(f"{name}: not a text CSV file (cannot decode it as UTF-8)") from None
            except csv.Error as exc:
                raise ValueError(f"{name}: line {reader.line_num}: {exc}") from None
            if row is None:
                break
            if not row:                                   # a blank line
                continue
            if len(row) != n:
                more = (" (more fields than the header: a decimal comma, 1,5 for 1.5, or an unquoted ',' "
                        "inside a value?)" if len(row) > n else "")
                raise ValueError(f"{name}: row {table.T + len(rows) + 1} (line {reader.line_num}) has {len(row)} "
                                 f"fields, header has {n}{more}")
            rows.append(row)
            lines.append(reader.line_num)
            if len(rows) == BLOCK_ROWS:
                flush()
        flush()
        if table.T == 0:
            raise ValueError(f"{name}: has a header but no data rows")
        if n < 2:
            raise ValueError(f"{name}: needs at least two columns (features and a target), got {n}")
        return table
    except BaseException:
        if table is not None:
            table.close()
        raise
    finally:
        if path != "-":
            fh.close()
        else:
            fh.detach()                                  # leave sys.stdin usable

