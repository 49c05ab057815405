"""Reading the repository's own configuration files (never running anything): which tools
it configures (formatter, linter, type checker, test framework, build), where, and the
entry points and exports its package manifests declare. Every finding carries the file and
1-based line that shows it."""

from __future__ import annotations

import json
import os
import re
from typing import NamedTuple

from hindsight.pages.scan import read_text


class Setting(NamedTuple):
    """A finding in a configuration file: ``role`` (formatter, linter, type checker, tests,
    build, editor), ``tool``, ``path`` and 1-based ``line``."""

    role: str
    tool: str
    path: str
    line: int


# (file, regex on one line, role, tool): the first matching line of each file counts
TOOL_LINES: tuple[tuple[str, str, str, str], ...] = (
    ("pyproject.toml", r"^\[tool\.ruff\.format\]", "formatter", "ruff format"),
    ("pyproject.toml", r"^\[tool\.black\]", "formatter", "black"),
    ("pyproject.toml", r"^\[tool\.isort\]", "formatter", "isort"),
    ("pyproject.toml", r"^\[tool\.ruff(\.lint)?\]", "linter", "ruff"),
    ("pyproject.toml", r"^\[tool\.pylint", "linter", "pylint"),
    ("pyproject.toml", r"^\[tool\.mypy\]", "type checker", "mypy"),
    ("pyproject.toml", r"^\[tool\.pyright\]", "type checker", "pyright"),
    ("pyproject.toml", r"^\[tool\.pytest", "tests", "pytest"),
    ("pyproject.toml", r"^\[tool\.coverage", "tests", "coverage.py"),
    ("pyproject.toml", r"^build-backend\s*=", "build", "PEP 517 backend"),
    ("pyproject.toml", r"^\[tool\.poetry\]", "build", "poetry"),
    ("setup.cfg", r"^\[flake8\]", "linter", "flake8"),
    ("setup.cfg", r"^\[mypy\]", "type checker", "mypy"),
    ("setup.cfg", r"^\[tool:pytest\]", "tests", "pytest"),
    ("setup.cfg", r"^\[isort\]", "formatter", "isort"),
    ("tox.ini", r"^\[tox\]", "tests", "tox"),
    ("tox.ini", r"^\[pytest\]", "tests", "pytest"),
    ("tox.ini", r"^\[flake8\]", "linter", "flake8"),
    ("pytest.ini", r"^\[pytest\]", "tests", "pytest"),
    ("mypy.ini", r"^\[mypy\]", "type checker", "mypy"),
    ("ruff.toml", r".", "linter", "ruff"),
    (".ruff.toml", r".", "linter", "ruff"),
    (".flake8", r"^\[flake8\]", "linter", "flake8"),
    (".pylintrc", r".", "linter", "pylint"),
    ("noxfile.py", r"^import nox|^from nox", "tests", "nox"),
    (".pre-commit-config.yaml", r"^repos:", "build", "pre-commit"),
    (".editorconfig", r"^\[", "editor", "EditorConfig"),
    ("package.json", r'"prettier"\s*:', "formatter", "prettier"),
    ("package.json", r'"eslint"\s*:', "linter", "eslint"),
    ("package.json", r'"typescript"\s*:', "type checker", "typescript"),
    ("package.json", r'"jest"\s*:', "tests", "jest"),
    ("package.json", r'"vitest"\s*:', "tests", "vitest"),
    ("package.json", r'"mocha"\s*:', "tests", "mocha"),
    ("package.json", r'"test"\s*:', "tests", "npm test script"),
    (".prettierrc", r".", "formatter", "prettier"),
    (".prettierrc.json", r".", "formatter", "prettier"),
    ("eslint.config.js", r".", "linter", "eslint"),
    ("eslint.config.mjs", r".", "linter", "eslint"),
    (".eslintrc.json", r".", "linter", "eslint"),
    (".eslintrc.js", r".", "linter", "eslint"),
    ("biome.json", r".", "linter", "biome"),
    ("tsconfig.json", r".", "type checker", "typescript"),
    ("go.mod", r"^module\s", "formatter", "gofmt (Go's standard format)"),
    ("go.mod", r"^module\s", "tests", "go test"),
    (".golangci.yml", r".", "linter", "golangci-lint"),
    (".golangci.yaml", r".", "linter", "golangci-lint"),
    ("Cargo.toml", r"^\[package\]|^\[workspace\]", "tests", "cargo test"),
    ("rustfmt.toml", r".", "formatter", "rustfmt"),
    (".rustfmt.toml", r".", "formatter", "rustfmt"),
    ("clippy.toml", r".", "linter", "clippy"),
    (".clang-format", r".", "formatter", "clang-format"),
    (".clang-tidy", r".", "linter", "clang-tidy"),
    ("CMakeLists.txt", r"^\s*enable_testing\(", "tests", "ctest"),
    (".rubocop.yml", r".", "linter", "rubocop"),
    ("Makefile", r"^test:", "tests", "make test"),
)


def read_lines(root: str, rel: str) -> list[str] | None:
    """The lines of a small configuration file (at most 512 KiB), None when absent."""
    if not os.path.isfile(os.path.join(root, rel)):
        return None
    text = read_text(root, rel, 512 << 10)
    return None if text is None else text.splitlines()


def tool_settings(root: str) -> list[Setting]:
    """What :data:`TOOL_LINES` finds, in its order; a (role, tool) pair counts once."""
    out: list[Setting] = []
    seen: set[tuple[str, str]] = set()
    cache: dict[str, list[str] | None] = {}
    for rel, rx, role, tool in TOOL_LINES:
        if (role, tool) in seen:
            continue
        if rel not in cache:
            cache[rel] = read_lines(root, rel)
        lines = cache[rel]
        if lines is None:
            continue
        pat = re.compile(rx)
        for i, ln in enumerate(lines):
            if pat.search(ln):
                out.append(Setting(role, tool, rel, i + 1))
                seen.add((role, tool))
                break
    return out


class Declared(NamedTuple):
    """An entry point or export a manifest declares: ``kind`` (script, bin, main,
    exports), ``name``, ``target`` (what it points at), ``path`` and 1-based ``line``."""

    kind: str
    name: str
    target: str
    path: str
    line: int


def _ini_section(lines: list[str], header: re.Pattern[str], path: str, kind: str
                 ) -> list[Declared]:
    out, inside = [], False
    for i, ln in enumerate(lines):
        s = ln.strip()
        if s.startswith("["):
            inside = bool(header.match(s))
            continue
        if inside and "=" in s and not s.startswith("#"):
            name, _, target = s.partition("=")
            out.append(Declared(kind, name.strip().strip("\"'"),
                                target.strip().strip("\"'"), path, i + 1))
    return out


def declared(root: str) -> list[Declared]:
    """Console scripts (``pyproject.toml`` ``[project.scripts]``, Poetry's scripts,
    ``setup.cfg`` ``console_scripts``), ``package.json`` ``bin``/``main``/``exports``,
    ``Cargo.toml`` ``[[bin]]`` names."""
    out: list[Declared] = []
    lines = read_lines(root, "pyproject.toml")
    if lines:
        out += _ini_section(lines, re.compile(r"^\[(project\.scripts|tool\.poetry\.scripts)\]"),
                            "pyproject.toml", "script")
    lines = read_lines(root, "setup.cfg")
    if lines:
        block = _ini_section(lines, re.compile(r"^\[options\.entry_points\]"), "setup.cfg",
                             "script")
        out += [d for d in block if d.name not in ("console_scripts", "gui_scripts")]
    lines = read_lines(root, "package.json")
    if lines:
        try:
            pkg = json.loads("\n".join(lines))
        except ValueError:
            pkg = {}
        if isinstance(pkg, dict):
            out += _package_json(pkg, lines)
    lines = read_lines(root, "Cargo.toml")
    if lines:
        for i, ln in enumerate(lines):
            if ln.strip() == "[[bin]]":
                for j in range(i + 1, min(i + 8, len(lines))):
                    m = re.match(r'\s*name\s*=\s*"([^"]+)"', lines[j])
                    if m:
                        out.append(Declared("bin", m.group(1), "", "Cargo.toml", j + 1))
                        break
    return out


def _line_of(lines: list[str], needle: str) -> int:
    for i, ln in enumerate(lines):
        if needle in ln:
            return i + 1
    return 1


def _package_json(pkg: dict[str, object], lines: list[str]) -> list[Declared]:
    out = []
    name = str(pkg.get("name") or "")
    bins = pkg.get("bin")
    if isinstance(bins, str):
        out.append(Declared("bin", name, bins, "package.json", _line_of(lines, '"bin"')))
    elif isinstance(bins, dict):
        for k, v in bins.items():
            out.append(Declared("bin", str(k), str(v), "package.json",
                                _line_of(lines, f'"{k}"')))
    for key in ("main", "module", "types"):
        v = pkg.get(key)
        if isinstance(v, str):
            out.append(Declared(key, name, v, "package.json", _line_of(lines, f'"{key}"')))
    exp = pkg.get("exports")
    if isinstance(exp, str):
        out.append(Declared("exports", ".", exp, "package.json", _line_of(lines, '"exports"')))
    elif isinstance(exp, dict):
        for k in list(exp)[:20]:
            out.append(Declared("exports", str(k), json.dumps(exp[k])[:80], "package.json",
                                _line_of(lines, f'"{k}"')))
    return out
