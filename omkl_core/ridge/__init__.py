"""The ridge family of paper 002: F. Zhdanov, V. Vovk, *Competing with Gaussian linear
experts* (2009).

* :class:`OnlineRidge`          -- Algorithm 1 (online Ridge Regression); Theorem 1, eq. (1);
  with ``clip=Y`` the clipped predictions gamma_t^Y of Corollary 1, eq. (2).
* :class:`BayesianRidge`        -- Bayesian Ridge Regression, predictive N(gamma_T, sigma_T^2)
  of eq. (12); Theorem 2, eq. (14).
* :class:`KernelRidge`          -- kernelized Ridge Regression (Section 6),
  gamma_T = Y'_{T-1} (aI + K_{T-1})^{-1} k_T; Theorem 3, eq. (17); Corollary 4, eq. (18).
* :class:`KernelBayesianRidge`  -- kernelized Bayesian Ridge Regression (Section 6),
  N(gamma_T, sigma^2 + sigma^2 (K(x_T, x_T) - k_T'(aI + K_{T-1})^{-1} k_T)/a); Theorem 4.
* :class:`BayesianAlgorithm`    -- Algorithm 2 (the Bayesian Algorithm, the Aggregating
  Algorithm for the log loss with learning rate 1) over a *finite* set of Gaussian linear
  experts (11); Lemma 1, eq. (10).

Every learner is River-style (``predict_one(x) -> float``, ``learn_one(x, y) -> None``) and
also offers ``run(X, y) -> predictions`` (the same loop without per-step validation, used
by :func:`omkl_core.run_online`) and ``trajectory(X, y)`` returning the per-step quantities
the equalities are made of (gamma_t, the denominators 1 + x_t'A_{t-1}^{-1}x_t, ...).

Running totals kept by ``learn_one`` (all learners of the family):

* ``weighted_loss_``  sum_t (y_t - gamma_t)^2 / (1 + x_t'A_{t-1}^{-1}x_t)   -- LHS of (1) / (17)
* ``log_det_``        sum_t ln(1 + x_t'A_{t-1}^{-1}x_t) = ln det(I + (1/a) sum x_t x_t') by (16)
                      (kernel form: ln det(I + K_T/a))
* ``square_loss_``    sum_t (y_t - gamma_t^Y)^2 of the (possibly clipped) predictions
* ``log_loss_``       (Bayesian learners) sum_t -ln N(y_t; gamma_t, sigma_t^2) = L_T of (14)

Linear algebra (``solver``; the same numbers in exact arithmetic). :class:`OnlineRidge`
keeps by default the triangular factor R_t of A_t = R_t'R_t, updated by Givens rotations
(square-root recursive least squares, O(n^2) per step); ``solver="sherman-morrison"``
updates A_t^{-1} by the Sherman-Morrison formula the paper suggests after Algorithm 1.
The kernel learners grow, block by block, either the Cholesky factor of aI + K_t
(default) or the inverse (aI + K_t)^{-1} (``solver="inverse"``, bordering), both through
the Schur complement s_t = a + K(x_t, x_t) - k_t'(aI + K_{t-1})^{-1}k_t, O(t^2) per step and
no refactorisation; s_t / a is exactly the denominator of (17). The factor forms are the
defaults because they keep the equalities to ~1e-9 on ill-conditioned inputs, where the
inverse updates lose digits (tests/test_theory_paper002.py).

The package: :mod:`~omkl_core.ridge.primal` (OnlineRidge, BayesianRidge),
:mod:`~omkl_core.ridge.kernel` (KernelRidge, KernelBayesianRidge),
:mod:`~omkl_core.ridge.bayesian_algorithm` (BayesianAlgorithm); what they share (the running
totals, ``run``, ``trajectory``) is :mod:`~omkl_core.ridge._base`. The Sherman-Morrison solver of
OnlineRidge is the VAW experts' own step, :mod:`omkl_core.sherman_morrison`. On the ``"numba"``
engine the Cholesky step of OnlineRidge calls the LAPACK / BLAS routines scipy's
``solve_triangular`` and ``qr_insert`` call, from compiled code (:mod:`~omkl_core.ridge._cholesky`:
the same numbers bit for bit, without the wrappers' per-call cost).
"""
from __future__ import annotations

from ._base import RidgeTrajectory
from .bayesian_algorithm import BayesianAlgorithm
from .kernel import KernelBayesianRidge, KernelRidge
from .primal import BayesianRidge, OnlineRidge

__all__ = ["OnlineRidge", "BayesianRidge", "KernelRidge", "KernelBayesianRidge",
           "BayesianAlgorithm", "RidgeTrajectory"]
