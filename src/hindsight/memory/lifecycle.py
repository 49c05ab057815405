"""forget / restore and the lifecycle that keeps a bank small: archive what has not been
recalled for ``ARCHIVE_DAYS`` (90), and archive the least active beyond ``CAPACITY``
(10,000 active memories). Archived memories leave default recall and can be restored.
Defaults are the seed's numbers."""

from __future__ import annotations

from typing import Any

from hindsight.errors import ConfigError, NotFound
from hindsight.memory.clock import iso, now_ts
from hindsight.memory.recall import activity
from hindsight.store.base import MemoryStore

ARCHIVE_DAYS = 90
CAPACITY = 10_000


def _who(reason: str, by: str) -> str:
    return f"{reason} (by {by})" if by else reason


def forget(store: MemoryStore, mid: int, reason: str, by: str = "") -> dict[str, Any]:
    """Soft-delete memory ``mid`` (kept with an audit row; ``by``: who, added to the
    reason). Raises NotFound, ConfigError (no reason)."""
    if not reason.strip():
        raise ConfigError("forget needs a reason (it is kept in the audit log)",
                          option="reason")
    row = store.get([mid]).get(mid)
    if row is None:
        raise NotFound(f"no memory {mid}")
    from hindsight.redact import clean

    store.set_status(mid, "forgotten", _who(clean(reason), clean(by)), iso(now_ts()))
    return {"id": mid, "status": "forgotten", "was": row.status}


def restore(store: MemoryStore, mid: int, reason: str = "", by: str = "") -> dict[str, Any]:
    """Make a forgotten, archived or superseded memory active again (this counts as an
    access); ``reason`` (optional) is kept in the audit log, with ``by`` (who) when given.
    Raises NotFound."""
    row = store.get([mid]).get(mid)
    if row is None:
        raise NotFound(f"no memory {mid}")
    now = now_ts()
    from hindsight.redact import clean

    why = f"restored: {clean(reason.strip())}" if reason.strip() else "restored"
    store.set_status(mid, "active", _who(why, clean(by)), iso(now))
    store.touch([mid], now)  # a restore is an access: gc must not archive it straight away
    return {"id": mid, "status": "active", "was": row.status}


def purge(store: MemoryStore, mid: int, reason: str, by: str) -> dict[str, Any]:
    """Delete memory ``mid`` for real (:meth:`MemoryStore.purge`): its lexical postings
    are found from its document's terms. The audit row kept reads ``by <who>: <reason>``.
    Raises ConfigError (no reason), NotFound."""
    from hindsight.memory.lexical import document, ensure
    from hindsight.redact import clean

    if not reason.strip():
        raise ConfigError("purge needs a reason (it is kept in the audit log)",
                          option="reason")
    row = store.get([mid]).get(mid)
    if row is None:
        raise NotFound(f"no memory {mid}", value=mid)
    ensure(store)  # the index is this analyzer's: the terms below are the ones it holds
    body, ctx = document({"text": row.text, "scene": row.scene, "problem": row.problem,
                          "solution": row.solution, "tags": list(row.tags),
                          "context": row.context})
    terms = sorted(set(body) | set(ctx))
    if not store.purge(mid, terms, iso(now_ts()), f"by {clean(by)}: {clean(reason)}"):
        raise NotFound(f"no memory {mid}", value=mid)
    return {"id": mid, "purged": True}


def gc(store: MemoryStore, archive_days: int = ARCHIVE_DAYS, capacity: int = CAPACITY,
       dry_run: bool = False) -> dict[str, Any]:
    """Archive memories not recalled for ``archive_days``, then the least active beyond
    ``capacity``. Returns what was (or, with ``dry_run``, would be) archived."""
    now = now_ts()
    rows = store.activity_rows()
    cutoff = now - archive_days * 86400
    idle = sorted(i for i, last, _c, _conf in rows if last < cutoff)
    rest = [(i, activity(last, c, conf, now)) for i, last, c, conf in rows if last >= cutoff]
    over: list[int] = []
    if len(rest) > capacity:
        rest.sort(key=lambda x: (x[1], x[0]))
        over = sorted(i for i, _a in rest[:len(rest) - capacity])
    if not dry_run:
        if idle:
            store.archive_many(idle, f"not recalled for {archive_days} days", iso(now))
        if over:
            store.archive_many(over, f"over capacity ({capacity} active)", iso(now))
    return {"archived_idle": idle, "archived_over_capacity": over,
            "active_after": len(rows) - len(idle) - len(over), "dry_run": dry_run}
