"""The documentation site's API reference covers every public name of omkl_core (issue 31), and the
user guide's Python examples run as written.

The page generator (docs/apigen.py) is run into a temporary folder and read back; where the site
has been built (``./reproduce.sh docs``), its Sphinx inventory must hold every documented name.
"""
from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil
import re
import sys
from pathlib import Path

import pytest

import omkl_core

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _apigen():
    spec = importlib.util.spec_from_file_location("omkl_docs_apigen", DOCS / "apigen.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _public_modules() -> list[str]:
    """Every public module of the package (no leading underscore in any part), found by walking it:
    a module added later is caught here even if nobody lists it in docs/apigen.py."""
    names = ["omkl_core"]
    for info in pkgutil.walk_packages(omkl_core.__path__, "omkl_core."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            names.append(info.name)
    return names


def _exports(modname: str) -> list[str]:
    mod = importlib.import_module(modname)
    return [n for n in getattr(mod, "__all__", []) if not inspect.ismodule(getattr(mod, n, None))]


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    pytest.importorskip("pandas")                  # the reproduction wing's pages import it
    out = tmp_path_factory.mktemp("api")
    gen = _apigen()
    gen.write_api(out)
    return gen, out


def test_every_public_module_with_exports_has_an_api_page(api):
    gen, out = api
    listed = set(gen.LIBRARY) | set(gen.REPRO)
    for modname in _public_modules():
        if not _exports(modname) and modname != "omkl_core":
            continue
        if modname.split(".")[-1] in ("__main__",):
            continue
        parent = modname.rsplit(".", 1)[0]
        # a submodule of a subpackage is documented through its package's exports
        if parent != "omkl_core" and parent != "omkl_core.repro" and modname not in listed:
            continue
        assert modname in listed, f"{modname} exports {_exports(modname)[:5]}... but has no API page (docs/apigen.py)"
        assert (out / f"{modname}.rst").is_file(), modname


def test_every_public_name_of_omkl_core_has_an_api_entry(api):
    """Each name of each public namespace's __all__: its own autodoc entry on the namespace's page
    (the top-level names: a page of their own), or a row linking to where the same object is
    documented."""
    gen, out = api
    missing = []
    for modname in [*gen.LIBRARY, *gen.REPRO]:
        page = out / f"{modname}.rst"
        if not page.is_file():
            continue
        text = page.read_text(encoding="utf-8")
        for name in _exports(modname):
            own = re.search(rf"^\.\. auto(class|function|data):: {re.escape(name)}$", text, re.M)
            if modname == "omkl_core":
                sub = out / "names" / f"omkl_core.{name}.rst"
                own = sub.is_file() and re.search(rf"^\.\. auto\w+:: {re.escape(name)}$",
                                                  sub.read_text(encoding="utf-8"), re.M)
            alias = re.search(rf":py:obj:`{re.escape(name)} <omkl_core[\w.]*>`", text)   # may carry another name
            if not (own or alias):
                missing.append(f"{modname}.{name}")
    assert not missing, f"public names without an API entry: {missing}"


def test_a_name_exported_twice_is_documented_once_and_linked(api):
    gen, out = api
    mkl = (out / "omkl_core.mkl.rst").read_text(encoding="utf-8")
    assert ":py:obj:`VAW2 <omkl_core.VAW2>`" in mkl and ".. autoclass:: VAW2" not in mkl
    assert (out / "names" / "omkl_core.VAW2.rst").read_text(encoding="utf-8").endswith(".. autoclass:: VAW2\n")


def test_plain_text_notation_is_escaped_outside_literals():
    esc = _apigen()._escape_plain
    assert esc("the weights_ of |w| here") == "the weights\\_ of \\|w\\| here"
    assert esc("``weights_ |w|`` and :class:`~omkl_core.VAW2`") == "``weights_ |w|`` and :class:`~omkl_core.VAW2`"
    assert esc("snake_case stays") == "snake_case stays"


def test_built_site_inventory_holds_every_documented_name(api):
    """After ./reproduce.sh docs: every autodoc entry the generator wrote is in objects.inv."""
    inv_path = DOCS / "_build" / "html" / "objects.inv"
    if not inv_path.is_file():
        pytest.skip("the site is not built (./reproduce.sh docs)")
    from sphinx.util.inventory import InventoryFile

    with open(inv_path, "rb") as fh:
        inv = InventoryFile.load(fh, "", lambda base, uri: uri)
    names = set()
    for entries in getattr(inv, "data", inv).values():
        names.update(entries)
    gen, out = api
    missing = []
    for page in out.rglob("*.rst"):
        text = page.read_text(encoding="utf-8")
        current = re.search(r"^\.\. currentmodule:: (\S+)", text, re.M)
        for m in re.finditer(r"^\.\. auto(?:class|function|data):: (\S+)$", text, re.M):
            full = f"{current.group(1)}.{m.group(1)}"
            if full not in names:
                missing.append(full)
    assert not missing, f"built site lacks entries (rebuild with ./reproduce.sh docs?): {missing[:20]}"


GUIDE_FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


GUIDE_PAGES = sorted(p.name for p in (DOCS / "guide").glob("*.md") if GUIDE_FENCE.search(p.read_text(encoding="utf-8")))


def test_the_guide_has_python_examples():
    assert {"stream.md", "interop.md", "mixture.md", "own_learner.md"} <= set(GUIDE_PAGES)


@pytest.mark.parametrize("page", GUIDE_PAGES)
def test_user_guide_python_examples_run(page, tmp_path, monkeypatch):
    """Each ```python block of a guide page runs (doctest blocks checked), in one namespace per page."""
    import doctest
    import types

    pytest.importorskip("river")
    pytest.importorskip("sklearn")
    text = (DOCS / "guide" / page).read_text(encoding="utf-8")
    blocks = GUIDE_FENCE.findall(text)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OMKL_RESULTS", str(tmp_path / "results"))
    module = types.ModuleType(f"guide_{page[:-3]}")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    ns = module.__dict__
    ns["stream"] = zip(*omkl_core.datasets.ar4(T=60, seed=1))
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for i, src in enumerate(blocks):
        if ">>>" in src:
            test = parser.get_doctest(src, ns, f"{page} block {i}", page, 0)
            out: list[str] = []
            result = runner.run(test, out=out.append, clear_globs=False)
            ns.update(test.globs)
            assert result.failed == 0, "".join(out)
        else:
            exec(compile(src, f"{page} block {i}", "exec"), ns)  # noqa: S102
