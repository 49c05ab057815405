"""Git history ingest (L3): commits, files changed and, in ``full`` mode, the symbols each
commit added, modified, moved or removed.

Modes: ``message`` (commits and files), ``full`` (plus per-symbol changes), ``none``.
A first ingest reads the newest ``limit`` commits of HEAD (default 300; ``all_`` for every
commit), newest first, in chunks that are each committed, so an interrupted ingest resumes
where it stopped. Later runs read only commits not yet stored (``rev-list HEAD --not`` the
heads seen last time). When a head seen last time is no longer reachable from any ref (a
rebase, amend or force-push), every stored commit is checked and the unreachable ones are
marked (kept for audit, left out of queries). Merges are compared with their first parent;
a commit touching more than ``huge`` files is stored but not expanded per symbol (history
questions compute that later, per file: :mod:`hindsight.history.lazy`) and does not count
for co-change (default 100; transactions this large are usually mechanical —
Zimmermann et al., "Mining Version Histories to Guide Software Changes", ICSE 2004, left
out large transactions for the same reason). In a shallow clone the boundary commits are
stored without files (their parents are missing, so a diff would claim they added
everything) and the history is marked partial. When symbol extraction changes
(``codeindex.parse.EXTRACTOR_VERSION``: other definitions or qualified names), the next
full-mode ingest reads the symbol changes of every stored commit again.
"""

from __future__ import annotations

import difflib
import heapq
import json
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from hindsight.codeindex.files import excluded_matcher
from hindsight.codeindex.languages import language_for
from hindsight.codeindex.parse import EXTRACTOR_VERSION
from hindsight.errors import ConfigError, GitError
from hindsight.history import gitread as G
from hindsight.history.fixes import is_fix, reclassify
from hindsight.history.symdiff import compare_file, pair_moves, pair_renames
from hindsight.models import SymbolChange, SymState
from hindsight.redact import clean
from hindsight.store.base import HistoryStore

MODES = ("full", "message", "none")
DEFAULT_LIMIT = 300
DEFAULT_HUGE = 100
CHUNK = 100  # commits per transaction in full mode (each one is a resume point)
CHUNK_MESSAGE = 1_000  # in message mode: fewer git processes, same resumability
BLOB_CACHE = 5_000  # parsed file versions kept between chunks
SUBMODULE = "160000"
Progress = Callable[[str, int, int], None]


@dataclass
class IngestStats:
    """What one ingest run did. ``partial``: ``shallow`` or ``limited`` when older history
    exists that the bank has not read, else ``""`` (the bank's ``history_partial_kind``
    reads ``interrupted`` while a run is under way or after one was stopped: fresh-user
    run of session 35)."""

    mode: str = "full"
    head: str = ""
    planned: int = 0
    ingested: int = 0
    expanded: int = 0
    huge: int = 0
    boundary: int = 0
    unreadable: int = 0
    missing_blobs: int = 0
    unreadable_example: str = ""
    symbol_changes: int = 0
    unreachable_marked: int = 0
    restored: int = 0
    rewritten: bool = False
    partial: str = ""
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _setting(store: HistoryStore, key: str, given: Any, default: Any) -> Any:
    """``given``, else the value the bank remembers, else ``default`` (also when the stored
    value is damaged: it is overwritten by this run)."""
    if given is not None:
        return given
    raw = store.get_meta(key)
    try:
        value = default if raw is None else json.loads(raw)
    except ValueError:
        return default
    return value if value is None or isinstance(value, type(default)) else default


def ingest(store: HistoryStore, root: str, *, mode: str | None = None,
           limit: int | None = None, all_: bool = False, huge: int | None = None,
           exclude: list[str] | None = None, workers: int | None = None,
           progress: Progress | None = None) -> IngestStats:
    """Ingest the git history of ``root`` into ``store`` (see the module doc). ``mode``,
    ``limit`` and ``huge`` are remembered by the bank when given. ``exclude``: patterns
    whose files are not expanded per symbol (they are still listed as changed).

    Raises :class:`ConfigError` for a bad mode or limit, :class:`GitError` when ``root`` is
    not a git repository or git fails, :class:`StorageError` when the bank cannot be written
    (chunks already written stay).
    """
    t0 = time.perf_counter()
    mode = _setting(store, "history_mode", mode, "full")
    if mode not in MODES:
        raise ConfigError(f"mode {mode!r}: one of {', '.join(MODES)}", option="mode",
                          value=mode, choices=MODES)
    if limit is not None and limit < 1:
        raise ConfigError(f"limit {limit}: must be at least 1", option="limit", value=limit)
    if huge is not None and huge < 1:
        raise ConfigError(f"huge_commit {huge}: must be at least 1", option="huge_commit",
                          value=huge)
    explicit = all_ or limit is not None
    limit_v: int | None = None if all_ else _setting(store, "history_limit", limit,
                                                     DEFAULT_LIMIT)
    huge_v = int(_setting(store, "history_huge", huge, DEFAULT_HUGE))
    remember = {"history_mode": mode, "history_huge": huge_v}
    if explicit:
        remember["history_limit"] = limit_v
    store.set_meta({k: json.dumps(v) for k, v in remember.items()})
    st = IngestStats(mode=mode)
    if mode == "none":
        st.notes.append("history mode is 'none': nothing read (hindsight ingest --mode "
                        "message|full to turn it on)")
        return st
    info = G.repo_info(root)
    if info is None:
        raise GitError(f"{root}: not a git repository; history needs git", path=root)
    st.head, shallow_file = info
    if not st.head:
        st.notes.append("the repository has no commits yet")
        store.set_meta({"history_ingested_at": _now()})
        return st
    old_heads = [h for h in _setting(store, "history_heads", None, [])
                 if isinstance(h, str) and len(h) >= 40]
    live_heads = _check_rewrites(store, root, old_heads, st)
    # the limit bounds a first (or explicit) read; a later run reads every commit not
    # stored yet, or a hole would stay below them (break28)
    incremental = bool(live_heads) and not explicit
    planned = G.rev_list(root, [st.head], exclude=live_heads if incremental else [],
                         max_count=None if incremental else limit_v)
    parents = {sha: ps for sha, ps, _ts in planned}
    plan = [sha for sha, _ps, _ts in planned]
    st.planned = len(plan)
    known = store.known_commits(plan)
    todo = [s for s in plan if s not in known or
            (mode == "full" and not known[s][0] and not known[s][1] and not known[s][2])]
    boundary = G.shallow_boundary(root, shallow_file)
    queued = set(todo)
    # commits stored as a shallow boundary that now have their parents, and commits stored
    # as huge under a smaller threshold, are read again
    todo += [s for s in store.redo_candidates(huge_v) if s not in boundary and s not in queued]
    queued = set(todo)
    if mode == "full" and store.get_meta("history_extractor") != str(EXTRACTOR_VERSION):
        # symbols are named another way now: every commit's symbol changes are redone
        redone = store.reset_expanded()
        store.set_meta({"history_extractor": str(EXTRACTOR_VERSION),
                        "history_missing_blobs": "0"})
        if redone:
            st.notes.append(f"symbol extraction changed: the symbol changes of {redone} "
                            "commit(s) are read again")
    if mode == "full":  # commits read earlier in message mode get their symbols now
        todo += [s for s in store.unexpanded() if s not in queued]
    stale = [s for s in plan if s in known and not known[s][3]]
    if stale:
        st.restored += store.mark_reachable(G.all_reachable(root), _now())[1]
    skip_path = excluded_matcher(root, exclude)
    # the order of history (seq): children above parents, otherwise by committer date,
    # over every stored commit (rewritten-away ones too) and the plan
    seq_map = _numbering(store, planned)
    seq_map.update({s: q for s, q in store.seqs([s for s in todo if s not in seq_map]).items()})
    blob_cache: dict[str, list[SymState] | None] = {}
    size = CHUNK if mode == "full" else CHUNK_MESSAGE
    # what the history lacked before this run (an interrupted run: what it lacked then)
    before = store.get_meta("history_partial_kind") or ""
    if before == "interrupted":
        before = store.get_meta("history_partial_resume") or ""
    if todo:  # until the run ends, what is stored is short of its plan (a Ctrl-C, a kill)
        store.set_meta({"history_partial_kind": "interrupted",
                        "history_partial_resume": before})
    for i in range(0, len(todo), size):
        chunk = todo[i:i + size]
        _ingest_chunk(store, root, chunk, seq_map, mode, huge_v, boundary, skip_path,
                      workers, st, blob_cache, parents)
        if progress:
            progress("history", min(i + size, len(todo)), len(todo))
    store.set_seqs({s: q for s, q in seq_map.items() if s in known or s not in parents})
    heads = [st.head] + [h for h in live_heads if h != st.head]
    if boundary:
        st.partial = "shallow"
        st.notes.append("shallow clone: history before the boundary is not available")
    elif explicit or not old_heads:
        st.partial = "limited" if limit_v is not None and len(plan) >= limit_v and \
            bool(parents.get(plan[-1])) else ""
    else:  # an incremental run reads every new commit: the history lacks what it did
        st.partial = before
        if st.partial == "shallow":  # unshallowed since: older commits are still unread
            st.partial = "limited"
            st.notes.append("the clone is no longer shallow: hindsight ingest --all reads "
                            "the older history")
    if st.huge and mode == "full":
        st.notes.append(f"{st.huge} commit{'' if st.huge == 1 else 's'} touched more than "
                        f"{huge_v} files: stored without per-symbol changes, which history "
                        "and why compute when they are asked about those files")
    if st.unreadable:
        st.notes.append(f"git could not diff {st.unreadable} commit(s) "
                        f"({st.unreadable_example}): stored without files or symbol changes "
                        "and tried again by the next ingest; git fsck lists what is missing")
    if st.missing_blobs:
        st.notes.append(f"{st.missing_blobs} file version(s) could not be read from git "
                        "(missing objects; git fsck lists them): the symbol changes of "
                        "those files are left out")
    if mode == "full":  # every unreadable commit was tried again by this run
        store.set_meta({"history_unreadable": str(st.unreadable)})
        if st.missing_blobs:  # each commit is expanded once: the counts add up
            store.set_meta({"history_missing_blobs": str(
                int(store.get_meta("history_missing_blobs") or 0) + st.missing_blobs)})
    reclassify(store)  # a bank ingested under an earlier fix rule
    store.set_meta({"history_heads": json.dumps(heads[:20]), "history_ingested_at": _now(),
                    "history_partial_kind": st.partial})
    st.seconds = round(time.perf_counter() - t0, 3)
    return st


def _numbering(store: HistoryStore, planned: list[tuple[str, tuple[str, ...], int]]
               ) -> dict[str, int]:
    """``seq`` of the commits of ``planned`` and, when they must move, of stored ones. New
    commits all at least as new as every stored commit go above them (a commit is never
    an ancestor of a stored one but with a limited or shallow read, which makes the
    times disagree); otherwise every stored commit and the plan are numbered again in
    one :func:`date_order` (a branch merged later whose commits are older than main's,
    --all after --limit, an unshallowed clone, commits rewritten away)."""
    if not planned:
        return {}
    newest = store.newest_commit_ts(include_unreachable=True)
    if newest is None or min(c[2] for c in planned) >= newest:
        base = store.max_seq() + len(planned) + 1
        return {c[0]: base - i for i, c in enumerate(planned)}
    stored = store.commit_graph()  # read only when the stored order must change
    plan = {c[0] for c in planned}
    order = date_order(planned, [c for c in stored if c[0] not in plan])
    base = store.max_seq() + len(order) + 1
    return {sha: base - i for i, sha in enumerate(order)}


def date_order(planned: list[tuple[str, tuple[str, ...], int]],
               more: list[tuple[str, tuple[str, ...], int]]) -> list[str]:
    """The commits of ``planned`` (``git rev-list --date-order`` output: sha, parents,
    committer time) and ``more`` (the same shape, in any order) in one order: no commit
    before any of its children among them, otherwise the newest committer time first
    (ties: ``planned``'s order, then ``more``'s), as ``--date-order`` orders one graph."""
    rank = {c[0]: i for i, c in enumerate([*planned, *more])}
    info = {c[0]: c for c in [*planned, *more]}
    children = dict.fromkeys(info, 0)
    for _sha, ps, _ts in info.values():
        for p in ps:
            if p in children:
                children[p] += 1
    ready = [(-c[2], rank[s], s) for s, c in info.items() if not children[s]]
    heapq.heapify(ready)
    out: list[str] = []
    while ready:
        s = heapq.heappop(ready)[2]
        out.append(s)
        for p in info[s][1]:
            if p in children:
                children[p] -= 1
                if not children[p]:
                    heapq.heappush(ready, (-info[p][2], rank[p], p))
    return out


def _now() -> str:
    return datetime.now(UTC).astimezone().isoformat(timespec="seconds")


def _check_rewrites(store: HistoryStore, root: str, old_heads: list[str],
                    st: IngestStats) -> list[str]:
    """Old heads still reachable; when one is not, mark every unreachable stored commit."""
    live = [h for h in old_heads if G.exists(root, h) and G.reachable_from_refs(root, h)]
    if len(live) != len(old_heads):
        st.rewritten = True
        gone, back = store.mark_reachable(G.all_reachable(root), _now())
        st.unreachable_marked += gone
        st.restored += back
        if gone:
            st.notes.append(f"history was rewritten: {gone} stored commit(s) are no longer "
                            "reachable and were marked unreachable")
    return live


def _diffs(root: str, shas: list[str], parents: dict[str, tuple[str, ...]],
           boundary: set[str]
           ) -> tuple[list[G.CommitInfo], dict[str, list[G.FileChange]], dict[str, str]]:
    """Commit objects, first-parent diffs and the commits git could not diff ({sha: git's
    reason}); when the parents are known already (from rev-list), diff-tree and cat-file
    run side by side."""
    if not all(s in parents for s in shas):
        commits = G.read_commits(root, shas)
        return commits, *G.diff_commits_tolerant(
            root, [(c.sha, c.parents[0] if c.parents else "") for c in commits
                   if c.sha not in boundary])
    pairs = [(s, parents[s][0] if parents[s] else "") for s in shas if s not in boundary]
    got: dict[str, Any] = {}

    def diff() -> None:
        try:
            got["diffs"] = G.diff_commits_tolerant(root, pairs)
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            got["error"] = e

    th = threading.Thread(target=diff, daemon=True)
    th.start()
    commits = G.read_commits(root, shas)
    th.join()
    if "error" in got:
        raise got["error"]
    return commits, *got["diffs"]


def _merge_sides(root: str, merges: list[G.CommitInfo], bad: dict[str, str]
                 ) -> dict[str, list[dict[str, G.FileChange]]]:
    """For each merge: its diff against each parent after the first, by path. A merge git
    cannot diff against one of them is added to ``bad`` ({sha: git's reason})."""
    out: dict[str, list[dict[str, G.FileChange]]] = {m.sha: [] for m in merges}
    for k in range(1, max((len(m.parents) for m in merges), default=1)):
        pairs = [(m.sha, m.parents[k]) for m in merges if len(m.parents) > k]
        got, failed = G.diff_commits_tolerant(root, pairs)
        for sha, fcs in got.items():
            out[sha].append({f.path: f for f in fcs})
        for sha, why in failed.items():  # a side git cannot read: the merge is not expanded
            bad[sha] = why
    return out


def _ingest_chunk(store: HistoryStore, root: str, shas: list[str], seq_map: dict[str, int],
                  mode: str, huge: int, boundary: set[str], skip_path: Callable[[str], bool],
                  workers: int | None, st: IngestStats,
                  blob_cache: dict[str, list[SymState] | None],
                  parents: dict[str, tuple[str, ...]]) -> None:
    commits, diffs, failed = _diffs(root, shas, parents, boundary)
    # a merge's other sides matter only to the symbol changes of a merge that `full` mode
    # expands (not a huge one): `message` mode never diffs them
    merges = [c for c in commits if len(c.parents) > 1 and c.sha not in boundary
              and mode == "full" and len(diffs.get(c.sha, [])) <= huge]
    sides = _merge_sides(root, merges, failed) if merges else {}
    if failed:
        st.unreadable += len(failed)
        sha, why = next(iter(failed.items()))
        st.unreadable_example = st.unreadable_example or f"{sha[:10]}: {why}"
    rows: list[dict[str, Any]] = []
    files: dict[str, list[tuple[str, str, str, int, int]]] = {}
    expand: list[tuple[str, list[G.FileChange], list[dict[str, G.FileChange]]]] = []
    for c in commits:
        fcs = diffs.get(c.sha, [])
        others = sides.get(c.sha, [])
        is_boundary = c.sha in boundary
        is_huge = len(fcs) > huge
        do_expand = mode == "full" and not is_boundary and not is_huge and c.sha not in failed
        message = clean(c.message)  # secrets are redacted before anything is written
        rows.append({"sha": c.sha, "seq": seq_map[c.sha], "parents": " ".join(c.parents),
                     "author_name": clean(c.author_name), "author_email": c.author_email,
                     "author_date": c.author_date, "author_ts": c.author_ts,
                     "committer_date": c.committer_date, "committer_ts": c.committer_ts,
                     "message": message, "subject": message.split("\n", 1)[0].strip(),
                     "n_files": len(fcs), "huge": int(is_huge), "boundary": int(is_boundary),
                     "expanded": int(do_expand), "fix": int(is_fix(c.message))})
        files[c.sha] = [(f.path, f.old_path, f.status, f.added, f.deleted) for f in fcs]
        st.huge += is_huge
        st.boundary += is_boundary
        if do_expand:
            expand.append((c.sha, fcs, others))
    missing: list[str] = []
    changes = symbol_changes(root, expand, skip_path, workers, blob_cache,
                             missing) if expand else {}
    st.missing_blobs += len(missing)
    store.write_commits(rows, files, changes)
    st.ingested += len(rows)
    st.expanded += len(expand)
    st.symbol_changes += sum(len(v) for v in changes.values())


def _code_files(fcs: list[G.FileChange], skip_path: Callable[[str], bool]
                ) -> list[tuple[G.FileChange, str, str]]:
    """The changes worth parsing: (change, old language, new language)."""
    out = []
    for f in fcs:
        if SUBMODULE in (f.old_mode, f.new_mode):
            continue
        old = f.old_path or f.path
        lo = language_for(old) if f.status != "A" and not skip_path(old) else None
        ln = language_for(f.path) if f.status != "D" and not skip_path(f.path) else None
        if lo or ln:
            out.append((f, lo or "", ln or ""))
    return out


def symbol_changes(root: str,
                    expand: list[tuple[str, list[G.FileChange], list[dict[str, G.FileChange]]]],
                    skip_path: Callable[[str], bool], workers: int | None,
                    cache: dict[str, list[SymState] | None],
                    missing: list[str] | None = None) -> dict[str, list[SymbolChange]]:
    """Symbol changes per commit. A merge is compared with its first parent; a change
    that does not also differ from every other parent came in with the merged branch
    (whose own commits hold it) and is recorded as ``merged``; what differs from every
    parent (a conflict resolution: git's combined diff) keeps its own kind. ``cache`` (blob → symbols, ``None``
    = could not parse) carries parses from one chunk to the next: a file version is the
    new side of one commit and the old side of the next, and a blob that timed out is not
    tried again. ``missing``: when given, the blob ids git could not read are appended
    (their files' changes are left out)."""
    wanted: dict[str, tuple[str, str]] = {}  # blob -> (path, language)
    per_commit = []
    for sha, fcs, others in expand:
        code = _code_files(fcs, skip_path)
        per_commit.append((sha, code, others))
        for f, lo, ln in code:
            if lo and f.old_blob != G.EMPTY_BLOB:
                wanted.setdefault(f.old_blob, (f.old_path or f.path, lo))
            if ln and f.new_blob != G.EMPTY_BLOB:
                wanted.setdefault(f.new_blob, (f.path, ln))
            for o in others:
                ofc = o.get(f.path)
                lang = language_for(ofc.old_path or ofc.path) if ofc else None
                if ofc and lang and ofc.old_blob != G.EMPTY_BLOB:
                    wanted.setdefault(ofc.old_blob, (ofc.old_path or ofc.path, lang))
    from hindsight.history.blobparse import Version, parse_versions

    raw = G.read_blobs(root, list(wanted))  # cheap; parsing is what the cache saves
    if missing is not None:
        missing += [b for b in wanted if b not in raw]
    versions: list[Version] = [(b, wanted[b][0], wanted[b][1], raw[b]) for b in wanted
                               if b in raw and b not in cache]
    parsed = parse_versions(versions, workers)
    if len(cache) > BLOB_CACHE:
        cache.clear()
    cache.update(parsed)
    parsed = {b: cache.get(b) for b in wanted}
    out: dict[str, list[SymbolChange]] = {}
    for sha, code, others in per_commit:
        changes: list[SymbolChange] = []
        for f, lo, ln in code:
            mine = _file_changes(parsed, raw, f, lo, ln)
            own = {(c.path, c.local) for c in mine}
            for o in others:
                ofc = o.get(f.path)
                lang = language_for(ofc.old_path or ofc.path) if ofc else None
                theirs = _file_changes(parsed, raw, ofc, lang or "", ln) if ofc else []
                own &= {(c.path, c.local) for c in theirs}
            if others and any(c.change == "modified" for c in mine if (c.path, c.local) in own):
                own -= _combined_clean(raw, f, others, mine, own)
            if others:
                mine = [c if (c.path, c.local) in own else c._replace(change="merged")
                        for c in mine]
            changes += mine
        out[sha] = pair_moves(changes)
    return out


def _combined_clean(raw: dict[str, bytes], f: G.FileChange,
                    others: list[dict[str, G.FileChange]], mine: list[SymbolChange],
                    own: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """Of a merge's ``modified`` symbols that differ from every parent, those with no line
    that differs from every parent: each of their lines comes from one side (both sides
    edited the symbol, git merged the edits cleanly), so git's combined diff (``git show
    --cc``) shows nothing there and the merge changed nothing of its own (break-it)."""
    new = raw.get(f.new_blob, b"").splitlines()
    changed: set[int] | None = None
    for old_blob in [f.old_blob, *(o[f.path].old_blob for o in others if f.path in o)]:
        lines = {j + 1 for tag, _i1, _i2, j1, j2 in difflib.SequenceMatcher(
            None, raw.get(old_blob, b"").splitlines(), new, autojunk=False).get_opcodes()
            if tag != "equal" for j in range(j1, j2)}
        changed = lines if changed is None else changed & lines
    hit = changed or set()
    return {(c.path, c.local) for c in mine if c.change == "modified" and (c.path, c.local) in
            own and not any(c.start_line <= ln <= c.end_line for ln in hit)}


def _file_changes(parsed: dict[str, list[SymState] | None], raw: dict[str, bytes],
                  f: G.FileChange, lo: str, ln: str) -> list[SymbolChange]:
    """Symbol changes of one file change; none when a side could not be parsed."""
    old = parsed.get(f.old_blob) if lo else None
    new = parsed.get(f.new_blob) if ln else None
    if (lo and f.old_blob != G.EMPTY_BLOB and old is None) or \
            (ln and f.new_blob != G.EMPTY_BLOB and new is None):
        return []  # binary, too large, minified, or the parser gave up
    if old is None or new is None or not lo or not ln:
        return compare_file(f.old_path or f.path, old if lo else None, f.path,
                            new if ln else None)
    ol = raw.get(f.old_blob, b"").splitlines()
    nl = raw.get(f.new_blob, b"").splitlines()
    same = not f.old_path
    return pair_renames(compare_file(f.old_path or f.path, old, f.path, new,
                                     ol if same else None, nl if same else None), ol, nl)
