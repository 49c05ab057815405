"""Memories follow the code: stale anchors after an edit, re-pointing after a rename, and
``@hindsight:`` comments as memories that are retired when the comment changes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hindsight.app import open_bank

CLI = [sys.executable, "-m", "hindsight"]


@pytest.fixture(autouse=True)
def hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "hashing")


def write(p: Path, text: str) -> None:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def test_edit_makes_stale_rename_repoints_delete_makes_stale(tmp_path: Path) -> None:
    root = tmp_path / "r"
    write(root / "a.py", "def f():\n    return 1\n\n\ndef g():\n    return 2\n")
    write(root / "c.py", "def k():\n    return 3\n")
    with open_bank(str(root)) as b:
        b.code.index()
        mf = b.memory.retain("f must stay pure", symbols=["f"]).id
        mg = b.memory.retain("g is called from the signal handler", symbols=["g"]).id
        mk = b.memory.retain("c.py is generated, do not edit", files=["c.py"]).id
        assert b.memory.memories(stale=True) == []
        write(root / "a.py", "def f():\n    return 10\n\n\ndef g():\n    return 2\n")
        b.code.index()
        assert [(m.id, m.stale_reason) for m in b.memory.memories(stale=True)] == [
            (mf, "symbol changed")]
        hit = b.memory.recall("f must stay pure", k=1).hits[0].memory
        assert (hit.id, hit.stale) == (mf, True)
        os.rename(root / "a.py", root / "moved.py")  # g keeps its hash: re-pointed
        os.remove(root / "c.py")
        b.code.index()
        g = b.memory.get(mg)
        assert (g.stale, [(a.path, a.symbol) for a in g.anchors]) == (
            False, [("moved.py", "g")])
        assert any(h["action"] == "repointed" for h in b.memory.audit(mg))
        assert b.memory.get(mk).stale_reason == "file deleted or renamed"
    out = subprocess.run([*CLI, "memories", "--stale", "--json"], cwd=root, text=True,
                         capture_output=True, check=True)
    got = json.loads(out.stdout)
    assert sorted(m["id"] for m in got["memories"]) == [mf, mk] and got["count"] == 2


def test_hindsight_comments_become_memories(tmp_path: Path) -> None:
    root = tmp_path / "c"
    write(root / "h.py", "# @hindsight: never call this from a signal handler\n"
                         "def handler():\n    return 1\n\n\n"
                         "def other():\n    x = 1  # @hindsight: x must stay 1 for the tests\n"
                         "    return x\n")
    with open_bank(str(root)) as b:
        b.code.index()
        ms = b.memory.memories()
        got = sorted((m.text, m.kind, m.source, m.anchors[0].symbol) for m in ms)
        assert got == [("never call this from a signal handler", "convention",
                        "code_comment", "handler"),
                       ("x must stay 1 for the tests", "convention", "code_comment", "other")]
        old = next(m.id for m in ms if m.anchors[0].symbol == "handler")
        b.code.index()  # nothing changed: nothing added or retired
        assert len(b.memory.memories()) == 2
        write(root / "h.py", "# @hindsight: never call this from any signal handler\n"
                             "def handler():\n    return 1\n\n\n"
                             "def other():\n    return 1\n")
        b.code.index()
        assert sorted(m.text for m in b.memory.memories()) == [
            "never call this from any signal handler"]
        retired = b.memory.get(old)
        assert (retired.status, retired.status_reason) == (
            "archived", "its @hindsight comment changed or was removed")
