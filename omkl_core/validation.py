"""The validation vocabulary: argument checks and the constraints of ``_parameter_constraints``.

Every public entry point of omkl fails loudly, naming the argument; a learner written outside
the package uses the same vocabulary (scikit-learn's ``_parameter_constraints`` is the model)::

    from omkl_core.base import OnlineLearner
    from omkl_core.validation import Integer, Options, Positive, Real

    class MyLearner(OnlineLearner):
        _parameter_constraints = {"lam": Positive(), "m": Integer(1), "kind": Options("a", "b"),
                                  "prior": Real()}

Constraints (each ``constraint(value, name)`` raises ``ValueError``/``TypeError`` naming ``name``):
:class:`Real`, :class:`Positive`, :class:`NonNegative`, :class:`Integer`, :class:`Boolean`,
:class:`Options`, :class:`Seed`, :class:`Optional`, :class:`Interval`, :class:`Check`.
Checks for data (each returns the checked value): :func:`check_point`, :func:`check_label`,
:func:`check_vector`, :func:`check_matrix`, :func:`check_scalar`, and for scalars
:func:`check_positive`, :func:`check_int`, :func:`check_interval`, :func:`check_option`, ...
:class:`Checked` recognises, at the cost of one byte comparison, the very values of a point that
passed a check (``learn_one`` after ``predict_one`` on the same x_t).
"""
from __future__ import annotations

import contextlib
import contextvars
import math
import numbers
import os

import numpy as np

#: Largest |value| accepted in a data stream (x entries, labels y). Squared losses, x x' and
#: y x of larger values overflow float64 (max ~1.8e308) within a few steps and would turn
#: predictions into NaN; such a stream must be rescaled first (``datasets.normalise_stream``).
MAX_MAGNITUDE = 1e100


def _check_real(a, name: str) -> None:
    if np.iscomplexobj(a):
        raise TypeError(f"{name} must be real, got complex values (dtype {np.asarray(a).dtype})")


def check_magnitude(a, name: str, xp=None) -> None:
    """Raise naming ``name`` when an entry of ``a`` exceeds :data:`MAX_MAGNITUDE` in size
    (``xp``: the array namespace of ``a`` when it is not a NumPy array, e.g. CuPy)."""
    if xp is not None and xp is not np:
        if a.size and float(xp.max(xp.abs(a))) > MAX_MAGNITUDE:
            raise ValueError(f"{name} holds a value of size {float(xp.max(xp.abs(a))):.3g} > {MAX_MAGNITUDE:g}: "
                             "squared losses and products overflow float64 and would turn predictions "
                             "into NaN; rescale the data first")
        return
    v = np.asarray(a, dtype=np.float64)
    if v.size and float(np.max(np.abs(v))) > MAX_MAGNITUDE:
        idx = np.unravel_index(int(np.argmax(np.abs(v))), v.shape) if v.ndim else ()
        where = f"[{', '.join(map(str, idx))}]" if idx else ""
        raise ValueError(f"{name}{where} = {float(v[idx]):.3g} is too large (|value| > {MAX_MAGNITUDE:g}): "
                         "squared losses and products overflow float64 and would turn predictions "
                         "into NaN; rescale the data first (divide by a constant, then omkl_core.datasets.normalise_stream)")


def check_label(y, name: str = "y") -> float:
    """One label y_t: a finite real scalar no larger than :data:`MAX_MAGNITUDE` in size."""
    v = check_scalar(y, name)
    if not abs(v) <= MAX_MAGNITUDE:      # a float: compared here, the error worded by check_magnitude
        check_magnitude(v, name)
    return v


def describe_labels(y, t0: int) -> str:
    """How a warning names the labels it saw, never a range it did not see: one label,
    ``"label y_t = 43.76 at step t = 1"``; several (steps ``t0 + 1 .. t0 + n``),
    ``"labels y in [0.1, 45] (steps 1..1000)"``. ``t0``: the steps learned before."""
    ya = np.asarray(y, dtype=np.float64)
    if ya.size == 1:
        return f"label y_t = {float(ya.ravel()[0]):.4g} at step t = {t0 + 1}"
    n = ya.shape[-1] if ya.ndim else 1
    return f"labels y in [{ya.min():.4g}, {ya.max():.4g}] (steps {t0 + 1}..{t0 + n})"


def physical_memory() -> int | None:
    """Bytes of physical memory of this machine (None where the OS does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return None


def fmt_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB", "PB"):
        if n < 1024 or unit == "PB":
            return f"{n:.3g} {unit}"
        n /= 1024
    return f"{n:.3g} PB"  # pragma: no cover


def _meminfo_available() -> int | None:
    """``MemAvailable`` of /proc/meminfo (Linux: what can be allocated without swapping), or None."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _cgroup_available() -> int | None:
    """What the cgroup (v2) of this process may still allocate (``memory.max - memory.current``),
    or None when it sets no limit."""
    try:
        with open("/proc/self/cgroup", encoding="ascii") as fh:
            rel = next((ln.strip().split(":", 2)[2] for ln in fh if ln.startswith("0::")), None)
        if rel is None:
            return None
        base = os.path.join("/sys/fs/cgroup", rel.lstrip("/"))
        with open(os.path.join(base, "memory.max"), encoding="ascii") as fh:
            cap = fh.read().strip()
        if cap == "max":
            return None
        with open(os.path.join(base, "memory.current"), encoding="ascii") as fh:
            return max(int(cap) - int(fh.read().strip()), 0)
    except (OSError, ValueError, StopIteration):
        return None


def available_memory() -> int | None:
    """Bytes of memory this process can allocate now (None where the OS does not say): the least of
    /proc/meminfo's ``MemAvailable``, the room left under a cgroup limit, and :func:`physical_memory`
    (``SC_AVPHYS_PAGES`` where /proc/meminfo is missing)."""
    found = [v for v in (_meminfo_available(), _cgroup_available(), physical_memory()) if v is not None]
    if _meminfo_available() is None:
        try:
            found.append(int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_AVPHYS_PAGES")))
        except (ValueError, OSError, AttributeError):
            pass
    return min(found) if found else None


def check_memory(nbytes: float, what: str, limit: int | None = None) -> None:
    """Refuse, before allocating, a state of ``nbytes`` that exceeds the memory available now
    (:func:`available_memory`: free and reclaimable memory, not the machine's total), naming the
    size and the limit; ``limit``: another limit in bytes."""
    total = physical_memory()
    limit = available_memory() if limit is None else limit
    if limit is not None and nbytes > limit:
        of = f" (of {fmt_bytes(total)} physical)" if total is not None and total != limit else ""
        raise MemoryError(f"{what} needs {fmt_bytes(nbytes)} ({nbytes:.3g} bytes) of memory, more than the "
                          f"{fmt_bytes(limit)} available on this machine now{of}; choose smaller parameters")


#: The arrays a boundary has checked whole (:func:`validated`): the very objects, for this context.
_VALIDATED: contextvars.ContextVar[tuple] = contextvars.ContextVar("omkl_validated", default=())


@contextlib.contextmanager
def validated(*arrays):
    """Within the block, the checks below skip their O(size) scans (finite, :data:`MAX_MAGNITUDE`) of
    these very array objects: a stream is validated once, at the boundary it enters.

    ``OnlineLearner.run`` checks a stream whole (:func:`check_stream`) and runs the learner inside
    ``validated(X, y)``, so a wrapper's ``run`` (``TargetScaler`` -> ``Pipeline`` -> the scaler ->
    the learner) does not scan the same X again on the way down. Only float64 NumPy arrays are
    marked, by identity: a converted copy, a slice or any other array is checked in full, and
    the cheap checks (type, shape, length) always run. The arrays must not change inside the block
    (no learner writes into its inputs)."""
    marked = tuple(a for a in arrays if isinstance(a, np.ndarray) and a.dtype == np.float64)
    token = _VALIDATED.set(_VALIDATED.get() + marked)
    try:
        yield
    finally:
        _VALIDATED.reset(token)


def _was_validated(A) -> bool:
    marked = _VALIDATED.get()
    return bool(marked) and any(A is v for v in marked)


def check_matrix(X, name: str = "X") -> np.ndarray:
    """Return ``X`` as a finite float64 2-D array, no entry larger than :data:`MAX_MAGNITUDE`
    in size, or raise naming ``name`` (complex values and strings: ``TypeError``)."""
    _check_real(X, name)
    try:
        A = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric 2-D array: {exc}") from None
    if A.ndim != 2:
        raise ValueError(f"{name} must be 2-D (T, d), got shape {A.shape}")
    if A.shape[0] == 0 or A.shape[1] == 0:
        raise ValueError(f"{name} must be non-empty, got shape {A.shape}")
    if _was_validated(A):                  # scanned whole at the boundary (validated())
        return A
    if not np.all(np.isfinite(A)):
        bad = np.argwhere(~np.isfinite(A))[0]
        raise ValueError(f"{name} contains NaN or inf (first at row {bad[0]}, column {bad[1]})")
    check_magnitude(A, name)
    return A


def check_square_matrix(K, name: str = "K") -> np.ndarray:
    """A finite float64 square 2-D array (e.g. a Gram matrix)."""
    A = check_matrix(K, name)
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"{name} must be a square Gram matrix, got shape {A.shape}")
    return A


def check_vector(y, name: str = "y", length: int | None = None) -> np.ndarray:
    """Return ``y`` as a finite float64 1-D array (optionally of ``length``), no entry larger
    than :data:`MAX_MAGNITUDE` in size (complex values and strings: ``TypeError``)."""
    if type(y) is np.ndarray and y.dtype is _FLOAT64:       # real, and float64 already
        v = y
    else:
        _check_real(y, name)
        try:
            v = np.asarray(y, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must be a numeric 1-D array: {exc}") from None
    if v.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {v.shape}")
    if length is not None and v.shape[0] != length:
        raise ValueError(f"{name} has length {v.shape[0]} but X has {length} rows")
    if _was_validated(v):                  # scanned whole at the boundary (validated())
        return v
    if v.size and _largest(abs(v)) <= MAX_MAGNITUDE:   # one scan: finite and not too large
        return v                           # (NaN compares false: the scans below then name what is wrong)
    if not np.all(np.isfinite(v)):
        i = int(np.flatnonzero(~np.isfinite(v))[0])
        raise ValueError(f"{name} contains NaN or inf (first at index {i})")
    check_magnitude(v, name)
    return v


def check_point(x, d: int | None = None, name: str = "x") -> np.ndarray:
    """One input vector: finite float64 1-D of length ``d`` (if given)."""
    v = check_vector(x, name)
    if v.shape[0] == 0:
        raise ValueError(f"{name} is an empty feature vector: it needs at least one feature")
    if d is not None and v.shape[0] != d:
        raise ValueError(f"{name} has dimension {v.shape[0]}, expected d={d}")
    return v


class Checked:
    """The values of a float64 array that passed a check, kept to recognise them when they come back.

    A learner's ``learn_one(x, y)`` usually sees the very x_t its ``predict_one`` checked (and
    forecast from); ``Checked(v).matches(x)`` says so with one byte comparison instead of a second
    scan (finite, :data:`MAX_MAGNITUDE`, shape). It is True only for a NumPy float64 array (exactly:
    no subclass, no other byte order) of the same shape and the same bytes -- values that passed the
    check; for anything else (a list, a changed entry, another dtype) it is False and the caller
    checks in full, so bad input gets the same error as ever, before any state changes.

    Parameters
    ----------
    v : ndarray
        A checked float64 array (the checker's return value).
    """

    __slots__ = ("shape", "data")

    def __init__(self, v: np.ndarray):
        self.shape = v.shape
        self.data = v.tobytes()          # a copy: later changes to v do not change it

    def matches(self, a) -> bool:
        """Whether ``a`` holds exactly the checked values (a float64 ndarray of the same shape and bytes)."""
        return (type(a) is np.ndarray and a.dtype is _FLOAT64 and a.shape == self.shape
                and a.tobytes() == self.data)


_FLOAT64 = np.dtype(np.float64)
#: The largest entry of a non-empty array, NaN if it holds one (``ndarray.max`` without its Python layer).
_largest = np.maximum.reduce


def is_complex(a) -> bool:
    """Whether ``a`` holds complex values: by its dtype for an array of any namespace (CuPy's
    included, without a transfer), by NumPy's ``iscomplexobj`` otherwise."""
    dtype = getattr(a, "dtype", None)
    if dtype is not None and hasattr(dtype, "kind"):
        return dtype.kind == "c"
    return bool(np.iscomplexobj(a))


def _namespace(a):
    """The array namespace of ``a``: CuPy for a CuPy array, else NumPy."""
    if type(a).__module__.split(".")[0] == "cupy":
        import sys
        return sys.modules["cupy"]
    return np


def _stream_array(a, name: str, ragged_ok: bool):
    """``a`` as a checked float64 array of its namespace, or None for what is not one array
    (an iterable of blocks; with ``ragged_ok``, a list of blocks of different lengths)."""
    xp = _namespace(a)
    if xp is np and not (hasattr(a, "__array__") or isinstance(a, (list, tuple, numbers.Number, str, bytes))
                         or a is None):
        return None
    if is_complex(a):
        raise TypeError(f"{name} must be real, got complex values")
    try:
        A = xp.asarray(a, dtype=xp.float64)
    except (TypeError, ValueError) as exc:
        if ragged_ok and "inhomogeneous" in str(exc):
            return None
        raise TypeError(f"{name} must be a numeric array: {exc}") from None
    if _was_validated(A):                  # scanned whole at the boundary (validated())
        return A
    if not bool(xp.all(xp.isfinite(A))):
        first = np.argwhere(~np.isfinite(np.asarray(A.get() if xp is not np else A)))[0]
        raise ValueError(f"{name} contains NaN or inf (first at index {tuple(int(i) for i in first)})")
    check_magnitude(A, name, xp)
    return A


def check_stream(X, y, name: str = "X"):
    """The checks of the predict_one/learn_one loop, on a whole stream at once.

    What ``OnlineLearner.run`` checks before a learner's own ``run`` touches its state (so that
    ``run`` refuses exactly the streams on which the step loop would refuse a step, and
    before learning any step of them): ``X`` (``name``; rows of inputs, (..., T, d)) and ``y``
    are real, finite, no entry larger than :data:`MAX_MAGNITUDE` in size, ``X`` is at least
    2-D and non-empty (the shapes of ``y`` a learner accepts -- (T,), or (R, T) for R
    repetitions -- are its own ``run``'s check). An ``X`` that is not one array (an
    iterable of time blocks) is left to the learner. Returns ``(T, shape of X)`` (``None``
    where ``X`` was left to the learner)."""
    A = _stream_array(X, name, ragged_ok=True)
    T = None
    if A is not None:
        if A.ndim < 2:
            raise ValueError(f"{name} must hold one row per time step ((T, d), at least 2-D), got shape {A.shape}")
        T = A.shape[-2]
        if T == 0 or A.shape[-1] == 0:
            raise ValueError(f"{name} must be non-empty (an empty stream has nothing to predict), got shape {A.shape}")
    _stream_array(y, "y", ragged_ok=False)      # its shape (T,) or (R, T): the learner's own check
    return T, (None if A is None else A.shape)


def check_scalar(value, name: str) -> float:
    """A finite real scalar."""
    if not isinstance(value, float) and (isinstance(value, bool) or not isinstance(value, numbers.Real)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    try:
        v = float(value)
    except OverflowError:   # an int too large for a float
        raise ValueError(f"{name} = {value!r} is too large for a float64") from None
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return v


def check_forecast(value, name: str) -> float | None:
    """A learner's forecast as a float, or None (it abstains): a real number (a Python or NumPy
    float or int, a 0-d real array); anything else -- the string ``"0.3"``, a bool, a complex
    number, a list -- is a ``TypeError`` naming ``name``, never converted. NaN/inf pass (the
    caller decides what a non-finite forecast means)."""
    if value is None:
        return None
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "fiu":
        return float(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} is {value!r} ({type(value).__name__}), which is not a real number "
                        "(a forecast is a float, or None to abstain)")
    return float(value)


def check_positive(value, name: str) -> float:
    v = check_scalar(value, name)
    if v <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return v


def check_int(value, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    v = int(value)
    if v < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return v


def check_nonneg(value, name: str) -> float:
    """A finite real scalar ``>= 0``."""
    v = check_scalar(value, name)
    if v < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return v


def check_interval(value, name: str, low=None, high=None, *, closed: str = "both") -> float:
    """A finite real scalar in the interval from ``low`` to ``high`` (``None``: unbounded).

    ``closed`` is ``"both"``, ``"left"``, ``"right"`` or ``"neither"`` and says which ends
    belong to the interval, e.g. ``check_interval(xi, "xi", 0, 1, closed="right")`` is
    ``0 < xi <= 1``.
    """
    v = check_scalar(value, name)
    lo_ok = low is None or (v >= low if closed in ("both", "left") else v > low)
    hi_ok = high is None or (v <= high if closed in ("both", "right") else v < high)
    if not (lo_ok and hi_ok):
        lb = "(-inf" if low is None else ("[" if closed in ("both", "left") else "(") + f"{low:g}"
        hb = "inf)" if high is None else f"{high:g}" + ("]" if closed in ("both", "right") else ")")
        raise ValueError(f"{name} must be in {lb}, {hb}, got {value!r}")
    return v


def check_p(p, name: str = "p") -> float:
    """The sample parameter ``p > 1`` of paper 001 (Lemma 1, Algorithm 1)."""
    p = check_scalar(p, name)
    if p <= 1.0:
        raise ValueError(f"{name} must be > 1 (P(N = n) = (p-1)/p^(n+1)), got {p!r}")
    return p


def check_bool(value, name: str) -> bool:
    """A Python or NumPy bool (not an int that happens to be 0 or 1)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_option(value, name: str, options) -> str:
    """One of a fixed set of string options."""
    options = tuple(options)
    if value not in options:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, options))}; got {value!r}")
    return value


def check_seed(seed, name: str = "seed"):
    """``None``, a non-negative int or a ``numpy.random.Generator``."""
    if seed is None or isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise TypeError(f"{name} must be None, a non-negative int or a numpy Generator, got {seed!r}")
    return int(seed)


# ---------------------------------------------------------------------------------------
# the constraint vocabulary of the ``_parameter_constraints`` tables (omkl_core.base)
# ---------------------------------------------------------------------------------------
class Constraint:
    """A declarative constraint on one hyper-parameter (scikit-learn's ``_parameter_constraints``
    idea). ``constraint(value, name)`` returns normally or raises ``ValueError``/``TypeError``
    naming ``name``; ``invalid()`` lists values it rejects (the conformance checker,
    :mod:`omkl_core.checks`, feeds them to the constructor)."""

    def __call__(self, value, name: str) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def invalid(self) -> list:
        return []

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({args})"


class Real(Constraint):
    """A finite real number in [low, high] (``closed`` as in :func:`check_interval`)."""

    def __init__(self, low=None, high=None, closed: str = "both"):
        self.low, self.high, self.closed = low, high, closed

    def __call__(self, value, name):
        if self.high is None and self.low == 0 and self.closed in ("neither", "right"):
            check_positive(value, name)                     # "must be > 0"
        elif self.high is None and self.low == 0:
            check_nonneg(value, name)                       # "must be >= 0"
        else:
            check_interval(value, name, self.low, self.high, closed=self.closed)

    def invalid(self):
        bad = [float("nan"), "1.0"]
        if self.low is not None:
            bad.append(self.low if self.closed in ("right", "neither") else self.low - 1.0)
        if self.high is not None:
            bad.append(self.high if self.closed in ("left", "neither") else self.high + 1.0)
        return bad


class Positive(Real):
    """A finite real number > 0 (``Positive()``)."""

    def __init__(self):
        super().__init__(0, None, closed="neither")

    def __repr__(self) -> str:
        return "Positive()"


class NonNegative(Real):
    """A finite real number >= 0 (``NonNegative()``)."""

    def __init__(self):
        super().__init__(0, None, closed="left")

    def __repr__(self) -> str:
        return "NonNegative()"


class Integer(Constraint):
    """An int >= ``minimum`` (a bool is not an int here)."""

    def __init__(self, minimum: int = 1):
        self.minimum = minimum

    def __call__(self, value, name):
        check_int(value, name, minimum=self.minimum)

    def invalid(self):
        return [self.minimum - 1, 1.5, True]


class Boolean(Constraint):
    def __call__(self, value, name):
        check_bool(value, name)

    def invalid(self):
        return ["yes", 1]


class Options(Constraint):
    """One of a fixed set of values (strings)."""

    def __init__(self, *options):
        self.options = options

    def __call__(self, value, name):
        check_option(value, name, self.options)

    def invalid(self):
        return ["no-such-option"]


class Seed(Constraint):
    """``None``, a non-negative int or a ``numpy.random.Generator``."""

    def __call__(self, value, name):
        check_seed(value, name)

    def invalid(self):
        return [-1, "0", 1.5]


class Optional(Constraint):
    """``None`` or a value satisfying ``inner``."""

    def __init__(self, inner: Constraint):
        self.inner = inner

    def __call__(self, value, name):
        if value is not None:
            self.inner(value, name)

    def invalid(self):
        return self.inner.invalid()


class Interval(Constraint):
    """A pair (A, B) of finite reals with A < B (e.g. ``bounds``)."""

    def __call__(self, value, name):
        if isinstance(value, (str, bytes)):
            raise TypeError(f"{name} must be a pair (A, B) with A < B, got {value!r}")
        try:
            A, B = value
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a pair (A, B) with A < B, got {value!r}") from None
        A = check_scalar(A, f"{name}[0]")
        B = check_scalar(B, f"{name}[1]")
        if not A < B:
            raise ValueError(f"{name} must satisfy A < B, got {name}=({A!r}, {B!r})")

    def invalid(self):
        return [(1.0, 0.0), (0.0, float("nan")), "ab", (0.0,)]


class Check(Constraint):
    """Any ``check(value, name)`` function, with the values it is known to reject."""

    def __init__(self, check, invalid=()):
        self.check, self._invalid = check, list(invalid)

    def __call__(self, value, name):
        self.check(value, name)

    def invalid(self):
        return list(self._invalid)


def check_state_array(owner: str, name: str, value, shape: tuple, dtype=np.float64) -> None:
    """A learned-state array that a compiled loop indexes without bounds checks (a learner's
    ``log_w_``, ``theta_``, ...): a ``ValueError`` naming ``owner.name`` unless ``value`` is an
    ``ndarray`` of ``dtype`` and exactly ``shape``. Called before any loop, on both engines, so that
    an attribute written from outside is refused, never read or written out of its bounds."""
    if not isinstance(value, np.ndarray) or value.dtype != dtype or value.shape != tuple(shape):
        got = (f"shape {value.shape}, dtype {value.dtype}" if isinstance(value, np.ndarray)
               else f"{type(value).__name__} of shape {np.shape(value)}")
        raise ValueError(f"{owner}.{name} must be a {np.dtype(dtype).name} array of shape {tuple(shape)} (the learned "
                         f"state), got {got}: it was written from outside; reset() starts the learner afresh")


def check_index(value, name: str, size: int, what: str = "N") -> int:
    """An integer index into ``size`` items, ``0 <= value < size`` (a ``ValueError`` naming ``name``
    and ``what = size`` otherwise): no wrap-around, no index past the end."""
    v = check_int(value, name, minimum=0)
    if v >= size:
        raise ValueError(f"{name} must be < {what} = {size} (an index 0..{size - 1}), got {value!r}")
    return v
