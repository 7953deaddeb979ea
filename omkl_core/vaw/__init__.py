"""The Vovk-Azoury-Warmuth (VAW) forecaster, single and batched over experts/repetitions.

Paper 000 (Rokhlin & Gurtovaya, "VAW2"), eqs. (9)-(10), on feature vectors Phi_t = Phi_theta(x_t):

    w_t = S_t^{-1} sum_{i<t} y_i Phi_i,      S_t = lambda I + sum_{i<=t} Phi_i Phi_i^T      (9)
    S_t^{-1} = S_{t-1}^{-1} - S_{t-1}^{-1} Phi_t (S_{t-1}^{-1} Phi_t)^T / (1 + Phi_t^T S_{t-1}^{-1} Phi_t),
    S_0^{-1} = lambda^{-1} I                                                                  (10)

and the prediction is y_hat_t = <w_t, Phi_t>. Note S_t already contains Phi_t Phi_t^T when
y_t is predicted (the VAW "forward" step). ``ridge=True`` is *online ridge regression*
instead (Phi_t is **not** added before predicting: y_hat_t = <S_{t-1}^{-1} b_{t-1}, Phi_t>),
the variant of the second author's TVAW code (reference E.1); it is offered only as a named
option.

Notation used in the code (for every expert):
    P = S_{t-1}^{-1},  b_{t-1} = sum_{i<t} y_i Phi_i,  w_ = P b_{t-1} (ridge weights),
    u = P Phi_t,  s = Phi_t^T u,  k = S_t^{-1} Phi_t = u / (1 + s)        (computed once per step)
    ridge prediction  r = <w_, Phi_t>;   VAW prediction  <S_t^{-1} b_{t-1}, Phi_t> = r / (1 + s)
    updates:  P <- P - k u^T  (eq. 10),   w_ <- w_ + k (y_t - r)           (recursive least squares)

The VAW identity used above: Phi^T S_t^{-1} b = Phi^T P b - s Phi^T P b / (1 + s) = r / (1 + s).

One rule, written once in NumPy (the reference, :func:`sm_predict` / :func:`sm_update` in
:mod:`omkl_core.sherman_morrison`, with :func:`naive_expert_layer` in :mod:`omkl_core.vaw.reference`
its literal per-expert loop for the tests) and once as a compiled kernel (:func:`sm_run`, in
:mod:`omkl_core.vaw.kernels`), with one more NumPy driver that a measured case picks:

``method="sm"``
    the per-step Sherman-Morrison recursion (10) on one (..., m, m) array of inverses,
    all experts and repetitions at once: :func:`sm_predict` / :func:`sm_update` (shared with
    ``aggregation.VAWMeta`` and ``ridge.OnlineRidge``) per step; on the ``"numba"`` engine the
    compiled kernel :func:`sm_run` (:func:`_sm_kernel`): one loop over experts and steps that
    keeps only the lower triangle of S^{-1} (cache-line-aligned rows) and makes the symmetric
    rank-1 update P -= v v^T (v = u / sqrt(1 + s)) and the next step's u = P Phi_{t+1} one pass
    over it (:func:`_sm_pass`: 3 m^2 / 2 multiply-adds per step against the 2 m^2 of the full
    matrix, half the memory traffic, row sums in SIMD lanes).
``method="block"``
    the same recursion applied to K steps at a time (Woodbury identity), in NumPy (or CuPy).
    For a block F = [Phi_{t+1}; ...; Phi_{t+K}] (K x m) with P0 = S_t^{-1}, w0,
    C = I + F P0 F^T = G G^T (Cholesky), the sequential Sherman-Morrison steps of (10) are exactly
    the LDL^T factorisation of C:  1 + s_{t+j} = G_jj^2,  the one-step ridge residuals are
    y - r = diag(G) G^{-1} (y - F w0), and after the block
    S_{t+K}^{-1} = P0 - V^T V,  w = w0 + V^T g  with V = G^{-1} F P0, g = G^{-1}(y - F w0).
    All of it is batched matrix algebra (BLAS-3): S^{-1} and w are kept side by side as one
    (..., m, m + 1) array [S^{-1} | w], so a block costs two products of the size of the
    arithmetic floor (F [P0 | w0] and V^T [V | -g]), one small one (G^{-1} [F P0 | F w0 - y]),
    one batched Cholesky and k small products for G^{-1}. The predictions agree with the
    per-step recursion to rounding error (tests: 1e-10).

``method="blocked"`` (issue 54)
    the same Woodbury blocks compiled (:func:`blocked_run`), one loop over experts and blocks whose
    products are BLAS-3 calls on each expert's own S^{-1}: per block of k steps X (k x m) with
    P0 = S_t^{-1}, G = X P0 (``dsymm``), the k x k Cholesky factor L of I + G X^T (the k
    Sherman-Morrison steps of (10) in k x k space: each forecast of eq. (9) exact, from data up to its
    own step), V = L^{-1} G and the rank-k update P0 - G^T (I + X P0 X^T)^{-1} G = P0 - V^T V
    (``dsyrk``, lower triangle only): 3 k m^2 flops per block plus O(k^2 m), against the 4 k m^2 of
    k per-step updates of the full matrix. The BLAS is oneMKL's where ``libmkl_rt`` loads (the
    ``omkl[fast]`` extra), else scipy's OpenBLAS (:func:`~omkl_core.vaw.kernels.blas_routines`: oneMKL
    runs these k x m by m x m products about 1.3x faster). Without the Numba engine it runs the NumPy
    "block" driver.

``method="auto"`` (the default) takes the compiled kernels on the host with the Numba engine -- "sm"
for m < 150 features, "blocked" from m = 150 on (measured, :data:`BLOCKED_MIN_M`) -- and "block"
otherwise (without Numba, with engine ``"numpy"``, or on CuPy): there the
NumPy per-step loop pays one round of NumPy calls per time step, the block driver a few batched
products per K steps (``benchmarks/bench_expert_layer.py`` times the engines and drivers side by
side; its measurements are in ``benchmarks/results/expert_layer.md``). Both engines agree to rounding (tests: 1e-10).

VAW and online ridge from one pass (:meth:`VAWExperts.run_both`): the state recursion does not
depend on which forecast is made, and the VAW forecast is the ridge forecast over 1 + s_t, so
both come from the same pass, each bit for bit equal to its own pass.

The package: :mod:`~omkl_core.vaw.experts` (the classes and the block driver),
:mod:`~omkl_core.vaw.kernels` (the compiled kernels), :mod:`~omkl_core.vaw.reference` (the literal
loop); the Sherman-Morrison step they share with ``aggregation.VAWMeta`` and ``ridge.OnlineRidge``
is one floor down, :mod:`omkl_core.sherman_morrison`.
"""
from __future__ import annotations

from ..sherman_morrison import sm_forecast, sm_predict, sm_update
from ..validation import check_scalar  # noqa: F401  (a public name of this module, tests/test_public_api.py)
from .experts import BLOCK_SIZES, BLOCKED_BLOCK_SIZE, BLOCKED_MIN_M, METHODS, VAW, VAWExperts, default_block_size
from .kernels import aligned_rows, blocked_run, sm_run, sm_step_forecast, sm_step_learn
from .reference import naive_expert_layer

__all__ = ["VAW", "VAWExperts", "METHODS", "BLOCK_SIZES", "BLOCKED_BLOCK_SIZE", "BLOCKED_MIN_M", "default_block_size",
           "naive_expert_layer", "sm_predict", "sm_update", "sm_forecast", "sm_run", "sm_step_forecast", "sm_step_learn",
           "blocked_run", "aligned_rows"]
