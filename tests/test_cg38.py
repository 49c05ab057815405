"""A method that returns its own receiver (``return this``, TypeScript's ``: this``) gives
the receiver at the call: ``new UserQuery().where("a").active()`` calls ``UserQuery.active``
although ``where`` is declared in the base class (session 38; before, ``: this`` returned
the declaring class and the chain stopped there). JavaScript, TypeScript and C#
(``return this;`` had no receiver fact in C#). A method returning anything else keeps its
own value (``part()`` returning ``this.inner``)."""

from __future__ import annotations

from pathlib import Path

from cgutil import edges
from conftest import make_repo

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
    "S.cs": """class Step {
  public Step Then() { return this; }
}
class Flow : Step {
  public Flow Loop() { return this; }
  static void Go() { new Flow().Then().Loop(); }
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
    "S.cs::Flow.Go -> S.cs::Flow @6",
    "S.cs::Flow.Go -> S.cs::Flow.Loop @6",
    "S.cs::Flow.Go -> S.cs::Step.Then @6",
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
