"""Full build of a repository's code index, at parse speed (issue 14, item 5).

Phases, named as in :attr:`hindsight.models.IndexStats.phases`; *serial* ones are those in
which only this process works (:attr:`~hindsight.models.IndexStats.serial_seconds`):

* ``begin`` (serial): the scratch files of the rebuild (:mod:`hindsight.store.sqlite.bulk`).
* ``parse`` (parallel, until the last batch's result arrives; taking that one in is
  ``parse.tail``, serial): worker processes parse batches of files (big files first) and
  send each finished batch in the compact form of :mod:`hindsight.codeindex.wire`; this
  process meanwhile stages the batch's files, symbols and notes for the rebuild (without
  the bank's write lock) and keeps each file's
  :class:`~hindsight.codeindex.resolve.FileSyms` and references.
* ``table`` (serial): Python module names once the skipped ``__init__`` files are known,
  and the key index.
* ``resolve`` (parallel): forked child processes, one per part file of the rebuild, each
  resolve a share of the files (balanced by number of references) against the whole
  table, which they inherit from this process through fork (copy-on-write, nothing is
  sent), and write their edge rows into their part; this process meanwhile takes the
  bank's write lock, replaces the old index's files, symbols and notes with the staged
  ones and builds their indexes, then merges each part as its child exits. Only "resolve the references of these files given this table"
  (:func:`resolve_rows`) is asked of resolution.
* ``merge`` (serial): what this process still does once the last child has finished
  (merging the last parts; the children write the time they finished into a pipe, and
  the monotonic clock is the same in every process).
* ``finish`` (serial): skip lists, counts, secondary indexes, commit, WAL checkpoint.

Where fork is missing, or for fewer than :data:`PARALLEL_RESOLVE_MIN` files, resolution
runs here (``resolve`` is then serial). A child that fails has its share resolved here
instead, so the index is the same either way.
"""

from __future__ import annotations

import contextlib
import gc
import os
import select
import signal
import struct
import time
from collections.abc import Callable, Iterable
from typing import Any

from hindsight.codeindex import files as F
from hindsight.codeindex import modules as M
from hindsight.codeindex import pool
from hindsight.codeindex import wire as W
from hindsight.codeindex.lifetime import die_with_parent
from hindsight.codeindex.receivers import PROVIDES
from hindsight.codeindex.resolve import FileSyms, Table, resolve_file
from hindsight.models import IndexStats
from hindsight.store.base import BulkLoad, CodeStore

Progress = Callable[[str, int, int], None]
IN_PROCESS_MAX = 24  # below this many files to parse, a worker pool costs more than it saves
BATCH_BYTES = 1 << 20  # a batch of files sent to one worker (big files first)
PARALLEL_RESOLVE_MIN = 400  # files; below this a forked resolver costs more than it saves
RESOLVE_CHUNK = 256  # files a resolver writes to its part at a time
# a resolver child that finishes no file for this long (s) is stuck (break24): it is
# killed and its share resolved by the main process (the same edges, later)
RESOLVE_STALL_S = 30.0


class Clock:
    """Adds the wall time since the previous lap to ``stats.phases[name]`` (and to
    ``stats.serial_seconds`` for a serial phase)."""

    def __init__(self, stats: IndexStats) -> None:
        self.stats = stats
        self.t = time.perf_counter()

    def lap(self, name: str, serial: bool, at: float | None = None) -> None:
        """End phase ``name`` now, or at ``at`` (a ``time.perf_counter()`` value, not
        before the phase began)."""
        now = time.perf_counter() if at is None else max(at, self.t)
        dt = now - self.t
        self.t = now
        self.stats.phases[name] = round(self.stats.phases.get(name, 0.0) + dt, 6)
        if serial:
            self.stats.serial_seconds = round(self.stats.serial_seconds + dt, 6)


def init_files(paths: Iterable[str]) -> set[str]:
    """The Python package markers (``__init__.py``/``.pyi``) among ``paths``."""
    return {p for p in paths if p.rsplit("/", 1)[-1] in ("__init__.py", "__init__.pyi")}


def module_for(path: str, language: str, init: set[str]) -> str:
    """Python module of ``path`` given the package markers ``init``; ``""`` for others."""
    return M.python_module(path, init) if language == "python" else ""


def batches(root: str, items: list[tuple[str, str]], size: int | None = None
            ) -> list[list[tuple[str, str]]]:
    """``items`` in batches of about ``size`` bytes (None: :data:`BATCH_BYTES`), biggest
    files first (load balance)."""
    size = size or BATCH_BYTES
    sized = []
    for path, lang in items:
        try:
            sz = os.path.getsize(os.path.join(root, path))
        except OSError:
            sz = 0
        sized.append((sz, path, lang))
    sized.sort(reverse=True)
    out: list[list[tuple[str, str]]] = []
    cur: list[tuple[str, str]] = []
    acc = 0
    for sz, path, lang in sized:
        cur.append((path, lang))
        acc += sz
        if acc >= size:
            out.append(cur)
            cur, acc = [], 0
    if cur:
        out.append(cur)
    return out


class _Intake:
    """Takes parsed files as they arrive: rows (files, symbols, notes, each FileSyms as
    stored and its ``@provides`` receiver facts) into the rebuild, FileSyms and references kept for
    resolution, stats counted."""

    def __init__(self, load: BulkLoad, items: list[tuple[str, str]], sel: F.Selection,
                 stats: IndexStats) -> None:
        self.load = load
        self.sel = sel
        self.stats = stats
        self.ids = {p: i + 1 for i, (p, _lang) in enumerate(items)}  # path order
        self.init = init_files(p for p, _lang in items)
        self.info: dict[str, tuple[str, str, str]] = {}  # path -> language, module, package
        self.fss: dict[str, FileSyms] = {}
        self.refs: dict[str, bytes] = {}  # pickled references
        self.busy = 0.0  # seconds spent here

    def take(self, wires: list[tuple[Any, ...]]) -> None:
        t = time.perf_counter()
        files: list[tuple[Any, ...]] = []
        syms: list[tuple[Any, ...]] = []
        notes: list[tuple[Any, ...]] = []
        facts: list[tuple[Any, ...]] = []
        dumps: list[tuple[int, bytes]] = []
        st = self.stats
        for w in wires:
            path = w[W.PATH]
            if w[W.SKIP]:
                self.sel.skip(path, w[W.SKIP])
                continue
            fid = self.ids[path]
            mod = module_for(path, w[W.LANGUAGE], self.init)
            files.append((fid, path, w[W.LANGUAGE], w[W.SIZE], w[W.MTIME_NS],
                          w[W.CONTENT_HASH], w[W.LINES], mod, w[W.PACKAGE], w[W.ERROR]))
            syms += [(fid, *s) for s in w[W.SYMBOLS]]
            if w[W.NOTES]:
                notes += [(fid, *n) for n in w[W.NOTES]]
            self.info[path] = (w[W.LANGUAGE], mod, w[W.PACKAGE])
            fs = self.fss[path] = W.unpack_filesyms(w[W.FILESYMS], mod)
            dumps.append((fid, w[W.FILESYMS]))
            facts += [(fid, "", PROVIDES, k, d) for k, d in fs.provided.items()]
            self.refs[path] = w[W.REFS]
            st.lines += w[W.LINES]
            st.bytes += w[W.SIZE]
            st.symbols += len(w[W.SYMBOLS])
            st.parse_errors += w[W.ERROR] != ""
        self.load.add(files, syms, notes, facts, dumps)
        self.busy += time.perf_counter() - t

    def fix_modules(self) -> None:
        """Skipped ``__init__`` files (too large, binary…) change module names: update."""
        init = init_files(self.info)
        if init == self.init:
            return
        changed: dict[int, str] = {}
        for path, (lang, was, package) in self.info.items():
            mod = module_for(path, lang, init)
            if mod != was:
                self.info[path] = (lang, mod, package)
                self.fss[path].module = mod
                changed[self.ids[path]] = mod
        self.init = init
        if changed:
            self.load.set_modules(changed)


def full_build(store: CodeStore, root: str, sel: F.Selection, workers: int,
               progress: Progress | None, stats: IndexStats, timeout: float | None,
               table_args: tuple[str, str]) -> None:
    """Replace the code index of ``store`` with one of the files ``sel`` selected under
    ``root``, parsing in ``workers`` processes (each file within ``timeout`` seconds, None:
    setting ``parseTimeoutS``). ``table_args``: (Go module path, Rust crate name). Fills
    ``stats`` (counts, warnings, phases). Raises StorageError when the bank cannot be
    written (nothing changed then)."""
    collect = gc.isenabled()
    gc.disable()  # the rows kept here are acyclic; a collection would walk all of them
    try:
        _full_build(store, root, sel, workers, progress, stats, timeout, table_args)
    finally:
        if collect:
            gc.enable()


def _full_build(store: CodeStore, root: str, sel: F.Selection, workers: int,
                progress: Progress | None, stats: IndexStats, timeout: float | None,
                table_args: tuple[str, str]) -> None:
    clock = Clock(stats)
    items = sorted(sel.files.items())
    fork = _can_fork() and len(items) >= PARALLEL_RESOLVE_MIN
    with store.bulk_load(min(workers, os.cpu_count() or 1, 64) if fork else 0) as load:
        intake = _Intake(load, items, sel, stats)
        clock.lap("begin", serial=True)
        finished: list[float] = []
        _parse(root, items, workers, progress, timeout, intake, finished)
        stats.phases["parse.intake"] = round(intake.busy, 6)
        # parallel until the last worker's result arrived; taking it in is this process's
        clock.lap("parse", serial=False, at=max(finished, default=None))
        clock.lap("parse.tail", serial=True)
        intake.fix_modules()
        paths = sorted(intake.info)
        key_index = M.build_key_index((p, *intake.info[p]) for p in paths)
        for p in paths:  # paths in order: each key's list stays sorted
            for key in intake.fss[p].provided:  # sub: and arg: keys
                key_index.setdefault(key, []).append(p)
        table = Table(intake.fss.get, key_index, *table_args)
        clock.lap("table", serial=True)
        _resolve(load, table, intake, paths, progress, clock)
        totals = load.finish(dict(sel.skipped), dict(sel.counts))
        clock.lap("finish", serial=True)
    stats.edges = totals["edges"]
    stats.files_parsed = len(paths)
    stats.skipped = dict(sel.counts)


def _parse(root: str, items: list[tuple[str, str]], workers: int, progress: Progress | None,
           timeout: float | None, intake: _Intake, finished: list[float]) -> None:
    if not items:
        return
    if len(items) <= IN_PROCESS_MAX:
        results, given_up = pool.run_small(root, items, timeout)
        finished.append(time.perf_counter())
        intake.take([W.index_wire(r) for r in sorted(results, key=lambda r: r.path)])
    else:
        _, given_up = pool.run(root, batches(root, items), workers, progress, timeout,
                               sink=intake.take, finished=finished)
    for path, _lang in sorted(given_up):
        intake.sel.skip(path, "parse_timeout")
        intake.stats.warnings.append(f"{path}: parsing took over "
                                     f"{pool.parse_timeout_s(timeout):g}s; skipped")
    if progress:
        progress("parse", len(items), len(items))


def resolve_rows(table: Table, refs: dict[str, bytes], ids: dict[str, int], paths: list[str]
                 ) -> tuple[list[tuple[Any, ...]], list[tuple[int, str]]]:
    """Edge rows ``(file_id, src, kind, name, receiver, alias, line, dst)`` and dependency
    rows ``(file_id, key)`` of the files ``paths`` (with their pickled ``refs``), resolved
    against ``table``."""
    edges: list[tuple[Any, ...]] = []
    deps: list[tuple[int, str]] = []
    for p in paths:
        fs = table.get(p)
        if fs is None:
            continue
        rows, keys = resolve_file(table, fs, W.unpack_refs(refs[p]))
        fid = ids[p]
        edges += [(fid, *r) for r in rows]
        deps += [(fid, k) for k in sorted(keys)]
    return edges, deps


def shares(paths: list[str], weight: Callable[[str], int], n: int) -> list[list[str]]:
    """``paths`` in ``n`` groups of about equal total ``weight`` (heaviest first to the
    lightest group), each group in path order."""
    groups: list[list[str]] = [[] for _ in range(n)]
    load = [0] * n
    for p in sorted(paths, key=lambda p: (-weight(p), p)):
        i = load.index(min(load))
        groups[i].append(p)
        load[i] += weight(p)
    return [sorted(g) for g in groups]


def _resolve(load: BulkLoad, table: Table, intake: _Intake, paths: list[str],
             progress: Progress | None, clock: Clock) -> None:
    refs, ids = intake.refs, intake.ids
    if load.parts == 0:
        load.begin_write()
        load.add_edges(*resolve_rows(table, refs, ids, paths))
        clock.lap("resolve", serial=True)
        return
    groups = [g for g in shares(paths, lambda p: len(refs[p]) + 64, load.parts) if g]
    pids: list[int] = []
    rfd, wfd = os.pipe()  # each child writes the time it finished (8 bytes: atomic)
    beat_r, beat_w = os.pipe()  # and its number (1 byte) after each file it resolved
    os.set_blocking(beat_w, False)  # a full pipe drops beats, never stalls a child
    gc.freeze()  # children share these objects: the collector would copy their pages
    try:
        def work(i: int) -> None:  # in chunks: a child never holds all its rows
            write = load.part_writer()
            mark = bytes([i])
            for at in range(0, len(groups[i]), RESOLVE_CHUNK):
                edges: list[tuple[Any, ...]] = []
                deps: list[tuple[int, str]] = []
                for p in groups[i][at:at + RESOLVE_CHUNK]:
                    e, d = resolve_rows(table, refs, ids, [p])
                    edges += e
                    deps += d
                    with contextlib.suppress(BlockingIOError):
                        os.write(beat_w, mark)
                write(i, edges, deps)

        _fork(pids, groups, wfd, work)
        os.close(wfd)
        os.close(beat_w)
        wfd = beat_w = -1
        load.begin_write()  # the bank's write lock, symbol rows and indexes: meanwhile
        heard = [time.monotonic()] * len(pids)
        for i, pid in enumerate(pids):
            status = _wait_child(pid, i, beat_r, heard)
            pids[i] = 0
            if status == 0:
                load.merge_part(i)
            else:  # the child failed: resolve its share here
                load.add_edges(*resolve_rows(table, refs, ids, groups[i]))
            if progress:
                progress("resolve", sum(len(g) for g in groups[:i + 1]), len(paths))
        # parallel until the last child finished; what this process did after is serial
        clock.lap("resolve", serial=False, at=max(_finish_times(rfd), default=None))
        clock.lap("merge", serial=True)
    finally:
        gc.unfreeze()
        for fd in (rfd, wfd, beat_r, beat_w):
            if fd >= 0:
                os.close(fd)
        for pid in pids:
            if pid:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)


def _wait_child(pid: int, i: int, beats: int, heard: list[float]) -> int:
    """The exit status of resolver child ``i`` (``pid``), or -1 after killing it when it
    resolved no file for :data:`RESOLVE_STALL_S` seconds. ``beats``: the pipe where each
    child writes its number per file; ``heard``: when each child was last heard of
    (``time.monotonic()``), updated here for all of them."""
    while True:
        got, status = os.waitpid(pid, os.WNOHANG)
        if got:
            return status
        ready, _w, _x = select.select([beats], [], [], 0.01)
        if ready:
            data = os.read(beats, 65536)
            now = time.monotonic()
            for j in set(data):
                heard[j] = now
        if time.monotonic() - heard[i] > RESOLVE_STALL_S:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return -1


def _fork(pids: list[int], groups: list[list[str]], wfd: int,
          work: Callable[[int], None]) -> None:
    """One child per group running ``work(i)``; each writes its finish time to ``wfd``
    and exits 0, or exits 1 on any error. Appends the children's pids to ``pids``."""
    parent = os.getpid()
    for i in range(len(groups)):
        pid = os.fork()
        if pid == 0:  # child: never returns
            code = 1
            try:
                die_with_parent(parent)
                gc.disable()
                work(i)
                os.write(wfd, struct.pack("d", time.perf_counter()))
                code = 0
            finally:
                os._exit(code)
        pids.append(pid)


def _finish_times(fd: int) -> list[float]:
    """The ``time.perf_counter()`` values the children wrote (all have exited)."""
    data = b""
    while chunk := os.read(fd, 4096):
        data += chunk
    return [t for (t,) in struct.iter_unpack("d", data[:len(data) // 8 * 8])]


def _can_fork() -> bool:
    return hasattr(os, "fork")
