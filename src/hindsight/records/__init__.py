"""Execution records (issue 12): every run of a command or test suite by an agent or a
person, its outcome, the code change it belongs to and the symbols it exercised; the
"previous attempts" query and what the agent is told about failed attempts.

- :mod:`.observe`: test runner output and JUnit XML → :class:`~hindsight.models.Observation`;
- :mod:`.change`: file versions → changed symbols with ast hashes before and after;
- :mod:`.link`: test ids → test functions → their callees; what a run verifies;
- :mod:`.service`: :class:`~.service.RecordService` (``bank.records``);
- :mod:`.prompt`: which failed attempts a prompt or an edit refers to;
- :mod:`.lifecycle`: activity score and pruning.
"""
