"""Golden tests of ``hindsight search --entity``: for each fixture repository under
tests/fixtures/uses/<language>, the uses of a few entities (one line per use: depth,
relation, file:line, enclosing definition) must equal tests/golden/uses/<language>.json.
Regenerate after a reviewed change with ``HINDSIGHT_UPDATE_GOLDEN=1 pytest
tests/test_uses.py`` and read the diff."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hindsight.app import open_bank
from hindsight.codeindex.uses import type_references
from hindsight.errors import ConfigError

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures" / "uses"
GOLDEN = HERE / "golden" / "uses"
# (entity, relation, depth) asked of each fixture
QUERIES: dict[str, list[tuple[str, str, int]]] = {
    "python": [("Store", "uses", 1), ("Store", "inherits", 1), ("open_store", "calls", 2),
               ("open_store", "imports", 1), ("warm", "uses", 1)],
    "typescript": [("Store", "uses", 1), ("openStore", "calls", 2)],
    "javascript": [("Store", "uses", 1), ("openStore", "uses", 1)],
    "java": [("src/main/java/com/shop/Store.java::Store", "uses", 1),
             ("Store.open", "calls", 1)],
    "go": [("Store", "uses", 1), ("Open", "calls", 2)],
    "rust": [("Store", "uses", 1), ("Saver", "inherits", 1)],
    "csharp": [("Store", "uses", 1)],
}


def dump(root: Path, lang: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    with open_bank(repo_root_path=str(root)) as bank:
        bank.code.index(full=True, workers=1)
        for entity, relation, depth in QUERIES[lang]:
            sym, found = bank.code.uses(entity, relation, depth)
            out[f"{entity} {relation} {depth}"] = [sym.qname] + [
                f"{u.depth} {u.relation} {u.path}:{u.line} in {u.src} "
                f"verified {u.verified_at}" for u in found]
    return out


@pytest.mark.parametrize("lang", sorted(QUERIES))
def test_uses_golden(lang: str, tmp_path: Path) -> None:
    root = tmp_path / lang
    shutil.copytree(FIXTURES / lang, root)
    got = dump(root, lang)
    golden = GOLDEN / f"{lang}.json"
    if os.environ.get("HINDSIGHT_UPDATE_GOLDEN") == "1":
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(json.dumps(got, indent=1, ensure_ascii=False) + "\n")
    assert got == json.loads(golden.read_text())


def test_verified_time_comes_from_the_provider(tmp_path: Path) -> None:
    root = tmp_path / "python"
    shutil.copytree(FIXTURES / "python", root)
    asked: list[list[tuple[str, str]]] = []
    with open_bank(repo_root_path=str(root)) as bank:
        bank.code.index(workers=1)

        def verified(pairs: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
            asked.append(pairs)
            return {("shop/cache.py", "warm"): "2026-01-05T12:00:00+00:00"}

        bank.code.verified = verified
        _sym, found = bank.code.uses("open_store", "calls", 1)
    assert [(u.src, u.verified_at) for u in found] == [
        ("shop/cache.py::warm", "2026-01-05T12:00:00+00:00")]
    assert asked == [[("shop/cache.py", "warm")]]


def test_bad_relation_and_depth(tmp_path: Path) -> None:
    root = tmp_path / "python"
    shutil.copytree(FIXTURES / "python", root)
    with open_bank(repo_root_path=str(root)) as bank:
        bank.code.index(workers=1)
        with pytest.raises(ConfigError, match="relation 'reads': one of uses, calls"):
            bank.code.uses("Store", "reads")
        with pytest.raises(ConfigError, match="depth 0: must be at least 1"):
            bank.code.uses("Store", "uses", 0)


def test_type_references_leave_out_definitions_and_qualifiers() -> None:
    src = b"class Engine:\n    pass\n\n\ndef f(x: Engine, y: 'Engine') -> pkg.Engine:\n" \
          b"    z: Engine = Engine()\n    return Engine\n"
    # line 1 defines it; a call and a bare name are not type references (edges give calls)
    assert type_references("python", src, "Engine") == [(5, "annotation"), (6, "annotation")]
    java = b"class A extends Engine implements Comparable<Engine> {\n" \
           b"  Engine.Part p = new Engine();\n}\n"
    assert type_references("java", java, "Engine") == [
        (1, "annotation"), (1, "inherits"), (2, "annotation"), (2, "construction")]


def test_cli_search_json(tmp_path: Path) -> None:
    root = tmp_path / "python"
    shutil.copytree(FIXTURES / "python", root)
    with open_bank(repo_root_path=str(root)) as bank:
        bank.code.index(workers=1)
    env = {**os.environ, "PYTHONPATH": str(HERE.parent / "src")}
    out = subprocess.run([sys.executable, "-m", "hindsight", "search", "--entity", "Store",
                          "--relation", "inherits", "--repo-root", str(root), "--json"],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["entity"]["qname"] == "shop/store.py::Store"
    assert data["uses"] == [{"depth": 1, "relation": "inherits", "path": "shop/cache.py",
                             "line": 4, "src": "shop/cache.py::CachedStore",
                             "target": "shop/store.py::Store", "verified_at": None}]
    bad = subprocess.run([sys.executable, "-m", "hindsight", "search", "--entity", "Nope",
                          "--repo-root", str(root)], capture_output=True, text=True, env=env)
    assert bad.returncode == 6 and "no symbol named 'Nope'" in bad.stderr
