"""One lock per bank for every index writer: seeding and the git-hook refresh, started
together as real processes, never run an index or ingest pass at the same time (each pass
is logged with its start and end in ``$HINDSIGHT_HOME/logs/index.jsonl``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import git, make_repo


def overlaps(passes: list[dict[str, float]]) -> list[tuple[int, int]]:
    """Pairs of passes (by position) whose [start, end] intervals intersect."""
    out = []
    for i, a in enumerate(passes):
        for j, b in enumerate(passes[i + 1:], i + 1):
            if a["start"] < b["end"] and b["start"] < a["end"]:
                out.append((i, j))
    return out


def test_overlap_check_finds_a_planted_overlap() -> None:
    assert overlaps([{"start": 0, "end": 2}, {"start": 1, "end": 3}]) == [(0, 1)]
    assert overlaps([{"start": 0, "end": 1}, {"start": 1, "end": 2}]) == []


def test_index_lock_name_is_one_per_bank() -> None:
    from hindsight.config.paths import index_lock_name

    assert index_lock_name("coding-agent::a") == index_lock_name("coding-agent::a")
    assert index_lock_name("coding-agent::a") != index_lock_name("coding-agent::b")


def test_seeding_and_git_refresh_take_turns(tmp_path: Path, hindsight_home: Path) -> None:
    files = {f"pkg/m{i:03d}.py": "".join(f"def f{j}(x):\n    return g{j}(x) + {i}\n\n\n"
                                          f"def g{j}(x):\n    return x\n\n\n"
                                          for j in range(40)) for i in range(150)}
    repo = make_repo(tmp_path / "repo", files)
    (repo / "pkg" / "m000.py").write_text("def changed():\n    return 1\n")
    git(repo, "commit", "-qam", "change one file")
    env = {**os.environ, "HINDSIGHT_EMBEDDER": "hashing", "HINDSIGHT_IMPORT_TRANSCRIPTS": "0",
           "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "CODEX_HOME": str(tmp_path / "cx")}
    seed = subprocess.Popen([sys.executable, "-P", "-m", "hindsight", "hook", "_seed",
                             "--cwd", str(repo), "--harness", "claude-code"], cwd=repo, env=env)
    refresh = subprocess.Popen([sys.executable, "-P", "-m", "hindsight", "git-hooks", "run-git",
                                "post-commit", "--repo-root", str(repo)], cwd=repo, env=env)
    assert seed.wait(timeout=300) == 0 and refresh.wait(timeout=300) == 0
    lines = (hindsight_home / "logs" / "index.jsonl").read_text().splitlines()
    passes = [json.loads(x) for x in lines]
    pids = {p["pid"] for p in passes}
    assert {p["what"] for p in passes} == {"index", "ingest"}
    assert len(pids) == 2, passes  # both processes indexed
    assert len({p["bank"] for p in passes}) == 1
    assert overlaps(passes) == [], passes
    git_log = (hindsight_home / "logs" / "git-hooks.log").read_text().splitlines()
    assert json.loads(git_log[-1])["outcome"] == "ok"
