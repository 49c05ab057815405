"""forget / restore and the lifecycle that keeps a bank small: archive what has not been
recalled for ``ARCHIVE_DAYS`` (90), and archive the least active beyond ``CAPACITY``
(10,000 active memories). Archived memories leave default recall and can be restored.
Defaults are the seed's numbers."""

from __future__ import annotations

from collections.abc import Callable
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


MIN_FRAGMENT = 16  # characters a line of a purged text needs to be scrubbed on its own


def fragments(text: str) -> list[str]:
    """What a purge removes from other memories' contexts and audit details: the purged
    ``text`` itself, then each of its lines (stripped) of at least :data:`MIN_FRAGMENT`
    characters (a context may hold a turn's lines apart), longest first."""
    lines = [ln.strip() for ln in text.splitlines() if len(ln.strip()) >= MIN_FRAGMENT]
    return sorted({text.strip(), *lines} - {""}, key=lambda f: (-len(f), f))


def scrub(context: str, frags: list[str]) -> str:
    """``context`` without any of ``frags`` (longest first), blank runs left by them
    collapsed to one line break."""
    import re

    for f in frags:
        context = context.replace(f, "")
    return re.sub(r"\n\s*\n+", "\n", context).strip()


def purge(store: MemoryStore, mid: int, reason: str, by: str,
          after: list[Callable[[int, list[str]], object]] | None = None) -> dict[str, Any]:
    """Delete memory ``mid`` for real (:meth:`MemoryStore.purge`): its lexical postings
    are found from its document's terms. Memories whose context holds its text (the
    neighbouring turns indexed with a memory) get that text removed and their lexical
    document re-indexed in the same transaction, and audit details quoting it read
    ``[purged]``, so a search finds the text nowhere (:func:`fragments`); then each of
    ``after`` is called with ``(mid, fragments)`` (other derived copies: the knowledge
    pages' cited excerpts). The audit row kept reads ``by <who>: <reason>``. Raises
    ConfigError (no reason), NotFound."""
    from hindsight.memory.lexical import document, ensure
    from hindsight.redact import clean

    if not reason.strip():
        raise ConfigError("purge needs a reason (it is kept in the audit log)",
                          option="reason")
    row = store.get([mid]).get(mid)
    if row is None:
        raise NotFound(f"no memory {mid}", value=mid)
    ensure(store)  # the index is this analyzer's: the terms below are the ones it holds
    body, ctx = document(_fields(row))
    terms = sorted(set(body) | set(ctx))
    frags = fragments(row.text)
    rewrites = []
    for n in store.get([i for i in store.context_holders(frags) if i != mid]).values():
        old_body, old_ctx = document(_fields(n))
        new_ctx = scrub(n.context, frags)
        rewrites.append((n.id, new_ctx, sorted(set(old_body) | set(old_ctx)),
                         document({**_fields(n), "context": new_ctx})))
    if not store.purge(mid, terms, iso(now_ts()), f"by {clean(by)}: {clean(reason)}",
                       rewrites, frags):
        raise NotFound(f"no memory {mid}", value=mid)
    for fn in after or ():
        fn(mid, frags)
    return {"id": mid, "purged": True}


def _fields(m: Any) -> dict[str, Any]:
    """The fields of memory ``m`` its lexical document is made of."""
    return {"text": m.text, "scene": m.scene, "problem": m.problem, "solution": m.solution,
            "tags": list(m.tags), "context": m.context}


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
