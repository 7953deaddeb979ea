"""How ``omkl run`` builds its learner: a class from ``--param`` values, or ``omkl run Mixture`` from the
``--expert NAME[:k=v,...]`` and ``--meta`` specs (the default mixture otherwise), each refused before the run
when its state would not fit the stream; and the lines that describe a run's mixture."""
from __future__ import annotations

import ast
import importlib
import inspect
import math
import warnings

from .. import registry
from ..csvstream import BLOCK_ROWS
from ..mixture import Mixture, default_meta, default_pool
from ..preprocessing import Pipeline, StandardScaler, TargetScaler
from ..validation import check_memory, fmt_bytes
from .errors import UserError


def _parse_params(items: list[str] | None) -> dict:
    params = {}
    for item in items or []:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise UserError(f"--param expects NAME=VALUE, got {item!r}")
        special = {"nan": math.nan, "inf": math.inf, "+inf": math.inf, "-inf": -math.inf}
        try:
            params[key.strip()] = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            params[key.strip()] = special.get(raw.strip().lower(), raw)
    return params


def _construct(name: str, cls: type, params: dict, flag: str = "--param"):
    try:
        sig = inspect.signature(cls)
    except (TypeError, ValueError):  # pragma: no cover - every learner has a signature
        sig = None
    if sig is not None:
        known = [p.name for p in sig.parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        takes_any = any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())
        unknown = [k for k in params if k not in known]
        if unknown and not takes_any:
            raise UserError(f"unknown parameter {unknown[0]!r} for {name}; its parameters: {', '.join(known) or 'none'}")
        missing = [p for p in registry.required_parameters(cls) if p not in params]
        if missing:
            raise UserError(f"{name} needs parameter {missing[0]!r}: pass "
                            + (f"--param {missing[0]}=VALUE" if flag == "--param" else f"{flag} {name}:{missing[0]}=VALUE"))
    try:
        return cls(**params)
    except (TypeError, ValueError) as exc:
        raise UserError(f"invalid {flag} value for {name}: {exc}") from exc
    except (RuntimeError, ImportError) as exc:   # e.g. --param backend=cupy on a machine without a GPU
        shown = " ".join(f"{flag} {k}={v!r}" for k, v in params.items())
        raise UserError(f"{name} cannot be built with {shown}: {exc}") from exc


#: The experts of ``omkl run Mixture`` (and ``omkl run --csv F``) when no ``--expert`` is given:
#: :func:`omkl_core.mixture.default_pool` (each in its own online scalers).
DEFAULT_EXPERTS = ("running mean", "VAW2", "OnlineRidge")


#: The meta-learner of ``omkl run Mixture`` when no ``--meta`` is given (:func:`omkl_core.mixture.default_meta`).
DEFAULT_META = "MLPoly:bounds=None"


def _split_top(text: str) -> list[str]:
    """``text`` split at the commas outside brackets and quotes (``bounds=(0,1),m=5`` -> two)."""
    parts, depth, quote, cur = [], 0, None, []
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return [p for p in (q.strip() for q in parts) if p]


def _parse_spec(spec: str, flag: str) -> tuple[str, dict]:
    """``NAME`` or ``NAME:k=v,k=v`` -> (NAME, parameters)."""
    name, _, rest = spec.partition(":")
    name = name.strip()
    if not name:
        raise UserError(f"{flag} expects NAME or NAME:k=v,...; got {spec!r}")
    try:
        params = _parse_params(_split_top(rest))
    except UserError:
        raise UserError(f"{flag} {spec!r}: parameters must be k=v separated by commas") from None
    return name, params


def _river_expert(name: str, params: dict, flag: str):
    """``river.MODULE.CLASS`` with ``params`` as an omkl learner (from_river)."""

    module, _, clsname = name.rpartition(".")
    try:
        importlib.import_module("river")
    except ImportError:
        raise UserError(f"{flag} {name}: River is not installed (pip install river)") from None
    try:
        cls = getattr(importlib.import_module(module), clsname)
    except (ImportError, AttributeError):
        raise UserError(f"{flag} {name}: no River class {clsname!r} in {module!r} "
                        "(e.g. river.neighbors.KNNRegressor, river.linear_model.LinearRegression)") from None
    try:
        model = cls(**params)
    except (TypeError, ValueError) as exc:
        raise UserError(f"invalid {flag} value for {name}: {exc}") from None
    from ..interop.river import from_river  # noqa: PLC0415  # lazy: River (an optional extra)

    try:
        return from_river(model)
    except (TypeError, ValueError) as exc:
        raise UserError(f"{flag} {name}: {exc}") from None


def _expert(spec: str):
    """One ``--expert`` spec -> (label, learner on raw features)."""
    name, params = _parse_spec(spec, "--expert")
    if name.startswith("river."):
        return name, _river_expert(name, params, "--expert")
    info = _buildable_info(name, "--expert")
    if info.input == "experts":
        raise UserError(f"--expert {name} is a meta-learner (it reads expert forecasts): pass it as --meta {name}")
    return name, _construct(name, info.cls, params, "--expert")


def _buildable_info(name: str, flag: str) -> registry.LearnerInfo:
    if name not in registry.learners():
        raise UserError(f"{flag}: unknown learner {name!r}; known: {', '.join(sorted(registry.buildable()))}")
    info = registry.learner_info(name)
    if not info.buildable:
        raise UserError(f"{flag} {name} cannot be built from plain values: {info.why_not}")
    return info


def _scaled_expert(label: str, learner):
    """An expert of a mixture in the target's units: its own online scalers (features standardised by
    the rows seen -- rows scaled to norm <= 1 for omkl's learners (eq. (34), online), not for River's,
    whose distances a moving divisor would distort -- and the label scaled by ``TargetScaler``)."""
    river = label.startswith("river.")
    return TargetScaler(StandardScaler(max_norm=None if river else 1.0) | learner)


def _mixture(args, scaling: str):
    """``(learner to run, the Mixture itself, raw experts for the budget checks, in_target_units)`` of
    ``omkl run Mixture`` (module docstring). With no ``--expert``/``--meta``: ``Mixture()``, the
    default (its experts carry their own scalers). A meta-learner without label bounds (the default
    ML-Poly, or ``--meta NAME:bounds=None``) aggregates in the target's units, each expert in its own
    scalers; one with bounds [A, B] sees the labels scaled online into [A, B] (the whole mixture in
    ``TargetScaler(StandardScaler(max_norm=1) | ...)``, each expert in its own ``TargetScaler``)."""

    if args.param:
        raise UserError("Mixture takes its experts and meta-learner as --expert NAME[:k=v,...] and --meta "
                        "NAME[:k=v,...], not --param")
    if not args.expert and not args.meta:
        mix = Mixture()
        return mix, mix, list(default_pool().items()), True
    experts = [_expert(spec) for spec in args.expert] if args.expert else None
    if args.meta:
        meta_name, meta_params = _parse_spec(args.meta, "--meta")
        info = _buildable_info(meta_name, "--meta")
        if info.input != "experts":
            raise UserError(f"--meta {meta_name} learns from raw features, not expert forecasts: pass it as "
                            f"--expert {meta_name} (meta-learners: {', '.join(n for n, i in registry.buildable().items() if i.input == 'experts')})")
        meta = _construct(meta_name, info.cls, meta_params, "--meta")
    else:
        meta = default_meta()
    raw_units = getattr(meta, "bounds", None) is None
    if experts is None:
        pool = default_pool()
        learners = pool if raw_units or scaling != "online" else {k: TargetScaler(v) for k, v in pool.items()}
        raw = list(pool.items())
    else:
        names = _unique([label for label, _ in experts])
        if scaling == "online":
            wrap = _scaled_expert if raw_units else (lambda _label, e: TargetScaler(e))
            learners = {n: wrap(label, e) for n, (label, e) in zip(names, experts)}
        else:
            learners = {n: e for n, (_label, e) in zip(names, experts)}
        raw = experts
    try:
        mix = Mixture(learners, meta=meta)
    except (TypeError, ValueError) as exc:
        raise UserError(f"Mixture: {exc}") from None
    if scaling == "online" and not raw_units:
        return TargetScaler(Pipeline(StandardScaler(max_norm=1.0), mix), method=args.target_scale or "auto"), mix, raw, False
    return mix, mix, raw, scaling == "online"


def _unique(labels: list[str]) -> list[str]:
    """``labels`` with repeats numbered (``VAW2 #1``, ``VAW2 #2``)."""
    out, seen = [], {}
    for lab in labels:
        if labels.count(lab) > 1:
            seen[lab] = seen.get(lab, 0) + 1
            lab = f"{lab} #{seen[lab]}"
        out.append(lab)
    return out


def _steps(n: int) -> str:
    return f"{n} step" if n == 1 else f"{n} steps"


def _mixture_lines(mix, in_target_units: bool) -> list[str]:
    """What ``omkl run Mixture`` says about the mixture it ran: its experts (with their last weights
    and abstentions), its meta-learner and the bound it carries."""
    meta = mix.meta_
    w = mix.weights_
    names = mix.expert_names_
    experts = ", ".join(f"{n} {float(w[j]):.2f}" + (f" (abstained {_steps(int(mix.n_abstained_[j]))})"
                                                   if mix.n_abstained_[j] else "")
                        for j, n in enumerate(names))
    bounds = getattr(meta, "bounds", None)
    where = ("in the target's units, each expert in its own online scalers" if in_target_units and bounds is None
             else "on the labels as given" if bounds is None else
             f"on labels scaled into [{float(bounds[0]):g}, {float(bounds[1]):g}]")
    rb = getattr(meta, "regret_bound", None)
    lines = [f"experts (weight at the end): {experts}",
             f"meta-learner: {type(meta).__name__}({', '.join(f'{k}={v!r}' for k, v in meta.get_params().items() if k != 'n_experts')}) {where}; "
             + (f"its bound: {rb.name} (printed by --regret)" if rb is not None else "it carries no stated bound")]
    if not any(n.lower().replace("_", " ") in ("running mean", "runningmean") for n in names):
        lines.append("note: the pool holds no running mean, so the bound does not cover it (add --expert RunningMean)")
    return lines


def _check_budget(name: str, model, shape: tuple[int, int]) -> None:
    """Before the run: a learner whose state grows with the stream (``cost_estimate(T)``, the
    kernel ridge family: O(T^2) memory, O(T^3) time) is refused when the whole stream's state
    exceeds physical memory, with the bytes it needs, and otherwise warned about once, for the
    whole stream (not for the first chunk of it, after that chunk has run)."""
    estimate = getattr(type(model), "cost_estimate", None)
    if estimate is None:
        return
    T = int(shape[0])
    flops, nbytes = estimate(T)
    try:
        check_memory(nbytes, f"{name} on the whole stream (T={T} steps, O(T^2) state)")
    except MemoryError as exc:
        raise UserError(f"{exc} or a shorter stream, or a random-feature learner (VAW2, OnlineRidge)") from None
    long_flops = getattr(model, "LONG_STREAM_FLOPS", math.inf)
    long_bytes = getattr(model, "LONG_STREAM_BYTES", math.inf)
    if flops > long_flops or nbytes > long_bytes:
        warnings.warn(f"{name}: the whole stream (T={T} steps) costs O(T^3) time and O(T^2) memory: about "
                      f"{flops:.2g} flops (~{flops / 1e9 / 60:.2g} min at ~1 GFLOP/s) and {nbytes / 1e9:.3g} GB; "
                      "a random-feature learner (VAW2, OnlineRidge) is linear in T", UserWarning, stacklevel=2)
        model._long_warned = True   # the learner's own warning would speak of one chunk only


def _check_state_memory(learners, shape: tuple[int, int], block_rows: int | None) -> None:
    """Before the run (issue 52): the memory the learners' state needs on ``shape[1]`` features
    (``state_nbytes(d)``: the O(d^2) state of OnlineRidge, BayesianRidge, VAW) summed with the
    blocks of a ``--csv`` stream (``block_rows`` rows of the raw, scaled and standardised inputs,
    3 copies of 8 bytes a value), refused in one line naming the estimate and what is available."""
    def inner(e):                # the learner inside its wrappers (TargetScaler, Pipeline: ``.learner``)
        for _ in range(8):
            nxt = getattr(e, "learner", None)
            if nxt is None or isinstance(nxt, (list, tuple, dict)):
                break
            e = nxt
        return e

    T, d = int(shape[0]), int(shape[1])
    parts = [(name, float(inner(e).state_nbytes(d))) for name, e in learners if hasattr(inner(e), "state_nbytes")]
    if block_rows:
        parts.append((f"the --csv blocks ({min(T, block_rows):,} rows x {d:,} features)", 3.0 * 8 * min(T, block_rows) * d))
    total = sum(nbytes for _, nbytes in parts)
    if total < 1 << 26:          # under 64 MiB: nothing to check
        return
    what = " + ".join(f"{name} ~{fmt_bytes(nbytes)}" for name, nbytes in parts)
    try:
        check_memory(total, f"the run on {d:,} features ({what})")
    except MemoryError as exc:
        raise UserError(f"{exc}, fewer columns, or a learner whose state does not grow as d^2 (VAW2, "
                        "RunningMean)") from None


def _build(args, cls, params: dict, is_mixture: bool, scaling: str, shape):
    """``(model, mix, in_target_units)`` of ``omkl run``: the learner from ``--param`` (or the Mixture from
    ``--expert``/``--meta``), each refused before the run when its state would not fit the stream
    (:func:`_check_budget`); ``mix`` the Mixture (None for a single learner)."""
    mix, in_target_units = None, False
    if is_mixture:
        if args.target_scale is not None and not args.meta:
            raise UserError("--target-scale applies to a single learner or to --meta with label bounds; the default "
                            "Mixture aggregates in the target's units (each expert scales its own labels)")
        model, mix, experts, in_target_units = _mixture(args, scaling)
        for label, e in experts:
            _check_budget(label, e, shape)
        _check_state_memory(experts, shape, None if args.dataset else BLOCK_ROWS)
    else:
        model = _construct(args.model, cls, params)
        _check_budget(args.model, model, shape)
        _check_state_memory([(args.model, model)], shape, None if args.dataset else BLOCK_ROWS)
    return model, mix, in_target_units
