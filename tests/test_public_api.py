"""The public API is ``omkl_core.__all__``: pinned here, name by name (issue 20 item 7).

A name added to or removed from ``__all__`` must be added to or removed from :data:`PINNED`
too, so that a change of the public API is always a visible, reviewed change. Helpers that
a module merely imports (``vaw.check_int``, ...) are not API.
"""
from __future__ import annotations

import omkl_core as ok

PINNED = {
    # modules
    "additive", "aggregation", "backend", "base", "bounds", "checks", "compiled", "datasets",
    "features", "interop", "kernels", "linear", "mkl", "noisy", "paper_values", "protocol",
    "report", "vaw",
    # protocol and the learner core
    "Trace", "run_online", "OnlineLearner", "BatchLearner",
    # paper 000
    "RandomFourierFeatures", "KernelDictionary", "paper000_dictionary", "VAW", "VAWExperts",
    "VAWMeta", "EWA", "CalibratedEWA", "AggregatingAlgorithm", "MLProd", "MLPoly", "BOA",
    "VAW2", "VAWEWA", "VAWAggr", "VAWMLProd", "VAWMLPoly", "VAWBOA", "expert_predictions",
    # paper 001
    "NoisyKernelOGD", "SingleCopyKernelOGD", "estimate_analytic",
    # paper 002
    "OnlineRidge", "BayesianRidge", "KernelRidge", "KernelBayesianRidge", "BayesianAlgorithm",
    # paper 003
    "SFGMKL", "SFGMKLR", "Raker", "OMKR", "OMKLGF", "feedback_graph", "paper003_dictionary",
    # paper 004
    "AdaBoost", "GradientBoosting", "Lasso", "ConstrainedLasso", "BestSubset", "gibbs_posterior",
    "RBFDictionary", "PAPER004_EXPORTS",
    "__version__",
}


def test_all_is_pinned():
    assert len(ok.__all__) == len(set(ok.__all__)), "__all__ lists a name twice"
    assert set(ok.__all__) == PINNED, (f"added: {sorted(set(ok.__all__) - PINNED)}, "
                                       f"removed: {sorted(PINNED - set(ok.__all__))}")


def test_every_name_of_all_resolves():
    missing = [n for n in ok.__all__ if not hasattr(ok, n)]
    assert not missing, f"__all__ names that do not resolve: {missing}"
