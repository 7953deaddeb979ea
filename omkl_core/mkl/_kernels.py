"""Compiled whole-stream loops of paper 003's learners (the ``"numba"`` engine of
:mod:`omkl_core.compiled`): ``raker_steps`` -- :class:`~omkl_core.mkl.Raker`, ``omklgf_steps`` --
:class:`~omkl_core.mkl.OMKLGF`, ``sfg_steps`` -- :class:`~omkl_core.mkl.SFGMKL`, ``sfgr_steps`` --
:class:`~omkl_core.mkl.SFGMKLR` (the random-feature learners), and ``omkr_steps`` --
:class:`~omkl_core.mkl.OMKR` (exact kernels, at the end of the module).

The NumPy reference is the per-step code of ``_rfbase.py``, ``raker.py``, ``omkl_gf.py`` and
``sfg.py`` (one step of all R repetitions at a time, ~30 NumPy calls per step). A kernel runs the
same steps with the repetitions in the outer loop and the time steps inside: the repetitions share
nothing but the random Generator, and its uniforms for a block of steps are drawn by the caller
before the call, in the NumPy path's order (``U[t]`` holds step t's draws as the NumPy step draws
them: ``rng.random((R, J, M))`` then ``rng.random(R)``). Only the kernels of the subset S_t are
evaluated (O(dD|S_t|) per step and repetition, section 4).

Equations (paper 003; reference C.1 for OMKL-GF, D.1 for Raker), with the NumPy code's order of
the elementwise operations, so that products, quotients, exp, log, sin, cos (the C library's here
and, on this machine, in NumPy) agree bit for bit:

* z_i(x) = D^{-1/2} [sin(x Omega_i), cos(x Omega_i)], f_i = theta_i' z_i            eq. (4)
* yhat = sum_{i in S_t} w_i f_i / sum_{i in S_t} w_i                                eqs. (6), (13), (25)
* L_i = (f_i - y)^2 + lam |theta_i|^2, ell_i = L_i / q_i                            eqs. (5), (14)
* theta_i <- theta_i - eta (2 (f_i - y) z_i + 2 lam theta_i) / q_i                  eq. (17)
* ln w_i <- ln w_i - eta ell_i;  ln u_I <- ln u_I - eta (yhat - y)^2 / p_I          eqs. (16), (18)
* p of eq. (12) / (24), q_i = sum_{j in N_i^in} p_j of eq. (15), D'_t and the refined edges
  of eqs. (22)-(23), OMKL-GF's graph (reference C.1).

Sums (the projection x Omega, theta' z, |theta|^2, the weight normalisations, q) are added in a
fixed order of their own, not NumPy's (einsum's SIMD lanes, BLAS): the engines agree to rounding
(~1e-15 relative per step; the tests compare them), not bit for bit. Each kernel returns the first
step (0-based in the block) at which some repetition's prediction is not finite (``n_steps`` when
none); the caller then reruns the block up to that step and raises, as the NumPy path does.

State arrays (theta, ln w, ln u, frozen graphs) are updated in place; the caller passes the
learner's own arrays, so ``run`` continues from the current state on either engine.
"""
from __future__ import annotations

import math

import numpy as np

from ..compiled import jit
from ..cosine import VML_HA

#: forms of eqs. (14)-(18) after the greedy switch, as the kernels take them (``SFGMKL.after_switch_form``)
FORMS = {"importance": 0, "deterministic": 1, "frozen_u": 2}


# ----------------------------------------------------------------------------- shared helpers
@jit
def _dot(a, b):  # pragma: no cover  (compiled; tests call it through the engine)
    """sum_j a_j b_j with four interleaved partial sums."""
    n = a.shape[0]
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    j = 0
    while j + 4 <= n:
        s0 += a[j] * b[j]
        s1 += a[j + 1] * b[j + 1]
        s2 += a[j + 2] * b[j + 2]
        s3 += a[j + 3] * b[j + 3]
        j += 4
    s = (s0 + s1) + (s2 + s3)
    while j < n:
        s += a[j] * b[j]
        j += 1
    return s


@jit
def _rate(base, inv_sqrt_t, t):  # pragma: no cover
    """eta_t (or xi_t) of the step after t completed ones: ``base`` or base / sqrt(t + 1) (``_rates``)."""
    if inv_sqrt_t:
        return base * (1.0 / np.sqrt(t + 1.0))
    return base


@jit
def _softmax(logw, out):  # pragma: no cover
    """out = exp(logw - max) / sum (``_softmax_masked`` with every entry valid)."""
    n = logw.shape[0]
    top = logw[0]
    for i in range(1, n):
        if logw[i] > top:
            top = logw[i]
    s = 0.0
    for i in range(n):
        out[i] = np.exp(logw[i] - top)
        s += out[i]
    for i in range(n):
        out[i] = out[i] / s


@jit
def _draw(p, n, u):  # pragma: no cover
    """``draw_nodes`` for one row: #{j < n : cumsum(p)_j <= u sum(p)}, at most n - 1."""
    total = 0.0
    for j in range(n):
        total += p[j]
    target = u * total
    c = 0.0
    cnt = 0
    for j in range(n):
        c += p[j]
        if c <= target:
            cnt += 1
    return min(cnt, n - 1)


@jit
def _argmax(a):  # pragma: no cover
    """The first index of the largest entry (``np.argmax``)."""
    best = 0
    for i in range(1, a.shape[0]):
        if a[i] > a[best]:
            best = i
    return best


@jit
def _sincos(PR, S, C, K, sincos):  # pragma: no cover
    """S, C = sin, cos of the first K rows of PR: oneMKL's ``vmdSinCos`` (VML_HA) when ``sincos`` is that
    function (:func:`omkl_core.cosine.mkl_sincos`), else the C library's sin and cos (NumPy's)."""
    if sincos is None:
        for k in range(K):
            for j in range(PR.shape[1]):
                S[k, j] = np.sin(PR[k, j])
                C[k, j] = np.cos(PR[k, j])
    else:
        sincos(K * PR.shape[1], PR.ctypes.data, S.ctypes.data, C.ctypes.data, VML_HA)


@jit
def _predict(Om_r, theta_r, logw_r, idx, K, x, scale, sincos, PR, S, C, Z, f, w):  # pragma: no cover
    """Features z_i and predictions f_i = theta_i' z_i (eq. 4) of the kernels idx[:K], their
    normalised weights w (eq. 13 over S_t) -> yhat (eqs. 6 / 13 / 25). PR, S, C (>= K, D) and Z
    (>= K, 2D): work space."""
    d = x.shape[0]
    m = PR.shape[1]
    for k in range(K):
        O = Om_r[idx[k]]                              # (d, D)
        pr = PR[k]
        x0 = x[0]
        for j in range(m):
            pr[j] = O[0, j] * x0
        for c in range(1, d):
            xc = x[c]
            for j in range(m):
                pr[j] += O[c, j] * xc                 # x Omega_i
    _sincos(PR, S, C, K, sincos)
    top = -np.inf
    for k in range(K):
        i = idx[k]
        z = Z[k]
        for j in range(m):
            z[j] = S[k, j] * scale                    # eq. (4)
            z[m + j] = C[k, j] * scale
        f[k] = _dot(theta_r[i], z)                    # f_RF,i(x_t) = theta_i' z_i (eq. 4)
        if logw_r[i] > top:
            top = logw_r[i]
    s = 0.0
    for k in range(K):
        w[k] = np.exp(logw_r[idx[k]] - top)
        s += w[k]
    yhat = 0.0
    for k in range(K):
        w[k] = w[k] / s
        yhat += w[k] * f[k]                           # eq. (13)
    return yhat


@jit
def _learn_kernel(theta_i, z, f, y, q, eta, lam, weighted, after):  # pragma: no cover
    """One kernel's step (``_RFLearner._kernel_update``): theta_i <- theta_i - eta grad L_i / q
    (eq. 17; ``weighted`` False: without 1/q) and the loss estimate ell_i = L_i / q (eq. 14), L_i of
    eq. (5) at theta_{i,t} (``after``: lam |theta_i|^2 at theta_{i,t+1}, the authors' code)."""
    resid = f - y
    loss = resid * resid + lam * _dot(theta_i, theta_i)         # eq. (5)
    a = 2.0 * resid
    b = 2.0 * lam
    for j in range(theta_i.shape[0]):
        g = a * z[j] + b * theta_i[j]                           # grad of eq. (5)
        if weighted:
            g = g / q
        theta_i[j] = theta_i[j] - eta * g                       # eq. (17)
    if after:
        loss = resid * resid + lam * _dot(theta_i, theta_i)
    return loss / q                                             # eq. (14)


# ----------------------------------------------------------------------------- Raker
@jit
def raker_steps(X, y, c0, n_steps, t0, Om, theta, log_w, P,
                eta0, inv_sqrt_t, lam, scale, sincos, after):  # pragma: no cover
    """Raker over steps c0 .. c0 + n_steps - 1 of (X, y) (columns of P): every kernel every step,
    q = 1 (eqs. 4-6; ``after``: the code's lam |theta_{t+1}|^2). Returns the first failing step."""
    R, N = log_w.shape
    m = Om.shape[3]
    idx = np.arange(N)
    PR, S, C = np.empty((N, m)), np.empty((N, m)), np.empty((N, m))
    Z = np.empty((N, 2 * m))
    f = np.empty(N)
    w = np.empty(N)
    fail = n_steps
    for r in range(R):
        for t in range(n_steps):
            eta = _rate(eta0, inv_sqrt_t, t0 + t)
            yhat = _predict(Om[r], theta[r], log_w[r], idx, N, X[c0 + t], scale, sincos, PR, S, C, Z, f, w)
            if not np.isfinite(yhat):
                fail = min(fail, t)
                break
            P[r, c0 + t] = yhat
            yt = y[c0 + t]
            for i in range(N):
                ell = _learn_kernel(theta[r, i], Z[i], f[i], yt, 1.0, eta, lam, True, after)
                log_w[r, i] = log_w[r, i] - eta * ell               # w_i <- w_i exp(-eta L_i)
    return fail


# ----------------------------------------------------------------------------- OMKL-GF
@jit
def omklgf_steps(X, y, c0, n_steps, t0, Om, theta, log_w, P, U,
                 eta0, inv_sqrt_t, lam, scale, sincos, M, J, eta_e0, q_clip, weighted, freeze_after, has_frozen,
                 frozen_A, frozen_P, off_by_one, after,
                 rec, rec_node, rec_size, rec_invq, last_node):  # pragma: no cover
    """OMKL-GF (reference C.1; ``OMKLGF._graph`` / ``_predict_step`` / ``_learn_step``) over steps
    c0 .. c0 + n_steps - 1. ``eta_e0`` < 0: eta_e = eta_t; ``q_clip`` <= 0: no clip; ``freeze_after``
    < 0: never frozen; ``frozen_A`` (R, N, J), ``frozen_P`` (R, J, N) the kept graph (valid when
    ``has_frozen``). U[t]: the graph's R*J*M uniforms (when drawn) then the node's R (J > 1)."""
    R, N = log_w.shape
    m = Om.shape[3]
    PR, S, C = np.empty((N, m)), np.empty((N, m)), np.empty((N, m))
    Z = np.empty((N, 2 * m))
    f = np.empty(N)
    w = np.empty(N)
    wbar = np.empty(N)
    pi = np.empty((J, N))
    A = np.zeros((N, J), dtype=np.bool_)
    Pm = np.empty((J, N))
    q = np.empty(N)
    log_u = np.empty(J)
    ubar = np.empty(J)
    pic = np.empty(J)
    idx = np.empty(N, dtype=np.int64)
    fail = n_steps
    for r in range(R):
        for t in range(n_steps):
            tt = t0 + t
            eta = _rate(eta0, inv_sqrt_t, tt)
            eta_e = eta if eta_e0 < 0.0 else eta_e0
            frozen = freeze_after >= 0 and tt >= freeze_after and (has_frozen or t > 0)
            off = 0
            if frozen:
                A[:, :] = frozen_A[r]
                Pm[:, :] = frozen_P[r]
            else:
                _softmax(log_w[r], wbar)                                 # wbar_k = w_k / sum_i w_i
                A[:, :] = False
                for j in range(J):
                    ej = eta_e if J == 1 else math.pow(eta_e, j + 1.0)   # eta_e^j, j = 1..J
                    for k in range(N):
                        pi[j, k] = (1.0 - ej) * wbar[k] + ej / N         # pi^(j)
                    base = (r * J + j) * M
                    for s in range(M):                                   # M i.i.d. draws per node
                        k = _draw(pi[j], N, U[t, base + s])
                        if off_by_one:                                   # reference C.1 code quirk
                            k = min(k + 1, N - 1)
                        A[k, j] = True
                    for k in range(N):
                        v = 1.0 - pi[j, k]
                        vm = v if M == 1 else (v * v if M == 2 else math.pow(v, float(M)))   # NumPy's x ** M
                        Pm[j, k] = 1.0 - vm                              # P(k connected to j)
                off = R * J * M
                if freeze_after >= 0 and tt + 1 >= freeze_after:
                    frozen_A[r] = A
                    frozen_P[r] = Pm
            if J == 1:                                                   # the only node, no draw
                node = 0
                for k in range(N):
                    q[k] = Pm[0, k]
            else:
                for j in range(J):
                    top = -np.inf
                    for k in range(N):
                        if A[k, j] and log_w[r, k] > top:
                            top = log_w[r, k]
                    s_ = 0.0
                    for k in range(N):
                        if A[k, j]:
                            s_ += np.exp(log_w[r, k] - top)
                    log_u[j] = top + np.log(s_)                          # ln u_j = ln sum_k w_k A_kj
                _softmax(log_u, ubar)
                for j in range(J):
                    pic[j] = (1.0 - eta_e) * ubar[j] + eta_e / J         # pi^c
                node = _draw(pic, J, U[t, off + r])
                for k in range(N):
                    acc = 0.0
                    for j in range(J):
                        acc += Pm[j, k] * pic[j]
                    q[k] = acc                                           # q_k = sum_j P_kj pi^c_j
            K = 0
            for k in range(N):                                           # S_t = {k : A[k, I_t]}
                if A[k, node]:
                    idx[K] = k
                    K += 1
            yhat = _predict(Om[r], theta[r], log_w[r], idx, K, X[c0 + t], scale, sincos, PR, S, C, Z, f, w)
            if not np.isfinite(yhat):
                fail = min(fail, t)
                break
            P[r, c0 + t] = yhat
            yt = y[c0 + t]
            inv_q = 0.0
            for k in range(K):
                i = idx[k]
                qs = q[i]
                inv_q += 1.0 / qs
                if q_clip > 0.0 and not qs > q_clip:                     # code (C.3): 1/q -> 1/c
                    qs = q_clip
                ell = _learn_kernel(theta[r, i], Z[k], f[k], yt, qs, eta, lam, weighted, after)
                log_w[r, i] = log_w[r, i] - eta * ell                    # w_k <- w_k exp(-eta ell_k)
            if rec:
                rec_node[r, c0 + t] = node
                rec_size[r, c0 + t] = K
                rec_invq[r, c0 + t] = inv_q / K
            last_node[r] = node
    return fail


# ----------------------------------------------------------------------------- SFG-MKL
@jit
def _q_in(p, in_ptr, in_idx, i):  # pragma: no cover
    """q_i = sum_{j in N_i^in} p_j (eq. 15) on the graph in CSR form (in-neighbours ascending)."""
    acc = 0.0
    for a in range(in_ptr[i], in_ptr[i + 1]):
        acc += p[in_idx[a]]
    return acc


@jit
def sfg_steps(X, y, c0, n_steps, t0, Om, theta, log_w, log_u, P, U,
              eta0, xi0, inv_sqrt_t, lam, scale, sincos, out_nb, in_ptr, in_idx, inD, nD,
              greedy_after, greedy_node, after_form, has_clip, clip_q, clip_p,
              rec, rec_node, rec_size, rec_invq, last_p, last_q, last_node):  # pragma: no cover
    """SFG-MKL, Algorithm 2 (``SFGMKL._predict_step`` / ``_learn_step``) over steps c0 .. c0 +
    n_steps - 1. ``greedy_after`` < 0: no switch; ``greedy_node`` < 0: argmax u; ``after_form``:
    :data:`FORMS` of the steps after the switch. U[t, r]: the node draw of repetition r."""
    R, N = log_w.shape
    m = Om.shape[3]
    M = out_nb.shape[1]
    PR, S, C = np.empty((M, m)), np.empty((M, m)), np.empty((M, m))
    Z = np.empty((M, 2 * m))
    f = np.empty(M)
    w = np.empty(M)
    ubar = np.empty(N)
    p = np.empty(N)
    fail = n_steps
    for r in range(R):
        for t in range(n_steps):
            tt = t0 + t
            eta = _rate(eta0, inv_sqrt_t, tt)
            xi = _rate(xi0, inv_sqrt_t, tt)
            _softmax(log_u[r], ubar)                                     # u_{i,t} / U_t
            c = xi / nD
            for i in range(N):
                p[i] = (1.0 - xi) * ubar[i] + c * inD[i]                 # eq. (12)
            greedy = greedy_after >= 0 and tt >= greedy_after
            if greedy:
                node = greedy_node if greedy_node >= 0 else _argmax(log_u[r])   # section 5 / code (E.4)
            else:
                node = _draw(p, N, U[t, r])                              # I_t ~ p_t
            idx = out_nb[node]                                           # S_t = N_{I_t}^out
            yhat = _predict(Om[r], theta[r], log_w[r], idx, M, X[c0 + t], scale, sincos, PR, S, C, Z, f, w)
            if not np.isfinite(yhat):
                fail = min(fail, t)
                break
            P[r, c0 + t] = yhat
            yt = y[c0 + t]
            form = after_form if greedy else 0                           # before the switch: drawn
            p_sel = 1.0                                                  # eq. (12) for a point mass
            if form == 0:
                p_sel = p[node]                                          # eq. (12)
                if has_clip:
                    p_sel = max(p_sel, clip_p)                           # code variant (E.4)
            inv_q = 0.0
            for k in range(M):
                i = idx[k]
                qi = _q_in(p, in_ptr, in_idx, i)                         # eq. (15)
                inv_q += 1.0 / qi
                qs = 1.0                                                 # eq. (15) for a point mass
                if form == 0:
                    qs = max(qi, clip_q) if has_clip else qi
                ell = _learn_kernel(theta[r, i], Z[k], f[k], yt, qs, eta, lam, True, False)   # eqs. (14), (17)
                log_w[r, i] = log_w[r, i] - eta * ell                    # eq. (18a), in logs
            if form != 2:                                                # frozen_u: (18b) skipped
                e = yhat - yt
                log_u[r, node] = log_u[r, node] - eta * ((e * e) / p_sel)   # eqs. (16), (18b)
            if rec:
                rec_node[r, c0 + t] = node
                rec_size[r, c0 + t] = M
                rec_invq[r, c0 + t] = inv_q / M
            if t == n_steps - 1:
                for i in range(N):
                    last_p[r, i] = p[i]
                    last_q[r, i] = _q_in(p, in_ptr, in_idx, i)
                last_node[r] = node
    return fail


# ----------------------------------------------------------------------------- SFG-MKL-R
@jit
def _refine(ubar, xi, delta, A0, beta_rank, beta_const, section4, Dp, A):  # pragma: no cover
    """D'_t (eq. 22) into Dp and the refined adjacency A'_t (eq. 23) into A (``SFGMKLR.refined_graph``)
    -> beta_t. ``beta_const`` < 0: section 5's beta_t from the ``beta_rank``-th largest ubar."""
    N = ubar.shape[0]
    if beta_const < 0.0:
        ubar_k = np.sort(ubar)[N - beta_rank]                          # the beta_rank-th largest
        beta = (1.0 - xi) * ubar_k + xi / N
        for i in range(N):
            Dp[i] = ubar[i] >= ubar_k                                  # eq. (22), exact form
    else:
        beta = beta_const
        thr = (beta - xi / N) / (1.0 - xi)
        for i in range(N):
            Dp[i] = ubar[i] >= thr                                     # eq. (22)
    A[:, :] = A0                                                       # E'_t = E
    for i in range(N):
        if section4:                                                   # section 4: no edge from D'_t in G
            add = True
            for j in range(N):
                if Dp[j] and A0[j, i]:
                    add = False
                    break
        else:
            add = not Dp[i]                                            # Algorithm 3: all i in V \ D'_t
        if add:
            best = 0
            bv = np.inf
            for j in range(N):
                v = delta[i, j] if Dp[j] else np.inf
                if v < bv:                                             # eq. (23): argmin, lower index
                    bv = v
                    best = j
            A[best, i] = True                                          # append (d_{i,t}, i)
    return beta


@jit
def sfgr_steps(X, y, c0, n_steps, t0, Om, theta, log_w, log_u, P, U,
               eta0, xi0, inv_sqrt_t, lam, scale, sincos, delta, A0, beta_rank, beta_const, section4,
               freeze, has_frozen, frozen_Dp, frozen_A, frozen_beta,
               greedy_after, greedy_node, after_form, has_clip, clip_q, clip_p,
               rec, rec_node, rec_size, rec_invq, last_p, last_q, last_node):  # pragma: no cover
    """SFG-MKL-R, Algorithm 3 (``SFGMKLR._predict_step`` and SFG-MKL's ``_learn_step``) over steps
    c0 .. c0 + n_steps - 1. ``freeze``: the code's frozen refinement (``frozen_*`` (R, N), (R, N, N),
    (R,) the kept D', A', beta, valid when ``has_frozen``). U[t, r]: the node draw of repetition r."""
    R, N = log_w.shape
    m = Om.shape[3]
    PR, S, C = np.empty((N, m)), np.empty((N, m)), np.empty((N, m))
    Z = np.empty((N, 2 * m))
    f = np.empty(N)
    w = np.empty(N)
    ubar = np.empty(N)
    p = np.empty(N)
    Dp = np.empty(N, dtype=np.bool_)
    A = np.empty((N, N), dtype=np.bool_)
    idx = np.empty(N, dtype=np.int64)
    fail = n_steps
    for r in range(R):
        for t in range(n_steps):
            tt = t0 + t
            eta = _rate(eta0, inv_sqrt_t, tt)
            xi = _rate(xi0, inv_sqrt_t, tt)
            _softmax(log_u[r], ubar)
            switched = greedy_after >= 0 and tt >= greedy_after
            if freeze and switched and (has_frozen or t > 0):
                Dp[:] = frozen_Dp[r]                                     # code (E.4): D', A' kept
                A[:, :] = frozen_A[r]
            else:
                beta = _refine(ubar, xi, delta, A0, beta_rank, beta_const, section4, Dp, A)
                if freeze:
                    frozen_Dp[r] = Dp
                    frozen_A[r] = A
                    frozen_beta[r] = beta
            n_dp = 0
            for i in range(N):
                n_dp += Dp[i]
            for i in range(N):
                p[i] = (1.0 - xi) * ubar[i] + (xi * Dp[i]) / n_dp        # eq. (24)
            greedy = switched and not freeze                             # code (E.4): node stays drawn
            if greedy:
                node = greedy_node if greedy_node >= 0 else _argmax(log_u[r])
            else:
                node = _draw(p, N, U[t, r])
            K = 0
            for i in range(N):                                           # N_{I_t,t}^out in G'_t
                if A[node, i]:
                    idx[K] = i
                    K += 1
            yhat = _predict(Om[r], theta[r], log_w[r], idx, K, X[c0 + t], scale, sincos, PR, S, C, Z, f, w)   # eq. (25)
            if not np.isfinite(yhat):
                fail = min(fail, t)
                break
            P[r, c0 + t] = yhat
            yt = y[c0 + t]
            form = after_form if greedy else 0                           # as SFG-MKL after the switch
            p_sel = 1.0
            if form == 0:
                p_sel = p[node]                                          # eq. (24)
                if has_clip:
                    p_sel = max(p_sel, clip_p)
            inv_q = 0.0
            for k in range(K):
                i = idx[k]
                qi = 0.0
                for j in range(N):
                    if A[j, i]:
                        qi += p[j]                                       # q over N_{i,t}^in
                inv_q += 1.0 / qi
                qs = 1.0
                if form == 0:
                    qs = max(qi, clip_q) if has_clip else qi
                ell = _learn_kernel(theta[r, i], Z[k], f[k], yt, qs, eta, lam, True, False)   # eqs. (14), (17)
                log_w[r, i] = log_w[r, i] - eta * ell                    # eq. (18a) on G'_t
            if form != 2:                                                # frozen_u: (18b) skipped
                e = yhat - yt
                log_u[r, node] = log_u[r, node] - eta * ((e * e) / p_sel)   # eqs. (16), (18b) on G'_t
            if rec:
                rec_node[r, c0 + t] = node
                rec_size[r, c0 + t] = K
                rec_invq[r, c0 + t] = inv_q / K
            if t == n_steps - 1:
                for i in range(N):
                    last_p[r, i] = p[i]
                    qi = 0.0
                    for j in range(N):
                        if A[j, i]:
                            qi += p[j]
                    last_q[r, i] = qi
                last_node[r] = node
    return fail


# ----------------------------------------------------------------------------- OMKR
#: past points per pass of OMKR's kernel sums: N x 512 arguments of exp stay in the cache
OMKR_BLOCK = 512


@jit
def _vexp(buf, out, n, vexp):  # pragma: no cover
    """out[:n] = exp(buf[:n]): oneMKL's ``vmdExp`` (VML_HA) when ``vexp`` is that function
    (:func:`omkl_core.cosine.mkl_exp`), else the C library's exp (NumPy's)."""
    if vexp is None:
        for i in range(n):
            out[i] = np.exp(buf[i])
    else:
        vexp(n, buf.ctypes.data, out.ctypes.data, VML_HA)


@jit
def omkr_steps(X, y, c0, n_steps, t0, Xs, sq, C, log_w, a, eta0, inv_sqrt_t, log_beta, P, f, vexp):  # pragma: no cover
    """OMKR (reference D.2; ``OMKR._experts`` / ``_update``) over steps c0 .. c0 + n_steps - 1 of (X, y):
    f_k(x_t) = sum_{s<t} c_{k,s} exp(-a_k |x_t - x_s|^2) for all k, the distances once per past point
    for all N kernels, in passes of :data:`OMKR_BLOCK` past points; yhat = sum_k w_k f_k / sum w;
    c_{k,t} = -eta (f_k - y_t), ln w_k += ln(beta) (f_k - y_t)^2. Xs (cap, d), sq (cap,), C (N, cap):
    the past points, their squared norms and the coefficients (capacity >= t0 + n_steps), updated in
    place, as ln w; f (N,): the experts' predictions of the last step."""
    N = a.shape[0]
    B = OMKR_BLOCK
    r2 = np.empty(B)
    buf = np.empty(N * B)
    E = np.empty(N * B)
    w = np.empty(N)
    for t in range(n_steps):
        tt = t0 + t
        x = X[c0 + t]
        xx = _dot(x, x)
        for k in range(N):
            f[k] = 0.0
        s0 = 0
        while s0 < tt:
            nb = min(B, tt - s0)
            for j in range(nb):
                r = sq[s0 + j] - 2.0 * _dot(Xs[s0 + j], x) + xx              # |x_t - x_s|^2
                r2[j] = r if r > 0.0 else 0.0
            for k in range(N):
                ak = a[k]
                for j in range(nb):
                    buf[k * nb + j] = -(ak * r2[j])
            _vexp(buf, E, N * nb, vexp)                                       # kappa_k(x_t, x_s)
            for k in range(N):
                Ck = C[k]
                acc0 = 0.0
                acc1 = 0.0
                j = 0
                while j + 2 <= nb:
                    acc0 += E[k * nb + j] * Ck[s0 + j]
                    acc1 += E[k * nb + j + 1] * Ck[s0 + j + 1]
                    j += 2
                if j < nb:
                    acc0 += E[k * nb + j] * Ck[s0 + j]
                f[k] += acc0 + acc1                                           # f_k(x_t)
            s0 += nb
        _softmax(log_w, w)                                                    # w_k / sum_j w_j
        yhat = 0.0
        for k in range(N):
            yhat += w[k] * f[k]                                               # sum_k w_k f_k / sum w
        P[c0 + t] = yhat
        eta = eta0 / np.sqrt(tt + 1.0) if inv_sqrt_t else eta0
        yt = y[c0 + t]
        for c in range(x.shape[0]):
            Xs[tt, c] = x[c]
        sq[tt] = xx
        for k in range(N):
            resid = f[k] - yt
            C[k, tt] = -eta * resid                                           # c_{k,t} = -eta (f_k - y)
            log_w[k] = log_w[k] + log_beta * (resid * resid)                  # w <- w beta^{(f_k - y)^2}
