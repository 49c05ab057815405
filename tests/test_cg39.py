"""A Python module alias bound again at the module's top level (``import store`` then
``store = store.open_backend()``) is that value in the functions and class bodies that
read it, and in module code after the binding: ``store.get(k)`` is ``Backend.get``, not the
package's function ``get`` (break-it of session 38, left then; session 39). Module code
before the binding still reads the module; a binding in a branch (``if __name__ ==
"__main__":``) may not run, so the module stays."""

from __future__ import annotations

from pathlib import Path

from cgutil import edges
from conftest import make_repo

FILES = {
    "store/__init__.py": "from store.backend import Backend, get, open_backend\n",
    "store/backend.py": """class Backend:
    def get(self, k):
        return k

    def close(self):
        return None

def get(k):
    return None

def open_backend():
    return Backend()
""",
    "app.py": """import store
import json

json.dumps({})
store.get(0)
store = store.open_backend()


def read(k):
    return store.get(k)


class Job:
    def run(self):
        store.close()
        return read(1)
""",
    "late.py": """import store


def read(k):
    return store.get(k)


if __name__ == "__main__":
    store = store.open_backend()
""",
}

WANT = [
    "app.py:: -> store/backend.py::get @5",
    "app.py:: -> store/backend.py::open_backend @6",
    "app.py::Job.run -> app.py::read @16",
    "app.py::Job.run -> store/backend.py::Backend.close @15",
    "app.py::read -> store/backend.py::Backend.get @10",
    "late.py:: -> store/backend.py::open_backend @9",
    "late.py::read -> store/backend.py::get @5",
    "store/backend.py::open_backend -> store/backend.py::Backend @12",
]


def test_a_module_alias_bound_again_at_top_level_is_that_value(tmp_path: Path) -> None:
    assert edges(make_repo(tmp_path / "r", FILES)) == WANT


def test_an_incremental_index_agrees(tmp_path: Path) -> None:
    """The binding added by an edit changes the function's edge as a full index does."""
    first = dict(FILES, **{"app.py": FILES["app.py"].replace(
        "store = store.open_backend()", "store.open_backend()")})
    repo = make_repo(tmp_path / "r", first)
    assert "app.py::read -> store/backend.py::get @10" in edges(repo)
    (repo / "app.py").write_text(FILES["app.py"])
    assert edges(repo, full=False) == WANT


def test_a_name_read_after_its_rebinding_is_the_new_value(tmp_path: Path) -> None:
    """``helper = replacement`` then, in a branch, ``replacement = helper``: that ``helper``
    is already ``replacement`` (tests/test_field34.py had both); without the first
    binding the branch gives both functions."""
    cbs = "def helper():\n    return 1\ndef replacement():\n    return 2\n"
    main = ("import os\nfrom cbs import helper, replacement\n"  # 1-2
            "helper = replacement\n"  # 3
            "if os.name == 'nt':\n    replacement = helper\n"  # 4-5
            "def caller():\n    replacement()\n")  # 6-7
    assert edges(make_repo(tmp_path / "a", {"cbs.py": cbs, "main.py": main})) == [
        "main.py::caller -> cbs.py::replacement @7"]
    other = main.replace("helper = replacement\n", "\n")
    assert edges(make_repo(tmp_path / "b", {"cbs.py": cbs, "main.py": other})) == [
        "main.py::caller -> cbs.py::helper @7", "main.py::caller -> cbs.py::replacement @7"]


BREAK = {
    "store/__init__.py": FILES["store/__init__.py"],
    "store/backend.py": FILES["store/backend.py"],
    "local.py": ("import store\ndef f():\n    import store\n    store.get(1)\n"  # 1-4
                 "store = store.open_backend()\n"),  # 5
    "glob.py": ("import store\ndef init():\n    global store\n"  # 1-3
                "    store = store.open_backend()\n"  # 4
                "def f():\n    store.get(1)\n"),  # 5-6
}


def test_a_local_import_and_a_global_binding_keep_the_module(tmp_path: Path) -> None:
    """Break-it 39: a function's own ``import store`` is the module there; a function's
    ``global store`` binding runs only when it is called (its own call reads the
    module, as before the rule)."""
    got = edges(make_repo(tmp_path / "r", BREAK))
    assert [e for e in got if not e.startswith("store/")] == [
        "glob.py::f -> store/backend.py::get @6",
        "glob.py::init -> store/backend.py::open_backend @4",
        "local.py:: -> store/backend.py::open_backend @5",
        "local.py::f -> store/backend.py::get @4"]


PASSED = {
    "context.py": "class AuditContext:\n    def record(self, action):\n        return action\n",
    "handlers.py": "def validate(ctx, amount):\n    ctx.record('v')\n    return amount > 0\n",
    "main.py": ("from context import AuditContext\nfrom handlers import validate\n"  # 1-2
                "def transfer(ctx, amount):\n    validate(ctx, amount)\n"  # 3-4
                "def handle(amount):\n    ctx = AuditContext()\n"  # 5-6
                "    transfer(ctx, amount)\n"),  # 7
    "reg.py": ("class C:\n    def m(self):\n        return 1\n"  # 1-3
               "class R:\n    def __init__(self):\n        self.items = {}\n"  # 4-6
               "    def get(self, k):\n        return self.items.setdefault(k, C())\n"  # 7-8
               "def use():\n    R().get('a').m()\n"),  # 9-10
}


def test_a_parameter_passed_on_to_another_files_function(tmp_path: Path) -> None:
    """callgraph_blind10: ``transfer(ctx)`` passes its own parameter to ``validate`` of
    another file; the value comes from ``transfer``'s call sites (before: only one level
    across files). A method returning ``self.items.setdefault(k, C())`` returns a C."""
    assert edges(make_repo(tmp_path / "r", PASSED)) == [
        "handlers.py::validate -> context.py::AuditContext.record @2",
        "main.py::handle -> context.py::AuditContext @6",
        "main.py::handle -> main.py::transfer @7",
        "main.py::transfer -> handlers.py::validate @4",
        "reg.py::R.get -> reg.py::C @8",
        "reg.py::use -> reg.py::C.m @10",
        "reg.py::use -> reg.py::R @10",
        "reg.py::use -> reg.py::R.get @10"]
