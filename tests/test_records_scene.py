"""The scene of issue 12, end to end through real hook subprocesses: yesterday an agent
tried two fixes for a stock-deduction race in ``deductStock`` — one failed the concurrency
test, one timed out the performance test — and the session ended. Today the prompt
"rewrite yesterday's deduction logic with CAS" gets both attempts injected, with their
failures; editing the file gets them too (PostToolUse), and the briefing lists them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ccfixture import Transcript
from histutil import Repo
from hookutil import cli, diag, hook, make_env
from recordutil import claude_bash, claude_edit

from hindsight.app import open_bank

V0 = ("import threading\n\n_lock = threading.Lock()\n\n\n"
      "def deductStock(stock, item, n):\n"
      "    if stock[item] < n:\n        raise ValueError('not enough stock')\n"
      "    stock[item] -= n\n    return stock[item]\n")
CHECK = "    if stock[item] < n:\n        raise ValueError('not enough stock')\n"
VA = V0.replace("    stock[item] -= n\n", "    with _lock:\n        stock[item] -= n\n")
VB = VA.replace(CHECK + "    with _lock:\n", "    while not _lock.acquire(blocking=False):\n"
                "        time.sleep(0.5)\n    try:\n" + CHECK.replace("    ", "        ", 1))
TESTS = ("from shop.stock import deductStock\n\n\ndef test_concurrent_deduct():\n"
         "    assert deductStock({'a': 2}, 'a', 1) == 1\n\n\n"
         "def test_deduct_performance():\n    assert deductStock({'a': 5}, 'a', 5) == 0\n")
RUN = "pytest -q tests/test_stock.py"
FAIL_A = ("F.                                                                       [100%]\n"
          "=================================== FAILURES ===================================\n"
          "____________________________ test_concurrent_deduct ____________________________\n"
          "E       AssertionError: oversold: 3 deductions for 2 items\n\n"
          "tests/test_stock.py:5: AssertionError\n"
          "=========================== short test summary info ============================\n"
          "FAILED tests/test_stock.py::test_concurrent_deduct - AssertionError: oversold: 3 "
          "deductions for 2 items\n1 failed, 1 passed in 0.41s\n")
FAIL_B = (".F                                                                       [100%]\n"
          "=================================== FAILURES ===================================\n"
          "___________________________ test_deduct_performance ____________________________\n"
          "E       Failed: Timeout >2.0s\n\n"
          "=========================== short test summary info ============================\n"
          "FAILED tests/test_stock.py::test_deduct_performance - Failed: Timeout >2.0s\n"
          "1 failed, 1 passed in 2.31s\n")


@pytest.fixture
def scene(tmp_path: Path) -> tuple[dict[str, str], Path]:
    env = make_env(tmp_path)
    env["HINDSIGHT_NOW"] = "2026-11-30T09:00:00+00:00"  # "yesterday" is 2026-11-29 (UTC)
    repo = Repo(tmp_path / "shop")
    repo.write("shop/__init__.py", "")
    repo.write("shop/stock.py", V0)
    repo.write("tests/test_stock.py", TESTS)
    repo.commit("stock")
    os.environ["HINDSIGHT_HOME"] = env["HINDSIGHT_HOME"]
    with open_bank(repo_root_path=str(repo.path)) as b:
        b.code.index(workers=1)
    stock = str(repo.path / "shop/stock.py")
    t = Transcript(tmp_path / "yesterday.jsonl", "sess-yesterday", str(repo.path))
    t.user("the stock deduction oversells under load, fix the race in deductStock")
    claude_edit(t, stock, "    stock[item] -= n\n", "    with _lock:\n        stock[item] -= n\n",
                V0)
    claude_bash(t, RUN, 1, FAIL_A)
    claude_edit(t, stock, VA[VA.index("    if stock"):], VB[VB.index("    while"):], VA)
    claude_bash(t, RUN, 1, FAIL_B)
    t.say("Neither fix passes both tests; stopping here.")
    for line in t.lines:
        line["timestamp"] = line["timestamp"].replace("2026-11-29T10:", "2026-11-29T14:")
    (repo.path / "shop/stock.py").write_text(VB)  # what the agent left
    r = hook("stop", {"session_id": "sess-yesterday", "transcript_path": str(t.write()),
                      "cwd": str(repo.path)}, env, cwd=repo.path)
    assert (r.returncode, r.stdout) == (0, "")
    drained = [d for d in diag(env) if d["event"] == "drain"][-1]
    assert drained["result"]["records"] == 2, drained
    return env, repo.path


def context(stdout: str, event: str) -> str:
    out: dict[str, Any] = json.loads(stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == event
    return str(out["hookSpecificOutput"]["additionalContext"])


ATTEMPTS = [
    "- attempt #2 2026-11-29 14:00 +00:00 (session sess-yes, claude-code): `pytest -q "
    "tests/test_stock.py` → failure (1 failed, 1 passed); why: FAILED tests/test_stock.py::"
    "test_deduct_performance; Failed: Timeout >2.0s; change: shop/stock.py +4 -2 "
    "(deductStock)",
    "- attempt #1 2026-11-29 14:00 +00:00 (session sess-yes, claude-code): `pytest -q "
    "tests/test_stock.py` → failure (1 failed, 1 passed); why: FAILED tests/test_stock.py::"
    "test_concurrent_deduct; AssertionError: oversold: 3 deductions for 2 items; change: "
    "shop/stock.py +2 -1 (deductStock)",
]


def test_yesterdays_attempts_reach_todays_prompt(scene: tuple[dict[str, str], Path]) -> None:
    env, repo = scene
    prompt = {"session_id": "sess-today", "cwd": str(repo),
              "prompt": "rewrite yesterday's deduction logic with CAS"}
    r = hook("user-prompt-submit", prompt, env, cwd=repo)
    ctx = context(r.stdout, "UserPromptSubmit")
    assert ctx.startswith('<hindsight-memory kind="attempts">')
    body = ctx.splitlines()
    assert body[3] == ("Failed attempts recorded earlier on the code this prompt is about: "
                       "what was tried, why it failed, when.")
    assert body[4:6] == ATTEMPTS and body[6] == "</hindsight-memory>"
    assert diag(env)[-1]["attempt_ids"] == [2, 1]
    again = hook("user-prompt-submit", prompt, env, cwd=repo)
    assert again.stdout == ""  # shown once per session
    other = hook("user-prompt-submit", {**prompt, "session_id": "s3",
                                        "prompt": "add an install section to the README"},
                 env, cwd=repo)
    assert other.stdout == ""
    named = hook("user-prompt-submit", {**prompt, "session_id": "s4",
                                        "prompt": "why does deductStock still race?"},
                 env, cwd=repo)
    assert context(named.stdout, "UserPromptSubmit").splitlines()[4:6] == ATTEMPTS
    # a time phrase of another day does not hide failures the prompt names by symbol
    week = hook("user-prompt-submit", {**prompt, "session_id": "s5",
                                       "prompt": "deductStock broke again today, fix it"},
                env, cwd=repo)
    lines = context(week.stdout, "UserPromptSubmit").splitlines()
    assert lines[lines.index(ATTEMPTS[0]):][:2] == ATTEMPTS
    today = hook("user-prompt-submit", {**prompt, "session_id": "s6",
                                        "prompt": "what did we try today?"}, env, cwd=repo)
    assert today.stdout == ""  # the phrase alone selects its own period only


def test_a_command_that_never_ran_is_no_attempt_in_a_prompt(
        scene: tuple[dict[str, str], Path]) -> None:
    """``hindsight run -- nosuchcmd`` (exit 127) is recorded, but a prompt about what was
    tried today is not shown it: a typo is not a failed attempt (the fresh-user trial of
    2026-12-02 was shown one); yesterday's real attempts still are, by name."""
    env, repo = scene
    env = {**env, "HINDSIGHT_NOW": "2026-11-29T16:00:00+00:00"}
    r = subprocess.run([sys.executable, "-m", "hindsight", "run", "--", "no-such-cmd-xyz",
                        "shop/stock.py"], env=env, cwd=repo, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 127
    ask = {"session_id": "s7", "cwd": str(repo),
           "prompt": "what did we try today on shop/stock.py and deductStock?"}
    lines = context(hook("user-prompt-submit", ask, env, cwd=repo).stdout,
                    "UserPromptSubmit").splitlines()
    at = lines.index("Failed attempts recorded earlier on the code this prompt is about: "
                     "what was tried, why it failed, when.")
    assert lines[at + 1:at + 4] == [*ATTEMPTS, "</hindsight-memory>"]
    assert not any("no-such-cmd-xyz" in ln for ln in lines)


def test_context_ranks_the_file_of_the_failed_attempts_with_them_as_a_reason(
        scene: tuple[dict[str, str], Path]) -> None:
    from hookutil import cli

    env, repo = scene
    res = json.loads(cli(["context", "rewrite the deduction logic with CAS", "--json"],
                         env, repo))
    top = res["files"][0]
    assert top["path"] == "shop/stock.py"
    reasons = " ".join(str(r) for r in top["reasons"])
    assert "failed attempt `deductStock`" in reasons and "test_deduct_performance" in reasons


def test_editing_the_file_gets_them_and_the_briefing_lists_them(
        scene: tuple[dict[str, str], Path]) -> None:
    env, repo = scene
    edit = {"session_id": "sess-edit", "cwd": str(repo), "hook_event_name": "PostToolUse",
            "tool_name": "Edit", "tool_input": {"file_path": str(repo / "shop/stock.py"),
                                                "old_string": "a", "new_string": "b"},
            "tool_response": {"filePath": str(repo / "shop/stock.py")}}
    r = hook("edit", edit, env, cwd=repo)
    ctx = context(r.stdout, "PostToolUse")
    assert ctx.splitlines()[3] == ("Failed attempts recorded earlier on the file you just "
                                   "edited: what was tried, why it failed, when.")
    assert ctx.splitlines()[4:6] == ATTEMPTS
    assert hook("edit", edit, env, cwd=repo).stdout == ""  # once per session
    read = {**edit, "session_id": "sess-read", "tool_name": "Read"}
    assert hook("edit", read, env, cwd=repo).stdout == ""  # not an edit
    brief = hook("session-start", {"session_id": "s5", "cwd": str(repo),
                                   "source": "startup"}, env, cwd=repo)
    text = context(brief.stdout, "SessionStart")
    section = text.split("## Unresolved failed attempts on this branch (execution records)\n")
    assert len(section) == 2 and section[1].splitlines()[:2] == ATTEMPTS


PATCH = ("*** Begin Patch\n*** Update File: shop/stock.py\n@@\n-    with _lock:\n"
         "+    with _lock:  # CAS next\n*** Add File: shop/cas.py\n+def compare_and_set(ref, "
         "old, new):\n+    return ref\n*** Delete File: shop/old.py\n*** End Patch\n")


def codex_edit(repo: Path, session: str, tool: str, command: Any) -> dict[str, Any]:
    """A Codex (0.124+) PostToolUse payload: the patch is ``tool_input.command``."""
    return {"session_id": session, "transcript_path": None, "cwd": str(repo),
            "hook_event_name": "PostToolUse", "model": "gpt-5-codex",
            "permission_mode": "default", "turn_id": "turn-1", "tool_name": tool,
            "tool_input": {"command": command}, "tool_use_id": "call_7",
            "tool_response": "Success. Updated the following files:\nM shop/stock.py\n"}


def test_a_codex_apply_patch_gets_them_and_is_traced(
        scene: tuple[dict[str, str], Path]) -> None:
    env, repo = scene
    (repo / "shop/cas.py").write_text("def compare_and_set(ref, old, new):\n    return ref\n")
    r = hook("edit", codex_edit(repo, "codex-1", "apply_patch", PATCH), env, cwd=repo,
             harness="codex")
    assert r.returncode == 0, r.stderr
    ctx = context(r.stdout, "PostToolUse")
    assert ctx.splitlines()[3] == ("Failed attempts recorded earlier on the file you just "
                                   "edited: what was tried, why it failed, when.")
    assert ctx.splitlines()[4:6] == ATTEMPTS
    trace = json.loads(cli(["trace-log", "--json"], env, repo))["events"]
    mine = [t for t in trace if t["session"] == "codex-1"]
    assert sorted((t["file"], t["actor"], [s["qname"] for s in t["symbols"]])
                  for t in mine) == [("shop/cas.py", "codex", ["shop/cas.py::compare_and_set"]),
                                     ("shop/stock.py", "codex", ["shop/stock.py::deductStock"])]
    again = hook("edit", codex_edit(repo, "codex-1", "apply_patch", PATCH), env, cwd=repo,
                 harness="codex")
    assert (again.returncode, again.stdout) == (0, "")  # shown once per session
    # a shell command and a patch that only deletes name no edited file: nothing to say
    for tool, command in (("Bash", "pytest -q"), ("apply_patch",
                          "*** Begin Patch\n*** Delete File: shop/old.py\n*** End Patch\n")):
        r = hook("edit", codex_edit(repo, "codex-2", tool, command), env, cwd=repo,
                 harness="codex")
        assert (r.returncode, r.stdout) == (0, "")
        assert diag(env)[-1]["skipped"] == "no edited file in the payload"


def test_patch_files_reads_the_paths_a_patch_writes() -> None:
    from hindsight.hooks.agents import patch_files

    assert patch_files(PATCH) == ["shop/stock.py", "shop/cas.py"]
    moved = ("*** Begin Patch\n*** Update File: a/old.py\n*** Move to: b/new.py\n@@\n-x\n+y\n"
             "*** Update File: /abs/c.py  \n@@\n-1\n+2\n*** Update File: a/old.py\n"
             "*** End Patch")
    assert patch_files(moved) == ["b/new.py", "/abs/c.py", "a/old.py"]
    assert patch_files(["apply_patch", moved]) == ["b/new.py", "/abs/c.py", "a/old.py"]
    assert patch_files("+*** Update File: not/a/header.py\n") == []
    assert [patch_files(x) for x in (None, 7, [], [3], {"command": PATCH})] == [[]] * 5
