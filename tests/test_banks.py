"""Bank resolution (issue #5): worktrees live and deleted, same directory name in two
places, path-prefix map, opt-in, subdirectory, temp dir with CLAUDE_PROJECT_DIR."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from histutil import Repo, fn, git

from hindsight.config.banks import read_registry, resolve
from hindsight.errors import ConfigError


@pytest.fixture()
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = tmp_path / "hshome"
    h.mkdir()
    monkeypatch.setenv("HINDSIGHT_HOME", str(h))
    for k in list(os.environ):
        if k.startswith("HINDSIGHT_") and k != "HINDSIGHT_HOME" or k == "CLAUDE_PROJECT_DIR":
            monkeypatch.delenv(k)
    return h


def config(home: Path, data: dict[str, object]) -> None:
    (home / "config.json").write_text(json.dumps(data))


def repo(path: Path) -> Repo:
    r = Repo(path)
    r.write("app.py", fn("main"))
    r.commit("init")
    return r


def test_template_and_subdirectory(home: Path, tmp_path: Path) -> None:
    r = repo(tmp_path / "shop")
    (r.path / "src" / "deep").mkdir(parents=True)
    top = resolve(str(r.path), "claude-code")
    sub = resolve(str(r.path / "src" / "deep"), "claude-code")
    assert top.bank_id == sub.bank_id == "coding-agent::shop"
    assert sub.root == top.root == str(r.path)
    assert sub.how == "template coding-agent::{gitProject}"


def test_worktree_live_and_deleted(home: Path, tmp_path: Path) -> None:
    r = repo(tmp_path / "api")
    wt = tmp_path / "elsewhere" / "api-feature"
    git(r.path, "worktree", "add", "-q", "-b", "feature", str(wt))
    live = resolve(str(wt / "."), "claude-code")
    assert live.bank_id == "coding-agent::api"
    assert (live.root, live.main) == (str(wt), str(r.path))
    # a second worktree never resolved while it existed
    wt2 = tmp_path / "wt2"
    git(r.path, "worktree", "add", "-q", "-b", "other", str(wt2))
    shutil.rmtree(wt)
    shutil.rmtree(wt2)
    gone = resolve(str(wt), "claude-code")  # known from the registry
    assert (gone.bank_id, gone.main) == ("coding-agent::api", str(r.path))
    gone2 = resolve(str(wt2 / "sub"), "codex")  # found in .git/worktrees/*/gitdir
    assert (gone2.bank_id, gone2.root) == ("coding-agent::api", str(wt2))
    with pytest.raises(ConfigError, match="does not exist and is not a known worktree"):
        resolve(str(tmp_path / "never-existed"), "claude-code")


def test_same_directory_name_in_two_places(home: Path, tmp_path: Path) -> None:
    a = repo(tmp_path / "one" / "app")
    b = repo(tmp_path / "two" / "app")
    ra = resolve(str(a.path), "claude-code")
    rb = resolve(str(b.path), "claude-code")
    assert ra.bank_id == "coding-agent::app"
    assert rb.bank_id is not None and rb.bank_id.startswith("coding-agent::app-")
    assert len(rb.bank_id) == len("coding-agent::app-") + 8
    assert "name clash" in rb.how
    # stable: each keeps its own bank on every later resolution, in any order
    assert resolve(str(b.path), "codex").bank_id == rb.bank_id
    assert resolve(str(a.path), "codex").bank_id == ra.bank_id
    assert read_registry()["banks"] == {"coding-agent::app": str(a.path),
                                        rb.bank_id: str(b.path)}


def test_map_path_to_bank_longest_prefix(home: Path, tmp_path: Path) -> None:
    mono = repo(tmp_path / "mono")
    (mono.path / "services" / "billing").mkdir(parents=True)
    config(home, {"mapPathToBank": {str(tmp_path): "team::all",
                                    str(mono.path / "services"): "team::services"},
                  "bankId": "explicit::id"})
    assert resolve(str(mono.path / "services" / "billing"), "cli").bank_id == "team::services"
    r = resolve(str(mono.path), "cli")
    assert (r.bank_id, r.how) == ("team::all", f"mapPathToBank {tmp_path}")
    other = tmp_path.parent / (tmp_path.name + "-x")
    other.mkdir()
    try:
        got = resolve(str(other), "cli")  # prefix must match whole path components
    finally:
        other.rmdir()
    assert (got.bank_id, got.how) == ("explicit::id", "bankId")


def test_opt_in_only(home: Path, tmp_path: Path) -> None:
    inside = repo(tmp_path / "work" / "mine")
    outside = repo(tmp_path / "cloned")
    config(home, {"optInOnly": True, "optInPaths": [str(tmp_path / "work")]})
    assert resolve(str(inside.path), "claude-code").bank_id == "coding-agent::mine"
    r = resolve(str(outside.path), "claude-code")
    assert (r.bank_id, r.how, r.reason) == (None, "optInOnly", "not under optInPaths")
    config(home, {"disabled": True})
    d = resolve(str(inside.path), "claude-code")
    assert (d.bank_id, d.how) == (None, "disabled")


def test_temp_dir_with_claude_project_dir(home: Path, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    r = repo(tmp_path / "proj")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    assert resolve(str(scratch), "claude-code").bank_id == "coding-agent::scratch"
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(r.path))
    got = resolve(str(scratch), "claude-code")
    assert (got.bank_id, got.root) == ("coding-agent::proj", str(r.path))
    other = repo(tmp_path / "other")  # a real repository is not overridden
    assert resolve(str(other.path), "claude-code").bank_id == "coding-agent::other"


def test_placeholders(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    r = repo(tmp_path / "svc")
    (r.path / "pkg").mkdir()
    monkeypatch.setenv("USER", "ann")
    config(home, {"bankTemplate": "{user}/{harness}/{gitProject}/{project}/{channel}",
                  "channel": "night"})
    got = resolve(str(r.path / "pkg"), "codex")
    assert got.bank_id is not None
    assert got.bank_id.split("/")[1:] == ["codex", "svc", "pkg", "night"]
    config(home, {"bankTemplate": "x::{nope}"})
    with pytest.raises(ConfigError, match=r"unknown placeholder \{nope\}"):
        resolve(str(r.path), "codex")


def test_similar_names_never_share_a_bank_file(home: Path, tmp_path: Path) -> None:
    from hindsight.app import open_bank

    names = ["foo bar", "foo_bar", "проект", "данные"]
    ids, files = [], []
    for n in names:
        r = repo(tmp_path / n)
        with open_bank(str(r.path)) as b:
            b.memory.retain(f"memory of {n}", kind="fact")
            ids.append(b.bank_id)
            files.append(b.path)
    assert ids == [f"coding-agent::{n}" for n in names]
    assert len(set(files)) == 4
    for n, f in zip(names, files, strict=True):
        with open_bank(str(tmp_path / n)) as b:
            assert b.path == f
            assert [m.text for m in b.memory.memories()] == [f"memory of {n}"]


def test_corrupt_registry_keeps_ownership(home: Path, tmp_path: Path) -> None:
    a = repo(tmp_path / "a" / "proj")
    b = repo(tmp_path / "b" / "proj")
    ra = resolve(str(a.path), "claude-code")
    (home / "registry.json").write_text('{"banks": {')
    rb = resolve(str(b.path), "claude-code")  # B first after the registry was lost
    assert ra.bank_id == "coding-agent::proj" and rb.bank_id != ra.bank_id
    assert resolve(str(a.path), "claude-code").bank_id == ra.bank_id


def test_moved_repository_keeps_its_bank(home: Path, tmp_path: Path) -> None:
    a = repo(tmp_path / "old" / "proj")
    assert resolve(str(a.path), "cli").bank_id == "coding-agent::proj"
    moved = tmp_path / "new" / "proj"
    moved.parent.mkdir()
    a.path.rename(moved)
    assert resolve(str(moved), "cli").bank_id == "coding-agent::proj"


def test_cwd_inside_dot_git_is_its_work_tree(home: Path, tmp_path: Path) -> None:
    r = repo(tmp_path / "shop")
    got = resolve(str(r.path / ".git" / "objects"), "claude-code")
    assert (got.bank_id, got.root) == ("coding-agent::shop", str(r.path))


def test_a_new_repository_does_not_inherit_a_deleted_ones_bank(home: Path,
                                                               tmp_path: Path) -> None:
    old = repo(tmp_path / "c" / "uniq")
    assert resolve(str(old.path), "cli").bank_id == "coding-agent::uniq"
    shutil.rmtree(old.path)
    new = Repo(tmp_path / "d" / "uniq")
    new.write("other.py", fn("other"))
    new.commit("unrelated history")
    got = resolve(str(new.path), "cli").bank_id
    assert got is not None and got.startswith("coding-agent::uniq-")


def test_path_with_a_newline(home: Path, tmp_path: Path) -> None:
    plain = repo(tmp_path / "nl")
    odd = repo(tmp_path / "nl\nrepo")
    assert resolve(str(plain.path), "cli").bank_id == "coding-agent::nl"
    got = resolve(str(odd.path), "cli")
    assert (got.root, got.bank_id) == (str(odd.path), "coding-agent::nl\nrepo")
