"""The ridge family of paper 002: F. Zhdanov, V. Vovk, *Competing with Gaussian linear
experts* (2009).

* :class:`OnlineRidge`          -- Algorithm 1 (online Ridge Regression); Theorem 1, eq. (1);
  with ``clip=Y`` the clipped predictions gamma_t^Y of Corollary 1, eq. (2).
* :class:`BayesianRidge`        -- Bayesian Ridge Regression, predictive N(gamma_T, sigma_T^2)
  of eq. (12); Theorem 2, eq. (14).
* :class:`KernelRidge`          -- kernelized Ridge Regression (Section 6),
  gamma_T = Y'_{T-1} (aI + K_{T-1})^{-1} k_T; Theorem 3, eq. (17); Corollary 4, eq. (18).
* :class:`KernelBayesianRidge`  -- kernelized Bayesian Ridge Regression (Section 6),
  N(gamma_T, sigma^2 + sigma^2 (K(x_T, x_T) - k_T'(aI + K_{T-1})^{-1} k_T)/a); Theorem 4.
* :class:`BayesianAlgorithm`    -- Algorithm 2 (the Bayesian Algorithm, the Aggregating
  Algorithm for the log loss with learning rate 1) over a *finite* set of Gaussian linear
  experts (11); Lemma 1, eq. (10).

Every learner is River-style (``predict_one(x) -> float``, ``learn_one(x, y) -> None``) and
also offers ``run(X, y) -> predictions`` (the same loop without per-step validation, used
by :func:`omkl_core.run_online`) and ``trajectory(X, y)`` returning the per-step quantities
the equalities are made of (gamma_t, the denominators 1 + x_t'A_{t-1}^{-1}x_t, ...).

Running totals kept by ``learn_one`` (all learners of the family):

* ``weighted_loss_``  sum_t (y_t - gamma_t)^2 / (1 + x_t'A_{t-1}^{-1}x_t)   -- LHS of (1) / (17)
* ``log_det_``        sum_t ln(1 + x_t'A_{t-1}^{-1}x_t) = ln det(I + (1/a) sum x_t x_t') by (16)
                      (kernel form: ln det(I + K_T/a))
* ``square_loss_``    sum_t (y_t - gamma_t^Y)^2 of the (possibly clipped) predictions
* ``log_loss_``       (Bayesian learners) sum_t -ln N(y_t; gamma_t, sigma_t^2) = L_T of (14)

Linear algebra (``solver``; the same numbers in exact arithmetic). :class:`OnlineRidge`
keeps by default the triangular factor R_t of A_t = R_t'R_t, updated by Givens rotations
(square-root recursive least squares, O(n^2) per step); ``solver="sherman-morrison"``
updates A_t^{-1} by the Sherman-Morrison formula the paper suggests after Algorithm 1.
The kernel learners grow, block by block, either the Cholesky factor of aI + K_t
(default) or the inverse (aI + K_t)^{-1} (``solver="inverse"``, bordering), both through
the Schur complement s_t = a + K(x_t, x_t) - k_t'(aI + K_{t-1})^{-1}k_t, O(t^2) per step and
no refactorisation; s_t / a is exactly the denominator of (17). The factor forms are the
defaults because they keep the equalities to ~1e-9 on ill-conditioned inputs, where the
inverse updates lose digits (tests/test_theory_paper002.py).
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.linalg import blas as _blas
from scipy.linalg import qr_insert, solve_triangular

from .base import OnlineLearner
from .kernels import make_kernel
from .validation import (
    Boolean,
    Check,
    Optional,
    Options,
    Positive,
    check_label,
    check_magnitude,
    check_matrix,
    check_point,
    check_scalar,
    check_vector,
)
from .vaw import sm_predict, sm_update

__all__ = ["OnlineRidge", "BayesianRidge", "KernelRidge", "KernelBayesianRidge",
           "BayesianAlgorithm", "RidgeTrajectory"]

_LOG_2PI = math.log(2.0 * math.pi)


@dataclass
class RidgeTrajectory:
    """Per-step quantities of one pass over a stream (what the paper's equalities sum).

    Attributes
    ----------
    gamma : ndarray of shape (T,)
        The unclipped predictions gamma_t (the means of the predictive distributions for the
        Bayesian learners).
    prediction : ndarray of shape (T,)
        What ``predict_one`` returned (gamma_t^Y when ``clip`` is set).
    denominator : ndarray of shape (T,)
        1 + x_t'A_{t-1}^{-1}x_t (kernel form 1 + (K(x_t,x_t) - k_t'(aI+K_{t-1})^{-1}k_t)/a).
    variance : ndarray of shape (T,)
        sigma_t^2 = sigma^2 * denominator (Bayesian learners, else NaN).
    log_loss : ndarray of shape (T,)
        -ln N(y_t; gamma_t, sigma_t^2) (Bayesian learners, else NaN).
    """

    gamma: np.ndarray
    prediction: np.ndarray
    denominator: np.ndarray
    variance: np.ndarray
    log_loss: np.ndarray

    def cumulative(self, y) -> dict:
        """Running sums over T of the terms of (1), (2), (14), (16): a dict of (T,) arrays
        ``weighted_loss``, ``square_loss`` (of ``prediction``), ``log_det`` and ``log_loss``."""
        y = np.asarray(y, dtype=np.float64)
        return {
            "weighted_loss": np.cumsum((y - self.gamma) ** 2 / self.denominator),
            "square_loss": np.cumsum((y - self.prediction) ** 2),
            "log_det": np.cumsum(np.log(self.denominator)),
            "log_loss": np.cumsum(self.log_loss),
        }


def _gaussian_log_loss(y: float, mean: float, var: float) -> float:
    """-ln N(y; mean, var) (the logarithmic loss of a normal density, Section 3)."""
    return 0.5 * (_LOG_2PI + math.log(var)) + (y - mean) ** 2 / (2.0 * var)


def _check_kernel(value, name):
    if value is None:
        raise TypeError(f"{name} is required (a Kernel object, a kernel name or a callable k(x, x'))")
    try:
        make_kernel(value)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{name}: {exc}") from None


class _RidgeBase(OnlineLearner):
    """Shared driver: validation, running totals, ``run`` and ``trajectory``."""

    _bayesian = False

    def _reset_totals(self):
        self.weighted_loss_ = 0.0
        self.square_loss_ = 0.0
        self.log_det_ = 0.0
        self.log_loss_ = 0.0

    def _clip(self, gamma: float) -> float:
        if self.clip is None:
            return gamma
        return min(max(gamma, -self.clip), self.clip)

    # subclasses implement: _check_x(x) -> validated x; _gamma_h(x) -> (gamma, h, cache)
    # with denominator 1 + h; _update(x, y, gamma, h, cache).

    def predict_one(self, x) -> float:
        """gamma_t (clipped to [-clip, clip] if ``clip`` is set), before y_t is revealed."""
        x = self._check_x(x)
        gamma, h, cache = self._gamma_h(x)
        self._forecast = (self.t_, np.array(x, copy=True), (gamma, h, cache))   # reused by learn_one on the same x
        return self._clip(gamma)

    def learn_one(self, x, y) -> None:
        """Reveal y_t for input x_t: accumulate the loss terms, then update the state (from
        ``predict_one``'s gamma_t and h_t when it saw the same x_t at this step)."""
        x = self._check_x(x)
        y = check_label(y, "y")
        f, self._forecast = getattr(self, "_forecast", None), None
        self._step(x, y, f[2] if f is not None and f[0] == self.t_ and np.array_equal(f[1], x) else None)

    def _step(self, x, y, forecast=None):
        self._forecast = None
        gamma, h, cache = self._gamma_h(x) if forecast is None else forecast
        den = 1.0 + h
        if not den > 0.0 or not math.isfinite(den):
            raise FloatingPointError(f"non-positive denominator 1 + x'A^-1 x = {den!r} at step {self.t_ + 1}: "
                                     "the (kernel) matrix lost positive definiteness")
        try:
            e = y - gamma
            self.weighted_loss_ += e * e / den
            self.square_loss_ += (y - self._clip(gamma)) ** 2
            self.log_det_ += math.log1p(h)
            ll = math.nan
            if self._bayesian:
                ll = _gaussian_log_loss(y, gamma, self.sigma2 * den)
                self.log_loss_ += ll
        except OverflowError:
            raise OverflowError(f"y = {y:.3g} at step {self.t_ + 1} (prediction gamma = {gamma:.3g}): the squared "
                                "error (y - gamma)^2 overflows float64; rescale y (e.g. "
                                "omkl_core.datasets.normalise_stream)") from None
        self._update(x, y, gamma, h, cache)
        self.t_ += 1
        return gamma, den, ll

    def _check_stream(self, X, y):
        X = check_matrix(X, "X")
        y = check_vector(y, "y", length=X.shape[0])
        check_magnitude(X, "X")
        check_magnitude(y, "y")
        d = self._dim()
        if d is not None and X.shape[1] != d:
            raise ValueError(f"X has {X.shape[1]} columns, the learner has seen d={d}")
        return X, y

    def trajectory(self, X, y) -> RidgeTrajectory:
        """Run predict-then-learn over (X, y) from the current state; return per-step terms."""
        X, y = self._check_stream(X, y)
        T = X.shape[0]
        gam, den, ll = np.empty(T), np.empty(T), np.full(T, np.nan)
        for t in range(T):
            gam[t], den[t], ll[t] = self._step(X[t], float(y[t]))
        pred = gam if self.clip is None else np.clip(gam, -self.clip, self.clip)
        var = self.sigma2 * den if self._bayesian else np.full(T, np.nan)
        return RidgeTrajectory(gamma=gam, prediction=pred, denominator=den, variance=var, log_loss=ll)

    def run(self, X, y) -> np.ndarray:
        """Predictions of the online pass over (X, y) (same numbers as the predict/learn loop)."""
        return self.trajectory(X, y).prediction


class OnlineRidge(_RidgeBase):
    r"""Online Ridge Regression -- Algorithm 1 of Zhdanov & Vovk (2009).

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
          forecaster (:func:`omkl_core.vaw.sm_update`, paper 000 eq. (10); ``a`` is its lambda).

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
        x = self._augment(check_point(x, self._dim(), "x"))
        if self.b_ is None:  # A_0 = aI, b_0 = 0, sized on the first input
            n = x.shape[0]
            self.b_ = np.zeros(n)
            if self.solver == "cholesky":
                self._Rc = np.zeros((n, n + 1))    # [R_t | c_t]
                self._Rc[:, :n] = math.sqrt(self.a) * np.eye(n)
                self._eye = np.eye(n)
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
            z = solve_triangular(self._Rc[:, :n], x, trans="T", lower=False, check_finite=False)
            gamma = float(self._Rc[:, n] @ z)          # c_{t-1}'R_{t-1}^{-T}x_t = b_{t-1}'A_{t-1}^{-1}x_t
            h = float(z @ z)                           # x_t'A_{t-1}^{-1}x_t
            return gamma, h, None
        u, s, r = sm_predict(self._A_inv, self._w, x)  # u = A_{t-1}^{-1} x_t, s = x_t'u
        return float(r), float(s), (u, s, r)           # gamma_t = b_{t-1}' A_{t-1}^{-1} x_t = r

    def _update(self, x, y, gamma, h, cache):
        self.b_ += y * x                               # b_t = b_{t-1} + y_t x_t
        if self.solver == "cholesky":
            # [R_t | c_t] = the triangular part of Q'[[R_{t-1}, c_{t-1}], [x_t', y_t]] (Givens
            # rotations, scipy's qr_insert): A_t = R_t'R_t = A_{t-1} + x_t x_t' and
            # R_t'c_t = R_{t-1}'c_{t-1} + y_t x_t = b_t. (Row signs of R_t may flip; z'z and
            # c'z do not depend on them.)
            n = x.shape[0]
            R = qr_insert(self._eye, self._Rc, np.append(x, y), n, which="row", check_finite=False)[1]
            self._Rc = np.asfortranarray(R[:n])   # contiguous: a pickled copy keeps the layout (same rounding)
            return
        # Sherman-Morrison: (A + x x')^{-1} = A^{-1} - A^{-1}x x'A^{-1} / (1 + x'A^{-1}x)
        sm_update(self._A_inv, self._w, *cache, y)

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
    r"""Bayesian Ridge Regression (Section 4, eq. (12)) of Zhdanov & Vovk (2009).

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


class KernelRidge(_RidgeBase):
    r"""Kernelized Ridge Regression (Section 6 of Zhdanov & Vovk, 2009).

    gamma_T = Y_{T-1}' (aI + K_{T-1})^{-1} k_T with K_{T-1} = [K(x_i, x_j)]_{i,j<T} and
    k_T = [K(x_i, x_T)]_{i<T}.

    Theorem 3, eq. (17): sum_t (y_t - gamma_t)^2 / (1 + (K(x_t,x_t) - k_t'(aI+K_{t-1})^{-1}k_t)/a)
    = min_{f in F} (sum_t (y_t - f(x_t))^2 + a ||f||_F^2).

    Incremental linear algebra (``solver``), both O(t^2) per step without refactorisation,
    both built on the Schur complement s_t = a + K(x_t,x_t) - k_t'(aI + K_{t-1})^{-1}k_t
    = a * (the denominator of (17)):

    * ``"inverse"``: M_t^{-1} = (aI + K_t)^{-1} grown by bordering. With v = M_{t-1}^{-1}k_t,
      M_t^{-1} = [[M_{t-1}^{-1} + v v'/s_t, -v/s_t], [-v'/s_t, 1/s_t]], and the dual
      coefficients alpha_t = M_t^{-1}Y_t = [alpha_{t-1} - v e_t/s_t ; e_t/s_t], e_t = y_t - gamma_t.
    * ``"cholesky"`` (default): the Cholesky factor L_t (L_t L_t' = aI + K_t) grown by the
      same block step: l = L_{t-1}^{-1}k_t, s_t = a + K(x_t,x_t) - l'l,
      L_t = [[L_{t-1}, 0], [l', sqrt(s_t)]]; with z_t = L_t^{-1}Y_t = [z_{t-1}; e_t/sqrt(s_t)]
      the prediction is gamma_t = l'z_{t-1}. Same numbers in exact arithmetic; it keeps (17)
      to ~1e-9 when aI + K_t is ill-conditioned (tiny a, near-duplicate inputs), where the
      bordered inverse loses digits (it can even make s_t negative).

    The learned function after T steps is f_T(x) = sum_i alpha_i K(x_i, x) (what
    ``predict_one`` returns, ``alpha_`` = (aI + K_T)^{-1}Y_T), the minimiser of
    sum_t (y_t - f(x_t))^2 + a||f||^2.

    Parameters
    ----------
    a : float, default=1.0
        The ridge parameter a > 0.
    kernel : Kernel, str or callable
        Required: a :class:`omkl_core.kernels.Kernel` (``Gaussian(sigma)``, ``Laplacian(sigma)``,
        ``Polynomial(degree, c)``, ``Linear()``), a kernel name, or any callable
        k(x, x') -> float (evaluated pair by pair, i.e. slowly).
    clip : float or None, default=None
        Y > 0 of Corollary 4: ``predict_one`` returns gamma_t^Y (eq. 18).
    solver : {"cholesky", "inverse"}, default="cholesky"
        Cholesky factor or bordered inverse (above).

    Attributes
    ----------
    X_ : ndarray of shape (t, d)
        Inputs seen.
    alpha_ : ndarray of shape (t,)
        Dual coefficients (aI + K_t)^{-1} Y_t.
    M_inv_ : ndarray of shape (t, t)
        (aI + K_t)^{-1} (state for "inverse", computed on demand for "cholesky").
    L_ : ndarray of shape (t, t)
        The Cholesky factor (``solver="cholesky"``), with the running totals of the module docstring.

    Examples
    --------
    Theorem 3, eq. (17): the weighted square loss of kernel ridge equals the batch minimum
    Y'(I + K/a)^{-1}Y:

    >>> import numpy as np, omkl_core as ok
    >>> rng = np.random.default_rng(1)
    >>> X = rng.uniform(-1, 1, size=(40, 2)); y = np.sin(3 * X[:, 0])
    >>> model = ok.KernelRidge(0.5, ok.kernels.Gaussian(0.7))
    >>> trace = ok.run_online(model, X, y)
    >>> K = ok.kernels.kernel_matrix(ok.kernels.Gaussian(0.7), X)
    >>> rhs = y @ np.linalg.solve(np.eye(40) + K / 0.5, y)
    >>> bool(np.isclose(model.weighted_loss_, rhs, rtol=1e-9))
    True
    """

    _SOLVERS = ("cholesky", "inverse")
    _parameter_constraints = {
        "a": Positive(),
        "kernel": Check(_check_kernel, invalid=[None, 3.0, "no-such-kernel"]),
        "clip": Optional(Positive()),
        "solver": Options(*_SOLVERS),
    }

    @classmethod
    def _unit_test_params(cls):
        from .kernels import Gaussian  # noqa: PLC0415
        yield {"a": 1.0, "kernel": Gaussian(0.7)}

    def __init__(self, a: float = 1.0, kernel=None, *, clip: float | None = None, solver: str = "cholesky"):
        self.a = a
        self.kernel = kernel
        self.clip = clip
        self.solver = solver
        super().__init__()

    def _reset(self):
        self._kern = make_kernel(self.kernel)
        self._Xbuf = None     # rows 0..t-1: the inputs seen
        self._Fbuf = None     # packed: columns of M_t^{-1} ("inverse") / rows of L_t ("cholesky")
        self._vbuf = None     # [:t]: alpha_t ("inverse") or z_t ("cholesky")
        self._reset_totals()

    def _dim(self):
        return None if self._Xbuf is None else self._Xbuf.shape[1]

    #: A stream is "long" when its total cost passes either estimate (then one warning).
    LONG_STREAM_FLOPS = 6e10    # ~ a minute at ~1 GFLOP/s
    LONG_STREAM_BYTES = 1e9

    @classmethod
    def cost_estimate(cls, T: int) -> tuple[float, float]:
        """(flops, bytes) of T steps: the triangular solves cost sum_t t^2 ~ T^3/3 flops,
        the packed factor holds T(T+1)/2 float64 (O(T^3) time, O(T^2) memory)."""
        return T ** 3 / 3.0, 8.0 * T * (T + 1) / 2.0

    def _warn_long(self, T: int) -> None:
        if getattr(self, "_long_warned", False):
            return
        flops, nbytes = self.cost_estimate(T)
        if flops > self.LONG_STREAM_FLOPS or nbytes > self.LONG_STREAM_BYTES:
            self._long_warned = True
            warnings.warn(f"{type(self).__name__}: a stream of T={T} steps costs O(T^3) time and O(T^2) memory: "
                          f"about {flops:.2g} flops (minutes at ~1 GFLOP/s: ~{flops / 1e9 / 60:.2g} min) and "
                          f"{nbytes / 1e9:.2g} GB for the factor of aI + K_T; consider a random-feature learner "
                          "(OnlineRidge on features, VAW2) for long streams", RuntimeWarning, stacklevel=4)

    def _check_stream(self, X, y):
        X, y = super()._check_stream(X, y)
        self._warn_long(self.t_ + X.shape[0])
        return X, y

    def _check_x(self, x):
        if self.t_ >= 1024 and self.t_ % 1024 == 0:   # one-step use: check as the stream grows
            self._warn_long(self.t_ + 1)
        return check_point(x, self._dim(), "x")

    @property
    def X_(self) -> np.ndarray:
        if self._Xbuf is None:
            raise AttributeError("X_ is defined after the first learn_one")
        return self._Xbuf[:self.t_]

    @property
    def L_(self) -> np.ndarray:
        """Lower-triangular L_t with L_t L_t' = aI + K_t (``solver="cholesky"``)."""
        if self.solver != "cholesky" or self._Fbuf is None:
            raise AttributeError("L_ exists for solver='cholesky' after the first learn_one")
        t = self.t_
        L = np.zeros((t, t))
        L[np.tril_indices(t)] = self._Fbuf[:t * (t + 1) // 2]   # row-major packed rows
        return L

    @property
    def M_inv_(self) -> np.ndarray:
        """(aI + K_t)^{-1}."""
        if self._Fbuf is None:
            raise AttributeError("M_inv_ is defined after the first learn_one")
        t = self.t_
        if self.solver == "inverse":                  # unpack the upper triangle, symmetrise
            U = np.zeros((t, t))
            U.T[np.tril_indices(t)] = self._Fbuf[:t * (t + 1) // 2]
            return U + np.triu(U, 1).T
        Linv = solve_triangular(self.L_, np.eye(t), lower=True)
        return Linv.T @ Linv

    @property
    def alpha_(self) -> np.ndarray:
        """Dual coefficients (aI + K_t)^{-1} Y_t of f_t = sum_i alpha_i K(x_i, .)."""
        if self._vbuf is None:
            raise AttributeError("alpha_ is defined after the first learn_one")
        v = self._vbuf[:self.t_]
        if self.solver == "inverse":
            return v
        t = self.t_
        return _blas.dtpsv(t, self._Fbuf[:t * (t + 1) // 2], v, lower=0, trans=0)   # L_t' alpha = z_t

    def _kvec(self, x):
        """k_t = [K(x_i, x)]_{i < t} and K(x, x)."""
        kxx = float(self._kern(x, x))
        if not math.isfinite(kxx):
            raise FloatingPointError(f"kernel returned {kxx!r} for K(x, x)")
        if self.t_ == 0:
            return np.empty(0), kxx
        k = np.asarray(self._kern.matrix(self.X_, x[None, :]), dtype=np.float64).reshape(-1)
        if not np.all(np.isfinite(k)):
            raise FloatingPointError("kernel returned a non-finite value")
        return k, kxx

    def _gamma_h(self, x):
        k, kxx = self._kvec(x)
        t = self.t_
        if t == 0:                                    # k_1'(aI + K_0)^{-1} k_1 := 0
            return 0.0, kxx / self.a, None
        w = self._vbuf[:t]
        if self.solver == "inverse":
            v = _blas.dspmv(t, 1.0, self._Fbuf[:t * (t + 1) // 2], k)   # (aI + K_{t-1})^{-1} k_t
            gamma = float(w @ k)                      # Y_{t-1}'(aI + K_{t-1})^{-1} k_t
            h = (kxx - float(k @ v)) / self.a         # (K(x_t,x_t) - k_t'(aI+K_{t-1})^{-1}k_t)/a
            return gamma, h, v
        # L_{t-1}^{-1} k_t: the packed rows of L are the packed columns of the upper-triangular
        # U = L' (BLAS column-major packed storage), so L l = k is U' l = k (tpsv, trans=1).
        l = _blas.dtpsv(t, self._Fbuf[:t * (t + 1) // 2], k, lower=0, trans=1)
        gamma = float(l @ w)                          # (L^{-1}k_t)'(L^{-1}Y_{t-1})
        h = (kxx - float(l @ l)) / self.a
        return gamma, h, l

    def _new_factor(self, cap):
        # BLAS packed storage, so that growing by one row/column appends at the end:
        # "inverse": upper triangle of the symmetric M_t^{-1} column by column (column j:
        # M[0..j, j]); "cholesky": L_t row by row (row i: L[i, 0..i]).
        return np.zeros(cap * (cap + 1) // 2)

    def _grow(self, d):
        t = self.t_
        if self._Xbuf is None:
            cap = 16
            self._Xbuf, self._Fbuf, self._vbuf = np.empty((cap, d)), self._new_factor(cap), np.empty(cap)
        elif t == self._Xbuf.shape[0]:                # double the buffers (amortised O(t^2))
            cap = 2 * t
            Xb, Fb, vb = np.empty((cap, d)), self._new_factor(cap), np.empty(cap)
            Xb[:t], vb[:t] = self._Xbuf, self._vbuf
            Fb[:t * (t + 1) // 2] = self._Fbuf[:t * (t + 1) // 2]
            self._Xbuf, self._Fbuf, self._vbuf = Xb, Fb, vb

    def _update(self, x, y, gamma, h, v):
        t = self.t_
        self._grow(x.shape[0])
        s = self.a * (1.0 + h)                        # Schur complement a + K(x,x) - k'M^{-1}k
        e = y - gamma                                 # y_t - gamma_t
        self._Xbuf[t] = x
        F, w = self._Fbuf, self._vbuf
        off = t * (t + 1) // 2
        if self.solver == "inverse":
            if t:
                u = v / s
                _blas.dspr(t, 1.0 / s, v, F[:off], overwrite_ap=1)   # M_{t-1}^{-1} + v v'/s, in place
                F[off:off + t] = -u                   # new column (-v/s; 1/s)
                w[:t] -= u * e                        # alpha_{t-1} - v e_t / s
            F[off + t] = 1.0 / s
            w[t] = e / s
        else:
            r = math.sqrt(s)
            F[off:off + t] = v                        # new row (l', sqrt(s_t)) of L_t
            F[off + t] = r
            w[t] = e / r                              # z_t = [z_{t-1}; e_t/sqrt(s_t)]

    def decision_function(self, X) -> np.ndarray:
        """f_T(x) = sum_i alpha_i K(x_i, x) for each row of X (0 before any learning)."""
        X = check_matrix(X, "X")
        d = self._dim()
        if d is not None and X.shape[1] != d:
            raise ValueError(f"X has {X.shape[1]} columns, the learner has seen d={d}")
        if self.t_ == 0:
            return np.zeros(X.shape[0])
        return np.asarray(self._kern.matrix(X, self.X_), dtype=np.float64) @ self.alpha_


class KernelBayesianRidge(KernelRidge):
    r"""Kernelized Bayesian Ridge Regression (Section 6 of Zhdanov & Vovk, 2009).

    At step T predicts N(gamma_T, sigma^2 + sigma^2 (K(x_T,x_T) - k_T'(aI + K_{T-1})^{-1}k_T)/a)
    with gamma_T of :class:`KernelRidge`.

    Theorem 4: ``log_loss_`` = L_T = min_{f in F} (L_T(f) + a/(2 sigma^2)||f||_F^2)
    + (1/2) ln det(I + K_T/a).
    """

    _bayesian = True

    _parameter_constraints = {"sigma2": Positive()}

    @classmethod
    def _unit_test_params(cls):
        from .kernels import Laplacian  # noqa: PLC0415
        yield {"a": 1.0, "sigma2": 0.5, "kernel": Laplacian(1.0)}

    def __init__(self, a: float = 1.0, kernel=None, *, sigma2: float = 1.0, clip: float | None = None,
                 solver: str = "cholesky"):
        self.sigma2 = sigma2
        super().__init__(a=a, kernel=kernel, clip=clip, solver=solver)

    def predict_dist(self, x) -> tuple[float, float]:
        """(gamma_T, sigma^2 + sigma^2 (K(x_T,x_T) - k_T'(aI + K_{T-1})^{-1}k_T)/a)."""
        x = self._check_x(x)
        gamma, h, _ = self._gamma_h(x)
        return gamma, self.sigma2 + self.sigma2 * h

    def predict_logpdf(self, x, y) -> float:
        """ln of the predictive normal density at y."""
        mean, var = self.predict_dist(x)
        return -_gaussian_log_loss(check_scalar(y, "y"), mean, var)


def _check_prior(value, name):
    if value is not None:
        p = check_vector(value, name)
        if np.any(p <= 0) or abs(p.sum() - 1.0) > 1e-12:
            raise ValueError(f"{name} must be positive weights summing to 1")


class BayesianAlgorithm(OnlineLearner):
    r"""The Bayesian Algorithm (Algorithm 2 of Zhdanov & Vovk, 2009) over a finite set of
    Gaussian linear experts.

    Experts theta_k (k = 1..K) predict the densities xi_t^theta(y) = N(y; theta'x_t, sigma^2)
    of eq. (11); the prior P_0 puts weight ``prior[k]`` on theta_k. At step t the learner
    predicts the mixture g_t = sum_k xi_t^{theta_k} P_{t-1}^*(theta_k) (eq. 9) and updates
    P_t(theta) = xi_t^theta(y_t) P_{t-1}(theta) (kept as log-weights, normalised).

    Lemma 1, eq. (10): ``log_loss_`` = L_T = -ln sum_k e^{-L_T(theta_k)} P_0(theta_k),
    with ``expert_log_loss_`` = (L_T(theta_k))_k.

    Parameters
    ----------
    thetas : (K, n) array of the experts' parameters theta_k.
    sigma2 : float > 0, the experts' noise variance.
    prior : (K,) positive weights summing to 1, or None for uniform.
    """

    _parameter_constraints = {
        "thetas": Check(check_matrix, invalid=[[[np.nan]], [1.0, 2.0], "theta"]),
        "sigma2": Positive(),
        "prior": Check(_check_prior, invalid=[[2.0, -1.0, 0.0], [0.5, 0.5, 0.5]]),
    }

    @classmethod
    def _unit_test_params(cls):
        yield {"thetas": np.array([[0.2, -0.1, 0.3], [0.0, 0.5, -0.2], [0.4, 0.4, 0.0]]), "sigma2": 0.5}

    def __init__(self, thetas, *, sigma2: float = 1.0, prior=None):
        self.thetas = thetas
        self.sigma2 = sigma2
        self.prior = prior
        super().__init__()

    def _validate_joint(self):
        K = check_matrix(self.thetas, "thetas").shape[0]
        if self.prior is not None:
            check_vector(self.prior, "prior", length=K)

    def _reset(self):
        self._thetas = check_matrix(self.thetas, "thetas")
        K = self._thetas.shape[0]
        prior = np.full(K, 1.0 / K) if self.prior is None else check_vector(self.prior, "prior", length=K)
        self.log_weights_ = np.log(prior)           # ln P_t^*(theta_k)
        self.expert_log_loss_ = np.zeros(K)         # L_t(theta_k)
        self.log_loss_ = 0.0                        # L_t

    @property
    def weights_(self) -> np.ndarray:
        """P_t^*(theta_k): the normalised weights the next prediction uses (eq. 8)."""
        return np.exp(self.log_weights_)

    def _expert_logpdf(self, x, y) -> np.ndarray:
        mu = self._thetas @ x                        # theta_k' x_t, all experts at once
        return -0.5 * (_LOG_2PI + math.log(self.sigma2)) - (y - mu) ** 2 / (2.0 * self.sigma2)

    def _x(self, x):
        return check_point(x, self._thetas.shape[1], "x")

    def predict_logpdf(self, x, y) -> float:
        """ln g_t(y) = ln sum_k P_{t-1}^*(theta_k) xi_t^{theta_k}(y), eq. (9)."""
        x = self._x(x)
        y = check_scalar(y, "y")
        z = self.log_weights_ + self._expert_logpdf(x, y)
        m = z.max()
        return float(m + math.log(np.exp(z - m).sum()))

    def predict_one(self, x) -> float:
        """The mean of the mixture g_t (a point forecast)."""
        x = self._x(x)
        w = np.exp(self.log_weights_ - self.log_weights_.max())
        return float((w / w.sum()) @ (self._thetas @ x))

    def learn_one(self, x, y) -> None:
        x = self._x(x)
        y = check_label(y, "y")
        lp = self._expert_logpdf(x, y)              # ln xi_t^theta(y_t) = -lambda(xi_t^theta, y_t)
        # the weights use only differences of ln xi between experts (the common part cancels in the
        # normalisation): at tiny sigma2 the common part is ~ -1e300 and absorbs ln(sum) or overflows
        # to -inf for every expert (nan weights before); -(q_k - q_min)/(2 sigma2) keeps the best expert at 0
        q = (y - self._thetas @ x) ** 2
        rel = self.log_weights_ - (q - q.min()) / (2.0 * self.sigma2)
        m = rel.max()
        log_sum = math.log(np.exp(rel - m).sum())
        log_s = m + log_sum
        log_g = float(-0.5 * (_LOG_2PI + math.log(self.sigma2)) - q.min() / (2.0 * self.sigma2) + log_s)  # ln g_t(y_t)
        self.log_loss_ -= log_g                     # L_t = L_{t-1} + lambda(g_t, y_t)
        self.expert_log_loss_ -= lp
        self.log_weights_ = (rel - m) - log_sum     # P_t^* = xi_t^theta(y_t) P_{t-1}^* / g_t(y_t)
        self.t_ += 1
