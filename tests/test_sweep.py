"""omkl_core.sweep: executors give identical rows, the cache, failures, argument errors, the CLI."""
from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import omkl_core
from omkl_core import registry, sweep
from omkl_core.cli import main

#: The whole module in one xdist group: its Dask clusters run one at a time, and its module-scoped
#: serial rows are computed in the same process, in file order, as in a serial run (pytest-xdist).
pytestmark = pytest.mark.xdist_group("dask")

ROOT = str(Path(__file__).resolve().parent.parent)

SPEC = {"datasets": ["airfoil", "concrete"],
        "learners": [{"name": "OnlineRidge", "params": {"a": 0.1}},
                     {"name": "VAW2", "params": {"m": 8}}],
        "seeds": [0, 1],
        "max_steps": 120,
        "curve_points": 10}

STABLE = [c for c in sweep.ROW_COLUMNS if c not in sweep.VOLATILE_COLUMNS]


@pytest.fixture(autouse=True)
def _worktree_on_workers_path(monkeypatch):
    """Worker processes (process pool, Dask) import this checkout's omkl_core."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (ROOT, os.environ.get("PYTHONPATH")) if p))


def _stable(rows: pd.DataFrame) -> pd.DataFrame:
    return rows[STABLE].reset_index(drop=True)


@pytest.fixture(scope="module")
def serial_rows():
    return sweep.run(SPEC, executor="serial", progress=False, as_frame=True)


def _in_a_fresh_process(code: str, tmp_path):
    """What ``code`` (Python that sets ``result``) computes in a fresh interpreter, as a Dask worker
    is one: the serial side of a serial-vs-Dask comparison must not carry the state earlier tests
    left in this process (under pytest-xdist a worker runs hundreds of them first)."""
    import pickle
    import subprocess

    out = tmp_path / "fresh.pkl"
    prog = f"import pickle\n{code}\nwith open({str(out)!r}, 'wb') as fh:\n    pickle.dump(result, fh)\n"
    env = {**os.environ, "PYTHONPATH": ROOT}
    subprocess.run([sys.executable, "-c", prog], check=True, env=env, cwd=ROOT, timeout=300)
    with open(out, "rb") as fh:
        return pickle.load(fh)


def test_rows_one_per_cell_in_grid_order(serial_rows):
    rows = serial_rows
    assert list(rows.columns) == sweep.ROW_COLUMNS
    assert len(rows) == 2 * 2 * 2
    assert list(rows["dataset"]) == ["airfoil"] * 4 + ["concrete"] * 4
    assert list(rows["learner"][:4]) == ["OnlineRidge", "OnlineRidge", "VAW2", "VAW2"]
    assert list(rows["seed"][:4]) == [0, 1, 0, 1]
    assert (rows["error"] == "").all() and (rows["T"] == 120).all()
    assert not rows["cached"].any()
    # the seed reaches the learner: VAW2 differs between seeds, the seedless ridge does not
    vaw = rows[(rows["learner"] == "VAW2") & (rows["dataset"] == "airfoil")]["mse"].to_numpy()
    ridge = rows[(rows["learner"] == "OnlineRidge") & (rows["dataset"] == "airfoil")]["mse"].to_numpy()
    assert vaw[0] != vaw[1] and ridge[0] == ridge[1]
    # the row's numbers are those of a direct run_online of the same cell
    X, y = omkl_core.datasets.load("concrete")
    trace = omkl_core.run_online(omkl_core.VAW2(m=8, seed=1), X[:120], y[:120])
    r = rows.iloc[7]
    assert (r["learner"], r["seed"]) == ("VAW2", 1)
    assert r["mse"] == trace.mse and r["final_loss"] == trace.losses[-1]
    assert r["curve_t"][0] == 1 and r["curve_t"][-1] == 120 and len(r["curve"]) == 10
    np.testing.assert_array_equal(r["curve"], trace.mse_curve[np.asarray(r["curve_t"]) - 1])


def test_processes_executor_gives_identical_rows(serial_rows):
    rows = sweep.run(SPEC, executor="processes", max_workers=2, progress=False, as_frame=True)
    pd.testing.assert_frame_equal(_stable(rows), _stable(serial_rows), check_exact=True)


def test_dask_executor_gives_identical_rows(tmp_path):
    distributed = pytest.importorskip("distributed")
    serial_rows = _in_a_fresh_process("from omkl_core import sweep\nfrom tests.test_sweep import SPEC\n"
                                      "result = sweep.run(SPEC, executor='serial', progress=False, as_frame=True)",
                                      tmp_path)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        rows = sweep.run(SPEC, executor="dask", client=client, progress=False, as_frame=True)
        by_address = sweep.run({**SPEC, "seeds": [1]}, executor="dask", client=cluster.scheduler_address,
                               progress=False, as_frame=True)
    assert not rows["error"].astype(bool).any(), f"Dask cells failed: {sorted(set(rows['error']))}"
    pd.testing.assert_frame_equal(_stable(rows), _stable(serial_rows), check_exact=True)
    pd.testing.assert_frame_equal(_stable(by_address),
                                  _stable(serial_rows[serial_rows["seed"] == 1]), check_exact=True)


def test_cache_hit_on_rerun_and_invalidated_by_a_parameter_change(tmp_path, serial_rows):
    first = sweep.run(SPEC, executor="serial", cache_dir=tmp_path, progress=False, as_frame=True)
    assert not first["cached"].any()
    assert len(list(tmp_path.rglob("*.json"))) == len(first)
    again = sweep.run(SPEC, executor="serial", cache_dir=tmp_path, progress=False, as_frame=True)
    assert again["cached"].all()
    pd.testing.assert_frame_equal(_stable(again), _stable(serial_rows), check_exact=True)
    assert (again["seconds"] == first["seconds"]).all()           # the stored run's seconds
    changed = {**SPEC, "learners": [SPEC["learners"][0], {"name": "VAW2", "params": {"m": 9}}]}
    third = sweep.run(changed, executor="serial", cache_dir=tmp_path, progress=False, as_frame=True)
    is_vaw = third["learner"] == "VAW2"
    assert third.loc[~is_vaw, "cached"].all()                      # ridge cells: unchanged key
    assert not third.loc[is_vaw, "cached"].any()                   # m = 9: recomputed
    assert not np.array_equal(third.loc[is_vaw, "mse"], serial_rows.loc[is_vaw, "mse"])


def test_cache_key_follows_code_version_and_data(tmp_path, monkeypatch):
    spec = {**SPEC, "datasets": ["airfoil"], "learners": SPEC["learners"][:1], "seeds": [0]}
    a = sweep.run(spec, executor="serial", cache_dir=tmp_path, progress=False, as_frame=True)
    b = sweep.run({**spec, "max_steps": 121}, executor="serial", cache_dir=tmp_path, progress=False, as_frame=True)
    assert not b["cached"].any() and a["key"][0] != b["key"][0]    # other data, other key
    monkeypatch.setattr(sweep, "code_version", lambda: "an edited library")
    c = sweep.run(spec, executor="serial", cache_dir=tmp_path, progress=False, as_frame=True)
    assert not c["cached"].any() and c["key"][0] != a["key"][0]


def test_code_version_hashes_the_sources():
    v = sweep.code_version()
    assert len(v) == 64 and v == sweep.code_version()


def test_code_version_follows_an_engine_switch_within_a_process():
    """The version was computed once per process with the engine in force then: a run under another
    engine later in the process got the first engine's cache key (its cells reused, or refused by a
    fresh Dask worker as 'code version mismatch'). The sources are hashed once; the arithmetic each call."""
    from omkl_core import compiled

    if not compiled.numba_available():
        pytest.skip("needs Numba for a second engine")
    with compiled.engine("numba"):
        v_numba = sweep.code_version()
    with compiled.engine("numpy"):
        v_numpy = sweep.code_version()
    with compiled.engine("numba"):
        assert sweep.code_version() == v_numba
    assert v_numpy != v_numba
    assert sweep.data_hash(np.zeros((2, 1)), np.zeros(2)) != sweep.data_hash(np.zeros((2, 1)), np.ones(2))


class _Exploding:
    """A learner that fails on its 5th step (seed 1 only)."""

    def __init__(self, seed=0):
        self.seed, self.t_ = seed, 0

    def predict_one(self, x):
        return 0.0

    def learn_one(self, x, y):
        self.t_ += 1
        if self.seed == 1 and self.t_ == 5:
            raise FloatingPointError("diverged at step 5")


def test_failing_cell_is_recorded_and_the_sweep_goes_on(tmp_path, monkeypatch):
    monkeypatch.setitem(registry._REGISTERED, "_Exploding", _Exploding)
    spec = {"datasets": ["airfoil"], "learners": [{"name": "_Exploding"}], "seeds": [0, 1, 2], "max_steps": 20}
    rows = sweep.run(spec, executor="serial", cache_dir=tmp_path, progress=False, as_frame=True)
    assert list(rows["error"] == "") == [True, False, True]
    assert rows["error"][1] == "FloatingPointError: diverged at step 5"
    assert np.isnan(rows["mse"][1]) and np.isfinite(rows["mse"][[0, 2]]).all()
    again = sweep.run(spec, executor="serial", cache_dir=tmp_path, progress=False, as_frame=True)
    assert list(again["cached"]) == [True, False, True]            # failures are retried, not cached


@pytest.mark.parametrize(("change", "match"), [
    ({"learners": [{"name": "NoSuchLearner"}]}, r"spec\['learners'\]\[0\]\['name'\].*NoSuchLearner"),
    ({"learners": [{"name": "OnlineRidge", "params": {"a": -1.0}}]}, r"spec\['learners'\]\[0\]\['params'\]"),
    ({"learners": [{"name": "OnlineRidge", "params": {"seed": 3}}]}, r"must not set 'seed'"),
    ({"datasets": ["airfoil", "mnist"]}, r"spec\['datasets'\]\[1\].*mnist"),
    ({"seeds": []}, r"spec\['seeds'\]"),
    ({"seeds": [-1]}, r"spec\['seeds'\]\[0\]"),
    ({"max_steps": 1}, r"spec\['max_steps'\]"),
    ({"colour": "red"}, r"unknown key.*colour"),
])
def test_spec_errors_name_the_key(change, match):
    with pytest.raises((ValueError, TypeError), match=match):
        sweep.run({**SPEC, **change}, executor="serial", progress=False, as_frame=True)


def test_executor_and_client_errors_name_the_argument(tmp_path):
    with pytest.raises(ValueError, match="executor"):
        sweep.run(SPEC, executor="threads", progress=False, as_frame=True)
    with pytest.raises(ValueError, match="client"):
        sweep.run(SPEC, executor="serial", client="tcp://localhost:8786", progress=False, as_frame=True)
    with pytest.raises(ValueError, match="no such TOML"):
        sweep.run(tmp_path / "missing.toml", executor="serial", progress=False, as_frame=True)


def test_cli_sweep_reads_toml_and_writes_rows(tmp_path, capsys, serial_rows):
    spec = tmp_path / "grid.toml"
    spec.write_text('datasets = ["airfoil", "concrete"]\nseeds = [0, 1]\nmax_steps = 120\ncurve_points = 10\n'
                    '[[learners]]\nname = "OnlineRidge"\nparams = {a = 0.1}\n'
                    '[[learners]]\nname = "VAW2"\nparams = {m = 8}\n')
    out = tmp_path / "rows.csv"
    assert main(["sweep", str(spec), "--executor", "serial", "--cache-dir", str(tmp_path / "c"),
                 "--out", str(out), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "8 cells, 0 from the cache, 0 failed" in text and "| airfoil | VAW2 |" in text
    written = pd.read_csv(out, keep_default_na=False)
    np.testing.assert_array_equal(written["mse"].to_numpy(float), serial_rows["mse"].to_numpy())
    assert json.loads(written["curve"][3]) == serial_rows["curve"][3]        # exact float round trip
    assert main(["sweep", str(spec), "--executor", "serial", "--cache-dir", str(tmp_path / "c"), "--quiet"]) == 0
    assert "8 cells, 8 from the cache" in capsys.readouterr().out


def test_cli_sweep_bad_spec_is_one_line(tmp_path, capsys):
    spec = tmp_path / "bad.toml"
    spec.write_text('datasets = ["airfoil"]\nseeds = [0]\n[[learners]]\nname = "Nope"\n')
    assert main(["sweep", str(spec), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("omkl: error: ") and "Nope" in err and err.count("\n") == 1


@pytest.mark.parametrize("where", ["file", "under a file"])
def test_cli_sweep_cache_dir_that_is_a_file_is_one_error_before_any_cell(tmp_path, capsys, where):
    """Issue 42: a file given as --cache-dir printed one warning per cell before its error."""
    spec = tmp_path / "g.toml"
    spec.write_text('datasets = ["airfoil"]\nseeds = [0, 1, 2]\nmax_steps = 30\n[[learners]]\nname = "OnlineRidge"\n')
    cache = tmp_path / "cache.txt"
    cache.write_text("not a folder\n")
    given = cache if where == "file" else cache / "sub"
    assert main(["sweep", str(spec), "--quiet", "--executor", "serial", "--cache-dir", str(given)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("omkl: error: --cache-dir"), err
    assert "is a file, not a folder" in err[0] and "warning" not in err[0]
    assert cache.read_text() == "not a folder\n"


GRID_TOML = ('datasets = ["airfoil", "concrete"]\nseeds = [0, 1]\nmax_steps = 120\ncurve_points = 10\n'
             '[[learners]]\nname = "OnlineRidge"\nparams = {a = 0.1}\n'
             '[[learners]]\nname = "VAW2"\nparams = {m = 8}\n')


def test_cli_sweep_local_starts_and_stops_a_local_cluster(tmp_path, capsys, monkeypatch):
    """Issue 21: `omkl sweep ... --executor dask --local N`, no scheduler started by hand."""
    distributed = pytest.importorskip("distributed")
    started = []

    class Recorded(distributed.LocalCluster):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            started.append((self, kwargs))

    monkeypatch.setattr(distributed, "LocalCluster", Recorded)
    spec = tmp_path / "grid.toml"
    spec.write_text(GRID_TOML)
    out = tmp_path / "rows.csv"
    assert main(["sweep", str(spec), "--executor", "dask", "--local", "2", "--out", str(out), "--quiet"]) == 0, \
        capsys.readouterr().err
    assert "8 cells, 0 from the cache, 0 failed" in capsys.readouterr().out
    (cluster, kwargs), = started
    assert kwargs["n_workers"] == 2 and kwargs["threads_per_worker"] == 1
    assert cluster.status.name == "closed", "the local cluster was left running"
    written = pd.read_csv(out, keep_default_na=False)
    serial_rows = _in_a_fresh_process("from omkl_core import sweep\nfrom tests.test_sweep import SPEC\n"
                                      "result = sweep.run(SPEC, executor='serial', progress=False, as_frame=True)",
                                      tmp_path)                # the cells ran in fresh processes too
    np.testing.assert_array_equal(written["mse"].to_numpy(float), serial_rows["mse"].to_numpy())
    assert main(["sweep", str(spec), "--local", "1", "--quiet"]) == 0     # --local alone implies dask
    assert len(started) == 2 and started[1][0].status.name == "closed"


@pytest.mark.parametrize("flags, match", [
    (["--local", "0"], "--local must be >= 1"),
    (["--executor", "processes", "--local", "2"], "--local needs --executor dask, got --executor processes"),
    (["--scheduler", "tcp://localhost:1", "--local", "2"], "--scheduler and --local exclude each other"),
    (["--executor", "dask"], "--executor dask needs --scheduler ADDRESS .* or --local N"),
])
def test_cli_sweep_dask_flag_errors_are_one_line(tmp_path, capsys, flags, match, monkeypatch):
    monkeypatch.setattr(sweep, "run", _no_cell)
    spec = tmp_path / "grid.toml"
    spec.write_text(GRID_TOML)
    assert main(["sweep", str(spec), *flags, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("omkl: error: ") and err.count("\n") == 1
    assert re.search(match, err), err


def test_cli_sweep_without_dask_installed_is_one_line(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)         # import distributed -> ImportError
    monkeypatch.setattr(sweep, "run", _no_cell)
    spec = tmp_path / "grid.toml"
    spec.write_text(GRID_TOML)
    for flags in (["--local", "2"], ["--scheduler", "tcp://localhost:1"]):
        assert main(["sweep", str(spec), *flags, "--quiet"]) == 2
        err = capsys.readouterr().err
        assert err == ("omkl: error: --executor dask needs dask.distributed, which is not installed: "
                       "pip install 'omkl[dask]'\n")
    with pytest.raises(ImportError, match="not installed"), sweep.local_client(2):
        pass


def _no_cell(*args, **kwargs):
    raise AssertionError("a cell ran before the flags were checked")


def test_summary_and_mean_ranks_from_rows(serial_rows):
    summ = sweep.summarise(serial_rows)
    assert len(summ) == 4 and (summ["n_seeds"] == 2).all()
    sel = serial_rows[(serial_rows["dataset"] == "concrete") & (serial_rows["label"] == "VAW2")]["mse"]
    row = summ[(summ["dataset"] == "concrete") & (summ["label"] == "VAW2")].iloc[0]
    # pandas' groupby std and Series.std are two implementations of the same sample sd: they
    # agree to rounding, not always bit for bit
    assert row["mse_mean"] == sel.mean() and row["mse_sd"] == pytest.approx(sel.std(), rel=1e-12)
    ranks = sweep.mean_ranks(serial_rows)
    per = serial_rows.groupby(["dataset", "label"])["mse"].mean().unstack()
    expected = per.rank(axis=1).mean()
    assert ranks.to_dict() == pytest.approx(expected.to_dict())
    assert ranks.is_monotonic_increasing and set(ranks.index) == {"VAW2", "OnlineRidge"}


# ------------------------------------------------------------------ batched repetitions
REP_SPEC = {"datasets": ["airfoil"],
            "learners": [{"name": "Raker", "params": {"m": 4, "eta": 0.2}, "repetitions": 3},
                         {"name": "OnlineRidge", "params": {"a": 0.1}}],
            "seeds": [0, 2], "max_steps": 60, "curve_points": 7}


def test_batched_repetitions_give_the_rows_of_run_repetitions(tmp_path):
    rows = sweep.run(REP_SPEC, executor="serial", cache_dir=tmp_path, progress=False, as_frame=True)
    assert list(rows.columns) == sweep.ROW_COLUMNS and (rows["error"] == "").all()
    # grid order: Raker seed 0 (repetitions 0..2), Raker seed 2, then the ordinary ridge cells
    assert list(rows["learner"]) == ["Raker"] * 6 + ["OnlineRidge"] * 2
    assert list(rows["seed"]) == [0, 0, 0, 2, 2, 2, 0, 2]
    assert list(rows["repetition"]) == [0, 1, 2, 0, 1, 2, 0, 0]
    assert len(list(tmp_path.rglob("*.json"))) == 4                   # one cache entry per cell
    X, y = omkl_core.datasets.load("airfoil")
    X, y = X[:60], y[:60]
    for seed in (0, 2):
        P = omkl_core.Raker(m=4, eta=0.2, seed=seed).run_repetitions(X, y, 3)
        L = (P - y[None, :]) ** 2
        got = rows[(rows["learner"] == "Raker") & (rows["seed"] == seed)]
        np.testing.assert_array_equal(got["mean_loss"].to_numpy(), L.mean(axis=1))       # bit for bit
        curves = np.cumsum(L, axis=1) / np.arange(1, 61)
        for r, row in enumerate(got.itertuples()):
            assert row.mse == pytest.approx(L[r].mean(), rel=1e-12) and row.final_loss == L[r, -1]
            np.testing.assert_allclose(row.curve, curves[r, np.asarray(row.curve_t) - 1], rtol=1e-12)
    assert len(set(rows.loc[rows["learner"] == "Raker", "mse"])) == 6   # every repetition and seed differs
    again = sweep.run(REP_SPEC, executor="processes", max_workers=2, cache_dir=tmp_path, progress=False, as_frame=True)
    assert again["cached"].all()
    pd.testing.assert_frame_equal(_stable(again), _stable(rows), check_exact=True)
    fresh = sweep.run(REP_SPEC, executor="processes", max_workers=2, progress=False, as_frame=True)
    pd.testing.assert_frame_equal(_stable(fresh), _stable(rows), check_exact=True)
    summ = sweep.summarise(rows)
    assert list(summ["n_seeds"]) == [6, 2]                             # runs = seeds x repetitions


def test_batched_repetitions_key_and_errors():
    one = sweep.cells({**REP_SPEC, "learners": REP_SPEC["learners"][:1]})
    two = sweep.cells({**REP_SPEC, "learners": [{**REP_SPEC["learners"][0], "repetitions": 2}]})
    assert one[0]["repetitions"] == 3 and two[0]["repetitions"] == 2
    assert sweep._cell_key(one[0], "d", "v") != sweep._cell_key(two[0], "d", "v")
    plain = {**one[0], "repetitions": None}                           # an ordinary cell keeps its old key
    assert sweep._cell_key(plain, "d", "v") != sweep._cell_key(one[0], "d", "v")
    assert sweep._cell_key(plain, "d", "v") == sweep._cell_key({k: v for k, v in plain.items() if k != "repetitions"},
                                                               "d", "v")
    with pytest.raises(ValueError, match=r"spec\['learners'\]\[0\]\['repetitions'\].*run_repetitions"):
        sweep.load_spec({**REP_SPEC, "learners": [{"name": "OnlineRidge", "repetitions": 2}]})
    with pytest.raises(ValueError, match=r"spec\['learners'\]\[0\]\['repetitions'\]"):
        sweep.load_spec({**REP_SPEC, "learners": [{"name": "Raker", "repetitions": 0}]})


def test_a_list_of_grids_gives_each_grids_rows_on_one_executor(tmp_path):
    """``run([grid_a, grid_b])`` (one pool for both) gives the rows of each grid run alone, in order, one
    stream cut two ways (max_steps) included; the same grid twice gives its rows twice, each cell
    computed once (one cache entry per cell)."""
    short = {**REP_SPEC, "max_steps": 40, "seeds": [0]}
    both = sweep.run([REP_SPEC, short], executor="processes", max_workers=2, progress=False, as_frame=True)
    alone = pd.concat([sweep.run(g, executor="serial", progress=False, as_frame=True) for g in (REP_SPEC, short)],
                      ignore_index=True)
    pd.testing.assert_frame_equal(_stable(both), _stable(alone), check_exact=True)
    assert list(both["T"]) == [60] * 8 + [40] * 4
    twice = sweep.run([short, short], executor="serial", cache_dir=tmp_path, progress=False, as_frame=True)
    n = len(twice) // 2
    pd.testing.assert_frame_equal(_stable(twice.iloc[n:]), _stable(twice.iloc[:n]), check_exact=True)
    assert len(list(tmp_path.rglob("*.json"))) == 2
    with pytest.raises(ValueError, match="empty list"):
        sweep.run([], executor="serial", progress=False)


_CALLS = []


def _counting_task(task):
    _CALLS.append(task["i"])
    return {"i": task["i"]}


def test_map_tasks_computes_a_repeated_task_once():
    _CALLS.clear()
    out = sweep.map_tasks(_counting_task, [{"i": 1}, {"i": 2}, {"i": 1}], executor="serial", progress=False)
    assert [r["i"] for r in out] == [1, 2, 1] and sorted(_CALLS) == [1, 2] and out.cached == [False] * 3


# ----------------------------------------------------------------------- the task map
def _layer_tasks():
    """Two expert-layer tasks of paper 000 (nested results: dicts of arrays, lists, ints)."""
    from omkl_core.repro import paper000

    X, y = registry.load_dataset("airfoil", 60)
    data = {"airfoil": (X, y), "concrete": registry.load_dataset("concrete", 50)}
    tasks = [{"dataset": d, "m": 3, "lam": 1.0, "repetitions": 2, "seed": 4, "feature_map": "cos",
              "jobs": [["a", ["VAW2", "VAW-EWA"], False], ["b", ["VAW2"], True]]} for d in data]
    return paper000.expert_layer_task, tasks, data


def _same(a, b, *, skip=("cpu_seconds",)) -> None:
    """Exact equality of two task results, arrays bit for bit (with their dtype), types included."""
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            if k not in skip:
                _same(a[k], b[k], skip=skip)
    elif isinstance(a, list):
        assert len(a) == len(b)
        for u, v in zip(a, b):
            _same(u, v, skip=skip)
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    else:
        assert a == b


@pytest.fixture(scope="module")
def serial_tasks():
    fn, tasks, data = _layer_tasks()
    return sweep.map_tasks(fn, tasks, data=data, executor="serial", progress=False)


def test_map_tasks_results_in_task_order_match_a_direct_call(serial_tasks):
    fn, tasks, data = _layer_tasks()
    assert serial_tasks.cached == [False, False]
    for task, res in zip(tasks, serial_tasks):
        direct = fn(task, *data[task["dataset"]])
        assert res["a"]["T"] == len(data[task["dataset"]][1])
        _same(res, sweep._normalised(direct))
        assert isinstance(direct["a"]["cpu_seconds"], tuple)
        assert isinstance(res["a"]["cpu_seconds"], list)          # as the cache reads it back


def test_map_tasks_identical_on_processes_and_dask(serial_tasks, tmp_path):
    fn, tasks, data = _layer_tasks()
    procs = sweep.map_tasks(fn, tasks, data=data, executor="processes", max_workers=2, progress=False,
                            cost=[1.0, 2.0])
    _same(procs, serial_tasks)
    distributed = pytest.importorskip("distributed")
    serial_tasks = _in_a_fresh_process("from omkl_core import sweep\nfrom tests.test_sweep import _layer_tasks\n"
                                       "fn, tasks, data = _layer_tasks()\n"
                                       "result = sweep.map_tasks(fn, tasks, data=data, executor='serial', progress=False)",
                                       tmp_path)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster:
        dask = sweep.map_tasks(fn, tasks, data=data, executor="dask", client=cluster.scheduler_address,
                               progress=False)
    _same(dask, serial_tasks)


def test_map_tasks_cache_stores_arrays_exactly_and_keys_follow_task_data_and_fn(tmp_path, serial_tasks):
    fn, tasks, data = _layer_tasks()
    first = sweep.map_tasks(fn, tasks, data=data, executor="serial", cache_dir=tmp_path, progress=False)
    assert first.cached == [False, False]
    assert len(list(tmp_path.rglob("*.npz"))) == 2 and len(list(tmp_path.rglob("*.json"))) == 2
    again = sweep.map_tasks(fn, tasks, data=data, executor="serial", cache_dir=tmp_path, progress=False)
    assert again.cached == [True, True]
    _same(again, first, skip=())                                   # the stored run, times included
    _same(again, serial_tasks)
    key = sweep.task_key(fn, tasks[0], data["airfoil"])
    assert key != sweep.task_key(fn, {**tasks[0], "seed": 5}, data["airfoil"])
    assert key != sweep.task_key(fn, tasks[0], data["concrete"])
    from omkl_core.repro import baselines
    assert key != sweep.task_key(baselines.row_task, tasks[0], data["airfoil"])
    assert key != sweep.task_key(fn, tasks[0], data["airfoil"], version="other sources")
    X, y = data["airfoil"]
    other = dict(data, airfoil=(X, np.where(np.arange(len(y)) == 7, y + 1e-3, y)))   # one other label: recomputed
    third = sweep.map_tasks(fn, tasks, data=other, executor="serial", cache_dir=tmp_path, progress=False)
    assert third.cached == [False, True]


def test_map_tasks_errors_name_the_argument_and_failures_are_not_cached(tmp_path):
    fn, tasks, data = _layer_tasks()
    with pytest.raises(TypeError, match="fn must be a top-level function"):
        sweep.map_tasks(lambda t: {}, [{}], executor="serial", progress=False)
    with pytest.raises(TypeError, match=r"tasks\[0\] must be a dict"):
        sweep.map_tasks(fn, [1], executor="serial", progress=False)
    with pytest.raises(ValueError, match=r"tasks\[0\]\['dataset'\] = 'wine' is not a key of data"):
        sweep.map_tasks(fn, [{**tasks[0], "dataset": "wine"}], data=data, executor="serial", progress=False)
    with pytest.raises(ValueError, match="client is only used with executor='dask'"):
        sweep.map_tasks(fn, tasks, data=data, executor="serial", client="tcp://h:1", progress=False)
    with pytest.raises(ValueError, match="keys has 1 entries for 2 tasks"):
        sweep.map_tasks(fn, tasks, data=data, executor="serial", keys=["k"], progress=False)
    bad = [{**tasks[0], "jobs": [["a", ["NoSuchMeta"], False]]}]
    with pytest.raises(ValueError, match="NoSuchMeta"):
        sweep.map_tasks(fn, bad, data=data, executor="serial", cache_dir=tmp_path, progress=False)
    out = sweep.map_tasks(fn, bad, data=data, executor="processes", max_workers=1, cache_dir=tmp_path, progress=False,
                          on_error=lambda exc: {"error": f"{type(exc).__name__}: {exc}"})
    assert out[0]["error"].startswith("ValueError: unknown algorithm 'NoSuchMeta'")
    assert out.cached == [False] and not list(tmp_path.rglob("*.json"))     # a failure is not cached


def test_cache_key_follows_the_arithmetic_libraries():
    """A result computed with one cosine library or engine is never served to a run with another:
    the code version (part of every cache key) includes :func:`sweep.numerics`."""
    import subprocess

    code = "from omkl_core import sweep; print(sweep.numerics(), sweep.code_version())"
    out = {}
    for cos in ("numpy", "auto"):
        env = {**os.environ, "OMKL_COS": cos, "PYTHONPATH": str(Path(sweep.__file__).resolve().parent.parent)}
        out[cos] = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                                  timeout=120, check=True).stdout.split()
    assert "cos=numpy;" in out["numpy"][0]
    if out["auto"][0] != out["numpy"][0]:            # a faster cosine is installed: another version
        assert out["auto"][1] != out["numpy"][1]
    env = {**os.environ, "OMKL_ENGINE": "numpy", "OMKL_COS": "numpy"}
    plain = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
                           check=True).stdout.split()
    assert plain[0].startswith("engine=numpy;cos=numpy;blas=")
    if out["numpy"][0] != plain[0]:
        assert plain[1] != out["numpy"][1]
    # another OpenBLAS kernel (issue 51: it changes last bits) is another code version
    kernels = {k: subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True,
                                 env={**env, "OPENBLAS_CORETYPE": k}).stdout.split() for k in ("Prescott", "Haswell")}
    if "openblas" in plain[0]:
        assert kernels["Prescott"][0].endswith("blas=openblas:Katmai")       # OpenBLAS's name of Prescott's kernels
        assert kernels["Haswell"][0].endswith("blas=openblas:Haswell") and kernels["Haswell"][1] != kernels["Prescott"][1]
