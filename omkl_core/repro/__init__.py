"""The reproduction harness, separate from the learners (nothing in the library imports it).

* :mod:`~omkl_core.repro.driver`: the command line behind ``./reproduce.sh``
  (``python -m omkl_core.repro``): notebooks, ``test``, ``setup``, ``mutants``, ``verify``;
* :mod:`~omkl_core.repro.notebooks`: notebook selection, staging folders, timings, progress;
* :mod:`~omkl_core.repro.process`: children in their own session, SIGINT/SIGTERM forwarding.

Tables, figures and the scorecard are written by :mod:`omkl_core.report` (kept where it is).
"""
