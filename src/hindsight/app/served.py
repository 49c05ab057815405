"""The team server's side of the composition root: a bank as ``hindsight serve`` holds it
(memories only, no checkout), its token store and the embedded PostgreSQL. Re-exported by
:mod:`hindsight.app`, which the adapters import."""

from __future__ import annotations

import os
from typing import Any

from hindsight.app import Bank, _db_size, _shared_memory, _sqlite_stores
from hindsight.config.paths import Home, bank_file
from hindsight.errors import BankNotFound, ConfigError
from hindsight.store.server_base import TokenRow as TokenRow
from hindsight.store.server_base import TokenStore as TokenStore


class ServedBank(Bank):
    """A bank served by ``hindsight serve``: memories only, no checkout on this machine
    (``root`` is ""). Anchors are taken as the client gives them: a file is a
    repository-relative path, a symbol ``path::local``; nothing is checked against files
    (the client's code index computes staleness, issue 11)."""

    @property
    def parallel_reads(self) -> bool:
        """Whether reads may run in several threads at once without the bank's lock: its
        memories are on PostgreSQL (each call takes its own pooled connection); a SQLite
        bank has one connection, so its calls take turns."""
        return self.stores.shared is not None

    @staticmethod
    def relative(path: str, option: str = "files") -> str:
        """``path`` as a served bank keeps it: repository-relative, ``/`` separated, no
        ``..``. Raises ConfigError naming ``option``."""
        import posixpath

        p = posixpath.normpath(path.replace("\\", "/")) if path else ""
        if not p or p.startswith(("/", "../")) or p in (".", ".."):
            raise ConfigError(f"{option.rstrip('s')} {path!r}: a path relative to the "
                              "repository root", option=option, value=path)
        return p

    def _anchors(self, files: list[str], symbols: list[str], must_exist: bool = True
                 ) -> list[tuple[str, str, str]]:
        from hindsight.qnames import split_qname

        out: list[tuple[str, str, str]] = [(self.relative(f), "", "") for f in files]
        for spec in symbols:
            pair = split_qname(spec)
            if pair is None or not pair[0] or not pair[1]:
                raise ConfigError(f"symbol {spec!r}: give path::name (the server has no "
                                  "code index)", option="symbols", value=spec)
            out.append((pair[0], pair[1], ""))
        return out


def open_served_bank(bank_id: str, *, create: bool = True) -> ServedBank:
    """The bank ``bank_id`` as the team server holds it (``$HINDSIGHT_HOME/banks``, made
    when missing unless ``create`` is false). Raises ConfigError for an empty id or one
    over 200 characters, BankNotFound, StorageError."""
    from hindsight.config.settings import load

    if not bank_id.strip() or len(bank_id) > 200 or "\0" in bank_id:
        raise ConfigError(f"bank {bank_id[:40]!r}: 1 to 200 characters, no NUL",
                          option="bank", value=bank_id[:200])
    db = bank_file(bank_id)
    settings = load(bank_id=bank_id)
    if not create and not os.path.exists(db) and not (
            settings.database_url and _on_database(settings.database_url, bank_id)):
        # a bank another server on the same database made counts (its local file, which
        # keeps only this server's meta keys, is made here)
        raise BankNotFound(f"no bank {bank_id!r} on this server", value=bank_id)
    stores = _sqlite_stores(db, bank_id, "", settings.busy_timeout_ms)
    if settings.database_url:  # memories on PostgreSQL (serve --embedded-postgres sets it)
        stores = _shared_memory(stores, settings.database_url, bank_id,
                                settings.busy_timeout_ms)
    return ServedBank(bank_id, "", db, stores)


def _on_database(url: str, bank_id: str) -> bool:
    from hindsight.store.postgres import has_bank

    return bool(has_bank(url, bank_id))


def served_bank_bytes(bank: Bank) -> int:
    """Bytes the bank's database takes on disk (its file and write-ahead log)."""
    return _db_size(bank.path)


def open_token_store(database_url: str = "") -> TokenStore:
    """The team server's token store: PostgreSQL at ``database_url`` when given, else
    ``$HINDSIGHT_HOME/server.db``. Raises StorageError, ConfigError (PostgreSQL support
    not installed: the ``server`` extra)."""
    if database_url:
        try:
            from hindsight.store.postgres.tokens import PostgresTokenStore
        except ImportError as e:
            raise ConfigError(f"PostgreSQL needs the server extra ({e.name} is missing): "
                              "pip install 'hindsight-code[server]'") from None
        return PostgresTokenStore(database_url)
    from hindsight.config.settings import load
    from hindsight.store.sqlite.tokens import SqliteTokenStore

    home = Home.current()
    Home.ensure(home.root, private=True)
    return SqliteTokenStore(home.server_db, load().busy_timeout_ms)


def embedded_postgres(data_dir: str | None = None, port: int = 0) -> Any:
    """An :class:`hindsight.store.postgres.embedded.EmbeddedPostgres` (not started) on
    ``data_dir`` (None: its default for this home) and ``port`` (0: a free one)."""
    from pathlib import Path

    from hindsight.store.postgres.embedded import EmbeddedPostgres, default_data_dir

    d = Path(data_dir) if data_dir else default_data_dir(Path(Home.current().root))
    return EmbeddedPostgres(d.absolute(), port)
