"""The cosine of the random-feature map: NumPy's, or a vectorised one from a well-kept library.

The cos feature map of paper 000 (section 2, sqrt(2) cos(<omega, x> + b)) evaluates T N m
cosines per run; on the host they are half of VAW2's time at m = 100. NumPy's ``np.cos`` is
always available; a vectorised cosine from an installed library replaces it when it agrees
with ``np.cos`` to :data:`MAX_ULP` units in the last place (``benchmarks/bench_cosine.py``
measures each library's speed and its largest difference from ``np.cos`` on the run's own
arguments and on a wide sweep; ``tests/test_features.py`` checks the agreement). No cosine is
written here: each library below computes it.

``"mkl"``
    Intel oneMKL's vector math ``vmdCos`` in its high-accuracy mode (``VML_HA``), from the ``mkl``
    package's ``libmkl_rt`` (the ``omkl[fast]`` extra), called through :mod:`ctypes`. Its result for
    an element does not depend on the length or the layout of the array it is computed in (a
    test checks it), so features computed step by step, block by block or in one call agree bit
    for bit.
``"mkl_umath"``
    Intel's ``mkl_umath.cos`` ufunc (the same MKL routine for long contiguous arrays, NumPy's loop
    for short or strided ones: an element's result then depends on the call it is in, so
    ``"auto"`` does not take it; measured only).
``"numexpr"``
    ``numexpr.evaluate("cos(x)")``.
``"numba"``
    Numba's compiled ``np.cos`` in a loop (the C library's ``cos`` unless Numba links SVML).
``"numpy"``
    ``np.cos`` (the reference).

Which one runs, first to last (the library's one switch, :class:`omkl_core.settings.Setting`):
:func:`using` (a context manager), :func:`set_library`, the environment variable ``OMKL_COS`` (a
name above, or ``auto``), ``"auto"``: the first importable
library of :data:`PREFERENCE` (the order of speed measured by ``benchmarks/bench_cosine.py``,
recorded in ``benchmarks/results/cosine.md``). The library is read at every call, so a learner
computes its features with the library in force when it runs. Results differ between libraries
by at most :data:`MAX_ULP` ulp per cosine; the same library gives the same numbers every run.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
import sys

import numpy as np

from . import compiled as _compiled
from . import threads as _threads
from .settings import Setting

__all__ = ["LIBRARIES", "PREFERENCE", "MAX_ULP", "VML_HA", "available", "library", "set_library", "using", "cos",
           "mkl_blas", "cos_function", "mkl_cos", "vml_call", "mkl_sincos", "mkl_exp"]

#: Every name :func:`set_library` / ``OMKL_COS`` accepts.
LIBRARIES = ("auto", "numpy", "mkl", "mkl_umath", "numexpr", "numba")
#: ``"auto"`` takes the first of these that imports (fastest first, as measured on the run's arguments).
PREFERENCE = ("mkl", "numpy")
#: Largest difference from ``np.cos`` a library may have, in units in the last place of ``np.cos(x)``.
MAX_ULP = 2.0

_LIBRARY = Setting("library", LIBRARIES, "OMKL_COS")   # the one switch (omkl_core.settings)
_importable: dict = {}


def _imports(name: str) -> bool:
    if name not in _importable:
        if name == "numpy":
            _importable[name] = True
        elif name == "numba":
            _importable[name] = _compiled.numba_available()
        elif name == "mkl":
            _importable[name] = _mkl_vm() is not None
        else:
            try:
                __import__(name)
                _importable[name] = True
            except Exception:  # ImportError, or a build that does not load with this NumPy
                _importable[name] = False
    return _importable[name]


def available() -> list[str]:
    """The libraries that import here (``"numpy"`` always), in the order of :data:`LIBRARIES`."""
    return [n for n in LIBRARIES[1:] if _imports(n)]


def library() -> str:
    """The library :func:`cos` uses now (``"auto"`` resolved)."""
    name = _LIBRARY.requested()
    if name == "auto":
        for n in PREFERENCE:
            if _imports(n):
                return n
        return "numpy"                           # always importable (PREFERENCE ends with it)
    if not _imports(name):
        raise ImportError(f"cosine library {name!r} was requested (OMKL_COS or cosine.set_library) but it does "
                          "not import: pip install 'omkl[fast]', or use 'numpy'")
    return name


def set_library(name) -> None:
    """Set the cosine library for the rest of the process (``None``: back to ``OMKL_COS``)."""
    _LIBRARY.set(name)


def using(name: str):
    """``with cosine.using("numpy"): ...`` -- compute cosines with the given library in a block."""
    return _LIBRARY.using(name)


def _numpy_cos(x, out):
    return np.cos(x, out=out)


#: oneMKL's VML_HA mode: the high-accuracy versions of the vector math functions.
VML_HA = 0x2
_VML_HA = VML_HA
_vm = None
_sincos = None
_exp = None
_blas = None


def _mkl_vm():
    """oneMKL's ``vmdCos`` from the ``mkl`` package's ``libmkl_rt`` (None where it does not load)."""
    global _vm, _sincos, _exp, _blas
    if _vm is None:
        _vm = False
        names = sorted(glob.glob(os.path.join(sys.prefix, "lib", "libmkl_rt.so*"))) + \
            [ctypes.util.find_library("mkl_rt") or "libmkl_rt.so.2"]
        for name in names:
            try:
                lib = ctypes.CDLL(name)
                fn = lib.vmdCos
            except (OSError, AttributeError):
                continue
            _threads.engine_loaded("mkl", lib)        # its OpenMP team starts at the library's count
            # void vmdCos(const MKL_INT n, const double a[], double r[], const MKL_INT64 mode)  (LP64)
            fn.restype = None
            fn.argtypes = [ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
            _vm = fn
            try:         # void vmdSinCos(const MKL_INT n, const double a[], double r1[], double r2[], const MKL_INT64 mode)
                sc = lib.vmdSinCos
                sc.restype = None
                sc.argtypes = [ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
                _sincos = sc
                ex = lib.vmdExp        # void vmdExp(const MKL_INT n, const double a[], double r[], const MKL_INT64 mode)
                ex.restype = None
                ex.argtypes = [ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
                _exp = ex
            except AttributeError:
                _sincos = _exp = None
            try:         # the Fortran BLAS routines (LP64) the compiled blocked VAW driver calls by address
                _blas = tuple(ctypes.cast(getattr(lib, name + "_"), ctypes.c_void_p).value
                              for name in ("dsymm", "dgemm", "dsyrk"))
            except AttributeError:
                _blas = None
            break
    return _vm or None


def mkl_cos() -> int:
    """The address of oneMKL's ``vmdCos(n, a, out, mode)`` when the library in force (:func:`library`)
    is ``"mkl"``, else 0: for a compiled kernel, which calls it by :func:`vml_call` (an address, not a
    :mod:`ctypes` function: Numba types a ctypes argument anew at every call, tens of µs). The cos
    feature map of paper 000 (section 2) inside a compiled step (``mkl.VAW2``'s ``predict_one``,
    :mod:`omkl_core.mkl._vaw2_step`): the very function :func:`cos` calls for that library, so the
    features are those of a run bit for bit."""
    global _cos_address
    if library() != "mkl":
        return 0
    if _cos_address is None:
        _cos_address = ctypes.cast(_mkl_vm(), ctypes.c_void_p).value
    return _cos_address


_cos_address = None


@_compiled.lowered
def vml_call():
    """``vml_call(address, n, a, out)`` in compiled code: the oneMKL vector function at ``address``
    (``void f(MKL_INT n, const double a[], double out[], MKL_INT64 mode)``, e.g. :func:`mkl_cos`'s)
    on the n doubles at address ``a`` into ``out``, in :data:`VML_HA` mode (as :func:`cos` calls it)."""
    from llvmlite import ir  # noqa: PLC0415  (lazy: built on the first compile of a kernel naming it)
    from numba import types  # noqa: PLC0415
    from numba.extending import intrinsic  # noqa: PLC0415

    @intrinsic
    def _vml_call(typingctx, address, n, a, out):
        if not all(isinstance(t, types.Integer) for t in (address, n, a, out)):
            return None

        def codegen(context, builder, signature, args):
            ptr = ir.IntType(8).as_pointer()
            fnty = ir.FunctionType(ir.VoidType(), [ir.IntType(32), ptr, ptr, ir.IntType(64)])
            fn = builder.inttoptr(args[0], fnty.as_pointer())
            builder.call(fn, [builder.trunc(args[1], ir.IntType(32)), builder.inttoptr(args[2], ptr),
                              builder.inttoptr(args[3], ptr), ir.Constant(ir.IntType(64), VML_HA)])
            return context.get_dummy_value()

        return types.void(address, n, a, out), codegen

    return _vml_call


def mkl_blas():
    """The addresses of oneMKL's Fortran BLAS routines ``(dsymm, dgemm, dsyrk)`` (LP64, from the same
    ``libmkl_rt`` as ``vmdCos``, its threads set by :mod:`omkl_core.threads`) where that library loads,
    else None: the products of the compiled blocked VAW expert driver (:mod:`omkl_core.vaw.kernels`,
    issue 54), which at its shapes (k = 32 rows by m x m) run faster than OpenBLAS's."""
    _mkl_vm()
    return _blas


def mkl_sincos():
    """oneMKL's ``vmdSinCos(n, a, sin_out, cos_out, mode)`` as a :mod:`ctypes` function (for compiled
    kernels, which call it with :data:`VML_HA`) when the library in force (:func:`library`) is
    ``"mkl"``, else None: the sin/cos of the random-feature map of paper 003 (eq. 4) on the ``"numba"``
    engine (:mod:`omkl_core.mkl._kernels`), which otherwise calls the C library's ``sin`` and ``cos``
    (those of ``np.sin``, ``np.cos``). Like ``vmdCos``, within :data:`MAX_ULP` of NumPy's."""
    if library() != "mkl":
        return None
    _mkl_vm()
    return _sincos


def mkl_exp():
    """oneMKL's ``vmdExp(n, a, out, mode)`` as a :mod:`ctypes` function, under the same rule as
    :func:`mkl_sincos` (the library in force is ``"mkl"``, else None): the exact Gaussian kernels of
    OMKR on the ``"numba"`` engine (:mod:`omkl_core.mkl._kernels`), which otherwise calls the C
    library's ``exp`` (that of ``np.exp``)."""
    if library() != "mkl":
        return None
    _mkl_vm()
    return _exp


def _address(a) -> int:
    """The address of a C-contiguous float64 array's first element (``a.ctypes.data``; through a ctypes
    view of the buffer when the array is writable: a third of the cost, for one step's features)."""
    if a.flags.writeable and a.size:
        return ctypes.addressof(ctypes.c_double.from_buffer(a))
    return a.ctypes.data


def _mkl_cos(x, out):
    fn = _mkl_vm()
    if x.dtype == np.float64 and x.flags.c_contiguous and out.flags.c_contiguous and out.dtype == np.float64:
        size = x.size
        if size <= 1 << 30:                                     # one call (MKL_INT is 32 bits, LP64)
            dst = _address(out)
            fn(size, dst if x is out else _address(x), dst, _VML_HA)
            return out
        src, dst = x.reshape(-1), out.reshape(-1)
        for s in range(0, size, 1 << 30):
            n = min(1 << 30, size - s)
            fn(n, src[s:].ctypes.data, dst[s:].ctypes.data, _VML_HA)
        return out
    tmp = np.array(x, dtype=np.float64, order="C")           # a strided view: computed contiguous
    _mkl_cos(tmp, tmp)
    out[...] = tmp
    return out


def _mkl_umath_cos(x, out):
    import mkl_umath  # noqa: PLC0415  (lazy: an optional library, measured only)
    return mkl_umath.cos(x, out=out)


def _numexpr_cos(x, out):
    import numexpr  # noqa: PLC0415  (lazy: an optional library, measured only)
    return numexpr.evaluate("cos(x)", local_dict={"x": x}, out=out, casting="same_kind")


@_compiled.jit
def _numba_cos_loop(x, out):  # pragma: no cover  (compiled; tests call it through cos_function)
    for i in range(x.size):
        out[i] = np.cos(x[i])


def _numba_cos(x, out):
    if x.flags.c_contiguous and out.flags.c_contiguous and x.dtype == out.dtype == np.float64:
        _numba_cos_loop(x.reshape(-1), out.reshape(-1))
        return out
    return np.cos(x, out=out)


_FUNCTIONS = {"numpy": _numpy_cos, "mkl": _mkl_cos, "mkl_umath": _mkl_umath_cos, "numexpr": _numexpr_cos, "numba": _numba_cos}


def cos_function(name: str):
    """The function ``f(x, out) -> out`` (out[...] = cos(x), ``out`` may be ``x``) of library ``name``."""
    _LIBRARY.check(name)
    if name == "auto" or not _imports(name):
        name = library() if name == "auto" else name
        if not _imports(name):
            raise ImportError(f"cosine library {name!r} does not import here")
    return _FUNCTIONS[name]


def cos(x, out=None):
    """cos(x) into ``out`` (a new array when None; may be ``x`` itself) for a host float64 array,
    by :func:`library` (the reference: ``np.cos``)."""
    if out is None:
        out = np.empty_like(x, dtype=np.float64)
    return _FUNCTIONS[library()](x, out)
