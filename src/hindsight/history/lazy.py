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
from hindsight.errors import StorageError
from hindsight.history import gitread as G
from hindsight.store.base import HistoryStore

PER_QUESTION = 20  # huge commits examined per question (~2 file parses each)


def _change(row: dict[str, str], parents: list[str]) -> G.FileChange:
    """A stored file change of a one-parent commit as :class:`FileChange`, its two sides
    named ``<commit>:<path>`` (git's own syntax for a file in a commit) instead of blob
    ids: ``git cat-file --batch`` reads them alike. A side that is not a blob (a
    submodule's commit) reads as missing and is not parsed."""
    sha, status, path = row["sha"], row["status"], row["path"]
    old = row["old_path"] or path
    new_side = G.EMPTY_BLOB if status == "D" else f"{sha}:{path}"
    old_side = G.EMPTY_BLOB if status == "A" or not parents else f"{parents[0]}:{old}"
    return G.FileChange(status, path, row["old_path"], 0, 0, old_side, new_side,
                        "100644", "100644")


def expand(store: HistoryStore, root: str, paths: set[str], exclude: list[str] | None = None,
           workers: int | None = None, limit: int | None = None) -> tuple[int, int, str]:
    """Compute and store the symbol changes of the newest ``limit`` (default
    :data:`PER_QUESTION`) huge commits that
    touched ``paths`` (repository-relative, as new or old path) and were not examined for
    them yet. Returns (commits examined now, commits still waiting for these paths, why
    they wait: ``""`` or the reason nothing could be examined — the bank cannot be
    written, or git cannot read the commits). Raises GitError (git itself fails)."""
    from hindsight.history.ingest import symbol_changes

    pending = store.huge_pending(sorted(p for p in paths if p))
    by_sha: dict[str, list[dict[str, str]]] = {}
    for row in pending:
        by_sha.setdefault(row["sha"], []).append(row)
    shas = list(by_sha)[:limit or PER_QUESTION]
    if not shas:
        return 0, 0, ""
    parents = {s: by_sha[s][0]["parents"].split() for s in shas}
    # one parent: the stored file list says what changed, and git reads each side as
    # "<commit>:<path>" (no diff-tree); merges (and names with a newline, which the
    # line-based batch cannot carry) are diffed against every parent
    plain = [s for s in shas if len(parents[s]) <= 1 and
             not any("\n" in r["path"] + r["old_path"] for r in by_sha[s])]
    work: list[tuple[str, list[G.FileChange], list[dict[str, G.FileChange]]]] = [
        (s, [_change(r, parents[s]) for r in by_sha[s]], []) for s in plain]
    rest = [s for s in shas if s not in plain]
    bad: dict[str, str] = {}
    if rest:
        wanted = {s: {p for r in by_sha[s] for p in (r["path"], r["old_path"]) if p}
                  for s in rest}
        names = sorted(set().union(*wanted.values()))
        diffs, bad = G.diff_commits_tolerant(
            root, [(s, parents[s][0] if parents[s] else "") for s in rest], names)
        sides: dict[str, list[dict[str, G.FileChange]]] = {s: [] for s in rest}
        for k in range(1, max(len(parents[s]) for s in rest)):
            pairs = [(s, parents[s][k]) for s in rest if len(parents[s]) > k]
            got, failed = G.diff_commits_tolerant(root, pairs, names)
            bad |= failed
            for sha, fcs in got.items():
                sides[sha].append({f.path: f for f in fcs})
        work += [(s, [f for f in diffs.get(s, []) if f.path in wanted[s] or
                      f.old_path in wanted[s]], sides[s]) for s in rest if s not in bad]
    changes = symbol_changes(root, work, excluded_matcher(root, exclude), workers, {})
    done = [s for s in shas if s not in bad]  # what git cannot read waits (never "done")
    try:
        store.add_huge_changes(changes, [(s, r["path"]) for s in done for r in by_sha[s]])
    except StorageError as e:  # a bank that cannot be written (read-only, busy): the
        # question is still answered, and says what it could not examine and why
        return 0, len(by_sha), ("the bank could not be written ("
                                 f"{str(e).rsplit(': ', 1)[-1]})")
    why = ""
    if bad:
        sha, reason = next(iter(bad.items()))
        why = f"git could not diff {len(bad)} of them ({sha[:10]}: {reason})"
    return len(done), len(by_sha) - len(done), why
