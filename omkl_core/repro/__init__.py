"""The reproduction harness, separate from the learners (nothing in the library imports it).

* :mod:`~omkl_core.repro.driver`: the command line behind ``./reproduce.sh``
  (``python -m omkl_core.repro``): notebooks, ``test``, ``setup``, ``mutants``, ``verify``;
* :mod:`~omkl_core.repro.notebooks`: notebook selection, staging folders, timings, progress;
* :mod:`~omkl_core.repro.process`: children in their own session, SIGINT/SIGTERM forwarding;
* :mod:`~omkl_core.repro.verify`: the current results against the reference in ``reference/``
  (``./reproduce.sh verify [--quick]``);
* :mod:`~omkl_core.repro.timing`: CPU time measured in a controlled way, for the speed claims.

Tables, figures and the scorecard are written by :mod:`omkl_core.report` (kept where it is).
"""
