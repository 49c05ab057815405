"""One exception tree for hindsight.

Every error raised on purpose by hindsight derives from :class:`HindsightError`; foreign
errors (sqlite3, OSError, subprocess) are translated at the boundary that meets them. The CLI
maps any ``HindsightError`` to one line on stderr and exit code ``exit_code``.
"""

from __future__ import annotations


class HindsightError(Exception):
    """Base of every hindsight error. ``exit_code`` is what the CLI exits with."""

    exit_code = 1


class ConfigError(HindsightError):
    """A setting or argument is invalid (bad path, unknown option value)."""

    exit_code = 2


class BankNotFound(HindsightError):
    """The bank asked for does not exist (and was not to be created)."""

    exit_code = 3


class StorageError(HindsightError):
    """The bank's database cannot be opened, migrated, read or written."""

    exit_code = 4


class ParseError(HindsightError):
    """A source file could not be read or parsed at all (partial parses are not errors)."""


class NotIndexed(HindsightError):
    """A query was made on a repository that has never been indexed."""

    exit_code = 5


class NotFound(HindsightError):
    """A queried symbol or file does not exist in the index."""

    exit_code = 6


class Ambiguous(HindsightError):
    """A name matched several symbols where exactly one was needed."""

    exit_code = 7

    def __init__(self, message: str, candidates: list[str]) -> None:
        super().__init__(message)
        self.candidates = candidates


class GitError(HindsightError):
    """git is missing, or a git command the operation needs failed (the message names the
    command and git's own first line of error)."""

    exit_code = 8


class ProviderError(HindsightError):
    """An embedding model, reranker or LLM could not be loaded or called."""

    exit_code = 9
