"""A strict stand-in for CuPy, run on the CPU: device arrays that refuse to become NumPy arrays.

Used by ``tests/test_strict_backend.py`` (installed as ``sys.modules["cupy"]`` for the test's
duration), so the library's ``backend="cupy"`` code path runs on every CI machine, GPU or not.
Like CuPy, a :class:`ndarray` here

* refuses implicit conversion to NumPy (``np.asarray(a)`` raises ``TypeError``; ``.get()`` is the
  explicit device -> host copy, as ``omkl_core.backend.to_numpy`` uses);
* refuses to be mixed with host NumPy arrays in arithmetic, assignment or namespace calls
  (a hidden host -> device transfer); ``asarray``/``array`` are the explicit transfer;
* converts to a Python scalar with ``float()``/``int()``/``bool()`` (CuPy synchronises and allows it).

It is *stricter* than CuPy in one way: NumPy functions and ufuncs called on a device array
(``np.sqrt(a)``, ``np.concatenate([a, b])``) raise instead of being dispatched, so code on the GPU
path must call the namespace it was given (``xp.sqrt``), never ``np`` directly.

Underneath, every operation is NumPy's, so results equal the NumPy backend's bit for bit.
"""
from __future__ import annotations

import types

import numpy as _np

__all__ = ["ndarray", "module"]

_HOST_MSG = ("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct a "
             "NumPy array explicitly.")


class ndarray:  # noqa: N801 - CuPy's name
    """A device array of the stand-in namespace (wraps a NumPy array it never hands out)."""

    __slots__ = ("_a",)
    __array_ufunc__ = None          # NumPy ufuncs and binary ops with host arrays defer here, then fail

    def __init__(self, a):
        self._a = a

    # -- no implicit host conversion --------------------------------------------------------
    def __array__(self, *args, **kwargs):
        raise TypeError(_HOST_MSG)

    def __array_function__(self, func, types_, args, kwargs):
        raise TypeError(f"numpy.{func.__name__} called on a device array (use the array namespace, not numpy)")

    def get(self):
        """Explicit device -> host copy."""
        return self._a.copy()

    # -- scalars (CuPy allows them: an implicit synchronisation) ----------------------------
    def __float__(self):
        return float(self._a)

    def __int__(self):
        return int(self._a)

    def __bool__(self):
        return bool(self._a)

    def __index__(self):
        return self._a.__index__()

    def item(self):
        return self._a.item()

    # -- attributes -------------------------------------------------------------------------
    shape = property(lambda self: self._a.shape)
    ndim = property(lambda self: self._a.ndim)
    dtype = property(lambda self: self._a.dtype)
    size = property(lambda self: self._a.size)
    T = property(lambda self: ndarray(self._a.T))

    def __len__(self):
        return len(self._a)

    def __iter__(self):
        return (_wrap(x) for x in self._a)

    def __repr__(self):
        return f"strict_cupy.ndarray({self._a!r})"

    # -- indexing ---------------------------------------------------------------------------
    def __getitem__(self, key):
        return _wrap(self._a[_unwrap_key(key)])

    def __setitem__(self, key, value):
        self._a[_unwrap_key(key)] = _operand(value)

    # -- methods ----------------------------------------------------------------------------
    def reshape(self, *shape, **kw):
        return ndarray(self._a.reshape(*shape, **kw))

    def transpose(self, *axes):
        return ndarray(self._a.transpose(*axes))

    def copy(self):
        return ndarray(self._a.copy())

    def astype(self, dtype, copy=True):
        return ndarray(self._a.astype(dtype, copy=copy))

    def ravel(self):
        return ndarray(self._a.ravel())

    def sum(self, *a, **k):
        return _wrap(self._a.sum(*a, **k))

    def mean(self, *a, **k):
        return _wrap(self._a.mean(*a, **k))

    def max(self, *a, **k):
        return _wrap(self._a.max(*a, **k))

    def min(self, *a, **k):
        return _wrap(self._a.min(*a, **k))

    def all(self, *a, **k):
        return _wrap(self._a.all(*a, **k))

    def any(self, *a, **k):
        return _wrap(self._a.any(*a, **k))


def _binary(name):
    op = getattr(_np.ndarray, name)

    def method(self, other):
        return _wrap(op(self._a, _operand(other)))

    method.__name__ = name
    return method


def _inplace(name):
    op = getattr(_np.ndarray, name)

    def method(self, other):
        op(self._a, _operand(other))
        return self

    method.__name__ = name
    return method


for _name in ("add", "sub", "mul", "truediv", "floordiv", "pow", "mod", "matmul"):
    setattr(ndarray, f"__{_name}__", _binary(f"__{_name}__"))
    setattr(ndarray, f"__r{_name}__", _binary(f"__r{_name}__"))
    setattr(ndarray, f"__i{_name}__", _inplace(f"__i{_name}__"))
for _name in ("lt", "le", "gt", "ge", "eq", "ne", "and", "or", "xor"):
    setattr(ndarray, f"__{_name}__", _binary(f"__{_name}__"))
ndarray.__neg__ = lambda self: ndarray(-self._a)
ndarray.__pos__ = lambda self: ndarray(+self._a)
ndarray.__abs__ = lambda self: ndarray(abs(self._a))
ndarray.__invert__ = lambda self: ndarray(~self._a)
ndarray.__hash__ = None


def _is_host(x) -> bool:
    return isinstance(x, _np.ndarray)


def _operand(x):
    """A device array's data, or a Python/NumPy scalar; a host array is refused."""
    if isinstance(x, ndarray):
        return x._a
    if _is_host(x):
        raise TypeError(f"a host numpy.ndarray of shape {x.shape} was mixed with device arrays "
                        "(move it with xp.asarray first)")
    if isinstance(x, (list, tuple)):
        return type(x)(_operand(v) for v in x)
    return x


def _unwrap_key(key):
    if isinstance(key, tuple):
        return tuple(_unwrap_key(k) for k in key)
    if isinstance(key, ndarray):
        return key._a
    return key


def _wrap(x):
    """NumPy results become device arrays (a NumPy scalar a 0-d one, as CuPy returns)."""
    if isinstance(x, _np.generic):
        x = _np.asarray(x)
    return ndarray(x) if isinstance(x, _np.ndarray) else x


def _function(name, host_ok: bool = False):
    fn = getattr(_np, name) if "." not in name else getattr(_np.linalg, name.split(".")[1])

    def call(*args, **kwargs):
        out = kwargs.get("out")
        conv = (lambda v: v._a if isinstance(v, ndarray) else (
            type(v)(conv(u) for u in v) if isinstance(v, (list, tuple)) else v)) if host_ok else _operand
        args = [conv(a) for a in args]
        kwargs = {k: (v._a if isinstance(v, ndarray) else conv(v)) for k, v in kwargs.items()}
        res = fn(*args, **kwargs)
        return out if out is not None else _wrap(res)

    call.__name__ = name
    return call


def module() -> types.ModuleType:
    """A fresh module object that behaves like ``cupy`` for the calls omkl makes."""
    mod = types.ModuleType("cupy")
    mod.__doc__ = __doc__
    mod.ndarray = ndarray
    for name in ("float64", "float32", "int64", "bool_", "newaxis", "pi", "inf", "nan"):
        setattr(mod, name, getattr(_np, name))
    for name in ("asarray", "array"):                                # the explicit host -> device copy
        setattr(mod, name, _function(name, host_ok=True))
    for name in ("ascontiguousarray", "zeros", "ones", "empty", "full", "arange", "eye", "linspace", "zeros_like", "ones_like",
                 "empty_like", "full_like", "concatenate", "stack", "matmul", "einsum", "dot", "outer",
                 "sqrt", "exp", "log", "log1p", "expm1", "cos", "sin", "abs", "square", "maximum", "minimum",
                 "clip", "where", "sum", "mean", "prod", "cumsum", "max", "min", "argmax", "argmin", "all",
                 "any", "isfinite", "isnan", "multiply", "add", "subtract", "divide", "transpose", "reshape",
                 "tril", "triu", "diagonal", "broadcast_to", "logaddexp", "sign", "floor", "ceil"):
        setattr(mod, name, _function(name))
    linalg = types.ModuleType("cupy.linalg")
    for name in ("cholesky", "solve", "inv", "norm", "eigh", "slogdet", "det"):
        setattr(linalg, name, _function(f"linalg.{name}"))
    mod.linalg = linalg
    stream = types.SimpleNamespace(synchronize=lambda: None)
    mod.cuda = types.SimpleNamespace(Stream=types.SimpleNamespace(null=stream))
    return mod


ndarray.__module__ = "cupy"        # omkl_core.backend.to_numpy recognises device arrays by module
