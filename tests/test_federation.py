"""``recall --federated`` (issue 11, item 7): this bank on the team server, another bank on
it, a peer server answering over a signed JWT, and a peer that does not answer; all real
``hindsight serve`` subprocesses and the CLI as a subprocess."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import jwt
import pytest
from serverutil import call, cli, served, token

from hindsight.errors import Unauthorized
from hindsight.remote.federation import peer_token, weights
from hindsight.server.federation import verify

SECRET = "0123456789abcdef0123456789abcdef-peer-secret"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _retain(url: str, tok: str, bank: str, text: str, visibility: str = "team") -> None:
    st, body = call(url, "POST", "/v1/retain", {"bank": bank, "text": text,
                                                "visibility": visibility}, tok=tok)
    assert st == 200, body


def test_peer_tokens_are_checked(tmp_path: Path) -> None:
    key = tmp_path / "k1"
    key.write_text(SECRET + "\n")
    aud = "https://peer.example:8888"
    good = peer_token("k1", str(key), aud, "my::bank")
    assert verify(good, aud, {"k1": str(key)}) == "k1"
    assert jwt.get_unverified_header(good)["kid"] == "k1"
    claims = jwt.decode(good, SECRET, algorithms=["HS256"], audience=aud)
    assert claims["exp"] - claims["iat"] == 300
    with pytest.raises(Unauthorized, match="Audience"):
        verify(good, "https://other:8888", {"k1": str(key)})
    with pytest.raises(Unauthorized, match="not known"):
        verify(good, aud, {"k2": str(key)})
    old = peer_token("k1", str(key), aud, "b", now=time.time() - 600)
    with pytest.raises(Unauthorized, match="[Ee]xpired"):
        verify(old, aud, {"k1": str(key)})
    long = jwt.encode({"aud": aud, "iat": int(time.time()), "exp": int(time.time()) + 3600},
                      SECRET, algorithm="HS256", headers={"kid": "k1"})
    with pytest.raises(Unauthorized, match="over 300 s"):
        verify(long, aud, {"k1": str(key)})
    forged = jwt.encode({"aud": aud, "iat": int(time.time()), "exp": int(time.time()) + 60},
                        "another-secret-of-enough-length-32b", algorithm="HS256",
                        headers={"kid": "k1"})
    with pytest.raises(Unauthorized, match="[Ss]ignature"):
        verify(forged, aud, {"k1": str(key)})


def test_weights_default_and_configured() -> None:
    assert weights({}) == {"self": 1.0, "bank": 0.8, "peer": 0.5}
    assert weights({"peer": "0.25"})["peer"] == 0.25
    with pytest.raises(Exception, match="not one of"):
        weights({"peers": "1"})


def test_federated_recall_over_banks_and_peers(tmp_path: Path) -> None:
    key = tmp_path / "k1"
    key.write_text(SECRET + "\n")
    with served(tmp_path / "a") as a, served(tmp_path / "b", HINDSIGHT_PEER_KEYS=json.dumps(
            {"k1": str(key)})) as b:
        ta = token(tmp_path / "a", "alice", "--role", "write")
        tb = token(tmp_path / "b", "bert", "--team", "red", "--role", "write")
        _retain(a.url, ta, "mine", "Invoices are numbered per tenant, mine.")
        _retain(a.url, ta, "theirs", "Invoices are rendered with the PDF worker, theirs.")
        _retain(b.url, tb, "peer", "Invoices are archived after seven years, public.",
                "public")
        _retain(b.url, tb, "peer", "Invoices team-only note on the peer.", "team")
        _retain(b.url, tb, "peer", "Invoices private note on the peer.", "private")
        dead = f"http://127.0.0.1:{_free_port()}"
        (tmp_path / "c").mkdir()
        tf = tmp_path / "c" / "tok"
        tf.write_text(ta)
        extra = {"HINDSIGHT_API_URL": a.url, "HINDSIGHT_API_TOKEN_FILE": str(tf),
                 "HINDSIGHT_BANK_ID": "mine", "HINDSIGHT_FEDERATION_BANKS": "theirs",
                 "HINDSIGHT_FEDERATION_PEERS": json.dumps([f"{b.url} peer", f"{dead} gone"]),
                 "HINDSIGHT_FEDERATION_KEY_ID": "k1",
                 "HINDSIGHT_FEDERATION_KEY_FILE": str(key),
                 "HINDSIGHT_FEDERATION_TIMEOUT_S": "3"}
        repo = tmp_path / "c" / "repo"
        repo.mkdir()
        r = cli(tmp_path / "c" / "hs", "recall", "invoices", "--federated", "--json",
                "--repo-root", str(repo), **extra)
        res = json.loads(r.stdout)
        got = [(h["bank"], h["server"], h["text"], round(h["score"], 6)) for h in res["hits"]]
        assert got == [
            ("mine", a.url, "Invoices are numbered per tenant, mine.", round(1.0 / 61, 6)),
            ("theirs", a.url, "Invoices are rendered with the PDF worker, theirs.",
             round(0.8 / 61, 6)),
            ("peer", b.url, "Invoices are archived after seven years, public.",
             round(0.5 / 61, 6))]
        assert (res["partial"], res["timed_out"]) == (True, [f"gone@{dead}"])
        # the same peer key mapped to a team also sees team memories, never private ones
    with served(tmp_path / "b", HINDSIGHT_PEER_KEYS=json.dumps({"k1": str(key)}),
                HINDSIGHT_PEER_TEAMS=json.dumps({"k1": "red"})) as b2:
        aud = b2.url
        st, body = call(b2.url, "POST", "/v1/peer/recall", {"bank": "peer", "text": "invoices"},
                        headers={"Authorization": "Bearer " + peer_token(
                            "k1", str(key), aud, "mine")})
        assert st == 200, body
        assert sorted(h["visibility"] for h in body["hits"]) == ["public", "team"]
        st, body = call(b2.url, "POST", "/v1/peer/recall", {"bank": "peer", "text": "x"},
                        headers={"Authorization": "Bearer nonsense"})
        assert st == 401
