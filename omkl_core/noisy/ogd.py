"""Paper 001: Subroutine 1 (Grad_Length_Estimate, Lemma 2), Algorithm 1 (NoisyKernelOGD) and the single-copy
kernel OGD baseline of Sec. 3.1."""
from __future__ import annotations

import math

import numpy as np

from .. import bounds
from ..backend import host_rng
from ..base import OnlineLearner
from ..validation import (
    Check,
    Integer,
    NonNegative,
    Optional,
    Options,
    Positive,
    Seed,
    check_label,
    check_matrix,
    check_point,
    check_positive,
    check_vector,
)
from .estimates import EstimateStore, prod_matrix, prod_point_matrix
from .estimator import check_p, sample_geometric
from .feature_maps import GaussianKernel, _check_kernel, polynomial_kernel
from .losses import SquaredLoss, _check_loss
from .noise import GaussianNoise, Oracle, _as_law


def _check_eta(value, name):
    if isinstance(value, str):
        if value != "theorem":
            raise ValueError(f"{name} must be a positive number or 'theorem', got {value!r}")
        return
    check_positive(value, name)


#: the constraints shared by NoisyKernelOGD and SingleCopyKernelOGD
_COMMON_CONSTRAINTS = {
    "kernel": Check(lambda v, n: _check_kernel(v), invalid=[None, "gaussian"]),
    "loss": Check(lambda v, n: _check_loss(v), invalid=[None, "squared"]),
    "T": Integer(1),
    "B_w": Positive(),
    "noise": Check(lambda v, n: _as_law(v), invalid=[0.1, "gaussian"]),
    "seed": Seed(),
}


def _unit_test_params_noisy():
    return dict(kernel=GaussianKernel(1.0), loss=SquaredLoss(), T=30, eta=0.5, p=2.0, B_w=4.0,
                noise=GaussianNoise(0.1), seed=2)


def _prod_matrix_loop(kernel, A: EstimateStore, B: EstimateStore, p) -> np.ndarray:
    """Reference: the literal Subroutine 3 / 6 called pair by pair in a Python loop."""
    return np.array([[kernel.prod(A.row(i), B.row(j), p) for j in range(len(B))]
                     for i in range(len(A))]).reshape(len(A), len(B))


def grad_length_estimate(kernel, loss, store: EstimateStore, alpha, oracle: Oracle, y, p, rng,
                         prod_mode: str = "vectorised"):
    """Subroutine 1 ``Grad_Length_Estimate(A_t, y_t, p)`` for ``w_t = sum_i alpha_i Psi~_i``.

    Draws ``n ~ (p-1)/p^(n+1)``, ``n`` fresh ``Psi~(x_t)_j = Map_Estimate(A_t)`` and returns
    the Lemma 1 estimator of ``f = l'`` at ``X = y_t <w_t, Psi~(x_t)_j>`` (classification;
    the result is multiplied by ``y_t``) or ``X = <w_t, Psi~(x_t)_j> - y_t`` (regression):

        g~_t = [y_t] gamma_n p^(n+1)/(p-1) prod_j X_j,   X_j from sum_i alpha_i Prod(Psi~_i, Psi~_j).

    Lemma 2: ``E_t[g~_t] = y_t l'(y_t <w_t, Psi(x_t)>)`` (classification) and
    ``E_t[g~_t^2] <= p/(p-1) l'_+(sqrt(p B_w B_Psi))^2``. Returns ``g~_t``.
    ``prod_mode="loop"`` evaluates the Prods one pair at a time (the naive reference).
    """
    p = check_p(p)
    n = int(sample_geometric(p, rng))
    X = np.empty(n)
    if n > 0:
        ests = [kernel.map_estimate(oracle, p, rng) for _ in range(n)]
        batch = ests[0]
        for e in ests[1:]:
            batch.extend(e)
        if len(store) > 0:
            P = (prod_matrix(store, batch) if prod_mode == "vectorised"
                 else _prod_matrix_loop(kernel, store, batch, p))
            inner = np.asarray(alpha, float) @ P                            # <w_t, Psi~_j>
        else:
            inner = np.zeros(n)
        X = y * inner if loss.kind == "classification" else inner - y
    theta = _lemma1_term(loss, n, p, X)
    return y * theta if loss.kind == "classification" else theta


def _lemma1_term(loss, n: int, p, X) -> float:
    """``gamma_n p^(n+1)/(p-1) prod_j X_j`` (Lemma 1) in log space.

    At ``p`` near 1 the level ``n`` is large: ``gamma_n`` (``~ 1/n!``) underflows to 0 while
    ``prod_j X_j`` overflows to inf, and the plain product is ``0 * inf = nan``. Summing
    logarithms gives the representable value (0 when a factor is exactly 0). A value that
    is genuinely beyond float64 raises instead of returning inf or nan."""
    sign, log_abs = loss.log_abs_taylor(n)
    X = np.asarray(X, dtype=np.float64)
    if sign == 0.0 or np.any(X == 0.0):
        return 0.0
    sign *= float(np.prod(np.sign(X)))
    log_abs += (n + 1) * math.log(p) - math.log(p - 1.0) + float(np.sum(np.log(np.abs(X))))  # Lemma 1
    if log_abs > 709.0:
        raise ValueError(f"the Lemma 1 gradient estimate at level n={n} is beyond float64 "
                         f"(ln|g~| = {log_abs:.1f}); use a larger p or smaller B_w")
    return sign * math.exp(log_abs)


# ----------------------------------------------------------------------------------------
# Algorithm 1
# ----------------------------------------------------------------------------------------
class NoisyKernelOGD(OnlineLearner):
    """Kernel learning from noisy inputs: online gradient descent that uses several noisy copies of each
    input to estimate the gradient without bias (paper 001, Algorithm 1).

    Paper 001, Algorithm 1 (Kernel Learning Algorithm with Noisy Input).

    ``w_t = sum_{i<t} alpha_i Psi~(x_i)``. At round ``t`` the learner receives the oracle
    ``A_t`` and ``y_t``, builds ``Psi~(x_t) = Map_Estimate(A_t, p)`` (Subroutine 2 / 5) and
    ``g~_t = Grad_Length_Estimate(A_t, y_t, p)`` (Subroutine 1), sets
    ``alpha_t = -g~_t eta / sqrt(T)``, computes ``n~_t = sum_ij alpha_i alpha_j Prod(Psi~_i, Psi~_j)``
    and, if ``n~_t > B_w``, rescales ``alpha_i <- alpha_i sqrt(B_w / n~_t)`` (the projection
    onto ``||w||^2 <= B_w``; ``projection="printed"`` uses the printed ``sqrt(B_w) / n~_t``).

    Parameters
    ----------
    kernel : DotProductKernel | GaussianKernel
    loss : SquaredLoss | ExponentialLoss | SmoothedAbsoluteLoss | SmoothedHingeLoss
    T : int -- the horizon (step size ``eta / sqrt(T)``, Sec. 4.1).
    eta : float or "theorem" -- learning rate; ``"theorem"`` takes Thm. 4's
        ``eta = sqrt(B_w / (B_g B_Psi))`` with ``B_Psi`` from Lemma 3 / 5 and ``B_g`` from
        Lemma 2 (needs ``B_x``; equals Thms. 1-2's ``B_w / (sqrt(u) l'_+(sqrt((p-1)u)))``).
    p : float > 1 -- sample parameter.
    B_w : float > 0 -- squared-norm radius of the comparison class.
    B_x : float > 0 -- bound on ``E||x~_t||^2`` (only for ``eta="theorem"``).
    y_max : float -- bound on ``abs(y_t)`` (regression losses with ``eta="theorem"``).
    noise : NoiseLaw or None -- used when ``learn_one`` gets a plain vector: the learner then
        builds the oracle ``A_t`` from it (noise drawn from ``noise_seed``). ``learn_one``
        also accepts an :class:`Oracle` directly.
    seed : the learner's own randomness (``N``, ``n``).
    prod_mode : "vectorised" (one array expression over all stored estimates per round) or
        "loop" (the literal Subroutines 3 / 6 pair by pair in Python; the naive reference,
        same numbers up to round-off).
    norm_update : {"incremental", "recompute"}
        "incremental" (``n~_t`` from ``||w_t||^2 + 2 alpha_t <w_t, Psi~_t> +
        alpha_t^2 ||Psi~_t||^2``, O(t) per round) or "recompute" (the printed double sum
        ``sum_ij alpha_i alpha_j Prod(Psi~_i, Psi~_j)``, O(t^2) per round); equal up to round-off.

    Learned state: ``eta_`` (the step-size constant in use), ``alpha_`` (t,), ``store_``
    (the ``Psi~(x_i)``), ``gram_`` (t, t) of
    ``Prod(Psi~_i, Psi~_j)``, ``queries_`` (oracle queries per round), ``grads_`` (``g~_t``),
    ``norms_`` (``n~_t`` before projection), ``t_``.

    Examples
    --------
    Learn a sign from inputs seen only through noisy copies (linear kernel, smoothed hinge):

    >>> import numpy as np, omkl_core as ok
    >>> from omkl_core import noisy as nz
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(300, 2)); y = np.sign(X[:, 0] + 1e-12)
    >>> model = ok.NoisyKernelOGD(nz.linear_kernel(), nz.SmoothedHingeLoss(1.0), T=300, eta=1.0,
    ...                           p=2.0, B_w=4.0, noise=nz.GaussianNoise(0.1), seed=0)
    >>> scores = model.run(X, y)                   # <w_t, Psi(x_t)>, predicted before y_t is seen
    >>> float(np.mean(np.sign(scores[150:]) == y[150:]))
    0.94
    >>> model.queries_[:5]                          # oracle queries per round (Thm. 1, first bullet)
    [1, 0, 5, 5, 0]
    """

    def __init__(self, kernel, loss, *, T: int, eta="theorem", p: float = 2.0, B_w: float = 1.0,
                 B_x: float | None = None, y_max: float = 1.0, projection: str = "exact",
                 noise=None, seed: int = 0, noise_seed: int | None = None,
                 prod_mode: str = "vectorised", norm_update: str = "incremental"):
        self.kernel = kernel
        self.loss = loss
        self.T = T
        self.eta = eta
        self.p = p
        self.B_w = B_w
        self.B_x = B_x
        self.y_max = y_max
        self.projection = projection
        self.noise = noise
        self.seed = seed
        self.noise_seed = noise_seed
        self.prod_mode = prod_mode
        self.norm_update = norm_update
        super().__init__()

    _parameter_constraints = {
        **_COMMON_CONSTRAINTS,
        "eta": Check(_check_eta, invalid=["fast", 0.0, float("nan")]),
        "p": Check(check_p, invalid=[1.0, 0.5, float("nan")]),
        "B_x": Optional(Positive()),
        "y_max": NonNegative(),         # a bound on |y_t|
        "projection": Options("exact", "printed"),
        "noise_seed": Optional(Seed()),
        "prod_mode": Options("vectorised", "loop"),
        "norm_update": Options("incremental", "recompute"),
    }

    @classmethod
    def _unit_test_params(cls):
        yield _unit_test_params_noisy()

    def _validate_joint(self):
        if isinstance(self.eta, str) and self.B_x is None:
            raise ValueError("eta='theorem' needs B_x (a bound on E||x~_t||^2)")

    def _theorem_eta(self) -> float:
        """Thm. 4's eta = sqrt(B_w / (B_g B_Psi)) (``eta="theorem"``)."""
        B_psi = bounds.paper001_feature_bound(self.kernel, self._p, self.B_x)
        B_g = bounds.paper001_lemma2_grad_bound(self.loss, self._p, self.B_w, B_psi, y_max=self.y_max)
        if not (math.isfinite(B_g) and math.isfinite(B_psi)):
            raise ValueError("eta='theorem' is not representable: the Lemma 2/3/5 bounds "
                             f"overflow float64 (B_Psi={B_psi:.3g}, B_g={B_g:.3g}); "
                             "pass an explicit eta or smaller B_w / B_x")
        eta = bounds.paper001_theorem4_eta(self.B_w, B_g, B_psi)
        if eta == 0.0:
            raise ValueError("eta='theorem' is not representable: Thm. 4's eta underflows float64 "
                             f"(B_Psi={B_psi:.3g}, B_g={B_g:.3g}); pass an explicit eta or smaller B_w / B_x")
        return eta

    def _reset(self) -> None:
        self._p = check_p(self.p)
        self._noise = _as_law(self.noise)
        self.eta_ = self._theorem_eta() if isinstance(self.eta, str) else float(self.eta)
        self.rng_ = host_rng(self.seed)
        self.noise_rng_ = host_rng(self.seed + 1_000_003 if self.noise_seed is None else self.noise_seed)
        self.queries_ = []
        self.grads_ = []
        self.norms_ = []
        self.d_ = None
        # capacity buffers (doubling), so a round costs O(t) Prods and no O(t^2) copies
        self._cap = 0
        self._alpha = np.zeros(0)
        self._G = np.zeros((0, 0))
        self._lev = np.zeros(0, dtype=np.int64)
        self._sc = np.zeros(0)
        self._V = np.zeros((0, 0, 0))
        self._copies: list = []
        self._meta: list = []
        self._norm2 = 0.0

    # --- learned state (views of the buffers) ---------------------------------------------
    @property
    def alpha_(self) -> np.ndarray:
        """``alpha_{t,1..t}``: ``w_{t+1} = sum_i alpha_i Psi~(x_i)``."""
        return self._alpha[:self.t_]

    @property
    def gram_(self) -> np.ndarray:
        """``G_ij = Prod(Psi~(x_i), Psi~(x_j))`` for the stored estimates."""
        return self._G[:self.t_, :self.t_]

    @property
    def store_(self) -> EstimateStore | None:
        """The stored ``Psi~(x_1..x_t)``."""
        if self.d_ is None:
            return None
        t = self.t_
        return EstimateStore(self._lev[:t], self._sc[:t], self._V[:t], self._copies, self._meta)

    def _reserve(self, n_rows: int, L: int, d: int) -> None:
        if n_rows > self._cap or L > self._V.shape[1]:
            cap = max(self._cap, 16)
            while cap < n_rows:
                cap *= 2
            Lnew = max(L, self._V.shape[1])
            t = self.t_
            G = np.zeros((cap, cap))
            G[:t, :t] = self._G[:t, :t]
            V = np.zeros((cap, Lnew, d))
            if t:
                V[:t, :self._V.shape[1]] = self._V[:t]
            for name, size in (("_alpha", cap), ("_sc", cap)):
                a = np.zeros(size)
                a[:t] = getattr(self, name)[:t]
                setattr(self, name, a)
            lev = np.zeros(cap, dtype=np.int64)
            lev[:t] = self._lev[:t]
            self._G, self._V, self._lev, self._cap = G, V, lev, cap

    # --- helpers ---------------------------------------------------------------------------
    def _oracle(self, x) -> Oracle:
        if isinstance(x, Oracle):
            orc = x
        else:
            orc = self._noise.oracle(check_point(x, self.d_, "x"), self.noise_rng_, t=self.t_)
        if self.d_ is not None and orc.d != self.d_:
            raise ValueError(f"x has dimension {orc.d}, expected d={self.d_}")
        return orc

    def score(self, X) -> np.ndarray:
        """``<w_t, Psi(x')>`` for each row of ``X``: ``sum_i alpha_i Prod(Psi~_i, x')``."""
        X = np.atleast_2d(np.asarray(X, float))
        if self.t_ == 0:
            return np.zeros(X.shape[0])
        return self.alpha_ @ prod_point_matrix(self.kernel, self.store_, X)

    def predict_one(self, x) -> float:
        x = check_point(x, self.d_, "x")
        return float(self.score(x[None, :])[0])

    def norm2(self) -> float:
        """``||w_t||^2 = alpha^T G alpha`` with ``G_ij = Prod(Psi~_i, Psi~_j)``."""
        return float(self.alpha_ @ self.gram_ @ self.alpha_) if self.t_ else 0.0

    # --- one round of Algorithm 1 ---------------------------------------------------------
    def learn_one(self, x, y) -> None:
        """One round: ``x`` is the oracle ``A_t`` (an :class:`Oracle`) or an instance that
        the learner's ``noise`` law turns into one."""
        y = check_label(y, "y")   # finite, |y| <= MAX_MAGNITUDE
        orc = self._oracle(x)
        q0 = orc.n_queries
        p, t = self._p, self.t_
        psi_t = self.kernel.map_estimate(orc, p, self.rng_)                  # Map_Estimate
        store = self.store_ if t else EstimateStore.empty(orc.d)
        g = grad_length_estimate(self.kernel, self.loss, store, self.alpha_, orc, y, p,
                                 self.rng_, self.prod_mode)                   # Grad_Length_Estimate
        self.d_ = orc.d
        self._reserve(t + 1, psi_t.vectors.shape[1], orc.d)
        n_new = int(psi_t.levels[0])
        self._lev[t] = n_new
        self._sc[t] = psi_t.scales[0]
        self._V[t, :n_new] = psi_t.vectors[0, :n_new]
        self._copies.extend(psi_t.copies)
        self._meta.extend(psi_t.meta)
        self.t_ = t + 1
        if self.prod_mode == "vectorised":
            row = prod_matrix(self.store_, psi_t)[:, 0]                      # Prod(Psi~_i, Psi~_t)
        else:
            row = _prod_matrix_loop(self.kernel, self.store_, psi_t, p)[:, 0]
        self._G[:t + 1, t] = row
        self._G[t, :t + 1] = row
        a_t = -g * self.eta_ / math.sqrt(self.T)                             # gradient step
        self._alpha[t] = a_t
        alpha = self._alpha[:t + 1]
        # squared norm n~_t = sum_ij alpha_i alpha_j Prod(Psi~_i, Psi~_j), updated in O(t):
        # ||w_t + a_t Psi~_t||^2 = ||w_t||^2 + 2 a_t <w_t, Psi~_t> + a_t^2 ||Psi~_t||^2
        n_t = self._norm2 + 2.0 * a_t * float(alpha[:t] @ row[:t]) + a_t * a_t * float(row[t])
        if self.norm_update == "recompute":
            n_t = float(alpha @ (self._G[:t + 1, :t + 1] @ alpha))           # the literal double sum
        if n_t > self.B_w:                                                   # projection
            c = math.sqrt(self.B_w / n_t) if self.projection == "exact" else math.sqrt(self.B_w) / n_t
            alpha *= c
            self._norm2 = n_t * c * c
        else:
            self._norm2 = n_t
        self.queries_.append(orc.n_queries - q0)
        self.grads_.append(g)
        self.norms_.append(n_t)

    def run(self, X, y) -> np.ndarray:
        """Predict-then-learn over ``(X, y)``: the predictions ``<w_t, Psi(x_t)>`` (T,), the
        library's whole-stream convention (``run`` -> predictions; ``trajectory`` -> the record)."""
        return self.trajectory(X, y)["scores"]

    def trajectory(self, X, y, oracles=None) -> dict:
        """Predict-then-learn over ``(X, y)``; returns the clean scores ``<w_t, Psi(x_t)>``,
        the losses on the clean data (the quantity of eq. 1) and the queries per round.
        ``oracles`` (optional): a sequence of :class:`Oracle`, one per round."""
        X = check_matrix(X, "X")
        y = check_vector(y, "y", length=X.shape[0])
        scores = np.empty(X.shape[0])
        for t in range(X.shape[0]):
            scores[t] = self.predict_one(X[t])
            self.learn_one(X[t] if oracles is None else oracles[t], float(y[t]))
        losses = self.loss.loss(scores, y)
        return {"scores": scores, "losses": losses, "queries": np.array(self.queries_[-X.shape[0]:])}


class SingleCopyKernelOGD(OnlineLearner):
    """Kernel online gradient descent that sees one noisy copy of each input and treats it as the input,
    the baseline the noisy-input algorithm is compared with (paper 001, section 3.1).

    Baseline (paper 001, Sec. 3.1 and Thm. 3): projected kernel OGD that sees ONE noisy
    copy ``x~_t`` per round and treats it as ``x_t``: ``w_{t+1} = P(w_t - (eta/sqrt(T))
    l'(y_t <w_t, Psi(x~_t)>) y_t Psi(x~_t))`` (classification; regression analogous), with
    the exact kernel of ``kernel``. Its gradient is biased for non-linear losses/kernels.
    """

    def __init__(self, kernel, loss, *, T: int, eta: float, B_w: float = 1.0, noise=None,
                 seed: int = 0):
        self.kernel = kernel
        self.loss = loss
        self.T = T
        self.eta = eta
        self.B_w = B_w
        self.noise = noise
        self.seed = seed
        super().__init__()

    _parameter_constraints = {**_COMMON_CONSTRAINTS, "eta": Positive()}

    @classmethod
    def _unit_test_params(cls):
        params = _unit_test_params_noisy()
        del params["p"]
        yield {**params, "kernel": polynomial_kernel(2, 1.0)}

    def _reset(self):
        self._noise = _as_law(self.noise)
        self.rng_ = host_rng(self.seed)
        self._cap = 0
        self._alpha = np.zeros(0)
        self._P = None
        self._norm2 = 0.0

    @property
    def alpha_(self):
        return self._alpha[:self.t_]

    @property
    def points_(self):
        return None if self._P is None else self._P[:self.t_]

    def score(self, X):
        X = np.atleast_2d(np.asarray(X, float))
        if self.t_ == 0:
            return np.zeros(X.shape[0])
        return self.alpha_ @ self.kernel.gram(self.points_, X)

    def _d(self):
        """The input dimension of the points stored so far (None before the first)."""
        return self._P.shape[1] if self._P is not None and self.t_ else None

    def predict_one(self, x):
        return float(self.score(check_point(x, d=self._d(), name="x")[None, :])[0])

    def learn_one(self, x, y):
        y = check_label(y, "y")   # finite, |y| <= MAX_MAGNITUDE
        orc = x if isinstance(x, Oracle) else self._noise.oracle(check_point(x, d=self._d(), name="x"),
                                                                 self.rng_, t=self.t_)
        xt = orc.query(1)[0]
        t = self.t_
        if t + 1 > self._cap:
            cap = max(16, 2 * self._cap)
            P = np.zeros((cap, xt.shape[0]))
            a = np.zeros(cap)
            if t:
                P[:t] = self._P[:t]
                a[:t] = self._alpha[:t]
            self._P, self._alpha, self._cap = P, a, cap
        k_old = self.kernel.gram(self._P[:t], xt[None, :])[:, 0] if t else np.zeros(0)
        a_score = float(self._alpha[:t] @ k_old)                       # <w_t, Psi(x~_t)>
        if self.loss.kind == "classification":
            g = y * float(self.loss.derivative(y * a_score))
        else:
            g = float(self.loss.derivative(a_score - y))
        a_t = -g * self.eta / math.sqrt(self.T)
        k_tt = float(self.kernel.gram(xt[None, :])[0, 0])
        n_t = self._norm2 + 2.0 * a_t * a_score + a_t * a_t * k_tt
        self._P[t] = xt
        self._alpha[t] = a_t
        self.t_ = t + 1
        if n_t > self.B_w:
            self._alpha[:t + 1] *= math.sqrt(self.B_w / n_t)
            n_t = self.B_w
        self._norm2 = n_t
