"""The commands of ``omkl``: ``datasets``, ``models``, ``run`` and ``sweep``."""
from __future__ import annotations

import contextlib
import json
import math
import re

import numpy as np

from .. import registry
from ..preprocessing import Pipeline, StandardScaler, TargetScaler
from ..protocol import dominant_step_note, first_step_note
from ..regret import aggregates_experts, regret_report
from .build import DEFAULT_EXPERTS, _build, _mixture_lines, _parse_params
from .errors import UserError, _error, deferred_sigterm
from .stream import (
    SCALINGS,
    _block_rows,
    _check_output,
    _csv_output,
    _open_stream,
    _resolve_scaling,
    _run_blocks,
    _write_csv,
)


# ----------------------------------------------------------------------------- learners
def _kind(info: registry.LearnerInfo) -> str:
    kind = "expert predictions (--forecasts)" if info.input == "experts" else "raw features"
    needs = " ".join(f"--param {k}={repr(v).replace(' ', '')}" for k, v in info.needs.items())
    return f"{kind}; needs {needs}" if needs else kind


# ----------------------------------------------------------------------------- commands
def _cmd_datasets(args) -> int:
    print(f"{'name':12s} {'T':>6s} {'d':>3s}  target")
    for name in registry.dataset_names():
        meta = registry.dataset_info(name)
        note = f" (generator, {meta.source})" if meta.generator else ""
        print(f"{name:12s} {meta.T:6d} {meta.d:3d}  {meta.target}{note}")
    return 0


_SENTENCE_END = re.compile(r"(?<!\bref)(?<!\beq)(?<!\beqs)(?<!\bsec)(?<!\bProp)(?<!\bal)(?<!e\.g)(?<!i\.e)\.\s+(?=[A-Z(`])")


def _describe(cls) -> str:
    """The first sentence of a learner class's docstring, whole, never cut (what ``omkl models``
    prints; every learner's docstring opens with a sentence in plain words)."""
    doc = " ".join((cls.__doc__ or "").strip().split("\n\n")[0].replace("``", "").split())
    if not doc:
        return ""
    m = _SENTENCE_END.search(doc)
    return doc if m is None else doc[:m.start() + 1]


def _cmd_models(args) -> int:
    print("learners of 'omkl run MODEL' (one a line: its name, what it is, [the input it takes]):")
    for name, info in registry.buildable().items():
        print(f"  {name:22s} {_describe(info.cls)}  [{_kind(info)}]")
    print(f"  {'Mixture':22s} The default of 'omkl run --csv F': {', '.join(DEFAULT_EXPERTS)}, their forecasts combined "
          f"by ML-Poly in the target's units, with its regret bound.  [raw features; --expert NAME[:k=v,...] and "
          f"--meta NAME[:k=v,...] choose others]")
    other = [registry.learner_info(n) for n in sorted(registry.learners())
             if n not in registry.buildable() and n != "Mixture"]
    if other:
        print("not buildable by 'omkl run' (Python API only): "
              + "; ".join(f"{i.name} ({i.why_not})" for i in other))
    return 0


def _cmd_run(args) -> int:
    learners = registry.learners()
    if args.model not in learners:
        raise UserError(f"unknown model {args.model!r}; known: {', '.join(sorted(registry.buildable()))}")
    is_mixture = args.model == "Mixture"
    if (args.expert or args.meta) and not is_mixture:
        raise UserError("--expert and --meta apply to 'omkl run Mixture' only")
    info = registry.learner_info(args.model)
    if not info.buildable and not is_mixture:
        raise UserError(f"{args.model} cannot be built from --param values (Python API only): {info.why_not}")
    cls = info.cls
    params = _parse_params(args.param)
    meta = info.input == "experts"
    if is_mixture and args.forecasts:
        raise UserError("Mixture learns from raw features and aggregates its own experts; drop --forecasts "
                        "(a meta-learner on a CSV of expert forecasts: omkl run BOA --csv F --forecasts)")
    if meta and not args.forecasts:
        raise UserError(f"{args.model} is a meta-learner: it aggregates expert predictions, not raw features; "
                        "pass --csv FILE --forecasts with one column per expert forecast (or pick a learner on "
                        "raw features: 'omkl models')")
    if args.forecasts and not meta:
        raise UserError(f"{args.model} learns from raw features, not expert predictions; drop --forecasts "
                        "or pick a meta-learner ('omkl models')")
    if args.forecasts and args.dataset:
        raise UserError("--forecasts needs --csv (the bundled datasets hold raw features)")
    if args.target is not None and not args.csv:
        raise UserError("--target applies to --csv only")
    out = _check_output(args.predictions, inputs={"--csv": args.csv}) if args.predictions else None
    scaling = _resolve_scaling(args)
    with contextlib.ExitStack() as stack:
        return _run_on_stream(args, stack, cls, params, is_mixture, out, scaling)


def _run_on_stream(args, stack, cls, params, is_mixture, out, scaling) -> int:
    """The part of ``omkl run`` that reads the stream, builds the learner, runs it (block by block
    for ``--csv``: bounded memory) and reports."""
    blocks, shape, lo, width, target = _open_stream(args, stack, scaling)
    model, mix, in_target_units = _build(args, cls, params, is_mixture, scaling, shape)
    if args.regret:

        if not aggregates_experts(model if mix is None else mix):
            raise UserError(f"--regret needs a learner that aggregates experts (a meta-learner with --forecasts, a "
                            f"VAW-family learner or a Mixture); {args.model} is not one")
        if scaling == "online" and not in_target_units:
            raise UserError("--regret evaluates the bounds on a fixed scaling: pass --scale paper or --scale none "
                            "(--scale online rescales the stream while it runs), or use the default Mixture (it "
                            "aggregates in the target's units)")
    if scaling == "online" and mix is None:   # features and target scaled online (module docstring)
        model = TargetScaler(Pipeline(StandardScaler(max_norm=1.0), model), method=args.target_scale or "auto")
    writer = stack.enter_context(_csv_output(out, ["t", "y", "y_hat", "mse"])) if out is not None else None
    kept = [] if args.regret else None
    try:
        res = _run_blocks(model, blocks(_block_rows(model, shape[0], args.progress, bool(args.dataset))), shape[0],
                          paper=scaling == "paper", lo=lo, width=width, progress=args.progress, writer=writer,
                          keep=kept)
    except (ValueError, FloatingPointError, OverflowError) as exc:
        shown = " ".join(f"--param {item}" for item in args.param or []) or "its default parameters"
        raise UserError(f"{args.model} with {shown} failed on this stream: {exc} (a parameter outside the "
                        "range where the computation stays finite?)") from None
    mse, base_mse = res["mse"], res["base_mse"]
    ratio = f" ({mse / base_mse:.3g} of the baseline)" if base_mse > 0 else ""
    scaled = f" mse_scaled={res['mse_scaled']:.6g}" if scaling == "paper" else ""
    after = (f" mse_after_first={res['mse_after_first']:.6g} baseline_mse_after_first="
             f"{res['base_mse_after_first']:.6g}" if res["T"] > 1 else "")
    print(f"{args.model}: T={res['T']} mse={mse:.6g} baseline_mse={base_mse:.6g}{ratio}{after}{scaled} "
          f"seconds={res['seconds']:.3f} [mse, baseline_mse in the units of the target {target!r}, over all "
          f"{res['T']} steps; *_after_first over steps 2..{res['T']}; baseline: "
          f"the running mean of the raw labels before step t"
          f"{'; mse_scaled on the [0, 1] target of eq. (33) (the papers tables print 1000 times it)' if scaled else ''}; "
          f"scaling: {SCALINGS[scaling]}]")
    for note in (first_step_note(res["first_share"], res["first_forecast"], res["T"]), _dominant_note(res, args)):
        if note:
            print(note)
    if mix is not None:
        for line in _mixture_lines(mix, in_target_units):
            print(line)
    if args.regret:   # issues 34, 39, 41: the regret per comparator, the bound and a verdict, in the target's units

        X, y = (np.concatenate([b[0] for b in kept]), np.concatenate([b[1] for b in kept])) if len(kept) > 1 else kept[0]
        print(regret_report(model if mix is None else mix, X, y, scale=width ** 2 if scaling == "paper" else 1.0,
                            target=target))
    return 0


def _dominant_note(res: dict, args) -> str:
    """The line naming a step that carries most of the squared error (issue 52; the rule and its
    threshold: :func:`omkl_core.protocol.dominant_step_note`), ``""`` when none does."""
    top, T = res["largest"], res["T"]
    total = res["mse"] * T
    share = top["loss"] / total if total > 0 else 0.0
    source = f"--dataset {args.dataset}" if args.dataset else "--csv " + ("standard input" if args.csv == "-" else args.csv)
    rest = T - 1 if T > 1 else 1
    return dominant_step_note(top["t"], share, T, label=top["label"], forecast=top["forecast"],
                              mse_rest=(total - top["loss"]) / rest,
                              base_mse_rest=(res["base_mse"] * T - top["base_loss"]) / rest,
                              row=f"row {top['t']} of {source}")


def _markdown(records: list[dict], columns: list[str], floatfmt: str = ".5g") -> str:
    """A GitHub-flavoured markdown table of ``records`` (plain Python, no pandas)."""
    def fmt(v) -> str:
        if isinstance(v, float):
            return "" if math.isnan(v) else format(v, floatfmt)
        return str(v).replace("|", "\\|")

    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    lines += ["| " + " | ".join(fmt(r[c]) for c in columns) + " |" for r in records]
    return "\n".join(lines) + "\n"


def _cmd_sweep(args) -> int:
    """``omkl sweep``: run the spec, print the summary, optionally write the rows.

    Exit status 0, 1 when some cell failed (the others still ran and are reported), 2 for a
    bad spec or option (one line on stderr)."""
    from .. import sweep  # noqa: PLC0415  # lazy: load time of the CLI (the sweep loads only for this command)

    local = getattr(args, "local", None)
    executor = args.executor or ("dask" if args.scheduler or local is not None else "processes")
    try:
        # the flags are checked here, before any cell runs, and named as the user typed them
        if args.scheduler and local is not None:
            raise UserError("--scheduler and --local exclude each other: a running cluster or a local one")
        for flag, given in (("--scheduler", args.scheduler), ("--local", local is not None)):
            if given and executor != "dask":
                raise UserError(f"{flag} needs --executor dask, got --executor {executor}")
        if executor == "dask" and not args.scheduler and local is None:
            raise UserError("--executor dask needs --scheduler ADDRESS (a running Dask scheduler, e.g. "
                            "tcp://host:8786) or --local N (a local cluster of N worker processes)")
        if local is not None and local < 1:
            raise UserError(f"--local must be >= 1 (worker processes), got {local}")
        if executor == "dask":
            sweep.import_distributed()
        if args.workers is not None and executor != "processes":
            raise UserError(f"--workers applies to --executor processes, got --executor {executor}")
        if args.workers is not None and args.workers < 1:
            raise UserError(f"--workers must be >= 1, got {args.workers}")
        if args.out:
            _check_output(args.out, "--out", inputs={"spec": args.spec, "--cache-dir": args.cache_dir})
        with contextlib.ExitStack() as stack:
            with deferred_sigterm():           # a cluster stopped while it starts is not closed cleanly
                client = stack.enter_context(sweep.local_client(local)) if local is not None else args.scheduler
            rows = sweep.run(args.spec, executor=executor, client=client, cache_dir=args.cache_dir,
                             max_workers=args.workers if executor == "processes" else None, progress=not args.quiet)
    except KeyboardInterrupt as stop:          # Ctrl-C or SIGTERM: the line says what was kept
        progress = getattr(stop, "progress", None)
        if progress is not None:
            stop.detail = f"{progress[0]} of {progress[1]} cells done, " + (
                "the cache kept (rerun to resume)" if args.cache_dir else
                "nothing cached (--cache-dir DIR keeps the finished cells for a rerun)")
        raise
    except (UserError, ValueError, TypeError, ImportError, OSError) as exc:
        msg = str(exc)
        for python, flag in (("executor='dask'", "--executor dask"), ("client=", "--scheduler"),
                             ("max_workers", "--workers"), ("cache_dir", "--cache-dir")):
            msg = msg.replace(python, flag)
        _error(msg)
        return 2
    print(_markdown(sweep.summarise(rows), sweep.SUMMARY_COLUMNS), end="")
    failed = [r for r in rows if r["error"] != ""]
    for r in failed:
        print(f"failed: {r['dataset']} {r['label']} {r['params']} seed={r['seed']}: {r['error']}")
    print(f"{len(rows)} cells, {sum(bool(r['cached']) for r in rows)} from the cache, {len(failed)} failed")
    if args.out:
        cols = sweep.ROW_COLUMNS        # curves as JSON lists; floats as repr: exact round trip
        _write_csv(args.out, cols, ([json.dumps(r[c]) if c in ("curve_t", "curve") else r[c] for c in cols]
                                    for r in rows))
    return 1 if failed else 0
