"""Paper 004 (T. Zhang, *Mathematical Analysis of Machine Learning Algorithms*, ch. 10,
"Additive and Sparse Models"): batch ``fit``/``predict`` models -- boosting, the Lasso family,
best subset, the Gibbs posterior -- as the slides state them.

* :class:`AdaBoost`          Algorithm 1 (exact stumps or a +-1 dictionary); Theorem 26, Corollary 27
* :class:`GradientBoosting`  Algorithm 2 (regression stumps or dictionary columns)
* :class:`Lasso`             eq. (12); Theorems 29 and 31
* :class:`ConstrainedLasso`  eq. (4) with the squared loss
* :class:`BestSubset`        eq. (3), exhaustive (Example 6's penalty lam sqrt(|F|))
* :func:`gibbs_posterior`    eq. (8) (and the objective (9))
* :class:`RBFDictionary`     Example 3
"""
from .boosting import AdaBoost, GradientBoosting, best_regression_stump, best_stump
from .dictionary import RBFDictionary
from .gibbs import gibbs_objective, gibbs_posterior, kl_divergence
from .lasso import ConstrainedLasso, Lasso, lasso_kkt_residual, lasso_lambda, soft_threshold
from .subset import MAX_SUPPORTS, BestSubset

__all__ = [
    "AdaBoost", "GradientBoosting", "best_stump", "best_regression_stump",
    "Lasso", "ConstrainedLasso", "lasso_lambda", "lasso_kkt_residual", "soft_threshold",
    "BestSubset", "MAX_SUPPORTS", "gibbs_posterior", "gibbs_objective", "kl_divergence", "RBFDictionary",
]
