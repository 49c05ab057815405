"""Experience memory with exact expected values: redaction (raw database bytes), exact and
near duplicates (also two processes at once), supersede, hard query strings, CJK, time
filters under three time zones with a frozen clock, empty and unknown banks, gc."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import make_repo

from hindsight.app import open_bank
from hindsight.errors import BankNotFound, ConfigError

CLI = [sys.executable, "-m", "hindsight"]

SECRETS = {
    "github": "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "aws": "AKIAIOSFODNN7EXAMPLE",
    "openai": "sk-proj-" + "x9Y8w7V6u5T4s3R2q1P0o9N8m7L6k5J4",
    "url": "hunter2-very-secret",
    "env": "s3cr3t-value-123",
    "pem": "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "hashing")
    d = tmp_path / "repo"
    d.mkdir()
    return d


def test_secrets_never_reach_the_database_file(repo: Path) -> None:
    text = (f"deploy with token {SECRETS['github']} and key {SECRETS['aws']}; "
            f"client uses {SECRETS['openai']}; db at postgres://app:{SECRETS['url']}@db/x\n"
            f"DATABASE_PASSWORD={SECRETS['env']}\n"
            f"-----BEGIN RSA PRIVATE KEY-----\n{SECRETS['pem']}\n-----END RSA PRIVATE KEY-----\n"
            f"Authorization: Bearer {SECRETS['jwt']}")
    with open_bank(str(repo)) as b:
        r = b.memory.retain(text, tags=[f"tag {SECRETS['aws']}"])
        assert sorted(set(r.redacted)) == ["aws_access_key", "env_secret", "github_token",
                                           "jwt", "private_key", "url_password", "api_key"
                                           ] or sorted(set(r.redacted)) == sorted(
            {"aws_access_key", "env_secret", "github_token", "jwt", "private_key",
             "url_password", "api_key"})
        m = b.memory.get(r.id)
        assert "[REDACTED:github_token]" in m.text and "postgres://app:[REDACTED" in m.text
        path = b.path
    raw = b"".join(Path(p).read_bytes() for p in (path, path + "-wal") if os.path.exists(p))
    for name, secret in SECRETS.items():
        assert secret.encode() not in raw, name
    assert b"DATABASE_PASSWORD=" in raw  # the label stays, the value goes


def test_exact_duplicate_and_near_duplicate(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "minilm")
    with open_bank(str(repo)) as b:
        a = b.memory.retain("We decided to run the hooks detached so that the agent never waits")
        again = b.memory.retain("We decided to run the hooks detached so that the agent never waits")
        spaced = b.memory.retain("we decided to run  the hooks detached so that the agent never waits")
        near = b.memory.retain("We decided to run hooks detached, so the agent never has to wait")
        other = b.memory.retain("The parser uses tree-sitter grammars from PyPI wheels")
        assert [x.action for x in (a, again, spaced, near, other)] == [
            "created", "duplicate", "duplicate", "merged", "created"]
        assert a.id == again.id == spaced.id == near.id != other.id
        m = b.memory.get(a.id)
        assert m.access_count == 3
        assert [h["action"] for h in b.memory.audit(a.id)] == ["retain", "duplicate",
                                                                "duplicate", "merge"]
        assert b.stores.memory.count() == 2


def test_two_processes_retaining_the_same_text_make_one_row(repo: Path) -> None:
    code = ("import sys; from hindsight.app import open_bank\n"
            "b = open_bank(sys.argv[1]); print(b.memory.retain('same text from two writers').action)")
    env = {**os.environ, "HINDSIGHT_EMBEDDER": "hashing"}
    with open_bank(str(repo)):
        pass  # create the bank first so both writers migrate nothing
    procs = [subprocess.Popen([sys.executable, "-c", code, str(repo)], env=env,
                              stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outs = sorted(p.communicate(timeout=60)[0].strip() for p in procs)
    assert outs == ["created", "duplicate"]
    with open_bank(str(repo)) as b:
        assert b.stores.memory.count() == 1


def test_supersede_keeps_the_old_one_out_of_recall(repo: Path) -> None:
    with open_bank(str(repo)) as b:
        old = b.memory.retain("Use port 8080 for the dev server", kind="convention")
        new = b.memory.retain("Use port 9090 for the dev server", kind="convention",
                       supersedes=old.id)
        hits = b.memory.recall("dev server port").hits
        assert [h.memory.id for h in hits] == [new.id]
        m = b.memory.get(old.id)
        assert (m.status, m.superseded_by) == ("superseded", new.id)
        with pytest.raises(ConfigError, match="no such memory"):
            b.memory.retain("x y z", supersedes=999)


HARD = ["pre-edit", "don't", "a/b", '"unbalanced', "OR", "", "AND NOT", "(", "*", "col:val",
        "NEAR(a b)", "'; DROP TABLE memories; --", "\\", "🙂"]


def test_hard_query_strings_are_safe(repo: Path) -> None:
    with open_bank(str(repo)) as b:
        ids = {
            "pre": b.memory.retain("Run the pre-edit hook before every write").id,
            "dont": b.memory.retain("Don't commit generated files").id,
            "ab": b.memory.retain("Compare a/b test results weekly").id,
            "or": b.memory.retain("Use OR-tools for the scheduler").id,
        }
        for q in HARD:
            res = b.memory.recall(q, channels=("bm25",))
            assert isinstance(res.hits, tuple), q
        assert [h.memory.id for h in b.memory.recall("pre-edit", channels=("bm25",)).hits] == [ids["pre"]]
        assert [h.memory.id for h in b.memory.recall("don't", channels=("bm25",)).hits] == [ids["dont"]]
        assert [h.memory.id for h in b.memory.recall("a/b", channels=("bm25",)).hits][0] == ids["ab"]
        assert [h.memory.id for h in b.memory.recall("OR", channels=("bm25",)).hits] == [ids["or"]]
        assert b.memory.recall("", channels=("bm25",)).hits == ()


def test_cjk_four_and_two_character_terms(repo: Path) -> None:
    with open_bank(str(repo)) as b:
        ml = b.memory.retain("我们决定使用机器学习模型来排序结果").id
        db = b.memory.retain("数据库连接池的大小是二十").id
        b.memory.retain("The cache is warmed at start-up")
        assert [h.memory.id for h in b.memory.recall("机器学习", channels=("bm25",)).hits] == [ml]
        assert [h.memory.id for h in b.memory.recall("数据", channels=("bm25",)).hits] == [db]
        assert b.memory.recall("学机", channels=("bm25",)).hits == ()  # not adjacent in the text


def test_identifier_parts_and_stemming(repo: Path) -> None:
    with open_bank(str(repo)) as b:
        m = b.memory.retain("parseConfigFile fails when MAX_RETRY_COUNT is zero").id
        for q in ("parse config", "retry count", "failing", "parseconfigfile"):
            assert [h.memory.id for h in b.memory.recall(q, channels=("bm25",)).hits] == [m], q


@pytest.mark.parametrize("tz", ["UTC", "America/Los_Angeles", "Asia/Tokyo"])
def test_time_filters_with_a_frozen_clock(repo: Path, tz: str) -> None:
    env = {**os.environ, "TZ": tz, "HINDSIGHT_EMBEDDER": "hashing",
           "HINDSIGHT_NOW": "2026-03-18T12:00:00"}  # a Wednesday, local time
    items = [("alpha note from last week", "2026-03-10T09:00:00"),  # Tuesday of last week
             ("beta note from yesterday", "2026-03-17T23:30:00"),
             ("gamma note from today", "2026-03-18T08:00:00"),
             ("delta note from last month", "2026-02-20T10:00:00")]
    lines = "\n".join(json.dumps({"text": t, "occurred": o, "kind": "fact"}) for t, o in items)
    subprocess.run([*CLI, "retain", "-"], input=lines, cwd=repo, env=env, text=True,
                   check=True, capture_output=True)

    def texts(*args: str) -> list[str]:
        p = subprocess.run([*CLI, "recall", "note", "--json", *args], cwd=repo, env=env,
                           text=True, capture_output=True, check=True)
        return sorted(h["text"].split()[0] for h in json.loads(p.stdout)["hits"])

    assert texts("--since", "last week", "--until", "last week") == ["alpha"]
    assert texts("--since", "yesterday", "--until", "yesterday") == ["beta"]
    assert texts("--since", "today") == ["gamma"]
    assert texts("--since", "last month", "--until", "last month") == ["delta"]
    assert texts("--since", "2026-03-17") == ["beta", "gamma"]
    assert texts() == ["alpha", "beta", "delta", "gamma"]


def test_empty_and_unknown_bank(repo: Path, tmp_path: Path) -> None:
    with open_bank(str(repo)) as b:
        res = b.memory.recall("anything at all")
        assert (res.hits, res.channels, res.reranked_by, res.tokens, res.ms) == (
            (), {}, "", 0, 0.0)
    other = tmp_path / "never"
    other.mkdir()
    with pytest.raises(BankNotFound):
        open_bank(str(other), create=False)
    p = subprocess.run([*CLI, "recall", "x"], cwd=other, capture_output=True, text=True)
    assert p.returncode == 3 and "no bank for" in p.stderr


def test_forget_restore_and_gc(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HINDSIGHT_NOW", "2026-01-01T00:00:00+00:00")
    with open_bank(str(repo)) as b:
        ids = [b.memory.retain(f"memory number {w}", kind="fact").id
               for w in ("one", "two", "three", "four")]
        with pytest.raises(ConfigError, match="needs a reason"):
            b.memory.forget(ids[0], "")
        b.memory.forget(ids[0], "wrong")
        assert ids[0] not in {h.memory.id for h in b.memory.recall("memory number one").hits}
        b.memory.restore(ids[0])
        monkeypatch.setenv("HINDSIGHT_NOW", "2026-03-01T00:00:00+00:00")
        b.memory.recall("number two", k=1)  # touches memory two only
        monkeypatch.setenv("HINDSIGHT_NOW", "2026-04-15T00:00:00+00:00")  # 104 days later
        res = b.memory.gc()
        assert res["archived_idle"] == [ids[0], ids[2], ids[3]]
        assert (res["archived_over_capacity"], res["active_after"]) == ([], 1)
        assert [m.id for m in b.memory.memories(status="archived")] == [ids[3], ids[2], ids[0]]
        b.memory.restore(ids[2])  # a restore counts as an access (else gc would archive it again)
        res = b.memory.gc(capacity=1)
        # memory two was last used 45 days ago: less active than the one just restored
        assert (res["archived_idle"], res["archived_over_capacity"]) == ([], [ids[1]])
        assert [m.id for m in b.memory.memories()] == [ids[2]]


def test_budget_kind_and_tag_filters(repo: Path) -> None:
    with open_bank(str(repo)) as b:
        long = b.memory.retain("cache " + "word " * 100, kind="fact").id
        short = b.memory.retain("cache short", kind="lesson", tags=["perf"]).id
        assert [h.memory.id for h in b.memory.recall("cache", budget=10).hits] == [short]
        assert [h.memory.id for h in b.memory.recall("cache", kinds=["fact"]).hits] == [long]
        assert [h.memory.id for h in b.memory.recall("cache", tags=["perf"]).hits] == [short]
        res = b.memory.recall("cache")
        assert {h.memory.id for h in res.hits} == {long, short}
        assert set(res.hits[0].explain) >= {"bm25"}


def test_export_import_round_trip(repo: Path, tmp_path: Path) -> None:
    (repo / "a.py").write_text("def f():\n    return 1\n")
    with open_bank(str(repo)) as b:
        b.code.index()
        one = b.memory.retain("f must stay pure; token ghp_" + "z" * 36, symbols=["f"], tags=["x"])
        two = b.memory.retain("Use port 9090", kind="convention", supersedes=None)
        b.memory.retain("Use port 9191", kind="convention", supersedes=two.id)
        b.memory.forget(one.id, "test")
        first = list(b.memory.export_lines())
    other = tmp_path / "other"
    other.mkdir()
    with open_bank(str(other)) as b2:
        assert b2.memory.import_lines(first) == {"imported": 3, "skipped": 0}
        assert b2.memory.import_lines(first) == {"imported": 0, "skipped": 3}
        second = list(b2.memory.export_lines())
        assert [json.loads(x) for x in second] == [json.loads(x) for x in first]
        assert [h.memory.text for h in b2.memory.recall("port").hits] == ["Use port 9191"]
    bad = subprocess.run([*CLI, "import", "-"], input="{not json\n", cwd=other, text=True,
                         capture_output=True)
    assert bad.returncode == 2 and "import line 1" in bad.stderr
    for count in (2**31, -1):  # what neither backend can hold
        line = json.dumps({**json.loads(first[0]), "access_count": count,
                           "text": f"counted {count}"})
        with open_bank(str(other)) as b2, pytest.raises(ConfigError) as e:
            b2.memory.import_lines([first[1], line])
        assert str(e.value) == \
            "import line 2: access_count must be between 0 and 2147483647"


def test_reflect_and_reembed(repo: Path) -> None:
    with open_bank(str(repo)) as b:
        a = b.memory.retain("Decided: retries use exponential backoff", kind="decision").id
        c = b.memory.retain("Lesson: fixed sleep between retries failed under load", kind="lesson").id
        res = b.memory.reflect("how do retries work")
        assert set(res["by_kind"]) == {"decision", "lesson"}
        assert res["by_kind"]["decision"][0].startswith(f"[#{a} ")
        assert res["by_kind"]["lesson"][0].startswith(f"[#{c} ")
        assert b.memory.reembed()["embedded"] == 0  # all vectors are from the current model
    os.environ["HINDSIGHT_EMBEDDER"] = "minilm"  # a model change: every vector is redone
    try:
        with open_bank(str(repo)) as b:
            first = b.memory.reembed()
            assert (first["model"], first["embedded"]) == ("all-MiniLM-L6-v2-onnx-int8", 2)
            assert b.memory.reembed()["embedded"] == 0
            assert b.memory.recall("backoff", k=1).hits[0].memory.id == a
    finally:
        os.environ["HINDSIGHT_EMBEDDER"] = "hashing"


def test_private_memories_are_seen_only_by_their_owner(repo: Path) -> None:
    with open_bank(str(repo)) as b:
        mine = b.memory.retain("scratch notes about the flaky parser", visibility="private",
                        agent="codex", owner="codex").id
        team = b.memory.retain("the parser is flaky on CRLF input").id
        assert [h.memory.id for h in b.memory.recall("parser flaky").hits] == [team]
        got = {h.memory.id for h in b.memory.recall("parser flaky", agent="codex").hits}
        assert got == {mine, team}
        assert [h.memory.id for h in b.memory.recall("parser flaky", agent="claude").hits] == [team]


def test_regressions_from_a_new_user_run(repo: Path, tmp_path: Path) -> None:
    env = {**os.environ, "HINDSIGHT_EMBEDDER": "hashing"}
    (repo / "app").mkdir()
    (repo / "app" / "db.py").write_text("def connect():\n    return 1\n")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    with open_bank(str(repo)) as b:
        b.code.index()
        r = b.memory.retain("set it like this: DB_SECRET=thirdsecret55 in the env")
        assert "thirdsecret55" not in b.memory.get(r.id).text
        a = b.memory.retain("mine", visibility="private", agent="a1", owner="a1")
        c = b.memory.retain("mine", visibility="private", agent="a2", owner="a2")
        assert a.id != c.id and (a.action, c.action) == ("created", "created")
        with pytest.raises(ConfigError, match="needs its owner"):
            b.memory.retain("orphan", visibility="private")
    # --file relative to a subdirectory, from the CLI
    p = subprocess.run([*CLI, "retain", "db pool is tiny", "--file", "db.py", "--json"],
                       cwd=repo / "app", env=env, capture_output=True, text=True, check=True)
    mid = json.loads(p.stdout)["id"]
    with open_bank(str(repo)) as b:
        assert [(x.path, x.symbol) for x in b.memory.get(mid).anchors] == [("app/db.py", "")]
    p = subprocess.run([*CLI, "retain", "x", "--file", "nosuch.py"], cwd=repo, env=env,
                       capture_output=True, text=True)
    assert p.returncode == 6 and "no such file" in p.stderr
    # JSONL anchors in every shape show/export print, and a bad one is one line
    lines = "\n".join(json.dumps(d) for d in [
        {"text": "one", "anchors": [{"path": "app/db.py", "symbol": "connect"}]},
        {"text": "two", "anchors": ["app/db.py"]},
        {"text": "three", "anchors": [["app/db.py", "connect"]]}])
    p = subprocess.run([*CLI, "retain", "-", "--json"], input=lines, cwd=repo, env=env,
                       capture_output=True, text=True, check=True)
    out = json.loads(p.stdout)
    assert [x["action"] for x in out["items"]] == ["created"] * 3 and out["count"] == 3
    p = subprocess.run([*CLI, "retain", "-"], input='{"text": "x", "anchors": [7]}\n',
                       cwd=repo, env=env, capture_output=True, text=True)
    assert p.returncode == 2 and "an anchor is" in p.stderr and "Traceback" not in p.stderr
    # read-only commands never create a bank
    empty = tmp_path / "empty"
    empty.mkdir()
    for args in (["memories"], ["gc", "--dry-run"], ["show", "1"], ["export"]):
        p = subprocess.run([*CLI, *args], cwd=empty, env=env, capture_output=True, text=True)
        assert p.returncode == 3, (args, p.stderr)
    p = subprocess.run([*CLI, "recall", "x"], cwd=empty, env=env, capture_output=True, text=True)
    assert p.returncode == 3
    # nor record a claim on a bank id: a never-indexed git repository queried with every
    # read-only command leaves no `.owner` file and no registry entry (fresh-user run 38)
    fresh = make_repo(tmp_path / "fresh", {"a.py": "def f():\n    return 1\n"})
    home = Path(os.environ["HINDSIGHT_HOME"])
    before = sorted(str(p) for p in home.rglob("*") if p.is_file())
    for args, rc in ((["symbols", "f"], 5), (["callers", "f"], 5), (["history", "f"], 5),
                     (["memories"], 3), (["status"], 3), (["recall", "x"], 3),
                     (["config", "show"], 0)):  # (config show: break-it 39)
        p = subprocess.run([*CLI, *args], cwd=fresh, env=env, capture_output=True, text=True)
        assert p.returncode == rc, (args, p.stderr)
    after = sorted(str(p) for p in home.rglob("*") if p.is_file() and "/locks/" not in str(p))
    assert [p for p in after if p not in before] == []
    assert str(fresh) not in (home / "registry.json").read_text() if (
        home / "registry.json").exists() else True
