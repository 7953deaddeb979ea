"""One look for every figure of the reproduction: the same colour and marker for the same learner
in every figure, legends outside the data, axis labels in words, and text a reader can read where
the figure is shown: the HTML report shows a figure at most :data:`REPORT_FIGURE_PX` wide, so a
figure saved wider is scaled down, and its text with it. Every text of a figure is
:data:`FONT_PT` points; a figure is at most :func:`max_width_in` inches wide, so that its text is
shown at least as large as the report's body text (:func:`rendered_px`, :func:`smallest_text_px`).

>>> from omkl_core.repro import style
>>> style.color("VAW2") == style.color("VAW2")
True
"""
from __future__ import annotations

import hashlib

__all__ = ["PALETTE", "MARKERS", "color", "marker", "line_kwargs", "legend_outside", "apply", "FONT_PT", "SAVE_DPI",
           "REPORT_FIGURE_PX", "REPORT_BODY_PX", "rendered_px", "max_width_in", "smallest_text_px"]

#: The widest a figure is shown in the HTML report (px): ``figure{max-width}`` of
#: :mod:`omkl_core.repro.html_report`'s style sheet (the image fills its figure box).
REPORT_FIGURE_PX = 1150
#: The report's body text size (px): the browser's default, which the style sheet keeps.
REPORT_BODY_PX = 16
#: The size of every text of a figure (tick labels, axis labels, legends, titles), in points.
FONT_PT = 12
#: The resolution figures are saved at (:func:`omkl_core.repro.report.save_figure`), dots per inch.
SAVE_DPI = 130


def rendered_px(size_pt: float, image_px: float, dpi: float = SAVE_DPI) -> float:
    """The height in screen pixels of text of ``size_pt`` points in an image ``image_px`` pixels wide
    saved at ``dpi``, as the report shows it (scaled down to :data:`REPORT_FIGURE_PX` when wider)."""
    return size_pt * dpi / 72.0 * min(1.0, REPORT_FIGURE_PX / image_px)


def max_width_in(font_pt: float = FONT_PT) -> float:
    """The widest saved figure (inches, after ``bbox_inches="tight"``) whose text of ``font_pt`` points
    the report shows at least :data:`REPORT_BODY_PX` high: scaled to :data:`REPORT_FIGURE_PX`, a
    figure W inches wide shows text at ``font_pt / 72 * REPORT_FIGURE_PX / W`` px, whatever its dpi."""
    return font_pt / 72.0 * REPORT_FIGURE_PX / REPORT_BODY_PX


def smallest_text_px(fig, dpi: float = SAVE_DPI) -> tuple[float, str]:
    """The smallest visible text of ``fig`` as the report shows it (:func:`rendered_px`, the figure
    saved as :func:`omkl_core.repro.report.save_figure` saves it) and that text: ``(px, text)``."""
    import io  # noqa: PLC0415

    import matplotlib.image as mpimg  # noqa: PLC0415
    from matplotlib.text import Text  # noqa: PLC0415

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    buf.seek(0)
    width = mpimg.imread(buf, format="png").shape[1]
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    small = min(texts, key=lambda t: t.get_fontsize())
    return rendered_px(small.get_fontsize(), width, dpi), small.get_text()

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
    # every text FONT_PT points (one size in every figure); figures at most max_width_in() wide
    mpl.rcParams.update({"figure.dpi": 110, "savefig.dpi": SAVE_DPI, "savefig.bbox": "tight",
                         **{k: FONT_PT for k in ("font.size", "axes.titlesize", "axes.labelsize", "xtick.labelsize",
                                                 "ytick.labelsize", "legend.fontsize", "legend.title_fontsize",
                                                 "figure.titlesize")}})
