"""One look for every figure of the reproduction: the same colour and marker for the same learner
in every figure, legends outside the data, axis labels in words.

>>> from omkl_core.repro import style
>>> style.color("VAW2") == style.color("VAW2")
True
"""
from __future__ import annotations

import hashlib

__all__ = ["PALETTE", "MARKERS", "color", "marker", "line_kwargs", "legend_outside", "apply"]

# Colour-blind-safe base colours (Okabe-Ito, then Tol's muted set), one per learner family member.
_BASE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442",
         "#332288", "#882255", "#117733", "#44AA99", "#999933", "#AA4499", "#DDCC77", "#88CCEE"]

#: Fixed colours of the learners the papers name (display names as the tables write them).
PALETTE = {
    # paper 000: the VAW family
    "VAW2": "#0072B2", "VAW2 (trunc)": "#56B4E9", "VAW-EWA": "#D55E00", "VAW-Aggr": "#009E73",
    "VAW-BOA": "#CC79A7", "VAW-ML-Poly": "#E69F00", "VAW-ML-Prod": "#000000",
    # paper 003: graph-aided learners and baselines
    "Raker": "#882255", "OMKL-GF": "#117733", "OMKR": "#999933", "SFG-MKL": "#332288",
    "SFG-MKL-R": "#44AA99",
    # paper 002 / floors / mixtures
    "OnlineRidge": "#AA4499", "running mean": "#777777", "Mixture": "#DDCC77",
    "BayesianRidge": "#228833", "KernelRidge": "#4477AA", "KernelBayesianRidge": "#EE6677",
    # paper 001: Algorithm 1 and the single-copy baseline
    "NoisyKernelOGD": "#0077BB", "SingleCopyKernelOGD": "#EE7733",
    # paper 004: boosting
    "AdaBoost": "#BB5566", "GradientBoosting": "#004488",
}

_MARKER_CYCLE = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "*", "h", "p"]
#: Fixed markers, so that two lines of equal values stay distinguishable.
MARKERS = {name: _MARKER_CYCLE[i % len(_MARKER_CYCLE)] for i, name in enumerate(PALETTE)}


def _stable_index(label: str, n: int) -> int:
    return int(hashlib.sha256(label.encode()).hexdigest(), 16) % n


def color(label: str) -> str:
    """The colour of ``label`` (a learner's display name): fixed for the named learners, else a
    stable choice from the base colours (the same in every figure and every run)."""
    return PALETTE.get(label) or _BASE[_stable_index(label, len(_BASE))]


def marker(label: str) -> str:
    """The marker of ``label`` (stable like :func:`color`)."""
    return MARKERS.get(label) or _MARKER_CYCLE[_stable_index(label, len(_MARKER_CYCLE))]


def line_kwargs(label: str, n_points: int, *, index: int = 0) -> dict:
    """``plot`` keyword arguments for a learner's curve: its colour, its marker every few points
    (offset by ``index`` so that markers of coinciding curves do not cover each other)."""
    every = max(n_points // 8, 1)
    return {"color": color(label), "marker": marker(label), "markevery": (index % every, every),
            "markersize": 4, "linewidth": 1.3, "label": label}


def legend_outside(ax_or_fig, *, title: str | None = None, ncol: int = 1) -> None:
    """A legend to the right of the axes (or below a figure of panels), never over the data."""
    if hasattr(ax_or_fig, "get_axes") and not hasattr(ax_or_fig, "plot"):   # a Figure: one legend for all panels
        fig = ax_or_fig
        handles, labels = [], []
        for ax in fig.get_axes():
            for h, lab in zip(*ax.get_legend_handles_labels()):
                if lab not in labels:
                    handles.append(h)
                    labels.append(lab)
        fig.legend(handles, labels, loc="lower center", ncol=max(ncol, min(len(labels), 4)), title=title,
                   bbox_to_anchor=(0.5, -0.02), frameon=False)
        return
    ax_or_fig.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, ncol=ncol, title=title,
                     frameon=False)


def apply() -> None:
    """The common theme (seaborn's ``whitegrid``, readable font sizes); call once per notebook."""
    import matplotlib as mpl  # noqa: PLC0415
    import seaborn as sns  # noqa: PLC0415

    sns.set_theme(style="whitegrid", context="notebook")
    mpl.rcParams.update({"figure.dpi": 110, "savefig.dpi": 130, "savefig.bbox": "tight", "axes.titlesize": 11,
                         "axes.labelsize": 10, "legend.fontsize": 9,
                         "legend.title_fontsize": 9})   # one legend size in every figure
