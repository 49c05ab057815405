"""The CodeStore and HistoryStore contract, on every backend (the same ``stores``
fixture as test_contract.py: a second backend adds a parameter in ``backends.py``)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from backends import AT, BACKENDS, opened  # noqa: E402
from conftest import git, make_repo  # noqa: E402


@pytest.fixture(params=BACKENDS)
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Any, Any, Any]]:
    yield from opened(request, tmp_path)


# --- CodeStore -----------------------------------------------------------------------------
def test_code_store_after_an_index(stores: tuple[Any, Any, Any], tmp_path: Path) -> None:
    from hindsight.codeindex.indexer import index

    code, _h, _m = stores
    repo = make_repo(tmp_path / "repo", {
        "pkg/core.py": "def connect(p):\n    return helper(p)\n\n\ndef helper(p):\n"
                       "    return p\n\n\nclass Store:\n    def save(self, x):\n"
                       "        return connect(x)\n"})
    st = index(code, str(repo), workers=1)
    assert (st.files_parsed, st.symbols) == (1, 4)
    assert sorted(code.load_files()) == ["pkg/core.py"]
    c = code.counts()
    assert (c["files"], c["symbols"]) == (1, 4)
    assert [s.qname for s in code.find_symbols("connect", None, None, 10)] == \
        ["pkg/core.py::connect"]
    assert [s.local for s in code.find_symbols("Store.save", None, None, 10)] == ["Store.save"]
    s, = code.symbols_by_qname(["pkg/core.py::helper"])
    assert (s.kind, s.start_line, s.end_line) == ("function", 5, 6)
    into = code.edges_to(["pkg/core.py::connect"], ["connect"])
    assert {(e.src, e.line) for e in into} == {("pkg/core.py::Store.save", 11)}
    out = code.edges_from(["pkg/core.py::connect"])
    assert [(e.dst, e.line) for e in out] == [("pkg/core.py::helper", 2)]
    assert [x.local for x in code.file_symbols("pkg/core.py")] == \
        ["connect", "helper", "Store", "Store.save"]
    assert [x.local for x in code.find_prefix("CONN", None, None, 10)] == ["connect"]
    assert [x.local for x in code.find_substring("elp", None, None, 10)] == ["helper"]
    assert [x.local for x in code.find_symbols("helper", "class", None, 10)] == []
    assert code.find_symbols("helper", None, "other/", 10) == []
    assert [x.local for x in code.symbols_with_hash(s.ast_hash, "renamed.helper")] == \
        ["helper"]
    assert code.notes() == [] and code.problem_files() == []
    assert code.skipped() == {}
    h = code.load_files()["pkg/core.py"].content_hash
    assert code.files_by_suffix("core.py", 5) == [("pkg/core.py", h)]
    assert code.files_by_suffix("pkg/core.py", 5) == [("pkg/core.py", h)]
    assert code.files_by_suffix("ore.py", 5) == []  # whole path parts only
    assert code.files_by_suffix("Core.py", 5) == []  # case-sensitive
    assert code.files_by_suffix("pkg/core", 5, stem=True) == [("pkg/core.py", h)]
    assert code.files_by_suffix("pkg/core", 5) == [] and code.files_by_suffix("", 5) == []
    assert code.files_by_suffix("%", 5) == [] and code.files_by_suffix("_ore.py", 5) == []


def test_code_store_imports_of(stores: tuple[Any, Any, Any], tmp_path: Path) -> None:
    from hindsight.codeindex.indexer import index

    code, _h, _m = stores
    repo = make_repo(tmp_path / "repo", {
        "pkg/__init__.py": "", "pkg/core.py": "def connect():\n    return 1\n",
        "app.py": "from pkg.core import connect\nimport pkg.core\n\n\ndef run():\n"
                  "    return connect()\n"})
    index(code, str(repo), workers=1)
    got = [(e.src, e.kind, e.dst, e.path, e.line)
           for e in code.imports_of(["pkg/core.py::connect", "pkg/core.py::"])]
    assert got == [("app.py::", "import", "pkg/core.py::connect", "app.py", 1),
                   ("app.py::", "import", "pkg/core.py::", "app.py", 2)]
    assert code.imports_of(["pkg/core.py::nothing"]) == []


def test_code_store_notes_and_problem_files(stores: tuple[Any, Any, Any],
                                           tmp_path: Path) -> None:
    from hindsight.codeindex.indexer import index

    code, _h, _m = stores
    repo = make_repo(tmp_path / "repo", {
        "a.py": "def f():\n    # @hindsight: f must stay pure\n    return 1\n",
        "bad.py": "def g(:\n    pass\n", "blob.bin": b"\x00\x01" * 10})
    index(code, str(repo), workers=1)
    assert code.notes() == [("a.py", "f", 2, "f must stay pure")]
    assert dict(code.problem_files())["bad.py"] == "missing ) at line 1"


def test_code_store_modules_facts_and_unresolved(stores: tuple[Any, Any, Any],
                                                tmp_path: Path) -> None:
    from hindsight.codeindex.indexer import index

    code, _h, _m = stores
    repo = make_repo(tmp_path / "repo", {
        "pkg/__init__.py": "from .core import Store\n",
        "pkg/core.py": "class Store:\n    def save(self):\n        return 1\n",
        "use.py": "import json\n\n\ndef go(x):\n    s = Store()\n    x.save()\n"
                  "    json.loads(x)\n    return json.loads(s.save())\n"})
    index(code, str(repo), workers=1)
    assert [s.qname for s in code.find_in_module("pkg.core", "Store.save", None, 10)] == \
        ["pkg/core.py::Store.save"]
    assert [s.qname for s in code.find_in_module("pkg", "Store.save", None, 10)] == \
        ["pkg/core.py::Store.save"]  # re-exported by the package
    assert code.find_in_module("pkg", "Nothing", None, 10) == []
    assert (code.module_known("pkg"), code.module_known("pk"), code.module_known("json")) \
        == (True, False, False)
    assert (code.count_unresolved("loads"), code.count_unresolved("loads", "json"),
            code.count_unresolved("save", "x"), code.count_unresolved("save", "y"),
            code.count_unresolved("save")) == (2, 2, 1, 0, 2)
    fid = code.load_files()["use.py"].id
    from hindsight.codeindex.table import FileSyms

    dump = code.load_dump(fid)
    assert dump is not None and code.load_dump(10**6) is None
    assert sorted(FileSyms.loads(dump, "").raw_facts) == \
        [("go", "return", "json.loads()", 8), ("go", "s", "Store()", 5)]


# --- HistoryStore --------------------------------------------------------------------------
def test_history_store_after_an_ingest(stores: tuple[Any, Any, Any], tmp_path: Path) -> None:
    from hindsight.history.ingest import ingest

    _c, history, _m = stores
    repo = make_repo(tmp_path / "repo", {"a.py": "def f():\n    return 1\n"})
    (repo / "a.py").write_text("def f():\n    return 2\n")
    git(repo, "commit", "-qam", "fix: f returns 2")
    st = ingest(history, str(repo))
    assert st.ingested == 2 and history.commit_count() == 2
    changes = history.symbol_changes("a.py", "f")
    assert [c["change"] for c in changes] == ["modified", "added"]
    head = history.commit(changes[0]["sha"])
    assert head is not None and head["subject"] == "fix: f returns 2" and head["fix"] == 1
    n = history.add_trace_event({"ts": AT, "ts_unix": 1_767_614_400.0, "path": "a.py",
                                 "old_path": "", "action": "modify", "old_hash": "1",
                                 "new_hash": "2", "ranges": [[2, 1, 2, 1]], "actor": "agent",
                                 "session": "s1", "branch": "main", "head": ""}, [])
    assert history.history_counts()["commits"] == 2
    assert sorted(history.known_commits([c["sha"] for c in changes] + ["0" * 40])) == \
        sorted(c["sha"] for c in changes)
    assert [c["subject"] for c in history.file_commits("a.py")] == ["fix: f returns 2", "init"]
    assert history.locals_named("f") == [("a.py", "f")]
    assert history.newest_commit_ts() == head["committer_ts"]
    assert [r["path"] for r in history.file_churn(0)] == ["a.py"]
    assert [(r["local"], r["commits"], r["fixes"]) for r in history.symbol_churn(0)] == \
        [("f", 2, 1)]
    assert history.renames() == []
    init_sha = changes[1]["sha"]
    assert history.change_sets() == [
        (init_sha, history.commit(init_sha)["committer_ts"], "init\n", [("a.py", "", ["f"])]),
        (head["sha"], head["committer_ts"], "fix: f returns 2\n", [("a.py", "", ["f"])])]
    assert history.added_deleted() == {init_sha: (["a.py"], [])}
    ev, = history.trace_events("a.py")
    assert (ev["id"], ev["actor"], ev["ranges"]) == (n, "agent", [[2, 1, 2, 1]])
    assert history.trace_events("a.py", since_unix=1_900_000_000.0) == []
