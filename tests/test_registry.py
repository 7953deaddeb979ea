"""The one registry (omkl_core.registry): learners, datasets with the ar4 generator entry, and the
paper presets -- and that the CLI, the sweep, the benchmarks and the notebooks take them from it."""
from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import numpy as np
import pytest

import omkl_core as ok
from omkl_core import cli, registry, sweep

ROOT = Path(__file__).resolve().parent.parent


# ----------------------------------------------------------------------------- learners
def _stream(kind: str, T: int = 8, d: int = 2, N: int = 3):
    rng = np.random.default_rng(5)
    y = rng.uniform(0.2, 0.8, T)
    if kind == "experts":                       # forecasts of y by N experts, in [0, 1]
        return np.clip(y[:, None] + 0.1 * rng.standard_normal((T, N)), 0, 1), y
    return rng.uniform(-1, 1, (T, d)) / np.sqrt(d), y


@pytest.mark.parametrize("name", sorted(registry.buildable()))
def test_every_buildable_learner_builds_from_its_registry_values_and_runs(name):
    """What `omkl run NAME` builds without --param (the defaults, plus the registered value of a
    parameter without a usable default) runs predict-then-learn with finite forecasts."""
    info = registry.learner_info(name)
    X, y = _stream(info.input)
    model = info.cls(**info.needs)
    trace = ok.run_online(model, X, y)
    assert trace.predictions.shape == (len(y),) and np.isfinite(trace.predictions).all()


def test_the_learners_that_plain_values_cannot_build_are_named_with_a_reason():
    every, built = set(registry.learners()), set(registry.buildable())
    assert every - built == {"Mixture", "NoisyKernelOGD", "SingleCopyKernelOGD", "VAWExperts", "Pipeline", "TargetScaler"}
    for name in every - built:
        assert registry.learner_info(name).why_not
    # a parameter without a default that the registry holds no value for makes a learner unbuildable
    for name in built:
        sig = inspect.signature(registry.learners()[name])
        required = {p.name for p in sig.parameters.values()
                    if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
        assert required <= set(registry.learner_info(name).needs), name


def test_a_registered_learner_is_known_and_a_required_parameter_is_not_guessed(monkeypatch):
    class _Needs:
        def __init__(self, thing):
            self.thing = thing

        def predict_one(self, x):
            return 0.0

        def learn_one(self, x, y):
            return None

    monkeypatch.setitem(registry._REGISTERED, "_Needs", _Needs)
    info = registry.learner_info("_Needs")
    assert info.cls is _Needs and not info.buildable and "thing" in info.why_not
    assert "_Needs" not in registry.buildable()
    with pytest.raises(ValueError, match="cannot be built from plain parameters"):
        sweep.load_spec({"datasets": ["airfoil"], "learners": [{"name": "_Needs"}], "seeds": [0]})


def test_input_kind_of_the_meta_learners():
    for name in ("EWA", "BOA", "MLPoly", "MLProd", "AggregatingAlgorithm", "CalibratedEWA", "VAWMeta"):
        assert registry.learner_info(name).input == "experts"
    for name in ("VAW2", "OnlineRidge", "Raker", "SFGMKL", "OMKR"):
        assert registry.learner_info(name).input == "features"
    with pytest.raises(ValueError, match="unknown learner 'Nope'"):
        registry.learner_info("Nope")


def test_cli_models_lists_exactly_what_cli_run_builds(capsys):
    assert cli.main(["models"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [ln for ln in lines if ln.startswith("  ")]          # one line each: name, description [input]
    listed = [ln.split()[0] for ln in rows]
    assert listed == [*registry.buildable(), "Mixture"]          # Mixture: the default, or --expert / --meta
    footer = [ln for ln in lines if ln.startswith("not buildable")]
    assert len(footer) == 1 and all(n in footer[0] for n in ("NoisyKernelOGD", "SingleCopyKernelOGD", "VAWExperts"))
    kinds = dict(ln.split(None, 1) for ln in rows)
    assert "--expert" in kinds["Mixture"] and "Mixture" not in footer[0]
    assert kinds["KernelRidge"].endswith("[raw features; needs --param kernel='gaussian']")
    assert cli.main(["run", "NoisyKernelOGD", "--dataset", "airfoil"]) == 2
    assert "Python API only" in capsys.readouterr().err


# ----------------------------------------------------------------------------- datasets
@pytest.mark.parametrize("name", registry.dataset_names())
def test_every_dataset_entry_loads_with_its_registered_shape(name):
    entry = registry.dataset_info(name)
    X, y = registry.load_dataset(name)
    assert X.shape == (entry.T, entry.d) and y.shape == (entry.T,)
    assert X.flags.c_contiguous and y.flags.c_contiguous
    assert y.min() == 0.0 and y.max() == 1.0                       # eq. (33)
    assert np.isclose(np.linalg.norm(X, axis=1).max(), 1.0, rtol=1e-12)   # eq. (34)


def test_ar4_is_a_generator_entry_with_its_parameters():
    entry = registry.dataset_info("ar4")
    assert entry.generator and entry.params == {"T": 5000, "seed": 0}     # paper 000 eq. (32): t = 1..5000
    assert registry.dataset_names()[0] == "ar4" and set(registry.dataset_names()[1:]) == set(ok.datasets.names())
    X, y = registry.load_dataset("ar4")
    X0, y0 = ok.datasets.ar4(T=5000, seed=0)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)
    X3, _ = registry.load_dataset("ar4", T=300, seed=3)
    np.testing.assert_array_equal(X3, ok.datasets.ar4(T=300, seed=3)[0])
    Xr, yr = registry.load_dataset("ar4", seed=3, normalise=False)
    np.testing.assert_array_equal(yr, ok.datasets.ar4(seed=3, normalise=False)[1])


def test_max_steps_cuts_after_normalising_the_whole_stream():
    X, y = registry.load_dataset("airfoil", 50)
    Xf, yf = ok.datasets.load("airfoil")
    np.testing.assert_array_equal(X, Xf[:50])
    np.testing.assert_array_equal(y, yf[:50])
    Xraw, yraw = ok.datasets.load("airfoil", normalise=False)
    assert not np.array_equal(y, ok.datasets.normalise_stream(Xraw[:50], yraw[:50])[1])   # not cut, then normalised
    Xa, ya = registry.load_dataset("ar4", 100, seed=2)
    np.testing.assert_array_equal(ya, ok.datasets.ar4(seed=2)[1][:100])      # not ar4(T=100): normalised on 5000
    assert not np.array_equal(ya, ok.datasets.ar4(T=100, seed=2)[1])
    Xn, _ = registry.load_dataset("naval", 10, variant="17")
    assert Xn.shape == (10, 17)


@pytest.mark.parametrize("kwargs, match", [
    (dict(name="nosuch"), "unknown dataset 'nosuch'"),
    (dict(name="airfoil", seed=1), "'seed' for dataset 'airfoil'"),
    (dict(name="ar4", length=10), "'length' for dataset 'ar4'.*T, seed"),
    (dict(name="ar4", variant="17"), "'ar4' has no variants"),
    (dict(name="airfoil", max_steps=0), "max_steps"),
    (dict(name="ar4", T=1), "T"),
])
def test_load_dataset_bad_arguments_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        registry.load_dataset(**kwargs)


# ----------------------------------------------------------------------------- presets
def test_paper000_presets_are_the_printed_values():
    """Paper 000 section 4: "N = 76 kernels: 51 Gaussian and 25 Laplacian", sigma^2 in
    {10^(2i/25-2)}_{i=0..50} (Gaussian), sigma in {10^(i/6-2)}_{i=0..24} (Laplacian); "The number m
    of random features was set to 50"; "averaged over 5 experiments"; "We chose lambda = 1 for the
    VAW algorithm in all cases". The baselines follow the graph-aided code (reference C.1/C.3):
    lambda = 1e-3, eta_t = 0.1/sqrt(t), OMKL-GF M = 10."""
    P = registry.paper000
    assert P.REPETITIONS == 5
    kinds, sigmas = P.dictionary()
    assert kinds == ["gaussian"] * 51 + ["laplacian"] * 25
    sigmas = np.array(sigmas)
    np.testing.assert_allclose(sigmas[:51] ** 2, [10 ** (2 * i / 25 - 2) for i in range(51)], rtol=1e-12)
    np.testing.assert_allclose(sigmas[51:], [10 ** (i / 6 - 2) for i in range(25)], rtol=1e-12)
    np.testing.assert_allclose(sigmas[[0, 25, 50, 51, 57, 75]], [0.1, 1.0, 10.0, 0.01, 0.1, 100.0], rtol=1e-12)
    d = P.defaults()
    assert set(d) == {"VAW2", "VAWEWA", "VAWAggr", "VAWMLProd", "VAWMLPoly", "VAWBOA", "Raker", "OMKLGF"}
    assert {k: v for k, v in d["VAW2"].items() if k != "dictionary"} == {"m": 50, "lam": 1.0, "lam_meta": 1.0}
    for cls in ("VAWEWA", "VAWAggr", "VAWMLProd", "VAWMLPoly", "VAWBOA"):
        assert {k: v for k, v in d[cls].items() if k != "dictionary"} == {"m": 50, "lam": 1.0}
    assert {k: v for k, v in d["Raker"].items() if k != "dictionary"} == {
        "m": 50, "lam": 1e-3, "eta": 0.1, "schedule": "inv_sqrt_t"}
    assert {k: v for k, v in d["OMKLGF"].items() if k != "dictionary"} == {
        "m": 50, "lam": 1e-3, "eta": 0.1, "schedule": "inv_sqrt_t", "M": 10}
    assert all(v["dictionary"] == P.dictionary() for v in d.values())
    assert P.defaults("VAW2") == d["VAW2"]
    with pytest.raises(ValueError, match="SFGMKL"):
        P.defaults("SFGMKL")


def test_paper003_presets_are_the_printed_values():
    """Paper 003 section 5: "R = 50"; "D = 50"; "41 radial basis function (RBF) kernels ... 10^{sigma_i}
    where sigma_i = (i-21)/10"; "xi and eta are set to 1/sqrt(T) for all algorithms"; "lambda is set to
    10^-3"; "out-neighbors for each node is set to be 5"; "the tenth greatest value" (beta of
    SFG-MKL-R); "after 300 time instants" (argmax node); OMKL-GF: "the maximum number of kernels
    chosen at each time instant is 10"."""
    P = registry.paper003
    assert P.REPETITIONS == 50
    kinds, sigmas = P.dictionary()
    assert kinds == ["gaussian"] * 41
    np.testing.assert_allclose(np.array(sigmas) ** 2, [10 ** ((i - 21) / 10) for i in range(1, 42)], rtol=1e-12)
    np.testing.assert_allclose(np.array(sigmas)[[0, 20, 40]] ** 2, [0.01, 1.0, 100.0], rtol=1e-12)
    d = P.defaults(400)                                  # 1/sqrt(400) = 0.05 exactly
    strip = {k: {n: v for n, v in p.items() if n != "dictionary"} for k, p in d.items()}
    assert strip == {
        "OMKR": {"eta": 0.05},
        "Raker": {"m": 50, "lam": 1e-3, "eta": 0.05},
        "OMKLGF": {"m": 50, "lam": 1e-3, "eta": 0.05, "M": 10},
        "SFGMKL": {"m": 50, "lam": 1e-3, "eta": 0.05, "xi": 0.05, "M": 5, "greedy_after": 300},
        "SFGMKLR": {"m": 50, "lam": 1e-3, "eta": 0.05, "xi": 0.05, "M": 5, "greedy_after": 300, "beta_rank": 10},
    }
    assert all(p["dictionary"] == P.dictionary() for k, p in d.items() if k != "OMKR")
    assert P.defaults(1503, "SFGMKL")["xi"] == 1 / np.sqrt(1503)
    with pytest.raises(ValueError, match="T"):
        P.defaults(0)
    json.dumps(d, allow_nan=False)                       # plain values: a preset goes into a sweep spec as it is


@pytest.mark.parametrize("cls", ["Raker", "OMKLGF", "SFGMKL", "SFGMKLR"])
def test_paper003_preset_builds_the_same_learner_as_the_class_defaults(cls):
    """The notebooks' numbers do not move: the preset's explicit dictionary and values give the
    forecasts that the class defaults (the paper's 41 kernels) plus eta/xi gave before."""
    X, y = registry.load_dataset("concrete", 60)
    p = registry.paper003.defaults(60, cls)
    before = {"eta": p["eta"], **({"xi": p["xi"]} if "xi" in p else {}), **({"M": p["M"]} if "M" in p else {})}
    a = ok.run_online(getattr(ok, cls)(**p, seed=4), X, y).predictions
    b = ok.run_online(getattr(ok, cls)(**before, seed=4), X, y).predictions
    np.testing.assert_array_equal(a, b)


def test_paper000_preset_builds_the_same_vaw2_as_the_class_defaults():
    X, y = registry.load_dataset("ar4", 40)
    a = ok.run_online(ok.VAW2(**{**registry.paper000.defaults("VAW2"), "m": 4}), X, y).predictions
    b = ok.run_online(ok.VAW2(m=4), X, y).predictions
    np.testing.assert_array_equal(a, b)


# ----------------------------------------------------------------------------- users
def test_the_sweep_and_the_cli_load_streams_through_the_registry(monkeypatch, capsys):
    calls = []
    real = registry.load_dataset

    def spy(name, max_steps=None, **kw):
        calls.append((name, max_steps))
        return real(name, max_steps, **kw)

    monkeypatch.setattr(registry, "load_dataset", spy)
    sweep.run({"datasets": ["ar4"], "learners": [{"name": "OnlineRidge"}], "seeds": [0], "max_steps": 20},
              executor="serial", progress=False, as_frame=True)
    assert calls == [("ar4", 20)]
    assert cli.main(["run", "OnlineRidge", "--dataset", "ar4"]) == 0
    assert calls[-1] == ("ar4", None)
    capsys.readouterr()


def _code(path: Path) -> str:
    """The code of a notebook's code cells, or a module's source, with comments removed."""
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text(encoding="utf-8"))
        text = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    else:
        text = path.read_text(encoding="utf-8")
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


#: What a caller of the registry must not re-type: the loaders called by hand, the ar4 special
#: case, paper 003's step size and lambda, the kernel grids, and the removed ``map=`` argument.
_RETYPED = {
    "a dataset loader called directly": r"datasets\.(?:load|ar4)\(",
    "an ar4 special case": r"[!=]=\s*[\"']ar4[\"']",
    "eta = 1/sqrt(T) re-typed": r"1(?:\.0)?\s*/\s*(?:np|math)\.sqrt\(\s*T\s*\)",
    "lambda = 1e-3 re-typed": r"\blam\s*=\s*(?:1e-3|0\.001)\b",
    "a kernel grid re-typed": r"paper00[03]_sigmas",
    "the removed map= argument": r"(?<![\w.])map\s*=",
}


@pytest.mark.parametrize("path", [*sorted((ROOT / "notebooks").glob("*.ipynb")),
                                  *sorted((ROOT / "omkl_core" / "repro").glob("paper0*.py"))], ids=lambda p: p.name)
def test_notebooks_take_streams_and_presets_from_the_registry(path):
    """The notebooks and the paper modules that compute for them (omkl_core/repro/paperNNN.py)."""
    code = _code(path)
    found = {what: m.group(0) for what, pat in _RETYPED.items() if (m := re.search(pat, code))}
    assert not found, f"{path.name}: {found} (use ok.registry.load_dataset / paper000 / paper003)"


def test_the_pattern_check_catches_what_it_looks_for():
    """The check above fails on the lines the notebooks had before the registry."""
    before = ['X, y = ok.datasets.ar4() if d == "ar4" else ok.datasets.load(d)',
              "eta = 1.0 / np.sqrt(T)", "common = dict(m=m, lam=1e-3, eta=eta)",
              "from omkl_core.features import paper000_sigmas, paper003_sigmas",
              'rff = ok.RandomFourierFeatures("gaussian", sigma=0.1, d=5, m=100, seed=0, map="sincos")']
    for line in before:
        assert any(re.search(p, line) for p in _RETYPED.values()), line
    assert not any(re.search(p, 'ok.RandomFourierFeatures("gaussian", 0.1, d=5, m=100, feature_map="sincos")')
                   for p in _RETYPED.values())


@pytest.mark.parametrize("path", [*sorted((ROOT / "omkl_core").rglob("*.py")), *sorted((ROOT / "benchmarks").glob("*.py"))],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_one_place_maps_names_to_learners_and_streams(path):
    """Only the registry discovers learners and special-cases ar4 (the CLI and the sweep used to)."""
    if path.name == "registry.py":
        return
    code = _code(path)
    assert not re.search(_RETYPED["an ar4 special case"], code), path
    assert "vars(omkl_core)" not in code, path
    if path.parent.name == "benchmarks":
        assert not re.search(_RETYPED["eta = 1/sqrt(T) re-typed"], code), path


def test_register_adds_a_learner_and_refuses_a_package_name():
    class MyMean:
        def __init__(self, seed=0):
            self.seed = seed

        def predict_one(self, x):
            return 0.0

        def learn_one(self, x, y):
            return None

    try:
        assert registry.register(MyMean) is MyMean
        assert registry.learners()["MyMean"] is MyMean and registry.learner_info("MyMean").buildable
    finally:
        registry.unregister("MyMean")
    assert "MyMean" not in registry.learners()
    with pytest.raises(ValueError, match="already a learner of omkl_core"):
        registry.register(MyMean, name="VAW2")
    with pytest.raises(TypeError, match="cls must be a learner class"):
        registry.register(int)
    with pytest.raises(KeyError, match="no learner registered"):
        registry.unregister("MyMean")
