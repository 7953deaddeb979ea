"""The public API is ``omkl_core.__all__``: pinned here, name by name (issue 20 item 7).

A name added to or removed from ``__all__`` must be added to or removed from :data:`PINNED`
too, so that a change of the public API is always a visible, reviewed change. Helpers that
a module merely imports (``vaw.check_int``, ...) are not API.
"""
from __future__ import annotations

import omkl_core as ok

#: ``omkl_core.__all__``, alphabetically
PINNED = {
    '__version__', 'AdaBoost', 'additive', 'AggregatingAlgorithm', 'aggregation', 'backend',
    'base', 'baselines', 'BatchLearner', 'BayesianAlgorithm', 'BayesianRidge', 'BestSubset', 'BOA', 'bounds',
    'CalibratedEWA', 'checks', 'compiled', 'ConstrainedLasso', 'datasets', 'estimate_analytic',
    'EWA', 'expert_predictions', 'features', 'feedback_graph', 'gibbs_posterior',
    'GradientBoosting', 'interop', 'KernelBayesianRidge', 'KernelDictionary', 'KernelRidge',
    'kernels', 'Lasso', 'linear', 'mixture', 'Mixture', 'mkl', 'MLPoly', 'MLProd', 'noisy', 'NoisyKernelOGD',
    'OMKLGF', 'OMKR', 'OnlineLearner', 'OnlineRidge', 'paper000_dictionary',
    'paper003_dictionary', 'PAPER004_EXPORTS', 'paper_values', 'protocol', 'Raker', 'registry',
    'RandomFourierFeatures', 'RBFDictionary', 'report', 'run_online', 'SFGMKL', 'SFGMKLR',
    'SingleCopyKernelOGD', 'Trace', 'vaw', 'VAW', 'VAW2', 'VAWAggr', 'VAWBOA', 'VAWEWA',
    'VAWExperts', 'VAWMeta', 'VAWMLPoly', 'VAWMLProd',
}


def test_all_is_pinned():
    assert len(ok.__all__) == len(set(ok.__all__)), "__all__ lists a name twice"
    assert set(ok.__all__) == PINNED, (f"added: {sorted(set(ok.__all__) - PINNED)}, "
                                       f"removed: {sorted(PINNED - set(ok.__all__))}")


def test_every_name_of_all_resolves():
    missing = [n for n in ok.__all__ if not hasattr(ok, n)]
    assert not missing, f"__all__ names that do not resolve: {missing}"
