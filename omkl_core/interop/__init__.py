"""Adapters to the ecosystem: River and scikit-learn (optional extras ``omkl[river]``, ``omkl[sklearn]``).

``to_river(model, *, features=None)`` wraps any online learner of :mod:`omkl_core` (anything
with ``predict_one(x)`` / ``learn_one(x, y)`` on 1-D float arrays) as a River regressor on
dict features; ``from_river(river_model)`` wraps a River regressor as an omkl online learner on
array rows (an expert of :class:`omkl_core.Mixture`); ``to_sklearn(model)`` wraps it as a scikit-learn regressor with ``fit`` /
``partial_fit`` / ``predict``.  River and scikit-learn are imported only when one of these is
called (or ``omkl_core.interop.river`` / ``.sklearn`` is imported); importing ``omkl_core`` or
``omkl_core.interop`` never imports them.
"""
from __future__ import annotations

__all__ = ["to_river", "from_river", "to_sklearn"]


def to_river(model, *, features=None):
    """A ``river.base.MiniBatchRegressor`` wrapping ``model`` (see :mod:`omkl_core.interop.river`)."""
    from .river import to_river as _to_river  # noqa: PLC0415  # lazy: River is an optional extra

    return _to_river(model, features=features)


def from_river(model, *, features=None):
    """A River regressor as an omkl online learner on array rows (see :func:`omkl_core.interop.river.from_river`):
    dict features ``{"x0": x[0], ...}`` (or ``features`` names); abstains (None) until it has learned a label."""
    from .river import from_river as _from_river  # noqa: PLC0415  # lazy: River is an optional extra

    return _from_river(model, features=features)


def to_sklearn(model):
    """A scikit-learn regressor wrapping ``model`` (see :mod:`omkl_core.interop.sklearn`)."""
    from .sklearn import to_sklearn as _to_sklearn  # noqa: PLC0415  # lazy: scikit-learn is an optional extra

    return _to_sklearn(model)
