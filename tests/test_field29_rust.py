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


CT = '[package]\nname = "r1"\nversion = "0.1.0"\nedition = "2021"\n'


def _crate(tmp: Path, main: str, **mods: str) -> Path:
    files = {"Cargo.toml": CT, "src/main.rs": main}
    files.update({f"src/{k}.rs": v for k, v in mods.items()})
    return make_repo(tmp / "r", files)


def test_fully_qualified_calls_name_impls_and_defaults_in_any_file(tmp_path: Path) -> None:
    """Break-it R1 of session 29 (each expected edge from `cargo run`'s output):
    ``<Entry as A>::label`` with two traits giving ``label`` in other files, and
    ``<Entry as A>::dflt`` / ``<Entry as B>::go`` naming a trait's default beside an
    inherent method of that name."""
    repo = _crate(tmp_path, (
        "mod e;\nmod ta;\nmod tb;\nuse e::Entry;\nfn main() {\n    let x = Entry;\n"
        "    <Entry as ta::A>::label(&x);\n    <Entry as tb::B>::label(&x);\n"
        "    x.dflt();\n    <Entry as ta::A>::dflt(&x);\n}\n"),
        e="pub struct Entry;\nimpl Entry {\n    pub fn dflt(&self) {}\n}\n",
        ta=("use crate::e::Entry;\npub trait A {\n    fn label(&self);\n"
            "    fn dflt(&self) {}\n}\nimpl A for Entry {\n    fn label(&self) {}\n}\n"),
        tb=("use crate::e::Entry;\npub trait B {\n    fn label(&self);\n}\n"
            "impl B for Entry {\n    fn label(&self) {}\n}\n"))
    assert _from(edges(repo), "src/main.rs::main") == [
        "src/main.rs::main -> src/e.rs::Entry.dflt @9",
        "src/main.rs::main -> src/ta.rs::A.dflt @10",
        "src/main.rs::main -> src/ta.rs::Entry.label @7",
        "src/main.rs::main -> src/tb.rs::Entry.label @8"]


def test_impls_by_path_alias_nested_module_and_ambiguous_generics(tmp_path: Path) -> None:
    """Break-it R2-R4, R6, R7 of session 29: an impl naming its type by path (two
    ``struct Entry`` in modules a and b) or through an import alias; an impl in a nested
    module of the type's own file; two impls of one trait for ``Wrapper<u8>`` and
    ``Wrapper<i32>`` (unresolved: generic arguments are not told apart); a field of the
    struct read beside another file's method of its name; a trait's default method
    reached through an impl in another file."""
    repo = _crate(tmp_path, (
        "mod a;\nmod b;\nmod t;\nmod u;\nmod z;\nmod w;\nmod w2;\nuse t::Show;\nuse w::Loud;\n"
        "pub struct X { pub worker: a::Entry }\nmod more {\n    use super::X;\n"
        "    impl X {\n        pub fn m(&self) {}\n    }\n}\n"
        "fn main() {\n    let x = a::Entry;\n    let y = b::Entry;\n    x.label();\n"
        "    y.label();\n    x.plain();\n    let k = X { worker: a::Entry };\n    k.m();\n"
        "    k.worker.label();\n    y.dflt();\n"
        "    let p = w::Wrapper(1u8);\n    p.shout();\n}\n"),
        a="pub struct Entry;\n", b="pub struct Entry;\n",
        t="pub trait Show {\n    fn label(&self);\n    fn dflt(&self) {}\n}\n",
        u=("use crate::a::Entry as Al;\nuse crate::t::Show;\nimpl Show for Al {\n"
           "    fn label(&self) {}\n}\nimpl Al {\n    pub fn plain(&self) {}\n}\n"),
        z=("use crate::a::Entry;\nuse crate::t::Show;\nimpl Show for crate::b::Entry {\n"
           "    fn label(&self) {}\n}\nimpl crate::X {\n    pub fn worker(&self) -> u8 {\n"
           "        1\n    }\n}\npub fn touch(e: &Entry) {\n    e.plain();\n}\n"),
        w=("pub struct Wrapper<T>(pub T);\npub trait Loud {\n    fn shout(&self);\n}\n"
           "impl Loud for Wrapper<u8> {\n    fn shout(&self) {}\n}\n"),
        w2=("use crate::w::{Loud, Wrapper};\n"
            "impl Loud for Wrapper<i32> {\n    fn shout(&self) {}\n}\n"))
    es = edges(repo)
    assert [e for e in _from(es, "src/main.rs::main") if "Wrapper @" not in e] == [
        "src/main.rs::main -> src/main.rs::more.X.m @24",
        "src/main.rs::main -> src/t.rs::Show.dflt @26",
        "src/main.rs::main -> src/u.rs::Al.label @20",
        "src/main.rs::main -> src/u.rs::Al.label @25",
        "src/main.rs::main -> src/u.rs::Al.plain @22",
        "src/main.rs::main -> src/w.rs::Loud.shout @28",  # which impl: the trait's method
        "src/main.rs::main -> src/z.rs::Entry.label @21"]
    assert _from(es, "src/z.rs::touch") == ["src/z.rs::touch -> src/u.rs::Al.plain @12"]


def test_a_method_body_edit_re_resolves_no_other_impl_file(tmp_path: Path) -> None:
    """Break-it R8 of session 29: 60 files each add methods to one type; a body edit in
    one of them re-resolves none of the others (their dependency is the ``impl:Ctx``
    digest, which changes with the methods' names, not their bodies; nor does the file
    that calls the edited method); a new method
    re-resolves them, and the result equals a full index."""
    from hindsight.app import open_bank

    mods = {f"m{i}": (f"use crate::ty::Ctx;\nimpl Ctx {{\n    pub fn f{i}(&self) {{\n"
                      f"        self.f{(i + 1) % 60}();\n        self.unknown();\n    }}\n}}\n")
            for i in range(60)}
    repo = _crate(tmp_path, "pub mod ty;\n" + "".join(f"mod m{i};\n" for i in range(60))
                  + "fn main() {}\n", ty="pub struct Ctx;\n", **mods)
    assert len(_from(edges(repo), "src/m7.rs::Ctx.f7")) == 1
    p = repo / "src" / "m5.rs"
    p.write_text(p.read_text().replace("self.unknown();", "self.unknown();\n        1;"))
    with open_bank(repo_root_path=str(repo)) as bank:
        st = bank.code.index(workers=1)
    # m4's f4 calls f5, whose body alone changed: nothing m4 resolves differs
    # (codeindex/interface.py), so not even m4 is re-resolved
    assert (st.files_parsed, st.files_reresolved) == (1, 0)
    p.write_text(p.read_text().replace("impl Ctx {\n", "impl Ctx {\n    pub fn unknown(&self) {}\n"))
    with open_bank(repo_root_path=str(repo)) as bank:
        st = bank.code.index(workers=1)
    assert st.files_reresolved == 60
    inc = edges(repo, full=False)
    assert "src/m7.rs::Ctx.f7 -> src/m5.rs::Ctx.unknown @5" in inc
    assert inc == edges(repo, full=True)


def test_a_method_called_on_an_enum_variant(tmp_path: Path) -> None:
    """Fresh-user trial of session 29 on fd: ``ExitCode::GeneralError.exit()`` runs the
    enum's inherent ``exit``; ``callers ExitCode.exit`` said "no callers found". A path to
    a struct's associated item or a module's constant is not taken for a variant."""
    repo = _crate(tmp_path, (
        "mod exit_codes;\nuse exit_codes::ExitCode;\nfn main() {\n"
        "    ExitCode::GeneralError.exit();\n    exit_codes::Limits::MAX.exit();\n}\n"),
        exit_codes=("pub enum ExitCode {\n    Success,\n    GeneralError,\n}\n"
                    "impl ExitCode {\n    pub fn exit(self) {}\n}\npub struct Limits;\n"
                    "impl Limits {\n    pub const MAX: ExitCode = ExitCode::Success;\n"
                    "    pub fn exit(self) {}\n}\n"))
    assert _from(edges(repo), "src/main.rs::main") == [
        "src/main.rs::main -> src/exit_codes.rs::ExitCode.exit @4"]



def test_an_enum_s_associated_const_is_no_variant(tmp_path: Path) -> None:
    """Break-it of session 29: ``Level::DEFAULT.name()`` with ``const DEFAULT: Color`` in
    ``impl Level`` runs ``Color::name`` (cargo run), not ``Level::name``."""
    repo = _crate(tmp_path, (
        "mod color;\nuse color::Level;\nfn main() {\n    Level::DEFAULT.name();\n"
        "    Level::Low.name();\n}\n"),
        color=("pub enum Color {\n    Red,\n}\nimpl Color {\n    pub fn name(&self) {}\n}\n"
               "pub enum Level {\n    Low,\n}\nimpl Level {\n"
               "    pub const DEFAULT: Color = Color::Red;\n    pub fn name(&self) {}\n}\n"))
    assert _from(edges(repo), "src/main.rs::main") == [
        "src/main.rs::main -> src/color.rs::Level.name @5"]
