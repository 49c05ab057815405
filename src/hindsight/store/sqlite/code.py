"""SQLite implementation of :class:`hindsight.store.base.CodeStore`."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from typing import Any

from hindsight.models import ParseResult, Symbol, base_local, simple_name, split_qname
from hindsight.redact import clean
from hindsight.store.base import EdgeMap, FileRow, StoredEdge
from hindsight.store.sqlite.bulk import SqliteBulkLoad
from hindsight.store.sqlite.db import SqliteStore, chunks

_SYM_COLS = ("f.path, s.name, s.local, s.kind, s.parent, s.start_line, s.start_col, "
             "s.end_line, s.end_col, s.signature, s.doc, s.language, s.ast_hash")



class SqliteCodeStore(SqliteStore):
    """Code index tables of one bank database (see ``store/sqlite/db.py`` for the schema)."""

    # --- indexing ---------------------------------------------------------------------
    def load_files(self) -> dict[str, FileRow]:
        rows = self.conn.execute(
            "SELECT id, path, language, size, mtime_ns, content_hash, lines, module, package, "
            "error FROM files")
        return {r[1]: FileRow(*r) for r in rows}

    def _insert_file(self, c: sqlite3.Connection, r: ParseResult, module: str) -> int:
        d = r.path.rpartition("/")[0]
        cur = c.execute(
            "INSERT INTO files(path, language, size, mtime_ns, content_hash, lines, module, dir,"
            " package, error) VALUES(?,?,?,?,?,?,?,?,?,?)",
            (r.path, r.language, r.size, r.mtime_ns, r.content_hash, r.lines, module, d,
             r.package, r.error))
        return int(cur.lastrowid or 0)

    def _insert_contents(self, c: sqlite3.Connection, fid: int, r: ParseResult) -> None:
        c.executemany(
            "INSERT INTO symbols(file_id, name, local, fold, kind, parent, start_line, "
            "start_col, end_line, end_col, signature, doc, language, ast_hash) "
            "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [(fid, s.name, s.local, s.name.casefold(), s.kind, s.parent, s.start_line,
              s.start_col, s.end_line, s.end_col, clean(s.signature), clean(s.doc), s.language,
              s.ast_hash)
             for s in r.symbols])
        if r.hindsight_notes:
            c.executemany("INSERT INTO notes VALUES(?,?,?,?)",
                          [(fid, src, line, clean(text))
                           for src, line, text in r.hindsight_notes])
        # only the keys a file provides are rows (looked up by key); the rest of its facts
        # are in its FileSyms dump
        provides = [(fid, *f) for f in r.facts if f[1] == "@provides"]
        if provides:
            c.executemany("INSERT INTO facts VALUES(?,?,?,?,?)", provides)

    @staticmethod
    def _insert_edges(c: sqlite3.Connection, fid: int, rows: tuple[list[Any], set[str]]) -> None:
        edges, deps = rows
        c.executemany("INSERT INTO edges VALUES(?,?,?,?,?,?,?,?)",
                      [(fid, *e) for e in edges])
        c.executemany("INSERT INTO deps VALUES(?,?)", [(fid, k) for k in sorted(deps)])

    def bulk_load(self, parts: int) -> SqliteBulkLoad:
        """Start a full rebuild (see :class:`hindsight.store.sqlite.bulk.SqliteBulkLoad`);
        ``parts`` part files are made for forked edge writers."""
        busy = int(self.conn.execute("PRAGMA busy_timeout").fetchone()[0])
        return SqliteBulkLoad(self.conn, parts, busy)

    def write_incremental(self, changed: list[ParseResult], modules: dict[str, str],
                          deleted: list[str], edges: EdgeMap, id_of: dict[str, int],
                          modules_update: dict[str, str], sel: Any,
                          dumps: dict[str, bytes] | None = None) -> None:
        with self._tx() as c:
            old = {r[0]: r[1] for r in c.execute("SELECT path, id FROM files")}
            gone = [old[p] for p in deleted if p in old]
            gone += [old[r.path] for r in changed if r.path in old]
            rerun = [id_of[p] for p in edges if p in id_of and p not in modules]
            before = self._file_counts(c, gone + rerun)
            for ids in chunks(gone):
                q = ",".join("?" * len(ids))
                for t in ("symbols", "edges", "deps", "notes", "facts", "filesyms"):
                    c.execute(f"DELETE FROM {t} WHERE file_id IN ({q})", ids)
                c.execute(f"DELETE FROM files WHERE id IN ({q})", ids)
            for p, mod in modules_update.items():
                c.execute("UPDATE files SET module=? WHERE path=?", (mod, p))
            new_ids: list[int] = []
            for r in changed:
                fid = self._insert_file(c, r, modules[r.path])
                new_ids.append(fid)
                self._insert_contents(c, fid, r)
                if dumps and r.path in dumps:
                    c.execute("INSERT INTO filesyms VALUES(?,?)", (fid, dumps[r.path]))
                self._insert_edges(c, fid, edges[r.path])
            for p, rows in edges.items():
                if p in id_of and p not in modules:
                    fid = id_of[p]
                    c.execute("DELETE FROM edges WHERE file_id=?", (fid,))
                    c.execute("DELETE FROM deps WHERE file_id=?", (fid,))
                    self._insert_edges(c, fid, rows)
            after = self._file_counts(c, new_ids + rerun)
            totals = self._get_counts(c)
            self._set_counts(c, {k: totals[k] + after[k] - before[k] for k in after})
            self._write_skips(c, sel)

    _COUNT_KEYS = ("symbols", "edges", "calls", "unresolved_calls")

    @staticmethod
    def _file_counts(c: sqlite3.Connection, ids: list[int]) -> dict[str, int]:
        out = dict.fromkeys(SqliteCodeStore._COUNT_KEYS, 0)
        for ch in chunks(sorted(set(ids))):
            q = ",".join("?" * len(ch))
            out["symbols"] += c.execute(f"SELECT count(*) FROM symbols WHERE file_id IN ({q})",
                                        ch).fetchone()[0]
            e, calls, unres = c.execute(
                f"SELECT count(*), coalesce(sum(kind='call'), 0), "
                f"coalesce(sum(kind='call' AND dst=''), 0) FROM edges WHERE file_id IN ({q})",
                ch).fetchone()
            out["edges"] += e
            out["calls"] += calls
            out["unresolved_calls"] += unres
        return out

    def _get_counts(self, c: sqlite3.Connection) -> dict[str, int]:
        rows = dict(c.execute("SELECT key, value FROM meta WHERE key LIKE 'count_%'"))
        if all(f"count_{k}" in rows for k in self._COUNT_KEYS):
            return {k: int(rows[f"count_{k}"]) for k in self._COUNT_KEYS}
        one = lambda q: int(c.execute(q).fetchone()[0])  # noqa: E731
        return {"symbols": one("SELECT count(*) FROM symbols"),
                "edges": one("SELECT count(*) FROM edges"),
                "calls": one("SELECT count(*) FROM edges WHERE kind='call'"),
                "unresolved_calls": one("SELECT count(*) FROM edges WHERE kind='call' AND dst=''")}

    @staticmethod
    def _set_counts(c: sqlite3.Connection, totals: dict[str, int]) -> None:
        c.executemany("INSERT OR REPLACE INTO meta VALUES(?, ?)",
                      [(f"count_{k}", str(v)) for k, v in totals.items()])

    def touch_mtimes(self, items: list[tuple[str, int]]) -> None:
        with self._tx() as c:
            c.executemany("UPDATE files SET mtime_ns=? WHERE path=?", [(m, p) for p, m in items])

    def _write_skips(self, c: sqlite3.Connection, sel: Any) -> None:
        c.execute("DELETE FROM skipped")
        c.executemany("INSERT OR REPLACE INTO skipped VALUES(?,?)", sorted(sel.skipped.items()))
        c.execute("DELETE FROM skip_counts")
        c.executemany("INSERT INTO skip_counts VALUES(?,?)", sorted(sel.counts.items()))

    def write_skips(self, sel: Any) -> None:
        with self._tx() as c:
            self._write_skips(c, sel)

    def dependents(self, keys: Iterable[str]) -> set[str]:
        out: set[str] = set()
        for ks in chunks(sorted(set(keys))):
            q = ",".join("?" * len(ks))
            out.update(r[0] for r in self.conn.execute(
                f"SELECT DISTINCT f.path FROM deps d JOIN files f ON f.id=d.file_id "
                f"WHERE d.key IN ({q})", ks))
        return out

    def load_file_raw(self, file_id: int, path: str) -> tuple[list[Any], list[Any], list[Any]]:
        """(symbols (local, name, kind, parent, signature, start line), imports (caller,
        module, name, alias, line), inherits (caller, name, receiver, line)) of one stored
        file."""
        c = self.conn
        syms = c.execute("SELECT local, name, kind, parent, signature, start_line FROM symbols "
                         "WHERE file_id=? ORDER BY id", (file_id,)).fetchall()
        imps = [(src, recv, name, alias, line) for src, name, recv, alias, line in c.execute(
            "SELECT src, name, receiver, alias, line FROM edges WHERE file_id=? AND "
            "kind='import' ORDER BY rowid", (file_id,))]
        inh = list(c.execute(
            "SELECT src, name, receiver, line FROM edges WHERE file_id=? AND kind='inherits' "
            "ORDER BY rowid", (file_id,)))
        return syms, imps, inh

    def provided(self, file_ids: Iterable[int]) -> dict[int, dict[str, int]]:
        out: dict[int, dict[str, int]] = {}
        for ids in chunks(sorted(set(file_ids))):
            for fid, key, digest in self.conn.execute(
                    f"SELECT file_id, value, line FROM facts WHERE target='@provides' AND "
                    f"file_id IN ({','.join('?' * len(ids))})", ids):
                out.setdefault(fid, {})[key] = digest
        return out

    def providers(self, key: str) -> list[str]:
        return sorted(r[0] for r in self.conn.execute(
            "SELECT DISTINCT f.path FROM facts x JOIN files f ON f.id=x.file_id "
            "WHERE x.target='@provides' AND x.value=?", (key,)))

    def load_raw_refs(self, file_id: int, path: str) -> list[tuple[str, str, str, str, int]]:
        return _one_per_site(self.conn.execute(
            "SELECT src, kind, name, receiver, line, dst FROM edges WHERE file_id=? AND "
            "kind!='import' ORDER BY rowid", (file_id,)))

    def load_dump(self, file_id: int) -> bytes | None:
        row = self.conn.execute("SELECT data FROM filesyms WHERE file_id=?",
                                (file_id,)).fetchone()
        return None if row is None else bytes(row[0])

    def counts(self) -> dict[str, int]:
        """files, symbols, edges, calls, unresolved_calls, parse_errors, lines. Edge and
        symbol totals are kept in ``meta`` by the writers (a scan of 350k edges costs
        ~100 ms); a bank without them is counted by scanning."""
        c = self.conn
        files, errors, lines = c.execute(
            "SELECT count(*), coalesce(sum(error!=''), 0), coalesce(sum(lines), 0) FROM files"
        ).fetchone()
        return {"files": files, **self._get_counts(c), "parse_errors": errors, "lines": lines}

    def import_edges(self) -> list[tuple[str, int, str]]:
        return [(p, line, dst.split("::", 1)[0]) for p, line, dst in self.conn.execute(
            "SELECT f.path, e.line, e.dst FROM edges e JOIN files f ON f.id=e.file_id "
            "WHERE e.kind='import' AND e.dst != '' ORDER BY f.path, e.line, e.dst")]

    # --- queries ---------------------------------------------------------------------
    def _syms(self, where: str, args: Iterable[Any], limit: int = 1000) -> list[Symbol]:
        sql = (f"SELECT {_SYM_COLS} FROM symbols s JOIN files f ON f.id=s.file_id WHERE {where} "
               f"ORDER BY f.path, s.start_line LIMIT {int(limit)}")
        return [Symbol(*r) for r in self.conn.execute(sql, tuple(args))]

    def find_symbols(self, name: str, kind: str | None, file: str | None, limit: int
                     ) -> list[Symbol]:
        """Exact matches on name, local qualified name (``Class.method``) or qualified name
        (``path::Class.method``). A local name that matches none exactly finds the
        definitions it is the base of: overloads ``Class.method(…)`` and accessors
        ``Class.method:setter`` (see :func:`hindsight.models.base_local`)."""
        extra, args = self._filters(kind, file)
        sp = split_qname(name)
        if sp is None and "." not in name:
            return self._syms("s.fold=? AND s.name=?" + extra, [name.casefold(), name, *args],
                              limit)
        where, pre = ("f.path=? AND ", [sp[0]]) if sp else ("", [])
        local = sp[1] if sp else name
        hits = self._syms(where + "s.local=?" + extra, [*pre, local, *args], limit)
        if hits:
            return hits
        # `C.m(` … `C.m)` and `C.m:` … `C.m;`: every local starting with `C.m(` or `C.m:`
        more = self._syms(where + "((s.local>? AND s.local<?) OR (s.local>? AND s.local<?))"
                          + extra, [*pre, local + "(", local + ")", local + ":", local + ";",
                                    *args], limit * 4)
        return [h for h in more if base_local(h.local) == local][:limit]

    def find_in_module(self, module: str, local: str, file: str | None, limit: int
                       ) -> list[Symbol]:
        extra, args = self._filters(None, file)
        hits = self._syms("(f.module=? OR f.package=?) AND s.local=?" + extra,
                          [module, module, local, *args], limit)
        if hits:
            return hits
        # overloads `C.m(…)` and accessors `C.m:setter` of the module, as find_symbols
        more = self._syms("(f.module=? OR f.package=?) AND ((s.local>? AND s.local<?) OR "
                          "(s.local>? AND s.local<?))" + extra,
                          [module, module, local + "(", local + ")", local + ":", local + ";",
                           *args], limit * 4)
        hits = [h for h in more if base_local(h.local) == local][:limit]
        if hits:
            return hits
        head, dot, rest = local.partition(".")
        dsts = [r[0] for r in self.conn.execute(
            "SELECT DISTINCT e.dst FROM edges e JOIN files f ON f.id=e.file_id WHERE "
            "(f.module=? OR f.package=?) AND e.kind='import' AND e.alias=? AND e.dst!='' "
            "ORDER BY e.dst", (module, module, head))]
        out: list[Symbol] = []
        for dst in dsts[:limit]:
            path, _, target = dst.partition("::")
            want = f"{target}.{rest}" if target and dot else target or rest
            if want:
                out += self._syms("f.path=? AND s.local=?" + extra, [path, want, *args], limit)
        return out[:limit]

    def module_known(self, module: str) -> bool:
        esc = module.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return self.conn.execute(
            "SELECT 1 FROM files WHERE module=? OR package=? OR module LIKE ? ESCAPE '\\' "
            "OR package LIKE ? ESCAPE '\\' LIMIT 1",
            (module, module, esc + ".%", esc + ".%")).fetchone() is not None

    def count_unresolved(self, name: str, receiver: str | None = None) -> int:
        if receiver is None:
            q, args = "name=? AND dst='' AND kind='call'", [name]
        else:
            q, args = "name=? AND receiver=? AND dst='' AND kind='call'", [name, receiver]
        return int(self.conn.execute(f"SELECT count(*) FROM edges WHERE {q}", args
                                     ).fetchone()[0])

    def find_prefix(self, prefix: str, kind: str | None, file: str | None, limit: int
                    ) -> list[Symbol]:
        """Case-insensitive (Unicode case folding) prefix matches on the name."""
        extra, args = self._filters(kind, file)
        lo = prefix.casefold()
        if not lo or ord(lo[-1]) >= 0x10FFFF:
            return self._syms("s.fold >= ?" + extra, [lo, *args], limit)
        hi = lo[:-1] + chr(ord(lo[-1]) + 1)
        return self._syms("s.fold >= ? AND s.fold < ?" + extra, [lo, hi, *args], limit)

    def find_substring(self, text: str, kind: str | None, file: str | None, limit: int
                       ) -> list[Symbol]:
        """Case-insensitive substring matches on the name (a scan)."""
        extra, args = self._filters(kind, file)
        return self._syms("instr(s.fold, ?) > 0" + extra, [text.casefold(), *args], limit)

    @staticmethod
    def _filters(kind: str | None, file: str | None) -> tuple[str, list[Any]]:
        extra, args = "", []
        if kind:
            extra += " AND s.kind=?"
            args.append(kind)
        if file:
            extra += " AND (f.path=? OR f.path LIKE ? ESCAPE '\\')"
            esc = file.rstrip("/").replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            args += [file, esc + "/%"]
        return extra, args

    def _by_path(self, qnames: Iterable[str]) -> dict[str, list[str]]:
        groups: dict[str, list[str]] = {}
        for q in sorted(set(qnames)):
            path, _, local = q.partition("::")
            groups.setdefault(path, []).append(local)
        return groups

    def symbols_by_qname(self, qnames: Iterable[str]) -> list[Symbol]:
        out: list[Symbol] = []
        for path, locals_ in self._by_path(qnames).items():
            for ch in chunks(locals_):
                out += self._syms(f"f.path=? AND s.local IN ({','.join('?' * len(ch))})",
                                  [path, *ch], 100000)
        return out

    _EDGE_SQL = ("SELECT f.path || '::' || e.src, e.kind, e.name, e.dst, f.path, e.line "
                 "FROM edges e JOIN files f ON f.id=e.file_id WHERE ")

    def edges_to(self, qnames: list[str], names: list[str]) -> list[StoredEdge]:
        """Call/inherits edges whose ``dst`` is one of ``qnames``, plus unresolved call edges
        whose bare name is one of ``names``."""
        out: list[StoredEdge] = []
        for ch in chunks(qnames):
            out += [StoredEdge(*r) for r in self.conn.execute(
                self._EDGE_SQL + f"e.dst IN ({','.join('?' * len(ch))}) AND e.dst != '' "
                "AND e.kind IN ('call', 'inherits')", ch)]
        for ch in chunks(names):
            out += [StoredEdge(*r) for r in self.conn.execute(
                self._EDGE_SQL + f"e.name IN ({','.join('?' * len(ch))}) AND e.dst='' "
                "AND e.kind='call'", ch)]
        return out

    def imports_of(self, qnames: list[str]) -> list[StoredEdge]:
        """Import edges whose ``dst`` is one of ``qnames``, by path and line."""
        out: list[StoredEdge] = []
        for ch in chunks(qnames):
            out += [StoredEdge(*r) for r in self.conn.execute(
                self._EDGE_SQL + f"e.dst IN ({','.join('?' * len(ch))}) AND e.dst != '' "
                "AND e.kind='import' ORDER BY f.path, e.line", ch)]
        return out

    def edges_from(self, qnames: list[str]) -> list[StoredEdge]:
        """Call/inherits edges whose caller is one of ``qnames``, in line order per caller."""
        out: list[StoredEdge] = []
        for path, locals_ in self._by_path(qnames).items():
            for ch in chunks(locals_):
                out += [StoredEdge(*r) for r in self.conn.execute(
                    self._EDGE_SQL + "e.file_id=(SELECT id FROM files WHERE path=?) AND "
                    f"e.src IN ({','.join('?' * len(ch))}) AND e.kind IN ('call', 'inherits') "
                    "ORDER BY e.line, e.rowid", [path, *ch])]
        return out

    def notes(self) -> list[tuple[str, str, int, str]]:
        """Every ``@hindsight:`` comment: (path, enclosing local name or "", line, text)."""
        return [(r[0], r[1], r[2], r[3]) for r in self.conn.execute(
            "SELECT f.path, n.src, n.line, n.text FROM notes n JOIN files f ON f.id=n.file_id "
            "ORDER BY f.path, n.line")]

    def symbols_with_hash(self, ast_hash: str, local: str) -> list[Symbol]:
        """Symbols whose ast hash is ``ast_hash`` and whose local name ends like ``local``'s
        last part (used to follow a moved or renamed anchor)."""
        last = simple_name(local)
        return self._syms("s.ast_hash=? AND (s.name=? OR s.local=?)", [ast_hash, last, local])

    def files_by_suffix(self, suffix: str, limit: int, stem: bool = False
                        ) -> list[tuple[str, str]]:
        """``(path, content hash)`` of files whose path (``stem``: without its extension
        and a last ``/__init__``, ``/index`` or ``/mod``) is ``suffix`` or ends with ``/`` +
        ``suffix``; case-sensitive, the exact path first, then by path, at most
        ``limit``."""
        if not suffix:
            return []
        esc = suffix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        out = []
        for path, h in self.conn.execute(  # LIKE narrows (ASCII case-insensitive); then exact
                "SELECT path, content_hash FROM files WHERE path LIKE ? ESCAPE '\\' "
                "ORDER BY path != ?, path", (f"%{esc}%" if stem else f"%{esc}", suffix)):
            key = _stem(path) if stem else path
            if key == suffix or key.endswith("/" + suffix):
                out.append((path, h))
                if len(out) >= limit:
                    break
        return out

    def file_symbols(self, path: str) -> list[Symbol]:
        return self._syms("f.path=?", [path], 100000)

    def repeated_symbols(self) -> list[tuple[str, str, str, int, int]]:
        return [tuple(r) for r in self.conn.execute(
            "SELECT f.path, s.local, s.ast_hash, s.start_line, s.end_line FROM symbols s "
            "JOIN files f ON f.id=s.file_id JOIN (SELECT file_id, local FROM symbols "
            "GROUP BY file_id, local HAVING count(*) > 1) r ON r.file_id=s.file_id AND "
            "r.local=s.local ORDER BY f.path, s.start_line")]

    def skipped(self) -> dict[str, int]:
        return dict(self.conn.execute("SELECT reason, n FROM skip_counts ORDER BY reason"))

    def problem_files(self) -> list[tuple[str, str]]:
        """``(path, reason)`` for files skipped for a listed reason (binary, minified,
        symlink…, not "unsupported"/"excluded") and for files with a parse error."""
        rows = list(self.conn.execute("SELECT path, reason FROM skipped"))
        rows += list(self.conn.execute("SELECT path, error FROM files WHERE error != ''"))
        return sorted(rows)

    def snapshot(self) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        """All symbols and edges without row ids, sorted (for equality tests)."""
        syms = sorted(self.conn.execute(
            "SELECT f.path, s.name, s.local, f.path || '::' || s.local, s.kind, s.parent, "
            "s.start_line, s.start_col, s.end_line, s.end_col, s.signature, s.doc, s.language, "
            "s.ast_hash FROM symbols s JOIN files f ON f.id=s.file_id"))
        edges = sorted(self.conn.execute(
            "SELECT f.path, f.path || '::' || e.src, e.kind, e.name, e.receiver, e.alias, e.line, e.dst "
            "FROM edges e JOIN files f ON f.id=e.file_id"))
        return syms, edges


def _stem(path: str) -> str:
    """``path`` without the extension of its last part and a last ``/__init__``,
    ``/index`` or ``/mod`` (the file that stands for its directory's module)."""
    d, _, base = path.rpartition("/")
    base = base.rsplit(".", 1)[0] if "." in base.lstrip(".") else base
    if d and base in ("__init__", "index", "mod"):
        return d
    return f"{d}/{base}" if d else base


def _one_per_site(rows: Iterable[tuple[str, str, str, str, int, str]]
                  ) -> list[tuple[str, str, str, str, int]]:
    """References ``(src, kind, name, receiver, line)`` from stored edge rows, once per
    call site: a call with several targets is stored as one row per target (the same
    reference each time), so the sites of one reference are as many as the rows of its
    most repeated target (``f(f(x))`` is two sites of one target). In order of the
    first row of each reference."""
    seen: dict[tuple[str, str, str, str, int], dict[str, int]] = {}
    for src, kind, name, receiver, line, dst in rows:
        key = (src, kind, name, receiver, line)
        by_dst = seen.setdefault(key, {})
        by_dst[dst] = by_dst.get(dst, 0) + 1
    out: list[tuple[str, str, str, str, int]] = []
    for key, by_dst in seen.items():
        out += [key] * max(by_dst.values())
    return out
