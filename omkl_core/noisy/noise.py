"""Paper 001, Sec. 2: the noise laws and the oracle A_t that returns independent noisy copies x_t + Z_t."""
from __future__ import annotations

import math

import numpy as np

from ..validation import (
    check_int,
    check_matrix,
    check_point,
    check_positive,
    check_scalar,
)


class Oracle:
    """The oracle ``A_t`` of Sec. 2: each query returns an independent copy ``x_t + Z_t``.

    ``query(n)`` returns an ``(n, d)`` array of fresh noisy copies; ``n_queries`` counts all
    copies returned so far (the quantity of Thms. 1-2's first bullet).
    """

    def __init__(self, x, law: NoiseLaw, rng, scale: float = 1.0):
        self.x = check_point(x, name="x")
        self.law = law
        self.rng = rng
        self.scale = float(scale)
        self.n_queries = 0

    @property
    def d(self) -> int:
        return self.x.shape[0]

    def query(self, n: int = 1) -> np.ndarray:
        n = check_int(n, "n", minimum=0)
        self.n_queries += n
        Z = self.law.sample(self.rng, n, self.d)
        return self.x[None, :] + self.scale * Z

    def second_moment(self) -> float:
        """``E||x~||^2 = ||x||^2 + E||Z||^2`` (the ``B_x~`` of Thms. 1-2 for this round)."""
        return float(self.x @ self.x) + self.scale ** 2 * self.law.noise_second_moment(self.d)


class NoiseLaw:
    """A zero-mean noise law on R^d with finite ``E||Z||^2`` (Sec. 2)."""

    def sample(self, rng, n: int, d: int) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def noise_second_moment(self, d: int) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def oracle(self, x, rng, t: int | None = None) -> Oracle:
        """The oracle ``A_t`` for instance ``x`` (``t``: the round, used by adversaries)."""
        return Oracle(x, self, rng)


class NoNoise(NoiseLaw):
    """``Z = 0``: the oracle returns ``x`` itself (the standard, noise-free setting)."""

    def sample(self, rng, n, d):
        return np.zeros((n, d))

    def noise_second_moment(self, d):
        return 0.0


class GaussianNoise(NoiseLaw):
    """``Z ~ N(0, scale^2 I_d)``; ``E||Z||^2 = d scale^2``."""

    def __init__(self, scale: float):
        self.scale = check_positive(scale, "scale")

    def sample(self, rng, n, d):
        return self.scale * rng.standard_normal((n, d))

    def noise_second_moment(self, d):
        return d * self.scale ** 2


class UniformNoise(NoiseLaw):
    """``Z`` uniform on ``[-half_width, half_width]^d``; ``E||Z||^2 = d half_width^2 / 3``."""

    def __init__(self, half_width: float):
        self.half_width = check_positive(half_width, "half_width")

    def sample(self, rng, n, d):
        return rng.uniform(-self.half_width, self.half_width, size=(n, d))

    def noise_second_moment(self, d):
        return d * self.half_width ** 2 / 3.0


class StudentTNoise(NoiseLaw):
    """``Z = scale * t_df`` coordinatewise (heavy tails, finite variance for ``df > 2``);
    ``E||Z||^2 = d scale^2 df / (df - 2)``."""

    def __init__(self, df: float, *, scale: float = 1.0):
        df = check_scalar(df, "df")
        if df <= 2.0:
            raise ValueError(f"df must be > 2 for a finite variance, got {df!r}")
        self.df = df
        self.scale = check_positive(scale, "scale")

    def sample(self, rng, n, d):
        return self.scale * rng.standard_t(self.df, size=(n, d))

    def noise_second_moment(self, d):
        return d * self.scale ** 2 * self.df / (self.df - 2.0)


class LaplaceNoise(NoiseLaw):
    """``Z`` Laplace(0, scale) coordinatewise; ``E||Z||^2 = 2 d scale^2``."""

    def __init__(self, scale: float):
        self.scale = check_positive(scale, "scale")

    def sample(self, rng, n, d):
        return rng.laplace(0.0, self.scale, size=(n, d))

    def noise_second_moment(self, d):
        return 2.0 * d * self.scale ** 2


class CenteredDiscreteNoise(NoiseLaw):
    """``Z = V - E[V]`` for ``V`` uniform (or ``probs``-weighted) on the rows of ``points``.

    With ``points = [[3], [-1]]`` this is Thm. 3's noisy twin (App. F, strategy 2): the
    adversary shows ``E[V] = 1`` plus this noise, so a single copy is distributed exactly as
    a draw from the uniform law on ``{3, -1}``.
    """

    def __init__(self, points, probs=None):
        P = check_matrix(points, "points")
        if probs is None:
            w = np.full(P.shape[0], 1.0 / P.shape[0])
        else:
            w = np.asarray(probs, dtype=np.float64)
            if w.shape != (P.shape[0],) or np.any(w < 0) or not np.isclose(w.sum(), 1.0):
                raise ValueError("probs must be a probability vector with one entry per point")
        self.points, self.probs = P, w
        self.mean = w @ P

    def sample(self, rng, n, d):
        if d != self.points.shape[1]:
            raise ValueError(f"x has dimension {d}, points have {self.points.shape[1]}")
        idx = rng.choice(self.points.shape[0], size=n, p=self.probs)
        return self.points[idx] - self.mean

    def noise_second_moment(self, d):
        C = self.points - self.mean
        return float(self.probs @ np.einsum("ij,ij->i", C, C))


class AdversarialScaleNoise(NoiseLaw):
    """``Z_t = c_t Z`` with ``Z`` from ``base`` and a per-round scale ``c_t`` picked by the
    adversary (Sec. 2: the noise law "may change from round to round").

    ``scales`` is a callable ``t -> c_t`` or a sequence (used cyclically); each scale must
    satisfy ``abs(c_t) <= max_scale`` so that ``E||Z_t||^2 <= max_scale^2 E||Z||^2`` (the
    uniform bound ``a`` of Sec. 2). The round index is the ``t`` given to :meth:`oracle`
    (or an internal counter when omitted).
    """

    def __init__(self, base: NoiseLaw, scales, max_scale: float):
        if not isinstance(base, NoiseLaw):
            raise TypeError("base must be a NoiseLaw")
        self.base = base
        self.max_scale = check_positive(max_scale, "max_scale")
        if callable(scales):
            self._scale = scales
        else:
            arr = np.asarray(scales, dtype=np.float64).reshape(-1)
            if arr.size == 0 or not np.all(np.isfinite(arr)):
                raise ValueError("scales must be a non-empty finite sequence or a callable")
            self._scale = lambda t: float(arr[t % arr.size])
        self._counter = 0

    def scale_at(self, t: int) -> float:
        c = float(self._scale(int(t)))
        if not math.isfinite(c) or abs(c) > self.max_scale:
            raise ValueError(f"scale at round {t} is {c!r}, outside [-max_scale, max_scale]")
        return c

    def sample(self, rng, n, d):
        return self.base.sample(rng, n, d)

    def noise_second_moment(self, d):
        return self.max_scale ** 2 * self.base.noise_second_moment(d)

    def oracle(self, x, rng, t=None):
        if t is None:
            t = self._counter
            self._counter += 1
        return Oracle(x, self.base, rng, scale=self.scale_at(t))


def _as_law(noise) -> NoiseLaw:
    if noise is None:
        return NoNoise()
    if not isinstance(noise, NoiseLaw):
        raise TypeError(f"noise must be a NoiseLaw (e.g. GaussianNoise(0.1)), got {type(noise).__name__}")
    return noise
