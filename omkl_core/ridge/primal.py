"""Paper 002's primal ridge learners: Algorithm 1 (:class:`OnlineRidge`, Theorem 1, eq. (1);
Corollary 1, eq. (2)) and Bayesian Ridge Regression (:class:`BayesianRidge`, eq. (12), Theorem 2)."""
from __future__ import annotations

import math

import numpy as np
from scipy.linalg import get_lapack_funcs, qr_insert, solve_triangular

from ..compiled import use_numba
from ..sherman_morrison import sm_predict, sm_update
from ..validation import (
    Boolean,
    Optional,
    Options,
    Positive,
    check_point,
    check_scalar,
)
from . import _cholesky
from ._base import _gaussian_log_loss, _RidgeBase

__all__ = ["OnlineRidge", "BayesianRidge"]

# The two routines of a Cholesky step, called as scipy's solve_triangular and qr_insert call them,
# without their per-call wrappers (argument checks, the array-API batching layer: most of a step's
# time for n ~ 5): the same compiled routines on the same arrays, so the same numbers.
_trtrs = get_lapack_funcs("trtrs", dtype=np.float64)          # LAPACK dtrtrs, what solve_triangular calls
_qr_insert = getattr(qr_insert, "__wrapped__", qr_insert)     # scipy's compiled qr_insert itself


def _solve_upper_transposed(R, x):
    """R^{-T} x for an upper-triangular R: ``solve_triangular(R, x, trans="T", check_finite=False)``'s
    LAPACK call (on R, or on R' read as lower-triangular when R is not Fortran-ordered)."""
    if R.flags.f_contiguous:
        z, info = _trtrs(R, x, 0, 1, 0)                 # lower=False, trans=1 ('T'), unitdiag=False
    else:
        z, info = _trtrs(R.T, x, 1, 0, 0)               # lower=True, trans=0 ('N'), unitdiag=False
    _trtrs_info(info)
    return z


def _trtrs_info(info) -> None:
    """solve_triangular's errors for LAPACK trtrs's ``info``."""
    if info > 0:
        raise np.linalg.LinAlgError(f"singular matrix: resolution failed at diagonal {info - 1}")
    if info < 0:
        raise ValueError(f"illegal value in {-info}-th argument of internal trtrs")


class OnlineRidge(_RidgeBase):
    r"""Ridge regression updated online, one step at a time (paper 002, Algorithm 1).

    Online Ridge Regression -- Algorithm 1 of Zhdanov & Vovk (2009).

    A_0 = aI, b_0 = 0; at step t: predict gamma_t = b_{t-1}' A_{t-1}^{-1} x_t, then
    A_t = A_{t-1} + x_t x_t', b_t = b_{t-1} + y_t x_t.

    Theorem 1, eq. (1): sum_t (y_t - gamma_t)^2 / (1 + x_t'A_{t-1}^{-1}x_t)
    = min_theta (sum_t (y_t - theta'x_t)^2 + a ||theta||^2)   (``weighted_loss_`` vs
    :func:`omkl_core.bounds.paper002_theorem1_rhs`).

    Parameters
    ----------
    a : float, default=1.0
        The ridge parameter a > 0 (A_0 = aI).
    clip : float or None, default=None
        If set (= Y of Corollary 1), ``predict_one`` returns gamma_t^Y, the clip of gamma_t
        to [-Y, Y]; learning is unchanged.
    fit_intercept : bool, default=False
        If true, the algorithm runs on x_t' = (x_t, 1): the last coefficient is an intercept
        (``intercept_``), penalised by ``a`` like the others, so Theorem 1 holds for the
        augmented inputs. Without it the model is a ridge regression through the origin,
        which on data with a non-zero mean (e.g. labels in [0, 1]) can do worse than
        predicting the mean.
    solver : {"cholesky", "sherman-morrison"}, default="cholesky"
        How A_{t-1}^{-1} is applied (the predictions are the same in exact arithmetic).

        * ``"cholesky"``: keep the upper-triangular factor R_t with R_t'R_t = A_t
          and c_t = R_t^{-T} b_t, updated by Givens rotations of the row (x_t', y_t)
          (square-root / QR recursive least squares, O(n^2) per step). Then
          z = R_{t-1}^{-T} x_t, gamma_t = c_{t-1}'z = b_{t-1}'A_{t-1}^{-1}x_t and
          x_t'A_{t-1}^{-1}x_t = z'z. Backward stable: it keeps (1) to ~1e-9 on
          ill-conditioned and collinear inputs where Sherman-Morrison loses digits.
        * ``"sherman-morrison"``: A_t^{-1} = A_{t-1}^{-1} - A_{t-1}^{-1}x_t x_t'A_{t-1}^{-1}
          / (1 + x_t'A_{t-1}^{-1}x_t), the update the paper suggests after Algorithm 1, with
          the ridge weights A_t^{-1}b_t updated alongside: the Sherman-Morrison core of the VAW
          forecaster (:func:`omkl_core.sherman_morrison.sm_update`, paper 000 eq. (10); ``a`` is its lambda).

    Attributes
    ----------
    b_ : ndarray of shape (n,)
        b_t = sum_{i<=t} y_i x_i.
    t_ : int
        Steps learned.
    coef_ : ndarray of shape (n,)
        A_t^{-1} b_t, the minimiser theta_T on the right-hand side of (1).
    chol_, c_ : ndarray
        The Cholesky factor R_t and c_t (``solver="cholesky"``); ``A_inv_`` is A_t^{-1}
        (stored for sherman-morrison, computed for cholesky).
    weighted_loss_ : float
        The left-hand side of (1) so far (with the other running totals of the module docstring).

    Examples
    --------
    >>> import numpy as np, omkl_core as ok
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3)); y = X @ np.array([1.0, -2.0, 0.5])
    >>> model = ok.OnlineRidge(a=1.0)
    >>> trace = ok.run_online(model, X, y)
    >>> bool(trace.mse < np.mean(y ** 2)), model.coef_.round(1).tolist()
    (True, [1.0, -2.0, 0.5])
    >>> lhs = model.weighted_loss_                                   # Theorem 1, eq. (1)
    >>> bool(np.isclose(lhs, ok.bounds.paper002_theorem1_rhs(X, y, 1.0)))
    True
    """

    #: The bound it carries, declared beside its update (issue 40; a dict of the fields of
    #: :class:`omkl_core.bounds.aggregation.RuleBound`, turned into one by the base class);
    #: evaluated by :func:`omkl_core.bounds.paper002_corollary2_bound`.
    regret_bound = {
        "name": "Ridge Regression's loss bound (paper 002 Corollary 2, eq. (4))",
        "source": "Zhdanov & Vovk (2009), 'Competing with Gaussian linear experts' (paper 002)",
        "where": "Corollary 2, eq. (4) (from Theorem 1, eq. (1))",
        "statement": "sum_t (y_t - gamma_t)^2 <= (1 + Z^2/a) min_theta (sum_t (y_t - theta'x_t)^2 + a |theta|^2)",
        "symbols": "gamma_t the forecast of step t; a the ridge parameter; Z the largest Euclidean norm |x_t| of "
                   "the inputs (with fit_intercept, of (x_t, 1)); theta any weight vector",
        "assumes": "|x_t| <= Z at every step; the unclipped forecasts (clip=None)",
    }

    _SOLVERS = ("cholesky", "sherman-morrison")
    _parameter_constraints = {
        "a": Positive(),
        "clip": Optional(Positive()),
        "solver": Options(*_SOLVERS),
        "fit_intercept": Boolean(),
    }

    @classmethod
    def _unit_test_params(cls):
        yield {}
        for solver in cls._SOLVERS:     # the intercept column on both solvers (pickle keeps the numbers)
            yield {"solver": solver, "fit_intercept": True}

    def __init__(self, a: float = 1.0, *, clip: float | None = None, solver: str = "cholesky",
                 fit_intercept: bool = False):
        self.a = a
        self.clip = clip
        self.solver = solver
        self.fit_intercept = fit_intercept
        super().__init__()

    def state_nbytes(self, d: int) -> float:
        """Bytes at the peak of a run on inputs of ``d`` features, for a check before any work
        (issue 52): the (n, n) state of either solver, n = d (+ 1 with ``fit_intercept``), and the
        temporaries of a step, 4 n^2 floats in all (measured: 4.4 n^2 at d = 4000)."""
        n = int(d) + int(self.fit_intercept)
        return 4.0 * 8.0 * n * n

    def _reset(self):
        self.b_ = None
        self._reset_totals()

    def _dim(self):
        """d of the raw inputs (without the constant feature of ``fit_intercept``)."""
        return None if self.b_ is None else self.b_.shape[0] - int(self.fit_intercept)

    def _augment(self, X):
        """(x, 1): the algorithm run on inputs with a constant last feature (``fit_intercept``)."""
        if not self.fit_intercept:
            return X
        return np.concatenate([X, np.ones(X.shape[:-1] + (1,))], axis=-1)

    def _check_x(self, x):
        return self._checked(x)[1]

    def _checked(self, x):
        v = check_point(x, self._dim(), "x")
        return v, self._inputs(v)

    def _inputs(self, v):
        """The algorithm's input from the checked x_t (with the constant feature of ``fit_intercept``);
        the state A_0, b_0 is created on the first one."""
        x = self._augment(v)
        if self.b_ is None:  # A_0 = aI, b_0 = 0, sized on the first input
            n = x.shape[0]
            self.b_ = np.zeros(n)
            if self.solver == "cholesky":
                self._Rc = np.zeros((n, n + 1))    # [R_t | c_t]
                self._Rc[:, :n] = math.sqrt(self.a) * np.eye(n)
                self._eye = np.eye(n)
                self._row = np.empty(n + 1)            # the row (x_t', y_t) a step appends
            else:    # the Sherman-Morrison core of omkl_core.vaw, with lam = a
                self._A_inv = np.eye(n) / self.a      # A_0^{-1}
                self._w = np.zeros(n)                 # A_{t-1}^{-1} b_{t-1}
        return x

    def _check_stream(self, X, y):
        X, y = super()._check_stream(X, y)
        self._check_x(X[0])
        return self._augment(X), y

    def _gamma_h(self, x):
        if self.solver == "cholesky":
            n = x.shape[0]
            Rc = self._Rc
            if Rc.flags.f_contiguous and use_numba():  # the compiled step: the same LAPACK call
                z = np.empty(n)
                _trtrs_info(_cholesky.forecast(Rc, x, z, _cholesky.routines()[0]))   # R_{t-1}^{-T} x_t
            else:
                z = _solve_upper_transposed(Rc[:, :n], x)  # R_{t-1}^{-T} x_t
            # (ndarray.dot: matmul's BLAS dot for two vectors, without the ufunc machinery)
            gamma = float(Rc[:, n].dot(z))             # c_{t-1}'R_{t-1}^{-T}x_t = b_{t-1}'A_{t-1}^{-1}x_t
            h = float(z.dot(z))                        # x_t'A_{t-1}^{-1}x_t
            return gamma, h, None
        u, s, r = sm_predict(self._A_inv, self._w, x)  # u = A_{t-1}^{-1} x_t, s = x_t'u
        return float(r), float(s), (u, s, r)           # gamma_t = b_{t-1}' A_{t-1}^{-1} x_t = r

    def _update(self, x, y, gamma, h, cache):
        if self.solver != "cholesky":
            self.b_ += y * x                           # b_t = b_{t-1} + y_t x_t
            # Sherman-Morrison: (A + x x')^{-1} = A^{-1} - A^{-1}x x'A^{-1} / (1 + x'A^{-1}x)
            sm_update(self._A_inv, self._w, *cache, y)
            return
        # [R_t | c_t] = the triangular part of Q'[[R_{t-1}, c_{t-1}], [x_t', y_t]] (Givens
        # rotations, scipy's qr_insert): A_t = R_t'R_t = A_{t-1} + x_t x_t' and
        # R_t'c_t = R_{t-1}'c_{t-1} + y_t x_t = b_t. (Row signs of R_t may flip; z'z and
        # c'z do not depend on them.)
        n = x.shape[0]
        if use_numba():                                # the compiled step: the same LAPACK / BLAS calls
            Rc = np.empty((n, n + 1), order="F")
            _cholesky.update(self._Rc, x, y, self.b_, Rc, *_cholesky.routines()[1:])
            self._Rc = Rc
            return
        self.b_ += y * x                               # b_t = b_{t-1} + y_t x_t
        row = self.__dict__.get("_row")
        if row is None:                                # a learner pickled before the buffer existed
            row = self._row = np.empty(n + 1)
        row[:n] = x
        row[n] = y                                     # the row (x_t', y_t) (qr_insert copies it)
        R = _qr_insert(self._eye, self._Rc, row, n, "row", None, False, False)[1]   # which="row", check_finite=False
        # [R_t | c_t]: R's first n rows, Fortran-ordered (the layout trtrs reads without a copy; a
        # pickled copy keeps it, so the same rounding)
        self._Rc = np.asfortranarray(R[:n])

    @property
    def chol_(self) -> np.ndarray:
        """Upper-triangular factor R_t with R_t'R_t = A_t (``solver="cholesky"``)."""
        if self.solver != "cholesky" or self.b_ is None:
            raise AttributeError("chol_ exists for solver='cholesky' after the first input")
        return self._Rc[:, :-1]

    @property
    def A_inv_(self) -> np.ndarray:
        """A_t^{-1} (state for sherman-morrison; computed from R_t for cholesky)."""
        if self.b_ is None:
            raise AttributeError("A_inv_ is defined after the first input")
        if self.solver == "cholesky":
            Rinv = solve_triangular(self.chol_, np.eye(self.b_.shape[0]), lower=False)
            return Rinv @ Rinv.T
        return self._A_inv

    def _theta(self) -> np.ndarray:
        if self.b_ is None:
            raise AttributeError("coef_ is defined after the first input")
        if self.solver == "cholesky":
            return solve_triangular(self.chol_, self._Rc[:, -1], lower=False)
        return self._w.copy()

    @property
    def coef_(self) -> np.ndarray:
        """theta_T = A_T^{-1} b_T, the minimiser on the right-hand side of (1) (without the
        intercept when ``fit_intercept``)."""
        theta = self._theta()
        return theta[:-1] if self.fit_intercept else theta

    @property
    def intercept_(self) -> float:
        """The coefficient of the constant feature (0.0 unless ``fit_intercept``)."""
        return float(self._theta()[-1]) if self.fit_intercept else 0.0


class BayesianRidge(OnlineRidge):
    r"""Bayesian ridge regression, online: the forecast of a linear model under a Gaussian prior, updated
    step by step (paper 002, section 4, eq. 12).

    Bayesian Ridge Regression (Section 4, eq. (12)) of Zhdanov & Vovk (2009).

    Predicts at step T the normal density N(gamma_T, sigma_T^2) with
    gamma_T = Y_{T-1}' X_{T-1} A_{T-1}^{-1} x_T (= Algorithm 1's prediction) and
    sigma_T^2 = sigma^2 x_T' A_{T-1}^{-1} x_T + sigma^2 (eq. 12). By Lemma 2 this is the
    prediction of the Bayesian Algorithm with Gaussian experts N(theta'x_t, sigma^2) (11)
    and prior N(0, (sigma^2/a) I).

    Theorem 2, eq. (14): ``log_loss_`` = L_T
    = min_theta (L_T(theta) + a/(2 sigma^2) ||theta||^2) + (1/2) ln det(I + (1/a) sum x_t x_t').

    Parameters: ``a`` > 0, ``sigma2`` > 0 (the noise variance sigma^2), ``clip`` as in
    :class:`OnlineRidge` (affects ``predict_one`` only, not the density).
    """

    _bayesian = True

    _parameter_constraints = {"sigma2": Positive()}

    def __init__(self, a: float = 1.0, *, sigma2: float = 1.0, clip: float | None = None,
                 solver: str = "cholesky", fit_intercept: bool = False):
        self.sigma2 = sigma2
        super().__init__(a=a, clip=clip, solver=solver, fit_intercept=fit_intercept)

    @classmethod
    def _unit_test_params(cls):
        yield {"a": 1.0, "sigma2": 0.5}

    def predict_dist(self, x) -> tuple[float, float]:
        """(gamma_T, sigma_T^2) of eq. (12): the mean and variance of the predictive normal."""
        x = self._check_x(x)
        gamma, h, _ = self._gamma_h(x)
        return gamma, self.sigma2 * h + self.sigma2

    def predict_logpdf(self, x, y) -> float:
        """ln g_T(y) = ln N(y; gamma_T, sigma_T^2), eq. (13)."""
        mean, var = self.predict_dist(x)
        return -_gaussian_log_loss(check_scalar(y, "y"), mean, var)
