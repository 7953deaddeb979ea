"""One registry: the learners, the datasets (``ar4`` a generator entry) and the papers' presets.

The command line (:mod:`omkl_core.cli`), the sweep (:mod:`omkl_core.sweep`), the benchmarks
and every notebook look names up here; nothing else maps a name to a class, a stream or a
paper's parameter values.

Learners
    :func:`learners` -- every online learner exported by :mod:`omkl_core` (a class with
    ``predict_one`` and ``learn_one``), by class name, discovered from the package namespace.
    :func:`learner_info` says what a learner reads (raw features or expert forecasts) and
    which constructor parameters it cannot default; :func:`buildable` lists the learners that
    can be built from plain parameter values (``omkl run --param``, a sweep spec).

Datasets
    :func:`dataset_names` -- every entry of the one dataset table :data:`omkl_core.presets.DATASETS`:
    the generator ``ar4`` (paper 000 eq. 32, :func:`omkl_core.datasets.ar4`, parameters ``T`` and
    ``seed``) and the bundled UCI streams of :func:`omkl_core.datasets.load`. Adding a dataset is its
    CSV, its ``SOURCES.md`` entry and one line in that table (:mod:`omkl_core.presets`).
    :func:`load_dataset` returns any of them as ``(X, y)``, normalised by paper 000 eqs. (33)-(34)
    on the whole stream and then cut to ``max_steps``.

    Why ``registry.load_dataset`` and not a ``datasets.get``: :mod:`omkl_core.datasets` is the
    data layer (reading and checking the CSV files, the AR(4) recursion, the normalisation) and
    its two public entry points, ``datasets.load(name)`` and ``datasets.ar4(T, seed)``, keep
    their meaning. Choosing *which* of them a name refers to -- a file or a generator -- and
    cutting a stream to a prefix is a lookup by name, like the learners' and the presets', so
    it lives with them.

Paper presets
    Defined as plain data in :mod:`omkl_core.presets` (a low module the learners may read) and
    re-exported here unchanged. ``paper000.defaults(learner)`` (paper 000, section 4) and ``paper003.defaults(T, learner)``
    (paper 003, section 5): the constructor parameters as the papers state them, as plain
    values (the kernel dictionary as ``[kinds, sigmas]`` lists), so that a preset can go into a
    sweep spec as it is. ``paper000.REPETITIONS`` and ``paper003.REPETITIONS`` are the papers'
    numbers of runs averaged.

    The baselines also come in the form the papers *ran* (the authors' code, reference
    algorithms.md C.1-C.3, D.1, E.4), as named variant rows beside the text's:
    ``paper000.baseline_rows()`` (paper 000's Raker / OMKL-GF rows, text and authors' code) and
    ``paper003.variant_rows(T)`` (paper 003's code variants), each ``{row label: (class name,
    parameters)}``; a label's part before " [" is the published row it is compared with.

Layering: the registry sits above the learner families and imports them at its top; no learner
module imports the registry (a preset a learner module publishes comes from :mod:`omkl_core.presets`).
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field

import numpy as np

from . import aggregation, baselines, mixture, mkl, noisy, preprocessing, ridge, vaw
from . import datasets as _datasets
from .base import OnlineLearner, input_kind_of
from .presets import DATASETS, paper000, paper003
from .validation import check_int

__all__ = ["learners", "learner_info", "buildable", "required_parameters", "takes_expert_predictions", "LearnerInfo",
           "dataset_names", "dataset_info", "load_dataset", "DatasetEntry", "paper000", "paper003"]


# ----------------------------------------------------------------------------- learners
#: Constructor parameters a learner cannot default, each with a plain value that builds it
#: (an example for ``omkl models``; the tests build every learner with it).
_NEEDS = {
    "KernelRidge": {"kernel": "gaussian"},
    "KernelBayesianRidge": {"kernel": "gaussian"},
    "BayesianAlgorithm": {"thetas": [[0.0, 0.0], [0.5, -0.5]]},
}

#: Learners that no plain parameter values can build or run on a stream, with the reason
#: (Python API only; each has its own tests).
_NOT_BUILDABLE = {
    "NoisyKernelOGD": "needs kernel and loss objects (omkl_core.noisy) and T",
    "SingleCopyKernelOGD": "needs kernel and loss objects (omkl_core.noisy), T and eta",
    "VAWExperts": "the batched expert layer: predict_one returns N forecasts, not one",
    "Mixture": "its experts are learner objects (learners=[...], River's through interop.from_river; None: the "
               "default pool); omkl run Mixture (or omkl run --csv F) builds the default, --expert/--meta others",
    "Pipeline": "wraps a learner object (StandardScaler() | learner); omkl run --scale online applies it",
    "TargetScaler": "wraps a learner object (TargetScaler(learner)); omkl run --scale online applies it",
}


#: The modules whose export lists (``__all__``) hold the online learners, in the order
#: ``omkl models`` lists them. A learner class exported by one of them is registered without an
#: edit here; a new family adds its module to this tuple (and to the imports above: the registry
#: sits above the learner families and imports them; none of them imports the registry).
_FAMILIES = (baselines, aggregation, vaw, ridge, mixture, noisy, mkl, preprocessing)
#: The names of :data:`_FAMILIES`' modules, in that order.
LEARNER_MODULES = tuple(module.__name__.rpartition(".")[2] for module in _FAMILIES)
#: Learners registered from outside the package (:func:`register`), by name.
_REGISTERED: dict[str, type] = {}


def register(cls: type, name: str | None = None) -> type:
    """Make a learner class of your own known by ``name`` (default: its class name) to the CLI, the
    sweep (serial and process executors; on Dask the workers must register it too) and the checks.
    Returns ``cls``, so it works as a class decorator. A name the package already uses is refused."""
    if not isinstance(cls, type) or not (callable(getattr(cls, "predict_one", None))
                                         and callable(getattr(cls, "learn_one", None))):
        raise TypeError(f"cls must be a learner class with predict_one and learn_one, got {cls!r}")
    name = cls.__name__ if name is None else name
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty string, got {name!r}")
    if name in _discovered() and _discovered()[name] is not cls:
        raise ValueError(f"name {name!r} is already a learner of omkl_core ({_discovered()[name].__module__})")
    _REGISTERED[name] = cls
    return cls


def unregister(name: str) -> None:
    """Forget a learner added with :func:`register` (KeyError naming it when it was not)."""
    if name not in _REGISTERED:
        raise KeyError(f"no learner registered as {name!r}; registered: {sorted(_REGISTERED)}")
    del _REGISTERED[name]


def learners() -> dict[str, type]:
    """Every online learner the package exports (``predict_one`` and ``learn_one``), then those added
    with :func:`register`, by name: the one place that maps a learner's name to its class (the CLI,
    the sweep, the checks and the reproduction's presets all ask here)."""
    return {**_discovered(), **_REGISTERED}


def _discovered() -> dict[str, type]:
    found: dict[str, type] = {}
    for mod in _FAMILIES:
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name, None)
            if (isinstance(obj, type) and issubclass(obj, OnlineLearner) and obj is not OnlineLearner
                    and not name.startswith("_")
                    and callable(getattr(obj, "learn_one", None)) and callable(getattr(obj, "predict_one", None))):
                found.setdefault(name, obj)
    return found


@dataclass(frozen=True)
class LearnerInfo:
    """What the command line and the sweep need to know about one learner.

    Attributes
    ----------
    name : str
        The class name.
    cls : type
        The class.
    input : str
        ``"features"`` (raw features x_t) or ``"experts"`` (a meta-learner on the expert
        forecasts z_t of y_t).
    needs : dict
        Constructor parameters without a usable default -> a plain value that builds it.
    buildable : bool
        Whether plain values (``--param``, a sweep spec) can build it; ``why_not`` says
        why not when they cannot.
    """

    name: str
    cls: type
    input: str
    needs: dict = field(default_factory=dict)
    buildable: bool = True
    why_not: str = ""


def takes_expert_predictions(cls: type) -> bool:
    """True for the meta-learners, whose input z_t is the vector of expert forecasts: the classes that
    declare ``input_kind = "experts"`` (the public protocol of :mod:`omkl_core.base`; a rule of your own
    registered with :func:`register` is one with no other edit)."""
    return input_kind_of(cls) == "experts"


def required_parameters(cls: type) -> list[str]:
    """The constructor parameters of ``cls`` that have no default value."""
    try:
        sig = inspect.signature(cls)
    except (TypeError, ValueError):  # pragma: no cover - every learner has a signature
        return []
    return [p.name for p in sig.parameters.values()
            if p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def learner_info(name: str) -> LearnerInfo:
    """The :class:`LearnerInfo` of learner ``name`` (ValueError naming it when unknown)."""
    known = learners()
    if name not in known:
        raise ValueError(f"unknown learner {name!r}; known: {', '.join(sorted(known))}")
    cls = known[name]
    kind = "experts" if takes_expert_predictions(cls) else "features"
    if name in _NOT_BUILDABLE:
        return LearnerInfo(name, cls, kind, buildable=False, why_not=_NOT_BUILDABLE[name])
    needs = dict(_NEEDS.get(name, {}))
    undeclared = [p for p in required_parameters(cls) if p not in needs]
    if undeclared:     # a new learner with a required parameter the registry knows no value for
        return LearnerInfo(name, cls, kind, needs, buildable=False,
                           why_not=f"needs {', '.join(undeclared)} (no plain default registered)")
    return LearnerInfo(name, cls, kind, needs)


def buildable() -> dict[str, LearnerInfo]:
    """The learners plain parameter values can build (what ``omkl run`` and a sweep accept), by name."""
    infos = (learner_info(name) for name in sorted(learners()))
    return {i.name: i for i in infos if i.buildable}


# ----------------------------------------------------------------------------- datasets
@dataclass(frozen=True)
class DatasetEntry:
    """One named stream: a bundled CSV (``generator=False``) or a generator with its default
    parameters ``params``; ``T`` and ``d`` are the shape of the stream ``load_dataset`` returns."""

    name: str
    title: str
    T: int
    d: int
    target: str
    source: str
    generator: bool = False
    params: dict = field(default_factory=dict)


def dataset_names() -> list[str]:
    """Every dataset name of the one table :data:`omkl_core.presets.DATASETS`: the generator ``ar4``
    (first, as in paper 000's Table 2), then the bundled files (:func:`omkl_core.datasets.names`)."""
    return list(DATASETS)


def dataset_info(name: str) -> DatasetEntry:
    """T, d, target and source of dataset ``name`` (ValueError naming it when unknown)."""
    if not isinstance(name, str) or name not in DATASETS:
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(dataset_names())}")
    meta = DATASETS[name]
    return DatasetEntry(name=name, title=meta.title, T=meta.T, d=meta.d, target=meta.target, source=meta.source,
                        generator=bool(meta.generator), params=dict(meta.params))


def load_dataset(name: str, max_steps: int | None = None, *, normalise: bool = True, variant: str | None = None,
                 **params) -> tuple[np.ndarray, np.ndarray]:
    """The stream ``name`` as contiguous float64 arrays ``(X, y)``.

    Parameters
    ----------
    name : str
        One of :func:`dataset_names`.
    max_steps : int, optional
        Keep the first ``max_steps`` steps, after normalising the whole stream (as the
        notebooks and the sweep always did). None: the whole stream.
    normalise : bool, default=True
        Paper 000 eqs. (33)-(34).
    variant : str, optional
        A file dataset's variant (:func:`omkl_core.datasets.load`); ``ar4`` has none.
    **params
        A generator's parameters, defaults in its entry's ``params``: for ``ar4``, ``T``
        (default 5000) and ``seed`` (the noise, default 0). A file dataset takes none.

    Examples
    --------
    >>> from omkl_core import registry
    >>> X, y = registry.load_dataset("ar4", 100, seed=3)
    >>> X.shape, y.shape
    ((100, 1), (100,))
    """
    entry = dataset_info(name)
    if max_steps is not None:
        max_steps = check_int(max_steps, "max_steps", minimum=1)
    unknown = sorted(set(params) - set(entry.params))
    if unknown:
        takes = f"takes {', '.join(entry.params)}" if entry.params else "is a file and takes no generator parameters"
        raise ValueError(f"unknown parameter {unknown[0]!r} for dataset {name!r}: it {takes}")
    if entry.generator:
        if variant is not None:
            raise ValueError(f"variant {variant!r}: dataset {name!r} has no variants")
        X, y = _datasets.GENERATORS[DATASETS[name].generator](**{**entry.params, **params}, normalise=normalise)
    else:
        X, y = _datasets.load(name, normalise=normalise, variant=variant)
    if max_steps is not None:
        X, y = X[:max_steps], y[:max_steps]
    return np.ascontiguousarray(X), np.ascontiguousarray(y)
