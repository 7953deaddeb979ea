"""RBF dictionary of paper 004, Example 3: psi(theta_j, x) = exp(-beta ||x - theta_j||^2)."""
from __future__ import annotations

import numpy as np

from ..base import Base
from ..validation import Positive, check_matrix

__all__ = ["RBFDictionary"]


class RBFDictionary(Base):
    """The additive model's RBF features of Example 3.

    Parameters
    ----------
    centers : array of shape (m, d)
        theta_1..theta_m.
    beta : float, default=1.0
        beta > 0.

    Attributes
    ----------
    m_ : int
        Number of centers.

    Examples
    --------
    >>> import numpy as np
    >>> from omkl_core.sparse_additive import RBFDictionary
    >>> RBFDictionary(np.array([[0.0], [1.0]]), beta=1.0).transform(np.array([[0.0]])).round(4).tolist()
    [[1.0, 0.3679]]
    """

    _parameter_constraints = {"beta": Positive()}

    def __init__(self, centers, *, beta=1.0):
        self.centers = centers
        self.beta = beta
        self._validate_params()
        check_matrix(centers, "centers")

    @property
    def m_(self) -> int:
        return check_matrix(self.centers, "centers").shape[0]

    def transform(self, X) -> np.ndarray:
        """Psi with Psi[i, j] = exp(-beta ||x_i - theta_j||^2): shape (n, m)."""
        C = check_matrix(self.centers, "centers")
        X = check_matrix(X, "X")
        if X.shape[1] != C.shape[1]:
            raise ValueError(f"X has {X.shape[1]} features, centers have {C.shape[1]}")
        d2 = (X * X).sum(1)[:, None] - 2.0 * X @ C.T + (C * C).sum(1)[None, :]
        return np.exp(-float(self.beta) * np.maximum(d2, 0.0))

    def rkhs_norm2(self, w) -> float:
        """Eq. (2): ||f||^2 = m sum_j w_j^2 for f = sum_j w_j psi_j, the norm of the RKHS of
        k(x, x') = (1/m) sum_j psi_j(x) psi_j(x') when the psi_j are linearly independent."""
        w = np.asarray(w, dtype=np.float64)
        return float(self.m_ * (w @ w))
