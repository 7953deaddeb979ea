"""Right-hand sides of the papers' bounds, as plain functions (DESIGN.md).

Each function returns the number a test compares a measured quantity with; the docstring
names the paper, the equation and the exact form (which losses, which constants).
"""
from __future__ import annotations

import math

from ._validation import check_int, check_positive, check_scalar

__all__ = ["ewa_eta", "aa_eta", "ewa_bound", "aa_bound", "paper000_eq30_rhs"]


# =======================================================================================
# Aggregation (meta-learner) bounds -- seed paper 000 sec. 3, eq. (30); CBL Props. 3.1, 3.2
# (owner: omkl_core/aggregation.py)
# =======================================================================================
def _interval(A, B):
    A = check_scalar(A, "A")
    B = check_scalar(B, "B")
    if not A < B:
        raise ValueError(f"need A < B, got A={A!r}, B={B!r}")
    return A, B


def ewa_eta(A, B) -> float:
    """Largest eta for which the square loss is eta-exp-concave on [A, B]: 1/(2(B-A)^2).

    P000 sec. 3: eta <= 1/(8 Y^2) on [-Y, Y] (CBL sec. 3.3); with B - A = 2Y this is
    1/(2(B-A)^2).  The default learning rate of :class:`omkl_core.aggregation.EWA`.
    """
    A, B = _interval(A, B)
    return 1.0 / (2.0 * (B - A) ** 2)


def aa_eta(A, B) -> float:
    """Mixability constant of the square loss on [A, B]: 2/(B-A)^2 (CBL sec. 3.6; ref. B)."""
    A, B = _interval(A, B)
    return 2.0 / (B - A) ** 2


def ewa_bound(N, A, B, eta=None) -> float:
    """EWA regret bound, P000 eq. (30) / CBL Prop. 3.1, in terms of *full* squared losses.

    For labels and truncated expert forecasts in [A, B] and eta <= 1/(2(B-A)^2):

        sum_t (<alpha_t, zbar_t> - y_t)^2 - min_j sum_t (zbar_{t,j} - y_t)^2 <= ln N / eta.

    With eta = 1/(2(B-A)^2) (default) the right-hand side is 2 (B-A)^2 ln N = 8 Y^2 ln N;
    P000 eq. (30) states the same with the factor 1/2 on both losses: 4 Y^2 ln N
    (:func:`paper000_eq30_rhs`).
    """
    N = check_int(N, "N", minimum=1)
    A, B = _interval(A, B)
    eta_max = ewa_eta(A, B)
    eta = eta_max if eta is None else check_positive(eta, "eta")
    if eta > eta_max * (1 + 1e-12):
        raise ValueError(f"eta must be <= 1/(2(B-A)^2) = {eta_max!r} for bound (30), got {eta!r}")
    return math.log(N) / eta


def aa_bound(N, A, B, eta=None) -> float:
    """Aggregating Algorithm bound (CBL Prop. 3.2; ref. B), full squared losses.

    For labels in [A, B], truncated expert forecasts and eta <= 2/(B-A)^2:

        sum_t (gamma_t - y_t)^2 - min_j sum_t (zbar_{t,j} - y_t)^2 <= ln N / eta,

    i.e. (B-A)^2 ln N / 2 with the default eta = 2/(B-A)^2 (= ln N / 2 on [0, 1]).
    """
    N = check_int(N, "N", minimum=1)
    A, B = _interval(A, B)
    eta_max = aa_eta(A, B)
    eta = eta_max if eta is None else check_positive(eta, "eta")
    if eta > eta_max * (1 + 1e-12):
        raise ValueError(f"eta must be <= 2/(B-A)^2 = {eta_max!r} for the AA bound, got {eta!r}")
    return math.log(N) / eta


def paper000_eq30_rhs(N, Y) -> float:
    """P000 eq. (30) verbatim: R-bar^EWA_{T,j} (half squared losses, [-Y, Y]) <= 4 Y^2 ln N."""
    N = check_int(N, "N", minimum=1)
    Y = check_positive(Y, "Y")
    return 4.0 * Y * Y * math.log(N)


# =====================================================================================
# Paper 000 -- Rokhlin & Gurtovaya, "Random feature-based double Vovk-Azoury-Warmuth
# algorithm for online multi-kernel learning" (arXiv:2503.20087), sections 2-3.
# Right-hand sides of Lemma 1 (6), Lemma 2 (13), the VAW bounds (11)/(12), the meta-VAW
# bounds (24)/(25) and after (28), Theorem 1 (17), Theorem 2 (20) and Theorem 3 (31), in the paper's
# notation. Losses are the paper's *halved* square losses: R_T(w) = 1/2 sum (<x_t, w_t> - y_t)^2
# - 1/2 sum (<x_t, w> - y_t)^2, and ``comparator_loss`` below is 1/2 sum_t (f(x_t) - y_t)^2.
# (EWA bound (30): ``paper000_eq30_rhs`` above.) Checked in tests/test_theory_paper000.py.
# =====================================================================================

def _p000_pos(value, name):
    return check_positive(value, name)


def _p000_nonneg(value, name):
    value = check_scalar(value, name)
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return value


def _p000_int(value, name):
    return check_int(value, name, minimum=1)


def paper000_lemma1_variance_bound(f_norm_sq: float, m: int) -> float:
    """Lemma 1, eq. (6), first part: E_theta(<w_hat, Phi_theta(x)> - f(x))^2 <= 2 ||f||_H^2 / m.

    ``f_norm_sq`` = ||f||_H^2, ``m`` = number of random features.
    """
    return 2.0 * _p000_nonneg(f_norm_sq, "f_norm_sq") / _p000_int(m, "m")


def paper000_lemma1_weight_norm(f_norm_sq: float, m: int) -> float:
    """Lemma 1, eq. (6), second part (an equality): E_theta ||w_hat||_2^2 = ||f||_H^2 / m."""
    return _p000_nonneg(f_norm_sq, "f_norm_sq") / _p000_int(m, "m")


def paper000_lemma2_bound(f_norm_sq: float, N: int, m: int, f_x: float, y: float) -> float:
    """Lemma 2, eq. (13): E_theta(sum_j <w_hat_j, Phi_theta_j(x)> - y)^2
    <= 2 (N/m) ||f||_H^2 + (f(x) - y)^2, for f = f_1 + ... + f_N in H = H_1 + ... + H_N with
    ||f||_H^2 = sum_j ||f_j||_{H_j}^2 (``f_x`` = f(x))."""
    N = _p000_int(N, "N")
    m = _p000_int(m, "m")
    r = check_scalar(f_x, "f_x") - check_scalar(y, "y")
    return 2.0 * N / m * _p000_nonneg(f_norm_sq, "f_norm_sq") + r * r


def vaw_regret_bound(lam: float, w_norm_sq: float, m: int, Y: float, T: int,
                     rho: float | None = None) -> float:
    """Regret bound of the VAW forecaster (paper 000 eqs. 11 and 12; CBL Theorem 11.8).

    (11): R_T(w) <= lam/2 ||w||_2^2 + m Y^2 / 2 * ln(1 + rho^2 T / (lam m)), whenever
    ||Phi_t||_2 <= rho and |y_t| <= Y; ``m`` is the dimension of the feature vectors.
    (12): ``rho=None`` uses the random-Fourier-feature value rho^2 = 2m (features
    sqrt(2) cos(<omega, x> + b)), i.e. R_T(w) <= lam/2 ||w||^2 + m Y^2/2 * ln(1 + 2T/lam).
    """
    lam = _p000_pos(lam, "lam")
    m = _p000_int(m, "m")
    T = _p000_int(T, "T")
    Y = _p000_nonneg(Y, "Y")
    rho_sq = 2.0 * m if rho is None else _p000_nonneg(rho, "rho") ** 2
    return 0.5 * lam * _p000_nonneg(w_norm_sq, "w_norm_sq") + 0.5 * m * Y * Y * math.log1p(
        rho_sq * T / (lam * m))


def paper000_expert_prediction_bound(N: int, m: int, Y: float, T: int, lam: float) -> float:
    """Eq. (24): sum_j z_{t,j}^2 <= Z_T^2 := 2(T+1) N Y^2 + 2 m N Y^2 ln(1 + 2T/lam), for the
    predictions z_{t,j} = <w_{t,j}, Phi_theta_j(x_t)> of N VAW experts on m random features,
    every t <= T (returns Z_T^2)."""
    N = _p000_int(N, "N")
    m = _p000_int(m, "m")
    T = _p000_int(T, "T")
    Y = _p000_nonneg(Y, "Y")
    lam = _p000_pos(lam, "lam")
    return 2.0 * (T + 1) * N * Y * Y + 2.0 * m * N * Y * Y * math.log1p(2.0 * T / lam)


def paper000_meta_vaw_regret_bound(delta_norm_sq: float, N: int, m: int, Y: float, T: int,
                                   lam: float) -> float:
    """Eq. (25): regret of the meta VAW on the expert predictions z_t w.r.t. delta in R^N:
    R_T(delta) <= lam/2 ||delta||^2 + N Y^2/2 ln(1 + N Y^2/lam (2T(T+1) + 2mT ln(1 + 2T/lam)))."""
    N = _p000_int(N, "N")
    m = _p000_int(m, "m")
    T = _p000_int(T, "T")
    Y = _p000_nonneg(Y, "Y")
    lam = _p000_pos(lam, "lam")
    inner = 2.0 * T * (T + 1) + 2.0 * m * T * math.log1p(2.0 * T / lam)
    return (0.5 * lam * _p000_nonneg(delta_norm_sq, "delta_norm_sq")
            + 0.5 * N * Y * Y * math.log1p(N * Y * Y / lam * inner))


def paper000_truncated_meta_vaw_regret_bound(N: int, Y: float, T: int, lam: float) -> float:
    """After eq. (28) (unnumbered): VAW on the truncated predictions zbar_t in [-Y, Y]^N has
    Rbar_T(delta) <= lam/2 + N Y^2/2 ln(1 + Y^2 T/lam) for every delta in the simplex
    ((11) with rho^2 = N Y^2 and ||delta||^2 <= 1)."""
    N = _p000_int(N, "N")
    T = _p000_int(T, "T")
    Y = _p000_nonneg(Y, "Y")
    lam = _p000_pos(lam, "lam")
    return 0.5 * lam + 0.5 * N * Y * Y * math.log1p(Y * Y * T / lam)


def paper000_theorem1_bound(comparator_loss: float, f_norm_sq: float, N: int, m: int,
                            Y: float, T: int, lam: float) -> float:
    """Theorem 1, eq. (17): VAW on the concatenated N*m random features (16),
    1/2 E_theta sum_t (<w_t, Phi_theta(x_t)> - y_t)^2
    <= 1/2 sum_t (f(x_t) - y_t)^2 + (lam/2 + N T) ||f||_H^2 / m + N m Y^2/2 ln(1 + 2T/lam)
    for every f in the RKHS H of k = k_1 + ... + k_N (``comparator_loss`` = the first term)."""
    N = _p000_int(N, "N")
    m = _p000_int(m, "m")
    T = _p000_int(T, "T")
    Y = _p000_nonneg(Y, "Y")
    lam = _p000_pos(lam, "lam")
    return (_p000_nonneg(comparator_loss, "comparator_loss")
            + (0.5 * lam + N * T) * _p000_nonneg(f_norm_sq, "f_norm_sq") / m
            + 0.5 * N * m * Y * Y * math.log1p(2.0 * T / lam))


def paper000_theorem2_bound(comparator_loss: float, f_norm_sq: float, N: int, m: int,
                            Y: float, T: int, lam: float) -> float:
    """Theorem 2, eq. (20) (VAW2: VAW experts on each kernel's m features, VAW meta-learner),
    1/2 E_theta sum_t (<alpha_t, z_t> - y_t)^2
    <= 1/2 sum_t (y_t - f_j(x_t))^2 + lam/2 + (lam/2 + T) ||f_j||_{H_j}^2 / m
       + m Y^2/2 ln(1 + 2T/lam)
       + N Y^2/2 ln(1 + N Y^2/lam (2T(T+1) + 2mT ln(1 + 2T/lam)))
    for every j and f_j in H_j (``comparator_loss`` = 1/2 sum_t (y_t - f_j(x_t))^2)."""
    N = _p000_int(N, "N")
    m = _p000_int(m, "m")
    T = _p000_int(T, "T")
    Y = _p000_nonneg(Y, "Y")
    lam = _p000_pos(lam, "lam")
    inner = 2.0 * T * (T + 1) + 2.0 * m * T * math.log1p(2.0 * T / lam)
    return (_p000_nonneg(comparator_loss, "comparator_loss") + 0.5 * lam
            + (0.5 * lam + T) * _p000_nonneg(f_norm_sq, "f_norm_sq") / m
            + 0.5 * m * Y * Y * math.log1p(2.0 * T / lam)
            + 0.5 * N * Y * Y * math.log1p(N * Y * Y / lam * inner))


def paper000_theorem3_bound(comparator_loss: float, f_norm_sq: float, N: int, m: int,
                            Y: float, T: int, lam: float) -> float:
    """Theorem 3, eq. (31) (VAW-EWA: VAW experts, EWA (29) on truncated predictions (28)),
    1/2 E_theta sum_t (<alpha_t, zbar_t> - y_t)^2
    <= 1/2 sum_t (f_j(x_t) - y_t)^2 + 4 Y^2 ln N + (lam/2 + T) ||f_j||_{H_j}^2 / m
       + m Y^2/2 ln(1 + 2T/lam)
    for every j and f_j in H_j (``comparator_loss`` = 1/2 sum_t (f_j(x_t) - y_t)^2)."""
    N = _p000_int(N, "N")
    m = _p000_int(m, "m")
    T = _p000_int(T, "T")
    Y = _p000_nonneg(Y, "Y")
    lam = _p000_pos(lam, "lam")
    return (_p000_nonneg(comparator_loss, "comparator_loss") + 4.0 * Y * Y * math.log(N)
            + (0.5 * lam + T) * _p000_nonneg(f_norm_sq, "f_norm_sq") / m
            + 0.5 * m * Y * Y * math.log1p(2.0 * T / lam))


__all__ += ["paper000_lemma1_variance_bound", "paper000_lemma1_weight_norm",
            "paper000_lemma2_bound", "vaw_regret_bound", "paper000_expert_prediction_bound",
            "paper000_meta_vaw_regret_bound", "paper000_truncated_meta_vaw_regret_bound",
            "paper000_theorem1_bound", "paper000_theorem2_bound", "paper000_theorem3_bound"]


# =====================================================================================
# Paper 001 -- Cesa-Bianchi, Shalev-Shwartz & Shamir, "Online Learning of Noisy Data with
# Kernels" (COLT 2010): Lemmas 1-3, 5, Theorems 1, 2, 4 and the query counts.
# (owner: omkl_core/noisy.py)
# =====================================================================================
def _p001_p(p):
    p = check_scalar(p, "p")
    if p <= 1.0:
        raise ValueError(f"p must be > 1, got {p!r}")
    return p


def paper001_lemma1_expected_samples(p) -> float:
    """Lemma 1: ``E[N] = 1/(p-1)`` samples for ``P(N = n) = (p-1)/p^(n+1)``."""
    p = _p001_p(p)
    return 1.0 / (p - 1.0)


def paper001_lemma1_tail(p, z) -> float:
    """Lemma 1: ``P(N >= z) = p^-z``."""
    p = _p001_p(p)
    return p ** (-check_scalar(z, "z"))


def paper001_lemma1_second_moment_bound(f_plus, p, second_moment_x) -> float:
    """Lemma 1: ``E[theta^2] <= p/(p-1) f_+(sqrt(p E[X^2]))^2`` with
    ``f_+(x) = sum_n abs(gamma_n) x^n`` given as a callable."""
    p = _p001_p(p)
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
    p = _p001_p(p)
    B_w = check_positive(B_w, "B_w")
    B_psi = check_positive(B_psi, "B_psi")
    r = math.sqrt(B_w * B_psi)
    if getattr(loss, "kind", "classification") == "regression":
        r += abs(check_scalar(y_max, "y_max"))
    return p / (p - 1.0) * float(loss.derivative_plus(math.sqrt(p) * r)) ** 2


def paper001_lemma3_feature_bound(Q, p, B_x) -> float:
    """Lemma 3: ``E||Psi~(x_t)||^2 <= p/(p-1) Q(p B_x~)`` (dot-product kernels)."""
    p = _p001_p(p)
    return p / (p - 1.0) * float(Q(p * check_positive(B_x, "B_x")))


def paper001_lemma5_feature_bound(p, B_x, sigma, printed: bool = False) -> float:
    """Lemma 5 (Gaussian kernel ``exp(-||x-x'||^2/sigma^2)``).

    ``printed=True``: the bound as printed, ``(p/(p-1))^2 exp((sqrt(p) B + 2 p sqrt(B))/sigma^2)``.
    Default: the bound that the proof gives once the feature map's square root and the
    dropped square are restored, ``(p/(p-1))^2 exp(2 (sqrt(p) + p) B / sigma^2)``.
    """
    p = _p001_p(p)
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
    p = _p001_p(p)
    return p / (p - 1.0) ** 2


def paper001_theorem2_expected_queries(p) -> float:
    """Thm. 2: expected oracle queries per round ``(1 + E C)(2 E B_1 + E B_2) = 3p/(p-1)^2``."""
    p = _p001_p(p)
    return 3.0 * p / (p - 1.0) ** 2


def paper001_theorem4_eta(B_w, B_g, B_psi) -> float:
    """Thm. 4: ``eta = sqrt(B_w / (B_g B_Psi))``."""
    return math.sqrt(check_positive(B_w, "B_w") / (check_positive(B_g, "B_g")
                                                    * check_positive(B_psi, "B_psi")))


def paper001_theorem4_regret_bound(B_w, B_g, B_psi, T) -> float:
    """Thm. 4: ``E[regret] <= sqrt(B_w B_g B_Psi T)``."""
    return math.sqrt(check_positive(B_w, "B_w") * check_positive(B_g, "B_g")
                     * check_positive(B_psi, "B_psi") * check_int(T, "T"))


def paper001_appendixD_linearised_bound(B_w, eta, T, grad_norms_sq) -> float:
    """App. D (pathwise, for every realisation): ``sum_t <w_t - w, g~_t Psi~_t> <=
    (B_w/eta + (eta/T) sum_t ||g~_t Psi~_t||^2) sqrt(T) / 2`` for ``||w||^2 <= B_w``."""
    import numpy as np  # noqa: PLC0415

    s = float(np.sum(grad_norms_sq))
    T = check_int(T, "T")
    eta = check_positive(eta, "eta")
    return 0.5 * (check_positive(B_w, "B_w") / eta + eta / T * s) * math.sqrt(T)


def paper001_theorem1_u(Q, p, B_w, B_x) -> float:
    """Thm. 1: ``u = B_w (p/(p-1))^2 Q(p B_x~)``."""
    p = _p001_p(p)
    return check_positive(B_w, "B_w") * (p / (p - 1.0)) ** 2 * float(Q(p * check_positive(B_x, "B_x")))


def paper001_theorem2_u(p, B_w, B_x, sigma, printed: bool = True) -> float:
    """Thm. 2: ``u = B_w (p/(p-1))^3 exp((sqrt(p) B + 2p sqrt(B))/sigma^2)`` as printed
    (``printed=False``: ``u = B_w p/(p-1) B_Psi`` with the corrected Lemma 5)."""
    p = _p001_p(p)
    return check_positive(B_w, "B_w") * p / (p - 1.0) * paper001_lemma5_feature_bound(
        p, B_x, sigma, printed=printed)


def paper001_theorem12_eta(loss, p, u, B_w) -> float:
    """Thms. 1-2: ``eta = B_w / (sqrt(u) l'_+(sqrt((p-1) u)))``."""
    p = _p001_p(p)
    u = check_positive(u, "u")
    return check_positive(B_w, "B_w") / (math.sqrt(u) * float(loss.derivative_plus(math.sqrt((p - 1.0) * u))))


def paper001_theorem12_regret_bound(loss, p, u, T) -> float:
    """Thms. 1-2: ``E[regret] <= l'_+(sqrt((p-1) u)) sqrt(u T)`` (classification losses)."""
    p = _p001_p(p)
    u = check_positive(u, "u")
    return float(loss.derivative_plus(math.sqrt((p - 1.0) * u))) * math.sqrt(u * check_int(T, "T"))


__all__ += ["paper001_lemma1_expected_samples", "paper001_lemma1_tail",
            "paper001_lemma1_second_moment_bound", "paper001_lemma2_grad_bound",
            "paper001_lemma3_feature_bound", "paper001_lemma5_feature_bound",
            "paper001_feature_bound", "paper001_theorem1_expected_queries",
            "paper001_theorem2_expected_queries", "paper001_theorem4_eta",
            "paper001_theorem4_regret_bound", "paper001_appendixD_linearised_bound",
            "paper001_theorem1_u", "paper001_theorem2_u", "paper001_theorem12_eta",
            "paper001_theorem12_regret_bound"]


# =====================================================================================
# Paper 002 -- Zhdanov & Vovk, "Competing with Gaussian linear experts" (2009):
# right-hand sides of the equalities of Theorems 1-4 (computed in batch, independently of
# the online recursions in omkl_core/linear.py), the regret term of (16), the bounds
# (2), (3), (4), (15), (18) and the kernel log-det bound stated after (18).
# (owner: omkl_core/linear.py)
# =====================================================================================
import numpy as _np  # noqa: E402
import scipy.linalg as _sla  # noqa: E402

from ._validation import check_matrix as _check_matrix  # noqa: E402
from ._validation import check_vector as _check_vector  # noqa: E402


def _p002_X(X, a):
    return _check_matrix(X, "X"), check_positive(a, "a")


def _p002_K(K, a):
    K = _check_matrix(K, "K")
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be a square Gram matrix, got shape {K.shape}")
    return K, check_positive(a, "a")


def paper002_ridge_minimiser(X, y, a) -> _np.ndarray:
    """theta_0 = argmin_theta sum_t (y_t - theta'x_t)^2 + a||theta||^2, by least squares on
    the stacked system [X; sqrt(a) I] theta = [y; 0] (batch, no online recursion)."""
    X, a = _p002_X(X, a)
    y = _check_vector(y, "y", length=X.shape[0])
    n = X.shape[1]
    Z = _np.vstack([X, math.sqrt(a) * _np.eye(n)])
    return _np.linalg.lstsq(Z, _np.concatenate([y, _np.zeros(n)]), rcond=None)[0]


def _p002_log_loss_min(T: int, sigma2: float, square_min: float) -> float:
    """min over experts of L_T + a/(2 sigma^2)||.||^2 for the Gaussian log loss (11), given the
    square-loss minimum ``square_min`` of (1)/(17): (T/2) ln(2 pi sigma^2) + square_min/(2 sigma^2)."""
    return 0.5 * T * math.log(2.0 * math.pi * sigma2) + square_min / (2.0 * sigma2)


def paper002_theorem1_rhs(X, y, a) -> float:
    """Right-hand side of (1): min_theta (sum_t (y_t - theta'x_t)^2 + a||theta||^2)."""
    theta = paper002_ridge_minimiser(X, y, a)
    X, a = _p002_X(X, a)
    r = _np.asarray(y, dtype=_np.float64) - X @ theta
    return float(r @ r + a * theta @ theta)


def paper002_logdet(X, a) -> float:
    """ln det(I + (1/a) sum_t x_t x_t') (slogdet); the regret term of (2) and (14). By (16)
    it equals sum_t ln(1 + x_t'A_{t-1}^{-1}x_t)."""
    X, a = _p002_X(X, a)
    return float(_np.linalg.slogdet(_np.eye(X.shape[1]) + X.T @ X / a)[1])


def paper002_theorem2_rhs(X, y, a, sigma2) -> float:
    """Right-hand side of (14): min_theta (L_T(theta) + a/(2 sigma^2)||theta||^2)
    + (1/2) ln det(I + (1/a) sum x_t x_t'), with L_T(theta) the log loss of the expert
    N(theta'x_t, sigma^2) (11): L_T(theta) = (T/2) ln(2 pi sigma^2) + sum (y_t - theta'x_t)^2/(2 sigma^2)."""
    sigma2 = check_positive(sigma2, "sigma2")
    X, a = _p002_X(X, a)
    T = X.shape[0]
    return _p002_log_loss_min(T, sigma2, paper002_theorem1_rhs(X, y, a)) + 0.5 * paper002_logdet(X, a)


def paper002_eq3_bound(T, n, a, X_inf) -> float:
    """(3): ln det(I + (1/a) sum x_t x_t') <= n ln(1 + T X^2/a) when ||x_t||_inf <= X."""
    T = check_int(T, "T", minimum=0)
    n = check_int(n, "n", minimum=1)
    a = check_positive(a, "a")
    X_inf = check_scalar(X_inf, "X_inf")
    if X_inf < 0:
        raise ValueError(f"X_inf must be >= 0, got {X_inf!r}")
    return n * math.log1p(T * X_inf * X_inf / a)


def paper002_corollary1_bound(X, y, a, Y) -> float:
    """(2): min_theta(...) + 4 Y^2 ln det(I + (1/a) sum x_t x_t'), for |y_t| <= Y; bounds the
    square loss of Ridge Regression clipped to [-Y, Y]."""
    Y = check_scalar(Y, "Y")
    if Y < 0:
        raise ValueError(f"Y must be >= 0, got {Y!r}")
    return paper002_theorem1_rhs(X, y, a) + 4.0 * Y * Y * paper002_logdet(X, a)


def paper002_corollary2_bound(X, y, a, Z=None) -> float:
    """(4): (1 + Z^2/a) min_theta(...) for ||x_t||_2 <= Z (default Z = max_t ||x_t||_2);
    bounds the unclipped square loss of Ridge Regression."""
    X, a = _p002_X(X, a)
    Z = float(_np.sqrt((X * X).sum(axis=1)).max()) if Z is None else check_scalar(Z, "Z")
    return (1.0 + Z * Z / a) * paper002_theorem1_rhs(X, y, a)


def paper002_eq15_bound(X, y, a, sigma2, X_inf=None) -> float:
    """(15): min_theta (L_T(theta) + a/(2 sigma^2)||theta||^2) + (n/2) ln(1 + T X^2/a), for
    ||x_t||_inf <= X (default X = max_t ||x_t||_inf); bounds L_T of Bayesian Ridge Regression."""
    X, a = _p002_X(X, a)
    T, n = X.shape
    X_inf = float(_np.abs(X).max()) if X_inf is None else X_inf
    sigma2 = check_positive(sigma2, "sigma2")
    reg_min = _p002_log_loss_min(T, sigma2, paper002_theorem1_rhs(X, y, a))
    return reg_min + 0.5 * paper002_eq3_bound(T, n, a, X_inf)


def paper002_kernel_ridge_dual(K, y, a) -> _np.ndarray:
    """Dual coefficients c = (K + aI)^{-1} y of the batch minimiser f = sum_i c_i K(x_i, .) of
    sum_t (y_t - f(x_t))^2 + a||f||_F^2 (representer theorem; scipy Cholesky solve)."""
    K, a = _p002_K(K, a)
    y = _check_vector(y, "y", length=K.shape[0])
    return _sla.solve(K + a * _np.eye(K.shape[0]), y, assume_a="pos")


def paper002_theorem3_rhs(K, y, a) -> float:
    """Right-hand side of (17): min_{f in F} (sum_t (y_t - f(x_t))^2 + a||f||_F^2), evaluated
    at the batch minimiser: sum_t (y_t - (Kc)_t)^2 + a c'Kc."""
    c = paper002_kernel_ridge_dual(K, y, a)
    K, a = _p002_K(K, a)
    r = _np.asarray(y, dtype=_np.float64) - K @ c
    return float(r @ r + a * c @ K @ c)


def paper002_kernel_logdet(K, a) -> float:
    """ln det(I + K_T/a), the regret term of Theorem 4 and (18)."""
    K, a = _p002_K(K, a)
    return float(_np.linalg.slogdet(_np.eye(K.shape[0]) + K / a)[1])


def paper002_theorem4_rhs(K, y, a, sigma2) -> float:
    """Right-hand side of Theorem 4: min_f (L_T(f) + a/(2 sigma^2)||f||^2) + (1/2) ln det(I + K_T/a)."""
    sigma2 = check_positive(sigma2, "sigma2")
    K, a = _p002_K(K, a)
    T = K.shape[0]
    return _p002_log_loss_min(T, sigma2, paper002_theorem3_rhs(K, y, a)) + 0.5 * paper002_kernel_logdet(K, a)


def paper002_corollary4_bound(K, y, a, Y) -> float:
    """(18): min_f (...) + 4 Y^2 ln det(I + K_T/a), for |y_t| <= Y (clipped kernel ridge)."""
    Y = check_scalar(Y, "Y")
    if Y < 0:
        raise ValueError(f"Y must be >= 0, got {Y!r}")
    return paper002_theorem3_rhs(K, y, a) + 4.0 * Y * Y * paper002_kernel_logdet(K, a)


def paper002_kernel_logdet_bound(T, a, c2) -> float:
    """After (18): ln det(I + K_T/a) <= T ln(1 + c_F^2/a), c_F^2 = sup_x K(x, x)."""
    T = check_int(T, "T", minimum=0)
    a = check_positive(a, "a")
    c2 = check_scalar(c2, "c2")
    if c2 < 0:
        raise ValueError(f"c2 must be >= 0, got {c2!r}")
    return T * math.log1p(c2 / a)


__all__ += ["paper002_ridge_minimiser", "paper002_theorem1_rhs", "paper002_logdet",
            "paper002_theorem2_rhs", "paper002_eq3_bound", "paper002_corollary1_bound",
            "paper002_corollary2_bound", "paper002_eq15_bound", "paper002_kernel_ridge_dual",
            "paper002_theorem3_rhs", "paper002_kernel_logdet", "paper002_theorem4_rhs",
            "paper002_corollary4_bound", "paper002_kernel_logdet_bound"]
