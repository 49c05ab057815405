"""``hindsight token create|list|revoke``: the team server's tokens, on the database
``server.json`` names (see :mod:`hindsight.server.runtime`; the embedded PostgreSQL is
started for the command when ``serve`` is not running), else on ``server.db``.

``create`` prints the token once (it is stored only as a hash); ``--json`` prints exactly
``{"id", "token", "agent", "team", "role", "bank", "expires_at"}``.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Iterator
from typing import Any

import click

from hindsight.errors import NotFound

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@contextlib.contextmanager
def _store() -> Iterator[Any]:
    from hindsight.app import open_token_store
    from hindsight.server.runtime import recorded_database

    with recorded_database() as dsn:
        store = open_token_store(dsn)
        try:
            yield store
        finally:
            store.close()


def _emit(data: object) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


@click.group("token", context_settings=CONTEXT)
def token() -> None:
    """Tokens of the team server (hindsight serve)."""


@token.command("create")
@click.option("--agent", required=True, help="Who the token acts as (owner of its writes).")
@click.option("--team", default="", help="The agent's team (sees team memories).")
@click.option("--role", type=click.Choice(["read", "write", "admin"]), default="read",
              show_default=True)
@click.option("--bank", default="*", show_default=True, metavar="GLOB",
              help="Bank ids the token may use (fnmatch glob).")
@click.option("--expires", default="90d", show_default=True,
              help="Lifetime: a number and s, m, h, d or w.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON output.")
def create(agent: str, team: str, role: str, bank: str, expires: str, as_json: bool) -> None:
    """Create a token and print it (once: only its hash is kept)."""
    from hindsight.server.tokens import as_json as shape
    from hindsight.server.tokens import new_token

    row, text = new_token(agent, team=team, role=role, bank=bank, expires=expires)
    with _store() as store:
        store.add_token(row)
        store.add_audit(time.time(), row.id, agent, "token-create", bank, None,
                        f"role={role} team={team} expires_at={row.expires_at:.0f}")
    data = shape(row, text)
    if as_json:
        _emit(data)
        return
    sys.stdout.write(f"{text}\n")
    sys.stderr.write(f"token {row.id} for agent {agent!r} (team {team or '-'}, role {role}, "
                     f"banks {bank!r}) expires {data['expires_at']}; it is shown only "
                     "now\n")


@token.command("list")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON output.")
def list_(as_json: bool) -> None:
    """Every token (never their secrets), oldest first."""
    from hindsight.server.tokens import as_json as shape

    with _store() as store:
        rows = store.tokens()
    now = time.time()
    data = [{**shape(r), "valid": r.revoked_at is None and r.expires_at > now}
            for r in rows]
    if as_json:
        _emit({"tokens": data, "count": len(data)})
        return
    for d in data:
        state = "valid" if d["valid"] else ("revoked" if d["revoked_at"] else "expired")
        sys.stdout.write(f"{d['id']}  {d['agent']}  team={d['team'] or '-'}  {d['role']}  "
                         f"bank={d['bank']}  expires {d['expires_at']}  {state}\n")
    if not data:
        sys.stdout.write("no tokens\n")


@token.command("revoke")
@click.argument("token_id", metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON output.")
def revoke(token_id: str, as_json: bool) -> None:
    """Revoke token ID at once (the next request with it gets 401)."""
    with _store() as store:
        row = store.token(token_id)
        if row is None:
            raise NotFound(f"no token {token_id!r}", option="id", value=token_id)
        changed = store.revoke(token_id, time.time())
        if changed:
            store.add_audit(time.time(), token_id, row.agent, "token-revoke", row.bank,
                            None, "")
    if as_json:
        _emit({"id": token_id, "revoked": True, "was_revoked": not changed})
    else:
        sys.stdout.write(f"token {token_id} revoked" + ("" if changed else
                                                          " (it was already)") + "\n")
