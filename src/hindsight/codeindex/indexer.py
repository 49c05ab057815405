"""Build and update a repository's code index in its bank (issue #2, items 3-7).

Full build: select files, parse them in worker processes, resolve every reference, then
bulk-load one transaction with secondary indexes dropped and rebuilt after the load.

Incremental (default once a bank has an index): files whose size and mtime are unchanged
are not read; files read again but with the same content hash are kept. For the set ``C``
of added, modified and deleted files, the *affected* set is ``C`` plus every file that
recorded a dependency on a key any version of a file in ``C`` provides (its path, Python
module, directory, package). Affected files are re-resolved from their stored raw
references, so edges pointing INTO a changed file from unchanged callers are refreshed.
The result equals a full rebuild (tests/test_incremental.py proves it).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from hindsight.codeindex import build as B
from hindsight.codeindex import files as F
from hindsight.codeindex import modules as M
from hindsight.codeindex import pool
from hindsight.codeindex.interface import affected_by_name, edit_names, enumeration_changed
from hindsight.codeindex.parse import EXTRACTOR_VERSION
from hindsight.codeindex.receivers import FACTS_VERSION, PROVIDED_PREFIXES
from hindsight.codeindex.resolve import FileSyms, Row, Table, resolve_file
from hindsight.codeindex.wire import file_syms
from hindsight.config.paths import git_cmd
from hindsight.errors import ConfigError
from hindsight.models import IndexStats, ParseResult
from hindsight.store.base import CodeStore, FileRow

Progress = Callable[[str, int, int], None]


def parse_many(root: str, items: list[tuple[str, str]], workers: int,
               progress: Progress | None = None, timeout: float | None = None
               ) -> list[ParseResult]:
    """Parse ``(path, language)`` items in worker processes (one for small sets), each
    file under a time limit of ``timeout`` seconds (None: setting ``parseTimeoutS``, see
    :mod:`hindsight.codeindex.pool`). A file over the limit comes back with
    ``skip="parse_timeout"``. Results are sorted by path."""
    if not items:
        return []
    if len(items) <= B.IN_PROCESS_MAX:
        results, timed_out = pool.run_small(root, items, timeout)
    else:
        results, timed_out = pool.run(root, B.batches(root, items), workers, progress,
                                      timeout)
    for path, lang in timed_out:
        results.append(ParseResult(path=path, language=lang, content_hash="",
                                   size=0, mtime_ns=0, lines=0, skip="parse_timeout"))
    if progress:
        progress("parse", len(items), len(items))
    results.sort(key=lambda r: r.path)
    return results


def go_module(root: str) -> str:
    """Module path from ``root/go.mod`` (``""`` when absent, unreadable or malformed)."""
    try:
        with open(os.path.join(root, "go.mod"), "rb") as fh:
            for line in fh.read().decode("utf-8", "replace").splitlines():
                parts = line.split(None, 1)
                if len(parts) == 2 and parts[0] == "module":
                    return parts[1].split("//", 1)[0].strip().strip('"')
    except OSError:
        pass
    return ""


def rust_crate(root: str) -> str:
    """``[package] name`` from ``root/Cargo.toml`` with ``-`` as ``_`` (``""`` if none)."""
    import tomllib

    try:
        with open(os.path.join(root, "Cargo.toml"), "rb") as fh:
            data = tomllib.load(fh)
    except (OSError, ValueError):
        return ""
    pkg = data.get("package") if isinstance(data, dict) else None
    name = pkg.get("name", "") if isinstance(pkg, dict) else ""
    return name.replace("-", "_") if isinstance(name, str) else ""


def _fs_from_result(r: ParseResult, module: str) -> FileSyms:
    return file_syms(r, module)


def index(store: CodeStore, root: str, *, full: bool = False,
          include_untracked: bool | None = None, workers: int | None = None,
          exclude: list[str] | None = None, progress: Progress | None = None,
          remember: bool = True, parse_timeout_s: float | None = None) -> IndexStats:
    """Index repository ``root`` (absolute path) into the bank's code store ``store``.

    ``workers``: parser processes (default: CPU count). ``exclude``: gitignore-style
    patterns; ``include_untracked``: also untracked, non-ignored files. Both are stored in
    the bank when given and reused by later runs that pass ``None`` (``exclude=[]`` clears
    the patterns) unless ``remember`` is false. ``parse_timeout_s``: per-file parse limit
    in seconds (None: setting ``parseTimeoutS``). Returns :class:`IndexStats`.
    Raises :class:`~hindsight.errors.StorageError` if the database cannot be written;
    bad files never raise (they are counted as skipped or recorded with a parse error).
    """
    t0 = time.perf_counter()
    workers = workers or os.cpu_count() or 1
    if exclude is None:
        saved = store.get_meta("exclude")
        exclude = [p for p in saved.split("\n") if p] if saved else []
    else:
        for p in exclude:
            why = F.bad_pattern(p) if p else ""
            if why:
                raise ConfigError(f"exclude {p!r}: not a valid gitignore pattern ({why}); "
                                  "nothing was changed", option="exclude", value=p)
        store.set_meta({"exclude": "\n".join(p for p in exclude if p)})
    if include_untracked is None:
        include_untracked = store.get_meta("include_untracked") == "1"
    elif remember:
        store.set_meta({"include_untracked": "1" if include_untracked else "0"})
    sel = F.select(root, include_untracked, exclude)
    known = _skip_known_timeouts(store, root, sel)
    if not sel.files:
        gone = sel.counts["excluded"] + sel.counts["excluded_directory"]
        pats = [p for p in exclude if p]
        hint = ("; untracked files are indexed only with --include-untracked"
                if sel.git and not include_untracked else "")
        if gone:  # (break-it 40: `--exclude '**/*.py'` read as "untracked")
            hint = (f": the exclude patterns {', '.join(map(repr, pats))} (remembered; "
                    "`hindsight index --exclude ''` clears them)" if pats else
                    ": the patterns of .hindsightignore") + \
                f" leave out every source file ({gone} excluded)"
        sel.warnings.append(f"{root}: no source files to index{hint}")
    stats = IndexStats(full=full)
    stats.warnings.extend(sel.warnings)
    stats.files_seen = len(sel.files)
    existing = store.load_files()
    if not existing or store.get_meta("facts_version") != FACTS_VERSION:
        full = True  # first index, or a bank indexed before the current receiver facts
        stats.full = True
    version = str(EXTRACTOR_VERSION)
    was = store.get_meta("extractor_version")
    migration = ""
    if existing and was != version:
        full = stats.full = True  # other definitions or names: every file is read again
        stats.warnings.append(f"symbol extraction changed (version {was or 1} -> "
                              f"{version}): the index was rebuilt")
        migration = _identity_snapshot(store, existing)
        if migration and not store.get_meta("identity_migration"):
            # kept before the rebuild: a run killed after its commit (before the version
            # below is written) would snapshot the new index instead (break24)
            store.set_meta({"identity_migration": migration})  # memory.anchors reads it
    stats.phases["select"] = round(time.perf_counter() - t0, 6)
    stats.serial_seconds = stats.phases["select"]
    if full:
        _full(store, root, sel, workers, progress, stats, parse_timeout_s)
    else:
        clock = B.Clock(stats)
        _incremental(store, root, sel, existing, workers, progress, stats, parse_timeout_s)
        clock.lap("incremental", serial=False)
    clock = B.Clock(stats)
    if was != version:
        store.set_meta({"extractor_version": version})
    _save_timeouts(store, root, sel, known)
    head = _head(root) if sel.git else ""
    clock.lap("end", serial=True)
    stats.seconds = time.perf_counter() - t0
    store.set_meta({"root": root, "last_index_seconds": f"{stats.seconds:.3f}",
                    "indexed_commit": head,
                    "sparse_checkout": "" if sel.sparse is None else json.dumps(sel.sparse),
                    "facts_version": FACTS_VERSION})
    return stats


def _identity_snapshot(store: CodeStore, existing: dict[str, FileRow]) -> str:
    """Before a rebuild for a new extractor version: the old symbols whose local name
    repeats in their file (getter and setter, overloads, stubs, which the new version may
    name apart), as JSON ``[[path, local, ast hash, start, end, file content hash]…]``,
    so that anchors to them can be re-pointed (``hindsight.memory.anchors``)."""
    rows = [[p, loc, h, s, e, existing[p].content_hash if p in existing else ""]
            for p, loc, h, s, e in store.repeated_symbols()]
    return json.dumps(rows) if rows else ""


def _stat_key(root: str, path: str) -> list[int] | None:
    try:
        st = os.stat(os.path.join(root, path))
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def _skip_known_timeouts(store: CodeStore, root: str, sel: F.Selection) -> dict[str, Any]:
    """Files that timed out before and have not changed since (same size and mtime) are
    skipped without parsing again (a timeout costs parseTimeoutS each time)."""
    try:
        known = json.loads(store.get_meta("parse_timeouts") or "{}")
    except ValueError:
        known = {}
    for path, key in list(known.items()):
        if path in sel.files and _stat_key(root, path) == key:
            del sel.files[path]
            sel.skip(path, "parse_timeout")
    return dict(known)


def _save_timeouts(store: CodeStore, root: str, sel: F.Selection, known: dict[str, Any]
                   ) -> None:
    now = {p: _stat_key(root, p) for p, reason in sel.skipped.items()
           if reason == "parse_timeout"}
    now = {p: k for p, k in now.items() if k is not None}
    if now != known:
        store.set_meta({"parse_timeouts": json.dumps(now, sort_keys=True)})


def _head(root: str) -> str:
    import subprocess

    try:
        out = subprocess.run(git_cmd(root, "rev-parse", "--verify", "-q", "HEAD"),
                             capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.decode().strip() if out.returncode == 0 else ""


def _split_results(results: list[ParseResult], sel: F.Selection, stats: IndexStats,
                   timeout: float | None = None) -> list[ParseResult]:
    keep = []
    for r in results:
        if r.skip:
            sel.skip(r.path, r.skip)
            if r.skip == "parse_timeout":
                stats.warnings.append(f"{r.path}: parsing took over "
                                      f"{pool.parse_timeout_s(timeout):g}s; skipped")
            continue
        keep.append(r)
    return keep


def _full(store: CodeStore, root: str, sel: F.Selection, workers: int,
          progress: Progress | None, stats: IndexStats, timeout: float | None = None) -> None:
    B.full_build(store, root, sel, workers, progress, stats, timeout,
                 (go_module(root), rust_crate(root)))


def _raw_refs(r: ParseResult) -> list[tuple[str, str, str, str, int]]:
    return [(x.caller, x.kind, x.name, x.receiver, x.line) for x in r.refs]


def _stale(root: str, sel: F.Selection, existing: dict[str, FileRow]) -> list[tuple[str, str]]:
    """Files to read again: new ones and those whose size or mtime changed."""
    out: list[tuple[str, str]] = []
    for path, lang in sorted(sel.files.items()):
        old = existing.get(path)
        if old is not None and old.language == lang:
            seen = sel.sizes.get(path)
            if seen is None:
                try:
                    st = os.stat(os.path.join(root, path))
                except OSError:
                    continue
                seen = (st.st_size, st.st_mtime_ns)
            if seen == (old.size, old.mtime_ns):
                continue
        out.append((path, lang))
    return out


def _classify(results: list[ParseResult], existing: dict[str, FileRow], sel: F.Selection,
              stats: IndexStats) -> tuple[list[ParseResult], list[tuple[str, int]]]:
    """Split re-read files into changed ones and ones whose content is the same (only the
    mtime is refreshed). A file that cannot be read keeps its stored version."""
    changed: list[ParseResult] = []
    touched: list[tuple[str, int]] = []
    for r in results:
        old = existing.get(r.path)
        if r.error.startswith("unreadable"):
            stats.warnings.append(f"{r.path}: {r.error}; "
                                  + ("kept the indexed version" if old else "skipped"))
            if old is None:
                sel.skip(r.path, "unreadable")
            continue
        if old is not None and old.content_hash == r.content_hash:
            touched.append((r.path, r.mtime_ns))
        else:
            changed.append(r)
    return changed, touched


def _affected(store: CodeStore, existing: dict[str, FileRow],
              info: dict[str, tuple[str, str, str]], changed: set[str], deleted: list[str],
              keys: set[str]) -> set[str]:
    """Changed files plus every file that recorded a dependency on a key that any old or
    new version of a changed or deleted file provides (``keys``: those not derived from
    a file's path, language, module and package, such as ``sub:`` keys)."""
    keys = set(keys)
    for p in [*changed, *deleted]:
        old = existing.get(p)
        if old is not None:
            keys.update(M.provided_keys(p, old.language, old.module, old.package))
        if p in info:
            keys.update(M.provided_keys(p, *info[p]))
    return (store.dependents(keys) & set(info)) | changed


def _incremental(store: CodeStore, root: str, sel: F.Selection,
                 existing: dict[str, FileRow], workers: int, progress: Progress | None,
                 stats: IndexStats, timeout: float | None = None) -> None:
    results = _split_results(parse_many(root, _stale(root, sel, existing), workers, progress,
                                        timeout), sel, stats, timeout)
    changed, touched = _classify(results, existing, sel, stats)
    present = {p for p in sel.files if p not in sel.skipped}
    for d in sel.unreadable_dirs:  # cannot see inside: keep what was indexed there
        present.update(p for p in existing if p.startswith(d + "/") or not d)
    deleted = [p for p in existing if p not in present]
    new_hashes = {r.content_hash for r in changed if r.path not in existing}
    stats.files_renamed = sum(1 for p in deleted if existing[p].content_hash in new_hashes)
    stats.files_removed = len(deleted)
    stats.files_parsed = len(changed)
    stats.files_unchanged = len(present) - len(changed)
    if touched:
        store.touch_mtimes(touched)
    if not changed and not deleted:
        store.write_skips(sel)
        _counts_only(store, stats, sel)
        return
    rows = {p: existing[p] for p in existing if p in present}
    init = B.init_files(set(rows) | {r.path for r in changed})
    relocate = init != B.init_files(existing)  # python packages changed: modules move
    new_modules = {r.path: B.module_for(r.path, r.language, init) for r in changed}
    info = {p: (fr.language, B.module_for(p, fr.language, init) if relocate else fr.module,
                fr.package) for p, fr in rows.items()}
    info.update({r.path: (r.language, new_modules[r.path], r.package) for r in changed})
    changed_paths = {r.path for r in changed}
    # as stored (redacted: FileSyms.dumps), so re-resolving them later gives the same edges
    dumps = {r.path: _fs_from_result(r, new_modules[r.path]).dumps() for r in changed}
    fresh = {p: FileSyms.loads(d, new_modules[p]) for p, d in dumps.items()}
    for r in changed:
        _remember((r.path, r.content_hash, *info[r.path]), fresh[r.path], len(dumps[r.path]))
    gone = changed_paths | set(deleted)
    # keys the old and new versions provide beyond their paths (receivers.PROVIDES):
    # those that appear, disappear or change digest
    old_keys = store.provided(existing[p].id for p in gone if p in existing)
    sub_keys: set[str] = set()
    for p in gone:
        was = old_keys.get(existing[p].id, {}) if p in existing else {}
        now = fresh[p].provided if p in fresh else {}
        sub_keys.update(k for k in was.keys() | now.keys() if was.get(k) != now.get(k))
    affected = set(info) if relocate else _affected(store, existing, info, changed_paths,
                                                    deleted, sub_keys)
    id_of = {p: fr.id for p, fr in rows.items()}

    def more(key: str) -> list[str]:  # `sub:`/`arg:`/`impl:` keys: stored files, new versions
        if not key.startswith(PROVIDED_PREFIXES):
            return []
        paths = {p for p in store.providers(key) if p not in gone and p in info}
        paths.update(p for p, new in fresh.items() if key in new.provided)
        return sorted(paths)

    stored = stored_loader(store, rows, info)

    def loader(path: str) -> FileSyms | None:
        return fresh[path] if path in fresh else stored(path)

    key_index = M.build_key_index((p, *v) for p, v in sorted(info.items()))
    table = Table(loader, key_index, go_module(root), rust_crate(root), more)
    edges: dict[str, tuple[list[Row], set[str]]] = {
        r.path: resolve_file(table, fresh[r.path], _raw_refs(r)) for r in changed}
    rerun = sorted(affected - changed_paths)
    names = None if relocate or sub_keys or deleted else edit_names(
        [(r.path, stored(r.path) if r.path in rows else None) for r in changed], fresh)
    # a dependent through a provided key (`sub:`, `arg:`…) enumerates what the edited
    # files define (subclasses, call sites): it reaches names it never writes
    keys = {k for p in changed_paths if p in existing
            for k in [*old_keys.get(existing[p].id, {}), *fresh[p].provided]
            if enumeration_changed(k, fresh[p], names)}
    # (no name changed: what they enumerate is as it was)
    forced = store.dependents(keys) if names and keys else set()
    refs = {p: store.load_raw_refs(id_of[p], p) for p in rerun}
    for p in affected_by_name(store, table, rerun, refs, id_of, names, forced):
        fs = table.get(p)
        if fs is not None:
            edges[p] = resolve_file(table, fs, refs[p])
    stats.files_reresolved = len(edges) - len(changed)
    modules_update = {p: info[p][1] for p in rows if relocate and info[p][1] != rows[p].module}
    store.write_incremental(changed, new_modules, deleted, edges, id_of, modules_update, sel,
                            dumps)
    _counts_only(store, stats, sel)
    stats.lines = sum(r.lines for r in changed)


def stored_loader(store: CodeStore, rows: dict[str, FileRow],
                  info: dict[str, tuple[str, str, str]]) -> Callable[[str], FileSyms | None]:
    """A :class:`Table` loader of the files as stored (``rows``; ``info``: path ->
    (language, module, package)): each file's dump, kept in :data:`_LOADED`; a damaged
    dump gives the symbols, imports and bases of its rows, without receiver facts (its
    calls resolve as before facts existed); ``None`` for a path not stored."""
    def loader(path: str) -> FileSyms | None:
        fr = rows.get(path)
        if fr is None or path not in info:
            return None
        key = (path, fr.content_hash, *info[path])
        hit = _cached(key)
        if hit is not None:
            return hit
        dump = store.load_dump(fr.id)
        if dump is not None:
            with contextlib.suppress(ValueError, EOFError, TypeError):
                fs = FileSyms.loads(dump, info[path][1])
                _remember(key, fs, len(dump))
                return fs
        syms, imps, inh = store.load_file_raw(fr.id, path)
        return FileSyms.build(path, *info[path], syms, imps, inh)
    return loader


def stored_table(store: CodeStore, root: str) -> Table:
    """A :class:`Table` of the index as stored, to resolve references at query time
    (:mod:`hindsight.codeindex.propreads`)."""
    rows = store.load_files()
    info = {p: (fr.language, fr.module, fr.package) for p, fr in rows.items()}

    def more(key: str) -> list[str]:
        return sorted(p for p in store.providers(key) if p in info) \
            if key.startswith(PROVIDED_PREFIXES) else []

    return Table(stored_loader(store, rows, info),
                 M.build_key_index((p, *v) for p, v in sorted(info.items())),
                 go_module(root), rust_crate(root), more)


_LOADED: OrderedDict[tuple[str, ...], tuple[FileSyms, int]] = OrderedDict()
"""(path, content hash, language, module, package) → that file version's FileSyms and the
size of its dump in bytes, as loaded or built by earlier re-indexes of this process, least
recently used first: a FileSyms depends on those alone (and on this process's extractor
and redaction rules), so a process re-indexing often (``watch``, the MCP server) loads a
consulted file once, not on every save (its derived tables too)."""
_LOADED_BYTES = 8 << 20
"""Dump bytes :data:`_LOADED` keeps at most: a FileSyms with its derived tables takes
about 7.6 times its dump in memory (126.6 MB for the 16.7 MB of dumps of a Python
standard library, measured with tracemalloc), so about 60 MB."""
_loaded_bytes = 0


def _cached(key: tuple[str, ...]) -> FileSyms | None:
    hit = _LOADED.get(key)
    if hit is None:
        return None
    _LOADED.move_to_end(key)
    return hit[0]


def _remember(key: tuple[str, ...], fs: FileSyms, size: int) -> None:
    global _loaded_bytes
    old = _LOADED.pop(key, None)
    if old is not None:
        _loaded_bytes -= old[1]
    _LOADED[key] = (fs, size)
    _loaded_bytes += size
    while _loaded_bytes > _LOADED_BYTES and _LOADED:
        _k, (_fs, n) = _LOADED.popitem(last=False)
        _loaded_bytes -= n


def _counts_only(store: CodeStore, stats: IndexStats, sel: F.Selection) -> None:
    c = store.counts()
    stats.symbols = c["symbols"]
    stats.edges = c["edges"]
    stats.parse_errors = c["parse_errors"]
    stats.skipped = dict(sel.counts)


def reparse_one(root: str, path: str, parse_timeout_s: float | None = None) -> Any:
    """Debug helper: parse one file without touching the bank (``hindsight debug``),
    under the same time limit as indexing (``parse_timeout_s`` seconds, None: setting
    ``parseTimeoutS``)."""
    lang = F.language_for(path)
    if lang is None:
        return None
    return parse_many(root, [(path, lang)], 1, timeout=parse_timeout_s)[0]
