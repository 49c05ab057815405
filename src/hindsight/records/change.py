"""The code change a record belongs to: from the agent's edits (or the work tree) to each
changed file's versions before and after, and from those to the symbols that changed,
with their ast hashes before and after, and a diff summary (``path +added -deleted``,
never the diff).

An agent's transcript holds its edits, not the files: Claude Code's ``Edit`` (``old_string``
→ ``new_string``, ``replace_all``), ``MultiEdit``, ``Write`` (the whole content; Claude Code
also records ``originalFile``, the text before) and Codex's ``apply_patch`` (``*** Update
File:`` hunks of context, ``-`` and ``+`` lines). :func:`versions` rebuilds each file's
text before and after every edit: forward from the text before the first edit (the
recorded original, else the file at HEAD) or backward from the file on disk (each edit
undone), whichever applies cleanly, in the order the agent's format makes most reliable.
A file whose versions cannot be rebuilt is still listed, without symbols.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hindsight.models import SymbolDelta

MAX_DELTAS = 64  # changed symbols kept per record
MAX_FILES = 32  # changed files kept per record
SUMMARY_CAP = 500  # characters of a diff summary


@dataclass(frozen=True)
class EditOp:
    """One edit of one file, as the agent recorded it. ``kind``: ``replace`` (``pairs`` of
    (old, new, replace all)), ``write`` (``content``), ``patch`` (``hunks``: per hunk its
    (old lines, new lines)); ``created``: the file did not exist before (a patch's Add
    File, a Write that created it), ``deleted``: a patch's Delete File. ``original``:
    the text before the edit when the agent recorded it."""

    path: str
    kind: str
    pairs: tuple[tuple[str, str, bool], ...] = ()
    content: str = ""
    hunks: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = ()
    created: bool = False
    deleted: bool = False
    original: str | None = None

    def forward(self, text: str | None) -> str | None | bool:
        """The text after this edit given the text before (``None``: absent), or False
        when the edit does not apply to it."""
        if self.kind == "write":
            return self.content
        if self.kind == "patch":
            if self.created:
                return "".join(line + "\n" for hunk in self.hunks for line in hunk[1])
            if self.deleted:
                return None
            return False if text is None else _apply_hunks(text, self.hunks, False)
        if text is None:
            return False
        for old, new, every in self.pairs:
            if not old or old not in text:
                return False
            text = text.replace(old, new) if every else text.replace(old, new, 1)
        return text

    def backward(self, text: str | None) -> str | None | bool:
        """The text before this edit given the text after, or False when it cannot be
        told (a ``write`` without ``original``, a replacement whose new text is not found
        exactly once)."""
        if self.original is not None:
            return self.original
        if self.kind == "write":
            return None if self.created else False
        if self.kind == "patch":
            if self.created:
                return None
            if self.deleted or text is None:
                return False
            return _apply_hunks(text, self.hunks, True)
        if text is None:
            return False
        for old, new, every in reversed(self.pairs):
            if not new or (text.count(new) != 1 and not every) or new not in text:
                return False
            text = text.replace(new, old) if every else text.replace(new, old, 1)
        return text


def _apply_hunks(text: str, hunks: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...],
                 reverse: bool) -> str | bool:
    lines = text.split("\n")
    at = 0
    for old, new in hunks:
        a, b = (new, old) if reverse else (old, new)
        if not a:
            lines[len(lines) - (lines[-1] == ""):len(lines) - (lines[-1] == "")] = list(b)
            continue
        for i in range(at, len(lines) - len(a) + 1):
            if tuple(lines[i:i + len(a)]) == a:
                lines[i:i + len(a)] = list(b)
                at = i + len(b)
                break
        else:
            return False
    return "\n".join(lines)


_PATCH_HEAD = re.compile(r"^\*\*\* (Update|Add|Delete) File: (.+?)\s*$")


def parse_patch(patch: str) -> list[tuple[str, str, str, list[tuple[tuple[str, ...],
                                                                      tuple[str, ...]]]]]:
    """The files of a Codex ``apply_patch`` text: ``(action, path, move to, hunks)`` with
    action ``Update``, ``Add`` or ``Delete`` and per hunk its (old lines, new lines)."""
    out: list[Any] = []
    old: list[str] = []
    new: list[str] = []

    def close() -> None:
        if out and (old or new):
            out[-1][3].append((tuple(old), tuple(new)))
        old.clear()
        new.clear()

    for line in patch.splitlines():
        m = _PATCH_HEAD.match(line)
        if m:
            close()
            out.append((m.group(1), m.group(2).strip("'\""), "", []))
        elif line.startswith("*** Move to: ") and out:
            out[-1] = (out[-1][0], out[-1][1], line[13:].strip(), out[-1][3])
        elif line.startswith("@@") or line.startswith("*** End"):
            close()
        elif out and line[:1] in (" ", "-", "+"):
            if line[0] in " -":
                old.append(line[1:])
            if line[0] in " +":
                new.append(line[1:])
        elif out and line == "":
            old.append("")
            new.append("")
    close()
    return [(a, p, m, h) for a, p, m, h in out]


def versions(ops: list[EditOp], disk: str | None, head: Callable[[], str | None],
             backward_first: bool) -> list[str | None] | None:
    """The file's text before the first of ``ops`` and after each (``len(ops) + 1``
    texts, ``None`` where absent), or None when neither direction applies: backward from
    ``disk`` (the file now) or forward from the first op's ``original``, else ``head()``
    (the file at HEAD)."""
    def back() -> list[str | None] | None:
        out: list[str | None] = [disk]
        for op in reversed(ops):
            got = op.backward(out[0])
            if got is False:
                return None
            out.insert(0, got if isinstance(got, str) else None)
        return out

    def fwd() -> list[str | None] | None:
        start = ops[0].original if ops[0].original is not None else head()
        out: list[str | None] = [start]
        for op in ops:
            got = op.forward(out[-1] if op.original is None else op.original)
            if got is False:
                return None
            out.append(got if isinstance(got, str) else None)
        return out

    for way in (back, fwd) if backward_first else (fwd, back):
        got = way()
        if got is not None:
            return got
    return None


@dataclass
class Change:
    """One record's change: ``files`` (path, lines added, lines deleted), ``deltas`` and
    the ``summary`` line."""

    files: list[tuple[str, int, int]] = field(default_factory=list)
    deltas: list[SymbolDelta] = field(default_factory=list)
    summary: str = ""


def symbol_deltas(path: str, before: list[Any] | None, after: list[Any] | None
                  ) -> list[SymbolDelta]:
    """Symbols added, modified (ast hash differs) or removed between two parses of one
    file (:class:`~hindsight.models.SymState` lists; None: the file was absent or not
    parsed), in source order of the newer version."""
    b = {s.local: s.ast_hash for s in before or ()}
    a = {s.local: s.ast_hash for s in after or ()}
    out = [SymbolDelta(path, loc, "added" if loc not in b else "modified", b.get(loc, ""), h)
           for loc, h in a.items() if b.get(loc) != h]
    return out + [SymbolDelta(path, loc, "removed", h, "") for loc, h in b.items()
                  if loc not in a]


def changes(windows: list[list[tuple[str, str | None, str | None, bool]]]) -> list[Change]:
    """Per window (one record's change: ``(path, text before, text after, known)`` per
    file, ``known`` false when its versions could not be rebuilt), its :class:`Change`.
    Every version is parsed in one batch (:func:`hindsight.history.blobparse.parse_versions`)."""
    from hindsight.codeindex.languages import language_for
    from hindsight.history.blobparse import parse_versions
    from hindsight.history.symdiff import hunks

    todo = []
    for w, window in enumerate(windows):
        for f, (path, before, after, known) in enumerate(window):
            lang = language_for(path) if known else None
            for side, text in (("b", before), ("a", after)):
                if lang and text is not None:
                    todo.append((f"{w}:{f}:{side}", path, lang, text.encode("utf-8",
                                                                          "surrogatepass")))
    parsed = parse_versions(todo)
    out = []
    for w, window in enumerate(windows):
        ch = Change()
        parts = []
        for f, (path, before, after, known) in enumerate(window[:MAX_FILES]):
            if known and before == after:
                continue
            ranges = hunks(before.encode() if before else None,
                           after.encode() if after else None) if known else []
            added, deleted = sum(r[3] for r in ranges), sum(r[1] for r in ranges)
            ch.files.append((path, added, deleted))
            deltas = symbol_deltas(path, parsed.get(f"{w}:{f}:b"), parsed.get(f"{w}:{f}:a")) \
                if known else []
            ch.deltas += deltas
            names = ", ".join(d.local for d in deltas[:4]) + (", …" if len(deltas) > 4 else "")
            state = "" if known else " (versions unknown)"
            parts.append(f"{path} +{added} -{deleted}{state}" + (f" ({names})" if names else ""))
        ch.deltas = ch.deltas[:MAX_DELTAS]
        summary = "; ".join(parts)
        ch.summary = summary if len(summary) <= SUMMARY_CAP else summary[:SUMMARY_CAP - 1] + "…"
        out.append(ch)
    return out
