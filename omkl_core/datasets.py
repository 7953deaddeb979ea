"""The five UCI regression streams of the papers and the AR(4) generator.

Every stream is returned in file order (online time step t = row t) and, by default,
normalised exactly as in paper 000 (Rokhlin & Gurtovaya 2025), eqs. (33)-(34), which copy
the code of Ghari & Shen (2023):

* (33)  y_i := (y_i - min_j y_j) / (max_j y_j - min_j y_j)        -> y in [0, 1];
* (34)  x_i := x_i / max_j ||x_j||_2                              -> largest row norm 1.

Column choices follow ``omkl_core/data/SOURCES.md`` (see :func:`info` for each dataset's notes).
Which datasets exist, their files and facts: the one table :data:`omkl_core.presets.DATASETS`
(``DatasetInfo`` is defined there and re-exported here). A new CSV whose target is its last column
needs no code here: see "Adding a dataset" in :mod:`omkl_core.presets`.
"""
from __future__ import annotations

import csv
import os
import warnings
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import numpy as np

from .presets import DATASETS, DatasetInfo
from .validation import (
    check_int,
    check_interval,
    check_magnitude,
    check_matrix,
    check_nonneg,
    check_option,
    check_seed,
    check_vector,
)

__all__ = ["load", "names", "info", "ar4", "normalise_stream", "DATA_DIR", "DatasetInfo", "GENERATORS"]

#: Folder holding the CSVs, SOURCES.md and published_tables.csv: the package data ``omkl_core/data``,
#: located with :mod:`importlib.resources`, so that a checkout, an editable install and an installed
#: wheel all find it (a :class:`pathlib.Path` whenever the package lies on disk, as pip installs it).
DATA_DIR: Traversable = resources.files(__package__) / "data"


#: Naval's feature columns (the table's ``variants``): 15 by default, 17 in the graph-aided code.
_NAVAL_15 = list(range(1, 16))  # ship speed ... fuel flow (ICML 2020 code, graph-aided text)
_NAVAL_17 = list(range(1, 18))  # graph-aided code: all columns but the target, incl. decay coeffs

_BIAS_FIRST, _BIAS_LAST = "Present_Tmin", "Solar radiation"


def names() -> list[str]:
    """Names accepted by :func:`load`: the file entries of :data:`omkl_core.presets.DATASETS`
    (``ar4`` is a generator: see :func:`ar4`)."""
    return [name for name, entry in DATASETS.items() if not entry.generator]


def info(name: str) -> dict:
    """T, d, target column, source and variant notes of dataset ``name``."""
    meta = _lookup(name)
    return {"name": meta.name, "title": meta.title, "T": meta.T, "d": meta.d,
            "target": meta.target, "source": meta.source, "file": meta.file,
            "variants": {("default" if k is None else k): v for k, v in meta.variants.items()},
            "notes": meta.notes}


def _lookup(name: str) -> DatasetInfo:
    files = names()
    if not isinstance(name, str) or name not in files:
        raise ValueError(f"unknown dataset {name!r}; known datasets: {', '.join(files)} "
                         "(and the generator ar4())")
    return DATASETS[name]


def read_csv(path: str | os.PathLike | Traversable) -> tuple[list[str], np.ndarray, list[list[str]]]:
    """Read a header + rows CSV. Returns (header, float array with NaN for empty/non-numeric
    cells, raw string rows). ``path`` is a file name or a package resource (``DATA_DIR / name``).
    A UTF-8 byte-order mark is dropped (it is not part of the first column's name)."""
    if isinstance(path, (str, os.PathLike)):
        path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"dataset file not found: {path}")
    with path.open(newline="", encoding="utf-8-sig") as fh:
        return parse_csv(fh, path.name)


def parse_csv(lines, name: str) -> tuple[list[str], np.ndarray, list[list[str]]]:
    """:func:`read_csv` on an open text file or a list of lines; ``name`` is used in errors."""
    reader = csv.reader(lines)
    header = [h.strip() for h in next(reader)]
    raw = [row for row in reader if row]
    values = np.full((len(raw), len(header)), np.nan)
    for i, row in enumerate(raw):
        if len(row) != len(header):
            raise ValueError(f"{name}: row {i + 1} has {len(row)} fields, header has {len(header)}")
        for j, cell in enumerate(row):
            cell = cell.strip()
            if cell:
                try:
                    values[i, j] = float(cell)
                except ValueError:
                    pass  # non-numeric: stays NaN; _numeric_columns decides if that is an error
    return header, values, raw


def _is_number(s: str) -> bool:
    try:
        return not np.isnan(float(s))
    except ValueError:
        return False


def _numeric_columns(path: Path, header, values, raw, cols: list[int]) -> None:
    """Raise a clear error if a selected column is non-numeric or entirely empty.

    Empty cells and the literal ``NaN`` count as missing values (the bias file uses ``NaN``).
    """
    for j in cols:
        present = [row[j].strip() for row in raw if row[j].strip().lower() not in ("", "nan")]
        if not present:
            raise ValueError(f"{path.name}: column {header[j]!r} is entirely empty")
        bad = [s for s in present if not _is_number(s)]
        if bad:
            raise ValueError(f"{path.name}: column {header[j]!r} is non-numeric "
                             f"({len(bad)} cells, e.g. {bad[0]!r})")


def normalise_stream(X, y) -> tuple[np.ndarray, np.ndarray]:
    """Paper 000 eqs. (33)-(34): y min-max scaled to [0, 1]; X divided by its largest row norm.

    Values beyond ``validation.MAX_MAGNITUDE`` (1e100) in size are refused (ValueError naming
    X or y). A row whose norm is over 1e6 times the median row norm makes every other row
    nearly 0 after (34); the scaling is still applied as printed, with a RuntimeWarning
    naming the row."""
    X = check_matrix(X, "X")
    y = check_vector(y, "y", length=X.shape[0])
    check_magnitude(X, "X")
    check_magnitude(y, "y")
    lo, hi = y.min(), y.max()
    if hi == lo:
        raise ValueError("y is constant: the min-max scaling of eq. (33) is undefined")
    y = (y / 2 - lo / 2) / (hi / 2 - lo / 2)           # halves: hi - lo may overflow float64
    big = np.abs(X).max()
    if big == 0:
        raise ValueError("every row of X is zero: the scaling of eq. (34) is undefined")
    norms = big * np.sqrt(((X / big) ** 2).sum(axis=1))  # row norms without overflowing x^2
    scale = norms.max()
    Xn = X / scale
    warn_outlier_row(norms, stacklevel=3)
    return Xn, y


def warn_outlier_row(norms, stacklevel: int = 2) -> None:
    """Warn when one row's norm is over 1e6 times the median of the others: eq. (34) as printed
    then squeezes every other row towards 0 (``normalise_stream`` and ``omkl run --scale paper``)."""
    scale = float(norms.max())
    rest = np.delete(norms, int(np.argmax(norms)))
    if rest.size and np.median(rest) < 1e-6 * scale:
        i = int(np.argmax(norms))
        warnings.warn(f"normalise_stream: row {i} of X has norm {scale:.3g}, over 1e6 times the median "
                      f"row norm {np.median(rest):.3g}; after eq. (34) the other rows are nearly 0 "
                      "(an outlier or a unit error in the data?)", RuntimeWarning, stacklevel=stacklevel + 1)


def standardise_online(X) -> np.ndarray:
    """Per-column standardisation without look-ahead, for a stream of features.

    Row t (1-based) of column j becomes ``(x_tj - m_tj) / s_tj`` with ``m_tj`` and ``s_tj`` the
    mean and the (population) standard deviation of ``x_1j .. x_tj``: the features the online
    protocol has revealed when y_t is predicted, never y_t or a later row. A column whose rows
    1..t are all equal (``s_tj = 0``) maps to 0. The first row is therefore all zeros and the
    second +-1. Unlike eq. (34) (X divided by its largest row norm, a whole-stream statistic),
    a column of day numbers (~1e6) does not flatten columns of order 1.

    The sums run over ``x - x_1`` (known from step 1 on), so a large common offset does not cancel
    digits away and a constant column is exactly 0.
    """
    X = check_matrix(X, "X")
    check_magnitude(X, "X")
    D = X - X[:1]
    t = np.arange(1, X.shape[0] + 1, dtype=np.float64)[:, None]
    mean = np.cumsum(D, axis=0) / t
    var = np.maximum(np.cumsum(D * D, axis=0) / t - mean * mean, 0.0)
    sd = np.sqrt(var)
    centred = D - mean
    with np.errstate(invalid="ignore", divide="ignore"):
        Z = np.where(sd > 0, centred / np.where(sd > 0, sd, 1.0), 0.0)
    return Z


def load(name: str, normalise: bool = True, variant: str | None = None,
         data_dir: str | Path | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Load dataset ``name`` as float64 arrays ``(X, y)`` in stream (file) order.

    Parameters
    ----------
    name : one of :func:`names` -- ``airfoil``, ``concrete``, ``naval``, ``wine_white``, ``bias``.
    normalise : apply paper 000 eqs. (33)-(34) (default). ``False`` returns raw values.
    variant : ``naval``: ``None`` (15 features) or ``"17"``; ``bias``: ``None`` (mean fill)
        or ``"dropna"``. Other datasets have no variants.
    data_dir : folder holding the CSVs (default: :data:`DATA_DIR`, the package data ``omkl_core/data``).
    """
    meta = _lookup(name)
    if variant not in meta.variants and not (variant is None and not meta.variants):
        known = [k for k in meta.variants if k is not None]
        raise ValueError(f"unknown variant {variant!r} for dataset {name!r}; "
                         f"known variants: {known or 'none'}")
    path = (DATA_DIR if data_dir is None else Path(data_dir)) / meta.file
    header, values, raw = read_csv(path)

    if name == "naval":
        target_col = 0
        feat_cols = _NAVAL_17 if variant == "17" else _NAVAL_15
    elif name == "bias":
        target_col = header.index(meta.target)
        feat_cols = list(range(header.index(_BIAS_FIRST), header.index(_BIAS_LAST) + 1))
    else:
        target_col = len(header) - 1
        feat_cols = list(range(len(header) - 1))

    _numeric_columns(path, header, values, raw, feat_cols + [target_col])
    X = values[:, feat_cols]
    y = values[:, target_col]

    if name == "bias":
        if variant == "dropna":
            keep = np.isfinite(X).all(axis=1) & np.isfinite(y)
            X, y = X[keep], y[keep]
        else:
            # SimpleImputer(strategy="mean") over the whole file, as in the authors' code
            col_mean = np.nanmean(X, axis=0)
            X = np.where(np.isnan(X), col_mean, X)
            y = np.where(np.isnan(y), np.nanmean(y), y)
    if not (np.isfinite(X).all() and np.isfinite(y).all()):
        raise ValueError(f"{path.name}: missing values in the selected columns")

    if normalise:
        X, y = normalise_stream(X, y)
    return np.ascontiguousarray(X), np.ascontiguousarray(y)


#: AR(4) coefficients of paper 000 eq. (32): x_t = nu0 x_{t-4} + nu1 x_{t-3} + nu2 x_{t-2} + nu3 x_{t-1} + eps_t
AR4_COEFFS = (0.5, -0.3, 0.2, 0.1)


def ar4(T: int = 5000, seed: int = 0, normalise: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The synthetic stream of paper 000 eq. (32).

    x_t = 0.5 x_{t-4} - 0.3 x_{t-3} + 0.2 x_{t-2} + 0.1 x_{t-1} + eps_t, eps_t ~ N(0, 1),
    x_k = 0 for k = -3..0; the feature at step t is the scalar x_t and the label is
    y_t = x_{t+1}, t = 1..T. Returns X of shape (T, 1) and y of shape (T,), normalised by
    (33)-(34) unless ``normalise=False``. The noise is drawn from ``numpy.random.default_rng(seed)``.
    """
    T = check_int(T, "T", minimum=2)
    seed = check_int(seed, "seed", minimum=0)
    eps = np.random.default_rng(seed).standard_normal(T + 1)
    nu0, nu1, nu2, nu3 = AR4_COEFFS
    x = np.zeros(T + 5)  # x[0..3] = x_{-3..0} = 0, x[3 + t] = x_t
    for t in range(1, T + 2):
        i = 3 + t
        x[i] = nu0 * x[i - 4] + nu1 * x[i - 3] + nu2 * x[i - 2] + nu3 * x[i - 1] + eps[t - 1]
    X = x[4:4 + T].reshape(-1, 1)   # x_1 .. x_T
    y = x[5:5 + T].copy()           # x_2 .. x_{T+1}
    if normalise:
        X, y = normalise_stream(X, y)
    return np.ascontiguousarray(X), y


#: Generator entries of :data:`omkl_core.presets.DATASETS` (``DatasetInfo.generator``) -> the function
#: that draws the stream from the entry's ``params`` (and ``normalise``).
GENERATORS = {"ar4": ar4}


def sparse_regression(n: int, p: int, s: int, *, sigma: float = 1.0, seed=0, design: str = "gaussian",
                      rho: float = 0.5, amplitude: float = 1.0):
    """The sparse linear model (11) of paper 004: Y = X w_bar + eps, ||w_bar||_0 = s.

    Scaling as on the slide "Sparse Recovery": the entries of sqrt(n) X are standard normal (so
    the columns have 2-norm about 1) and sqrt(n) eps_i ~ N(0, sigma^2) (sigma sub-Gaussian).
    w_bar has support {0, ..., s-1} and entries amplitude * (random sign).

    design : ``"gaussian"`` (iid columns), ``"toeplitz"`` (rows N(0, Sigma/n), Sigma_jk = rho^|j-k|)
        or ``"irrepresentable_violating"``: iid columns except column s (the first outside the
        support), set to rho * X_F sign(w_bar_F)/sqrt(s) + sqrt(1 - rho^2) z, so that Assumption 28's
        mu is about rho sqrt(s) (> 1 when rho > 1/sqrt(s)).

    Returns (X, y, w_bar, eps) with shapes (n, p), (n,), (p,), (n,).
    """
    n = check_int(n, "n", minimum=1)
    p = check_int(p, "p", minimum=1)
    s = check_int(s, "s", minimum=0)
    if s > p:
        raise ValueError(f"s must be <= p, got s={s}, p={p}")
    sigma = check_nonneg(sigma, "sigma")
    amplitude = check_nonneg(amplitude, "amplitude")
    design = check_option(design, "design", ("gaussian", "toeplitz", "irrepresentable_violating"))
    rho = check_interval(rho, "rho", -1.0, 1.0, closed="neither") if design == "toeplitz" else check_interval(rho, "rho", 0.0, 1.0)
    rng = np.random.default_rng(check_seed(seed))
    Z = rng.standard_normal((n, p))
    if design == "toeplitz":
        idx = np.arange(p)
        L = np.linalg.cholesky(rho ** np.abs(idx[:, None] - idx[None, :]))
        Z = Z @ L.T
    X = Z / np.sqrt(n)
    w_bar = np.zeros(p)
    w_bar[:s] = amplitude * rng.choice(np.array([-1.0, 1.0]), size=s)
    if design == "irrepresentable_violating":
        if not 0 < s < p:
            raise ValueError("design='irrepresentable_violating' needs 0 < s < p")
        v = X[:, :s] @ np.sign(w_bar[:s]) / np.sqrt(s)
        X[:, s] = rho * v + np.sqrt(1.0 - rho * rho) * X[:, s]
    eps = sigma * rng.standard_normal(n) / np.sqrt(n)
    return X, X @ w_bar + eps, w_bar, eps
