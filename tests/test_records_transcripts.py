"""Execution records from Claude Code and Codex transcripts (issue 12, acceptance): a
failing pytest run, a fix, a passing run → the first record ``failure`` with the test id
and ``verified`` false, the last ``success`` and ``verified`` true, and the symbol's
attempts list both. The pytest output in the transcripts is that of real runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from ccfixture import Transcript
from recordutil import BUGGY, FIXED, PYTEST, Rollout, claude_bash, claude_edit, pytest_run, shop

from hindsight.app import open_bank


@pytest.fixture(autouse=True)
def _hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "hashing")


def _session(tmp_path: Path) -> tuple[Path, tuple[int, str], tuple[int, str], str, str]:
    """The repository after an agent fixed the bug: (root, failing run, passing run, ast
    hash of deduct_stock before, after)."""
    repo = shop(tmp_path)
    with open_bank(repo_root_path=str(repo.path)) as b:
        b.code.index(workers=1)
        before = b.code.resolve("deduct_stock").ast_hash
        failing = pytest_run(repo.path)
        (repo.path / "shop/stock.py").write_text(FIXED)
        passing = pytest_run(repo.path)
        b.code.index(workers=1)
        after = b.code.resolve("deduct_stock").ast_hash
    assert failing[0] == 1 and passing[0] == 0 and before != after
    return repo.path, failing, passing, before, after


def _check(root: Path, harness: str, transcript: Path, before: str, after: str) -> None:
    with open_bank(repo_root_path=str(root)) as b:
        out = b.sessions.write_back(str(transcript), harness, final=True)
        assert out["records"] == 2, out
        first, last = (b.records.get(i) for i in sorted(
            b.records.store.record_ids(session="sess-1")))
        assert (first.outcome, first.exit_code, first.verified) == ("failure", 1, False)
        assert first.observation.failed == ("tests/test_stock.py::test_deduct",)
        assert first.observation.summary == "1 failed, 1 passed"
        assert first.command == PYTEST and first.changes == () and first.files == ()
        assert ("tests/test_stock.py::test_deduct" in first.exercised and
                "shop/stock.py::deduct_stock" in first.exercised)
        assert (last.outcome, last.exit_code, last.verified) == ("success", 0, True)
        assert last.observation.summary == "2 passed"
        assert [tuple(c) for c in last.changes] == [
            ("shop/stock.py", "deduct_stock", "modified", before, after)]
        assert last.diff_summary == "shop/stock.py +1 -1 (deduct_stock)"
        assert (last.session, last.agent, last.branch, last.scope) == (
            "sess-1", harness, "main", "tests")
        assert last.verified_ts == last.started_ts and last.runs_passed == last.runs == 1
        got = b.records.attempts("deduct_stock")
        assert got["symbol"] == "shop/stock.py::deduct_stock"
        assert [(a["id"], a["outcome"], a["verified"]) for a in got["attempts"]] == [
            (last.id, "success", True), (first.id, "failure", False)]
        assert (got["total"], got["truncated"]) == (2, False)
        assert list(got["attempts"][0]) == ["id", "outcome", "command", "observation",
                                            "diff_summary", "session", "started_at",
                                            "verified"]
        # a second write-back of the same transcript stores nothing twice
        again = b.sessions.write_back(str(transcript), harness, final=True)
        assert again["records"] == 0
        assert len(b.records.store.record_ids()) == 2


def test_claude_code_transcript(tmp_path: Path) -> None:
    root, (_c1, fail), (_c2, ok), before, after = _session(tmp_path)
    t = Transcript(tmp_path / "t.jsonl", "sess-1", str(root))
    t.user("the stock deduction is off by one, fix it")
    claude_bash(t, PYTEST, 1, fail)
    claude_edit(t, str(root / "shop/stock.py"), "return stock - n + 1", "return stock - n",
                BUGGY)
    claude_bash(t, PYTEST, 0, ok)
    t.say("Fixed: deduct_stock no longer adds one back.")
    _check(root, "claude-code", t.write(), before, after)


def test_codex_rollout(tmp_path: Path) -> None:
    root, (_c1, fail), (_c2, ok), before, after = _session(tmp_path)
    r = Rollout(tmp_path / "rollout.jsonl", "sess-1", str(root))
    r.user("the stock deduction is off by one, fix it")
    r.shell(PYTEST, 1, fail, str(root))
    r.patch("*** Begin Patch\n*** Update File: shop/stock.py\n@@\n def deduct_stock(stock, n):"
            "\n-    return stock - n + 1\n+    return stock - n\n*** End Patch")
    r.shell(PYTEST, 0, ok, str(root))
    _check(root, "codex", r.write(), before, after)


def test_feedback_and_edits_waiting_for_the_next_read(tmp_path: Path) -> None:
    """The user's reaction to a run is its feedback, also when it arrives in the next
    read; an edit after a read's last run is the change of the next read's first run."""
    root, (_c1, fail), (_c2, ok), _before, _after = _session(tmp_path)
    t = Transcript(tmp_path / "t.jsonl", "sess-1", str(root))
    t.user("fix the deduction")
    claude_bash(t, PYTEST, 1, fail)
    claude_edit(t, str(root / "shop/stock.py"), "return stock - n + 1", "return stock - n",
                BUGGY)
    with open_bank(repo_root_path=str(root)) as b:
        assert b.sessions.write_back(str(t.write()), "claude-code")["records"] == 1
        t.user("no, that still fails on my machine")
        claude_bash(t, PYTEST, 0, ok)
        assert b.sessions.write_back(str(t.write()), "claude-code")["records"] == 1
        first, last = (b.records.get(i) for i in sorted(b.records.store.record_ids()))
        assert first.feedback == "no, that still fails on my machine"
        assert last.files == ("shop/stock.py",) and last.verified
        assert [c.local for c in last.changes] == ["deduct_stock"]


@pytest.mark.parametrize(("command", "looking"), [
    ("ls -la", True), ("cd src && grep -rn foo .", True), ("git commit -m 'fix'", True),
    ("FOO=1 cat x.py", True), ("mkdir -p out", True), ("echo hi > notes.txt", False),
    ("python -m pytest -q", False), ("cd web && npm test", False), ("make", False),
    ("cargo test --lib", False), ("", True),
])
def test_which_commands_are_attempts(command: str, looking: bool) -> None:
    from hindsight.sessions.attempts import is_looking

    assert is_looking(command) is looking
