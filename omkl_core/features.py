"""Random Fourier features (Rahimi & Recht 2007) for Gaussian and Laplacian kernels.

Paper 000 (Rokhlin & Gurtovaya, "VAW2", arXiv:2503.20087), section 2:

* Gaussian kernel, eq. (3): k(x, y) = exp(-|x - y|_2^2 / (2 sigma^2)), spectral density
  q(omega) = N(0, sigma^-2 I_d)  ->  omega = g / sigma, g ~ N(0, I_d);
* Laplacian kernel, eq. (4): k(x, y) = exp(-|x - y|_1 / sigma), q(omega) = prod_j
  Cauchy(omega_j; 0, 1/sigma)  ->  omega_j = c_j / sigma, c_j standard Cauchy.

Feature maps (``feature_map=``):

``"cos"`` (the paper's choice, section 2, below eq. (5); the default)
    theta_k = (omega_k, b_k), b_k ~ U(0, 2 pi), phi(x; theta) = sqrt(2) cos(<omega, x> + b) and
    Phi_theta(x) = (phi(x; theta_k))_{k=1..m} in R^m.  **Normalisation as in the paper:**
    there is *no* 1/sqrt(m) factor in Phi; instead the 1/m sits in the weights -- Lemma 1,
    eq. (6), uses w_hat = (1/m)(gamma(theta_k)/p(theta_k))_k, so <w_hat, Phi(x)> estimates
    f(x), the kernel estimate is k(x, y) ~ <Phi(x), Phi(y)> / m, and |Phi(x)|_2 <= sqrt(2m)
    = rho in the VAW bound (11) -> (12).  (scikit-learn's RBFSampler uses the same omega, b
    but scales by sqrt(2/m) instead of sqrt(2), i.e. its features are Phi / sqrt(m).)
``"sincos"`` (the form of paper 003 eq. (4) and of the authors' code, reference E.2)
    z(x) = m^{-1/2} [sin(<omega_1, x>), ..., sin(<omega_m, x>), cos(<omega_1, x>), ...,
    cos(<omega_m, x>)] in R^{2m} (all sines first); |z(x)|_2 = 1, k(x, y) ~ <z(x), z(y)>.
    This is eq. (5)'s phi(x; omega) = (cos, sin) stacked for m draws, scaled by 1/sqrt(m):
    with the same lambda its effective regularisation differs from "cos" by a factor ~m.

Frequencies are drawn on the host from a seeded NumPy Generator (``backend.host_rng``) in a
fixed order -- kernel by kernel; for each kernel first omega (d x m, row-major), then b (m)
when ``feature_map="cos"`` -- and only then moved to the array backend, so NumPy and CuPy runs with
the same seed see identical features.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import backend as _backend
from . import compiled as _compiled
from . import cosine as _cosine
from . import kernels as _kernels
from .base import Base
from .validation import Check, Integer, Options, Positive, check_matrix, check_vector

__all__ = ["RandomFourierFeatures", "KernelDictionary", "dictionary_spec", "paper000_dictionary",
           "paper000_sigmas", "exact_kernel", "apply_feature_map", "shifted_projection", "KINDS", "MAPS",
           "paper003_sigmas", "paper003_dictionary"]

KINDS = ("gaussian", "laplacian")
MAPS = ("cos", "sincos")


def _check_kind(kind, name: str = "kind") -> str:
    if not isinstance(kind, str) or kind not in KINDS:
        raise ValueError(f"{name} must be one of {KINDS}, got {kind!r}")
    return kind


def check_map(map_, name: str = "feature_map") -> str:
    """``map_`` when it is a feature map of :data:`MAPS` (paper 000 section 2: "cos" or "sincos"), else a
    ValueError naming ``name``."""
    if not isinstance(map_, str) or map_ not in MAPS:
        raise ValueError(f"{name} must be one of {MAPS}, got {map_!r}")
    return map_


def exact_kernel(kind: str, sigma: float, x, y) -> np.ndarray:
    """Exact kernel value(s), broadcasting over leading dimensions of ``x`` and ``y``:
    :func:`omkl_core.kernels.gaussian` (eq. 3) or :func:`omkl_core.kernels.laplacian` (eq. 4)."""
    kind = _check_kind(kind)
    return (_kernels.gaussian if kind == "gaussian" else _kernels.laplacian)(x, y, sigma)


def _draw(rng: np.random.Generator, kind: str, sigma: float, d: int, m: int, map_: str):
    """One kernel's (omega (d, m), b (m,)) in the documented order."""
    if kind == "gaussian":
        omega = rng.standard_normal((d, m)) / sigma
    else:
        omega = rng.standard_cauchy((d, m)) / sigma
    if map_ == "cos":
        b = rng.uniform(0.0, 2.0 * np.pi, size=m)
    else:
        b = np.zeros(m)
    return omega, b


_SQRT2 = np.sqrt(2.0)       # the cos map's factor (a NumPy float64, computed once)
#: sqrt(2), the cos map's factor (paper 000 section 2), for compiled code that applies the map itself
#: (``mkl.VAW2``'s step, :mod:`omkl_core.mkl._vaw2_step`): the number :func:`apply_feature_map` multiplies by.
COS_FACTOR = _SQRT2


def apply_feature_map(xp, proj, b, feature_map: str, m: int, out=None):
    """The feature map applied to projections: ``proj`` = x^T omega (..., m) -> (..., m) or (..., 2m).

    ``"cos"``: sqrt(2) cos(proj + b) (paper 000 section 2; ``b=None``: proj already includes b,
    as :func:`shifted_projection` writes it); ``"sincos"``: m^{-1/2} [sin(proj),
    cos(proj)] (paper 003 eq. 4). The one place where either formula is written.

    ``out``: write the features into this preallocated array (shape (..., m) or (..., 2m)) instead
    of new ones, one transcendental per feature and no temporaries (the same numbers bit for
    bit). For ``"cos"`` it may be ``proj`` itself (in place); for ``"sincos"`` ``proj`` may be
    its second half ``out[..., m:]``.
    """
    if feature_map == "cos":
        if out is None:
            out = xp.empty(proj.shape if b is None else np.broadcast_shapes(proj.shape, b.shape), dtype=xp.float64)
        if b is not None:                                            # else proj holds <omega, x> + b already
            proj = xp.add(proj, b, out=out)
        _cos(xp, proj, out)
        out *= _SQRT2                                                # sqrt(2) cos(<omega, x> + b)
        return out
    scale = 1.0 / np.sqrt(m)
    if out is None:
        out = xp.empty(proj.shape[:-1] + (2 * m,), dtype=xp.float64)
    xp.sin(proj, out=out[..., :m])
    _cos(xp, proj, out[..., m:])                                     # after sin: proj may be this half
    out *= scale
    return out


def _cos(xp, x, out):
    """out = cos(x): on the host by :func:`omkl_core.cosine.cos` (NumPy's, or a vectorised
    library's agreeing with it to 2 ulp), on another backend by its own ``cos``."""
    if xp is np:
        return _cosine.cos(x, out)
    return xp.cos(x, out=out)


def shifted_projection(X, omega, b, out) -> None:
    """out[j, t] = <omega_j, x_t> + b_j for kernels j and rows x_t: the argument of the cos map
    (paper 000 section 2), written once, for host arrays X (T, d), omega (J, d, m), b (J, m) and
    out (J, T, m). On the ``"numba"`` engine one compiled pass (:func:`shifted_projection_kernel`:
    d multiply-adds per feature, in place of NumPy's batched product with its small inner
    dimension d plus the add); otherwise that product and add. The two differ by
    rounding only (the order of the d + 1 terms)."""
    if _compiled.use_numba():
        shifted_projection_kernel(X, omega, b, out)
    else:
        np.matmul(X, omega, out=out)
        out += b[:, None, :]


@_compiled.jit
def shifted_projection_kernel(X, omega, b, out):  # pragma: no cover  (compiled; tests call it through the engine)
    """The compiled pass of :func:`shifted_projection`: per kernel and step, the row of m
    arguments is b_j plus the d terms x_tk omega_jk, four terms per pass over the row for the
    first four coordinates, then two, then one (contiguous, vectorised loops over the m features).
    Called from Python by :func:`shifted_projection`; a compiled caller calls it directly (``mkl.VAW2``'s
    step, :mod:`omkl_core.mkl._vaw2_step`)."""
    J, d, m = omega.shape
    T = X.shape[0]
    for j in range(J):
        Wj = omega[j]
        bj = b[j]
        for t in range(T):
            row = out[j, t]
            xt = X[t]
            k = 0
            if d >= 4:
                x0 = xt[0]
                x1 = xt[1]
                x2 = xt[2]
                x3 = xt[3]
                W0 = Wj[0]
                W1 = Wj[1]
                W2 = Wj[2]
                W3 = Wj[3]
                for c in range(m):
                    row[c] = bj[c] + ((x0 * W0[c] + x1 * W1[c]) + (x2 * W2[c] + x3 * W3[c]))
                k = 4
            else:
                for c in range(m):
                    row[c] = bj[c]
            while k + 2 <= d:
                x0 = xt[k]
                x1 = xt[k + 1]
                W0 = Wj[k]
                W1 = Wj[k + 1]
                for c in range(m):
                    row[c] += x0 * W0[c] + x1 * W1[c]
                k += 2
            while k < d:
                xk = xt[k]
                Wk = Wj[k]
                for c in range(m):
                    row[c] += xk * Wk[c]
                k += 1


def _as_input(X, d: int, xp):
    """Validate one point (d,) or rows (T, d) on the host, then move to ``xp``."""
    host = np.asarray(_backend.to_numpy(X), dtype=np.float64) if not isinstance(X, np.ndarray) \
        else X
    if host.ndim == 1:
        host = check_vector(host, "x")
        if host.shape[0] != d:
            raise ValueError(f"x has dimension {host.shape[0]}, expected d={d}")
    elif host.ndim == 2:
        host = check_matrix(host, "X")
        if host.shape[1] != d:
            raise ValueError(f"X has {host.shape[1]} columns, expected d={d}")
    else:
        raise ValueError(f"X must be 1-D (d,) or 2-D (T, d), got shape {host.shape}")
    return host if xp is np else _backend.asarray(host, xp)


def _check_seed(seed, name: str = "seed"):
    _backend.host_rng(seed if not isinstance(seed, np.random.Generator) else None)


def _check_kinds(kinds, name: str = "kinds"):
    if isinstance(kinds, str):
        raise TypeError(f"{name} must be a sequence of kernel names, not a single string")
    try:
        kinds = list(kinds)
    except TypeError:
        raise TypeError(f"{name} must be a sequence of kernel names, got {kinds!r}") from None
    if len(kinds) == 0:
        raise ValueError(f"{name} must contain at least one kernel")
    for i, k in enumerate(kinds):
        _check_kind(k, f"{name}[{i}]")


def _check_sigmas(sigmas, name: str = "sigmas"):
    sig = None
    if not isinstance(sigmas, str):
        try:
            sig = np.asarray(sigmas, dtype=np.float64)
        except (TypeError, ValueError):
            sig = None
    if sig is None or sig.ndim != 1:
        raise ValueError(f"{name} must be a 1-D sequence of positive numbers")
    if not np.all(np.isfinite(sig)) or np.any(sig <= 0):
        raise ValueError(f"{name} must be finite and > 0")


class _FeatureMap(_backend.NamespaceHolder, Base):
    """The base of the random feature maps: the parameters, ``repr`` (every parameter, ``seed``
    included), ``clone`` and the constraint table of :class:`omkl_core.base.Base`. The constructor
    only stores and checks; the random draws happen on first use (``omega_``, ``b_``,
    ``transform``) or by :meth:`reset`, from ``seed`` (a Generator passed as ``seed`` is drawn
    from at that moment, so maps sharing one Generator draw in the order they are first used)."""

    def __init__(self):
        self._validate_params()
        self._xp = _backend.get_namespace(self.backend)
        self._state_drawn = False

    @property
    def n_features(self) -> int:
        """Features per kernel: m ("cos") or 2m ("sincos")."""
        return self.m if self.feature_map == "cos" else 2 * self.m

    def reset(self):
        """Draw the random frequencies (and phases) from ``seed`` now; returns self."""
        self._validate_params()
        self._xp = _backend.get_namespace(self.backend)
        self._draw_state()
        self._state_drawn = True
        return self

    def _drawn(self):
        if not self._state_drawn:
            self.reset()
        return self

    def _draw_state(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


class RandomFourierFeatures(_FeatureMap):
    """Random Fourier feature map of one shift-invariant kernel (paper 000 section 2).

    Parameters
    ----------
    kind : {"gaussian", "laplacian"}, default="gaussian"
        Gaussian (eq. 3) or Laplacian (eq. 4) kernel.
    sigma : float, default=1.0
        Bandwidth sigma > 0 (Gaussian: k = exp(-|r|^2/(2 sigma^2)); Laplacian: exp(-|r|_1/sigma)).
    d : int, default=1
        Input dimension.
    m : int, default=50
        Number of random frequencies (features: m for "cos", 2m for "sincos").
    seed : int, numpy.random.Generator or None, default=None
        See :func:`omkl_core.backend.host_rng`.
    feature_map : {"cos", "sincos"}, default="cos"
        "cos": sqrt(2) cos(omega^T x + b), no 1/sqrt(m) (paper 000); "sincos": m^-1/2 [sin, cos]
        (paper 003 eq. 4, the authors' code). See the module docstring.
    backend : {"numpy", "cupy", "auto"}, default="numpy"
        Where ``transform`` computes.

    Attributes
    ----------
    omega_ : ndarray of shape (d, m)
        Frequencies.
    b_ : ndarray of shape (m,)
        Phases (zeros for "sincos").
    n_features : int
        m ("cos") or 2m ("sincos").

    Examples
    --------
    >>> import numpy as np, omkl_core as ok
    >>> rff = ok.RandomFourierFeatures("gaussian", 0.5, d=2, m=4000, seed=0)
    >>> x, y = np.array([0.1, 0.2]), np.array([0.3, -0.1])
    >>> round(float(rff.kernel(x, y)), 3), bool(abs(rff.kernel_estimate(x, y) - rff.kernel(x, y)) < 0.05)
    (0.771, True)
    """

    _parameter_constraints = {
        "kind": Options(*KINDS),
        "sigma": Positive(),
        "d": Integer(1),
        "m": Integer(1),
        "seed": Check(_check_seed, invalid=[-1, "0", 1.5]),
        "feature_map": Options(*MAPS),
        "backend": Options("numpy", "cupy", "auto"),
    }

    def __init__(self, kind: str = "gaussian", sigma: float = 1.0, *, d: int = 1, m: int = 50,
                 seed=None, feature_map: str = "cos", backend: str = "numpy"):
        self.kind = kind
        self.sigma = sigma
        self.d = d
        self.m = m
        self.seed = seed
        self.feature_map = feature_map
        self.backend = backend
        super().__init__()

    def _draw_state(self) -> None:
        # a one-kernel dictionary: same draw order, same transform
        self._dict = KernelDictionary([self.kind], [self.sigma], d=self.d, m=self.m, seed=self.seed,
                                      feature_map=self.feature_map, backend=self.backend).reset()

    @property
    def omega_(self):
        """Frequencies (d, m), drawn on first use or by :meth:`reset`."""
        return self._drawn()._dict.omega_[0]

    @property
    def b_(self):
        """Phases (m,) (zeros for "sincos"), drawn with :attr:`omega_`."""
        return self._drawn()._dict.b_[0]

    def transform(self, X):
        """Features of one point x (d,) -> (n_features,) or of rows X (T, d) -> (T, n_features)."""
        return self._drawn()._dict.transform(X)[..., 0, :]

    def kernel(self, x, y) -> np.ndarray:
        """Exact kernel value k(x, y) (broadcasting over leading dimensions)."""
        return exact_kernel(self.kind, float(self.sigma), x, y)

    def kernel_estimate(self, x, y) -> float:
        """Monte-Carlo estimate of k(x, y) from these features: <Phi(x), Phi(y)>/m ("cos")
        or <z(x), z(y)> ("sincos")."""
        fx = _backend.to_numpy(self.transform(x))
        fy = _backend.to_numpy(self.transform(y))
        val = float(fx @ fy)
        return val / self.m if self.feature_map == "cos" else val


class KernelDictionary(_FeatureMap):
    """The random features of N kernels held as one batched array (paper 000 eq. (16)).

    ``transform`` computes the features of all N kernels for a block of time steps with a
    single matrix product X @ Omega, Omega = omega_ laid out as (d, N*m) -- no loop over kernels.

    Parameters
    ----------
    kinds : sequence of "gaussian" / "laplacian" (length N).
    sigmas : sequence of N bandwidths sigma_j > 0 (Gaussian: sigma, *not* sigma^2).
    d, m, seed, feature_map, backend : as in :class:`RandomFourierFeatures`. Kernel j's frequencies
        are drawn after kernel j-1's from one Generator, so kernel j of a dictionary equals
        ``RandomFourierFeatures`` built from the same Generator state.

    Attributes
    ----------
    N : number of kernels; omega_ : (N, d, m); b_ : (N, m); n_features : m or 2m per kernel.
    """

    _parameter_constraints = {
        "kinds": Check(_check_kinds, invalid=["gaussian", ["poly"], []]),
        "sigmas": Check(_check_sigmas, invalid=[[0.0], [np.inf], "1.0"]),
        "d": Integer(1),
        "m": Integer(1),
        "seed": Check(_check_seed, invalid=[-1, "0", 1.5]),
        "feature_map": Options(*MAPS),
        "backend": Options("numpy", "cupy", "auto"),
    }

    def __init__(self, kinds: Sequence[str], sigmas: Sequence[float], *, d: int, m: int = 50,
                 seed=None, feature_map: str = "cos", backend: str = "numpy"):
        self.kinds = kinds
        self.sigmas = sigmas
        self.d = d
        self.m = m
        self.seed = seed
        self.feature_map = feature_map
        self.backend = backend
        super().__init__()

    def _validate_joint(self) -> None:
        if len(self.kinds) != len(np.asarray(self.sigmas)):
            raise ValueError(f"sigmas has {len(np.asarray(self.sigmas))} entries but kinds has {len(self.kinds)}")

    @property
    def N(self) -> int:
        """Number of kernels."""
        return len(self.kinds)

    def _draw_state(self) -> None:
        rng = _backend.host_rng(self.seed)
        sigmas = np.asarray(self.sigmas, dtype=np.float64)
        omegas = np.empty((self.N, self.d, self.m))
        bs = np.empty((self.N, self.m))
        for j, (kind, s) in enumerate(zip(self.kinds, sigmas)):   # kernel by kernel, one Generator
            omegas[j], bs[j] = _draw(rng, kind, float(s), self.d, self.m, self.feature_map)
        self._omega = _backend.asarray(omegas, self._xp)
        self._b = _backend.asarray(bs, self._xp)
        # (d, N*m) layout for the single matmul of transform()
        self._Wm = _backend.asarray(np.ascontiguousarray(omegas.transpose(1, 0, 2).reshape(self.d, -1)), self._xp)

    @property
    def omega_(self):
        """Frequencies (N, d, m), drawn on first use or by :meth:`reset`."""
        return self._drawn()._omega

    @property
    def b_(self):
        """Phases (N, m) (zeros for "sincos"), drawn with :attr:`omega_`."""
        return self._drawn()._b

    @property
    def _W(self):
        """omega_ laid out as (d, N*m) for the one product of :meth:`transform`."""
        return self._drawn()._Wm

    def __len__(self) -> int:
        return self.N

    def transform(self, X, validate: bool = True):
        """x (d,) -> (N, n_features); X (T, d) -> (T, N, n_features). One matmul for all kernels.

        ``validate=False`` skips the finiteness/shape checks (for callers that already
        validated the whole stream, e.g. block-wise feature generation).
        """
        xp = self._xp
        if validate:
            A = _as_input(X, self.d, xp)
        else:
            A = X if (xp is np or not isinstance(X, np.ndarray)) else _backend.asarray(X, xp)
        if self.feature_map == "cos":
            # the argument <omega_j, x> + b_j as a run computes it (shifted_projection, row by row
            # on the compiled engine), then the map in place: the features of a point are the same
            # bits here, in mkl.vaw2.feature_blocks and step by step. One point is a batch of one
            # row on every backend, so that a point and a batch take the same BLAS path (a 1-D
            # x @ W is a matrix-vector product, whose rounding depends on the BLAS kernel).
            rows = A[None] if A.ndim == 1 else A
            if xp is np:
                out = np.empty((self.N, rows.shape[0], self.m))
                shifted_projection(rows, self.omega_, self.b_, out)
            else:   # shifted_projection's NumPy-engine operations (product, then add) on the device
                out = xp.matmul(rows, self.omega_)
                out += self.b_[:, None, :]
            apply_feature_map(xp, out, None, "cos", self.m, out=out)
            return out[:, 0] if A.ndim == 1 else out.transpose(1, 0, 2)
        proj = A @ self._W                                   # (..., N*m): one product, all kernels
        proj = proj.reshape(proj.shape[:-1] + (self.N, self.m))
        return apply_feature_map(self._xp, proj, self.b_, self.feature_map, self.m)

    def kernel(self, j: int, x, y):
        """Exact value of kernel j at (x, y)."""
        return exact_kernel(self.kinds[j], float(self.sigmas[j]), x, y)


def dictionary_spec(dictionary, paper: str) -> tuple[list[str], np.ndarray]:
    """The kernel dictionary a multi-kernel learner asked for: ``None`` -> the paper's grid
    (``paper="000"``: :func:`paper000_sigmas`, 76 kernels; ``"003"``: :func:`paper003_sigmas`,
    41 Gaussian kernels), or a pair ``(kinds, sigmas)`` as given."""
    default = {"000": paper000_sigmas, "003": paper003_sigmas}[paper]
    if dictionary is None:
        return default()
    what = "paper 000's 76 kernels" if paper == "000" else "paper 003's 41 Gaussian kernels"
    if isinstance(dictionary, str):
        raise TypeError(f"dictionary must be None ({what}) or a pair (kinds, sigmas)")
    try:
        kinds, sigmas = dictionary
    except (TypeError, ValueError):
        raise TypeError(f"dictionary must be None ({what}) or a pair (kinds, sigmas)") from None
    return list(kinds), np.asarray(sigmas, dtype=np.float64)


def paper000_sigmas() -> tuple[list[str], np.ndarray]:
    """Paper 000 section 4: 51 Gaussian kernels with sigma^2 = 10^(2i/25 - 2), i = 0..50,
    then 25 Laplacian kernels with sigma = 10^(i/6 - 2), i = 0..24 (N = 76).
    Returns (kinds, sigmas) with sigmas as sigma (not sigma^2)."""
    gauss_sigma2 = 10.0 ** (2.0 * np.arange(51) / 25.0 - 2.0)
    lap_sigma = 10.0 ** (np.arange(25) / 6.0 - 2.0)
    kinds = ["gaussian"] * 51 + ["laplacian"] * 25
    return kinds, np.concatenate([np.sqrt(gauss_sigma2), lap_sigma])


def paper000_dictionary(d: int, m: int = 50, seed=0, feature_map: str = "cos",
                        backend: str = "numpy") -> KernelDictionary:
    """The N = 76 kernel dictionary of paper 000 section 4 (see :func:`paper000_sigmas`)."""
    kinds, sigmas = paper000_sigmas()
    return KernelDictionary(tuple(kinds), sigmas, d=d, m=m, seed=seed, feature_map=feature_map, backend=backend)


def paper003_sigmas() -> tuple[list[str], np.ndarray]:
    """Paper 003 section 5: 41 Gaussian (RBF) kernels, "bandwidth 10^{sigma_i}, sigma_i =
    (i - 21)/10", read (reference D.3, the authors' RF convention) as sigma^2 = 10^((i-21)/10),
    i = 1..41. Returns (kinds, sigmas) with sigmas as sigma (not sigma^2)."""
    sigma2 = 10.0 ** ((np.arange(1, 42) - 21) / 10.0)
    return ["gaussian"] * 41, np.sqrt(sigma2)


def paper003_dictionary(d: int, m: int = 50, seed=0, feature_map: str = "sincos",
                        backend: str = "numpy") -> KernelDictionary:
    """The N = 41 kernel dictionary of paper 003 section 5 with its sin/cos features
    (eq. 4: z = D^{-1/2}[sin, cos], 2D = 100 features per kernel for D = m = 50)."""
    kinds, sigmas = paper003_sigmas()
    return KernelDictionary(tuple(kinds), sigmas, d=d, m=m, seed=seed, feature_map=feature_map, backend=backend)
