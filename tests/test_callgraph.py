"""Call-graph fixtures with exact expected edges (issue #14, item 1).

For each ``tests/golden/callgraph/<language>.json``, the fixture project it names is
indexed and its resolved call edges (``src -> dst @line``) must equal the golden's
``edges`` exactly (precision and recall 1.0 on the fixture); the golden's ``misses`` are
edges a complete call graph has that the index knowingly does not give (each with its
reason), so none of them may appear either. Incremental re-resolution from the stored
receiver facts must give the same edges as a full rebuild.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from conftest import write

from hindsight.app import open_bank

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden" / "callgraph"
CASES = sorted(p.stem for p in GOLDEN.glob("*.json"))


def call_edges(root: Path, full: bool = True, workers: int = 1) -> list[str]:
    """Resolved call edges of the index of ``root`` as ``src -> dst @line``, sorted."""
    return index_and_read(root, full, workers)[0]


def index_and_read(root: Path, full: bool = True, workers: int = 1
                   ) -> tuple[list[str], list[tuple[object, ...]]]:
    """Index ``root``; its resolved call edges (as :func:`call_edges`) and its stored
    receiver facts ``(path, scope, target, value, line)``, sorted."""
    with open_bank(repo_root_path=str(root)) as bank:
        bank.code.index(full=full, workers=workers)
        _syms, edges = bank.stores.code.snapshot()
        from hindsight.codeindex.table import FileSyms

        facts = sorted((path, *f) for path, data in bank.stores.raw.execute(
            "SELECT f.path, d.data FROM filesyms d JOIN files f ON f.id = d.file_id")
            for f in FileSyms.loads(data, "").raw_facts)
    return sorted(f"{e[1]} -> {e[7]} @{e[6]}" for e in edges if e[2] == "call" and e[7]), facts


@pytest.mark.parametrize("language", CASES)
def test_fixture_edges_are_exact(language: str, tmp_path: Path) -> None:
    golden = json.loads((GOLDEN / f"{language}.json").read_text())
    root = tmp_path / language
    shutil.copytree(HERE.parent / golden["fixture"], root)
    got = call_edges(root)
    want = sorted(golden["edges"])
    missing = sorted((Counter(want) - Counter(got)).elements())
    extra = sorted((Counter(got) - Counter(want)).elements())
    assert (missing, extra) == ([], [])
    assert not {m["edge"] for m in golden["misses"]} & set(got)
    assert all(m["reason"] for m in golden["misses"])


def test_incremental_reresolution_uses_stored_facts(tmp_path: Path) -> None:
    """An edit to the base class's file re-resolves callers in unchanged files from their
    stored facts: the edges equal a full rebuild's, and the new target is found."""
    root = tmp_path / "python"
    shutil.copytree(HERE / "fixtures" / "callgraph" / "python", root)
    before = call_edges(root)
    assert "mro.py::main -> shop/base.py::Model.validate @39" in before
    write(root, {"shop/base.py": (
        "class Model:\n    def save(self):\n        self.validate()\n\n"
        "    def check(self):\n        pass\n\n    def validate(self):\n        pass\n")})
    inc = call_edges(root, full=False)
    assert inc == call_edges(root, full=True)
    assert "mro.py::main -> shop/base.py::Model.validate @39" in inc
    assert "imports.py::main -> shop/base.py::Model.save @15" in inc
    write(root, {"shop/base.py": "class Model:\n    def save(self):\n        pass\n"})
    inc = call_edges(root, full=False)
    assert inc == call_edges(root, full=True)
    assert not [e for e in inc if "Model.validate" in e]


def test_the_parallel_full_build_carries_the_facts(tmp_path: Path, monkeypatch: object) -> None:
    """Through the pipeline of a large repository (parse workers sending wires, facts
    staged in the intake file, forked resolver children writing part files) the edges
    are the golden's and the stored facts those of the in-process build; an incremental
    pass stores the same facts for a re-parsed file."""
    from hindsight.codeindex import build

    golden = json.loads((GOLDEN / "python.json").read_text())
    root = tmp_path / "python"
    shutil.copytree(HERE.parent / golden["fixture"], root)
    small, small_facts = index_and_read(root, workers=1)
    monkeypatch.setattr(build, "PARALLEL_RESOLVE_MIN", 1)  # type: ignore[attr-defined]
    monkeypatch.setattr(build, "IN_PROCESS_MAX", 1)  # type: ignore[attr-defined]
    monkeypatch.setattr(build, "RESOLVE_CHUNK", 1)  # type: ignore[attr-defined]
    par, par_facts = index_and_read(root, workers=2)
    assert par == small == sorted(golden["edges"])
    assert par_facts == small_facts
    assert ("assignments.py", "plain", "e", "Engine()", 22) in par_facts  # e = Engine()
    assert len(par_facts) > 100
    with open(root / "assignments.py", "a") as fh:
        fh.write("# edited\n")
    inc, inc_facts = index_and_read(root, full=False, workers=1)
    assert (inc, inc_facts) == (par, par_facts)


def test_facts_are_stored_without_secrets(tmp_path: Path) -> None:
    """A string literal in an access path is the only free text a fact holds: a
    secret-shaped dict key is redacted before the fact is stored; paths stay as they are."""
    token = "ghp_" + "0123456789abcdefghijklmnopqrstuvwxyz"
    write(tmp_path, {"app.py": (
        "class Store:\n    def get(self):\n        pass\n\n\n"
        "def main():\n"
        f"    keys = {{'{token}': Store(), 'plain': Store()}}\n"
        "    keys['plain'].get()\n"
        "    api_key = Store()\n"
        "    api_key.get()\n")})
    edges, facts = index_and_read(tmp_path)
    assert facts == [("app.py", "Store.get", "@abstract", "empty", 2),  # codeindex/dispatch
                     ("app.py", "main", "api_key", "Store()", 9),
                     ("app.py", "main", "keys", "{}", 7),  # bound to a dict literal
                     ("app.py", "main", "keys['[REDACTED:github_token]']", "Store()", 7),
                     ("app.py", "main", "keys['plain']", "Store()", 7),
                     ("app.py", "main", "keys[?]", "Store()", 7)]
    assert edges == ["app.py::main -> app.py::Store @7", "app.py::main -> app.py::Store @7",
                     "app.py::main -> app.py::Store @9", "app.py::main -> app.py::Store.get @10",
                     "app.py::main -> app.py::Store.get @8"]


def test_stored_file_dumps_hold_no_secret(tmp_path: Path) -> None:
    """What resolution keeps of each file (the FileSyms dump) holds the signatures, which
    run to the first line of the body: a secret there is redacted as in the symbol rows,
    after a full and after an incremental index."""
    token = "ghp_" + "0123456789abcdefghijklmnopqrstuvwxyz"
    write(tmp_path, {"app.py": f"def connect(key='{token}'):  # password=hunter2hunter2\n"
                               "    return key\n"})
    with open_bank(repo_root_path=str(tmp_path)) as bank:
        for full in (True, False):
            if not full:
                (tmp_path / "app.py").write_text(
                    f"def connect(key='{token}'):\n    return key  # edited\n")
            bank.code.index(full=full, workers=1)
            dumps = [bytes(r[0]) for r in bank.stores.raw.execute("SELECT data FROM filesyms")]
            assert len(dumps) == 1 and b"connect" in dumps[0]
            assert token.encode() not in dumps[0] and b"hunter2hunter2" not in dumps[0]
            assert b"[REDACTED:github_token]" in dumps[0]


def test_assignment_facts_are_paths_once_each(tmp_path: Path) -> None:
    """The assignment pattern matches any right-hand side (issue 14, speed): literals bind
    nothing, a chain binds each of its names once (it used to store ``b`` twice: the inner
    ``b = Car()`` is an assignment of its own), a declared type wins over the value."""
    write(tmp_path, {"app.py": (
        "class Car:\n    def drive(self):\n        pass\n\n\n"
        "def main():\n"
        "    n = 1\n"
        "    s = 'text'\n"
        "    i = j = 2\n"
        "    a = b = Car()\n"
        "    t: Car = 5\n"
        "    n.drive(); s.drive(); i.drive(); j.drive(); a.drive(); b.drive(); t.drive()\n"
        "\n"
        "c = d = Car()\n"
        "d.drive()\n")})
    edges, facts = index_and_read(tmp_path)
    assert facts == [("app.py", "", "c", "Car()", 14), ("app.py", "", "d", "Car()", 14),
                     ("app.py", "Car.drive", "@abstract", "empty", 2),
                     ("app.py", "main", "a", "Car()", 10), ("app.py", "main", "b", "Car()", 10),
                     ("app.py", "main", "t", "Car()", 11)]
    assert edges == ["app.py:: -> app.py::Car @14", "app.py:: -> app.py::Car.drive @15",
                     "app.py::main -> app.py::Car @10"] + [
                        "app.py::main -> app.py::Car.drive @12"] * 3


def test_a_bank_from_before_receiver_facts_gets_them(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A bank made without migration 0009 (main had 0010_pages first) gets the facts
    table at its next open; a bank indexed without facts (no ``facts_version``) is indexed
    in full at its next pass, and then holds the same facts and edges as a fresh one."""
    from hindsight.store.sqlite import db

    golden = json.loads((GOLDEN / "python.json").read_text())
    root = tmp_path / "python"
    shutil.copytree(HERE.parent / golden["fixture"], root)
    shutil.copytree(root, tmp_path / "fresh")
    want = index_and_read(tmp_path / "fresh")
    with monkeypatch.context() as m:
        m.setattr(db, "MIGRATIONS", [x for x in db.MIGRATIONS if x[0] != "0009_receiver_facts"])
        with open_bank(repo_root_path=str(root)) as bank:
            tables = {r[0] for r in bank.stores.raw.execute(
                "SELECT name FROM sqlite_master WHERE type='table'")}
            assert "facts" not in tables and "pages" in tables
    with open_bank(repo_root_path=str(root)) as bank:
        names = [r[0] for r in bank.stores.raw.execute(
            "SELECT name FROM migrations ORDER BY rowid")]
        assert names[-1] == "0009_receiver_facts" and "0010_pages" in names[:-1]
        bank.code.index(workers=1)
        bank.stores.raw.execute("DELETE FROM facts")  # as an index written before facts
        bank.stores.raw.execute("DELETE FROM filesyms")
        bank.stores.raw.execute("DELETE FROM meta WHERE key='facts_version'")
        assert bank.code.index(workers=1).full
    assert index_and_read(root, full=False) == want


def test_require_of_the_parent_directory_is_its_index() -> None:
    """`require('../')` from `test/app.js` is the root's `index.js` (a package's own
    tests load it so); from `a/b/x.js`, `require('..')` is `a/index.js`."""
    from hindsight.codeindex.modules import js_candidates

    root = js_candidates("test/app.js", "../")
    assert "index.js" in root and "index.ts" in root
    assert not any(c.startswith((".", "/")) for c in root)
    assert "a/index.js" in js_candidates("a/b/x.js", "..")
    assert js_candidates("app.js", "../outside") == []


def test_and_values_and_deep_conditionals_index(tmp_path: Path) -> None:
    """`x = a and b` is no alternative (it once recursed without end), 3,000 nested
    conditionals or `or`s are too many to follow (unknown, not a crash)."""
    deep = "a"
    for i in range(3000):  # one level a line (one long line would be skipped as minified)
        deep = f"(b{i} if c else\n        {deep})"
    write(tmp_path, {"m.py": (
        "def a():\n    pass\n\n\ndef b():\n    pass\n\n\n"
        "def use(c):\n    x = a and b\n    x()\n    y = a or b\n    y()\n"
        f"    z = {deep}\n    z()\n")})
    edges, _facts = index_and_read(tmp_path)
    calls = sorted(e for e in edges if e.startswith("m.py::use"))
    assert calls == ["m.py::use -> m.py::a @13", "m.py::use -> m.py::b @13"]
    with open_bank(repo_root_path=str(tmp_path)) as bank:
        assert list(bank.stores.raw.execute("SELECT error FROM files")) == [("",)]


def test_a_file_whose_extraction_fails_is_reported_and_the_rest_indexed(
        tmp_path: Path, monkeypatch: object) -> None:
    """A bug in extraction on one file (here a RecursionError) gives that file the error
    `extraction failed: RecursionError` and no symbols; the other files are indexed, in
    worker processes too."""
    from hindsight.codeindex import build, pool

    write(tmp_path, {f"f{i}.py": f"def f{i}():\n    pass\n" for i in range(6)})
    real = pool.WIRES["index"]

    def flaky(root: str, path: str, lang: str) -> tuple[object, ...]:
        if path == "f3.py":
            raise RecursionError("maximum recursion depth exceeded")
        return real(root, path, lang)

    monkeypatch.setitem(pool.WIRES, "index", flaky)  # type: ignore[attr-defined]
    monkeypatch.setattr(build, "IN_PROCESS_MAX", 1)  # type: ignore[attr-defined]
    with open_bank(repo_root_path=str(tmp_path)) as bank:
        st = bank.code.index(full=True, workers=2)
        errors = list(bank.stores.raw.execute("SELECT path, error FROM files WHERE error!=''"))
        syms = sorted(s[2] for s in bank.stores.code.snapshot()[0])
    assert syms == ["f0", "f1", "f2", "f4", "f5"]
    assert st.parse_errors == 1
    assert errors == [("f3.py", "extraction failed: RecursionError")]
