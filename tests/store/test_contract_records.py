"""The RecordStore contract (execution records, issue 12), on every backend that has one
(SQLite, and PostgreSQL as ``app.open_bank`` composes it with ``databaseUrl``: the records
in the bank's schema beside its memories; see RECORD_OPENERS)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from backends import BACKENDS, OPENERS  # noqa: E402

from hindsight.errors import StorageError  # noqa: E402


# --- RecordStore ---------------------------------------------------------------------------
def _open_records_sqlite(tmp: Path, request: pytest.FixtureRequest) -> tuple[Any, Any]:
    from hindsight.store.sqlite import open_record_store

    *_, handle = OPENERS["sqlite"](tmp, request)
    return open_record_store(handle), handle


def _open_records_postgres(tmp: Path, request: pytest.FixtureRequest) -> tuple[Any, Any]:
    from hindsight.store.postgres import work_stores

    *_, mem, handle = OPENERS["postgres"](tmp, request)
    return work_stores(mem)[1], handle


RECORD_OPENERS = {"sqlite": _open_records_sqlite, "postgres": _open_records_postgres}


def break_store(store: Any) -> None:
    """Make every later call of ``store`` fail in its backend (SQLite: the connection
    closed; PostgreSQL: the pool closed)."""
    if hasattr(store, "conn"):
        store.conn.close()
    else:
        store.pool.close()


@pytest.fixture(params=[b for b in BACKENDS if b in RECORD_OPENERS])
def records(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    store, handle = RECORD_OPENERS[request.param](tmp_path, request)
    yield store
    handle.close()


def _rec(n: int, outcome: str, **kw: Any) -> dict[str, Any]:
    """A record row as RecordService hands it to the store."""
    row = {"fingerprint": f"fp-{n}", "tool": "Bash", "command": f"pytest -q t{n}",
           "started_at": f"2026-01-0{n}T10:00:00+00:00", "started_ts": 1_767_261_600.0 + n
           * 86400, "duration_ms": 120 + n, "exit_code": 0 if outcome == "success" else 1,
           "outcome": outcome, "observation": json.dumps({"parser": "pytest", "summary":
                                                          f"{n} passed", "failed": []}),
           "diff_summary": f"shop/stock.py +{n} -1", "scope": "tests", "root": "/r",
           "branch": "main", "head": "abc", "cwd": "", "session": "s1", "agent": "codex",
           "feedback": "", "verified": 0, "verified_ts": 0.0}
    return {**row, **kw}


def test_record_round_trip_and_fingerprints(records: Any) -> None:
    links = [("shop/stock.py", "Stock.deduct", "changed", "modified", "aa", "bb"),
             ("tests/test_stock.py", "test_deduct", "test", "", "", ""),
             ("shop/stock.py", "Stock.deduct", "callee", "", "", "")]
    rid, created = records.insert_record(_rec(1, "failure"), links, [("shop/stock.py", 3, 1)])
    assert created and rid > 0
    assert records.insert_record(_rec(1, "failure"), [], []) == (rid, False)
    r = records.get_records([rid, 999])[rid]
    assert list(records.get_records([rid, 999])) == [rid]
    assert (r.tool, r.outcome, r.exit_code, r.duration_ms, r.scope, r.agent) == \
        ("Bash", "failure", 1, 121, "tests", "codex")
    assert r.observation.summary == "1 passed" and r.files == ("shop/stock.py",)
    assert [tuple(c) for c in r.changes] == [("shop/stock.py", "Stock.deduct", "modified",
                                              "aa", "bb")]
    assert r.exercised == ("tests/test_stock.py::test_deduct", "shop/stock.py::Stock.deduct")
    assert (r.verified, r.runs, r.runs_passed, r.retrievals) == (False, 0, 0, 0)


def test_record_ids_filters_and_order(records: Any) -> None:
    a, _ = records.insert_record(_rec(1, "failure"), [
        ("shop/stock.py", "Stock.deduct", "changed", "modified", "a", "b")], [])
    b, _ = records.insert_record(_rec(2, "success", session="s2", branch="fix"), [
        ("tests/t.py", "test_x", "test", "", "", ""),
        ("shop/stock.py", "Stock.deduct", "callee", "", "", "")], [("README.md", 1, 0)])
    c, _ = records.insert_record(_rec(3, "failure"), [("", "deduct", "test", "", "", "")], [])
    assert records.record_ids() == [c, b, a]  # newest start first
    assert records.record_ids(symbols=[("shop/stock.py", "Stock.deduct")]) == [b, a]
    assert records.record_ids(symbols=[("shop/stock.py", "Stock.deduct")],
                              roles=("changed",)) == [a]
    assert records.record_ids(names=["deduct"]) == [c, b, a]
    assert records.record_ids(paths=["README.md"]) == [b]
    assert records.record_ids(paths=["shop/stock.py"]) == [b, a]
    assert records.record_ids(outcome="failure") == [c, a]
    assert records.record_ids(session="s2") == records.record_ids(branch="fix") == [b]
    t2 = 1_767_261_600.0 + 2 * 86400
    assert records.record_ids(since=t2) == [c, b]
    assert records.record_ids(until=t2) == [a]
    assert records.record_ids(limit=1) == [c]
    assert records.record_ids(scope="tests") == [c, b, a] and records.record_ids(scope="") == []
    light = records.get_records([a], links=False)[a]
    assert (light.changes, light.exercised, light.files, light.outcome) == ((), (), (),
                                                                          "failure")
    assert records.changed_between(0, c) == [(a, "shop/stock.py", "Stock.deduct", "modified")]
    assert records.changed_between(a, c) == []
    assert records.linked_files([b]) == [(b, "README.md")]
    assert records.linked_symbols([c]) == [(c, "", "deduct", "test")]


def test_record_updates_counts_and_deletes(records: Any) -> None:
    a, _ = records.insert_record(_rec(1, "success"), [("x.py", "f", "changed", "added", "",
                                                        "h")], [("x.py", 2, 0)])
    b, _ = records.insert_record(_rec(2, "failure"), [], [])
    records.update_records([(a, {"verified": 1, "verified_ts": 5.0, "runs": 2,
                                 "runs_passed": 1, "feedback": "works now"})])
    records.touch_records([a, a], 7.0)
    r = records.get_records([a])[a]
    assert (r.verified, r.verified_ts, r.runs, r.runs_passed, r.feedback, r.retrievals) == \
        (True, 5.0, 2, 1, "works now", 2)
    assert records.record_counts() == {"success": 1, "failure": 1, "interrupted": 0,
                                       "unknown": 0, "verified": 1}
    with pytest.raises(ValueError):
        records.update_records([(a, {"command": "rm -rf /"})])
    assert records.delete_records([a]) == 1
    assert records.get_records([a]) == {} and records.linked_files([a]) == []
    assert records.record_ids(paths=["x.py"]) == [] and records.record_ids() == [b]


def test_record_backend_errors_are_storage_errors(records: Any) -> None:
    with pytest.raises(StorageError):
        records.insert_record({"fingerprint": "x"}, [], [])  # NOT NULL columns missing
    with pytest.raises(StorageError):
        records.insert_record(_rec(1, "success", command={"not": "text"}), [], [])
    assert records.record_ids() == []  # nothing of a failed insert is left
    break_store(records)
    for call in (lambda: records.record_ids(), lambda: records.get_records([1]),
                 lambda: records.record_counts()):
        with pytest.raises(StorageError):
            call()


def test_record_resolved_by(records: Any) -> None:
    t = ("tests/t.py", "test_x", "test", "", "", "")
    helper = ("src/h.py", "helper", "callee", "", "", "")
    f, _ = records.insert_record(_rec(1, "failure"), [t, helper], [])
    g, _ = records.insert_record(_rec(2, "failure"), [("src/a.py", "f", "changed", "modified",
                                                       "a", "b")], [])
    only_callee, _ = records.insert_record(_rec(3, "success"), [helper], [])
    assert records.resolved_by([f, g]) == {}  # sharing a callee resolves nothing
    not_a_test_run, _ = records.insert_record(_rec(4, "success", scope=""), [t], [])
    assert records.resolved_by([f]) == {}
    same_test, _ = records.insert_record(_rec(5, "success"), [t], [])
    suite, _ = records.insert_record(_rec(6, "success", scope="suite"), [], [])
    assert records.resolved_by([f, g, suite]) == {f: same_test, g: suite}
    assert only_callee < not_a_test_run < same_test


def test_record_batch_reads_its_writes_and_rolls_back(records: Any) -> None:
    a, _ = records.insert_record(_rec(1, "success"), [], [])
    with pytest.raises(RuntimeError), records.batch():
        b, created = records.insert_record(_rec(2, "failure"), [
            ("x.py", "f", "changed", "added", "", "h")], [("x.py", 1, 0)])
        assert created and records.record_ids() == [b, a]  # seen inside the batch
        assert records.get_records([b])[b].files == ("x.py",)
        raise RuntimeError("interrupted")
    assert records.record_ids() == [a] and records.record_ids(paths=["x.py"]) == []
    with records.batch():
        c, _ = records.insert_record(_rec(3, "failure"), [], [])
        records.update_records([(c, {"feedback": "flaky"})])
    assert records.record_ids() == [c, a]
    assert records.get_records([c])[c].feedback == "flaky"
