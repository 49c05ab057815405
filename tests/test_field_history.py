"""Field reports of issue 14 about history honesty: hotspots (deleted files, internal keys,
what a fix is), merges crowding history and why, renames inside a file, symbols touched
only by huge commits. Real git repositories built commit by commit (tests/histutil.py);
the CLI as a subprocess where the user-facing answer matters."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from histutil import Repo, fn, git

from hindsight.app import open_bank
from hindsight.history.fixes import RULE, is_fix

CLI = [sys.executable, "-m", "hindsight"]


def cli(repo: Path, *args: str) -> Any:
    p = subprocess.run([*CLI, *args, "--json"], cwd=repo, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.mark.parametrize(("message", "fix"), [
    ("fix: handle empty input", True),
    ("fix(parser)!: reject tabs", True),
    ("parser: fix off-by-one in spans", True),
    ("[3.x] Fix crash on empty input", True),
    ("Fixed a bug in the docs", True),
    ("Revert 1a2b3c4d5e", True),
    ("Revert to older wording in docs", False),
    ("Fix-width font support", False),
    ('Revert "Add caching"\n\nThis reverts commit abc.', True),
    ("bug 7: wrong default", True),
    ("Refactor option parsing\n\nfixes #12", True),
    ("Tidy up\n\nFixes: 1234567890ab (\"Add parser\")", True),
    ("`types`: fix variance issues", True),
    ("Add prefix handling", False),
    ("Update fixtures", False),
    ("Add a test for the fix", False),
    ("Add regression test for crash", False),
    ("Add feature\n\ncloses #12", False),
    ("Document the fixed-width mode", False),
])
def test_fix_rule(message: str, fix: bool) -> None:
    assert is_fix(message) is fix


def test_hotspots_existing_files_only_no_internal_keys_real_fixes(tmp_path: Path) -> None:
    r = Repo(tmp_path / "hs")
    twin = ("import os\n\nif os.name == 'nt':\n    def path_sep():\n        return {a}\n"
            "else:\n    def path_sep():\n        return {b}\n")
    r.write("sep.py", twin.format(a=1, b=2))
    r.write("gone.py", fn("old"))
    r.write("keep.py", fn("kept"))
    r.commit("Add modules")
    for i, msg in enumerate(["Update fixtures", "Add prefix handling",
                             "Add a test for the fix"], 3):
        r.write("gone.py", fn("old", f"return {i}"))
        r.write("sep.py", twin.format(a=i, b=2))
        r.commit(msg)
    r.write("sep.py", twin.format(a=9, b=9))  # both definitions in one commit
    r.commit("fix(sep): separators")
    r.write("keep.py", fn("kept", "return 2"))
    r.commit("Revert \"Add modules\" partly")
    r.write("gone.py", fn("old", "return 99"))
    r.commit("gone: fix the old code")
    r.rm("gone.py")
    r.commit("Remove gone.py")
    for args in (["index"], ["ingest"]):
        subprocess.run([*CLI, *args], cwd=r.path, check=True, capture_output=True)
    res = cli(r.path, "hotspots")
    assert [(f["path"], f["commits"], f["fixes"], f["score"]) for f in res["files"]] == [
        ("sep.py", 5, 1, 6), ("keep.py", 2, 1, 3)]
    assert [(s["qname"], s["commits"], s["fixes"]) for s in res["symbols"]] == [
        ("sep.py::path_sep", 5, 1), ("keep.py::kept", 2, 1)]
    assert res["left_out"] == {"files": 1, "symbols": 1}
    p = subprocess.run([*CLI, "hotspots"], cwd=r.path, capture_output=True, text=True,
                       check=True)
    assert "#" not in p.stdout and "gone.py" not in p.stdout
    assert ("left out: 1 file(s) and 1 symbol(s) that changed in the window but no longer "
            "exist at HEAD") in " ".join(p.stdout.split())


def test_hotspots_reclassify_a_bank_from_the_earlier_rule(tmp_path: Path) -> None:
    r = Repo(tmp_path / "old")
    r.write("a.py", fn("f"))
    r.commit("Add prefix handling")
    with open_bank(str(r.path)) as b:
        b.history.ingest()
        raw = b.stores.raw
        raw.execute("UPDATE commits SET fix=1")
        raw.execute("UPDATE meta SET value='1' WHERE key='history_fix_rule'")
        raw.commit()
        assert b.history.hotspots()["files"][0]["fixes"] == 0
        assert b.stores.history.get_meta("history_fix_rule") == RULE


def _pull_request_flow(tmp: Path) -> Repo:
    """f changed on three branches, each merged with --no-ff; one branch first merges
    main back in (a sync merge); the last merge comes after the last change of f."""
    r = Repo(tmp / "flow")
    r.write("a.py", fn("f") + fn("g"))
    r.commit("add f and g")
    for i in (2, 3, 4):
        git(r.path, "checkout", "-q", "-b", f"topic{i}")
        r.write("a.py", fn("f", f"return {i}") + fn("g"))
        r.commit(f"f returns {i}")
        if i == 3:  # main moved on meanwhile; the branch syncs with it
            git(r.path, "checkout", "-q", "main")
            r.write("b.py", fn("h"))
            r.commit("add h")
            git(r.path, "checkout", "-q", "topic3")
            r.n += 1
            git(r.path, "merge", "-q", "--no-ff", "-m", "merge main into topic3", "main",
                n=r.n)
        git(r.path, "checkout", "-q", "main")
        r.n += 1
        git(r.path, "merge", "-q", "--no-ff", "-m", f"Merge pull request #{i}", f"topic{i}",
            n=r.n)
    return r


def test_merges_are_collapsed_in_history_and_why(tmp_path: Path) -> None:
    r = _pull_request_flow(tmp_path)
    for args in (["index"], ["ingest"]):
        subprocess.run([*CLI, *args], cwd=r.path, check=True, capture_output=True)
    res = cli(r.path, "history", "f")
    assert [(e["subject"], e["change"]) for e in res["entries"]] == [
        ("f returns 4", "modified"), ("f returns 3", "modified"), ("f returns 2", "modified"),
        ("add f and g", "added")]
    assert (res["count"], res["merges_hidden"]) == (4, 3)
    full = cli(r.path, "history", "f", "--merges")
    assert [(e["subject"], e["change"], e["merge"]) for e in full["entries"]] == [
        ("Merge pull request #4", "merged", True), ("f returns 4", "modified", False),
        ("Merge pull request #3", "merged", True), ("f returns 3", "modified", False),
        ("Merge pull request #2", "merged", True), ("f returns 2", "modified", False),
        ("add f and g", "added", False)]
    why = cli(r.path, "why", "a.py:2")
    assert why["last"]["subject"] == "f returns 4"
    assert (why["since"], why["merges_hidden"]) == ([], 3)
    assert [e["subject"] for e in why["earlier"]] == ["f returns 3", "f returns 2",
                                                      "add f and g"]
    assert all(e["date"] < why["last"]["date"] for e in why["earlier"])
    why_all = cli(r.path, "why", "a.py:2", "--merges")
    assert [e["subject"] for e in why_all["since"]] == ["Merge pull request #4"]
    assert why_all["last"]["subject"] == "f returns 4"
    p = subprocess.run([*CLI, "history", "f"], cwd=r.path, capture_output=True, text=True,
                       check=True)
    assert "Merge pull" not in p.stdout
    assert "3 merges that only brought in a branch's changes left out (--merges shows them)" \
        in " ".join(p.stdout.split())


def test_mcp_symbol_history_and_why_take_merges(tmp_path: Path) -> None:
    import asyncio

    from mcp import Client

    from hindsight.mcp.server import build_mcp_server

    r = _pull_request_flow(tmp_path)
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()

    async def go() -> list[Any]:
        server = build_mcp_server(lambda: open_bank(str(r.path)))
        async with Client(server) as c:
            out = []
            for tool, args in (("symbol_history", {"symbol": "f"}),
                               ("symbol_history", {"symbol": "f", "merges": True}),
                               ("why", {"file": "a.py", "line": 2, "merges": True})):
                res = await c.call_tool(tool, args)
                out.append(res.structured_content)
            return out

    plain, merged, why = asyncio.run(go())
    assert (plain["total"], plain["merges_hidden"]) == (4, 3)
    assert (merged["total"], merged["merges_hidden"]) == (7, 0)
    assert [e["subject"] for e in why["since"]] == ["Merge pull request #4"]


RENAMES = {"is_dir": "is_existing_directory", "is_file": "is_regular_file",
           "exists": "path_exists", "read_text": "load_text", "write_text": "save_text",
           "list_dir": "list_directory", "remove": "delete_path"}
BODIES = {"is_dir": "return os.path.isdir(p)", "is_file": "return os.path.isfile(p)",
          "exists": "return os.path.exists(p)",
          "read_text": "with open(p, encoding='utf-8') as fh:\n        return fh.read()",
          "write_text": "with open(p, 'w', encoding='utf-8') as fh:\n        fh.write(t)",
          "list_dir": "return sorted(os.listdir(p))",
          "remove": "if is_dir(p):\n        os.rmdir(p)\n    else:\n        os.unlink(p)"}


def _fs_module(names: dict[str, str], bodies: dict[str, str]) -> str:
    out = "import os\n\n\n"
    for old, body in bodies.items():
        new = names.get(old, old)
        args = "p, t" if old == "write_text" else "p"
        out += f"def {new}({args}):\n    {body.replace('is_dir(', names.get('is_dir', 'is_dir') + '(')}\n\n\n"
    return out


def test_rename_inside_a_file_continues_the_history(tmp_path: Path) -> None:
    r = Repo(tmp_path / "ren")
    r.write("fs.py", _fs_module({}, BODIES))
    r.commit("add fs helpers")
    r.write("fs.py", _fs_module({}, {**BODIES, "is_dir": "return os.path.isdir(p) and True"}))
    r.commit("is_dir: be explicit")
    r.write("fs.py", _fs_module(RENAMES, {**BODIES, "is_dir": "return os.path.isdir(p) and True"}))
    r.commit("Rename the fs helpers")
    for args in (["index"], ["ingest"]):
        subprocess.run([*CLI, *args], cwd=r.path, check=True, capture_output=True)
    res = cli(r.path, "history", "is_existing_directory")
    got = [(e["sha"], e["change"], e["old_local"]) for e in res["entries"]]
    s = r.shas
    assert got == [(s[3], "moved", "is_dir"), (s[2], "modified", "is_dir"), (s[1], "added", "")]
    log_l = git(r.path, "log", "-L", ":is_existing_directory:fs.py", "--format=%H", "-s")
    assert [e["sha"] for e in res["entries"]] == log_l.split()
    for old, new in RENAMES.items():  # each of the seven follows its old name
        entries = cli(r.path, "history", new)["entries"]
        assert [(e["change"], e["old_local"]) for e in entries][0] == ("moved", old), new
        assert entries[-1]["change"] == "added" and entries[-1]["sha"] == s[1], new
    p = subprocess.run([*CLI, "history", "delete_path"], cwd=r.path, capture_output=True,
                       text=True, check=True, env={**os.environ, "COLUMNS": "200"})
    assert "renamed from remove" in p.stdout


def test_similar_but_different_functions_are_not_a_rename(tmp_path: Path) -> None:
    r = Repo(tmp_path / "notren")
    r.write("m.py", "def is_dir(p):\n    return os.path.isdir(p)\n")
    r.commit("one")
    r.write("m.py", "def is_file(p):\n    return os.path.isfile(p)\n")
    r.commit("replace is_dir by is_file")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        assert [(e.change, e.old_local) for e in b.history.history("is_file")["entries"]] \
            == [("added", "")]


def _huge_history(tmp: Path) -> Repo:
    """An import commit and a reformat over 5 files each (huge with --huge-commit 4), and
    one small commit between them."""
    r = Repo(tmp / "huge")
    for i in range(5):
        r.write(f"m{i}.py", fn(f"f{i}") + fn(f"g{i}"))
    r.commit("Import the project")
    r.write("m0.py", fn("f0", "return 2") + fn("g0"))
    r.commit("f0 returns 2")
    for i in range(5):
        r.write(f"m{i}.py", fn(f"f{i}", "return 2") + fn(f"g{i}", "return 3"))
    r.commit("Reformat everything")
    return r


def test_symbols_of_huge_commits_are_attributed(tmp_path: Path) -> None:
    r = _huge_history(tmp_path)
    subprocess.run([*CLI, "index"], cwd=r.path, check=True, capture_output=True)
    p = subprocess.run([*CLI, "ingest", "--huge-commit", "4"], cwd=r.path, capture_output=True,
                       text=True, check=True)
    assert ("2 commits touched more than 4 files: stored without per-symbol changes, which "
            "history and why compute when they are asked about those files") in p.stderr
    s = r.shas
    res = cli(r.path, "history", "g3")
    assert [(e["sha"], e["change"]) for e in res["entries"]] == [(s[3], "modified"),
                                                                (s[1], "added")]
    assert res["notes"] == []
    res = cli(r.path, "history", "f0")
    assert [(e["sha"], e["change"]) for e in res["entries"]] == [(s[2], "modified"),
                                                                (s[1], "added")]
    why = cli(r.path, "why", "m4.py:5")  # inside g4: changed last by the reformat
    assert (why["source"], why["last"]["sha"], why["last"]["change"]) == (
        "symbol", s[3], "modified")
    assert [e["sha"] for e in why["earlier"]] == [s[1]]
    with open_bank(str(r.path)) as b:  # computed once, for the files asked about
        raw = b.stores.raw
        done = raw.execute("SELECT sha, path FROM huge_files_done ORDER BY sha, path")
        assert sorted(done.fetchall()) == sorted(
            (sha, f"m{i}.py") for sha in (s[1], s[3]) for i in (0, 3, 4))
        before = raw.execute("SELECT count(*) FROM symbol_changes").fetchone()[0]
        b.history.history("g3")
        assert raw.execute("SELECT count(*) FROM symbol_changes").fetchone()[0] == before
        # co-change and churn still leave huge commits out
        assert b.history.impact("g3")["commits"] == 0


def test_truncated_huge_attribution_says_so(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from hindsight.history import lazy

    r = _huge_history(tmp_path)
    monkeypatch.setattr(lazy, "PER_QUESTION", 1)
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest(huge=4)
        res = b.history.history("g2")
        assert [e.sha for e in res["entries"]] == [r.shas[3]]
        assert res["notes"] == ["1 more huge commit touched this symbol's files and was not "
                                "examined yet; ask again to examine the next ones"]
        res = b.history.history("g2")
        assert [e.sha for e in res["entries"]] == [r.shas[3], r.shas[1]]
        assert res["notes"] == []


def test_empty_history_says_why(tmp_path: Path) -> None:
    r = Repo(tmp_path / "empty")
    r.write("a.py", fn("f"))
    r.commit("one")
    for i in range(3):
        r.write("b.py", fn("g", f"return {i}"))
        r.commit(f"g {i}")
    subprocess.run([*CLI, "index"], cwd=r.path, check=True, capture_output=True)
    subprocess.run([*CLI, "ingest", "--limit", "2"], cwd=r.path, check=True,
                   capture_output=True)
    res = cli(r.path, "history", "f")
    assert (res["entries"], res["notes"]) == ([], [
        "no ingested commit changed this symbol; the ingested history is partial (limited): "
        "hindsight ingest --all reads the older commits"])


def test_huge_commit_that_renames_a_file_and_a_huge_merge(tmp_path: Path) -> None:
    r = _huge_history(tmp_path)
    git(r.path, "checkout", "-q", "-b", "side")
    for i in range(5):
        r.mv(f"m{i}.py", f"n{i}.py")
    r.write("n1.py", fn("f1", "return 7") + fn("g1", "return 3"))
    r.commit("Move every module")
    git(r.path, "checkout", "-q", "main")
    r.write("other.py", fn("x"))
    r.commit("add x")
    r.n += 1
    git(r.path, "merge", "-q", "--no-ff", "-m", "Merge side", "side", n=r.n)
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest(huge=4)
        s = r.shas
        res = b.history.history("f1", merges=True)
        assert [(e.subject, e.change, e.path, e.old_path) for e in res["entries"]] == [
            ("Merge side", "merged", "n1.py", "m1.py"),
            ("Move every module", "moved", "n1.py", "m1.py"),
            ("Reformat everything", "modified", "m1.py", "m1.py"),
            ("Import the project", "added", "m1.py", "")]
        assert res["entries"][-1].sha == s[1]
        assert [e.subject for e in b.history.history("f1")["entries"]] == [
            "Move every module", "Reformat everything", "Import the project"]


def test_bank_busy_answers_and_says_what_it_left(tmp_path: Path) -> None:
    import sqlite3

    r = _huge_history(tmp_path)
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest(huge=4)
        other = sqlite3.connect(b.path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another writer holds the bank
        try:
            b.stores.history.set_busy_timeout(50)
            res = b.history.history("g2")
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert (res["entries"], res["notes"]) == ([], [
            "2 more huge commits touched this symbol's files and were not examined: the bank "
            "could not be written (database is locked); ask again later"])
        b.stores.history.set_busy_timeout(30_000)
        assert [e.sha for e in b.history.history("g2")["entries"]] == [r.shas[3], r.shas[1]]


FS_RS = """use std::path::Path;

// Path::is_dir() is not guaranteed to be intuitively correct for "." and ".."
// See: https://github.com/rust-lang/rust/issues/45302
pub fn is_dir(path: &Path) -> bool {
    path.is_dir() && (path.file_name().is_some() || path.canonicalize().is_ok())
}

pub fn other() -> u32 {
    1
}
"""


def test_rename_with_a_comment_moved_into_the_body_is_followed(tmp_path: Path) -> None:
    """fd's ``is_dir`` -> ``is_existing_directory`` (2d398dc): the comment above moved into
    the body and ``canonicalize`` became ``normalize``, so fewer than half the lines stay;
    the diff replaced one function by the other in place, as ``git log -L`` follows."""
    r = Repo(tmp_path / "fd")
    r.write("src/filesystem.rs", FS_RS)
    r.commit("Refactor path handling")
    r.write("src/filesystem.rs", FS_RS.replace("(path.file_name", "(\n        path.file_name"))
    r.commit("Minor changes to improve readability")
    r.write("src/filesystem.rs", FS_RS.replace(
        '// Path::is_dir() is not guaranteed to be intuitively correct for "." and ".."\n'
        "// See: https://github.com/rust-lang/rust/issues/45302\n"
        "pub fn is_dir(path: &Path) -> bool {\n",
        "pub fn is_existing_directory(path: &Path) -> bool {\n"
        "    // Note: we do not use `.exists()` here, as `.` always exists, even if\n"
        "    // the CWD has been deleted.\n").replace("canonicalize", "normalize"))
    r.commit("Fix directory-existence check on Windows")
    for args in (["index"], ["ingest"]):
        subprocess.run([*CLI, *args], cwd=r.path, check=True, capture_output=True)
    got = [(e["sha"], e["change"], e["old_local"])
           for e in cli(r.path, "history", "is_existing_directory")["entries"]]
    s = r.shas
    assert got == [(s[3], "moved", "is_dir"), (s[2], "modified", "is_dir"), (s[1], "added", "")]
    log_l = git(r.path, "log", "-L", ":is_existing_directory:src/filesystem.rs", "--format=%H",
                "-s")
    assert [g[0] for g in got] == log_l.split()


def test_rename_with_annotations_added_and_a_test_replaced_in_place(tmp_path: Path) -> None:
    """``get_user(uid)`` -> ``fetch_user(uid: int)`` with the body kept, and
    ``area(w, h)`` -> ``rect_area(w: float, h: float) -> float``, are renames; a test
    replaced in place by an unrelated one of the same shape is not."""
    body = "    return db.find(uid)\n"
    test = ("    runner = CliRunner()\n    result = runner.invoke(cli, {args})\n"
            "    assert result.exit_code == {code}\n    assert {text!r} in result.output\n")
    r = Repo(tmp_path / "ann")
    r.write("m.py", "def get_user(uid):\n" + body + "\n\ndef area(w, h):\n"
            "    total = float(w) * float(h)\n    return round(total, 2)\n\n\n"
            "def test_missing_option_string_cast():\n"
            + test.format(args="['--n', 'x']", code=2, text="Invalid value"))
    r.commit("one")
    r.write("m.py", "def fetch_user(uid: int):\n" + body + "\n\n"
            "def rect_area(w: float, h: float) -> float:\n"
            "    total = float(w) * float(h)\n    return round(total, 2)\n\n\n"
            "def test_required_option():\n"
            + test.format(args="[]", code=2, text="Missing option"))
    r.commit("two")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        h = b.history.history
        assert [(e.change, e.old_local) for e in h("fetch_user")["entries"]] == [
            ("moved", "get_user"), ("added", "")]
        assert [(e.change, e.old_local) for e in h("rect_area")["entries"]] == [
            ("moved", "area"), ("added", "")]
        assert [(e.change, e.old_local) for e in h("test_required_option")["entries"]] == [
            ("added", "")]


def test_why_on_a_class_body_line_outside_methods_is_the_lines_blame(tmp_path: Path) -> None:
    """An ``@overload`` stub and a class attribute are lines of the class body: the class's
    last change is its methods' (c2), the lines' is c1, as ``git blame`` says (click's
    ``Context.lookup_default`` stubs, a fresh-user trial)."""
    src = ("import typing as t\n\n\nclass C:\n    LIMIT = 3\n\n    @t.overload\n"
           "    def get(self, k: int) -> int: ...\n\n    @t.overload\n"
           "    def get(self, k: str) -> str: ...\n\n    def get(self, k):\n        return {body}\n")
    r = Repo(tmp_path / "why")
    r.write("m.py", src.format(body="k"))
    r.commit("c1")
    r.write("m.py", src.format(body="k * 2"))
    r.commit("c2")
    with open_bank(str(r.path)) as b:
        b.code.index()
        b.history.ingest()
        for line, source in ((5, "symbol"), (8, "blame"), (10, "blame")):  # C.LIMIT: its own
            w = b.history.why("m.py", line)
            blame = git(r.path, "blame", "--root", "-l", f"-L{line},{line}", "m.py").split()[0]
            assert (w["last"]["sha"], w["source"], blame) == (r.shas[1], source, r.shas[1])
        assert b.history.why("m.py", 14)["last"]["sha"] == r.shas[2]
        assert b.history.why("m.py", 8)["notes"] == [
            "line 8 is in an @overload stub of C.get: git blame answers for the line"]
        assert b.history.why("m.py", 9)["notes"] == [  # the blank line after the stub
            "line 9 is in the body of C, outside its methods: git blame answers for the line"]
