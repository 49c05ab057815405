"""The SQLite backend's dense search (store/sqlite/vectors.py, ivf.py): the snapshot beside
the bank that a new process maps instead of reading every vector, when it is (not) used,
the tail merge, the IVF index above its size, and the recall's query-vector cache."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "store"))
from test_contract import AT, _insert  # noqa: E402

from hindsight.store.sqlite import ivf  # noqa: E402
from hindsight.store.sqlite import vectors as vec  # noqa: E402


def _open(path: Path) -> tuple[Any, Any]:
    from hindsight.store.sqlite import open_stores

    _c, _h, mem, conn = open_stores(str(path), "vectors::bank", str(path.parent), 2000)
    return mem, conn


def _unit(rng: np.random.Generator, n: int, dim: int = 8) -> np.ndarray:
    v = rng.standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _fill(mem: Any, vecs: np.ndarray, model: str = "m1", word: str = "memory") -> list[int]:
    ids = [i for i, _ in _insert(mem, *[(f"{word} {n}", {}) for n in range(len(vecs))])]
    mem.set_vectors([(i, v.tobytes()) for i, v in zip(ids, vecs, strict=True)], model)
    return ids


def _exact(ids: list[int], vecs: np.ndarray, q: np.ndarray, k: int) -> list[int]:
    sims = vecs @ q
    return [ids[j] for j in np.argsort(-sims, kind="stable")[:k]]


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vec, "SNAPSHOT_FROM", 8)
    monkeypatch.setattr(vec, "TAIL_MIN", 3)


def test_snapshot_is_mapped_by_a_new_connection(small: None, tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    db = tmp_path / "bank.db"
    a, ha = _open(db)
    v = _unit(rng, 12)
    ids = _fill(a, v)
    q = v[5]
    assert [i for i, _ in a.nearest("m1", q, 3)] == _exact(ids, v, q, 3)  # full read
    head = json.loads((tmp_path / "bank.db.vec").read_text())
    assert (head["model"], head["rows"], head["epoch"]) == ("m1", 12, "0")
    b, hb = _open(db)
    assert [i for i, _ in b.nearest("m1", q, 3)] == _exact(ids, v, q, 3)
    assert isinstance(b._cache.mat, np.memmap)  # mapped, not read from the rows
    w = _unit(rng, 1)
    (new,) = _fill(a, w, word="later")  # added by the other connection: b reads it alone
    got = b.nearest("m1", w[0], 1)
    assert got[0][0] == new and got[0][1] == pytest.approx(1.0)
    assert isinstance(b._cache.mat, np.memmap) and b._cache.nt == 1
    ha.close()
    hb.close()


def test_snapshot_not_used_after_removal_or_for_a_new_bank_file(small: None,
                                                                 tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    db = tmp_path / "bank.db"
    a, ha = _open(db)
    v = _unit(rng, 10)
    ids = _fill(a, v)
    a.nearest("m1", v[0], 1)
    a.set_status(ids[0], "forgotten", "wrong", AT)  # epoch 1: the snapshot no longer holds
    b, hb = _open(db)
    assert ids[0] not in [i for i, _ in b.nearest("m1", v[0], 10)]
    assert json.loads((tmp_path / "bank.db.vec").read_text())["epoch"] == "1"
    ha.close()
    hb.close()
    for suffix in ("", "-wal", "-shm"):  # the bank file made anew, the snapshot left over
        if os.path.exists(f"{db}{suffix}"):
            os.remove(f"{db}{suffix}")
    c, hc = _open(db)
    other = _unit(rng, 10)
    ids2 = _fill(c, other, word="another")
    c.set_status(ids2[0], "forgotten", "test", AT)  # the same epoch as the old snapshot
    c2, hc2 = _open(db)
    q = other[3]
    assert [i for i, _ in c2.nearest("m1", q, 3)] == _exact(ids2[1:], other[1:], q, 3)
    assert not isinstance(c2._cache.mat, np.memmap)  # read in full, not the old snapshot
    hc.close()
    hc2.close()


def test_tail_is_merged_into_a_new_snapshot(small: None, tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    db = tmp_path / "bank.db"
    a, ha = _open(db)
    v = _unit(rng, 16)
    ids = _fill(a, v[:8])
    a.nearest("m1", v[0], 1)
    first = json.loads((tmp_path / "bank.db.vec").read_text())["token"]
    ids += _fill(a, v[8:], word="more")  # 8 > max(TAIL_MIN 3, 8 / 8): merged on append
    head = json.loads((tmp_path / "bank.db.vec").read_text())
    assert head["rows"] == 16 and head["token"] != first
    assert a._cache.nt == 0 and len(a._cache.ids) == 16
    assert not list(tmp_path.glob(f"bank.db.vec-{first}-*"))  # the old files are gone
    b, hb = _open(db)
    q = v[12]
    assert [i for i, _ in b.nearest("m1", q, 5)] == _exact(ids, v, q, 5)
    ha.close()
    hb.close()


def _clustered(rng: np.random.Generator, n: int, centres: int, dim: int = 16
               ) -> np.ndarray:
    c = _unit(rng, centres, dim)
    x = c[rng.integers(0, centres, n)] + 0.15 * rng.standard_normal((n, dim)).astype(
        np.float32)
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def test_ivf_index_above_its_size(small: None, monkeypatch: pytest.MonkeyPatch,
                                  tmp_path: Path) -> None:
    """From IVF_FROM rows the search probes the nearest lists only: recall@10 against
    exact search ≥ 0.9 on clustered vectors, exact when every list is probed; the index
    is in the snapshot a new connection maps."""
    monkeypatch.setattr(vec, "IVF_FROM", 1000)
    rng = np.random.default_rng(4)
    v = _clustered(rng, 1500, 40)
    db = tmp_path / "bank.db"
    a, ha = _open(db)
    ids = _fill(a, v)
    queries = _clustered(rng, 40, 40)
    got = [[i for i, _ in a.nearest("m1", q, 10)] for q in queries]
    cent, off, trained = a._cache.index
    assert (len(cent), int(off[-1]), trained) == (ivf.nlist_for(1500), 1500, 1500)
    exact = [_exact(ids, v, q, 10) for q in queries]
    recall = np.mean([len(set(g) & set(e)) / 10 for g, e in zip(got, exact, strict=True)])
    assert recall >= 0.9
    b, hb = _open(db)
    assert [[i for i, _ in b.nearest("m1", q, 10)] for q in queries] == got
    assert b._cache.index is not None and isinstance(b._cache.mat, np.memmap)
    monkeypatch.setattr(ivf, "PROBE_SHARE", 1.0)
    assert [[i for i, _ in b.nearest("m1", q, 10)] for q in queries] == exact
    ha.close()
    hb.close()


def test_ivf_train_and_search_on_known_clusters() -> None:
    """Four well separated clusters: k-means finds them (each list holds one cluster's
    rows), and probing one list returns exactly that cluster."""
    rng = np.random.default_rng(5)
    centres = np.eye(4, 8, dtype=np.float32)
    x = centres[np.repeat(np.arange(4), 50)] + 0.05 * rng.standard_normal((200, 8))
    x = (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)
    cent = ivf.train(x, 4)
    labels = ivf.assign(x, cent)
    assert sorted(np.bincount(labels, minlength=4).tolist()) == [50, 50, 50, 50]
    order, off = ivf.layout(labels, 4)
    grouped = x[order]
    assert (ivf.labels_of(off) == labels[order]).all()
    rows, sims = ivf.search(grouped, cent, off, centres[2], 1)
    assert sorted(order[rows].tolist()) == list(range(100, 150))
    assert np.allclose(sims, grouped[rows] @ centres[2])


def test_query_vectors_are_cached(tmp_path: Path) -> None:
    from hindsight.memory import recall as rc
    from hindsight.providers.hashing import HashingEmbedder

    class Counting(HashingEmbedder):
        calls = 0

        def embed_batch(self, texts: list[str]) -> Any:
            Counting.calls += len(texts)
            return super().embed_batch(texts)

    e = Counting()
    rc._QUERIES.clear()
    one = rc.query_vector(e, "why is the build slow")
    assert np.array_equal(rc.query_vector(e, "why is the build slow"), one)
    assert Counting.calls == 1
    for n in range(rc.QUERY_CACHE):  # the oldest query is dropped first
        rc.query_vector(e, f"question {n}")
    rc.query_vector(e, "why is the build slow")
    assert Counting.calls == 2 + rc.QUERY_CACHE
