"""Random Fourier features (paper 000 section 2, eqs. (3)-(5)) and the kernel dictionary
of paper 000 section 4."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import omkl_core as ok
from omkl_core import cosine, kernels
from omkl_core import features as F

# exact_fp: this file compares floating-point results exactly (two paths that run the same operations in
# the same order by construction); .ci/run runs it again under each OpenBLAS kernel the CPU can run
pytestmark = pytest.mark.exact_fp

seeds = st.integers(0, 2**32 - 1)
sigmas = st.floats(min_value=0.05, max_value=20.0, allow_nan=False, allow_infinity=False)
dims = st.integers(1, 6)
ms = st.integers(1, 40)


#: the cosine libraries the feature-map tests run under: NumPy's and, where installed, the fast one
COSINES = ["numpy"] + [pytest.param(n, marks=pytest.mark.skipif(n not in cosine.available(), reason=f"{n} not installed"))
                       for n in cosine.PREFERENCE if n != "numpy"]


@pytest.fixture(autouse=True, params=COSINES)
def cosine_library(request):
    """Every test of this file runs once with NumPy's cosine and once with the fast one (``omkl[fast]``)."""
    with cosine.using(request.param):
        yield request.param


def _points(rng, T, d, scale=1.0):
    return rng.uniform(-scale, scale, size=(T, d))


# ------------------------------------------------------------------ the feature map itself
@given(sigma=sigmas, d=dims, m=ms, seed=seeds)
@settings(max_examples=30)
def test_gaussian_rff_equals_rbfsampler_formula_up_to_sqrt_m(sigma, d, m, seed):
    """scikit-learn's RBFSampler(gamma) draws W = sqrt(2 gamma) N(0, 1)^{d x m},
    b ~ U(0, 2 pi)^m and returns sqrt(2/m) cos(X W + b); with gamma = 1/(2 sigma^2) and the
    same random stream this is our Phi / sqrt(m) (the paper has no 1/sqrt(m), section 2)."""
    gamma = 1.0 / (2.0 * sigma**2)
    rng = np.random.default_rng(seed)
    W = np.sqrt(2.0 * gamma) * rng.standard_normal((d, m))
    b = rng.uniform(0.0, 2.0 * np.pi, size=m)
    X = _points(np.random.default_rng(seed + 1), 7, d)
    sklearn_features = np.sqrt(2.0 / m) * np.cos(X @ W + b)

    rff = F.RandomFourierFeatures("gaussian", sigma, d=d, m=m, seed=seed)
    np.testing.assert_allclose(rff.omega_, W, rtol=1e-12, atol=0)
    np.testing.assert_array_equal(rff.b_, b)
    np.testing.assert_allclose(rff.transform(X) / np.sqrt(m), sklearn_features, rtol=1e-10, atol=1e-12)


@given(kind=st.sampled_from(F.KINDS), sigma=sigmas, d=dims, m=ms, seed=seeds)
@settings(max_examples=30)
def test_feature_map_formula_and_norm_bound(kind, sigma, d, m, seed):
    """feature_map='cos': Phi(x) = sqrt(2) cos(omega^T x + b), |Phi|_2 <= sqrt(2m) = rho (eq. 12);
    feature_map='sincos': m^-1/2 [sin(omega^T x), cos(omega^T x)] with |z|_2 = 1 (paper 003 eq. 4)."""
    X = _points(np.random.default_rng(seed ^ 0x5A5A), 5, d)
    cos = F.RandomFourierFeatures(kind, sigma, d=d, m=m, seed=seed, feature_map="cos")
    with ok.compiled.engine("numpy"):                   # the argument by NumPy's product: exactly the formula
        P = cos.transform(X)
    assert P.shape == (5, m)
    np.testing.assert_allclose(P, np.sqrt(2) * cosine.cos(X @ cos.omega_ + cos.b_), rtol=0, atol=0)
    if ok.compiled.numba_available():
        # the compiled engine sums the d + 1 terms of the argument in another order: |error| <=
        # 2 (d + 1) ulp of sum_k |x_k omega_k| + |b|, and cos is 1-Lipschitz
        with ok.compiled.engine("numba"):
            Pc = cos.transform(X)
        size = np.abs(X) @ np.abs(cos.omega_) + np.abs(cos.b_)
        assert np.all(np.abs(Pc - P) <= np.sqrt(2) * (2 * (d + 1) * np.spacing(size) + 4 * np.spacing(1.0)))
    assert np.all(np.sum(P * P, axis=1) <= 2 * m * (1 + 1e-12))
    sc = F.RandomFourierFeatures(kind, sigma, d=d, m=m, seed=seed, feature_map="sincos")
    Zs = sc.transform(X)
    assert Zs.shape == (5, 2 * m)
    proj = X @ sc.omega_
    np.testing.assert_allclose(Zs, np.hstack([np.sin(proj), np.cos(proj)]) / np.sqrt(m), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(Zs, axis=1), 1.0, rtol=1e-12)
    # a single point gives the matching row
    tol = 8 * np.finfo(float).eps * (1.0 + np.abs(X @ cos.omega_).max() + 2 * np.pi)  # cos(a): error ~ eps |a|
    np.testing.assert_allclose(cos.transform(X[2]), P[2], rtol=0, atol=tol)


@pytest.mark.parametrize("kind", F.KINDS)
@pytest.mark.parametrize("map_", F.MAPS)
def test_monte_carlo_kernel_estimate_converges_to_exact_kernel(kind, map_):
    """k(x, y) = E_theta phi(x; theta) phi(y; theta) (eq. 2 with (3)/(4)): the average over
    m features lies within 5 standard errors of the exact kernel, and the error shrinks."""
    rng = np.random.default_rng(12345)
    d, m, sigma = 3, 40000, 0.7
    for _ in range(4):
        x, y = rng.uniform(-0.6, 0.6, size=(2, d))
        rff = F.RandomFourierFeatures(kind, sigma, d=d, m=m, seed=int(rng.integers(2**31)), feature_map=map_)
        fx, fy = rff.transform(x), rff.transform(y)
        if map_ == "cos":
            terms = fx * fy                              # sqrt2 cos * sqrt2 cos, mean -> k
        else:
            terms = m * (fx[:m] * fy[:m] + fx[m:] * fy[m:])   # cos(omega^T (x - y)), mean -> k
        est = terms.mean()
        se = terms.std(ddof=1) / np.sqrt(m)
        exact = float(rff.kernel(x, y))
        assert abs(est - exact) <= 5 * se
        assert abs(rff.kernel_estimate(x, y) - est) <= 1e-12
    # convergence: error at m = 40000 is smaller than at m = 40 on average over draws
    errs = {}
    for mm in (40, 40000):
        e = []
        for s in range(20):
            rff = F.RandomFourierFeatures(kind, sigma, d=d, m=mm, seed=1000 + s, feature_map=map_)
            x, y = np.full(d, 0.1), np.full(d, -0.2)
            e.append((rff.kernel_estimate(x, y) - float(rff.kernel(x, y))) ** 2)
        errs[mm] = np.mean(e)
    assert errs[40000] < errs[40]


def test_frequency_distributions_gaussian_normal_laplacian_cauchy():
    """Gaussian: omega ~ N(0, sigma^-2 I) (eq. 3); Laplacian: omega_j ~ Cauchy(0, 1/sigma) (eq. 4).
    sigma * omega has mean 0 / variance 1 (Gaussian) and quartiles -1, 0, 1 (standard
    Cauchy), each within 5 standard errors."""
    n = 200000
    sigma = 2.5
    g = F.RandomFourierFeatures("gaussian", sigma, d=1, m=n, seed=7).omega_.ravel() * sigma
    assert abs(g.mean()) <= 5 / np.sqrt(n)
    assert abs(g.var() - 1.0) <= 5 * np.sqrt(2.0 / n)
    c = F.RandomFourierFeatures("laplacian", sigma, d=1, m=n, seed=8).omega_.ravel() * sigma
    # P(C <= -1) = 1/4, P(C <= 0) = 1/2, P(C <= 1) = 3/4; binomial standard error
    for q, p in ((-1.0, 0.25), (0.0, 0.5), (1.0, 0.75)):
        frac = np.mean(c <= q)
        assert abs(frac - p) <= 5 * np.sqrt(p * (1 - p) / n)
    b = F.RandomFourierFeatures("gaussian", sigma, d=1, m=n, seed=9).b_
    assert b.min() >= 0 and b.max() <= 2 * np.pi
    assert abs(b.mean() - np.pi) <= 5 * (2 * np.pi / np.sqrt(12 * n))


@given(x=st.lists(st.floats(-2, 2, allow_nan=False), min_size=3, max_size=3),
       y=st.lists(st.floats(-2, 2, allow_nan=False), min_size=3, max_size=3), sigma=sigmas)
@settings(max_examples=20)
def test_exact_kernel_matches_kernels_module(x, y, sigma):
    """The exact value used by features equals omkl_core.kernels (eqs. 3, 4)."""
    x, y = np.array(x), np.array(y)
    assert F.exact_kernel("gaussian", sigma, x, y) == pytest.approx(float(kernels.gaussian(x, y, sigma)), rel=1e-12)
    assert F.exact_kernel("laplacian", sigma, x, y) == pytest.approx(float(kernels.laplacian(x, y, sigma)), rel=1e-12)


# ------------------------------------------------------------------ the kernel dictionary
def test_paper000_dictionary_has_the_stated_sigma_grid():
    """Section 4: sigma^2 in {10^(2i/25 - 2)}_{i=0..50} (Gaussian), sigma in {10^(i/6 - 2)}_{i=0..24}
    (Laplacian): N = 76, Gaussian first."""
    D = ok.features.paper000_dictionary(d=4, m=50, seed=0)
    assert D.N == 76 and D.omega_.shape == (76, 4, 50) and D.b_.shape == (76, 50)
    assert D.kinds == ("gaussian",) * 51 + ("laplacian",) * 25
    i = np.arange(51)
    np.testing.assert_allclose(D.sigmas[:51] ** 2, 10.0 ** (2 * i / 25 - 2), rtol=1e-13)
    j = np.arange(25)
    np.testing.assert_allclose(D.sigmas[51:], 10.0 ** (j / 6 - 2), rtol=1e-13)
    assert D.sigmas[0] ** 2 == pytest.approx(0.01) and D.sigmas[50] ** 2 == pytest.approx(100.0)
    assert D.sigmas[51] == pytest.approx(0.01) and D.sigmas[75] == pytest.approx(100.0)


@given(seed=seeds, d=dims, m=st.integers(1, 12), map_=st.sampled_from(F.MAPS))
@settings(max_examples=15)
def test_dictionary_is_the_stack_of_its_kernels_feature_maps(seed, d, m, map_):
    """KernelDictionary kernel j = RandomFourierFeatures drawn next from the same Generator;
    transform(X) (T, N, m') is one batched product equal to the per-kernel maps."""
    kinds = ["gaussian", "laplacian", "gaussian"]
    sig = [0.3, 1.7, 5.0]
    D = F.KernelDictionary(kinds, sig, d=d, m=m, seed=seed, feature_map=map_)
    X = _points(np.random.default_rng(seed % 1000), 6, d)
    out = D.transform(X)
    mp = m if map_ == "cos" else 2 * m
    assert out.shape == (6, 3, mp) and D.transform(X[0]).shape == (3, mp)
    # cos/sin of an argument a carry an absolute rounding error ~ eps |a| (Cauchy draws can
    # make |omega^T x| large), and matmul vs matvec round differently
    tol = 8 * np.finfo(float).eps * (1.0 + np.abs(np.einsum("td,ndm->tnm", X, D.omega_)).max())
    rng = np.random.default_rng(seed)
    for j in range(3):
        r = F.RandomFourierFeatures(kinds[j], sig[j], d=d, m=m, seed=rng, feature_map=map_)
        np.testing.assert_array_equal(D.omega_[j], r.omega_)
        np.testing.assert_allclose(out[:, j, :], r.transform(X), rtol=0, atol=tol)
    np.testing.assert_allclose(D.transform(X[4]), out[4], rtol=0, atol=tol)


def test_same_seed_same_features_different_seed_different_features():
    a = F.paper000_dictionary(3, seed=5)
    b = F.paper000_dictionary(3, seed=5)
    c = F.paper000_dictionary(3, seed=6)
    np.testing.assert_array_equal(a.omega_, b.omega_)
    np.testing.assert_array_equal(a.b_, b.b_)
    assert not np.array_equal(a.omega_, c.omega_)


# ------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs, exc, word", [
    (dict(kind="cauchy"), ValueError, "kind"),
    (dict(sigma=0.0), ValueError, "sigma"),
    (dict(sigma=-1.0), ValueError, "sigma"),
    (dict(sigma=float("nan")), ValueError, "sigma"),
    (dict(sigma="1"), TypeError, "sigma"),
    (dict(m=0), ValueError, "m"),
    (dict(m=2.5), TypeError, "m"),
    (dict(d=0), ValueError, "d"),
    (dict(feature_map="fourier"), ValueError, "map"),
    (dict(seed=-3), ValueError, "seed"),
    (dict(seed="x"), TypeError, "seed"),
])
def test_random_fourier_features_bad_hyper_parameters_raise(kwargs, exc, word):
    base = dict(kind="gaussian", sigma=1.0, d=2, m=5)
    with pytest.raises(exc, match=word):
        F.RandomFourierFeatures(**{**base, **kwargs})


def test_transform_bad_input_raises_naming_the_argument():
    rff = F.RandomFourierFeatures("gaussian", 1.0, d=3, m=4, seed=0)
    with pytest.raises(ValueError, match="x has dimension 2"):
        rff.transform(np.ones(2))
    with pytest.raises(ValueError, match="X has 4 columns"):
        rff.transform(np.ones((5, 4)))
    with pytest.raises(ValueError, match="NaN"):
        rff.transform(np.array([0.0, np.nan, 1.0]))
    with pytest.raises(ValueError, match="inf"):
        rff.transform(np.array([[0.0, np.inf, 1.0]]))
    with pytest.raises(ValueError, match="1-D"):
        rff.transform(np.ones((2, 2, 3)))
    D = F.paper000_dictionary(3, m=4)
    with pytest.raises(ValueError, match="x has dimension"):
        D.transform(np.ones(4))
    with pytest.raises(ValueError, match="NaN"):
        D.transform(np.full((2, 3), np.nan))


@pytest.mark.parametrize("kinds, sigmas, exc, word", [
    ("gaussian", [1.0], TypeError, "kinds"),
    (["gaussian", "poly"], [1.0, 2.0], ValueError, "kinds"),
    (["gaussian"], [1.0, 2.0], ValueError, "sigmas"),
    (["gaussian"], [0.0], ValueError, "sigmas"),
    (["gaussian"], [np.inf], ValueError, "sigmas"),
    ([], [], ValueError, "kinds"),
])
def test_kernel_dictionary_bad_specification_raises(kinds, sigmas, exc, word):
    with pytest.raises(exc, match=word):
        F.KernelDictionary(kinds, sigmas, d=2, m=3)


# ------------------------------------------------------------------------------ GPU path
@pytest.mark.gpu
def test_cupy_dictionary_features_equal_numpy_features():
    """Frequencies are drawn on the host, so the CuPy features equal the NumPy ones."""
    X = _points(np.random.default_rng(0), 50, 4)
    for map_ in F.MAPS:
        a = F.paper000_dictionary(4, seed=3, feature_map=map_)
        b = F.paper000_dictionary(4, seed=3, feature_map=map_, backend="cupy")
        np.testing.assert_allclose(ok.backend.to_numpy(b.transform(X)), a.transform(X),
                                   rtol=1e-10, atol=1e-12)


def test_the_removed_map_keyword_is_refused():
    """``map=`` (it shadowed a builtin) is gone at 0.1.0: only ``feature_map=`` is accepted."""
    with pytest.raises(TypeError, match="map"):
        F.RandomFourierFeatures("gaussian", 0.7, d=3, m=8, seed=1, map="sincos")
    with pytest.raises(TypeError, match="map"):
        ok.VAW2(m=3, map="sincos")


@pytest.mark.parametrize("chunk", [1, 10**9])
def test_feature_blocks_in_place_equal_the_transform_bit_for_bit(engine, chunk, monkeypatch):
    """Issue 25: ``feature_blocks`` writes x^T omega straight into the experts' (R, N, T_b, m')
    layout and applies the map in place (``apply_feature_map(out=...)``, one transcendental per
    feature), a group of kernels at a time (``CHUNK_BYTES``: one kernel per group, or all); the
    blocks, reused or fresh, are ``KernelDictionary.transform`` bit for bit on the NumPy engine,
    for both maps and a last block shorter than the others. On the compiled engine the cos map's
    argument x^T omega + b comes from one compiled pass (``features.shifted_projection``): the
    d + 1 terms summed in another order, so the features agree to a few ulps of the argument."""
    monkeypatch.setattr(ok.mkl.vaw2, "CHUNK_BYTES", chunk)
    rng = np.random.default_rng(4)
    X = rng.uniform(-0.4, 0.4, size=(45, 3))
    for fmap in ("cos", "sincos"):
        dicts = [ok.features.paper000_dictionary(3, m=6, seed=s, feature_map=fmap) for s in (1, 2)]
        ref = np.stack([D.transform(X).transpose(1, 0, 2) for D in dicts])        # (R, N, T, m')
        for reuse in (False, True):
            got = [b.copy() for b in ok.mkl.vaw2.feature_blocks(X, dicts, time_block=16, reuse=reuse)]
            assert [b.shape[2] for b in got] == [16, 16, 13]
            if engine == "numba" and fmap == "cos":
                # |error of the argument| <= 2 (d + 1) ulp of sum_k |x_k omega_k| + |b|; cos is 1-Lipschitz
                size = np.stack([(np.abs(X) @ np.abs(D._W) + np.abs(D.b_.ravel())).reshape(45, 76, 6)
                                 .transpose(1, 0, 2) for D in dicts])
                err = np.abs(np.concatenate(got, axis=2) - ref)
                assert np.all(err <= np.sqrt(2) * (2 * 4 * np.spacing(size) + 4 * np.spacing(1.0))), err.max()
            else:
                np.testing.assert_array_equal(np.concatenate(got, axis=2), ref)
        proj = (X @ dicts[0]._W).reshape(45, 76, 6)
        out = np.empty((45, 76, dicts[0].n_features))
        assert ok.features.apply_feature_map(np, proj, dicts[0].b_, fmap, 6, out=out) is out
        np.testing.assert_array_equal(out, ok.features.apply_feature_map(np, proj, dicts[0].b_, fmap, 6))


@settings(max_examples=25)
@given(seed=st.integers(0, 2**32 - 1), J=st.integers(1, 5), T=st.integers(1, 9), d=st.integers(1, 7),
       m=st.integers(1, 13))
def test_shifted_projection_engines_agree(seed, J, T, d, m):
    """``features.shifted_projection`` (issue 25): out[j, t] = <omega_j, x_t> + b_j, the cos map's
    argument (paper 000 section 2). The NumPy engine is the batched product then the add, bit for
    bit; the compiled pass sums the same d + 1 terms in another order (a few ulps)."""
    rng = np.random.default_rng(seed)
    X, omega, b = rng.normal(size=(T, d)), rng.normal(size=(J, d, m)) * 5, rng.uniform(0, 2 * np.pi, (J, m))
    ref = np.matmul(X, omega) + b[:, None, :]
    for name in ("numpy", "numba") if ok.compiled.numba_available() else ("numpy",):
        out = np.full((J, T, m), np.nan)
        with ok.compiled.engine(name):
            ok.features.shifted_projection(X, omega, b, out)
        if name == "numpy":
            np.testing.assert_array_equal(out, ref)
        else:
            scale = np.abs(X)[None, :, :, None] * np.abs(omega)[:, None, :, :]
            bound = 4 * (d + 1) * np.spacing(scale.sum(axis=2) + np.abs(b)[:, None, :])
            assert np.all(np.abs(out - ref) <= bound)


# ------------------------------------------------------------------------ the cosine itself
def _vaw2_arguments(m=50, T=300):
    """The arguments <omega_j, x_t> + b_j of VAW2(m=m, seed=0) on the first T steps of Airfoil."""
    X, _ = ok.datasets.load("airfoil")
    (D,) = ok.mkl.vaw2.draw_dictionaries(X.shape[1], m, 1, 0, None, "cos", "numpy")
    return (np.matmul(X[:T], D.omega_) + D.b_[:, None, :]).ravel()


def _wide_sweep(n=400_000):
    rng = np.random.default_rng(1)
    a = np.exp(rng.uniform(np.log(1e-8), np.log(1e6), n)) * rng.choice([-1.0, 1.0], n)
    return np.concatenate([a, np.linspace(-200.0, 200.0, n), [0.0, -0.0, np.pi, 2 * np.pi, 1e-300]])


@pytest.mark.parametrize("library", [n for n in cosine.LIBRARIES if n != "auto"])
def test_each_cosine_library_agrees_with_np_cos_to_2_ulp_on_vaw2_arguments_and_a_wide_sweep(library):
    """Every cosine library ``cosine`` can use (where installed) is within ``MAX_ULP`` = 2 units in
    the last place of ``np.cos`` on the feature map's own arguments (VAW2 on Airfoil) and on
    |x| from 1e-8 to 1e6."""
    if library not in cosine.available():
        pytest.skip(f"{library} not installed")
    f = cosine.cos_function(library)
    for x in (_vaw2_arguments(), _wide_sweep()):
        ref = np.cos(x)
        got = f(x.copy(), np.empty_like(x))
        ulps = np.abs(got - ref) / np.spacing(np.abs(ref))
        assert ulps.max() <= cosine.MAX_ULP, (library, float(ulps.max()))


def test_auto_cosine_gives_an_element_the_same_bits_whatever_call_computes_it():
    """The library ``"auto"`` picks computes each element independently of the call: in one array,
    in calls of 7 elements, one at a time and through a strided view -- so ``run`` (blocks of
    steps), ``predict_one`` (one step) and ``feature_blocks`` (groups of kernels) agree bit for bit."""
    f = cosine.cos_function("auto")
    x = _vaw2_arguments(m=20, T=60)
    whole = f(x.copy(), np.empty_like(x))
    parts = np.concatenate([f(x[s:s + 7].copy(), np.empty(x[s:s + 7].size)) for s in range(0, x.size, 7)])
    ones = np.array([f(x[i:i + 1].copy(), np.empty(1))[0] for i in range(1500)])
    np.testing.assert_array_equal(parts, whole)
    np.testing.assert_array_equal(ones, whole[:1500])
    np.testing.assert_array_equal(f(x[::3], np.empty(x[::3].size)), whole[::3])


def test_cosine_library_choice_auto_prefers_the_fast_one_and_falls_back_to_numpy(monkeypatch):
    """``"auto"``: the first importable library of ``PREFERENCE``; with none installed, NumPy (the
    same bits as ``np.cos``); a library asked for by name that is missing is an ImportError; a
    wrong name a ValueError naming ``OMKL_COS``."""
    x = _wide_sweep(1000)
    with cosine.using("auto"):
        assert cosine.library() == next(n for n in cosine.PREFERENCE if n in cosine.available())
        monkeypatch.setattr(cosine, "_importable", {n: n == "numpy" for n in cosine.LIBRARIES})
        assert cosine.library() == "numpy"
        np.testing.assert_array_equal(cosine.cos(x), np.cos(x))
    with cosine.using("mkl"), pytest.raises(ImportError, match="omkl\\[fast\\]"):
        cosine.library()
    # no set_library in force: OMKL_COS is read. (Not monkeypatch.setattr: conftest's autouse fixtures
    # take monkeypatch before this file's cosine_library fixture, so its undo ran last and left this
    # worker's cosine library at the parameter's, which a fresh Dask worker then refused as 'code version
    # mismatch' in tests/test_sweep.py.)
    saved, cosine._LIBRARY.override = cosine._LIBRARY.override, None
    try:
        monkeypatch.setenv("OMKL_COS", "fastest")
        with pytest.raises(ValueError, match="OMKL_COS"):
            cosine.library()
    finally:
        cosine._LIBRARY.override = saved
    with pytest.raises(ValueError, match="library"):
        cosine.set_library("fastest")


def test_feature_maps_are_on_the_base_class_and_draw_on_first_use_or_reset():
    """Issue 30: ``RandomFourierFeatures`` / ``KernelDictionary`` take their parameters from the
    constructor (repr shows every one, seed included; clone rebuilds), check them in one table,
    and draw the frequencies on first use or ``reset()`` -- not in ``__init__``: a Generator passed
    as ``seed`` is untouched until then."""
    rng = np.random.default_rng(3)
    state = rng.bit_generator.state
    rff = F.RandomFourierFeatures("laplacian", 0.5, d=2, m=3, seed=rng)
    D = F.KernelDictionary(["gaussian", "laplacian"], [1.0, 2.0], d=2, m=3, seed=7, feature_map="sincos")
    assert rng.bit_generator.state == state                       # nothing drawn yet
    assert repr(D) == ("KernelDictionary(kinds=['gaussian', 'laplacian'], sigmas=[1.0, 2.0], d=2, m=3, seed=7, "
                       "feature_map='sincos', backend='numpy')")
    assert "seed=" in repr(rff) and rff.get_params()["kind"] == "laplacian"
    first = D.omega_.copy()
    np.testing.assert_array_equal(D.reset().omega_, first)        # an int seed: the same draws again
    np.testing.assert_array_equal(D.clone().omega_, first)
    assert not np.array_equal(D.clone(seed=8).omega_, first)
    assert rff.omega_.shape == (2, 3)
    assert rng.bit_generator.state != state                       # drawn on first use
    assert set(F.KernelDictionary._constraints()) == {"kinds", "sigmas", "d", "m", "seed", "feature_map", "backend"}


def test_show_config_names_the_cosine_library_and_the_engine_in_force(capsys, cosine_library):
    """``omkl_core.show_config()`` says which library computes the feature map's cosine (the one in
    force: NumPy's or oneMKL's) and which engine runs the expert layer."""
    ok.show_config()
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if ln.startswith("feature map cos"))
    assert ("oneMKL vmdCos" in line) == (cosine_library == "mkl") and ("numpy.cos" in line) == (cosine_library == "numpy")
    with ok.compiled.engine("numpy"):
        assert ok.config.config()["expert layer (VAW, method='auto', host)"].startswith("NumPy Woodbury block")
