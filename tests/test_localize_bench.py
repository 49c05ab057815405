"""bench/localize.py on a scripted history: which commits are tasks, what their answer is,
and that the bank at each task's parent sees that parent's history and nothing later."""

from __future__ import annotations

import sys
from pathlib import Path

from histutil import Repo, git

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from localize import Task, is_test, metrics, select, steps  # noqa: E402


def history(tmp: Path) -> Repo:
    r = Repo(tmp / "src")
    r.write("app/core.py", "def run():\n    return 1\n")
    r.write("app/util.py", "def fmt():\n    return 'a'\n")
    r.write("tests/test_core.py", "def test_run():\n    assert True\n")
    r.commit("Initial app")  # adds every file: no gold exists at its parent
    r.write("app/core.py", "def run():\n    return 2\n")
    r.write("tests/test_core.py", "def test_run():\n    assert 2\n")
    r.commit("Run returns two")  # a task: core.py (the test is not an answer)
    git(r.path, "checkout", "-q", "-b", "side")
    r.write("app/util.py", "def fmt():\n    return 'side'\n")
    r.commit("Format on the side branch")  # a task on a branch merged later
    git(r.path, "checkout", "-q", "main")
    r.write("README.md", "# app\n")
    r.commit("Document the app")  # changes no source file: not a task
    git(r.path, "merge", "-q", "--no-ff", "side", "-m", "Merge side")  # a merge: not a task
    r.n += 1
    r.write("app/new.py", "def new():\n    return 0\n")
    r.write("app/core.py", "def run():\n    return 3\n")
    r.commit("Add new module and run three")  # gold: core.py only (new.py is new)
    return r


def test_tasks_are_non_merge_commits_of_source_files_existing_at_the_parent(
        tmp_path: Path) -> None:
    r = history(tmp_path)
    got = select(r.path, 10)
    assert [(t.query, t.gold) for t in got] == [
        ("Add new module and run three", ["app/core.py"]),
        ("Format on the side branch", ["app/util.py"]),
        ("Run returns two", ["app/core.py"])]
    assert [t.parent for t in got] == [
        git(r.path, "rev-parse", f"{t.sha}^").strip() for t in got]
    assert [t.query for t in select(r.path, 1)] == ["Add new module and run three"]


def test_each_task_sees_its_parent_history_only(tmp_path: Path) -> None:
    r = history(tmp_path)
    seen = []
    for t, bank, cands, _clone, _i in steps(str(r.path), None, 10, tmp_path / "work"):
        subjects = sorted(c[2] for c in bank.context.corpus().commits)
        seen.append((t.query, subjects, sorted(cands)))
    # oldest task first; each bank holds the commits before the task, none after
    assert seen == [
        ("Run returns two", ["Initial app"], ["app/core.py", "app/util.py"]),
        ("Format on the side branch", ["Initial app", "Run returns two"],
         ["app/core.py", "app/util.py"]),
        ("Add new module and run three",
         ["Document the app", "Format on the side branch", "Initial app", "Run returns two"],
         ["app/core.py", "app/util.py"])]


def test_test_paths_and_metrics() -> None:
    assert [is_test(p) for p in ("tests/a.py", "src/a_test.go", "lib/x.spec.ts",
                                 "pkg/FooTest.java", "conftest.py", "src/testing.py",
                                 "src/latest.py")] == [True, True, True, True, True,
                                                       False, False]
    m = metrics(["a", "b", "c", "d"], ["c", "x"])
    assert m == {"R@1": 0.0, "R@5": 0.5, "R@10": 0.5, "MRR": 1 / 3}
    assert Task("s", "p", "q", ["g"]).gold == ["g"]
