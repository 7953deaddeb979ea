"""Multi-kernel online regression with VAW experts: the VAW2 family of paper 000.

Paper 000 (Rokhlin & Gurtovaya, "VAW2", arXiv:2503.20087), section 3 (two-level procedure
before Theorem 2) and section 4:

1. *Expert layer.* For each kernel k_j of the dictionary (section 4: 51 Gaussian + 25
   Laplacian, N = 76) draw m random Fourier features Phi_{theta_j}(x) (section 2,
   :mod:`omkl_core.features`) and run the VAW forecaster (eqs. 9-10, :mod:`omkl_core.vaw`)
   on (Phi_{theta_j}(x_t), y_t). Its prediction is z_{t,j} = <w_{t,j}, Phi_{theta_j}(x_t)>;
   z_t = (z_{t,1}, ..., z_{t,N}) (Theorem 2).
2. *Meta layer.* Combine z_t by a meta-learner (:mod:`omkl_core.aggregation`):

   ==================  =====================================================================
   learner             meta-learner on z_t
   ==================  =====================================================================
   ``VAW2``            VAW on z_t, lambda = 1 (Theorem 2; eq. 9-10 on z_t). ``truncate=True``
                       -> "VAW2 (trunc)": VAW on zbar_t = clip(z_t, 0, 1) (eq. 28).
   ``VAWEWA``          EWA eq. (29) on zbar_t, eta = 1/(2(B-A)^2) (Theorem 3); opera's
                       calibrated EWA as an option (``calibrated=True``).
   ``VAWAggr``         Vovk's Aggregating Algorithm, square loss, eta = 2 (section 4).
   ``VAWMLProd``       ML-Prod (opera) on zbar_t.
   ``VAWMLPoly``       ML-Poly (opera's MLpol) on zbar_t.
   ``VAWBOA``          BOA on zbar_t: opera 1.2.0/1.2.1 rule by default (``version="v120"``);
                       ``version="v122"`` = the 1.2.2 (GitHub HEAD) rule (reference A.6).
   ==================  =====================================================================

   Section 4: "all these algorithms, except VAW2, ... should be used with the truncated
   expert predictions ... z_bar_t = min(1, max(z_t, 0))" -- so every learner but plain
   VAW2 clips the expert predictions to ``bounds = (0, 1)`` (the normalised labels, eq. 33).

:func:`expert_predictions` computes the expert layer once per (dataset, repetition) and
returns Z of shape (R, T, N); every meta-learner's ``run(Z, y)`` then reuses it (this is how
notebook p000_vaw2 builds Table 2). The learner classes wrap the same two layers behind the
River-style ``predict_one(x)`` / ``learn_one(x, y)`` and a vectorised ``run(X, y)``; a learner
with ``seed=s`` draws exactly the features of repetition 0 of ``expert_predictions(seed=s)``.
"""
from __future__ import annotations

import functools
import warnings
from collections.abc import Sequence

import numpy as np

from .. import aggregation as _agg
from .. import backend as _backend
from .. import presets as _presets
from ..cosine import mkl_cos
from ..features import COS_FACTOR, MAPS, KernelDictionary, apply_feature_map, check_map, dictionary_spec, shifted_projection
from ..pairing import Pairing
from ..validation import (
    Boolean,
    Check,
    Integer,
    Interval,
    Optional,
    Options,
    Positive,
    Seed,
    check_bool,
    check_int,
    check_magnitude,
    check_matrix,
    check_memory,
    check_positive,
    check_scalar,  # noqa: F401  (a public name of this module, tests/test_public_api.py)
    check_vector,
    describe_labels,
)
from ..vaw import VAWExperts
from ._vaw2_step import step_forecast

__all__ = ["expert_predictions", "feature_blocks", "make_meta", "TABLE2_ROWS", "VARIANT_META",
           "VAW2", "VAWEWA", "VAWAggr", "VAWMLProd", "VAWMLPoly", "VAWBOA"]

#: Default number of time steps whose features are computed by one matrix product.
TIME_BLOCK = 256


def _dictionary_spec(dictionary):
    return dictionary_spec(dictionary, "000")


def _check_dictionary(value, name):
    dictionary_spec(value, "000")


def _check_state_memory(m, feature_map, dictionary, repetitions=1):
    """Refuse an expert layer whose (R, N, m', m') inverses would not fit in memory."""
    n_kernels = len(_dictionary_spec(dictionary)[0])
    m_feat = 2 * m if feature_map == "sincos" else m
    nbytes = 8.0 * repetitions * n_kernels * m_feat * m_feat
    check_memory(nbytes, f"the VAW expert layer (R={repetitions} x N={n_kernels} kernels x "
                         f"{m_feat} x {m_feat} float64 inverses, m={m})")


def draw_dictionaries(d, m, repetitions, seed, dictionary, feature_map, backend):
    """``repetitions`` kernel dictionaries drawn one after another from ``host_rng(seed)``: the random
    features of repetitions 0, 1, ... of :func:`expert_predictions` (and of a learner with ``seed``),
    each a :class:`omkl_core.features.KernelDictionary` of ``m`` features per kernel on ``d`` inputs
    (``dictionary``: None for paper 000's 76 kernels; ``feature_map``: "cos" or "sincos"; ``backend``:
    "numpy" or "cupy")."""
    rng = _backend.host_rng(seed)
    kinds, sigmas = _dictionary_spec(dictionary)
    return [KernelDictionary(kinds, sigmas, d=d, m=m, seed=rng, feature_map=feature_map, backend=backend).reset()
            for _ in range(repetitions)]      # reset(): draw now, one dictionary after another


#: Bytes of features per group of kernels in :func:`feature_blocks` (NumPy backend): a group's
#: product and feature-map passes then stay in a core's L2 cache.
CHUNK_BYTES = 512 * 1024


def feature_blocks(X, dictionaries: Sequence[KernelDictionary], time_block: int = TIME_BLOCK,
                   reuse: bool = False):
    """Yield the features of R dictionaries for consecutive time blocks of X.

    Each block holds the products X_b @ Omega_j (T_b x d times d x m for the R*N kernels j,
    written straight into the (R, N, T_b, m') layout the experts read, time-contiguous per
    expert; for the cos map with the shift b_j added in the same pass,
    :func:`omkl_core.features.shifted_projection`) followed by the feature map in place
    (:func:`omkl_core.features.apply_feature_map`: one transcendental per feature, no
    temporaries), for groups of kernels of about :data:`CHUNK_BYTES` at a time. ``reuse=True`` yields the same
    preallocated buffer each time (a block is valid until the next one is requested: for a
    consumer that uses each block before asking for the next, as ``VAWExperts.run`` does).
    """
    D0 = dictionaries[0]
    xp = D0._xp
    R, N, m, mf = len(dictionaries), D0.N, D0.m, D0.n_features
    omega = xp.concatenate([D.omega_ for D in dictionaries])               # (R*N, d, m)
    b = xp.concatenate([D.b_ for D in dictionaries])[:, None, :]            # (R*N, 1, m)
    Xd = X if xp is np else _backend.asarray(X, xp)
    T = X.shape[0]
    buf = None
    for start in range(0, T, time_block):
        Xb = Xd[start:start + time_block]
        size = R * N * Xb.shape[0] * mf
        if buf is None or not reuse:
            buf = xp.empty(R * N * min(time_block, T - start) * mf, dtype=xp.float64)
        out = buf[:size].reshape(R * N, Xb.shape[0], mf)                    # contiguous
        # kernels in groups of about CHUNK_BYTES of features, so that the product and the feature
        # map's passes over a group run in cache (the same numbers as one batched call: the
        # batched product and the feature map work kernel by kernel anyway)
        step = max(1, CHUNK_BYTES // (8 * Xb.shape[0] * mf)) if xp is np else R * N
        for j in range(0, R * N, step):
            o = out[j:j + step]
            if D0.feature_map == "cos" and xp is np:
                shifted_projection(Xb, omega[j:j + step], b[j:j + step, 0], o)   # x^T omega + b
                apply_feature_map(xp, o, None, "cos", m, out=o)
                continue
            proj = o if D0.feature_map == "cos" else o[..., m:]
            xp.matmul(Xb, omega[j:j + step], out=proj)                      # x^T omega   (., T_b, m)
            apply_feature_map(xp, proj, b[j:j + step], D0.feature_map, m, out=o)
        yield out.reshape(R, N, Xb.shape[0], mf)


def _step_features(D: KernelDictionary, x):
    """The features (N, m') of one point x as :func:`feature_blocks` computes them for a run (the
    same projection and feature-map calls on the row, so ``predict_one`` sees ``run``'s features bit
    for bit), without its per-block set-up for the host cos map."""
    if D.feature_map == "cos" and D._xp is np and D.N * D.m * 8 <= CHUNK_BYTES:   # one group of kernels
        out = np.empty((D.N, 1, D.m))
        shifted_projection(x[None], D.omega_, D.b_, out)                          # x^T omega + b
        return apply_feature_map(np, out, None, "cos", D.m, out=out)[:, 0]
    return next(feature_blocks(x[None], [D], 1))[0, :, 0]


def expert_predictions(X, y, m: int = 50, lam: float = 1.0, repetitions: int = 5, seed=0,
                       dictionary=None, ridge: bool = False, backend: str = "numpy",
                       feature_map: str = "cos", method: str = "auto",
                       time_block: int = TIME_BLOCK, return_dictionaries: bool = False, *,
                       both: bool = False, first_repetition: int = 0):
    """The VAW expert layer of paper 000 for R repetitions: Z (R, T, N), Z[r, t, j] = z_{t,j}.

    Parameters
    ----------
    X (T, d), y (T,) : the stream.
    m : random features per kernel; lam : VAW lambda (section 4: lambda = 1).
    repetitions : R independent draws of the random features (section 4: 5).
    seed : repetition r uses the r-th dictionary drawn from ``backend.host_rng(seed)``.
    first_repetition : the repetitions computed are ``first_repetition .. first_repetition + R - 1``
        of that sequence (default 0): repetition r alone, ``first_repetition=r, repetitions=1``, is
        row r of the batched run bit for bit (paper 000's AR(4), one series per repetition).
    dictionary : None (paper 000's 76 kernels) or (kinds, sigmas).
    ridge : experts run online ridge instead of VAW (TVAW code variant, reference E.1).
    backend : "numpy" | "cupy" | "auto" for features and experts (result on the host).
    feature_map : "cos" (paper) or "sincos" (authors' code form, reference E.2).
    method : VAW driver, "auto" (default), "block", "blocked" or "sm" (see :class:`omkl_core.vaw.VAWExperts`;
        "auto" on the Numba engine is the compiled per-step kernel for m < 150 and the compiled blocked
        Woodbury driver from m = 150 on, the NumPy block driver otherwise).
    return_dictionaries : also return the R :class:`KernelDictionary` objects.
    both : return ``(Z_vaw, Z_ridge)``, the VAW (eq. 9) and the online-ridge expert predictions
        on the same features from one pass (:meth:`omkl_core.vaw.VAWExperts.run_both`: the VAW
        forecast is r / (1 + Phi_t^T S_{t-1}^{-1} Phi_t) for the ridge forecast r, eqs. 9-10),
        each equal bit for bit to the array of a separate call with ``ridge=False`` /
        ``ridge=True``; ``ridge`` must then be False.

    All N x R experts run as one batched VAW (one (R, N, m, m) array of inverses).
    """
    X = check_matrix(X, "X")
    y = check_vector(y, "y", length=X.shape[0])
    m = check_int(m, "m")
    lam = check_positive(lam, "lam")
    repetitions = check_int(repetitions, "repetitions")
    first = check_int(first_repetition, "first_repetition", minimum=0)
    time_block = check_int(time_block, "time_block")
    if check_bool(both, "both") and check_bool(ridge, "ridge"):
        raise ValueError("both=True returns the VAW and the ridge predictions; leave ridge=False")
    feature_map = check_map(feature_map)
    _check_state_memory(m, feature_map, dictionary, repetitions)
    dicts = draw_dictionaries(X.shape[1], m, first + repetitions, seed, dictionary, feature_map, backend)[first:]
    experts = VAWExperts(lam=lam, ridge=ridge, backend=backend, method=method)
    if both:
        Zs = experts.run_both(feature_blocks(X, dicts, time_block, reuse=True), y)     # 2 x (R, N, T)
        Z = tuple(np.ascontiguousarray(a.transpose(0, 2, 1)) for a in Zs)  # 2 x (R, T, N)
    else:
        Z = experts.run(feature_blocks(X, dicts, time_block, reuse=True), y)            # (R, N, T)
        Z = np.ascontiguousarray(Z.transpose(0, 2, 1))                      # (R, T, N)
    return (Z, dicts) if return_dictionaries else Z


# ----------------------------------------------------------------------- Table 2's rows
#: The VAW-family rows of paper 000 Table 2, in the paper's order (row -> class and parameters:
#: :meth:`omkl_core.presets.paper000.vaw_rows`, the one row -> class name map).
TABLE2_ROWS = list(_presets.paper000.vaw_rows("text"))
#: Named variant rows (not in Table 2's text): "VAW-EWA [opera calibrated]" is VAW-EWA with
#: opera's default, online-calibrated EWA (``ewaCalib``, reference A.2) instead of eq. (29)'s
#: fixed eta = 1/(2(B - A)^2). The label before " [" is the published row it is compared with.
VARIANT_META = list(_presets.paper000.vaw_rows("code"))


def make_meta(name: str, **kwargs):
    """A fresh meta-learner for Table 2 row ``name`` (e.g. "VAW2 (trunc)", "VAW-EWA") or for a
    named variant row of :data:`VARIANT_META` (e.g. "VAW-EWA [opera calibrated]").

    The meta-learner of the row's class (:meth:`omkl_core.registry.paper000.vaw_rows`: row ->
    class and parameters) as that class builds it (``meta_`` of a fresh learner), so a Table 2
    row run on stored expert predictions Z is the learner's meta layer, and
    ``Mixture(experts, meta=make_meta(row))`` pairs other experts with it.  ``kwargs``: the
    class's meta-level parameters (``_meta_parameters``, e.g. ``meta_ridge=True`` for
    "VAW2", ``eta`` or ``calibrated`` for "VAW-EWA", ``bounds``) on top of the row's.
    """
    rows = _presets.paper000.vaw_rows()
    if name not in rows:
        raise ValueError(f"unknown algorithm {name!r}; known: {', '.join(rows)}")
    cls_name, params = rows[name]
    cls = globals()[cls_name]         # every row's class is a learner of this module
    unknown = sorted(set(kwargs) - set(cls._meta_parameters))
    if unknown:
        raise TypeError(f"make_meta({name!r}) takes the meta-learner's parameters of {cls_name} "
                        f"({', '.join(cls._meta_parameters)}), got {', '.join(unknown)}")
    own = {k: v for k, v in params.items() if k in cls._meta_parameters}
    return cls(**own, **kwargs).meta_


# ------------------------------------------------------------------------------ learners
class VAWFamily(Pairing):
    """Two-level learner: VAW experts on N kernels' random features + a meta-learner (the public
    base of the VAW family; ``_VAWFamily`` is its name of earlier versions).

    The pairing of :class:`omkl_core.pairing.Pairing` (the protocol, ``weights_``,
    ``expert_predictions_``, ``run``), shared with :class:`omkl_core.mixture.Mixture`, with the
    batched expert layer of paper 000 as its experts: z_{t,j} = <w_{t,j}, Phi_{theta_j}(x_t)>,
    VAW (eqs. 9-10) on kernel j's random features, all N experts one
    :class:`omkl_core.vaw.VAWExperts`. A subclass names its meta-learner (``_make_meta``: the
    class of :mod:`omkl_core.aggregation` and section 4's settings) and the constructor
    parameters that meta-learner reads (``_meta_parameters``).

    Its bound is declared beside it: the meta-learner's own (``meta_.regret_bound``, evaluated by
    ``meta_.stated_bounds``), with the constants of the expert layer that the meta step's bounds of
    paper 000 need -- eq. (25) and Theorem 2, eq. (20), ask for VAW experts (not ridge) on cos
    features and one lambda at both levels -- given by :meth:`bound_constants`;
    :mod:`omkl_core.regret` (``omkl run --regret``) reads both.

    Parameters
    ----------
    m : int, default=50
        Random features per kernel (paper: 50).
    lam : float, default=1.0
        The expert VAW's lambda > 0 (paper: 1).
    seed : int, numpy.random.Generator or None, default=0
        Source of the random features (drawn on the host, see :mod:`omkl_core.features`).
    dictionary : None or (kinds, sigmas), default=None
        None: paper 000's 76 kernels (:func:`omkl_core.features.paper000_sigmas`).
    feature_map : {"cos", "sincos"}, default="cos"
        The random-feature map.
    ridge : bool, default=False
        Experts run online ridge instead of VAW (the TVAW code variant, reference E.1).
    backend : {"numpy", "cupy", "auto"}, default="numpy"
        Where features and experts compute.
    bounds : (float, float) or None, default=(0, 1)
        [A, B] of the labels for truncation (eq. 28; (0, 1) after normalisation, eq. 33); the label
        range the learner assumes (its unnormalised-stream warning; ``TargetScaler``'s "auto" maps the
        labels into it). None: no label range assumed (labels are not checked; ``TargetScaler``
        standardises them); only with ``truncate=False`` where the row truncates.

    Attributes
    ----------
    dictionary_ : KernelDictionary
        The N kernels' random features (drawn at the first step).
    experts_ : VAWExperts
        The N expert forecasters.
    meta_ : meta-learner
        The meta-learner (:mod:`omkl_core.aggregation`).
    weights_ : ndarray of shape (N,)
        Meta weights the next prediction uses (opera's ``coefficients``); None before the first step.
    expert_predictions_ : ndarray of shape (N,)
        z of the last step, before truncation.
    expert_names_ : list of str
        The experts' names, ``"j = 0 (Gaussian, sigma = 0.1)"``, ... (empty when the dictionary
        cannot be read back as kinds and sigmas).
    """

    _parameter_constraints = {
        "m": Integer(1),
        "lam": Positive(),
        "seed": Seed(),
        "dictionary": Check(_check_dictionary, invalid=[3, "gaussian", ("gaussian",)]),
        "feature_map": Options(*MAPS),
        "ridge": Boolean(),
        "backend": Options("numpy", "cupy", "auto"),
        "bounds": Optional(Interval()),
    }
    #: the constructor parameters the meta-learner reads (what :func:`make_meta` takes)
    _meta_parameters: tuple = ("bounds",)

    @classmethod
    def _unit_test_params(cls):
        yield {"m": 6, "seed": 3}

    def __init__(self, *, m: int = 50, lam: float = 1.0, seed=0, dictionary=None,
                 feature_map: str = "cos", ridge: bool = False, backend: str = "numpy",
                 bounds=(0, 1)):
        self.m = m
        self.lam = lam
        self.seed = seed
        self.dictionary = dictionary
        self.feature_map = feature_map
        self.ridge = ridge
        self.backend = backend
        self.bounds = bounds
        super().__init__()

    #: ``run`` over pieces whose lengths are multiples of this gives one run's numbers bit for
    #: bit (the experts' block driver, ``VAWExperts.run_alignment``: a multiple of every
    #: default block size; other pieces: to rounding)
    run_alignment = 32

    def bound_constants(self) -> dict:
        """The constants of the expert layer that the meta step's stated bounds need (paper 000
        eq. (25), Theorem 2): ``m`` random features per kernel, the experts' ``lam``, ``vaw`` (VAW
        experts, not ridge) and the ``feature_map`` ((25) assumes cos features, eq. (24))."""
        return {"m": self.m, "lam": float(self.lam), "vaw": not self.ridge, "feature_map": self.feature_map}

    @property
    def expert_names_(self) -> list:
        """The experts' names: kernel j's kind and bandwidth (class docstring)."""
        try:
            kinds, sigmas = dictionary_spec(self.dictionary, "000")
        except (TypeError, ValueError, AttributeError):
            return []
        return [f"j = {j} ({k.capitalize()}, sigma = {s:g})" for j, (k, s) in enumerate(zip(kinds, sigmas))]

    def _validate_joint(self):
        _check_state_memory(self.m, self.feature_map, self.dictionary)

    def _reset(self):
        """Forget the learned state (the same seed redraws the same features)."""
        _backend.get_namespace(self.backend)
        self.dictionary_ = None
        self.experts_ = None
        super()._reset()

    def _ensure(self, d: int):
        if self.dictionary_ is None:
            self.dictionary_ = draw_dictionaries(d, self.m, 1, self.seed, self.dictionary,
                                                  self.feature_map, self.backend)[0]
            self.experts_ = VAWExperts(lam=self.lam, ridge=self.ridge, backend=self.backend)
        elif d != self.dictionary_.d:
            raise ValueError(f"x has dimension {d}, expected d={self.dictionary_.d}")

    # ---- the experts of the pairing: VAW on each kernel's random features ------------------
    def _predict_experts(self, x):
        """z_t (N,) of the N expert VAWs (eq. 9) on Phi_{theta_j}(x_t); aux: the features."""
        self._ensure(x.shape[0])
        D, experts = self.dictionary_, self.experts_
        if experts.batch_shape_ is None or experts._xp is not np:
            phi = _step_features(D, x)                                      # (N, m'), as run computes them
            z = experts.predict_one(phi)                                    # creates the state
            return np.asarray(z, dtype=np.float64), phi                     # (N,), a fresh array
        vcos = mkl_cos() if D.feature_map == "cos" and experts._compiled_step() else 0
        if not vcos:                                                    # features of a checked x
            phi = _step_features(D, x)
            return np.asarray(experts._predict_flat(phi), dtype=np.float64), phi
        # the compiled step with oneMKL's cosine: features and forecast in one call, run's numbers
        F = np.empty((D.N, 1, D.m))
        phi = F[:, 0]                                                       # (N, m), written by the call
        step = functools.partial(step_forecast, x[None], D.omega_, D.b_, vcos, COS_FACTOR, experts.ridge, F)
        return experts._predict_flat(phi, step), phi                       # (N,), a fresh array

    def _learn_experts(self, x, y, phi):
        cache = self.experts_._cache
        if cache is not None and cache[0] is phi:                           # the forecast of these features
            self.experts_._learn_forecast(y)                                # eq. (10), every expert, from its u
        else:
            self.experts_.learn_one(phi, y)                                 # eq. (10), every expert

    def _expert_stream(self, X, y, time_block: int = TIME_BLOCK):
        """Z (T, N): the expert layer block-wise (features of ``time_block`` steps per product,
        :func:`feature_blocks`; the batched VAW of :class:`VAWExperts`)."""
        self._ensure(X.shape[1])
        blocks = (b[0] for b in feature_blocks(X, [self.dictionary_], time_block, reuse=True))
        return self.experts_.run(blocks, y).T, None                         # (T, N)

    def _check_step(self, x, y) -> None:
        self._warn_unscaled(x, y, stacklevel=4)         # the caller of learn_one

    def _meta_forecast(self, z) -> float:
        return self.meta_._forecast_computed(z)         # the meta-learner of this class: z_t from the experts

    def _learn_meta(self, z, y) -> None:
        self.meta_._learn_checked(z, y)                 # the meta-learner of this class: y_t checked once

    def _check_stream(self, X, y) -> None:
        check_magnitude(X, "X")
        check_magnitude(y, "y")
        self._warn_unscaled(X, y, stacklevel=5)         # the caller of run

    def _warn_unscaled(self, X, y, stacklevel: int) -> None:
        """Warn once when the stream is not scaled as the model assumes: labels in
        ``bounds`` (eq. 33) and ||x_t|| <= 1 (eq. 34), the range the paper's kernel
        bandwidths (section 4) and the truncation (eq. 28) are chosen for."""
        if getattr(self, "_unscaled_warned", False):
            return
        lo, hi = (0.0, 1.0) if self.bounds is None else (float(self.bounds[0]), float(self.bounds[1]))
        if isinstance(y, float) and isinstance(X, np.ndarray) and X.ndim == 1 and lo <= y <= hi \
                and float(X.dot(X)) <= (1.0 + 1e-9) ** 2:
            return                                       # one step, scaled: nothing to say
        Xa = np.atleast_2d(np.asarray(X, dtype=np.float64))
        ya = np.atleast_1d(np.asarray(y, dtype=np.float64))
        norm = float(np.sqrt((Xa * Xa).sum(axis=1)).max()) if Xa.size else 0.0
        lo, hi = (0.0, 1.0) if self.bounds is None else (float(self.bounds[0]), float(self.bounds[1]))
        problems = []
        if self.bounds is not None and ya.size and (ya.min() < lo or ya.max() > hi):   # bounds=None: no label range
            problems.append(f"{describe_labels(ya, self.t_)}, outside [{lo:g}, {hi:g}] (eq. 33)")
        if norm > 1.0 + 1e-9:
            problems.append(f"input x_t with ||x_t|| = {norm:.4g} > 1 at step t = {self.t_ + 1} (eq. 34)"
                            if Xa.shape[0] == 1 else f"inputs with max ||x_t|| = {norm:.4g} > 1 (eq. 34)")
        if problems:
            self._unscaled_warned = True
            self.meta_._range_warned = True    # one warning with the reason, not a second from the meta-learner
            warnings.warn(f"{type(self).__name__}: the stream is not normalised ({'; '.join(problems)}); the kernel "
                          "bandwidths of paper 000 section 4 and the truncation bounds assume normalised data, "
                          "so expect a large error. Normalise it (omkl_core.datasets.normalise_stream; "
                          "omkl run --scale paper)", RuntimeWarning, stacklevel=stacklevel)

    def run(self, X, y, time_block: int = TIME_BLOCK):
        """Predictions for a whole stream (same as the predict_one/learn_one loop, to rounding):
        the expert layer runs block-wise (batched VAW), then the meta-learner over Z (T, N)."""
        return self._run(X, y, time_block=time_block)


#: the name of earlier versions (kept for one release)
_VAWFamily = VAWFamily


class VAW2(VAWFamily):
    """Double VAW: one Vovk-Azoury-Warmuth learner per kernel on random features, and another one combining
    their forecasts (paper 000, Theorem 2).

    VAW2 ("double VAW"), paper 000 Theorem 2: VAW experts + VAW on their predictions.

    Expert j predicts z_{t,j} = <w_{t,j}, Phi_j(x_t)> by VAW (eqs. 9-10) on its kernel's random
    features; the meta VAW predicts <v_t, z_t> by the same eqs. (9)-(10) on z_t.

    Parameters
    ----------
    m, lam, seed, dictionary, feature_map, ridge, backend, bounds
        Shared by the whole VAW family: see ``help(omkl_core.mkl.vaw2.VAWFamily)``; m=50, lam=1.0, seed=0.
    lam_meta : float, default=1.0
        The meta VAW's lambda (section 4: 1).
    truncate : bool, default=False
        True is "VAW2 (trunc)": the meta VAW on zbar_t = clip(z_t, A, B) (eq. 28).
    meta_ridge : bool, default=False
        Online ridge at the meta level too (with ``ridge=True``: the TVAW code form).

    Attributes
    ----------
    weights_ : ndarray of shape (N,)
        S_T^{-1} sum y_i z_i of the meta VAW (signed; Figure 2).

    Examples
    --------
    >>> import omkl_core as ok
    >>> X, y = ok.datasets.load("airfoil")
    >>> model = ok.VAW2(m=10, seed=0)             # 76 kernels x 10 random features
    >>> trace = ok.run_online(model, X[:300], y[:300])
    >>> trace.predictions.shape, model.weights_.shape
    ((300,), (76,))
    >>> bool(trace.mse < y[:300].var())            # better than the best constant in hindsight
    True
    """

    def __init__(self, *, m: int = 50, lam: float = 1.0, lam_meta: float = 1.0,
                 truncate: bool = False, seed=0, dictionary=None, feature_map: str = "cos",
                 ridge: bool = False, meta_ridge: bool = False, backend: str = "numpy",
                 bounds=(0, 1)):
        self.lam_meta = lam_meta
        self.truncate = truncate
        self.meta_ridge = meta_ridge
        super().__init__(m=m, lam=lam, seed=seed, dictionary=dictionary, feature_map=feature_map, ridge=ridge,
                         backend=backend, bounds=bounds)

    _parameter_constraints = {"lam_meta": Positive(), "truncate": Boolean(), "meta_ridge": Boolean()}
    _meta_parameters = ("lam_meta", "truncate", "bounds", "meta_ridge")

    @classmethod
    def _unit_test_params(cls):
        yield {"m": 6, "seed": 3}
        yield {"m": 6, "seed": 3, "truncate": True}

    def _make_meta(self):
        # eqs. (9)-(10) on z_t (lambda = 1, section 4); on zbar_t (eq. 28) for "VAW2 (trunc)"
        return _agg.VAWMeta(lam=self.lam_meta, bounds=tuple(self.bounds) if self.truncate else None,
                            ridge=self.meta_ridge)


class VAWEWA(VAWFamily):
    """VAW2's experts combined by exponentially weighted averaging (paper 000, Theorem 3).

    VAW-EWA, paper 000 Theorem 3: EWA (eq. 29) on truncated expert predictions (eq. 28),
    eta = 1/(2(B-A)^2) by default; ``calibrated=True`` = opera's default EWA (reference A.2),
    ``gradient=True`` = opera's fixed-eta gradient-trick EWA."""

    def __init__(self, *, m: int = 50, lam: float = 1.0, eta=None, calibrated: bool = False,
                 gradient: bool = False, seed=0, dictionary=None, feature_map: str = "cos",
                 ridge: bool = False, backend: str = "numpy", bounds=(0, 1)):
        self.eta, self.calibrated, self.gradient = eta, calibrated, gradient
        super().__init__(m=m, lam=lam, seed=seed, dictionary=dictionary, feature_map=feature_map, ridge=ridge,
                         backend=backend, bounds=bounds)

    _parameter_constraints = {"eta": Optional(Positive()), "calibrated": Boolean(), "gradient": Boolean()}
    _meta_parameters = ("bounds", "eta", "calibrated", "gradient")

    def _make_meta(self):
        if check_bool(self.calibrated, "calibrated"):   # opera's calibrated EWA is its own class
            if self.eta is not None:
                raise ValueError("eta must be None when calibrated=True (the grid is calibrated online)")
            return _agg.CalibratedEWA(bounds=self.bounds)
        return _agg.EWA(eta=self.eta, bounds=self.bounds, gradient=self.gradient)   # eq. (29)


class VAWAggr(VAWFamily):
    """VAW2's experts combined by Vovk's Aggregating Algorithm instead of VAW (paper 000, section 4).

    VAW-Aggr, paper 000 section 4: Vovk's Aggregating Algorithm (square loss, eta = 2 on
    [0, 1], substitution function of reference B) on truncated expert predictions."""

    def __init__(self, *, m: int = 50, lam: float = 1.0, eta=None, seed=0, dictionary=None,
                 feature_map: str = "cos", ridge: bool = False, backend: str = "numpy",
                 bounds=(0, 1)):
        self.eta = eta
        super().__init__(m=m, lam=lam, seed=seed, dictionary=dictionary, feature_map=feature_map, ridge=ridge,
                         backend=backend, bounds=bounds)

    _parameter_constraints = {"eta": Optional(Positive())}
    _meta_parameters = ("bounds", "eta")

    def _make_meta(self):
        return _agg.AggregatingAlgorithm(bounds=self.bounds, eta=self.eta)


class VAWMLProd(VAWFamily):
    """VAW2's experts combined by ML-Prod, as R's opera package codes it (paper 000, section 4).

    VAW-ML-Prod, paper 000 section 4: opera's ML-Prod (reference A.5) on truncated z_t."""

    def _make_meta(self):
        return _agg.MLProd(bounds=self.bounds)


class VAWMLPoly(VAWFamily):
    """VAW2's experts combined by ML-Poly, as R's opera package codes it (paper 000, section 4).

    VAW-ML-Poly, paper 000 section 4: opera's MLpol (reference A.4) on truncated z_t."""

    def _make_meta(self):
        return _agg.MLPoly(bounds=self.bounds)


class VAWBOA(VAWFamily):
    """VAW2's experts combined by Bernstein Online Aggregation, as R's opera package codes it (paper 000,
    section 4).

    VAW-BOA, paper 000 section 4: opera's BOA (reference A.6; ``version="v120"`` = the
    CRAN-era code, default; ``"v122"`` = GitHub HEAD) on truncated z_t."""

    def __init__(self, *, m: int = 50, lam: float = 1.0, version: str = "v120", seed=0,
                 dictionary=None, feature_map: str = "cos", ridge: bool = False,
                 backend: str = "numpy", bounds=(0, 1)):
        self.version = version
        super().__init__(m=m, lam=lam, seed=seed, dictionary=dictionary, feature_map=feature_map, ridge=ridge,
                         backend=backend, bounds=bounds)

    _parameter_constraints = {"version": Options("v120", "v122")}
    _meta_parameters = ("bounds", "version")

    def _make_meta(self):
        return _agg.BOA(version=self.version, bounds=self.bounds)
