"""Field reports of session 28: history ordered by the commit graph, not by clocks. A
branch commit whose committer clock ran ahead must not be taken for the last change of a
symbol that a later commit (its descendant) changed again. Real git repositories built
commit by commit (tests/histutil.py), the CLI as a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from histutil import Repo, fn, git

from hindsight.app import open_bank
from hindsight.history.ingest import date_order

CLI = [sys.executable, "-m", "hindsight"]


def cli(repo: Path, *args: str) -> Any:
    p = subprocess.run([*CLI, *args, "--json"], cwd=repo, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def _skewed(tmp_path: Path) -> Repo:
    """main: add f (hour 1); branch: f returns 2 with its clock 50 hours ahead; main:
    merge the branch (hour 3), then f returns 3 (hour 4), a descendant of the skewed
    commit but dated 46 hours before it."""
    r = Repo(tmp_path / "skew")
    r.write("a.py", fn("f") + fn("g"))
    r.commit("add f and g")
    git(r.path, "checkout", "-q", "-b", "feat")
    r.n = 49
    r.write("a.py", fn("f", "return 2") + fn("g"))
    r.commit("f returns 2 (clock ahead)")
    git(r.path, "checkout", "-q", "main")
    git(r.path, "merge", "-q", "--no-ff", "-m", "Merge branch feat", "feat", n=3)
    r.n = 3
    r.write("a.py", fn("f", "return 3") + fn("g"))
    r.commit("f returns 3")
    return r


def test_history_and_why_follow_the_graph_when_a_clock_ran_ahead(tmp_path: Path) -> None:
    r = _skewed(tmp_path)
    for args in (["index"], ["ingest"]):
        subprocess.run([*CLI, *args], cwd=r.path, check=True, capture_output=True)
    res = cli(r.path, "history", "f")
    assert [e["subject"] for e in res["entries"]] == [
        "f returns 3", "f returns 2 (clock ahead)", "add f and g"]
    why = cli(r.path, "why", "a.py:2")
    assert why["last"]["subject"] == "f returns 3"
    assert [e["subject"] for e in why["earlier"]] == ["f returns 2 (clock ahead)",
                                                      "add f and g"]
    assert why["since"] == []


def test_rewritten_commits_are_ordered_among_the_new_ones_by_graph_and_date(
        tmp_path: Path) -> None:
    """After a rebase, the commits rewritten away (shown with --include-unreachable) sit
    above their own parents and, among unrelated commits, by committer date."""
    r = Repo(tmp_path / "rb")
    r.write("a.py", fn("f"))
    r.commit("one")
    r.write("a.py", fn("f", "return 2"))
    r.commit("two")
    r.write("a.py", fn("f", "return 3"))
    r.commit("three")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        git(r.path, "reset", "-q", "--hard", r.shas[1])
        r.write("a.py", fn("f", "return 20"))
        new = r.commit("two, rewritten")  # hour 4: newer than the lost 2 and 3
        b.history.ingest()
        every = b.history.history("f", include_unreachable=True)["entries"]
        assert [(e.sha, e.reachable) for e in every] == [
            (new, True), (r.shas[3], False), (r.shas[2], False), (r.shas[1], True)]


def test_date_order_keeps_children_above_parents_whatever_the_clocks() -> None:
    # c (t=5) is the child of b (t=9, clock ahead), b of a (t=1); x (t=7) is unrelated
    planned = [("c", ("b",), 5), ("b", ("a",), 9), ("a", (), 1)]
    assert date_order(planned, [("x", (), 7)]) == ["x", "c", "b", "a"]
    assert date_order(planned, [("x", (), 3)]) == ["c", "b", "x", "a"]
    # a lost commit on top of a planned one stays above it
    assert date_order(planned, [("y", ("a",), 0)]) == ["c", "b", "y", "a"]
