"""Parse file versions that are not on disk (git blobs, texts handed to ``record_edit``)
into :class:`~hindsight.models.SymState` lists, with the same guards as indexing: the
content skip rules (binary, too large, minified) and the per-file watchdog of
:mod:`hindsight.codeindex.pool`, so a grammar that never returns cannot hang history.

Grammars and queries are compiled once in this process before workers are forked (they
inherit them): compiling all of them takes ~0.5 s, which a worker per chunk of history
would otherwise pay again and again."""

from __future__ import annotations

import os
import shutil

from hindsight.codeindex import languages, pool
from hindsight.config.paths import scratch_dir
from hindsight.models import ParseResult, SymState

Version = tuple[str, str, str, bytes]  # key, repository path, language, raw bytes
SMALL = 8  # up to this many versions parse in one forked child, not a pool


def states(r: ParseResult) -> list[SymState]:
    """The symbols of a parse result as comparable states."""
    return [SymState(s.local, s.kind, s.ast_hash, s.start_line, s.end_line)
            for s in r.symbols]


def parse_versions(versions: list[Version], workers: int | None = None
                   ) -> dict[str, list[SymState] | None]:
    """Symbols of each version by key; ``None`` for a version that was skipped (binary,
    too large, minified) or given up (parser timeout or crash)."""
    if not versions:
        return {}
    if hasattr(os, "fork"):  # forked workers inherit the compiled grammars and queries
        for lang in {v[2] for v in versions}:
            languages.get(lang)
    scratch = scratch_dir("blobs")
    try:
        items: list[tuple[str, str]] = []
        keys: dict[str, str] = {}
        for i, (key, path, lang, raw) in enumerate(versions):
            ext = os.path.splitext(path)[1]
            name = f"v{i}{ext}"
            with open(os.path.join(scratch, name), "wb") as fh:
                fh.write(raw)
            items.append((name, lang))
            keys[name] = key
        if len(items) <= SMALL:
            results, _gave_up = pool.run_small(scratch, items)
        else:
            n = max(1, workers or os.cpu_count() or 1)
            size = max(1, min(32, len(items) // (n * 4) or 1))
            batches = [items[i:i + size] for i in range(0, len(items), size)]
            results, _gave_up = pool.run(scratch, batches, n)
        out: dict[str, list[SymState] | None] = {k: None for k in keys.values()}
        for r in results:
            if not r.skip and r.content_hash:
                out[keys[r.path]] = states(r)
        return out
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
