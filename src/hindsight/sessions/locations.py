"""Where agents keep their session transcripts: Claude Code's project directories
(``$CLAUDE_CONFIG_DIR``, default ``~/.claude``, ``/projects/<sanitised cwd>/``)."""

from __future__ import annotations

import contextlib
import os
import re
import stat
from collections.abc import Callable
from typing import Any

from hindsight.config.jsontext import loads

_NON_ALNUM = re.compile(r"[^A-Za-z0-9]")


def _js_hash36(text: str) -> str:
    data = text.encode("utf-16-le", "surrogatepass")
    h = 0
    for i in range(0, len(data), 2):
        h = (h * 31 + (data[i] | data[i + 1] << 8)) & 0xFFFFFFFF
    h = abs(h - (1 << 32) if h >= 1 << 31 else h)
    out = ""
    while h:
        h, r = divmod(h, 36)
        out = "0123456789abcdefghijklmnopqrstuvwxyz"[r] + out
    return out or "0"


def project_dir_name(cwd: str) -> str:
    """Claude Code's directory name for the project at ``cwd``.

    Every non-``[A-Za-z0-9]`` char becomes ``-`` (per UTF-16 code unit, like the CLI's JS
    regex: an astral char gives ``--``). Over 200 chars: the first 200 + ``-`` + base36 of
    the Java/JS string hash of ``cwd`` (``h = (h*31 + charCode) | 0`` over UTF-16 code units,
    absolute value). Source: the Claude Agent SDK's session reader (``_sanitize_path``,
    ``_simple_hash``), which notes that CLI builds on Bun may hash long paths differently —
    :func:`claude_transcripts` tolerates that.
    """
    name = _NON_ALNUM.sub(lambda m: "--" if ord(m.group()) > 0xFFFF else "-", cwd)
    return name if len(name) <= 200 else f"{name[:200]}-{_js_hash36(cwd)}"


def claude_transcripts(project: str, config_dir: str | None = None) -> list[str]:
    """Absolute paths of the main-session ``*.jsonl`` of the project whose cwd is
    ``project``, oldest first by mtime ([] if none), from ``<config_dir or $CLAUDE_CONFIG_DIR
    or ~/.claude>/projects/<project_dir_name(project)>/`` — or, when missing and the name was
    hashed, the first directory with the same 200-char prefix + ``-``. Sub-agent files
    (``<session>/subagents/…``, legacy ``agent-*.jsonl``) are left out."""
    root = config_dir or os.environ.get("CLAUDE_CONFIG_DIR") or os.path.expanduser("~/.claude")
    projects = os.path.join(root, "projects")
    name = project_dir_name(project)
    folder = os.path.join(projects, name)
    if not os.path.isdir(folder) and len(name) > 200:
        candidates = _listdir(projects, lambda n: n.startswith(name[:200] + "-"))
        folder = os.path.join(projects, candidates[0]) if candidates else folder
    found = _listdir(folder, lambda n: n.endswith(".jsonl") and not n.startswith("agent-"))
    return by_mtime([os.path.abspath(os.path.join(folder, n)) for n in found])


def by_mtime(paths: list[str]) -> list[str]:
    """The regular files among ``paths``, oldest first (modification time, then path)."""
    stamped = []
    for p in paths:
        with contextlib.suppress(OSError):
            if stat.S_ISREG((st := os.stat(p)).st_mode):
                stamped.append((st.st_mtime_ns, p))
    return [p for _, p in sorted(stamped)]


def _listdir(folder: str, keep: Callable[[str], bool]) -> list[str]:
    try:
        return sorted(n for n in os.listdir(folder) if keep(n))
    except OSError:
        return []


def head_event(path: str, kind: str, lines: int = 20) -> dict[str, Any] | None:
    """The first JSON object whose ``type`` is ``kind`` among the first ``lines`` lines of
    the JSONL file ``path`` (a leading BOM allowed, undecodable bytes replaced, lines that
    are not JSON skipped), or None. Raises FileNotFoundError if ``path`` is missing."""
    with open(path, "rb") as f:
        for n in range(lines):
            raw = f.readline()
            if not raw:
                break
            try:
                obj = loads(raw, first=n == 0, errors="replace")
            except (ValueError, RecursionError):
                continue
            if isinstance(obj, dict) and obj.get("type") == kind:
                return obj
    return None
