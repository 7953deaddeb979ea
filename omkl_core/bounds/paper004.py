"""Paper 004 -- T. Zhang, *Mathematical Analysis of Machine Learning Algorithms*, ch. 10
("Additive and Sparse Models", slides): exact empirical Rademacher complexities of the
classes of the chapter and the right-hand sides of its bounds.

Convention: V is an (n, N) matrix, rows = sample points X_1..X_n, columns = the functions
psi_1..psi_N of Psi (V[i, j] = psi_j(X_i)). The empirical Rademacher complexity is
R(F, S_n) = E_sigma sup_{f in F} (1/n) sum_i sigma_i f(X_i) (no absolute value), the
expectation over the 2^n sign vectors computed *exactly* by enumeration (n <= 20, in blocks).
(owner: omkl_core/sparse_additive/)
"""
from __future__ import annotations

import math

import numpy as np

from ..validation import check_int, check_matrix, check_nonneg, check_positive, check_seed, check_vector

__all__ = [
    "PAPER004_MAX_EXACT_N",
    "paper004_sign_vectors",
    "paper004_rademacher", "paper004_rademacher_mc",
    "paper004_rademacher_l1", "paper004_rademacher_l1_plus", "paper004_rademacher_l2", "paper004_rademacher_kl",
    "paper004_example11_bound", "paper004_example12_bound", "paper004_corollary19_bound",
    "paper004_l2_bound", "paper004_prop1_band",
    "paper004_theorem4_q", "paper004_theorem26_bound", "paper004_corollary27_margin_bounds",
    "paper004_irrepresentable", "paper004_theorem29_conditions", "paper004_theorem31_lambda",
    "paper004_theorem31_bound", "paper004_kappa_re_bounds",
]

#: the largest n for which the 2^n sign vectors are enumerated
PAPER004_MAX_EXACT_N = 20
_BLOCK = 1 << 15


def _V(V):
    V = check_matrix(V, "V")
    return V


def paper004_sign_vectors(n: int, start: int = 0, stop: int | None = None) -> np.ndarray:
    """Rows start..stop-1 of the 2^n sign vectors: row k has sigma_i = +1 where bit i of k is 0, else -1."""
    n = check_int(n, "n", minimum=1)
    stop = (1 << n) if stop is None else stop
    k = np.arange(start, stop, dtype=np.int64)[:, None]
    bits = (k >> np.arange(n, dtype=np.int64)[None, :]) & 1
    return 1.0 - 2.0 * bits


def _exact_expectation(V, stat):
    """E_sigma stat(sigma' V / n) over all 2^n sign vectors, by blocks; stat maps (b, N) -> (b,)."""
    n = V.shape[0]
    if n > PAPER004_MAX_EXACT_N:
        raise ValueError(f"V has n={n} rows: exact enumeration of 2^n sign vectors is limited to "
                         f"n <= {PAPER004_MAX_EXACT_N}; use paper004_rademacher_mc(V, n_draws=..., seed=...)")
    total = 0.0
    count = 1 << n
    for start in range(0, count, _BLOCK):
        S = paper004_sign_vectors(n, start, min(start + _BLOCK, count))
        total += float(np.sum(stat(S @ V / n)))
    return total / count


def paper004_rademacher(V) -> float:
    """Exact R(Psi, S_n) = E_sigma max_j (1/n) sum_i sigma_i V_ij (2^n sign vectors)."""
    V = _V(V)
    return _exact_expectation(V, lambda G: G.max(axis=1))


def paper004_rademacher_mc(V, *, n_draws, seed) -> tuple[float, float]:
    """Monte Carlo estimate of R(Psi, S_n) from ``n_draws`` sign vectors: (mean, standard error).
    The explicit alternative for n > 20 (never used silently)."""
    V = _V(V)
    n_draws = check_int(n_draws, "n_draws", minimum=2)
    rng = np.random.default_rng(check_seed(seed))
    vals = np.empty(n_draws)
    for start in range(0, n_draws, _BLOCK):
        b = min(_BLOCK, n_draws - start)
        S = rng.choice(np.array([-1.0, 1.0]), size=(b, V.shape[0]))
        vals[start:start + b] = (S @ V / V.shape[0]).max(axis=1)
    return float(vals.mean()), float(vals.std(ddof=1) / math.sqrt(n_draws))


def paper004_rademacher_l1(V, A) -> float:
    """Exact R(F_{A,L1}(Psi), S_n), F_{A,L1} = {sum_j w_j psi_j : ||w||_1 <= A}:
    sup over the L1 ball of a linear function = A max_j |(1/n) sum_i sigma_i V_ij|."""
    V = _V(V)
    A = check_nonneg(A, "A")
    return A * _exact_expectation(V, lambda G: np.abs(G).max(axis=1))


def paper004_rademacher_l1_plus(V, A) -> float:
    """Exact R(F+_{A,L1}(Psi), S_n), F+ = {a f : a in [0, A], f in CONV(Psi)}:
    the sup is A max(0, max_j (1/n) sum_i sigma_i V_ij)."""
    V = _V(V)
    A = check_nonneg(A, "A")
    return A * _exact_expectation(V, lambda G: np.maximum(G.max(axis=1), 0.0))


def paper004_rademacher_l2(V, A) -> float:
    """Exact R(F', S_n), F' = {w'psi : ||w||_2 <= A} (the L2 slide): A E_sigma ||(1/n) V' sigma||_2."""
    V = _V(V)
    A = check_nonneg(A, "A")
    return A * _exact_expectation(V, lambda G: np.sqrt((G * G).sum(axis=1)))


def _kl_ball_sup(G, q0, c, iters=90):
    """sup { q'g : KL(q || q0) <= c } for every row g of G (vectorised).

    If the q0-mass of argmax g has -ln q0(argmax) <= c the sup is max g; otherwise it is
    attained at the tilted q_beta prop. to q0 exp(beta g) with KL(q_beta || q0) = c (KL increases
    in beta), found by bisection on log beta."""
    gmax = G.max(axis=1, keepdims=True)
    D = G - gmax                                       # <= 0
    logq0 = np.log(q0)
    at_max = np.isclose(D, 0.0, atol=1e-15, rtol=0)
    mass = (at_max * q0).sum(axis=1)
    out = gmax[:, 0].copy()
    todo = -np.log(mass) > c
    if not np.any(todo):
        return out
    Dt = D[todo]
    spread = np.maximum(-Dt.min(axis=1), 1e-300)
    lo = np.log(1e-8 / spread)
    hi = np.log(1e8 / spread)

    def kl_and_mean(logb):
        b = np.exp(logb)[:, None]
        z = logq0[None, :] + b * Dt
        zm = z.max(axis=1, keepdims=True)
        e = np.exp(z - zm)
        Z = e.sum(axis=1, keepdims=True)
        q = e / Z
        mean = (q * Dt).sum(axis=1)
        logZ = (np.log(Z) + zm)[:, 0]
        return b[:, 0] * mean - logZ, mean            # KL(q_b || q0) = b E_q D - ln E_q0 e^{bD}

    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        kl, _m = kl_and_mean(mid)
        big = kl > c
        hi = np.where(big, mid, hi)
        lo = np.where(big, lo, mid)
    _, mean = kl_and_mean(lo)
    out[todo] = gmax[todo, 0] + mean
    return out


def paper004_rademacher_kl(V, A, prior=None) -> float:
    """Exact-in-sigma R(F_A, S_n) of Corollary 19, F_A = {E_{theta~q} psi(theta, .) : KL(q || q0) <= A^2},
    Theta = the N columns, q0 = ``prior`` (uniform if None). Each sup over the KL ball is solved
    to ~1e-12 by the tilted-distribution characterisation (see ``_kl_ball_sup``)."""
    V = _V(V)
    A = check_nonneg(A, "A")
    N = V.shape[1]
    q0 = np.full(N, 1.0 / N) if prior is None else check_vector(prior, "prior", length=None)
    if q0.shape[0] != N or np.any(q0 <= 0) or not np.isclose(q0.sum(), 1.0, rtol=1e-12, atol=0):
        raise ValueError(f"prior must be a positive probability vector of length N={N}")
    return _exact_expectation(V, lambda G: _kl_ball_sup(G, q0, A * A))


def paper004_example11_bound(V, A, B=None) -> float:
    """Example 11: R(F_{A,L1}(Psi), S_n) <= A sup_psi ||psi||_{L2(S_n)} sqrt(2 ln(2N)/n);
    with ``B`` (|psi| <= B) the weaker A B sqrt(2 ln(2N)/n)."""
    V = _V(V)
    A = check_nonneg(A, "A")
    n, N = V.shape
    scale = float(np.sqrt((V * V).mean(axis=0)).max()) if B is None else check_nonneg(B, "B")
    return A * scale * math.sqrt(2.0 * math.log(2 * N) / n)


def paper004_example12_bound(d, n, A) -> float:
    """Example 12 (printed): R(F_{A,L1}(Psi), S_n) <= 32 A sqrt(d/n) for a binary class of VC dimension d."""
    d = check_int(d, "d", minimum=0)
    n = check_int(n, "n", minimum=1)
    return 32.0 * check_nonneg(A, "A") * math.sqrt(d / n)


def paper004_corollary19_bound(V, A) -> float:
    """Corollary 19: R(F_A, S_n) <= sqrt(2/n) A sup_theta sqrt((1/n) sum_i psi(theta, X_i)^2)."""
    V = _V(V)
    A = check_nonneg(A, "A")
    n = V.shape[0]
    return math.sqrt(2.0 / n) * A * float(np.sqrt((V * V).mean(axis=0)).max())


def paper004_l2_bound(V, A) -> float:
    """The L2 slide, on the sample: R(F', S_n) <= A sqrt((m/n) (1/n) sum_i k(X_i, X_i)),
    k(x, x) = (1/m) sum_j psi_j(x)^2 -- i.e. (A/n) sqrt(sum_i ||psi(X_i)||^2)."""
    V = _V(V)
    A = check_nonneg(A, "A")
    n, m = V.shape
    k = (V * V).sum(axis=1) / m
    return A * math.sqrt(m / n * float(k.mean()))


def paper004_prop1_band(V, A) -> tuple[float, float]:
    """Proposition 1's band on the sample: (A/(sqrt(2) n)) sqrt(sum_i ||psi(X_i)||^2) <= R(F', S_n)
    <= (A/n) sqrt(sum_i ||psi(X_i)||^2); the lower end is the Khintchine-Kahane inequality with
    Szarek's constant 1/sqrt(2) (c = 1/sqrt(2) for orthonormal features with ||psi(x)||^2 = m)."""
    up = paper004_l2_bound(V, A)
    return up / math.sqrt(2.0), up


def paper004_theorem4_q(m, s) -> float:
    """q_F of the proof of Theorem 4 for |F| = s >= 1: (s + 1)^-2 / (m e / s)^s."""
    m = check_int(m, "m", minimum=1)
    s = check_int(s, "s", minimum=1)
    return math.exp(-2.0 * math.log(s + 1) - s * (math.log(m) + 1.0 - math.log(s)))


def paper004_theorem26_bound(r) -> np.ndarray:
    """Theorem 26: prod_{t <= T} sqrt(1 - r_t^2), for every T (cumulative products)."""
    r = check_vector(r, "r")
    if np.any(np.abs(r) > 1):
        raise ValueError("r must lie in [-1, 1]")
    return np.cumprod(np.sqrt(1.0 - r * r))


def paper004_corollary27_margin_bounds(w, r0=None) -> dict:
    """Corollary 27's chain for the margin error (1/n) sum_i 1(f^(T)(X_i) Y_i <= 1):
    ``exp_loss``: e prod_t 1/cosh(w_t) (= e prod sqrt(1 - r_t^2) with r_t = tanh w_t);
    ``middle``: exp(1 - 0.4 sum_t min(1, w_t^2)); ``r0``: exp(1 - (T/10) min(2, ln((1+r0)/(1-r0)))^2)."""
    w = check_vector(w, "w")
    logcosh = np.abs(w) + np.log1p(np.exp(-2.0 * np.abs(w))) - math.log(2.0)
    out = {"exp_loss": math.exp(1.0 - float(logcosh.sum())),
           "middle": math.exp(1.0 - 0.4 * float(np.minimum(1.0, w * w).sum()))}
    if r0 is not None:
        r0 = float(r0)
        if not 0 < r0 < 1:
            raise ValueError(f"r0 must be in (0, 1), got {r0!r}")
        out["r0"] = math.exp(1.0 - w.size / 10.0 * min(2.0, math.log((1 + r0) / (1 - r0))) ** 2)
    return out


def _support(w_bar, p):
    w_bar = check_vector(w_bar, "w_bar", length=None)
    if w_bar.shape[0] != p:
        raise ValueError(f"w_bar has length {w_bar.shape[0]} but X has {p} columns")
    F = np.flatnonzero(w_bar)
    if F.size == 0:
        raise ValueError("w_bar has empty support")
    return w_bar, F


def paper004_irrepresentable(X, w_bar) -> float:
    """Assumption 28: mu = sup_{j not in F} |X_j' X_F (X_F'X_F)^{-1} sign(w_bar)_F| (0 if F is everything)."""
    X = check_matrix(X, "X")
    w_bar, F = _support(w_bar, X.shape[1])
    XF = X[:, F]
    v = XF @ np.linalg.solve(XF.T @ XF, np.sign(w_bar[F]))
    off = np.setdiff1d(np.arange(X.shape[1]), F)
    return float(np.abs(X[:, off].T @ v).max()) if off.size else 0.0


def paper004_theorem29_conditions(X, w_bar, eps, lam) -> dict:
    """Theorem 29's three conditions and the primal-dual-witness solution.

    Returns ``mu``, ``lam_min`` = (1-mu)^-1 sup_{j not in F} |X_j'(P_F - I) eps| (inf if mu >= 1),
    ``w_min_required`` = ||(X_F'X_F)^-1||_{inf->inf} (lam + ||X_F' eps||_inf), and ``holds``
    (mu < 1, lam > lam_min, min_F |w_bar_j| > w_min_required), plus ``w_witness``:
    w_F = w_bar_F + (X_F'X_F)^{-1}(X_F' eps - lam sign(w_bar_F)), zero off F -- the solution
    of (12) on the event (sign consistent and unique)."""
    X = check_matrix(X, "X")
    w_bar, F = _support(w_bar, X.shape[1])
    eps = check_vector(eps, "eps", length=X.shape[0])
    lam = check_positive(lam, "lam")
    XF = X[:, F]
    Ginv = np.linalg.inv(XF.T @ XF)
    mu = paper004_irrepresentable(X, w_bar)
    resid = eps - XF @ (Ginv @ (XF.T @ eps))           # (I - P_F) eps
    off = np.setdiff1d(np.arange(X.shape[1]), F)
    noise = float(np.abs(X[:, off].T @ resid).max()) if off.size else 0.0
    lam_min = noise / (1.0 - mu) if mu < 1 else math.inf
    w_req = float(np.abs(Ginv).sum(axis=1).max()) * (lam + float(np.abs(XF.T @ eps).max()))
    w = np.zeros_like(w_bar)
    w[F] = w_bar[F] + Ginv @ (XF.T @ eps - lam * np.sign(w_bar[F]))
    return {"mu": mu, "lam_min": lam_min, "w_min_required": w_req,
            "holds": bool(mu < 1 and lam > lam_min and np.abs(w_bar[F]).min() > w_req), "w_witness": w}


def paper004_theorem31_lambda(sigma, B, p, n, delta) -> float:
    """Theorem 31's smallest lam: 2 sigma B sqrt(2 ln(2p/delta)/n)."""
    sigma = check_nonneg(sigma, "sigma")
    B = check_nonneg(B, "B")
    p = check_int(p, "p", minimum=1)
    n = check_int(n, "n", minimum=1)
    delta = float(delta)
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    return 2.0 * sigma * B * math.sqrt(2.0 * math.log(2 * p / delta) / n)


def paper004_theorem31_bound(lam, s, kappa, *, form="corrected") -> float:
    """Theorem 31's right-hand side for ||w_hat - w_bar||_2^2.

    ``form="printed"``: 16 lam^2 s / kappa^2 (as on the slide: not scale-invariant, fails);
    ``form="corrected"``: 16 lam^2 s / kappa^4 (the exponent the proof gives: on the event
    lam >= 2||X'eps||_inf the KKT conditions give ||w_hat - w_bar||_2 <= 1.5 lam sqrt(s)/kappa^2).
    """
    lam = check_nonneg(lam, "lam")
    s = check_int(s, "s", minimum=0)
    kappa = check_positive(kappa, "kappa")
    if form == "printed":
        return 16.0 * lam**2 * s / kappa**2
    if form == "corrected":
        return 16.0 * lam**2 * s / kappa**4
    raise ValueError(f"form must be 'printed' or 'corrected', got {form!r}")


def paper004_kappa_re_bounds(X, F, c0=4, *, n_samples=2000, seed=0) -> tuple[float, float]:
    """Bounds (lower, upper) on kappa_RE(F, c0) = min_{w != 0, ||w||_1 <= c0 ||w_F||_1} ||Xw||_2/||w||_2
    (Definition 30; exact computation is NP-hard).

    lower: sqrt(max(lambda_min(X'X), min_j G_jj - max_{j != k} |G_jk| c0^2 |F|, 0)) (every w of the
    cone has ||w||_1 <= c0 sqrt(|F|) ||w||_2). upper: the smallest ratio found at feasible points --
    sigma_min(X_F) (w supported on F) and ``n_samples`` random points of the cone (seeded).
    """
    X = check_matrix(X, "X")
    c0 = check_positive(c0, "c0")
    if c0 < 1:
        raise ValueError(f"c0 must be >= 1, got {c0!r}")
    p = X.shape[1]
    F = np.unique(np.asarray(F, dtype=np.int64))
    if F.size == 0 or F.min() < 0 or F.max() >= p:
        raise ValueError(f"F must be a non-empty set of column indices of X (0..{p - 1})")
    G = X.T @ X
    lam_min = float(np.linalg.eigvalsh(G)[0])
    off = G - np.diag(np.diag(G))
    coh = float(np.abs(off).max()) if p > 1 else 0.0
    lower = math.sqrt(max(lam_min, float(np.diag(G).min()) - coh * c0 * c0 * F.size, 0.0))
    upper = float(np.linalg.svd(X[:, F], compute_uv=False).min())
    Fc = np.setdiff1d(np.arange(p), F)
    if Fc.size and n_samples:
        rng = np.random.default_rng(seed)
        W = np.zeros((n_samples, p))
        W[:, F] = rng.standard_normal((n_samples, F.size))
        Z = rng.standard_normal((n_samples, Fc.size)) * (rng.random((n_samples, Fc.size)) < 0.3)
        l1F = np.abs(W[:, F]).sum(1)
        l1Z = np.maximum(np.abs(Z).sum(1), 1e-300)
        W[:, Fc] = Z * ((c0 - 1) * l1F * rng.random(n_samples) / l1Z)[:, None]
        ratio = np.linalg.norm(W @ X.T, axis=1) / np.linalg.norm(W, axis=1)
        upper = min(upper, float(ratio.min()))
    return lower, upper
