"""The literal reference of the VAW expert layer: one VAW per expert, looped in Python.

:func:`naive_expert_layer` applies paper 000 eqs. (9)-(10) as written, expert by expert and step
by step; the tests hold every driver of :class:`omkl_core.vaw.VAWExperts` to it, and
``benchmarks/bench_expert_layer.py`` times the drivers against it.
"""
from __future__ import annotations

import numpy as np

__all__ = ["naive_expert_layer"]


def naive_expert_layer(Phi, y, lam: float = 1.0, ridge: bool = False) -> np.ndarray:
    """Reference: one VAW per expert, looped in Python over experts and time.

    Phi (..., T, m), y (T,) -> Z (..., T). Each expert keeps its own S^{-1} (m x m) and
    b = sum_{i<t} y_i Phi_i and applies paper 000 eqs. (9)-(10) literally:
    S_t^{-1} by Sherman-Morrison, prediction <S_t^{-1} b_{t-1}, Phi_t> (ridge: S_{t-1}^{-1}).
    """
    Phi = np.asarray(Phi, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    batch, (T, m) = Phi.shape[:-2], Phi.shape[-2:]
    flat = Phi.reshape(-1, T, m)
    Z = np.empty((flat.shape[0], T))
    for e in range(flat.shape[0]):                      # loop over experts (the naive part)
        Sinv = np.eye(m) / lam
        b = np.zeros(m)
        for t in range(T):
            phi = flat[e, t]
            if ridge:
                Z[e, t] = phi @ (Sinv @ b)
            u = Sinv @ phi
            Sinv = Sinv - np.outer(u, u) / (1.0 + phi @ u)     # eq. (10)
            if not ridge:
                Z[e, t] = phi @ (Sinv @ b)                    # eq. (9): S_t includes Phi_t
            b = b + y[t] * phi
    return Z.reshape(batch + (T,))
