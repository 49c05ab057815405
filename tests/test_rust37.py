"""Rust forms the blind suite callgraph_blind8 found missed (session 37): a value whose
type is a trait bound (``fn f<T: Summary>``, ``where S: Summary``, ``&impl Summary``,
``&dyn Summary``) calls the trait's method (the static target: ``Summary.summarize``);
paths through inline modules of the file (``super::slug``, ``helpers::join_words``,
``text::helpers::title``, ``use text::helpers;``), read in the caller's module only.
Each line checked by hand."""

from __future__ import annotations

from pathlib import Path

from cgutil import calls_from

MAIN = """trait Summary {
    fn summarize(&self) -> String;
}
fn digest<T: Summary>(items: &[T]) -> usize {
    let mut n = 0;
    for item in items {
        n += item.summarize().len();
    }
    n
}
fn headline(item: &impl Summary) -> String { item.summarize() }
fn boxed(item: &dyn Summary) -> String { item.summarize() }
fn notify<S>(item: &S) -> String
where
    S: Summary,
{
    item.summarize()
}
fn normalize(s: &str) -> String { s.to_string() }
mod text {
    pub fn slug(s: &str) -> String {
        let base = super::normalize(s);
        helpers::join_words(&base)
    }
    pub mod helpers {
        pub fn join_words(s: &str) -> String { s.to_string() }
        pub fn title(s: &str) -> String { super::slug(s) }
        pub fn plain(s: &str) -> String { join_words(s) }
    }
}
use text::helpers;
fn main() {
    text::helpers::title("a");
    helpers::join_words("b");
}
"""
OTHER = """mod inner {
    pub fn f() {}
}
pub fn g() {
    inner::f();
    self::inner::f();
}
"""


def test_trait_bounds_and_inline_modules(tmp_path: Path) -> None:
    files = {"Cargo.toml": '[package]\nname = "demo"\nversion = "0.1.0"\n',
             "src/main.rs": "mod other;\n" + MAIN, "src/other.rs": OTHER}
    got = calls_from(tmp_path, files, *(f"src/main.rs::{f}" for f in (
        "digest", "headline", "boxed", "notify", "text.slug", "text.helpers.title",
        "text.helpers.plain", "main")), "src/other.rs::g")
    s = "src/main.rs::Summary.summarize"
    assert got == [
        f"src/main.rs::boxed -> {s} @13",
        f"src/main.rs::digest -> {s} @8",
        f"src/main.rs::headline -> {s} @12",
        "src/main.rs::main -> src/main.rs::text.helpers.join_words @35",
        "src/main.rs::main -> src/main.rs::text.helpers.title @34",
        f"src/main.rs::notify -> {s} @18",
        "src/main.rs::text.helpers.plain -> src/main.rs::text.helpers.join_words @29",
        "src/main.rs::text.helpers.title -> src/main.rs::text.slug @28",
        "src/main.rs::text.slug -> src/main.rs::normalize @23",
        "src/main.rs::text.slug -> src/main.rs::text.helpers.join_words @24",
        "src/other.rs::g -> src/other.rs::inner.f @5",
        "src/other.rs::g -> src/other.rs::inner.f @6",
    ]
