"""The public API is ``omkl_core.__all__``: pinned here, name by name (issue 20 item 7).

A name added to or removed from ``__all__`` must be added to or removed from :data:`PINNED`
too, so that a change of the public API is always a visible, reviewed change. Helpers that
a module merely imports (``vaw.check_int``, ...) are not API.
"""
from __future__ import annotations

import omkl_core as ok

#: ``omkl_core.__all__``, alphabetically
PINNED = {
    '__version__', 'AdaBoost', 'sparse_additive', 'AggregatingAlgorithm', 'aggregation', 'backend',
    'base', 'BatchLearner', 'BayesianAlgorithm', 'BayesianRidge', 'BestSubset', 'BOA', 'bounds',
    'CalibratedEWA', 'checks', 'compiled', 'ConstrainedLasso', 'datasets', 'estimate_analytic',
    'EWA', 'expert_predictions', 'features', 'feedback_graph', 'gibbs_posterior',
    'GradientBoosting', 'interop', 'KernelBayesianRidge', 'KernelDictionary', 'KernelRidge',
    'kernels', 'Lasso', 'ridge', 'sherman_morrison', 'mixture', 'Mixture', 'mkl', 'MLPoly', 'MLProd', 'noisy', 'NoisyKernelOGD',
    'OMKLGF', 'OMKR', 'OnlineLearner', 'OnlineRidge', 'paper000_dictionary',
    'paper003_dictionary', 'PAPER004_EXPORTS', 'Pipeline', 'preprocessing', 'protocol', 'Raker', 'registry',
    'RandomFourierFeatures', 'RBFDictionary', 'run_online', 'SFGMKL', 'SFGMKLR',
    'SingleCopyKernelOGD', 'StandardScaler', 'TargetScaler', 'Trace', 'validation',
    'oracles', 'regret', 'pairing', 'vaw', 'VAW', 'VAW2', 'VAWAggr', 'VAWBOA', 'VAWEWA',
    'VAWExperts', 'VAWMeta', 'VAWMLPoly', 'VAWMLProd', 'cosine', 'threads', 'config', 'show_config',
    'baselines', 'RunningMean', 'ExponentialMean', 'LastValue',
}


def test_all_is_pinned():
    assert len(ok.__all__) == len(set(ok.__all__)), "__all__ lists a name twice"
    assert set(ok.__all__) == PINNED, (f"added: {sorted(set(ok.__all__) - PINNED)}, "
                                       f"removed: {sorted(PINNED - set(ok.__all__))}")


def test_the_renamed_linear_module_still_works_for_one_release_with_a_deprecation_warning():
    """``omkl_core.linear`` became :mod:`omkl_core.ridge`: the old spelling gives the same class and warns,
    naming the new place; a name the ridge package does not have is an AttributeError."""
    import pytest

    with pytest.warns(DeprecationWarning, match=r"omkl_core\.ridge\.OnlineRidge"):
        cls = ok.linear.OnlineRidge
    assert cls is ok.ridge.OnlineRidge
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        ok.linear.Nope  # noqa: B018


def test_the_renamed_vecmath_module_still_works_for_one_release_with_a_deprecation_warning():
    """``omkl_core.vecmath`` became :mod:`omkl_core.cosine`: the old spelling gives the same function and warns."""
    import pytest

    with pytest.warns(DeprecationWarning, match=r"omkl_core\.cosine\.library"):
        fn = ok.vecmath.library
    assert fn is ok.cosine.library


def test_every_name_of_all_resolves():
    missing = [n for n in ok.__all__ if not hasattr(ok, n)]
    assert not missing, f"__all__ names that do not resolve: {missing}"


def test_importing_the_library_loads_no_reproduction_dependency():
    """``import omkl_core`` loads NumPy and SciPy, not pandas, matplotlib, seaborn, papermill, tqdm or
    the reproduction wing (a fresh interpreter: this test process has them loaded already)."""
    import subprocess
    import sys

    code = ("import sys, omkl_core\n"
            "heavy = {'pandas', 'matplotlib', 'seaborn', 'papermill', 'tqdm', 'omkl_core.repro'} & set(sys.modules)\n"
            "assert not heavy, sorted(heavy)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr


def test_the_library_never_imports_the_reproduction_wing_or_the_package_init():
    """No module of the library wing names ``omkl_core.repro`` or imports the package ``__init__``
    from below (``import omkl_core`` / ``from omkl_core import``). (No import circle in the package:
    ``tests/test_import_rules.py``.)"""
    import ast
    from pathlib import Path

    root = Path(ok.__file__).resolve().parent
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] == "repro":
            continue
        mod = ".".join(("omkl_core", *rel.with_suffix("").parts)).removesuffix(".__init__")
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
                    base = base[:len(base) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                names = [f"{target}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                target, names = "", [a.name for a in node.names]
            else:
                continue
            for t in [target, *names]:
                assert not t.startswith("omkl_core.repro"), f"{mod} imports the reproduction wing ({t})"
            if target == "omkl_core" and mod != "omkl_core":
                submodules = [n for n in names if (root / n.split(".", 1)[1].replace(".", "/")).with_suffix(".py").exists()
                              or (root / n.split(".", 1)[1].replace(".", "/")).is_dir()]
                assert submodules == names, f"{mod} imports from the package __init__: {names}"
            if any(n == "omkl_core" for n in names if isinstance(node, ast.Import)):
                raise AssertionError(f"{mod} imports the package __init__ (import omkl_core)")
    # the import circles of the whole package, reproduction wing included: tests/test_import_rules.py


def test_removed_meta_learners_is_given_back_with_a_deprecation_warning():
    """``omkl_core.mkl.META_LEARNERS`` (removed in issue 30 without a CHANGELOG line) comes back for one
    release: ``{row: (factory, {})}`` with ``factory()`` the row's meta-learner, and a DeprecationWarning."""
    import pytest

    with pytest.warns(DeprecationWarning, match="META_LEARNERS is deprecated"):
        old = ok.mkl.META_LEARNERS
    assert list(old) == ok.mkl.TABLE2_ROWS
    factory, fixed = old["VAW2 (trunc)"]
    assert fixed == {} and repr(factory()) == repr(ok.mkl.make_meta("VAW2 (trunc)"))
    with pytest.raises(AttributeError, match="no attribute 'NO_SUCH_NAME'"):
        ok.mkl.NO_SUCH_NAME  # noqa: B018


def test_the_renamed_packages_still_work_for_one_release_with_a_deprecation_warning():
    """``omkl_core.additive`` became :mod:`omkl_core.sparse_additive` (it holds the Lasso family and best subset
    beside boosting) and ``omkl_core.noisy.oracles`` :mod:`omkl_core.noisy.noise` (paper 001's noise laws, apart
    from :mod:`omkl_core.oracles`): the old names give the same objects and warn, naming the new place."""
    import importlib

    import pytest

    with pytest.warns(DeprecationWarning, match=r"omkl_core\.sparse_additive\.Lasso"):
        assert ok.additive.Lasso is ok.sparse_additive.Lasso
    old = importlib.import_module("omkl_core.noisy.oracles")
    with pytest.warns(DeprecationWarning, match=r"omkl_core\.noisy\.noise\.GaussianNoise"):
        assert old.GaussianNoise is ok.noisy.noise.GaussianNoise
