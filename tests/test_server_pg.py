"""The team server on its private PostgreSQL (issue 11, items 3 and 4, and the fault
acceptance items): ``serve --embedded-postgres DIR`` over real HTTP, token commands through
``server.json``, a batch retried after the server was killed, PostgreSQL stopped under
load, two servers on one database."""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serverutil import call, cli, start, thread_server, token

BANK = "team::pg"


@pytest.fixture
def pgdir() -> Iterator[Path]:
    """A data directory the ``postgres`` user can reach when the tests run as root."""
    import shutil

    base = Path(tempfile.mkdtemp(prefix="hindsight-serve-pg-"))
    base.chmod(0o755)
    yield base / "data"
    from hindsight.store.postgres.embedded import EmbeddedPostgres

    EmbeddedPostgres(base / "data").stop()
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "hs"


def record(home: Path) -> dict[str, Any]:
    return dict(json.loads((home / "server.json").read_text()))


def count_texts(url: str, tok: str, bank: str = BANK) -> dict[str, int]:
    status, listed = call(url, "GET", f"/v1/memories?bank={bank}&status=all&limit=10000",
                          tok=tok)
    assert status == 200, listed
    out: dict[str, int] = {}
    for m in listed["memories"]:
        out[m["text"]] = out.get(m["text"], 0) + 1
    return out


def test_embedded_serve_tokens_and_restart(home: Path, pgdir: Path) -> None:
    from hindsight.store.postgres.embedded import EmbeddedPostgres

    s = start(home, "--embedded-postgres", str(pgdir))
    try:
        rec = record(home)
        assert rec["database"] == "postgresql" and rec["embedded"]["data_dir"] == str(pgdir)
        assert rec["database_url"].startswith("postgresql://")
        assert call(s.url, "GET", "/healthz") == (200, {"ok": True, "database": "postgresql"})
        tok = token(home, "alice", "--role", "write", "--team", "red")
        assert not (home / "server.db").exists()  # tokens went to PostgreSQL
        again = cli(home, "serve", "--port", "0", "--embedded-postgres", str(pgdir),
                    check=False)
        assert again.returncode == 2 and "already served" in again.stderr
        # another home on the same data: refused too (it restarted PostgreSQL under us)
        elsewhere = cli(home.parent / "elsewhere", "serve", "--port", "0",
                        "--embedded-postgres", str(pgdir), check=False)
        assert elsewhere.returncode == 2 and "already served" in elsewhere.stderr
        assert call(s.url, "GET", "/healthz")[0] == 200
        status, res = call(s.url, "POST", "/v1/retain", {"bank": BANK, "text":
                                                         "pin numpy below 3"}, tok=tok)
        assert status == 200
    finally:
        s.stop()
    assert s.proc.returncode == 0
    assert not EmbeddedPostgres(pgdir).running()  # Ctrl-C stopped both
    # serve is not running: the token command starts PostgreSQL for itself, then stops it
    listed = json.loads(cli(home, "token", "list", "--json").stdout)["tokens"]
    assert [t["agent"] for t in listed] == ["alice"]
    assert not EmbeddedPostgres(pgdir).running()
    s = start(home, "--embedded-postgres", str(pgdir))
    try:  # data survives a restart
        assert count_texts(s.url, tok) == {"pin numpy below 3": 1}
    finally:
        s.proc.send_signal(15)  # SIGTERM, as systemd or docker stop: both stop too
        s.stop()
    assert s.proc.returncode == 0 and not EmbeddedPostgres(pgdir).running()
    assert not Path(str(pgdir) + ".serve.pid").exists()


def _batch(n: int, tag: str) -> list[dict[str, Any]]:
    return [{"text": f"{tag} lesson number {i}: check the {i}th retry path", "kind": "lesson"}
            for i in range(n)]


def test_batch_retried_after_the_server_was_killed(home: Path, pgdir: Path) -> None:
    import psycopg

    s = start(home, "--embedded-postgres", str(pgdir))
    tok = token(home, "alice", "--role", "write")
    body = {"bank": BANK, "items": _batch(3, "small"), "idempotency_key": "k-small"}
    status, first = call(s.url, "POST", "/v1/retain/batch", body, tok=tok)
    assert status == 200 and not first["replayed"]
    status, again = call(s.url, "POST", "/v1/retain/batch", body, tok=tok)
    assert status == 200 and again["replayed"] and again["results"] == first["results"]
    status, err = call(s.url, "POST", "/v1/retain/batch",
                       {**body, "items": _batch(2, "other")}, tok=tok)
    assert (status, err["field"]) == (422, "idempotency_key")
    # the server dies after storing, before keeping the answer: the retry finds every item
    with psycopg.connect(record(home)["database_url"], autocommit=True) as conn:
        conn.execute("DELETE FROM server_idempotency")
    status, third = call(s.url, "POST", "/v1/retain/batch", body, tok=tok)
    assert status == 200 and {r["action"] for r in third["results"]} == {"duplicate"}
    assert [r["id"] for r in third["results"]] == [r["id"] for r in first["results"]]
    # killed while a large batch is in flight, then retried against a new server
    big = {"bank": BANK, "items": _batch(1000, "big"), "idempotency_key": "k-big"}
    got: list[Any] = []
    t = threading.Thread(target=lambda: got.append(_try(s.url, big, tok)))
    t.start()
    time.sleep(0.3)
    s.stop(kill=True)
    t.join(60)
    s = start(home, "--embedded-postgres", str(pgdir))
    try:
        status, res = call(s.url, "POST", "/v1/retain/batch", big, tok=tok)
        assert status == 200 and res["count"] == 1000
        counts = count_texts(s.url, tok)
        assert sum(1 for t in counts if t.startswith("big ")) == 1000
        assert set(counts.values()) == {1}  # every item exactly once
    finally:
        s.stop()


def _try(url: str, body: dict[str, Any], tok: str) -> Any:
    try:
        return call(url, "POST", "/v1/retain/batch", body, tok=tok, timeout=60)
    except OSError as e:  # the server died under the request
        return e


def test_postgres_stopped_under_load_503_fast_then_recovers(home: Path, pgdir: Path) -> None:
    from hindsight.store.postgres.embedded import EmbeddedPostgres

    s = start(home, "--embedded-postgres", str(pgdir))
    tok = token(home, "alice", "--role", "write")
    port = record(home)["embedded"]["port"]
    assert call(s.url, "POST", "/v1/retain", {"bank": BANK, "text": "the flaky test is "
                                              "the integration one"}, tok=tok)[0] == 200
    acked: list[str] = []
    odd: list[Any] = []  # retains of new text answered other than "created"
    seen: list[tuple[int, float]] = []
    ends: list[tuple[int, float]] = []  # (status, when it was answered)
    stop_at = time.monotonic() + 14
    lock = threading.Lock()

    def client(n: int) -> None:
        i = 0
        while time.monotonic() < stop_at:  # bounded in time and count
            i += 1
            text = f"flaky {uuid.uuid4().hex} {uuid.uuid4().hex} client {n} note {i}"
            t0 = time.monotonic()
            try:
                if i % 5 == 0:
                    status, res = call(s.url, "POST", "/v1/retain", {"bank": BANK,
                                                                     "text": text},
                                       tok=tok, timeout=30)
                    if status == 200 and res["action"] != "created":
                        with lock:
                            odd.append(res)
                else:
                    status, _ = call(s.url, "POST", "/v1/recall", {"bank": BANK, "text":
                                                                   "flaky test"}, tok=tok,
                                     timeout=30)
            except OSError:
                continue
            with lock:
                seen.append((status, time.monotonic() - t0))
                ends.append((status, time.monotonic()))
                if status == 200 and i % 5 == 0:
                    acked.append(text)
            if i > 2000:
                break

    threads = [threading.Thread(target=client, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    try:
        time.sleep(3)
        pg = EmbeddedPostgres(pgdir, port)
        pg.stop()
        down_from = len(seen)
        time.sleep(4)
        pg.start()
        back = time.monotonic()
        for t in threads:
            t.join(60)
        during = seen[down_from:]
        assert any(st == 503 for st, _ in during), "no request failed while the database was down"
        slow = [d for st, d in during if st == 503 and d > 5.0]
        assert not slow, f"503 answers took up to {max(slow):.1f} s"
        fast = sorted(d for st, d in during if st == 503)
        assert fast[len(fast) // 2] < 0.5, f"median 503 took {fast[len(fast) // 2]:.2f} s"
        first_ok = min(t for st, t in ends if st == 200 and t > back)
        assert first_ok - back < 3.0, f"first 200 {first_ok - back:.1f} s after the restart"
        assert {st for st, _ in seen} <= {200, 503}
        assert seen[-1][0] == 200  # recovered
        assert call(s.url, "GET", "/healthz")[0] == 200
        counts = count_texts(s.url, tok)
        assert len(acked) > 10 and odd == []
        assert all(counts.get(t) == 1 for t in acked)  # nothing acknowledged is lost
    finally:
        s.stop()


def test_two_servers_on_one_database(home: Path, pgdir: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from hindsight.app import open_token_store
    from hindsight.server.state import ServerState

    s = start(home, "--embedded-postgres", str(pgdir))
    tok = token(home, "alice", "--role", "write")
    monkeypatch.setenv("HINDSIGHT_HOME", str(home))
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "hashing")
    # the second server uses the same database for tokens and memories, as serve does
    monkeypatch.setenv("HINDSIGHT_DATABASE_URL", record(home)["database_url"])
    state = ServerState(open_token_store(record(home)["database_url"]), database="postgresql")
    try:
        with thread_server(state) as url2:
            items = _batch(200, "shared")
            results: list[Any] = []

            def send(url: str, key: str, part: list[dict[str, Any]]) -> None:
                results.append(call(url, "POST", "/v1/retain/batch",
                                    {"bank": BANK, "items": part, "idempotency_key": key},
                                    tok=tok)[0])

            threads = [threading.Thread(target=send, args=(u, f"k{n}", items[lo:lo + 120]))
                       for n, (u, lo) in enumerate([(s.url, 0), (url2, 80), (s.url, 40),
                                                    (url2, 0)])]
            for t in threads:
                t.start()
            for t in threads:
                t.join(120)
            assert results == [200, 200, 200, 200]
            counts = count_texts(url2, tok)
            assert len(counts) == 200 and set(counts.values()) == {1}
            assert count_texts(s.url, tok) == counts
        # a server with its own home on the same database reads the banks others made
        monkeypatch.setenv("HINDSIGHT_HOME", str(home.parent / "elsewhere"))
        other = ServerState(open_token_store(record(home)["database_url"]),
                            database="postgresql")
        with thread_server(other) as url3:
            assert count_texts(url3, tok) == counts
    finally:
        s.stop()
    assert os.path.exists(home / "server.json")

