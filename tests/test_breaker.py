"""Regressions for inputs a break-it session found (each was a traceback, hang or blow-up)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import make_repo, write

from hindsight.app import open_bank
from hindsight.codeindex.worker import parse_bytes, parse_path

SRC = "def alpha():\n    return 1\n"


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hindsight", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_bad_ignore_patterns(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": SRC, ".hindsightignore": "[z-a]\nb.py\n",
                                      "b.py": SRC})
    r = cli("index", "--exclude", "!", cwd=repo)
    assert r.returncode == 2 and "not a valid gitignore pattern" in r.stderr
    assert "Traceback" not in r.stderr
    r = cli("index", "--json", cwd=repo)  # the bad --exclude was not saved
    assert r.returncode == 0, r.stderr
    assert ".hindsightignore:1: bad pattern '[z-a]' ignored" in r.stderr
    assert json.loads(r.stdout)["skipped"]["excluded"] == 1  # b.py: the good line still works
    plain = tmp_path / "plain"
    write(plain, {"a.py": SRC, ".gitignore": "[z-a]\n!\n*.tmp.py\n", "x.tmp.py": SRC})
    with open_bank(repo_root_path=str(plain)) as bank:
        st = bank.code.index()
        assert sorted(bank.stores.code.load_files()) == ["a.py"]
        assert sum("bad pattern" in w for w in st.warnings) == 2


def test_odd_cargo_and_go_mod(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"Cargo.toml": 'package = "x"\n', "go.mod": "module \n",
                                      "src/lib.rs": "pub fn f() {}\n", "m.go": "package m\n"})
    with open_bank(repo_root_path=str(repo)) as bank:
        assert bank.code.index().files_parsed == 2


def test_deep_nesting_is_bounded() -> None:
    n = 400
    src = "".join(f"function n{i}(){{\n" for i in range(n)) + "g();\n" + "}\n" * n
    res = parse_bytes("n.js", "javascript", src.encode())
    assert len(res.symbols) == 49
    assert max(len(s.local) for s in res.symbols) < 400
    assert [r.caller.count(".") for r in res.refs] == [48]  # the call stays with n48


def test_trace_grows_linearly(tmp_path: Path) -> None:
    files = {}
    for i in range(60):  # every function calls the next three: 3^depth paths
        body = "".join(f"    f{j}()\n" for j in (i + 1, i + 2, i + 3) if j < 60) or "    pass\n"
        files[f"m{i}.py"] = "".join(f"from m{j} import f{j}\n" for j in (i + 1, i + 2, i + 3)
                                    if j < 60) + f"\n\ndef f{i}():\n{body}"
    repo = make_repo(tmp_path / "r", files)
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index()
        tree = bank.code.trace("f0", depth=20)
    seen = 0
    stack = [tree]
    while stack:
        st = stack.pop()
        seen += 1
        stack.extend(st.children)
    assert seen < 200


def test_brackets_in_names_are_not_markup(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {
        "app/[slug]/page.tsx": "export function Page() { return 1; }\n",
        "k.py": 'def k(p=r"[\\w]+[/]", x: list[int] = []):\n    pass\n'})
    assert cli("index", cwd=repo).returncode == 0
    r = cli("symbols", "Page", cwd=repo)
    assert r.returncode == 0 and "[slug]" in r.stdout.replace("\n", "").replace("│", "")
    r = cli("symbols", "k", cwd=repo)
    assert r.returncode == 0 and "Traceback" not in r.stderr
    assert "list[int]" in r.stdout
    r = cli("debug", "--file", "k.py", cwd=repo)
    assert r.returncode == 0 and "Traceback" not in r.stderr


def test_odd_query_arguments(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": SRC})
    assert cli("index", cwd=repo).returncode == 0
    r = cli("symbols", "\U0010ffff", cwd=repo)
    assert r.returncode == 6 and "Traceback" not in r.stderr
    r = subprocess.run([sys.executable, "-m", "hindsight", "symbols",
                        os.fsdecode(b"\xff")], cwd=repo, capture_output=True, timeout=60)
    assert r.returncode == 2 and b"not valid UTF-8" in r.stderr
    r = cli("symbols", ".", cwd=repo)
    assert r.returncode == 6


def test_encodings_and_line_ends_measured_after_decoding(tmp_path: Path) -> None:
    body = "".join(f"def f{i}(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb,"
                   f" cccccccccccccccccccccccccccccc, ddddddddddddddddddddddddddddddd):\n"
                   f"    return {i}\n" for i in range(80))
    write(tmp_path, {"cr.py": body.replace("\n", "\r").encode(),
                     "u16.py": body.encode("utf-16"),
                     "u32.py": b"\x00\x00\xfe\xff" + SRC.encode("utf-32-be")})
    assert len(parse_path(str(tmp_path), "cr.py", "python").symbols) == 80
    assert len(parse_path(str(tmp_path), "u16.py", "python").symbols) == 80
    assert [s.name for s in parse_path(str(tmp_path), "u32.py", "python").symbols] == ["alpha"]
    one_bad = "def café():\n    return '\u00e9t\u00e9'  # \xff\n".encode().replace(b"\xc3\xbf",
                                                                                  b"\xff")
    assert [s.name for s in parse_bytes("m.py", "python", one_bad).symbols] == ["café"]


def test_corrupt_bank_kind_fifo_dotgit_and_empty(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": SRC})
    assert cli("index", cwd=repo).returncode == 0
    r = cli("symbols", "alpha", "--kind", "bogus", cwd=repo)
    assert r.returncode == 2 and "one of" in r.stderr
    os.mkfifo(repo / "pipe.py")
    r = cli("debug", "--file", "pipe.py", cwd=repo)
    assert r.returncode == 6 and "not a regular file" in r.stderr
    r = cli("index", cwd=repo / ".git")
    assert r.returncode == 2 and ".git" in r.stderr
    db = json.loads(cli("init", "--json", cwd=repo).stdout)["database"]
    Path(db).write_bytes(b"garbage" * 1000)
    for suffix in ("-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    r = cli("status", cwd=repo)
    assert r.returncode == 4 and "move it away" in r.stderr and "Traceback" not in r.stderr
    untracked = make_repo(tmp_path / "u", {}, commit=False)
    write(untracked, {"new.py": SRC})
    r = cli("index", cwd=untracked)
    assert r.returncode == 0 and "--include-untracked" in r.stderr
