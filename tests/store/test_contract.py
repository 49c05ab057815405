"""One contract suite for every storage backend (``store/base.py``): MemoryStore
(CodeStore and HistoryStore in test_contract_code.py, PageStore in test_contract_pages.py,
on the same backends).
The ``stores`` fixture is parameterised by backend; a second backend adds a parameter (and
its opener in ``backends.py``, shared with test_contract_team.py and
test_contract_pages.py), not a second suite."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from backends import AT, BACKENDS, HANDLES, OPENERS, _insert, _row, opened  # noqa: E402

from hindsight.errors import StorageError  # noqa: E402
from hindsight.models import Memory  # noqa: E402
from hindsight.store.base import POSTING  # noqa: E402


@pytest.fixture(params=BACKENDS)
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Any, Any, Any]]:
    yield from opened(request, tmp_path)

# --- meta (every store) --------------------------------------------------------------------
def test_meta_round_trip(stores: tuple[Any, Any, Any]) -> None:
    """The bank has one meta table: every store reads what another wrote."""
    for n, st in enumerate(stores):
        key = f"contract-key-{n}"
        assert st.get_meta(key) is None
        st.set_meta({key: "v1", f"other-{n}": "ü"})
        assert (st.get_meta(key), st.get_meta(f"other-{n}")) == ("v1", "ü")
        st.set_meta({key: "v2"})
        assert all(other.get_meta(key) == "v2" for other in stores)


# --- MemoryStore ---------------------------------------------------------------------------
def test_insert_get_and_duplicates(stores: tuple[Any, Any, Any]) -> None:
    _c, _h, mem = stores
    got = _insert(mem, ("We decided to keep WAL mode", {"kind": "decision",
                                                        "anchors": [("db.py", "connect", "h1")],
                                                        "tags": ["storage"]}),
                  ("Lesson: retries deadlocked", {"kind": "lesson", "outcome": "failure"}))
    assert [new for _i, new in got] == [True, True]
    (a, _), (b, _) = got
    assert a != b
    again = _insert(mem, ("We decided to keep WAL mode", {"kind": "decision",
                                                          "anchors": [("db.py", "connect",
                                                                       "h1")],
                                                          "tags": ["storage"]}))
    assert again == [(a, False)]
    rows = mem.get([a, b, 999_999])
    assert set(rows) == {a, b}
    m = rows[a]
    assert isinstance(m, Memory)
    assert (m.text, m.kind, m.tags, m.status, m.stale) == (
        "We decided to keep WAL mode", "decision", ("storage",), "active", False)
    assert [(x.path, x.symbol, x.ast_hash) for x in m.anchors] == [("db.py", "connect", "h1")]
    assert m.access_count == 1  # the duplicate counted as an access
    assert rows[b].outcome == "failure"
    assert [e["action"] for e in mem.audit(a)] == ["retain", "duplicate"]
    assert mem.by_fingerprint(m.fingerprint) == a
    assert mem.count() == 2 and mem.count(None) == 2 and mem.has_active()


def test_list_filters_and_order(stores: tuple[Any, Any, Any]) -> None:
    _c, _h, mem = stores
    ids = [i for i, _ in _insert(
        mem, ("first decision", {"kind": "decision", "occurred": "2026-01-01T00:00:00+00:00"}),
        ("second decision", {"kind": "decision", "occurred": "2026-01-02T00:00:00+00:00"}),
        ("a lesson", {"kind": "lesson", "occurred": "2026-01-03T00:00:00+00:00"}),
        ("a note from a comment", {"kind": "fact", "source": "code_comment"}))]
    assert [m.id for m in mem.list_memories(kind="decision")] == [ids[1], ids[0]]
    assert [m.id for m in mem.list_memories(source="code_comment")] == [ids[3]]
    mem.set_status(ids[0], "forgotten", "wrong", AT)
    assert ids[0] not in [m.id for m in mem.list_memories()]
    assert [m.id for m in mem.list_memories(status="forgotten")] == [ids[0]]
    assert len(mem.list_memories(status="all")) == 4
    assert len(mem.list_memories(status="all", limit=2)) == 2
    mem.archive_many([ids[2]], "idle", AT)
    assert mem.status_counts() == {"active": 2, "forgotten": 1, "archived": 1,
                                   "superseded": 0, "stale": 0}
    assert [e["action"] for e in mem.audit(ids[0])] == ["retain", "forgotten"]


def test_list_filters_for_browsing(stores: tuple[Any, Any, Any]) -> None:
    """The filters the control plane offers: tag, visibility, time, anchor, paging, new
    ids, insertion order."""
    _c, _h, mem = stores
    ids = [i for i, _ in _insert(
        mem, ("tagged storage", {"tags": ["storage", "wal"], "kind": "fact",
                                 "occurred": "2026-01-03T00:00:00+00:00",
                                 "anchors": [("db.py", "connect", "h1")]}),
        ("tagged storage too", {"tags": ["storage"], "kind": "fact",
                                "occurred": "2026-01-01T00:00:00+00:00",
                                "anchors": [("db.py", "", "")]}),
        ("a tag containing the other", {"tags": ["storage-x"], "kind": "fact",
                                        "occurred": "2026-01-02T00:00:00+00:00"}),
        ("private note", {"kind": "fact", "visibility": "private", "owner": "bot",
                          "occurred": "2026-01-04T00:00:00+00:00"}))]
    assert [m.id for m in mem.list_memories(tag="storage")] == [ids[0], ids[1]]
    assert [m.id for m in mem.list_memories(tag="wal")] == [ids[0]]
    assert mem.list_memories(tag="stor") == []
    assert [m.id for m in mem.list_memories(visibility="private")] == [ids[3]]
    jan2, jan3 = 1_767_312_000.0, 1_767_398_400.0
    assert [m.id for m in mem.list_memories(since=jan2, until=jan3)] == [ids[2]]
    assert [m.id for m in mem.list_memories(anchor=("db.py", ""))] == [ids[0], ids[1]]
    assert [m.id for m in mem.list_memories(anchor=("db.py", "connect"))] == [ids[0]]
    assert [m.id for m in mem.list_memories(limit=2, offset=1)] == [ids[0], ids[2]]
    assert [m.id for m in mem.list_memories(after_id=ids[1], order="id")] == [ids[3], ids[2]]
    assert [m.id for m in mem.list_memories(order="id", limit=1)] == [max(ids)]
    assert mem.list_memories(stale=True) == []
    mem.mark_stale([(ids[0], "db.py", "connect", "changed")], AT)
    assert [m.id for m in mem.list_memories(stale=True)] == [ids[0]]
    assert [m.id for m in mem.list_memories(stale=True, tag="wal", kind="fact")] == [ids[0]]


def test_lexical_index_integers(stores: tuple[Any, Any, Any]) -> None:
    """The store keeps the integers BM25 needs: df, per-field frequencies and lengths,
    collection totals; postings of every status; terms exactly as the analyzer gave them."""
    _c, _h, mem = stores
    assert mem.lex_stats() == (0, 0, 0)
    (a, _), (b, _), (c, _) = _insert(
        mem, ("the parser hangs on tsx files", {"context": "parser parser again"}),
        ("the parser is fast", {}), ("unrelated words", {}))
    # bodies: [the, parser, hang, on, tsx, file] / [the, parser, is, fast] / [unrel, word];
    # context [parser, parser, again] (stop words are indexed too)
    assert mem.lex_stats() == (3, 12, 3)
    assert mem.lex_df(["parser", "tsx", "word", "nothinghere"]) == {
        "parser": 2, "tsx": 1, "word": 1, "nothinghere": 0}
    post = mem.lex_postings(["parser", "nothinghere"])
    assert list(post) == ["parser"] and isinstance(post["parser"], bytes)
    p = np.frombuffer(post["parser"], dtype=np.dtype(POSTING))
    assert [tuple(int(x) for x in r) for r in p] == [(a, 1, 2, 6, 3), (b, 1, 0, 4, 0)]
    mem.set_status(b, "forgotten", "wrong", AT)  # statuses do not change the postings
    assert mem.lex_df(["parser"]) == {"parser": 2}
    assert not mem.lex_behind() and mem.lex_missing(10) == []
    assert c > b


def test_lexical_postings_span_blocks(stores: tuple[Any, Any, Any]) -> None:
    """A term held by more memories than one block holds comes back whole, in order, from
    single and batch inserts alike; a second add of an indexed memory is skipped."""
    _c, _h, mem = stores
    first = _insert(mem, *[(f"common word{n}", {}) for n in range(150)])
    more = [_insert(mem, (f"common extra{n}", {}))[0] for n in range(140)]
    ids = [i for i, _ in first] + [i for i, _ in more]
    p = np.frombuffer(mem.lex_postings(["common"])["common"], dtype=np.dtype(POSTING))
    assert [int(x) for x in p["id"]] == ids and mem.lex_df(["common"]) == {"common": 290}
    # "common word7": common, word7 and its parts word, 7
    assert set(p["tf_body"].tolist()) == {1} and set(p["len_body"].tolist()) == {4}
    assert mem.lex_add([(ids[0], {"common": 5}, {})]) == 0
    assert mem.lex_stats() == (290, 4 * 290, 0)


def test_lexical_rebuild(stores: tuple[Any, Any, Any]) -> None:
    """lex_reset empties the index once per version; lex_missing hands back the rows to
    index again; lex_add fills them."""
    _c, _h, mem = stores
    (a, _), (b, _) = _insert(mem, ("alpha beta", {"tags": ["t1"], "context": "gamma"}),
                             ("delta", {"kind": "decision"}))
    assert mem.lex_reset("v9") is True
    assert mem.lex_reset("v9") is False  # already begun: nothing emptied twice
    assert mem.lex_stats() == (0, 0, 0) and mem.lex_df(["alpha"]) == {"alpha": 0}
    assert mem.lex_behind()
    got = mem.lex_missing(1)
    assert [(r["id"], r["text"], r["tags"], r["context"]) for r in got] == [
        (a, "alpha beta", ["t1"], "gamma")]
    assert mem.lex_add([(a, {"alpha": 1}, {"gamma": 1})]) == 1
    assert [r["id"] for r in mem.lex_missing(10)] == [b]
    assert mem.lex_add([(b, {"delta": 2}, {})]) == 1
    assert mem.lex_stats() == (2, 3, 1) and not mem.lex_behind()
    assert [tuple(int(x) for x in r) for r in np.frombuffer(
        mem.lex_postings(["delta"])["delta"], dtype=np.dtype(POSTING))] == [(b, 2, 0, 2, 0)]


def test_vectors_matrix_and_missing(stores: tuple[Any, Any, Any]) -> None:
    _c, _h, mem = stores
    ids = [i for i, _ in _insert(mem, ("one", {}), ("two", {}), ("three", {}))]
    assert [i for i, _t in mem.missing_vectors("m1")] == ids
    v = np.eye(3, 4, dtype=np.float32)
    mem.set_vectors([(ids[0], v[0].tobytes()), (ids[1], v[1].tobytes())], "m1")
    got_ids, mat = mem.matrix("m1")
    assert list(got_ids) == ids[:2] and mat.shape == (2, 4) and mat.dtype == np.float32
    assert np.allclose(mat, v[:2])
    assert [i for i, _t in mem.missing_vectors("m1")] == [ids[2]]
    assert len(mem.matrix("other-model")[0]) == 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_matrix_follows_other_connections(backend: str, tmp_path: Path,
                                          request: pytest.FixtureRequest) -> None:
    """A process holding the matrix sees vectors another process adds, removes (status)
    or replaces (re-embedding)."""
    _c1, _h1, a, h1 = OPENERS[backend](tmp_path, request)
    _c2, _h2, b, h2 = OPENERS[backend](tmp_path, request)
    try:
        ids = [i for i, _ in _insert(a, ("one", {}), ("two", {}), ("three", {}))]
        v = np.eye(3, 4, dtype=np.float32)
        a.set_vectors([(ids[0], v[0].tobytes()), (ids[1], v[1].tobytes())], "m1")
        got, mat = a.matrix("m1")
        assert sorted(got.tolist()) == ids[:2]
        b.set_vectors([(ids[2], v[2].tobytes())], "m1")  # added elsewhere
        got, mat = a.matrix("m1")
        rows = {int(i): m for i, m in zip(got, mat, strict=True)}
        assert sorted(rows) == ids and np.allclose(rows[ids[2]], v[2])
        b.set_status(ids[0], "forgotten", "wrong", AT)  # removed elsewhere
        assert sorted(a.matrix("m1")[0].tolist()) == ids[1:]
        w = np.roll(v, 1, axis=1)
        b.set_vectors([(ids[1], w[1].tobytes())], "m1")  # replaced elsewhere
        got, mat = a.matrix("m1")
        rows = {int(i): m for i, m in zip(got, mat, strict=True)}
        assert sorted(rows) == ids[1:] and np.allclose(rows[ids[1]], w[1])
    finally:
        h1.close()
        h2.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_nearest_and_cosines(backend: str, tmp_path: Path,
                             request: pytest.FixtureRequest) -> None:
    """The dense channel's top-k and the rerank's cosines: active rows of the model only,
    best first, the floor applied; a vector added or removed by another connection is
    seen."""
    _c1, _h1, a, h1 = OPENERS[backend](tmp_path, request)
    _c2, _h2, b, h2 = OPENERS[backend](tmp_path, request)
    try:
        ids = [i for i, _ in _insert(a, *[(f"memory {n}", {}) for n in range(5)])]
        v = np.eye(5, 4, dtype=np.float32)
        v[3] = np.array([0.6, 0.8, 0, 0], dtype=np.float32)  # cos 0.6 with e0, 0.8 with e1
        v[4] = np.array([0.8, 0.6, 0, 0], dtype=np.float32)
        a.set_vectors([(i, r.tobytes()) for i, r in zip(ids[:4], v[:4], strict=True)], "m1")
        b.set_vectors([(ids[4], v[4].tobytes())], "m2")  # another model: never returned
        q = np.array([1, 0, 0, 0], dtype=np.float32)
        got = a.nearest("m1", q, 3)
        assert [i for i, _ in got] == [ids[0], ids[3], ids[1]] or \
            [i for i, _ in got] == [ids[0], ids[3], ids[2]]  # ids[1] and ids[2] tie at 0
        assert [round(s, 6) for _i, s in got] == [1.0, 0.6, 0.0]
        assert [i for i, _ in a.nearest("m1", q, 10, 0.5)] == [ids[0], ids[3]]
        assert a.nearest("m2", q, 10) == [(ids[4], pytest.approx(0.8))]
        assert a.nearest("none", q, 10) == []
        cos = a.cosines("m1", q, [ids[3], ids[0], ids[4], 999_999])
        assert cos == {ids[3]: pytest.approx(0.6), ids[0]: pytest.approx(1.0)}
        b.set_status(ids[0], "forgotten", "wrong", AT)  # removed elsewhere
        b.set_vectors([(ids[4], v[4].tobytes())], "m1")  # replaced elsewhere, other model
        assert [i for i, _ in a.nearest("m1", q, 2)] == [ids[4], ids[3]]
        assert ids[0] not in a.cosines("m1", q, [ids[0]])
    finally:
        h1.close()
        h2.close()


def test_touch_activity_and_adjacent(stores: tuple[Any, Any, Any]) -> None:
    _c, _h, mem = stores
    ids = [i for i, _ in _insert(
        mem, *[(f"turn {n}", {"kind": "conversation", "source": "conversation",
                              "session": "s1"}) for n in range(3)])]
    mem.touch([ids[1]], 1_800_000_000.0)
    rows = {r[0]: r for r in mem.activity_rows()}
    assert rows[ids[1]][1:3] == (1_800_000_000.0, 1)
    assert rows[ids[0]][2] == 0
    assert mem.adjacent([ids[1]]) == {ids[1]: [ids[0], ids[2]]}


def test_agents_are_distinct_and_sorted(stores: tuple[Any, Any, Any]) -> None:
    _c, _h, mem = stores
    assert mem.agents() == []
    ids = [i for i, _ in _insert(mem, ("one", {"agent": "codex"}), ("two", {"agent": "Bob"}),
                                 ("three", {"agent": "codex"}), ("four", {}))]
    mem.set_status(ids[1], "forgotten", "wrong", AT)  # any status counts
    assert mem.agents() == ["Bob", "codex"]


def test_anchors_stale_fresh_and_repoint(stores: tuple[Any, Any, Any]) -> None:
    _c, _h, mem = stores
    (a, _), (b, _) = _insert(mem, ("about connect", {"anchors": [("db.py", "connect", "h")]}),
                             ("about the file", {"anchors": [("db.py", "", "")]}))
    assert sorted(mem.anchored(["db.py"], [])) == [(a, "db.py", "connect"), (b, "db.py", "")]
    assert mem.anchored([], [("db.py", "connect")]) == [(a, "db.py", "connect")]
    mem.mark_stale([(a, "db.py", "connect", "symbol changed")], AT)
    m = mem.get([a])[a]
    assert m.stale and m.stale_reason == "symbol changed" and m.anchors[0].stale
    assert mem.status_counts()["stale"] == 1
    assert mem.anchors_all() == [(a, "db.py", "connect", "h", 1), (b, "db.py", "", "", 0)]
    mem.clear_stale([(a, "db.py", "connect")], AT)
    assert not mem.get([a])[a].stale
    mem.repoint(a, ("db.py", "connect"), ("store/db.py", "connect"), AT)
    assert [(x.path, x.symbol) for x in mem.get([a])[a].anchors] == [("store/db.py", "connect")]


def test_implicit_anchors_insert_add_and_ids_after(stores: tuple[Any, Any, Any]) -> None:
    from hindsight.memory.lexical import document

    _c, _h, mem = stores
    row, anc = _row("load_config reads the env", anchors=[("cfg.py", "", "fh")])
    (a, _), = mem.insert([row], [anc], [document(row)], AT,
                         [[("cfg.py", "load_config", "sh")]])
    (b, _), (c, _) = _insert(mem, ("a turn", {"kind": "conversation",
                                              "source": "conversation"}),
                             ("another note", {}))
    assert [(x.path, x.symbol, x.ast_hash, x.implicit) for x in mem.get([a])[a].anchors] == [
        ("cfg.py", "", "fh", False), ("cfg.py", "load_config", "sh", True)]
    assert mem.ids_after(0, 10) == [a, c]  # conversation turns are left out
    assert mem.ids_after(a, 10) == [c] and mem.ids_after(0, 1) == [a]
    # an anchor the memory has (same path and symbol) is not added again
    assert mem.add_anchors([(c, "x.py", "f", "h2"), (c, "x.py", "f", "h3"),
                            (a, "cfg.py", "", "other")], AT) == 1
    assert [(x.path, x.symbol, x.ast_hash, x.implicit) for x in mem.get([c])[c].anchors] == [
        ("x.py", "f", "h2", True)]
    assert [(e["action"], e["detail"]) for e in mem.audit(c)] == [
        ("retain", ""), ("anchored", "implicit: x.py::f")]
    assert len(mem.get([a])[a].anchors) == 2


def test_export_and_import_round_trip(stores: tuple[Any, Any, Any], tmp_path: Path) -> None:
    from hindsight.memory.lexical import document

    _c, _h, mem = stores
    (a, _), = _insert(mem, ("portable memory", {"anchors": [("x.py", "f", "h")],
                                                "tags": ["t"]}))
    rows = mem.export_full([r["id"] for r in mem.export_rows()])
    assert [r["text"] for r in rows] == ["portable memory"]
    d = dict(rows[0], tags=json.loads(rows[0]["tags"]), vector=None,
             anchors=[x.as_dict() for x in mem.get([a])[a].anchors],
             history=mem.audit(a))
    d["fingerprint"] = "other-fingerprint"
    assert mem.import_rows([d], [document(d)]) == {"imported": 1, "skipped": 0}
    assert mem.import_rows([d], [document(d)]) == {"imported": 0, "skipped": 1}
    copy = [m for m in mem.list_memories() if m.id != a][0]
    assert (copy.text, copy.tags, copy.anchors[0].path) == ("portable memory", ("t",), "x.py")
    assert [int(x) for x in np.frombuffer(mem.lex_postings(["portabl"])["portabl"],
                                          dtype=np.dtype(POSTING))["id"]] == [a, copy.id]


def test_backend_errors_are_storage_errors(stores: tuple[Any, Any, Any]) -> None:
    """No backend exception escapes a store: a closed handle is a StorageError."""
    code, history, mem = stores
    HANDLES[id(mem)].close()
    for call in (lambda: mem.count(), lambda: mem.get([1]), lambda: mem.get_meta("k"),
                 lambda: code.counts(), lambda: history.commit_count(),
                 lambda: list(mem.export_rows())):
        with pytest.raises(StorageError):
            call()


def _open_at_once(path: str, barrier: Any, out: Any) -> None:
    from hindsight.store.sqlite.db import connect

    barrier.wait()
    try:
        connect(path, 5000).close()
        out.put("ok")
    except Exception as e:  # noqa: BLE001 - reported to the test
        out.put(repr(e))


def test_a_new_bank_opened_by_several_processes_at_once(tmp_path: Path) -> None:
    """Regression: the loser of the race to switch a new file to WAL got "database is
    locked" at once (the busy timeout does not cover that switch)."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    for n in range(10):
        barrier, out = ctx.Barrier(3), ctx.Queue()
        procs = [ctx.Process(target=_open_at_once, args=(str(tmp_path / f"r{n}.db"), barrier,
                                                          out)) for _ in range(3)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(60)
        assert [out.get(timeout=5) for _ in procs] == ["ok"] * 3
