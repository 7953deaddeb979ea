"""Paper 002 (Zhdanov & Vovk, *Competing with Gaussian linear experts*, 2009): the experiments of
``notebooks/p002_ridge_equalities.ipynb``.

The paper's main results are equalities, so on real data both sides are computed independently
(left: the online learners of :mod:`omkl_core.linear`, a recursion over t; right: the batch
expressions of :mod:`omkl_core.bounds`) and compared to machine precision:

* :func:`run_learners`: the online learners on Airfoil (``paper002_online_mse``,
  ``paper002_timing``);
* :func:`equalities`: both sides of Theorem 1 eq. (1), Theorem 2 eq. (14), Theorem 3 eq. (17),
  Theorem 4 and identity (16) on every prefix of a grid (``paper002_equalities``,
  ``paper002_equalities_over_T``);
* :func:`regret_vs_logdet`: the regret terms against ln det, Corollary 1 and bound (3)
  (``paper002_regret_vs_logdet``);
* :func:`clipped_bounds`: Corollary 1 bound (2), Corollary 2 bound (4) and the kernel bound (18)
  against the actual loss (``paper002_bounds``);
* :func:`corollary3`: Corollary 3, the ratio of the square loss to the regularised minimum
  tends to 1 (``paper002_corollary3_ratio``).

``figure_*`` functions draw each of them. Importing the module runs nothing.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import bounds as B
from .. import kernels, registry
from ..features import RandomFourierFeatures
from ..ridge import BayesianRidge, KernelBayesianRidge, KernelRidge, OnlineRidge
from . import style, timing
from .report import plain_log_ticks

__all__ = ["A", "SIGMA2", "RBF_SIGMA", "M_FEATURES", "EPS", "Setup", "setup", "run_learners", "equalities",
           "EQUALITIES_ROUNDOFF", "OVER_T_ROUNDOFF", "regret_vs_logdet", "clipped_bounds", "corollary3",
           "figure_equalities", "figure_residuals", "figure_regret", "figure_clipped", "figure_corollary3"]

#: Ridge parameter a, Bayesian noise variance sigma^2 (about the label variance), RBF width, random features.
A, SIGMA2, RBF_SIGMA, M_FEATURES = 1.0, 0.03, 0.1, 100
EPS = float(np.finfo(float).eps)
#: The residual columns measure round-off (~1e-16, machine-dependent): hashed as "<= bound" (report.canonical_table).
EQUALITIES_ROUNDOFF = {"max_rel_residual": 1e-12, "median_rel_residual": 1e-12, "max_residual_in_eps": 1e4}
OVER_T_ROUNDOFF = {"rel_residual": 1e-12}


@dataclass(frozen=True)
class Setup:
    """Airfoil in file order, normalised as in paper 000 (33)-(34); T steps (quick: 300)."""

    X_raw: np.ndarray    # (T, 5) normalised features: the kernel learners' inputs
    y: np.ndarray        # (T,) labels in [0, 1]
    y_all: np.ndarray    # the whole stream's labels (Y = max |y|)
    X_lin: np.ndarray    # (T, 6) x_t = (1, features): a constant feature plays the intercept
    X_rf: np.ndarray     # (T, 200) sin/cos random Fourier features of the Gaussian kernel
    kern: object         # the Gaussian kernel exp(-|x - x'|^2 / (2 sigma^2)), sigma = 0.1
    grid: np.ndarray     # prefix lengths at which the right-hand sides are recomputed
    quick: bool


def setup(quick: bool) -> Setup:
    """The streams of the notebook (``quick``: T = 300 and 60 grid points; full: 1503 steps, 200)."""
    X_raw, y_all = registry.load_dataset("airfoil")
    T = 300 if quick else X_raw.shape[0]
    X_raw, y = X_raw[:T], y_all[:T]
    X_lin = np.column_stack([np.ones(T), X_raw])
    rff = RandomFourierFeatures("gaussian", sigma=RBF_SIGMA, d=X_raw.shape[1], m=M_FEATURES, seed=0,
                                feature_map="sincos")
    grid = np.unique(np.r_[np.geomspace(1, T, 60 if quick else 200).astype(int), T])
    return Setup(X_raw, y, y_all, X_lin, np.asarray(rff.transform(X_raw)), kernels.Gaussian(RBF_SIGMA), grid, quick)


def _timed(model, X, y):
    """One pass; its CPU time (time.process_time, one BLAS thread) goes to the timing table."""
    with timing.one_blas_thread():
        t0 = time.process_time()
        tr = model.trajectory(X, y)
        secs = time.process_time() - t0
    return tr, tr.cumulative(y), secs


def run_learners(s: Setup) -> tuple[dict, pd.DataFrame, pd.DataFrame]:
    """Algorithm 1 (online ridge regression) on (1, features) and on random features, Bayesian
    ridge (section 3), kernel ridge (Theorem 3; bordered Cholesky and bordered inverse) and kernel
    Bayesian ridge (Theorem 4), predict-then-learn over the stream.

    Returns ``(runs, online_mse, times)``: ``runs[name] = (trajectory, cumulative sums, CPU s)``,
    the table ``paper002_online_mse`` and the timing table ``paper002_timing``."""
    runs = {
        "ridge, x = (1, airfoil)": _timed(OnlineRidge(A), s.X_lin, s.y),
        "ridge, random features": _timed(OnlineRidge(A), s.X_rf, s.y),
        "Bayesian ridge, x = (1, airfoil)": _timed(BayesianRidge(A, sigma2=SIGMA2), s.X_lin, s.y),
        "kernel ridge, Gaussian": _timed(KernelRidge(A, s.kern), s.X_raw, s.y),
        "kernel ridge, Gaussian (bordered inverse)": _timed(KernelRidge(A, s.kern, solver="inverse"), s.X_raw, s.y),
        "kernel Bayesian ridge, Gaussian": _timed(KernelBayesianRidge(A, s.kern, sigma2=SIGMA2), s.X_raw, s.y),
    }
    T = s.y.size
    online_mse = pd.DataFrame([{"learner": k, "T": T, "mse": float(np.mean((v[0].prediction - s.y) ** 2))}
                               for k, v in runs.items()])
    times = pd.DataFrame([{"learner": k, "T": T, "CPU s (one pass, one BLAS thread)": v[2]} for k, v in runs.items()])
    return runs, online_mse, times


def _log_scale(t, rhs_min, logdet):
    """|T/2 ln(2 pi sigma^2)| + min / (2 sigma^2) + ln det / 2: the scale of (14) and Theorem 4, whose sides
    can change sign."""
    return abs(0.5 * t * np.log(2 * np.pi * SIGMA2)) + rhs_min / (2 * SIGMA2) + 0.5 * logdet


def equalities(s: Setup, runs: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both sides of eq. (1) (Theorem 1), (14) (Theorem 2), (17) (Theorem 3), Theorem 4 and the
    identity (16) at every prefix length of ``s.grid``, the right-hand sides recomputed from
    scratch (least squares on [X; sqrt(a) I], a Cholesky solve of (K + aI)c = y, ``slogdet``).

    Returns ``(summary, sides)``: the tables ``paper002_equalities`` (per equality: both sides at
    T, the largest and median relative residual, the largest in float64 eps) and
    ``paper002_equalities_over_T`` (every grid point)."""
    G = s.kern.matrix(s.X_raw)
    c_lin, c_rf, c_bay = (runs["ridge, x = (1, airfoil)"][1], runs["ridge, random features"][1],
                          runs["Bayesian ridge, x = (1, airfoil)"][1])
    c_k, c_kinv, c_kb = (runs["kernel ridge, Gaussian"][1], runs["kernel ridge, Gaussian (bordered inverse)"][1],
                         runs["kernel Bayesian ridge, Gaussian"][1])
    a, sigma2 = A, SIGMA2
    rows = []
    for t in s.grid:
        Xl, Xr, yt, Gt = s.X_lin[:t], s.X_rf[:t], s.y[:t], G[:t, :t]
        r1, r1rf, r3 = B.paper002_theorem1_rhs(Xl, yt, a), B.paper002_theorem1_rhs(Xr, yt, a), B.paper002_theorem3_rhs(Gt, yt, a)
        ld, ldk = B.paper002_logdet(Xl, a), B.paper002_kernel_logdet(Gt, a)
        for name, lhs, rhs, scale in [
            ("(1) ridge, x = (1, airfoil)", c_lin["weighted_loss"][t - 1], r1, r1),                        # eq. (1)
            ("(1) ridge, random features", c_rf["weighted_loss"][t - 1], r1rf, r1rf),
            ("(14) Bayesian ridge", c_bay["log_loss"][t - 1], B.paper002_theorem2_rhs(Xl, yt, a, sigma2),  # eq. (14)
             _log_scale(t, r1, ld)),
            ("(17) kernel ridge, Gaussian", c_k["weighted_loss"][t - 1], r3, r3),                        # eq. (17)
            ("(17) kernel ridge, bordered inverse", c_kinv["weighted_loss"][t - 1], r3, r3),
            ("Thm 4 kernel Bayesian ridge", c_kb["log_loss"][t - 1], B.paper002_theorem4_rhs(Gt, yt, a, sigma2),
             _log_scale(t, r3, ldk)),
            ("(16) ln det, ridge", c_lin["log_det"][t - 1], ld, max(1.0, ld)),                           # eq. (16)
            ("(16) ln det, kernel", c_k["log_det"][t - 1], ldk, max(1.0, ldk)),
        ]:
            rows.append({"equality": name, "T": int(t), "lhs": lhs, "rhs": rhs, "scale": scale})
    sides = pd.DataFrame(rows)
    sides["rel_residual"] = (sides["lhs"] - sides["rhs"]).abs() / sides["scale"]
    summary = (sides.sort_values("T").groupby("equality", sort=False)
               .agg(T=("T", "last"), lhs_at_T=("lhs", "last"), rhs_at_T=("rhs", "last"),
                    max_rel_residual=("rel_residual", "max"), median_rel_residual=("rel_residual", "median"))
               .reset_index())
    summary["max_residual_in_eps"] = summary["max_rel_residual"] / EPS
    return summary, sides


def _rhs_by_T(sides: pd.DataFrame, equality: str) -> pd.Series:
    return sides[sides["equality"] == equality].set_index("T")["rhs"]


def regret_vs_logdet(s: Setup, runs: dict, sides: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The regret terms against ln det (section 2): by (1) the square-loss regret of ridge regression
    against the regularised minimum, the proof of Corollary 1's 4Y^2 ln det and (3)'s
    n ln(1 + T X^2 / a); by (14) the log-loss regret of Bayesian ridge equals ln det / 2; the kernel
    forms (17), (18) and T ln(1 + 1/a).

    Returns ``(regret, table)``: every grid point, and the 12 rows of ``paper002_regret_vs_logdet``."""
    a = A
    Y = float(np.max(np.abs(s.y_all)))          # labels are in [0, 1]: Y = 1
    r1_T, r3_T = _rhs_by_T(sides, "(1) ridge, x = (1, airfoil)"), _rhs_by_T(sides, "(17) kernel ridge, Gaussian")
    ld_T, ldk_T = _rhs_by_T(sides, "(16) ln det, ridge"), _rhs_by_T(sides, "(16) ln det, kernel")
    reg14 = sides[sides["equality"] == "(14) Bayesian ridge"].set_index("T")
    reg_min14 = reg14["rhs"] - 0.5 * ld_T      # min_theta(L_T(theta) + a/(2 sigma^2)||theta||^2)
    tg = r1_T.index.values
    X_inf = float(np.abs(s.X_lin).max())
    c_lin, c_k = runs["ridge, x = (1, airfoil)"][1], runs["kernel ridge, Gaussian"][1]
    regret = pd.DataFrame({
        "T": tg,
        "ridge_square_regret": c_lin["square_loss"][tg - 1] - r1_T.values,
        "ridge_ln_det": ld_T.values,
        "ridge_4Y2_ln_det": 4 * Y**2 * ld_T.values,
        "bound3_n_ln(1+TX^2/a)": [B.paper002_eq3_bound(int(t), s.X_lin.shape[1], a, X_inf) for t in tg],   # eq. (3)
        "bayes_log_loss_regret": reg14["lhs"].values - reg_min14.values,
        "half_ln_det": 0.5 * ld_T.values,                                                              # eq. (14)
        "kernel_square_regret": c_k["square_loss"][tg - 1] - r3_T.values,
        "kernel_ln_det": ldk_T.values,
        "kernel_bound_T_ln(1+1/a)": [B.paper002_kernel_logdet_bound(int(t), a, 1.0) for t in tg],
    })
    return regret, regret.iloc[np.unique(np.r_[np.linspace(0, len(regret) - 1, 12).astype(int)])]


def clipped_bounds(s: Setup, runs: dict, sides: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Corollary 1 bound (2) against the loss of ridge regression clipped to [-Y, Y] (Y = 1),
    Corollary 2 bound (4) (unclipped, ||x_t|| <= Z) and the kernel bound (18) (Corollary 4).

    Returns ``(b, final)``: every grid point and the table ``paper002_bounds`` (at T, with the
    slack of (2) and (18)). Raises RuntimeError if a bound fails (the theorems say it cannot)."""
    a, Y = A, float(np.max(np.abs(s.y_all)))
    tg = s.grid
    r1_T, r3_T = _rhs_by_T(sides, "(1) ridge, x = (1, airfoil)"), _rhs_by_T(sides, "(17) kernel ridge, Gaussian")
    ld_T, ldk_T = _rhs_by_T(sides, "(16) ln det, ridge"), _rhs_by_T(sides, "(16) ln det, kernel")
    loss_clip = np.cumsum((s.y - OnlineRidge(a, clip=Y).trajectory(s.X_lin, s.y).prediction) ** 2)
    loss_kclip = np.cumsum((s.y - KernelRidge(a, s.kern, clip=Y).trajectory(s.X_raw, s.y).prediction) ** 2)
    Z2 = float(np.max(np.sum(s.X_lin**2, axis=1)))
    b = pd.DataFrame({
        "T": tg,
        "clipped_ridge_loss": loss_clip[tg - 1],
        "min_theta": r1_T.values,
        "bound2_rhs": r1_T.values + 4 * Y**2 * ld_T.values,                           # eq. (2)
        "ridge_loss_unclipped": runs["ridge, x = (1, airfoil)"][1]["square_loss"][tg - 1],
        "bound4_rhs": (1 + Z2 / a) * r1_T.values,                                     # eq. (4)
        "clipped_kernel_loss": loss_kclip[tg - 1],
        "bound18_rhs": r3_T.values + 4 * Y**2 * ldk_T.values,                         # eq. (18)
    })
    if not (np.all(b["clipped_ridge_loss"] <= b["bound2_rhs"]) and np.all(b["clipped_kernel_loss"] <= b["bound18_rhs"])
            and np.all(b["ridge_loss_unclipped"] <= b["bound4_rhs"] * (1 + 1e-12))):
        raise RuntimeError("paper 002: a bound (2), (4) or (18) fails on Airfoil")
    final = b.iloc[[-1]].copy()
    final["slack_bound2"] = final["bound2_rhs"] - final["clipped_ridge_loss"]
    final["slack_bound18"] = final["bound18_rhs"] - final["clipped_kernel_loss"]
    return b, final


def corollary3(s: Setup, runs: dict) -> tuple[dict, pd.DataFrame]:
    """Corollary 3: sum_t (y_t - gamma_t)^2 / min_theta(...) -> 1, on Airfoil ((1, features) and
    random features) and on the AR(4) stream of paper 000 eq. (32) with x_t = (1, x_t)
    (T = 2000 quick, 50 000 full). The ratio is >= 1 at every T by (1) (RuntimeError otherwise).

    Returns ``(curves, ratios)``: ``{stream: (T grid, ratio)}`` and the table
    ``paper002_corollary3_ratio`` (T = 10, 100, 1000, 10000 and the last)."""
    a = A
    T_ar = 2000 if s.quick else 50000
    Xa, ya = registry.load_dataset("ar4", T=T_ar, seed=0)
    Xa = np.column_stack([np.ones(T_ar), Xa])
    sq_ar = np.cumsum((ya - OnlineRidge(a).run(Xa, ya)) ** 2)
    grid_ar = np.unique(np.r_[np.geomspace(1, T_ar, 150).astype(int), T_ar])
    X_lin, X_rf, y = s.X_lin, s.X_rf, s.y
    streams = {
        "airfoil, x = (1, features)": (s.grid, runs["ridge, x = (1, airfoil)"][1]["square_loss"],
                                       lambda t: B.paper002_theorem1_rhs(X_lin[:t], y[:t], a)),
        "airfoil, random features (n = 200)": (s.grid, runs["ridge, random features"][1]["square_loss"],
                                               lambda t: B.paper002_theorem1_rhs(X_rf[:t], y[:t], a)),
        f"AR(4), x = (1, x_t), T = {T_ar}": (grid_ar, sq_ar, lambda t: B.paper002_theorem1_rhs(Xa[:t], ya[:t], a)),
    }
    curves, ratio_rows = {}, []
    for name, (g, sq, rhs) in streams.items():
        r = np.array([sq[t - 1] / rhs(t) for t in g])
        if not np.all(r >= 1 - 1e-9):
            raise RuntimeError(f"paper 002 eq. (1): the ratio falls below 1 on {name}")
        curves[name] = (g, r)
        for t in (10, 100, 1000, 10000, g[-1]):
            if t <= g[-1]:
                ratio_rows.append({"stream": name, "T": int(t), "ratio": sq[t - 1] / rhs(int(t))})
    return curves, pd.DataFrame(ratio_rows).drop_duplicates(["stream", "T"])


# ----------------------------------------------------------------------------- figures
#: The learner behind each equality (its colour, omkl_core.repro.style) and the units of its sides.
_EQUALITY = {
    "(1) ridge, x = (1, airfoil)": ("OnlineRidge", "weighted square loss (label units²)"),
    "(1) ridge, random features": ("OnlineRidge", "weighted square loss (label units²)"),
    "(14) Bayesian ridge": ("BayesianRidge", "cumulative log loss (nats)"),
    "(17) kernel ridge, Gaussian": ("KernelRidge", "weighted square loss (label units²)"),
    "(17) kernel ridge, bordered inverse": ("KernelRidge", "weighted square loss (label units²)"),
    "Thm 4 kernel Bayesian ridge": ("KernelBayesianRidge", "cumulative log loss (nats)"),
    "(16) ln det, ridge": ("OnlineRidge", "ln det (nats, no unit)"),
    "(16) ln det, kernel": ("KernelRidge", "ln det (nats, no unit)"),
}


def figure_equalities(sides: pd.DataFrame):
    """Both sides of each equality over T, one panel per equality (seaborn ``FacetGrid``, each panel
    its own y-axis and unit): the online left-hand side a wide pale line in its learner's colour,
    the batch right-hand side a thin black dashed line with markers on top of it."""
    import seaborn as sns  # noqa: PLC0415


    def draw(data, **_):
        import matplotlib.pyplot as plt  # noqa: PLC0415

        ax = plt.gca()
        learner = _EQUALITY[data["equality"].iloc[0]][0]
        ax.plot(data["T"], data["lhs"], color=style.color(learner), lw=5, alpha=0.45,
                label="left-hand side (online learner, recursion over t)")
        ax.plot(data["T"], data["rhs"], "k--", lw=1, marker="o", ms=2.5, markevery=max(len(data) // 10, 1),
                label="right-hand side (batch, from scratch)")

    g = sns.FacetGrid(sides, col="equality", col_wrap=4, sharey=False, sharex=True, height=3.0, aspect=1.25,
                      col_order=list(_EQUALITY))
    g.map_dataframe(draw)
    g.set_titles("{col_name}", size=10)
    for name, ax in g.axes_dict.items():
        ax.set_ylabel(_EQUALITY[name][1])
        ax.set_xlabel("number of steps T")
    g.figure.suptitle("Airfoil: both sides of the equalities of Zhdanov & Vovk (2009), computed independently")
    g.tight_layout()
    from matplotlib.lines import Line2D  # noqa: PLC0415

    handles, labels = g.axes.flat[0].get_legend_handles_labels()
    lhs = Line2D([], [], color="0.6", lw=5, alpha=0.45)     # one entry for the learner colours of every panel
    g.figure.legend([lhs, handles[1]], ["left-hand side (online learner, recursion over t; colour: the learner)",
                                        labels[1]], loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, frameon=False)
    return g.figure


def figure_residuals(sides: pd.DataFrame):
    """|LHS - RHS| / scale at each T (dots; exact zeros omitted) and its running maximum (lines),
    against float64 eps and the tests' tolerance 1e-9."""
    import matplotlib.pyplot as plt  # noqa: PLC0415


    fig, ax = plt.subplots(figsize=(9, 5))
    seen = []
    for i, name in enumerate(_EQUALITY):
        d = sides[sides["equality"] == name].sort_values("T")
        seen.append(_EQUALITY[name][0])
        kw = {**style.line_kwargs(name, len(d), index=i), "color": style.color(seen[-1]),
              "linestyle": ("-", "--", ":")[seen.count(seen[-1]) - 1]}
        ax.semilogy(d["T"], np.maximum(np.maximum.accumulate(d["rel_residual"]), 1e-17), **kw)
        nz = d[d["rel_residual"] > 0]
        ax.semilogy(nz["T"], nz["rel_residual"], ".", ms=3, alpha=0.35, color=kw["color"])
    ax.axhline(EPS, color="k", ls=":", label="float64 eps = 2.2e-16")
    ax.axhline(1e-9, color="r", ls="--", label="test tolerance 1e-9")
    ax.set_xlabel("number of steps T")
    ax.set_ylabel("relative residual |LHS − RHS| / scale (log scale)")
    ax.set_title("Airfoil: relative residual at each T (dots; exact zeros omitted) and its running maximum (lines)",
                 fontsize=10)
    style.legend_outside(ax, title="equality (learner)")
    fig.tight_layout()
    return fig


def _panel(ax, title: str, ylabel: str) -> None:
    ax.set_xlabel("number of steps T (log scale)")
    ax.set_ylabel(ylabel)
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain_log_ticks(ax, "y")
    ax.set_title(title, fontsize=10)
    ax.legend(loc="upper left", bbox_to_anchor=(0.0, -0.16), frameon=False)   # the theme's size, as in every figure


def figure_regret(s: Setup, regret: pd.DataFrame):
    """The square-loss regret of ridge and kernel ridge against ln det, 4Y^2 ln det and the bounds
    (3) and T ln(1 + 1/a); the log-loss regret of Bayesian ridge against ln det / 2 (equal by (14))."""
    import matplotlib.pyplot as plt  # noqa: PLC0415


    Y = float(np.max(np.abs(s.y_all)))
    tg = regret["T"]
    fig, axes = plt.subplots(1, 3, figsize=(13.5, 5.6))
    ax = axes[0]
    ax.plot(tg, regret["ridge_square_regret"], lw=2, color=style.color("OnlineRidge"),
            label="regret Σ(y − γ)² − min_θ(Σ(y − θ'x)² + a‖θ‖²)")
    ax.plot(tg, regret["ridge_ln_det"], color="0.4", label="ln det(I + Σxx'/a)")
    ax.plot(tg, regret["ridge_4Y2_ln_det"], "k--", label="4Y² ln det (Corollary 1's proof)")
    ax.plot(tg, regret["bound3_n_ln(1+TX^2/a)"], "k:", label="n ln(1 + TX²/a), bound (3)")
    _panel(ax, "ridge regression, x = (1, airfoil)", "square-loss regret and bounds (label units²)")
    ax = axes[1]
    ax.plot(tg, regret["bayes_log_loss_regret"], lw=5, alpha=0.45, color=style.color("BayesianRidge"),
            label="log-loss regret L_T − min(L_T(θ) + a‖θ‖²/(2σ²))")
    ax.plot(tg, regret["half_ln_det"], "k--", marker="o", ms=2.5, markevery=8, label="½ ln det, eq. (14)")
    _panel(ax, "Bayesian ridge: log-loss regret = ½ ln det", "log-loss regret (nats)")
    ax = axes[2]
    ax.plot(tg, regret["kernel_square_regret"], lw=2, color=style.color("KernelRidge"),
            label="regret against min_f, eq. (17)")
    ax.plot(tg, regret["kernel_ln_det"], color="0.4", label="ln det(I + K/a)")
    ax.plot(tg, 4 * Y**2 * regret["kernel_ln_det"], "k--", label="4Y² ln det, eq. (18)")
    ax.plot(tg, regret["kernel_bound_T_ln(1+1/a)"], "k:", label="T ln(1 + c²/a)")
    _panel(ax, f"kernel ridge, Gaussian σ = {RBF_SIGMA}", "square-loss regret and bounds (label units²)")
    fig.tight_layout()
    return fig


def figure_clipped(s: Setup, b: pd.DataFrame, sides: pd.DataFrame):
    """The loss of clipped ridge and kernel ridge against the regularised minimum and the bounds
    (2), (4) and (18)."""
    import matplotlib.pyplot as plt  # noqa: PLC0415


    tg = b["T"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 5.4))
    ax = axes[0]
    ax.plot(tg, b["clipped_ridge_loss"], lw=2, color=style.color("OnlineRidge"),
            label="Σ(y − γ^Y)², ridge clipped to [−Y, Y]")
    ax.plot(tg, b["min_theta"], color="0.4", label="min_θ Σ(y − θ'x)² + a‖θ‖²")
    ax.plot(tg, b["bound2_rhs"], "k--", label="bound (2)")
    ax.plot(tg, b["bound4_rhs"], "k:", label="bound (4) (of the unclipped loss)")
    _panel(ax, "Corollary 1 (2): ridge, x = (1, airfoil)", "cumulative square loss (label units²)")
    ax = axes[1]
    ax.plot(tg, b["clipped_kernel_loss"], lw=2, color=style.color("KernelRidge"),
            label="Σ(y − γ^Y)², kernel ridge clipped to [−Y, Y]")
    ax.plot(tg, _rhs_by_T(sides, "(17) kernel ridge, Gaussian").values, color="0.4",
            label="min_f Σ(y − f(x))² + a‖f‖²")
    ax.plot(tg, b["bound18_rhs"], "k--", label="bound (18)")
    _panel(ax, "Corollary 4 (18): kernel ridge, Gaussian", "cumulative square loss (label units²)")
    fig.tight_layout()
    return fig


def figure_corollary3(curves: dict):
    """Corollary 3: the ratio of ridge regression's square loss to the regularised minimum over T
    (ridge regression on three streams: one colour, a line style and marker each)."""
    import matplotlib.pyplot as plt  # noqa: PLC0415


    fig, ax = plt.subplots(figsize=(9.5, 4.6))
    for i, (name, (g, r)) in enumerate(curves.items()):
        ax.semilogx(g, r, color=style.color("OnlineRidge"), ls=("-", "--", ":")[i % 3], marker="osD"[i % 3],
                    ms=4, markevery=(i * 3, 12), label=name)
    ax.axhline(1.0, color="k", ls=":", lw=0.8)
    ax.set_xlabel("number of steps T (log scale)")
    ax.set_ylabel("square loss / regularised minimum\nΣ(y − γ)² / min_θ(Σ(y − θ'x)² + a‖θ‖²)")
    ax.set_title("Corollary 3: the ratio tends to 1 (a = 1)")
    ax.set_ylim(0.9, None)
    style.legend_outside(ax, title="stream (ridge regression)")
    fig.tight_layout()
    return fig
