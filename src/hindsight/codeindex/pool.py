"""Parse files in worker processes, guarded against grammars that never return.

A tree-sitter grammar can loop forever on some inputs (seen: tree-sitter-typescript's TSX
grammar on a 1 KB mangled file), and py-tree-sitter 0.26 has no parse timeout. Parsing
holds the GIL, so no Python-level watchdog can interrupt it. Each worker therefore arms
``faulthandler.dump_traceback_later(timeout, exit=True)`` — a C-level watchdog thread —
around every file: a file that takes longer than ``timeout`` seconds kills its worker.
The parent sees ``BrokenProcessPool``, splits the unfinished batches into single files and
runs them again; a single file that kills its worker again is reported as
``parse_timeout`` and skipped. Nothing else is lost.

Timeout: ``HINDSIGHT_PARSE_TIMEOUT_S`` (default 20 s; a 2 MiB file parses in < 0.5 s).
"""

from __future__ import annotations

import faulthandler
import multiprocessing as mp
import os
import pickle
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from hindsight.codeindex.worker import parse_path
from hindsight.models import ParseResult

Progress = Callable[[str, int, int], None]
Item = tuple[str, str]


def parse_timeout_s() -> float:
    try:
        return max(0.1, float(os.environ.get("HINDSIGHT_PARSE_TIMEOUT_S", "20")))
    except ValueError:
        return 20.0


def _job(args: tuple[str, list[Item], float]) -> list[tuple[Any, ...]]:
    root, items, timeout = args
    out = []
    with open(os.devnull, "w") as sink:
        for path, lang in items:
            faulthandler.dump_traceback_later(timeout, exit=True, file=sink)
            try:
                out.append(parse_path(root, path, lang).to_wire())
            finally:
                faulthandler.cancel_dump_traceback_later()
    return out


def _context() -> Any:
    try:  # fork: workers inherit loaded grammars; spawn where fork does not exist
        return mp.get_context("fork")
    except ValueError:
        return mp.get_context("spawn")


ISOLATE_MAX = 4  # at most this many suspects left: run each alone to find the culprit


def _round(root: str, batches: list[list[Item]], workers: int, timeout: float,
           on_done: Callable[[list[ParseResult]], None]) -> list[list[Item]]:
    """Run ``batches`` in one pool; returns the batches lost to a dead worker."""
    broken: list[list[Item]] = []
    with ProcessPoolExecutor(max(1, min(workers, len(batches))), mp_context=_context()) as ex:
        futs: dict[Future[list[tuple[Any, ...]]], list[Item]] = {}
        for b in batches:
            try:
                futs[ex.submit(_job, (root, b, timeout))] = b
            except BrokenProcessPool:
                broken.append(b)
        for fut in as_completed(futs):
            try:
                wires = fut.result()
            except BrokenProcessPool:
                broken.append(futs[fut])
                continue
            on_done([ParseResult.from_wire(w) for w in wires])
    return broken


def _forked(root: str, items: list[Item], timeout: float) -> list[ParseResult] | None:
    """Parse ``items`` in one forked child (cheaper than a pool for a few files); ``None``
    if the child died (a file hit the time limit)."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: never returns
        code = 0
        try:
            os.close(rfd)
            data = pickle.dumps(_job((root, items, timeout)), protocol=pickle.HIGHEST_PROTOCOL)
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


def run_small(root: str, items: list[Item]) -> tuple[list[ParseResult], list[Item]]:
    """Parse a few files in a forked child; if it dies, each file alone."""
    timeout = parse_timeout_s()
    if not hasattr(os, "fork"):
        return run(root, [items], 1)
    got = _forked(root, items, timeout)
    if got is not None:
        return got, []
    results: list[ParseResult] = []
    timed_out: list[Item] = []
    for it in items:
        one = _forked(root, [it], timeout)
        if one is None:
            timed_out.append(it)
        else:
            results.extend(one)
    return results, timed_out


def run(root: str, batches: list[list[Item]], workers: int,
        progress: Progress | None = None) -> tuple[list[ParseResult], list[Item]]:
    """Parse every batch in up to ``workers`` processes. Returns the results and the
    items that timed out. After a worker dies, the lost batches run again as single
    files; once few suspects remain (or a round makes no progress), each runs alone in its
    own process, so only the file that really hangs is given up."""
    total = sum(len(b) for b in batches)
    timeout = parse_timeout_s()
    results: list[ParseResult] = []
    timed_out: list[Item] = []

    def on_done(rs: list[ParseResult]) -> None:
        results.extend(rs)
        if progress:
            progress("parse", len(results), total)

    pending = [b for b in batches if b]
    while pending:
        before = len(results)
        suspects = [it for b in pending for it in b]
        if all(len(b) == 1 for b in pending) and len(suspects) <= ISOLATE_MAX:
            for it in suspects:
                if _round(root, [[it]], 1, timeout, on_done):
                    timed_out.append(it)
            break
        lost = _round(root, pending, workers, timeout, on_done)
        pending = [[it] for b in lost for it in b]
        if pending and len(results) == before and all(len(b) == 1 for b in lost):
            # no progress at all: isolate every suspect
            for it in [it for b in pending for it in b]:
                if _round(root, [[it]], 1, timeout, on_done):
                    timed_out.append(it)
            break
    return results, timed_out
