"""Build omkl's wheel, install it into a clean virtual environment and use it from outside the repo.

    python tools/wheel_smoke.py [--keep]

What a new user does with ``pip install omkl``, checked end to end (issue 21, run by ``.ci/run``):

1. copy the source tree as a fresh clone would have it (git's tracked and untracked, not ignored
   files: no ``.venv``, ``build/``, ``results/``) into a temporary folder, so that stale build
   output in the checkout cannot slip into the wheel;
2. ``pip wheel --no-deps``: an isolated build with the ``[build-system]`` requirements of
   pyproject.toml (setuptools >= 77, fetched from the package index);
3. check the wheel's contents: every file of ``omkl_core/data`` inside, nothing outside ``omkl_core``;
4. a new virtual environment (no system site-packages, no PYTHONPATH), the wheel installed into it
   with its dependencies at the versions of requirements.lock (``-c``, a constraints file);
5. from a folder outside the repository: import omkl_core from the environment, load every
   dataset of the registry and the published values, run a learner, and run the ``omkl`` command
   (``datasets``, ``run --dataset``, ``run --csv``).

Exit status 0 when every step passed; otherwise 1 with the failing step's output. Prints the
seconds of each step. ``--keep`` leaves the temporary folder in place (its path is printed).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs inside the installed environment, from a folder outside the repository.
SMOKE = r"""
import importlib.util
import sys
from pathlib import Path

import numpy as np

import omkl_core as ok
from omkl_core import datasets, registry

repo, prefix = Path(sys.argv[1]), Path(sys.prefix).resolve()
pkg = Path(ok.__file__).resolve().parent
assert pkg.is_relative_to(prefix), f"omkl_core imported from {pkg}, not from the environment {prefix}"
assert not pkg.is_relative_to(repo), f"omkl_core imported from the repository: {pkg}"
heavy = [m for m in ("pandas", "matplotlib", "seaborn", "papermill", "tqdm") if importlib.util.find_spec(m)]
assert not heavy, f"the core install pulled in {heavy}"
assert not {"pandas", "matplotlib", "seaborn", "papermill"} & set(sys.modules)
data = Path(str(datasets.DATA_DIR)).resolve()
assert data == pkg / "data", f"DATA_DIR is {data}, not the installed package's data folder"

names = registry.dataset_names()
assert set(datasets.names()) < set(names), names
for name in names:
    X, y = registry.load_dataset(name)
    info = registry.dataset_info(name)
    assert X.shape == (info.T, info.d) and y.shape == (info.T,), (name, X.shape, info)
    assert np.isfinite(X).all() and np.isfinite(y).all(), name
    print(f"  dataset {name:<11} T={X.shape[0]:>6} d={X.shape[1]:>3}")
assert "CC BY 4.0" in (datasets.DATA_DIR / "SOURCES.md").read_text(encoding="utf-8")
assert (datasets.DATA_DIR / "published_tables.csv").is_file()

X, y = registry.load_dataset("airfoil", 60)
Z = np.clip(np.column_stack([y + 0.1, y - 0.05, np.full_like(y, y.mean())]), 0.0, 1.0)
ran = []
for name, info in registry.buildable().items():
    model = info.cls(**info.needs)
    inputs = Z if info.input == "experts" else X
    if "thetas" in info.needs:                    # its experts fix the dimension d
        inputs = X[:, :len(info.needs["thetas"][0])]
    trace = ok.run_online(model, inputs, y)
    assert np.isfinite(trace.mse), name
    ran.append(name)
print(f"  {len(ran)} learners ran with the core dependencies: {', '.join(ran)}")

X, y = datasets.load("airfoil")
trace = ok.run_online(ok.VAW2(m=20, seed=0), X, y)
mse, baseline = float(trace.losses.mean()), float(np.var(y))
assert np.isfinite(mse) and mse < baseline, (mse, baseline)
print(f"  VAW2 on airfoil: mse={mse:.5f} (variance of y {baseline:.5f})")
"""


class StepFailed(RuntimeError):
    pass


def _run(cmd: list[str], *, cwd: Path, env: dict | None = None, timeout: float = 600) -> str:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    out = proc.stdout + proc.stderr
    if proc.returncode != 0:
        raise StepFailed(f"`{' '.join(map(str, cmd))}` exited {proc.returncode}:\n{out[-6000:]}")
    return out


def copy_source(dest: Path) -> None:
    """The files a fresh clone (plus uncommitted work) holds: tracked and untracked, not ignored."""
    listing = _run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT)
    for rel in sorted(set(filter(None, listing.split("\0")))):
        src = ROOT / rel
        if src.is_file() and not src.is_symlink():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)


def check_wheel(wheel: Path) -> int:
    """Every file of omkl_core/data is in the wheel; nothing lies outside omkl_core and the metadata."""
    names = set(zipfile.ZipFile(wheel).namelist())
    want = {f"omkl_core/data/{p.name}" for p in (ROOT / "omkl_core" / "data").iterdir() if p.is_file()}
    missing = sorted(want - names)
    if missing:
        raise StepFailed(f"{wheel.name} lacks package data: {missing}")
    stray = sorted(n for n in names if not (n.startswith("omkl_core/") or n.split("/")[0].endswith(".dist-info")))
    if stray:
        raise StepFailed(f"{wheel.name} holds files outside omkl_core: {stray[:10]}")
    return len(want)


def clean_env() -> dict:
    """The caller's environment without what would let the repository leak in."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV") and not k.startswith("OMKL_")}
    env["MPLBACKEND"] = "Agg"
    return env


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = parser.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="omkl-wheel-"))
    src, dist, venv, outside = tmp / "src", tmp / "dist", tmp / "venv", tmp / "elsewhere"
    for d in (src, dist, outside):
        d.mkdir()
    py, omkl = venv / "bin" / "python", venv / "bin" / "omkl"
    env = clean_env()
    snapshot: dict = {}
    total = time.monotonic()
    steps = [
        ("copy the source tree", lambda: copy_source(src)),
        ("build the wheel (isolated, pip wheel --no-deps)",
         lambda: _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(dist), str(src)],
                      cwd=tmp, env=env)),
        ("check the wheel's contents", lambda: print(f"  {check_wheel(_wheel(dist))} data files in {_wheel(dist).name}")),
        ("create a clean virtual environment", lambda: _run([sys.executable, "-m", "venv", str(venv)], cwd=tmp, env=env)),
        ("install the wheel with its core dependencies only (pinned by requirements.lock)",
         lambda: _run([str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                       "-c", str(src / "requirements.lock"), str(_wheel(dist))], cwd=outside, env=env)),
        ("snapshot the installation", lambda: snapshot.update(before=_site_files(py, cwd=outside, env=env))),
        ("datasets and every buildable learner, from outside the repo",
         lambda: print(_run([str(py), "-c", SMOKE, str(ROOT)], cwd=outside, env=env).rstrip())),
        ("omkl run and omkl sweep, from outside the repo", lambda: _cli(omkl, outside, env)),
        ("nothing written into the installation", lambda: _unchanged(snapshot["before"], _site_files(py, cwd=outside, env=env))),
    ]
    try:
        for k, (title, step) in enumerate(steps, 1):
            t0 = time.monotonic()
            print(f"[wheel {k}/{len(steps)}] {title}", flush=True)
            step()
            print(f"[wheel {k}/{len(steps)}] ok ({time.monotonic() - t0:.1f} s)", flush=True)
    except (StepFailed, subprocess.TimeoutExpired) as exc:
        print(f"error: wheel smoke test failed: {exc}", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"[wheel] the installed wheel works outside the repository ({time.monotonic() - total:.1f} s)")
    return 0


def _wheel(dist: Path) -> Path:
    wheels = sorted(dist.glob("omkl-*.whl"))
    if len(wheels) != 1:
        raise StepFailed(f"expected one omkl wheel in {dist}, found {[w.name for w in wheels]}")
    return wheels[0]


def _site_files(py: Path, *, cwd: Path, env: dict) -> set[str]:
    """Every file under the environment's prefix (site-packages, bin, ...)."""
    code = ("import sys, os; p = sys.prefix\n"
            "print('\\n'.join(os.path.relpath(os.path.join(d, f), p) for d, _, fs in os.walk(p) for f in fs))")
    return set(_run([str(py), "-c", code], cwd=cwd, env=env).splitlines())


def _unchanged(before: set[str], after: set[str]) -> None:
    new = sorted(after - before)
    if new:
        raise StepFailed(f"the installed package wrote into its installation: {new[:10]}")
    print(f"  {len(after)} files, none added")


def _cli(omkl: Path, cwd: Path, env: dict) -> None:
    listing = _run([str(omkl), "datasets"], cwd=cwd, env=env)
    for name in ("airfoil", "bias", "concrete", "naval", "wine_white", "ar4"):
        if name not in listing:
            raise StepFailed(f"`omkl datasets` does not list {name}:\n{listing}")
    out = _run([str(omkl), "run", "OnlineRidge", "--dataset", "concrete"], cwd=cwd, env=env)
    if "mse=" not in out:
        raise StepFailed(f"`omkl run --dataset concrete` printed no MSE:\n{out}")
    print("  " + out.strip().splitlines()[-1])
    csv = cwd / "stream.csv"
    rows = ["a,b,target"] + [f"{t % 7},{(t * 3) % 5},{(t % 7) + 0.5 * ((t * 3) % 5)}" for t in range(200)]
    csv.write_text("\n".join(rows) + "\n")
    out = _run([str(omkl), "run", "OnlineRidge", "--csv", str(csv), "--target", "target"], cwd=cwd, env=env)
    if "mse=" not in out:
        raise StepFailed(f"`omkl run --csv` printed no MSE:\n{out}")
    print("  " + out.strip().splitlines()[-1])
    spec = cwd / "spec.toml"
    spec.write_text('datasets = ["airfoil"]\nseeds = [0, 1]\nmax_steps = 100\n'
                    '[[learners]]\nname = "OnlineRidge"\n[[learners]]\nname = "VAW2"\nparams = {m = 10}\n')
    for executor in ("serial", "processes"):
        out = _run([str(omkl), "sweep", str(spec), "--executor", executor, "--quiet", "--cache-dir", str(cwd / "cache"),
                    "--out", str(cwd / f"rows-{executor}.csv")], cwd=cwd, env=env)
        if "4 cells" not in out:
            raise StepFailed(f"`omkl sweep --executor {executor}` did not report 4 cells:\n{out}")
        print("  " + out.strip().splitlines()[-1])


if __name__ == "__main__":
    sys.exit(main())
