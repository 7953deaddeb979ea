"""Paper 001, Sec. 4.2 and Appendix C: the losses of Examples 1-4 with the Taylor coefficients of their derivatives."""
from __future__ import annotations

import math

import numpy as np
from scipy import special

from ..validation import (
    check_positive,
)


class _AnalyticLoss:
    """A convex loss with analytic derivative ``l'(a) = sum_n gamma_n a^n`` (Sec. 2).

    ``kind = "regression"``: the loss is ``l(<w, Psi(x)> - y)``; ``"classification"``:
    ``l(y <w, Psi(x)>)``.
    """

    kind = "regression"

    def __repr__(self) -> str:
        # the constructor's arguments (its public attributes), never a memory address: the repr
        # names test cases (sklearn's parametrize_with_checks), which must be the same in every process
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({args})"

    def margin(self, score, y):
        score = np.asarray(score, float)
        return score - y if self.kind == "regression" else y * score

    def loss(self, score, y):
        return self(self.margin(score, y))

    def taylor(self, n: int) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def log_abs_taylor(self, n: int) -> tuple[float, float]:
        """``(sign(gamma_n), ln|gamma_n|)``, ``(0.0, -inf)`` when ``gamma_n = 0``. Lemma 1's
        estimator multiplies ``gamma_n`` by ``p^(n+1)`` and ``n`` samples; in log space a
        tiny ``gamma_n`` and a huge product cannot give ``0 * inf``. Subclasses whose
        coefficients underflow (``1/n!``) override this with a closed form."""
        g = float(self.taylor(n))
        return (0.0, -math.inf) if g == 0.0 else (math.copysign(1.0, g), math.log(abs(g)))

    def taylor_coefficients(self, n_max: int) -> np.ndarray:
        return np.array([self.taylor(n) for n in range(n_max + 1)])

    def derivative_plus(self, a):
        """``l'_+(a) = sum_n |gamma_n| a^n`` (Thm. 1) for ``a >= 0``, summed to convergence."""
        a = np.asarray(a, float)
        total = np.zeros_like(a)
        n = 0
        with np.errstate(over="ignore", invalid="ignore"):
            return self._sum_plus(a, total, n)

    def _sum_plus(self, a, total, n):
        a = np.abs(a)
        loga = np.log(np.where(a > 0, a, 1.0))
        total = total + abs(self.taylor(0))
        n = 1
        while n < 2000:
            g = abs(self.taylor(n))
            if g > 0:
                # |gamma_n| a^n in log space: a^n alone may overflow while the term does not
                term = np.where(a > 0, np.exp(math.log(g) + n * loga), 0.0)
                total = total + term
            else:
                term = np.zeros_like(a)
            if n > 5 and np.all((term <= 1e-17 * total) | ~np.isfinite(total)):
                break
            n += 1
        return total


class SquaredLoss(_AnalyticLoss):
    """Example 1: ``l(a) = a^2`` (regression: ``a = <w, Psi(x)> - y``); ``l'(a) = 2a``,
    ``gamma_1 = 2``; ``l'_+(a) = 2a``."""

    kind = "regression"

    def __call__(self, a):
        return np.asarray(a, float) ** 2

    def derivative(self, a):
        return 2.0 * np.asarray(a, float)

    def taylor(self, n):
        return 2.0 if n == 1 else 0.0

    def derivative_plus(self, a):
        return 2.0 * np.asarray(a, float)

    def stated_bound(self, a):
        """Example 1: ``l'_+(sqrt((p-1)u)) = 2 sqrt((p-1)u)`` -- an equality."""
        return 2.0 * np.asarray(a, float)


class ExponentialLoss(_AnalyticLoss):
    """Example 2: ``l(a) = e^a`` with ``a = y <w, x>`` as printed (``sign=-1`` gives the usual
    ``e^{-a}``); ``gamma_n = sign^n / n!``; ``l'_+(a) = e^a``."""

    kind = "classification"

    def __init__(self, sign: int = 1):
        if sign not in (1, -1):
            raise ValueError(f"sign must be +1 or -1, got {sign!r}")
        self.sign = sign

    def __call__(self, a):
        return np.exp(self.sign * np.asarray(a, float))

    def derivative(self, a):
        return self.sign * np.exp(self.sign * np.asarray(a, float))

    def taylor(self, n):
        return self.sign ** (n + 1) * math.exp(-math.lgamma(n + 1))     # sign^(n+1) / n!

    def log_abs_taylor(self, n):
        return float(self.sign ** (n + 1)), -math.lgamma(n + 1)

    def derivative_plus(self, a):
        return np.exp(np.asarray(a, float))

    def stated_bound(self, a):
        """Example 2: ``l'_+(a) = e^a`` -- an equality."""
        return np.exp(np.asarray(a, float))


class SmoothedAbsoluteLoss(_AnalyticLoss):
    """Example 3 / App. C: ``l(a) = a erf(s a) + e^{-s^2 a^2} / (s sqrt(pi))`` (the printed
    ``sigma`` in the second term is ``s``), ``l'(a) = erf(s a)``, regression loss.

    ``gamma_(2m+1) = 2/sqrt(pi) (-1)^m s^(2m+1) / (m! (2m+1))``, even ones 0, hence
    ``l'_+(a) = erfi(s a)``.
    """

    kind = "regression"

    def __init__(self, s: float = 1.0):
        self.s = check_positive(s, "s")

    def __call__(self, a):
        a = np.asarray(a, float)
        s = self.s
        return a * special.erf(s * a) + np.exp(-s * s * a * a) / (s * math.sqrt(math.pi))

    def derivative(self, a):
        return special.erf(self.s * np.asarray(a, float))

    def taylor(self, n):
        if n % 2 == 0:
            return 0.0
        sign, log_abs = self.log_abs_taylor(n)
        return sign * math.exp(log_abs)

    def log_abs_taylor(self, n):
        """``gamma_(2m+1) = 2/sqrt(pi) (-1)^m s^(2m+1) / (m! (2m+1))`` in log space."""
        if n % 2 == 0:
            return 0.0, -math.inf
        m = (n - 1) // 2
        return (float((-1) ** m),
                math.log(2.0 / math.sqrt(math.pi)) + n * math.log(self.s) - math.lgamma(m + 1) - math.log(n))

    def derivative_plus(self, a):
        return special.erfi(self.s * np.asarray(a, float))

    def stated_bound(self, a):
        """App. C's bound for this loss with the typos fixed (``sigma -> s``, the ``-1``
        outside the exponent): ``l'_+(a) <= 2 (e^{s^2 a^2} - 1) / (a s sqrt(pi))``, a > 0."""
        a = np.asarray(a, float)
        return 2.0 * np.expm1(self.s ** 2 * a * a) / (a * self.s * math.sqrt(math.pi))

    def printed_bound(self, a):
        """Example 3 as printed in Sec. 4.2: ``1/2 + (e^{s^2 a^2} - 1) / (s sqrt(pi) a)``
        (with ``a = sqrt((p-1)u)``); fails for large ``a`` (see tests)."""
        a = np.asarray(a, float)
        return 0.5 + np.expm1(self.s ** 2 * a * a) / (self.s * math.sqrt(math.pi) * a)


class SmoothedHingeLoss(_AnalyticLoss):
    """Example 4 / App. C: ``l(a) = (a-1)(erf(s(a-1)) - 1)/2 + e^{-s^2 (a-1)^2} / (2 sqrt(pi) s)``,
    ``l'(a) = (erf(s(a-1)) - 1)/2``, classification loss (``a = y <w, Psi(x)>``).

    The Taylor coefficients of ``l'`` about ``a = 0`` (the ones Lemma 1 uses) are
    ``gamma_0 = (erf(-s) - 1)/2`` and, for ``n >= 1``,
    ``gamma_n = s^n H_(n-1)(s) e^{-s^2} / (sqrt(pi) n!)`` (``H`` the physicists' Hermite
    polynomials, from ``erf^(n)(z) = 2/sqrt(pi) (-1)^(n-1) H_(n-1)(z) e^{-z^2}``).
    """

    kind = "classification"

    def __init__(self, s: float = 1.0):
        self.s = check_positive(s, "s")
        self._cache: dict[int, float] = {}
        self._log_cache: dict[int, tuple[float, float]] = {}

    def __call__(self, a):
        a = np.asarray(a, float)
        s = self.s
        b = a - 1.0
        return b * (special.erf(s * b) - 1.0) / 2.0 + np.exp(-s * s * b * b) / (2.0 * math.sqrt(math.pi) * s)

    def derivative(self, a):
        return (special.erf(self.s * (np.asarray(a, float) - 1.0)) - 1.0) / 2.0

    def taylor(self, n):
        """``gamma_n``; ``H_(n-1)(s)`` via the normalised recurrence
        ``h_(k+1) = s sqrt(2/(k+1)) h_k - sqrt(k/(k+1)) h_(k-1)`` for ``h_k = H_k(s)/sqrt(2^k k!)``
        and logarithms, so no factorial or Hermite value overflows."""
        n = int(n)
        if n == 0:
            return (math.erf(-self.s) - 1.0) / 2.0
        if n not in self._cache:
            s = self.s
            h = getattr(self, "_h", [1.0, s * math.sqrt(2.0)])   # h_0, h_1
            while len(h) < n:
                k = len(h) - 1
                h.append(s * math.sqrt(2.0 / (k + 1)) * h[k] - math.sqrt(k / (k + 1)) * h[k - 1])
            self._h = h
            hk = h[n - 1]
            if hk == 0.0:
                g = 0.0
            else:
                logg = (n * math.log(s) + math.log(abs(hk)) + 0.5 * ((n - 1) * math.log(2.0) + math.lgamma(n))
                        - s * s - 0.5 * math.log(math.pi) - math.lgamma(n + 1))
                g = math.copysign(math.exp(logg), hk)
                self._log_cache[n] = (math.copysign(1.0, hk), logg)
            self._cache[n] = g
        return self._cache[n]

    def log_abs_taylor(self, n):
        n = int(n)
        if n == 0:
            return super().log_abs_taylor(0)
        g = self.taylor(n)
        return self._log_cache.get(n, (0.0, -math.inf)) if g == 0.0 or n in self._log_cache else super().log_abs_taylor(n)

    def corrected_bound(self, a):
        """A valid bound (Taylor expansion about 0, not about 1): ``l'_+(a) <= 1/2 +
        erfi(s(a+1))/2 <= 1/2 + (e^{s^2(a+1)^2} - 1) / (s (a+1) sqrt(pi))``; returns the last."""
        b = np.asarray(a, float) + 1.0
        return 0.5 + np.expm1(self.s ** 2 * b * b) / (self.s * b * math.sqrt(math.pi))

    def stated_bound(self, a):
        """App. C's bound for this loss as printed: ``1/2 + (e^{s^2 a^2} - 1)/(a s sqrt(pi))``
        (false near ``a = 0``, where ``l'_+(0) = (1 + erf(s))/2``)."""
        a = np.asarray(a, float)
        return 0.5 + np.expm1(self.s ** 2 * a * a) / (a * self.s * math.sqrt(math.pi))

    def printed_bound(self, a):
        """Example 4 as printed in Sec. 4.2: ``2 e^{s^2 a^2 - 1} / (s sqrt(pi) a)``."""
        a = np.asarray(a, float)
        return 2.0 * np.exp(self.s ** 2 * a * a - 1.0) / (self.s * math.sqrt(math.pi) * a)


def _check_loss(loss):
    if not isinstance(loss, _AnalyticLoss):
        raise TypeError("loss must be one of SquaredLoss, ExponentialLoss, SmoothedAbsoluteLoss, "
                        f"SmoothedHingeLoss, got {type(loss).__name__}")
    return loss
