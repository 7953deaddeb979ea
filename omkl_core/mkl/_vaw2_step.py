"""VAW2's compiled step: the random features of x_t and the expert layer's forecast in one call.

Paper 000 (Rokhlin & Gurtovaya, arXiv:2503.20087): at step t, for each kernel j of the dictionary,
the features Phi_{theta_j}(x_t) = sqrt(2) cos(<omega_j, x_t> + b_j) (section 2, the cos map), then
expert j's VAW forecast from them (eqs. (9)-(10): the pending rank-1 update of S^{-1} from step
t - 1 fused with u = S_{t-1}^{-1} Phi_t, then r = <w, Phi_t> and s = Phi_t^T u).

:func:`step_forecast` is ``mkl.VAW2``'s ``predict_one`` on the ``"numba"`` engine with oneMKL's
cosine in force: one compiled call in place of the projection, the cosine, the scaling and the
forecast called one by one from Python. Each part is the very code a run executes
(:func:`omkl_core.features.shifted_projection_kernel`, oneMKL's ``vmdCos`` in ``VML_HA`` mode
whose result for an element does not depend on the array it is in, the product by sqrt(2) of
:func:`omkl_core.features.apply_feature_map`, and :func:`omkl_core.vaw.kernels.sm_step_forecast`'s
kernel), so the step's features and forecasts are those of ``VAW2.run`` bit for bit.
"""
from __future__ import annotations

from .. import compiled as _compiled
from ..cosine import vml_call
from ..features import shifted_projection_kernel
from ..vaw.kernels import sm_forecast_kernel

__all__ = ["step_forecast"]


@_compiled.jit
def step_forecast(x2, omega, b, vcos, scale, ridge, F, P, w, V, pending, U, RS, W, Z):  # pragma: no cover  (compiled)
    """Features, forecast quantities and forecasts of one step for the N experts of a cos-map dictionary.

    x2 (1, d) the point x_t; omega (N, d, m), b (N, m) the dictionary's frequencies and shifts;
    ``vcos`` the address of oneMKL's ``vmdCos`` (:func:`omkl_core.cosine.mkl_cos`); ``scale`` sqrt(2)
    (the cos map's factor, :data:`omkl_core.features.COS_FACTOR`); ``ridge``: the experts run online ridge.
    F (N, 1, m) receives Phi_{theta_j}(x_t). P (N, m, m), w (N, m), V (N, m), ``pending``, U (N, m),
    RS (N, 2) and W (an :func:`aligned_rows` (3, m) workspace) are those of
    :func:`omkl_core.vaw.kernels.sm_step_forecast`: U <- u, RS <- (r, s). Z (N,) receives the experts'
    forecasts z_{t,j}: r / (1 + s) (eq. (9)) written as :func:`omkl_core.vaw.kernels.sm_run` writes it,
    r * (1 / (1 + s)); r for online ridge.

    In order: the projection pass of a run's features, ``vmdCos`` in place (as
    :func:`omkl_core.cosine.cos` calls it), the product by sqrt(2), the expert forecast kernel, eq. (9)."""
    N, _, m = F.shape
    shifted_projection_kernel(x2, omega, b, F)           # <omega_j, x_t> + b_j
    vml_call(vcos, N * m, F.ctypes.data, F.ctypes.data)    # cos, in place (vmdCos, VML_HA)
    Phi = F.reshape((N, m))
    for j in range(N):
        for i in range(m):
            Phi[j, i] *= scale                            # sqrt(2) cos(<omega_j, x_t> + b_j)
    sm_forecast_kernel(Phi, P, w, V, pending, U, RS, W, False)
    for j in range(N):
        r = RS[j, 0]
        Z[j] = r if ridge else r * (1.0 / (1.0 + RS[j, 1]))
