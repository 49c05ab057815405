"""The contract for team use (issue 11), on every backend: the visibility rule in each read
that returns memory content (compared with ``store.base.can_see``), the dense top-k
(``nearest``), ``purge``, and BM25 scores equal to the last bit across backends."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from backends import AT, BACKENDS, OPENERS, _insert, _row, opened  # noqa: E402

from hindsight.store.base import POSTING, Viewer, can_see  # noqa: E402


@pytest.fixture(params=BACKENDS)
def stores(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Any, Any, Any]]:
    yield from opened(request, tmp_path)


# (visibility, owner, team) of every memory of the visibility tests
SCOPES = [(v, o, t) for v, o, t in itertools.product(
    ("private", "team", "public"), ("ann", "bob", ""), ("red", "blue", ""))
    if not (v == "private" and not o)]
VIEWERS = [None, Viewer("ann", "red"), Viewer("bob", "blue"), Viewer("cyd", "red"),
           Viewer("dee"), Viewer("", ""), Viewer("eve", "blue", admin=True)]


def _scoped(mem: Any) -> dict[int, tuple[str, str, str]]:
    """One conversation turn per scope, all anchored to a.py and sharing one session."""
    got = _insert(mem, *[(f"turn {n} about the parser", {
        "visibility": v, "owner": o, "team": t, "kind": "conversation",
        "source": "conversation", "session": "s1", "anchors": [("a.py", "", "")]})
        for n, (v, o, t) in enumerate(SCOPES)])
    return {mid: scope for (mid, _new), scope in zip(got, SCOPES, strict=True)}


def test_team_is_stored(stores: tuple[Any, Any, Any]) -> None:
    _c, _h, mem = stores
    (a, _), = _insert(mem, ("team note", {"visibility": "team", "owner": "ann",
                                          "team": "red"}))
    m = mem.get([a])[a]
    assert (m.visibility, m.owner, m.team) == ("team", "ann", "red")
    assert m.as_dict()["team"] == "red"
    assert mem.export_full([a])[0]["team"] == "red"


@pytest.mark.parametrize("viewer", VIEWERS, ids=str)
def test_every_read_filters_by_viewer(stores: tuple[Any, Any, Any],
                                      viewer: Viewer | None) -> None:
    _c, _h, mem = stores
    scopes = _scoped(mem)
    ids = sorted(scopes)
    want = {i for i, s in scopes.items() if can_see(viewer, *s)}
    if viewer is not None and not viewer.admin:
        assert want != set(ids)  # the test sees something hidden
    assert set(mem.get(ids, viewer)) == want
    assert {m.id for m in mem.list_memories(limit=1000, viewer=viewer)} == want
    assert {r["id"] for r in mem.export_rows(viewer)} == want
    assert {r["id"] for r in mem.export_full(ids, viewer)} == want
    assert {m for m, _p, _s in mem.anchored(["a.py"], [], viewer)} == want
    assert mem.active_visible(ids, viewer or Viewer("x", admin=True)) == want
    for i, near in mem.adjacent(ids, viewer).items():
        assert i in want and set(near) <= want
        before = [j for j in want if j < i]
        assert (max(before) in near) if before else True
    mem.set_status(ids[0], "forgotten", "wrong", AT)
    assert mem.active_visible(ids, viewer or Viewer("x", admin=True)) == want - {ids[0]}


def _unit(rng: np.random.Generator, n: int, dim: int) -> Any:
    v = rng.normal(size=(n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_nearest_is_best_first_above_the_floor(stores: tuple[Any, Any, Any]) -> None:
    _c, _h, mem = stores
    rng = np.random.default_rng(7)
    ids = [i for i, _ in _insert(mem, *[(f"note {n}", {}) for n in range(40)])]
    vecs = _unit(rng, 40, 16)
    assert not mem.has_vectors("m16")
    mem.set_vectors([(i, v.tobytes()) for i, v in zip(ids, vecs, strict=True)], "m16")
    assert mem.has_vectors("m16") and not mem.has_vectors("other")
    q = vecs[3] + 0.1 * vecs[5]
    q = (q / np.linalg.norm(q)).astype(np.float32)
    sims = vecs @ q
    order = [ids[j] for j in np.argsort(-sims, kind="stable")]
    got = mem.nearest("m16", q, 10, -1.0)
    assert [i for i, _ in got] == order[:10]
    assert [s for _, s in got] == pytest.approx(sorted(sims, reverse=True)[:10], abs=1e-5)
    floor = float(sorted(sims, reverse=True)[4])
    assert [i for i, _ in mem.nearest("m16", q, 10, floor - 1e-6)] == order[:5]
    assert mem.nearest("other", q, 10, -1.0) == []
    mem.set_status(order[0], "forgotten", "wrong", AT)
    assert [i for i, _ in mem.nearest("m16", q, 3, -1.0)] == order[1:4]


def test_nearest_finds_k_visible_behind_hidden_ones(stores: tuple[Any, Any, Any]) -> None:
    """The viewer's filter is applied before the cut: the 30 nearest are hidden from
    ``bob``, who still gets his 5 nearest visible ones."""
    _c, _h, mem = stores
    rng = np.random.default_rng(11)
    hidden = [i for i, _ in _insert(mem, *[(f"ann's {n}", {"visibility": "private",
                                                           "owner": "ann"}) for n in range(30)])]
    seen = [i for i, _ in _insert(mem, *[(f"public {n}", {"visibility": "public"})
                                         for n in range(20)])]
    q = _unit(rng, 1, 16)[0]
    near = _unit(rng, 30, 16) * 0.2 + q  # ann's are all nearer to q than the public ones
    near /= np.linalg.norm(near, axis=1, keepdims=True)
    far = _unit(rng, 20, 16)
    mem.set_vectors([(i, v.astype(np.float32).tobytes()) for i, v in zip(
        hidden + seen, np.vstack([near, far]), strict=True)], "m16")
    top = [i for i, _ in mem.nearest("m16", q, 5, -1.0)]
    assert set(top) <= set(hidden)
    bob = [i for i, _ in mem.nearest("m16", q, 5, -1.0, Viewer("bob"))]
    sims = {i: float(v @ q) for i, v in zip(seen, far, strict=True)}
    assert bob == sorted(seen, key=lambda i: -sims[i])[:5]


def test_purge_deletes_for_real(stores: tuple[Any, Any, Any]) -> None:
    from hindsight.memory.lexical import document

    _c, _h, mem = stores
    (a, _), (b, _), (c, _) = _insert(
        mem, ("the token sk-leaked-zz9 was pasted", {"anchors": [("x.py", "f", "h")],
                                                     "tags": ["oops"]}),
        ("the token was rotated", {}), ("unrelated", {}))
    mem.set_status(b, "superseded", "newer", AT, superseded_by=a)
    mem.set_vectors([(a, (np.ones(4, np.float32) / 2).tobytes())], "m4")
    row, _anc = _row("the token sk-leaked-zz9 was pasted", tags=["oops"])
    body, ctx = document(row)
    assert mem.lex_df(["zz9", "token"]) == {"zz9": 1, "token": 2}
    assert mem.purge(a, sorted(set(body) | set(ctx)), AT, "by admin: leaked") is True
    assert mem.get([a]) == {} and mem.by_fingerprint(row["fingerprint"]) is None
    assert mem.audit(a) == [{"at": AT, "action": "purged", "detail": "by admin: leaked"}]
    assert mem.lex_df(["zz9", "token"]) == {"zz9": 0, "token": 1}
    assert mem.lex_postings(["zz9"]) == {}
    p = np.frombuffer(mem.lex_postings(["token"])["token"], dtype=np.dtype(POSTING))
    assert [int(x) for x in p["id"]] == [b]
    assert mem.lex_stats() == (2, 5, 0)  # [the, token, was, rotat] + [unrel]
    assert mem.get([b])[b].superseded_by is None
    assert mem.anchored(["x.py"], []) == [] and len(mem.matrix("m4")[0]) == 0
    assert mem.purge(a, [], AT, "again") is False
    assert mem.purge(c, ["unrel"], AT, "by admin: test") is True  # the newest id
    (d, _), = _insert(mem, ("a later note", {}))
    assert d > c  # a purged id is never handed out again


def test_bm25_scores_are_equal_across_backends(tmp_path: Path,
                                               request: pytest.FixtureRequest) -> None:
    """The same memories on SQLite and PostgreSQL give the same BM25 scores to the last
    bit (the lexical engine's promise): postings, df and totals are the same integers."""
    from hindsight.memory import lexical

    texts = [f"the parser {w} on file{n % 7} when {w}ing tsx, again {n}"
             for n, w in zip(range(300), itertools.cycle(("hangs", "fails", "waits")))]
    texts += ["身份验证失败怎么办", "Store.save retries deadlocked in db_connect"]
    got = []
    for name, sub in (("sqlite", "a"), ("postgres", "b")):
        (tmp_path / sub).mkdir()
        _c, _h, mem, handle = OPENERS[name](tmp_path / sub, request)
        try:
            _insert(mem, *[(t, {"context": "parser context" if n % 5 == 0 else ""})
                           for n, t in enumerate(texts)])
            got.append([lexical.search(mem, q, 50, 0.35) for q in (
                "parser hangs", "file3 tsx", "验证失败", "save deadlock", "again 7")])
        finally:
            handle.close()
    assert got[0] == got[1] and all(got[0])
