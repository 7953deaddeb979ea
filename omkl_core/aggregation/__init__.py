"""Meta-learners that aggregate N expert forecasts (seed paper 000, section 3 and section 4).

Every class here combines the expert predictions ``z_t = (z_{t,1}, ..., z_{t,N})`` of one
time step into one forecast of the label ``y_t``:

=============================  ==========================================================  =========
class                          rule                                                        source
=============================  ==========================================================  =========
:class:`VAWMeta`               Vovk-Azoury-Warmuth forecaster on ``z_t`` (-> "VAW2")       P000 eqs. (9)-(10), (22)-(23), (28)
:class:`EWA`                   exponentially weighted average of truncated forecasts       P000 eqs. (28)-(30); opera ``ewa`` (ref. A.2)
:class:`CalibratedEWA`         EWA with opera's online-calibrated learning-rate grid       opera ``ewaCalib`` (ref. A.2), opera's default ``"EWA"``
:class:`AggregatingAlgorithm`  Vovk's AA for the square loss on ``[A, B]``                 P000 sec. 4 ("VAW-Aggr"); ref. B; CBL sec. 3.5-3.6
:class:`MLProd`                ML-Prod as coded in the R package opera                     ref. A.1, A.5 (Gaillard, Stoltz & van Erven 2014)
:class:`MLPoly`                ML-Poly (opera's ``MLpol``)                                  ref. A.1, A.4 (Gaillard, Stoltz & van Erven 2014)
:class:`BOA`                   Bernstein Online Aggregation, opera 1.2.0 and 1.2.2 codes    ref. A.1, A.6 (Wintenberger 2017)
=============================  ==========================================================  =========

"ref." is ``reference/algorithms.md`` (the repository's copy of the project's reference notes) (sections A.1-A.6 and B), which records
how opera implements the rules the paper ran ("These algorithms are implemented within the
Opera library, which we employed", P000 sec. 4).

Truncation (P000 eq. (28) and sec. 4)
-------------------------------------
The theory of EWA and of the AA is stated for *truncated* expert forecasts
``zbar_t = min(B, max(A, z_t))`` and labels in ``[A, B]``; P000 sec. 4 says that all
algorithms of Table 2 except VAW2 are run on truncated forecasts, with ``[A, B] = [0, 1]``
(the normalised labels, eq. (33)).  Every class therefore takes ``bounds=(A, B)``: the
expert forecasts are clipped to ``[A, B]`` before the rule sees them (``bounds=None``: no
clipping).  Defaults: ``VAWMeta(bounds=None)`` (= "VAW2"; ``bounds=(0, 1)`` gives
"VAW2 (trunc)"), all the others ``bounds=(0, 1)`` (Table 2).  Opera itself never clips
anything, neither the expert forecasts nor the aggregate (ref. A.1); with
``bounds=None`` the ML-Prod / ML-Poly / BOA / calibrated-EWA classes are opera's rules on
the raw forecasts.  The aggregate itself is never clipped, except the AA's substitution
value, which lies in ``[A, B]`` by construction (ref. B).

Common interface
----------------
``predict_one(z) -> float`` and ``learn_one(z, y) -> None`` (River style, ``z`` of shape
``(N,)``); ``run(Z, y)`` for a whole stream, ``Z`` of shape ``(T, N)`` -> predictions
``(T,)``, or ``(R, T, N)`` -> ``(R, T)`` for R independent repetitions processed together
(the state carries a leading R axis; there is no Python loop over R or N inside the time
loop, only over t).  ``run`` continues from the current state; on the NumPy engine it is the
loop of the rule's one step, the code ``predict_one``/``learn_one`` run, so a fresh model's
``run`` equals the ``predict_one``/``learn_one`` loop exactly.
``weights_`` are the weights the *next* prediction uses (after a run over the whole stream
this is opera's ``coefficients``, p_{T+1}); ``expert_predictions_`` is the last ``z`` seen
(as given, before truncation).  N is taken from the first ``z`` unless ``n_experts`` is
given.  The learned state arrays of each rule (``regret_``, ``eta_``, ``log_weights_``, ``P_``, ...)
always carry the leading repetition axis (R = 1 for a single stream); ``weights_`` and
``expert_predictions_`` drop it for a single stream.

Common parameters
-----------------
``n_experts`` : int or None, default None
    Number N of experts (at least 2 for ML-Prod and BOA v120, whose rates involve ln N);
    None: N is taken from the first ``z`` seen.  A ``z`` of another length is an error.
``bounds`` : (A, B) or None
    [A, B] of the truncation (P000 eq. (28)) applied to the expert forecasts before the rule
    sees them (defaults in the truncation paragraph above); None: no truncation.  What else
    it sets (EWA's default eta, the AA's substitution range) is in each class.

Engines (NumPy loop or compiled loop)
-------------------------------------
Each rule is written once in NumPy (``_weights``/``_update``, the reference; always there)
and, for EWA, CalibratedEWA, the AA, ML-Poly, ML-Prod and BOA (both versions), once more as a
Numba kernel of its whole-stream loop (``_kernels.py``, named by the rule's ``_run_compiled``;
the optional ``omkl[fast]`` extra).  ``run`` picks one by :mod:`omkl_core.compiled`'s engine
(``OMKL_ENGINE`` = ``auto`` (default: the kernel when Numba imports) / ``numpy`` / ``numba``,
or ``with omkl_core.compiled.engine("numpy"): ...``); the test suite runs every aggregation
test on both (the ``engine`` fixture of ``tests/conftest.py``).  The kernel performs the same operations in the
same order and sums over the experts pairwise as NumPy does; only ``exp``/``log`` come from
another library, so the engines agree to rounding (tested to 1e-12 relative; ML-Poly bit for
bit), and both reproduce opera's outputs at the same tolerance.  Both read and write the same
state, so ``run`` / ``learn_one`` / ``run`` may be mixed on either engine.  ``predict_one`` and
``learn_one`` of a single stream run the NumPy rule on the NumPy engine, and on the Numba engine the
rule's step kernels (issue 44): each kernel of ``_kernels.py`` is written as two helpers, the
forecast and the update of one step, which the whole-stream kernel loops over and the step kernels
(``<rule>_step_forecast`` / ``<rule>_step_learn``) call once, so the step path gives ``run``'s
numbers bit for bit; VAWMeta's step is the expert layer's (``omkl_core.vaw.sm_step_forecast`` /
``sm_step_learn``); CalibratedEWA's runs NumPy on both engines.  ``learn_one`` reuses what
``predict_one`` computed for the same z_t, which it recognises by its values
(:class:`omkl_core.validation.Checked`: one byte comparison instead of a second scan; a z_t changed
since is checked again).  Speed: ``benchmarks/bench_aggregators.py`` and
``benchmarks/bench_per_step.py`` (results in ``benchmarks/results/`` and CHANGELOG.md).

Each rule's bound beside its update (issue 41)
----------------------------------------------
A class declares the regret bound it carries as ``regret_bound`` (a
:class:`omkl_core.bounds.aggregation.RuleBound`: the paper, the theorem or equation, the statement,
its symbols in words, what it assumes; None when it carries none) and evaluates it on a run with
``stated_bounds(Z, y, predictions)`` (rows :class:`omkl_core.bounds.aggregation.BoundCheck`):
VAWMeta P000 eq. (11) / (25) / after (28); EWA P000 eq. (30); the AA CBL Prop. 3.2; ML-Poly the
second-order bound of Gaillard, Stoltz & van Erven (2014) restated for opera's rates
(:func:`omkl_core.bounds.mlpoly_potential_bound`); ML-Prod, BOA and the calibrated EWA say why they
evaluate none. :mod:`omkl_core.regret`, ``Mixture.summary`` and ``omkl run --regret`` read these,
with no list of rules of their own. ``convex_weights`` marks the rules whose forecast is
<weights_, zbar_t> (a Mixture's sleeping experts need it).

Your own rule
-------------
Every class here is a :class:`omkl_core.base.MetaLearner` (also ``omkl_core.aggregation.MetaLearner``):
the public protocol of a meta-learner (``input_kind = "experts"``, ``weights_``, ``convex_weights``,
``min_experts``, ``regret_bound`` / ``stated_bounds`` / ``no_bound_reason``).  A rule of your own
subclasses it in its own module and is registered with one line,
``omkl_core.registry.register(MyRule)``; ``Mixture(meta=MyRule())``, :func:`omkl_core.regret.regret_report`,
``omkl run MyRule --forecasts --regret`` and ``omkl run Mixture --meta MyRule`` then accept it with no other
edit (``tests/test_new_meta_learner.py`` does it).

Notation: p_t = weights, yhat_t = aggregate forecast, r_{t,k} = 2 (yhat_t - y_t)(yhat_t - z_{t,k})
is opera's instantaneous regret of expert k under the "gradient trick" (linearised square
loss, opera's default ``loss.gradient = TRUE``, ref. A.1).
"""
from __future__ import annotations

from ..base import MetaLearner  # noqa: F401  (the public base, defined in omkl_core.base)
from ..validation import check_positive, check_scalar  # noqa: F401  (resolved here before the split; tests/test_public_api.py)
from ._base import _MetaLearner, truncate  # noqa: F401  (_MetaLearner: the rules' shared machinery)
from .aa import AggregatingAlgorithm
from .ewa import EWA, CalibratedEWA, CalibratedEWAState
from .opera_rules import BOA, MLPoly, MLProd
from .vaw_meta import VAWMeta

__all__ = [
    "VAWMeta",
    "EWA",
    "CalibratedEWA",
    "CalibratedEWAState",
    "AggregatingAlgorithm",
    "MLProd",
    "MLPoly",
    "BOA",
    "truncate",
]
