"""Regressions from a break-it session on experience memory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hindsight.app import open_bank
from hindsight.errors import ConfigError

CLI = [sys.executable, "-m", "hindsight"]
TOK = "ghp_" + "QQQQBBBBCCCCDDDDEEEEFFFFGGGGHHHH3333"


@pytest.fixture(autouse=True)
def hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "hashing")


def raw_db(b: object) -> bytes:
    path = b.path  # type: ignore[attr-defined]
    return b"".join(Path(p).read_bytes() for p in (path, path + "-wal") if os.path.exists(p))


def test_every_field_is_redacted_and_imports_too(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    (root / "a.py").write_text("def f():\n    return 1\n")
    shapes = ['"password": "hunter2hunter2"', "postgres://admin:p@ssw0rd@db.example.com/x",
              "redis://:redispass123@host:6379", "Authorization: Basic YWRtaW46cGFzc3dvcmQ=",
              "PASSWORD='correct horse battery staple'", "mysql -u root -pMyRootPass123",
              "https://x.io/v1?access_token=abc123xyz987", "DB_PASS=s3cretvalue",
              "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBGXXXX\n-----END PGP PRIVATE KEY BLOCK-----"]
    secrets = [b"hunter2hunter2", b"ssw0rd", b"redispass123", b"YWRtaW46cGFzc3dvcmQ=",
               b"battery staple", b"MyRootPass123", b"abc123xyz987", b"s3cretvalue",
               b"lQOYBGXXXX", TOK.encode()]
    with open_bank(str(root)) as b:
        b.code.index()
        for s in shapes:
            b.memory.retain(f"note: {s}")
        r = b.memory.retain("provenance", session=TOK, agent=TOK, commit_sha=TOK, ref=TOK)
        b.memory.forget(r.id, f"leaked {TOK}")
        exported = list(b.memory.export_lines())
        raw = raw_db(b)
    for s in secrets:
        assert s not in raw, s
    edited = json.loads(exported[0])
    edited["text"] = f"imported with {TOK}"
    edited["session"] = TOK
    other = tmp_path / "o"
    other.mkdir()
    with open_bank(str(other)) as b2:
        assert b2.memory.import_lines([json.dumps(edited)])["imported"] == 1
        assert TOK.encode() not in raw_db(b2)


def test_opposites_are_not_near_duplicates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", "minilm")
    with open_bank(str(tmp_path)) as b:
        pairs = [("Retrying the upload fixed the flaky test",
                  "Retrying the upload did not fix the flaky test"),
                 ("Always use tabs for indentation in the Makefile",
                  "Never use tabs for indentation in the Makefile")]
        for a, c in pairs:
            assert (b.memory.retain(a).action, b.memory.retain(c).action) == ("created", "created")


def test_comments_with_secrets_and_empty_comments(tmp_path: Path) -> None:
    root = tmp_path / "c"
    root.mkdir()
    (root / "a.py").write_text("def f():\n    # @hindsight: use staging, password=hunter2hunter2\n"
                               "    return 1\n")
    (root / "c.py").write_text("def g():\n    # @hindsight:   \n    return 1\n")
    (root / "d.py").write_text("def h():\n    # @hindsight: h is hot\n    return 1\n")
    with open_bank(str(root)) as b:
        st = b.code.index()
        assert st.warnings == []
        assert sorted(m.text for m in b.memory.memories()) == [
            "h is hot", "use staging, password=[REDACTED:env_secret]"]
        (root / "e.py").write_text("x = 1\n")
        b.code.index()
        assert len(b.memory.memories()) == 2  # nothing archived by the second run
        assert b"hunter2hunter2" not in raw_db(b)


def test_supersede_rules(tmp_path: Path) -> None:
    with open_bank(str(tmp_path)) as b:
        a = b.memory.retain("Cycle alpha about ports", kind="fact").id
        with pytest.raises(ConfigError, match="cannot supersede itself"):
            b.memory.retain("Cycle alpha about ports", kind="fact", supersedes=a)
        c = b.memory.retain("Cycle beta about ports", kind="fact", supersedes=a).id
        with pytest.raises(ConfigError, match="superseded, not active"):
            b.memory.retain("gamma", kind="fact", supersedes=a)
        # retaining the superseded text again makes it current again
        again = b.memory.retain("Cycle alpha about ports", kind="fact")
        assert (again.id, again.action, b.memory.get(a).status) == (a, "duplicate", "active")
        assert b.memory.get(c).status == "active"


def test_stale_clears_when_the_edit_is_undone(tmp_path: Path) -> None:
    root = tmp_path / "s"
    root.mkdir()
    (root / "a.py").write_text("def f():\n    return 1\n")
    with open_bank(str(root)) as b:
        b.code.index()
        m = b.memory.retain("f is pure", symbols=["f"]).id
        (root / "a.py").write_text("def f():\n    return 2\n")
        b.code.index()
        assert b.memory.get(m).stale is True
        (root / "a.py").write_text("def f():\n    return 1\n")
        b.code.index()
        assert (b.memory.get(m).stale, b.memory.memories(stale=True)) == (False, [])


@pytest.mark.parametrize("line", [
    '{"text": "x", "tags": [1, 2]}', '{"text": "x", "confidence": "high"}',
    '{"text": "x", "confidence": NaN}', '{"text": "x", "occurred": 12345}',
    '{"text": "x", "occurred": "0001-01-01"}', '{"text": "x", "context": 5}',
    '{"text": "x", "supersedes": 99999999999999999999999}', '{"text": "x", "anchors": "abc"}',
    '{"text": "x", "tags": "abc"}', "[" * 100000 + "]" * 100000,
])
def test_bad_jsonl_is_one_line_and_writes_nothing(tmp_path: Path, line: str) -> None:
    env = {**os.environ, "HINDSIGHT_EMBEDDER": "hashing"}
    p = subprocess.run([*CLI, "retain", "-"], input=line + "\n", cwd=tmp_path, env=env,
                       capture_output=True, text=True)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("args", [["--since", "0001-01-01"], ["--since", "9999-12-31"],
                                  ["--until", "9999-12-31"], ["--since", "999999 days ago"]])
def test_extreme_dates_are_handled(tmp_path: Path, args: list[str]) -> None:
    env = {**os.environ, "HINDSIGHT_EMBEDDER": "hashing"}
    subprocess.run([*CLI, "retain", "a note"], cwd=tmp_path, env=env, check=True,
                   capture_output=True)
    p = subprocess.run([*CLI, "recall", "note", *args], cwd=tmp_path, env=env,
                       capture_output=True, text=True)
    assert p.returncode in (0, 2) and "Traceback" not in p.stderr, p.stderr


def test_bad_llm_settings_fall_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HINDSIGHT_LLM_URL", "notaurl")
    with open_bank(str(tmp_path)) as b:
        r = b.memory.retain("We decided to pin numpy")
        assert r.structured.startswith("rules (llm error")


@pytest.mark.parametrize(("text", "secret"), [
    ("curl -H 'X-Api-Key: abcd1234efgh5678' https://x", "abcd1234efgh5678"),
    ("api-key: zzzzyyyyxxxx9", "zzzzyyyyxxxx9"),
    ("Authorization: token 0123456789abcdef0123456789abcdef01234567",
     "0123456789abcdef0123456789abcdef01234567"),
    ("deploy --password hunter22x --force", "hunter22x"),
    ("cli --token=tok_998877665544", "tok_998877665544"),
    ("docker login -p s3cr3tpw registry.example.com", "s3cr3tpw"),
    ("export model token hf_abcdefghijklmnopqrstuvwxyz0123456789", "hf_abcdefghijklmnop"),
    ("passphrase: correcthorse", "correcthorse"),
])
def test_more_secret_shapes_are_redacted(text: str, secret: str) -> None:
    from hindsight.redact import redact

    out, kinds = redact(text)
    assert secret not in out and kinds
