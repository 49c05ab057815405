"""Forked children never collect the parent's garbage (codeindex/lifetime.py).

CI hang of 2026-12: the resident parse worker re-enabled its cyclic collector after each
job; a collection in it reached an ONNX Runtime session the test process had left in a
reference cycle, whose destructor waits for threads that exist only in the parent, and
``index`` waited for its answer for ever. Here: the exact hang with the real model (in a
subprocess with a time limit), a parent object whose destructor must not run in a child,
and the collector's state inside the resident worker after a real parse job."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

from hindsight.codeindex import lifetime, pool, resident

ONNX_CYCLE = r"""
import gc, os, sys
from hindsight.codeindex import lifetime
from hindsight.providers.local_minilm import MiniLMEmbedder

gc.disable()
e = MiniLMEmbedder(threads=2)
e.embed_batch(["hello world"])
holder = {"e": e}
holder["self"] = holder  # a reference cycle holding the inference session
del e, holder
pid = lifetime.fork()
if pid == 0:
    gc.enable()
    gc.collect()  # with the parent's objects collectable, this waits for ever
    os._exit(0)
_pid, status = os.waitpid(pid, 0)
print("child status", status)
"""


def test_a_forked_child_never_collects_an_onnx_session_of_the_parent(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-c", ONNX_CYCLE], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "child status 0"


class _Marked:
    """Garbage whose destructor records the process that ran it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.me = self

    def __del__(self) -> None:
        with open(self.path, "a") as fh:
            fh.write(f"{os.getpid()}\n")


def test_the_parents_cycles_are_collected_by_the_parent_only(tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    was = gc.isenabled()
    gc.disable()
    try:
        _Marked(marks)  # unreachable at once: a cycle only a collection frees
        pid = lifetime.fork()
        if pid == 0:
            code = 1
            try:
                gc.enable()
                gc.collect()
                code = 0
            finally:
                os._exit(code)
        _pid, status = os.waitpid(pid, 0)
        assert status == 0
        assert not marks.exists()  # the child freed nothing of ours
        gc.collect()
        assert marks.read_text() == f"{os.getpid()}\n"  # the parent still can
    finally:
        if was:
            gc.enable()


def _parse_then_state(args: tuple[str, list[tuple[str, str]], float, str, str]
                      ) -> tuple[int, bool, bool]:
    wires = pool._job(args)
    return len(wires), gc.isenabled(), gc.get_freeze_count() > 0


def test_the_resident_worker_keeps_its_collector_off_between_jobs(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    args = (str(tmp_path), [("a.py", "python")], 20.0, str(scratch), "parse")
    try:
        first = resident.run(_parse_then_state, args)
        second = resident.run(_parse_then_state, args)
    finally:
        resident.stop()
    # one file parsed; no collection in the worker, the parent's objects frozen there
    assert first == (1, False, True)
    assert second == (1, False, True)
    assert gc.get_freeze_count() == 0  # the parent unfroze its own objects
