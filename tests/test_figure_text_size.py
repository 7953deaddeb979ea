"""Issue 53: figure text at least the report's body text size where the report shows the figure.

Paper 003's figure legends were about 8 px at 1400 px width: a 15-inch figure saved at 130 dpi
(1950 px) is shown at most 1150 px wide, so 9-point text came out at 9 × 130/72 × 1150/1950 ≈ 9.6 px
beside 16-px body text. The rendered size is computed here from the figure as it is saved (its
width after ``bbox_inches="tight"``, every visible text's size) and the report's style sheet."""
from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("seaborn")
pytest.importorskip("pandas")
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from omkl_core.repro import html_report, paper000, paper003, report, style  # noqa: E402


def test_style_reads_the_report_figure_width_and_body_size_from_its_style_sheet():
    """The numbers the font rule rests on are the report's: the figure box's max-width, no body
    font-size (so the browser's 16 px), the image filling its box, and the dpi figures are saved at."""
    css = html_report._CSS.replace("\n", "")
    fig_rule = re.search(r"(?:^|})figure\{([^}]*)\}", css).group(1)
    assert re.search(r"max-width:(\d+)px", fig_rule).group(1) == str(style.REPORT_FIGURE_PX)
    body_rule = re.search(r"(?:^|})body\{([^}]*)\}", css).group(1)
    assert "font-size" not in body_rule and style.REPORT_BODY_PX == 16
    assert "figure img{max-width:100%" in css
    assert inspect.signature(report.save_figure).parameters["dpi"].default == style.SAVE_DPI


def test_rendered_size_scales_text_down_with_a_figure_wider_than_the_report():
    # 9 pt at 130 dpi: 16.25 px in an image shown at its own size, 9.58 px in a 1950-px image shown 1150 wide
    assert style.rendered_px(9, 1000) == pytest.approx(9 * 130 / 72)
    assert style.rendered_px(9, 1950) == pytest.approx(9 * 130 / 72 * 1150 / 1950)
    assert style.rendered_px(style.FONT_PT, style.max_width_in() * style.SAVE_DPI) == pytest.approx(style.REPORT_BODY_PX)


def _p003_results():
    t = np.linspace(1, 1500, 500)
    rows = paper003.ROWS + list(paper003.LEGEND)
    return {"Airfoil": {r: {"curve_t": t, "curve": 20 + 200 / np.sqrt(t) * (1 + 0.1 * i), "curve_sd": 2 + 0 * t,
                            "n": 50} for i, r in enumerate(rows)}}


def _p000_results():
    t = np.arange(1, 1001)
    rng = np.random.default_rng(0)
    return {n: {"T": t.size,
                "curve": {r: 10 + 100 / np.sqrt(t) * (1 + 0.05 * i) for i, r in enumerate(paper000.FIG1_ROWS)},
                "curve_sd": {r: 1 + 0 * t for r in paper000.FIG1_ROWS},
                "weights": {r: rng.normal(size=76) for r in paper000.FIG2_ROWS}}
            for n in ("AR(4)", "Airfoil", "Bias", "Concrete", "Naval", "Wine")}


_FIGURES = {
    "paper003_fig1": lambda: paper003.figure(_p003_results(), "Airfoil", 1, paper003.Settings(quick=True)),
    "paper000_fig1": lambda: paper000.plot_fig1(_p000_results(), paper000.Settings(
        quick=True, repetitions=2, m=50, lam=1.0, seed=0, T_max=None)),
    "paper000_fig2": lambda: paper000.plot_fig2(_p000_results(), paper000.Settings(
        quick=True, repetitions=2, m=50, lam=1.0, seed=0, T_max=None)),
}


@pytest.mark.parametrize("name", sorted(_FIGURES))
def test_figure_text_is_at_least_the_report_body_size_where_the_report_shows_it(name):
    """Every visible text of the figure (ticks, axis labels, legends, titles), as saved and shown at
    the report's width, is at least the body text's size."""
    with matplotlib.rc_context():
        style.apply()                               # the notebooks' theme
        fig = _FIGURES[name]()
        try:
            px, text = style.smallest_text_px(fig)
        finally:
            plt.close(fig)
    assert px >= style.REPORT_BODY_PX, f"{name}: {text!r} shown at {px:.1f} px < body {style.REPORT_BODY_PX} px"
