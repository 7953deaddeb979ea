"""The VAW expert layer's classes: :class:`VAWExperts` (batched over experts and repetitions) and
:class:`VAW` (one forecaster), with the NumPy/CuPy block driver (the Woodbury identity).

The recursion and its notation are described in :mod:`omkl_core.vaw`; the per-step NumPy core is
:mod:`omkl_core.sherman_morrison`, the compiled kernels :mod:`omkl_core.vaw.kernels`.
"""
from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from .. import backend as _backend
from .. import compiled as _compiled
from ..base import OnlineLearner
from ..sherman_morrison import sm_forecast, sm_predict, sm_update
from ..validation import (
    Boolean,
    Integer,
    Optional,
    Options,
    Positive,
    check_label,
    check_magnitude,
    is_complex,
)
from .kernels import aligned_rows, blocked_run, sm_run, sm_step_forecast, sm_step_learn

__all__ = ["VAW", "VAWExperts", "METHODS", "BLOCK_SIZES", "BLOCKED_BLOCK_SIZE", "BLOCKED_MIN_M",
           "default_block_size"]

METHODS = ("auto", "block", "blocked", "sm")
#: The default steps per Woodbury block of the block driver (:func:`default_block_size`).
BLOCK_SIZES = (16, 32)
#: The default steps per block of ``method="blocked"`` (the compiled blocked driver,
#: :func:`omkl_core.vaw.kernels.blocked_run`): measured (issue 54, one thread, 76 experts x 1503
#: steps of random features, CPU seconds in one process, sm / blocked with k = 16, 32, 48, 64):
#: m = 200: 0.49 / 0.49, 0.41, 0.43, 0.46; m = 400: 1.75 / 1.72 (k = 16, an earlier run), 1.33, 1.29,
#: 1.40. k = 32 is within 4 % of the best at both and divides the 256-step feature blocks of
#: ``mkl.VAW2``, so it keeps VAW2's ``run_alignment`` of 32 (k = 48 would not).
BLOCKED_BLOCK_SIZE = 32
#: ``method="auto"`` with the Numba engine takes the compiled blocked driver from this many
#: features on, the compiled per-step kernel ("sm") below (:meth:`VAWExperts._auto_method`).
BLOCKED_MIN_M = 150


def default_block_size(m: int) -> int:
    """Steps per block of ``VAWExperts(method="block", block_size=None)`` for m features: 16 for
    m < 320, 32 from m = 320 on. A block costs two products of k x m by m x (m + 1) (the
    arithmetic floor, 4 k m^2 flops) plus O(k^2 m) besides; BLAS runs those two products
    faster for larger k (each call packs the m x (m + 1) state once), so the best k grows with
    m (the choice was measured with ``benchmarks/bench_expert_layer.py``)."""
    return 16 if m < 320 else 32


def _finite_or_raise(xp, a, name: str) -> None:
    if not bool(xp.all(xp.isfinite(a))):
        raise ValueError(f"{name} contains NaN or inf")


class VAWExperts(_backend.NamespaceHolder, OnlineLearner):
    """VAW forecasters (paper 000 eqs. 9-10) batched over any leading dimensions.

    One expert = one VAW run on its own feature sequence; all experts (e.g. N kernels x R
    repetitions) share the label sequence y. The inverses S^{-1} of all experts are one
    (..., m, m) array; there is no Python loop over experts.

    Parameters
    ----------
    lam : regularisation lambda > 0 (S_0 = lambda I).
    ridge : False = VAW (eq. 9, Phi_t added before predicting); True = online ridge.
    backend : "numpy" | "cupy" | "auto".
    method : "auto" (default), "block" (Woodbury over ``block_size`` steps, NumPy/CuPy), "blocked"
        (the same Woodbury blocks compiled, their products in BLAS-3: :func:`blocked_run`, issue 54)
        or "sm" (per-step Sherman-Morrison). Same predictions up to rounding. "auto" is decided when
        the state is created (:meth:`resolved_method`): on the host with the Numba engine "sm" (the
        compiled kernel :func:`sm_run`) for m < :data:`BLOCKED_MIN_M` = 150 features and "blocked"
        from m = 150 on, "block" otherwise (NumPy or CuPy: a few batched products per block instead
        of one round of NumPy calls per time step). "blocked" without the Numba engine runs the
        NumPy block driver (the same blocks).
    block_size : steps per block for ``method="block"`` / ``"blocked"``; None (default):
        :func:`default_block_size` of the feature length for "block" (16 for m < 320, 32 from
        m = 320 on), :data:`BLOCKED_BLOCK_SIZE` = 32 for "blocked".

    The engine (:mod:`omkl_core.compiled`: NumPy loops or compiled Numba kernels) is read at
    each ``run``; ``predict_one``/``learn_one`` run the compiled kernel's step where ``run`` runs the
    compiled kernel (:func:`sm_step_forecast`, :func:`sm_step_learn`: the same numbers bit for bit;
    ``learn_one`` reuses the forecast's u = S^{-1} phi), NumPy otherwise. ``run_both`` returns the VAW
    and the online-ridge predictions of the same experts from one pass.

    Attributes
    ----------
    P_ : ndarray of shape (..., m, m)
        The current S_t^{-1} (after the first step, as every attribute here).
    w_ : ndarray of shape (..., m)
        Ridge weights S_t^{-1} sum_{i<=t} y_i Phi_i.
    t_ : int
        Number of steps learned.
    batch_shape_ : tuple
        The leading dimensions.
    m_ : int
        Feature length.

    Notes
    -----
    Shapes: ``run(Phi, y)`` takes Phi of shape (..., T, m) -- or an iterable of consecutive
    time blocks (..., T_b, m) -- and y of shape (T,), and returns the expert predictions
    Z of shape (..., T) as a host NumPy array (e.g. Phi (R, N, T, m) -> Z (R, N, T)).
    ``run`` continues from the current state, so it can be mixed with ``predict_one``/``learn_one``.
    """

    _parameter_constraints = {
        "lam": Positive(),
        "ridge": Boolean(),
        "backend": Options("numpy", "cupy", "auto"),
        "method": Options(*METHODS),
        "block_size": Optional(Integer(1)),
    }

    def __init__(self, lam: float = 1.0, *, ridge: bool = False, backend: str = "numpy",
                 method: str = "auto", block_size: int | None = None):
        self.lam = lam
        self.ridge = ridge
        self.backend = backend
        self.method = method
        self.block_size = block_size
        super().__init__()

    @property
    def _run_alignment(self) -> int:
        """Steps per block of the block driver: ``run`` over consecutive pieces of a stream
        whose lengths are multiples of it gives the numbers of one ``run`` bit for bit (other
        pieces: the same to rounding, as ``method="sm"`` and ``"block"`` are)."""
        if self.resolved_method() not in ("block", "blocked"):
            return 1
        return self.block_size or math.lcm(*BLOCK_SIZES, BLOCKED_BLOCK_SIZE)

    def resolved_method(self) -> str:
        """The driver ``run`` uses: ``method`` itself, or for ``method="auto"`` the one chosen when
        the state was created (:meth:`_auto_method`); before the first step, the one that would be
        chosen now (for features of an unknown length: as for m < :data:`BLOCKED_MIN_M`)."""
        if self.method != "auto":
            return self.method
        return getattr(self, "_method", None) or self._auto_method()

    def _auto_method(self, m: int | None = None) -> str:
        """What ``method="auto"`` takes now for m features: on the host with the Numba engine, the
        compiled per-step kernel "sm" for m < :data:`BLOCKED_MIN_M` (and m unknown) and the compiled
        blocked driver "blocked" from m = 150 on; "block" otherwise.

        The threshold was measured (issue 54; one thread, 76 experts x 1503 steps of random
        features, CPU seconds of ``sm_run`` / ``blocked_run`` with k = 32 on scipy's OpenBLAS in
        one process, the machine shared): m = 100: 0.159 / 0.165, m = 150: 0.296 / 0.287,
        m = 200: 0.475 / 0.422, m = 400: 1.75 / 1.33 (on oneMKL's BLAS, which ``blocked_run``
        takes where it loads: m = 100: 0.131, m = 150: 0.232, m = 200: 0.350, m = 400: 1.08 against
        sm 0.153, 0.296, 0.475, 1.73 in that run). On OpenBLAS m = 150 is the break-even point (below
        it the per-step kernel's triangle of S^{-1} stays in cache and the O(k^2 m) work of a block
        weighs more); on oneMKL the blocked driver is faster from m = 100 already, but ``auto`` keeps
        "sm" up to m = 149 so that paper 000's m = 50 (and m = 100) keep their numbers bit for bit."""
        xp = getattr(self, "_xp", None) or _backend.get_namespace(self.backend)
        if not (xp is np and _compiled.use_numba()):
            return "block"
        m = self.m_ if m is None else m
        return "blocked" if m is not None and m >= BLOCKED_MIN_M else "sm"

    # ------------------------------------------------------------------ state
    def _reset(self) -> None:
        """Forget everything (S^{-1} = I/lambda, w = 0 at the next first step)."""
        self._xp = _backend.get_namespace(self.backend)
        self.P_ = None
        self.w_ = None
        self.batch_shape_ = None
        self.m_ = None
        self._cache = None
        self._method = None
        self._pending = None        # the compiled step's rank-1 factor v of eq. (10), not yet applied to P
        self._upper_stale = False

    def _init_state(self, batch_shape: tuple, m: int) -> None:
        xp = self._xp
        self.batch_shape_ = tuple(batch_shape)
        self.m_ = int(m)
        B = int(np.prod(batch_shape)) if batch_shape else 1
        self._method = self._auto_method(int(m)) if self.method == "auto" else self.method
        if self._method == "block":
            # one (B, m, m + 1) array [S^{-1} | w]: the block driver reads F S^{-1} and F w with
            # one matrix product and updates both with one more; _P and _w are views of it
            self._Pw = xp.zeros((B, m, m + 1), dtype=xp.float64)
            self._P = self._Pw[:, :, :m]
            self._w = self._Pw[:, :, m]
        else:                                         # per-step updates (and BLAS) run on contiguous P
            self._Pw = None
            self._P = xp.zeros((B, m, m), dtype=xp.float64)
            self._w = xp.zeros((B, m), dtype=xp.float64)
        idx = xp.arange(m)
        self._P[:, idx, idx] = 1.0 / self.lam
        self._expose()

    @property
    def P_(self):
        """S_t^{-1} (..., m, m), exactly symmetric (the compiled step keeps its lower triangle:
        the upper one is mirrored here, when read)."""
        self._sync()
        return self.__dict__.get("_P_exposed")

    @P_.setter
    def P_(self, value):
        self.__dict__["_P_exposed"] = value

    def _sync(self) -> None:
        """Make P hold S_t^{-1} in both triangles: apply a pending update of the compiled step
        (:func:`sm_step_learn` leaves P -= v v^T for the next forecast's pass) and mirror the lower
        triangle onto the upper one."""
        if self.__dict__.get("_pending") is not None:
            V = self._pending
            self._pending = None
            zeros = np.zeros_like(V)
            sm_step_forecast(zeros, self._P, self._w, V, True, np.empty_like(V), np.empty((V.shape[0], 2)))
            self._upper_stale = True
        if self.__dict__.get("_upper_stale"):
            P = self._P
            iu, ju = np.triu_indices(P.shape[-1], 1)
            P[:, iu, ju] = P[:, ju, iu]
            self._upper_stale = False

    def _expose(self) -> None:
        self.P_ = self._P.reshape(self.batch_shape_ + (self.m_, self.m_))
        self.w_ = self._w.reshape(self.batch_shape_ + (self.m_,))

    def __getstate__(self):
        # P_ and w_ (and, for the block driver, _P and _w) are views: pickle the arrays they
        # view once and rebuild the views on load, so the state stays one piece of memory
        self._sync()
        state = super().__getstate__()
        # (_work: the compiled step's scratch rows, contents meaningless, recreated on demand)
        for name in ("_P_exposed", "w_", "_work") + (("_P", "_w") if getattr(self, "_Pw", None) is not None else ()):
            state.pop(name, None)
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        self.P_ = self.w_ = None
        if getattr(self, "_Pw", None) is not None:
            self._P = self._Pw[:, :, :self.m_]
            self._w = self._Pw[:, :, self.m_]
        if self.batch_shape_ is not None:
            self._expose()

    def _check_phi(self, phi, name: str = "phi", has_time: bool = False):
        """Return phi as a backend float64 array, its batch shape, validated."""
        xp = self._xp
        if is_complex(phi):
            raise TypeError(f"{name} must be real, got complex values")
        try:
            a = xp.asarray(phi, dtype=xp.float64) if xp is not np else np.asarray(phi, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be a numeric array: {exc}") from None
        min_nd = 2 if has_time else 1
        if a.ndim < min_nd:
            raise ValueError(f"{name} must have at least {min_nd} dimension(s) "
                             f"({'(..., T, m)' if has_time else '(..., m)'}), got shape {a.shape}")
        if a.shape[-1] == 0:
            raise ValueError(f"{name} has zero features (shape {a.shape})")
        _finite_or_raise(xp, a, name)
        check_magnitude(a, name, xp)
        batch = a.shape[:-2] if has_time else a.shape[:-1]
        if self.batch_shape_ is None:
            self._init_state(batch, a.shape[-1])
        elif batch != self.batch_shape_ or a.shape[-1] != self.m_:
            raise ValueError(f"{name} has batch shape {batch} and {a.shape[-1]} features; this "
                             f"learner holds {self.batch_shape_} experts with m={self.m_} "
                             "(call reset() to start over)")
        return a

    # ------------------------------------------------------------- per step
    def _step_quantities(self, phi_flat):
        """u = P Phi, s = Phi^T u, r = <w, Phi> for all experts (:func:`sm_predict`)."""
        self._sync()
        return sm_predict(self._P, self._w, phi_flat)

    def _compiled_step(self) -> bool:
        """Whether ``predict_one`` / ``learn_one`` run the compiled step (:func:`sm_step_forecast`,
        :func:`sm_step_learn`): the
        driver is "sm" on the host with the Numba engine (what ``run`` then runs)."""
        return self._xp is np and self.resolved_method() in ("sm", "blocked") and _compiled.use_numba()

    def _writable_state(self):
        """(S^{-1}, w) as host arrays the compiled kernels may write in place: copies where they are
        read-only (e.g. unpickled from a read-only memory map), the exposed views rebuilt on them."""
        if not (self._P.flags.writeable and self._w.flags.writeable):
            self._P, self._w = np.array(self._P), np.array(self._w)
            self._expose()
        return self._P, self._w

    def _forecast_quantities(self, flat, compiled_step=None, step=None, z=None):
        """(u, s, r) of every expert for features ``flat`` (B, m): the compiled step
        (:func:`sm_step_forecast`, applying the pending update of the last step in the same pass;
        r and s are then the columns of one (B, 2) array, what :func:`sm_step_learn` reads)
        or :func:`sm_predict`. ``step``: a compiled call ``step(P, w, V, pending, U, RS, work, z)`` that
        writes ``flat`` itself, runs :func:`sm_step_forecast`'s kernel on it and writes the forecasts
        into ``z`` (B,) (``mkl.VAW2``'s features and forecast in one call); only where the compiled
        step runs."""
        if self._compiled_step() if compiled_step is None else compiled_step:
            P, w = self._writable_state()
            B, m = flat.shape
            U = np.empty((B, m))
            RS = np.empty((B, 2))
            d = self.__dict__
            V = d.get("_pending")
            d["_pending"] = None
            work = d.get("_work")
            if work is None or work.shape[1] < m or not work.flags.writeable:
                work = self._work = aligned_rows(3, m)
            if step is None:
                sm_step_forecast(np.ascontiguousarray(flat), P, w, V if V is not None else U,
                                 V is not None, U, RS, work=work)
            else:
                step(P, w, V if V is not None else U, V is not None, U, RS, work, z)
            d["_upper_stale"] = True
            return U, RS[:, 1], RS[:, 0]
        return self._step_quantities(flat)

    def predict_one(self, phi):
        """Predictions of all experts for features phi (..., m) -> (...) (host NumPy). What it
        computes (u = S_{t-1}^{-1} phi, s, r) is kept for ``learn_one`` with the same phi."""
        a = self._check_phi(phi)
        return self._predict_flat(a.reshape(-1, self.m_).copy())

    def _predict_flat(self, flat, step=None):
        """:meth:`predict_one` for features already checked, as a (B, m) array this learner may keep
        (``mkl.VAW2`` passes the features it computed itself; ``step``: the compiled call that writes
        them and the forecasts, see :meth:`_forecast_quantities`, where :meth:`_compiled_step` is true)."""
        if step is not None:
            z = np.empty(flat.shape[0])
            u, s, r = self._forecast_quantities(flat, True, step, z)
            self._cache = (flat, u, s, r, True)
            return z.reshape(self.batch_shape_)
        compiled_step = self._compiled_step()
        u, s, r = self._forecast_quantities(flat, compiled_step)
        self._cache = (flat, u, s, r, compiled_step)
        if compiled_step and not self.ridge:
            z = np.add(s, 1.0)                              # eq. (9) as the compiled kernel writes it:
            np.divide(1.0, z, out=z)
            z *= r                                          # r * (1 / (1 + s)), in one array
        else:
            z = sm_forecast(r, s, self.ridge)
        return _backend.to_numpy(z).reshape(self.batch_shape_)

    def learn_one(self, phi, y) -> None:
        """Observe y_t for features phi (..., m): eq. (10) for S^{-1}, RLS step for w (from the
        forecast's u, s, r when ``predict_one`` saw the same phi)."""
        y = check_label(y, "y")
        a = self._check_phi(phi)
        flat = a.reshape(-1, self.m_)
        xp = self._xp
        if self._cache is None or self._cache[0].shape != flat.shape or not bool(xp.all(self._cache[0] == flat)):
            compiled_step = self._compiled_step()
            self._cache = (None,) + self._forecast_quantities(flat, compiled_step) + (compiled_step,)
        self._learn_forecast(y)

    def _learn_forecast(self, y: float) -> None:
        """The update of :meth:`learn_one` from the forecast kept by the last ``predict_one`` (for a
        caller that knows the features are those: ``mkl.VAW2``'s ``learn_one``); y a checked label."""
        _, u, s, r, compiled_step = self._cache
        self._cache = None
        if compiled_step:
            V = np.empty_like(u)
            RS = r.base if r.base is not None and r.base is s.base else np.stack([r, s], axis=1)   # (r, s) columns
            sm_step_learn(u, RS, y, self._w, V)
            self._pending = V                               # eq. (10): applied by the next forecast's pass
        else:
            self._sync()
            sm_update(self._P, self._w, u, s, r, y)         # eq. (10) and the RLS step
        self.t_ += 1

    # ------------------------------------------------------------ whole run
    def run(self, Phi, y):
        """Expert predictions for a whole stream: Phi (..., T, m) or an iterable of
        consecutive time blocks (..., T_b, m); y (T,). Returns Z (..., T) (host NumPy)."""
        return self._run(Phi, y, both=False)

    def run_both(self, Phi, y):
        """VAW *and* online-ridge predictions of the same experts from one pass.

        Paper 000 eqs. (9)-(10): with P = S_{t-1}^{-1}, s = Phi_t^T P Phi_t and the ridge
        forecast r = <S_{t-1}^{-1} b_{t-1}, Phi_t>, Sherman-Morrison (10) gives the VAW forecast
        <S_t^{-1} b_{t-1}, Phi_t> = r - s r / (1 + s) = r / (1 + s). The state recursion is the
        same for both (S_t^{-1} and S_t^{-1} b_t do not depend on what was predicted), so one
        pass yields both. Returns ``(Z_vaw, Z_ridge)``, each (..., T), whatever ``self.ridge``
        is; each equals the ``run`` of a learner with ``ridge=False`` / ``ridge=True`` (same
        method, block size and engine) bit for bit."""
        return self._run(Phi, y, both=True)

    def _run(self, Phi, y, both: bool):
        yv = np.asarray(_backend.to_numpy(y), dtype=np.float64)
        if yv.ndim != 1:
            raise ValueError(f"y must be 1-D (T,), got shape {yv.shape}")
        if not np.all(np.isfinite(yv)):
            raise ValueError("y contains NaN or inf")
        T = yv.shape[0]
        if hasattr(Phi, "shape") or isinstance(Phi, (list, tuple)) and not _is_block_list(Phi):
            blocks: Iterable = [Phi]
        else:
            blocks = Phi
        xp = self._xp
        y_dev = yv if xp is np else _backend.asarray(yv, xp)
        numba = xp is np and _compiled.use_numba()
        self._sync()
        out_v, out_r = [], []
        pos = 0
        for blk in blocks:
            a = self._check_phi(blk, "Phi", has_time=True)
            Tb = a.shape[-2]
            if pos + Tb > T:
                raise ValueError(f"Phi has more time steps than y (y has T={T})")
            flat = a.reshape((-1, Tb, self.m_))
            driver = {"block": self._run_block, "blocked": self._run_blocked}.get(self.resolved_method(), self._run_sm)
            zv, zr = driver(flat, y_dev[pos:pos + Tb], numba)
            out_v.append(zv)
            out_r.append(zr)
            pos += Tb
        if pos != T:
            raise ValueError(f"Phi has {pos} time steps but y has T={T}")
        self._cache = None

        def _join(parts):
            Z = xp.concatenate(parts, axis=1) if len(parts) > 1 else parts[0]
            return _backend.to_numpy(Z).reshape(self.batch_shape_ + (T,))

        if both:
            return _join(out_v), _join(out_r)
        return _join(out_r if self.ridge else out_v)

    def _run_sm(self, F, y, numba: bool = False):
        """Per-step Sherman-Morrison over a block F (B, Tb, m): eq. (10) every step.
        Returns (VAW predictions, ridge predictions), each (B, Tb)."""
        xp = self._xp
        B, Tb, m = F.shape
        Zr = xp.empty((B, Tb), dtype=xp.float64)
        Zv = xp.empty((B, Tb), dtype=xp.float64)
        P, w = self._P, self._w
        if numba:
            P, w = self._writable_state()
            sm_run(np.ascontiguousarray(F), np.ascontiguousarray(y), P, w, Zv, Zr)
            self.t_ += Tb
            return Zv, Zr
        y_host = _backend.to_numpy(y)
        for t in range(Tb):
            u, s, r = sm_predict(P, w, F[:, t, :])
            Zr[:, t] = r                                          # ridge forecast
            Zv[:, t] = sm_forecast(r, s, False)                   # VAW: r / (1 + s), eq. (9)
            sm_update(P, w, u, s, r, float(y_host[t]))            # eq. (10)
        self.t_ += Tb
        return Zv, Zr

    def _run_blocked(self, F, y, numba: bool = False):
        """The compiled blocked driver (``method="blocked"``, issue 54): paper 000 eqs. (9)-(10) over
        blocks of k = ``block_size`` (default :data:`BLOCKED_BLOCK_SIZE`) steps by the Woodbury
        identity, S^{-1} <- P0 - G^T (I + X P0 X^T)^{-1} G with G = X P0 (:func:`blocked_run`: one
        loop over experts and blocks, the products in BLAS-3, each forecast exact from the block's
        k x k Cholesky factor). Without the Numba engine: the NumPy block driver
        (:meth:`_run_block`) on the same blocks. Returns (VAW predictions, ridge predictions)."""
        B, Tb, m = F.shape
        K = self.block_size or BLOCKED_BLOCK_SIZE
        if not numba:
            self._Pw = np.concatenate([self._P, self._w[:, :, None]], axis=2)
            try:
                out = self._run_block(F, y, block_size=K)
            finally:
                self._P[...] = self._Pw[:, :, :m]
                self._w[...] = self._Pw[:, :, m]
                self._Pw = None
            return out
        P, w = self._writable_state()
        Zr = np.empty((B, Tb))
        Zv = np.empty((B, Tb))
        blocked_run(np.ascontiguousarray(F), np.ascontiguousarray(y), P, w, Zv, Zr, K)
        self.t_ += Tb
        return Zv, Zr

    def _run_block(self, F, y, numba: bool = False, block_size: int | None = None):  # noqa: ARG002  (one signature for all drivers)
        """Woodbury form of K consecutive Sherman-Morrison steps (see module docstring).

        Per block, with Pw = [P0 | w0] (P0 = S^{-1} is symmetric, so F P0 = (P0 F^T)^T):
        [F P0 | F w0] = F Pw (one matrix product), C = F P0 F^T, the Cholesky factor G of
        I + C and G^{-1} (:func:`_cholesky_inverse`, vectorised over experts),
        [V | -g] = G^{-1} [F P0 | F w0 - y] and Pw -= V^T [V | -g] (one more product), i.e.
        S^{-1} <- P0 - V^T V and w <- w0 + V^T g. Besides these products (the arithmetic
        floor) only (B, k, k) work remains. NumPy (or CuPy) on every engine: the compiled engine's
        driver is the per-step kernel :func:`sm_run`. Returns (VAW predictions, ridge predictions), each (B, Tb)."""
        xp = self._xp
        B, Tb, m = F.shape
        K = block_size or self.block_size or default_block_size(m)
        Zr = xp.empty((B, Tb), dtype=xp.float64)
        Zv = xp.empty((B, Tb), dtype=xp.float64)
        Pw = self._Pw
        upd = xp.empty_like(Pw)                                   # reused: no 1.5 MB allocation per block
        for start in range(0, Tb, K):
            Fk = F[:, start:start + K, :]                         # (B, k, m)
            k = Fk.shape[1]
            UR = xp.matmul(Fk, Pw)                                # [F P0 | F w0]   (B, k, m+1)
            C = xp.matmul(UR[:, :, :m], Fk.transpose(0, 2, 1))    # F P0 F^T (+ I below)
            yk = y[start:start + k]
            r = UR[:, :, m].copy()                                # F w0
            G, Gi = _cholesky_inverse(xp, C)                      # I + C = G G^T, Gi = G^{-1}
            UR[:, :, m] -= yk[None, :]                            # [F P0 | F w0 - y]
            VG = xp.matmul(Gi, UR)                                # [V | -g]        (B, k, m+1)
            g = -VG[:, :, m]
            # one-step ridge predictions F w0 + (sum_{i<j} G_ji g_i)_j: they depend on y_{<j}
            # only (exactly 0 at t = 1); G's diagonal enters through G G^T = I + C alone
            idx = xp.arange(k)
            dg = G[:, idx, idx]                                   # sqrt(1 + s_{t+j})
            G[:, idx, idx] = 0.0
            ridge_pred = r + xp.einsum("bji,bi->bj", G, g)
            Zr[:, start:start + k] = ridge_pred
            Zv[:, start:start + k] = ridge_pred / (dg * dg)       # VAW: r / (1 + s), eq. (9)
            xp.matmul(VG[:, :, :m].transpose(0, 2, 1), VG, out=upd)
            Pw -= upd                                             # S^{-1} -= V^T V;  w += V^T g
        self.t_ += Tb
        return Zv, Zr


def _cholesky_inverse(xp, C):
    """Lower-triangular G with G G^T = I + C, and G^{-1}, for a batch C (B, k, k).

    G from one batched Cholesky call; G^{-1} row by row (k steps, each one batched product
    over the B matrices): row i of G^{-1} = (-(G_i,<i G_<i^{-1}) / G_ii, 1 / G_ii), where
    G_<i^{-1} is the leading i x i block already computed. No per-matrix LAPACK inverse
    (which costs more than all the rest of a block for these small k)."""
    B, k, _ = C.shape
    idx = xp.arange(k)
    C[:, idx, idx] += 1.0
    G = xp.linalg.cholesky(C)
    inv_d = 1.0 / G[:, idx, idx]
    Gi = xp.zeros((B, k, k), dtype=xp.float64)
    Gi[:, idx, idx] = inv_d
    for i in range(1, k):
        Gi[:, i:i + 1, :i] = xp.matmul(G[:, i:i + 1, :i], Gi[:, :i, :i]) * (-inv_d[:, i])[:, None, None]
    return G, Gi


def _is_block_list(obj) -> bool:
    """A list/tuple whose items are arrays of >= 2 dims is a list of time blocks."""
    return len(obj) > 0 and all(hasattr(b, "ndim") and b.ndim >= 2 for b in obj)


class VAW(VAWExperts):
    """The Vovk-Azoury-Warmuth forecaster, online ridge regression that also uses the current input, on
    given feature vectors (paper 000, eqs. 9-10).

    The VAW forecaster of paper 000 eqs. (9)-(10) on given feature vectors phi (any length m).

    River-style: ``predict_one(phi) -> float`` returns <w_t, Phi_t> with
    w_t = S_t^{-1} sum_{i<t} y_i Phi_i and S_t including Phi_t Phi_t^T (eq. 9);
    ``learn_one(phi, y)`` applies eq. (10). ``ridge=True``: online ridge regression
    (Phi_t not added before predicting; TVAW code variant, reference E.1).

    Parameters
    ----------
    lam : float, default=1.0
        lambda > 0 (S_0 = lambda I).
    ridge : bool, default=False
        False: VAW (eq. 9, Phi_t added before predicting); True: online ridge.
    method : {"sm", "block", "blocked", "auto"}, default="sm"
        Per-step Sherman-Morrison or Woodbury over blocks of steps in ``run`` (NumPy "block", compiled
        "blocked"; same predictions to rounding).
    block_size : int or None, default=None
        Steps per block for ``method="block"`` (None: chosen by the batch size).
    backend : {"numpy", "cupy", "auto"}, default="numpy"
        Where the arithmetic runs.

    Attributes
    ----------
    w_ : ndarray of shape (m,)
        S_t^{-1} sum_{i<=t} y_i Phi_i after t learned steps (the regularised least-squares
        minimiser so far; the ridge weight for the next step). The VAW weight w_{t+1} of eq. (9)
        also depends on Phi_{t+1}: :meth:`weights_for`.
    P_ : ndarray of shape (m, m)
        S_t^{-1}.
    t_ : int
        Steps learned.

    Examples
    --------
    The first VAW prediction already uses Phi_1 in S_1 (eq. 9), so it is 0 (b_0 = 0); the second is
    b_1' S_2^{-1} Phi_2 = y_1 phi_1 phi_2 / (lam + phi_1^2 + phi_2^2) in one dimension:

    >>> import numpy as np, omkl_core as ok
    >>> vaw = ok.VAW(lam=1.0)
    >>> vaw.predict_one(np.array([1.0])); vaw.learn_one(np.array([1.0]), 2.0)
    0.0
    >>> vaw.predict_one(np.array([1.0]))           # 2 * 1 * 1 / (1 + 1 + 1)
    0.6666666666666666
    """

    def __init__(self, lam: float = 1.0, *, ridge: bool = False, method: str = "sm",
                 block_size: int | None = None, backend: str = "numpy"):
        super().__init__(lam=lam, ridge=ridge, backend=backend, method=method,
                         block_size=block_size)

    def state_nbytes(self, d: int) -> float:
        """Bytes at the peak of a run on features of dimension ``d``, for a check before any work
        (issue 52): S^{-1} (d, d) and the temporaries of a step, 3 d^2 floats (measured: 14.3 GB
        for d = 30,000, 2 d^2)."""
        return 3.0 * 8.0 * int(d) * int(d)

    def _check_phi(self, phi, name: str = "phi", has_time: bool = False):
        a = super()._check_phi(phi, name, has_time)
        if self.batch_shape_ != ():
            raise ValueError(f"{name} must be {'(T, m)' if has_time else '(m,)'} for a single "
                             f"VAW forecaster, got shape {a.shape} (use VAWExperts for batches)")
        return a

    def predict_one(self, phi) -> float:
        return float(super().predict_one(phi))

    def weights_for(self, phi) -> np.ndarray:
        """The weight vector w_t of eq. (9) that predicts at features phi (ridge: w_)."""
        a = self._check_phi(phi)
        flat = a.reshape(1, -1)
        u, s, r = self._step_quantities(flat)
        if self.ridge:
            return _backend.to_numpy(self._w[0]).copy()
        k = u / (1.0 + s)[:, None]
        return _backend.to_numpy(self._w[0] - k[0] * r[0])   # S_t^{-1} b_{t-1}

    def run(self, Phi, y):
        """Predictions for a stream Phi (T, m), y (T,) -> (T,)."""
        return super().run(Phi, y)
