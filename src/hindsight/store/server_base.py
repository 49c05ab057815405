"""Storage contract of the team server (``hindsight serve``): tokens, the audit log of its
writes, idempotency keys of batch retains, the banks it serves. ``app.py`` picks the
backend (SQLite file beside the banks, or PostgreSQL); the server sees only this contract.
Same conventions as :mod:`hindsight.store.base`: times are Unix seconds (float), every
method raises :class:`hindsight.errors.StorageError` for a backend failure and never lets a
backend exception escape.
"""

from __future__ import annotations

from typing import Any, NamedTuple, Protocol

# an audit row: (at: Unix seconds, token id, agent, action, bank, memory id or None, detail)
AuditRow = tuple[float, str, str, str, str, "int | None", str]


class TokenRow(NamedTuple):
    """A server token as stored: ``id`` (public, 12 hex), ``hash`` (hex SHA-256 of the whole
    token text; the token itself is never stored), ``agent``, ``team`` ("" for none),
    ``role`` (read, write or admin), ``bank`` (a glob of bank ids, ``*`` for all), times in
    Unix seconds (``revoked_at`` None while valid)."""

    id: str
    hash: str
    agent: str
    team: str
    role: str
    bank: str
    created_at: float
    expires_at: float
    revoked_at: float | None


class TokenStore(Protocol):
    """What the team server keeps beside the memories: tokens, an audit log of its
    writes, idempotency keys of batch retains and the banks it has served. Every method
    raises :class:`hindsight.errors.StorageError` when the database fails or cannot be
    reached (the server answers 503 then). Implementations: ``store/sqlite/tokens.py``
    (a file beside the banks) and ``store/postgres/tokens.py``."""

    def ping(self) -> None:
        """Check that the database answers; raises StorageError."""
        ...

    def add_token(self, row: TokenRow) -> None:
        """Store a new token. Raises StorageError (also for an id already used)."""
        ...

    def token(self, token_id: str) -> TokenRow | None:
        """The token with this id, or None (one indexed lookup: called on every request)."""
        ...

    def tokens(self) -> list[TokenRow]:
        """Every token, oldest first."""
        ...

    def revoke(self, token_id: str, at: float) -> bool:
        """Mark the token revoked at ``at``; False when there is no such token or it was
        revoked before."""
        ...

    def add_audit(self, at: float, token_id: str, agent: str, action: str, bank: str,
                  memory_id: int | None, detail: str) -> None:
        """Record who did what (``action``: retain, forget, restore, import, token-create,
        token-revoke…)."""
        ...

    def add_audits(self, rows: list[AuditRow]) -> None:
        """Record many audit rows ``(at, token id, agent, action, bank, memory id,
        detail)`` in one transaction (a batch retain logs one per memory)."""
        ...

    def audit(self, limit: int = 100) -> list[dict[str, Any]]:
        """The latest ``limit`` audit rows, newest first: ``{"at", "token", "agent",
        "action", "bank", "memory", "detail"}``."""
        ...

    def idem_get(self, key: str, agent: str) -> tuple[str, str] | None:
        """``(request hash, response JSON)`` kept for this idempotency key of ``agent``."""
        ...

    def idem_put(self, key: str, agent: str, request_hash: str, response: str,
                 at: float) -> None:
        """Keep the response of a finished request under its key (the first one wins)."""
        ...

    def note_bank(self, bank_id: str) -> None:
        """Remember that ``bank_id`` exists on this server (idempotent)."""
        ...

    def banks(self) -> list[str]:
        """Bank ids this server has served, sorted."""
        ...

    def size_bytes(self) -> int:
        """Bytes the database takes on disk."""
        ...

    def close(self) -> None:
        """Release connections (idempotent)."""
        ...
