"""Git history ingest and the history/why/impact/hotspots queries on scripted repositories
with exact expected answers."""

from __future__ import annotations

import subprocess
from pathlib import Path

from histutil import Repo, fn, git

from hindsight.app import open_bank


def story(tmp: Path) -> Repo:
    """f modified in commits 2 and 5 and moved to another file (a.py → c.py, main.py's
    import follows) in commit 7;
    g modified in 3 and 6; h (b.py) in 4; docs/f.md changes with f in 1, 2 and 5."""
    r = Repo(tmp / "story")
    r.write("a.py", fn("f") + fn("g"))
    r.write("b.py", fn("h"))
    r.write("main.py", "from a import f\n\n\ndef run():\n    return f()\n")
    r.write("docs/f.md", "f v1\n")
    r.commit("add f, g, h")
    r.write("a.py", fn("f", "return 2") + fn("g"))
    r.write("docs/f.md", "f v2\n")
    r.commit("f returns 2")
    r.write("a.py", fn("f", "return 2") + fn("g", "return 3"))
    r.commit("g returns 3")
    r.write("b.py", fn("h", "return 4"))
    r.commit("fix h")
    r.write("a.py", fn("f", "return 5") + fn("g", "return 3"))
    r.write("docs/f.md", "f v5\n")
    r.commit("f returns 5")
    r.write("a.py", fn("f", "return 5") + fn("g", "return 6"))
    r.commit("g returns 6")
    r.mv("a.py", "c.py")
    r.write("main.py", "from c import f\n\n\ndef run():\n    return f()\n")
    r.commit("rename a.py to c.py")
    return r


def entries(res: dict) -> list[tuple[str, str, str]]:
    return [(e.sha, e.change, f"{e.path}::{e.local}") for e in res["entries"]]


def test_history_follows_moves_exactly(tmp_path: Path) -> None:
    r = story(tmp_path)
    with open_bank(str(r.path)) as b:
        b.code.index()
        st = b.history.ingest()
        assert (st.ingested, st.expanded, st.partial) == (7, 7, "")
        res = b.history.history("f")
        assert (res["symbol"]["qname"], res["qname"]) == ("c.py::f", "c.py::f")
        s = r.shas
        assert entries(res) == [(s[7], "moved", "c.py::f"), (s[5], "modified", "a.py::f"),
                                (s[2], "modified", "a.py::f"), (s[1], "added", "a.py::f")]
        e7 = res["entries"][0]
        assert (e7.old_path, e7.old_local, e7.pure_move) == ("a.py", "f", True)
        assert e7.date == "2025-06-15T22:06:40+00:00" and e7.author == "Ann Author"
        assert [e.subject for e in res["entries"]] == [
            "rename a.py to c.py", "f returns 5", "f returns 2", "add f, g, h"]


def test_history_window_of_six_has_exactly_the_three_changes(tmp_path: Path) -> None:
    r = story(tmp_path)
    with open_bank(str(r.path)) as b:
        b.code.index()
        st = b.history.ingest(limit=6)
        assert (st.ingested, st.partial) == (6, "limited")
        s = r.shas
        assert entries(b.history.history("f")) == [(s[7], "moved", "c.py::f"),
                                           (s[5], "modified", "a.py::f"),
                                           (s[2], "modified", "a.py::f")]
        assert b.history.history("f")["partial"] == "limited"
        # `why` and `impact` say so too (a fresh-user trial of session 29: `why` gave one
        # earlier change, with no note, of a function changed since 2014)
        line = next(i for i, ln in enumerate((r.path / "c.py").read_text().splitlines(), 1)
                    if ln.startswith("def f"))
        why = b.history.why("c.py", line + 1)
        assert why["history_partial"] == "limited" and any(
            n.startswith("partial history (limited)") and "ingest --all" in n
            for n in why["notes"])
        assert b.history.impact("f")["history_partial"] == "limited"
        # a second run reads nothing new; --all fills in the rest
        assert b.history.ingest().ingested == 0
        st = b.history.ingest(all_=True)
        assert (st.ingested, st.partial) == (1, "")
        assert b.history.why("c.py", line + 1)["history_partial"] == ""
        assert len(b.history.history("f")["entries"]) == 4


def test_why_points_at_the_last_content_change(tmp_path: Path) -> None:
    r = story(tmp_path)
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        s = r.shas
        res = b.history.why("c.py", 6)  # "return 6" inside g (lines 5-6)
        assert res["symbol"]["qname"] == "c.py::g" and res["source"] == "symbol"
        assert res["last"]["sha"] == s[6] and res["last"]["message"] == "g returns 6\n"
        assert [(e.sha, e.change) for e in res["since"]] == [(s[7], "moved")]
        assert [(e.sha, e.change) for e in res["earlier"]] == [
            (s[3], "modified"), (s[1], "added")]
        res = b.history.why("main.py", 1)  # the import line: no symbol, git blame answers
        assert (res["symbol"], res["source"], res["last"]["sha"]) == (None, "blame", s[7])


def test_impact_lists_callers_and_a_cochanged_file_no_edge_reaches(tmp_path: Path) -> None:
    r = story(tmp_path)
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        res = b.history.impact("f", depth=2)
        assert res["symbol"]["qname"] == "c.py::f" and res["commits"] == 4
        got = [(i.kind, i.target, i.reasons) for i in res["items"]]
        assert got == [("symbol", "main.py::run", ["calls it (depth 1)"]),
                       ("file", "docs/f.md", ["file changed together in 3 of 4 commits"]),
                       ("file", "main.py", ["file changed together in 2 of 4 commits"])]


def test_hotspots_rank_churn_and_fixes(tmp_path: Path) -> None:
    r = story(tmp_path)
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        res = b.history.hotspots()
        top = [(f["path"], f["commits"], f["fixes"], f["score"]) for f in res["files"][:3]]
        # a.py's commits count for c.py, its name now (renames are followed)
        assert top == [("c.py", 6, 0, 6), ("b.py", 2, 1, 3), ("docs/f.md", 3, 0, 3)]
        syms = {s["qname"]: (s["commits"], s["fixes"]) for s in res["symbols"]}
        assert syms["b.py::h"] == (2, 1) and syms["c.py::g"] == (4, 0)
        assert "a.py::g" not in syms


def test_rebase_marks_dropped_commits(tmp_path: Path) -> None:
    r = Repo(tmp_path / "rb")
    r.write("a.py", fn("f"))
    r.commit("one")
    r.write("a.py", fn("f", "return 2"))
    r.commit("two")
    r.write("a.py", fn("f", "return 3"))
    r.commit("three")
    r.write("a.py", fn("f", "return 4"))
    r.commit("four")
    with open_bank(str(r.path)) as b:
        b.code.index()
        assert b.history.ingest().ingested == 4
        git(r.path, "reset", "-q", "--hard", r.shas[2])
        r.write("a.py", fn("f", "return 30"))
        new = r.commit("three, rewritten")
        st = b.history.ingest()
        assert (st.rewritten, st.unreachable_marked, st.ingested) == (True, 2, 1)
        assert [e.sha for e in b.history.history("f")["entries"]] == [new, r.shas[2], r.shas[1]]
        every = b.history.history("f", include_unreachable=True)["entries"]
        assert [(e.sha, e.reachable) for e in every] == [
            (new, True), (r.shas[4], False), (r.shas[3], False), (r.shas[2], True),
            (r.shas[1], True)]
        assert b.status()["history"]["unreachable_commits"] == 2
        # going back to the old tip makes them live again
        git(r.path, "reset", "-q", "--hard", r.shas[4])
        st = b.history.ingest()
        assert (st.restored, b.status()["history"]["unreachable_commits"]) == (2, 1)


def test_merge_commit_diffs_against_first_parent(tmp_path: Path) -> None:
    r = Repo(tmp_path / "merge")
    r.write("a.py", fn("f") + fn("g"))
    r.commit("one")
    git(r.path, "checkout", "-q", "-b", "side")
    r.write("a.py", fn("f", "return 2") + fn("g"))
    r.commit("side changes f")
    git(r.path, "checkout", "-q", "main")
    r.write("b.py", fn("h"))
    r.commit("main adds h")
    git(r.path, "merge", "-q", "--no-ff", "-m", "merge side", "side", n=9)
    merge = git(r.path, "rev-parse", "HEAD").strip()
    with open_bank(str(r.path)) as b:
        b.code.index()
        assert b.history.ingest().ingested == 4
        # against the first parent, f changed; but the change came with the branch
        rows = b.stores.raw.execute("SELECT path, local, change FROM symbol_changes WHERE sha=?",
                              (merge,)).fetchall()
        assert rows == [("a.py", "f", "merged")]
        files = b.stores.raw.execute("SELECT path FROM commit_files WHERE sha=?", (merge,)).fetchall()
        assert files == [("a.py",)]
        assert [(e.subject, e.change) for e in b.history.history("f")["entries"]] == [
            ("side changes f", "modified"), ("one", "added")]
        assert b.history.history("f")["merges_hidden"] == 1
        assert [(e.subject, e.change, e.merge) for e in
                b.history.history("f", merges=True)["entries"]] == [
            ("merge side", "merged", True), ("side changes f", "modified", False),
            ("one", "added", False)]
        assert b.history.why("a.py", 2)["last"]["subject"] == "side changes f"  # not the merge
        # merges repeat their branch: not counted in churn
        assert {f["path"]: f["commits"] for f in b.history.hotspots()["files"]}["a.py"] == 2


def test_conflict_resolution_is_the_merge_own_change(tmp_path: Path) -> None:
    r = Repo(tmp_path / "conflict")
    r.write("a.py", fn("f"))
    r.commit("one")
    git(r.path, "checkout", "-q", "-b", "side")
    r.write("a.py", fn("f", "return 2"))
    r.commit("side: 2")
    git(r.path, "checkout", "-q", "main")
    r.write("a.py", fn("f", "return 3"))
    r.commit("main: 3")
    subprocess.run(["git", "-c", "core.hooksPath=", "merge", "-q", "side"], cwd=r.path,
                   capture_output=True)
    r.write("a.py", fn("f", "return 5"))
    merge = r.commit("merge side, resolve f")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        rows = b.stores.raw.execute("SELECT local, change FROM symbol_changes WHERE sha=?",
                              (merge,)).fetchall()
        assert rows == [("f", "modified")]
        assert b.history.why("a.py", 2)["last"]["sha"] == merge


def test_clean_merge_of_two_edits_to_one_function_is_no_change_of_its_own(
        tmp_path: Path) -> None:
    """Both sides edited ``f`` (lines 2 and 4) and git merged them without a conflict:
    every line of the result comes from one parent (``git show --cc`` shows nothing), so
    the merge is hidden and ``why`` on line 4 names main's commit, as ``git blame`` does
    (break-it finding); a conflict resolution still counts (the test above)."""
    r = Repo(tmp_path / "clean")
    body = "def f(x):\n    a = 1\n    b = 2\n    c = 3\n    return a + b + c + x\n"
    r.write("m.py", body)
    r.commit("c1")
    git(r.path, "checkout", "-q", "-b", "feat")
    r.write("m.py", body.replace("a = 1", "a = 10"))
    r.commit("feat: a")
    git(r.path, "checkout", "-q", "main")
    r.write("m.py", body.replace("c = 3", "c = 30"))
    main = r.commit("main: c")
    subprocess.run(["git", "-c", "core.hooksPath=", "merge", "-q", "--no-ff", "-m", "merge feat",
                    "feat"], cwd=r.path, capture_output=True, check=True)
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        h = b.history.history("f")
        assert [e.subject for e in h["entries"]] == ["main: c", "feat: a", "c1"]
        assert h["merges_hidden"] == 1
        assert b.history.why("m.py", 4)["last"]["sha"] == main
    blame = git(r.path, "blame", "-l", "-L4,4", "m.py").split()[0]
    assert blame == main


def test_hotspots_of_huge_commits_only_say_so(tmp_path: Path) -> None:
    """Break-it of session 40: when every commit of the window is huge, ``hotspots``
    answered empty with no note; the note now counts the huge commits left out."""
    r = Repo(tmp_path / "huge")
    for i in range(5):
        r.write(f"m{i}.py", fn(f"m{i}"))
    r.commit("import")
    for i in range(5):
        r.write(f"m{i}.py", fn(f"m{i}", "return 2"))
    r.commit("fix: all")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest(huge=4)
        res = b.history.hotspots()
        assert (res["count"], res["notes"]) == (
            {"files": 0, "symbols": 0},
            ["2 huge commits in the window (over the huge-commit size) left out of the counts"])


def test_huge_commit_is_recorded_not_expanded(tmp_path: Path) -> None:
    r = Repo(tmp_path / "huge")
    r.write("a.py", fn("f"))
    r.commit("one")
    for i in range(5):
        r.write(f"m{i}.py", fn(f"m{i}"))
    r.write("a.py", fn("f", "return 2"))
    r.commit("vendor five modules")
    r.write("a.py", fn("f", "return 3"))
    r.write("m0.py", fn("m0", "return 3"))
    r.commit("f and m0")
    with open_bank(str(r.path)) as b:
        b.code.index()
        st = b.history.ingest(huge=4)
        assert (st.ingested, st.huge, st.expanded) == (3, 1, 2)
        c = b.stores.history.commit(r.shas[2])
        assert (c["huge"], c["n_files"], c["expanded"]) == (1, 6, 0)
        # its symbol changes are computed when asked (issue 14: no empty history)
        assert [e.subject for e in b.history.history("f")["entries"]] == [
            "f and m0", "vendor five modules", "one"]
        # the huge commit does not count as co-change: m0.py shares only one commit with f
        assert [i.target for i in b.history.impact("f", min_support=1)["items"]] == ["m0.py",
                                                                             "m0.py::m0"]
        assert [i.target for i in b.history.impact("f")["items"]] == []


def test_symbol_moved_between_existing_files_with_an_edit(tmp_path: Path) -> None:
    r = Repo(tmp_path / "mv")
    r.write("a.py", fn("helper") + fn("keep"))
    r.write("b.py", fn("other"))
    r.commit("one")
    r.write("a.py", fn("keep"))
    r.write("b.py", fn("other") + fn("helper", "return 'moved and edited'"))
    r.commit("move helper to b")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        got = [(e.change, e.path, e.old_path, e.pure_move) for e in b.history.history("helper")["entries"]]
        assert got == [("moved", "b.py", "a.py", False), ("added", "a.py", "", False)]


def test_message_mode_and_incremental_upgrade(tmp_path: Path) -> None:
    r = story(tmp_path)
    with open_bank(str(r.path)) as b:
        b.code.index()
        st = b.history.ingest(mode="message")
        assert (st.ingested, st.expanded, st.symbol_changes) == (7, 0, 0)
        res = b.history.history("g")
        assert res["level"] == "file"
        # the commits that touched a.py or c.py (the rename is followed); not commit 4
        assert [e.sha for e in res["entries"]] == [r.shas[i] for i in (7, 6, 5, 3, 2, 1)]
        st = b.history.ingest(mode="full")
        assert (st.ingested, st.expanded) == (7, 7)
        assert b.history.history("g")["level"] == "symbol"
        assert b.history.ingest(mode="none").notes[0].startswith("history mode is 'none'")


def test_deleted_symbol_history_by_name(tmp_path: Path) -> None:
    r = Repo(tmp_path / "del")
    r.write("a.py", fn("gone") + fn("stay"))
    r.commit("one")
    r.write("a.py", fn("stay"))
    r.commit("remove gone")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        res = b.history.history("gone")
        assert [(e.change, e.subject) for e in res["entries"]] == [
            ("removed", "remove gone"), ("added", "one")]


def test_comment_only_edit_is_found_by_line_overlap(tmp_path: Path) -> None:
    r = Repo(tmp_path / "cm")
    r.write("a.py", "def f():\n    # old note\n    return 1\n\n\ndef g():\n    return 2\n")
    r.commit("one")
    r.write("a.py", "def f():\n    # new note\n    return 1\n\n\ndef g():\n    return 2\n")
    r.commit("reword the note in f")
    r.write("a.py", "def f():\n    # new note\n    return 1\n\n\n\ndef g():\n    return 2\n")
    r.commit("blank line between f and g")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        got = [(e.subject, e.change) for e in b.history.history("f")["entries"]]
        assert got == [("reword the note in f", "modified"), ("one", "added")]
        assert [e.subject for e in b.history.history("g")["entries"]] == ["one"]
        assert b.history.why("a.py", 2)["last"]["subject"] == "reword the note in f"
        ev = b.history.record_edit("a.py", "def f():\n    # x\n    return 1\n",
                           "def f():\n    # y\n    return 1\n", refresh_index=False)
        assert ev is not None
        (s,) = ev["symbols"]
        assert (s["local"], s["change"], s["old_hash"] == s["new_hash"]) == ("f", "modified",
                                                                            True)


def test_why_says_when_the_file_has_uncommitted_changes(tmp_path: Path) -> None:
    r = story(tmp_path)
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        assert not [n for n in b.history.why("c.py", 6)["notes"] if "uncommitted" in n]
        (r.path / "c.py").write_text((r.path / "c.py").read_text().replace("return 6",
                                                                             "return 7"))
        b.code.index()
        res = b.history.why("c.py", 6)
        assert res["last"]["sha"] == r.shas[6]  # still HEAD's last change, and said so
        assert [n for n in res["notes"] if "uncommitted" in n] == [
            "c.py has uncommitted changes (git diff HEAD): they are in no commit above; "
            "edits through an agent hook are the edit trace"]


def test_history_of_a_name_with_several_definitions_says_so(tmp_path: Path) -> None:
    """Break-it of session 40: two definitions sharing a qualified name (a function
    defined in both branches of an ``if``; C++ ``int get(int) const`` and ``int get(int)``,
    C# indexers) answered ``history NAME`` with the first's commits only and no word of
    the other. A note now names the copies' lines and the ``NAME#2`` form."""
    r = Repo(tmp_path / "r")
    src = "import sys\n\nif sys.platform == 'win32':\n    def sep():\n        return 1\nelse:\n" \
          "    def sep():\n        return 2\n"
    r.write("p.py", src)
    r.commit("init")
    r.write("p.py", src.replace("return 2", "return 3"))
    r.commit("posix tweak")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        res = b.history.history("sep")
        assert [e.subject for e in res["entries"]] == ["init"]
        assert res["notes"][-1] == ("2 definitions in p.py share the name sep (lines 4, 7): "
                                    "this is the history of the first; `sep#2` names the next")
        assert [e.subject for e in b.history.history("sep#2")["entries"]] == [
            "posix tweak", "init"]
