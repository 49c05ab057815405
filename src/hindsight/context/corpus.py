"""The documents task context ranks, as inverted indexes: every indexed file (three fields:
its path, the names of its definitions, its text) and every past commit that is neither a
merge nor huge (its message, and the files it changed, followed through later renames).

Terms come from the one analyzer (:mod:`hindsight.memory.segment`: identifiers split into
their parts, Porter stems), so ``deductStock`` in the code meets "deduct stock" in a task.

The index is derived data: it is kept in two files beside the bank database,
``<bank>.db.context`` (the postings, read by every ranking) and ``<bank>.db.context-docs``
(each document's term counts, read only to bring the postings up to date), and rebuilt
from the code index, the work tree and the history whenever they changed: a file is read
again only when its content hash changed, a commit message never. Both are written
atomically (a new file renamed into place); a damaged or foreign file is rebuilt.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import re
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from hindsight.codeindex.decode import normalise
from hindsight.memory import segment
from hindsight.models import Symbol
from hindsight.store.base import CodeStore, FileRow, HistoryStore

VERSION = f"context 4/{segment.ANALYZER}"  # a change rebuilds every cache
FIELDS = ("path", "symbols", "text")
MAX_READ = 2 << 20  # bytes of a file that are analysed (the index skips larger files)
_TRAILER = re.compile(r"^[\w-]+(-by|-authored-by):.*$|^Change-Id:.*$", re.M | re.I)


@dataclass
class Corpus:
    """The postings of one bank. Files: ``files[i]`` is file ``i``'s path, ``flen[i]`` its
    field lengths (terms) in :data:`FIELDS` order, ``fpost[term]`` an ``array('I')`` of
    ``(file, tf path, tf symbols, tf text)`` quadruples. Commits, oldest first:
    ``commits[j]`` is ``(sha, committer ts, subject)``, ``cfiles[j]`` the ids of the files
    it changed that exist now (renames followed), ``clive[j]`` for each of those the share
    of the symbols it changed there that still exist there (1.0 when it changed no
    symbol), ``cmoved[j]`` the ``(file id, share)`` pairs of the files the code it changed
    lives in now when that is elsewhere (:func:`_moved`; flat: file, share, file, …),
    ``cn[j]`` how many files it changed in all, ``clen[j]`` its message length in
    terms, ``cpost[term]`` an ``array('I')`` of ``(commit, tf)`` pairs. ``prior``: the
    recency prior of the default half-life, computed once when built."""

    files: list[str] = field(default_factory=list)
    flen: list[tuple[int, int, int]] = field(default_factory=list)
    fpost: dict[str, array[int]] = field(default_factory=dict)
    commits: list[tuple[str, int, str]] = field(default_factory=list)
    cfiles: list[tuple[int, ...]] = field(default_factory=list)
    clive: list[tuple[float, ...]] = field(default_factory=list)
    cmoved: list[tuple[float, ...]] = field(default_factory=list)
    cn: list[int] = field(default_factory=list)
    clen: list[int] = field(default_factory=list)
    cpost: dict[str, array[int]] = field(default_factory=dict)
    key: tuple[str, str] = ("", "")
    prior: tuple[float, dict[int, float]] | None = None  # (half-life, recency by file)
    _by_path: dict[str, int] | None = None
    _touching: list[list[int]] | None = None

    def file_id(self, path: str) -> int | None:
        if self._by_path is None:
            self._by_path = {p: i for i, p in enumerate(self.files)}
        return self._by_path.get(path)

    def commits_touching(self, fid: int) -> list[int]:
        """The commits (indexes, oldest first) that changed file ``fid``."""
        if self._touching is None:
            self._touching = [[] for _ in self.files]
            for j, fs in enumerate(self.cfiles):
                for f in fs:
                    self._touching[f].append(j)
        return self._touching[fid]


def message_text(message: str) -> str:
    """A commit message without its trailer lines (``Signed-off-by:``, ``Co-authored-by:``,
    ``Change-Id:``): names of people are no evidence of what changed."""
    return _TRAILER.sub("", message)


def file_counts(path: str, text: str, symbols: Iterable[Symbol]
                ) -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """Term counts of one file's three fields: its path (directories and name), the names
    of its definitions (name and local qualified name), its text."""
    names = " ".join(f"{s.name} {s.local}" for s in symbols)
    return (segment.counts(path.replace("/", " ")), segment.counts(names),
            segment.counts(text))


def _read(root: str, path: str) -> str:
    try:
        with open(os.path.join(root, path), "rb") as fh:
            data = fh.read(MAX_READ)
    except OSError:
        return ""
    return normalise(data)[0].decode("utf-8", "replace")


def file_key(rows: dict[str, FileRow], extractor: str | None) -> str:
    """What the file postings depend on: every indexed path with its content hash, and
    the symbol extractor's version."""
    import xxhash

    h = xxhash.xxh3_128()
    h.update(f"{VERSION}\0{extractor}\0".encode())
    for p in sorted(rows):
        h.update(f"{p}\0{rows[p].content_hash}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def history_key(hs: HistoryStore) -> str:
    """What the commit postings depend on: the commits stored and the last ingest."""
    return f"{VERSION}\0{hs.commit_count()}\0{hs.get_meta('history_ingested_at') or ''}"


def _pack(post: dict[str, list[int]]) -> dict[str, bytes]:
    return {t: array("I", v).tobytes() for t, v in post.items()}


class Postings(dict[str, Any]):
    """term → postings, kept as the bytes read from the cache file and turned into an
    ``array('I')`` when a term is first asked for (a ranking asks for a few terms of
    tens of thousands)."""

    def __getitem__(self, term: str) -> array[int]:
        raw = super().__getitem__(term)
        if isinstance(raw, bytes | bytearray):
            a = array("I")
            a.frombytes(raw)
            super().__setitem__(term, a)
            return a
        return raw

    def get(self, term: str, default: Any = None) -> Any:
        if term not in self:
            return default
        return self[term]


def _unpack(post: dict[str, bytes]) -> dict[str, array[int]]:
    return Postings(post)


def _raw(a: bytes | array[int]) -> bytes:
    return a if isinstance(a, bytes) else a.tobytes()


def _load(path: str) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as fh:
            data = marshal.load(fh)
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return data if isinstance(data, dict) and data.get("v") == VERSION else None


def _save(path: str, data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` atomically; a failure (read-only directory, disk full)
    leaves the old file and is not an error: the ranking then rebuilds in memory."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb") as fh:
            marshal.dump({"v": VERSION, **data}, fh)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def load(cache: str | None, code: CodeStore, hs: HistoryStore | None, root: str,
         build: bool = True, known: Corpus | None = None) -> Corpus | None:
    """The bank's corpus, brought up to date first when the code index or the history
    changed (only with ``build``; without it ``None`` is returned for a cache that is not
    current, so that a hook never pays for a rebuild). ``cache``: the postings file
    (None: build in memory, keep nothing); ``known``: a corpus this process holds, used
    as it is when still current. Raises StorageError."""
    rows = code.load_files()
    fkey = file_key(rows, code.get_meta("extractor_version"))
    hkey = history_key(hs) if hs is not None else ""
    if known is not None and known.key == (fkey, hkey):
        return known
    got = _load(cache) if cache else None
    if got is not None and got.get("key") == [fkey, hkey]:
        with contextlib.suppress(KeyError, TypeError, ValueError):  # else: rebuilt
            return _corpus(got)
    if not build:
        return None
    docs = (_load(cache + "-docs") if cache else None) or {}
    corpus, docs = _build(rows, code, hs, root, docs, (fkey, hkey))
    if cache:
        _save(cache + "-docs", docs)
        _save(cache, _packed(corpus))
    return corpus


def _corpus(d: dict[str, Any]) -> Corpus:
    return Corpus(d["files"], [tuple(x) for x in d["flen"]], _unpack(d["fpost"]),
                  [tuple(x) for x in d["commits"]], [tuple(x) for x in d["cfiles"]],
                  [tuple(x) for x in d["clive"]], [tuple(x) for x in d["cmoved"]],
                  d["cn"], d["clen"], _unpack(d["cpost"]),
                  tuple(d["key"]), prior=(d["prior"][0], d["prior"][1]))


def _packed(c: Corpus) -> dict[str, Any]:
    return {"key": list(c.key), "files": c.files, "flen": [list(x) for x in c.flen],
            "fpost": {t: _raw(a) for t, a in c.fpost.items()},
            "commits": [list(x) for x in c.commits], "cfiles": [list(x) for x in c.cfiles],
            "clive": [list(x) for x in c.clive], "cmoved": [list(x) for x in c.cmoved],
            "prior": list(c.prior) if c.prior else [0.0, {}],
            "cn": c.cn, "clen": c.clen, "cpost": {t: _raw(a) for t, a in c.cpost.items()}}


def _build(rows: dict[str, FileRow], code: CodeStore, hs: HistoryStore | None, root: str,
           docs: dict[str, Any], key: tuple[str, str]) -> tuple[Corpus, dict[str, Any]]:
    old_files: dict[str, Any] = docs.get("files") or {}
    files: dict[str, Any] = {}
    for p in sorted(rows):
        h = rows[p].content_hash
        prev = old_files.get(p)
        if prev is not None and prev[0] == h:
            files[p] = prev
            continue
        syms = code.file_symbols(p)
        files[p] = [h, *file_counts(p, _read(root, p), syms), sorted({s.local for s in syms})]
    c = Corpus(key=key)
    post: dict[str, list[int]] = {}
    for i, (p, (_h, pc, sc, bc, _locals)) in enumerate(files.items()):
        c.files.append(p)
        c.flen.append((sum(pc.values()), sum(sc.values()), sum(bc.values())))
        for t in {*pc, *sc, *bc}:
            post.setdefault(t, []).extend((i, pc.get(t, 0), sc.get(t, 0), bc.get(t, 0)))
    c.fpost = _unpack(_pack(post))
    old_commits: dict[str, Any] = docs.get("commits") or {}
    commits: dict[str, Any] = {}
    if hs is not None:
        live = {p: set(v[4]) for p, v in files.items()}
        _commits(c, hs.change_sets(), old_commits, commits, live, hs.added_deleted())
    from hindsight.context.fusion import WEIGHTS

    c.prior = (WEIGHTS.half_life, recency(c, WEIGHTS.half_life))
    return c, {"files": files, "commits": commits}


def _commits(c: Corpus, sets: list[tuple[str, int, str, list[tuple[str, str, list[str]]]]],
             old: dict[str, Any], kept: dict[str, Any], live: dict[str, set[str]],
             events: dict[str, tuple[list[str], list[str]]] | None = None) -> None:
    """Fill the commit part of ``c`` from the change sets (oldest first). Each file a
    commit changed is counted under its name now: renames are followed newest first, so
    a path that a rename left and a later commit reused keeps its own later history; a
    file replaced without a rename (:func:`_replacing`) passes its commits to the files
    that replaced it, and symbols that left a file pass their share to the file they live
    in now (:func:`_moved`). ``live``: the local names of the symbols each file has now;
    ``events``: the paths each commit added and deleted (``HistoryStore.added_deleted``)."""
    later: dict[str, list[tuple[str, float, bool]]] = {}  # path then -> names now
    current: list[list[list[tuple[str, float, bool]]]] = []
    for sha, _ts, _msg, fs in reversed(sets):
        current.append([later.get(p, [(p, 1.0, False)]) for p, _was, _l in fs])
        for path, was, _l in fs:
            if was and was != path:
                later[was] = later.get(path, [(path, 1.0, False)])
        added, deleted = (events or {}).get(sha, ([], []))
        for d, heirs in _replacing(added, deleted).items():
            later[d] = [(n, w / len(heirs), True) for a in heirs
                        for n, w, _r in later.get(a, [(a, 1.0, False)])]
    current.reverse()
    homes = {loc: f for loc, p in _homes(live).items() if (f := c.file_id(p)) is not None}
    post: dict[str, list[int]] = {}
    for (sha, ts, msg, fs), names in zip(sets, current, strict=True):
        counts = old.get(sha)
        if counts is None:
            counts = segment.counts(message_text(msg))
        kept[sha] = counts
        j = len(c.commits)
        c.commits.append((sha, ts, msg.split("\n", 1)[0][:200]))
        ids: dict[int, float] = {}
        moved: dict[int, float] = {}
        for now, (_p, _was, locals_) in zip(names, fs, strict=True):
            for name, w, replaced in now:
                f = c.file_id(name)
                if replaced:
                    if f is not None:
                        moved[f] = moved.get(f, 0.0) + w
                    continue
                if f is not None:
                    ids[f] = max(ids.get(f, 0.0), _alive(locals_, live.get(name, set())))
                _moved(locals_, live.get(name, set()), homes, w, moved)
        c.cfiles.append(tuple(sorted(ids)))
        c.clive.append(tuple(ids[f] for f in sorted(ids)))
        c.cmoved.append(tuple(x for f in sorted(moved) for x in (f, moved[f])))
        c.cn.append(len(fs))
        c.clen.append(sum(counts.values()))
        for t, n in counts.items():
            post.setdefault(t, []).extend((j, n))
    c.cpost = _unpack(_pack(post))


MAX_HEIRS = 5  # a commit adding more files of the language is a restructuring, not a rewrite


def _replacing(added: list[str], deleted: list[str]) -> dict[str, list[str]]:
    """The files one commit replaced without git seeing a rename (a rewrite: git calls a
    rename only above 50 % similar content): each deleted file → the files of its
    language the same commit added, those in its own directory if there are any, when
    they are at most :data:`MAX_HEIRS` (fd's ``src/app.rs`` → ``src/cli.rs`` when its
    options moved to clap's derive API)."""
    from hindsight.codeindex.languages import language_for

    out: dict[str, list[str]] = {}
    for d in deleted:
        lang = language_for(d)
        if lang is None:
            continue
        same = [a for a in added if language_for(a) == lang]
        here = [a for a in same if os.path.dirname(a) == os.path.dirname(d)]
        heirs = here or same
        if 0 < len(heirs) <= MAX_HEIRS:
            out[d] = heirs
    return out


def _homes(live: dict[str, set[str]]) -> dict[str, str]:
    """Each local name defined in exactly one file now → that file."""
    seen: dict[str, str | None] = {}
    for path, locs in live.items():
        for loc in locs:
            seen[loc] = path if loc not in seen else None
    return {loc: p for loc, p in seen.items() if p is not None}


def _moved(changed: list[str], now: set[str], homes: dict[str, int], w: float,
           out: dict[int, float]) -> None:
    """Votes follow the code: each symbol of ``changed`` (a commit's local names in one
    file) that the file no longer defines (``now``) but one other file does
    (``homes``) adds ``w`` / len(changed) to that file in ``out`` (by file id)."""
    if not changed:
        return
    for loc in changed:
        name = loc.partition("#")[0]
        if name in now:
            continue
        home = homes.get(name)
        if home is not None:
            out[home] = out.get(home, 0.0) + w / len(changed)


def recency(c: Corpus, half_life: float) -> dict[int, float]:
    """Σ 2^(−age / ``half_life``) over the commits that changed each file; age: how many
    commits came after (the newest commit has age 0)."""
    n = len(c.commits)
    out: dict[int, float] = {}
    for j, fs in enumerate(c.cfiles):
        w = 2.0 ** (-(n - 1 - j) / half_life)
        for f in fs:
            out[f] = out.get(f, 0.0) + w
    return out


def _alive(changed: list[str], now: set[str]) -> float:
    """The share of ``changed`` symbols (history's local names, ``name#2`` for a repeat)
    still defined among ``now``; 1.0 when none was changed."""
    if not changed:
        return 1.0
    return sum(1 for loc in changed if loc.partition("#")[0] in now) / len(changed)
