"""Field reports of session 28 on history: commits ordered by the commit graph, not by
clocks (a branch commit whose clock ran ahead is not the last change), incremental ingests
(merged branches, amended commits, the limit), branches not merged into HEAD, renames
whose old name a new function takes, code a side branch copied in, and the unresolved
call sites of ``callers``. Real git repositories built commit by commit
(tests/histutil.py), the CLI as a subprocess where the user-facing answer matters."""

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


def test_a_rename_whose_old_name_a_new_function_takes_is_followed(tmp_path: Path) -> None:
    """``parse`` renamed ``parse_legacy`` while a new ``parse`` takes the name, in one
    commit: ``parse_legacy``'s history goes on with the old ``parse``'s commits, as ``git
    log -L`` follows the old lines, and the new ``parse`` starts there."""
    old = ("def parse(text):\n    parts = text.split(',')\n    out = []\n"
           "    for p in parts:\n        out.append(p.strip().lower())\n    return out\n\n\n")
    r = Repo(tmp_path / "take")
    r.write("p.py", old + fn("other"))
    r.commit("add parse")
    r.write("p.py", old.replace("lower()", "casefold()") + fn("other"))
    r.commit("parse: casefold")
    legacy = old.replace("lower()", "casefold()").replace("def parse(", "def parse_legacy(")
    new = ("def parse(text, sep=','):\n    import csv\n    return next(csv.reader([text], "
           "delimiter=sep))\n\n\n")
    r.write("p.py", new + legacy + fn("other"))
    r.commit("parse with csv; the old parser kept as parse_legacy")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        got = b.history.history("parse_legacy")["entries"]
        assert [(e.subject, e.change) for e in got] == [
            ("parse with csv; the old parser kept as parse_legacy", "moved"),
            ("parse: casefold", "modified"), ("add parse", "added")]
        got = b.history.history("parse")["entries"]
        assert [(e.subject, e.change) for e in got] == [
            ("parse with csv; the old parser kept as parse_legacy", "added")]
        why = b.history.why("p.py", 8)  # a line of parse_legacy
        assert (why["symbol"]["local"], why["last"]["subject"]) == (
            "parse_legacy", "parse with csv; the old parser kept as parse_legacy")


FOO = "def foo():\n    x = {x}\n    a = 0\n    b = 0\n    y = {y}\n    return x + y\n"


def _ingest(r: Repo) -> None:
    for args in (["index"], ["ingest"]):
        subprocess.run([*CLI, *args], cwd=r.path, check=True, capture_output=True)


def test_incremental_ingest_of_a_merged_branch_keeps_the_date_order(tmp_path: Path) -> None:
    """main: A (hour 1); branch: F (hour 2) changes x; main: M1 (hour 3) changes y; ingest;
    merge (hour 4); ingest. The branch's F is older than M1 and not its descendant: git
    log --date-order lists M1 first, and so must history and why."""
    r = Repo(tmp_path / "inc")
    r.write("mod.py", FOO.format(x=1, y=1))
    r.commit("A")
    git(r.path, "checkout", "-q", "-b", "feat")
    r.write("mod.py", FOO.format(x=2, y=1))
    r.commit("F changes x")
    git(r.path, "checkout", "-q", "main")
    r.write("mod.py", FOO.format(x=1, y=3))
    r.commit("M1 changes y")
    _ingest(r)
    git(r.path, "merge", "-q", "--no-ff", "-m", "Merge feat", "feat", n=4)
    _ingest(r)
    res = cli(r.path, "history", "foo", "--merges")
    assert [e["subject"] for e in res["entries"]] == ["Merge feat", "M1 changes y",
                                                      "F changes x", "A"]
    assert cli(r.path, "why", "mod.py:5")["last"]["subject"] == "M1 changes y"


def test_history_and_why_leave_out_commits_of_a_branch_not_merged(tmp_path: Path) -> None:
    """A change ingested while another branch was checked out is no part of HEAD's code:
    back on main, why names main's commit (as git blame does) and history says what it
    left out."""
    r = Repo(tmp_path / "br")
    r.write("mod.py", FOO.format(x=1, y=1))
    r.commit("A")
    git(r.path, "branch", "feat")
    r.n = 2
    r.write("mod.py", FOO.format(x=1, y=3))
    r.commit("M changes y")
    _ingest(r)
    git(r.path, "checkout", "-q", "feat")
    r.n = 4
    r.write("mod.py", FOO.format(x=2, y=1))
    r.commit("F changes x, on feat")
    _ingest(r)
    git(r.path, "checkout", "-q", "main")
    _ingest(r)
    why = cli(r.path, "why", "mod.py:5")
    assert why["last"]["subject"] == "M changes y"
    assert "1 change on branches not merged into HEAD left out" in why["notes"]
    res = cli(r.path, "history", "foo")
    assert [e["subject"] for e in res["entries"]] == ["M changes y", "A"]
    every = cli(r.path, "history", "foo", "--include-unreachable")
    assert [e["subject"] for e in every["entries"]] == ["F changes x, on feat",
                                                        "M changes y", "A"]


def test_an_amended_commit_stays_in_date_order_after_later_ingests(tmp_path: Path) -> None:
    r = Repo(tmp_path / "am")
    for n, x in ((1, 1), (2, 2), (3, 3)):
        r.write("mod.py", FOO.format(x=x, y=1))
        r.commit("ABC"[n - 1])
    _ingest(r)
    r.write("mod.py", FOO.format(x=30, y=1))
    git(r.path, "commit", "-q", "-a", "--amend", "-m", "C2", n=4)
    _ingest(r)
    r.n = 4
    r.write("mod.py", FOO.format(x=30, y=5))
    r.commit("D")
    _ingest(r)
    r.write("other.py", fn("g"))
    r.commit("E")
    _ingest(r)
    every = cli(r.path, "history", "foo", "--include-unreachable")
    assert [(e["subject"], e["reachable"]) for e in every["entries"]] == [
        ("D", True), ("C2", True), ("C", False), ("B", True), ("A", True)]


def test_a_later_ingest_reads_every_new_commit_whatever_the_limit(tmp_path: Path) -> None:
    """The limit bounds the first read: 9 new commits after `ingest --limit 5` are all
    read, so the change below the 8 newest is not a hole (why names it)."""
    r = Repo(tmp_path / "lim")
    r.write("mod.py", FOO.format(x=1, y=1))
    r.commit("A")
    subprocess.run([*CLI, "index"], cwd=r.path, check=True, capture_output=True)
    subprocess.run([*CLI, "ingest", "--limit", "5"], cwd=r.path, check=True,
                   capture_output=True)
    r.write("mod.py", FOO.format(x=1, y=7))
    r.commit("FOO-CHANGE")
    for i in range(8):
        r.write("other.py", fn("g", f"return {i}"))
        r.commit(f"other {i}")
    _ingest(r)
    assert cli(r.path, "why", "mod.py:5")["last"]["subject"] == "FOO-CHANGE"
    assert cli(r.path, "status")["history"]["commits"] == 10


def test_code_copied_in_on_a_side_branch_is_not_where_it_was_added(tmp_path: Path) -> None:
    """Fresh-user trial (click's ``get_error_hint``): main adds f (X) and changes it (Y);
    a side branch made before X copies in f as it is after Y (a later date), merges main,
    and is merged. git blame follows the first parent to X and Y; so must history and
    why, instead of stopping at the side branch's copy."""
    r = Repo(tmp_path / "copy")
    r.write("a.py", fn("g"))
    r.commit("start")
    git(r.path, "branch", "side")
    r.write("a.py", fn("g") + fn("f", "return 1"))
    r.commit("X adds f")
    r.write("a.py", fn("g") + fn("f", "return 2"))
    r.commit("Y changes f")
    git(r.path, "checkout", "-q", "side")
    r.write("a.py", fn("g") + fn("f", "return 2"))
    r.commit("copy f from main")
    git(r.path, "merge", "-q", "--no-ff", "-m", "Merge main into side", "main", n=5)
    git(r.path, "checkout", "-q", "main")
    git(r.path, "merge", "-q", "--no-ff", "-m", "Merge side", "side", n=6)
    _ingest(r)
    res = cli(r.path, "history", "f")
    assert [(e["subject"], e["change"]) for e in res["entries"]] == [
        ("Y changes f", "modified"), ("X adds f", "added")]
    why = cli(r.path, "why", "a.py:6")
    assert why["last"]["subject"] == "Y changes f"
    blame = git(r.path, "blame", "-L6,6", "--porcelain", "a.py").split()[0]
    assert blame == r.shas[3]


def test_include_unresolved_lists_each_unresolved_call_site(tmp_path: Path) -> None:
    """Fresh-user trial (fd's ``DirEntry.path``): a caller with several unresolved calls
    of the name got one row (its first line), so the rows did not add up to
    ``unresolved_same_name``; each unresolved call site is its own row."""
    src = ("class Entry:\n    def path(self):\n        return 1\n\n\n"
           "def walk(items):\n    for e in items:\n        e.path()\n    first = items[0]\n"
           "    first.path()\n    return Entry().path()\n")
    r = Repo(tmp_path / "u")
    r.write("a.py", src)
    r.commit("u")
    subprocess.run([*CLI, "index"], cwd=r.path, check=True, capture_output=True)
    res = cli(r.path, "callers", "Entry.path", "--include-unresolved")
    rows = sorted((h["qname"], h["line"], h["resolved"]) for h in res["callers"])
    assert rows == [("a.py::walk", 8, False), ("a.py::walk", 10, False),
                    ("a.py::walk", 11, True)]
    assert res["unresolved_same_name"] == 2


def test_history_of_a_name_moved_from_file_to_file_answers_with_the_newest(
        tmp_path: Path) -> None:
    """Fresh-user trial (fd's ``FileTypes.default``, moved twice, then removed): the
    name matches three identities in history, one symbol; history answers with the
    newest, whose chain holds the others."""
    r = Repo(tmp_path / "mv")
    body = "class Types:\n    def default(self):\n        return {'a': 1, 'b': 2, 'c': 3}\n"
    r.write("one.py", body)
    r.write("keep.py", fn("k"))
    r.commit("add Types")
    r.rm("one.py")
    r.write("two.py", body)
    r.commit("move Types to two")
    r.rm("two.py")
    r.write("three.py", body.replace("'c': 3", "'c': 4"))
    r.commit("move Types to three")
    r.rm("three.py")
    r.commit("drop Types")
    _ingest(r)
    res = cli(r.path, "history", "Types.default")
    assert res["qname"] == "three.py::Types.default"
    assert [(e["subject"], e["change"]) for e in res["entries"]] == [
        ("drop Types", "removed"), ("move Types to three", "moved"),
        ("move Types to two", "moved"), ("add Types", "added")]


def test_an_added_function_as_alike_a_removed_one_is_its_rename_not_a_take_over(
        tmp_path: Path) -> None:
    """CI find: an added function that is the text of a removed one (renamed) and also
    of a changed one's old body is the removed one's rename; the changed one keeps its
    history (and a small function never takes over: f's `return 1` -> `return 10`)."""
    body = ("    parts = text.split(',')\n    out = []\n    for p in parts:\n"
            "        out.append(p.strip().lower())\n    return out\n\n\n")
    r = Repo(tmp_path / "dup")
    r.write("p.py", "def parse(text):\n" + body + "def helper(text):\n" + body)
    r.commit("two copies")
    r.write("p.py", "def parse(text):\n    return [text]\n\n\n" + "def clean(text):\n" + body)
    r.commit("parse simplified, helper renamed clean")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        got = b.history.history("clean")["entries"]
        assert [(e.subject, e.change) for e in got] == [
            ("parse simplified, helper renamed clean", "moved"), ("two copies", "added")]
        assert got[0].old_local == "helper"
        got = b.history.history("parse")["entries"]
        assert [(e.subject, e.change) for e in got] == [
            ("parse simplified, helper renamed clean", "modified"), ("two copies", "added")]

