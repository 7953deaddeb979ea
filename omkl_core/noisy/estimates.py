"""Paper 001, Sec. 4.1: the finite data structure that stores estimates Psi~(x) and the Prod matrices between them."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class EstimateStore:
    """A batch of estimates ``Psi~(x_i)`` stored as the paper describes (Sec. 4.1): a finite
    set of vectors of R^d per estimate.

    Both kernels of the paper give estimates of the form ``Psi~ = s * sum_k u_(1,k1)...
    u_(n,kn) e_(n,k1..kn)`` (eq. 2: ``s = sqrt(beta_n) p^(n+1)/(p-1)``, ``u_j = x~^(j)``; eq. 6:
    ``n = N_2``, ``u_j = x~^(2N_1+j)`` and ``s`` the scalar prefactor including the product
    over the ``N_1`` pairs), so that ``<Psi~, Psi~'> = [n = n'] s s' prod_j <u_j, u'_j>``.

    levels  : (m,) int    -- the level ``n`` (block of the feature space) of each estimate;
    scales  : (m,) float  -- the scalar ``s``;
    vectors : (m, L, d)   -- ``u_1..u_n`` padded with zeros to the largest level ``L``;
    copies  : list of (k_i, d) arrays -- all oracle copies used (for the literal Subroutines);
    meta    : list of tuples -- the sampled counts (``(N,)`` or ``(N1, N2)``).
    """

    levels: np.ndarray
    scales: np.ndarray
    vectors: np.ndarray
    copies: list = field(default_factory=list)
    meta: list = field(default_factory=list)

    @classmethod
    def empty(cls, d: int) -> EstimateStore:
        return cls(np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros((0, 0, d)), [], [])

    def __len__(self) -> int:
        return int(self.levels.shape[0])

    @property
    def d(self) -> int:
        return int(self.vectors.shape[2])

    def sq_norms(self) -> np.ndarray:
        """``||Psi~_i||^2 = Prod(Psi~_i, Psi~_i) = s_i^2 prod_j ||u_ij||^2`` for every row."""
        L = self.vectors.shape[1]
        out = self.scales ** 2
        if L > 0:
            nrm = np.einsum("ajd,ajd->aj", self.vectors, self.vectors)
            active = np.arange(L)[None, :] < self.levels[:, None]
            out = out * np.prod(np.where(active, nrm, 1.0), axis=1)
        return out

    def row(self, i: int) -> EstimateStore:
        return EstimateStore(self.levels[i:i + 1], self.scales[i:i + 1], self.vectors[i:i + 1],
                             self.copies[i:i + 1], self.meta[i:i + 1])

    def extend(self, other: EstimateStore) -> None:
        L = max(self.vectors.shape[1], other.vectors.shape[1])
        A = _pad(self.vectors, L)
        B = _pad(other.vectors, L)
        self.vectors = np.concatenate([A, B], axis=0)
        self.levels = np.concatenate([self.levels, other.levels])
        self.scales = np.concatenate([self.scales, other.scales])
        self.copies.extend(other.copies)
        self.meta.extend(other.meta)


def _pad(V: np.ndarray, L: int) -> np.ndarray:
    if V.shape[1] == L:
        return V
    out = np.zeros((V.shape[0], L, V.shape[2]))
    out[:, :V.shape[1]] = V
    return out


def prod_matrix(A: EstimateStore, B: EstimateStore) -> np.ndarray:
    """``Prod(Psi~_a, Psi~_b)`` for every pair (Subroutines 3 / 6, vectorised): an
    ``(len(A), len(B))`` matrix ``[n_a = n_b] s_a s_b prod_{j <= n_a} <u_aj, u_bj>``."""
    L = min(A.vectors.shape[1], B.vectors.shape[1])
    same = A.levels[:, None] == B.levels[None, :]
    out = np.outer(A.scales, B.scales) * same
    if L > 0 and np.any(same):
        dots = np.einsum("ajd,bjd->abj", A.vectors[:, :L], B.vectors[:, :L])
        active = np.arange(L)[None, :] < A.levels[:, None]          # (a, j): j < n_a
        dots = np.where(active[:, None, :], dots, 1.0)
        out = out * np.prod(dots, axis=2)
    return out




def prod_point_matrix(kernel, store: EstimateStore, Xp) -> np.ndarray:
    """``Prod(Psi~_i, x'_k) = <Psi~_i, Psi(x'_k)>`` (Subroutines 4 / 7, vectorised):
    ``s_i h_{n_i}(x'_k) prod_{j <= n_i} <u_ij, x'_k>``, shape ``(len(store), len(Xp))``."""
    Xp = np.atleast_2d(np.asarray(Xp, float))
    L = store.vectors.shape[1]
    out = store.scales[:, None] * kernel.point_factor(store.levels, Xp)
    if L > 0:
        dots = np.einsum("ajd,kd->akj", store.vectors, Xp)
        active = np.arange(L)[None, :] < store.levels[:, None]
        out = out * np.prod(np.where(active[:, None, :], dots, 1.0), axis=2)
    return out
