"""Paper 004 (T. Zhang, *Mathematical Analysis of Machine Learning Algorithms*, chapter 10 slides:
additive and sparse models): the experiments of ``notebooks/p004_additive.ipynb``.

The chapter has no tables; these functions make its theorems visible on data:

* :func:`adaboost_wine` / :func:`figure_adaboost`: (a) AdaBoost (Algorithm 1, exact stumps) on
  Wine, Theorem 26 and Corollary 27 (``paper004_adaboost_wine``);
* :func:`support_recovery` / :func:`figure_support_recovery`: (b) Lasso (12) support recovery
  with and without the irrepresentable condition (Assumption 28), Theorem 29's conditions
  (``paper004_support_recovery``);
* :func:`theorem31` / :func:`theorem31_scaling`: (c) the Lasso's l2 error against Theorem 31's
  bound, printed (kappa^2) and corrected (kappa^4) (``paper004_theorem31``,
  ``paper004_theorem31_scaling``);
* :func:`rademacher` / :func:`figure_rademacher`: (d) exact Rademacher complexities against
  Example 11, Corollary 19 and Proposition 1 (``paper004_rademacher``);
* :func:`gradient_boosting` / :func:`figure_gradient_boosting`: (e) gradient boosting
  (Algorithm 2) on Airfoil and Wine (``paper004_gradient_boosting``).

Importing the module runs nothing.
"""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

from .. import bounds as B
from .. import datasets, registry
from ..sparse_additive import AdaBoost, GradientBoosting, Lasso
from . import style
from .report import plain_log_ticks

__all__ = ["P", "S", "SIGMA", "DELTA", "sample_sizes", "wine_split", "adaboost_wine", "figure_adaboost",
           "support_recovery", "figure_support_recovery", "theorem31", "theorem31_scaling", "walsh_functions",
           "rademacher", "figure_rademacher", "gradient_boosting", "figure_gradient_boosting"]

#: Model (11): p features, s non-zero, noise sigma; delta of Theorem 31's lambda.
P, S, SIGMA, DELTA = 128, 4, 0.5, 0.1


def sample_sizes(quick: bool) -> list[int]:
    """The sample sizes n of (b) and (c)."""
    return [24, 96, 384] if quick else [24, 48, 96, 192, 384]


def wine_split():
    """White wine (raw features: stumps are invariant to monotone rescaling), Y = +1 if quality
    >= 6 else -1, a fixed 70/30 split (permutation with seed 0): ``(X, y, train, test)``."""
    Xw, qual = registry.load_dataset("wine_white", normalise=False)
    yw = np.where(qual >= 6, 1.0, -1.0)
    perm = np.random.default_rng(0).permutation(len(yw))
    ntr = int(0.7 * len(yw))
    return Xw, yw, perm[:ntr], perm[ntr:]


# ----------------------------------------------------------------------------- (a) AdaBoost
def adaboost_wine(quick: bool) -> dict:
    """(a) AdaBoost with exact stumps on Wine, T = 300 rounds (quick: 30): the training and test
    errors per round, the exponential loss (1/n) sum_i exp(-f(X_i) Y_i) against Theorem 26's
    prod_t sqrt(1 - r_t^2), and at rounds 1, 5, 10, 30, 100, 300 Corollary 27's chain
    (the table ``paper004_adaboost_wine``). Returns a dict with the model, the curves and ``table``."""
    Xw, yw, tr, te = wine_split()
    t0 = time.time()
    ada = AdaBoost(n_rounds=30 if quick else 300).fit(Xw[tr], yw[tr])
    t_fit = time.time() - t0
    Ftr, Fte = ada.staged_decision_function(Xw[tr]), ada.staged_decision_function(Xw[te])
    err_tr = np.mean(np.where(Ftr >= 0, 1, -1) != yw[tr], axis=1)
    err_te = np.mean(np.where(Fte >= 0, 1, -1) != yw[te], axis=1)
    exp_loss = np.mean(np.exp(-Ftr * yw[tr]), axis=1)
    prod_bound = B.paper004_theorem26_bound(ada.r_)                 # Theorem 26
    marks = np.r_[1, 5, 10, 30, 100, 300]
    rounds = np.unique(marks[marks <= ada.n_rounds_])
    rows = []
    for t in rounds:
        w = ada.w_[:t]
        b = B.paper004_corollary27_margin_bounds(w, r0=float(ada.r_[:t].min()))   # Corollary 27
        rows.append({"T": int(t), "train_error": err_tr[t - 1], "test_error": err_te[t - 1],
                     "exp_loss": exp_loss[t - 1], "prod_sqrt_1_minus_r2": prod_bound[t - 1], "r_t": ada.r_[t - 1],
                     "norm1_f": float(w.sum()), "margin_error_at_1": float(np.mean(Ftr[t - 1] * yw[tr] <= 1)),
                     "cor27_e_prod": b["exp_loss"], "cor27_middle": b["middle"], "cor27_r0": b["r0"]})
    return {"model": ada, "seconds": t_fit, "y_train": yw[tr], "majority_error": float(np.mean(yw[te] != 1)),
            "F_train": Ftr, "err_train": err_tr, "err_test": err_te, "exp_loss": exp_loss, "prod_bound": prod_bound,
            "rounds": rounds, "table": pd.DataFrame(rows)}


def figure_adaboost(a: dict):
    """(a) Errors over rounds; Theorem 26 (the loss equals the product); the margin distribution."""
    import matplotlib.pyplot as plt  # noqa: PLC0415


    ada = a["model"]
    fig, ax = plt.subplots(1, 3, figsize=(16, 4.8))
    tt = np.arange(1, ada.n_rounds_ + 1)
    c = style.color("AdaBoost")
    ax[0].plot(tt, a["err_train"], color=c, label="training set")
    ax[0].plot(tt, a["err_test"], color=c, ls="--", label="test set")
    ax[0].set_xscale("log")
    plain_log_ticks(ax[0], "x")
    ax[0].set_xlabel("boosting round t (log scale)")
    ax[0].set_ylabel("misclassification rate")
    ax[0].set_title("AdaBoost with stumps: error over rounds")
    ax[1].semilogy(tt, a["exp_loss"], "o", ms=3, color=c, label=r"exponential loss $\frac{1}{n}\sum_i e^{-f(X_i)Y_i}$ (measured)")
    ax[1].semilogy(tt, a["prod_bound"], "k-", lw=1, label=r"product $\prod_t\sqrt{1-r_t^2}$ (Theorem 26)")
    plain_log_ticks(ax[1], "y", subs=(1.0, 1.5, 2.0, 3.0, 5.0, 7.0))
    ax[1].set_xlabel("boosting round t")
    ax[1].set_ylabel("training exponential loss (log scale)")
    ax[1].set_title("Theorem 26: the loss equals the product bound")
    for t in a["rounds"]:
        m = np.sort(a["F_train"][t - 1] * a["y_train"] / ada.w_[:t].sum())
        ax[2].plot(m, np.arange(1, len(m) + 1) / len(m), label=f"after {t} rounds")
    ax[2].set_xlabel(r"normalised margin $Y f(X)/\|f\|_1$")
    ax[2].set_ylabel("share of training points with smaller margin")
    ax[2].set_title("margin distribution (cumulative)")
    for x in ax:
        x.legend(loc="upper left", bbox_to_anchor=(0.0, -0.16), frameon=False, ncol=2 if x is ax[2] else 1)
    fig.suptitle("Paper 004 (a): AdaBoost on white wine (label: quality ≥ 6), 70/30 split")
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------- (b), (c) Lasso
def support_recovery(quick: bool) -> pd.DataFrame:
    """(b) Lasso (12) with Theorem 31's lambda = 2 sigma B sqrt(2 ln(2p/delta)/n) on model (11)
    (``datasets.sparse_regression``, Gaussian design and one violating the irrepresentable
    condition, mu ~ 1.6): per design and n, over 40 designs (quick: 8), the frequency of sign
    recovery, of mu < 1 (Assumption 28), of Theorem 29's three conditions, and the count of cases
    where the conditions held and recovery failed (Theorem 29 says 0): ``paper004_support_recovery``."""
    reps = 8 if quick else 40
    rows = []
    for design in ("gaussian", "irrepresentable_violating"):
        for n in sample_sizes(quick):
            rec = mu_ok = cond = viol = 0
            for r in range(reps):
                X, y, wb, eps = datasets.sparse_regression(n, P, S, sigma=SIGMA, seed=10_000 * n + r, design=design,
                                                           rho=0.8)
                lam = B.paper004_theorem31_lambda(SIGMA, float(np.linalg.norm(X, axis=0).max()), P, n, DELTA)
                w = Lasso(lam=lam).fit(X, y).w_
                ok_sign = bool(np.array_equal(np.sign(w), np.sign(wb)))
                c = B.paper004_theorem29_conditions(X, wb, eps, lam)        # Theorem 29
                rec += ok_sign
                mu_ok += c["mu"] < 1
                cond += c["holds"]
                viol += c["holds"] and not ok_sign
            rows.append({"design": design, "n": n, "P_sign_recovery": rec / reps, "P_mu_lt_1": mu_ok / reps,
                         "P_thm29_conditions": cond / reps, "conditions_but_not_recovered": viol, "reps": reps})
    return pd.DataFrame(rows)


DESIGN_TITLE = {"gaussian": "Gaussian design",
                "irrepresentable_violating": "design violating the irrepresentable condition (μ ≈ 1.6)"}


def figure_support_recovery(tab: pd.DataFrame):
    """(b) The three frequencies against n, one panel per design (concentric markers of decreasing
    size: coinciding values stay visible)."""
    import matplotlib.pyplot as plt  # noqa: PLC0415

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for ax, (design, g) in zip(axes, tab.groupby("design", sort=False)):
        ax.plot(g.n, g.P_mu_lt_1, "^:", color="#009E73", ms=15, mfc="none", mew=1.5, label="μ < 1 (Assumption 28)")
        ax.plot(g.n, g.P_thm29_conditions, "s--", color="#D55E00", ms=9, mfc="none", mew=1.5,
                label="Theorem 29's conditions hold")
        ax.plot(g.n, g.P_sign_recovery, "o-", color="#0072B2", ms=4, label="Lasso recovers the signs")
        if (g.P_sign_recovery == 0).all() and (g.P_thm29_conditions == 0).all():
            ax.annotate("all three are 0 at every n", (0.5, 0.1), xycoords="axes fraction", ha="center", fontsize=9)
        ax.set_xscale("log")
        ax.set_xticks(list(g.n), [str(n) for n in g.n])     # the sample sizes run, no minor labels
        ax.minorticks_off()
        ax.set_ylim(-0.05, 1.05)
        ax.set_xlabel("sample size n (log scale)")
        ax.set_title(DESIGN_TITLE.get(design, design), fontsize=10)
    axes[0].set_ylabel(f"share of {int(tab.reps.iloc[0])} random designs")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, frameon=False)
    fig.suptitle(f"Paper 004 (b): Lasso support recovery, p = {P} features, s = {S} non-zero, noise σ = {SIGMA}")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig


def theorem31(quick: bool) -> pd.DataFrame:
    """(c) The Lasso's squared l2 error against Theorem 31's bound at a lower bound kappa_lo <=
    kappa_RE(F, 4) (``paper004_kappa_re_bounds``; both forms decrease in kappa, so this is their
    largest value): corrected 16 lambda^2 s / kappa^4 and printed 16 lambda^2 s / kappa^2 (+inf
    where kappa_lo = 0), with the event lambda >= 2 ||X' eps||_inf: ``paper004_theorem31``."""
    rows = []
    for n in sample_sizes(quick):
        X, y, wb, eps = datasets.sparse_regression(n, P, S, sigma=SIGMA, seed=777 + n)
        lam = B.paper004_theorem31_lambda(SIGMA, float(np.linalg.norm(X, axis=0).max()), P, n, DELTA)
        w = Lasso(lam=lam).fit(X, y).w_
        lo, up = B.paper004_kappa_re_bounds(X, np.flatnonzero(wb), 4)
        rows.append({"n": n, "lam": lam, "event_lam_ge_2_sup_abs_Xt_eps": bool(lam >= 2 * np.abs(X.T @ eps).max()),
                     "error2": float(np.sum((w - wb) ** 2)), "kappa_lo": lo, "kappa_up": up,
                     "corrected_16lam2s/kappa_lo^4": B.paper004_theorem31_bound(lam, S, lo, form="corrected") if lo > 0 else np.inf,
                     "printed_16lam2s/kappa_lo^2": B.paper004_theorem31_bound(lam, S, lo, form="printed") if lo > 0 else np.inf})
    return pd.DataFrame(rows)


def theorem31_scaling(scales=(0.03, 0.1, 0.3, 1.0, 3.0)) -> pd.DataFrame:
    """(c) The same problem (n = 192, seed 5) after X -> cX, w -> w/c (Y unchanged), lambda -> c
    lambda: the error scales as 1/c^2, the printed bound (kappa^2) does not move with c and fails for
    small c; the corrected bound (kappa^4) holds: ``paper004_theorem31_scaling``."""
    X, y, wb, eps = datasets.sparse_regression(192, P, S, sigma=SIGMA, seed=5)
    lam1 = B.paper004_theorem31_lambda(SIGMA, float(np.linalg.norm(X, axis=0).max()), P, 192, DELTA)
    rows = []
    for c in scales:
        w = Lasso(lam=c * lam1).fit(c * X, y).w_
        lo, up = B.paper004_kappa_re_bounds(c * X, np.flatnonzero(wb), 4)
        err2 = float(np.sum((w - wb / c) ** 2))
        printed = B.paper004_theorem31_bound(c * lam1, S, lo, form="printed") if lo > 0 else np.inf
        rows.append({"c": c, "error2": err2, "printed_bound": printed, "printed_holds": err2 <= printed,
                     "corrected_bound": B.paper004_theorem31_bound(c * lam1, S, lo, form="corrected") if lo > 0 else np.inf})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- (d) Rademacher
def walsh_functions() -> np.ndarray:
    """(16, 16): the 16 Walsh functions on {+-1}^4 (rows: points, columns: functions), values +-1."""
    pts = np.array(list(np.ndindex(*(2,) * 4))) * -2 + 1.0
    return np.array([[np.prod(x[np.array(Sb, bool)]) for Sb in np.ndindex(*(2,) * 4)] for x in pts])


def rademacher(quick: bool) -> pd.DataFrame:
    """(d) Exact Rademacher complexities (the average over all 2^n sign vectors) of the L1 ball
    (Example 11's bound), the KL ball with A = 1 (Corollary 19) and the L2 ball (Proposition 1's
    band) of the 16 Walsh functions on n points uniform on {+-1}^4, n = 4 ... 14 (quick: 10):
    ``paper004_rademacher``."""
    W = walsh_functions()
    rng = np.random.default_rng(1)
    rows = []
    for n in (range(4, 11, 2) if quick else range(4, 15, 2)):
        V = W[rng.integers(0, 16, size=n)]
        lo, hi = B.paper004_prop1_band(V, 1.0)
        rows.append({"n": n, "R_L1": B.paper004_rademacher_l1(V, 1.0), "example11": B.paper004_example11_bound(V, 1.0),
                     "R_KL(A=1)": B.paper004_rademacher_kl(V, 1.0), "corollary19": B.paper004_corollary19_bound(V, 1.0),
                     "R_L2": B.paper004_rademacher_l2(V, 1.0), "L2_bound": hi, "prop1_lower": lo})
    return pd.DataFrame(rows)


_CURVES = [("R_L1", "o-", "#0072B2", "L1 ball $F_{A,L1}$: exact"), ("example11", "o--", "#0072B2", "L1 ball: Example 11 bound"),
           ("R_KL(A=1)", "s-", "#D55E00", "KL ball $F_A$ (A = 1): exact"),
           ("corollary19", "s--", "#D55E00", "KL ball: Corollary 19 bound"),
           ("R_L2", "^-", "#009E73", "L2 ball F′: exact"), ("L2_bound", "^--", "#009E73", "L2 ball: Proposition 1 upper end"),
           ("prop1_lower", "^:", "#009E73", "L2 ball: Proposition 1 lower end")]


def figure_rademacher(tab: pd.DataFrame):
    """(d) Exact complexities (filled markers) and their bounds (hollow markers) against n."""
    import matplotlib.pyplot as plt  # noqa: PLC0415


    fig, ax = plt.subplots(figsize=(9, 4.5))
    for col, sty, color, label in _CURVES:
        bound = "exact" not in label
        ax.plot(tab.n, tab[col], sty, color=color, label=label, ms=8 if bound else 5, mfc="none" if bound else color)
    ax.set_xlabel("sample size n")
    ax.set_xticks(list(tab.n))
    ax.set_ylabel("Rademacher complexity (log scale)")
    ax.set_yscale("log")
    plain_log_ticks(ax, "y")
    style.legend_outside(ax, title="class: exact value or bound")
    ax.set_title("Paper 004 (d): exact Rademacher complexities (all 2ⁿ sign vectors) and their bounds\n"
                 "16 Walsh functions on {±1}⁴, A = 1", fontsize=10)
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------- (e) gradient boosting
def gradient_boosting(quick: bool, ada: dict) -> dict:
    """(e) Gradient boosting (Algorithm 2) with two-leaf stumps: squared loss (1/2)(p - y)^2 on
    Airfoil (70/30 split, T = 500, quick: 60) with learning rate 1 (as printed) and 0.1, beside the
    mean predictor; logistic loss on the Wine split of (a) (T = 300, quick: 60). Returns
    ``{"table": paper004_gradient_boosting, "curves": {nu: (train MSE, test MSE)}, "err_logistic"}``."""
    Xa, ya = registry.load_dataset("airfoil")
    perm = np.random.default_rng(0).permutation(len(ya))
    atr, ate = perm[: int(0.7 * len(ya))], perm[int(0.7 * len(ya)):]
    rows, curves = [], {}
    for nu in (1.0, 0.1):
        gb = GradientBoosting(n_rounds=60 if quick else 500, learning_rate=nu).fit(Xa[atr], ya[atr])
        mse_te = np.mean((gb.staged_decision_function(Xa[ate]) - ya[ate]) ** 2, axis=1)
        curves[nu] = (2 * gb.loss_, mse_te)
        rows.append({"data": "airfoil", "loss": "squared", "learning_rate": nu, "rounds": gb.n_rounds_,
                     "train_mse": 2 * gb.loss_[-1], "test_mse": mse_te[-1], "best_test_mse": mse_te.min(),
                     "best_round": int(mse_te.argmin() + 1)})
    rows.append({"data": "airfoil", "loss": "mean predictor", "learning_rate": np.nan, "rounds": 0,
                 "train_mse": np.var(ya[atr]), "test_mse": np.mean((ya[ate] - ya[atr].mean()) ** 2),
                 "best_test_mse": np.nan, "best_round": 0})
    Xw, yw, tr, te = wine_split()
    gl = GradientBoosting(n_rounds=60 if quick else 300, loss="logistic", learning_rate=1.0).fit(Xw[tr], yw[tr])
    err_lg = np.mean(np.where(gl.staged_decision_function(Xw[te]) >= 0, 1, -1) != yw[te], axis=1)
    rows.append({"data": "wine_white", "loss": "logistic", "learning_rate": 1.0, "rounds": gl.n_rounds_,
                 "train_mse": np.nan, "test_mse": np.nan, "best_test_mse": np.nan, "best_round": int(err_lg.argmin() + 1),
                 "test_error": err_lg[-1], "train_logistic_loss": gl.loss_[-1]})
    return {"table": pd.DataFrame(rows), "curves": curves, "err_logistic": err_lg, "err_adaboost": ada["err_test"]}


def figure_gradient_boosting(g: dict):
    """(e) Airfoil: training (solid) and test (dashed) MSE per round for both learning rates;
    Wine: the test error of logistic gradient boosting against AdaBoost's."""
    import matplotlib.pyplot as plt  # noqa: PLC0415


    fig, ax = plt.subplots(1, 2, figsize=(12, 4.8))
    c = style.color("GradientBoosting")
    for i, (nu, (tr_mse, te_mse)) in enumerate(g["curves"].items()):
        t = np.arange(1, len(te_mse) + 1)
        kw = {"color": c, "marker": "os"[i], "ms": 4, "markevery": (3 * i, 10), "mfc": "none" if i else c}
        ax[0].plot(t, tr_mse, "-", **kw, label=f"training set, learning rate ν = {nu:g}")
        ax[0].plot(t, te_mse, "--", **kw, label=f"test set, learning rate ν = {nu:g}")
    ax[0].set_xscale("log")
    ax[0].set_yscale("log")
    ax[0].set_xlabel("boosting round (log scale)")
    plain_log_ticks(ax[0], "x")
    plain_log_ticks(ax[0], "y")
    ax[0].set_ylabel("mean squared error (normalised label, log scale)")
    ax[0].set_title("Airfoil: gradient boosting with stumps, squared loss")
    err_lg, err_ada = g["err_logistic"], g["err_adaboost"]
    ax[1].plot(np.arange(1, len(err_lg) + 1), err_lg, color=c, label="gradient boosting, logistic loss")
    ax[1].plot(np.arange(1, len(err_ada) + 1), err_ada, color=style.color("AdaBoost"), ls="--",
               label="AdaBoost (exponential loss)")
    ax[1].set_xscale("log")
    plain_log_ticks(ax[1], "x")
    ax[1].set_xlabel("boosting round (log scale)")
    ax[1].set_ylabel("test misclassification rate")
    ax[1].set_title("White wine (quality ≥ 6): test error")
    for x in ax:
        x.legend(loc="upper left", bbox_to_anchor=(0.0, -0.16), frameon=False, ncol=2)
    fig.suptitle("Paper 004 (e): gradient boosting (Algorithm 2)")
    fig.tight_layout()
    return fig
