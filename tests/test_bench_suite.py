"""``benchmarks/bench_suite.py``: the suite's time before and after, read from pytest's JUnit XML."""
from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _module():
    spec = importlib.util.spec_from_file_location("bench_suite", ROOT / "benchmarks" / "bench_suite.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _junit(path: Path, wall: float, cases: dict) -> Path:
    body = "".join(f'<testcase classname="{c.split("::")[0]}" name="{c.split("::")[1]}" time="{s}" />'
                   for c, s in cases.items())
    path.write_text(f'<?xml version="1.0"?><testsuites><testsuite name="pytest" errors="0" failures="1" '
                    f'skipped="2" tests="{len(cases)}" time="{wall}">{body}</testsuite></testsuites>')
    return path


def test_the_report_gives_wall_sum_cores_and_the_slowest_tests_and_files(tmp_path, capsys):
    bench = _module()
    before = _junit(tmp_path / "b.xml", 100.0, {"tests.test_a::test_x": 60.0, "tests.test_a::test_y": 30.0,
                                                "tests.test_b::test_z": 10.0})
    after = _junit(tmp_path / "a.xml", 40.0, {"tests.test_a::test_x": 50.0, "tests.test_a::test_y": 20.0,
                                              "tests.test_b::test_z": 10.0})
    assert bench.main([str(before), str(after), "--top", "2", "--out", str(tmp_path / "r.md")]) == 0
    text = capsys.readouterr().out
    assert (tmp_path / "r.md").read_text() == text
    assert "| before | 3 | 1 | 2 | 100 | 100 | 1.00 |" in text
    assert "| after | 3 | 1 | 2 | 40 | 80 | 2.00 |" in text               # two workers: sum / wall = 2
    slow_after = text.split("Slowest 2 tests, after:")[1].split("Slowest 2 files")[0]
    assert slow_after.index("test_x` | 50.0") < slow_after.index("test_y` | 20.0") and "test_z" not in slow_after
    assert "| `tests/test_a.py` | 90 |" in text and "| `tests/test_a.py` | 70 |" in text
