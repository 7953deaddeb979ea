"""The sweep's on-disk cache: a result is reused only for the same code, data and cell.

:func:`code_version` (every source of the package and the arithmetic libraries, :func:`numerics`),
:func:`data_hash` (a stream's bytes) and the cell's parameters make its key; :class:`Store` keeps one
JSON file a key (arrays beside it), written atomically and read back checked, so that a crash, a full
disk or two runs at once never leave a half-written or a wrong result. :mod:`omkl_core.sweep` and its
task map use it; nothing else writes there.
"""
from __future__ import annotations

import hashlib
import json
import os
import zipfile
from functools import lru_cache
from pathlib import Path

import numpy as np

from . import compiled, cosine

__all__ = ["code_version", "numerics", "data_hash", "Store"]


def code_version() -> str:
    """SHA-256 of every ``omkl_core/**/*.py`` source (paths and contents, sorted by path) and of
    :func:`numerics`: a cached result is reused only by the same code running the same arithmetic.
    The sources are hashed once per process (:func:`sources_hash`); :func:`numerics` is read at each
    call, so a switch of engine or cosine library within a process gives another version."""
    return hashlib.sha256(f"{sources_hash()}\0{numerics()}".encode()).hexdigest()


@lru_cache(maxsize=1)
def sources_hash() -> str:
    """SHA-256 of every ``omkl_core/**/*.py`` source, paths and contents, sorted by path (once per process)."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        h.update(b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def numerics() -> str:
    """The libraries behind this process's arithmetic that can change a result's last bits: the
    compiled engine (:mod:`omkl_core.compiled`: Numba or NumPy loops), the feature map's cosine
    (:mod:`omkl_core.cosine`: NumPy's or oneMKL's) and the BLAS kernel in use (threadpoolctl's
    ``internal_api:architecture``, e.g. ``openblas:SkylakeX``; ``OPENBLAS_CORETYPE`` changes it).
    Part of :func:`code_version`."""
    return f"engine={'numba' if compiled.use_numba() else 'numpy'};cos={cosine.library()};blas={_blas_kernel()}"


@lru_cache(maxsize=1)
def _blas_kernel() -> str:
    # the kernels of the loaded BLAS libraries (NumPy's; SciPy's too once loaded: the same kernel,
    # chosen from the same CPU and environment), without versions, so that importing SciPy does not
    # change the answer
    try:
        import threadpoolctl  # noqa: PLC0415
    except ImportError:       # pragma: no cover - a dependency of the library
        return "unknown"
    found = {f"{i.get('internal_api')}:{i.get('architecture')}" for i in threadpoolctl.threadpool_info()
             if i.get("user_api") == "blas"}
    return ",".join(sorted(found)) or "none"


def data_hash(X, y) -> str:
    """SHA-256 of a stream's shapes and float64 bytes."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    h = hashlib.sha256(repr((X.shape, y.shape)).encode())
    h.update(X.tobytes())
    h.update(y.tobytes())
    return h.hexdigest()


def _cell_key(cell: dict, dhash: str, version: str) -> str:
    payload = {"code": version, "data": dhash, **{k: cell[k] for k in
               ("learner", "params", "seed", "max_steps", "curve_points")}}
    if cell.get("repetitions") is not None:          # ordinary cells keep the key they always had
        payload["repetitions"] = cell["repetitions"]
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


class Store:
    """Content-addressed store: ``root/ab/<key>.json``, written atomically (the sweep's and the task
    map's cache). ``get(key) -> dict | None``, ``put(key, result)``.

    A result is a dict of plain values (numbers, strings, lists, nested dicts); NumPy arrays
    anywhere inside it go, exactly, to ``root/ab/<key>.npz`` beside the JSON (which names them),
    written before the JSON, so an entry whose JSON exists is complete.

    Each entry carries the SHA-256 of its key and its content, arrays included (:meth:`checksum`):
    an entry that was edited, truncated or is not decodable is never used -- ``get`` warns (a
    ``RuntimeWarning`` naming the file and what is wrong with it) and returns None, so the result
    is recomputed and the entry rewritten."""

    suffix = ".json"

    def __init__(self, root):
        self.root = Path(root)

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}{self.suffix}"

    @staticmethod
    def checksum(key: str, *parts: bytes) -> str:
        """SHA-256 over the key and the entry's content (its canonical bytes)."""
        h = hashlib.sha256(key.encode())
        for part in parts:
            h.update(len(part).to_bytes(8, "little"))
            h.update(part)
        return h.hexdigest()

    @staticmethod
    def _rejected(path: Path, why: str) -> None:
        import warnings  # noqa: PLC0415

        warnings.warn(f"cache entry {path} {why}; it is not used, the result is recomputed", RuntimeWarning,
                      stacklevel=3)

    @staticmethod
    def _canonical(row) -> bytes:
        return json.dumps(row, allow_nan=True, sort_keys=True).encode()

    @classmethod
    def _parts(cls, encoded, arrays: dict) -> list[bytes]:
        """The bytes the checksum covers: the JSON part, then each array (name, dtype, shape, data)."""
        parts = [cls._canonical(encoded)]
        for name in sorted(arrays):
            a = np.ascontiguousarray(arrays[name])
            parts += [name.encode(), str(a.dtype).encode(), repr(a.shape).encode(), a.tobytes()]
        return parts

    def get(self, key: str) -> dict | None:
        path = self._path(key)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            self._rejected(path, f"cannot be decoded ({type(exc).__name__}: {exc})")
            return None
        if not (isinstance(entry, dict) and "sha256" in entry and "entry" in entry):
            self._rejected(path, "has no checksum (written by an older version, or edited)")
            return None
        encoded, arrays = entry["entry"], {}
        if isinstance(encoded, dict) and _ARRAYS in encoded:
            npz = path.with_suffix(".npz")
            try:
                with np.load(npz) as f:
                    arrays = {name: f[name] for name in f.files}
            except (ValueError, KeyError, OSError, EOFError, zipfile.BadZipFile) as exc:
                self._rejected(npz, f"cannot be decoded ({type(exc).__name__}: {exc})")
                return None
        if entry["sha256"] != self.checksum(key, *self._parts(encoded, arrays)):
            self._rejected(path, "does not match its checksum (its content or key was edited or corrupted)")
            return None
        if arrays or (isinstance(encoded, dict) and _ARRAYS in encoded):
            try:
                return _decode(encoded["result"], arrays)
            except (KeyError, ValueError, TypeError) as exc:
                self._rejected(path, f"cannot be decoded ({type(exc).__name__}: {exc})")
                return None
        return encoded

    def put(self, key: str, row: dict) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays: dict = {}
        encoded = _encode(row, arrays)
        if arrays:
            npz = path.with_suffix(".npz")
            tmp_npz = path.with_name(f".{key}.{os.getpid()}.tmp.npz")
            np.savez(tmp_npz, **arrays)
            os.replace(tmp_npz, npz)
            encoded = {_ARRAYS: sorted(arrays), "result": encoded}
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        entry = {"sha256": self.checksum(key, *self._parts(encoded, arrays)), "entry": encoded}
        tmp.write_text(json.dumps(entry, allow_nan=True), encoding="utf-8")
        os.replace(tmp, path)


def _check_cache_dir(cache_dir) -> None:
    """Refuse, before any task, a cache folder that is a file (or lies under one) or cannot be
    written: one error, not a warning per task."""
    path = Path(cache_dir)
    if path.exists() and not path.is_dir():
        raise ValueError(f"cache_dir {str(path)!r} is a file, not a folder (the cache is a folder of JSON "
                         "entries): name a folder")
    top = path
    while not top.exists():
        top = top.parent
    if not top.is_dir():
        raise ValueError(f"cache_dir {str(path)!r}: {str(top)!r} is a file, not a folder")
    if not os.access(top, os.W_OK | os.X_OK):
        raise ValueError(f"cache_dir {str(path)!r}: {str(top)!r} is not writable (permission denied)")


_ARRAYS = "__arrays__"        # a JSON entry holding arrays: {"__arrays__": [names], "result": ...}
_ARRAY_REF = "__array__"      # an array inside an encoded result: {"__array__": "a0"}


def _encode(value, arrays: dict):
    """``value`` with every ndarray replaced by a reference into ``arrays`` (filled), tuples as
    lists, NumPy scalars as Python scalars: what JSON holds exactly."""
    if isinstance(value, np.ndarray):
        name = f"a{len(arrays)}"
        arrays[name] = value
        return {_ARRAY_REF: name}
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise TypeError(f"a task result's dict keys must be strings, got {sorted(map(repr, value))[:3]}")
        return {k: _encode(v, arrays) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_encode(v, arrays) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _decode(value, arrays: dict):
    if isinstance(value, dict):
        if set(value) == {_ARRAY_REF}:
            return arrays[value[_ARRAY_REF]]
        return {k: _decode(v, arrays) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v, arrays) for v in value]
    return value


def _normalised(result):
    """A computed result as a cached one reads back (tuples as lists, NumPy scalars as Python's;
    arrays kept): the same value whether or not it came from the cache."""
    arrays: dict = {}
    return _decode(_encode(result, arrays), arrays)


