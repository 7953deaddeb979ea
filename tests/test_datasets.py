"""The data of the papers: files, column choices, normalisation (paper 000 eqs. 32-34)."""
from __future__ import annotations

import fnmatch
import hashlib
import os
import shutil
import subprocess
import sys
import tomllib
import warnings
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from packaging.requirements import Requirement

import omkl_core as ok
import omkl_core.repro as repro
from omkl_core.datasets import DATA_DIR, normalise_stream, read_csv

# sha256 and (rows, columns) as recorded in omkl_core/data/SOURCES.md
FILES = {
    "airfoil.csv": ("f62df6e6e1d3466523a2d17968f8507e46a8577378f3945704f96a7aed4d732b", (1503, 6)),
    "bias_correction.csv": ("765e530598c8adfc22cdbcf6644f3c67d89ead22f5a9f58df6cdfd6f27217863", (7750, 25)),
    "concrete.csv": ("ac6879c37bedfe49cb886b05fddfdd752e28447a6063440541fdae9983228fe5", (1030, 9)),
    "naval.csv": ("88604276964c942cfb304784471f75291b6c0dde8933aa1235486eaf407ba3ee", (11934, 18)),
    "wine_white.csv": ("81c25bde36c78c3cd5f119b905f78d8d0c7a3959bf5bbaa322dc59a0a537cce3", (4898, 12)),
}


@pytest.mark.parametrize("fname", sorted(FILES))
def test_csv_sha256_and_shape_match_sources(fname):
    digest, shape = FILES[fname]
    path = DATA_DIR / fname
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
    header, values, _ = read_csv(path)
    assert (values.shape[0], len(header)) == shape


def test_sources_md_present_with_licence():
    text = (DATA_DIR / "SOURCES.md").read_text(encoding="utf-8")
    assert "CC BY 4.0" in text
    for fname in FILES:
        assert fname in text


@pytest.mark.parametrize("name,shape", [("airfoil", (1503, 5)), ("bias", (7750, 20)),
                                        ("concrete", (1030, 8)), ("naval", (11934, 15)),
                                        ("wine_white", (4898, 11))])
def test_load_shapes_and_info(name, shape):
    X, y = ok.datasets.load(name)
    assert X.shape == shape and y.shape == (shape[0],)
    assert X.dtype == np.float64 and y.dtype == np.float64
    meta = ok.datasets.info(name)
    assert (meta["T"], meta["d"]) == shape


def test_names_in_table2_order():
    assert ok.datasets.names() == ["airfoil", "bias", "concrete", "naval", "wine_white"]


def test_naval_column_choices():
    header, values, _ = read_csv(DATA_DIR / "naval.csv")
    X, y = ok.datasets.load("naval", normalise=False)
    assert header[0].startswith("Lever position")
    np.testing.assert_array_equal(y, values[:, 0])            # target = lever position
    np.testing.assert_array_equal(X, values[:, 1:16])          # 15 measurements, no decay targets
    X17, y17 = ok.datasets.load("naval", normalise=False, variant="17")
    np.testing.assert_array_equal(X17, values[:, 1:18])        # authors' code: + both decay coeffs
    np.testing.assert_array_equal(y17, y)
    assert len(np.unique(y)) == 9


def test_bias_column_choices_and_mean_fill():
    header, values, _ = read_csv(DATA_DIR / "bias_correction.csv")
    X, y = ok.datasets.load("bias", normalise=False)
    first, last = header.index("Present_Tmin"), header.index("Solar radiation")
    assert last - first + 1 == 20
    raw_X = values[:, first:last + 1]
    raw_y = values[:, header.index("Next_Tmin")]
    assert np.isnan(raw_X).any() and np.isnan(raw_y).any()     # the file has gaps ...
    assert np.isfinite(X).all() and np.isfinite(y).all()      # ... filled with column means
    col_means = np.nanmean(raw_X, axis=0)
    rows, cols = np.nonzero(np.isnan(raw_X))
    np.testing.assert_allclose(X[rows, cols], col_means[cols], rtol=1e-13, atol=0)
    ok_rows = ~np.isnan(raw_X).any(axis=1)
    np.testing.assert_array_equal(X[ok_rows], raw_X[ok_rows])
    Xd, yd = ok.datasets.load("bias", normalise=False, variant="dropna")
    assert Xd.shape == (7588, 20) and np.isfinite(Xd).all()


@pytest.mark.parametrize("name", ["airfoil", "concrete", "wine_white"])
def test_last_column_is_target(name):
    header, values, _ = read_csv(DATA_DIR / ok.datasets.info(name)["file"])
    X, y = ok.datasets.load(name, normalise=False)
    np.testing.assert_array_equal(y, values[:, -1])
    np.testing.assert_array_equal(X, values[:, :-1])


@pytest.mark.parametrize("name", ["airfoil", "bias", "concrete", "naval", "wine_white"])
def test_paper000_eq33_34_normalisation_on_data(name):
    X, y = ok.datasets.load(name)
    assert y.min() == 0.0 and y.max() == 1.0
    assert np.isclose(np.linalg.norm(X, axis=1).max(), 1.0, rtol=1e-12)
    Xr, yr = ok.datasets.load(name, normalise=False)
    np.testing.assert_allclose(y, (yr - yr.min()) / (yr.max() - yr.min()), rtol=1e-15, atol=0)


def test_paper000_eq32_ar4_recursion():
    T = 200
    Xn, yn = ok.datasets.ar4(T=T, seed=3, normalise=False)
    x = np.concatenate([[0.0, 0.0, 0.0, 0.0], Xn[:, 0], [yn[-1]]])  # x_{-3..0}, x_1..x_T, x_{T+1}
    eps = np.random.default_rng(3).standard_normal(T + 1)
    for t in range(1, T + 2):  # x_t = 0.5 x_{t-4} - 0.3 x_{t-3} + 0.2 x_{t-2} + 0.1 x_{t-1} + eps_t
        i = t + 3
        assert np.isclose(x[i], 0.5 * x[i - 4] - 0.3 * x[i - 3] + 0.2 * x[i - 2] + 0.1 * x[i - 1]
                          + eps[t - 1], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(yn[:-1], Xn[1:, 0])  # label y_t = x_{t+1} = next feature
    X, y = ok.datasets.ar4(T=T, seed=3)
    assert X.shape == (T, 1) and y.min() == 0 and y.max() == 1
    np.testing.assert_array_equal(X, ok.datasets.ar4(T=T, seed=3)[0])  # same seed, same stream


finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


# Hypothesis draws streams with one huge row among near-zero ones: the invariants hold there too, and
# the warning such a stream gets is tested on its own (test_an_outlier_row_is_named_before_eq_34_squeezes_the_rest)
@pytest.mark.filterwarnings("ignore:normalise_stream. row .* over 1e6 times the median:RuntimeWarning")
@given(X=arrays(np.float64, st.tuples(st.integers(2, 30), st.integers(1, 6)), elements=finite),
       y=arrays(np.float64, 30, elements=finite),
       scale_x=st.floats(1e-3, 1e3), scale_y=st.floats(1e-3, 1e3),
       shift_y=st.floats(-1e3, 1e3))
def test_paper000_normalisation_invariants(X, y, scale_x, scale_y, shift_y):
    y = y[: X.shape[0]]
    assume(np.ptp(y) > 1e-6 * max(1.0, np.abs(y).max()))       # (33) needs a non-constant y
    assume(np.linalg.norm(X, axis=1).max() > 1e-6)              # (34) needs a non-zero row
    Xn, yn = normalise_stream(X, y)
    assert yn.min() >= 0.0 and yn.max() <= 1.0                            # (33): y in [0, 1]
    assert np.isclose(np.linalg.norm(Xn, axis=1).max(), 1.0, rtol=1e-12)  # (34): max row norm 1
    Xs, ys = normalise_stream(scale_x * X, scale_y * y + shift_y)        # invariance to rescaling
    np.testing.assert_allclose(Xs, Xn, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ys, yn, rtol=1e-6, atol=1e-6)


def test_an_outlier_row_is_named_before_eq_34_squeezes_the_rest():
    """Eq. (34) divides every row by the largest row norm: one row 1e7 times the others (a unit error)
    leaves the rest nearly 0, so ``normalise_stream`` names that row; an ordinary stream gets no warning."""
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((20, 3)), rng.random(20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        normalise_stream(X, y)
    X[7] *= 1e7
    with pytest.warns(RuntimeWarning, match=r"row 7 of X has norm .* over 1e6 times the median row norm"):
        Xn, _ = normalise_stream(X, y)
    assert np.linalg.norm(np.delete(Xn, 7, axis=0), axis=1).max() < 1e-6      # what the warning says


def test_normalisation_degenerate_inputs_raise():
    with pytest.raises(ValueError, match="constant"):
        normalise_stream(np.ones((3, 2)), np.full(3, 2.0))
    with pytest.raises(ValueError, match="zero"):
        normalise_stream(np.zeros((3, 2)), np.arange(3.0))


def test_load_unknown_name_lists_known():
    with pytest.raises(ValueError, match="airfoil"):
        ok.datasets.load("nope")
    with pytest.raises(ValueError, match="unknown dataset"):
        ok.datasets.info("nope")


def test_load_unknown_variant():
    with pytest.raises(ValueError, match="variant"):
        ok.datasets.load("airfoil", variant="17")
    with pytest.raises(ValueError, match="variant"):
        ok.datasets.load("naval", variant="16")


def _write(tmp_path, fname, text):
    (tmp_path / fname).write_text(text, encoding="utf-8")


def test_non_numeric_feature_column_is_named(tmp_path):
    _write(tmp_path, "airfoil.csv", "a,b,target\n1,x,3\n2,y,4\n")
    with pytest.raises(ValueError, match="'b' is non-numeric"):
        ok.datasets.load("airfoil", data_dir=tmp_path)


def test_empty_feature_column_is_named(tmp_path):
    _write(tmp_path, "airfoil.csv", "a,b,target\n1,,3\n2,,4\n")
    with pytest.raises(ValueError, match="'b' is entirely empty"):
        ok.datasets.load("airfoil", data_dir=tmp_path)


def test_ar4_bad_arguments():
    with pytest.raises(ValueError, match="T"):
        ok.datasets.ar4(T=0)
    with pytest.raises(TypeError, match="seed"):
        ok.datasets.ar4(T=10, seed=1.5)


# ---------------------------------------------------------------- package data (issue 21)
_PKG = Path(ok.__file__).resolve().parent


def _data_files() -> list[str]:
    folder = _PKG / "data"
    return sorted(p.name for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []


def test_data_is_package_data_found_through_importlib_resources():
    """DATA_DIR and PUBLISHED_CSV are importlib.resources entries inside the package, not ``../data``."""
    assert DATA_DIR == resources.files("omkl_core") / "data"
    assert Path(str(DATA_DIR)).resolve() == _PKG / "data"
    assert Path(str(repro.paper_values.PUBLISHED_CSV)).resolve() == _PKG / "data" / "published_tables.csv"
    assert set(_data_files()) == {*FILES, "SOURCES.md", "published_tables.csv"}


def test_pyproject_declares_every_data_file_as_package_data():
    """The wheel carries omkl_core/data: every file there matches a package-data pattern of pyproject.toml."""
    pyproject = tomllib.loads((_PKG.parent / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = pyproject["tool"]["setuptools"]["package-data"]["omkl_core"]
    assert _data_files()
    missing = [f for f in _data_files() if not any(fnmatch.fnmatch(f"data/{f}", p) for p in patterns)]
    assert not missing, f"not declared as package data in pyproject.toml: {missing} (patterns {patterns})"
    build = [Requirement(r) for r in pyproject["build-system"]["requires"]]
    (setuptools_req,) = [r for r in build if r.name == "setuptools"]
    # license = "MIT" (a PEP 639 string) needs setuptools >= 77; 76.1 rejects the pyproject.toml
    assert isinstance(pyproject["project"]["license"], str)
    assert "76.1.0" not in setuptools_req.specifier and "77.0.3" in setuptools_req.specifier, setuptools_req


def test_a_copy_of_the_package_alone_loads_every_dataset(tmp_path):
    """What an installed wheel holds -- the omkl_core folder, no repository around it -- finds its data."""
    site = tmp_path / "site-packages"
    shutil.copytree(_PKG, site / "omkl_core", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    script = ("import omkl_core as ok, omkl_core.repro as repro, pathlib, sys\n"
              "assert pathlib.Path(ok.__file__).resolve().is_relative_to(pathlib.Path(sys.argv[1]).resolve()), ok.__file__\n"
              "for name in ok.datasets.names():\n"
              "    X, y = ok.datasets.load(name)\n"
              "    print(name, X.shape[0], X.shape[1])\n"
              "print('published', len(repro.paper_values.published('000', '2')))\n"
              "print('results', repro.report.results_dir())\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OMKL_")}
    env["PYTHONPATH"] = str(site)
    out = subprocess.run([sys.executable, "-c", script, str(site)], cwd=elsewhere, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    # an installed package writes its results into the working directory, never into its installation
    assert lines[-1] == f"results {elsewhere.resolve() / 'results'}", lines[-1]
    assert not (site / "results").exists() and not (site / "omkl_core" / "results").exists()
    shapes = {line.split()[0]: tuple(map(int, line.split()[1:])) for line in lines[:-1]}
    for name in ok.datasets.names():
        info = ok.datasets.info(name)
        assert shapes[name] == (info["T"], info["d"])
    assert shapes["published"][0] > 0
