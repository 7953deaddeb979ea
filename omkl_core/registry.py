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
    :func:`dataset_names` -- the five bundled UCI streams of :func:`omkl_core.datasets.load`
    and the generator ``ar4`` (paper 000 eq. 32, :func:`omkl_core.datasets.ar4`, parameters
    ``T`` and ``seed``). :func:`load_dataset` returns any of them as ``(X, y)``, normalised by
    paper 000 eqs. (33)-(34) on the whole stream and then cut to ``max_steps``.

    Why ``registry.load_dataset`` and not a ``datasets.get``: :mod:`omkl_core.datasets` is the
    data layer (reading and checking the CSV files, the AR(4) recursion, the normalisation) and
    its two public entry points, ``datasets.load(name)`` and ``datasets.ar4(T, seed)``, keep
    their meaning. Choosing *which* of them a name refers to -- a file or a generator -- and
    cutting a stream to a prefix is a lookup by name, like the learners' and the presets', so
    it lives with them.

Paper presets
    ``paper000.defaults(learner)`` (paper 000, section 4) and ``paper003.defaults(T, learner)``
    (paper 003, section 5): the constructor parameters as the papers state them, as plain
    values (the kernel dictionary as ``[kinds, sigmas]`` lists), so that a preset can go into a
    sweep spec as it is. ``paper000.REPETITIONS`` and ``paper003.REPETITIONS`` are the papers'
    numbers of runs averaged.

    The baselines also come in the form the papers *ran* (the authors' code, reference
    algorithms.md C.1-C.3, D.1, E.4), as named variant rows beside the text's:
    ``paper000.baseline_rows()`` (paper 000's Raker / OMKL-GF rows, text and authors' code) and
    ``paper003.variant_rows(T)`` (paper 003's code variants), each ``{row label: (class name,
    parameters)}``; a label's part before " [" is the published row it is compared with.
"""
from __future__ import annotations

import inspect
import math
from dataclasses import dataclass, field

import numpy as np

from . import datasets as _datasets
from .features import paper000_sigmas, paper003_sigmas
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
#: edit here; a new family adds its module to this tuple.
LEARNER_MODULES = ("baselines", "aggregation", "vaw", "linear", "mixture", "noisy", "mkl", "preprocessing")
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
    import importlib  # noqa: PLC0415

    from .base import OnlineLearner  # noqa: PLC0415

    found: dict[str, type] = {}
    for module in LEARNER_MODULES:
        try:
            mod = importlib.import_module(f"{__package__}.{module}")
        except ModuleNotFoundError as exc:                 # a family not in this version of the package
            if exc.name != f"{__package__}.{module}":
                raise
            continue
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
    from .base import input_kind_of  # noqa: PLC0415  # lazy: only this function is issue 40's (base is light)

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


#: The generator entry: paper 000 eq. (32), T = 5000 steps ("t = 1, ..., 5000"), noise seed 0.
_AR4 = DatasetEntry(name="ar4", title="AR(4)", T=5000, d=1, target="x_{t+1}", source="synthetic, paper 000 eq. (32)",
                    generator=True, params={"T": 5000, "seed": 0})


#: Generator entries -> the function that draws the stream from the entry's parameters.
_GENERATORS = {_AR4.name: _datasets.ar4}


def dataset_names() -> list[str]:
    """Every dataset name: the generator ``ar4`` (first, as in paper 000's Table 2), then the
    bundled files (:func:`omkl_core.datasets.names`)."""
    return [_AR4.name, *_datasets.names()]


def dataset_info(name: str) -> DatasetEntry:
    """T, d, target and source of dataset ``name`` (ValueError naming it when unknown)."""
    if name == _AR4.name:
        return _AR4
    if not isinstance(name, str) or name not in _datasets.names():
        raise ValueError(f"unknown dataset {name!r}; known: {', '.join(dataset_names())}")
    meta = _datasets.info(name)
    return DatasetEntry(name=name, title=meta["title"], T=meta["T"], d=meta["d"], target=meta["target"],
                        source=meta["source"])


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
        X, y = _GENERATORS[name](**{**entry.params, **params}, normalise=normalise)
    else:
        X, y = _datasets.load(name, normalise=normalise, variant=variant)
    if max_steps is not None:
        X, y = X[:max_steps], y[:max_steps]
    return np.ascontiguousarray(X), np.ascontiguousarray(y)


# ----------------------------------------------------------------------------- presets
def _plain_dictionary(kinds_sigmas) -> list:
    """``(kinds, sigmas)`` as JSON-able ``[kinds, sigmas]`` lists (floats round-trip exactly)."""
    kinds, sigmas = kinds_sigmas
    return [list(kinds), [float(s) for s in sigmas]]


def _pick(presets: dict, learner: str | None, paper: str) -> dict:
    if learner is None:
        return presets
    if learner not in presets:
        raise ValueError(f"learner {learner!r} has no paper {paper} preset; presets: {', '.join(presets)}")
    return presets[learner]


class paper000:  # noqa: N801 - a namespace read as ``registry.paper000.defaults(...)``
    """Paper 000 (Rokhlin & Gurtovaya 2025), section 4 "Computer experiments".

    "All algorithms were run using N = 76 kernels: 51 Gaussian and 25 Laplacian" with
    sigma^2 in {10^(2i/25 - 2)}, i = 0..50 (Gaussian) and sigma in {10^(i/6 - 2)}, i = 0..24
    (Laplacian); "The number m of random features was set to 50"; "averaged over 5
    experiments"; "We chose lambda = 1 for the VAW algorithm in all cases" (both levels of
    VAW2 and the VAW experts of every meta-learner). The baselines Raker and OMKL-GF follow
    "[Ghari2023graph] and the related code" (section 4, first line): lambda = 1e-3,
    eta_t = 0.1/sqrt(t) and OMKL-GF's M = 10 kernels per step (reference/algorithms.md, C.1
    and C.3), on the same 76 kernels and m = 50.
    """

    REPETITIONS = 5          # section 4: "averaged over 5 experiments"
    M_FEATURES = 50          # section 4: m = 50
    LAM = 1.0                # section 4: lambda = 1 for the VAW algorithm
    AR4_T = 5000             # eq. (32): t = 1, ..., 5000

    @staticmethod
    def dictionary() -> list:
        """The N = 76 kernels of section 4 as ``[kinds, sigmas]`` (sigma, not sigma^2)."""
        return _plain_dictionary(paper000_sigmas())

    @staticmethod
    def defaults(learner: str | None = None) -> dict:
        """Constructor parameters of ``learner`` (a class name: VAW2, VAWEWA, VAWAggr, VAWMLProd,
        VAWMLPoly, VAWBOA, Raker, OMKLGF) as section 4 states them; None: all, by class name."""
        dic = paper000.dictionary()
        vaw = {"m": paper000.M_FEATURES, "lam": paper000.LAM, "dictionary": dic}
        base = {"m": paper000.M_FEATURES, "lam": 1e-3, "eta": 0.1, "schedule": "inv_sqrt_t", "dictionary": dic}
        presets = {"VAW2": {**vaw, "lam_meta": paper000.LAM},
                   **{cls: dict(vaw) for cls in ("VAWEWA", "VAWAggr", "VAWMLProd", "VAWMLPoly", "VAWBOA")},
                   "Raker": base, "OMKLGF": {**base, "M": 10}}
        return _pick(presets, learner, "000")

    @staticmethod
    def vaw_rows(form: str | None = None) -> dict:
        """Paper 000's VAW-family rows of Table 2 -> ``{label: (class name, parameters)}``.

        ``form="text"``: the seven rows of Table 2 in the paper's order -- "VAW2" (Theorem 2),
        "VAW2 (trunc)" (the meta VAW on zbar_t, eq. 28), "VAW-Aggr", "VAW-EWA" (eq. 29,
        Theorem 3), "VAW-BOA", "VAW-ML-Poly", "VAW-ML-Prod" (section 4), each with the
        :meth:`defaults` of its class. ``form="code"``: "VAW-EWA [opera calibrated]", VAW-EWA
        with opera's default online-calibrated EWA (``ewaCalib``, reference A.2) instead of
        eq. (29)'s fixed eta. None: both forms, text first. A row's meta-learner alone (for
        stored expert predictions): :func:`omkl_core.mkl.make_meta`.
        """
        d = paper000.defaults()
        forms = {"text": {"VAW2": ("VAW2", d["VAW2"]),
                          "VAW2 (trunc)": ("VAW2", {**d["VAW2"], "truncate": True}),
                          "VAW-Aggr": ("VAWAggr", d["VAWAggr"]),
                          "VAW-EWA": ("VAWEWA", d["VAWEWA"]),
                          "VAW-BOA": ("VAWBOA", d["VAWBOA"]),
                          "VAW-ML-Poly": ("VAWMLPoly", d["VAWMLPoly"]),
                          "VAW-ML-Prod": ("VAWMLProd", d["VAWMLProd"])},
                 "code": {"VAW-EWA [opera calibrated]": ("VAWEWA", {**d["VAWEWA"], "calibrated": True})}}
        if form is None:
            return {**forms["text"], **forms["code"]}
        if form not in forms:
            raise ValueError(f"form must be one of {list(forms)} or None, got {form!r}")
        return forms[form]

    @staticmethod
    def baseline_rows(form: str | None = None) -> dict:
        """Paper 000's Raker and OMKL-GF rows of Table 2 -> ``{label: (class name, parameters)}``.

        ``form="text"``: "Raker" and "OMKL-GF" of :meth:`defaults` (the text's algorithms, J = 1
        selective node as in paper 003's section 5, with the code's eta_t = 0.1/sqrt(t)).
        ``form="code"``: "Raker [authors' code]" and "OMKL-GF [authors' code: J = 2]", the
        graph-aided authors' code that paper 000 says it ran ("[Ghari2023graph] and the related
        code"): Raker with lam |theta_{t+1}|^2 in the weight update (reference D.1,
        :data:`omkl_core.mkl.raker.AUTHORS_CODE`); OMKL-GF with J = 2 selective nodes,
        off-by-one edge draws, 1/q clipped at 20, the graph frozen after step index 301 and
        lam |theta_{t+1}|^2 (reference C.1/C.3, the 2022 notebooks,
        :data:`omkl_core.mkl.omkl_gf.AUTHORS_CODE`), M = 10 (the notebooks' plotted setting).
        None: both forms, text first.
        """
        from .mkl import omkl_gf, raker  # noqa: PLC0415

        d = paper000.defaults()
        forms = {"text": {"Raker": ("Raker", d["Raker"]), "OMKL-GF": ("OMKLGF", d["OMKLGF"])},
                 "code": {"Raker [authors' code]": ("Raker", {**d["Raker"], **raker.AUTHORS_CODE}),
                          "OMKL-GF [authors' code: J = 2]": ("OMKLGF", {**d["OMKLGF"], **omkl_gf.AUTHORS_CODE})}}
        if form is None:
            return {**forms["text"], **forms["code"]}
        if form not in forms:
            raise ValueError(f"form must be one of {list(forms)} or None, got {form!r}")
        return forms[form]


class paper003:  # noqa: N801 - a namespace read as ``registry.paper003.defaults(...)``
    """Paper 003 (Ghari & Shen, Graph-Aided Online Multi-Kernel Learning), section 5 "Experiments".

    "we average the MSE over R = 50 different sets of random features"; "The number of random
    features D = 50"; "The kernel dictionary contains 41 radial basis function (RBF) kernels.
    The bandwidth of the i-th kernel is as 10^{sigma_i} where sigma_i = (i - 21)/10" (read as
    sigma^2, :func:`omkl_core.features.paper003_sigmas`); "Parameters xi and eta are set to
    1/sqrt(T) for all algorithms"; "Parameter lambda is set to 10^-3"; "the number of
    out-neighbors for each node is set to be 5"; SFG-MKL-R's beta uses "the tenth greatest
    value"; "after 300 time instants, both algorithms choose I_t = argmax_i u_it/U_t"; "For
    OMKL-GF, the number of selective nodes is set to be 1 and the maximum number of kernels
    chosen at each time instant is 10". OMKR (exact kernels, no random features) takes eta only.
    """

    REPETITIONS = 50         # section 5: R = 50
    M_FEATURES = 50          # section 5: D = 50
    LAM = 1e-3               # section 5: lambda = 10^-3

    @staticmethod
    def dictionary() -> list:
        """The 41 Gaussian kernels of section 5 as ``[kinds, sigmas]`` (sigma, not sigma^2)."""
        return _plain_dictionary(paper003_sigmas())

    @staticmethod
    def eta(T: int) -> float:
        """eta = xi = 1/sqrt(T) (section 5), T the length of the stream."""
        return 1.0 / math.sqrt(check_int(T, "T", minimum=1))

    @staticmethod
    def defaults(T: int, learner: str | None = None) -> dict:
        """Constructor parameters of ``learner`` (OMKR, Raker, OMKLGF, SFGMKL, SFGMKLR) for a
        stream of ``T`` steps as section 5 states them; None: all five, by class name."""
        eta = paper003.eta(T)
        rf = {"m": paper003.M_FEATURES, "lam": paper003.LAM, "eta": eta, "dictionary": paper003.dictionary()}
        sfg = {**rf, "xi": eta, "M": 5, "greedy_after": 300}
        presets = {"OMKR": {"eta": eta}, "Raker": rf, "OMKLGF": {**rf, "M": 10},
                   "SFGMKL": sfg, "SFGMKLR": {**sfg, "beta_rank": 10}}
        return _pick(presets, learner, "003")

    @staticmethod
    def rows(T: int) -> dict:
        """The five scored rows of Tables 1-4 -> ``{label: (class name, parameters)}``."""
        p = paper003.defaults(T)
        return {"OMKR": ("OMKR", p["OMKR"]), "Raker": ("Raker", p["Raker"]), "OMKL-GF": ("OMKLGF", p["OMKLGF"]),
                "SFG-MKL": ("SFGMKL", p["SFGMKL"]), "SFG-MKL-R": ("SFGMKLR", p["SFGMKLR"])}

    @staticmethod
    def variant_rows(T: int) -> dict:
        """The named variant rows beside Tables 1-4 -> ``{label: (class name, parameters)}``:

        * "SFG-MKL [code: node 0]": after step 300 the node is the constant 0 (the notebook
          passes 0, never argmax u; reference E.4);
        * "SFG-MKL-R [node 0 after 300: not the code]": the same fixed node for SFG-MKL-R --
          *not* what the code does (kept as an ablation: it isolates the fixed subset N_0^out);
        * "SFG-MKL-R [code: frozen refinement, drawn node, clip]": what the code does (E.4):
          after step 300 only the refinement (D'_t, A'_t) is frozen and a second, unconditional
          draw keeps the node random (``freeze_refinement=True``), with the code's clipping of
          the importance weights (``clip=(0.1, 0.2)``: 1/q <= 10, 1/p <= 5). The clip belongs to
          this row: with nodes still drawn after the switch, a rarely drawn node's 1/q has no
          bound and the text's unclipped steps diverge (Naval: MSE ~ 1e27 without it);
        * "OMKL-GF [code]": the graph-aided code's J = 1 form (C.1/C.3): off-by-one edge draws,
          1/q clipped at 20, eta_t = 0.1/sqrt(t), graph frozen after 300 steps;
        * "OMKL-GF [ICML-2020: unweighted theta step]": the ICML-2020 paper's own code's update
          (C.2: theta_k <- theta_k - eta grad L_k, no 1/q_k), section 5's settings otherwise.

        Everything a label does not name is section 5's text (:meth:`defaults`).
        """
        p = paper003.defaults(T)
        return {
            "SFG-MKL [code: node 0]": ("SFGMKL", {**p["SFGMKL"], "greedy_node": 0}),
            "SFG-MKL-R [node 0 after 300: not the code]": ("SFGMKLR", {**p["SFGMKLR"], "greedy_node": 0}),
            "SFG-MKL-R [code: frozen refinement, drawn node, clip]": ("SFGMKLR", {**p["SFGMKLR"], "freeze_refinement": True,
                                                                                  "clip": [0.1, 0.2]}),
            "OMKL-GF [code]": ("OMKLGF", {**p["OMKLGF"], "eta": 0.1, "schedule": "inv_sqrt_t", "q_clip": 0.05,
                                          "freeze_after": 300, "off_by_one": True}),
            "OMKL-GF [ICML-2020: unweighted theta step]": ("OMKLGF", {**p["OMKLGF"], "weighted_gradient": False}),
        }
