"""Import rules of the package (issue 40): no private name crosses a package, no import hides in a
function to dodge the import order, no import circle, and the registry sits above the learners.

A *package* is the directory holding a module: ``omkl_core/x.py`` and ``omkl_core/y.py`` are one
package, ``omkl_core/mkl/a.py`` and ``omkl_core/registry.py`` are not. The rules walk, with
:mod:`ast`, every ``.py`` file under ``omkl_core/``, ``benchmarks/`` and ``tools/``:

1. **No private name across packages.** ``from M import _name`` (a leading underscore, not a
   dunder), ``module._name`` on a module bound by an import, and a private *module* in the path
   (``omkl_core.aggregation._base`` imported from outside ``omkl_core/aggregation/``) are refused
   unless the importer lives in the package that defines the name.
2. **A lazy import says why.** An import of an ``omkl_core`` module inside a function body carries
   ``# lazy: <reason>`` on its line, the reason an optional extra (River, CuPy, Numba, pandas,
   Dask, matplotlib, scikit-learn, papermill) or the load time of a command line; any other
   function-level import is hoisted to the module's top.
3. **No circle, no back-arrow.** The graph of every import in the package (function bodies
   included) has no circle; nothing the registry imports imports the registry (the learners below
   it); :mod:`omkl_core.presets` imports only :mod:`omkl_core.features` and :mod:`omkl_core.validation`.

There is no allow-list: every violation fails, with its file, line and name.
"""
from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TREES = ("omkl_core", "benchmarks", "tools")
PACKAGE = "omkl_core"

#: ``# lazy: <reason>`` -- the reasons a function-level import of the package may give.
LAZY_REASON = re.compile(r"#\s*lazy:\s*(River|CuPy|Numba|pandas|Dask|matplotlib|scikit-learn|papermill|"
                         r"load time of the (CLI|command line|driver))\b", re.IGNORECASE)

# ----------------------------------------------------------------------------- the walker
@dataclass(frozen=True)
class Violation:
    path: str
    line: int
    rule: str       # "private" or "lazy"
    name: str       # the dotted name imported or accessed

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.path, self.rule, self.name)

    def __str__(self) -> str:
        what = ("private name imported across packages" if self.rule == "private"
                else "function-level import without '# lazy: <reason>'")
        return f"{self.path}:{self.line}: {what}: {self.name}"


class Tree:
    """The modules of the walked trees: dotted name -> file, and each module's package directory."""

    def __init__(self, root: Path, trees=TREES, package: str = PACKAGE):
        self.root, self.package = root, package
        self.files: list[Path] = sorted(p for t in trees if (root / t).is_dir() for p in (root / t).rglob("*.py"))
        self.modules: dict[str, Path] = {}
        for p in (root / package).rglob("*.py"):
            parts = list(p.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            self.modules[".".join(parts)] = p

    def module_of(self, path: Path) -> str:
        parts = list(path.relative_to(self.root).with_suffix("").parts)
        return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)

    def home(self, module: str) -> Path:
        """The directory of the package that defines the names of ``module``."""
        path = self.modules[module]
        return path.parent

    def is_module(self, dotted: str) -> bool:
        return dotted in self.modules


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _resolve(module: str, is_init: bool, level: int, target: str | None) -> str:
    if not level:
        return target or ""
    base = module.split(".") if is_init else module.split(".")[:-1]
    base = base[:len(base) - level + 1]
    return ".".join(base + ([target] if target else []))


def _function_lines(tree: ast.AST) -> set[int]:
    """The line numbers of the import statements inside a function body (any depth)."""
    out: set[int] = set()
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    out.add(node.lineno)
    return out


def violations(root: Path = ROOT, trees=TREES, package: str = PACKAGE) -> list[Violation]:
    """Every violation of rules 1 and 2 under ``root``."""
    t = Tree(root, trees, package)
    found: list[Violation] = []
    for path in t.files:
        rel = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        tree = ast.parse(text, filename=rel)
        here = path.parent
        module = t.module_of(path)
        is_init = path.name == "__init__.py"
        in_function = _function_lines(tree)
        bound: dict[str, str] = {}          # local name -> the package module it is bound to

        def check_module_path(dotted: str, node: ast.AST, rel=rel, here=here) -> None:
            parts = dotted.split(".")
            for i in range(1, len(parts)):
                owner = ".".join(parts[:i])
                if _private(parts[i]) and t.is_module(owner) and t.home(owner) != here:
                    found.append(Violation(rel, node.lineno, "private", ".".join(parts[:i + 1])))
                    return

        def check_name(owner: str, name: str, node: ast.AST, rel=rel, here=here) -> None:
            if _private(name) and t.is_module(owner) and t.home(owner) != here:
                found.append(Violation(rel, node.lineno, "private", f"{owner}.{name}"))

        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                target = _resolve(module, is_init, node.level, node.module)
                if not (target == package or target.startswith(package + ".")):
                    continue
                check_module_path(target, node)
                for a in node.names:
                    full = f"{target}.{a.name}"
                    if t.is_module(full):
                        bound[a.asname or a.name] = full
                    check_name(target, a.name, node)
                lazy_target = target
            elif isinstance(node, ast.Import):
                names = [a for a in node.names if a.name == package or a.name.startswith(package + ".")]
                if not names:
                    continue
                for a in names:
                    check_module_path(a.name, node)
                    if a.asname:
                        bound[a.asname] = a.name
                    else:
                        bound[a.name.split(".")[0]] = a.name.split(".")[0]
                lazy_target = names[0].name
            else:
                continue
            if node.lineno in in_function:
                span = " ".join(lines[node.lineno - 1:node.end_lineno])
                if not LAZY_REASON.search(span):
                    found.append(Violation(rel, node.lineno, "lazy", lazy_target))

        # module._name on a module bound by an import (attribute chains: ok.mkl.vaw2._x)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute):
                continue
            chain, base = [], node
            while isinstance(base, ast.Attribute):
                chain.append(base.attr)
                base = base.value
            if not isinstance(base, ast.Name) or base.id not in bound:
                continue
            owner = bound[base.id]
            for attr in reversed(chain):
                if _private(attr):
                    check_name(owner, attr, node)
                    break
                if not t.is_module(f"{owner}.{attr}"):
                    break
                owner = f"{owner}.{attr}"
    # one entry per (file, line, rule, name): an attribute chain is visited once per link
    return sorted(set(found), key=lambda v: (v.path, v.line, v.rule, v.name))


def import_graph(root: Path = ROOT, package: str = PACKAGE) -> dict[str, set[str]]:
    """Module -> the package modules it imports (function bodies included; a name imported from a
    module counts as that module, a submodule as itself)."""
    t = Tree(root, (package,), package)
    graph: dict[str, set[str]] = {}
    for module, path in t.modules.items():
        edges = graph.setdefault(module, set())
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                target = _resolve(module, path.name == "__init__.py", node.level, node.module)
                names = [f"{target}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                target, names = "", [a.name for a in node.names]
            else:
                continue
            for n in names:
                hit = n if t.is_module(n) else target if t.is_module(target) else None
                if hit and hit != module and not module.startswith(hit + "."):
                    edges.add(hit)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph`` (one path each)."""
    state: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                out.append(stack[stack.index(n):] + [n])
            elif n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    return out


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        m = todo.pop()
        for n in graph.get(m, ()):
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return seen


# ----------------------------------------------------------------------------- the rules
def test_no_private_name_crosses_a_package_and_every_lazy_import_says_why():
    found = violations()
    new = list(found)
    assert not new, ("import rules broken (tests/test_import_rules.py, module docstring):\n"
                     + "\n".join(str(v) for v in new))


def test_the_package_has_no_import_circle_and_the_registry_no_back_arrow():
    graph = import_graph()
    assert not circles(graph), "import circles: " + "; ".join(" -> ".join(c) for c in circles(graph))
    below = _reachable(graph, "omkl_core.registry")
    back = sorted(m for m in below if "omkl_core.registry" in graph[m])
    assert not back, f"modules the registry imports import it back: {back}"
    for family in ("omkl_core.mkl", "omkl_core.aggregation", "omkl_core.ridge", "omkl_core.mixture",
                   "omkl_core.baselines", "omkl_core.vaw", "omkl_core.noisy", "omkl_core.preprocessing"):
        assert family in below, f"the registry does not import the learner family {family} at its top"
    assert graph["omkl_core.presets"] <= {"omkl_core.features", "omkl_core.validation"}, graph["omkl_core.presets"]
    assert "omkl_core.registry" not in _reachable(graph, "omkl_core.presets")
    assert "omkl_core.registry" not in _reachable(graph, "omkl_core.datasets")


def test_the_registry_discovers_without_importlib():
    """Discovery reads the learner families the registry imported at its top: no ``importlib``."""
    text = (ROOT / "omkl_core" / "registry.py").read_text(encoding="utf-8")
    assert "importlib" not in text


# ----------------------------------------------------------------------------- the rules can fail
def _write(root: Path, files: dict[str, str]) -> Path:
    for name, body in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(body), encoding="utf-8")
    return root


def test_the_walker_catches_each_kind_of_violation(tmp_path):
    """A throw-away package with one violation of each kind: each is reported with file:line and name,
    and the allowed forms are not."""
    root = _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/low.py": "_helper = 1\nPUBLIC = 2\n",
        "pkg/same.py": "from .low import _helper  # same package: allowed\nfrom . import low\nx = low._helper\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/_impl.py": "VALUE = 1\n\n\ndef _secret():\n    return 1\n",
        "pkg/sub/user.py": "from ._impl import _secret  # same package: allowed\n",
        "pkg/other/__init__.py": "",
        "pkg/other/top.py": """\
            from ..low import _helper, PUBLIC
            from ..sub._impl import VALUE
            from .. import low
            import pkg.low as L

            y = low._helper + L._helper + L.PUBLIC


            def f():
                from .. import low  # lazy: River is an optional extra
                from ..low import PUBLIC
                from ..sub import user  # lazy: because
                import json
                return low, PUBLIC, user, json
            """,
    })
    found = violations(root, trees=("pkg",), package="pkg")
    got = {(v.path, v.line, v.rule, v.name) for v in found}
    assert got == {
        ("pkg/other/top.py", 1, "private", "pkg.low._helper"),
        ("pkg/other/top.py", 2, "private", "pkg.sub._impl"),
        ("pkg/other/top.py", 6, "private", "pkg.low._helper"),
        ("pkg/other/top.py", 11, "lazy", "pkg.low"),
        ("pkg/other/top.py", 12, "lazy", "pkg.sub"),
    }, got
    assert "pkg/other/top.py:2: private name imported across packages: pkg.sub._impl" in {str(v) for v in found}


def test_the_graph_check_catches_a_circle_and_a_back_arrow(tmp_path):
    root = _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "from . import b\n",
        "pkg/b.py": "def f():\n    from . import a  # lazy: load time of the CLI\n    return a\n",
        "pkg/c.py": "from . import b\n",
    })
    graph = import_graph(root, "pkg")
    assert circles(graph) == [["pkg.a", "pkg.b", "pkg.a"]]
    assert not circles({k: v for k, v in graph.items() if k != "pkg.b"} | {"pkg.b": set()})


@pytest.mark.parametrize("line,ok", [("from . import x  # lazy: River", True),
                                     ("from . import x  # lazy: load time of the CLI", True),
                                     ("from . import x  # lazy: import order", False),
                                     ("from . import x  # noqa: PLC0415", False)])
def test_lazy_reasons(line, ok):
    assert bool(LAZY_REASON.search(line)) is ok
