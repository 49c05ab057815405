"""What a purged memory leaves outside the bank's database, removed (``forget --purge``:
"no copy stays behind", docs/design.md): the prompt gate's caches beside the bank
(``<bank>.db.gate*``: vectors and the embedder's word table, rebuilt on next use) and the
text injected by hooks as the diagnostics log recorded it (``injected`` of each JSON line,
the purged fragments replaced by ``[purged]``)."""

from __future__ import annotations

import contextlib
import glob
import json
import os

PURGED = "[purged]"


def drop_gate_caches(bank_path: str) -> int:
    """Delete every ``<bank_path>.gate*`` file (caches, rebuilt on next use); how many."""
    n = 0
    for p in glob.glob(glob.escape(bank_path) + ".gate*"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(p)
            n += 1
    return n


def scrub_log(path: str, fragments: list[str]) -> int:
    """Rewrite the JSONL diagnostics log at ``path`` with each of ``fragments`` replaced by
    ``[purged]`` in the ``injected`` text of its lines (other lines kept byte for byte; the
    file replaced atomically, its mode kept). Returns the lines changed; 0 when the file is
    missing. Raises OSError when it cannot be rewritten."""
    frags = sorted({f for f in fragments if f}, key=len, reverse=True)
    if not frags or not os.path.isfile(path):
        return 0
    changed = 0
    out: list[bytes] = []
    with open(path, "rb") as f:
        for raw in f:
            try:
                rec = json.loads(raw)
            except ValueError:
                out.append(raw)
                continue
            text = rec.get("injected") if isinstance(rec, dict) else None
            if isinstance(text, str) and any(x in text for x in frags):
                for x in frags:
                    text = text.replace(x, PURGED)
                rec["injected"] = text
                out.append(json.dumps(rec, ensure_ascii=False).encode("utf-8") + b"\n")
                changed += 1
            else:
                out.append(raw)
    if changed:
        tmp = path + ".purge.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, os.stat(path).st_mode & 0o777)
        with os.fdopen(fd, "wb") as w:
            w.writelines(out)
        os.replace(tmp, path)
    return changed
