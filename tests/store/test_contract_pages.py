"""The contract suite, continued (``store/base.py``): PageStore, and what the knowledge
pages read of the other stores (``HistoryStore.recent_commits``, ``CodeStore.import_edges``),
on every backend of the contract suite (``backends.py``; pages only where the backend has a
page store)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from backends import AT, BACKENDS, opened  # noqa: E402
from conftest import git, make_repo  # noqa: E402

from hindsight.errors import StorageError  # noqa: E402


def _open_pages_sqlite(tmp: Path) -> tuple[Any, Any]:
    from hindsight.store.sqlite import open_stores, page_store

    *_stores, conn = open_stores(str(tmp / "bank.db"), "contract::bank", str(tmp), 2000)
    return page_store(conn), conn


def _open_pages_postgres(tmp: Path, request: pytest.FixtureRequest) -> tuple[Any, Any]:
    from backends import OPENERS

    from hindsight.store.postgres import work_stores

    *_, mem, handle = OPENERS["postgres"](tmp, request)
    return work_stores(mem)[0], handle


PAGE_OPENERS = {"sqlite": lambda tmp, _request: _open_pages_sqlite(tmp),
                "postgres": _open_pages_postgres}


@pytest.fixture(params=BACKENDS)
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Any, Any, Any]]:
    yield from opened(request, tmp_path)


@pytest.fixture(params=[b for b in BACKENDS if b in PAGE_OPENERS])
def page_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    store, handle = PAGE_OPENERS[request.param](tmp_path, request)
    yield store
    handle.close()


def _page(name: str, text: str, ts: float = 1_767_614_400.0) -> dict[str, Any]:
    return {"name": name, "title": name.title(), "version": 99, "updated_at": AT,
            "updated_ts": ts, "reason": "manual", "head": "a" * 40, "commits": 3,
            "sections": [{"heading": "Parts", "text": text,
                          "citations": [{"kind": "file", "ref": "a.py:1"}],
                          "evidence": "0123456789abcdef"}],
            "changed": ["added: Parts"]}


def test_page_versions_per_name(page_store: Any) -> None:
    assert page_store.latest_pages() == [] and page_store.page_versions("x", 5) == []
    assert page_store.add_page(_page("conventions", "- ruff [1]")) == 1
    assert page_store.add_page(_page("architecture", "- a ü 漢字 [1]")) == 1
    assert page_store.add_page(_page("architecture", "- b [1]", ts=1_767_614_500.5)) == 2
    latest = page_store.latest_pages()
    assert [(p["name"], p["version"]) for p in latest] == [("architecture", 2),
                                                           ("conventions", 1)]
    v2 = latest[0]
    assert v2 == {**_page("architecture", "- b [1]", ts=1_767_614_500.5), "version": 2}
    got = page_store.page_versions("architecture", 5)
    assert [p["version"] for p in got] == [2, 1]
    assert got[1]["sections"][0]["text"] == "- a ü 漢字 [1]"
    assert [p["version"] for p in page_store.page_versions("architecture", 1)] == [2]
    page_store.set_meta({"pages:state": "{}"})
    assert page_store.get_meta("pages:state") == "{}"


def test_page_store_errors_are_storage_errors(page_store: Any) -> None:
    """A closed handle is a StorageError, and a failed add changes nothing."""
    page_store.add_page(_page("x", "t"))
    if hasattr(page_store, "conn"):
        page_store.conn.close()
    else:
        page_store.pool.close()
    for call in (lambda: page_store.add_page(_page("x", "u")), page_store.latest_pages,
                 lambda: page_store.page_versions("x", 1)):
        with pytest.raises(StorageError):
            call()


def test_recent_commits_and_import_edges(stores: tuple[Any, Any, Any], tmp_path: Path) -> None:
    from hindsight.codeindex.indexer import index
    from hindsight.history.fixes import is_fix
    from hindsight.history.ingest import ingest

    code, history, _m = stores
    repo = make_repo(tmp_path / "repo", {"pkg/__init__.py": "", "pkg/a.py": "X = 1\n",
                                         "pkg/b.py": "from pkg import a\nimport pkg.a\n"})
    (repo / "pkg" / "a.py").write_text("X = 2\n")
    git(repo, "commit", "-qam", "fix: X is 2")
    (repo / "pkg" / "b.py").write_text("from pkg import a\nimport pkg.a\nY = 1\n")
    git(repo, "commit", "-qam", "add Y")
    ingest(history, str(repo))
    history.set_fixes(is_fix)
    got = history.recent_commits(10)
    assert [c["subject"] for c in got] == ["add Y", "fix: X is 2", "init"]
    assert [c["fix"] for c in got] == [False, True, False] and not any(c["merge"] for c in got)
    assert got[0]["files"] == ["pkg/b.py"] and got[2]["files"] == ["pkg/__init__.py",
                                                                   "pkg/a.py", "pkg/b.py"]
    assert got[0]["ts"] >= got[1]["ts"] and got[0]["date"][:2] == "20"
    assert [c["subject"] for c in history.recent_commits(10, fixes_only=True)] == \
        ["fix: X is 2"]
    assert [c["subject"] for c in history.recent_commits(10, path="pkg/a.py")] == \
        ["fix: X is 2", "init"]
    assert [c["subject"] for c in history.recent_commits(1)] == ["add Y"]
    index(code, str(repo), workers=1)
    assert code.import_edges() == [("pkg/b.py", 1, "pkg/a.py"),
                                   ("pkg/b.py", 2, "pkg/__init__.py"),
                                   ("pkg/b.py", 2, "pkg/a.py")]
