"""The compiled Cholesky step of :class:`~omkl_core.ridge.OnlineRidge` (the ``"numba"`` engine of
:mod:`omkl_core.compiled`; issue 44).

``solver="cholesky"`` keeps [R_t | c_t] with R_t'R_t = A_t and R_t'c_t = b_t (paper 002, Algorithm 1
in square-root form) and spends a step in two library routines: the triangular solve
z = R_{t-1}^{-T} x_t (LAPACK ``dtrtrs``, what scipy's ``solve_triangular(trans="T")`` calls) and the
Givens update that appends the row (x_t', y_t) (scipy's ``qr_insert``: LAPACK ``dlartg`` and BLAS
``drot`` on the stacked matrix, its ``qr_row_insert``). For n ~ 5 the routines' own work is tiny and
the step's time is their Python-level wrappers. Here the same routines -- scipy's own copies, from
``scipy.linalg.cython_lapack`` / ``cython_blas``, the ones ``qr_insert`` calls and the LAPACK behind
``scipy.linalg.lapack`` -- are called from one compiled function per half-step, with the same
arguments on the same memory layout, so the numbers are the NumPy engine's bit for bit (tested:
``tests/test_theory_paper002.py``). A routine is passed by its address (an integer, from
:func:`routines`) and called through :func:`omkl_core.compiled.fortran_call`, so the compiled functions are cached on
disk like every other kernel and called at the cost of any other.
"""
from __future__ import annotations

import functools

import numpy as np

from ..compiled import address as _address
from ..compiled import fortran_call as _fortran_call
from ..compiled import jit

__all__ = ["routines", "forecast", "update"]

_U, _T, _N = ord("U"), ord("T"), ord("N")      # dtrtrs's uplo, trans, diag


@functools.lru_cache(maxsize=1)
def routines() -> tuple:
    """The addresses of scipy's Cython LAPACK / BLAS routines ``(dtrtrs, dlartg, drot)``."""
    from numba.extending import get_cython_function_address  # noqa: PLC0415  (lazy: Numba, the compiled engine's extra)
    return (get_cython_function_address("scipy.linalg.cython_lapack", "dtrtrs"),
            get_cython_function_address("scipy.linalg.cython_lapack", "dlartg"),
            get_cython_function_address("scipy.linalg.cython_blas", "drot"))


@jit
def forecast(Rc, x, z, dtrtrs):  # pragma: no cover  (compiled; tests call it through the engine)
    """z <- R_{t-1}^{-T} x_t for Rc = [R | c] (n, n + 1), Fortran-ordered (R's leading dimension n):
    ``dtrtrs("U", "T", "N", n, 1, R, n, z, n, info)``, the call ``solve_triangular(R, x, trans="T")``
    makes. Returns LAPACK's ``info`` (0, or i > 0: R_ii = 0)."""
    n = x.shape[0]
    for i in range(n):
        z[i] = x[i]
    chars = np.empty(3, np.uint8)
    chars[0], chars[1], chars[2] = _U, _T, _N
    ints = np.empty(3, np.int32)
    ints[0], ints[1], ints[2] = n, 1, 0                  # n (= lda = ldb), nrhs, info
    c, k = _address(chars), _address(ints)             # (uplo, trans, diag), (n, nrhs, info)
    _fortran_call(dtrtrs, (c, c + 1, c + 2, k, k + 4, _address(Rc), k, _address(z), k, k + 8))
    return ints[2]


@jit
def update(Rc, x, y, b, out, dlartg, drot):  # pragma: no cover  (compiled; tests call it through the engine)
    """out <- [R_t | c_t] and b += y_t x_t from Rc = [R_{t-1} | c_{t-1}] (n, n + 1) and the row (x_t', y_t):
    scipy's ``qr_insert(I, Rc, (x', y), n, which="row")`` on the stacked (n + 1, n + 1) Fortran-ordered
    matrix (``qr_row_insert``: for j < n, ``dlartg`` on (R_jj, u_j) -- R_jj <- r, u_j <- 0 -- then
    ``drot`` of the rest of row j and of u, stride n + 1), its first n rows copied to ``out``;
    b_t = b_{t-1} + y_t x_t as NumPy's ``b += y * x``."""
    n = x.shape[0]
    m = n + 1
    S = np.empty((m, m)).T                               # Fortran-ordered, as qr_insert allocates it
    for j in range(m):
        for i in range(n):
            S[i, j] = Rc[i, j]
    for j in range(n):
        S[n, j] = x[j]
    S[n, n] = y                                          # the appended row (x_t', y_t)
    cs = np.empty(3)                                     # c, s, r of a rotation
    ints = np.empty(2, np.int32)
    ints[1] = m                                          # the stride of a row of S
    c, k = _address(cs), _address(ints)                  # (c, s, r), (length, stride)
    for j in range(n):
        _fortran_call(dlartg, (_address(S[j:, j:]), _address(S[n:, j:]), c, c + 8, c + 16))
        S[j, j] = cs[2]
        S[n, j] = 0.0
        ints[0] = n - j
        _fortran_call(drot, (k, _address(S[j:, j + 1:]), k + 4, _address(S[n:, j + 1:]), k + 4, c, c + 8))
    for j in range(m):
        for i in range(n):
            out[i, j] = S[i, j]
    for i in range(n):
        b[i] += y * x[i]                                 # b_t = b_{t-1} + y_t x_t
