"""Client-mode hooks (issue 11) when the server does not answer: the request ends inside
the hook's budget, and what this checkout holds (yesterday's failed attempts, from its
execution records) is still injected. Real hook subprocesses; the "server" is a socket
that accepts connections and never answers, or a closed port."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest
from histutil import Repo, fn, git
from hookutil import diag, hook
from test_records_scene import ATTEMPTS, context, scene  # noqa: F401 (the fixture)

from hindsight.hooks.handlers import REMOTE_MARGIN_S
from hindsight.hooks.runtime import BUDGET_S


def test_a_silent_server_leaves_the_prompt_its_local_part(
        scene: tuple[dict[str, str], Path]) -> None:  # noqa: F811
    env, repo = scene
    prompt = {"session_id": "sess-today", "cwd": str(repo),
              "prompt": "rewrite yesterday's deduction logic with CAS"}
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)  # connections complete in the kernel; nothing ever answers
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        # a request timeout longer than the hook's budget: the budget bounds it
        cenv = {**env, "HINDSIGHT_API_URL": url, "HINDSIGHT_API_TOKEN": "hst_1_x",
                "HINDSIGHT_API_TIMEOUT_S": "30"}
        t0 = time.monotonic()
        r = hook("user-prompt-submit", prompt, cenv, cwd=repo)
        took = time.monotonic() - t0
    assert r.returncode == 0
    body = context(r.stdout, "UserPromptSubmit").splitlines()
    assert body[4:6] == ATTEMPTS
    d = diag(cenv)[-1]
    assert (d["event"], d["error"]) == ("user-prompt-submit", "")
    assert d["server"] == f"{url}: TimeoutError: timed out"
    budget = BUDGET_S["user-prompt-submit"]
    assert budget - REMOTE_MARGIN_S - 0.3 < d["ms"]["total"] / 1000 < budget
    assert took < budget + 1.5  # process start and exit on a loaded machine


def test_session_start_with_the_server_down_says_so_in_the_log(
        scene: tuple[dict[str, str], Path]) -> None:  # noqa: F811
    env, repo = scene
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}"  # closed again: refused
    cenv = {**env, "HINDSIGHT_API_URL": url, "HINDSIGHT_API_TOKEN": "hst_1_x"}
    r = hook("session-start", {"session_id": "s9", "cwd": str(repo), "source": "startup"},
             cenv, cwd=repo)
    assert (r.returncode, r.stdout) == (0, "")
    d = diag(cenv)[-1]
    assert (d["event"], d["error"]) == ("session-start", "")
    assert d["server"].startswith(f"{url}: ConnectionRefusedError: ")


def test_the_origin_url_is_asked_once_and_a_new_one_is_seen(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A client-mode resolve names the bank by ``origin``: git is asked once per process
    while ``.git/config`` stays the same file, and again when ``remote set-url`` wrote
    a new one."""
    import hindsight.config.banks as banks

    repo = Repo(tmp_path / "shop")
    repo.write("pay.py", fn("charge"))
    repo.commit("pay")
    git(repo.path, "remote", "add", "origin", "git@github.com:org/shop.git")
    asked: list[tuple[str, ...]] = []
    real = banks._git
    monkeypatch.setattr(banks, "_git", lambda cwd, *a: asked.append(a) or real(cwd, *a))
    main = str(repo.path)
    assert [banks.git_remote(main) for _ in range(3)] == ["github.com/org/shop"] * 3
    assert asked.count(("remote", "get-url", "origin")) == 1
    git(repo.path, "remote", "set-url", "origin", "https://gitlab.example.com/team/shop2")
    assert banks.git_remote(main) == "gitlab.example.com/team/shop2"
    assert asked.count(("remote", "get-url", "origin")) == 2
