"""Every HINDSIGHT_* knob is a field of the typed, frozen Settings: set by its (unchanged)
environment variable, by the file and per harness; ranges checked with their path; API keys
never printed; providers, SQLite's busy timeout and the parse timeout built from settings."""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hindsight.config.settings import FIELDS, Settings, env_flag, env_name, env_value, load
from hindsight.errors import ConfigError, ProviderError

# name in the file -> (environment variable as it was read before settings owned it,
# a valid value as the environment gives it, the same value as the file gives it)
NEW: dict[str, tuple[str, str, Any]] = {
    "llmUrl": ("HINDSIGHT_LLM_URL", "http://127.0.0.1:9/v1", "http://127.0.0.1:9/v1"),
    "llmModel": ("HINDSIGHT_LLM_MODEL", "qwen", "qwen"),
    "llmApiKey": ("HINDSIGHT_LLM_API_KEY", "sk-llm-secret", "sk-llm-secret"),
    "llmTimeoutS": ("HINDSIGHT_LLM_TIMEOUT_S", "2.5", 2.5),
    "embedUrl": ("HINDSIGHT_EMBED_URL", "http://127.0.0.1:8/v1", "http://127.0.0.1:8/v1"),
    "embedModel": ("HINDSIGHT_EMBED_MODEL", "bge", "bge"),
    "embedApiKey": ("HINDSIGHT_EMBED_API_KEY", "sk-embed-secret", "sk-embed-secret"),
    "rerankerModel": ("HINDSIGHT_RERANKER_MODEL", "/m/ce.onnx", "/m/ce.onnx"),
    "rerankerTokenizer": ("HINDSIGHT_RERANKER_TOKENIZER", "/m/tok.json", "/m/tok.json"),
    "threads": ("HINDSIGHT_THREADS", "3", 3),
    "serveHost": ("HINDSIGHT_SERVE_HOST", "0.0.0.0", "0.0.0.0"),
    "servePort": ("HINDSIGHT_SERVE_PORT", "9999", 9999),
    "serveWorkers": ("HINDSIGHT_SERVE_WORKERS", "3", 3),
    "parseTimeoutS": ("HINDSIGHT_PARSE_TIMEOUT_S", "4", 4.0),
    "busyTimeoutMs": ("HINDSIGHT_BUSY_TIMEOUT_MS", "250", 250),
    "mcpTimeoutS": ("HINDSIGHT_MCP_TIMEOUT_S", "7.5", 7.5),
    "mcpMaxTokens": ("HINDSIGHT_MCP_MAX_TOKENS", "20000", 20_000),
    "surveyRefreshCommits": ("HINDSIGHT_SURVEY_REFRESH_COMMITS", "5", 5),
    "pageTriggerCron": ("HINDSIGHT_PAGE_TRIGGER_CRON", "H 3 * * 1-5", "H 3 * * 1-5"),
    "recordsInjectLimit": ("HINDSIGHT_RECORDS_INJECT_LIMIT", "2", 2),
    "recordsCalleeDepth": ("HINDSIGHT_RECORDS_CALLEE_DEPTH", "1", 1),
    "recordsKeepFailedDays": ("HINDSIGHT_RECORDS_KEEP_FAILED_DAYS", "14", 14),
    "recordsDecayDays": ("HINDSIGHT_RECORDS_DECAY_DAYS", "10.5", 10.5),
    "databaseUrl": ("HINDSIGHT_DATABASE_URL", "postgresql://me:pw@127.0.0.1:1/db",
                    "postgresql://me:pw@127.0.0.1:1/db"),
    # already fields before; their variables must not change either
    "embedder": ("HINDSIGHT_EMBEDDER", "hashing", "hashing"),
    "disableHooks": ("HINDSIGHT_DISABLE_HOOKS", "1", True),
    "diagFile": ("HINDSIGHT_DIAG_FILE", "/tmp/d.log", "/tmp/d.log"),
}
ATTRS = {"serveHost": "serve_host", "servePort": "serve_port",
         "serveWorkers": "serve_workers", "llmUrl": "llm_url", "llmApiKey": "llm_api_key", "llmTimeoutS": "llm_timeout_s",
         "embedApiKey": "embed_api_key", "busyTimeoutMs": "busy_timeout_ms",
         "parseTimeoutS": "parse_timeout_s", "mcpTimeoutS": "mcp_timeout_s",
         "mcpMaxTokens": "mcp_max_tokens", "surveyRefreshCommits": "survey_refresh_commits",
         "pageTriggerCron": "page_trigger_cron",
         "recallLimit": "recall_limit", "bankId": "bank_id", "mapPathToBank":
         "map_path_to_bank", "disableHooks": "disable_hooks", "threads": "threads"}


@pytest.fixture()
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    for k in list(os.environ):
        if k.startswith("HINDSIGHT_"):
            monkeypatch.delenv(k)
    monkeypatch.setenv("HINDSIGHT_HOME", str(h))
    return h


def write(home: Path, data: object) -> Path:
    p = home / "config.json"
    p.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return p


def _parsed(name: str, value: Any) -> Any:
    return float(value) if FIELDS[name].tag == "float" else value


# --- names --------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(NEW))
def test_environment_names_are_unchanged(name: str) -> None:
    assert env_name(name) == NEW[name][0] == FIELDS[name].env


@pytest.mark.parametrize(("name", "attr"), sorted(ATTRS.items()))
def test_attribute_names(name: str, attr: str) -> None:
    assert FIELDS[name].attr == attr
    s = Settings.defaults()
    assert s[name] == getattr(s, attr)


def test_every_field_is_a_typed_attribute() -> None:
    attrs = {f.name for f in dataclasses.fields(Settings)}
    assert {k.attr for k in FIELDS.values()} <= attrs
    assert len({k.attr for k in FIELDS.values()}) == len(FIELDS)
    hints = {f.name: f.type for f in dataclasses.fields(Settings)}
    assert hints["llm_timeout_s"] == "float" and hints["busy_timeout_ms"] == "int"
    assert hints["opt_in_paths"] == "tuple[str, ...]"


# --- layers -------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(NEW))
def test_set_by_environment(home: Path, name: str) -> None:
    var, raw, value = NEW[name]
    s = load("", env={var: raw})
    assert s[name] == _parsed(name, value)
    assert getattr(s, FIELDS[name].attr) == _parsed(name, value)
    assert s.sources[name] == f"env {var}"
    assert env_value(name, {var: raw}) == _parsed(name, value)


@pytest.mark.parametrize("name", sorted(NEW))
def test_set_by_file_and_per_harness(home: Path, name: str) -> None:
    _var, _raw, value = NEW[name]
    p = write(home, {name: value})
    s = load("codex", env={})
    assert (s[name], s.sources[name]) == (_parsed(name, value), str(p))
    p = write(home, {"harnesses": {"mcp": {name: value}}})
    s = load("mcp", env={})
    assert (s[name], s.sources[name]) == (_parsed(name, value), f"{p} harnesses.mcp")
    assert load("cli", env={}).sources[name] == "default"


def test_defaults(home: Path) -> None:
    s = load("", env={})
    assert (s.llm_url, s.llm_model, s.llm_api_key, s.llm_timeout_s) == ("", "", "", 10.0)
    assert (s.embed_url, s.embed_model, s.embed_api_key) == ("", "", "")
    assert (s.reranker_model, s.reranker_tokenizer, s.threads) == ("", "", 0)
    assert (s.serve_host, s.serve_port, s.serve_workers) == ("127.0.0.1", 8888, 1)
    assert (s.parse_timeout_s, s.busy_timeout_ms, s.mcp_timeout_s) == (20.0, 30_000, 10.0)
    assert s.mcp_max_tokens == 10_000 and s.database_url == ""
    assert (s.survey_refresh_commits, s.page_trigger_cron) == (20, "H * * * *")
    assert s == Settings.defaults()


def test_an_empty_number_in_the_environment_is_unset(home: Path) -> None:
    s = load("", env={"HINDSIGHT_LLM_TIMEOUT_S": "", "HINDSIGHT_THREADS": " ",
                      "HINDSIGHT_BUSY_TIMEOUT_MS": ""})
    assert (s.llm_timeout_s, s.threads, s.busy_timeout_ms) == (10.0, 0, 30_000)
    assert s.sources["threads"] == "default"


# --- ranges -------------------------------------------------------------------------
@pytest.mark.parametrize(("data", "message"), [
    ({"llmTimeoutS": 0}, "llmTimeoutS: 0 is out of range (above 0 to 1000000)"),
    ({"parseTimeoutS": -1.5}, "parseTimeoutS: -1.5 is out of range (above 0"),
    ('{"mcpTimeoutS": Infinity}', "mcpTimeoutS: inf is out of range"),
    ('{"llmTimeoutS": NaN}', "llmTimeoutS: nan is out of range"),
    ({"threads": -1}, "threads: -1 is out of range (0 to 1024)"),
    ({"threads": 2.5}, "threads: expected integer, got number"),
    ({"busyTimeoutMs": -5}, "busyTimeoutMs: -5 is out of range (0 to 2147483647)"),
    ({"llmApiKey": 12}, "llmApiKey: expected string, got integer"),
    ({"harnesses": {"mcp": {"mcpTimeoutS": 0}}},
     "harnesses.mcp.mcpTimeoutS: 0 is out of range (above 0"),
    ({"banks": {"b": {"busyTimeoutMs": -1}}}, "banks.b.busyTimeoutMs: -1 is out of range"),
    ({"harnesses": {"mcp": {"mcpMaxTokens": 100}}},
     "harnesses.mcp.mcpMaxTokens: 100 is out of range (500 to 1000000)"),
    ({"servePort": 70000}, "servePort: 70000 is out of range (0 to 65535)"),
    ({"serveWorkers": 0}, "serveWorkers: 0 is out of range (1 to 64)"),
])
def test_range_errors_name_their_path(home: Path, data: object, message: str) -> None:
    p = write(home, data)
    with pytest.raises(ConfigError) as e:
        load("mcp", env={})
    assert str(e.value) == f"{p}: {message}" or str(e.value).startswith(f"{p}: {message}")


@pytest.mark.parametrize(("var", "raw", "message"), [
    ("HINDSIGHT_LLM_TIMEOUT_S", "0", "env HINDSIGHT_LLM_TIMEOUT_S: 0.0 is out of range"),
    ("HINDSIGHT_PARSE_TIMEOUT_S", "inf", "env HINDSIGHT_PARSE_TIMEOUT_S: inf is out of"),
    ("HINDSIGHT_MCP_TIMEOUT_S", "soon", "env HINDSIGHT_MCP_TIMEOUT_S='soon': expected number"),
    ("HINDSIGHT_THREADS", "-2", "env HINDSIGHT_THREADS: -2 is out of range"),
    ("HINDSIGHT_BUSY_TIMEOUT_MS", "1.5", "env HINDSIGHT_BUSY_TIMEOUT_MS='1.5': expected"),
])
def test_bad_environment_values_name_the_variable(home: Path, var: str, raw: str,
                                                  message: str) -> None:
    with pytest.raises(ConfigError) as e:
        load("", env={var: raw})
    assert str(e.value).startswith(message)


def test_construction_checks_values() -> None:
    with pytest.raises(ConfigError, match=r"^llmTimeoutS: -1.0 is out of range"):
        Settings.defaults(llmTimeoutS=-1)
    with pytest.raises(ConfigError, match=r"^threads: expected integer, got string"):
        Settings(threads="2")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="unknown setting"):
        Settings.defaults(llmURL="x")


# --- the object ---------------------------------------------------------------------
def test_defaults_read_neither_environment_nor_disk(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HINDSIGHT_RECALL_LIMIT", "9")
    monkeypatch.setenv("HINDSIGHT_CONFIG", str(tmp_path / "broken.json"))
    (tmp_path / "broken.json").write_text("{nope")
    s = Settings.defaults()
    assert s.recall_limit == 5 and s["recallLimit"] == 5 and s.path == ""
    assert set(s.sources.values()) == {"default"}
    t = Settings.defaults(llmUrl="http://x/v1", recallLimit=2)
    assert (t.llm_url, t.recall_limit, t.sources["llmUrl"]) == ("http://x/v1", 2, "given")


def test_frozen_typed_and_file_shaped_reads(home: Path) -> None:
    write(home, {"optInPaths": ["/a"], "mapPathToBank": {"/a": "x::a"}, "recallThreshold": 1,
                 "banks": {"x::a": {"recallLimit": 2, "llmModel": "m"}}})
    s = load("", env={})
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.recall_limit = 3  # type: ignore[misc]
    assert s.opt_in_paths == ("/a",) and s["optInPaths"] == ["/a"]
    with pytest.raises(TypeError):
        s.map_path_to_bank["/b"] = "y"  # type: ignore[index]
    assert s["mapPathToBank"] == {"/a": "x::a"} and type(s["mapPathToBank"]) is dict
    assert s.recall_threshold == 1.0 and isinstance(s.recall_threshold, float)
    b = s.for_bank("x::a")
    assert (b.recall_limit, b.llm_model, b.applied_bank) == (2, "m", "x::a")
    assert b.sources["llmModel"] == f"{s.path} banks.x::a"
    assert s.recall_limit == 5  # the original is unchanged
    assert pickle.loads(pickle.dumps(b)) == b
    with pytest.raises(KeyError):
        s["nope"]


def test_secrets_are_masked_for_display() -> None:
    s = Settings.defaults(llmApiKey="sk-one", embedApiKey="")
    assert s.llm_api_key == "sk-one" and s["llmApiKey"] == "sk-one"
    assert s.values["llmApiKey"] == "***" and s.values["embedApiKey"] == ""
    assert s.display()["llmApiKey"] == {"value": "***", "source": "given"}
    assert "sk-one" not in repr(s) and "sk-one" not in str(s.values)
    assert {k for k, f in FIELDS.items() if f.secret} == {"llmApiKey", "embedApiKey",
                                                          "apiToken"}
    assert Settings.defaults(apiToken="hst_1_x").values["apiToken"] == "***"


def test_env_flag_reads_only_the_environment(home: Path) -> None:
    write(home, {"disableHooks": True})
    assert env_flag("disableHooks", {}) is False
    assert env_flag("disableHooks", {"HINDSIGHT_DISABLE_HOOKS": "yes"}) is True
    assert env_flag("disableHooks", {"HINDSIGHT_DISABLEHOOKS": "1"}) is True
    assert env_flag("disableHooks", {"HINDSIGHT_DISABLE_HOOKS": "maybe"}) is False
    with pytest.raises(ValueError):
        env_flag("recallLimit", {})


# --- config show --------------------------------------------------------------------
def run_cli(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hindsight", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)


def test_config_show_masks_api_keys(home: Path, tmp_path: Path) -> None:
    p = write(home, {"harnesses": {"cli": {"embedApiKey": "sk-embed-secret"}},
                     "llmTimeoutS": 3})
    repo = tmp_path / "work"
    repo.mkdir()
    env = {**os.environ, "HINDSIGHT_LLM_API_KEY": "sk-llm-secret", "HINDSIGHT_SEED": "0",
           "HINDSIGHT_LLM_URL": "http://127.0.0.1:1/v1"}
    r = run_cli(["config", "show", "--json"], repo, env)
    assert r.returncode == 0, r.stderr
    assert "sk-llm-secret" not in r.stdout and "sk-embed-secret" not in r.stdout
    values = json.loads(r.stdout)["values"]
    assert values["llmApiKey"] == {"value": "***", "source": "env HINDSIGHT_LLM_API_KEY"}
    assert values["embedApiKey"] == {"value": "***", "source": f"{p} harnesses.cli"}
    assert values["llmUrl"]["value"] == "http://127.0.0.1:1/v1"
    assert values["llmTimeoutS"] == {"value": 3.0, "source": str(p)}
    assert values["busyTimeoutMs"] == {"value": 30000, "source": "default"}
    r = run_cli(["config", "show"], repo, env)
    assert r.returncode == 0 and "'***'" in r.stdout
    assert "sk-llm-secret" not in r.stdout + r.stderr
    assert "sk-embed-secret" not in r.stdout + r.stderr


# --- providers ----------------------------------------------------------------------
def test_providers_from_settings_without_environment(home: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from hindsight.providers import make_embedder, make_llm, make_reranker
    from hindsight.providers.hashing import HashingEmbedder
    from hindsight.providers.local_minilm import MiniLMEmbedder
    from hindsight.providers.openai_compat import OpenAICompatEmbedder, OpenAICompatLLM

    # the environment says otherwise: it must not be read
    monkeypatch.setenv("HINDSIGHT_LLM_URL", "http://10.0.0.1/v1")
    monkeypatch.setenv("HINDSIGHT_RERANKER_MODEL", "/nope.onnx")
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "openai")
    s = Settings.defaults(llmUrl="http://127.0.0.1:1", llmModel="m", llmApiKey="k",
                          llmTimeoutS=2)
    llm = make_llm(s)
    assert isinstance(llm, OpenAICompatLLM)
    assert (llm.base, llm.model, llm.key, llm.timeout) == ("http://127.0.0.1:1", "m", "k", 2.0)
    assert make_llm(Settings.defaults()) is None
    assert make_reranker(Settings.defaults()) is None
    with pytest.raises(ProviderError, match="rerankerModel needs rerankerTokenizer"):
        make_reranker(Settings.defaults(rerankerModel="/m.onnx"))
    with pytest.raises(ProviderError, match="cannot load the reranker"):
        make_reranker(Settings.defaults(rerankerModel="/missing.onnx",
                                        rerankerTokenizer="/missing.json"))
    assert isinstance(make_embedder(Settings.defaults(embedder="hashing")), HashingEmbedder)
    mini = make_embedder(Settings.defaults(threads=2))
    assert isinstance(mini, MiniLMEmbedder) and mini._threads == 2
    emb = make_embedder(Settings.defaults(embedder="openai", embedUrl="http://127.0.0.1:2/v1/",
                                          embedModel="e", embedApiKey="ek"))
    assert isinstance(emb, OpenAICompatEmbedder)
    assert (emb.base, emb.model, emb.key, emb.model_id) == ("http://127.0.0.1:2/v1", "e",
                                                            "ek", "openai:e")
    with pytest.raises(ProviderError, match="embedder openai needs embedUrl and embedModel"):
        make_embedder(Settings.defaults(embedder="openai"))


def test_from_env_wrappers_still_read_the_settings(home: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from hindsight.providers.local_reranker import OnnxCrossEncoder
    from hindsight.providers.openai_compat import OpenAICompatEmbedder, OpenAICompatLLM

    assert OpenAICompatLLM.from_env() is None and OnnxCrossEncoder.from_env() is None
    write(home, {"llmTimeoutS": 4, "embedModel": "fm"})
    monkeypatch.setenv("HINDSIGHT_LLM_URL", "http://127.0.0.1:3/v1")
    monkeypatch.setenv("HINDSIGHT_EMBED_URL", "http://127.0.0.1:4/v1")
    llm = OpenAICompatLLM.from_env()
    assert llm is not None and (llm.base, llm.timeout) == ("http://127.0.0.1:3/v1", 4.0)
    assert OpenAICompatEmbedder.from_env().model == "fm"


# --- time limits --------------------------------------------------------------------
def _busy(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA busy_timeout").fetchone()[0])


def test_busy_timeout_from_settings_reaches_sqlite(home: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from hindsight.store.sqlite.db import BUSY_TIMEOUT_MS, connect

    assert Settings.defaults().busy_timeout_ms == BUSY_TIMEOUT_MS
    db = str(tmp_path / "b" / "x.db")
    conn = connect(db)
    assert _busy(conn) == BUSY_TIMEOUT_MS
    conn.close()
    write(home, {"busyTimeoutMs": 4321})
    conn = connect(db)
    assert _busy(conn) == 4321
    conn.close()
    monkeypatch.setenv("HINDSIGHT_BUSY_TIMEOUT_MS", "1234")  # the environment loses to the file
    conn = connect(db)
    assert _busy(conn) == 4321
    conn.close()
    write(home, {})
    conn = connect(db)
    assert _busy(conn) == 1234
    conn.close()
    conn = connect(db, busy_timeout_ms=77)  # an argument wins over settings
    assert _busy(conn) == 77
    conn.close()
    conn = connect(db, busy_timeout_ms=Settings.defaults(busyTimeoutMs=0).busy_timeout_ms)
    assert _busy(conn) == 0
    conn.close()
    with pytest.raises(ValueError):
        connect(db, busy_timeout_ms=-1)
    monkeypatch.setenv("HINDSIGHT_BUSY_TIMEOUT_MS", "soon")
    with pytest.raises(ConfigError, match="HINDSIGHT_BUSY_TIMEOUT_MS"):
        connect(db)


def test_parse_timeout_is_threaded_from_index(home: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from conftest import make_repo

    from hindsight.codeindex import indexer, pool

    assert pool.parse_timeout_s() == 20.0
    assert pool.parse_timeout_s(2.5) == 2.5 and pool.parse_timeout_s(0.001) == 0.1
    monkeypatch.setenv("HINDSIGHT_PARSE_TIMEOUT_S", "6")
    assert pool.parse_timeout_s() == 6.0
    seen: list[float | None] = []
    real = pool.run_small

    def spy(root: str, items: list[Any], timeout: float | None = None) -> Any:
        seen.append(timeout)
        return real(root, items, timeout)

    monkeypatch.setattr(pool, "run_small", spy)
    repo = make_repo(tmp_path / "r", {"a.py": "def f():\n    return 1\n"})
    from hindsight.app import open_bank

    with open_bank(repo_root_path=str(repo)) as bank:
        indexer.index(bank.stores.code, str(repo), full=True, parse_timeout_s=3.5)
        assert seen == [3.5]
        # no argument: the bank's setting (HINDSIGHT_PARSE_TIMEOUT_S=6, read when the bank
        # was opened) is passed down by the composition root
        bank.code.index(full=True)
        assert seen == [3.5, 6.0]


def test_database_url_is_checked_and_its_password_never_shown(home: Path, tmp_path: Path
                                                             ) -> None:
    """``databaseUrl`` must be a postgresql:// URL (the error does not repeat the value);
    ``config show`` and ``Settings.values`` mask the password inside it."""
    with pytest.raises(ConfigError, match="expected a postgresql:// URL") as err:
        Settings.defaults(databaseUrl="mysql://me:hunter2@db/x")
    assert "hunter2" not in str(err.value)
    s = Settings.defaults(databaseUrl="postgresql://me:hunter2@db.example:5433/hs")
    assert s.database_url == "postgresql://me:hunter2@db.example:5433/hs"
    assert s.values["databaseUrl"] == "postgresql://me:***@db.example:5433/hs"
    assert Settings.defaults(databaseUrl="postgres://db/hs").values["databaseUrl"] == \
        "postgres://db/hs"
    repo = tmp_path / "work"
    repo.mkdir()
    env = {**os.environ, "HINDSIGHT_DATABASE_URL": "postgresql://me:hunter2@127.0.0.1:9/hs",
           "HINDSIGHT_SEED": "0"}
    r = run_cli(["config", "show", "--json"], repo, env)
    assert r.returncode == 0, r.stderr
    assert "hunter2" not in r.stdout + r.stderr
    assert json.loads(r.stdout)["values"]["databaseUrl"] == {
        "value": "postgresql://me:***@127.0.0.1:9/hs", "source": "env HINDSIGHT_DATABASE_URL"}


def test_settings_repr_masks_the_database_password() -> None:
    """``repr(Settings)`` (what a traceback or a log line shows) has ``user:***@`` in
    ``database_url``, keeps the other fields, and still leaves secret fields out."""
    s = Settings.defaults(databaseUrl="postgresql://me:hunter2@db.example:5433/hs",
                          apiToken="tok-secret-1", recallLimit=7)
    shown = repr(s)
    assert "hunter2" not in shown and "tok-secret-1" not in shown
    assert "database_url='postgresql://me:***@db.example:5433/hs'" in shown
    assert "recall_limit=7" in shown and shown.startswith("Settings(")
    assert "hunter2" not in str(s) and "hunter2" not in f"{s!r}"
    assert "database_url=''" in repr(Settings.defaults())
