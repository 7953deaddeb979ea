"""Where the full reproduction's time goes, per notebook, before and after a change:
``python benchmarks/bench_reproduction.py BEFORE/timings.json AFTER/timings.json [--out FILE]``.

Each ``timings.json`` is what ``./reproduce.sh`` (``python -m omkl_core.repro``) writes into its
results folder: per notebook the wall seconds and the CPU seconds of papermill, its kernel and the
kernel's workers (``getrusage(RUSAGE_CHILDREN)``). Run both from a fresh results folder (no sweep
cache: what a fresh clone does) on the idle machine, one after the other. The table gives per
notebook wall and CPU before and after, the cores in use (CPU / wall; 2.0 = both cores busy the
whole time) and the ratio after / before; then the totals.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path


def load(path) -> dict:
    """``{notebook: {"wall_s", "cpu_s", ...}}`` of a ``timings.json``."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return data["notebooks"]


def table(before: dict, after: dict, labels=("before", "after")) -> str:
    """The markdown table of the two runs' per-notebook wall and CPU seconds."""
    b, a = labels
    names = sorted(set(before) | set(after))
    lines = [f"| notebook | wall {b} (s) | CPU {b} (s) | cores in use {b} | wall {a} (s) | CPU {a} (s) | "
             f"cores in use {a} | wall {a} / {b} |", "|---|---|---|---|---|---|---|---|"]
    tot = {k: 0.0 for k in ("wb", "cb", "wa", "ca")}

    def cell(entry, key):
        return f"{entry[key]:.0f}" if entry else "–"

    for name in names:
        e0, e1 = before.get(name), after.get(name)
        use0 = f"{e0['cpu_s'] / e0['wall_s']:.2f}" if e0 else "–"
        use1 = f"{e1['cpu_s'] / e1['wall_s']:.2f}" if e1 else "–"
        ratio = f"{e1['wall_s'] / e0['wall_s']:.2f}×" if e0 and e1 else "–"
        lines.append(f"| {name} | {cell(e0, 'wall_s')} | {cell(e0, 'cpu_s')} | {use0} | {cell(e1, 'wall_s')} | "
                     f"{cell(e1, 'cpu_s')} | {use1} | {ratio} |")
        if e0:
            tot["wb"] += e0["wall_s"]
            tot["cb"] += e0["cpu_s"]
        if e1:
            tot["wa"] += e1["wall_s"]
            tot["ca"] += e1["cpu_s"]
    lines.append(f"| **total** | **{tot['wb']:.0f}** | {tot['cb']:.0f} | {tot['cb'] / max(tot['wb'], 1e-9):.2f} | "
                 f"**{tot['wa']:.0f}** | {tot['ca']:.0f} | {tot['ca'] / max(tot['wa'], 1e-9):.2f} | "
                 f"{tot['wa'] / max(tot['wb'], 1e-9):.2f}× |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="benchmarks/bench_reproduction.py", description=__doc__.split("\n")[0])
    ap.add_argument("before", help="timings.json of the run before")
    ap.add_argument("after", help="timings.json of the run after")
    ap.add_argument("--out", default=None, help="also write the table (markdown) to this file")
    args = ap.parse_args(argv)
    text = table(load(args.before), load(args.after))
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
