"""Paper 001 -- Cesa-Bianchi, Shalev-Shwartz & Shamir, "Online Learning of Noisy Data with
Kernels" (COLT 2010): Lemmas 1-3, 5, Theorems 1, 2, 4 and the query counts.
(owner: omkl_core/noisy/)
"""
from __future__ import annotations

import math

import numpy as np

from ..validation import (
    check_int,
    check_p,
    check_positive,
    check_scalar,
)


def paper001_lemma1_expected_samples(p) -> float:
    """Lemma 1: ``E[N] = 1/(p-1)`` samples for ``P(N = n) = (p-1)/p^(n+1)``."""
    p = check_p(p)
    return 1.0 / (p - 1.0)


def paper001_lemma1_tail(p, z) -> float:
    """Lemma 1: ``P(N >= z) = p^-z``."""
    p = check_p(p)
    return p ** (-check_scalar(z, "z"))


def paper001_lemma1_second_moment_bound(f_plus, p, second_moment_x) -> float:
    """Lemma 1: ``E[theta^2] <= p/(p-1) f_+(sqrt(p E[X^2]))^2`` with
    ``f_+(x) = sum_n abs(gamma_n) x^n`` given as a callable."""
    p = check_p(p)
    m2 = check_scalar(second_moment_x, "second_moment_x")
    if m2 < 0:
        raise ValueError(f"second_moment_x must be >= 0, got {m2!r}")
    return p / (p - 1.0) * float(f_plus(math.sqrt(p * m2))) ** 2


def paper001_lemma2_grad_bound(loss, p, B_w, B_psi, y_max: float = 0.0) -> float:
    """Lemma 2: ``E_t[g~_t^2] <= p/(p-1) l'_+(sqrt(p B_w B_Psi))^2`` (classification losses).

    For a regression loss (``l(<w, Psi(x)> - y)``, Sec. 2) ``X = <w, Psi~> - y`` and
    ``E[X^2] <= (sqrt(B_w B_Psi) + y_max)^2``, so the argument becomes
    ``sqrt(p) (sqrt(B_w B_Psi) + y_max)`` (our extension; ``y_max`` is ignored otherwise).
    """
    p = check_p(p)
    B_w = check_positive(B_w, "B_w")
    B_psi = check_positive(B_psi, "B_psi")
    r = math.sqrt(B_w * B_psi)
    if getattr(loss, "kind", "classification") == "regression":
        r += abs(check_scalar(y_max, "y_max"))
    return p / (p - 1.0) * float(loss.derivative_plus(math.sqrt(p) * r)) ** 2


def paper001_lemma3_feature_bound(Q, p, B_x) -> float:
    """Lemma 3: ``E||Psi~(x_t)||^2 <= p/(p-1) Q(p B_x~)`` (dot-product kernels)."""
    p = check_p(p)
    return p / (p - 1.0) * float(Q(p * check_positive(B_x, "B_x")))


def paper001_lemma5_feature_bound(p, B_x, sigma, printed: bool = False) -> float:
    """Lemma 5 (Gaussian kernel ``exp(-||x-x'||^2/sigma^2)``).

    ``printed=True``: the bound as printed, ``(p/(p-1))^2 exp((sqrt(p) B + 2 p sqrt(B))/sigma^2)``.
    Default: the bound that the proof gives once the feature map's square root and the
    dropped square are restored, ``(p/(p-1))^2 exp(2 (sqrt(p) + p) B / sigma^2)``.
    """
    p = check_p(p)
    B = check_positive(B_x, "B_x")
    s2 = check_positive(sigma, "sigma") ** 2
    if printed:
        return (p / (p - 1.0)) ** 2 * math.exp((math.sqrt(p) * B + 2.0 * p * math.sqrt(B)) / s2)
    return (p / (p - 1.0)) ** 2 * math.exp(2.0 * (math.sqrt(p) + p) * B / s2)


def paper001_feature_bound(kernel, p, B_x) -> float:
    """``B_Psi``: Lemma 3 for a dot-product kernel, (corrected) Lemma 5 for a Gaussian one."""
    return float(kernel.feature_norm_bound(p, B_x))


def paper001_theorem1_expected_queries(p) -> float:
    """Thm. 1: expected oracle queries per round ``(1 + E C) E B = p/(p-1)^2``."""
    p = check_p(p)
    return p / (p - 1.0) ** 2


def paper001_theorem2_expected_queries(p) -> float:
    """Thm. 2: expected oracle queries per round ``(1 + E C)(2 E B_1 + E B_2) = 3p/(p-1)^2``."""
    p = check_p(p)
    return 3.0 * p / (p - 1.0) ** 2


def paper001_theorem4_eta(B_w, B_g, B_psi) -> float:
    """Thm. 4: ``eta = sqrt(B_w / (B_g B_Psi))``, in log space: ``B_g B_Psi`` overflows float64
    (Gaussian kernel, small sigma) while ``eta`` itself is representable."""
    log_eta = 0.5 * (math.log(check_positive(B_w, "B_w")) - math.log(check_positive(B_g, "B_g"))
                     - math.log(check_positive(B_psi, "B_psi")))
    return math.exp(log_eta)


def paper001_theorem4_regret_bound(B_w, B_g, B_psi, T) -> float:
    """Thm. 4: ``E[regret] <= sqrt(B_w B_g B_Psi T)``."""
    return math.sqrt(check_positive(B_w, "B_w") * check_positive(B_g, "B_g")
                     * check_positive(B_psi, "B_psi") * check_int(T, "T"))


def paper001_appendixD_linearised_bound(B_w, eta, T, grad_norms_sq) -> float:
    """App. D (pathwise, for every realisation): ``sum_t <w_t - w, g~_t Psi~_t> <=
    (B_w/eta + (eta/T) sum_t ||g~_t Psi~_t||^2) sqrt(T) / 2`` for ``||w||^2 <= B_w``."""

    s = float(np.sum(grad_norms_sq))
    T = check_int(T, "T")
    eta = check_positive(eta, "eta")
    return 0.5 * (check_positive(B_w, "B_w") / eta + eta / T * s) * math.sqrt(T)


def paper001_theorem1_u(Q, p, B_w, B_x) -> float:
    """Thm. 1: ``u = B_w (p/(p-1))^2 Q(p B_x~)``."""
    p = check_p(p)
    return check_positive(B_w, "B_w") * (p / (p - 1.0)) ** 2 * float(Q(p * check_positive(B_x, "B_x")))


def paper001_theorem2_u(p, B_w, B_x, sigma, printed: bool = True) -> float:
    """Thm. 2: ``u = B_w (p/(p-1))^3 exp((sqrt(p) B + 2p sqrt(B))/sigma^2)`` as printed
    (``printed=False``: ``u = B_w p/(p-1) B_Psi`` with the corrected Lemma 5)."""
    p = check_p(p)
    return check_positive(B_w, "B_w") * p / (p - 1.0) * paper001_lemma5_feature_bound(
        p, B_x, sigma, printed=printed)


def paper001_theorem12_eta(loss, p, u, B_w) -> float:
    """Thms. 1-2: ``eta = B_w / (sqrt(u) l'_+(sqrt((p-1) u)))``."""
    p = check_p(p)
    u = check_positive(u, "u")
    return check_positive(B_w, "B_w") / (math.sqrt(u) * float(loss.derivative_plus(math.sqrt((p - 1.0) * u))))


def paper001_theorem12_regret_bound(loss, p, u, T) -> float:
    """Thms. 1-2: ``E[regret] <= l'_+(sqrt((p-1) u)) sqrt(u T)`` (classification losses)."""
    p = check_p(p)
    u = check_positive(u, "u")
    return float(loss.derivative_plus(math.sqrt((p - 1.0) * u))) * math.sqrt(u * check_int(T, "T"))


__all__ = ["paper001_lemma1_expected_samples", "paper001_lemma1_tail",
            "paper001_lemma1_second_moment_bound", "paper001_lemma2_grad_bound",
            "paper001_lemma3_feature_bound", "paper001_lemma5_feature_bound",
            "paper001_feature_bound", "paper001_theorem1_expected_queries",
            "paper001_theorem2_expected_queries", "paper001_theorem4_eta",
            "paper001_theorem4_regret_bound", "paper001_appendixD_linearised_bound",
            "paper001_theorem1_u", "paper001_theorem2_u", "paper001_theorem12_eta",
            "paper001_theorem12_regret_bound"]


