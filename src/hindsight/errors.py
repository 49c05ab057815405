"""One exception tree for hindsight.

Every error raised on purpose by hindsight derives from :class:`HindsightError`; foreign
errors (sqlite3, OSError, subprocess) are translated at the boundary that meets them (the
storage backend, the git reader). Messages say what and where, in words that suit every
interface ("kind 'x': one of …", not "--kind"); the fields say the rest, and each
interface words them once: the CLI maps ``action`` to the command to run and ``option`` to
its flag, the MCP server to its tool and argument names. ``exit_code`` is the CLI's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class HindsightError(Exception):
    """Base of every hindsight error.

    Fields (all optional, keyword-only): ``option`` (the setting or argument at fault,
    named as in the Python API, e.g. ``"kind"``), ``value`` (what was given), ``choices``
    (the allowed values), ``path`` (the file or directory concerned), ``action`` (what
    would fix it: ``"index"``, ``"ingest"``), ``root`` (the repository concerned)."""

    exit_code = 1

    def __init__(self, message: str, *, option: str | None = None, value: Any = None,
                 choices: Sequence[str] = (), path: str | None = None,
                 action: str | None = None, root: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.option = option
        self.value = value
        self.choices = tuple(choices)
        self.path = path
        self.action = action
        self.root = root


class ConfigError(HindsightError):
    """A setting or argument is invalid (bad path, unknown option value)."""

    exit_code = 2


class BankNotFound(HindsightError):
    """The bank asked for does not exist (and was not to be created)."""

    exit_code = 3


class StorageError(HindsightError):
    """The bank's database cannot be opened, migrated, read or written."""

    exit_code = 4


class Busy(StorageError):
    """The bank stayed busy with an earlier call (or another writer) for the whole
    deadline."""


class ParseError(HindsightError):
    """A source file could not be read or parsed at all (partial parses are not errors)."""


class NotIndexed(HindsightError):
    """A query was made on a repository that has never been indexed (``action`` is
    ``"index"``) or whose history was never ingested (``action`` is ``"ingest"``)."""

    exit_code = 5


class NotFound(HindsightError):
    """A queried symbol, file or memory does not exist."""

    exit_code = 6


class Ambiguous(HindsightError):
    """A name matched several symbols where exactly one was needed; ``candidates`` lists
    their qualified names."""

    exit_code = 7

    def __init__(self, message: str, candidates: list[str], **fields: Any) -> None:
        super().__init__(message, **fields)
        self.candidates = candidates


class GitError(HindsightError):
    """git is missing, or a git command the operation needs failed (the message names the
    command and git's own first line of error)."""

    exit_code = 8


class ProviderError(HindsightError):
    """An embedding model, reranker or LLM could not be loaded or called."""

    exit_code = 9


class Forbidden(HindsightError):
    """The caller's token does not allow this (another bank, a read-only role writing, an
    action only an admin may take)."""

    exit_code = 10


class Unauthorized(HindsightError):
    """No valid token: none given, unknown, revoked or expired (HTTP 401)."""

    exit_code = 11


class Unreachable(HindsightError):
    """Client mode: the server did not answer (refused, timed out, 5xx) or speaks another
    API version."""

    exit_code = 12
