"""A bank whose directory cannot be written (a read-only mount, another user's files),
opened read-only so that queries still answer (fresh-user run of session 35: every
query of such a bank exited 4)."""

from __future__ import annotations

import os
import sqlite3


def writable(folder: str) -> bool:
    """Whether a file can be made in ``folder`` (``os.access`` says yes to root on a
    read-only mount)."""
    import tempfile

    if not os.access(folder, os.W_OK):
        return False
    try:
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def open_read_only(path: str, cause: BaseException) -> sqlite3.Connection:
    """The bank at ``path`` opened read-only, for a bank directory that cannot be written
    (a read-only mount, another user's files): queries answer, writes raise
    ``sqlite3.OperationalError`` (``attempt to write a readonly database``). SQLite's
    ``immutable=1`` (https://sqlite.org/uri.html) because WAL mode needs the ``-shm`` file
    it cannot create there; a ``-wal`` file left by a writer that did not finish is then
    not read, and :data:`READ_ONLY`'s note says so. Raises :class:`StorageError` when
    the file cannot be read or needs a migration (which writes)."""
    from urllib.parse import quote

    from hindsight.store.sqlite.db import MIGRATIONS, RENAMED, _error

    try:
        conn = sqlite3.connect(f"file:{quote(os.path.abspath(path))}?mode=ro&immutable=1",
                               uri=True, isolation_level=None, check_same_thread=False)
        done = {r[0] for r in conn.execute("SELECT name FROM migrations")}
    except sqlite3.Error as e:
        raise _error(path, f"cannot open bank database: {cause}; read-only: {e}", e) from e
    done |= {new for old, new in RENAMED.items() if old in done}
    if any(name not in done for name, _sql in MIGRATIONS):
        conn.close()
        raise _error(path, f"cannot open bank database: {cause} (its directory is read-only "
                     "and the bank needs a migration, which writes: open it once where it "
                     "can be written, or point HINDSIGHT_HOME at a writable directory)", cause)
    wal = path + "-wal"
    note = f"{path}: opened read-only (its directory cannot be written); commands that " \
        "write will fail"
    if os.path.isfile(wal) and os.path.getsize(wal) > 0:
        note += f"; {wal} holds changes not checkpointed, which are not read"
    READ_ONLY[path] = note
    return conn


READ_ONLY: dict[str, str] = {}
"""Banks this process opened read-only (path → the note for the user)."""
