"""Every public name of omkl_core before the package re-layout (issue 9) still resolves.

The list was taken from commit 13ca7f0 (flat modules: ``mkl.py``, ``noisy.py``, ``bounds.py``):
every name in ``omkl_core.__all__`` and every public name defined in one of its modules.
(Helpers that a module merely imported, e.g. ``noisy.check_int``, were never API and are not
pinned.) A moved name must keep working under its old spelling.
"""
from __future__ import annotations

import importlib

import pytest

PINNED = {
    '': [
        'AggregatingAlgorithm', 'BOA', 'BayesianAlgorithm', 'BayesianRidge', 'EWA',
        'KernelBayesianRidge', 'KernelDictionary', 'KernelRidge', 'MLPoly', 'MLProd',
        'NoisyKernelOGD', 'OnlineRidge', 'RandomFourierFeatures', 'SingleCopyKernelOGD', 'Trace',
        'VAW', 'VAW2', 'VAWAggr', 'VAWBOA', 'VAWEWA', 'VAWExperts', 'VAWMLPoly', 'VAWMLProd',
        'VAWMeta', '__version__', 'aggregation', 'backend', 'bounds', 'datasets',
        'estimate_analytic', 'expert_predictions', 'features', 'kernels', 'linear', 'mkl', 'noisy',
        'paper000_dictionary', 'paper_values', 'protocol', 'report', 'run_online', 'vaw',
    ],
    'aggregation': [
        'AggregatingAlgorithm', 'BOA', 'EWA', 'MLPoly', 'MLProd', 'VAWMeta', 'check_positive',
        'check_scalar', 'truncate',
    ],
    'backend': [
        'asarray', 'cupy_available', 'get_namespace', 'host_rng', 'to_numpy',
    ],
    'bounds': [
        'aa_bound', 'aa_eta', 'ewa_bound', 'ewa_eta', 'paper000_eq30_rhs',
        'paper000_expert_prediction_bound', 'paper000_lemma1_variance_bound',
        'paper000_lemma1_weight_norm', 'paper000_lemma2_bound', 'paper000_meta_vaw_regret_bound',
        'paper000_theorem1_bound', 'paper000_theorem2_bound', 'paper000_theorem3_bound',
        'paper000_truncated_meta_vaw_regret_bound', 'paper001_appendixD_linearised_bound',
        'paper001_feature_bound', 'paper001_lemma1_expected_samples',
        'paper001_lemma1_second_moment_bound', 'paper001_lemma1_tail', 'paper001_lemma2_grad_bound',
        'paper001_lemma3_feature_bound', 'paper001_lemma5_feature_bound', 'paper001_theorem12_eta',
        'paper001_theorem12_regret_bound', 'paper001_theorem1_expected_queries',
        'paper001_theorem1_u', 'paper001_theorem2_expected_queries', 'paper001_theorem2_u',
        'paper001_theorem4_eta', 'paper001_theorem4_regret_bound', 'paper002_corollary1_bound',
        'paper002_corollary2_bound', 'paper002_corollary4_bound', 'paper002_eq15_bound',
        'paper002_eq3_bound', 'paper002_kernel_logdet', 'paper002_kernel_logdet_bound',
        'paper002_kernel_ridge_dual', 'paper002_logdet', 'paper002_ridge_minimiser',
        'paper002_theorem1_rhs', 'paper002_theorem2_rhs', 'paper002_theorem3_rhs',
        'paper002_theorem4_rhs', 'vaw_regret_bound',
    ],
    'datasets': [
        'AR4_COEFFS', 'DatasetInfo', 'ar4', 'check_int', 'info', 'load', 'names',
        'normalise_stream', 'read_csv',
    ],
    'features': [
        'KINDS', 'KernelDictionary', 'MAPS', 'RandomFourierFeatures', 'check_int', 'check_matrix',
        'check_positive', 'check_vector', 'exact_kernel', 'paper000_dictionary', 'paper000_sigmas',
    ],
    'kernels': [
        'Gaussian', 'Kernel', 'Laplacian', 'Linear', 'Polynomial', 'check_int', 'check_positive',
        'check_scalar', 'gaussian', 'kernel_matrix', 'laplacian', 'linear', 'make_kernel',
        'polynomial',
    ],
    'linear': [
        'BayesianAlgorithm', 'BayesianRidge', 'KernelBayesianRidge', 'KernelRidge', 'OnlineRidge',
        'RidgeTrajectory', 'check_matrix', 'check_point', 'check_positive', 'check_scalar',
        'check_vector', 'make_kernel',
    ],
    'mkl': [
        'META_LEARNERS', 'TABLE2_ROWS', 'TIME_BLOCK', 'VAW2', 'VAWAggr', 'VAWBOA', 'VAWEWA',
        'VAWMLPoly', 'VAWMLProd', 'expert_predictions', 'feature_blocks', 'make_meta',
    ],
    'noisy': [
        'AdversarialScaleNoise', 'CenteredDiscreteNoise', 'DotProductKernel', 'EstimateStore',
        'ExponentialLoss', 'GaussianKernel', 'GaussianNoise', 'LaplaceNoise', 'NoNoise', 'NoiseLaw',
        'NoisyKernelOGD', 'Oracle', 'SingleCopyKernelOGD', 'SmoothedAbsoluteLoss',
        'SmoothedHingeLoss', 'SquaredLoss', 'StudentTNoise', 'UniformNoise', 'best_in_ball',
        'check_p', 'estimate_analytic', 'estimate_analytic_many', 'exponential_kernel',
        'grad_length_estimate', 'linear_kernel', 'polynomial_kernel', 'prod_matrix',
        'prod_point_matrix', 'sample_geometric',
    ],
    'paper_values': [
        'published', 'published_table', 'published_value',
    ],
    'protocol': [
        'Trace', 'check_matrix', 'check_vector', 'mse_curve', 'run_online', 'to_numpy',
    ],
    'report': [
        'N_SD', 'REL_TOL', 'SCORECARD_COLUMNS', 'TOLERANCE_RULE', 'add_scorecard_rows', 'cell_row',
        'claim_row', 'results_dir', 'save_figure', 'save_table', 'scorecard', 'to_markdown',
        'within_tolerance',
    ],
    'vaw': [
        'METHODS', 'VAW', 'VAWExperts', 'check_int', 'check_positive', 'check_scalar',
    ],
}


@pytest.mark.parametrize("module", sorted(PINNED))
def test_public_names_of_before_the_relayout_still_resolve(module):
    mod = importlib.import_module("omkl_core" + (f".{module}" if module else ""))
    missing = [n for n in PINNED[module] if not hasattr(mod, n)]
    assert not missing, f"omkl_core.{module or ''} lost public names: {missing}"


def test_old_import_paths_still_work():
    import omkl_core as ok
    from omkl_core.bounds import paper002_theorem1_rhs  # noqa: F401  (was bounds.py)
    from omkl_core.mkl import VAW2, expert_predictions  # noqa: F401  (was mkl.py)
    from omkl_core.noisy import NoisyKernelOGD, estimate_analytic  # noqa: F401  (was noisy.py)
    assert ok.mkl.VAW2 is ok.VAW2 and ok.noisy.NoisyKernelOGD is ok.NoisyKernelOGD
    assert ok.bounds.paper002_theorem1_rhs is ok.bounds.paper002.paper002_theorem1_rhs

