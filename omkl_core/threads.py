"""The library's one thread setting: how many threads every engine it drives may use.

The engines: the BLAS NumPy was built with (OpenBLAS, MKL or BLIS; the GEMMs of the feature maps
and the ridge solves), oneMKL's vector math (``vmdCos``, the ``fast`` extra's cosine of
:mod:`omkl_core.cosine`, which runs on its own OpenMP team) and Numba's thread pool. Each has its
own knob and its own moment of loading; this module is the one setting in front of them.

Which count is in force, first to last (like :class:`omkl_core.settings.Setting`):

1. :func:`using` -- a context manager, for a block;
2. :func:`set` -- for the rest of the process (``None``: back to the environment);
3. the environment variable ``OMKL_THREADS`` (a positive integer, ``all`` = every core, or
   ``auto``), read at every call, so a child process sees its own;
4. the default ``auto``: **one thread**. Measured on the 2-core machine
   (``benchmarks/bench_threads.py``, ``benchmarks/results/threads.md``): a second thread makes
   VAW2 at m = 100 17 % faster for 71 % more CPU time (oneMKL's cosine), VAW2 at m = 400 and
   OMKR's compiled loop slower; a process pool of single-thread workers is how the reproduction
   and the sweep use every core.

Honoured whatever loads first:

* oneMKL's vector math, which only the library uses, is set at once by :func:`set` and
  :func:`using`;
* an engine the library loads later -- :mod:`omkl_core.cosine` opening ``libmkl_rt``, the compiled
  loops importing Numba -- is given the count as it loads (:func:`engine_loaded`);
* the library's runs (:func:`omkl_core.protocol.predict_learn`, so :func:`~omkl_core.run_online`,
  the wrappers, the CLI, the sweep's cells) run inside :func:`limited`: NumPy's BLAS, which the
  user's process loaded before ``omkl_core``, obeys the count for the run and is given back its own
  setting afterwards, so the user's other code keeps its threads;
* a worker process the library starts (the sweep's pool, the reproduction's notebooks) gets
  :func:`child_environment` (``OMKL_THREADS``, ``OMP_NUM_THREADS``, ``MKL_NUM_THREADS``,
  ``OPENBLAS_NUM_THREADS``, ``NUMBA_NUM_THREADS``) before any engine loads in it: N workers never
  start N teams of every core.

:func:`info` says what each engine has now.
"""
from __future__ import annotations

import contextlib
import os
import sys

__all__ = ["ENV", "requested", "set", "using", "limited", "engine_loaded", "child_environment", "info",
           "worker_environment"]

#: The environment variable of the setting.
ENV = "OMKL_THREADS"
#: The environment variables a child process's engines read when they load.
ENGINE_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "BLIS_NUM_THREADS",
                    "NUMBA_NUM_THREADS")

_override: int | None = None
_mkl = None            # libmkl_rt opened by omkl_core.cosine (ctypes.CDLL), once loaded
_controller = None     # threadpoolctl's ThreadpoolController, built once (enumerating libraries costs ~0.5 ms)


_capped: set = set()    # (what, value) already warned about


def _cap(n: int, what: str) -> int:
    """``n`` threads, at most the cores of this machine: more only queue on them (and a huge count
    overflows the engines' C int); a count above is capped, with one warning naming ``what``."""
    cores = os.cpu_count() or 1
    if n <= cores:
        return n
    if (what, n) not in _capped:
        _capped.add((what, n))
        import warnings  # noqa: PLC0415

        warnings.warn(f"{what}={n} is more threads than the {cores} cores of this machine: using {cores}",
                      UserWarning, stacklevel=3)
    return cores


def _parse(value, what: str) -> int:
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("", "auto"):
            return 1
        if text == "all":
            return os.cpu_count() or 1
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"{what} must be a positive integer, 'all' or 'auto', got {value!r}") from None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{what} must be a positive integer, 'all' or 'auto', got {value!r}")
    return _cap(value, what)


def requested() -> int:
    """The thread count in force now (see the module docstring for the order)."""
    if _override is not None:
        return _override
    return _parse(os.environ.get(ENV, "auto"), ENV)


def _apply_mkl(n: int) -> None:
    if _mkl is not None:
        try:
            _mkl.MKL_Set_Num_Threads(int(n))
        except AttributeError:  # pragma: no cover - an MKL without the C symbol
            pass


def _numba_pool():
    """``numba`` when its thread pool is running (the library's compiled loops are serial and never
    start it; setting a count would launch it, so a pool that is not running is left alone: it reads
    ``NUMBA_NUM_THREADS`` when it starts)."""
    numba = sys.modules.get("numba")
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    if numba is None or parallel is None or not getattr(parallel, "_is_initialized", False):
        return None
    return numba


def _apply_numba(n: int) -> int | None:
    """Set the running Numba pool to ``n`` threads; returns its previous count (None: no pool)."""
    numba = _numba_pool()
    if numba is None:
        return None
    try:
        old = numba.get_num_threads()
        numba.set_num_threads(min(int(n), numba.config.NUMBA_NUM_THREADS))
        return old
    except (AttributeError, ValueError, RuntimeError):  # pragma: no cover - an old Numba
        return None


def _blas():
    """threadpoolctl's controller of the BLAS / OpenMP libraries loaded now (None without threadpoolctl)."""
    global _controller
    if _controller is None:
        try:
            from threadpoolctl import ThreadpoolController  # noqa: PLC0415  (lazy: ~30 ms import)
        except ImportError:  # pragma: no cover - threadpoolctl ships with scipy setups
            return None
        _controller = ThreadpoolController()
    return _controller


def _apply_all(n: int) -> None:
    ctl = _blas()
    if ctl is not None:
        ctl.limit(limits=n)
    _apply_mkl(n)
    _apply_numba(n)


def set(n) -> None:  # noqa: A001 - the module's verb, as in settings.Setting.set
    """Use ``n`` threads in every engine for the library's work for the rest of the process
    (``None``: back to ``OMKL_THREADS``). oneMKL's vector math (the library's own) is set at once;
    NumPy's BLAS and a running Numba pool take the count inside each library run (:func:`limited`),
    so the user's own NumPy code keeps its threads."""
    global _override
    n = None if n is None else _parse(n, "n")
    _override = n
    _apply_mkl(requested())


@contextlib.contextmanager
def using(n):
    """Run a block with ``n`` threads in every engine, then restore what was."""
    global _override
    n = _parse(n, "n")
    old, _override = _override, n
    try:
        with limited():
            yield
    finally:
        _override = old
        _apply_mkl(requested())
        _apply_numba(requested())


@contextlib.contextmanager
def limited():
    """The library's compute runs inside this: every engine at :func:`requested` threads, and the
    BLAS / OpenMP libraries given back their own counts on exit (about 12 µs)."""
    n = requested()
    _apply_mkl(n)
    numba_before = _apply_numba(n)
    ctl = _blas()
    try:
        if ctl is None:  # pragma: no cover
            yield
        else:
            with ctl.limit(limits=n):
                yield
    finally:
        if numba_before is not None:
            _apply_numba(numba_before)


def engine_loaded(kind: str, handle=None) -> None:
    """Called by the module that loads an engine (``"mkl"`` with the ``ctypes.CDLL`` of
    ``libmkl_rt``; ``"numba"``): the engine starts at the count in force, and the BLAS controller
    is rebuilt to see the libraries it brought (MKL brings an OpenMP runtime)."""
    global _mkl, _controller
    if kind == "mkl":
        _mkl = handle
        _apply_mkl(requested())
    elif kind == "numba":
        _apply_numba(requested())
    else:
        raise ValueError(f"kind must be 'mkl' or 'numba', got {kind!r}")
    _controller = None


def child_environment(n=None) -> dict:
    """The environment variables that make a child process's engines start at ``n`` threads
    (default: the count in force): ``OMKL_THREADS`` and each engine's own variable."""
    n = requested() if n is None else _parse(n, "n")
    return {ENV: str(n), **{var: str(n) for var in ENGINE_VARIABLES}}


def worker_environment() -> None:
    """In a worker process of a pool, before its engines load: one thread each (the pool's workers
    are the parallelism), in the environment (for engines loaded later) and in every engine loaded
    already."""
    os.environ.update(child_environment(1))
    set(None)
    _apply_all(1)          # and whatever the fork brought along, for the worker's whole life


def info() -> dict:
    """What each engine has now: ``{"requested": n, "pools": ["openblas 1", "openmp 1", ...] (every BLAS /
    OpenMP library loaded, threadpoolctl's names), "mkl": n or None (not loaded by the library),
    "numba": n or None (its pool not running)}``."""
    out = {"requested": requested(), "pools": [], "mkl": None, "numba": None}
    try:
        from threadpoolctl import threadpool_info  # noqa: PLC0415  (lazy: loaded only when asked)
        out["pools"] = [f"{i.get('internal_api')} {i.get('num_threads')}" for i in threadpool_info()]
    except ImportError:  # pragma: no cover
        pass
    if _mkl is not None:
        try:
            out["mkl"] = int(_mkl.MKL_Get_Max_Threads())
        except AttributeError:  # pragma: no cover
            pass
    numba = _numba_pool()
    if numba is not None:
        try:
            out["numba"] = int(numba.get_num_threads())
        except (AttributeError, RuntimeError):  # pragma: no cover
            pass
    return out
