"""Incremental re-resolution by name (codeindex/interface.py): a file that depends on an
edited one is re-resolved only when it mentions a name the edit changed, or reaches the
edited file's classes or call sites by enumeration. Whatever the edit, the incremental
index must equal a full rebuild."""

from __future__ import annotations

from pathlib import Path

from conftest import git, make_repo, write
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_incremental import edges_of, edits_equal_rebuild

from hindsight.app import open_bank

N = ("class Y:\n    def g(self):\n        return 1\n\n\nclass X:\n    def g(self):\n"
     "        return 2\n\n\nclass C(Y):\n    pass\n")
P = "class C:\n    def g(self):\n        return 3\n\n    def h(self):\n        return 4\n"
M = ("from n import C\n\n\ndef make():\n    return C()\n\n\ndef f():\n    x = make()\n"
     "    return x\n\n\nclass Box:\n    def __init__(self):\n        self.item = C()\n\n\n"
     "inst = C()\n")
D = ("import m\nfrom m import Box\n\n\ndef use():\n    m.f().g()\n    m.inst.g()\n"
     "    Box().item.h()\n    return m.make()\n")
BASE = {"n.py": N, "p.py": P, "m.py": M, "d.py": D}

BODIES = {
    "m.py": [M, M.replace("from n import C", "from p import C"),
             M + "\n\ndef added(x):\n    return len(x)\n",
             "# shifted\n# down\n" + M,
             M.replace("        self.item = C()", "        self.item = make()"),
             M.replace("    return C()", "    return None"),
             M.replace("from n import C", "from n import C, X").replace("inst = C()",
                                                                        "inst = X()"),
             # module-level order: `inst` made before or after `C` is bound again
             M + "\nfrom p import C\n",
             M.replace("inst = C()\n", "") + "from p import C\n\n\ninst = C()\n",
             M.replace("    x = make()\n", "    y = 1\n    x = make()\n"),
             M.replace("def make():\n    return C()\n\n\n", "") +
             "\n\ndef make():\n    return C()\n"],
    "n.py": [N, N.replace("class C(Y):", "class C(X):"),
             N.replace("class C(Y):\n    pass", "class C(Y):\n    def h(self):\n"
                       "        return 5"),
             N + "\n\ndef extra():\n    return 0\n"],
    "p.py": [P, P.replace("    def h(self):", "    def h2(self):")],
}
edit = st.sampled_from(sorted(BODIES)).flatmap(
    lambda p: st.tuples(st.just(p), st.sampled_from(BODIES[p])))


@settings(max_examples=14, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(edit, min_size=1, max_size=4))
def test_edits_reached_through_unwritten_names_equal_rebuild(
        tmp_path_factory: object, edits: list[tuple[str, str | None]]) -> None:
    base = tmp_path_factory.mktemp("names")  # type: ignore[attr-defined]
    edits_equal_rebuild(base, BASE, edits)


def _index(repo: Path, files: dict[str, str]) -> int:
    write(repo, files)
    git(repo, "add", "-A")
    with open_bank(repo_root_path=str(repo)) as bank:
        return bank.code.index(workers=1).files_reresolved


def _g(repo: Path) -> list[str]:
    return [dst for name, dst in edges_of(repo, "d.py::use") if name == "g"]


def test_what_is_reresolved(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", BASE)
    with open_bank(repo_root_path=str(repo)) as bank:
        bank.code.index(workers=1)
    assert _g(repo) == ["n.py::Y.g", "n.py::Y.g"]
    # a function appended that no file names: its dependents resolve as before
    assert _index(repo, {"m.py": M + "\n\ndef added(x):\n    return len(x)\n"}) == 0
    # lines moved down by an edit above
    assert _index(repo, {"m.py": "# shifted\n# down\n" + M}) == 0
    assert _index(repo, {"m.py": M}) == 0
    # the import behind `C` changes: d.py reaches it through f and inst, never writing C
    assert _index(repo, {"m.py": M.replace("from n import C", "from p import C")}) == 1
    assert _g(repo) == ["p.py::C.g", "p.py::C.g"]
    assert ("h", "p.py::C.h") in edges_of(repo, "d.py::use")
    assert _index(repo, {"m.py": M}) == 1
    assert _g(repo) == ["n.py::Y.g", "n.py::Y.g"]
    # a base class changes: every member reached through the class may differ
    assert _index(repo, {"n.py": N.replace("class C(Y):", "class C(X):")}) == 2
    assert _g(repo) == ["n.py::X.g", "n.py::X.g"]
