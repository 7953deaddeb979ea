"""Paper 001 (Cesa-Bianchi, Shalev-Shwartz & Shamir, *Online Learning of Noisy Data with Kernels*,
COLT 2010): the experiments of ``notebooks/p001_noisy_kernels.ipynb``.

The paper has no tables; its one figure is Figure 1 (losses and their smooth ``erf``
approximations, Appendix C). Everything else demonstrates the theorems on small streams:

* :func:`fig1_gaps` / :func:`figure1`: Figure 1 and the gap of each smooth loss (table
  ``paper001_fig1_gaps``);
* :func:`estimator_draws` / :func:`lemma1_table`: the randomized estimator of Lemma 1 and its
  second moment against the Lemma 1 bound (``paper001_lemma1_second_moments``);
* :func:`alg1_vs_single_copy` / :func:`poly_kernel_comparison`: Algorithm 1 against kernel OGD
  fed one noisy copy, average regret against Theorem 4's bound (``paper001_alg1_vs_single_copy``,
  ``paper001_poly_kernel_comparison`` and their ``_timing`` tables);
* :func:`theorem3_twin`: the construction of Theorem 3 (App. E-F) (``paper001_theorem3_twin``);
* :func:`runtime_table`: the CPU time of Algorithm 1, vectorised against the literal loop
  (``paper001_runtime_timing``, never hashed).

Each function computes and returns numbers (pandas frames, NumPy arrays); the notebook saves and
draws them. The repetitions of the regret experiments are tasks of the one pool
(:func:`omkl_core.sweep.map_tasks` with :func:`omkl_core.repro.runner.executor_kwargs` and the cache
``results/sweep-cache/p001``; :func:`curve_task`): each rebuilds its stream and learner from its seed,
so the numbers are those of the serial loop, wherever it ran. Importing the module runs nothing.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import bounds
from .. import noisy as nz
from ..noisy import NoisyKernelOGD, SingleCopyKernelOGD
from ..sweep import map_tasks
from . import report, runner, style, timing

__all__ = ["Settings", "settings", "fig1_gaps", "figure1", "estimator_draws", "figure_estimator", "LEMMA1_CASES",
           "lemma1_table", "regret_curves", "curve_task", "alg1_vs_single_copy", "figure_alg1", "poly_kernel_comparison",
           "theorem3_twin", "figure_theorem3", "runtime_table"]


@dataclass(frozen=True)
class Settings:
    """Horizons and repetitions of the notebook (quick mode: small, for CI)."""

    R_MAIN: int      # repetitions of the regret experiments
    T_MAIN: int      # horizon of the Algorithm-1-vs-single-copy experiments
    T_TWIN: int      # horizon of the Theorem 3 experiment
    N_EST: int       # draws of the Lemma 1 estimator
    cache_dir: object = field(default=None, compare=False)   # the repetitions' cache (sweep's Store)


def settings(quick: bool) -> Settings:
    """The notebook's horizons: quick (CI) or full."""
    cache = report.results_dir("sweep-cache") / "p001"
    return Settings(2, 300, 400, 20_000, cache) if quick else Settings(10, 3000, 5000, 400_000, cache)


# ----------------------------------------------------------------------------- Figure 1
A_GRID = np.linspace(-3, 3, 601)


def fig1_gaps(a=A_GRID) -> pd.DataFrame:
    """Figure 1 (Appendix C, s = 1): how far the smoothed absolute and hinge losses lie above the
    exact ones on ``a`` (largest gap, gap at the kink, smooth >= exact everywhere)."""
    sabs, shinge = nz.SmoothedAbsoluteLoss(1.0), nz.SmoothedHingeLoss(1.0)
    return pd.DataFrame({
        "loss": ["absolute", "hinge"],
        "max gap on [-3, 3]": [float(np.max(sabs(a) - np.abs(a))), float(np.max(shinge(a) - np.maximum(0, 1 - a)))],
        "gap at the kink": [float(sabs(0.0)), float(shinge(1.0))],
        "smooth >= exact everywhere": [bool(np.all(sabs(a) >= np.abs(a))),
                                       bool(np.all(shinge(a) >= np.maximum(0, 1 - a)))],
    })


def figure1(a=A_GRID):
    """Figure 1 of the paper: |a| and max(0, 1 - a) with their smooth approximations (s = 1)."""
    import matplotlib.pyplot as plt  # noqa: PLC0415

    sabs, shinge = nz.SmoothedAbsoluteLoss(1.0), nz.SmoothedHingeLoss(1.0)
    fig, ax = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
    for k, (title, exact, smooth, color) in enumerate([
            ("absolute loss", np.abs(a), sabs(a), "#0072B2"),
            ("hinge loss", np.maximum(0, 1 - a), shinge(a), "#D55E00")]):
        ax[k].plot(a, exact, "k-", lw=1.2, label="exact loss")
        ax[k].plot(a, smooth, "--", color=color, lw=2, label="smooth approximation (s = 1)")
        ax[k].set_title(title)
        ax[k].set_xlabel("argument a = ⟨w, x⟩ − y (absolute) or y⟨w, x⟩ (hinge)")
        ax[k].legend(loc="upper center", frameon=False)
    ax[0].set_ylabel("loss value")
    fig.suptitle("Paper 001, Figure 1: absolute and hinge losses and their erf-smoothed approximations")
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------- Lemma 1
def _exp_coef(n):
    return 1.0 / math.factorial(n)


def _normal_05_03(r, k):
    return 0.5 + 0.3 * r.standard_normal(k)


def estimator_draws(n_est: int) -> dict:
    """Lemma 1's estimator theta = gamma_N p^{N+1}/(p-1) x_1...x_N for f = exp, X ~ N(0.5, 0.3^2),
    p = 2 (seed 2010): ``{"theta", "N", "plug_in"}`` with the biased plug-in mean of f(X)."""
    rng = np.random.default_rng(2010)
    theta, N = nz.estimate_analytic_many(_exp_coef, _normal_05_03, 2.0, rng, n_est)
    plug_in = float(np.mean(np.exp(_normal_05_03(rng, 200_000))))
    return {"theta": theta, "N": N, "plug_in": plug_in}


def figure_estimator(draws: dict):
    """Histogram and running mean of :func:`estimator_draws` against f(E[X]) = e^0.5 (Lemma 1)."""
    import matplotlib.pyplot as plt  # noqa: PLC0415

    theta, target = draws["theta"], math.exp(0.5)
    fig, ax = plt.subplots(1, 2, figsize=(11, 3.8))
    lo, hi = np.quantile(theta, [0.002, 0.998])
    ax[0].hist(theta[(theta > lo) & (theta < hi)], bins=200, color="#0072B2", alpha=0.8,
               histtype="stepfilled")
    ax[0].axvline(target, color="k", lw=2, label=f"f(E[X]) = e^0.5 = {target:.4f}")
    ax[0].axvline(theta.mean(), color="#D55E00", ls="--", label=f"mean of θ = {theta.mean():.4f}")
    ax[0].axvline(draws["plug_in"], color="#009E73", ls=":", lw=2, label="E[f(X)] (plug-in, biased)")
    ax[0].set_yscale("log")
    ax[0].set_xlabel("value of the estimate θ")
    ax[0].set_ylabel("number of draws (log scale)")
    ax[0].set_title(f"θ over {theta.size} draws (0.2–99.8 % quantiles)")
    ax[0].legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), frameon=False)
    k = np.arange(1, theta.size + 1)
    ax[1].plot(k, np.cumsum(theta) / k, color="#0072B2", label="running mean of θ")
    ax[1].axhline(target, color="k", lw=1, label="f(E[X]) = e^0.5")
    ax[1].set_xscale("log")
    ax[1].set_xlabel("number of draws (log scale)")
    ax[1].set_ylabel("running mean of θ")
    ax[1].set_title("the running mean tends to f(E[X])")
    ax[1].legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), frameon=False)
    fig.tight_layout()
    return fig


#: Lemma 1's cases: (f, gamma_n, f_+, p, law of X, sampler, E[X^2]).
LEMMA1_CASES = [
    ("exp(x)", _exp_coef, math.exp, 2.0, "N(0.5, 0.3²)", _normal_05_03, 0.34),
    ("exp(x)", _exp_coef, math.exp, 1.5, "N(0.5, 0.3²)", _normal_05_03, 0.34),
    ("exp(x)", _exp_coef, math.exp, 4.0, "N(0.5, 0.3²)", _normal_05_03, 0.34),
    ("exp(-x)", lambda n: (-1) ** n / math.factorial(n), math.exp, 3.0, "U(-1, 1)",
     lambda r, k: r.uniform(-1, 1, k), 1 / 3),
    ("1 - x + x³", lambda n: [1.0, -1.0, 0.0, 1.0][n] if n < 4 else 0.0,
     lambda x: 1 + x + x ** 3, 1.5, "{1, -0.5} equiprobable",
     lambda r, k: np.where(r.random(k) < 0.5, 1.0, -0.5), 0.625),
    ("1/(1 - 0.3x)", lambda n: 0.3 ** n, lambda x: 1 / (1 - 0.3 * x), 2.0, "N(0, 1)",
     lambda r, k: r.standard_normal(k), 1.0),
]


def lemma1_table(n_est: int, cases=LEMMA1_CASES) -> pd.DataFrame:
    """Lemma 1: the observed E[theta^2] (Monte Carlo mean with its standard error, ``n_est`` draws
    per case, seed 123) against the proof's exact series p/(p-1) sum_n gamma_n^2 p^n E[X^2]^n and
    the bound p/(p-1) f_+^2(sqrt(p E[X^2])); the mean number of samples against E[N] = 1/(p-1)."""
    rows = []
    rng = np.random.default_rng(123)
    for name, cf, fplus, p, lawname, smp, m2 in cases:
        th, NN = nz.estimate_analytic_many(cf, smp, p, rng, n_est)
        obs = float(np.mean(th ** 2))
        se = float(np.std(th ** 2, ddof=1) / math.sqrt(th.size))
        exact = p / (p - 1) * math.fsum(cf(n) ** 2 * (p * m2) ** n for n in range(150))
        bound = bounds.paper001_lemma1_second_moment_bound(fplus, p, m2)
        rows.append({"f": name, "p": p, "X": lawname, "E[X^2]": m2,
                     "observed E[theta^2]": obs, "SE": se, "exact series": exact,
                     "Lemma 1 bound": bound, "bound / exact": bound / exact,
                     "mean N": float(NN.mean()), "1/(p-1)": 1 / (p - 1)})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------- regret experiments
def _learner(label: str) -> str:
    """The class behind a curve's label (its colour, :func:`omkl_core.repro.style.color`)."""
    return "NoisyKernelOGD" if label.startswith("Algorithm 1") else "SingleCopyKernelOGD"


def regret_curves(make, X, y, loss, R: int, seed0: int):
    """Cumulative loss curves of ``R`` learners ``make(seed0 + r)`` run predict-then-learn over
    (X, y) (eq. 1's loss on the clean data), in this process. Returns (curves (R, T), mean oracle
    queries per round, mean CPU seconds per run)."""
    runs = [_one_curve(make(seed0 + r), X, y, loss) for r in range(R)]
    return (np.array([c for c, _, _ in runs]), float(np.mean([q for _, q, _ in runs])),
            float(np.mean([t for _, _, t in runs])))


def _one_curve(m, X, y, loss):
    """One learner's predict-then-learn pass: (cumulative loss curve, mean oracle queries, CPU s)."""
    T = X.shape[0]
    sc = np.empty(T)
    t0 = time.process_time()
    for t in range(T):
        sc[t] = m.predict_one(X[t])
        m.learn_one(X[t], float(y[t]))
    return np.cumsum(loss.loss(sc, y)), float(np.mean(getattr(m, "queries_", [1]))), time.process_time() - t0


# ------------------------------------------------------------------ the experiments, as data
def _alg1_experiment(T: int):
    """Section 4 / Theorem 4's stream and learners: (X, y, loss, kernel, Theorem 4's numbers, learners)."""
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(T, 2))
    y = X @ np.array([1.0, -0.5])
    law, B_w, p = nz.GaussianNoise(0.8), 2.0, 2.0
    kern, loss = nz.linear_kernel(), nz.SquaredLoss()
    B_x = 2.0 + law.noise_second_moment(2)                 # E||x~||^2 <= ||x||^2 + E||Z||^2
    B_psi = kern.feature_norm_bound(p, B_x)                # Lemma 3
    B_g = bounds.paper001_lemma2_grad_bound(loss, p, B_w, B_psi, y_max=float(np.max(np.abs(y))))
    eta_th = bounds.paper001_theorem4_eta(B_w, B_g, B_psi)
    learners = {
        f"Algorithm 1, η from Thm. 4 ({eta_th:.3g})":
            lambda sd: NoisyKernelOGD(kern, loss, T=T, eta=eta_th, p=p, B_w=B_w, noise=law, seed=sd),
        "Algorithm 1, η = 0.05": lambda sd: NoisyKernelOGD(kern, loss, T=T, eta=0.05, p=p, B_w=B_w, noise=law, seed=sd),
        "single noisy copy OGD, η = 0.25":
            lambda sd: SingleCopyKernelOGD(kern, loss, T=T, eta=0.25, B_w=B_w, noise=law, seed=sd),
    }
    return X, y, loss, kern, (B_w, B_g, B_psi, p), learners


def _poly_experiment(T: int):
    """The polynomial-kernel comparison's stream and learners: (X, y, loss, kernel, B_w, learners)."""
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(T, 2))
    y = X[:, 0] * X[:, 1] + 0.5 * X[:, 0]
    law, kern, loss, B_w, p = nz.StudentTNoise(5.0, scale=0.4), nz.polynomial_kernel(2, 1.0), nz.SquaredLoss(), 2.0, 2.0
    learners = {
        "Algorithm 1, η = 0.02":
            lambda sd: NoisyKernelOGD(kern, loss, T=T, eta=0.02, p=p, B_w=B_w, noise=law, seed=sd),
        "single noisy copy OGD, η = 0.25":
            lambda sd: SingleCopyKernelOGD(kern, loss, T=T, eta=0.25, B_w=B_w, noise=law, seed=sd),
    }
    return X, y, loss, kern, B_w, learners


_TWIN_LAW = nz.CenteredDiscreteNoise([[3.0], [-1.0]])


def _twin_experiment(T: int):
    """Theorem 3's noisy twin: (X, y, loss, kernel, B_w, learners)."""
    X, y = np.repeat(np.array([[1.0]]), T, axis=0), np.ones(T)
    k1, sq, B_w = nz.linear_kernel(), nz.SquaredLoss(), 4.0
    learners = {
        "single noisy copy OGD (η = 0.5)":
            lambda sd: SingleCopyKernelOGD(k1, sq, T=T, eta=0.5, B_w=B_w, noise=_TWIN_LAW, seed=sd),
        "Algorithm 1 (η = 0.02, p = 2)":
            lambda sd: NoisyKernelOGD(k1, sq, T=T, eta=0.02, p=2.0, B_w=B_w, noise=_TWIN_LAW, seed=sd),
    }
    return X, y, sq, k1, B_w, learners


_EXPERIMENTS = {"alg1": _alg1_experiment, "poly": _poly_experiment, "twin": _twin_experiment}


def curve_task(task: dict) -> dict:
    """One repetition of one learner of one experiment (a task of :func:`omkl_core.sweep.map_tasks`):
    ``{"experiment", "T", "learner", "seed"}`` -> ``{"curve", "queries", "cpu_seconds"}``. The stream
    and the learner are rebuilt from the task (deterministic), so a repetition's numbers do not depend
    on the process it ran in."""
    X, y, loss, *_, learners = _EXPERIMENTS[task["experiment"]](task["T"])
    curve, queries, secs = _one_curve(learners[task["learner"]](task["seed"]), X, y, loss)
    return {"curve": curve, "queries": queries, "cpu_seconds": secs}


def _curves(experiment: str, T: int, labels, R: int, seed0: int, cache_dir=None) -> dict:
    """Every learner's ``R`` repetitions (seeds seed0, seed0 + 1, ...) on the one pool, in one map:
    ``{label: (curves (R, T), mean queries per round, mean CPU s per run)}`` -- the numbers of
    :func:`regret_curves` in this process, repetition by repetition."""
    tasks = [{"experiment": experiment, "T": int(T), "learner": label, "seed": seed0 + r}
             for label in labels for r in range(R)]
    res = map_tasks(curve_task, tasks, cache_dir=cache_dir, progress=True, desc=f"paper 001 {experiment}",
                    unit="run", **runner.executor_kwargs())
    out = {}
    for i, label in enumerate(labels):
        mine = res[i * R:(i + 1) * R]
        out[label] = (np.array([r["curve"] for r in mine]), float(np.mean([r["queries"] for r in mine])),
                      float(np.mean([r["cpu_seconds"] for r in mine])))
    return out


def alg1_vs_single_copy(s: Settings) -> dict:
    """Algorithm 1 (Theorem 4's step size and eta = 0.05) against kernel OGD fed one noisy copy
    (eta = 0.25) on y = <w*, x>, w* = (1, -0.5), x uniform on [-1, 1]^2, Gaussian noise sigma = 0.8,
    linear kernel, squared loss, B_w = 2, p = 2 (section 4, Theorem 4).

    Returns ``{"table", "timing", "curves", "checkpoints", "bound_t", "bound"}``: the table
    ``paper001_alg1_vs_single_copy`` (average regret at T with its SE, oracle queries per round
    against Theorem 1's p/(p-1)^2, Theorem 4's bound / T), its CPU-time table, and per learner
    the average regret at the checkpoints (mean, SE) for the figure.
    """
    T = s.T_MAIN
    X, y, loss, kern, (B_w, B_g, B_psi, p), runs = _alg1_experiment(T)
    tt = np.arange(1, T + 1)
    bound_curve = np.array([bounds.paper001_theorem4_regret_bound(B_w, B_g, B_psi, int(t)) for t in tt]) / tt
    checkpoints = np.unique(np.geomspace(10, T, 25).astype(int))
    best_at = {int(t): nz.best_in_ball(kern, loss, X[:t], y[:t], B_w)[0] for t in checkpoints}
    done = _curves("alg1", T, list(runs), s.R_MAIN, 100, s.cache_dir)
    rows, trows, curves = [], [], {}
    for name in runs:
        cv, q, secs = done[name]
        avg = np.array([[(c[t - 1] - best_at[t]) / t for t in checkpoints] for c in cv])
        m_ = avg.mean(0)
        s_ = avg.std(0, ddof=1) / math.sqrt(avg.shape[0]) if avg.shape[0] > 1 else 0 * avg.mean(0)
        curves[name] = (m_, s_)
        rows.append({"learner": name, "T": T, "repetitions": cv.shape[0],
                     "average regret at T": float(m_[-1]), "SE": float(s_[-1]), "oracle queries per round": q})
        trows.append({"learner": name, "T": T, "repetitions": cv.shape[0], "CPU s per run (mean)": secs})
    table = pd.DataFrame(rows)
    table["Thm. 4 bound / T"] = bound_curve[-1]
    table["E queries (Thm. 1: p/(p-1)^2)"] = bounds.paper001_theorem1_expected_queries(p)
    return {"table": table, "timing": pd.DataFrame(trows), "curves": curves, "checkpoints": checkpoints,
            "bound_t": tt[9:], "bound": bound_curve[9:]}


def figure_alg1(res: dict):
    """Average regret of :func:`alg1_vs_single_copy` (mean ± 2 SE over the repetitions) against
    Theorem 4's bound / T."""
    import matplotlib.pyplot as plt  # noqa: PLC0415


    fig, ax = plt.subplots(figsize=(8, 4.4))
    t, seen = res["checkpoints"], []
    for i, (name, (m_, s_)) in enumerate(res["curves"].items()):
        seen.append(_learner(name))        # a second run of the same learner (another eta): dashed
        kw = {**style.line_kwargs(name, len(t), index=i), "color": style.color(seen[-1]),
              "linestyle": ("-", "--", ":")[seen.count(seen[-1]) - 1]}
        ax.plot(t, m_, **kw)
        ax.fill_between(t, m_ - 2 * s_, m_ + 2 * s_, color=kw["color"], alpha=0.2)
    ax.plot(res["bound_t"], res["bound"], "k--", label="Theorem 4 bound / T (η from Thm. 4)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("round T (log scale)")
    ax.set_ylabel("average regret on the clean data (log scale)")
    ax.set_title("Linear kernel, squared loss, Gaussian noise σ = 0.8 (mean ± 2 SE)")
    style.legend_outside(ax)
    fig.tight_layout()
    return fig


def poly_kernel_comparison(s: Settings) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The same comparison with the polynomial kernel (1 + <x, x'>)^2, y = x_1 x_2 + 0.5 x_1 and
    Student-t noise (5 degrees of freedom, scale 0.4): (table ``paper001_poly_kernel_comparison``,
    its CPU-time table)."""
    T2 = s.T_MAIN
    X2, y2, loss, kern2, B_w, runs = _poly_experiment(T2)
    best2 = nz.best_in_ball(kern2, loss, X2, y2, B_w)[0]
    rows, trows = [], []
    done = _curves("poly", T2, list(runs), max(2, s.R_MAIN // 2), 300, s.cache_dir)
    for name in runs:
        curves, q, secs = done[name]
        avg = (curves[:, -1] - best2) / T2
        rows.append({"learner": name, "T": T2, "repetitions": len(avg), "average regret at T": float(avg.mean()),
                     "SE": float(avg.std(ddof=1) / math.sqrt(len(avg))), "oracle queries per round": q})
        trows.append({"learner": name, "T": T2, "repetitions": len(avg), "CPU s per run (mean)": secs})
    return pd.DataFrame(rows), pd.DataFrame(trows)


# ----------------------------------------------------------------------------- Theorem 3
def theorem3_twin(s: Settings) -> dict:
    """Theorem 3 (App. E-F): D uniform on {3x, -x} (x = e_1, label 1) against its noisy twin
    (x = E[D] plus the zero-mean noise Z - E[D], Z ~ D), squared loss, B_w = 4.

    Returns ``{"table", "avg", "queries", "traj"}``: the table ``paper001_theorem3_twin`` (average
    regret at T in the twin), the average-regret curves (mean over the repetitions) and oracle
    queries per learner, and the single-copy learner's w_t under strategy 1 (x_t ~ D, no noise)
    and strategy 2 (the twin) with the same random draws, which App. F proves identical
    (checked: a RuntimeError if they differ).
    """
    twin_law = _TWIN_LAW
    T3 = s.T_TWIN
    Xt, yt, sq, k1, B_w3, runs = _twin_experiment(T3)
    best3 = nz.best_in_ball(k1, sq, Xt, yt, B_w3)[0]     # = 0 (w = 1)
    avg, queries = {}, {}
    done = _curves("twin", T3, list(runs), s.R_MAIN, 500, s.cache_dir)
    for name in runs:
        curves, q, _ = done[name]
        avg[name], queries[name] = (curves - best3) / np.arange(1, T3 + 1), q
    traj = {}
    for strategy in (1, 2):
        rng = np.random.default_rng(77)
        m = SingleCopyKernelOGD(k1, sq, T=T3, eta=0.5, B_w=B_w3)
        w = []
        for _ in range(T3):
            w.append(m.predict_one(np.array([1.0])))
            if strategy == 1:
                xt = twin_law.points[rng.choice(2, p=twin_law.probs)]
                m.learn_one(nz.Oracle(xt, nz.NoNoise(), rng), 1.0)
            else:
                m.learn_one(nz.Oracle(np.array([1.0]), twin_law, rng), 1.0)
        traj[strategy] = np.array(w)
    if not np.array_equal(traj[1], traj[2]):
        raise RuntimeError("Theorem 3: the single-copy learner's predictors differ under the two strategies")
    table = pd.DataFrame([{"learner": k, "T": T3, "repetitions": s.R_MAIN,
                           "average regret at T (twin)": float(v[:, -1].mean()),
                           "oracle queries per round": queries[k]} for k, v in avg.items()])
    return {"table": table, "avg": avg, "queries": queries, "traj": traj}


def figure_theorem3(res: dict):
    """Left: average regret in the twin (the single copy levels off at (0.2 - 1)^2 = 0.64);
    right: the single-copy learner's w_t under both strategies (identical, App. F)."""
    import matplotlib.pyplot as plt  # noqa: PLC0415


    fig, ax = plt.subplots(1, 2, figsize=(12, 4.4))
    for i, (name, avg) in enumerate(res["avg"].items()):
        t = np.arange(1, avg.shape[1] + 1)
        ax[0].plot(t, avg.mean(0), **{**style.line_kwargs(name, len(t), index=i), "color": style.color(_learner(name)),
                                      "label": f"{name}; {res['queries'][name]:.2f} queries per round"})
    ax[0].axhline(0.64, color="k", ls=":", label="(0.2 − 1)² = 0.64")
    ax[0].set_xscale("log")
    ax[0].set_xlabel("round T (log scale)")
    ax[0].set_ylabel("average regret in the twin")
    ax[0].set_title("Noisy twin of uniform{3, −1}: average regret")
    ax[0].legend(loc="upper left", bbox_to_anchor=(0.0, -0.16), frameon=False)
    t = np.arange(1, res["traj"][1].size + 1)
    ax[1].plot(t, res["traj"][1], color=style.color("SingleCopyKernelOGD"), lw=4, alpha=0.45,
               label="single copy, strategy 1 (x_t ~ D)")
    ax[1].plot(t, res["traj"][2], color="k", ls="--", lw=1.0, label="single copy, strategy 2 (the twin)")
    ax[1].axhline(0.2, color="k", ls=":", label="argmin under D: 0.2")
    ax[1].axhline(1.0, color="k", ls="-.", label="argmin under the twin: 1")
    ax[1].set_xscale("log")
    ax[1].set_xlabel("round t (log scale)")
    ax[1].set_ylabel("predictor w_t (a scalar: x = e₁)")
    ax[1].set_title("identical predictors under both strategies")
    ax[1].legend(loc="upper left", bbox_to_anchor=(0.0, -0.16), frameon=False, ncol=2)
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------------- runtime
def runtime_table(T: int = 500, repeat: int = 3) -> pd.DataFrame:
    """CPU time of one pass of Algorithm 1 (d = 5, smoothed hinge loss, p = 2) with
    ``prod_mode="vectorised"`` against the literal Subroutine 3 / 6 loop (``"loop"``), best of
    ``repeat`` (:func:`omkl_core.repro.timing.cpu_seconds`): the table ``paper001_runtime_timing``."""
    rows = []
    for kname, kern_ in (("polynomial (1+<x,x'>)^2", nz.polynomial_kernel(2, 1.0)), ("Gaussian, sigma = 1", nz.GaussianKernel(1.0))):
        rng = np.random.default_rng(0)
        Xb = rng.uniform(-0.5, 0.5, size=(T, 5))
        yb = np.where(Xb[:, 0] + 0.3 * Xb[:, 1] > 0, 1.0, -1.0)
        secs = {}
        for mode in ("vectorised", "loop"):
            def make(kern_=kern_, mode=mode):
                return NoisyKernelOGD(kern_, nz.SmoothedHingeLoss(1.0), T=T, eta=1.0, p=2.0, B_w=4.0,
                                      noise=nz.GaussianNoise(0.1), seed=0, prod_mode=mode)
            secs[mode] = timing.cpu_seconds(lambda m, X=Xb, y=yb: m.trajectory(X, y), setup=make, repeat=repeat)
        rows.append({"kernel": kname, "T": T, "vectorised [s CPU]": secs["vectorised"],
                     "naive loop [s CPU]": secs["loop"], "ratio": secs["loop"] / secs["vectorised"],
                     "timing": timing.TIMING_RULE.format(repeat=repeat)})
    return pd.DataFrame(rows)
