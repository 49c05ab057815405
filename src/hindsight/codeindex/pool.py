"""Parse files in worker processes, guarded against grammars that never return or crash.

A tree-sitter grammar can loop forever on some inputs (seen: tree-sitter-typescript's TSX
grammar on a 1 KB mangled file), and py-tree-sitter 0.26 has no parse timeout. Parsing
holds the GIL, so no Python-level watchdog can interrupt it. Each worker therefore arms
``faulthandler.dump_traceback_later(timeout, exit=True)`` — a C-level watchdog thread —
around every file, and before each file writes the file's path to a marker
``<scratch>/<pid>.cur``. A file that runs over ``timeout`` seconds (or crashes the
grammar) kills its worker, and faulthandler leaves a report in ``<scratch>/<pid>.dump``.
The parent sees the lost work, names the culprit from the marker of the worker that left
a report, reports it as ``parse_timeout`` and runs everything else again. If no worker
can be blamed (an unexplained death), the lost files run again one by one, each alone in
its own process once few suspects remain. Nothing else is lost.

Timeout: the ``timeout`` argument, else setting ``parseTimeoutS``
(``HINDSIGHT_PARSE_TIMEOUT_S``, default 20 s; a 2 MiB file parses in < 0.5 s); at least
0.1 s. The watchdog is re-armed only when half of it has run out, so a file is stopped
after between half and all of the limit.
"""

from __future__ import annotations

import contextlib
import faulthandler
import gc
import multiprocessing as mp
import os
import pickle
import shutil
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from hindsight.codeindex import resident
from hindsight.codeindex.lifetime import die_with_parent, fork, frozen_heap
from hindsight.codeindex.parse import prepare
from hindsight.codeindex.worker import failed_wire, index_wire, parse_wire
from hindsight.config.paths import scratch_dir
from hindsight.models import ParseResult

Progress = Callable[[str, int, int], None]
Item = tuple[str, str]
ISOLATE_MAX = 4  # unexplained deaths: at most this many suspects run one per process


MIN_TIMEOUT_S = 0.1


def parse_timeout_s(timeout: float | None = None) -> float:
    """Per-file parse limit in seconds: ``timeout`` when given, else setting
    ``parseTimeoutS`` (environment and config file top level; default 20); never below
    :data:`MIN_TIMEOUT_S`. Raises :class:`~hindsight.errors.ConfigError` when the settings
    are invalid."""
    if timeout is None:
        from hindsight.config.settings import load

        timeout = load().parse_timeout_s
    return max(MIN_TIMEOUT_S, timeout)


# What a worker returns for one file: a ParseResult as a wire tuple (``parse``), or the
# compact form of a full build (``index``, see hindsight.codeindex.wire).
WIRES: dict[str, Callable[[str, str, str], tuple[Any, ...]]] = {
    "parse": parse_wire, "index": index_wire}


def _job(args: tuple[str, list[Item], float, str, str]) -> list[tuple[Any, ...]]:
    root, items, timeout, scratch, wire = args
    fn = WIRES[wire]
    pid = os.getpid()
    out = []
    # the results are acyclic: a cycle collection only walks the growing batch (~8% of
    # the parse time on the standard library)
    collect = gc.isenabled()
    gc.disable()
    with open(os.path.join(scratch, f"{pid}.dump"), "a") as dump:
        faulthandler.enable(file=dump)  # a crash in a grammar also leaves a report
        cur = os.open(os.path.join(scratch, f"{pid}.cur"), os.O_WRONLY | os.O_CREAT, 0o600)
        armed = -timeout
        try:
            for path, lang in items:
                os.ftruncate(cur, 0)
                os.pwrite(cur, f"{lang}\0{path}".encode("utf-8", "surrogateescape"), 0)
                now = time.monotonic()
                if now - armed > timeout / 2:  # re-arming costs ~0.2 ms: not per file
                    faulthandler.dump_traceback_later(timeout, exit=True, file=dump)
                    armed = now
                try:
                    out.append(fn(root, path, lang))
                except Exception as e:  # noqa: BLE001 - one file's bug must not stop the rest
                    out.append(failed_wire(wire, path, lang, e))
        finally:
            faulthandler.cancel_dump_traceback_later()
            os.close(cur)
            faulthandler.disable()
            if collect:
                gc.enable()
    return out


def _culprits(scratch: str) -> list[Item]:
    """Files being parsed by workers that died leaving a faulthandler report; their
    reports are removed so a later round starts clean."""
    out: list[Item] = []
    for name in os.listdir(scratch):
        if not name.endswith(".dump"):
            continue
        dump = os.path.join(scratch, name)
        if os.path.getsize(dump) == 0:
            continue
        cur = os.path.join(scratch, name[:-5] + ".cur")
        try:
            with open(cur, "rb") as fh:
                lang, _, path = fh.read().decode("utf-8", "surrogateescape").partition("\0")
            out.append((path, lang))
        except OSError:
            pass
        os.remove(dump)
    return out


def _context() -> Any:
    try:  # fork: workers inherit loaded grammars; spawn where fork does not exist
        return mp.get_context("fork")
    except ValueError:
        return mp.get_context("spawn")


def _submit(ex: ProcessPoolExecutor, batches: list[list[Item]], args: tuple[str, float, str, str],
            futs: dict[Future[list[tuple[Any, ...]]], list[Item]], broken: list[list[Item]],
            finished: list[float] | None) -> None:
    """Submit each batch to ``ex`` (``args``: root, timeout, scratch, wire), recording its
    future in ``futs``, or in ``broken`` when the pool is broken already."""
    root, timeout, scratch, wire = args
    for b in batches:
        try:
            fut = ex.submit(_job, (root, b, timeout, scratch, wire))
            if finished is not None:  # when each batch's result arrived
                fut.add_done_callback(lambda _f: finished.append(time.perf_counter()))
            futs[fut] = b
        except BrokenProcessPool:
            broken.append(b)


def _round(root: str, batches: list[list[Item]], workers: int, timeout: float, scratch: str,
           on_done: Callable[[list[tuple[Any, ...]]], None], wire: str = "parse",
           finished: list[float] | None = None) -> list[list[Item]]:
    """Run ``batches`` in one pool; returns the batches lost to a dead worker."""
    broken: list[list[Item]] = []
    # Forked workers never collect the parent's objects (frozen across the fork, collector
    # off in the worker): garbage the parent left in reference cycles (an ONNX inference
    # session among it) would otherwise be collected in the child, whose destructor waits
    # for threads that exist only in the parent (codeindex/lifetime.py). A worker's own
    # objects are freed by reference counting.
    ex = ProcessPoolExecutor(max(1, min(workers, len(batches))), mp_context=_context(),
                             initializer=_worker_init, initargs=(os.getpid(),))
    try:
        futs: dict[Future[list[tuple[Any, ...]]], list[Item]] = {}
        with frozen_heap():  # the first submit forks the workers
            _submit(ex, batches, (root, timeout, scratch, wire), futs, broken, finished)
        for fut in as_completed(futs):
            try:
                wires = fut.result()
            except BrokenProcessPool:
                broken.append(futs[fut])
                continue
            on_done(wires)
    except BaseException:  # Ctrl-C or an error: cancel the batches not started, wait
        # for the running ones (under a second each; a hung parse ends at its watchdog).
        # Killing workers could cut a result in half in the pipe the pool's manager
        # thread reads: that thread then waited for ever, and the process never exited
        # or printed a traceback at exit (break24)
        ex.shutdown(wait=True, cancel_futures=True)
        raise
    ex.shutdown(wait=True)
    return broken


def run(root: str, batches: list[list[Item]], workers: int,
        progress: Progress | None = None, timeout: float | None = None, *,
        sink: Callable[[list[tuple[Any, ...]]], None] | None = None,
        finished: list[float] | None = None) -> tuple[list[ParseResult], list[Item]]:
    """Parse every batch in up to ``workers`` processes, each file within ``timeout``
    seconds (see :func:`parse_timeout_s`). Returns the results and the items given up (over
    the time limit, or crashing the parser).

    With ``sink``, each finished batch is handed to ``sink`` as it arrives (in this
    process, while the other batches are still being parsed) in the compact form of a full
    build (``WIRES["index"]``), and the returned results are empty. A batch lost to a dead
    worker is never handed over; it runs again. ``finished`` (if given) receives the
    ``time.perf_counter()`` at which each batch's result arrived."""
    timeout = parse_timeout_s(timeout)
    results: list[ParseResult] = []
    given_up: list[Item] = []
    wire = "parse" if sink is None else "index"
    on_done = _receiver(results, sink, progress, sum(len(b) for b in batches))

    scratch = scratch_dir("parse")
    try:
        pending = [b for b in batches if b]
        while pending:
            lost = _round(root, pending, workers, timeout, scratch, on_done, wire, finished)
            if not lost:
                break
            blamed = set(_culprits(scratch))
            given_up.extend(blamed)
            pending = [[it for it in b if it not in blamed] for b in lost]
            pending = [b for b in pending if b]
            if blamed:
                continue
            # an unexplained death: retry file by file, isolating the last suspects
            suspects = [it for b in pending for it in b]
            if len(suspects) <= ISOLATE_MAX:
                for it in suspects:
                    if _round(root, [[it]], 1, timeout, scratch, on_done, wire, finished):
                        given_up.append(it)
                break
            pending = [[it] for it in suspects]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return results, given_up


def _receiver(results: list[ParseResult], sink: Callable[[list[tuple[Any, ...]]], None] | None,
              progress: Progress | None, total: int) -> Callable[[list[tuple[Any, ...]]], None]:
    """What :func:`run` does with each finished batch: hand it to ``sink``, or add it to
    ``results`` as ParseResults; report progress."""
    done = [0]

    def on_done(ws: list[tuple[Any, ...]]) -> None:
        done[0] += len(ws)
        if sink is not None:
            sink(ws)
        else:
            results.extend(ParseResult.from_wire(w) for w in ws)
        if progress:
            progress("parse", done[0], total)

    return on_done


def _worker_init(parent: int) -> None:
    """A pool worker: no cycle collection (see _job), and it dies with ``parent``."""
    gc.disable()
    die_with_parent(parent)


def _forked(root: str, items: list[Item], timeout: float, scratch: str
            ) -> list[ParseResult] | None:
    """Parse ``items`` in one forked child (cheaper than a pool for a few files); ``None``
    if the child died."""
    rfd, wfd = os.pipe()
    pid = fork()  # as the pool's workers: no collection of this process's objects
    if pid == 0:  # child: never returns
        code = 0
        try:
            os.close(rfd)
            data = pickle.dumps(_job((root, items, timeout, scratch, "parse")),
                                protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(wfd, "wb") as fh:
                fh.write(data)
        except BaseException:
            code = 70
        os._exit(code)
    os.close(wfd)
    with os.fdopen(rfd, "rb") as fh:
        data = fh.read()
    _pid, status = os.waitpid(pid, 0)
    if status != 0 or not data:
        return None
    return [ParseResult.from_wire(w) for w in pickle.loads(data)]


def _resident(root: str, items: list[Item], timeout: float, scratch: str
              ) -> list[ParseResult] | None:
    """Parse ``items`` in this process's resident worker (:mod:`resident`); ``None`` if
    it is busy. Raises :class:`resident.Died` when it died on them (its report is in
    ``scratch``)."""
    wires = resident.run(_job, (root, items, timeout, scratch, "parse"))
    return None if wires is None else [ParseResult.from_wire(w) for w in wires]


def run_small(root: str, items: list[Item], timeout: float | None = None
              ) -> tuple[list[ParseResult], list[Item]]:
    """Parse a few files in a forked child, each within ``timeout`` seconds (see
    :func:`parse_timeout_s`); if it dies, blame the file it was on and run the rest
    again."""
    timeout = parse_timeout_s(timeout)
    if not hasattr(os, "fork"):
        return run(root, [items], 1, timeout=timeout)
    results: list[ParseResult] = []
    given_up: list[Item] = []
    for lang in sorted({lang for _, lang in items}):  # once here, not in every child
        with contextlib.suppress(KeyError):  # unknown: the child reports it per file
            prepare(lang)
    scratch = _SMALL_SCRATCH.get(os.getpid()) or scratch_dir("parse")
    _SMALL_SCRATCH[os.getpid()] = scratch
    clean = False
    try:
        todo = list(items)
        first = True
        while todo:
            # the first attempt goes to this process's resident worker; after a death,
            # one-off children (as before it existed)
            first_try = first
            try:
                got = _resident(root, todo, timeout, scratch) if first else None
                if got is None:
                    got = _forked(root, todo, timeout, scratch)
            except resident.Died:
                got = None  # as a dead child: its report is in scratch
            first = False
            if got is not None:
                results.extend(got)
                clean = first_try
                break
            blamed = set(_culprits(scratch))
            if not blamed or not blamed <= set(todo):  # unexplained death: isolate
                res, gu = run(root, [[it] for it in todo], 1, timeout=timeout)
                results.extend(res)
                given_up.extend(gu)
                break
            given_up.extend(blamed)
            todo = [it for it in todo if it not in blamed]
    finally:
        if not clean or not os.path.isdir(scratch):
            # anything but the resident worker's clean run leaves files of other
            # processes: a new directory next time
            shutil.rmtree(scratch, ignore_errors=True)
            _SMALL_SCRATCH.pop(os.getpid(), None)
    return results, given_up


# this process's scratch directory for run_small, kept between calls while the resident
# worker's runs leave it clean (its report files are reused; removing and making them
# again cost ~10 ms of a one-file re-index on a slow file system); swept when the
# process is gone (config.paths.sweep_scratch)
_SMALL_SCRATCH: dict[int, str] = {}

