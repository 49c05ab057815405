"""C# names across files and namespaces (session 37, codeindex/namespaces.py), checked
against the C# rules (ECMA-334, "Namespace and type names", "Extension methods"):

* ``using N;`` reaches the types of namespace ``N`` in other files, also a namespace
  declared nested in another's block (``namespace Shop.Billing { namespace Audit … }``);
  ``using static N.T;`` reaches ``T``'s static methods by bare name; ``using A = N.T;``
  names a type; code in ``Shop.App`` sees the types of ``Shop`` (enclosing namespaces);
* a property named as its type (``public Ledger Ledger { get; set; }``, "Color Color"):
  ``Ledger = new Ledger()`` calls the class, ``this.Ledger.Post()`` and ``Ledger.Post()``
  the class's method (before: an edge to the property, and a miss);
* ``x.Shout()`` of an extension method ``static string Shout(this string s)`` in a
  visible namespace, when the receiver has no such member; two visible extension methods
  of one name (``Pad(this string …)`` and ``Pad(this long …)``) give no edge: the index does
  not weigh the ``this`` types;
* ``base.Add(item)`` (the ``base`` receiver had no call pattern), a generic base class
  (``: Repository<Customer>``), ``new Repository<Customer>()``;
* a type parameter with a bound stands for it (``where T : IEntity``: ``item.Validate()``
  is ``IEntity.Validate``), in C#, Java (``<T extends Entity>``) and TypeScript;
* a type named with its namespace or package: ``new Shop.Core.Customer()``, Java's
  ``com.acme.model.Invoice copy = new com.acme.model.Invoice(1)``.

Fixtures: tests/fixtures/csharp37/ (each line checked by hand)."""

from __future__ import annotations

from pathlib import Path

from cgutil import calls_from, edges
from conftest import make_repo

FIXTURES = Path(__file__).parent / "fixtures" / "csharp37"
P, L, C, G = ("src/App/Program.cs::Shop.App", "src/Billing/Ledger.cs::Shop.Billing",
              "src/Util/Checks.cs::Shop.Util", "Generic.cs::Shop.Core")

WANT = sorted([
    f"{G}.AuditedRepository.Add -> {G}.Repository.Add @22",
    f"{G}.Repository.Add -> {G}.IEntity.Validate @13",
    f"{G}.Repository.Each -> {G}.Customer.Greet @15",
    f"{G}.Start.Main -> {G}.AuditedRepository @32",
    f"{G}.Start.Main -> {G}.AuditedRepository.Add @32",
    f"{G}.Start.Main -> {G}.Customer @31",
    f"{G}.Start.Main -> {G}.Customer @32",
    f"{G}.Start.Main -> {G}.Repository @30",
    f"{G}.Start.Main -> {G}.Repository.Add @31",
    f"{P}.Clerk -> {L}.Audit.Trail @15",
    f"{P}.Clerk.Book -> {L}.Audit.Trail.Record @27",
    f"{P}.Clerk.Book -> {L}.Ledger @28",
    f"{P}.Clerk.Book -> {L}.Ledger.Post @25",
    f"{P}.Clerk.Book -> {L}.Ledger.Post @26",
    f"{P}.Clerk.Book -> {L}.Ledger.Post @28",
    f"{P}.Clerk.Book -> {C}.Checks.Positive @24",
    f"{P}.Clerk.Book -> {C}.TextExtensions.Shout @29",
    f"{P}.Clerk.Clerk -> {L}.Ledger @19",
    f"{L}.Audit.Trail.Record -> {L}.Entry.Amount @23",
    f"{L}.Ledger.Post -> {L}.Entry @15",
    f"{L}.Ledger.Post -> {C}.Checks.Positive @14",
])


def _files() -> dict[str, str]:
    return {str(p.relative_to(FIXTURES)): p.read_text() for p in sorted(FIXTURES.rglob("*.cs"))}


def test_namespaces_properties_extensions_and_bounds(tmp_path: Path) -> None:
    assert edges(make_repo(tmp_path / "r", _files())) == WANT


def test_an_extension_method_removed_in_its_file_leaves_its_callers(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", _files())
    assert f"{P}.Clerk.Book -> {C}.TextExtensions.Shout @29" in edges(repo)
    checks = repo / "src/Util/Checks.cs"
    checks.write_text(checks.read_text().replace("Shout(this string s)", "Shout(string s)"))
    after = edges(repo, full=False)  # (Program.cs read the `ext:Shout` key: re-resolved)
    assert after == [e for e in WANT if not e.endswith("TextExtensions.Shout @29")]
    assert after == edges(repo, full=True)


def test_a_bound_type_parameter_in_java_and_typescript(tmp_path: Path) -> None:
    java = ("interface Entity { void validate(); }\n"
            "class Customer implements Entity { public void validate() {}\n"
            "  public String greet() { return \"x\"; } }\n"
            "class Repo<T extends Entity> {\n  void add(T item) { item.validate(); }\n"
            "  <U extends Customer> void greetAll(U u) { u.greet(); }\n}\n")
    ts = ("class Customer { validate(): void {} greet(): string { return 'x'; } }\n"
          "class Repo<T extends Customer> {\n  add(item: T) { item.validate(); }\n}\n"
          "function greetAll<U extends Customer>(u: U) { return u.greet(); }\n"
          "function plain<V>(v: V) { return v.greet(); }\n")
    got = calls_from(tmp_path, {"Main.java": java, "main.ts": ts}, "Main.java::Repo.add",
                     "Main.java::Repo.greetAll", "main.ts::Repo.add", "main.ts::greetAll",
                     "main.ts::plain")
    assert got == ["Main.java::Repo.add -> Main.java::Entity.validate @5",
                   "Main.java::Repo.greetAll -> Main.java::Customer.greet @6",
                   "main.ts::Repo.add -> main.ts::Customer.validate @3",
                   "main.ts::greetAll -> main.ts::Customer.greet @5"]


def test_a_type_named_with_its_java_package(tmp_path: Path) -> None:
    files = {"src/com/acme/model/Invoice.java": (
        "package com.acme.model;\npublic class Invoice {\n  public Invoice(long c) {}\n"
        "  public long amount() { return 1; }\n}\n"),
        "src/com/acme/app/Main.java": (
        "package com.acme.app;\nclass Main {\n  void run() {\n"
        "    com.acme.model.Invoice copy = new com.acme.model.Invoice(1);\n"
        "    copy.amount();\n    System.out.println(copy);\n  }\n}\n")}
    got = calls_from(tmp_path, files, "src/com/acme/app/Main.java::Main.run")
    m = "src/com/acme/model/Invoice.java::Invoice"
    assert got == [f"src/com/acme/app/Main.java::Main.run -> {m} @4",
                   f"src/com/acme/app/Main.java::Main.run -> {m}.amount @5"]
