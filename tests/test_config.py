"""Layered config (issue #5): defaults → env → file → harnesses.<name> → banks.<id>, bad
files reported with their path, `hindsight config show` as a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hindsight.config.settings import env_name, load
from hindsight.errors import ConfigError


@pytest.fixture()
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HINDSIGHT_HOME", str(h))
    monkeypatch.delenv("HINDSIGHT_CONFIG", raising=False)
    for k in list(os.environ):
        if k.startswith("HINDSIGHT_") and k not in ("HINDSIGHT_HOME", "HINDSIGHT_EMBEDDER"):
            monkeypatch.delenv(k)
    return h


def write(home: Path, data: object) -> Path:
    p = home / "config.json"
    p.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return p


def test_env_names() -> None:
    assert env_name("disableHooks") == "HINDSIGHT_DISABLE_HOOKS"
    assert env_name("bankId") == "HINDSIGHT_BANK_ID"
    assert env_name("mapPathToBank") == "HINDSIGHT_MAP_PATH_TO_BANK"
    assert env_name("embedder") == "HINDSIGHT_EMBEDDER"


def test_defaults_only(home: Path) -> None:
    s = load("claude-code", env={})
    assert s["bankTemplate"] == "coding-agent::{gitProject}"
    assert s["briefingMaxChars"] == 8000 and s["optInOnly"] is False
    assert set(s.sources.values()) == {"default"}


def test_every_layer_later_wins(home: Path) -> None:
    p = write(home, {"recallLimit": 3, "channel": "file", "seed": False,
                     "harnesses": {"claude-code": {"recallLimit": 4, "channel": "cc"},
                                   "codex": {"recallLimit": 9}},
                     "banks": {"coding-agent::x": {"recallLimit": 5}}})
    env = {"HINDSIGHT_RECALL_LIMIT": "2", "HINDSIGHT_CHANNEL": "env",
           "HINDSIGHT_BRIEFING_MAX_CHARS": "1234", "HINDSIGHT_OPT_IN_PATHS": "/a:/b"}
    s = load("", env=env)
    assert (s["recallLimit"], s.sources["recallLimit"]) == (3, str(p))
    assert (s["briefingMaxChars"], s.sources["briefingMaxChars"]) == (
        1234, "env HINDSIGHT_BRIEFING_MAX_CHARS")
    assert s["optInPaths"] == ["/a", "/b"]
    s = load("claude-code", env=env)
    assert (s["recallLimit"], s["channel"]) == (4, "cc")
    assert s.sources["channel"] == f"{p} harnesses.claude-code"
    assert s["seed"] is False and s.sources["seed"] == str(p)
    b = load("claude-code", bank_id="coding-agent::x", env=env)
    assert (b["recallLimit"], b.sources["recallLimit"]) == (5, f"{p} banks.coding-agent::x")
    assert b["channel"] == "cc"
    assert load("codex", env=env)["recallLimit"] == 9


def test_hindsight_config_overrides_path(home: Path, tmp_path: Path) -> None:
    other = tmp_path / "elsewhere.json"
    other.write_text('{"recallLimit": 7}')
    assert load("", env={})["recallLimit"] == 5
    os.environ["HINDSIGHT_CONFIG"] = str(other)
    try:
        s = load("", env={})
    finally:
        del os.environ["HINDSIGHT_CONFIG"]
    assert (s["recallLimit"], s.path) == (7, str(other))


@pytest.mark.parametrize(("data", "message"), [
    ('{"recallLimit": 3,', "invalid JSON at line 1 column"),
    ("[1, 2]", "expected a JSON object at the top level, got list"),
    ({"optInOnly": "yes"}, "optInOnly: expected boolean, got string"),
    ({"recallLimit": True}, "recallLimit: expected integer, got boolean"),
    ({"optInPaths": ["/a", 3]}, "optInPaths: expected list of strings, got list"),
    ({"mapPathToBank": {"/a": 1}}, "mapPathToBank: expected object of strings, got object"),
    ({"bankid": "x"}, "bankid: unknown key (known: disabled, disableHooks, bankId"),
    ({"harnesses": {"claude-code": {"optInOnly": 1}}},
     "harnesses.claude-code.optInOnly: expected boolean, got integer"),
    ({"harnesses": {"vim": {}}}, "harnesses.vim: unknown harness"),
    ({"harnesses": {"codex": {"colour": "red"}}}, "harnesses.codex.colour: unknown key"),
    ({"banks": {"b": {"bankId": "c"}}}, "banks.b.bankId: decides which bank is used"),
    ({"banks": []}, "banks: expected object, got list"),
])
def test_bad_files_name_the_path(home: Path, data: object, message: str) -> None:
    p = write(home, data)
    with pytest.raises(ConfigError) as e:
        load("claude-code", env={})
    assert str(e.value).startswith(f"{p}: ")
    assert message in str(e.value)


def test_every_problem_is_listed(home: Path) -> None:
    write(home, {"optInOnly": "no", "foo": 1, "harnesses": {"codex": {"seed": "x"}}})
    with pytest.raises(ConfigError) as e:
        load("", env={})
    lines = str(e.value).splitlines()
    assert len(lines) == 3
    assert [ln.split(": ", 2)[1] for ln in lines] == ["optInOnly", "foo",
                                                      "harnesses.codex.seed"]


@pytest.mark.parametrize(("var", "raw", "message"), [
    ("HINDSIGHT_OPT_IN_ONLY", "maybe", "expected 1/0, true/false"),
    ("HINDSIGHT_RECALL_LIMIT", "many", "expected integer"),
    ("HINDSIGHT_MAP_PATH_TO_BANK", "{nope", "expected JSON"),
])
def test_bad_env_values(home: Path, var: str, raw: str, message: str) -> None:
    with pytest.raises(ConfigError) as e:
        load("", env={var: raw})
    assert str(e.value).startswith(f"env {var}") and message in str(e.value)


def test_env_name_without_underscores_also_works(home: Path) -> None:
    s = load("", env={"HINDSIGHT_RECALLLIMIT": "2"})
    assert (s["recallLimit"], s.sources["recallLimit"]) == (2, "env HINDSIGHT_RECALLLIMIT")


def test_env_disable_hooks_and_bools(home: Path) -> None:
    assert load("", env={"HINDSIGHT_DISABLE_HOOKS": "1"})["disableHooks"] is True
    assert load("", env={"HINDSIGHT_DISABLE_HOOKS": "off"})["disableHooks"] is False


def run_cli(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hindsight", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)


def test_config_show_cli(home: Path, tmp_path: Path) -> None:
    p = write(home, {"recallLimit": 3, "harnesses": {"claude-code": {"channel": "c"}}})
    repo = tmp_path / "work"
    repo.mkdir()
    env = {**os.environ, "HINDSIGHT_SEED": "0"}
    r = run_cli(["config", "show", "--harness", "claude-code", "--json"], repo, env)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["config_file"] == str(p)
    assert data["bank"] == "coding-agent::work"
    assert data["values"]["recallLimit"] == {"value": 3, "source": str(p)}
    assert data["values"]["seed"] == {"value": False, "source": "env HINDSIGHT_SEED"}
    assert data["values"]["channel"]["source"] == f"{p} harnesses.claude-code"
    assert data["values"]["briefingMaxChars"] == {"value": 8000, "source": "default"}
    r = run_cli(["config", "show"], repo, env)
    assert r.returncode == 0 and "recallLimit" in r.stdout and "coding-agent::work" in r.stdout
    write(home, {"recallLimit": "3"})
    r = run_cli(["config", "show"], repo, env)
    assert r.returncode == 2
    assert r.stderr.strip() == f"hindsight: {p}: recallLimit: expected integer, got string"


def test_nothing_is_read_from_the_repository(home: Path, tmp_path: Path) -> None:
    """A cloned repository cannot turn memory on, redirect storage or weaken redaction."""
    repo = tmp_path / "cloned"
    (repo / ".hindsight").mkdir(parents=True)
    evil = {"disabled": False, "optInOnly": False, "bankId": "attacker::bank",
            "diagFile": str(tmp_path / "leak.log")}
    for name in (".hindsight/config.json", "hindsight.json", ".hindsight.json",
                 "config.json"):
        (repo / name).write_text(json.dumps(evil))
    write(home, {"optInOnly": True, "optInPaths": [str(tmp_path / "mine")]})
    env = {**os.environ}
    r = run_cli(["config", "show", "--json"], repo, env)
    data = json.loads(r.stdout)
    assert data["bank"] is None and data["inert_reason"] == "not under optInPaths"
    assert data["values"]["bankId"]["value"] is None
    assert data["values"]["diagFile"]["value"] == ""


@pytest.mark.parametrize(("data", "message"), [
    ('{"recallThreshold": NaN}', "recallThreshold: nan is out of range (0 to 1)"),
    ({"recallLimit": -1}, "recallLimit: -1 is out of range (0 to 50)"),
    ({"briefingMaxChars": 5}, "briefingMaxChars: 5 is out of range (500 to 20000)"),
    ({"recallMaxChars": 100_000_000}, "recallMaxChars: 100000000 is out of range"),
    ({"embedder": "bogus"}, "embedder: 'bogus': one of minilm, hashing, openai"),
    ({"bankTemplate": ""}, "bankTemplate: must not be empty"),
    ({"bankTemplate": "{gitProject!r:>99}"}, "placeholders take no conversion or format"),
    ({"bankTemplate": "x::{gitProject[0]}"}, "unknown placeholder {gitProject[0]}"),
    ({"bankId": "  "}, "bankId: must not be empty"),
    ({"optInPaths": [""]}, "optInPaths: paths must not be empty"),
    ({"mapPathToBank": {"": "b"}}, "mapPathToBank: paths and bank ids must not be empty"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
])
def test_values_out_of_range(home: Path, data: object, message: str) -> None:
    write(home, data)
    with pytest.raises(ConfigError) as e:
        load("", env={})
    assert message in str(e.value)
    with pytest.raises(ConfigError, match="out of range"):
        write(home, {})
        load("", env={"HINDSIGHT_RECALL_THRESHOLD": "2"})
