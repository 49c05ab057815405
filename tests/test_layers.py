"""The import arrows of ../shared/DESIGN.md, enforced by walking imports with ``ast``."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "hindsight"

# layer -> packages it must never import
FORBIDDEN = {
    "codeindex": ["hindsight.memory", "hindsight.cli", "hindsight.mcp", "hindsight.hooks",
                  "hindsight.server", "hindsight.app", "hindsight.store.sqlite",
                  "hindsight.store.postgres"],
    "store": ["hindsight.cli", "hindsight.app", "hindsight.codeindex", "hindsight.memory"],
    "config": ["hindsight.cli", "hindsight.app", "hindsight.store", "hindsight.memory"],
    "cli": ["hindsight.store.sqlite", "hindsight.mcp", "hindsight.hooks", "hindsight.server"],
    "mcp": ["hindsight.cli", "hindsight.hooks", "hindsight.server", "hindsight.store.sqlite"],
    "hooks": ["hindsight.cli", "hindsight.mcp", "hindsight.server", "hindsight.store.sqlite"],
    "models.py": ["hindsight.store", "hindsight.codeindex", "hindsight.app", "hindsight.cli"],
    "errors.py": ["hindsight."],
}


def imports_of(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append(node.module)
    return out


def test_import_arrows() -> None:
    bad = []
    for layer, banned in FORBIDDEN.items():
        files = [SRC / layer] if layer.endswith(".py") else sorted((SRC / layer).rglob("*.py"))
        for f in files:
            for mod in imports_of(f):
                if any(mod == b or mod.startswith(b if b.endswith(".") else b + ".")
                       for b in banned):
                    bad.append(f"{f.relative_to(SRC)} imports {mod}")
    assert bad == []


def test_nothing_heavy_at_import_time() -> None:
    code = ("import sys, hindsight, hindsight.cli.main, hindsight.app, hindsight.entry,"
            " hindsight.hooks.command, hindsight.hooks.install_cmd, hindsight.mcp.command;"
            "print(sorted(m for m in sys.modules if m.startswith(('tree_sitter', 'pathspec', 'xxhash',"
            " 'mcp', 'numpy', 'tomlkit'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
