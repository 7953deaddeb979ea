"""Compiled whole-stream loops of the aggregators (the ``"numba"`` engine of :mod:`omkl_core.compiled`).

Each kernel is the compiled twin of one NumPy rule (its ``_weights``/``_update`` looped over
time), called by that rule's ``_run_compiled``: ``ewa_stream`` -- :class:`EWA`, ``aa_stream`` --
:class:`AggregatingAlgorithm`, ``mlpoly_stream`` -- :class:`MLPoly`, ``mlprod_stream`` --
:class:`MLProd`, ``boa120_stream``/``boa122_stream`` -- :class:`BOA`, ``calib_stream`` (+
``calib_rerun``) -- :class:`CalibratedEWA`.  They are written with explicit loops over
time t, repetition r and expert k, compiled by Numba on first use (this module never imports
Numba), and perform the NumPy rule's floating-point operations in the same order:

* every sum over the experts is :func:`_pwsum`, NumPy's pairwise summation (``np.add.reduce``
  over a contiguous axis: 8 interleaved partial sums, blocks of 128), so sums agree bit for bit;
* products, quotients, max, sqrt are IEEE operations and agree bit for bit;
* ``exp``/``log`` come from the C library here, from NumPy's own (SIMD) code there: they may
  differ in the last place, so rules that use them agree to rounding (~1e-15 relative per
  step), not bit for bit (the tests compare the engines to 1e-12).

State arrays are updated in place; the caller reads them from, and stores them back on, the
learner, so ``run`` continues from the current state on either engine.  Formulas: see the
classes (``ewa.py``, ``aa.py``, ``opera_rules.py``; ref. A.1-A.6 and B, P000 eqs. (28)-(29)).

The step path (issue 44): each rule but the calibrated EWA is two helpers, ``_<rule>_forecast``
and ``_<rule>_learn`` (one step's forecast and update), which its whole-stream kernel loops over
and its step kernels ``<rule>_step_forecast`` (the truncation (28) of one z_t, then the forecast)
and ``<rule>_step_learn`` call once, for the rule's ``predict_one`` / ``learn_one`` on this engine:
one code, so ``run``'s numbers bit for bit (no fast-math flags: a helper inlined or not computes
the same).
"""
from __future__ import annotations

import math

import numpy as np

from ..compiled import jit

_PW_BLOCK = 128     # NumPy's PW_BLOCKSIZE


@jit
def _pw_block(a, s, n):
    """NumPy's pairwise sum of a[s:s+n] for n <= 128 (``pairwise_sum`` of loops_utils.h)."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[s + i]
        return res
    r0, r1, r2, r3 = a[s], a[s + 1], a[s + 2], a[s + 3]
    r4, r5, r6, r7 = a[s + 4], a[s + 5], a[s + 6], a[s + 7]
    m = n - n % 8
    i = 8
    while i < m:
        r0 += a[s + i]
        r1 += a[s + i + 1]
        r2 += a[s + i + 2]
        r3 += a[s + i + 3]
        r4 += a[s + i + 4]
        r5 += a[s + i + 5]
        r6 += a[s + i + 6]
        r7 += a[s + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[s + i]
        i += 1
    return res


@jit
def _pwsum(a, n):
    """``np.add.reduce(a[:n])`` bit for bit: NumPy's recursive halving (to multiples of 8) above
    128 elements, done here with an explicit stack, and :func:`_pw_block` below."""
    if n <= _PW_BLOCK:
        return _pw_block(a, 0, n)
    starts = np.empty(64, np.int64)
    sizes = np.empty(64, np.int64)
    stage = np.zeros(64, np.int64)
    left = np.empty(64)
    starts[0], sizes[0], stage[0] = 0, n, 0
    top, value = 0, 0.0
    while top >= 0:
        s, m = starts[top], sizes[top]
        if m <= _PW_BLOCK:
            value = _pw_block(a, s, m)
            top -= 1
        else:
            h = m // 2
            h -= h % 8
            if stage[top] == 0:                 # descend into the left half
                stage[top] = 1
                top += 1
                starts[top], sizes[top], stage[top] = s, h, 0
                continue
            if stage[top] == 1:                 # left done: keep it, descend into the right half
                left[top] = value
                stage[top] = 2
                top += 1
                starts[top], sizes[top], stage[top] = s + h, m - h, 0
                continue
            value = left[top] + value           # both halves done
            top -= 1
    return value


# ---------------------------------------------------------------------------------------
# shared pieces
# ---------------------------------------------------------------------------------------
@jit
def _weighted_mean(w, z, N, out):
    """sum_k (w_k / sum_j w_j) z_k for non-negative weights w (N,); ``out`` (may be ``w``
    itself) receives the terms. Pairwise sums, as NumPy's ``sum``."""
    s = _pwsum(w, N)
    for k in range(N):
        out[k] = w[k] / s * z[k]
    return _pwsum(out, N)


@jit
def _softmax_mean(e, z, N):
    """sum_k p_k z_k with p = softmax(e) (the largest e_k shifted out before exp); e (N,) holds
    the log-weights on entry and is overwritten. Pairwise sums, as NumPy's ``sum``."""
    m = -np.inf
    for k in range(N):
        if e[k] > m:
            m = e[k]
    for k in range(N):
        e[k] = math.exp(e[k] - m)
    return _weighted_mean(e, z, N, e)


@jit
def _truncate(z, A, B, clip, zb):
    """zb <- zbar = min(B, max(A, z)) (P000 eq. (28)) in NumPy's ``clip`` order (max with A, then min
    with B), or a copy of z when ``clip`` is false: the truncation ``run`` applies before its kernel."""
    for k in range(z.shape[0]):
        x = z[k]
        if clip:
            x = x if x > A else A
            x = x if x < B else B
        zb[k] = x


# Each rule below is two helpers -- ``_<rule>_forecast`` (yhat_t from the state after steps < t and
# zbar_t) and ``_<rule>_learn`` (the state update from zbar_t, y_t and yhat_t) -- called by the rule's
# whole-stream kernel ``<rule>_stream`` (``run``) and by its step kernels ``<rule>_step_forecast``
# (the truncation (28) of one z_t, then the forecast: ``predict_one``) and ``<rule>_step_learn``
# (``learn_one``). One code, so the step path gives ``run``'s numbers bit for bit. A step kernel
# reads and writes row 0 of the (1, N) state arrays of a single stream.

# ---------------------------------------------------------------------------------------
# fixed-eta EWA (P000 eq. (29); opera's ewa with the gradient trick, ref. A.2)
# ---------------------------------------------------------------------------------------
@jit
def _ewa_forecast(z, c, eta, N, e):
    """yhat = <softmax(eta c), z> (eq. (29): p ∝ exp(-eta L_{t-1}), ``eta`` is -eta there; gradient
    form: p ∝ exp(eta R_{t-1}))."""
    for k in range(N):
        e[k] = eta * c[k]
    return _softmax_mean(e, z, N)


@jit
def _ewa_learn(z, y, yhat, c, gradient, N):
    """L += (zbar - y)^2 (eq. (29)); gradient form R += 2 (yhat - y)(yhat - zbar) (ref. A.1)."""
    if gradient:
        g = 2.0 * (yhat - y)
        for k in range(N):
            c[k] += g * (yhat - z[k])                        # r_t (ref. A.1)
    else:
        for k in range(N):
            d = z[k] - y
            c[k] += d * d                                    # (zbar - y)^2, eq. (29)


@jit
def ewa_stream(Z, Y, cum, eta, gradient, out):
    """gradient=False: p ∝ exp(-eta L_{t-1}), L += (zbar - y)^2 (eq. 29; ``eta`` is -eta there);
    gradient=True: p ∝ exp(eta R_{t-1}), R += 2 (yhat - y)(yhat - zbar) (ref. A.2)."""
    T, R, N = Z.shape
    e = np.empty(N)
    for r in range(R):
        c = cum[r]
        for t in range(T):
            z = Z[t, r]
            yhat = _ewa_forecast(z, c, eta, N, e)
            out[t, r] = yhat
            _ewa_learn(z, Y[t, r], yhat, c, gradient, N)
    return out


@jit
def ewa_step_forecast(z, A, B, clip, zb, cum, eta):
    """One z_t: zb <- zbar_t (eq. (28)); returns yhat_t (:func:`ewa_stream`'s step)."""
    N = z.shape[0]
    _truncate(z, A, B, clip, zb)
    return _ewa_forecast(zb, cum[0], eta, N, np.empty(N))


@jit
def ewa_step_learn(zb, y, yhat, cum, gradient):
    """The update of :func:`ewa_stream`'s step from zbar_t, y_t and yhat_t."""
    _ewa_learn(zb, y, yhat, cum[0], gradient, zb.shape[0])


# ---------------------------------------------------------------------------------------
# Aggregating Algorithm (ref. B)
# ---------------------------------------------------------------------------------------
@jit
def _aa_forecast(z, c, eta, A, B, N, a):
    """gamma_t = (A+B)/2 + (lse_B - lse_A) / (2 eta (B-A)), clipped to [A, B] (ref. B)."""
    lse_B = 0.0
    lse_A = 0.0
    for j in range(2):
        edge = B if j == 0 else A
        m = -np.inf
        for k in range(N):
            d = edge - z[k]
            a[k] = -eta * c[k] - eta * (d * d)
            if a[k] > m:
                m = a[k]
        for k in range(N):
            a[k] = math.exp(a[k] - m)
        if j == 0:
            lse_B = m + math.log(_pwsum(a, N))
        else:
            lse_A = m + math.log(_pwsum(a, N))
    gamma = 0.5 * (A + B) + (lse_B - lse_A) / (2.0 * eta * (B - A))
    return min(max(gamma, A), B)


@jit
def _aa_learn(z, y, c, N):
    """L_{t,k} = L_{t-1,k} + (y_t - zbar_{t,k})^2."""
    for k in range(N):
        d = y - z[k]
        c[k] += d * d


@jit
def aa_stream(Z, Y, cum, eta, A, B, out):
    """gamma_t = (A+B)/2 + (lse_B - lse_A) / (2 eta (B-A)), clipped to [A, B]; L += (y - zbar)^2."""
    T, R, N = Z.shape
    a = np.empty(N)
    for r in range(R):
        c = cum[r]
        for t in range(T):
            z = Z[t, r]
            out[t, r] = _aa_forecast(z, c, eta, A, B, N, a)
            _aa_learn(z, Y[t, r], c, N)
    return out


@jit
def aa_step_forecast(z, A, B, zb, cum, eta):
    """One z_t: zb <- zbar_t (eq. (28), always: the AA needs [A, B]); returns gamma_t."""
    N = z.shape[0]
    _truncate(z, A, B, True, zb)
    return _aa_forecast(zb, cum[0], eta, A, B, N, np.empty(N))


@jit
def aa_step_learn(zb, y, cum):
    """The update of :func:`aa_stream`'s step."""
    _aa_learn(zb, y, cum[0], zb.shape[0])


# ---------------------------------------------------------------------------------------
# opera's second-order rules (gradient trick, ref. A.1)
# ---------------------------------------------------------------------------------------
@jit
def _mlpoly_forecast(z, G, et, N, buf):
    """ML-Poly (ref. A.4): p ∝ eta (R)_+, uniform if max R <= 0; returns <p, zbar>."""
    mx = -np.inf
    for k in range(N):
        if G[k] > mx:
            mx = G[k]
    if mx > 0:
        for k in range(N):
            buf[k] = et[k] * max(G[k], 0.0)
        return _weighted_mean(buf, z, N, buf)
    inv_n = 1.0 / N
    for k in range(N):
        buf[k] = inv_n * z[k]
    return _pwsum(buf, N)


@jit
def _mlpoly_learn(z, y, yhat, G, et, Bv, r, N, rr):
    """R += r_t; B_t = max(B_{t-1}, max_k r_{t,k}^2); eta <- 1/(1/eta + r^2 + B_t - B_{t-1}) (ref. A.4);
    B_{t-1} read from and B_t written to ``Bv[r]``."""
    B = Bv[r]
    g = 2.0 * (yhat - y)                                     # _loss_gradient
    mr = -np.inf
    for k in range(N):
        x = g * yhat - g * z[k]                              # r_{t,k}
        rr[k] = x
        G[k] += x
        if x * x > mr:
            mr = x * x
    newB = mr if mr > B else B
    for k in range(N):
        et[k] = 1.0 / (1.0 / et[k] + rr[k] * rr[k] + newB - B)
    Bv[r] = newB


@jit
def mlpoly_stream(Z, Y, Rg, eta, Bv, out):
    """ML-Poly (ref. A.4): p ∝ eta (R)_+ (uniform if max R <= 0); eta <- 1/(1/eta + r^2 + B' - B)."""
    T, R, N = Z.shape
    buf = np.empty(N)
    rr = np.empty(N)
    for r in range(R):
        G, et = Rg[r], eta[r]
        for t in range(T):
            z = Z[t, r]
            yhat = _mlpoly_forecast(z, G, et, N, buf)
            out[t, r] = yhat
            _mlpoly_learn(z, Y[t, r], yhat, G, et, Bv, r, N, rr)
    return out


@jit
def mlpoly_step_forecast(z, A, B, clip, zb, Rg, eta):
    """One z_t: zb <- zbar_t (eq. (28)); returns ML-Poly's yhat_t."""
    N = z.shape[0]
    _truncate(z, A, B, clip, zb)
    return _mlpoly_forecast(zb, Rg[0], eta[0], N, np.empty(N))


@jit
def mlpoly_step_learn(zb, y, yhat, Rg, eta, Bv):
    """The update of :func:`mlpoly_stream`'s step."""
    N = zb.shape[0]
    _mlpoly_learn(zb, y, yhat, Rg[0], eta[0], Bv, 0, N, np.empty(N))


@jit
def _mlprod_forecast(z, Rx, et, N, e):
    """ML-Prod (ref. A.5): p ∝ eta exp(R - max R); returns <p, zbar>."""
    m = -np.inf
    for k in range(N):
        if Rx[k] > m:
            m = Rx[k]
    for k in range(N):
        e[k] = et[k] * math.exp(Rx[k] - m)
    return _weighted_mean(e, z, N, e)


@jit
def _mlprod_learn(z, y, yhat, Rx, Lx, ml, et, logN, N):
    """L += r^2; maxloss = max(maxloss, |r|); eta' = min(1/(2 maxloss), sqrt(ln N / L));
    R <- eta'/eta R + ln(1 + eta' r) (ref. A.5)."""
    g = 2.0 * (yhat - y)
    for k in range(N):
        x = g * yhat - g * z[k]
        Lx[k] += x * x
        ml[k] = max(ml[k], abs(x))
        ne = min(1.0 / (2.0 * ml[k]), math.sqrt(logN / Lx[k]))
        Rx[k] = ne / et[k] * Rx[k] + math.log(1.0 + ne * x)
        et[k] = ne


@jit
def mlprod_stream(Z, Y, Rr, L, maxloss, eta, logN, out):
    """ML-Prod (ref. A.5): p ∝ eta exp(R - max R); eta' = min(1/(2 maxloss), sqrt(ln N / L));
    R <- eta'/eta R + ln(1 + eta' r)."""
    T, R, N = Z.shape
    e = np.empty(N)
    for r in range(R):
        Rx, Lx, ml, et = Rr[r], L[r], maxloss[r], eta[r]
        for t in range(T):
            z = Z[t, r]
            yhat = _mlprod_forecast(z, Rx, et, N, e)
            out[t, r] = yhat
            _mlprod_learn(z, Y[t, r], yhat, Rx, Lx, ml, et, logN, N)
    return out


@jit
def mlprod_step_forecast(z, A, B, clip, zb, Rr, eta):
    """One z_t: zb <- zbar_t (eq. (28)); returns ML-Prod's yhat_t."""
    N = z.shape[0]
    _truncate(z, A, B, clip, zb)
    return _mlprod_forecast(zb, Rr[0], eta[0], N, np.empty(N))


@jit
def mlprod_step_learn(zb, y, yhat, Rr, L, maxloss, eta, logN):
    """The update of :func:`mlprod_stream`'s step."""
    _mlprod_learn(zb, y, yhat, Rr[0], L[0], maxloss[0], eta[0], logN, zb.shape[0])


@jit
def _boa120_forecast(z, Rg, et, log_w0, N, e):
    """BOA v120 (ref. A.6a): p ∝ w0 eta exp(eta Rreg); returns <p, zbar>."""
    for k in range(N):
        e[k] = math.log(et[k]) + log_w0 + et[k] * Rg[k]
    return _softmax_mean(e, z, N)


@jit
def _boa120_learn(z, y, yhat, Rg, et, Vx, Bm, log_inv_w0, N):
    """B2 = 2^ceil(log2 Bmax); V += r^2; eta = min(1/B2, sqrt(ln(1/w0) / V));
    Rreg += (r - eta r^2 + B2 1[eta r > 1/2]) / 2 (ref. A.6a)."""
    g = 2.0 * (yhat - y)
    for k in range(N):
        x = g * yhat - g * z[k]
        x2 = x * x
        Bm[k] = max(Bm[k], abs(x))
        B2 = 2.0 ** math.ceil(math.log2(Bm[k]))
        Vx[k] += x2
        ek = min(1.0 / B2, math.sqrt(log_inv_w0 / Vx[k]))
        et[k] = ek
        Rg[k] += 0.5 * (x - ek * x2 + B2 * (1.0 if ek * x > 0.5 else 0.0))


@jit
def boa120_stream(Z, Y, Rreg, eta, V, Bmax, log_w0, log_inv_w0, out):
    """BOA, opera 1.2.0 (ref. A.6a): p ∝ w0 eta exp(eta Rreg); B2 = 2^ceil(log2 Bmax);
    eta = min(1/B2, sqrt(ln(1/w0) / V)); Rreg += (r - eta r^2 + B2 1[eta r > 1/2]) / 2."""
    T, R, N = Z.shape
    e = np.empty(N)
    for r in range(R):
        Rg, et, Vx, Bm = Rreg[r], eta[r], V[r], Bmax[r]
        for t in range(T):
            z = Z[t, r]
            yhat = _boa120_forecast(z, Rg, et, log_w0, N, e)
            out[t, r] = yhat
            _boa120_learn(z, Y[t, r], yhat, Rg, et, Vx, Bm, log_inv_w0, N)
    return out


@jit
def boa120_step_forecast(z, A, B, clip, zb, Rreg, eta, log_w0):
    """One z_t: zb <- zbar_t (eq. (28)); returns BOA v120's yhat_t."""
    N = z.shape[0]
    _truncate(z, A, B, clip, zb)
    return _boa120_forecast(zb, Rreg[0], eta[0], log_w0, N, np.empty(N))


@jit
def boa120_step_learn(zb, y, yhat, Rreg, eta, V, Bmax, log_inv_w0):
    """The update of :func:`boa120_stream`'s step."""
    _boa120_learn(zb, y, yhat, Rreg[0], eta[0], V[0], Bmax[0], log_inv_w0, zb.shape[0])


@jit
def _boa122_forecast(z, Rg, Sx, w0, log_w0, N, e, w):
    """BOA v122 (ref. A.6b): experts with S = 0 keep w0, the others share their mass in proportion
    to S^{-1/2} exp(Rreg / sqrt(S)); returns <p, zbar>."""
    m = -np.inf
    cnt = 0
    for k in range(N):
        if Sx[k] > 0:
            cnt += 1
            e[k] = -0.5 * math.log(Sx[k]) + log_w0 + Rg[k] / math.sqrt(Sx[k])
            if e[k] > m:
                m = e[k]
    if not math.isfinite(m):
        m = 0.0
    for k in range(N):
        e[k] = math.exp(e[k] - m) if Sx[k] > 0 else 0.0
    se = _pwsum(e, N)
    mass = w0 * cnt
    den = se if se > 0 else 1.0
    for k in range(N):
        w[k] = mass * e[k] / den if Sx[k] > 0 else w0
    return _weighted_mean(w, z, N, e)


@jit
def _boa122_learn(z, y, yhat, Rg, Sx, rx, N):
    """S += 2.2 r^2; for S > 0: Rreg += r - r^2 / sqrt(S) (ref. A.6b)."""
    g = 2.0 * (yhat - y)
    for k in range(N):
        x = g * yhat - g * z[k]
        x2 = x * x
        Sx[k] += 2.2 * x2
        if Sx[k] > 0:
            rx[k] = x - x2 / math.sqrt(Sx[k])
        Rg[k] += rx[k]


@jit
def boa122_stream(Z, Y, Rreg, S, rreg, w0, log_w0, out):
    """BOA, opera 1.2.2 (ref. A.6b): experts with S = 0 keep w0, the others share their mass in
    proportion to S^{-1/2} exp(Rreg / sqrt(S)); S += 2.2 r^2; Rreg += r - r^2 / sqrt(S) (S > 0)."""
    T, R, N = Z.shape
    e = np.empty(N)
    w = np.empty(N)
    for r in range(R):
        Rg, Sx, rx = Rreg[r], S[r], rreg[r]
        for t in range(T):
            z = Z[t, r]
            yhat = _boa122_forecast(z, Rg, Sx, w0, log_w0, N, e, w)
            out[t, r] = yhat
            _boa122_learn(z, Y[t, r], yhat, Rg, Sx, rx, N)
    return out


@jit
def boa122_step_forecast(z, A, B, clip, zb, Rreg, S, w0, log_w0):
    """One z_t: zb <- zbar_t (eq. (28)); returns BOA v122's yhat_t."""
    N = z.shape[0]
    _truncate(z, A, B, clip, zb)
    return _boa122_forecast(zb, Rreg[0], S[0], w0, log_w0, N, np.empty(N), np.empty(N))


@jit
def boa122_step_learn(zb, y, yhat, Rreg, S, rreg):
    """The update of :func:`boa122_stream`'s step."""
    _boa122_learn(zb, y, yhat, Rreg[0], S[0], rreg[0], zb.shape[0])


# ---------------------------------------------------------------------------------------
# calibrated EWA (opera's ewaCalib, ref. A.2): the steps without a grid extension
# ---------------------------------------------------------------------------------------
# What ``calib_stream`` reports when it returns (step t = the step it stopped at); its caller,
# ``CalibratedEWA._run_compiled_loop``, reads them by these names (module constants: Numba
# compiles them in as literals).
CALIB_ALL_DONE = 0          # every step of the stream is complete (t = T)
CALIB_NEEDS_EXPLICIT = 1    # step t needs step (b): a member stored as the uniform one stops being
                            #   saturated and must be re-run explicitly; only (a) of step t was done,
                            #   and a second call repeats (a) with the same result
CALIB_NEEDS_EXTENSION = 2   # step t is done up to (d); its step (e) adds members (re-run from history)

#: Ties of the calibrated EWA's grid (step (d)): the members whose cumulative loss is within this
#: relative distance of the least are tied, and the one of smallest eta among them is followed.
#: Cumulative losses that differ in their last bits only (another BLAS kernel's rounding of the
#: expert forecasts: ~1e-16 relative per step, ~1e-12 after 10^4 steps) cannot change the choice;
#: members that differ by more than 1e-9 relative are not tied.
CALIB_TIE_RTOL = 1e-9


@jit
def calib_choose(CLrow, lo, hi, k_lo, CLU):
    """Step (d) for one repetition: the exponent k of the member to follow, among the active grid
    lo..hi (members k >= k_lo in ``CLrow[k - k_lo]``; those below k_lo stored as the uniform member,
    cumulative loss ``CLU``): the smallest k whose cumulative loss is <= cmin + CALIB_TIE_RTOL * cmin,
    cmin the least of the grid. ``CalibratedEWA._update`` computes the same for all repetitions."""
    G = CLrow.shape[0]
    virtual = lo < k_lo
    cmin = CLU if virtual else np.inf
    for g in range(G):
        if lo <= k_lo + g <= hi and CLrow[g] < cmin:
            cmin = CLrow[g]
    thr = cmin + CALIB_TIE_RTOL * cmin
    if virtual and CLU <= thr:
        return lo
    for g in range(G):
        if lo <= k_lo + g <= hi and CLrow[g] <= thr:
            return k_lo + g
    return lo       # not reached: the least member is within thr


@jit
def _calib_member(z, y, eta, Rrow, N, e):
    """One step of the fixed-eta gradient-trick EWA member with regret row ``Rrow`` (updated in
    place); returns its forecast (``CalibratedEWA._member_step`` for one member)."""
    for k in range(N):
        e[k] = eta * Rrow[k]
    p = _softmax_mean(e, z, N)
    err = p - y
    for k in range(N):
        Rrow[k] += 2.0 * err * (p - z[k])
    return p


@jit
def calib_rerun(Zh, Yh, Rg, CL, eta0, pow2):
    """Members with etas eta0 * pow2 re-run from scratch on the stored history (Rg, CL zeros)."""
    T, R, N = Zh.shape
    G = CL.shape[1]
    e = np.empty(N)
    for t in range(T):
        for r in range(R):
            for g in range(G):
                p = _calib_member(Zh[t, r], Yh[t, r], eta0[r] * pow2[g], Rg[r, g], N, e)
                err = p - Yh[t, r]
                CL[r, g] += err * err
    return CL


@jit
def calib_stream(Z, Y, t0, n_before, Rg, CL, RU, CLU, eta0, sat, lo, hi, best, k_lo, pow2, log_w0, out):
    """Steps t0, t0+1, ... of :meth:`CalibratedEWA._update` (a)-(e) while no member has to be
    re-run from the stored history.  Returns (t, outcome), outcome one of ``CALIB_ALL_DONE``,
    ``CALIB_NEEDS_EXPLICIT``, ``CALIB_NEEDS_EXTENSION`` (above); steps before t are complete.
    ``n_before``: steps learned before Z[0] (step ``n_before + t == 0`` sets eta0).
    Rg (R, G, N), CL (R, G) hold members k_lo .. k_lo + G - 1."""
    T, R, N = Z.shape
    G = CL.shape[1]
    k_hi = k_lo + G - 1
    e = np.empty(N)
    pred = np.empty(G)
    inv_n = 1.0 / N
    for t in range(t0, T):
        # (a) saturation exponent of the uniform member (state before the update)
        for r in range(R):
            e0 = eta0[r]
            am = -np.inf
            for k in range(N):
                if e0 * RU[r, k] > am:
                    am = e0 * RU[r, k]
            xm = 0.0
            for k in range(N):
                x = e0 * RU[r, k] - am
                if x < xm:
                    xm = x
            if xm < 0:
                kk = np.int64(math.floor(math.log2(2.0 ** -54 / -xm)))
                if kk - 4 < sat[r]:          # else min(sat, exact) = sat (exact in kk-4 .. kk+4)
                    for _ in range(4):
                        k_up = kk + 1 if math.exp(math.ldexp(xm, kk + 1)) == 1.0 else kk
                        k_new = k_up - 1 if math.exp(math.ldexp(xm, k_up)) != 1.0 else k_up
                        if k_new == kk:
                            break
                        kk = k_new
                    if kk < sat[r]:
                        sat[r] = kk
        # (b) a member below k_lo in some grid that stops being saturated: Python re-runs it
        for r in range(R):
            if lo[r] < k_lo and min(hi[r], k_lo - 1) > sat[r]:
                return t, CALIB_NEEDS_EXPLICIT
        first = n_before + t == 0
        for r in range(R):
            z = Z[t, r]
            y = Y[t, r]
            # (c) one step of every stored member ...
            for g in range(G):
                p = _calib_member(z, y, eta0[r] * pow2[g], Rg[r, g], N, e)
                pred[g] = p
                err = p - y
                CL[r, g] += err * err
            # ... and of the uniform member
            for k in range(N):
                e[k] = inv_n * z[k]
            pu = _pwsum(e, N)
            err = pu - y
            CLU[r] += err * err
            for k in range(N):
                RU[r, k] += 2.0 * err * (pu - z[k])
            if best[r] < k_lo:
                out[t, r] = pu
            else:
                out[t, r] = pred[min(max(best[r] - k_lo, 0), G - 1)]
            if first:      # t = 1: eta0 = 1 / mean_k |ln w0_k + r_{1,k}| (ref. A.2 step 4)
                for k in range(N):
                    e[k] = abs(log_w0[k] + Rg[r, 0, k])
                mm = _pwsum(e, N) / N
                eta0[r] = 1.0 / mm if mm > 0 else 1.0
            # (d) best member of the active grid (ties within CALIB_TIE_RTOL -> smallest eta)
            best[r] = calib_choose(CL[r], lo[r], hi[r], k_lo, CLU[r])
        # (e) grid extension at the extremities: new members -> Python re-runs them
        for r in range(R):
            new_hi = hi[r] + 3 if best[r] == hi[r] else hi[r]
            new_lo = lo[r] - 3 if best[r] == lo[r] else lo[r]
            if new_hi > k_hi or max(new_lo, sat[r] + 1) < k_lo:
                return t, CALIB_NEEDS_EXTENSION
        for r in range(R):
            up, down = best[r] == hi[r], best[r] == lo[r]
            if up:
                hi[r] += 3
            if down:
                lo[r] -= 3
    return T, CALIB_ALL_DONE
