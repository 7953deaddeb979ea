"""Refresh the shown output of every command block in docs/ and the README (issue 53, item 2).

A block of shown output is a ```text fence right after a line ``<!-- output of: omkl ARGS -->``;
tests/test_doc_outputs.py runs each command and compares what it prints now with the block
(doctest's ELLIPSIS and NORMALIZE_WHITESPACE: ``...`` stands for what varies, such as a time, and
lines may be wrapped at spaces to fit the page).  This script writes what the commands print now
into the blocks, wrapped at 88 columns, with ``seconds=...``:

    python tools/doc_outputs.py          # rewrite the blocks in place
    python tools/doc_outputs.py --check  # exit 1 if a block differs (what the test does)
"""
from __future__ import annotations

import contextlib
import doctest
import io
import os
import re
import shlex
import sys
import textwrap
from pathlib import Path

from omkl_core.cli import main as omkl_main

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"^<!-- output of: (?P<cmd>.+?) -->\n```text\n(?P<out>.*?)^```", re.S | re.M)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
VARIES = [(re.compile(r"seconds=[0-9.]+"), "seconds=...")]


def pages() -> list[Path]:
    """The markdown sources that may hold shown output: docs/ (not the generated pages) and the README."""
    docs = [p for p in sorted((ROOT / "docs").rglob("*.md")) if not {"_build", "_generated"} & set(p.parts)]
    return [*docs, ROOT / "README.md"]


def run(cmd: str) -> str:
    """What ``cmd`` (an ``omkl ...`` command line) prints now, run in-process from the repository root."""
    argv = shlex.split(cmd)
    if argv[0] != "omkl":
        raise ValueError(f"a shown command must be an omkl command, got {cmd!r}")
    out = io.StringIO()
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out):
            status = omkl_main(argv[1:])
    finally:
        os.chdir(here)
    if status != 0:
        raise RuntimeError(f"{cmd!r} exited with {status}")
    return out.getvalue()


def shown(text: str, width: int = 88) -> str:
    """``text`` as a page shows it: what varies as ``...``, long lines wrapped at spaces."""
    for pattern, repl in VARIES:
        text = pattern.sub(repl, text)
    lines = []
    for line in text.rstrip("\n").splitlines():
        indent = line[:len(line) - len(line.lstrip())]
        lines += textwrap.wrap(line, width=width, subsequent_indent=indent + "  ", break_long_words=False,
                               break_on_hyphens=False, drop_whitespace=True) or [""]
    return "\n".join(lines) + "\n"


def matches(want: str, got: str) -> bool:
    return doctest.OutputChecker().check_output(want, got, FLAGS)


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        new = text
        for m in reversed(list(BLOCK.finditer(text))):
            got = run(m.group("cmd"))
            if matches(m.group("out"), got):
                continue
            stale.append(f"{page.relative_to(ROOT)}: {m.group('cmd')}")
            new = new[:m.start("out")] + shown(got) + new[m.end("out"):]
        if new != text and not check:
            page.write_text(new, encoding="utf-8")
    for s in stale:
        print(("stale: " if check else "refreshed: ") + s)
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
