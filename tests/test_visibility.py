"""Visibility through the memory service (issue 11, item 5), on SQLite and PostgreSQL: no
recall, list, show, audit, export or reflect returns a memory its viewer may not see
(hypothesis, over random memories × agents × teams × visibilities); a write never claims
another owner; recall filters before it cuts to k; forget/restore say who; purge deletes
for real and says who."""

from __future__ import annotations

import itertools
import json
import re
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hindsight.errors import ConfigError, NotFound
from hindsight.memory.service import MemoryService
from hindsight.models import MemoryItem
from hindsight.providers.hashing import HashingEmbedder
from hindsight.store.base import Viewer, can_see

AGENTS = ("ann", "bob", "cyd", "")
TEAMS = ("red", "blue", "")
WORDS = ("parser", "cache", "deploy", "token", "retry", "schema")
VIEWERS = [Viewer(a, t) for a, t in itertools.product(AGENTS, TEAMS)] + [
    Viewer("root", "", admin=True)]


def _service(store: Any) -> MemoryService:
    return MemoryService(store, anchors=lambda files, syms, must: [(f, "", "") for f in files],
                         neighbours=lambda text, files, syms: ([], [], []),
                         embedder=lambda: HashingEmbedder(384))


@pytest.fixture(params=["sqlite", "postgres"])
def make_service(request: pytest.FixtureRequest, tmp_path: Path
                 ) -> Iterator[Callable[[], MemoryService]]:
    """A factory of services, each over a new empty bank of the backend."""
    opened: list[Any] = []

    def make() -> MemoryService:
        name = "vis::" + uuid.uuid4().hex[:10]
        if request.param == "sqlite":
            from hindsight.store.sqlite import open_stores

            _c, _h, mem, conn = open_stores(str(tmp_path / f"{name[5:]}.db"), name,
                                            str(tmp_path))
            opened.append(conn)
        else:
            from hindsight.store.postgres import open_memory_store

            mem = open_memory_store(request.getfixturevalue("pg_dsn"), name)
            opened.append(mem)
        return _service(mem)

    yield make
    for h in opened:
        h.close()


memories = st.lists(st.tuples(
    st.sampled_from(("private", "team", "public")), st.sampled_from(AGENTS),
    st.sampled_from(TEAMS), st.lists(st.sampled_from(WORDS), min_size=1, max_size=3)),
    min_size=1, max_size=10)


@settings(max_examples=12, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=memories, query=st.sampled_from(WORDS))
def test_no_path_returns_what_its_viewer_may_not_see(
        make_service: Callable[[], MemoryService], rows: list[Any], query: str) -> None:
    svc = make_service()
    scope: dict[int, tuple[str, str, str]] = {}
    for n, (vis, owner, team, words) in enumerate(rows):
        if vis == "private" and not owner:
            owner = "ann"
        writer = Viewer(owner, team) if owner else None
        got = svc.retain(f"note {n}: {' '.join(words)} parser", visibility=vis,
                         files=["a.py"], viewer=writer, **({} if owner else {"team": team}))
        scope[got.id] = (vis, owner, team)
    ids = sorted(scope)
    svc.forget(ids[0], "checking other statuses too")
    for v in VIEWERS:
        seen = {i for i, s in scope.items() if can_see(v, *s)}
        assert {m.id for m in svc.memories(status="all", limit=1000, viewer=v)} == seen
        assert {json.loads(line)["id"] for line in svc.export_lines(v)} == seen
        for i in ids:
            if i in seen:
                assert svc.get(i, v).id == i and svc.audit(i, v)
            else:
                with pytest.raises(NotFound):
                    svc.get(i, v)
                with pytest.raises(NotFound):
                    svc.audit(i, v)
        hits = [h.memory.id for h in svc.recall(query + " parser", k=20, viewer=v,
                                                touch=False).hits]
        assert set(hits) <= seen - {ids[0]}
        assert len(hits) == len(seen - {ids[0]})  # every visible active one holds "parser"
        digest = svc.reflect(query, viewer=v)
        cited = {int(x) for lines in digest["by_kind"].values()
                 for x in re.findall(r"\[#(\d+) ", "\n".join(lines))}
        assert cited <= seen
        assert set(svc.anchored(["a.py"], v)) == seen - {ids[0]}


def test_a_write_never_claims_another_owner(make_service: Callable[[], MemoryService]
                                            ) -> None:
    svc = make_service()
    ann = Viewer("ann", "red")
    mine = svc.retain("the cache key includes the tenant", viewer=ann)
    m = svc.get(mine.id)
    assert (m.owner, m.team, m.agent, m.visibility) == ("ann", "red", "ann", "team")
    for field, value in (("owner", "bob"), ("team", "blue")):
        with pytest.raises(ConfigError, match=f"^{field} '{value}': a memory's {field}"):
            svc.retain("claiming someone else's name", viewer=ann, **{field: value})
        with pytest.raises(ConfigError, match=f"^{field} '{value}'"):
            svc.retain_batch([MemoryItem(text="batch claim", **{field: value})], viewer=ann)
    assert svc.memories(limit=10) == [m]  # nothing of the refused writes was stored
    root = Viewer("root", admin=True)
    other = svc.retain("imported for bob", viewer=root, owner="bob", team="blue",
                       visibility="private")
    assert (svc.get(other.id).owner, svc.get(other.id).team) == ("bob", "blue")
    secret = svc.retain("bob's private note", viewer=Viewer("bob"), visibility="private")
    with pytest.raises(ConfigError, match="supersedes"):  # not even its existence is told
        svc.retain("replacing bob's note", viewer=ann, supersedes=secret.id)


def test_recall_finds_k_visible_hits_behind_many_hidden(
        make_service: Callable[[], MemoryService]) -> None:
    """150 private notes of ann outrank 6 public ones for the query in every channel; bob
    still gets k = 5 public hits (the candidates are filtered before each list is cut)."""
    svc = make_service()
    ann = Viewer("ann")
    svc.retain_batch([MemoryItem(text=f"parser timeout {n}", visibility="private")
                      for n in range(150)], viewer=ann)
    public = [r.id for r in svc.retain_batch(
        [MemoryItem(text=f"the parser timeout was raised in release {n} of the service "
                         "after a long discussion", visibility="public") for n in range(6)],
        viewer=Viewer("cyd"))]
    top_ann = [h.memory.id for h in svc.recall("parser timeout", k=5, viewer=ann).hits]
    assert len(top_ann) == 5 and not set(top_ann) & set(public)
    bob = [h.memory.id for h in svc.recall("parser timeout", k=5, viewer=Viewer("bob")).hits]
    assert len(bob) == 5 and set(bob) <= set(public)


def test_forget_restore_and_purge_say_who(make_service: Callable[[], MemoryService]) -> None:
    svc = make_service()
    ann, root = Viewer("ann", "red"), Viewer("root", admin=True)
    a = svc.retain("a leaked token sk-zz9-notreal", viewer=ann).id
    with pytest.raises(NotFound):
        svc.forget(a, "not mine", viewer=Viewer("bob", "blue"))
    svc.forget(a, "wrong", viewer=ann)
    svc.restore(a, "right after all", viewer=ann)
    assert [(e["action"], e["detail"]) for e in svc.audit(a)][-2:] == [
        ("forgotten", "wrong (by ann)"), ("active", "restored: right after all (by ann)")]
    with pytest.raises(ConfigError, match="only an admin"):
        svc.purge(a, "leak", viewer=ann)
    with pytest.raises(ConfigError, match="reason"):
        svc.purge(a, " ", viewer=root)
    assert svc.purge(a, "leaked secret", viewer=root) == {"id": a, "purged": True}
    assert svc.audit(a) == [{"at": svc.audit(a)[0]["at"], "action": "purged",
                             "detail": "by root: leaked secret"}]
    with pytest.raises(NotFound):
        svc.get(a)
    assert svc.recall("leaked token", viewer=root).hits == ()
    assert list(svc.export_lines()) == []
    with pytest.raises(NotFound):
        svc.purge(a, "twice", viewer=root)


def test_cli_forget_purge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``hindsight forget ID --purge --reason …`` deletes the memory for real (a real
    subprocess on a real bank); without a reason nothing is deleted."""
    import os
    import subprocess
    import sys

    from conftest import make_repo

    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "hashing")
    monkeypatch.setenv("HINDSIGHT_SEED", "0")
    repo = make_repo(tmp_path / "proj", {"a.py": "x = 1\n"})

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "hindsight", *args], cwd=repo,
                              capture_output=True, text=True, env=os.environ.copy(),
                              timeout=120)

    r = cli("retain", "the staging host answers to zebra-falcon-42", "--json")
    assert r.returncode == 0, r.stderr
    mid = json.loads(r.stdout)["id"]
    r = cli("forget", str(mid), "--purge")
    assert r.returncode == 2 and "needs a reason: --reason TEXT" in r.stderr
    r = cli("forget", str(mid))
    assert r.returncode == 2 and "forget needs a reason: --reason TEXT" in r.stderr
    assert "zebra-falcon-42" in cli("show", str(mid)).stdout
    assert [h["id"] for h in json.loads(cli("recall", "zebra falcon", "--json").stdout)[
        "hits"]] == [mid]
    r = cli("forget", str(mid), "--purge", "--reason", "leaked", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"id": mid, "purged": True}
    assert cli("show", str(mid)).returncode == 6
    r = cli("recall", "zebra falcon", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["hits"] == []


def test_import_as_a_viewer_takes_its_owner(make_service: Callable[[], MemoryService]) -> None:
    """Only an admin keeps the owners of an imported file; anyone else imports as
    itself."""
    src = make_service()
    src.retain("bob's private convention", viewer=Viewer("bob", "blue"), visibility="private")
    lines = list(src.export_lines())
    dst = make_service()
    assert dst.import_lines(lines, viewer=Viewer("ann", "red")) == {"imported": 1,
                                                                    "skipped": 0}
    m, = dst.memories()
    assert (m.owner, m.team, m.visibility) == ("ann", "red", "private")
    assert dst.import_lines(lines, viewer=Viewer("root", admin=True))["imported"] == 1
    assert sorted(x.owner for x in dst.memories()) == ["ann", "bob"]
