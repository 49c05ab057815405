"""SQLite implementation of :class:`hindsight.store.base.HistoryStore` (tables of migration
``0002_history`` in ``store/sqlite/db.py``)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from hindsight.models import SymbolChange
from hindsight.store.sqlite.db import SqliteStore, chunks, rows_as_dicts

ORDER = "c.seq DESC"
_CHANGE_COLS = ("c.sha, c.author_name, c.author_email, c.author_date, c.committer_ts, c.seq, "
                "c.subject, c.reachable, c.parents, s.path, s.local, s.kind, s.change, s.old_path, "
                "s.old_local, s.old_hash, s.new_hash, s.start_line, s.end_line")




class SqliteHistoryStore(SqliteStore):
    """Git history and edit trace tables of one bank database."""

    # --- ingest -----------------------------------------------------------------------
    def known_commits(self, shas: list[str]) -> dict[str, tuple[int, int, int, int]]:
        """{sha: (expanded, huge, boundary, reachable)} for the stored ones among ``shas``."""
        out = {}
        for ch in chunks(shas):
            q = ",".join("?" * len(ch))
            for r in self.conn.execute(f"SELECT sha, expanded, huge, boundary, reachable FROM "
                                       f"commits WHERE sha IN ({q})", ch):
                out[r[0]] = (r[1], r[2], r[3], r[4])
        return out

    def unexpanded(self) -> list[str]:
        """Reachable commits stored without symbol changes that could have them (not huge,
        not a shallow boundary), newest first."""
        return [r[0] for r in self.conn.execute(
            "SELECT sha FROM commits c WHERE expanded=0 AND huge=0 AND boundary=0 "
            f"AND reachable=1 ORDER BY {ORDER}")]

    def reset_expanded(self) -> int:
        """Mark every expanded commit as not expanded (its symbol changes are recomputed
        by the next full-mode ingest, which replaces them); returns how many."""
        with self._tx() as c:
            return c.execute("UPDATE commits SET expanded=0 WHERE expanded=1").rowcount

    def redo_candidates(self, huge: int) -> list[str]:
        """Stored commits worth reading again: shallow boundaries (the caller drops those
        still at the boundary) and huge commits within the current ``huge`` limit."""
        return [r[0] for r in self.conn.execute(
            "SELECT sha FROM commits WHERE reachable=1 AND (boundary=1 OR "
            "(huge=1 AND n_files <= ?))", (huge,))]

    def seqs(self, shas: list[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        for ch in chunks(shas):
            q = ",".join("?" * len(ch))
            out.update({r[0]: r[1] for r in self.conn.execute(
                f"SELECT sha, seq FROM commits WHERE sha IN ({q})", ch)})
        return out

    def set_seqs(self, seqs: dict[str, int]) -> None:
        with self._tx() as c:
            c.executemany("UPDATE commits SET seq=? WHERE sha=?",
                          [(q, s) for s, q in seqs.items()])

    def commit_graph(self) -> list[tuple[str, tuple[str, ...], int]]:
        """(sha, parents, committer time in Unix seconds) of every stored commit, reachable
        or not, newest first (by seq)."""
        return [(r[0], tuple(r[1].split()), r[2]) for r in self.conn.execute(
            "SELECT sha, parents, committer_ts FROM commits ORDER BY seq DESC")]

    def max_seq(self) -> int:
        return int(self.conn.execute("SELECT coalesce(max(seq), 0) FROM commits").fetchone()[0])

    def write_commits(self, commits: list[dict[str, Any]],
                      files: dict[str, list[tuple[str, str, str, int, int]]],
                      changes: dict[str, list[SymbolChange]]) -> None:
        """Store commits (replacing any stored row of the same sha with its files and
        symbol changes) in one transaction."""
        with self._tx() as c:
            shas = [m["sha"] for m in commits]
            for ch in chunks(shas):
                q = ",".join("?" * len(ch))
                for t in ("commits", "commit_files", "symbol_changes", "huge_files_done"):
                    c.execute(f"DELETE FROM {t} WHERE sha IN ({q})", ch)
            cols = ("sha", "seq", "parents", "author_name", "author_email", "author_date",
                    "author_ts", "committer_date", "committer_ts", "message", "subject",
                    "n_files", "huge", "boundary", "expanded", "fix")
            c.executemany(f"INSERT INTO commits({','.join(cols)}) VALUES "
                          f"({','.join('?' * len(cols))})",
                          [tuple(m[k] for k in cols) for m in commits])
            c.executemany("INSERT INTO commit_files VALUES(?,?,?,?,?,?)",
                          [(sha, *f) for sha, fs in files.items() for f in fs])
            c.executemany("INSERT INTO symbol_changes VALUES(?,?,?,?,?,?,?,?,?,?,?)",
                          [(sha, *sc) for sha, scs in changes.items() for sc in scs])

    def mark_reachable(self, reachable: set[str], at: str) -> tuple[int, int]:
        """Mark stored commits not in ``reachable`` as unreachable (time ``at``) and those
        in it as reachable again. Returns (newly unreachable, restored)."""
        rows = self.conn.execute("SELECT sha, reachable FROM commits").fetchall()
        gone = [s for s, r in rows if r and s not in reachable]
        back = [s for s, r in rows if not r and s in reachable]
        with self._tx() as c:
            c.executemany("UPDATE commits SET reachable=0, unreachable_at=? WHERE sha=?",
                          [(at, s) for s in gone])
            c.executemany("UPDATE commits SET reachable=1, unreachable_at='' WHERE sha=?",
                          [(s,) for s in back])
        return len(gone), len(back)

    def huge_pending(self, paths: list[str]) -> list[dict[str, Any]]:
        """Files among ``paths`` (as new or old path) changed by reachable huge commits
        whose symbol changes were never computed: ``sha, parents, path, old_path,
        status``, newest commit first."""
        out: list[dict[str, Any]] = []
        sql = ("SELECT c.sha, c.parents, c.committer_ts, c.seq, f.path, f.old_path, "
               "f.status FROM commit_files f JOIN commits c ON c.sha=f.sha "
               "WHERE c.huge=1 AND c.expanded=0 AND c.boundary=0 AND c.reachable=1 "
               "AND NOT EXISTS (SELECT 1 FROM huge_files_done d WHERE d.sha=f.sha AND "
               "d.path=f.path) AND ")
        for ch in chunks(paths, 400):
            q = ",".join("?" * len(ch))
            for cond in (f"f.path IN ({q})", f"f.old_path != '' AND f.old_path IN ({q})"):
                out += rows_as_dicts(self.conn.execute(sql + cond, ch))
        uniq = {(r["sha"], r["path"]): r for r in out}
        return sorted(uniq.values(), key=lambda r: (r["seq"], r["path"]), reverse=True)

    def add_huge_changes(self, changes: dict[str, list[SymbolChange]],
                         done: list[tuple[str, str]]) -> int:
        """Store the symbol changes computed for the files ``done`` ((sha, path)) of huge
        commits, in one transaction. A commit is skipped whole when one of its files is
        done already (another process got there first) or when it is no longer stored as
        huge and unexpanded (ingested again meanwhile). Returns the files recorded."""
        by_sha: dict[str, list[str]] = {}
        for sha, path in done:
            by_sha.setdefault(sha, []).append(path)
        with self._tx() as c:
            ok = []
            for sha, paths in by_sha.items():
                live = c.execute("SELECT 1 FROM commits WHERE sha=? AND huge=1 AND "
                                 "expanded=0", (sha,)).fetchone()
                q = ",".join("?" * len(paths))
                seen = c.execute(f"SELECT 1 FROM huge_files_done WHERE sha=? AND path IN "
                                 f"({q}) LIMIT 1", (sha, *paths)).fetchone()
                if live and not seen:
                    ok.append(sha)
            c.executemany("INSERT INTO huge_files_done VALUES(?,?)",
                          [(sha, p) for sha in ok for p in by_sha[sha]])
            c.executemany("INSERT INTO symbol_changes VALUES(?,?,?,?,?,?,?,?,?,?,?)",
                          [(sha, *sc) for sha in ok for sc in changes.get(sha, [])])
        return sum(len(by_sha[sha]) for sha in ok)

    def set_fixes(self, is_fix: Callable[[str], bool]) -> int:
        """Set every stored commit's ``fix`` flag to ``is_fix(message)``; returns how many
        changed (one transaction)."""
        rows = self.conn.execute("SELECT sha, message, fix FROM commits").fetchall()
        upd = [(int(f), sha) for sha, msg, old in rows if (f := is_fix(msg)) != bool(old)]
        with self._tx() as c:
            c.executemany("UPDATE commits SET fix=? WHERE sha=?", upd)
        return len(upd)

    # --- queries ----------------------------------------------------------------------
    def commit_count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM commits").fetchone()[0])

    def history_counts(self) -> dict[str, int]:
        r = self.conn.execute(
            "SELECT count(*), coalesce(sum(reachable=0),0), coalesce(sum(expanded),0), "
            "coalesce(sum(huge),0), coalesce(sum(boundary),0) FROM commits").fetchone()
        n_sc = self.conn.execute("SELECT count(*) FROM symbol_changes").fetchone()[0]
        n_ev = self.conn.execute("SELECT count(*) FROM trace_events").fetchone()[0]
        return {"commits": r[0], "unreachable_commits": r[1], "expanded_commits": r[2],
                "huge_commits": r[3], "boundary_commits": r[4], "symbol_changes": n_sc,
                "trace_events": n_ev}

    def commit(self, sha: str) -> dict[str, Any] | None:
        """One stored commit (``sha`` may be a unique prefix of at least 4 hex digits)."""
        cur = self.conn.execute("SELECT * FROM commits WHERE sha >= ? AND sha < ? LIMIT 2",
                                (sha, sha + "g"))
        rows = rows_as_dicts(cur)
        return rows[0] if len(rows) == 1 else None

    def symbol_changes(self, path: str, local: str, before: int | None = None,
                       include_unreachable: bool = False) -> list[dict[str, Any]]:
        """Changes of the symbol at ``path``/``local`` (as named after the change, or as
        removed), newest first, joined with their commit; only commits ordered before commit
        ``seq`` ``before`` when given (the history of an identity a later symbol moved
        from)."""
        where = "s.path=? AND s.local=?"
        args: list[Any] = [path, local]
        if before is not None:
            where += " AND c.seq < ?"
            args.append(before)
        if not include_unreachable:
            where += " AND c.reachable=1"
        cur = self.conn.execute(f"SELECT {_CHANGE_COLS} FROM symbol_changes s JOIN commits c "
                                f"ON c.sha=s.sha WHERE {where} ORDER BY {ORDER}", args)
        return rows_as_dicts(cur)

    def locals_named(self, name: str) -> list[tuple[str, str]]:
        """(path, local) pairs in the history whose local name is ``name`` or ends with
        ``.name`` (symbols that may no longer exist)."""
        rows = self.conn.execute(
            "SELECT DISTINCT path, local FROM symbol_changes WHERE local=? OR local LIKE ? "
            "ESCAPE '\\' LIMIT 50", (name, "%." + name.replace("%", "\\%").replace("_", "\\_")))
        return [(r[0], r[1]) for r in rows]

    def file_commits(self, path: str, include_unreachable: bool = False
                     ) -> list[dict[str, Any]]:
        """Commits that touched ``path`` (as new or old path), newest first."""
        cur = self.conn.execute(
            "SELECT DISTINCT c.sha, c.author_name, c.author_email, c.author_date, "
            "c.committer_ts, c.seq, c.subject, c.reachable, f.status, f.path, f.old_path, "
            "c.huge, c.parents FROM commit_files f JOIN commits c ON c.sha=f.sha "
            "WHERE (f.path=? OR f.old_path=?)" + ("" if include_unreachable else
                                                   " AND c.reachable=1") +
            f" ORDER BY {ORDER}", (path, path))
        return rows_as_dicts(cur)

    def noise_shas(self, shas: Iterable[str]) -> set[str]:
        """The huge commits and merges among ``shas`` (left out of co-change and churn:
        a merge repeats its branch's commits)."""
        out: set[str] = set()
        for ch in chunks(list(shas)):
            q = ",".join("?" * len(ch))
            out |= {r[0] for r in self.conn.execute(
                f"SELECT sha FROM commits WHERE (huge=1 OR instr(parents, ' ') > 0) "
                f"AND sha IN ({q})", ch)}
        return out

    def cochanged_symbols(self, shas: list[str]) -> list[tuple[str, str, str, int]]:
        """(path, local, kind, number of ``shas`` that changed it), most first."""
        if not shas:
            return []
        q = ",".join("?" * len(shas))
        return [tuple(r) for r in self.conn.execute(
            f"SELECT path, local, max(kind), count(DISTINCT sha) n FROM symbol_changes "
            f"WHERE sha IN ({q}) AND change != 'removed' GROUP BY path, local "
            f"ORDER BY n DESC, path, local", shas)]

    def cochanged_files(self, shas: list[str]) -> list[tuple[str, int]]:
        if not shas:
            return []
        q = ",".join("?" * len(shas))
        return [(r[0], r[1]) for r in self.conn.execute(
            f"SELECT path, count(DISTINCT sha) n FROM commit_files WHERE sha IN ({q}) "
            f"AND status != 'D' GROUP BY path ORDER BY n DESC, path", shas)]

    def change_sets(self) -> list[tuple[str, int, str, list[tuple[str, str, list[str]]]]]:
        """``(sha, committer ts, message, files)`` of every reachable commit that is neither
        a merge nor huge, oldest first; ``files`` are ``(path, old path or "", locals)`` of
        what it added, modified or renamed (deletions left out; the old path of a rename
        only), ``locals`` the symbols it added, modified or moved there."""
        where = "c.reachable=1 AND c.huge=0 AND instr(c.parents, ' ')=0"
        syms: dict[tuple[str, str], list[str]] = {}
        for sha, path, local in self.conn.execute(
                "SELECT s.sha, s.path, s.local FROM symbol_changes s JOIN commits c "
                f"ON c.sha=s.sha WHERE {where} AND s.change != 'removed' "
                "ORDER BY s.sha, s.path, s.local"):
            syms.setdefault((sha, path), []).append(local)
        files: dict[str, list[tuple[str, str, list[str]]]] = {}
        for sha, path, old in self.conn.execute(
                "SELECT f.sha, f.path, CASE WHEN f.status='R' THEN f.old_path ELSE '' END "
                f"FROM commit_files f JOIN commits c ON c.sha=f.sha WHERE {where} "
                "AND f.status != 'D' ORDER BY f.sha, f.path"):
            files.setdefault(sha, []).append((path, old, syms.get((sha, path), [])))
        return [(r[0], r[1], r[2], files.get(r[0], [])) for r in self.conn.execute(
            "SELECT sha, committer_ts, message FROM commits c WHERE "
            f"{where} ORDER BY seq")]

    def added_deleted(self) -> dict[str, tuple[list[str], list[str]]]:
        out: dict[str, tuple[list[str], list[str]]] = {}
        for sha, path, status in self.conn.execute(
                "SELECT f.sha, f.path, f.status FROM commit_files f JOIN commits c "
                "ON c.sha=f.sha WHERE c.reachable=1 AND c.huge=0 AND instr(c.parents, ' ')=0 "
                "AND f.status IN ('A', 'D') ORDER BY f.sha, f.path"):
            out.setdefault(sha, ([], []))[status == "D"].append(path)
        return out

    def renames(self) -> list[tuple[str, str, str, str]]:
        """Every rename as (old path, old local, new path, new local), oldest first: file
        renames (local ``""``) and symbol moves."""
        files = self.conn.execute(
            "SELECT f.old_path, '', f.path, '', c.committer_ts, c.seq FROM commit_files f "
            "JOIN commits c ON c.sha=f.sha WHERE f.status='R' AND c.reachable=1").fetchall()
        syms = self.conn.execute(
            "SELECT s.old_path, s.old_local, s.path, s.local, c.committer_ts, c.seq "
            "FROM symbol_changes s JOIN commits c ON c.sha=s.sha "
            "WHERE s.change='moved' AND c.reachable=1").fetchall()
        rows = sorted(files + syms, key=lambda r: r[5])
        return [(r[0], r[1], r[2], r[3]) for r in rows]

    def recent_commits(self, limit: int, fixes_only: bool = False, path: str | None = None
                       ) -> list[dict[str, Any]]:
        """Reachable commits newest first, at most ``limit`` (only fixes; only those that
        touched ``path``): ``sha, subject, author, date, ts, fix, merge, files``."""
        where, args = "c.reachable=1" + (" AND c.fix=1" if fixes_only else ""), []
        if path is not None:
            where += (" AND c.sha IN (SELECT sha FROM commit_files WHERE path=? OR "
                      "old_path=?)")
            args += [path, path]
        rows = [{"sha": r[0], "subject": r[1], "author": r[2], "date": r[3], "ts": r[4],
                 "fix": bool(r[5]), "merge": " " in r[6], "files": []}
                for r in self.conn.execute(
                    "SELECT c.sha, c.subject, c.author_name, c.committer_date, c.committer_ts, "
                    f"c.fix, c.parents FROM commits c WHERE {where} ORDER BY {ORDER} LIMIT ?",
                    [*args, int(limit)])]
        by_sha = {r["sha"]: r for r in rows}
        for ch in chunks(list(by_sha)):
            q = ",".join("?" * len(ch))
            for sha, p in self.conn.execute(f"SELECT sha, path FROM commit_files WHERE sha "
                                            f"IN ({q}) ORDER BY path", ch):
                by_sha[sha]["files"].append(p)
        return rows

    def newest_commit_ts(self, include_unreachable: bool = False) -> int | None:
        """The newest committer time (Unix seconds) of the stored commits that a ref
        reaches (all stored commits with ``include_unreachable``); None without any."""
        r = self.conn.execute("SELECT max(committer_ts) FROM commits" + (
            "" if include_unreachable else " WHERE reachable=1")).fetchone()
        return r[0]

    def file_churn(self, since_ts: int) -> list[dict[str, Any]]:
        """Per file over reachable, non-huge, non-merge commits since ``since_ts``: commits, fix
        commits, lines added+deleted."""
        cur = self.conn.execute(
            "SELECT f.path, count(DISTINCT c.sha) commits, "
            "count(DISTINCT CASE WHEN c.fix=1 THEN c.sha END) fixes, "
            "sum(max(f.added,0) + max(f.deleted,0)) lines FROM commit_files f "
            "JOIN commits c ON c.sha=f.sha WHERE c.reachable=1 AND c.huge=0 "
            "AND instr(c.parents, ' ') = 0 AND c.committer_ts >= ? GROUP BY f.path",
            (since_ts,))
        return rows_as_dicts(cur)

    def huge_count(self, since_ts: int) -> int:
        """Reachable, non-merge huge commits since ``since_ts`` (Unix seconds): those
        :meth:`file_churn` leaves out."""
        return int(self.conn.execute(
            "SELECT count(*) FROM commits WHERE reachable=1 AND huge=1 "
            "AND instr(parents, ' ') = 0 AND committer_ts >= ?", (since_ts,)).fetchone()[0])

    def symbol_churn(self, since_ts: int) -> list[dict[str, Any]]:
        """Per symbol over the commits :meth:`file_churn` counts: kind, commits, fix
        commits, and those commits' ids (``shas``, ``fix_shas``: comma-separated)."""
        cur = self.conn.execute(
            "SELECT s.path, s.local, max(s.kind) kind, count(DISTINCT c.sha) commits, "
            "count(DISTINCT CASE WHEN c.fix=1 THEN c.sha END) fixes, "
            "group_concat(DISTINCT c.sha) shas, "
            "group_concat(DISTINCT CASE WHEN c.fix=1 THEN c.sha END) fix_shas "
            "FROM symbol_changes s "
            "JOIN commits c ON c.sha=s.sha WHERE c.reachable=1 AND c.huge=0 "
            "AND instr(c.parents, ' ') = 0 AND c.committer_ts >= ? "
            "AND s.change IN ('modified','added','moved') "
            # a copy of a name renumbered (`f#2` -> `f#3`) by one added above is no change
            "AND NOT (s.change='moved' AND s.old_path=s.path AND s.old_hash=s.new_hash "
            "AND (instr(s.local, '#') > 0 OR instr(s.old_local, '#') > 0)) "
            "GROUP BY s.path, s.local", (since_ts,))
        return rows_as_dicts(cur)

    # --- edit trace -------------------------------------------------------------------
    def add_trace_event(self, event: dict[str, Any], symbols: list[SymbolChange]) -> int:
        """Store one trace event and its symbol changes in one transaction; returns its id."""
        with self._tx() as c:
            cur = c.execute(
                "INSERT INTO trace_events(ts, ts_unix, path, old_path, action, old_hash, "
                "new_hash, ranges, actor, session, branch, head) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
                (event["ts"], event["ts_unix"], event["path"], event["old_path"],
                 event["action"], event["old_hash"], event["new_hash"],
                 json.dumps(event["ranges"]), event["actor"], event["session"],
                 event["branch"], event["head"]))
            eid = int(cur.lastrowid or 0)
            c.executemany("INSERT INTO trace_symbols VALUES(?,?,?,?,?,?,?,?,?)",
                          [(eid, s.path, s.local, s.kind, s.change, s.old_hash, s.new_hash,
                            s.start_line, s.end_line) for s in symbols])
        return eid

    def trace_events(self, path: str | None = None, local: str | None = None,
                     since_unix: float | None = None, limit: int = 1000
                     ) -> list[dict[str, Any]]:
        """Events newest first with a ``symbols`` list each; filters: file ``path`` (as new
        or old path), symbol ``local`` name (exact local qualified name or its last part),
        ``since_unix`` (seconds)."""
        where: list[str] = ["1=1"]
        args: list[Any] = []
        if path:
            where.append("(e.path=? OR e.old_path=?)")
            args += [path, path]
        if since_unix is not None:
            where.append("e.ts_unix >= ?")
            args.append(since_unix)
        if local:
            where.append("e.id IN (SELECT event_id FROM trace_symbols WHERE local=? OR "
                         "local LIKE ? ESCAPE '\\')")
            args += [local, "%." + local.replace("%", "\\%").replace("_", "\\_")]
        cur = self.conn.execute(f"SELECT * FROM trace_events e WHERE {' AND '.join(where)} "
                                f"ORDER BY e.ts_unix DESC, e.id DESC LIMIT ?", [*args, limit])
        events = rows_as_dicts(cur)
        ids = [e["id"] for e in events]
        syms: dict[int, list[dict[str, Any]]] = {}
        for ch in chunks(ids):
            q = ",".join("?" * len(ch))
            for s in rows_as_dicts(self.conn.execute(
                    f"SELECT * FROM trace_symbols WHERE event_id IN ({q}) "
                    f"ORDER BY event_id, rowid", ch)):
                syms.setdefault(s.pop("event_id"), []).append(s)
        for e in events:
            e["ranges"] = json.loads(e["ranges"])
            e["symbols"] = syms.get(e["id"], [])
        return events
