"""Field reports of issue 14 about what the index takes from git: a repository git refuses
(another user's), a sparse checkout, and a hand-written file with one long data line. Real
repositories in tmp dirs, the CLI as a subprocess where the words matter."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git, make_repo, write

from hindsight.app import open_bank
from hindsight.codeindex.worker import content_skip_reason

CLI = [sys.executable, "-m", "hindsight"]
SRC = "def alpha():\n    return 1\n"


@pytest.fixture(autouse=True)
def hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "hashing")


def _refusing_env(tmp: Path) -> dict[str, str]:
    """git treats every repository as another user's (GIT_TEST_ASSUME_DIFFERENT_OWNER is
    git's own switch for testing safe.directory, honoured since 2.35.2) and reads no
    global or system config that could trust it."""
    return {**os.environ, "GIT_TEST_ASSUME_DIFFERENT_OWNER": "1",
            "GIT_CONFIG_GLOBAL": str(tmp / "empty.gitconfig"), "GIT_CONFIG_NOSYSTEM": "1"}


def test_dubious_ownership_is_reported_with_gits_reason_and_the_fix(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": SRC})
    write(repo, {"untracked.py": "def stray():\n    pass\n", "sub/b.py": SRC})
    (tmp_path / "empty.gitconfig").write_text("")
    env = _refusing_env(tmp_path)
    want = (f"hindsight: git refuses the repository: detected dubious ownership in "
            f"repository at '{repo}'; if you trust it, run: git config --global --add "
            f"safe.directory {repo}\n")
    for args, cwd in ((["index"], repo), (["index", "--repo-root", str(repo)], tmp_path),
                      (["index"], repo / "sub"), (["ingest"], repo)):
        p = subprocess.run([*CLI, *args], cwd=cwd, env=env, capture_output=True, text=True)
        assert (p.returncode, p.stderr, p.stdout) == (8, want, ""), (args, p.stderr)
    # nothing was indexed by walking the directory instead
    p = subprocess.run([*CLI, "symbols", "stray", "--repo-root", str(repo)], cwd=repo,
                       capture_output=True, text=True)
    assert p.returncode == 5, p.stderr
    # trusted as git says: git lists the tracked files, the untracked one stays out
    (tmp_path / "empty.gitconfig").write_text(f"[safe]\n\tdirectory = {repo}\n")
    p = subprocess.run([*CLI, "index", "--json"], cwd=repo, env=env, capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr
    with open_bank(str(repo)) as bank:
        assert sorted(bank.stores.code.load_files()) == ["a.py"]


def test_a_subdirectory_as_repo_root_is_listed_by_git(tmp_path: Path) -> None:
    """``--repo-root <repo>/sub`` (break-it finding): git lists the tracked files there
    (the untracked one stays out), a refused repository is exit 8 as at the top level,
    and a directory git ignores is no part of the repository (walked, untracked files
    and all, as a Python installed under a pyenv checkout is)."""
    repo = make_repo(tmp_path / "r", {"sub/t.py": SRC, ".gitignore": "vendor/\n"})
    write(repo, {"sub/u.py": "def stray():\n    pass\n",
                 "vendor/v.py": "def vendored():\n    pass\n"})
    sub = repo / "sub"
    p = subprocess.run([*CLI, "index", "--repo-root", str(sub)], cwd=tmp_path,
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert _files(sub, tmp_path) == ["t.py"]
    (tmp_path / "empty.gitconfig").write_text("")
    p = subprocess.run([*CLI, "index", "--repo-root", str(sub)], cwd=tmp_path,
                       env=_refusing_env(tmp_path), capture_output=True, text=True)
    assert p.returncode == 8 and "detected dubious ownership" in p.stderr, p.stderr
    assert f"safe.directory {repo}" in p.stderr
    p = subprocess.run([*CLI, "index", "--repo-root", str(repo / "vendor")], cwd=tmp_path,
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert _files(repo / "vendor", tmp_path) == ["v.py"]


def _files(root: Path, cwd: Path) -> list[str]:
    """Which of the three test files the bank of ``--repo-root root`` indexed (their
    functions found by ``symbols``)."""
    names = {"alpha": "t.py", "stray": "u.py", "vendored": "v.py"}
    return sorted(f for n, f in names.items() if subprocess.run(
        [*CLI, "symbols", n, "--repo-root", str(root)], cwd=cwd, capture_output=True,
        text=True).returncode == 0)


def test_history_outside_git_and_without_git_say_which(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "m.py").write_text(SRC)
    p = subprocess.run([*CLI, "ingest"], cwd=plain, capture_output=True, text=True)
    assert (p.returncode, p.stderr) == (8, f"hindsight: {plain}: not a git repository; "
                                           "history needs git\n")
    repo = make_repo(tmp_path / "r", {"a.py": SRC})
    env = {**os.environ, "PATH": str(tmp_path / "nowhere")}
    p = subprocess.run([*CLI, "ingest"], cwd=repo, env=env, capture_output=True, text=True)
    assert (p.returncode, p.stderr) == (8, "hindsight: git is not installed (or not on PATH); "
                                           "history needs git\n")


def _sparse_repo(tmp: Path) -> Path:
    repo = make_repo(tmp / "r", {"src/a.py": SRC, "lib/util.py": "def helper():\n    pass\n",
                                 "top.py": "def top():\n    pass\n"})
    return repo


def test_sparse_checkout_memories_outside_the_cone_are_not_stale(tmp_path: Path) -> None:
    repo = _sparse_repo(tmp_path)
    with open_bank(str(repo)) as bank:
        bank.code.index(workers=1)
        bank.memory.retain("helper must stay pure", files=["lib/util.py"])
        bank.memory.retain("keep helper small", symbols=["lib/util.py::helper"])
        bank.memory.retain("alpha returns one", symbols=["src/a.py::alpha"])
    git(repo, "sparse-checkout", "set", "src")
    assert not (repo / "lib").exists()
    with open_bank(str(repo)) as bank:
        st = bank.code.index(workers=1)
        assert st.skipped.get("outside_sparse_checkout") == 1
        assert "missing" not in st.skipped
        assert sorted(bank.stores.code.load_files()) == ["src/a.py", "top.py"]
        mems = {m.text: m for m in bank.memory.memories()}
        assert [(t, m.stale) for t, m in sorted(mems.items())] == [
            ("alpha returns one", False), ("helper must stay pure", False),
            ("keep helper small", False)]
    p = subprocess.run([*CLI, "status", "--json"], cwd=repo, capture_output=True, text=True,
                       check=True)
    st_json = json.loads(p.stdout)
    assert st_json["sparse_checkout"] == {"patterns": ["src"], "outside_files": 1}
    assert st_json["skipped"]["outside_sparse_checkout"] == 1
    p = subprocess.run([*CLI, "status"], cwd=repo, capture_output=True, text=True, check=True,
                       env={**os.environ, "COLUMNS": "300"})
    assert ("cone src (at the last index); 1 tracked file outside it not indexed, and memories anchored there "
            "are not checked for staleness") in " ".join(p.stdout.split())
    # a file really deleted in the sparse checkout is still a deleted file
    with open_bank(str(repo)) as bank:
        bank.memory.retain("top is the entry point", files=["top.py"])
    git(repo, "rm", "-q", "top.py")
    with open_bank(str(repo)) as bank:
        bank.code.index(workers=1)
        stale = {m.text: m.stale for m in bank.memory.memories()}
        assert stale == {"top is the entry point": True, "alpha returns one": False,
                         "helper must stay pure": False, "keep helper small": False}
    # and back out of the sparse checkout: everything is indexed again, still not stale
    git(repo, "sparse-checkout", "disable")
    with open_bank(str(repo)) as bank:
        bank.code.index(workers=1)
        assert sorted(bank.stores.code.load_files()) == ["lib/util.py", "src/a.py"]
        assert bank.status()["sparse_checkout"] is None
        assert [m.text for m in bank.memory.memories() if m.stale] == [
            "top is the entry point"]


def test_skip_worktree_file_present_in_the_work_tree_is_indexed(tmp_path: Path) -> None:
    repo = _sparse_repo(tmp_path)
    git(repo, "update-index", "--skip-worktree", "lib/util.py")
    with open_bank(str(repo)) as bank:
        st = bank.code.index(workers=1)
        assert "outside_sparse_checkout" not in st.skipped
        assert "lib/util.py" in bank.stores.code.load_files()
        assert bank.status()["sparse_checkout"] is None


def _icon_module(icon_bytes: int) -> str:
    icon = base64.b64encode(bytes(range(256)) * (icon_bytes // 340 + 1)).decode()[:icon_bytes]
    funcs = "".join(f"def handler_{i}(event):\n    return event.get('k{i}')\n\n\n"
                    for i in range(60))
    return f'"""Widgets."""\n\nICON = "data:image/png;base64,{icon}"\n\n\n{funcs}'


def test_hand_written_file_with_a_long_base64_line_is_indexed(tmp_path: Path) -> None:
    small, big = _icon_module(25_000), _icon_module(200_000)
    assert max(map(len, big.splitlines())) > 200_000  # most of its bytes: one data line
    minified = "function f(a,b){return a+b};" * 2000 + "\n"
    assert [content_skip_reason(p, t.encode()) for p, t in (
        ("w.py", small), ("w.py", big), ("m.js", minified))] == ["", "", "minified"]
    repo = make_repo(tmp_path / "r", {"icons.py": small, "big_icons.py": big,
                                      "bundle.js": minified})
    with open_bank(str(repo)) as bank:
        st = bank.code.index(workers=1)
        assert st.skipped.get("minified") == 1
        assert sorted(bank.stores.code.load_files()) == ["big_icons.py", "icons.py"]
        for path in ("icons.py", "big_icons.py"):
            names = [s.name for s in bank.stores.code.file_symbols(path)]
            assert names == ["ICON"] + [f"handler_{i}" for i in range(60)], path


def test_long_data_lines_of_every_kind_are_indexed(tmp_path: Path) -> None:
    """One long data line holding most of the bytes, of kinds with many ``( ) { } ; ,``:
    JSON in a string, a table of tuples, a Go byte array, an SVG path in JavaScript, a
    Rust array; each file is indexed with its function. Real minified JavaScript (the
    shape of jQuery's: ``function``, ``return``, ``this.`` every few dozen bytes) is not."""
    rows = json.dumps([{"id": i, "tags": ["a", "b"]} for i in range(4000)])
    files = {
        "fixture.py": f"DATA = {rows!r}\n\n\ndef first():\n    return DATA[0]\n",
        "table.py": f"T = {[(i, i * 2) for i in range(20000)]!r}\n\n\ndef pick(i):\n"
                    "    return T[i]\n",
        "blob.go": "package blob\n\nvar b = []byte{"
                   + ", ".join(f"0x{i % 256:02x}" for i in range(20000))
                   + "}\n\nfunc Size() int {\n\treturn len(b)\n}\n",
        "icon.js": 'const P = "' + " ".join(f"M{i} {i + 1} L{i + 2} {i + 3}" for i in range(5000))
                   + '";\n\nfunction draw(ctx) {\n  return ctx.path(P);\n}\n',
        "lut.rs": "pub static LUT: [u16; 20000] = ["
                  + ", ".join(str(i % 65536) for i in range(20000))
                  + "];\n\npub fn get(i: usize) -> u16 {\n    LUT[i]\n}\n",
        "bundle.js": "!function(e){" + "var t=this.a||{};function n(r){return r&&r.x?r:"
                     "{default:r}}if(typeof e===\"object\")t=new n(e);" * 3000 + "}();\n"}
    assert {p: content_skip_reason(p, t.encode()) for p, t in files.items()} == {
        "fixture.py": "", "table.py": "", "blob.go": "", "icon.js": "", "lut.rs": "",
        "bundle.js": "minified"}
    repo = make_repo(tmp_path / "r", files)
    with open_bank(str(repo)) as bank:
        st = bank.code.index(workers=1)
        assert st.skipped.get("minified") == 1
        found = {p: sorted(s.name for s in bank.stores.code.file_symbols(p))
                 for p in files if p != "bundle.js"}
    assert found == {"fixture.py": ["DATA", "first"], "table.py": ["T", "pick"],
                     "blob.go": ["Size"], "icon.js": ["P", "draw"], "lut.rs": ["LUT", "get"]}


def test_minified_thresholds_exact_edges() -> None:
    code = "return f(a,b);" * 75  # 1,050 bytes, 29% marks, 71 code words per KB
    short = "x = 1\n"
    # half of the bytes in long code lines: minified; a bit less: not
    filler = short * 1500  # 9,000 bytes of short lines
    lines = "\n".join([code] * 9) + "\n"  # 9,459 bytes in long lines
    assert content_skip_reason("a.js", (lines + filler).encode()) == "minified"
    assert content_skip_reason("a.js", ("\n".join([code] * 8) + "\n" + filler).encode()) == ""
    prose = ("word " * 300 + "\n") * 40  # long lines, no code marks
    assert content_skip_reason("a.py", prose.encode()) == ""
    marks_only = ("f(a,b);" * 150 + "\n") * 10  # many marks, no code word: data
    assert content_skip_reason("a.js", marks_only.encode()) == ""
    assert content_skip_reason("a.min.js", b"x") == "minified"
    assert content_skip_reason("a.js", (code + "\n").encode()) == ""  # under 8 KiB


def test_an_exported_git_dir_does_not_redirect_the_index(tmp_path: Path) -> None:
    """Break-it of session 40: ``GIT_DIR`` of repository A exported while indexing B made
    git read A's index against B's files, and A's bank lost its file ("1 removed") and
    flagged A's memory stale. git now runs without the variables that redirect it
    (config.paths.GIT_REDIRECTS): each repository is the one at its directory."""
    a = make_repo(tmp_path / "A", {"a.py": "def a_fn():\n    pass\n"})
    b = make_repo(tmp_path / "B", {"b.py": "def b_fn():\n    pass\n"})
    for repo in (a, b):
        p = subprocess.run([*CLI, "index"], cwd=repo, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
    env = {**os.environ, "GIT_DIR": str(a / ".git"), "GIT_INDEX_FILE": str(a / ".git/index")}
    p = subprocess.run([*CLI, "index", "--json"], cwd=b, env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["files_removed"] == 0
    for repo, want in ((a, ["a.py"]), (b, ["b.py"])):
        with open_bank(str(repo)) as bank:
            assert sorted(bank.stores.code.load_files()) == want


@pytest.mark.parametrize("breakage", ["head", "gitfile", "config"])
def test_a_broken_repository_is_an_error_from_a_subdirectory_too(
        tmp_path: Path, breakage: str) -> None:
    """Break-it of session 40: with ``.git/HEAD`` corrupt, a ``.git`` file pointing to a
    missing directory or a bad line in ``.git/config``, ``index`` at the root stopped with
    git's error but from ``src/`` it walked ``src`` as a repository of its own (a new bank
    holding an untracked file, exit 0). Now both stop (exit 8) and no bank is made."""
    repo = make_repo(tmp_path / "r", {"src/t.py": SRC})
    write(repo, {"src/scratch.py": "def scratch_untracked():\n    pass\n"})
    if breakage == "head":
        (repo / ".git" / "HEAD").write_text("garbage\n")
    elif breakage == "gitfile":
        os.rename(repo / ".git", tmp_path / "moved.git")
        (repo / ".git").write_text(f"gitdir: {tmp_path / 'missing.git'}\n")
    else:
        with open(repo / ".git" / "config", "a") as f:
            f.write("[core\n\tbroken = \n")
    home = Path(os.environ["HINDSIGHT_HOME"])
    banks = sorted(p.name for p in (home / "banks").glob("*.db")) \
        if (home / "banks").exists() else []
    for cwd in (repo, repo / "src"):
        p = subprocess.run([*CLI, "index"], cwd=cwd, capture_output=True, text=True)
        assert p.returncode == 8, (cwd, p.stdout, p.stderr)
        assert p.stdout == ""
    after = sorted(p.name for p in (home / "banks").glob("*.db")) \
        if (home / "banks").exists() else []
    assert after == banks  # no bank for `src`


def test_a_minified_script_held_as_data_keeps_its_file() -> None:
    """Break-it of session 40: a hand-written Python template holding a 45 KB minified
    script on one line, and a JavaScript loader holding one in a string or a template
    literal, were skipped as minified (their functions gone, memories anchored to them
    flagged stale). The content rule reads JavaScript files only (Python, Go or Rust code
    is not minified for shipping), and a line that is one string literal or sits inside
    a template literal is data; the bundle itself is still skipped."""
    mini = "!function(e){" + ("var t=this.a||{};function n(r){return r&&r.x?r:{default:r}}"
                              "if(typeof e===\"object\")t=new n(e);") * 500 + "}();"
    files = {
        "bundle.js": mini + "\n",
        "page.py": 'def render():\n    return """\n' + mini + '\n"""\n',
        "loader.js": 'const JS = "' + mini.replace('"', '\\"')
                     + '";\nfunction load() { return JS; }\n',
        "loader2.js": "const JS = `\n" + mini + "\n`;\nfunction load() { return JS; }\n",
        "exports.js": "module.exports = '" + mini.replace("'", "\\'") + "';\n",
        "two.js": mini + "\n" + 'var s = "x";\n',
    }
    assert {p: content_skip_reason(p, t.encode()) for p, t in files.items()} == {
        "bundle.js": "minified", "page.py": "", "loader.js": "", "loader2.js": "",
        "exports.js": "", "two.js": "minified"}


def test_hotspots_count_symbols_outside_a_sparse_cone_as_alive(tmp_path: Path) -> None:
    """Break-it of session 40: in a sparse checkout, ``hotspots`` counted the symbols of
    files outside the cone as gone ("no longer exist at HEAD") while listing their files;
    they exist at HEAD, just not in the work tree (history decides for them)."""
    repo = make_repo(tmp_path / "r", {"a/a.py": "def in_a():\n    return 1\n",
                                      "b/b.py": "def in_b():\n    return 1\n"})
    write(repo, {"b/b.py": "def in_b():\n    return 2\n"})
    git(repo, "commit", "-qam", "fix: in_b")
    git(repo, "sparse-checkout", "set", "a")
    p = subprocess.run([*CLI, "index"], cwd=repo, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    p = subprocess.run([*CLI, "ingest"], cwd=repo, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    p = subprocess.run([*CLI, "hotspots", "--json"], cwd=repo, capture_output=True, text=True)
    d = json.loads(p.stdout)
    assert [s["qname"] for s in d["symbols"]] == ["b/b.py::in_b", "a/a.py::in_a"]
    assert d["left_out"] == {"files": 0, "symbols": 0}
