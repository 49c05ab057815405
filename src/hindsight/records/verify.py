"""What a new record confirms: its own change, and the changes of earlier records that it
exercised with no change to their symbols in between (issue 12, item 1).

A record is ``verified`` when its change is confirmed by a passing test run that
exercises its symbols (:func:`hindsight.records.link.covers`; a run of the whole suite
exercises everything): its own run, or a later one with no change to those symbols in
between. A failed or interrupted run's record stays unverified. A change without symbols
(only files without a supported language, or none at all) is confirmed by its own passing
test run, or by a later passing run of the whole suite when it changed files.

Every test run also counts, for each earlier record whose changed symbols it exercised
(unchanged since), one linked run (``runs``) and, when it passed, one passed run
(``runs_passed``): the verification strength of the lifecycle is their ratio.
"""

from __future__ import annotations

from hindsight.models import ExecutionRecord
from hindsight.records.link import covers
from hindsight.store.base import RecordStore

LOOKBACK_S = 14 * 86400.0  # earlier records a run can confirm: started within this
LOOKBACK_N = 200  # and among this many newest


def _changed(r: ExecutionRecord) -> list[tuple[str, str]]:
    return [(c.path, c.local) for c in r.changes if c.change != "removed"]


def own(r: ExecutionRecord, exercised: set[tuple[str, str]]) -> bool:
    """Whether ``r``'s own run confirms its change (see the module doc)."""
    if r.outcome != "success" or not r.scope:
        return False
    changed = _changed(r)
    if changed:
        return r.scope == "suite" or covers(changed, exercised)
    return not r.files or r.scope == "suite"


def after_insert(store: RecordStore, new: ExecutionRecord,
                 exercised: set[tuple[str, str]]) -> list[int]:
    """Count ``new`` (a test run: ``scope`` set) against the earlier records it exercised,
    mark those it confirms verified, and ``new`` itself; returns the ids marked
    verified."""
    if not new.scope:
        return []
    passed = new.outcome == "success"
    suite = new.scope == "suite"
    verified = [new.id] if own(new, exercised) else []
    updates: list[tuple[int, dict[str, float | int]]] = [
        (new.id, {"runs": new.runs + 1, "runs_passed": new.runs_passed + passed,
                  **({"verified": 1, "verified_ts": new.started_ts} if verified else {})})]
    ids = {i for i in store.record_ids(since=new.started_ts - LOOKBACK_S, limit=LOOKBACK_N)
           if i < new.id}
    changed: dict[int, list[tuple[str, str, str]]] = {}
    if ids:
        for rid, path, local, change in store.changed_between(min(ids) - 1, new.id):
            changed.setdefault(rid, []).append((path, local, change))
    touched = [rid for rid, links in changed.items() if rid in ids and (suite or any(
        covers([(p, loc)], exercised) for p, loc, ch in links if ch != "removed"))]
    rows = store.get_records(touched, links=False) if touched else {}
    for rid in sorted(touched):
        r = rows.get(rid)
        mine = [(p, loc) for p, loc, ch in changed[rid] if ch != "removed"]
        since = {(p, loc) for later, links in changed.items() if later > rid
                 for p, loc, _ch in links}
        if r is None or not mine or since & set(mine):
            continue  # nothing to confirm, or its code changed again before this run
        fields: dict[str, float | int] = {"runs": r.runs + 1,
                                          "runs_passed": r.runs_passed + passed}
        if passed and not r.verified and r.outcome not in ("failure", "interrupted") \
                and (suite or covers(mine, exercised)):
            fields.update(verified=1, verified_ts=new.started_ts)
            verified.append(rid)
        updates.append((rid, fields))
    store.update_records(updates)
    return verified
