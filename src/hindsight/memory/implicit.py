"""Implicit anchors: the files and symbols a memory names in its text.

A memory that names code only in its text ("``load_config()`` lets the environment win",
"see src/shop/orders.py") is anchored to that code as if the anchor had been given, marked
``implicit``, so it goes stale when the code changes (:mod:`hindsight.memory.anchors`).
Resolution reads the code index of the machine that has it, through the
:class:`~hindsight.store.base.CodeStore` contract: at retain when the repository is indexed,
else at the next index pass (:func:`resolve_pending`, run by ``MemoryService.after_index``).

**Mentions** (:func:`mentions`; the first ``TEXT_CHARS`` characters, at most
``MAX_MENTIONS``; URLs and e-mail addresses removed first):

- a path: a token with a ``/`` (``src/shop/db.py``, ``payments/utils.py``; a ``:12`` or
  ``#L12`` line suffix dropped) or a file name with an extension (``config.py``). Absolute
  paths (``/…``, ``~/…``, ``C:\\…``) never anchor: they may point outside the repository;
- ``path::Local``: a symbol in that file (``tests/x.py::test_y``);
- a qualified name: identifiers joined by ``.`` or ``::`` (``Class.method``,
  ``pkg.mod.func``, ``ns::Class::run``);
- a word shaped like code: with an ``_`` (``parse_args``, ``MAX_RETRIES``), camelCase or
  with two capitals (``fetchOrders``, ``OrderService``, ``IOError``), or followed by ``(``;
- any other word only as the whole of a backtick span (`` `Cart` ``), ``MIN_WORD`` (3)
  characters or more, and then only for a top-level definition: a backticked `` `stdout` ``
  or `` `capture` `` in a commit message meant a stream and a parameter, not the method or
  nested function of that name (measured on click's history, see ``bench/anchors.py``).

A word in :data:`COMMON` (generic names such as ``run``, ``main``, ``get``: compared
case-insensitively) or a dunder name never anchors on its own; inside a qualified name it
may (``Settings.__init__``). Tokens in a backtick span of several words count as prose.

**Resolution** (:func:`resolve`): a path is the indexed file whose path is the mention or
ends with ``/`` + the mention; a qualified name ``d1…dn`` is a symbol whose file path
(without extension; ``__init__``/``index``/``mod`` dropped) followed by its local name's
parts ends with ``d1…dn`` (for a class in the file of its name, as in Java, the two count
once), or, for ``n ≥ 2``, the module file whose path ends with ``d1/…/dn``
(``shop.payments`` → ``shop/payments/__init__.py``) — unless ``dn`` is a data-file
extension (``shop.db``, ``settings.json``: a file name, not a module); a word is a symbol of
that name. A qualified name (or ``path::Local``) that no symbol has exactly matches a
symbol by its name without a role or trait (``Strict.level`` is the lone
``Strict.level:setter``). A mention anchors only when it matches **exactly one** file or symbol
(definitions sharing one qualified name count once); none or several: nothing. A target
the memory is anchored to already (an explicit anchor wins) is not added again, nor is
another member of an anchored symbol's name family in the same file: with an explicit
anchor to ``T.fmt:Display``, the text's ``T.fmt`` is that method, not the inherent ``T.fmt``
beside it (likewise ``Class.prop`` / ``Class.prop:setter`` and ``C.m`` / ``C.m(int)``;
:func:`hindsight.models.base_local`); a ``path::Local`` mention names its member exactly
and is added.

Precision and recall on a hand-labelled fixture: ``bench/anchors.py``.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from hindsight.models import Symbol, base_local
from hindsight.store.base import CodeStore, MemoryStore

TEXT_CHARS = 8_000  # only the start of a long memory is read
MAX_MENTIONS = 40  # distinct mentions looked up per memory (each costs one to three queries)
MIN_WORD = 3  # a backticked plain word shorter than this never anchors
LOOKUP_LIMIT = 200  # a name with this many definitions is not looked at further
PASS_LIMIT = 5_000  # memories resolved per index pass (the rest at the next passes)
WATERMARK = "implicit_anchors_after"  # meta key: the last memory id resolved after an index

# Generic names that recur in every code base; chosen by hand (programming verbs and nouns,
# builtins, entry points) and checked on the fixture of bench/anchors.py.
_COMMON = """
run main get set put post patch delete init setup teardown test tests start stop open close
read write load save dump dumps loads parse format render update create remove add insert
append pop push clear reset apply call exec execute process handle handler build make check
validate verify compute send receive connect disconnect fetch request response query search
find filter sort map reduce list dict str int float bool bytes tuple object type name value
key keys values items data config conf options args kwargs params self cls this result
results error errors log logger debug info warn warning print show display view index count
size length len next prev first last copy clone merge split join wrap encode decode
serialize deserialize to_dict from_dict to_json from_json constructor tostring equals
hashcode default new string app client server service util utils helper helpers common core
base model models api cli db store cache state context ctx event events callback cb fn func
wrapper decorator spec mock fixture todo fixme xxx note id uuid path file files dir url uri
text line lines input output source target status time date timestamp user users group
version help usage exit quit abort retry wait sleep lock unlock flush sync async await yield
return raise none null true false ok err exception module package import include require
export class struct enum interface trait impl fun function method def var let const static
public private protected void super foo bar baz tmp temp misc
e.g i.e etc vs cf
"""
COMMON = frozenset(_COMMON.split())
_DATA_EXT = """
db sqlite json toml yaml yml ini cfg conf txt md rst csv tsv log lock xml html htm css png
jpg jpeg gif svg pdf zip gz tar env pem key crt
"""
DATA_EXT = frozenset(_DATA_EXT.split())  # `shop.db` names a file, not the module shop.db

_URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://\S+|\bwww\.\S+|[\w.+-]+@[\w-]+\.[\w.-]+")
_SPAN = re.compile(r"`([^`\n]+)`")
_TOKEN = re.compile(r"[\w$.:/#~\\@%+-]+")
_IDENT = re.compile(r"[A-Za-z_$][\w$]*\Z")
_LINE = re.compile(r"(?::\d+)+\Z|#L\d+(?:-L?\d+)?\Z")
_FILE = re.compile(r"[\w.-]*\w\.[A-Za-z][A-Za-z0-9]{0,7}\Z")
_SINGLE = re.compile(r"\s*([\w$.:/#~\\@%+-]+)(\([^()]*\))?\s*\Z")


class Mention(NamedTuple):
    """One candidate: ``shape`` ``path``, ``pathq`` (``path::Local``), ``qualified``
    (identifiers joined by ``.``/``::``; ``config.py`` is one too and is also looked up as a
    file name), ``word`` (shaped like code) or ``plain`` (a plain word in backticks); ``text``
    as read (line suffix and punctuation around it removed)."""

    shape: str
    text: str


def mentions(text: str, *, backticks_only: bool = True, common: frozenset[str] = COMMON
             ) -> list[Mention]:
    """The candidate mentions of ``text`` in order of first appearance, each once (see the
    module doc). ``backticks_only`` false and ``common`` empty are for measurement only
    (``bench/anchors.py``): plain words anywhere, no stop list."""
    text = _URL.sub(" ", text[:TEXT_CHARS].replace("```", "\n"))
    found: dict[Mention, None] = {}

    def add(tok: str, paren: bool, code: bool) -> None:
        m = _classify(tok, paren, code or not backticks_only, common)
        if m is not None and len(found) < MAX_MENTIONS:
            found.setdefault(m, None)

    for n, piece in enumerate(_SPAN.split(text)):  # odd items: backtick spans
        one = _SINGLE.match(piece) if n % 2 else None
        if one is not None:
            add(one.group(1), one.group(2) is not None, True)
            continue
        for t in _TOKEN.finditer(piece):
            add(t.group(), piece[t.end():t.end() + 1] == "(", False)
    return list(found)


def _classify(tok: str, paren: bool, code: bool, common: frozenset[str]) -> Mention | None:
    tok = tok.removeprefix("./").lstrip("@").strip(":,#-+").rstrip(".")
    if "\\" in tok or tok.startswith(("/", "~")) or "@" in tok or "%" in tok:
        return None  # absolute, Windows or not a name
    tok = _LINE.sub("", tok).rstrip(".:")
    if not tok or "//" in tok:
        return None
    if "::" in tok:
        left, _, right = tok.partition("::")
        if ("/" in left or _FILE.match(left)) and all(_IDENT.match(p)
                                                       for p in right.split(".")):
            return Mention("pathq", tok)
        parts = re.split(r"::|\.", tok)
        return Mention("qualified", tok) if _qualified(parts) else None
    if "/" in tok:
        return Mention("path", tok) if ":" not in tok and "#" not in tok else None
    if "." in tok:
        parts = tok.split(".")
        if tok.casefold() in common or all(len(p) <= 1 for p in parts):
            return None
        if _qualified(parts):
            return Mention("qualified", tok)
        return Mention("path", tok) if _FILE.match(tok) else None
    if not _IDENT.match(tok) or (tok.startswith("__") and tok.endswith("__")):
        return None
    if tok.casefold() in common:
        return None
    shaped = ("_" in tok.strip("_") or tok.startswith("_") and len(tok) > 2
              or re.search(r"[a-z][A-Z]|[A-Z]{2}[a-z]", tok) is not None)
    if shaped or paren:
        return Mention("word", tok)
    return Mention("plain", tok) if code and len(tok) >= MIN_WORD else None


def _qualified(parts: list[str]) -> bool:
    return len(parts) >= 2 and all(_IDENT.match(p) for p in parts)


Target = tuple[str, str, str]  # (path, local or "", ast hash or file content hash)


def resolve(code: CodeStore, text: str, have: list[tuple[str, str, str]], *,
            backticks_only: bool = True, common: frozenset[str] = COMMON) -> list[Target]:
    """Implicit anchors for ``text``: one ``(path, local, hash)`` per mention that matches
    exactly one file (local ``""``, hash = the file's content hash) or symbol (hash = its
    ast hash) in ``code``, in mention order, without the targets in ``have`` (anchors the
    memory has: (path, symbol, hash)), without another member of an anchored symbol's name
    family in its file (module doc) and without repeats. Raises StorageError."""
    seen = {(p, s) for p, s, _h in have}
    families = {(p, base_local(s)) for p, s, _h in have if s}
    out: list[Target] = []
    for m in mentions(text, backticks_only=backticks_only, common=common):
        hits = _matches(code, m)
        if len(hits) != 1:
            continue
        (path, local), h = next(iter(hits.items()))
        if local and m.shape != "pathq" and (path, base_local(local)) in families:
            continue  # (`path::Local` names one member exactly)
        if (path, local) not in seen:
            seen.add((path, local))
            out.append((path, local, h))
    return out


def _matches(code: CodeStore, m: Mention) -> dict[tuple[str, str], str]:
    """Every (path, local) ``m`` may mean → its hash (at most a few beyond one)."""
    if m.shape == "path":
        return {(p, ""): h for p, h in code.files_by_suffix(m.text, 2)}
    if m.shape == "pathq":
        path, _, local = m.text.partition("::")
        files = code.files_by_suffix(path, 2)
        if len(files) != 1:
            return {}
        got = {(s.path, s.local): s.ast_hash
               for s in code.symbols_by_qname([f"{files[0][0]}::{local}"])}
        return got or {(s.path, s.local): s.ast_hash for s in code.file_symbols(files[0][0])
                       if s.local != local and base_local(s.local) == local}
    if m.shape in ("word", "plain"):
        found = code.find_symbols(m.text, None, None, LOOKUP_LIMIT)
        if m.shape == "plain":  # `stdout`, `capture`: a top-level definition only
            found = [s for s in found if "." not in s.local] if len(found) < LOOKUP_LIMIT \
                else found
        return _symbols(found, [m.text])
    parts = re.split(r"::|\.", m.text)
    out: dict[tuple[str, str], str] = {}
    if parts[-1].casefold() not in DATA_EXT:
        out.update({(p, ""): h for p, h in code.files_by_suffix("/".join(parts), 2,
                                                                  stem=True)})
    if len(parts) >= 2:  # Class.method first: an exact local name is one indexed lookup
        out.update(_symbols(code.find_symbols(".".join(parts[-2:]), None, None,
                                              LOOKUP_LIMIT), parts))
    if not any(local for _p, local in out):
        out.update(_symbols(code.find_symbols(parts[-1], None, None, LOOKUP_LIMIT), parts))
    if "." in m.text and _FILE.match(m.text):  # `config.py`: a file name too
        out.update({(p, ""): h for p, h in code.files_by_suffix(m.text, 2)})
    return out


def _symbols(found: list[Symbol], parts: list[str]) -> dict[tuple[str, str], str]:
    """The symbols of ``found`` whose file path and local name end with ``parts``; with
    ``LOOKUP_LIMIT`` hits the name is too common to tell: two dummy entries (ambiguous)."""
    if len(found) >= LOOKUP_LIMIT:
        return {("", "?1"): "", ("", "?2"): ""}
    exact: dict[tuple[str, str], str] = {}
    by_base: dict[tuple[str, str], str] = {}  # `Strict.level` of a lone `Strict.level:setter`
    members: set[tuple[str, str]] = set()  # a class's constants, an enum's members
    for s in found:
        base = base_local(s.local)
        if _ends_with(s.path, s.local, parts):
            exact.setdefault((s.path, s.local), s.ast_hash)
        elif base != s.local and _ends_with(s.path, base, parts):
            by_base.setdefault((s.path, s.local), s.ast_hash)
        if s.kind == "constant" and s.parent:
            members.add((s.path, s.local))
    if len(exact) > 1 and len(set(exact) - members) == 1:  # `sync_users` the function, not
        exact = {k: v for k, v in exact.items() if k not in members}  # `Job.sync_users`
    return exact or by_base


def _ends_with(path: str, local: str, parts: list[str]) -> bool:
    """Whether the module path of ``path`` followed by ``local``'s parts ends with
    ``parts`` (a class in the file of its own name counted once: ``Bar.java``'s
    ``Bar.run`` is ``…/Bar.run``)."""
    stem = _stem(path).split("/")
    loc = local.split(".")
    fulls = [stem + loc]
    if len(loc) >= 2 and stem[-1] == loc[0]:
        fulls.append(stem[:-1] + loc)
    return any(len(f) >= len(parts) and f[-len(parts):] == parts for f in fulls)


def _stem(path: str) -> str:
    """``path`` without its last part's extension and a last ``/__init__``, ``/index`` or
    ``/mod`` (the file that stands for its directory's module)."""
    d, _, base = path.rpartition("/")
    base = base.rsplit(".", 1)[0] if "." in base.lstrip(".") else base
    if d and base in ("__init__", "index", "mod"):
        return d
    return f"{d}/{base}" if d else base


def resolve_pending(mem: MemoryStore, code: CodeStore, at: str, limit: int = PASS_LIMIT
                    ) -> dict[str, int]:
    """Resolve the implicit anchors of memories added since the last pass (active, not
    conversation turns; at most ``limit``, the rest at the next pass): ``{"memories",
    "anchors"}`` (looked at, added). Raises StorageError."""
    after = int(mem.get_meta(WATERMARK) or 0)
    ids = mem.ids_after(after, limit)
    if not ids:
        return {"memories": 0, "anchors": 0}
    got = mem.get(ids)
    items: list[tuple[int, str, str, str]] = []
    for mid in ids:
        m = got.get(mid)
        if m is not None:
            have = [(a.path, a.symbol, a.ast_hash) for a in m.anchors]
            items += [(mid, *t) for t in resolve(code, m.text, have)]
    added = mem.add_anchors(items, at) if items else 0
    mem.set_meta({WATERMARK: str(ids[-1])})
    return {"memories": len(ids), "anchors": added}
