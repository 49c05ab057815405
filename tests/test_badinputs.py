"""Bad inputs named by issue #2 items 3-4: encodings, line endings, syntax errors,
symlinks, submodules, binaries, minified files, non-ASCII paths, odd git states."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import git, make_repo, write

from hindsight.app import open_bank
from hindsight.codeindex.files import select
from hindsight.codeindex.worker import parse_bytes

SRC = "def alpha():\n    return beta()\n\n\ndef beta():\n    return 1\n"


def spans(raw: bytes) -> list[tuple[str, int, int]]:
    return [(s.local, s.start_line, s.end_line) for s in parse_bytes("m.py", "python",
                                                                       raw).symbols]


def test_encodings_give_same_symbols() -> None:
    want = [("alpha", 1, 2), ("beta", 5, 6)]
    assert spans(SRC.encode()) == want
    assert spans(b"\xef\xbb\xbf" + SRC.encode()) == want
    assert spans(SRC.encode("utf-16")) == want  # with BOM
    assert spans(SRC.encode("utf-16-be").join([b"\xfe\xff", b""])) == want
    latin = "# -*- coding: latin-1 -*-\ndef caf\xe9():\n    pass\n".encode("latin-1")
    syms = parse_bytes("m.py", "python", latin).symbols
    assert [(s.name, s.start_line) for s in syms] == [("caf\xe9", 2)]
    garbage = b"def ok():\n    x = '\xff\xfe\x80'\n"
    assert [s.name for s in parse_bytes("m.py", "python", garbage).symbols] == ["ok"]


def test_line_endings_same_lines() -> None:
    lf = SRC.encode()
    crlf = lf.replace(b"\n", b"\r\n")
    cr = lf.replace(b"\n", b"\r")
    assert spans(lf) == spans(crlf) == spans(cr) == [("alpha", 1, 2), ("beta", 5, 6)]
    h = [s.ast_hash for s in parse_bytes("m.py", "python", lf).symbols]
    assert h == [s.ast_hash for s in parse_bytes("m.py", "python", crlf).symbols]


def test_syntax_error_keeps_parsable_parts() -> None:
    raw = b"def good():\n    return 1\n\ndef bad(:\n    pass\n\nclass Later:\n    def m(self):\n        pass\n"
    res = parse_bytes("m.py", "python", raw)
    names = [s.local for s in res.symbols]
    assert "good" in names and "Later" in names and "Later.m" in names
    assert res.error.startswith(("syntax error at line", "missing")), res.error
    assert "line 4" in res.error


def test_syntax_error_recorded_in_index(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"ok.py": SRC, "broken.py": "def x(:\n  pass\ndef y():\n  pass\n"})
    with open_bank(repo_root_path=str(repo)) as bank:
        st = bank.code.index()
        assert st.parse_errors == 1
        assert bank.status()["parse_errors"] == 1
        assert [s.name for s in bank.code.symbols("y")[1]] == ["y"]


def test_symlinks_binary_minified_submodule_nonascii(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("def secret():\n    pass\n")
    sub = make_repo(tmp_path / "subrepo", {"s.py": "def in_sub():\n    pass\n"})
    repo = make_repo(tmp_path / "r", {
        "a.py": SRC,
        "bin.py": b"\x00\x01\x02def x(): pass\n" * 10,
        "big.min.js": "function a(){return 1}\n",
        "oneline.js": "function f(a,b){return a+b};" * 2000 + "\n",
        "d\u00e9j\u00e0/\u00fcber.py": "def \u00fcber():\n    pass\n",
        "\u65e5\u672c/x.go": "package x\nfunc Hello() {}\n",
    }, commit=False)
    os.symlink(outside / "secret.py", repo / "link_out.py")
    os.symlink(repo / "a.py", repo / "link_in.py")
    os.symlink(repo / "loop1.py", repo / "loop2.py")
    os.symlink(repo / "loop2.py", repo / "loop1.py")
    os.symlink(repo, repo / "selfdir")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "vendor/sub")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "all")
    with open_bank(repo_root_path=str(repo)) as bank:
        st = bank.code.index(workers=2)
        files = set(bank.stores.code.load_files())
    assert files == {"a.py", "d\u00e9j\u00e0/\u00fcber.py", "\u65e5\u672c/x.go"}
    assert st.skipped["binary"] == 1
    assert st.skipped["minified"] == 2
    assert st.skipped["submodule"] == 1
    assert st.skipped["symlink_outside_root"] == 1
    assert st.skipped["symlink_broken_or_loop"] == 2
    assert st.skipped["symlink"] == 1  # link_in.py (indexed through a.py); selfdir has no
    # code extension and git never descends into a link


def test_walk_without_git_same_rules(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    write(root, {"a.py": SRC, ".gitignore": "gen/\n*.tmp.py\n", "gen/x.py": SRC,
                 "b.tmp.py": SRC, "sub/.gitignore": "local.py\n", "sub/local.py": SRC,
                 "sub/kept.py": SRC, ".hindsightignore": "sub/kept.py\n",
                 "node_modules/m/index.js": "function f(){}\n"})
    os.symlink(root, root / "loop")
    os.symlink("/etc", root / "etc_link")
    sel = select(str(root))
    assert sorted(sel.files) == ["a.py"]
    assert sel.counts["excluded"] == 1
    assert not sel.git


def test_walk_without_git_counts_the_directories_it_excludes(tmp_path: Path) -> None:
    # fresh-user run of session 35: outside git, a directory `--exclude`/.hindsightignore
    # prunes was not walked, so status counted nothing for it
    root = tmp_path / "plain"
    write(root, {"a.py": SRC, ".hindsightignore": "vendor/\nbuild/\n", "vendor/v.py": SRC,
                 "vendor/deep/w.py": SRC, "build/out.py": SRC, "lib/build.py": SRC})
    sel = select(str(root))
    assert sorted(sel.files) == ["a.py", "lib/build.py"]
    assert sel.counts["excluded_directory"] == 2 and "excluded" not in sel.counts


def test_excluding_every_file_says_which_patterns_did(tmp_path: Path) -> None:
    # break-it 40: `--exclude '**/*.py'` was answered "untracked files are indexed only
    # with --include-untracked"
    repo = make_repo(tmp_path / "r", {"a.py": SRC, "b/c.py": SRC})
    with open_bank(repo_root_path=str(repo)) as bank:
        st = bank.code.index(exclude=["**/*.py"])
        assert st.warnings == [f"{repo}: no source files to index: the exclude patterns "
                               "'**/*.py' (remembered; `hindsight index --exclude ''` clears "
                               "them) leave out every source file (2 excluded)"]
    write(repo, {".hindsightignore": "*.py\n"})
    with open_bank(repo_root_path=str(repo)) as bank:
        st = bank.code.index(exclude=[""])
        assert st.warnings == [f"{repo}: no source files to index: the patterns of "
                               ".hindsightignore leave out every source file (2 excluded)"]
    (repo / ".hindsightignore").unlink()
    with open_bank(repo_root_path=str(repo)) as bank:
        assert bank.code.index().symbols == 4 and bank.code.index().warnings == []


def test_empty_repo_detached_head_and_not_git(tmp_path: Path) -> None:
    empty = make_repo(tmp_path / "empty", {}, commit=False)
    with open_bank(repo_root_path=str(empty)) as bank:
        st = bank.code.index()
        assert st.files_parsed == 0 and st.symbols == 0
        assert bank.status()["indexed_commit"] == ""
    repo = make_repo(tmp_path / "det", {"a.py": SRC})
    write(repo, {"b.py": "def gamma():\n    pass\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "two")
    git(repo, "checkout", "-q", "--detach", "HEAD~1")
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index()
        assert sorted(bank.stores.code.load_files()) == ["a.py"]
        head = git(repo, "rev-parse", "HEAD").strip()
        assert bank.status()["indexed_commit"] == head
    plain = tmp_path / "plain"
    write(plain, {"x.py": SRC})
    with open_bank(repo_root_path=str(plain)) as bank:
        assert bank.code.index().files_parsed == 1
        assert [s.name for s in bank.code.symbols("alpha")[1]] == ["alpha"]


def test_untracked_only_with_flag(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": SRC, ".gitignore": "ignored.py\n"})
    write(repo, {"new.py": "def fresh():\n    pass\n", "ignored.py": SRC})
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index()
        assert sorted(bank.stores.code.load_files()) == ["a.py"]
        bank.code.index(include_untracked=True)
        assert sorted(bank.stores.code.load_files()) == ["a.py", "new.py"]


def test_missing_git_binary_falls_back_to_walk(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": SRC})
    env = {**os.environ, "PATH": "/nonexistent"}
    code = ("from hindsight.codeindex.files import select;"
            f"s=select({str(repo)!r});print(sorted(s.files), s.git, s.warnings)")
    import sys

    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    assert out.stdout.startswith("['a.py'] False")
    assert "git is not installed; walking the directory instead" in out.stdout


def test_unreadable_file_keeps_indexed_version(tmp_path: Path, monkeypatch: object) -> None:
    import builtins

    repo = make_repo(tmp_path / "r", {"a.py": SRC, "b.py": "def other():\n    pass\n"})
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(workers=1)
        write(repo, {"a.py": SRC + "\n\ndef gamma():\n    pass\n", "b.py": "def b2():\n    pass\n"})
        real_open = builtins.open

        def fake_open(file: object, *a: object, **k: object) -> object:
            if str(file).endswith("a.py"):
                raise PermissionError(13, "Permission denied")
            return real_open(file, *a, **k)  # type: ignore[call-overload]

        from hindsight.codeindex import resident

        resident.stop()  # the parse worker is forked again under the patch, dropped after
        with pytest.MonkeyPatch.context() as mp:  # undoes only this patch, not the home
            mp.setattr(builtins, "open", fake_open)
            st = bank.code.index(workers=1)
        resident.stop()
        assert any("a.py: unreadable" in w for w in st.warnings)
        assert [s.name for s in bank.code.symbols("alpha")[1]] == ["alpha"]  # kept
        assert [s.name for s in bank.code.symbols("b2")[1]] == ["b2"]  # the rest went on
        st = bank.code.index(workers=1)
        assert [s.name for s in bank.code.symbols("gamma")[1]] == ["gamma"]


def test_grammar_that_never_returns_is_skipped(tmp_path: Path, monkeypatch: object) -> None:
    """tree-sitter-typescript's TSX grammar loops forever on this mangled 1 KB file."""
    import time

    monkeypatch.setenv("HINDSIGHT_PARSE_TIMEOUT_S", "3")  # type: ignore[attr-defined]
    hang = (Path(__file__).parent / "fixtures" / "hang" / "hang.tsx").read_bytes()
    repo = make_repo(tmp_path / "r", {"a.py": SRC, "ui/hang.tsx": hang,
                                      "ui/ok.tsx": "export function Ok() { return 1; }\n"})
    with open_bank(repo_root_path=str(repo)) as bank:
        st = bank.code.index()
        assert st.skipped["parse_timeout"] == 1
        assert any("ui/hang.tsx: parsing took over 3s" in w for w in st.warnings)
        assert sorted(bank.stores.code.load_files()) == ["a.py", "ui/ok.tsx"]
        t = time.perf_counter()
        st = bank.code.index()  # unchanged: not parsed (and not waited for) again
        assert time.perf_counter() - t < 1.5
        assert st.skipped["parse_timeout"] == 1
        st = bank.code.index(full=True)
        assert st.skipped["parse_timeout"] == 1 and st.files_parsed == 2


def test_hang_among_many_files_in_parallel(tmp_path: Path, monkeypatch: object) -> None:
    from hindsight.codeindex import build

    monkeypatch.setenv("HINDSIGHT_PARSE_TIMEOUT_S", "3")  # type: ignore[attr-defined]
    monkeypatch.setattr(build, "IN_PROCESS_MAX", 1)  # type: ignore[attr-defined]
    monkeypatch.setattr(build, "BATCH_BYTES", 200)  # type: ignore[attr-defined]
    hang = (Path(__file__).parent / "fixtures" / "hang" / "hang.tsx").read_bytes()
    files: dict[str, str | bytes] = {f"m{i:02d}.py": f"def f{i}():\n    return {i}\n"
                                     for i in range(40)}
    files["z/hang.tsx"] = hang
    repo = make_repo(tmp_path / "r", files)
    with open_bank(repo_root_path=str(repo)) as bank:
        st = bank.code.index(workers=2)
        assert st.skipped["parse_timeout"] == 1
        assert len(bank.stores.code.load_files()) == 40
        assert st.symbols == 40


def test_long_line_fast_path_keeps_the_minified_rule_at_every_boundary() -> None:
    """The quick check never hides a line over LONG_LINE bytes, so _minified decides as
    the rule does (lines over LONG_LINE that look like code hold half the bytes)."""
    from hindsight.codeindex import worker as w

    def rule(src: bytes) -> bool:
        if len(src) <= w.MINIFIED_MIN_BYTES:
            return False
        long_ = sum(len(ln) for ln in src.split(b"\n") if len(ln) > w.LONG_LINE and sum(
            map(ln.count, w.CODE_MARKS)) >= w.CODE_MARK_SHARE * len(ln) and sum(
            map(ln.count, w.CODE_WORDS)) * 1000 >= w.CODE_WORDS_PER_KB * len(ln))
        return 2 * long_ >= len(src)

    for lead in (0, 1, 499, 500, 501, 999, 9_000):
        for n in (w.LONG_LINE - 1, w.LONG_LINE, w.LONG_LINE + 1, 5_000, 20_000):
            for tail in (b"", b"\n", b"\nx();\n" * 2000):
                src = b"a\n" * (lead // 2) + b"x=>f(x);" * (n // 8) + b"y" * (n % 8) + tail
                has = max(map(len, src.split(b"\n"))) > w.LONG_LINE
                assert w._has_long_line(src) or not has, (lead, n, len(tail))
                assert w._minified("m.js", src) == rule(src), (lead, n, len(tail))
