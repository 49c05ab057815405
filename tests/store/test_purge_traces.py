"""``forget --purge`` leaves no copy (issue 11): on every backend of the contract suite, the
purged text leaves the neighbours' contexts and their lexical postings, other memories'
audit details, the vectors, and the knowledge pages' cited excerpts; afterwards a search
for a word only the purged memory had finds nothing, and neither the SQLite file's bytes
nor any row of the bank's PostgreSQL schema holds it."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from backends import AT, BACKENDS, _insert, opened  # noqa: E402

SECRET = "zqvexkplm"  # a word no other memory holds
LEAK = f"the deploy token is {SECRET} until friday"


@pytest.fixture(params=BACKENDS)
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Any, Any, Any]]:
    yield from opened(request, tmp_path)


def _pages(code: Any, mem: Any) -> Any:
    """The bank's page store beside ``mem`` (SQLite: the same file; PostgreSQL: the same
    schema), wrapped in a PageService as the bank makes it."""
    from hindsight.pages.service import PageService
    from hindsight.store.sqlite import page_store

    if hasattr(mem, "pool"):
        from hindsight.store.postgres import work_stores

        store = work_stores(mem)[0]
    else:
        store = page_store(mem.conn)
    return PageService(store, bank_id="contract::bank", root="", code=None, history=None,
                       memory=None, settings=lambda: None)


def _page(mid: int) -> dict[str, Any]:
    return {"name": "conventions", "title": "Conventions", "updated_at": AT,
            "updated_ts": 1.0, "reason": "manual", "head": "", "commits": 0,
            "sections": [{"heading": "Recorded", "text": f"- #{mid} decision: {LEAK} [1]\n"
                          "- ruff runs in CI [2]",
                          "citations": [{"kind": "memory", "ref": str(mid)},
                                        {"kind": "file", "ref": "ruff.toml"}],
                          "evidence": "e"}], "changed": []}


def _pg_rows_with(mem: Any, word: str) -> list[str]:
    """Tables of the bank's schema with a row whose text form holds ``word``."""
    out = []
    for (table,) in mem.all("SELECT tablename FROM pg_tables WHERE schemaname = %s",
                            (mem.s,)):
        if mem.all(f"SELECT 1 FROM {{s}}.{table} t WHERE strpos(t::text, %s) > 0 LIMIT 1",
                   (word,)):
            out.append(table)
    return out


def test_purge_leaves_no_copy(stores: tuple[Any, Any, Any], tmp_path: Path) -> None:
    from hindsight.memory.lexical import search
    from hindsight.memory.lifecycle import purge

    code, _h, mem = stores
    (a, _), (b, _), (c, _) = _insert(
        mem, (LEAK, {"session": "s1"}),
        ("we fixed the flaky build", {"session": "s1",
                                      "context": f"the cache warmed up\n{LEAK}\nthanks"}),
        ("unrelated note", {"session": "s2", "context": "nothing here"}))
    mem.merge_into(c, AT, f"near-duplicate of: {LEAK}")
    mem.set_vectors([(a, (np.ones(4, np.float32) / 2).tobytes())], "m4")
    pages = _pages(code, mem)
    pages.store.add_page(_page(a))
    assert [i for i, _s in search(mem, SECRET, 10, 0.5)] == [a, b]
    assert mem.context_holders([LEAK, "", "absent text"]) == [b]

    assert purge(mem, a, "leaked", "admin", [pages.scrub_memory]) == {"id": a,
                                                                      "purged": True}
    assert search(mem, SECRET, 10, 0.5) == [] and mem.lex_df([SECRET]) == {SECRET: 0}
    assert [i for i, _s in search(mem, "cache warmed thanks", 10, 0.5)] == [b]
    got = mem.get([a, b, c])
    assert sorted(got) == [b, c] and got[b].context == "the cache warmed up\nthanks"
    assert got[b].text == "we fixed the flaky build"
    assert [h["action"] for h in mem.audit(b)] == ["retain", "scrubbed"]
    assert [h["detail"] for h in mem.audit(c)] == ["", "near-duplicate of: [purged]"]
    assert len(mem.matrix("m4")[0]) == 0
    page = pages.store.latest_pages()[0]
    assert page["sections"][0]["text"] == "- ruff runs in CI [2]"
    assert mem.lex_stats()[0] == 2
    if hasattr(mem, "pool"):  # PostgreSQL: no row of the bank's schema holds it
        assert _pg_rows_with(mem, SECRET) == []
        assert _pg_rows_with(mem, "cache warmed") == ["memories"]  # the check can see text
    else:
        mem.conn.close()  # a checkpointed, closed file: the bytes on disk are all there is
    for f in tmp_path.glob("bank.db*"):
        data = f.read_bytes()
        assert SECRET.encode() not in data, f.name
    if not hasattr(mem, "pool"):
        assert b"cache warmed" in (tmp_path / "bank.db").read_bytes()  # the grep can see


def test_purge_scrubs_only_what_it_quotes() -> None:
    from hindsight.memory.lifecycle import fragments, scrub
    from hindsight.pages.records import scrub_memory

    text = "short\nthe long line of the leak here\n  "
    assert fragments(text) == [text.strip(), "the long line of the leak here"]
    assert fragments("  ") == []
    assert scrub("a\nthe long line of the leak here\n\nb", fragments(text)) == "a\nb"
    secs = [{"heading": "H", "text": "x [1]\ny [2][1]\nz [3]", "citations": [
        {"kind": "memory", "ref": "7"}, {"kind": "file", "ref": "a"},
        {"kind": "memory", "ref": "8"}]}]
    assert scrub_memory(secs, 7, [])[0]["text"] == "z [3]"  # type: ignore[index]
    assert scrub_memory(secs, 9, ["nothing"]) is None
    assert scrub_memory(secs, 9, ["z"])[0]["text"] == "x [1]\ny [2][1]\n[purged] [3]"  # type: ignore[index]
