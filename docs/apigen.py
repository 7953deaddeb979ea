"""The API pages of the documentation site, generated from the public names of ``omkl_core``.

:func:`write_api` writes one page per module of :data:`LIBRARY` and :data:`REPRO` (its
docstring, then an entry for every name of its ``__all__``) and one page per top-level name of
``omkl_core``; an object that several namespaces export is documented once (the first namespace in
that order) and linked from the others. ``tests/test_docs.py`` checks that every public name of
every public module has its entry. :func:`_escape_plain` keeps the docstrings' plain-text notation
(``|w|``, ``weights_``) from being read as reStructuredText markup.
"""
from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
import shutil
from pathlib import Path

# ----------------------------------------------------------------------------- public names
_ORDER = ("base", "protocol", "validation", "checks", "registry", "datasets", "preprocessing", "features", "kernels",
          "vaw", "sherman_morrison", "ridge", "aggregation", "pairing", "mixture", "mkl", "noisy", "sparse_additive", "bounds", "oracles",
          "interop", "sweep", "compiled", "backend", "cli")
_REPRO_ORDER = ("report", "html_report", "paper_values", "errata", "claims", "baselines", "leaderboard",
                "regret_tables", "verify", "timing", "driver", "notebooks", "process", "runner", "style")


def _discover(package: str, order: tuple[str, ...], skip: tuple[str, ...] = ()) -> list[str]:
    """The public modules of ``package`` (no leading underscore): those of ``order`` first, in that
    order, then any other one found (a module added later gets its page without an edit here)."""
    import pkgutil  # noqa: PLC0415

    pkg = importlib.import_module(package)
    found = {m.name for m in pkgutil.iter_modules(pkg.__path__) if not m.name.startswith("_") and m.name not in skip}
    return [f"{package}.{m}" for m in order if m in found] + [f"{package}.{m}" for m in sorted(found - set(order))]


#: the public namespaces of the library wing, in the order their pages appear
LIBRARY = ["omkl_core", *_discover("omkl_core", _ORDER, skip=("repro",))]
#: the reproduction wing (extra ``repro``)
REPRO = _discover("omkl_core.repro", _REPRO_ORDER)


def public_names(modname: str) -> list[str]:
    """The names a module exports: its ``__all__`` (submodule names of ``omkl_core`` left out: they
    have pages of their own)."""
    mod = importlib.import_module(modname)
    names = list(getattr(mod, "__all__", []))
    return [n for n in names if not inspect.ismodule(getattr(mod, n, None))]


def _directive(obj) -> str:
    if inspect.isclass(obj):
        return "autoclass"
    if inspect.isfunction(obj) or inspect.isbuiltin(obj) or callable(obj) and hasattr(obj, "__wrapped__"):
        return "autofunction"
    return "autodata"


def _title(text: str, ch: str = "=") -> str:
    return f"{text}\n{ch * len(text)}\n"


def write_api(out: Path) -> None:
    """One page per public name of ``omkl_core`` (its ``__all__``) and one page per module listing every
    name it exports; an object re-exported by several namespaces is documented once (the first
    namespace in :data:`LIBRARY` order) and linked from the others."""
    out = Path(out)
    shutil.rmtree(out, ignore_errors=True)
    (out / "names").mkdir(parents=True)
    documented: dict[int, str] = {}
    modules = []
    for section, mods in (("library", LIBRARY), ("repro", REPRO)):
        for modname in mods:
            if importlib.util.find_spec(modname) is None:       # a module another branch adds
                continue
            mod = importlib.import_module(modname)
            rows, entries = [], []
            for name in public_names(modname):
                obj = getattr(mod, name)
                full = f"{modname}.{name}"
                first = documented.get(id(obj)) if not isinstance(obj, (int, float, str, tuple, bool)) else None
                if first is None:
                    documented[id(obj)] = full
                    if modname == "omkl_core":     # the top-level API: a page per name
                        (out / "names" / f"{full}.rst").write_text(
                            _title(name) + f"\n.. currentmodule:: omkl_core\n\n.. {_directive(obj)}:: {name}\n",
                            encoding="utf-8")
                        rows.append(f"   * - :py:obj:`{name} <{full}>`\n     - {_summary(obj)}")
                    else:
                        entries.append(f".. {_directive(obj)}:: {name}\n")
                        rows.append(f"   * - :py:obj:`{name} <{full}>`\n     - {_summary(obj)}")
                else:
                    rows.append(f"   * - :py:obj:`{name} <{first}>`\n     - the same object as ``{first}``")
            table = (".. list-table::\n   :header-rows: 0\n   :widths: 30 70\n\n" + "\n".join(rows) + "\n") if rows else ""
            text = (_title(f"``{modname}``") + f"\n.. automodule:: {modname}\n   :no-members:\n\n"
                    + (f".. rubric:: Public names\n\n{table}\n" if table else "")
                    + (f".. currentmodule:: {modname}\n\n" + "\n".join(entries) if entries else ""))
            if modname == "omkl_core":
                text += "\n.. toctree::\n   :hidden:\n\n" + "\n".join(
                    f"   names/{modname}.{n}" for n in public_names(modname)
                    if (out / "names" / f"{modname}.{n}.rst").exists()) + "\n"
            (out / f"{modname}.rst").write_text(text, encoding="utf-8")
            modules.append((section, modname))
    index = _title("API reference") + (
        "\nGenerated from the docstrings (numpydoc). The library wing first: ``import omkl_core`` and its "
        "subpackages (NumPy + SciPy only); then the reproduction wing ``omkl_core.repro`` (extra ``repro``). "
        "Every name in a module's ``__all__`` has an entry; the top-level names each have a page.\n\n")
    for section, caption in (("library", "Library"), ("repro", "Reproduction wing")):
        mods = [m for s, m in modules if s == section]
        index += (_title(caption, "-") + "\n.. list-table::\n   :header-rows: 0\n   :widths: 30 70\n\n"
                  + "\n".join(f"   * - :doc:`{m}`\n     - {_module_summary(m)}" for m in mods) + "\n\n"
                  + ".. toctree::\n   :hidden:\n   :maxdepth: 1\n\n" + "\n".join(f"   {m}" for m in mods) + "\n\n")
    (out / "index.rst").write_text(index, encoding="utf-8")


def _module_summary(modname: str) -> str:
    """A module's one line for the API index: the first sentence of its docstring."""
    doc = inspect.getdoc(importlib.import_module(modname)) or ""
    para = " ".join(doc.strip().split("\n\n")[0].split())
    m = re.match(r"(.+?(?<!\b[A-Z])(?<!\be\.g)(?<!\bi\.e)[.;])(\s+[A-Z(`*]|$)", para)   # the first sentence
    line = (m.group(1) if m else para).rstrip(":;")
    line = re.sub(r"\s*\(issues? \d[^)]*\)", "", line)       # the project's issue numbers say nothing to a reader
    return _escape_plain(line) if line else "(no docstring)"


def _summary(obj) -> str:
    doc = inspect.getdoc(obj) if not isinstance(obj, (int, float, str, tuple, bool, dict, list)) else None
    line = (doc or "").strip().split("\n\n")[0].replace("\n", " ")      # the whole first paragraph
    line = line[:-1] if line.endswith("::") else line                     # a literal block follows there
    return _escape_plain(line) if line else "(constant)"


_KEEP = re.compile(r"(``.+?``|:[\w:.-]+:`[^`]+`|`[^`]+`_{0,2})")


def _escape_plain(line: str) -> str:
    parts = _KEEP.split(line)
    for i in range(0, len(parts), 2):           # the even parts lie outside literals and roles
        p = parts[i].replace("|", "\\|")
        parts[i] = re.sub(r"(?<=[\w)\]])_(?=[\s.,;:)\]'\"*]|$)", r"\\_", p)
    return "".join(parts)
