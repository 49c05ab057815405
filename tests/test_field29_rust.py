"""Rust methods given to one type by impl blocks in several files (session 28's known gap
"Rust naming per file"): an inherent method wins over a trait's, in whichever file either
is (Rust's method lookup); a trait's method in another file is found; ``<T as Trait>::m``
names the trait's method wherever its impl block is; incremental re-resolution follows a
new impl block. Each expected edge was checked against rustc's rules by hand (no cargo
build offline here: the crate has no dependencies, and ``cargo check`` was run on it)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from cgutil import edges
from conftest import make_repo

ENTRY = '''pub struct Entry {
    pub kind: u8,
}

impl Entry {
    pub fn new(kind: u8) -> Entry {
        Entry { kind }
    }

    pub fn label(&self) -> String {
        format!("entry {}", self.kind)
    }
}
'''
SHOW = '''use crate::entry::Entry;

pub trait Show {
    fn label(&self) -> String;
    fn shout(&self) -> String;
}

impl Show for Entry {
    fn label(&self) -> String {
        String::from("shown")
    }

    fn shout(&self) -> String {
        self.label().to_uppercase()
    }
}

pub fn describe(e: &Entry) -> String {
    let a = e.label();
    let c = <Entry as Show>::label(e);
    a + &c
}
'''
USE = '''use crate::entry::Entry;
use crate::show::Show;

pub fn run() -> String {
    let e = Entry::new(1);
    e.label() + &e.shout()
}
'''
# another type of the same name in another module: its impl blocks are not Entry's
OTHER = '''pub struct Entry;

impl Entry {
    pub fn shout(&self) -> String {
        String::from("other")
    }
}
'''
FILES = {"Cargo.toml": '[package]\nname = "r1"\nversion = "0.1.0"\nedition = "2021"\n',
         "src/lib.rs": "pub mod entry;\npub mod other;\npub mod show;\npub mod use_it;\n",
         "src/entry.rs": ENTRY, "src/show.rs": SHOW, "src/use_it.rs": USE,
         "src/other.rs": OTHER}


def _from(es: list[str], *srcs: str) -> list[str]:
    return [e for e in es if e.split(" -> ")[0] in srcs]


def test_inherent_first_and_trait_methods_in_other_files(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", FILES)
    es = edges(repo)
    assert _from(es, "src/show.rs::Entry.shout") == [
        "src/show.rs::Entry.shout -> src/entry.rs::Entry.label @14"]
    assert _from(es, "src/show.rs::describe") == [
        "src/show.rs::describe -> src/entry.rs::Entry.label @19",
        "src/show.rs::describe -> src/show.rs::Entry.label @20"]
    assert _from(es, "src/use_it.rs::run") == [
        "src/use_it.rs::run -> src/entry.rs::Entry.label @6",
        "src/use_it.rs::run -> src/entry.rs::Entry.new @5",
        "src/use_it.rs::run -> src/show.rs::Entry.shout @6"]


def test_a_new_inherent_method_in_another_file_takes_over_incrementally(tmp_path: Path
                                                                       ) -> None:
    """``impl Entry { pub fn shout }`` added in a new file: Rust now runs it for
    ``e.shout()`` (inherent first); an incremental index re-resolves the caller, whose
    file did not change, through the ``impl:Entry`` key."""
    repo = make_repo(tmp_path / "r", FILES)
    edges(repo)
    (repo / "src" / "more.rs").write_text(
        "use crate::entry::Entry;\n\nimpl Entry {\n    pub fn shout(&self) -> String {\n"
        "        String::from(\"inherent\")\n    }\n}\n")
    (repo / "src" / "lib.rs").write_text(FILES["src/lib.rs"] + "pub mod more;\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    es = edges(repo, full=False)
    assert _from(es, "src/use_it.rs::run") == [
        "src/use_it.rs::run -> src/entry.rs::Entry.label @6",
        "src/use_it.rs::run -> src/entry.rs::Entry.new @5",
        "src/use_it.rs::run -> src/more.rs::Entry.shout @6"]
    assert es == edges(repo, full=True)
