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

MAX_DELTAS = 32  # changed symbols kept per record
MAX_FILES = 16  # changed files kept per record
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


@dataclass(frozen=True)
class State:
    """A file's version without its text (what the bank may keep between records): its
    symbols ``(local, ast hash)`` and a hash per line (8 hex digits of xxh3-64), enough to
    tell changed symbols and count changed lines. No text of the user's files is stored."""

    symbols: tuple[tuple[str, str], ...]
    lines: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"s": [list(x) for x in self.symbols], "l": list(self.lines)}

    @classmethod
    def from_json(cls, d: Any) -> State | None:
        """The state of :meth:`to_json`'s dict, or None for anything else."""
        try:
            return cls(tuple((str(a), str(b)) for a, b in d["s"]), tuple(map(str, d["l"])))
        except (KeyError, TypeError, ValueError):
            return None


Side = str | State | None  # a version: its text, its state, or None (the file is absent)


def states(items: list[tuple[str, str, str]]) -> dict[str, State]:
    """``key → State`` of ``(key, path, text)`` versions, parsed in one batch
    (:func:`hindsight.history.blobparse.parse_versions`; a language without a grammar, or
    a text the parser skips, gives no symbols)."""
    import xxhash

    from hindsight.codeindex.languages import language_for
    from hindsight.history.blobparse import parse_versions

    todo = [(k, p, lang, t.encode("utf-8", "surrogateescape")) for k, p, t in items
            if (lang := language_for(p))]
    parsed = parse_versions(todo)
    return {k: State(tuple((x.local, x.ast_hash) for x in parsed.get(k) or ()),
                     tuple(xxhash.xxh3_64_hexdigest(ln.encode("utf-8", "surrogateescape"))[:8]
                           for ln in t.splitlines())) for k, _p, t in items}


@dataclass
class Change:
    """One record's change: ``files`` (path, lines added, lines deleted), ``deltas``, the
    ``summary`` line and each file's ``after`` state (None: absent or unknown)."""

    files: list[tuple[str, int, int]] = field(default_factory=list)
    deltas: list[SymbolDelta] = field(default_factory=list)
    summary: str = ""
    after: dict[str, State | None] = field(default_factory=dict)


def symbol_deltas(path: str, before: State | None, after: State | None
                  ) -> list[SymbolDelta]:
    """Symbols added, modified (ast hash differs) or removed between two versions of one
    file (None: the file was absent), in source order of the newer version."""
    b = dict(before.symbols) if before else {}
    a = dict(after.symbols) if after else {}
    out = [SymbolDelta(path, loc, "added" if loc not in b else "modified", b.get(loc, ""), h)
           for loc, h in a.items() if b.get(loc) != h]
    return out + [SymbolDelta(path, loc, "removed", h, "") for loc, h in b.items()
                  if loc not in a]


def changes(windows: list[list[tuple[str, Side, Side, bool]]]) -> list[Change]:
    """Per window (one record's change: ``(path, before, after, known)`` per file, each
    side a text, a :class:`State` or None when absent; ``known`` false when its versions
    could not be rebuilt), its :class:`Change`. Texts are parsed in one batch."""
    from hindsight.history.symdiff import hunks

    texts = [(f"{w}:{f}:{side}", path, text)
             for w, window in enumerate(windows)
             for f, (path, before, after, known) in enumerate(window[:MAX_FILES]) if known
             for side, text in (("b", before), ("a", after)) if isinstance(text, str)]
    parsed = states(texts)

    def state(key: str, side: Side) -> State | None:
        return side if isinstance(side, State) else parsed.get(key)

    out = []
    for w, window in enumerate(windows):
        ch = Change()
        parts = []
        for f, (path, before, after, known) in enumerate(window[:MAX_FILES]):
            b, a = state(f"{w}:{f}:b", before), state(f"{w}:{f}:a", after)
            ch.after[path] = a if known else None
            if known and b == a:
                continue
            ranges = hunks(b"\n".join(x.encode() for x in b.lines) if b else None,
                           b"\n".join(x.encode() for x in a.lines) if a else None) \
                if known else []
            added, deleted = sum(r[3] for r in ranges), sum(r[1] for r in ranges)
            ch.files.append((path, added, deleted))
            deltas = symbol_deltas(path, b, a) if known else []
            ch.deltas += deltas
            names = ", ".join(d.local for d in deltas[:4]) + (", …" if len(deltas) > 4 else "")
            state_note = "" if known else " (versions unknown)"
            parts.append(f"{path} +{added} -{deleted}{state_note}"
                         + (f" ({names})" if names else ""))
        ch.deltas = ch.deltas[:MAX_DELTAS]
        summary = "; ".join(parts)
        ch.summary = summary if len(summary) <= SUMMARY_CAP else summary[:SUMMARY_CAP - 1] + "…"
        out.append(ch)
    return out
