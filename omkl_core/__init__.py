"""omkl_core -- online (multi-)kernel regression with numerically verified theory.

The library wing (NumPy and SciPy; importing it loads no pandas, matplotlib or Jupyter). The
reproduction of the papers' tables and figures is the separate wing :mod:`omkl_core.repro`.

Public API (DESIGN.md): ``ok.datasets.load``, ``ok.datasets.ar4``, ``ok.run_online``,
``ok.backend``, ``ok.interop.to_river`` / ``ok.interop.to_sklearn`` (River and scikit-learn are
imported only when these are called), and one class per algorithm, named as in the papers:

* paper 000 (VAW2): ``RandomFourierFeatures``, ``KernelDictionary``, ``VAW``, ``VAWExperts``,
  the meta-learners ``VAWMeta``, ``EWA``, ``CalibratedEWA``, ``AggregatingAlgorithm``, ``MLProd``, ``MLPoly``,
  ``BOA``, and the multi-kernel learners ``VAW2``, ``VAWEWA``, ``VAWAggr``, ``VAWMLProd``,
  ``VAWMLPoly``, ``VAWBOA`` (with ``expert_predictions`` shared by all of them);
* paper 001 (noisy inputs): ``NoisyKernelOGD``, ``SingleCopyKernelOGD``, ``estimate_analytic``;
* paper 002 (Gaussian linear experts): ``OnlineRidge``, ``BayesianRidge``, ``KernelRidge``,
  ``KernelBayesianRidge``, ``BayesianAlgorithm``;
* paper 004 (additive and sparse models, batch ``fit``/``predict``): ``AdaBoost``,
  ``GradientBoosting``, ``Lasso``, ``ConstrainedLasso``, ``BestSubset``, ``gibbs_posterior``,
  ``RBFDictionary`` (``PAPER004_EXPORTS``; bounds in ``bounds.paper004``).
* beyond the papers: ``Mixture(learners, meta=...)``, any online learners (omkl's, River's
  through ``ok.interop.from_river``) aggregated by one of paper 000's meta-learners; ``Mixture()``
  is the default for a raw stream (the running mean, VAW2 and OnlineRidge, each scaled online,
  aggregated by ML-Poly in the target's units, with the bound ML-Poly carries);
* beyond the papers: the baselines ``RunningMean``, ``ExponentialMean(half_life)`` and
  ``LastValue`` (``ok.baselines``), in ``Mixture``'s default pool;
* beyond the papers: ``StandardScaler() | learner`` and ``TargetScaler(learner)``
  (``ok.preprocessing``), the normalisation the papers assume (eqs. (33)-(34) of paper 000)
  supplied online from the past of a raw stream, predictions in the target's units;
* paper 003 (graph-aided OMKL): ``SFGMKL``, ``SFGMKLR``, ``Raker``, ``OMKR``, ``OMKLGF``,
  ``feedback_graph``, ``paper003_dictionary`` (and ``ok.kernels.dissimilarity``).
"""
from . import (
               additive,  # noqa: F401  (deprecated: omkl_core.sparse_additive; kept one more release)
               aggregation,
               backend,
               base,
               baselines,
               bounds,
               checks,
               compiled,
               config,
               cosine,
               datasets,
               features,
               interop,
               kernels,
               linear,  # noqa: F401  (deprecated: the ridge family is omkl_core.ridge; kept one more release)
               mixture,
               mkl,
               noisy,
               oracles,
               pairing,
               preprocessing,
               protocol,
               registry,
               regret,
               ridge,
               sherman_morrison,
               sparse_additive,
               threads,
               validation,
               vaw,
               vecmath,  # noqa: F401  (deprecated: the cosine is omkl_core.cosine; kept one more release)
)
from .aggregation import BOA, EWA, AggregatingAlgorithm, CalibratedEWA, MLPoly, MLProd, VAWMeta
from .base import BatchLearner, OnlineLearner
from .baselines import ExponentialMean, LastValue, RunningMean
from .config import show_config
from .features import KernelDictionary, RandomFourierFeatures, paper000_dictionary, paper003_dictionary
from .mixture import Mixture
from .mkl import OMKLGF, OMKR, SFGMKL, SFGMKLR, VAW2, VAWBOA, VAWEWA, Raker, VAWAggr, VAWMLPoly, VAWMLProd, expert_predictions, feedback_graph
from .noisy import NoisyKernelOGD, SingleCopyKernelOGD, estimate_analytic
from .preprocessing import Pipeline, StandardScaler, TargetScaler
from .protocol import Trace, run_online
from .ridge import (
               BayesianAlgorithm,
               BayesianRidge,
               KernelBayesianRidge,
               KernelRidge,
               OnlineRidge,
)
from .sparse_additive import AdaBoost, BestSubset, ConstrainedLasso, GradientBoosting, Lasso, RBFDictionary, gibbs_posterior
from .vaw import VAW, VAWExperts

__version__ = "0.1.0"

#: paper 004's public names (the batch conformance suite discovers its fit/predict models here)
PAPER004_EXPORTS = ("AdaBoost", "GradientBoosting", "Lasso", "ConstrainedLasso", "BestSubset",
                    "gibbs_posterior", "RBFDictionary")

__all__ = [
    # modules
    "aggregation", "backend", "base", "bounds", "checks", "compiled", "datasets", "features", "interop", "kernels", "ridge",
    "sherman_morrison", "mkl", "noisy", "protocol", "registry", "validation", "vaw", "cosine", "threads", "config", "show_config",
    # protocol and the learner core
    "Trace", "run_online", "OnlineLearner", "BatchLearner",
    # beyond the papers: any online learners aggregated by a meta-learner (issue 24)
    "mixture", "Mixture",
    # beyond the papers: the baselines every learner should beat, as learners (issue 41)
    "baselines", "RunningMean", "ExponentialMean", "LastValue",
    # beyond the papers: online scaling as learners, no look-ahead (issue 32)
    "preprocessing", "StandardScaler", "Pipeline", "TargetScaler", "oracles", "regret", "pairing",
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
    "sparse_additive", "AdaBoost", "GradientBoosting", "Lasso", "ConstrainedLasso", "BestSubset",
    "gibbs_posterior", "RBFDictionary", "PAPER004_EXPORTS",
    "__version__",
]
