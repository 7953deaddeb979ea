"""The compiled Sherman-Morrison kernels of the VAW expert layer (paper 000 eqs. (9)-(10)).

The same recursion as :mod:`omkl_core.sherman_morrison` (the NumPy reference the tests hold
these to), compiled with Numba (engine ``"numba"``, :mod:`omkl_core.compiled`):

* :func:`sm_run` -- a whole block of steps for B experts (``VAWExperts(method="sm").run``, and
  ``aggregation.VAWMeta.run`` on z_t as features);
* :func:`sm_step_forecast` / :func:`sm_step_learn` -- one step, split at the forecast (the
  ``predict_one`` / ``learn_one`` path), with the numbers of :func:`sm_run` bit for bit;
* :func:`blocked_run` -- the same recursion k steps at a time (the Woodbury identity), its
  products in BLAS-3 (``VAWExperts(method="blocked").run``, issue 54);
* :func:`aligned_rows` -- the cache-line-aligned workspace they run in.
"""
from __future__ import annotations

import functools

import numpy as np

from .. import compiled as _compiled
from .. import cosine as _cosine
from ..compiled import address, fortran_call

__all__ = ["blocked_run", "blas_routines", "BLAS_LIBRARIES", "sm_run", "sm_step_forecast", "sm_step_learn", "aligned_rows", "ROW_ALIGN"]


#: Row stride (in float64) of the compiled per-step kernel's workspace is a multiple of this: 8
#: doubles = 64 bytes, one cache line, so that every row of the lower triangle starts aligned.
ROW_ALIGN = 8


def aligned_rows(rows: int, cols: int) -> np.ndarray:
    """A C-contiguous float64 array (rows, cols') with cols' = cols rounded up to a multiple of
    :data:`ROW_ALIGN` and its first element on a 64-byte boundary: every row starts on a cache
    line (the compiled kernel's vector loads and stores then never split a line)."""
    cp = -(-cols // ROW_ALIGN) * ROW_ALIGN
    buf = np.empty(rows * cp + ROW_ALIGN)
    off = (-buf.ctypes.data % 64) // 8
    return buf[off:off + rows * cp].reshape(rows, cp)


def sm_run(F, y, P, w, Zv, Zr) -> None:
    """The compiled per-step Sherman-Morrison recursion (paper 000 eqs. (9)-(10)) over a whole
    block of steps, for B experts with their own features: F (B, T, m), y (T,); P (B, m, m) =
    S^{-1} and w (B, m) read and written in place (P written exactly symmetric); Zv / Zr (B, T)
    receive the VAW / online-ridge forecasts. Allocates the aligned workspace of
    :func:`_sm_kernel` and runs it (engine "numba" only)."""
    m = F.shape[2]
    _sm_kernel(F, y, P, w, Zv, Zr, aligned_rows(m + 5, m))


@_compiled.jit(reassociate=True)
def _sm_pass(W, v, phi, un, m):  # pragma: no cover  (compiled; tests call it through the engine)
    """One pass over the lower triangle of S^{-1} (rows 0..m-1 of ``W``, row j holding columns
    0..j): P -= v v^T (paper 000 eq. (10) with v = S_{t-1}^{-1} Phi_t / sqrt(1 + s)) and, with the
    updated P, un = P phi, where P is the symmetric matrix whose lower triangle W holds.

    Each stored element P_ji (i < j) is read and written once and used twice: for (P phi)_i
    (P_ij = P_ji, an axpy over the row) and for (P phi)_j (a dot product over the row); the
    diagonal once. So the pass does m(m + 1)/2 updates and m^2 multiply-adds for the product,
    3 m^2 / 2 multiply-adds in all (the full matrix would take 2 m^2) over half the memory. Four
    rows per pass over v and phi; the 4 x 4 lower corner of each group of rows is written out.
    Compiled with ``reassociate=True``: the row dot products are summed in SIMD lanes. With v = 0
    it is the product alone (P unchanged: P - 0 = P exactly), from this same code, so a run split
    in two gives the numbers of the whole run."""
    for i in range(m):
        un[i] = 0.0
    j = 0
    while j + 4 <= m:
        R0 = W[j]
        R1 = W[j + 1]
        R2 = W[j + 2]
        R3 = W[j + 3]
        v0 = v[j]
        v1 = v[j + 1]
        v2 = v[j + 2]
        v3 = v[j + 3]
        p0 = phi[j]
        p1 = phi[j + 1]
        p2 = phi[j + 2]
        p3 = phi[j + 3]
        a0 = 0.0
        a1 = 0.0
        a2 = 0.0
        a3 = 0.0
        for i in range(j):                                # columns left of the group's corner
            vi = v[i]
            fi = phi[i]
            x0 = R0[i] - v0 * vi
            x1 = R1[i] - v1 * vi
            x2 = R2[i] - v2 * vi
            x3 = R3[i] - v3 * vi
            R0[i] = x0
            R1[i] = x1
            R2[i] = x2
            R3[i] = x3
            un[i] += (x0 * p0 + x1 * p1) + (x2 * p2 + x3 * p3)     # (P phi)_i, P_ij = P_ji
            a0 += x0 * fi                                 # (P phi)_j, row j's dot product
            a1 += x1 * fi
            a2 += x2 * fi
            a3 += x3 * fi
        c00 = R0[j] - v0 * v0                             # the 4 x 4 corner, lower triangle
        c10 = R1[j] - v1 * v0
        c11 = R1[j + 1] - v1 * v1
        c20 = R2[j] - v2 * v0
        c21 = R2[j + 1] - v2 * v1
        c22 = R2[j + 2] - v2 * v2
        c30 = R3[j] - v3 * v0
        c31 = R3[j + 1] - v3 * v1
        c32 = R3[j + 2] - v3 * v2
        c33 = R3[j + 3] - v3 * v3
        R0[j] = c00
        R1[j] = c10
        R1[j + 1] = c11
        R2[j] = c20
        R2[j + 1] = c21
        R2[j + 2] = c22
        R3[j] = c30
        R3[j + 1] = c31
        R3[j + 2] = c32
        R3[j + 3] = c33
        un[j] += a0 + ((c00 * p0 + c10 * p1) + (c20 * p2 + c30 * p3))
        un[j + 1] += a1 + ((c10 * p0 + c11 * p1) + (c21 * p2 + c31 * p3))
        un[j + 2] += a2 + ((c20 * p0 + c21 * p1) + (c22 * p2 + c32 * p3))
        un[j + 3] += a3 + ((c30 * p0 + c31 * p1) + (c32 * p2 + c33 * p3))
        j += 4
    while j < m:                                          # the last m mod 4 rows, one at a time
        Rj = W[j]
        vj = v[j]
        pj = phi[j]
        a = 0.0
        for i in range(j):
            x = Rj[i] - vj * v[i]
            Rj[i] = x
            un[i] += x * pj
            a += x * phi[i]
        x = Rj[j] - vj * vj
        Rj[j] = x
        un[j] += a + x * pj
        j += 1


@_compiled.jit(reassociate=True)
def _sm_kernel(F, y, P, w, Zv, Zr, W):  # pragma: no cover  (compiled; tests call it through the engine)
    """Compiled per-step Sherman-Morrison (paper 000 eqs. (9)-(10)), one expert at a time.

    F (B, T, m) features, y (T,), P (B, m, m) = S^{-1} and w (B, m) updated in place, Zv / Zr
    (B, T) receive the VAW / ridge predictions; W is the workspace of :func:`sm_run` ((m + 5)
    rows from :func:`aligned_rows`). Per expert, the lower triangle of S^{-1} is copied into the
    first m rows of W (cache-line-aligned rows: 40 kB at m = 100, in L1 cache for the whole run of
    one expert) and written back to both triangles at the end, so P stays exactly symmetric. Per
    step: r = <w, Phi_t>, s = Phi_t^T u with u = P Phi_t, VAW r / (1 + s) (eq. 9),
    w += u (y_t - r) / (1 + s) and the symmetric rank-1 update P -= v v^T with v = u / sqrt(1 + s)
    (eq. 10), fused with the next step's u = P Phi_{t+1} in one pass (:func:`_sm_pass`).
    """
    B, T, m = F.shape
    u = W[m]
    un = W[m + 1]
    v = W[m + 2]
    wv = W[m + 3]
    phin = W[m + 4]                                       # Phi_{t+1}, copied onto an aligned row
    for b in range(B):
        Pb = P[b]
        for j in range(m):                                # lower triangle of S^{-1} -> W
            Rj = W[j]
            Pj = Pb[j]
            for i in range(j + 1):
                Rj[i] = Pj[i]
        for i in range(m):
            wv[i] = w[b, i]
            v[i] = 0.0
            phin[i] = F[b, 0, i]
        for t in range(-1, T):
            if t >= 0:
                u, un = un, u                             # u = S_{t-1}^{-1} Phi_t from the last pass
                r = 0.0                                   # ridge forecast <w, Phi_t>
                s = 0.0
                for i in range(m):                        # phin holds Phi_t until it is overwritten below
                    r += wv[i] * phin[i]
                    s += phin[i] * u[i]
                inv = 1.0 / (1.0 + s)
                Zr[b, t] = r
                Zv[b, t] = r * inv                        # eq. (9): r / (1 + s)
                c = np.sqrt(inv)
                e = (y[t] - r) * inv
                for i in range(m):
                    v[i] = u[i] * c
                    wv[i] += u[i] * e                     # w += S_t^{-1} Phi_t (y_t - r)
                if t + 1 < T:
                    for i in range(m):
                        phin[i] = F[b, t + 1, i]
            # t = -1: v = 0, the product u = P Phi_1 alone; else eq. (10) fused with u = P Phi_{t+1}
            _sm_pass(W, v, phin, un, m)
        for j in range(m):                                # W -> both triangles of S^{-1}
            Rj = W[j]
            for i in range(j + 1):
                x = Rj[i]
                Pb[j, i] = x
                Pb[i, j] = x
        for i in range(m):
            w[b, i] = wv[i]


def sm_step_forecast(phi, P, w, V, pending: bool, U, RS, mirror: bool = False, work=None) -> None:
    """The compiled step of ``predict_one`` (paper 000 eqs. (9)-(10)), for B experts: phi (B, m) the
    features of step t, P (B, m, m) whose lower triangle holds S^{-1} before the pending update,
    w (B, m). With ``pending``, first the previous step's update P -= v v^T (eq. (10), v = V (B, m)
    from :func:`sm_step_learn`), fused, as in :func:`sm_run`, with the product u = S_{t-1}^{-1} Phi_t
    (one pass over the lower triangle, :func:`_sm_pass`); then r = <w, Phi_t> and s = Phi_t^T u.
    U (B, m) <- u, RS (B, 2) <- (r, s). Only the lower triangle of P is written (``mirror``: the
    upper one too; ``work``: an :func:`aligned_rows` (3, m) workspace to reuse). The same
    arithmetic in the same order as :func:`sm_run`, so ``predict_one``
    then ``learn_one`` give ``run``'s numbers bit for bit, with one pass over S^{-1} per step."""
    m = phi.shape[1]
    if work is None or work.shape[0] < 3 or work.shape[1] < m:
        work = aligned_rows(3, m)                        # ``work``: the caller's, reused step after step
    sm_forecast_kernel(phi, P, w, V, pending, U, RS, work, mirror)


def sm_step_learn(U, RS, y, w, V) -> None:
    """The compiled step of ``learn_one``: from the forecast's u = U, (r, s) = RS and the label y_t,
    w += u (y_t - r) / (1 + s) (the RLS step) and V <- v = u / sqrt(1 + s), the rank-1 factor of
    eq. (10) that the next :func:`sm_step_forecast` (or a flush) applies to S^{-1}."""
    _sm_learn_kernel(U, RS, float(y), w, V)


@_compiled.jit(reassociate=True)
def sm_forecast_kernel(phi, P, w, V, pending, U, RS, W, mirror):  # pragma: no cover  (compiled; tests call it through the engine)
    """The compiled :func:`sm_step_forecast`: per expert, the pass :func:`_sm_pass` on P's own rows
    (v = the pending factor, or 0), then the sums r and s of :func:`_sm_kernel`. Called from Python by
    :func:`sm_step_forecast`; a compiled caller calls it directly (``mkl.VAW2``'s step,
    :mod:`omkl_core.mkl._vaw2_step`)."""
    B, m = phi.shape
    v = W[0]
    phin = W[1]
    un = W[2]
    for b in range(B):
        Pb = P[b]
        wb = w[b]
        for i in range(m):
            v[i] = V[b, i] if pending else 0.0
            phin[i] = phi[b, i]
        _sm_pass(Pb, v, phin, un, m)                      # eq. (10) of step t-1, fused with u = P Phi_t
        r = 0.0                                           # ridge forecast <w, Phi_t>
        s = 0.0
        for i in range(m):
            r += wb[i] * phin[i]
            s += phin[i] * un[i]
        for i in range(m):
            U[b, i] = un[i]
        RS[b, 0] = r
        RS[b, 1] = s
        if mirror:
            for j in range(m):
                for i in range(j):
                    Pb[i, j] = Pb[j, i]


@_compiled.jit(reassociate=True)
def _sm_learn_kernel(U, RS, y, w, V):  # pragma: no cover  (compiled; tests call it through the engine)
    """The compiled :func:`sm_step_learn`: the statements of :func:`_sm_kernel`'s step."""
    B, m = U.shape
    for b in range(B):
        r = RS[b, 0]
        inv = 1.0 / (1.0 + RS[b, 1])
        cv = np.sqrt(inv)
        e = (y - r) * inv
        for i in range(m):
            V[b, i] = U[b, i] * cv
            w[b, i] += U[b, i] * e                        # w += S_t^{-1} Phi_t (y_t - r)


_L, _U, _N, _T = ord("L"), ord("U"), ord("N"), ord("T")


#: Whose BLAS :func:`blocked_run` calls: "auto" (oneMKL's where ``libmkl_rt`` loads, the ``omkl[fast]``
#: extra; else scipy's OpenBLAS), "mkl" or "scipy".
BLAS_LIBRARIES = ("auto", "mkl", "scipy")


@functools.lru_cache(maxsize=4)
def blas_routines(library: str = "auto") -> tuple:
    """``(name, (dsymm, dgemm, dsyrk))``: the library and the addresses of the Fortran BLAS routines
    :func:`blocked_run` calls -- oneMKL's (:func:`omkl_core.cosine.mkl_blas`) for ``"mkl"`` and for
    ``"auto"`` where it loads, else scipy's Cython BLAS (OpenBLAS, the BLAS Numba's own ``np.dot``
    calls). Measured (issue 54; one thread, 76 experts x 1503 steps, k = 32, CPU seconds, per-step
    ``sm_run`` / blocked on OpenBLAS / blocked on oneMKL): m = 200: 0.47 / 0.43 / 0.32;
    m = 400: 1.69 / 1.37 / 1.06."""
    if library not in BLAS_LIBRARIES:
        raise ValueError(f"library must be one of {', '.join(BLAS_LIBRARIES)}, got {library!r}")
    if library != "scipy":
        mkl = _cosine.mkl_blas()
        if mkl is not None:
            return "mkl", mkl
        if library == "mkl":
            raise ImportError("library='mkl': oneMKL's libmkl_rt does not load (pip install 'omkl[fast]')")
    from numba.extending import get_cython_function_address  # noqa: PLC0415  (lazy: Numba, the compiled engine's extra)
    return "scipy", tuple(get_cython_function_address("scipy.linalg.cython_blas", name)
                          for name in ("dsymm", "dgemm", "dsyrk"))


def blocked_run(F, y, P, w, Zv, Zr, block_size: int, library: str = "auto") -> None:
    """The compiled blocked recursion (paper 000 eqs. (9)-(10), ``block_size`` steps at a time by the
    Woodbury identity) for B experts with their own features: F (B, T, m) C-contiguous, y (T,);
    P (B, m, m) = S^{-1} (read in full, exactly symmetric; written exactly symmetric) and w (B, m)
    updated in place; Zv / Zr (B, T) receive the VAW / online-ridge forecasts, equal to those of
    :func:`sm_run` to rounding. ``library``: whose BLAS (:func:`blas_routines`). See
    :func:`_blocked_kernel` (engine "numba" only)."""
    m = F.shape[2]
    K = max(1, min(int(block_size), F.shape[1]))
    dsymm, dgemm, dsyrk = blas_routines(library)[1]
    # the BLAS arguments live in arrays the caller holds for the whole call (an array created inside
    # the compiled function may be freed after its last use there, i.e. before the BLAS call reads it,
    # and BLAS's own workspace may then reuse its memory)
    chars = np.array([_L, _U, _N, _T], dtype=np.uint8)
    ints = np.array([m, 0, K], dtype=np.int32)
    scalars = np.array([1.0, 0.0, -1.0])
    _blocked_kernel(F, y, P, w, Zv, Zr, K, dsymm, dgemm, dsyrk, chars, ints, scalars, np.empty((K, m)),
                    np.empty((K, m)), np.empty((K, K)), np.empty((K, K)), np.empty(K), np.empty(K))


@_compiled.jit(reassociate=True)
def _blocked_kernel(F, y, P, w, Zv, Zr, K, dsymm, dgemm, dsyrk, chars, ints, dbl,  # pragma: no cover  (compiled)
                    G, V, L, Li, g, r0):
    """Compiled blocked Sherman-Morrison: paper 000 eqs. (9)-(10) for k = ``K`` steps at a time, one
    expert after another, the products of a block in BLAS (oneMKL's or scipy's, by address).

    Per expert and block, with P0 = S_{t}^{-1} before the block, w0 its ridge weights and X the
    k x m features Phi_{t+1..t+k} (rows of F, read in place):

    * G = X P0 (``dsymm``: P0 from its lower triangle; 2 k m^2 flops) and r0 = X w0;
    * I + X P0 X^T = I + G X^T = L L^T (k x k Cholesky, lower triangle only). This is the
      sequential Sherman-Morrison of eq. (10) in k x k space (its LDL^T form): row j of L depends
      on Phi_{<=t+j} only, and 1 + s_{t+j} = L_jj^2 with s_{t+j} = Phi_{t+j}^T S_{t+j-1}^{-1} Phi_{t+j};
    * g = L^{-1} (y - r0) (forward substitution): the one-step ridge forecasts are
      r_{t+j} = r0_j + sum_{i<j} L_ji g_i (they use y_{<t+j} only), the VAW forecasts of eq. (9)
      r_{t+j} / L_jj^2 = r / (1 + s);
    * V = L^{-1} G (L^{-1} by forward substitution, k^3 / 3; V by ``dgemm``, 2 k^2 m) and the rank-k (Woodbury) update
      S_{t+k}^{-1} = P0 - G^T (I + X P0 X^T)^{-1} G = P0 - V^T V (``dsyrk`` on the lower triangle;
      k m^2 flops), w = w0 + V^T g.

    So a block costs 3 k m^2 + O(k^2 m) flops in BLAS-3 (against 4 k m^2 for k Sherman-Morrison
    steps on the full matrix). In BLAS (column-major) terms the C-ordered arrays are transposed: P's
    lower triangle is the column-major upper one ('U'), the row-major k x m arrays X, G are m x k.
    Only P's lower triangle is kept during an expert's run; both triangles are written at the end.
    """
    B, T, m = F.shape
    # chars = "LUNT", ints = (m, k, K: the leading dimension of L), dbl = (1, 0, -1): :func:`blocked_run`'s
    c, n, d = address(chars), address(ints), address(dbl)
    cL, cU, cN, cT = c, c + 1, c + 2, c + 3
    pm, pk, pK = n, n + 4, n + 8
    one, zero, mone = d, d + 8, d + 16
    aG, aL, aLi, aV = address(G), address(L), address(Li), address(V)
    for b in range(B):
        Pb = P[b]
        wb = w[b]
        aP = address(Pb)
        for start in range(0, T, K):
            k = min(K, T - start)
            ints[1] = k
            X = F[b, start:start + k]
            aX = address(X)
            for j in range(k):                            # r0 = X w0: the ridge forecasts without the block's labels
                a = 0.0
                for i in range(m):
                    a += X[j, i] * wb[i]
                r0[j] = a
            # G (k x m) = X P0, i.e. G^T = P0 X^T in column-major terms (P0 symmetric, its lower triangle)
            fortran_call(dsymm, (cL, cU, pm, pk, one, aP, pm, aX, pm, zero, aG, pm))
            # L <- X G^T = X P0 X^T (``dgemm``; k x k, symmetric), then I + X P0 X^T on the diagonal
            fortran_call(dgemm, (cT, cN, pk, pk, pm, one, aX, pm, aG, pm, zero, aL, pK))
            for j in range(k):
                L[j, j] += 1.0
            for j in range(k):                            # Cholesky I + X P0 X^T = L L^T: eq. (10) step by step
                for i in range(j + 1):
                    a = L[j, i]
                    for q in range(i):
                        a -= L[j, q] * L[i, q]
                    if i == j:
                        L[j, j] = np.sqrt(a)              # sqrt(1 + s_{t+j})
                    else:
                        L[j, i] = a / L[i, i]
            for j in range(k):                            # g = L^{-1} (y - r0) and the forecasts
                a = 0.0
                for i in range(j):
                    a += L[j, i] * g[i]
                r = r0[j] + a                             # ridge forecast <S_{t+j-1}^{-1} b_{t+j-1}, Phi_{t+j}>
                Zr[b, start + j] = r
                Zv[b, start + j] = r / (L[j, j] * L[j, j])     # eq. (9): r / (1 + s)
                g[j] = (y[start + j] - r) / L[j, j]
            for j in range(k):                            # Li <- L^{-1} (lower; zeros above the diagonal), row by row:
                for i in range(k):                        # Li_j,<j = -(sum_{q<j} L_jq Li_q,<j) / L_jj
                    Li[j, i] = 0.0
                for q in range(j):
                    a = L[j, q]
                    for i in range(q + 1):
                        Li[j, i] += a * Li[q, i]
                d = 1.0 / L[j, j]
                for i in range(j):
                    Li[j, i] = -Li[j, i] * d
                Li[j, j] = d
            # V = L^{-1} G (``dgemm``, k x k by k x m; column-major: V^T = G^T L^{-T})
            fortran_call(dgemm, (cN, cN, pm, pk, pk, one, aG, pm, aLi, pK, zero, aV, pm))
            for j in range(k):                            # w = w0 + V^T g
                gj = g[j]
                for i in range(m):
                    wb[i] += V[j, i] * gj
            # P = P0 - V^T V (the Woodbury identity, eq. (10) for k steps): lower triangle only
            fortran_call(dsyrk, (cU, cN, pm, pk, mone, aV, pm, one, aP, pm))
        for j in range(m):                                # lower triangle -> upper: P exactly symmetric
            for i in range(j):
                Pb[i, j] = Pb[j, i]
