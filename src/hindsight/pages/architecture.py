"""The ``architecture`` page: the repository's top-level parts and what each does (its
README's first paragraph or its entry file's doc comment), the module dependency graph
between the parts (import edges of the code index), entry points (``main`` functions,
``__main__`` files, CLI definitions, HTTP routes, the scripts package manifests declare)
and exported APIs (``__all__``, the public definitions of each part's entry file, package
exports).

Parts: the top-level folders and files of the indexed code; a folder named like a source
container (:data:`CONTAINERS`: ``src``, ``lib``, ``packages``…) or the only folder at its
level is replaced by its children, and a container holding a single folder by that
folder's children (``src/pkg/`` gives ``src/pkg/cli``, ``src/pkg/app.py``…).
"""

from __future__ import annotations

import os
import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hindsight.pages.configs import declared
from hindsight.pages.records import Citation, Claims, Section, count
from hindsight.pages.scan import Found, doc_of, read_text, readme, scan

CONTAINERS = frozenset({"src", "lib", "libs", "source", "sources", "packages", "crates",
                        "modules", "apps"})
MAX_PARTS = 20  # parts described; the rest are counted
MAX_DEPS = 4  # dependencies listed per part
ENTRY_FILES = ("__init__.py", "index.ts", "index.tsx", "index.js", "lib.rs", "mod.rs",
               "main.rs", "doc.go", "main.go", "mod.ts")
_ALL = re.compile(r"^__all__\s*(?::[^=]*)?=\s*[\[(]([^\])]*)[\])]", re.M | re.S)


@dataclass
class Part:
    """A top-level part: ``name`` (a folder, without the trailing ``/``, or a file),
    ``folder`` (whether it is one), its indexed ``files`` and their ``lines``."""

    name: str
    folder: bool
    files: list[str] = field(default_factory=list)
    lines: int = 0
    languages: Counter[str] = field(default_factory=Counter)


def _group(paths: list[str], prefix: str) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for p in paths:
        head, sep, _rest = p[len(prefix):].partition("/")
        groups.setdefault(prefix + head + ("/" if sep else ""), []).append(p)
    return groups


def _expand(key: str, members: list[str]) -> dict[str, list[str]]:
    sub = _group(members, key)
    while len(sub) == 1 and next(iter(sub)).endswith("/"):
        only = next(iter(sub))
        sub = _group(sub[only], only)
    return sub


def parts(files: dict[str, Any]) -> list[Part]:
    """The parts of the indexed ``files`` (path → a row with ``lines`` and ``language``),
    largest (in lines) first; see the module doc."""
    groups = _group(sorted(files), "")
    for _round in range(6):
        out: dict[str, list[str]] = {}
        changed = False
        for key, members in groups.items():
            base = key.rstrip("/").rsplit("/", 1)[-1]
            if key.endswith("/") and (len(groups) == 1 or base in CONTAINERS):
                out.update(_expand(key, members))
                changed = True
            else:
                out[key] = members
        groups = out
        if not changed:
            break
    result = []
    for key, members in groups.items():
        part = Part(key.rstrip("/"), key.endswith("/"), members)
        for p in members:
            part.lines += int(files[p].lines)
            part.languages[files[p].language] += 1
        result.append(part)
    result.sort(key=lambda p: (-p.lines, p.name))
    return result


def _langs(part: Part) -> str:
    return ", ".join(lang for lang, _n in part.languages.most_common(3))


def _describe(root: str, part: Part, files: dict[str, Any]) -> tuple[str, Citation]:
    """What the part does, from its README or an entry file's doc comment; and where."""
    if part.folder:
        rel, para, line = readme(root, part.name)
        if para:
            return para, Citation("file", f"{rel}:{line}")
        direct = [p for p in part.files if p.rsplit("/", 1)[0] == part.name]
        entries = [f"{part.name}/{e}" for e in ENTRY_FILES if f"{part.name}/{e}" in files]
        others = sorted(direct, key=lambda p: -int(files[p].lines))[:3]
        candidates = entries + [p for p in others if p not in entries]
    else:
        candidates = [part.name]
    for path in candidates:
        text = read_text(root, path, 256 << 10)
        if text is None:
            continue
        doc, line = doc_of(text, files[path].language)
        if doc:
            return doc, Citation("file", f"{path}:{line}")
    return "", Citation("file", part.name)


def _parts_section(root: str, shown: list[Part], rest: list[Part],
                   files: dict[str, Any]) -> Section:
    c = Claims()
    for part in shown:
        what, cite = _describe(root, part, files)
        size = f"{count(len(part.files), 'file')}, {count(part.lines, 'line')}; {_langs(part)}"
        name = part.name + ("/" if part.folder else "")
        c.add(f"`{name}` ({size}): {what or 'no description found'}", cite)
    if rest:
        c.note(f"({len(rest)} smaller parts with {sum(len(p.files) for p in rest):,} files "
               "not listed)")
    if not shown:
        c.note("No indexed code.")
    return c.section("Parts")


def _deps_section(all_parts: list[Part], shown: list[Part],
                  edges: list[tuple[str, int, str]]) -> Section:
    owner = {p: part.name for part in all_parts for p in part.files}
    per: dict[str, Counter[str]] = defaultdict(Counter)
    site: dict[tuple[str, str], tuple[str, int]] = {}
    for src, line, dst in edges:
        a, b = owner.get(src), owner.get(dst)
        if a is None or b is None or a == b:
            continue
        per[a][b] += 1
        site.setdefault((a, b), (src, line))
    c = Claims()
    into: Counter[str] = Counter()
    users: dict[str, set[str]] = defaultdict(set)
    for a, deps in per.items():
        for b, n in deps.items():
            into[b] += n
            users[b].add(a)
    top = [b for b, _n in into.most_common(3)]
    if top:
        c.add("Most imported: " + ", ".join(
            f"`{b}` ({count(into[b], 'import')} from {count(len(users[b]), 'part')})"
            for b in top),
            *(Citation("file", "{}:{}".format(*site[(min(users[b]), b)])) for b in top))
    for part in shown:
        deps = per.get(part.name) or Counter()
        if not deps:
            continue
        listed = deps.most_common(MAX_DEPS)
        more = len(deps) - len(listed)
        c.add(f"`{part.name}` uses " + ", ".join(f"`{b}` ({n})" for b, n in listed)
              + (f" and {more} more" if more > 0 else ""),
              *(Citation("file", "{}:{}".format(*site[(part.name, b)])) for b, _n in listed))
    if not c.lines:
        c.note("No import edges between parts were resolved.")
    return c.section("Dependencies between parts")


def _entry_section(code: Any, found: dict[str, list[Found]], files: dict[str, Any],
                   root: str) -> Section:
    c = Claims()
    for d in declared(root)[:15]:
        c.add(f"{d.kind} `{d.name}`" + (f" → `{d.target}`" if d.target else "")
              + f" ({d.path})", Citation("file", f"{d.path}:{d.line}"))
    mains = [s for s in code.find_symbols("main", "function", None, 200) if not s.parent]
    if mains:
        shown = mains[:12]
        c.add(f"`main` functions ({len(mains)}): " + ", ".join(f"`{s.path}`" for s in shown)
              + (f" and {len(mains) - len(shown)} more" if len(mains) > len(shown) else ""),
              *(Citation("symbol", s.qname) for s in shown))
    dunder = sorted(p for p in files if p.endswith("/__main__.py") or p == "__main__.py")
    if dunder:
        c.add("Runnable packages (`__main__.py`): " + ", ".join(
            f"`{p.rsplit('/', 1)[0] if '/' in p else '.'}`" for p in dunder[:10]),
            *(Citation("file", p) for p in dunder[:10]))
    by_label: dict[tuple[str, str], list[tuple[str, Found]]] = defaultdict(list)
    for path in sorted(found):
        for f in found[path]:
            by_label[(f.kind, f.label)].append((path, f))
    for (kind, label), hits in sorted(by_label.items(), key=lambda kv: (kv[0][0] != "cli",
                                                                        -len(kv[1]), kv[0])):
        if kind == "route":
            shown_hits = hits[:10]
            text = f"{label}s ({len(hits)}): " + ", ".join(
                f"`{f.what}` ({p})" for p, f in shown_hits)
            more = len(hits) - len(shown_hits)
        else:  # one line per file: its first definition
            first: dict[str, Found] = {}
            for p, f in hits:
                first.setdefault(p, f)
            shown_hits = list(first.items())[:10]
            text = (f"CLI ({label}) in {count(len(first), 'file')}: "
                    + ", ".join(f"`{p}`" for p, _f in shown_hits))
            more = len(first) - len(shown_hits)
        c.add(text + (f" and {more} more" if more > 0 else ""),
              *(Citation("file", f"{p}:{f.line}") for p, f in shown_hits))
    if not c.lines:
        c.note("No entry points found.")
    return c.section("Entry points")


def _exports_section(code: Any, shown: list[Part], files: dict[str, Any], root: str
                     ) -> Section:
    c = Claims()
    for part in shown:
        entry = next((f"{part.name}/{e}" for e in ENTRY_FILES if f"{part.name}/{e}" in files),
                     None) if part.folder else part.name
        if entry is None:
            continue
        text = read_text(root, entry, 1 << 20) or ""
        m = _ALL.search(text) if entry.endswith(".py") else None
        if m:
            names = re.findall(r"['\"]([\w.]+)['\"]", m.group(1))
            if names:
                line = text.count("\n", 0, m.start()) + 1
                c.add(f"`{part.name}` exports {len(names)} names (`__all__`): "
                      + ", ".join(f"`{n}`" for n in names[:12])
                      + (" …" if len(names) > 12 else ""), Citation("file", f"{entry}:{line}"))
                continue
        public = [s for s in code.file_symbols(entry) if not s.parent
                  and not s.name.startswith("_") and s.kind != "module"]
        if public:
            c.add(f"`{part.name}` defines in `{os.path.basename(entry)}`: "
                  + ", ".join(f"`{s.name}`" for s in public[:8])
                  + (f" and {len(public) - 8} more" if len(public) > 8 else ""),
                  *(Citation("symbol", s.qname) for s in public[:8]))
    if not c.lines:
        c.note("No exported names found in the parts' entry files.")
    return c.section("Exported APIs")


def build(code: Any, root: str, scan_cache: str | None,
          progress: Callable[[str], None] | None = None) -> tuple[list[Section], str, int]:
    """The page's sections from ``code`` (a :class:`hindsight.store.base.CodeStore` of an
    indexed bank) and the files under ``root``; ``scan_cache``: the JSON of the last scan.
    Returns ``(sections, the new scan cache, files read by the scan)``."""
    files = code.load_files()
    all_parts = parts(files)
    shown, rest = all_parts[:MAX_PARTS], all_parts[MAX_PARTS:]
    found, cache, read = scan(root, ((p, r.language, r.content_hash)
                                     for p, r in sorted(files.items())), scan_cache)
    if progress:
        progress(f"scanned {read} files")
    sections = [_parts_section(root, shown, rest, files),
                _deps_section(all_parts, shown, code.import_edges()),
                _entry_section(code, found, files, root),
                _exports_section(code, shown, files, root)]
    return sections, cache, read
