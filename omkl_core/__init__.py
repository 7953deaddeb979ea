"""omkl_core -- online (multi-)kernel regression with numerically verified theory.

Public API (DESIGN.md): ``ok.datasets.load``, ``ok.datasets.ar4``, ``ok.run_online``,
``ok.backend``; algorithm classes named after the papers are exported here as the modules
that implement them are added.
"""
from . import backend, datasets, kernels, protocol, report
from .protocol import Trace, run_online

__version__ = "0.1.0"

__all__ = ["backend", "datasets", "kernels", "protocol", "report", "Trace", "run_online", "__version__"]

# --- algorithm modules (each block added by the issue that implements it) ---

# issue 3 (part A): random Fourier features and the VAW forecaster
from . import features, vaw  # noqa: E402
from .features import KernelDictionary, RandomFourierFeatures, paper000_dictionary  # noqa: E402
from .vaw import VAW, VAWExperts  # noqa: E402

__all__ += ["features", "vaw", "KernelDictionary", "RandomFourierFeatures",
            "paper000_dictionary", "VAW", "VAWExperts"]

# issue 3 (part B): expert-aggregation meta-learners and their bounds
from . import aggregation, bounds  # noqa: E402
from .aggregation import (  # noqa: E402
    BOA, EWA, AggregatingAlgorithm, MLPoly, MLProd, VAWMeta)

__all__ += ["aggregation", "bounds", "VAWMeta", "EWA", "AggregatingAlgorithm", "MLProd",
            "MLPoly", "BOA"]

# issue 4: the ridge family of paper 002 (online / Bayesian / kernelized ridge regression)
from . import linear  # noqa: E402
from .linear import (  # noqa: E402
    BayesianAlgorithm, BayesianRidge, KernelBayesianRidge, KernelRidge, OnlineRidge)

__all__ += ["linear", "OnlineRidge", "BayesianRidge", "KernelRidge", "KernelBayesianRidge",
            "BayesianAlgorithm"]

# issue 5: paper 001 -- unbiased estimators and noisy-input kernel OGD (Algorithm 1)
from . import noisy  # noqa: E402
from .noisy import NoisyKernelOGD, SingleCopyKernelOGD, estimate_analytic  # noqa: E402

__all__ += ["noisy", "NoisyKernelOGD", "SingleCopyKernelOGD", "estimate_analytic"]

# issue 3 (part A): the VAW2 family of multi-kernel learners
from . import mkl, paper_values  # noqa: E402
from .mkl import VAW2, VAWEWA, VAWAggr, VAWBOA, VAWMLPoly, VAWMLProd, expert_predictions  # noqa: E402

__all__ += ["mkl", "paper_values", "VAW2", "VAWEWA", "VAWAggr", "VAWBOA", "VAWMLPoly", "VAWMLProd",
            "expert_predictions"]
