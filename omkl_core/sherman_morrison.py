"""The Sherman-Morrison core of paper 000 eqs. (9)-(10), in NumPy: one recursion shared by three families.

The VAW expert layer (:class:`omkl_core.vaw.VAWExperts`, :class:`omkl_core.vaw.VAW`), the VAW
meta-learner (:class:`omkl_core.aggregation.VAWMeta`) and online ridge regression
(:class:`omkl_core.ridge.OnlineRidge`, paper 002's Algorithm 1) keep the same state and apply
the same rank-one update; this module holds that update once, batched over any leading axes.
Its compiled form (one loop over experts and steps) is :mod:`omkl_core.vaw.kernels`.
"""
from __future__ import annotations

__all__ = ["sm_predict", "sm_forecast", "sm_update"]


# One recursion, shared by the VAW expert layer (:class:`VAWExperts`, :class:`VAW`), the VAW
# meta-learner (``aggregation.VAWMeta``) and ``ridge.OnlineRidge(solver="sherman-morrison")``.
# State, batched over any leading axes (experts (R, N) or none):
#     P = S_{t-1}^{-1}  (..., m, m),   S_0 = lam I;
#     w = S_{t-1}^{-1} b_{t-1}  (..., m),   b_{t-1} = sum_{i<t} y_i phi_i  (the ridge weights).
# The regulariser is called ``lam`` (lambda of paper 000 eq. (9)); paper 002 calls it ``a``
# (A_0 = aI, A_{t-1} = S_{t-1}, b_{t-1} the same, gamma_t = r below), so ``OnlineRidge(a)`` is the
# ``ridge=True`` forecast with lam = a (tests/test_vaw_family.py checks it).
def sm_predict(P, w, phi):
    """u = S_{t-1}^{-1} phi_t, s = phi_t' S_{t-1}^{-1} phi_t and the ridge forecast r = <w, phi_t>
    (paper 002's gamma_t = b_{t-1}' A_{t-1}^{-1} x_t), for P (..., m, m), w and phi (..., m)."""
    u = (P @ phi[..., None])[..., 0]
    s = (u * phi).sum(axis=-1)
    r = (w * phi).sum(axis=-1)
    return u, s, r


def sm_forecast(r, s, ridge: bool):
    """The forecast from :func:`sm_predict`'s r and s: online ridge r, or VAW
    <S_t^{-1} b_{t-1}, phi_t> = r - s r / (1 + s) = r / (1 + s) (paper 000 eq. (9) with eq. (10))."""
    return r if ridge else r / (1.0 + s)


def sm_update(P, w, u, s, r, y) -> None:
    """Learn y_t in place: P <- S_t^{-1} = P - k u' (paper 000 eq. (10), Sherman-Morrison) and
    w <- S_t^{-1} b_t = w + k (y_t - r) (recursive least squares), k = S_t^{-1} phi_t = u / (1 + s)."""
    k = u / (1.0 + s)[..., None]                        # S_t^{-1} phi_t
    w += k * (y - r)[..., None]
    P -= k[..., :, None] * u[..., None, :]              # eq. (10)

