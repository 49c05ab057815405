"""Elements of std collections in TypeScript, Java and C# (session 36,
codeindex/elements.py): a value declared ``Store[]`` / ``Map<string, Store>`` /
``List<Store>`` / ``Optional<Store>`` / ``IEnumerable<Store>`` or made by ``new
Map<string, Store>()`` / ``new List<Store>()`` holds ``Store`` elements; ``for … of``,
``for (var s : xs)``, ``foreach (var s in xs)``, a callback's first parameter
(``forEach``, ``filter``, ``stream().filter(…).forEach``, ``Where``…), ``xs[0]``,
``get``/``at``/``find``/``orElseThrow``/``First``… give one. Before, each ``.save()``
below was unresolved once a second class had a ``save`` (the fixtures have ``Other``
for that), or resolved only by that name being unique.

Fixtures: tests/fixtures/elements36/ (Main.java compiles with javac; each line checked by
hand). Left out on purpose, and asserted absent: a destructured ``for (const [k, v] of
map)`` (hub.ts:19) and a C# indexer on a dictionary property (Main.cs:18)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cgutil import edges
from conftest import make_repo

FIXTURES = Path(__file__).parent / "fixtures" / "elements36"

SAVES = {
    # 9 this.stores.get(0), 10 stores.get(0) (a bare field), 11 named.get("a") (a Map),
    # 12 main.get() / 13 main.orElseThrow() (Optional), 14 a parameter's get, 16 a local
    # List, 18 a typed for, 20 stream().filter(…).findFirst().get()
    ("Main.java", "Hub.run", "Store.save"): [9, 10, 11, 12, 13, 14, 16, 18, 20],
    # 10 for…of a field, 12 forEach((s) => …), 15 xs[0] bound, 16 Map.get(…)!, 17 an
    # optional field, 25 for…of an Array<Store> parameter, 28 forEach(function (s) …);
    # 13, `filter((s) => …).map((s) => s.save())`: two callbacks name `s` on one line, both
    # over this.stores's elements (`filter` keeps them), so both bind it (session 38; with
    # different collections they bind nothing: elements.used_beside, break-it of session 36)
    ("hub.ts", "Hub.run", "Store.save"): [10, 12, 13, 15, 16, 17],
    ("hub.ts", "each", "Store.save"): [25, 28],
    # 11 this.stores[0], 13 find(…) bound, 15 a declared Map's get()?, 17 for…of
    # m.values(), 19 at(-1)!
    ("hub2.ts", "Hub.run", "Store.save"): [11, 13, 15, 17, 19],
    # 10 a field made by new Map<string, Store>(), 12 forEach over new Array<Store>()
    ("hub3.ts", "Hub.run", "Store.save"): [10, 12],
    # 11 foreach (var …), 14 foreach (Store t in ps), 16 ForEach(s => …), 17
    # Where(…).First(), 19 FirstOrDefault(), 21 a local made by new List<Store>()
    ("Main.cs", "Shop.Hub.Run", "Shop.Store.Save"): [11, 14, 16, 17, 19, 21],
}


@pytest.mark.parametrize("name", sorted({k[0] for k in SAVES}))
def test_element_reads(tmp_path: Path, name: str) -> None:
    repo = make_repo(tmp_path / "r", {name: (FIXTURES / name).read_text()})
    got = [e for e in edges(repo) if e.split(" -> ")[1].startswith(name + "::") and
           e.split(" -> ")[1].split(" @")[0].endswith((".save", ".Save"))]
    want = sorted(f"{name}::{src} -> {name}::{dst} @{n}"
                  for (f, src, dst), lines in SAVES.items() if f == name for n in lines)
    assert sorted(got) == want


def test_a_map_forEach_key_is_not_an_element(tmp_path: Path) -> None:
    # break-it of session 36: `pairs.forEach((k, v) -> k.report())` bound k to the value
    # type (Other.report); a lambda of two parameters is not bound now
    src = ("import java.util.*;\nclass Store { void report() {} }\n"
           "class Other { void report() {} }\nclass App {\n"
           "  Map<Store, Other> pairs = new HashMap<>();\n  List<Store> xs = new ArrayList<>();\n"
           "  void a() {\n    pairs.forEach((k, v) -> k.report());\n"
           "    xs.forEach(s -> s.report());\n  }\n}\n")
    repo = make_repo(tmp_path / "r", {"Main.java": src})
    assert [e for e in edges(repo) if e.startswith("Main.java::App.a ")] == [
        "Main.java::App.a -> Main.java::Store.report @9"]
