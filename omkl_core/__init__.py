"""omkl_core -- online (multi-)kernel regression with numerically verified theory.

Public API (DESIGN.md): ``ok.datasets.load``, ``ok.datasets.ar4``, ``ok.run_online``,
``ok.backend``, and one class per algorithm, named as in the papers:

* seed 000 (VAW2): ``RandomFourierFeatures``, ``KernelDictionary``, ``VAW``, ``VAWExperts``,
  the meta-learners ``VAWMeta``, ``EWA``, ``AggregatingAlgorithm``, ``MLProd``, ``MLPoly``,
  ``BOA``, and the multi-kernel learners ``VAW2``, ``VAWEWA``, ``VAWAggr``, ``VAWMLProd``,
  ``VAWMLPoly``, ``VAWBOA`` (with ``expert_predictions`` shared by all of them);
* seed 001 (noisy inputs): ``NoisyKernelOGD``, ``SingleCopyKernelOGD``, ``estimate_analytic``;
* seed 002 (Gaussian linear experts): ``OnlineRidge``, ``BayesianRidge``, ``KernelRidge``,
  ``KernelBayesianRidge``, ``BayesianAlgorithm``;
* seed 003 (graph-aided OMKL): ``SFGMKL``, ``SFGMKLR``, ``Raker``, ``OMKR``, ``OMKLGF``,
  ``feedback_graph``, ``paper003_dictionary`` (and ``ok.kernels.dissimilarity``).
"""
from . import (
               aggregation,
               backend,
               bounds,
               datasets,
               features,
               kernels,
               linear,
               mkl,
               noisy,
               paper_values,
               protocol,
               report,
               vaw,
)
from .aggregation import BOA, EWA, AggregatingAlgorithm, MLPoly, MLProd, VAWMeta
from .features import KernelDictionary, RandomFourierFeatures, paper000_dictionary, paper003_dictionary
from .linear import (
               BayesianAlgorithm,
               BayesianRidge,
               KernelBayesianRidge,
               KernelRidge,
               OnlineRidge,
)
from .mkl import OMKLGF, OMKR, SFGMKL, SFGMKLR, VAW2, VAWBOA, VAWEWA, Raker, VAWAggr, VAWMLPoly, VAWMLProd, expert_predictions, feedback_graph
from .noisy import NoisyKernelOGD, SingleCopyKernelOGD, estimate_analytic
from .protocol import Trace, run_online
from .vaw import VAW, VAWExperts

__version__ = "0.1.0"

__all__ = [
    # modules
    "aggregation", "backend", "bounds", "datasets", "features", "kernels", "linear", "mkl",
    "noisy", "paper_values", "protocol", "report", "vaw",
    # protocol
    "Trace", "run_online",
    # seed 000
    "RandomFourierFeatures", "KernelDictionary", "paper000_dictionary", "VAW", "VAWExperts",
    "VAWMeta", "EWA", "AggregatingAlgorithm", "MLProd", "MLPoly", "BOA",
    "VAW2", "VAWEWA", "VAWAggr", "VAWMLProd", "VAWMLPoly", "VAWBOA", "expert_predictions",
    # seed 001
    "NoisyKernelOGD", "SingleCopyKernelOGD", "estimate_analytic",
    # seed 002
    "OnlineRidge", "BayesianRidge", "KernelRidge", "KernelBayesianRidge", "BayesianAlgorithm",
    # seed 003
    "SFGMKL", "SFGMKLR", "Raker", "OMKR", "OMKLGF", "feedback_graph", "paper003_dictionary",
    "__version__",
]
