"""Server tokens: their text, their hash, who they name and what they allow.

A token reads ``hst_<id>_<secret>``: ``id`` is 12 hex digits (public, the key of its row),
``secret`` 32 random bytes (``secrets.token_urlsafe``, 43 characters). The server keeps
only the SHA-256 of the whole text (hex) and compares it in constant time. Why not argon2:
argon2 slows the guessing of low-entropy passwords, at ≈ 50 ms and 64 MiB per check here;
a token carries 256 random bits, which no guessing reaches, so a fast hash loses nothing
and every request costs one indexed row lookup plus one SHA-256 (the scheme GitHub uses
for its tokens).

Roles (issue 11, item 4): ``read`` (recall, list, show, reflect, export), ``write``
(also retain, forget, restore, import), ``admin`` (also sees every memory and may set an
owner on import). ``bank`` is a glob of bank ids (``fnmatch`` rules, case-sensitive).
"""

from __future__ import annotations

import fnmatch
import hashlib
import hmac
import re
import secrets
import time
from dataclasses import dataclass

from hindsight.app import TokenRow, TokenStore, Viewer
from hindsight.errors import ConfigError, Forbidden, Unauthorized

PREFIX = "hst_"
ROLES = ("read", "write", "admin")
DEFAULT_EXPIRES = "90d"
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800}
MAX_EXPIRES_S = 10 * 365 * 86_400  # ten years
_TOKEN = re.compile(r"hst_([0-9a-f]{12})_([A-Za-z0-9_-]{43})")
_NAME = re.compile(r"[^\x00-\x1f\x7f]{1,100}")


def token_hash(text: str) -> str:
    """Hex SHA-256 of the token text (UTF-8)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def expiry_seconds(text: str) -> int:
    """``90d``, ``12h``, ``30m``, ``45s``, ``2w`` as seconds (1 s to ten years). Raises
    ConfigError (option ``expires``)."""
    m = re.fullmatch(r"\s*(\d{1,9})\s*([smhdw])\s*", text or "")
    if not m:
        raise ConfigError(f"expires {text!r}: a number and a unit, s m h d or w (e.g. 90d)",
                          option="expires", value=text)
    secs = int(m.group(1)) * UNITS[m.group(2)]
    if not 0 < secs <= MAX_EXPIRES_S:
        raise ConfigError(f"expires {text!r}: from 1 s to 10 years", option="expires",
                          value=text)
    return secs


def _name(option: str, value: str, empty_ok: bool = False) -> str:
    if value == "" and empty_ok:
        return value
    if not _NAME.fullmatch(value) or not value.strip():
        raise ConfigError(f"{option} {value[:40]!r}: 1 to 100 printable characters",
                          option=option, value=value[:100])
    return value


def new_token(agent: str, *, team: str = "", role: str = "read", bank: str = "*",
              expires: str = DEFAULT_EXPIRES, now: float | None = None
              ) -> tuple[TokenRow, str]:
    """A new token's row (to store) and its text (to show once). Raises ConfigError for
    an empty or overlong agent, team or bank glob, an unknown role or a bad expiry."""
    if role not in ROLES:
        raise ConfigError(f"role {role!r}: one of {', '.join(ROLES)}", option="role",
                          value=role, choices=ROLES)
    _name("agent", agent)
    _name("team", team, empty_ok=True)
    _name("bank", bank)
    now = time.time() if now is None else now
    tid = secrets.token_hex(6)
    text = f"{PREFIX}{tid}_{secrets.token_urlsafe(32)}"
    row = TokenRow(tid, token_hash(text), agent, team, role, bank, now,
                   now + expiry_seconds(expires), None)
    return row, text


@dataclass(frozen=True)
class Principal:
    """Who a request acts as, from its token: ``token`` id, ``agent``, ``team``,
    ``role``, ``bank`` glob."""

    token: str
    agent: str
    team: str
    role: str
    bank: str

    @property
    def viewer(self) -> Viewer:
        """The memory service's :class:`Viewer` for this principal."""
        return Viewer(self.agent, self.team, self.role == "admin")

    def may_use(self, bank_id: str) -> bool:
        """True when the token's bank glob matches ``bank_id``."""
        return fnmatch.fnmatchcase(bank_id, self.bank)

    def require(self, bank_id: str, role: str = "read") -> None:
        """Raise Forbidden unless this token may use ``bank_id`` with ``role``."""
        if not self.may_use(bank_id):
            raise Forbidden(f"this token is for banks {self.bank!r}, not {bank_id!r}",
                            option="bank", value=bank_id)
        if ROLES.index(self.role) < ROLES.index(role):
            raise Forbidden(f"this token's role is {self.role}; {role} is needed",
                            option="role", value=self.role)


def authenticate(store: TokenStore, header: str | None, now: float | None = None
                 ) -> Principal:
    """The principal of an ``Authorization: Bearer <token>`` header. Raises Unauthorized
    (no header, not a bearer token, unknown, wrong secret, revoked, expired) and
    StorageError (the token database cannot be reached)."""
    if not header:
        raise Unauthorized("no token: send Authorization: Bearer <token>")
    scheme, _sp, text = header.strip().partition(" ")
    m = _TOKEN.fullmatch(text.strip()) if scheme.lower() == "bearer" else None
    if m is None:
        raise Unauthorized("not a hindsight token: send Authorization: Bearer hst_…")
    row = store.token(m.group(1))
    if row is None or not hmac.compare_digest(row.hash, token_hash(text.strip())):
        raise Unauthorized("unknown token")
    now = time.time() if now is None else now
    if row.revoked_at is not None:
        raise Unauthorized(f"token {row.id} was revoked")
    if row.expires_at <= now:
        raise Unauthorized(f"token {row.id} has expired")
    return Principal(row.id, row.agent, row.team, row.role, row.bank)


def as_json(row: TokenRow, text: str | None = None) -> dict[str, object]:
    """The token as ``token create --json`` prints it (``text`` given) or as ``token list
    --json`` lists it: id, agent, team, role, bank, expires_at (ISO 8601, UTC)."""
    from datetime import UTC, datetime

    def iso(ts: float) -> str:
        return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")

    out: dict[str, object] = {"id": row.id}
    if text is not None:
        out["token"] = text
    out.update(agent=row.agent, team=row.team, role=row.role, bank=row.bank,
               expires_at=iso(row.expires_at))
    if text is None:
        out.update(created_at=iso(row.created_at),
                   revoked_at=iso(row.revoked_at) if row.revoked_at is not None else None)
    return out
