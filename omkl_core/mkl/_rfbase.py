"""Shared machinery of the random-feature multi-kernel learners of paper 003 and its baselines
(Raker, OMKL-GF, SFG-MKL, SFG-MKL-R).

Every learner holds R independent repetitions (independent random features and node draws)
as one batched state, so ``run_repetitions(X, y, R)`` (a fresh start: R new runs) costs one
Python loop over time for all R runs; ``predict_one`` / ``learn_one`` / ``run`` are the R = 1
case of the same code and, like every learner's, continue from the current state.

Random features (paper 003 eq. 4, reference E.2): kernel i of repetition r has frequencies
Omega_{r,i} (d, D); z_i(x) = D^{-1/2}[sin(x Omega), cos(x Omega)] in R^{2D}. Repetition r's
dictionary is the r-th :class:`~omkl_core.features.KernelDictionary` (map "sincos") drawn from
``backend.host_rng(seed)``; the node / edge draws of the learners then continue on the same
Generator (one uniform per repetition and draw, in repetition order).

Per-kernel loss (eq. 5 with the square loss and Omega(|theta|^2) = |theta|^2):
L(theta' z, y) = (theta' z - y)^2 + lam |theta|^2, gradient 2 (theta' z - y) z + 2 lam theta,
both at theta_{i,t} (before the step), as in the text.

Engines (:mod:`omkl_core.compiled`): ``run`` / ``run_repetitions`` go through one compiled loop over
the whole stream (:mod:`._kernels`) on the ``"numba"`` engine, through the NumPy step below, one
batched step at a time, on the ``"numpy"`` engine (the reference; ``predict_one`` / ``learn_one``
always take it). The compiled loop draws the same uniforms from the same Generator in the same
order (all of a block of steps at once, laid out per step as the NumPy step draws them) and agrees
with the NumPy step to rounding.
"""
from __future__ import annotations

import copy
import warnings

import numpy as np

from .. import backend as _backend
from ..base import OnlineLearner
from ..compiled import use_numba
from ..cosine import mkl_sincos
from ..features import KernelDictionary, dictionary_spec
from ..progress import progress_bar, progress_iter
from ..validation import (
    Check,
    Integer,
    NonNegative,
    Options,
    Positive,
    Seed,
    check_int,
    check_label,
    check_matrix,
    check_point,
    check_state_array,
    check_vector,
)

__all__ = ["draw_nodes", "SCHEDULES"]

#: step-size schedules: "constant" (paper 003 section 5: eta = xi = 1/sqrt(T)) or
#: "inv_sqrt_t" (the authors' code, reference D.1/E.4: eta_t = eta / sqrt(t), xi_t = xi / sqrt(t)).
SCHEDULES = ("constant", "inv_sqrt_t")

#: Above this |omega'x| float64 rounds the random features' argument by more than 1e-9
#: (1e-9 / eps = 4.5e6): sin / cos of it, and the engines' forecasts, then differ beyond 1e-9
#: (issue 52 item 7d); :meth:`_RFLearner._warn_scale` warns once.
ARGUMENT_LIMIT = 1e-9 / float(np.finfo(np.float64).eps)


def draw_nodes(p: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Inverse-CDF draw: for each row r, the index j with cumsum(p_r)[j-1] <= u_r * sum(p_r) <
    cumsum(p_r)[j] (so index j has probability exactly p_rj / sum p_r for u ~ U[0, 1)).

    ``p`` (R, N) non-negative, ``u`` (R,) or (R, k) uniforms; returns int indices of u's shape.
    """
    c = np.cumsum(p, axis=-1)
    u = np.asarray(u)
    target = (u if u.ndim == 2 else u[:, None]) * c[:, -1:]
    idx = (c[:, None, :] <= target[..., None]).sum(axis=-1)    # number of cdf points <= target
    idx = np.minimum(idx, p.shape[1] - 1)                      # u * sum == sum only by round-off
    return idx if u.ndim == 2 else idx[:, 0]


def _dictionary_spec(dictionary):
    return dictionary_spec(dictionary, "003")


def _check_dictionary(value, name):
    dictionary_spec(value, "003")


#: most uniforms drawn ahead for one block of the compiled loop (32 MB): longer streams run in blocks
UNIFORMS_PER_BLOCK = 1 << 22


def _uniform_rows(rng, counts):
    """Each step's uniforms as one row (step t: ``counts[t]`` of them, the rest of the row 0), drawn by
    one ``rng.random`` call: the numbers, in the order, of one call per step with ``counts[t]`` each."""
    width = int(counts.max()) if counts.size else 0
    U = np.zeros((counts.size, max(width, 1)))
    total = int(counts.sum())
    if total:
        U[np.arange(width)[None, :] < counts[:, None]] = rng.random(total)
    return U


def _softmax_masked(logw, valid):
    """Normalised weights exp(logw) over the valid entries of each row (0 elsewhere)."""
    lw = np.where(valid, logw, -np.inf)
    lw = lw - lw.max(axis=-1, keepdims=True)
    w = np.exp(lw)
    return w / w.sum(axis=-1, keepdims=True)


class _Step:
    """What one step computed (diagnostics for tests and notebooks; arrays over R repetitions).

    idx (R, K) kernels evaluated this step (padded), valid (R, K) which of them are in S_t,
    z (R, K, 2D) their features, f (R, K) their predictions theta' z, weights (R, K) the
    normalised combination weights, yhat (R,) the prediction; subclasses add p, q, node.
    After ``learn``: loss (R, K) per-kernel losses L, ell (R, N) the kernel loss estimates
    (0 outside S_t), grad (R, K, 2D) the gradient actually stepped (importance weighted).
    After a compiled ``run`` (engine "numba") only yhat (and node; p, q for SFG-MKL(-R)) of the
    last step are kept, with ``compiled=True``.
    """

    def __init__(self, **kw):
        self.__dict__.update(kw)


class _RFLearner(OnlineLearner):
    """Base class: parameters, lazy feature draw, batched state and the online protocol."""

    _parameter_constraints = {
        "m": Integer(1),
        "lam": NonNegative(),
        "eta": Positive(),
        "schedule": Options(*SCHEDULES),
        "seed": Seed(),
        "dictionary": Check(_check_dictionary, invalid=[3, "gaussian", ("gaussian",)]),
    }

    @classmethod
    def _unit_test_params(cls):
        yield {"m": 4, "eta": 0.2, "seed": 3}

    def __init__(self, *, m=50, lam=1e-3, eta=0.05, schedule="constant", seed=0, dictionary=None):
        self.m = m
        self.lam = lam
        self.eta = eta
        self.schedule = schedule
        self.seed = seed
        self.dictionary = dictionary
        super().__init__()

    def _reset(self):
        """Forget everything learned (the same seed redraws the same features and nodes)."""
        self.dictionaries_ = None
        self.state_ = None
        self.last_step_ = None
        self._pending = None

    # ------------------------------------------------------------------ set-up
    def _init(self, d: int, R: int):
        rng = _backend.host_rng(self.seed)
        kinds, sigmas = _dictionary_spec(self.dictionary)
        self.dictionaries_ = [KernelDictionary(kinds, sigmas, d=d, m=self.m, seed=rng, feature_map="sincos").reset()
                              for _ in range(R)]          # reset(): drawn now, before the learner's own draws
        self.kinds_, self.sigmas_ = kinds, sigmas
        self.N_ = len(kinds)
        self.d_ = d
        self.n_repetitions_ = R
        self._rng = rng
        # (R, N, D, d): z for a subset is one batched matmul Omega[r, idx] @ x
        self._OmegaT = np.ascontiguousarray(np.stack([D.omega_ for D in self.dictionaries_]).transpose(0, 1, 3, 2))
        self._Omega = None                                    # (R, N, d, D) for the compiled loop, made on first use
        self._omega_norm = float(np.sqrt(np.einsum("rkmd,rkmd->rkm", self._OmegaT, self._OmegaT)).max(initial=0.0))
        self._scale_warned = False
        self.theta_ = np.zeros((R, self.N_, 2 * self.m))      # theta_{i,1} = 0
        self.log_w_ = np.zeros((R, self.N_))                  # ln w_{i,1} = 0
        self.t_ = 0
        self._rows = np.arange(R)
        self._init_extra(d, R)

    def _init_extra(self, d, R):
        pass

    def _check_state(self):
        """Refuse (ValueError naming it) a learned state or parameter that the loops would index out
        of bounds -- an attribute written from outside: called before every step and every ``run``, on
        both engines, before the state changes (the compiled loops index without bounds checks)."""
        owner, R = type(self).__name__, self.n_repetitions_
        check_state_array(owner, "theta_", self.theta_, (R, self.N_, 2 * self.m))
        check_state_array(owner, "log_w_", self.log_w_, (R, self.N_))

    def _rates(self):
        """(eta_t, xi_t) for the step about to be taken (t = t_ + 1)."""
        if self.schedule == "constant":
            return self.eta, getattr(self, "xi", None)
        s = 1.0 / np.sqrt(self.t_ + 1)
        xi = getattr(self, "xi", None)
        return self.eta * s, (None if xi is None else xi * s)

    def _features(self, x, idx):
        """z_i(x) for the kernels idx (R, K) of each repetition -> (R, K, 2D) (eq. 4)."""
        # einsum, not BLAS: a threaded GEMV of this size is slower on a loaded machine
        if idx is getattr(self, "_all", None):                      # every kernel: no gather copy
            proj = np.einsum("rkmd,d->rkm", self._OmegaT, x)
        else:                                                       # only the subset S_t
            proj = np.einsum("rkmd,d->rkm", self._OmegaT[self._rows[:, None], idx], x)
        return np.concatenate([np.sin(proj), np.cos(proj)], axis=-1) * (1.0 / np.sqrt(self.m))

    # ------------------------------------------------------------------ one step
    def _combine(self, x, idx, valid, **extra):
        """Features, kernel predictions and the weighted combination over the subset (eq. 13)."""
        z = self._features(x, idx)
        th = self.theta_[self._rows[:, None], idx]                    # (R, K, 2D)
        f = np.einsum("rkf,rkf->rk", th, z)                           # f_RF,i(x_t) = theta_i' z_i (eq. 4)
        wts = _softmax_masked(self.log_w_[self._rows[:, None], idx], valid)
        yhat = np.einsum("rk,rk->r", wts, np.where(valid, f, 0.0))    # eq. (13)
        if not np.all(np.isfinite(yhat)):                             # never a silent NaN / inf forecast
            raise self._nonfinite()
        return _Step(idx=idx, valid=valid, z=z, theta=th, f=f, weights=wts, yhat=yhat, **extra)

    def _kernel_update(self, st, y, q_sel, eta, *, weighted_gradient=True, loss_after_step=False):
        """Importance-weighted OGD and exponential weights on the subset:
        ell_i = L_i / q_i 1[i in S_t] (eq. 14), theta <- theta - eta grad L_i / q_i (eq. 17),
        w_i <- w_i exp(-eta ell_i) (eq. 18a). ``q_sel`` (R, K) are the q_i of the subset.

        Authors'-code options (reference C.1-C.3, D.1): ``weighted_gradient=False`` steps theta by
        eta grad L_i (no 1/q_i; the ICML-2020 OMKL-GF code); ``loss_after_step=True`` evaluates
        lam |theta_i|^2 of L_i at the updated theta_{i,t+1} (the code's order)."""
        resid = st.f - y                                              # (R, K)
        loss = resid ** 2 + self.lam * np.einsum("rkf,rkf->rk", st.theta, st.theta)   # eq. (5)
        grad_L = 2.0 * resid[..., None] * st.z + 2.0 * self.lam * st.theta            # grad of eq. (5)
        step = grad_L / q_sel[..., None] if weighted_gradient else grad_L
        grad = np.where(st.valid[..., None], step, 0.0)                # grad ell, eq. (17)
        r = self._rows[:, None]
        new_theta = st.theta - eta * grad
        self.theta_[r, st.idx] = new_theta                             # eq. (17)
        if loss_after_step:                                           # the code's order: |theta_{t+1}|^2
            loss = resid ** 2 + self.lam * np.einsum("rkf,rkf->rk", new_theta, new_theta)
        ell = np.where(st.valid, loss / q_sel, 0.0)                   # eq. (14)
        self.log_w_[r, st.idx] -= eta * ell                           # eq. (18a), in logs
        st.loss, st.grad_L, st.grad = loss, grad_L, grad
        full = np.zeros((self.n_repetitions_, self.N_))
        full[r, st.idx] = ell
        st.ell = full

    def _nonfinite(self):
        return FloatingPointError(
            f"{type(self).__name__} produced a non-finite prediction at step t = {self.t_ + 1} (theta "
            f"overflowed: {self._step_cause()})")

    def _eta_text(self) -> str:
        return f"eta={self.eta!r}" + (" / sqrt(t)" if self.schedule == "inv_sqrt_t" else "")

    def _step_cause(self) -> str:
        """Why theta can grow without bound, in the learner's actual settings (issue 52 item 7c):
        the OGD step of eq. (17) on a kernel's loss, whose features have |z| = 1, multiplies the
        kernel's forecast error by about (1 - 2 eta / q) each time the kernel is stepped, so a step
        eta / q above about 1 makes it grow geometrically. Raker steps every kernel with q = 1."""
        return (f"the OGD step {self._eta_text()} of theta (every kernel, every step: q = 1) is too large for this "
                "stream: above about 1 a kernel's theta grows geometrically; reset() and use a smaller eta or "
                "schedule='inv_sqrt_t'")

    def _importance_cause(self, clip_name: str, clip_value, q_min, authors: str, floor: str = "") -> str:
        """:meth:`_step_cause` of a learner whose step is eta / q (eq. 17) with 1/q clipped at
        1/``q_min`` by the parameter ``clip_name`` = ``clip_value`` (None: unclipped; ``floor``: what
        the smallest q is without the clip, when the learner knows it)."""
        if clip_value is None:
            return (f"the importance-weighted step eta/q of eq. (17) is unbounded with {clip_name}=None: a kernel "
                    f"drawn with a small probability q{floor} is stepped by {self._eta_text()} divided by q, and above "
                    f"about 1 its theta grows geometrically; set {clip_name} (the authors' code: {authors}), a "
                    "smaller eta or schedule='inv_sqrt_t'")
        return (f"with {clip_name}={clip_value!r} the importance-weighted step of eq. (17) is at most "
                f"eta/{q_min!r} = {self.eta / q_min:.3g}{' / sqrt(t)' if self.schedule == 'inv_sqrt_t' else ''} "
                f"({self._eta_text()}), still too large for this stream: above about 1 a kernel's theta grows "
                f"geometrically; use a smaller eta, a larger {clip_name} or schedule='inv_sqrt_t'")

    # subclasses implement: _predict_step(x, force_node) -> _Step ; _learn_step(st, y)
    def _predict_step(self, x, force_node=None):  # pragma: no cover - abstract
        raise NotImplementedError

    def _learn_step(self, st, y):  # pragma: no cover - abstract
        raise NotImplementedError

    # ------------------------------------------------------------------ protocol
    def _ensure(self, d, R=1):
        if self.state_ is None and self.dictionaries_ is None:
            self._init(d, R)
            self.state_ = True
        elif d != self.d_:
            raise ValueError(f"x has dimension {d}, expected d={self.d_}")

    def _warn_scale(self, X):
        """Warn once (RuntimeWarning naming the learner and the input's scale) when the random
        features' argument omega'x can exceed :data:`ARGUMENT_LIMIT` (bounded by max |omega_j| max
        |x_t|): there float64 rounds omega'x by more than 1e-9, so sin / cos of it -- and the forecasts
        of the NumPy and the compiled engine, which sum omega'x in another order -- differ beyond
        1e-9 (issue 52 item 7d: 2.9e-4 relative at input scale 1e12, 17-150 % at 1e15)."""
        if self._scale_warned or X.size == 0:
            return
        xs = float(np.sqrt(np.einsum("td,td->t", X, X)).max())
        bound = self._omega_norm * xs
        if bound > ARGUMENT_LIMIT:
            self._scale_warned = True
            warnings.warn(
                f"{type(self).__name__}: the input's scale (max |x_t| = {xs:.3g}) puts the random features' argument "
                f"omega'x up to {bound:.3g} (max |omega| = {self._omega_norm:.3g}), beyond {ARGUMENT_LIMIT:.3g}: float64 "
                f"rounds omega'x by up to ~{bound * np.finfo(np.float64).eps:.2g}, so sin and cos of it carry no digit "
                "to 1e-9 and the numpy and numba engines (OMKL_ENGINE) can give different forecasts; scale the inputs "
                "(e.g. omkl run --scale online, or eq. (34): X / max |x_t|)", RuntimeWarning, stacklevel=4)

    def _predict_cached(self, x, force_node=None):
        if self._pending is not None and np.array_equal(self._pending[0], x):
            return self._pending[1]
        self._check_state()
        self._warn_scale(x[None, :])
        st = self._predict_step(x, force_node)
        self._pending = (x.copy(), st)
        return st

    def predict_one(self, x) -> float:
        """Prediction f_RF(x_t) (the node / subset is drawn here and kept for ``learn_one``)."""
        x = check_point(x, name="x")
        self._ensure(x.shape[0])
        if self.n_repetitions_ != 1:
            raise ValueError("predict_one needs a single-repetition learner (call reset())")
        return float(self._predict_cached(x).yhat[0])

    def learn_one(self, x, y) -> None:
        """Observe y_t and update theta, the kernel weights (and node weights)."""
        y = check_label(y, "y")   # finite, |y| <= MAX_MAGNITUDE
        x = check_point(x, name="x")
        self._ensure(x.shape[0])
        st = self._predict_cached(x)
        self._learn_step(st, y)
        self.t_ += 1
        self.last_step_ = st
        self._pending = None

    def run(self, X, y):
        """Predictions over a stream (T,), continuing from the current state (one repetition;
        equals the predict_one/learn_one loop, and two calls equal one on the joined stream)."""
        X = check_matrix(X, "X")
        y = check_vector(y, "y", length=X.shape[0])
        self._ensure(X.shape[1])
        if self.n_repetitions_ != 1:
            raise ValueError(f"run continues a single-repetition learner, this one holds "
                             f"{self.n_repetitions_} repetitions (run_repetitions); call reset() first")
        return self._run_steps(X, y)[0]

    def run_repetitions(self, X, y, repetitions: int, progress: bool = False, record: dict | None = None):
        """R independent repetitions in one batched pass from a fresh start -> predictions (R, T).

        Forgets the current state first (as ``reset()``). Repetition r uses the r-th dictionary
        drawn from ``host_rng(seed)``; repetition 0 equals ``run`` with the same seed only when
        R = 1 (the node draws interleave over repetitions).

        ``record``: None, or a dict of arrays the pass fills, step t in column t (the same numbers
        on either engine): ``"node"`` (R, T) int the node I_t drawn (-1 for Raker), ``"subset_size"``
        (R, T) int |S_t|, ``"inv_q"`` (R, T) the mean of 1/q_{i,t} over S_t (eq. 15, before any clip;
        1 for Raker), ``"greedy"`` (T,) bool whether the node was chosen deterministically (section 5).
        """
        X = check_matrix(X, "X")
        y = check_vector(y, "y", length=X.shape[0])
        R = check_int(repetitions, "repetitions")
        self.reset()
        self._init(X.shape[1], R)
        self.state_ = True
        return self._run_steps(X, y, progress, record)

    def _run_steps(self, X, y, progress: bool = False, record: dict | None = None):
        """Predict-then-learn over (X, y) from the current state -> predictions (R, T) (``record``:
        see :meth:`run_repetitions`): the compiled loop on the ``"numba"`` engine, else the NumPy step."""
        T = X.shape[0]
        self._check_state()
        self._warn_scale(X)
        P = np.empty((self.n_repetitions_, T))
        start = 0
        if T and self._pending is not None and np.array_equal(self._pending[0], X[0]):
            # step 0 was predicted (its nodes drawn) by predict_one: it is finished on the NumPy path
            self._numpy_steps(X[:1], y[:1], P, record, progress=False)
            start = 1
        self._pending = None
        if start < T:
            if use_numba():
                self._compiled_steps(X, y, P, start, progress, record)
            else:
                self._numpy_steps(X[start:], y[start:], P[:, start:], record, start, progress)
        return P

    def _numpy_steps(self, X, y, P, record, col0=0, progress=False):
        """The reference: one batched NumPy step (all R repetitions) per time step."""
        steps = range(X.shape[0])
        if progress:
            steps = progress_iter(steps, desc=type(self).__name__)
        for t in steps:
            # step 0 may already have been predicted (and its nodes drawn) by predict_one
            st = self._predict_cached(X[t]) if t == 0 else self._predict_step(X[t])
            P[:, t] = st.yhat
            self._learn_step(st, float(y[t]))
            self.t_ += 1
            if record is not None:
                self._record_step(record, col0 + t, st)
            self.last_step_ = st
        self._pending = None

    def _record_step(self, record, t, st):
        """Column t of ``record`` (see :meth:`run_repetitions`) from a NumPy step."""
        valid = st.valid
        n = valid.sum(axis=1)
        record["node"][:, t] = getattr(st, "node", -1)
        record["subset_size"][:, t] = n
        q = getattr(st, "q", None)
        record["inv_q"][:, t] = 1.0 if q is None else (
            np.where(valid, 1.0 / q[self._rows[:, None], st.idx], 0.0).sum(axis=1) / n)
        record["greedy"][t] = bool(getattr(st, "greedy", False))

    # ------------------------------------------------------------------ the compiled loop
    # subclasses implement: _draw_counts(t0, n) -> uniforms per step; _greedy_flags(t0, n);
    # _state_items() -> what the kernel updates; _compiled_block(X, y, c0, n, P, U, rec) -> first failing step
    def _draw_counts(self, t0, n):
        """How many uniforms the NumPy step draws at each of the steps t0 .. t0 + n - 1 ((n,) ints)."""
        return np.zeros(n, dtype=np.int64)

    def _greedy_flags(self, t0, n):
        """Whether the node of steps t0 .. t0 + n - 1 is chosen deterministically (``record["greedy"]``)."""
        return np.zeros(n, dtype=bool)

    def _kernel_args(self):
        """(Omega (R, N, d, D), D^{-1/2}, inv_sqrt_t, the vector sin/cos or None): the arguments every
        compiled kernel takes (:func:`omkl_core.cosine.mkl_sincos`: oneMKL's when the cosine library in
        force is oneMKL, else None, the C library's)."""
        if getattr(self, "_Omega", None) is None:
            self._Omega = np.ascontiguousarray(self._OmegaT.transpose(0, 1, 3, 2))
        return self._Omega, 1.0 / np.sqrt(self.m), self.schedule == "inv_sqrt_t", mkl_sincos()

    def _state_items(self):
        """(object, attribute) of the state a compiled block updates (saved before it, for a rerun)."""
        return [(self, "theta_"), (self, "log_w_")]

    def _compiled_steps(self, X, y, P, start, progress, record):
        """Steps start .. T - 1 through the compiled kernel, in blocks of at most
        :data:`UNIFORMS_PER_BLOCK` uniforms drawn ahead. A non-finite prediction at step k of a block:
        the block is rerun up to k from its saved state, the Generator left where the NumPy step leaves
        it (after step k's draws), and the NumPy step's FloatingPointError raised."""
        T, R = X.shape[0], self.n_repetitions_
        X = np.ascontiguousarray(X, dtype=np.float64)
        y = np.ascontiguousarray(y, dtype=np.float64)
        if record is not None:
            rec = (True, np.full((R, T), -1, dtype=np.int64), np.full((R, T), self.N_, dtype=np.int64),
                   np.ones((R, T)))
        else:
            rec = (False, np.zeros((1, 1), dtype=np.int64), np.zeros((1, 1), dtype=np.int64), np.zeros((1, 1)))
        t_first = self.t_
        c0 = start
        with progress_bar(T - start, desc=type(self).__name__, leave=False, enabled=progress) as bar:
            while c0 < T:
                n = T - c0
                if progress:
                    n = min(n, max(64, T // 50))
                counts = self._draw_counts(self.t_, n)
                while n > 1 and int(counts.max()) * n > UNIFORMS_PER_BLOCK:
                    n //= 2
                    counts = counts[:n]
                rng_state = self._rng.bit_generator.state
                U = _uniform_rows(self._rng, counts)
                saved = [(obj, name, copy.deepcopy(getattr(obj, name))) for obj, name in self._state_items()]
                fail = self._compiled_block(X, y, c0, n, P, U, rec)
                if fail < n:                        # rerun up to the failing step, then fail as the NumPy step
                    for obj, name, value in saved:
                        setattr(obj, name, value)
                    self._rng.bit_generator.state = rng_state
                    if fail:
                        self._compiled_block(X, y, c0, fail, P, U, rec)
                    self._rng.random(int(counts[: fail + 1].sum()))
                    self.t_ += fail
                    raise self._nonfinite()
                self.t_ += n
                c0 += n
                bar.update(n)
        if record is not None:
            for key, arr in zip(("node", "subset_size", "inv_q"), rec[1:]):
                record[key][:, start:] = arr[:, start:]
            record["greedy"][start:] = self._greedy_flags(t_first, T - start)

    # ------------------------------------------------------------------ introspection
    @property
    def weights_(self):
        """Normalised kernel weights w_i / sum_j w_j ((N,) for R = 1, else (R, N))."""
        if self.dictionaries_ is None:
            return None
        w = np.exp(self.log_w_ - self.log_w_.max(axis=1, keepdims=True))
        w /= w.sum(axis=1, keepdims=True)
        return w[0] if self.n_repetitions_ == 1 else w

    def forced(self, x, y, node):
        """A deep copy of this learner after one step with the drawn node forced to ``node``
        (used to enumerate the finite distribution of one step exactly)."""
        shared = {id(D): D for D in (self.dictionaries_ or [])}      # immutable: shared, not copied
        twin = copy.deepcopy(self, memo=shared)
        x = check_point(x, name="x")
        twin._ensure(x.shape[0])
        twin._pending = None
        st = twin._predict_step(x, force_node=node)
        twin._learn_step(st, float(y))
        twin.t_ += 1
        twin.last_step_ = st
        return twin
