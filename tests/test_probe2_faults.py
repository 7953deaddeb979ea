"""The faults of the second adversarial probe (issue 52): no crash, no loss, no silent NaN.

Each test reproduces one probe; each failed on the code before the fix (the note of issue 52
lists the failure). A probe that could kill the interpreter runs in a child process."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import omkl_core as ok
from omkl_core import compiled


def _python(code: str, timeout: int = 300, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter (a segfault there cannot take the test run with it)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


def _omkl(*args, timeout: int = 300, env: dict | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "omkl_core", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})}, **kw)


def _one_error_line(res: subprocess.CompletedProcess) -> str:
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert res.returncode not in (0, -11, -6, 134, 139), (res.returncode, res.stderr[-2000:])
    assert len(lines) == 1 and lines[0].startswith("omkl: error: ") and len(lines[0]) > len("omkl: error: "), \
        res.stderr[-2000:]
    return lines[0]


# ----------------------------------------------------------------------------- 1. crash
@pytest.mark.parametrize("cls", ["SFGMKL", "SFGMKLR"])
@pytest.mark.parametrize("eng", ["numpy", "numba"])
def test_greedy_node_beyond_the_kernels_is_a_value_error_on_both_engines(cls, eng):
    if eng == "numba" and not compiled.numba_available():
        pytest.skip("no Numba")
    res = _python(f"""
        import omkl_core as ok
        from omkl_core import compiled
        X, y = ok.datasets.load("airfoil")
        with compiled.engine({eng!r}):
            m = ok.{cls}(m=4, greedy_node=41, greedy_after=10)
            try:
                m.run(X[:30], y[:30])
            except ValueError as exc:
                print("ValueError:", exc)
            else:
                print("no error")
        """)
    assert res.returncode == 0, (res.returncode, res.stderr[-1500:])
    assert "ValueError:" in res.stdout and "greedy_node" in res.stdout and "41" in res.stdout, res.stdout


def test_greedy_node_beyond_the_kernels_refused_before_any_step():
    X, y = ok.datasets.load("airfoil")
    m = ok.SFGMKL(m=4, greedy_node=41, greedy_after=10)
    with pytest.raises(ValueError, match=r"greedy_node must be < N .*= 41.*got 41"):
        m.predict_one(X[0])
    assert m.t_ == 0
    m = ok.SFGMKL(m=4, greedy_after=10)
    m.run(X[:3], y[:3])
    m.greedy_node = 50                          # a parameter written after the start: checked at the next step
    with pytest.raises(ValueError, match="greedy_node"):
        m.learn_one(X[3], y[3])
    assert m.t_ == 3


def test_cli_greedy_node_beyond_the_kernels_is_one_line():
    res = _omkl("run", "SFGMKL", "--dataset", "airfoil", "--param", "greedy_node=41", "--param", "greedy_after=10")
    line = _one_error_line(res)
    assert "greedy_node" in line


@pytest.mark.parametrize("eng", ["numpy", "numba"])
def test_omkr_wrong_length_log_w_is_a_value_error_not_a_segfault(eng):
    if eng == "numba" and not compiled.numba_available():
        pytest.skip("no Numba")
    res = _python(f"""
        import numpy as np, omkl_core as ok
        from omkl_core import compiled
        X, y = ok.datasets.load("airfoil")
        with compiled.engine({eng!r}):
            m = ok.OMKR()
            m.run(X[:5], y[:5])
            m.log_w_ = np.zeros(3)
            try:
                m.run(X[5:400], y[5:400])
            except ValueError as exc:
                print("ValueError:", exc)
            else:
                print("no error")
        """)
    assert res.returncode == 0, (res.returncode, res.stderr[-1500:])
    assert "ValueError:" in res.stdout and "log_w_" in res.stdout, res.stdout


@pytest.mark.parametrize("attr", ["log_w_", "theta_"])
def test_rf_learner_wrong_shape_state_is_a_value_error(attr, engine):
    X, y = ok.datasets.load("airfoil")
    m = ok.SFGMKL(m=4, greedy_after=10)
    m.run(X[:5], y[:5])
    setattr(m, attr, np.zeros((1, 3)))
    with pytest.raises(ValueError, match=attr):
        m.run(X[5:20], y[5:20])


# ----------------------------------------------------------------------------- 5. step path = run
def _omkr_failure(eng, path):
    X, y = ok.datasets.load("airfoil")
    X, y = X[:200], y[:200]
    m = ok.OMKR(eta=100)
    with compiled.engine(eng):
        if path == "run":
            with pytest.raises(FloatingPointError) as err:
                m.run(X, y)
            return str(err.value)
        with pytest.raises(FloatingPointError) as err:
            for t in range(len(y)):
                p = m.predict_one(X[t])
                assert np.isfinite(p), f"a non-finite forecast {p} returned at step {t + 1}"
                m.learn_one(X[t], y[t])
        return str(err.value)


def test_omkr_diverging_step_path_and_run_fail_at_the_same_step_with_the_same_error():
    engines = ["numpy"] + (["numba"] if compiled.numba_available() else [])
    messages = {(eng, path): _omkr_failure(eng, path) for eng in engines for path in ("step", "run")}
    assert len(set(messages.values())) == 1, messages
    msg = messages[("numpy", "step")]
    assert "step t = 108" in msg and "eta" in msg


# ----------------------------------------------------------------------------- 2. html_report --out
def _report_results(tmp_path, monkeypatch):
    pytest.importorskip("pandas")
    from tests.test_html_report import _results  # the results folder a full run leaves

    return _results(tmp_path, monkeypatch, "full")


def test_html_report_refuses_a_website_shaped_folder_it_did_not_write(tmp_path, monkeypatch):
    import omkl_core.repro as repro

    res = _report_results(tmp_path, monkeypatch)
    site = tmp_path / "site"
    (site / "figures" / "raw").mkdir(parents=True)
    for name, text in (("index.html", "<p>my index</p>"), ("cv.html", "<p>my cv</p>"),
                       ("figures/thesis_data.csv", "a,b\n1,2\n"), ("figures/raw/scan.txt", "raw")):
        (site / name).write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=rf"--out {site} exists and is not a report folder"):
        repro.html_report.build(res, out=site)
    assert (site / "cv.html").read_text(encoding="utf-8") == "<p>my cv</p>"
    assert (site / "figures" / "thesis_data.csv").is_file() and (site / "figures" / "raw" / "scan.txt").is_file()
    repro.html_report.build(res, out=tmp_path / "rep")               # its own output, marked: replaced
    repro.html_report.build(res, out=tmp_path / "rep")
    assert (tmp_path / "rep" / repro.html_report.MARKER).is_file()


def test_html_report_never_copies_a_figure_linked_outside_the_results(tmp_path, monkeypatch):
    import omkl_core.repro as repro

    res = _report_results(tmp_path, monkeypatch)
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0\n", encoding="utf-8")
    (res / "figures" / "leak.png").symlink_to(secret)
    with pytest.raises(ValueError, match=r"figures/leak.png is a symbolic link .*outside the results folder"):
        repro.html_report.build(res, out=tmp_path / "rep")
    assert not (tmp_path / "rep").exists()
    assert not [p for p in tmp_path.rglob("leak.png") if p.is_file() and not p.is_symlink()]


def test_html_report_honours_the_results_lock(tmp_path, monkeypatch):
    import omkl_core.repro as repro
    from omkl_core.repro.notebooks import ResultsLock

    res = _report_results(tmp_path, monkeypatch)
    holder = subprocess.Popen([sys.executable, "-c",
                               "import sys, time\nfrom omkl_core.repro.notebooks import ResultsLock\n"
                               "ResultsLock(sys.argv[1]).acquire(); print('locked', flush=True); time.sleep(600)",
                               str(res)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(ValueError, match="another run is writing into"):
            repro.html_report.build(res, out=tmp_path / "rep")
        assert not (tmp_path / "rep").exists()
    finally:
        holder.kill()
        holder.wait()
    repro.html_report.build(res, out=tmp_path / "rep")
    ResultsLock(res).acquire().release()          # the build let go of it


# ----------------------------------------------------------------------------- 4. the lock file
def test_results_lock_never_truncates_a_hard_linked_file(tmp_path):
    from omkl_core.repro.notebooks import ResultsBusy, ResultsLock

    res = tmp_path / "results"
    res.mkdir()
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me\n", encoding="utf-8")
    os.link(precious, res / ".lock")
    with pytest.raises(ResultsBusy, match=r"\.lock is a hard link"):
        ResultsLock(res).acquire()
    assert precious.read_text(encoding="utf-8") == "keep me\n"


# ----------------------------------------------------------------------------- 3. committed publish
@pytest.fixture
def full_run(tmp_path, monkeypatch):
    pytest.importorskip("pandas")
    from tests.test_committed import _checkout

    return _checkout(tmp_path, monkeypatch)


def _tree(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_publish_never_replaces_a_results_folder(full_run):
    from omkl_core.repro import committed

    root, res = full_run
    other = root / "other-results"
    for sub in ("notebooks", "sweep-cache", "report", "tables"):
        (other / sub).mkdir(parents=True)
    (other / "errata.md").write_text("mine", encoding="utf-8")
    (other / "scorecard.stamp.json").write_text((res / "scorecard.stamp.json").read_text(), encoding="utf-8")
    before = _tree(other)
    with pytest.raises(committed.PublishError, match="is not a committed run"):
        committed.publish(res, dest=other)
    assert _tree(other) == before


@pytest.mark.parametrize("where", ["parent", "child"])
def test_publish_never_replaces_a_parent_or_child_of_the_results(full_run, where):
    from omkl_core.repro import committed

    root, res = full_run
    if where == "parent":                      # --results outer/inner --dest outer
        outer = root / "outer"
        inner = outer / "inner"
        outer.mkdir()
        res.rename(inner)
        (outer / "sibling.txt").write_text("mine", encoding="utf-8")
        res, dest = inner, outer
    else:
        dest = res / "inner"
    before = _tree(root)
    with pytest.raises(committed.PublishError, match="holds it or lies inside it"):
        committed.publish(res, dest=dest)
    assert _tree(root) == before


def _forge(root, res, how):
    import json

    if how == "unknown commit":
        stamp = json.loads((res / "scorecard.stamp.json").read_text())
        stamp["commit"] = "deadbeef00"
        (res / "scorecard.stamp.json").write_text(json.dumps(stamp))
        return "deadbeef00"
    if how == "scorecard.md contradicts its CSV":
        md = res / "scorecard.md"
        md.write_text(md.read_text().replace("1 holds, 0 fails", "0 holds, 1 fails"))
        return "scorecard.md does not say what scorecard.csv counts"
    if how == "replaced figure":
        fig = res / "figures" / "p000_fig.png"
        fig.parent.mkdir(exist_ok=True)
        fig.write_bytes(b"\x89PNG\r\n\x1a\n" + b"0" * 32)
        t = (res / "scorecard.stamp.json").stat().st_mtime + 60
        os.utime(fig, (t, t))
        return "modified after the run's scorecard"
    node = "tests/test_theory_paper000.py::test_paper000_ewa_bound_30"
    (res / "junit.xml").write_text(
        '<testsuite tests="1" failures="1"><testcase classname="tests.test_theory_paper000" '
        'name="test_paper000_ewa_bound_30"><failure message="x"/></testcase></testsuite>')
    return f"1 of the 1 tests THEORY.md and the errata name failed.*{node}"


@pytest.mark.parametrize("how", ["unknown commit", "scorecard.md contradicts its CSV", "replaced figure",
                                 "failed theory tests"])
def test_publish_refuses_a_run_whose_parts_disagree(full_run, how):
    from omkl_core.repro import committed

    root, res = full_run
    why = _forge(root, res, how)
    with pytest.raises(committed.PublishError, match=why):
        committed.publish(res, dest=root / "reproduction")
    assert not (root / "reproduction").exists()


def test_publish_honours_the_results_lock(full_run):
    from omkl_core.repro import committed

    root, res = full_run
    holder = subprocess.Popen([sys.executable, "-c",
                               "import sys, time\nfrom omkl_core.repro.notebooks import ResultsLock\n"
                               "ResultsLock(sys.argv[1]).acquire(); print('locked', flush=True); time.sleep(600)",
                               str(res)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(committed.PublishError, match="another run is writing into"):
            committed.publish(res, dest=root / "reproduction")
    finally:
        holder.kill()
        holder.wait()
    dest = committed.publish(res, dest=root / "reproduction")
    assert committed.is_committed_run(dest)
    committed.publish(res, dest=dest)                 # its own output: replaced


# ----------------------------------------------------------------------------- 4. output = input
@pytest.mark.parametrize("link", ["same name", "symlink", "hardlink"])
def test_cli_run_refuses_predictions_onto_its_own_csv(tmp_path, link):
    src = tmp_path / "g.csv"
    text = "a,b\n" + "".join(f"{i / 10},{i / 5}\n" for i in range(30))
    src.write_text(text, encoding="utf-8")
    out = {"same name": src, "symlink": tmp_path / "s.csv", "hardlink": tmp_path / "h.csv"}[link]
    if link == "symlink":
        out.symlink_to(src)
    elif link == "hardlink":
        os.link(src, out)
    res = _omkl("run", "OnlineRidge", "--csv", src, "--predictions", out)
    line = _one_error_line(res)
    assert "--predictions" in line and "same file as --csv" in line
    assert src.read_text(encoding="utf-8") == text


def test_cli_sweep_refuses_out_onto_its_own_spec(tmp_path):
    spec = tmp_path / "s.toml"
    text = 'datasets = ["airfoil"]\nseeds = [0]\nmax_steps = 50\n[[learners]]\nname = "OnlineRidge"\n'
    spec.write_text(text, encoding="utf-8")
    res = _omkl("sweep", spec, "--executor", "serial", "--out", spec, "--quiet")
    line = _one_error_line(res)
    assert "--out" in line and "same file as spec" in line
    assert spec.read_text(encoding="utf-8") == text


# ----------------------------------------------------------------------------- 6. atomic steps
def _state(learner):
    """The learned state, less the cache of the last forecast (what a predict_one leaves too)."""
    import pickle

    from omkl_core.base import _learned_state

    return pickle.dumps({k: v for k, v in _learned_state(learner)[0].items() if k != "_forecast"})


def test_mixture_of_omkl_experts_is_untouched_by_a_refused_step():
    mix = ok.Mixture([ok.OnlineRidge(a=1e50), ok.OnlineRidge(a=1)])
    mix.learn_one(np.array([1e100]), 1e100)
    mix.learn_one(np.array([1e100]), 1e100)
    before = [_state(e) for e in mix.learners_] + [_state(mix.meta_)]
    with pytest.raises(ValueError) as err:
        mix.learn_one(np.array([1e100]), 1e100)
    assert [e.t_ for e in mix.learners_] == [2, 2] and mix.t_ == 2
    assert [_state(e) for e in mix.learners_] + [_state(mix.meta_)] == before
    assert re.search(r"learners\[0\] \(OnlineRidge.*forecast.*too large", str(err.value)), str(err.value)


@pytest.mark.parametrize("first", ["OnlineRidge", "scaled OnlineRidge"])
def test_mixture_of_omkl_experts_is_untouched_when_a_later_expert_raises_partway(first):
    """An expert of omkl's own that fails in learn_one for a reason the mixture's up-front check does
    not cover -- here ``OnlineRidge(clip=1)``: its clipped forecast 1.0 passes, but its unclipped
    gamma = 3e159 makes (y - gamma)^2 overflow -- after an expert before it learned: every expert,
    the meta-learner and the mixture stay as before the step (were: experts at steps [2, 1, 1], the
    mixture at 1), the error names the expert, and the mixture goes on from there."""
    lead = ok.OnlineRidge(a=1e300) if first == "OnlineRidge" else ok.TargetScaler(ok.StandardScaler() | ok.OnlineRidge(a=1e300))
    mix = ok.Mixture([lead, ok.OnlineRidge(a=1.0, clip=1.0, fit_intercept=True),
                      ok.TargetScaler(ok.StandardScaler() | ok.VAW2(m=4, seed=0, bounds=None))])
    mix.learn_one(np.array([1.0]), 1e90)
    order = mix._learn_order
    assert order.index(0) < order.index(1), order  # the premise: expert 0 learns before expert 1 raises
    x = np.array([1e70])
    mix.predict_one(x)                            # the step's forecasts: 1.0 for the clipped expert
    before = [_state(e) for e in mix.learners_] + [_state(mix.meta_)]
    mine = (mix.t_, mix.label_sum_, mix.n_abstained_.tolist(), mix.expert_predictions_.tolist())
    with pytest.raises(OverflowError) as err:
        mix.learn_one(x, 1.0)
    assert [e.t_ for e in mix.learners_] == [1, 1, 1] and mix.meta_.t_ == 1 and mix.t_ == 1
    assert [_state(e) for e in mix.learners_] + [_state(mix.meta_)] == before
    assert (mix.t_, mix.label_sum_, mix.n_abstained_.tolist(), mix.expert_predictions_.tolist()) == mine
    assert re.search(r"^learners\[1\] \(OnlineRidge #2\) learn_one at step 2: .*overflows", str(err.value)), \
        str(err.value)
    mix.learn_one(np.array([2.0]), 1.0)           # the mixture goes on from the state before the step
    assert [e.t_ for e in mix.learners_] == [2, 2, 2] and mix.t_ == 2


def test_online_ridge_failed_step_leaves_its_losses_as_before():
    r = ok.OnlineRidge(a=1)
    r.learn_one(np.array([1.0]), 1e100)
    before = _state(r)
    with pytest.raises(OverflowError, match="step 2"):
        r.learn_one(np.array([1e100]), 1e100)
    assert r.t_ == 1 and np.isfinite(r.weighted_loss_)
    assert _state(r) == before


# ----------------------------------------------------------------------------- 8. settings, messages
@pytest.mark.parametrize("value", ["99999999999999999999", "100000"])
def test_omkl_threads_above_the_cores_is_capped_with_one_warning(value):
    res = _omkl("run", "OnlineRidge", "--dataset", "airfoil", env={"OMKL_THREADS": value})
    assert res.returncode == 0, res.stderr[-1500:]
    cores = os.cpu_count() or 1
    assert res.stderr.splitlines() == [f"omkl: warning: OMKL_THREADS={value} is more threads than the {cores} cores "
                                       f"of this machine: using {cores}"], res.stderr[-1500:]


def _group(pgid: int) -> list[int]:
    """The live processes (not zombies) of process group ``pgid``."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                stat = open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[2]) == pgid and stat[0] != "Z":
                out.append(int(d))
    return out


@pytest.mark.xdist_group("dask")   # a Dask cluster of processes: one at a time (pytest-xdist)
def test_sigterm_of_a_local_dask_sweep_prints_one_omkl_line_and_leaves_no_worker(tmp_path):
    """SIGTERM of ``omkl sweep --local 2`` while cells run: one line naming the signal and what was kept,
    exit status 143 (128 + SIGTERM), no worker left (was: killed by the signal, -15, 2-67 lines of Dask
    worker warnings and tracebacks and a multiprocessing leaked-semaphore warning, no omkl line)."""
    import signal
    import time
    from pathlib import Path

    pytest.importorskip("distributed")
    spec = tmp_path / "grid.toml"
    spec.write_text('datasets = ["airfoil"]\nseeds = [' + ", ".join(map(str, range(20))) + ']\nmax_steps = 1500\n'
                    '[[learners]]\nname = "VAW2"\nparams = {m = 30}\n', encoding="utf-8")
    cache = tmp_path / "cache"
    root = str(Path(__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    proc = subprocess.Popen([sys.executable, "-m", "omkl_core", "sweep", str(spec), "--local", "2", "--quiet",
                             "--cache-dir", str(cache)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, start_new_session=True)           # its own process group: all of it is found
    try:
        end = time.monotonic() + 60
        while not list(cache.rglob("*.json")) and proc.poll() is None and time.monotonic() < end:
            time.sleep(0.1)                                # the cluster is up and cells finish
        assert proc.poll() is None and list(cache.rglob("*.json")), "no cell finished within 60 s"
        assert len(_group(proc.pid)) >= 3, "the two workers were not found"
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
        end = time.monotonic() + 10
        while _group(proc.pid) and time.monotonic() < end:
            time.sleep(0.1)
        assert _group(proc.pid) == [], "a worker outlived the SIGTERM"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)
    assert proc.returncode == 128 + signal.SIGTERM, (proc.returncode, err[-3000:])
    assert out == "" and re.fullmatch(r"omkl: stopped by SIGTERM; \d+ of 20 cells done, the cache kept "
                                      r"\(rerun to resume\)\n", err), err[-3000:]


@pytest.mark.parametrize("var, value", [("OMKL_THREADS", "abc"), ("OMKL_ENGINE", "gpu"), ("OMKL_COS", "x")])
def test_a_bad_environment_setting_is_one_line_naming_the_variable(var, value):
    res = _omkl("run", "OnlineRidge", "--dataset", "airfoil", env={var: value})
    line = _one_error_line(res)
    assert line.startswith(f"omkl: error: {var} must be") and "failed on this stream" not in line, line


def test_cli_csv_without_newlines_is_refused_in_bounded_memory():
    import resource

    def limit():                                 # 3 GB of address space: the old reader grew past it
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    res = _omkl("run", "OnlineRidge", "--csv", "/dev/zero", timeout=120, preexec_fn=limit)
    line = _one_error_line(res)
    assert "--csv /dev/zero: line 1 runs past" in line


def test_an_error_without_a_message_is_never_an_empty_line(capsys):
    from omkl_core.cli.errors import _error

    _error(MemoryError())
    _error(KeyError())
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("omkl: error: out of memory") and err[1].startswith("omkl: error: KeyError"), err


# ----------------------------------------------------------------------------- 7a. a dominating outlier
def _outlier_csv(path, T=600, at=None, label=1e12):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(T, 2))
    y = 5 + 0.1 * X[:, 0] + 0.05 * rng.normal(size=T)
    if at is not None:
        y[at - 1] = label
    path.write_text("a,b,y\n" + "".join(f"{float(X[i, 0])!r},{float(X[i, 1])!r},{float(y[i])!r}\n" for i in range(T)), encoding="utf-8")
    return y


@pytest.mark.parametrize("model", ["OnlineRidge", "Mixture"])
def test_cli_names_the_outlier_step_that_carries_most_of_the_squared_error(tmp_path, model):
    src = tmp_path / "o.csv"
    _outlier_csv(src, at=435)
    res = _omkl("run", model, "--csv", src)
    assert res.returncode == 0, res.stderr[-1500:]
    notes = [ln for ln in res.stdout.splitlines() if ln.startswith("note: step")]
    assert len(notes) == 1, res.stdout
    m = re.match(r"note: step 435 \(row 435 of --csv .*o\.csv\) carries (\d+\.?\d*) % of the summed squared error "
                 r"\(label 1e\+12, forecast (\S+)\): an outlier\? The MSE over the other 599 steps is (\S+), "
                 r"the baseline's (\S+)$", notes[0])
    assert m, notes[0]
    assert float(m.group(1)) > 80 and abs(float(m.group(2))) < 1e3       # forecast before the outlier: near 5
    clean = tmp_path / "c.csv"
    _outlier_csv(clean)
    res = _omkl("run", model, "--csv", clean)
    assert res.returncode == 0 and "note: step" not in res.stdout, res.stdout


def test_dominant_step_names_only_a_step_above_half_of_the_squared_error():
    from omkl_core.protocol import DOMINANT_SHARE, dominant_step

    assert DOMINANT_SHARE == 0.5
    assert dominant_step([1.0, 1.0, 6.0, 1.0]) == (3, pytest.approx(6 / 9))
    assert dominant_step([1.0, 1.0, 2.0]) is None                  # exactly one half: not more
    assert dominant_step([0.0, 0.0]) is None and dominant_step([5.0]) is None
    assert dominant_step([9.0, 1.0, 1.0]) is None                  # step 1 has its own note (issue 53)
    trace = ok.run_online(ok.OnlineRidge(), np.ones((50, 1)), np.r_[np.full(20, 5.0), 1e9, np.full(29, 5.0)])
    t, share = dominant_step(trace.losses)
    assert t == 21 and share > 0.9


# ----------------------------------------------------------------------------- 7c. the overflow names the settings
@pytest.mark.parametrize("eng", ["numpy", "numba"])
@pytest.mark.parametrize("make, named, not_named", [
    ("ok.OMKLGF(q_clip=0.05, eta=2.0)", "with q_clip=0.05 the importance-weighted step of eq. (17) is at most "
                                        "eta/0.05 = 40 (eta=2.0)", "unbounded"),
    ("ok.OMKLGF(eta=2.0)", "unbounded with q_clip=None", "at most"),
    ("ok.SFGMKL(clip=(0.05, 0.05), eta=50.0)", "with clip=(0.05, 0.05) the importance-weighted step of eq. (17) is "
                                               "at most eta/0.05 = 1e+03 (eta=50.0)", "unbounded"),
    ("ok.Raker(eta=2.0)", "the OGD step eta=2.0 of theta (every kernel, every step: q = 1)", "importance"),
])
def test_theta_overflow_error_describes_the_actual_clip_setting(eng, make, named, not_named):
    if eng == "numba" and not compiled.numba_available():
        pytest.skip("no Numba")
    X, y = ok.datasets.ar4(T=3000, seed=0)
    with compiled.engine(eng), pytest.raises(FloatingPointError, match="theta overflowed") as err:
        ok.run_online(eval(make), X, y)
    msg = str(err.value)
    assert named in msg and not_named not in msg and "unclipped" not in msg, msg


# ----------------------------------------------------------------------------- 7b. the default OMKL-GF on a long stream
@pytest.mark.parametrize("eng", ["numpy", "numba"])
def test_default_omklgf_on_a_long_stream_names_the_unbounded_step_and_its_remedies(eng):
    """The text's constant eta with unclipped 1/q: a kernel drawn at its smallest probability
    q = 1 - (1 - eta/N)^M = 0.0121 is stepped by eta/q = 4.1 > 1 and its theta diverges once the
    stream is long enough (airfoil repeated: step 29096). Inherent to the text's algorithm: a clear
    error naming the parameters; each remedy it names runs the same stream."""
    if eng == "numba" and not compiled.numba_available():
        pytest.skip("no Numba")
    X0, y0 = ok.datasets.load("airfoil")
    X, y = np.tile(X0, (20, 1))[:30000], np.tile(y0, 20)[:30000]
    with compiled.engine(eng), pytest.raises(FloatingPointError) as err:
        ok.run_online(ok.OMKLGF(), X, y)
    msg = str(err.value)
    assert "unbounded with q_clip=None" in msg and "1 - (1 - eta_e^J/N)^M = 0.0121" in msg, msg
    assert "eta/q up to 4.12" in msg and "set q_clip (the authors' code: 0.05)" in msg, msg
    if eng == "numba":
        for fixed in (ok.OMKLGF(q_clip=0.05), ok.OMKLGF(schedule="inv_sqrt_t"), ok.OMKLGF(eta=0.01)):
            assert np.isfinite(ok.run_online(fixed, X, y).mse)


# ----------------------------------------------------------------------------- 8a. memory estimated before work
@pytest.mark.parametrize("model", ["OnlineRidge", "Mixture"])
def test_cli_refuses_a_csv_too_wide_for_a_d_squared_state_before_allocating(tmp_path, model):
    import math
    import resource

    from omkl_core.validation import available_memory

    avail = available_memory()
    if avail is None:
        pytest.skip("the OS does not say how much memory is available")
    d = math.ceil(math.sqrt(1.5 * avail / 32))     # OnlineRidge's state: ~4 (d + 1)^2 floats, 1.5 x what is there
    src = tmp_path / "wide.csv"
    with open(src, "w", encoding="utf-8") as fh:
        fh.write(",".join(f"x{j}" for j in range(d)) + ",y\n")
        row = ",".join("1" for _ in range(d)) + ",2\n"
        fh.writelines(row for _ in range(50))

    def limit():                                 # 3 GB of address space: the old run allocated d^2 and failed
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    res = _omkl("run", model, "--csv", src, timeout=120, preexec_fn=limit)
    line = _one_error_line(res)
    assert re.match(rf"omkl: error: the run on {d:,} features \(OnlineRidge ~[\d.]+ GB \+ the --csv blocks "
                    rf"\(50 rows x {d:,} features\) ~[\d.]+ MB\) needs [\d.]+ GB .* of memory, more than the "
                    r"[\d.]+ GB available on this machine now", line), line
    assert "fewer columns" in line


# ----------------------------------------------------------------------------- 7d. engines' rounding at a large scale
@pytest.mark.parametrize("eng", ["numpy", "numba"])
@pytest.mark.parametrize("cls", ["Raker", "OMKLGF", "SFGMKL", "SFGMKLR"])
def test_large_input_scale_warns_naming_the_learner_and_the_scale(cls, eng):
    import warnings

    if eng == "numba" and not compiled.numba_available():
        pytest.skip("no Numba")
    X, y = ok.datasets.ar4(T=200, seed=0)
    with compiled.engine(eng):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)      # the papers' scale: no warning
            getattr(ok, cls)(m=8).run(X, y)
        with pytest.warns(RuntimeWarning) as rec:
            getattr(ok, cls)(m=8).run(X * 1e12, y)
        learner = getattr(ok, cls)(m=8)
        step = f"{float(np.linalg.norm(X[0] * 1e12)):.3g}"
        with pytest.warns(RuntimeWarning, match=rf"^{cls}: the input's scale \(max \|x_t\| = {re.escape(step)}\)"):
            learner.predict_one(X[0] * 1e12)                    # the step path too, once
    msgs = [str(w.message) for w in rec if issubclass(w.category, RuntimeWarning)]
    scale = f"{float(np.sqrt(((X * 1e12) ** 2).sum(axis=1)).max()):.3g}"
    assert len(msgs) == 1 and msgs[0].startswith(f"{cls}: the input's scale (max |x_t| = {scale}) puts the random "
                                                 "features' argument omega'x up to "), msgs
    assert "numpy and numba engines (OMKL_ENGINE)" in msgs[0] and "beyond 4.5e+06" in msgs[0]
