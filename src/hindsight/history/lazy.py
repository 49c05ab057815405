"""Symbol changes of huge commits, computed when a question needs them.

Ingest stores a commit that touches more than ``huge`` files (the first import of most
repositories, a mass reformat) with its files but without per-symbol changes: parsing
every file version of such a commit is what makes ingest slow, and such commits are left
out of co-change and churn anyway. A symbol whose only commits are huge would then have an
empty history. So ``history`` and ``why`` ask :func:`expand` for the files they are about:
the huge commits that touched those files (by any of their names) are diffed for those
files only, both versions parsed, and the symbol changes stored like any other (with a
record per file, ``huge_files_done``), so each is computed once. At most
:data:`PER_QUESTION` commits are examined per question; the answer says how many remain.
"""

from __future__ import annotations

from hindsight.codeindex.files import excluded_matcher
from hindsight.history import gitread as G
from hindsight.store.base import HistoryStore

PER_QUESTION = 20  # huge commits examined per question (~2 file parses each)


def expand(store: HistoryStore, root: str, paths: set[str], exclude: list[str] | None = None,
           workers: int | None = None, limit: int | None = None) -> tuple[int, int]:
    """Compute and store the symbol changes of the newest ``limit`` (default
    :data:`PER_QUESTION`) huge commits that
    touched ``paths`` (repository-relative, as new or old path) and were not examined for
    them yet. Returns (commits examined now, commits still waiting for these paths).
    Raises GitError, StorageError."""
    from hindsight.history.ingest import symbol_changes

    pending = store.huge_pending(sorted(p for p in paths if p))
    by_sha: dict[str, list[dict[str, str]]] = {}
    for row in pending:
        by_sha.setdefault(row["sha"], []).append(row)
    shas = list(by_sha)[:limit or PER_QUESTION]
    if not shas:
        return 0, 0
    parents = {s: by_sha[s][0]["parents"].split() for s in shas}
    wanted = {s: {p for r in by_sha[s] for p in (r["path"], r["old_path"]) if p}
              for s in shas}
    names = sorted(set().union(*wanted.values()))
    diffs = G.diff_commits(root, [(s, parents[s][0] if parents[s] else "") for s in shas],
                           names)
    sides: dict[str, list[dict[str, G.FileChange]]] = {s: [] for s in shas}
    for k in range(1, max(len(p) for p in parents.values())):
        pairs = [(s, parents[s][k]) for s in shas if len(parents[s]) > k]
        for sha, fcs in G.diff_commits(root, pairs, names).items():
            sides[sha].append({f.path: f for f in fcs})
    work = [(s, [f for f in diffs.get(s, []) if f.path in wanted[s] or
                 f.old_path in wanted[s]], sides[s]) for s in shas]
    changes = symbol_changes(root, work, excluded_matcher(root, exclude), workers, {})
    store.add_huge_changes(changes, [(s, r["path"]) for s in shas for r in by_sha[s]])
    return len(shas), len(by_sha) - len(shas)
