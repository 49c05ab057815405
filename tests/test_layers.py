"""The import arrows of DESIGN (README: Layout), enforced by walking imports with ``ast``.

Each rule is a function of a source tree, so that every rule is also shown to fail on a
planted violation (a small fake package written to a temporary directory)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "hindsight"

ADAPTERS = ("cli", "hooks", "mcp", "ui", "server", "web")
DOMAIN = ("codeindex", "history", "memory", "sessions", "pages", "context", "records")
ADAPTER_MAY_IMPORT = ("app", "config", "errors", "models")
# names that locate things before settings exist, or belong to other tools
ENV_ALLOWED = frozenset({"HINDSIGHT_HOME", "HINDSIGHT_CONFIG", "HINDSIGHT_NOW",
                         "CLAUDE_CONFIG_DIR", "CODEX_HOME", "TZ", "XDG_STATE_HOME", "TMPDIR",
                         "PYTHONPATH"})


def _node(src: Path, f: Path) -> str:
    """The top-level part of the package a file belongs to (``cli``, ``app``…)."""
    rel = f.relative_to(src).parts
    return rel[0].removesuffix(".py")


def _module(src: Path, f: Path) -> list[str]:
    parts = [src.name, *f.relative_to(src).with_suffix("").parts]
    return parts[:-1] if parts[-1] == "__init__" else parts


def imports(src: Path) -> dict[Path, list[str]]:
    """Every file of the package at ``src`` → the absolute module names it imports
    (anywhere in the file, relative imports resolved)."""
    out: dict[Path, list[str]] = {}
    for f in sorted(src.rglob("*.py")):
        mod = _module(src, f)
        pkg = mod if f.name == "__init__.py" else mod[:-1]
        names: list[str] = []
        for n in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(n, ast.Import):
                names += [a.name for a in n.names]
            elif isinstance(n, ast.ImportFrom):
                base = (pkg[:len(pkg) - n.level + 1] if n.level else [])
                m = ".".join([*base, n.module] if n.module else base)
                names.append(m)
                names += [f"{m}.{a.name}" for a in n.names]
        out[f] = names
    return out


def _target(src: Path, name: str) -> str | None:
    parts = name.split(".")
    if parts[0] != src.name or len(parts) < 2:
        return None
    t = parts[1]
    return t if (src / t).is_dir() or (src / f"{t}.py").exists() else None


def package_edges(src: Path) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for f, names in imports(src).items():
        me = _node(src, f)
        for name in names:
            t = _target(src, name)
            if t is not None and t != me:
                edges.setdefault(me, set()).add(t)
    return edges


def cycles(src: Path) -> list[list[str]]:
    """Strongly connected components of more than one package (Tarjan)."""
    edges = package_edges(src)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def arrow_violations(src: Path) -> list[str]:
    """Imports that break the arrows: adapters import only app, config, errors, models and
    their own package; domain packages never import an adapter, app or entry; config and
    store import no domain package (nor app or an adapter)."""
    bad = []
    for f, names in imports(src).items():
        me = _node(src, f)
        for name in names:
            t = _target(src, name)
            if t is None or t == me:
                continue
            where = f"{f.relative_to(src)} imports {name}"
            if me in ADAPTERS and t not in ADAPTER_MAY_IMPORT or me in DOMAIN and (t in ADAPTERS or t in ("app", "entry")) or me in ("config", "store") and (t in DOMAIN or t in ADAPTERS
                                                or t in ("app", "entry")):
                bad.append(where)
    return sorted(set(bad))


def _literal(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) \
        else None


def _is_environ(node: ast.AST) -> bool:
    """``os.environ``, ``environ``, and copies of it (``os.environ.copy()``,
    ``dict(os.environ)``)."""
    if isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr == "copy" and _is_environ(f.value):
            return True
        return isinstance(f, ast.Name) and f.id == "dict" and bool(node.args) and \
            _is_environ(node.args[0])
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or \
        (isinstance(node, ast.Name) and node.id == "environ")


def env_reads(src: Path) -> list[str]:
    """Environment variables read outside ``config/`` whose name is not allowed (or not a
    literal): ``os.environ.get(x)``, ``os.getenv(x)``, ``os.environ[x]``, ``x in
    os.environ``. Passing the whole environment on (``{**os.environ}``) and setting a
    variable for a child (``setdefault``) of another tool are not reads of a knob."""
    bad = []
    for f in sorted(src.rglob("*.py")):
        if _node(src, f) == "config":
            continue
        for n in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            name: str | None | bool = False  # False: not an env read
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
                fn = n.func
                if fn.attr in ("get", "pop") and _is_environ(fn.value) or \
                        fn.attr == "getenv":
                    name = _literal(n.args[0]) if n.args else None
                elif fn.attr == "setdefault" and _is_environ(fn.value):
                    lit = _literal(n.args[0]) if n.args else None
                    name = lit if lit is None or lit.startswith("HINDSIGHT_") else False
            elif isinstance(n, ast.Subscript) and _is_environ(n.value) and \
                    isinstance(n.ctx, ast.Load):
                name = _literal(n.slice)
            elif isinstance(n, ast.Compare) and any(_is_environ(c) for c in n.comparators):
                name = _literal(n.left)
            if isinstance(n, ast.ImportFrom) and n.module == "os" and any(
                    a.name == "environ" and a.asname not in (None, "environ") for a in n.names):
                name = None  # an alias of os.environ hides every read made through it
            elif isinstance(n, ast.Assign) and _is_environ(n.value) and not isinstance(
                    n.value, ast.Call):
                name = None
            if name is False:
                continue
            if name is None or name not in ENV_ALLOWED:
                bad.append(f"{f.relative_to(src)}:{n.lineno} reads {name or 'a variable'}")
    return bad


def test_no_import_cycle_between_packages() -> None:
    assert cycles(SRC) == []


def test_import_arrows() -> None:
    assert arrow_violations(SRC) == []


def test_environment_is_read_only_in_config() -> None:
    assert env_reads(SRC) == []


def unknown_knobs(src: Path) -> list[str]:
    """``HINDSIGHT_*`` names in the source that are neither a Settings field's variable nor
    on the allow-list (a new knob read anywhere must be added to Settings)."""
    import re

    from hindsight.config.settings import FIELDS

    known = ({k.env for k in FIELDS.values()} | {"HINDSIGHT_" + n.upper() for n in FIELDS}
             | ENV_ALLOWED)
    names: set[str] = set()
    for f in src.rglob("*.py"):
        names |= set(re.findall(r"\bHINDSIGHT_[A-Z_]+[A-Z]\b", f.read_text(encoding="utf-8")))
    return sorted(n for n in names if n not in known and not n.endswith("_"))


def test_every_hindsight_knob_is_a_setting() -> None:
    assert unknown_knobs(SRC) == []


# --- each rule fails on a planted violation ----------------------------------------------
def _plant(tmp: Path, files: dict[str, str]) -> Path:
    src = tmp / "hindsight"
    for rel, text in {"__init__.py": "", "errors.py": "", "models.py": "", "app.py": "",
                      "config/__init__.py": "", "store/__init__.py": "",
                      "memory/__init__.py": "", "cli/__init__.py": "",
                      "mcp/__init__.py": "", "ui/__init__.py": "", **files}.items():
        p = src / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return src


def test_a_planted_cycle_is_found(tmp_path: Path) -> None:
    src = _plant(tmp_path, {"memory/a.py": "from hindsight.store import x\n",
                            "store/b.py": "from ..memory import a\n"})
    assert cycles(src) == [["memory", "store"]]


@pytest.mark.parametrize(("rel", "text", "expect"), [
    ("cli/x.py", "from hindsight.mcp import server\n", "cli/x.py imports hindsight.mcp"),
    ("ui/s.py", "from hindsight.memory import recall\n", "ui/s.py imports hindsight.memory"),
    ("ui/r.py", "from hindsight.cli import main\n", "ui/r.py imports hindsight.cli"),
    ("memory/q.py", "from hindsight.ui import web\n", "memory/q.py imports hindsight.ui"),
    ("cli/y.py", "import hindsight.memory.recall\n", "cli/y.py imports hindsight.memory"),
    ("mcp/z.py", "def f():\n    from hindsight.store import base\n",
     "mcp/z.py imports hindsight.store"),
    ("memory/w.py", "from hindsight.cli import main\n", "memory/w.py imports hindsight.cli"),
    ("memory/v.py", "from hindsight import app\n", "memory/v.py imports hindsight.app"),
    ("config/u.py", "from hindsight.memory import recall\n",
     "config/u.py imports hindsight.memory"),
    ("store/t.py", "from ..memory import recall\n", "store/t.py imports hindsight.memory"),
])
def test_a_planted_wrong_arrow_is_found(tmp_path: Path, rel: str, text: str,
                                        expect: str) -> None:
    src = _plant(tmp_path, {rel: text})
    assert any(v.startswith(expect) for v in arrow_violations(src)), arrow_violations(src)


def test_allowed_arrows_pass(tmp_path: Path) -> None:
    src = _plant(tmp_path, {"cli/ok.py": "from hindsight.app import open_bank\n"
                            "from hindsight.cli import x\nfrom hindsight.errors import E\n",
                            "memory/ok.py": "from hindsight.store import base\n"
                            "from hindsight.config import paths\n"})
    assert arrow_violations(src) == []


@pytest.mark.parametrize("text", [
    "import os\nx = os.environ.get('HINDSIGHT_LLM_URL')\n",
    "import os\nx = os.getenv('HINDSIGHT_THREADS', '0')\n",
    "import os\nx = os.environ['HINDSIGHT_BUSY_TIMEOUT_MS']\n",
    "import os\nx = 'HINDSIGHT_X' in os.environ\n",
    "import os\nname = 'A'\nx = os.environ.get(name)\n",
    "from os import environ as e\n",
    "import os\nE = os.environ\n",
    "import os\nx = os.environ.copy().get('HINDSIGHT_LLM_URL')\n",
    "import os\nx = dict(os.environ).get('HINDSIGHT_LLM_URL')\n",
])
def test_a_planted_environment_read_is_found(tmp_path: Path, text: str) -> None:
    src = _plant(tmp_path, {"memory/env.py": text})
    assert len(env_reads(src)) == 1


def test_allowed_environment_uses_pass(tmp_path: Path) -> None:
    src = _plant(tmp_path, {"memory/env.py": "import os\nh = os.environ.get('HINDSIGHT_HOME')\n"
                            "e = {**os.environ, 'A': '1'}\n"
                            "os.environ.setdefault('PYTHONIOENCODING', 'utf-8')\n",
                            "config/s.py": "import os\nx = os.environ.get('HINDSIGHT_X')\n"})
    assert env_reads(src) == []


def test_a_planted_knob_outside_settings_is_found(tmp_path: Path) -> None:
    src = _plant(tmp_path, {"config/s.py": "X = 'HINDSIGHT_SECRET_KNOB'\n"})
    assert unknown_knobs(src) == ["HINDSIGHT_SECRET_KNOB"]


def test_nothing_heavy_at_import_time() -> None:
    code = ("import sys, hindsight, hindsight.cli.app, hindsight.app, hindsight.entry,"
            " hindsight.hooks.command, hindsight.hooks.install_cmd, hindsight.mcp.command,"
            " hindsight.ui, hindsight.ui.command;"
            "print(sorted(m for m in sys.modules if m.startswith(('tree_sitter', 'pathspec', 'xxhash',"
            " 'mcp', 'numpy', 'tomlkit', 'starlette', 'uvicorn', 'jinja2', 'sse_starlette'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
