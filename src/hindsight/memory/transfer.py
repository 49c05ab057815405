"""Export a bank's memories as JSONL and import them again without loss, re-embed after a
model change, and reflect (a digest of the best evidence).

Export: one JSON object per line, every column of the memory (the vector base64-encoded
float32 with its ``model``), its ``anchors`` (``implicit`` 0/1 each) and its ``history``
(audit rows). Import keeps
every field but the id (new ids are assigned; ``superseded_by`` is mapped to them), skips
memories whose fingerprint exists already, and rebuilds the full-text index.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Iterator
from typing import Any

from hindsight.config.jsontext import loads
from hindsight.errors import ConfigError
from hindsight.store.base import MemoryStore, Viewer

_SKIP = {"id"}

ACCESS_MAX = 2**31 - 1  # an access count as both backends store it (a 32-bit integer)


def export_lines(mem: MemoryStore, viewer: Viewer | None = None) -> Iterator[str]:
    """One JSON line per memory ``viewer`` may see (None: every memory), in id order."""
    ids = [r["id"] for r in mem.export_rows(viewer)]
    for i in range(0, len(ids), 500):
        part = ids[i:i + 500]
        rows = {r["id"]: r for r in mem.export_full(part, viewer)}
        full = mem.get(part, viewer)
        for mid in part:
            if mid not in rows or mid not in full:  # purged (or hidden) since listed
                continue
            r = rows[mid]
            vec = r.pop("vector")
            r["vector"] = base64.b64encode(vec).decode() if vec is not None else None
            r["tags"] = json.loads(r["tags"])
            r["anchors"] = [a.as_dict() for a in full[mid].anchors]
            r["history"] = mem.audit(mid)
            yield json.dumps(r, ensure_ascii=False, sort_keys=True)


def import_lines(mem: MemoryStore, lines: Iterable[str], viewer: Viewer | None = None
                 ) -> dict[str, int]:
    """Import exported JSONL; returns {imported, skipped}. A ``viewer`` that is not an
    admin imports as itself: every memory's owner and team become its own (only an admin
    keeps the owners of the file). Raises ConfigError naming the first bad line (nothing
    of the import is written then)."""
    from hindsight.memory.lexical import document, ensure

    rows: list[dict[str, Any]] = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            d = loads(line, first=n == 1)
            if isinstance(d, dict) and viewer is not None and not viewer.admin:
                d["owner"], d["team"] = viewer.agent, viewer.team
            rows.append(_checked(d))
        except (ValueError, TypeError, KeyError, RecursionError) as e:
            raise ConfigError(f"import line {n}: {e}") from None
    ensure(mem)
    return mem.import_rows(rows, [document(r) for r in rows])


_TEXT = ("text", "kind", "scene", "problem", "solution", "outcome", "context", "source",
         "session", "agent", "commit_sha", "ref", "occurred_at", "created_at", "status",
         "status_reason", "status_at", "visibility", "owner", "team", "stale_reason", "model")
_NUM = ("occurred_ts", "created_ts", "last_accessed_ts", "confidence")
_STATUS = ("active", "archived", "forgotten", "superseded")


def _checked(d: Any) -> dict[str, Any]:
    """An exported row, validated, with every string redacted again (an export may come
    from elsewhere or have been edited) and its fingerprint recomputed from its content.
    Raises ValueError/TypeError/KeyError naming the problem."""
    import math

    from hindsight.memory.extract import KINDS
    from hindsight.memory.retain import fingerprint, fingerprint_scope
    from hindsight.redact import clean

    if not isinstance(d, dict):
        raise ValueError("not a JSON object")
    for k in ("text", "kind", "occurred_at", "created_at"):
        if not isinstance(d.get(k), str) or not d[k]:
            raise ValueError(f"{k} is missing or not a string")
    for k in _TEXT:
        if d.get(k) is None:
            d[k] = ""
        if not isinstance(d[k], str):
            raise ValueError(f"{k} must be a string")
        d[k] = clean(d[k])
    if d["kind"] not in KINDS or d["status"] not in _STATUS:
        raise ValueError(f"kind {d['kind']!r} / status {d['status']!r} unknown")
    for k in _NUM:
        v = d.get(k)
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            raise ValueError(f"{k} must be a number")
    if not 0 <= d["confidence"] <= 1:
        raise ValueError("confidence must be between 0 and 1")
    for k in ("access_count", "stale"):
        if not isinstance(d.get(k, 0), int) or isinstance(d.get(k, 0), bool):
            raise ValueError(f"{k} must be an integer")
    if not 0 <= d.get("access_count", 0) <= ACCESS_MAX:
        raise ValueError(f"access_count must be between 0 and {ACCESS_MAX}")
    tags = d.get("tags") or []
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise ValueError("tags must be a list of strings")
    d["tags"] = [clean(t) for t in tags]
    anchors = d.get("anchors") or []
    if not isinstance(anchors, list):
        raise ValueError("anchors must be a list")
    for a in anchors:
        if not isinstance(a, dict) or not isinstance(a.get("path"), str):
            raise ValueError("an anchor needs a path")
        a["path"], a["symbol"] = clean(a["path"]), clean(str(a.get("symbol") or ""))
        a["ast_hash"] = str(a.get("ast_hash") or "")
        if a.get("implicit", 0) not in (0, 1):  # True/False are 1/0 too
            raise ValueError("an anchor's implicit must be 0 or 1")
    for h in d.get("history") or []:
        if not isinstance(h, dict) or not all(isinstance(h.get(k), str)
                                              for k in ("at", "action")):
            raise ValueError("a history row needs at and action")
        h["detail"] = clean(str(h.get("detail") or ""))
    vec = d.get("vector")
    if vec is not None:
        raw = base64.b64decode(vec, validate=True)
        if not raw or len(raw) % 4:
            raise ValueError("vector is not float32 data")
        d["_dim"] = len(raw) // 4
    scope = fingerprint_scope(d["visibility"], d["owner"], d["team"])
    d["fingerprint"] = fingerprint(d["text"], d["kind"],
                                   [(a["path"], a["symbol"], a["ast_hash"]) for a in anchors
                                    if not a.get("implicit")], scope)
    return d
