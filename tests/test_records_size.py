"""10,000 execution records stay under the size bound (issue 12, acceptance): records
written through RecordService at the caps of every field (a long command, 40 failing and
40 passing test ids, long error lines, a long diff summary, feedback) take no more than
RECORD_MAX_BYTES each in the database file, indexes included."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from hindsight.app import open_bank
from hindsight.records.service import RECORD_MAX_BYTES, Draft

N = 10_000


def _bytes(db: str) -> int:
    con = sqlite3.connect(db)
    try:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = con.execute("PRAGMA page_count").fetchone()[0]
        free = con.execute("PRAGMA freelist_count").fetchone()[0]
        return int((pages - free) * con.execute("PRAGMA page_size").fetchone()[0])
    finally:
        con.close()


def _big(k: int) -> Draft:
    ids = [f"tests/unit/test_module_{k % 97}.py::TestSomething::test_case_{i}"
           f"[parameter-{'x' * 40}-{i}]" for i in range(40)]
    output = ("".join(f"{i} PASSED\n" for i in ids) +
              "".join(f"E       AssertionError: {'long message ' * 40}{i}\n" for i in ids) +
              "".join(f"FAILED {i} - {'why ' * 30}\n" for i in ids) +
              f"40 failed, 40 passed, 3 skipped, 2 warnings in 12.{k % 10}s\n")
    window = [(f"src/pkg_{f}/module_with_a_long_name_{f}.txt", "a\n" * 50, "b\n" * 60, True)
              for f in range(20)]
    return Draft("pytest " + " ".join(f"--opt{i}=value{i}" for i in range(200)), "Bash",
                 output, 1, False, 1_767_000_000.0 + k, 1234, f"session-{k // 100}",
                 "claude-code", "", "main", (), "no, " + "that is wrong " * 40, f"k{k}",
                 window)


@pytest.mark.slow
def test_ten_thousand_records_stay_under_the_bound(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "hashing")
    root = tmp_path / "repo"
    root.mkdir()
    with open_bank(repo_root_path=str(root)) as b:
        before = _bytes(b.path)
        t0 = time.perf_counter()
        for start in range(0, N, 1000):
            b.records.record_drafts([_big(k) for k in range(start, start + 1000)])
        spent = time.perf_counter() - t0
        counts = b.records.counts()
        one = b.records.get(1)
    assert counts["failure"] == N
    per = (_bytes(b.path) - before) / N
    assert per <= RECORD_MAX_BYTES, per
    assert len(one.command) == 1000 and len(one.diff_summary) <= 500
    assert len(one.observation.failed) >= 1 and len(one.files) == 16
    print(f"{per:.0f} bytes per record on disk, {N / spent:.0f} records/s")
