"""Export a bank's memories as JSONL and import them again without loss, re-embed after a
model change, and reflect (a digest of the best evidence).

Export: one JSON object per line, every column of the memory (the vector base64-encoded
float32 with its ``model``), its ``anchors`` and its ``history`` (audit rows). Import keeps
every field but the id (new ids are assigned; ``superseded_by`` is mapped to them), skips
memories whose fingerprint exists already, and rebuilds the full-text index.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Iterator
from typing import Any

from hindsight.errors import ConfigError

_SKIP = {"id"}


def export_lines(mem: Any) -> Iterator[str]:
    ids = [r["id"] for r in mem.export_rows()]
    for i in range(0, len(ids), 500):
        part = ids[i:i + 500]
        rows = {r["id"]: r for r in mem.export_full(part)}
        full = mem.get(part)
        for mid in part:
            r = rows[mid]
            vec = r.pop("vector")
            r["vector"] = base64.b64encode(vec).decode() if vec is not None else None
            r["tags"] = json.loads(r["tags"])
            r["anchors"] = [{k: a[k] for k in ("path", "symbol", "ast_hash", "stale", "reason")}
                            for a in full[mid]["anchors"]]
            r["history"] = mem.audit(mid)
            yield json.dumps(r, ensure_ascii=False, sort_keys=True)


def import_lines(mem: Any, lines: Iterable[str]) -> dict[str, int]:
    """Import exported JSONL; returns {imported, skipped}. Raises ConfigError naming the
    first bad line (nothing of the import is written then)."""
    from hindsight.memory.textindex import index_text

    rows: list[dict[str, Any]] = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            if not isinstance(d, dict) or not isinstance(d.get("text"), str) or \
                    not d.get("fingerprint"):
                raise ValueError("not an exported memory")
        except ValueError as e:
            raise ConfigError(f"import line {n}: {e}") from None
        rows.append(d)
    return mem.import_rows(rows, index_text)
