"""The papers' presets and the one table of datasets, as plain data.

This module is the low floor of the name maps: it imports only :mod:`omkl_core.features` (the
papers' kernel bandwidths) and :mod:`omkl_core.validation`, never a learner, :mod:`omkl_core.datasets`
or :mod:`omkl_core.registry`. Everything above reads it: :mod:`omkl_core.datasets` (which file a name
is, its columns and facts), :mod:`omkl_core.registry` (the name -> stream and name -> class maps), the
learner modules that publish a preset (``omkl_core.mkl.vaw2.TABLE2_ROWS``, ``omkl_core.mkl.raker.AUTHORS_CODE``,
``omkl_core.mkl.omkl_gf.AUTHORS_CODE``) and the reproduction wing (display names, the papers' streams).

Datasets
    :data:`DATASETS` -- ``{name: DatasetInfo}``, the one map of a dataset's identity: its file (or the
    generator that draws it, with default parameters), its display label (the leaderboard's and paper
    000's tables), T, d, target and source. The generator ``ar4`` (paper 000 eq. 32) comes first, as in
    paper 000's Table 2, then the bundled CSVs. :data:`DATASET_LABELS` is the live ``name -> label`` view.

    **Adding a dataset** takes three steps and no other edit:

    1. put its CSV (UTF-8, one header row, comma-separated, the target in the last column, the
       features in the others) into ``omkl_core/data/``;
    2. add its row (file, rows, columns, sha256) and its provenance to ``omkl_core/data/SOURCES.md``;
    3. add one line to :data:`DATASETS` below, e.g.
       ``"energy": DatasetInfo(name="energy", file="energy.csv", title="Energy efficiency",
       label="Energy", target="Y1", source="UCI id 242, doi:...", T=768, d=8),``.

    :func:`omkl_core.datasets.load`, :func:`omkl_core.registry.load_dataset` and
    :func:`~omkl_core.registry.dataset_names`, ``omkl run --dataset``, a sweep spec and the
    leaderboard's display names then know it (``tests/test_add_dataset.py`` does exactly this).

Paper presets
    ``paper000.defaults(learner)`` (paper 000, section 4) and ``paper003.defaults(T, learner)``
    (paper 003, section 5): the constructor parameters as the papers state them, as plain values (the
    kernel dictionary as ``[kinds, sigmas]`` lists), so that a preset can go into a sweep spec as it
    is; the rows of paper 000's Table 2 and paper 003's Tables 1-4, by label -> ``(class name,
    parameters)``; the authors' code settings of Raker and OMKL-GF (:data:`RAKER_AUTHORS_CODE`,
    :data:`OMKLGF_AUTHORS_CODE`). A class is named, never imported: :func:`omkl_core.registry.learners`
    maps the name to the class. ``omkl_core.registry.paper000`` / ``paper003`` are these namespaces.
"""
from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from .features import paper000_sigmas, paper003_sigmas
from .validation import check_int

__all__ = ["DatasetInfo", "DATASETS", "DATASET_LABELS", "dataset_label", "RAKER_AUTHORS_CODE", "OMKLGF_AUTHORS_CODE",
           "paper000", "paper003"]


# ----------------------------------------------------------------------------- datasets
@dataclass(frozen=True)
class DatasetInfo:
    """Static description of one dataset (Table 1 of paper 000, plus provenance).

    Attributes
    ----------
    name : str
        The name every layer uses (``omkl run --dataset NAME``, a sweep spec, ``registry.load_dataset``).
    file : str
        The CSV in ``omkl_core/data`` ("" for a generator).
    title : str
        The dataset's full title (UCI's; ``AR(4)`` for the generator).
    target : str
        The target column's header (the generator: the label it predicts).
    source : str
        Where the data come from (UCI id and DOI, or the paper's equation).
    T, d : int
        The shape of the stream: steps and features.
    variants : dict
        Column or missing-value variants ``{None or key: description}`` (:func:`omkl_core.datasets.load`).
    notes : str
        Column choices, in words.
    label : str
        The short display name of the reproduction's tables ("" -> ``name``).
    generator : str
        For a generated stream, the function of :mod:`omkl_core.datasets` that draws it ("" for a file).
    params : dict
        A generator's parameters and their defaults (``{}`` for a file).
    """

    name: str
    file: str
    title: str
    target: str
    source: str
    T: int
    d: int
    variants: dict[str | None, str] = field(default_factory=dict)
    notes: str = ""
    label: str = ""
    generator: str = ""
    params: dict = field(default_factory=dict)

    @property
    def display(self) -> str:
        """The display label (``label``, or ``name`` when it has none)."""
        return self.label or self.name


#: The one map of datasets: name -> :class:`DatasetInfo`, the generator first, then the bundled CSVs.
#: A new dataset is one line here (with its CSV and its SOURCES.md entry; see the module docstring).
DATASETS: dict[str, DatasetInfo] = {
    # paper 000 eq. (32), T = 5000 steps ("t = 1, ..., 5000"), noise seed 0
    "ar4": DatasetInfo(
        name="ar4", file="", title="AR(4)", label="AR(4)", target="x_{t+1}",
        source="synthetic, paper 000 eq. (32)", T=5000, d=1, generator="ar4", params={"T": 5000, "seed": 0},
        notes="feature x_t, label x_{t+1}; eps_t ~ N(0, 1) from numpy.random.default_rng(seed)"),
    "airfoil": DatasetInfo(
        name="airfoil", file="airfoil.csv", title="Airfoil Self-Noise", label="Airfoil",
        target="scaled-sound-pressure",
        source="UCI id 291, doi:10.24432/C5VW2C (Brooks, Pope & Marcolini 1989)",
        T=1503, d=5, notes="all 5 columns but the last are features; target = last column"),
    "bias": DatasetInfo(
        name="bias", file="bias_correction.csv", label="Bias",
        title="Bias correction of numerical prediction model temperature forecast",
        target="Next_Tmin", source="UCI id 514, doi:10.24432/C59K76 (Cho et al. 2020)",
        T=7750, d=20,
        variants={None: "Present_Tmin ... Solar radiation (20 columns); NaN -> column mean",
                  "dropna": "same 20 columns; rows with any missing value dropped (T = 7588)"},
        notes="station, Date and Present_Tmax excluded, as the authors' code ended up doing"),
    "concrete": DatasetInfo(
        name="concrete", file="concrete.csv", title="Concrete Compressive Strength", label="Concrete",
        target="Concrete compressive strength(MPa, megapascals)",
        source="UCI id 165, doi:10.24432/C5PK67 (Yeh 1998)",
        T=1030, d=8, notes="8 mixture features; target = last column"),
    "naval": DatasetInfo(
        name="naval", file="naval.csv", label="Naval",
        title="Condition Based Maintenance of Naval Propulsion Plants",
        target="Lever position (lp) [ ]",
        source="UCI id 316, doi:10.24432/C5K31K (Coraddu et al. 2014)",
        T=11934, d=15,
        variants={None: "15 measurement columns 1..15 (graph-aided paper's text, ICML-2020 code)",
                  "17": "17 columns 1..17 incl. both decay coefficients (graph-aided paper's code)"},
        notes="target = column 0 (lever position), not the UCI decay targets"),
    "wine_white": DatasetInfo(
        name="wine_white", file="wine_white.csv", title="Wine Quality (white)", label="Wine",
        target="quality", source="UCI id 186, doi:10.24432/C56S3T (Cortez et al. 2009)",
        T=4898, d=11, notes="11 physico-chemical features; target = last column"),
}


def dataset_label(name: str) -> str:
    """The display label of dataset ``name`` ("AR(4)", "Airfoil", ...; KeyError naming it when unknown)."""
    if name not in DATASETS:
        raise KeyError(f"unknown dataset {name!r}; known: {', '.join(DATASETS)}")
    return DATASETS[name].display


class _Labels(Mapping):
    """``{name: display label}`` read from :data:`DATASETS` at each lookup (a dataset added to the
    table is known at once)."""

    def __getitem__(self, name: str) -> str:
        return dataset_label(name)

    def __iter__(self) -> Iterator[str]:
        return iter(list(DATASETS))

    def __len__(self) -> int:
        return len(DATASETS)

    def __repr__(self) -> str:
        return repr(dict(self))


#: Dataset name -> display label, a live view of :data:`DATASETS` (the leaderboard's ``NAMES``).
DATASET_LABELS: Mapping[str, str] = _Labels()


# ----------------------------------------------------------------- authors' code settings
#: The graph-aided authors' code of Raker (reference D.1): regulariser at the updated theta,
#: eta_t = 0.1/sqrt(t). Re-exported as ``omkl_core.mkl.raker.AUTHORS_CODE``.
RAKER_AUTHORS_CODE = {"loss_after_step": True, "eta": 0.1, "schedule": "inv_sqrt_t"}

#: The graph-aided authors' code of OMKL-GF as paper 000 ran it (reference C.1, C.3; 2022
#: notebooks): J = 2, off-by-one edge draws, 1/q clipped at 1/0.05 = 20, graph frozen after
#: step index 301, regulariser at the updated theta, eta_t = 0.1/sqrt(t). M = 10 is the
#: notebooks' plotted setting (a separate parameter, kept as the caller gives it).
#: Re-exported as ``omkl_core.mkl.omkl_gf.AUTHORS_CODE``.
OMKLGF_AUTHORS_CODE = {"J": 2, "off_by_one": True, "q_clip": 0.05, "freeze_after": 302, "loss_after_step": True,
                       "eta": 0.1, "schedule": "inv_sqrt_t"}


# ----------------------------------------------------------------------------- papers
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


class paper000:  # noqa: N801 - a namespace read as ``presets.paper000.defaults(...)`` (and ``registry.paper000``)
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

    DATASETS = ("ar4", "airfoil", "bias", "concrete", "naval")   # Table 2's streams, in its order
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
        eq. (29)'s fixed eta; "VAW-BOA [opera 1.2.2]", VAW-BOA with the BOA of opera 1.2.2 (GitHub
        HEAD) instead of the CRAN-era 1.2.0 the paper's time suggests (reference A.6). None: both forms, text first. A row's meta-learner alone (for
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
                 "code": {"VAW-EWA [opera calibrated]": ("VAWEWA", {**d["VAWEWA"], "calibrated": True}),
                          "VAW-BOA [opera 1.2.2]": ("VAWBOA", {**d["VAWBOA"], "version": "v122"})}}
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
        :data:`RAKER_AUTHORS_CODE`, also ``omkl_core.mkl.raker.AUTHORS_CODE``); OMKL-GF with J = 2
        selective nodes, off-by-one edge draws, 1/q clipped at 20, the graph frozen after step index
        301 and lam |theta_{t+1}|^2 (reference C.1/C.3, the 2022 notebooks, :data:`OMKLGF_AUTHORS_CODE`,
        also ``omkl_core.mkl.omkl_gf.AUTHORS_CODE``), M = 10 (the notebooks' plotted setting).
        None: both forms, text first.
        """
        d = paper000.defaults()
        forms = {"text": {"Raker": ("Raker", d["Raker"]), "OMKL-GF": ("OMKLGF", d["OMKLGF"])},
                 "code": {"Raker [authors' code]": ("Raker", {**d["Raker"], **RAKER_AUTHORS_CODE}),
                          "OMKL-GF [authors' code: J = 2]": ("OMKLGF", {**d["OMKLGF"], **OMKLGF_AUTHORS_CODE})}}
        if form is None:
            return {**forms["text"], **forms["code"]}
        if form not in forms:
            raise ValueError(f"form must be one of {list(forms)} or None, got {form!r}")
        return forms[form]


class paper003:  # noqa: N801 - a namespace read as ``presets.paper003.defaults(...)`` (and ``registry.paper003``)
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

    DATASETS = ("airfoil", "concrete", "naval", "wine_white")    # Tables 1-4
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
