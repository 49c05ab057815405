"""``POST /v1/peer/recall``: recall for another hindsight server (``recall --federated``).

A peer call carries ``Authorization: Bearer <JWT>`` signed HS256 with a key both servers
share (RFC 7519; PyJWT): header ``kid`` names the key (setting ``peerKeys``: key id → file
holding the secret), ``aud`` must be ``peerAudience`` (default this server's own base URL as
the request reached it), ``exp`` is required and at most 300 s after ``iat``. A peer whose
key id is mapped to a team (``peerTeams``) sees public and team memories; any other peer
sees public memories only; private ones never. Rotation: add the new key id on the
answering server, switch the caller's ``federationKeyId``/``federationKeyFile``, then remove
the old id.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Request
from pydantic import BaseModel, ConfigDict, Field

from hindsight.errors import ConfigError, Unauthorized

router = APIRouter()
MAX_LIFETIME_S = 300  # the bound: a peer token lives at most 5 minutes


class PeerRecall(BaseModel):
    model_config = ConfigDict(extra="forbid")
    bank: Annotated[str, Field(min_length=1, max_length=200)]
    text: Annotated[str, Field(max_length=10_000)]
    k: Annotated[int, Field(ge=1, le=100)] = 10


def _secret(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.readline().strip()
    except OSError as e:
        raise ConfigError(f"peerKeys: {path}: {e.strerror}", option="peerKeys",
                          path=path) from None


def verify(token: str, audience: str, keys: dict[str, str]) -> str:
    """The key id of a valid peer ``token``; raises Unauthorized (unknown key id, bad
    signature, wrong audience, expired, or a lifetime over 300 s)."""
    import jwt

    try:
        kid = str(jwt.get_unverified_header(token).get("kid") or "")
        if kid not in keys:
            raise Unauthorized(f"peer key id {kid!r} is not known here")
        claims = jwt.decode(token, _secret(keys[kid]), algorithms=["HS256"],
                            audience=audience, options={"require": ["exp", "iat", "aud"]})
    except jwt.PyJWTError as e:
        raise Unauthorized(f"peer token: {e}") from None
    if float(claims["exp"]) - float(claims["iat"]) > MAX_LIFETIME_S:
        raise Unauthorized(f"peer token: lives over {MAX_LIFETIME_S} s")
    return kid


@router.post("/v1/peer/recall", tags=["federation"])
def peer_recall(request: Request, body: PeerRecall,
                authorization: Annotated[str | None, Header(include_in_schema=False)] = None
                ) -> dict[str, Any]:
    """Memories of ``bank`` for a peer server: public ones (and team ones for a key mapped
    to a team), as ``/v1/recall`` shapes them, without explain."""
    from hindsight.config.settings import load
    from hindsight.server.tokens import Principal

    s = load()
    if not authorization or not authorization.startswith("Bearer "):
        raise Unauthorized("a peer call needs Authorization: Bearer <JWT>")
    audience = s.peer_audience or str(request.base_url).rstrip("/")
    kid = verify(authorization[7:].strip(), audience, dict(s.peer_keys))
    team = dict(s.peer_teams).get(kid, "")
    who = Principal(f"peer:{kid}", f"peer:{kid}", team, "read", "*")
    res = request.app.state.hs.scoped(who, body.bank).recall(body.text, k=body.k * 3,
                                                             embed=False, touch=False)
    seen = ("public", "team") if team else ("public",)
    hits = [h for h in res.hits if h.memory.visibility in seen][:body.k]
    out = [{**h.memory.as_dict(), "score": h.score} for h in hits]
    return {"bank": body.bank, "hits": out, "count": len(out), "team": team}
