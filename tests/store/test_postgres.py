"""What only the PostgreSQL backend has: banks as schemas of one database, recorded
migrations, the HNSW index, concurrent writers of one bank, NUL in text, errors without the
password, and ``open_bank`` with ``databaseUrl`` (memories on the server, the code index
and history in the local file)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from backends import _insert  # noqa: E402
from conftest import make_repo  # noqa: E402

from hindsight.errors import StorageError  # noqa: E402
from hindsight.store.base import POSTING  # noqa: E402
from hindsight.store.postgres import open_memory_store  # noqa: E402
from hindsight.store.postgres.embedded import free_port  # noqa: E402
from hindsight.store.postgres.schema import MIGRATIONS, banks, schema_name  # noqa: E402


def test_banks_are_schemas_with_recorded_migrations(pg_dsn: str) -> None:
    a = open_memory_store(pg_dsn, "team::alpha")
    b = open_memory_store(pg_dsn, "Team::Alpha!")  # another id, made safe the same way
    try:
        (ia, _), = _insert(a, ("only in alpha", {}))
        assert b.count() == 0 and a.count() == 1
        (ib, _), = _insert(b, ("only in the other", {}))
        assert [m.text for m in b.get([ib]).values()] == ["only in the other"]
        assert a.lex_df(["alpha", "other"]) == {"alpha": 1, "other": 0}
    finally:
        a.close()
        b.close()
    sa, sb = schema_name("team::alpha"), schema_name("Team::Alpha!")
    assert sa != sb and sa.startswith("hb_team_alpha_") and len(sa) <= 63
    with psycopg.connect(pg_dsn) as conn:
        assert banks(conn) == sorted([("Team::Alpha!", sb), ("team::alpha", sa)])
        assert [r[0] for r in conn.execute(f"SELECT name FROM {sa}.migrations ORDER BY name")
                ] == [n for n, _ in MIGRATIONS]
        assert conn.execute(f"SELECT value FROM {sa}.meta WHERE key = 'schema_version'"
                            ).fetchone() == (str(len(MIGRATIONS)),)


def test_the_hnsw_index_serves_384_dimensions(pg_dsn: str) -> None:
    """The index covers the expression ``nearest`` uses from 100,000 rows (shown with
    sequential scans off: on 50 rows the planner would rather scan)."""
    mem = open_memory_store(pg_dsn, "hnsw::bank")
    try:
        ids = [i for i, _ in _insert(mem, *[(f"note {n}", {}) for n in range(50)])]
        rng = np.random.default_rng(3)
        v = rng.normal(size=(50, 384)).astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        mem.set_vectors([(i, x.tobytes()) for i, x in zip(ids, v, strict=True)], "minilm")
        got = mem.nearest("minilm", v[7], 5, 0.0)  # exact under 100,000 rows
        assert got[0][0] == ids[7] and got[0][1] == pytest.approx(1.0, abs=1e-5)
        s = schema_name("hnsw::bank")
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            conn.execute("SET enable_seqscan = off")
            plan = "\n".join(r[0] for r in conn.execute(
                f"EXPLAIN SELECT id FROM {s}.memories WHERE dims = 384 AND model = 'minilm' "
                "ORDER BY embedding::vector(384) <=> %s::vector(384) LIMIT 5",
                (str(v[7].tolist()),)))
        assert "ix_memories_hnsw" in plan
    finally:
        mem.close()


def test_concurrent_writers_of_one_bank_keep_the_postings_whole(pg_dsn: str) -> None:
    stores = [open_memory_store(pg_dsn, "busy::bank") for _ in range(4)]
    errors: list[BaseException] = []

    def write(mem: Any, n: int) -> None:
        try:
            for k in range(25):
                _insert(mem, (f"common word w{n}x{k}", {}), (f"common other o{n}x{k}", {}))
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=write, args=(m, n)) for n, m in enumerate(stores)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    try:
        assert errors == []
        mem = stores[0]
        assert mem.count() == 200 and mem.lex_df(["common"]) == {"common": 200}
        p = np.frombuffer(mem.lex_postings(["common"])["common"], dtype=np.dtype(POSTING))
        assert sorted(int(i) for i in p["id"]) == sorted(
            m.id for m in mem.list_memories(limit=1000))
        assert mem.lex_stats()[0] == 200
    finally:
        for m in stores:
            m.close()


def test_nul_in_text_and_filters(pg_dsn: str) -> None:
    """PostgreSQL text cannot hold NUL: it is stored as U+FFFD, and a filter holding NUL
    finds it instead of failing."""
    mem = open_memory_store(pg_dsn, "nul::bank")
    try:
        (a, _), = _insert(mem, ("a\x00b is odd", {"tags": ["t\x00x"]}))
        m = mem.get([a])[a]
        assert m.text == "a\ufffdb is odd" and m.tags == ("t\ufffdx",)
        assert mem.export_full([a])[0]["tags"] == '["t\ufffdx"]'
        assert [x.id for x in mem.list_memories(tag="t\x00x")] == [a]
        assert mem.list_memories(kind="x\x00") == []
    finally:
        mem.close()


def test_access_counts_live_apart_and_overflow_nothing(pg_dsn: str) -> None:
    """Access counts go to ``memory_access`` (migration 0006), never past 2^31 - 1, and
    a count flushed after a purge leaves no row behind."""
    mem = open_memory_store(pg_dsn, "access::bank")
    try:
        (a, _), (b, _) = _insert(mem, ("counted twice", {}), ("purged", {}))
        mem.touch([a, b, a], 2e9)
        mem.touch([a], 2e9 + 100)
        assert (mem.get([a])[a].access_count, mem.get([a])[a].last_accessed_ts) == \
            (2, 2e9 + 100)
        schema = schema_name("access::bank")
        with psycopg.connect(pg_dsn, autocommit=True) as conn:
            conn.execute(f"UPDATE {schema}.memories SET access_count = 2147483647 "
                         "WHERE id = %s", (a,))
        assert mem.get([a])[a].access_count == 2147483647  # capped, the bank still reads
        assert mem.purge(b, [], "2026-12-01T00:00:00+00:00", "test")
        mem.touch([b], 2e9 + 200)  # the server's flush, a second after the purge
        with psycopg.connect(pg_dsn) as conn:
            assert conn.execute(f"SELECT memory_id FROM {schema}.memory_access ORDER BY "
                                "memory_id").fetchall() == [(a,)]
    finally:
        mem.close()


def test_errors_are_one_line_without_the_password() -> None:
    url = f"postgresql://me:hunter2@127.0.0.1:{free_port()}/nowhere"
    with pytest.raises(StorageError) as err:
        open_memory_store(url, "any::bank")
    text = str(err.value)
    assert "hunter2" not in text and "\n" not in text
    assert text.startswith("PostgreSQL 127.0.0.1:") and "bank any::bank" in text


def test_open_bank_keeps_memories_on_the_server(pg_dsn: str, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``databaseUrl`` two clones of one bank on two machines (two homes) share
    memories; each keeps its own code index and meta (seeding state) in its SQLite
    file."""
    from hindsight.app import open_bank

    for k, v in {"HINDSIGHT_DATABASE_URL": pg_dsn, "HINDSIGHT_BANK_ID": "team::shared",
                 "HINDSIGHT_EMBEDDER": "hashing"}.items():
        monkeypatch.setenv(k, v)
    one = make_repo(tmp_path / "one", {"a.py": "def f():\n    return 1\n"})
    two = make_repo(tmp_path / "two", {"b.py": "def g():\n    return 2\n"})
    with open_bank(str(one)) as b:
        got = b.memory.retain("We decided f returns one", kind="decision")
        b.memory.set_meta({"seed_state": '{"done": true}'})
        st = b.status()
        assert st["memory_database"].startswith("postgresql://")
        assert b.code.index().files_parsed == 1
    monkeypatch.setenv("HINDSIGHT_HOME", str(tmp_path / "other-machine"))
    with open_bank(str(two)) as b:
        assert [h.memory.id for h in b.memory.recall("what does f return").hits] == [got.id]
        assert b.memory.get_meta("seed_state") is None  # the other checkout's own key
        assert b.memory.get_meta("lexical") is not None  # the bank's, on the server
        assert b.code.status()["files"] == 0
    monkeypatch.setenv("HINDSIGHT_DATABASE_URL", "")
    with open_bank(str(two)) as b:
        assert b.memory.memories() == []  # the local file's memory tables were not used
