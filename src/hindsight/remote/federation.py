"""``recall --federated``: one recall over this bank, other banks on the same server
(``federationBanks``, client mode) and peer servers (``federationPeers``, ``URL BANK``).

Every source answers its own best ``k``; they are merged by weighted reciprocal-rank
fusion, score = weight / (60 + rank) (RRF, Cormack, Clarke & Büttcher 2009, k = 60: the
sources' own scores are not on one scale), weights from ``federationWeights`` (``self``
1.0, ``bank`` 0.8, ``peer`` 0.5 by default, as issue 11 sets them). Each hit is labelled
with its ``bank`` and ``server`` (``local`` for this machine). A peer gets a JWT signed
HS256 with ``federationKeyFile``'s secret, header ``kid`` = ``federationKeyId``, audience
its URL, lifetime 300 s (:mod:`hindsight.server.federation` checks it). Sources that do not
answer within ``federationTimeoutS`` are left out: ``partial`` true, ``timed_out`` names
them.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Any

from hindsight.errors import ConfigError, HindsightError
from hindsight.remote.client import ServerClient

RRF_K = 60
WEIGHTS = {"self": 1.0, "bank": 0.8, "peer": 0.5}
LIFETIME_S = 300


def weights(given: dict[str, str]) -> dict[str, float]:
    """``federationWeights`` as numbers over the defaults; ConfigError for a bad one."""
    out = dict(WEIGHTS)
    for k, v in given.items():
        if k not in WEIGHTS:
            raise ConfigError(f"federationWeights: {k!r} is not one of self, bank, peer",
                              option="federationWeights", value=k, choices=list(WEIGHTS))
        try:
            out[k] = float(v)
        except ValueError:
            raise ConfigError(f"federationWeights.{k}: {v!r} is not a number",
                              option="federationWeights", value=v) from None
        if not 0 <= out[k] <= 10:
            raise ConfigError(f"federationWeights.{k}: from 0 to 10", option="federationWeights",
                              value=v)
    return out


def peer_token(key_id: str, key_file: str, audience: str, subject: str,
               now: float | None = None) -> str:
    """A JWT for a peer: HS256, ``kid`` header, ``aud`` the peer's URL, ``iat``/``exp``
    300 s apart. Raises ConfigError without a key id or a readable key file."""
    import jwt

    if not key_id or not key_file:
        raise ConfigError("federated peers need federationKeyId and federationKeyFile",
                          option="federationKeyId")
    try:
        with open(key_file, encoding="utf-8") as fh:
            secret = fh.readline().strip()
    except OSError as e:
        raise ConfigError(f"federationKeyFile {key_file}: {e.strerror}",
                          option="federationKeyFile", path=key_file) from None
    t = int(now if now is not None else time.time())
    return jwt.encode({"iss": "hindsight", "sub": subject, "aud": audience, "iat": t,
                       "exp": t + LIFETIME_S}, secret, algorithm="HS256",
                      headers={"kid": key_id})


def _peers(entries: tuple[str, ...]) -> list[tuple[str, str]]:
    out = []
    for e in entries:
        parts = e.split()
        if len(parts) != 2:
            raise ConfigError(f"federationPeers entry {e!r}: give 'URL BANK'",
                              option="federationPeers", value=e)
        out.append((parts[0].rstrip("/"), parts[1]))
    return out


def federated_recall(memory: Any, settings: Any, bank_id: str, text: str, k: int = 10
                     ) -> dict[str, Any]:
    """The merged hits (module doc) as ``{"hits", "count", "partial", "timed_out",
    "sources"}``; each hit is a memory's JSON with ``bank``, ``server``, ``score`` (the
    weighted RRF) and ``source_rank``. Raises ConfigError for bad federation settings or
    other banks without client mode."""
    w = weights(dict(settings.federation_weights))
    peers = _peers(tuple(settings.federation_peers))
    client: ServerClient | None = getattr(memory, "client", None)
    if settings.federation_banks and client is None:
        raise ConfigError("federationBanks needs client mode (apiUrl): they are banks on "
                          "the team server", option="federationBanks")
    here = client.url if client is not None else "local"
    jobs: dict[tuple[str, str], tuple[float, Any]] = {}
    jobs[(bank_id, here)] = (w["self"], lambda: [
        {**h.memory.as_dict(), "score": h.score} for h in memory.recall(text, k=k).hits])
    for b in settings.federation_banks:
        assert client is not None

        def other(b: str = b) -> list[dict[str, Any]]:
            res = client.request("POST", "/v1/recall", {"bank": b, "text": text, "k": k})
            return list(res["hits"])
        jobs[(b, here)] = (w["bank"], other)
    tmo = float(settings.federation_timeout_s)
    for url, b in peers:
        tok = peer_token(settings.federation_key_id, settings.federation_key_file, url,
                         bank_id)

        def peer(url: str = url, b: str = b, tok: str = tok) -> list[dict[str, Any]]:
            pc = ServerClient(url, token=tok, timeout_s=tmo)
            return list(pc.request("POST", "/v1/peer/recall", {"bank": b, "text": text,
                                                               "k": k})["hits"])
        jobs[(b, url)] = (w["peer"], peer)
    pool = ThreadPoolExecutor(max_workers=min(8, len(jobs)))
    futs = {pool.submit(fn): key for key, (_w, fn) in jobs.items()}
    done, _late = wait(futs, timeout=tmo + 0.5)
    pool.shutdown(wait=False, cancel_futures=True)
    merged: list[dict[str, Any]] = []
    timed_out: list[str] = []
    sources: list[dict[str, Any]] = []
    for fut, (b, server) in futs.items():
        label = f"{b}@{server}"
        err = None
        if fut not in done:
            err = "timed out"
        elif (exc := fut.exception()) is not None:
            if (b, server) == (bank_id, here):
                raise exc
            err = " ".join(str(exc).split()) or type(exc).__name__  # a peer's fault
        if err is not None:
            if (b, server) == (bank_id, here):
                raise HindsightError(f"this bank did not answer: {err}")
            timed_out.append(label)
            sources.append({"bank": b, "server": server, "error": err})
            continue
        hits = fut.result()
        sources.append({"bank": b, "server": server, "hits": len(hits)})
        for rank, h in enumerate(hits, 1):
            merged.append({**h, "bank": b, "server": server, "source_rank": rank,
                           "score": jobs[(b, server)][0] / (RRF_K + rank)})
    merged.sort(key=lambda h: (-h["score"], h["bank"], h["id"]))
    merged = merged[:k]
    return {"hits": merged, "count": len(merged), "partial": bool(timed_out),
            "timed_out": timed_out, "sources": sources}
