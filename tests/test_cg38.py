"""A method that returns its own receiver (``return this``, TypeScript's ``: this``) gives
the receiver at the call: ``new UserQuery().where("a").active()`` calls ``UserQuery.active``
although ``where`` is declared in the base class (session 38; before, ``: this`` returned
the declaring class and the chain stopped there). JavaScript and TypeScript only: in C# and
Java a call binds by the declared return type (``new A().Name().Extra()`` with ``Name()``
declared ``B`` and ``A`` hiding ``Extra`` with ``new`` is ``B.Extra``); a ``return this``
inside a callback returns from the callback, and a generator method returns a generator
object, never the receiver (break-it 38). A method returning
anything else keeps its own value (``part()`` returning ``this.inner``)."""

from __future__ import annotations

from pathlib import Path

from cgutil import edges
from conftest import git, make_repo

FILES = {
    "q.ts": """class Query {
  where(c: string): this { return this; }
  limit(n: number) { return this; }
  run(): string[] { return []; }
}
class UserQuery extends Query {
  active(): this { return this.where("active"); }
}
export function list() {
  return new UserQuery().where("a").active().limit(3).run();
}
""",
    "r.js": """class Req {
  set(k, v) { this[k] = v; return this; }
  send() { return 1; }
}
class JsonReq extends Req {
  json() { return this.set("type", "json"); }
}
function post() {
  new JsonReq().set("a", 1).json().send();
}
""",
    "S.cs": """class B {
  public B Name() { return this; }
  public void Extra() {}
}
class A : B {
  public new void Extra() {}
  static void F() { new A().Name().Extra(); }
}
""",
    "t.js": """class Base {
  name(n) { [1].forEach(function (x) { return this; }); }
  *gen() { return this; }
  extra() {}
}
class Derived extends Base { extra() {} }
function f() {
  new Derived().name("x").extra();
  new Derived().gen().extra();
}
""",
    "n.ts": """class Inner { ping(): number { return 1; } }
class Outer {
  inner: Inner = new Inner();
  part() { return this.inner; }
  ping(): number { return 2; }
}
class Sub extends Outer {}
function f() {
  new Sub().part().ping();
}
""",
}

WANT = [
    "S.cs::A.F -> S.cs::A @7",
    "S.cs::A.F -> S.cs::B.Extra @7",
    "S.cs::A.F -> S.cs::B.Name @7",
    "n.ts::Outer -> n.ts::Inner @3",
    "n.ts::f -> n.ts::Inner.ping @9",
    "n.ts::f -> n.ts::Outer.part @9",
    "n.ts::f -> n.ts::Sub @9",
    "q.ts::UserQuery.active -> q.ts::Query.where @7",
    "q.ts::list -> q.ts::Query.limit @10",
    "q.ts::list -> q.ts::Query.run @10",
    "q.ts::list -> q.ts::Query.where @10",
    "q.ts::list -> q.ts::UserQuery @10",
    "q.ts::list -> q.ts::UserQuery.active @10",
    "r.js::JsonReq.json -> r.js::Req.set @6",
    "r.js::post -> r.js::JsonReq @9",
    "r.js::post -> r.js::JsonReq.json @9",
    "r.js::post -> r.js::Req.send @9",
    "r.js::post -> r.js::Req.set @9",
    "t.js::f -> t.js::Base.gen @9",
    "t.js::f -> t.js::Base.name @8",
    "t.js::f -> t.js::Derived @8",
    "t.js::f -> t.js::Derived @9",
]


def test_a_method_returning_this_gives_its_receiver(tmp_path: Path) -> None:
    assert edges(make_repo(tmp_path / "r", FILES)) == WANT


CS_TWO = {
    "a.cs": "namespace Shop.Billing { class Ledger { public void Post() {} } }\n"
            "namespace Other.Billing { class Ledger { public void Post() {} } }\n",
    "b.cs": """namespace Shop.App {
  using Shop.Billing;
  class Clerk { void Book() { new Ledger().Post(); } }
}
""",
    "c.cs": """namespace Other.App {
  using Other.Billing;
  class X { void Y() { new Ledger().Post(); } }
}
""",
}
CS_WANT = [
    "b.cs::Shop.App.Clerk.Book -> a.cs::Shop.Billing.Ledger @3",
    "b.cs::Shop.App.Clerk.Book -> a.cs::Shop.Billing.Ledger.Post @3",
    "c.cs::Other.App.X.Y -> a.cs::Other.Billing.Ledger @3",
    "c.cs::Other.App.X.Y -> a.cs::Other.Billing.Ledger.Post @3",
]


def test_every_namespace_block_of_a_csharp_file_is_found(tmp_path: Path) -> None:
    """A file with two namespace blocks was found only under its first (before: no edge
    from ``using Shop.Billing;``); an incremental index that adds the block agrees."""
    assert edges(make_repo(tmp_path / "r", CS_TWO)) == CS_WANT
    one = dict(CS_TWO, **{"a.cs": CS_TWO["a.cs"].splitlines(keepends=True)[1]})
    repo = make_repo(tmp_path / "inc", one)
    assert edges(repo) == CS_WANT[2:]
    (repo / "a.cs").write_text(CS_TWO["a.cs"])
    assert edges(repo, full=False) == CS_WANT


SHADOW = {
    "go.mod": "module example.com/app\n",
    "cache/cache.go": """package cache

type LRU struct{}

func New() *LRU { return &LRU{} }
func (c *LRU) Get(k string) string { return k }
func Get(k string) string { return k }
""",
    "main.go": """package main

import "example.com/app/cache"

func main() {
	cache.Get("z")
	cache := cache.New()
	cache.Get("a")
}
""",
    "lru.py": """class LRU:
    def get(self, k):
        return k
def new():
    return LRU()
def get(k):
    return k
""",
    "use.py": """import lru
def other(lru):
    lru.get("b")
def third():
    lru.get("c")
""",
}


def test_a_local_named_like_an_imported_package_hides_it(tmp_path: Path) -> None:
    """Go's ``cache := cache.New()`` then ``cache.Get()`` is the method, not the
    package's function ``Get`` (before: the package's); a Python parameter named like an
    imported module is not the module (before: ``lru.get`` of the module)."""
    assert edges(make_repo(tmp_path / "r", SHADOW)) == [
        "lru.py::new -> lru.py::LRU @5",
        "main.go::main -> cache/cache.go::Get @6",
        "main.go::main -> cache/cache.go::LRU.Get @8",
        "main.go::main -> cache/cache.go::New @7",
        "use.py::third -> lru.py::get @5",
    ]


GO_BLOCKS = {
    "go.mod": "module example.com/app\n",
    "cache/cache.go": SHADOW["cache/cache.go"],
    "main.go": """package main

import "example.com/app/cache"

type Store struct{}

func (s *Store) Get(k string) string { return k }

func block(ok bool) {
	if ok {
		cache := &Store{}
		_ = cache
	}
	cache.Get("c")
}
func lit() {
	f := func(cache *cache.LRU) { _ = cache }
	_ = f
	cache.Get("d")
}
""",
}


def test_a_go_local_in_a_block_or_a_func_literal_does_not_hide_the_package(tmp_path: Path
                                                                           ) -> None:
    """Break-it 38: a binding in an inner block, or a func literal's parameter, is no
    binding of the function's body (the facts carry no blocks): ``cache.Get`` after them
    is still the package's function; only ``cache := cache.New()`` (a call of a function
    of the package) hides the package."""
    assert edges(make_repo(tmp_path / "r", GO_BLOCKS)) == [
        "main.go::block -> cache/cache.go::Get @14",
        "main.go::lit -> cache/cache.go::Get @19",
    ]


PARTIAL = {
    "A.cs": """namespace App {
  public partial class Form1 {
    public void Run() { Helper(); InitializeComponent(); Show(); }
  }
}
""",
    "A.Designer.cs": """namespace App {
  partial class Form1 : Base {
    void InitializeComponent() { }
    void Helper() { }
  }
  class Base { public void Show() {} }
}
""",
    "P.cs": """namespace App {
  class Program {
    static void Main() {
      var f = new Form1();
      f.Run();
      f.Helper2();
      f.Show();
    }
  }
  public partial class Form1 { public void Helper2() {} }
}
""",
    "Q.cs": """namespace Other {
  partial class Form1 { void Helper() {} void Run() {} }
}
""",
    "R.cs": "namespace Lib;\npartial class Box { void M() { N(); } }\n",
    "S.cs": "namespace Lib;\npartial class Box { void N() { } }\n",
}
PARTIAL_WANT = [
    "A.cs::App.Form1.Run -> A.Designer.cs::App.Base.Show @3",
    "A.cs::App.Form1.Run -> A.Designer.cs::App.Form1.Helper @3",
    "A.cs::App.Form1.Run -> A.Designer.cs::App.Form1.InitializeComponent @3",
    "P.cs::App.Program.Main -> A.Designer.cs::App.Base.Show @7",
    "P.cs::App.Program.Main -> A.cs::App.Form1.Run @5",
    "P.cs::App.Program.Main -> P.cs::App.Form1 @4",
    "P.cs::App.Program.Main -> P.cs::App.Form1.Helper2 @6",
    "R.cs::Box.M -> S.cs::Box.N @2",
]


def test_a_csharp_partial_class_is_one_class_over_its_files(tmp_path: Path) -> None:
    """ECMA-334 "Partial declarations": the members and bases of every ``partial``
    declaration of one namespace-qualified class (block or file-scoped namespace) are the
    class's; ``Other.Form1`` is another class. Before: only the caller's own file's part
    (a WinForms ``Form1.Designer.cs`` was never reached). Incremental adds of a part agree."""
    assert edges(make_repo(tmp_path / "r", PARTIAL)) == PARTIAL_WANT
    repo = make_repo(tmp_path / "inc", {k: v for k, v in PARTIAL.items()
                                        if k != "A.Designer.cs"})
    assert "A.cs::App.Form1.Run -> A.Designer.cs::App.Form1.Helper @3" not in edges(repo)
    (repo / "A.Designer.cs").write_text(PARTIAL["A.Designer.cs"])
    git(repo, "add", "A.Designer.cs")  # (the index reads tracked files)
    assert edges(repo, full=False) == PARTIAL_WANT


CALLBACKS = {
    "P.cs": """using System.Collections.Generic;
using System.Linq;
class Parcel { public bool IsExpress() { return true; } public decimal Weight() { return 1; } public string Key() { return ""; } }
class Depot {
  List<Parcel> _parcels = new List<Parcel>();
  public decimal ExpressWeight() {
    return _parcels.Where(p => p.IsExpress()).Sum(p => p.Weight());
  }
  public void Keys() {
    var ks = _parcels.Select(p => p.Key()).Where(p => p.Length > 0);
  }
}
""",
    "M.java": """import java.util.*;
class Shipment { boolean isExpress() { return true; } void dispatch() {} String key() { return ""; } }
class Warehouse {
  List<Shipment> pending = new ArrayList<>();
  void dispatchExpress() {
    pending.stream().filter(s -> s.isExpress()).forEach(s -> s.dispatch());
  }
  void keys() {
    pending.stream().map(s -> s.key()).filter(s -> s.isEmpty());
  }
}
""",
    "r.ts": """class Item { ok(): boolean { return true; } price(): number { return 1; } name(): string { return ""; } }
class Cart {
  items: Item[] = [];
  total() { return this.items.filter(i => i.ok()).map(i => i.price()); }
  names() { return this.items.map(i => i.name()).filter(i => i.ok()); }
}
""",
}


def test_callbacks_on_one_line_over_the_same_elements(tmp_path: Path) -> None:
    """``xs.Where(p => …).Sum(p => …)``: two callbacks naming one parameter on a line, each
    over the elements of the same collection (``Where``/``filter`` keep them), both bind it
    (callgraph_blind8's two misses in C# and Java); after ``Select``/``map`` the second
    callback's parameter is something else, so neither binds (a wrong ``Item.ok`` of a
    string before session 36's rule, which this keeps)."""
    assert edges(make_repo(tmp_path / "r", CALLBACKS)) == [
        "M.java::Warehouse.dispatchExpress -> M.java::Shipment.dispatch @6",
        "M.java::Warehouse.dispatchExpress -> M.java::Shipment.isExpress @6",
        "P.cs::Depot.ExpressWeight -> P.cs::Parcel.IsExpress @7",
        "P.cs::Depot.ExpressWeight -> P.cs::Parcel.Weight @7",
        "r.ts::Cart.total -> r.ts::Item.ok @4",
        "r.ts::Cart.total -> r.ts::Item.price @4",
    ]
