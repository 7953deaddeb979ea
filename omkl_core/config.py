"""Which library each engine uses: :func:`show_config` (``omkl_core.show_config()``).

The engine in force (:mod:`omkl_core.compiled`, ``OMKL_ENGINE``), Numba, NumPy and its BLAS, the
VAW expert layer's driver, the aggregators' loop, the feature map's cosine
(:mod:`omkl_core.cosine`, ``OMKL_COS``) and the thread count of every engine
(:mod:`omkl_core.threads`, ``OMKL_THREADS``).
"""
from __future__ import annotations

import os

import numpy as np

from . import compiled as _compiled
from . import cosine, threads

__all__ = ["config", "show_config"]


def config() -> dict:
    """Which library each engine uses here: ``{"engine": ..., "numba": version or None,
    "expert layer": ..., "cosine": ..., "numpy": version, "blas": ...}`` (see :func:`show_config`)."""
    numba_version = None
    if _compiled.numba_available():
        import numba  # noqa: PLC0415  (lazy: an optional extra)
        numba_version = numba.__version__
    try:
        eng = "numba" if _compiled.use_numba() else "numpy"
    except ImportError:
        eng = "numba (requested, not installed)"
    blas = "?"
    try:
        from threadpoolctl import threadpool_info  # noqa: PLC0415  (lazy: loaded only when asked)
        blas = ", ".join(sorted({f"{i.get('internal_api')} {i.get('version')} ({i.get('architecture')})"
                                 for i in threadpool_info() if i.get("user_api") == "blas"})) or "?"
    except ImportError:  # pragma: no cover
        pass
    try:
        cos = cosine.library()
    except (ImportError, ValueError) as exc:
        cos = f"error: {exc}"
    return {
        "engine": f"{_compiled.get_engine()} -> {eng}",
        "numba": numba_version,
        "numpy": np.__version__,
        "blas": blas,
        "expert layer (VAW, method='auto', host)": "compiled per-step kernel vaw.sm_run (Numba)" if eng == "numba"
        else "NumPy Woodbury block driver (BLAS)",
        "aggregators' run": "compiled kernels (Numba)" if eng == "numba" else "NumPy loops",
        "feature map cos": {"mkl": "oneMKL vmdCos (VML_HA), package mkl", "numpy": "numpy.cos"}.get(cos, cos)
        + f" (OMKL_COS={os.environ.get('OMKL_COS', 'auto')!r}; installed: {', '.join(cosine.available())})",
        "threads (BLAS, oneMKL, Numba)": f"{threads.requested()} per library run "
                                         f"(OMKL_THREADS={os.environ.get(threads.ENV, 'auto')!r}; omkl_core.threads)",
    }


def show_config() -> None:
    """Print which library each engine uses (:func:`config`): the engine in force (``OMKL_ENGINE``),
    Numba, NumPy and its BLAS, the VAW expert layer's driver, the aggregators' loop and the
    feature map's cosine (``OMKL_COS``, :mod:`omkl_core.cosine`)."""
    for key, value in config().items():
        print(f"{key:42s}: {value}")
