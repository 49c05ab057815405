"""The resident parse worker (codeindex/resident.py): small parses of one process go to
one long-lived forked worker; a worker that dies (killed, watchdog) is replaced and the
parse still answers; a forked process never uses its parent's worker."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from conftest import make_repo

from hindsight.app import open_bank
from hindsight.codeindex import pool, resident


def symbols(bank: object, name: str) -> list[str]:
    return [s.qname for s in bank.code.symbols(name)[1]]  # type: ignore[attr-defined]


def test_small_parses_share_one_worker_and_survive_its_death(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"a.py": "def alpha():\n    pass\n"})
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(workers=1)
        assert resident.pid() is not None  # the first small parse made it
        first = resident.pid()
        (repo / "a.py").write_text("def beta():\n    pass\n")
        st = bank.code.index(workers=1)
        assert (st.files_parsed, resident.pid()) == (1, first)  # the same worker
        assert symbols(bank, "beta") == ["a.py::beta"]
        os.kill(first, signal.SIGKILL)  # dies between two parses
        os.waitpid(first, 0)
        (repo / "a.py").write_text("def gamma():\n    pass\n")
        st = bank.code.index(workers=1)
        assert st.files_parsed == 1 and st.warnings == []
        assert symbols(bank, "gamma") == ["a.py::gamma"]
        assert resident.pid() not in (None, first)  # a new one


def test_a_forked_process_makes_its_own_worker(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def alpha():\n    pass\n")
    got, _ = pool.run_small(str(tmp_path), [("a.py", "python")], 10)
    assert [s.name for s in got[0].symbols] == ["alpha"]
    parent_worker = resident.pid()
    rfd, wfd = os.pipe()
    child = os.fork()
    if child == 0:  # the child parses, then says which worker it used
        code = 1
        try:
            res, _ = pool.run_small(str(tmp_path), [("a.py", "python")], 10)
            mine = resident.pid() or 0
            resident.stop()
            os.write(wfd, f"{mine} {res[0].symbols[0].name}".encode())
            code = 0
        finally:
            os._exit(code)
    os.close(wfd)
    answer = os.read(rfd, 100).decode().split()
    os.close(rfd)
    assert os.waitpid(child, 0)[1] == 0
    assert answer[1] == "alpha" and int(answer[0]) not in (0, parent_worker)
    assert resident.pid() == parent_worker  # the parent's worker is untouched
