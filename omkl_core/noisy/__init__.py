"""Paper 001: Cesa-Bianchi, Shalev-Shwartz & Shamir, *Online Learning of Noisy Data with
Kernels* (COLT 2010) -- unbiased estimators of non-linear functions and noisy-input kernel
online gradient descent.

What is here, in the paper's notation
-------------------------------------
* :func:`estimate_analytic` -- the randomized estimator of Sec. 3.2 / Lemma 1: draw
  ``N`` with ``P(N = n) = (p-1)/p^(n+1)``, draw ``X`` independently ``N`` times and return
  ``theta = gamma_N p^(N+1)/(p-1) x_1 ... x_N``; ``E[theta] = f(E[X])`` for
  ``f(x) = sum_n gamma_n x^n``. :func:`estimate_analytic_many` is the vectorised version.
* Noise laws and oracles (Sec. 2): an oracle ``A_t`` returns independent copies
  ``x_t + Z_t`` with ``E[Z_t] = 0`` and ``E||Z_t||^2`` finite; :class:`Oracle` counts its
  queries. Laws: :class:`NoNoise`, :class:`GaussianNoise`, :class:`UniformNoise`,
  :class:`StudentTNoise` (heavier tails, finite variance for ``df > 2``),
  :class:`LaplaceNoise`, :class:`CenteredDiscreteNoise` (the noisy twin of Thm. 3 / Thm. 5)
  and :class:`AdversarialScaleNoise` (a per-round scale chosen by the adversary).
* :class:`DotProductKernel` -- ``k(x, x') = Q(<x, x'>) = sum_n beta_n <x, x'>^n`` with
  ``beta_n >= 0`` (Sec. 5.2): feature map (before eq. 2), unbiased map estimate eq. (2),
  ``Map_Estimate`` (Subroutine 2), ``Prod`` (Subroutines 3 and 4), Lemma 3's bound.
  Constructors :func:`linear_kernel`, :func:`polynomial_kernel`, :func:`exponential_kernel`.
* :class:`GaussianKernel` -- ``k(x, x') = exp(-||x - x'||^2 / sigma^2)`` (Appendix B): eq.
  (6), ``Map_Estimate`` (Subroutine 5), ``Prod`` (Subroutines 6 and 7). NB the paper's
  ``sigma^2`` is ``2 sigma^2`` of :func:`omkl_core.kernels.gaussian`.
* :func:`grad_length_estimate` -- Subroutine 1 (Lemma 2).
* :class:`NoisyKernelOGD` -- Algorithm 1 with the projection onto ``||w||^2 <= B_w``.
* :class:`SingleCopyKernelOGD` -- the baseline the paper argues against (Sec. 3.1, Thm. 3):
  plain projected kernel OGD fed one noisy copy per round.
* Losses of Examples 1-4 with the Taylor coefficients ``gamma_n`` of their derivatives:
  :class:`SquaredLoss`, :class:`ExponentialLoss`, :class:`SmoothedAbsoluteLoss`,
  :class:`SmoothedHingeLoss`.
* :func:`best_in_ball` -- the comparator ``min_{||w||^2 <= B_w} sum_t loss`` of eq. (1).

Deviations from the printed text (each one checked by a test, see THEORY.md)
----------------------------------------------------------------------------
1. Algorithm 1's projection prints ``alpha_i := alpha_i sqrt(B_w)/n_t``; a projection onto
   ``||w||^2 <= B_w`` (Sec. 3.1: "rescaling the norm ... to have squared norm at most
   B_w", and the analysis of Thm. 4 / App. D) needs ``alpha_i sqrt(B_w / n_t)``. Default
   ``projection="exact"``; ``projection="printed"`` gives the literal formula.
2. Subroutine 1 prints ``g_t = y_t gamma_n p^(n+1)/(p-1) prod_j <w_t, Psi_j>``, which is an
   unbiased estimate of ``y_t l'(<w_t, Psi(x_t)>)``; Lemma 2 (and the gradient) need
   ``y_t l'(y_t <w_t, Psi(x_t)>)``, i.e. ``prod_j (y_t <w_t, Psi_j>)``. The two agree for
   ``y_t = 1`` or an even ``l'``; we implement Lemma 2's quantity.
3. Appendix B's feature map of the Gaussian kernel prints the coefficient
   ``(2/sigma^2)^n / n!`` where ``sqrt((2/sigma^2)^n / n!)`` is needed for
   ``<Psi(x), Psi(x')> = k(x, x')``; eq. (6), Subroutines 6-7 inherit it. Default
   ``variant="corrected"``; ``variant="printed"`` keeps the printed coefficients, which
   estimate the kernel ``e^{-|x|^2/s^2} e^{-|x'|^2/s^2} sum_n (2/s^2)^{2n}/(n!)^2 <x,x'>^n``
   instead (see :meth:`GaussianKernel.kernel`).
4. Regression losses (``l(<w, Psi(x)> - y)``) are supported as the paper says they can be
   "with slight modifications": the estimated quantity is ``l'(<w_t, Psi(x_t)> - y_t)`` and
   Lemma 2's bound then uses ``E[X^2] <= (sqrt(B_w B_Psi) + |y|)^2``.
5. Lemma 5's printed bound ``(p/(p-1))^2 exp((sqrt(p) B + 2p sqrt(B))/sigma^2)`` is violated
   (the proof drops a square); :meth:`GaussianKernel.feature_norm_bound` returns the bound the
   proof gives, ``(p/(p-1))^2 exp(2 (sqrt(p) + p) B / sigma^2)`` (printed one:
   :meth:`GaussianKernel.feature_norm_bound_printed`), and ``eta="theorem"`` uses it.
6. Examples 3-4: App. C's ``sigma`` is ``s``; the printed bounds on ``l'_+`` of Example 3
   (main text) and Example 4 (both forms) fail; the smoothed hinge's ``l'`` is expanded about
   ``a = 0`` (the expansion Lemma 1 needs), see :class:`SmoothedHingeLoss`.

Modules: ``estimator`` (Lemma 1), ``noise`` (Sec. 2: the noise laws and the oracle), ``estimates`` (Sec. 4.1),
``feature_maps`` (the :class:`NoisyKernel` protocol, Sec. 5.2, App. B), ``losses`` (Examples
1-4), ``ogd`` (Subroutine 1, Algorithm 1, the single-copy baseline), ``comparator`` (eq. 1).
"""
from __future__ import annotations

from .comparator import best_in_ball  # noqa: F401
from .estimates import EstimateStore, _pad, prod_matrix, prod_point_matrix  # noqa: F401
from .estimator import (  # noqa: F401
    _coef_value,
    check_p,
    estimate_analytic,
    estimate_analytic_many,
    sample_geometric,
)
from .feature_maps import (  # noqa: F401
    DotProductKernel,
    GaussianKernel,
    NoisyKernel,
    _check_kernel,
    exponential_kernel,
    linear_kernel,
    polynomial_kernel,
)
from .losses import (  # noqa: F401
    ExponentialLoss,
    SmoothedAbsoluteLoss,
    SmoothedHingeLoss,
    SquaredLoss,
    _AnalyticLoss,
    _check_loss,
)
from .noise import (  # noqa: F401
    AdversarialScaleNoise,
    CenteredDiscreteNoise,
    GaussianNoise,
    LaplaceNoise,
    NoiseLaw,
    NoNoise,
    Oracle,
    StudentTNoise,
    UniformNoise,
    _as_law,
)
from .ogd import (  # noqa: F401
    NoisyKernelOGD,
    SingleCopyKernelOGD,
    _prod_matrix_loop,
    grad_length_estimate,
)

__all__ = [
    "check_p", "sample_geometric", "estimate_analytic", "estimate_analytic_many",
    "Oracle", "NoiseLaw", "NoNoise", "GaussianNoise", "UniformNoise", "StudentTNoise",
    "LaplaceNoise", "CenteredDiscreteNoise", "AdversarialScaleNoise",
    "EstimateStore", "NoisyKernel", "prod_matrix", "prod_point_matrix", "DotProductKernel", "linear_kernel", "polynomial_kernel",
    "exponential_kernel", "GaussianKernel", "grad_length_estimate",
    "SquaredLoss", "ExponentialLoss", "SmoothedAbsoluteLoss", "SmoothedHingeLoss",
    "NoisyKernelOGD", "SingleCopyKernelOGD", "best_in_ball",
]
