"""Optional compiled per-step loops: Numba (the ``omkl[fast]`` extra), with NumPy as the fallback.

Some learners spend their time in a loop over time steps whose body is a few operations on
N = 76 numbers (the aggregators of paper 000) or on a batch of small matrices (the VAW
expert layer): there the cost is the interpreter, one NumPy call after another, not the
arithmetic. Such a learner may carry a second implementation of its whole-stream loop,
compiled with Numba. Which one runs is the *engine*:

``"numpy"``
    the NumPy loop (always available; the reference the compiled loop is tested against).
``"numba"``
    the compiled loop; an error if Numba is not installed.
``"auto"`` (default)
    ``"numba"`` when Numba imports, else ``"numpy"``.

The engine in force comes from, first to last: :func:`engine` (a context manager),
:func:`set_engine`, the environment variable ``OMKL_ENGINE`` (``numpy``, ``numba`` or
``auto``), ``"auto"``. Both engines compute the same numbers up to floating-point rounding
(the tests compare them).

Numba is imported only when a compiled loop is first needed (``import omkl_core`` never
imports it), and compiled functions are cached on disk (``cache=True``), so the compile
cost (about a second per loop) is paid once per machine.
"""
from __future__ import annotations

import functools
import types

import numpy as np

from .settings import Setting

__all__ = ["ENGINES", "numba_available", "get_engine", "set_engine", "engine", "use_numba", "jit", "lowered", "fortran_call", "address"]

ENGINES = ("auto", "numpy", "numba")
_ENGINE = Setting("engine", ENGINES, "OMKL_ENGINE")     # the one switch (omkl_core.settings)
_numba_ok: bool | None = None


def numba_available() -> bool:
    """Whether Numba imports (probed once)."""
    global _numba_ok
    if _numba_ok is None:
        try:
            import numba  # noqa: F401, PLC0415  (lazy: an optional extra)
            _numba_ok = True
        except Exception:  # ImportError, or a Numba that does not support this NumPy
            _numba_ok = False
    return _numba_ok


def get_engine() -> str:
    """The engine requested now: ``"auto"``, ``"numpy"`` or ``"numba"``."""
    return _ENGINE.requested()


def set_engine(name: str) -> None:
    """Set the engine for the rest of the process (``None`` -> back to ``OMKL_ENGINE``)."""
    _ENGINE.set(name)


def engine(name: str):
    """``with compiled.engine("numpy"): ...`` -- run a block with the given engine."""
    return _ENGINE.using(name)


def use_numba() -> bool:
    """Whether a learner should run its compiled loop now (resolves ``"auto"``)."""
    name = get_engine()
    if name == "numpy":
        return False
    if name == "numba" and not numba_available():
        raise ImportError("engine 'numba' was requested (OMKL_ENGINE or compiled.set_engine) but Numba is not "
                          "installed: pip install 'omkl[fast]', or use engine 'numpy'")
    return numba_available()


def jit(fn=None, *, reassociate: bool = False):
    """Decorator: compile ``fn`` with ``numba.njit(cache=True)`` on its first call.

    ``@jit(reassociate=True)``: the function may reorder sums and fuse a * b + c into one FMA
    (LLVM's ``reassoc`` and ``contract`` flags, nothing else: NaN and inf keep their meaning), so
    that a loop of dot products vectorises (its partial sums kept in SIMD lanes). Its results
    then differ from the strict left-to-right order by rounding, deterministically for a given
    machine (the same compiled code sums in the same order every call).

    The decorated function must only be called when :func:`use_numba` is true; the module
    that defines it does not import Numba.  A decorated function may call other decorated
    functions of its module (helpers): they are compiled first and seen by Numba as compiled
    functions (no recursion between them).  Floating-point errors follow NumPy
    (``error_model="numpy"``: ``1.0 / 0.0`` is ``inf``, as under ``np.errstate(divide="ignore")``).
    """
    if fn is None:
        return functools.partial(jit, reassociate=reassociate)
    compiled = None
    options = {"fastmath": {"reassoc", "contract"}} if reassociate else {}

    def build():
        import numba  # noqa: PLC0415  (lazy: an optional extra, loaded on the first compiled call)
        helpers = {name: obj._omkl_compile() for name in fn.__code__.co_names
                   if callable(getattr(obj := fn.__globals__.get(name), "_omkl_compile", None))}
        f = fn
        if helpers:      # the same code with the helpers' compiled versions as its globals
            f = types.FunctionType(fn.__code__, {**fn.__globals__, **helpers}, fn.__name__,
                                   fn.__defaults__, fn.__closure__)
            f.__qualname__, f.__module__ = fn.__qualname__, fn.__module__
        try:
            return numba.njit(cache=True, nogil=True, error_model="numpy", **options)(f)
        except RuntimeError:    # no place to cache (a function defined in a notebook or a string)
            return numba.njit(nogil=True, error_model="numpy", **options)(f)

    def _omkl_compile():
        nonlocal compiled
        if compiled is None:
            compiled = build()
        return compiled

    @functools.wraps(fn)
    def wrapper(*args):
        return (compiled or _omkl_compile())(*args)

    wrapper.py_func = fn
    wrapper._omkl_compile = _omkl_compile
    return wrapper


def lowered(build):
    """Decorator: a helper of compiled functions that Numba cannot compile from Python source (e.g. a
    ``numba.extending.intrinsic``), made by ``build()`` on the first compile of a :func:`jit` function
    that names it; ``build`` imports Numba itself, so the module that defines it does not. The
    decorated name is the helper inside compiled code; called from Python it raises."""
    @functools.wraps(build)
    def placeholder(*args):
        raise RuntimeError(f"{build.__name__} is a helper of compiled functions: it cannot be called from Python")

    placeholder._omkl_compile = functools.lru_cache(maxsize=None)(build)
    return placeholder


@lowered
def fortran_call():
    """``fortran_call(address, pointers)`` in compiled code: call the routine at ``address`` (an
    integer, e.g. a BLAS/LAPACK routine of ``scipy.linalg.cython_blas`` from Numba's
    ``get_cython_function_address``) with the arguments ``pointers`` (a tuple of addresses, as Fortran
    takes every argument); it returns nothing. Used by :mod:`omkl_core.ridge` (issue 44) and the
    blocked driver of :mod:`omkl_core.vaw.kernels` (issue 54)."""
    from llvmlite import ir  # noqa: PLC0415  (lazy: Numba's code generator)
    from numba.core import types as nbtypes  # noqa: PLC0415  (lazy: Numba)
    from numba.extending import intrinsic  # noqa: PLC0415  (lazy: Numba)

    @intrinsic
    def fortran_call(typingctx, address, pointers):
        if not (isinstance(address, nbtypes.Integer) and isinstance(pointers, nbtypes.UniTuple)
                and isinstance(pointers.dtype, nbtypes.Integer)):
            return None

        def codegen(context, builder, signature, args):
            void_p = ir.IntType(8).as_pointer()
            routine = builder.inttoptr(args[0], ir.FunctionType(ir.VoidType(), [void_p] * pointers.count).as_pointer())
            builder.call(routine, [builder.inttoptr(builder.extract_value(args[1], i), void_p)
                                   for i in range(pointers.count)])
            return context.get_dummy_value()

        return nbtypes.void(address, pointers), codegen

    return fortran_call


@jit
def address(a):  # pragma: no cover  (compiled)
    """In compiled code: the address of a's first element, as a signed integer (byte offsets added to
    it stay integers), for :func:`fortran_call`."""
    return np.int64(a.ctypes.data)
