"""Safe edits of an agent's config file (JSON or TOML), for install/uninstall: every
file is parsed before any is written (invalid JSON/TOML raises ConfigError and changes
nothing); a file that changes first gets a timestamped backup
``<file>.hindsight-backup-<UTC yyyymmddThhmmss>``; the first install keeps
``<file>.hindsight-orig``, whose bytes come back when an uninstall leaves the file
semantically equal to it; a file that held only our entries is deleted. Writes are atomic
(temp file + ``os.replace``) and keep the file's mode."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import tomlkit
from tomlkit.exceptions import ParseError

from hindsight.errors import ConfigError

BACKUP_INFIX = ".hindsight-backup-"
ORIG_SUFFIX = ".hindsight-orig"

# A mutator maps (document, path) to (document, [(action, entry)]), action one of
# added / updated / removed (the file changes) or present / conflict (it does not).
Changes = list[tuple[str, str]]
Mutator = Callable[[Any, str], tuple[Any, Changes]]


def plain(value: Any) -> Any:
    return value.unwrap() if hasattr(value, "unwrap") else value


def _empty(doc: Any) -> bool:
    return not doc


@dataclass(frozen=True)
class Format:
    parse: Callable[[str, str], Any]  # (text, path) -> document; raises ConfigError
    dump: Callable[[Any], str]
    # whether a document holds nothing of the user's once our entries are gone (a file we
    # created is then deleted); e.g. Cursor's hooks.json keeps only ``{"version": 1}``
    bare: Callable[[Any], bool] = _empty


def parse_json(text: str, path: str) -> Any:
    if not text.strip():
        return {}
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(
            f"{path}: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
    if not isinstance(doc, dict):
        raise ConfigError(f"{path}: expected a JSON object at the top level")
    return doc


def parse_toml(text: str, path: str) -> Any:
    try:
        return tomlkit.parse(text)
    except ParseError as e:
        msg = str(e).split(" at line ")[0]
        raise ConfigError(
            f"{path}: invalid TOML at line {e.line} column {e.col}: {msg}") from None


JSON = Format(parse_json, lambda d: json.dumps(d, indent=2, ensure_ascii=False) + "\n")
TOML = Format(parse_toml, tomlkit.dumps)


@dataclass
class Plan:
    path: str
    fmt: Format
    original: bytes | None
    doc: Any
    changes: Changes


def read_bytes(path: str) -> bytes | None:
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror}") from None


def decode(data: bytes, path: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: not UTF-8 text (byte {e.start})") from None


def plan_edit(path: str, fmt: Format, mutate: Mutator) -> Plan:
    if os.path.islink(path):  # edit the file a dotfiles symlink points to, keep the link
        path = os.path.realpath(path)
    original = read_bytes(path)
    doc = fmt.parse("" if original is None else decode(original, path), path)
    doc, changes = mutate(doc, path)
    return Plan(path, fmt, original, doc, changes)


def _mode(path: str) -> int:
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def _atomic_write(path: str, data: bytes, mode: int) -> None:
    folder = os.path.dirname(path) or "."
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _write_new(path: str, data: bytes, mode: int) -> bool:
    """Create ``path`` holding ``data``; False (nothing written) if it already exists."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    except FileExistsError:
        return False
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    return True


def _backup(path: str, data: bytes, mode: int) -> str:
    base = f"{path}{BACKUP_INFIX}{datetime.now(UTC).strftime('%Y%m%dT%H%M%S')}"
    n = 0
    while not _write_new(candidate := f"{base}-{n}" if n else base, data, mode):
        n += 1
    return candidate


def _same_as(plan: Plan, pristine: bytes) -> bool:
    try:
        return bool(plain(plan.fmt.parse(decode(pristine, plan.path), plan.path))
                    == plain(plan.doc))
    except ConfigError:
        return False


def commit(plan: Plan, install: bool) -> dict[str, Any]:
    """Write one planned file; returns ``{"path", "status", "backup", "changes"}``, status
    one of created / changed / restored / deleted / unchanged."""
    result: dict[str, Any] = {"path": plan.path, "status": "unchanged", "backup": None,
                              "changes": [{"action": a, "entry": e} for a, e in plan.changes]}
    if not any(a in ("added", "updated", "removed") for a, _ in plan.changes):
        return result
    mode, orig = _mode(plan.path), plan.path + ORIG_SUFFIX
    pristine = None if install else read_bytes(orig)
    ours_only = not install and pristine is None and plan.fmt.bare(plain(plan.doc))
    if plan.original is not None and not ours_only:  # a file of only our entries: no backup
        result["backup"] = _backup(plan.path, plan.original, mode)
    new = plan.fmt.dump(plan.doc).encode()
    if install:
        if plan.original is not None:
            _write_new(orig, plan.original, mode)  # the first install's copy is kept
        _atomic_write(plan.path, new, mode)
        result["status"] = "created" if plan.original is None else "changed"
        return result
    if pristine is not None and _same_as(plan, pristine):
        _atomic_write(plan.path, pristine, mode)
        result["status"] = "restored"
    elif ours_only:
        os.unlink(plan.path)  # we created it, and nothing but our entries was in it
        result["status"] = "deleted"
    else:
        _atomic_write(plan.path, new, mode)
        result["status"] = "changed"
    if pristine is not None:
        os.unlink(orig)
    return result


def parse_text(text: str, path: str) -> str:
    """A text file (Markdown rules, a hook script, a plugin) as its text."""
    return text


# A text document is the file's text; mutators add or remove our part of it.
TEXT = Format(parse_text, lambda doc: doc, lambda doc: not doc.strip())
