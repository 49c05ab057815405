"""The banks one control-plane server shows: the one it was started for and the others
this machine knows (``registry.json``), each opened on first use and kept open.

A :class:`Served` bank pairs the open :class:`hindsight.app.Bank` with a lock: the bank's
connection is shared by the server's worker threads, so every view holds the lock while it
calls the bank's services.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hindsight.errors import ConfigError


@dataclass
class Served:
    """One open bank and the lock its views hold."""

    bank: Any
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def root(self) -> str:
        return str(self.bank.root)


class UiState:
    """What the server shares between requests: the ``token`` of this run, the default
    repository root (``None``: the current directory's repository) and the open banks.
    ``opener(root, default)`` opens a bank (default: :func:`hindsight.app.open_bank`,
    existing banks only)."""

    def __init__(self, token: str, default_root: str | None = None,
                 opener: Callable[[str | None], Any] | None = None) -> None:
        self.token = token
        self.default_root = default_root
        self._open = opener or _open_existing
        self._banks: dict[str, Served] = {}
        self._default: Served | None = None
        self._lock = threading.Lock()

    def default(self) -> Served:
        """The bank the server was started for. Raises BankNotFound, ConfigError."""
        with self._lock:
            if self._default is None:
                served = Served(self._open(self.default_root))
                self._default = self._banks.setdefault(served.root, served)
            return self._default

    def served(self, root: str | None) -> Served:
        """The bank of ``root`` (one of :meth:`known`), or the default for ``None`` or a
        root no longer known. Raises BankNotFound, ConfigError, StorageError."""
        if not root:
            return self.default()
        with self._lock:
            if root in self._banks:
                return self._banks[root]
        if root not in {r for r, _b in self.known()}:
            return self.default()
        with self._lock:
            if root not in self._banks:
                self._banks[root] = Served(self._open(root))
            return self._banks[root]

    def known(self) -> list[tuple[str, str]]:
        """``(root, bank id)`` of the banks this machine has: those open here, then each
        bank of ``registry.json`` whose file exists and whose main worktree (else another
        recorded worktree) still exists; one root per bank id."""
        from hindsight.config.banks import read_registry
        from hindsight.config.paths import bank_file

        with self._lock:
            out = {s.bank.bank_id: s.root for s in self._banks.values()}
        reg = read_registry()
        cands: dict[str, list[tuple[bool, str]]] = {}
        for root, rec in reg["roots"].items():
            if isinstance(rec, list) and len(rec) == 2 and isinstance(rec[0], str):
                cands.setdefault(rec[0], []).append((root != rec[1], root))
        for bank_id, roots in sorted(cands.items()):
            if bank_id in out or not os.path.exists(bank_file(bank_id)):
                continue
            alive = [r for _not_main, r in sorted(roots) if os.path.isdir(r)]
            if alive:
                out[bank_id] = alive[0]
        return [(root, bank_id) for bank_id, root in out.items()]

    def close(self) -> None:
        with self._lock:
            for s in self._banks.values():
                s.bank.close()
            self._banks.clear()
            self._default = None


def _open_existing(root: str | None) -> Any:
    """The existing bank of ``root`` (``None``: of the current directory's repository)."""
    from hindsight.app import open_bank

    if root is not None and not os.path.isdir(root):
        raise ConfigError(f"{root}: not a directory", path=root)
    if root is None:
        return open_bank(".", create=False)
    return open_bank(".", repo_root_path=root, create=False)
