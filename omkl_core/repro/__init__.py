"""The reproduction wing: everything that regenerates the papers' tables and figures.

It depends on the library (:mod:`omkl_core`) and on the extra ``repro`` (pandas, matplotlib,
seaborn, papermill, ipykernel, JupyterLab); the library never imports it.

* :mod:`~omkl_core.repro.driver`: the command line behind ``./reproduce.sh``
  (``python -m omkl_core.repro``): notebooks, ``test``, ``setup``, ``mutants``, ``verify``;
* :mod:`~omkl_core.repro.notebooks`: notebook selection, staging folders, timings, progress;
* :mod:`~omkl_core.repro.process`: children in their own session, SIGINT/SIGTERM forwarding;
* :mod:`~omkl_core.repro.report`: results folder, stamped tables and figures, the scorecard;
* :mod:`~omkl_core.repro.verdicts`: the rule of the verdicts (a tier per published cell, a kind
  per claim); :mod:`~omkl_core.repro.papers`: each paper's scored forms, figures and measured causes;
* :mod:`~omkl_core.repro.html_report`: the HTML report of a results folder (``results/report/``);
* :mod:`~omkl_core.repro.paper_values`: the published values (``data/published_tables.csv``);
* :mod:`~omkl_core.repro.errata`: the papers' printed statements found false, with their tests;
* :mod:`~omkl_core.repro.claims`, :mod:`~omkl_core.repro.baselines`,
  :mod:`~omkl_core.repro.leaderboard`: the measured explanations, paper 000's baseline rows and
  the cross-paper leaderboard;
* :mod:`~omkl_core.repro.paper000` ... :mod:`~omkl_core.repro.paper004`: one module per paper holding
  the loops, presets, tables, claims and figures its notebook calls (the notebooks stay thin);
* :mod:`~omkl_core.repro.verify`: the current results against the reference in ``reference/``
  (``./reproduce.sh verify [--quick]``);
* :mod:`~omkl_core.repro.timing`: CPU time measured in a controlled way, for the speed claims;
* :mod:`~omkl_core.repro.regret_tables`: paper 000 Table 2 beside its oracles in hindsight and its
  stated bounds evaluated on every run (issue 34).

Submodules load on first use (``import omkl_core.repro as repro; repro.report``), so the driver
starts without pandas.
"""
from __future__ import annotations

import importlib

_SUBMODULES = ("baselines", "claims", "committed", "counts", "driver", "errata", "html_report", "leaderboard", "notebooks", "paper000",
               "paper001", "paper002", "paper003", "paper004", "paper_values", "papers", "process", "regret_tables",
               "report", "report_inputs", "runner", "style", "timing", "verdicts", "verify")

__all__ = list(_SUBMODULES)


def __getattr__(name: str):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_SUBMODULES))
