"""Call-graph rules of session 27 (Python), each with its exact edges; every expected list
was checked by running the program under ``sys.setprofile`` (the union of what the runs
reach where a value depends on the input)."""

from __future__ import annotations

from pathlib import Path

from cgutil import ABC_M, calls_from

GROW = ABC_M + '''

def extended():
    xs = [A()]
    xs.extend([B()])
    for x in xs:
        x.m()


def added():
    xs = [A()]
    xs += [C()]
    for x in xs:
        x.m()


def from_other(ys: list[B]):
    xs = []
    xs.extend(ys)
    for x in xs:
        x.m()


def list_appended():
    xs = []
    xs.append([A()])
    for x in xs:
        x.m()
'''


def test_lists_grown_by_extend_and_plus_equals(tmp_path: Path) -> None:
    """``xs.extend([B()])`` and ``xs += [C()]`` add elements as ``xs.append`` does;
    ``xs.extend(ys)`` adds the elements of ``ys``; ``xs.append([A()])`` adds a list, whose
    ``m`` is no method of A (``list.m`` does not exist: no edge)."""
    got = calls_from(tmp_path, {"a.py": GROW}, "a.py::extended", "a.py::added",
                     "a.py::from_other", "a.py::list_appended")
    assert [e for e in got if ".m @" in e] == [
        "a.py::added -> a.py::A.m @31", "a.py::added -> a.py::C.m @31",
        "a.py::extended -> a.py::A.m @24", "a.py::extended -> a.py::B.m @24",
        "a.py::from_other -> a.py::B.m @38"]


LAST = ABC_M + '''

class Machine:
    def __init__(self):
        self.stack = [A()]

    def push(self, s):
        self.stack.append(s)

    def top(self):
        return self.stack[-1].m()


KINDS = [A]


def register(k):
    KINDS.append(k)


def newest():
    return KINDS[-1]().m()


def main():
    mc = Machine()
    mc.push(C())
    register(B)
    return mc.top(), newest()
'''


def test_last_element_of_lists_appended_elsewhere(tmp_path: Path) -> None:
    """``self.stack[-1]`` when another method appends, and ``KINDS[-1]`` of a module list a
    function appends to, may be any element: the literal's last one and those appended."""
    got = calls_from(tmp_path, {"a.py": LAST}, "a.py::Machine.top", "a.py::newest")
    assert got == ["a.py::Machine.top -> a.py::A.m @28", "a.py::Machine.top -> a.py::C.m @28",
                   "a.py::newest -> a.py::A @39", "a.py::newest -> a.py::A.m @39",
                   "a.py::newest -> a.py::B @39", "a.py::newest -> a.py::B.m @39"]


CHAIN = '''from contextlib import contextmanager


class Lock:
    def acquire(self):
        return True

    def release(self):
        return None


class Gate:
    def acquire(self):
        return False


@contextmanager
def locked(lock):
    lock.acquire()
    try:
        yield lock
    finally:
        lock.release()


def critical(lock):
    with locked(lock) as held:
        return held.acquire()


def outer(lk):
    return critical(lk)


outer(Lock())
'''


def test_a_parameter_passed_on_takes_the_outer_call_sites_values(tmp_path: Path) -> None:
    """``outer(Lock())`` → ``critical(lk)`` → ``locked(lock)``: each function that passes
    its own parameter to one whose parameter is used keeps its call sites, so ``lock``
    in ``locked`` and ``held`` in ``critical`` are a ``Lock`` (never ``Gate``, which no
    call passes)."""
    got = calls_from(tmp_path, {"a.py": CHAIN}, "a.py::critical", "a.py::locked")
    assert got == ["a.py::critical -> a.py::Lock.acquire @28", "a.py::critical -> a.py::locked @27",
                   "a.py::locked -> a.py::Lock.acquire @19", "a.py::locked -> a.py::Lock.release @23"]


PROTO = '''var path = require('path');
var resolve = path.resolve;

function View(name) {
  this.name = name;
  this.path = this.lookup(name);
}

View.prototype.lookup = function lookup(name) {
  var loc = resolve('/', name);
  return this.resolve(loc);
};

View.prototype.resolve = function resolve(p) {
  return p;
};

module.exports = View;
'''

RES = '''var http = require('http');
var res = Object.create(http.ServerResponse.prototype);

res.send = function send(body) {
  return this.end(body);
};

res.json = function json(obj) {
  var body = JSON.stringify(obj);
  return this.send(body);
};

res.render = function render(view, options) {
  var self = this;
  var done = function (err, str) {
    self.send(str);
  };
  self.json({});
  return done;
};

module.exports = res;
'''


def test_javascript_prototype_methods_this_and_self(tmp_path: Path) -> None:
    """express's view.js and response.js (a fresh-user trial): a bare ``resolve()`` is
    the module's ``path.resolve``, not the prototype method of that name (unresolved,
    never guessed); ``this.resolve()`` in a prototype method and ``this.lookup()`` in the
    constructor function are View's methods; ``var self = this`` then ``self.send()``,
    also in a nested function, is the object's ``send``."""
    got = calls_from(tmp_path, {"view.js": PROTO, "response.js": RES}, "view.js::View",
                     "view.js::View.lookup", "response.js::res.render",
                     "response.js::res.render.done")
    assert got == ["response.js::res.render -> response.js::res.json @18",
                   "response.js::res.render.done -> response.js::res.send @16",
                   "view.js::View -> view.js::View.lookup @6",
                   "view.js::View.lookup -> view.js::View.resolve @11"]


RUST = {
    "Cargo.toml": '[package]\nname = "x"\nversion = "0.1.0"\n',
    "src/dir_entry.rs": ("pub struct DirEntry {\n    n: u32,\n}\n\nimpl DirEntry {\n"
                         "    pub fn file_type(&self) -> u32 {\n        self.n\n    }\n}\n"),
    "src/filesystem.rs": ("use crate::dir_entry;\n\npub fn is_empty(entry: &dir_entry::DirEntry)"
                          " -> bool {\n    entry.file_type() == 0\n}\n"),
    "src/main.rs": ("mod dir_entry;\nmod filesystem;\n\nfn local(e: &dir_entry::DirEntry) -> u32 "
                    "{\n    e.file_type()\n}\n\nfn parse_as<T>() -> u32 {\n    0\n}\n\n"
                    "fn main() {\n    println!(\"{} {}\", parse_as::<u16>(), 1);\n"
                    "    assert_eq!(parse_as::<u32>(), 0);\n}\n"),
}


def test_rust_module_path_types_and_turbofish_in_macros(tmp_path: Path) -> None:
    """fd's ``entry: &dir_entry::DirEntry`` after ``use crate::dir_entry;`` (a
    fresh-user trial) and in the file declaring ``mod dir_entry;``: the module's file;
    ``parse_as::<u16>()`` inside ``println!``/``assert_eq!`` is a call (break-it)."""
    got = calls_from(tmp_path, RUST, "src/filesystem.rs::is_empty", "src/main.rs::local",
                     "src/main.rs::main")
    assert got == [
        "src/filesystem.rs::is_empty -> src/dir_entry.rs::DirEntry.file_type @4",
        "src/main.rs::local -> src/dir_entry.rs::DirEntry.file_type @5",
        "src/main.rs::main -> src/main.rs::parse_as @13",
        "src/main.rs::main -> src/main.rs::parse_as @14"]


def test_last_position_of_literals_with_lambdas(tmp_path: Path) -> None:
    """A list of lambdas only, and one ending with a lambda, bound at module level (the
    extraction once crashed on the first): ``FNS[-1]()`` names nothing, the file's other
    facts stand (``MIXED[0].m()``)."""
    src = ABC_M + ('\n\nFNS = [lambda: 1, lambda: 2]\nMIXED = [A(), lambda: B()]\n\n\n'
                   'def use():\n    FNS[-1]()\n    return MIXED[0].m()\n')
    assert calls_from(tmp_path, {"a.py": src}, "a.py::use") == ["a.py::use -> a.py::A.m @26"]


def test_commonjs_require_of_one_name(tmp_path: Path) -> None:
    """express's ``var compileETag = require('./utils').compileETag`` (a fresh-user
    check): an import of that name, so ``app.set``'s calls resolve."""
    files = {"lib/utils.js": ("exports.compileETag = function(val) {\n  return val;\n};\n\n"
                              "exports.setCharset = function setCharset(type) {\n"
                              "  return type;\n};\n"),
             "lib/app.js": ("var compileETag = require('./utils').compileETag;\n"
                            "var setCharset = require('./utils').setCharset;\n\n"
                            "exports.set = function set(val) {\n"
                            "  return setCharset(compileETag(val));\n};\n")}
    assert calls_from(tmp_path, files, "lib/app.js::set") == [
        "lib/app.js::set -> lib/utils.js::compileETag @5",
        "lib/app.js::set -> lib/utils.js::setCharset @5"]


def test_typed_parameters_of_go_function_literals_and_rust_closures(tmp_path: Path) -> None:
    """cobra's ``Run: func(cmd *Command, args []string) { cmd.getCompletions(args) }`` and
    Rust's ``|e: &Entry| e.size()`` (the verification trial: ``callers`` was empty): the
    declared type of a literal's parameter is the receiver's."""
    go = {"go.mod": "module example.com/c\n\ngo 1.21\n",
          "cmd.go": ("package c\n\ntype Command struct {\n\tRun func(cmd *Command, args []string)\n"
                     "}\n\nfunc (c *Command) getCompletions(args []string) int {\n"
                     "\treturn len(args)\n}\n\nfunc (c *Command) initCompleteCmd() *Command {\n"
                     "\treturn &Command{\n\t\tRun: func(cmd *Command, args []string) {\n"
                     "\t\t\tcmd.getCompletions(args)\n\t\t},\n\t}\n}\n")}
    rs = {"Cargo.toml": '[package]\nname = "x"\nversion = "0.1.0"\n',
          "src/lib.rs": ("pub struct Entry {\n    n: u32,\n}\n\nimpl Entry {\n"
                         "    pub fn size(&self) -> u32 {\n        self.n\n    }\n}\n\n"
                         "pub fn total(v: &[Entry]) -> u32 {\n"
                         "    v.iter().map(|e: &Entry| e.size()).sum()\n}\n")}
    assert calls_from(tmp_path / "g", go, "cmd.go::Command.initCompleteCmd") == [
        "cmd.go::Command.initCompleteCmd -> cmd.go::Command.getCompletions @14"]
    assert calls_from(tmp_path / "r", rs, "src/lib.rs::total") == [
        "src/lib.rs::total -> src/lib.rs::Entry.size @12"]
