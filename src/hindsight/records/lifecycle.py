"""The lifecycle of execution records (issue 12, item 6): an activity score, and pruning
of old failures.

- **Activity** = (0.5 + 0.5 · strength) · exp(−age / ``recordsDecayDays``) + 0.1 ·
  retrievals, where strength = passed ÷ total test runs linked to the record (0 without
  one: :mod:`hindsight.records.verify`) and age = days since the record started. The
  shape is memory's activity (:func:`hindsight.memory.recall.activity`: a decaying term
  plus 0.1 per access), with the verification strength in place of the confidence and the
  issue's 30-day decay.
- **Pruning**: failed records older than ``recordsKeepFailedDays`` (7) are deleted unless
  an active memory cites them (tag ``attempt:<id>``); successful, interrupted and unknown
  ones are kept.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hindsight.records.service import RecordService


def activity(retrievals: int, runs: int, runs_passed: int, started_ts: float, now: float,
             decay_days: float) -> float:
    """The activity score (see the module doc); ``*_ts``/``now`` Unix seconds."""
    strength = runs_passed / runs if runs else 0.0
    age = max(0.0, (now - started_ts) / 86400)
    return (0.5 + 0.5 * strength) * math.exp(-age / decay_days) + 0.1 * retrievals


def prune(svc: RecordService, *, dry_run: bool = False) -> dict[str, Any]:
    """Delete the failed records started before now − ``recordsKeepFailedDays`` that no
    memory cites. Returns ``{"pruned": [ids], "kept_cited": [ids], "dry_run"}``."""
    from hindsight.memory.clock import now_ts

    cutoff = now_ts() - svc.keep_failed_days * 86400.0
    old = svc.store.record_ids(outcome="failure", until=cutoff, limit=1_000_000)
    cited = svc.cited(old) if old else set()
    gone = sorted(i for i in old if i not in cited)
    if gone and not dry_run:
        svc.store.delete_records(gone)
    return {"pruned": gone, "kept_cited": sorted(cited), "dry_run": dry_run}
