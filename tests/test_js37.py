"""JavaScript, TypeScript and Rust forms the blind suite callgraph_blind8 found missed
(session 37): values pushed into an array (``pool.push(new Worker(i))``, Rust
``args.push(tmpl)``) are its elements; a JavaScript ``for … of`` loop and a callback's
first parameter (``pool.forEach((w) => …)``) read them, as TypeScript's did; a
TypeScript ``namespace`` body and a Rust inline ``mod`` see their own items by bare name;
a TypeScript method declared to return ``this`` (a fluent builder) returns its receiver.
Each line checked by hand."""

from __future__ import annotations

from pathlib import Path

from cgutil import calls_from

JS = """class Worker {
  start() {}
  stop() {}
}
class Other { start() {} stop() {} }
function runPool(size) {
  const pool = [];
  for (let i = 0; i < size; i++) {
    pool.push(new Worker(i));
  }
  for (const w of pool) {
    w.start();
  }
  pool.forEach((w) => w.stop());
  return pool.length;
}
"""
TS = """namespace Geometry {
  export function distance(a: number): number {
    return square(a);
  }
  function square(n: number): number { return n * n; }
}
class RequestBuilder {
  header(name: string): this { return this; }
  json(x: object): this { return this.header("c"); }
  build(): string { return ""; }
}
export function make(): string {
  return new RequestBuilder().header("a").json({}).build();
}
"""
RS = """struct Template;
impl Template {
    fn has_tokens(&self) -> bool { true }
}
struct Other;
impl Other {
    fn has_tokens(&self) -> bool { false }
}
fn build() -> bool {
    let mut args = Vec::new();
    args.push(Template);
    args[0].has_tokens()
}
mod text {
    pub fn slug() -> u8 { 1 }
    pub fn title() -> u8 { slug() }
}
"""


def test_pushed_elements_namespaces_and_fluent_this(tmp_path: Path) -> None:
    got = calls_from(tmp_path, {"workers.js": JS, "geo.ts": TS, "src/main.rs": RS},
                     "workers.js::runPool", "geo.ts::Geometry.distance", "geo.ts::make",
                     "src/main.rs::build", "src/main.rs::text.title")
    assert got == [
        "geo.ts::Geometry.distance -> geo.ts::Geometry.square @3",
        "geo.ts::make -> geo.ts::RequestBuilder @13",
        "geo.ts::make -> geo.ts::RequestBuilder.build @13",
        "geo.ts::make -> geo.ts::RequestBuilder.header @13",
        "geo.ts::make -> geo.ts::RequestBuilder.json @13",
        "src/main.rs::build -> src/main.rs::Template.has_tokens @12",
        "src/main.rs::text.title -> src/main.rs::text.slug @16",
        "workers.js::runPool -> workers.js::Worker @9",
        "workers.js::runPool -> workers.js::Worker.start @12",
        "workers.js::runPool -> workers.js::Worker.stop @14",
    ]


ANIMALS = """class Animal {
  constructor(fn) { this.name = "a"; this.log = fn; }
  speak() { this.log(); return this.sound(); }
}
class Dog extends Animal {
  sound() { return "woof"; }
  log() { return 0; }
}
class Cat extends Animal {
  sound() { return "meow"; }
}
"""


def test_this_method_a_base_leaves_to_subclasses(tmp_path: Path) -> None:
    # `this.sound()` in a base without `sound`: the subclasses' (as Python's `self.m()`);
    # `this.log()` of a function the constructor stores is that value, not Dog.log
    got = calls_from(tmp_path, {"animals.js": ANIMALS}, "animals.js::Animal.speak")
    assert got == ["animals.js::Animal.speak -> animals.js::Cat.sound @3",
                   "animals.js::Animal.speak -> animals.js::Dog.sound @3"]
