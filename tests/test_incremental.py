"""Incremental indexing equals a full rebuild after any edit (issue #2 item 7)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from conftest import git, make_repo, write
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hindsight.app import open_bank

BASE = {
    "app/__init__.py": "",
    "app/util.py": "def helper(x):\n    return x\n\n\ndef target():\n    return helper(1)\n",
    "app/base.py": "class Base:\n    def hook(self):\n        return 1\n",
    "app/main.py": (
        "from app.util import helper\nfrom app import util\nfrom app.base import Base\n"
        "from app.extra import later\n\n\n"
        "class Service(Base):\n    def run(self):\n        self.hook()\n        later()\n"
        "        return helper(2) + util.target()\n\n\ndef target():\n    return 0\n"),
    "other/target.py": "def target():\n    return 1\n\n\ndef use():\n    return target()\n",
    "go.mod": "module example.com/m\n",
    "pkg/a.go": "package pkg\n\nfunc A() int { return B() }\n",
    "pkg/b.go": "package pkg\n\nfunc B() int { return 1 }\n",
}


def snapshot(bank: object) -> tuple[list[object], list[object]]:
    return bank.stores.code.snapshot()  # type: ignore[attr-defined]


def check_equal(repo: Path) -> None:
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(workers=1)
        inc = snapshot(bank)
        bank.code.index(full=True, workers=1)
        full = snapshot(bank)
    assert inc[0] == full[0], "symbols differ"
    assert inc[1] == full[1], "edges differ"


def edits_equal_rebuild(base: Path, files: dict[str, str],
                        edits: list[tuple[str, str | None]]) -> None:
    """Index a repository of ``files``, then apply each edit (``None``: delete) and check
    that the incremental index equals a full rebuild after each one."""
    repo = make_repo(base / "r", files)
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(workers=1)
    for path, body in edits:
        if body is None:
            if (repo / path).exists():
                os.remove(repo / path)
        else:
            write(repo, {path: body})
        git(repo, "add", "-A")
        check_equal(repo)
    shutil.rmtree(base, ignore_errors=True)


def edges_of(repo: Path, src: str) -> list[tuple[str, str]]:
    with open_bank(repo_root_path=str(repo)) as bank:
        return sorted((e[3], e[7]) for e in bank.stores.code.snapshot()[1] if e[1] == src
                      and e[2] == "call")


def test_callee_file_edit_reresolves_unchanged_callers(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", BASE)
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(workers=1)
    assert ("helper", "app/util.py::helper") in edges_of(repo, "app/main.py::Service.run")
    assert ("later", "") in edges_of(repo, "app/main.py::Service.run")
    # only the callee's file changes: helper disappears
    write(repo, {"app/util.py": "def helper2(x):\n    return x\n\n\ndef target():\n    return 2\n"})
    with open_bank(repo_root_path=str(repo)) as bank:
        st = bank.code.index(workers=1)
    assert st.files_parsed == 1 and st.files_reresolved >= 1
    run = edges_of(repo, "app/main.py::Service.run")
    assert ("helper", "") in run and ("target", "app/util.py::target") in run
    check_equal(repo)
    # a file appears that an unchanged file imported before it existed
    write(repo, {"app/extra.py": "def later():\n    return 3\n"})
    git(repo, "add", "-A")
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(workers=1)
    assert ("later", "app/extra.py::later") in edges_of(repo, "app/main.py::Service.run")
    check_equal(repo)
    # the base class (another file) changes: self.hook() must follow
    write(repo, {"app/base.py": "class Base:\n    def other(self):\n        return 1\n"})
    check_equal(repo)
    assert ("hook", "") in edges_of(repo, "app/main.py::Service.run")
    # go: same-package call across files
    write(repo, {"pkg/b.go": "package pkg\n\nfunc C() int { return 1 }\n"})
    check_equal(repo)
    assert edges_of(repo, "pkg/a.go::A") == [("B", "")]


def test_delete_rename_and_package_change(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", BASE)
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(workers=1)
    git(repo, "mv", "app/util.py", "app/tools.py")
    with open_bank(repo_root_path=str(repo)) as bank:
        st = bank.code.index(workers=1)
    assert st.files_renamed == 1
    check_equal(repo)
    os.remove(repo / "app/base.py")
    git(repo, "add", "-A")
    check_equal(repo)
    os.remove(repo / "app/__init__.py")  # module names change for the whole package
    git(repo, "add", "-A")
    check_equal(repo)
    assert not [e for e in edges_of(repo, "other/target.py::use") if e[1].startswith("app/")]


def test_noop_reindex_reads_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", BASE)
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(workers=1)
        st = bank.code.index(workers=1)
    assert st.files_parsed == 0 and st.files_reresolved == 0
    os.utime(repo / "app/util.py")  # touched, same content: read, not re-indexed
    with open_bank(repo_root_path=str(repo)) as bank:
        st = bank.code.index(workers=1)
    assert st.files_parsed == 0


FILES = sorted(k for k in BASE if k.endswith(".py"))
BODIES = [
    "def helper(x):\n    return x\n",
    "def target():\n    return helper(1)\n",
    "from app.util import helper\n\n\ndef target():\n    return helper(0)\n",
    "from app import util\n\n\ndef use():\n    return util.helper(3)\n",
    "class Base:\n    def hook(self):\n        return self.more()\n\n    def more(self):\n        return 1\n",
    "from app.base import Base\n\n\nclass Sub(Base):\n    def go(self):\n        return self.hook()\n",
    "",
]
edit = st.tuples(st.sampled_from(FILES + ["app/new.py", "app/base2.py"]),
                 st.sampled_from(BODIES + [None]))


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(edit, min_size=1, max_size=4))
def test_random_edits_equal_rebuild(tmp_path_factory: object, edits: list[tuple[str, str | None]]
                                    ) -> None:
    base = tmp_path_factory.mktemp("prop")  # type: ignore[attr-defined]
    edits_equal_rebuild(base, BASE, edits)


def test_counts_kept_in_meta_match_a_scan(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", BASE)
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(workers=1)
        write(repo, {"app/util.py": "def helper(x):\n    return len(x)\n",
                     "app/more.py": "from app.util import helper\n\ndef m():\n    helper(1)\n"})
        os.remove(repo / "other/target.py")
        git(repo, "add", "-A")
        bank.code.index(workers=1)
        kept = bank.stores.code.counts()
        bank.stores.raw.execute("DELETE FROM meta WHERE key LIKE 'count_%'")
        assert bank.stores.code.counts() == kept


def test_parallel_full_build_equals_sequential(tmp_path: Path, monkeypatch: object) -> None:
    from hindsight.codeindex import build

    monkeypatch.setattr(build, "PARALLEL_RESOLVE_MIN", 1)  # type: ignore[attr-defined]
    monkeypatch.setattr(build, "IN_PROCESS_MAX", 1)  # type: ignore[attr-defined]
    monkeypatch.setattr(build, "RESOLVE_CHUNK", 1)  # several writes per resolver child
    repo = make_repo(tmp_path / "r", BASE)
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(full=True, workers=2)
        par = snapshot(bank)
        bank.code.index(full=True, workers=1)
        assert snapshot(bank) == par
        assert len(par[1]) >= 12


def test_counts_stay_right_when_the_same_file_changes_again(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"m.py": "def a():\n    return b()\n\n\ndef b():\n    pass\n"})
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(workers=1)
        for i in range(4):  # the re-inserted file reuses the highest row id each time
            with open(repo / "m.py", "a") as fh:
                fh.write(f"# edit {i}\n")
            st = bank.code.index(workers=1)
            assert (st.symbols, st.edges) == (2, 1)
        c = bank.stores.code.counts()
        assert (c["symbols"], c["edges"], c["calls"], c["unresolved_calls"]) == (2, 1, 1, 0)


def test_parallel_full_build_leaves_every_index_and_no_part_file(tmp_path: Path,
                                                                 monkeypatch: object) -> None:
    import tempfile

    from hindsight.codeindex import build
    from hindsight.store.sqlite.db import INDEXES

    monkeypatch.setattr(build, "PARALLEL_RESOLVE_MIN", 1)  # type: ignore[attr-defined]
    monkeypatch.setattr(build, "IN_PROCESS_MAX", 1)  # type: ignore[attr-defined]
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # type: ignore[attr-defined]
    repo = make_repo(tmp_path / "r", BASE)
    with open_bank(repo_root_path=str(repo)) as bank:
        st = bank.code.index(full=True, workers=2)
        raw = bank.stores.raw
        names = {r[0] for r in raw.execute("SELECT name FROM main.sqlite_master "
                                           "WHERE type='index' AND name LIKE 'ix_%'")}
        assert {n for n, _ in INDEXES} <= names
        assert [r[1] for r in raw.execute("PRAGMA database_list")] == ["main"]
        assert list(scratch.iterdir()) == []  # part files removed
        assert st.phases["resolve"] >= 0 and st.phases["merge"] >= 0
        assert 0 < st.serial_seconds < st.seconds


def test_a_failing_resolver_child_is_replaced_by_the_main_process(tmp_path: Path,
                                                                  monkeypatch: object) -> None:
    from hindsight.codeindex import build

    repo = make_repo(tmp_path / "r", BASE)
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(full=True, workers=1)
        want = snapshot(bank)
        monkeypatch.setattr(build, "PARALLEL_RESOLVE_MIN", 1)  # type: ignore[attr-defined]
        monkeypatch.setattr(build, "IN_PROCESS_MAX", 1)  # type: ignore[attr-defined]
        parent = os.getpid()
        real = build.resolve_rows

        def child_fails(*args: object) -> object:
            if os.getpid() != parent:
                raise RuntimeError("resolver child failed")
            return real(*args)  # type: ignore[arg-type]

        monkeypatch.setattr(build, "resolve_rows", child_fails)  # type: ignore[attr-defined]
        st = bank.code.index(full=True, workers=2)
        assert snapshot(bank) == want
        assert st.edges == len(want[1])


def test_other_writers_are_not_kept_waiting_while_a_full_build_parses(
        tmp_path: Path, monkeypatch: object) -> None:
    """The rebuild stages what parsing yields outside the bank: a second connection with no
    busy timeout can write the bank in the middle of the parse phase."""
    import sqlite3

    from hindsight.codeindex import build

    monkeypatch.setattr(build, "IN_PROCESS_MAX", 1)  # type: ignore[attr-defined]
    monkeypatch.setattr(build, "BATCH_BYTES", 1)  # type: ignore[attr-defined]
    repo = make_repo(tmp_path / "r", BASE)
    wrote: list[int] = []
    with open_bank(repo_root_path=str(repo)) as bank:
        db = bank.stores.raw.execute("PRAGMA database_list").fetchone()[2]
        real = build._Intake.take

        def take(self: object, wires: list[object]) -> None:
            real(self, wires)  # type: ignore[arg-type]
            other = sqlite3.connect(db, timeout=0, isolation_level=None)
            try:
                other.execute("BEGIN IMMEDIATE")
                other.execute("INSERT OR REPLACE INTO meta VALUES('probe', ?)", (len(wrote),))
                other.execute("COMMIT")
                wrote.append(1)
            finally:
                other.close()

        monkeypatch.setattr(build._Intake, "take", take)  # type: ignore[attr-defined]
        st = bank.code.index(full=True, workers=2)
        assert len(wrote) >= 3 and st.files_parsed == len(wrote)
        assert bank.stores.code.get_meta("probe") == str(len(wrote) - 1)


# CommonJS exports and several-target values across files (issue #14): what `require`
# gives follows `module.exports`, which another file may re-export (cycles included).
CJS_BASE = {
    "lib/a.js": "function A() {}\nA.prototype.m = function m() {};\nmodule.exports = A;\n",
    "lib/b.js": "function B() {}\nB.prototype.m = function m() {};\nmodule.exports = B;\n",
    "main.js": ("var A = require('./lib/a');\nvar B = require('./lib/b');\n"
                "function go(flag) {\n  var x = flag ? new A() : new B();\n  x.m();\n"
                "  A();\n}\n"),
    "app.py": ("from lib2 import pick\n\n\ndef run(flag):\n    for f in pick(flag):\n"
               "        f()\n"),
    "lib2.py": "def one():\n    pass\n\n\ndef pick(flag):\n    return [one]\n",
}
CJS_BODIES = {
    "lib/a.js": [CJS_BASE["lib/a.js"], "module.exports = require('./b');\n",
                 "exports = module.exports = require('../main');\n",
                 "function C() {}\nC.prototype.m = function m() {};\nmodule.exports = C;\n"],
    "lib/b.js": [CJS_BASE["lib/b.js"], "module.exports = require('./a');\n",
                 "exports.m = function m() {};\n"],
    "lib2.py": [CJS_BASE["lib2.py"],
                "def one():\n    pass\n\n\ndef two():\n    pass\n\n\n"
                "def pick(flag):\n    return [one, two] if flag else [two]\n",
                "def pick(flag):\n    return []\n"],
}
cjs_edit = st.sampled_from(sorted(CJS_BODIES)).flatmap(
    lambda p: st.tuples(st.just(p), st.sampled_from(CJS_BODIES[p] + [None])))


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(cjs_edit, min_size=1, max_size=3))
def test_commonjs_and_union_edits_equal_rebuild(tmp_path_factory: object,
                                                edits: list[tuple[str, str | None]]) -> None:
    base = tmp_path_factory.mktemp("cjs")  # type: ignore[attr-defined]
    edits_equal_rebuild(base, CJS_BASE, edits)


def test_commonjs_edges_follow_module_exports(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", CJS_BASE)
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(workers=1)
    assert edges_of(repo, "main.js::go") == [
        ("A", "lib/a.js::A"), ("A", "lib/a.js::A"), ("B", "lib/b.js::B"),
        ("m", "lib/a.js::A.m"), ("m", "lib/b.js::B.m")]
    write(repo, {"lib/a.js": "module.exports = require('./b');\n"})
    git(repo, "add", "-A")
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(workers=1)
    assert edges_of(repo, "main.js::go") == [
        ("A", "lib/b.js::B"), ("A", "lib/b.js::B"), ("B", "lib/b.js::B"),
        ("m", "lib/b.js::B.m")]


def test_subclass_in_another_file_reresolves_the_base(tmp_path: Path) -> None:
    """``self.step()`` in a base class runs the overrides of its subclasses
    (codeindex/dispatch.py): a subclass added, changed or removed in another file
    re-resolves the base class's file, and the index equals a full rebuild each time."""
    base = ("class Job:\n    def run(self):\n        return self.step()\n\n"
            "    def step(self):\n        raise NotImplementedError\n")
    child = "from jobs import Job\n\n\nclass Backup(Job):\n    def step(self):\n        return 1\n"
    repo = make_repo(tmp_path / "r", {"jobs.py": base})
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(workers=1)
    assert edges_of(repo, "jobs.py::Job.run") == [("step", "jobs.py::Job.step")]
    write(repo, {"backup.py": child})
    git(repo, "add", "-A")
    with open_bank(repo_root_path=str(repo)) as bank:
        st = bank.code.index(workers=1)
    assert st.files_parsed == 1 and st.files_reresolved == 1
    assert edges_of(repo, "jobs.py::Job.run") == [("step", "backup.py::Backup.step")]
    check_equal(repo)
    edits_equal_rebuild(tmp_path / "e", {"jobs.py": base, "backup.py": child}, [
        ("backup.py", child.replace("(Job)", "")),  # no longer a subclass
        ("backup.py", child),
        ("report.py", child.replace("Backup", "Report")),  # a second one
        ("jobs.py", base.replace("raise NotImplementedError", "pass")),
        ("other.py", base.replace("self.step()", "0")),  # another module's Job
        ("backup.py", child.replace("from jobs", "from other")),  # now derives from it
        ("backup.py", child.replace("return 1", "return 2")),  # a body edit only
        ("backup.py", child.replace("    def step(self):\n        return 1\n",
                                    "    pass\n")),  # no override any more
        ("backup.py", None),
        ("jobs.py", base.replace("class Job:", "class Task:")),
    ])


def test_call_site_in_another_file_reresolves_the_callee(tmp_path: Path) -> None:
    """A parameter's value comes from call sites in other files too (codeindex/
    callsites.py, key ``arg:<name>``): changing, adding or removing such a call
    re-resolves the called function's file, and the index equals a full rebuild."""
    lib = ("def measure(shape):\n    return shape.area()\n")
    app = ("from lib import measure\n\n\nclass Square:\n    def area(self):\n"
           "        return 4\n\n\ndef run():\n    return measure(Square())\n")
    repo = make_repo(tmp_path / "r", {"lib.py": lib, "app.py": app})
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(workers=1)
    assert edges_of(repo, "lib.py::measure") == [("area", "app.py::Square.area")]
    write(repo, {"app.py": app.replace("measure(Square())", "Square()")})
    git(repo, "add", "-A")
    with open_bank(repo_root_path=str(repo)) as bank:
        st = bank.code.index(workers=1)
    assert st.files_parsed == 1 and st.files_reresolved == 1
    assert edges_of(repo, "lib.py::measure") == [("area", "")]
    check_equal(repo)
    circle = app.replace("Square", "Circle").replace("app.py", "other.py")
    edits_equal_rebuild(tmp_path / "e", {"lib.py": lib, "app.py": app}, [
        ("other.py", circle),  # a second caller: both classes
        ("app.py", None),
        ("lib.py", lib.replace("shape.area()", "shape.area() + 1")),
        ("other.py", circle.replace("measure(Circle())", "measure(shape=Circle())")),
    ])


def test_rebuilding_an_older_bank_never_locks_out_the_resolver_children(
        tmp_path: Path, monkeypatch: object) -> None:
    """An older bank lacks an index added since: dropping it by an unqualified name made
    SQLite read-lock every attached part file for the whole rebuild, so each resolver child
    waited on its next write (the stop-23 demo hang). Children must all succeed."""
    from hindsight.codeindex import build
    from hindsight.store.sqlite import bulk
    from hindsight.store.sqlite.db import INDEXES

    repo = make_repo(tmp_path / "r", BASE)
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(full=True, workers=1)
        want = snapshot(bank)
        bank.stores.raw.execute(f"DROP INDEX main.{INDEXES[-1][0]}")  # as an older bank
        monkeypatch.setattr(build, "PARALLEL_RESOLVE_MIN", 1)  # type: ignore[attr-defined]
        monkeypatch.setattr(build, "IN_PROCESS_MAX", 1)  # type: ignore[attr-defined]
        monkeypatch.setattr(build, "RESOLVE_CHUNK", 1)  # type: ignore[attr-defined]
        monkeypatch.setattr(bulk, "PART_BUSY_S", 1.0)  # type: ignore[attr-defined]
        parent = os.getpid()
        real = build.resolve_rows
        in_parent: list[int] = []

        def record(*args: object) -> object:
            if os.getpid() == parent:  # only a failed child's share is resolved here
                in_parent.append(1)
            return real(*args)  # type: ignore[arg-type]

        monkeypatch.setattr(build, "resolve_rows", record)  # type: ignore[attr-defined]
        bank.code.index(full=True, workers=2)
        assert in_parent == []
        assert snapshot(bank) == want


def test_the_cached_git_listing_follows_every_change_of_the_git_index(tmp_path: Path) -> None:
    """select() reuses `git ls-files` while .git/index is unchanged (one process indexing
    often): a file added, then removed, with git between two runs of the same process is
    seen each time; an untracked file is not."""
    repo = make_repo(tmp_path / "r", {"a.py": "def a():\n    pass\n"})
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(workers=1)
        (repo / "b.py").write_text("def b():\n    pass\n")
        bank.code.index(workers=1)
        assert sorted(bank.stores.code.load_files()) == ["a.py"]  # untracked: not indexed
        git(repo, "add", "b.py")
        bank.code.index(workers=1)
        assert sorted(bank.stores.code.load_files()) == ["a.py", "b.py"]
        git(repo, "rm", "-q", "--cached", "b.py")
        bank.code.index(workers=1)
        assert sorted(bank.stores.code.load_files()) == ["a.py"]


def test_calls_made_from_facts_are_not_repeated_by_an_incremental_index(
        tmp_path: Path) -> None:
    """Break-it of session 40: a call whose callee is an access path made from the file's
    facts with no ``(`` in it (``getattr(self, "repr_" + k)(x)`` is ``self.repr_$``,
    ``getattr(job, "run")()`` is ``job.run``) was stored, then read back as a reference
    and made again on each re-resolution: its edges doubled with every incremental
    index of a subclass's file (7, 9, 11, 13 edges)."""
    base = ("class Repr:\n    def repr1(self, x):\n        meth = \"repr_\" + type(x).__name__\n"
            "        return getattr(self, meth)(x)\n\n    def repr_int(self, x):\n"
            "        return getattr(self, \"repr_list\")(x)\n")
    sub = "from base import Repr\n\n\nclass TextRepr(Repr):\n    def repr_list(self, x):\n" \
          "        return \"[]\"\n"
    repo = make_repo(tmp_path / "r", {"base.py": base, "sub.py": sub})
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(workers=1)
    for i in range(3):
        # a method of the subclass changes: base.py, which enumerates it, is re-resolved
        write(repo, {"sub.py": sub + f"\n    def other{i}(self):\n        return 1\n"})
        git(repo, "add", "-A")
        with open_bank(repo_root_path=str(repo)) as bank:
            st = bank.code.index(workers=1)
        assert st.files_reresolved == 1
        assert edges_of(repo, "base.py::Repr.repr1") == [
            ("getattr", ""), ("self.repr_$", "base.py::Repr.repr_int"),
            ("self.repr_$", "sub.py::TextRepr.repr_list"), ("type", "")]
        check_equal(repo)
