"""Task localization on a real history: does ``hindsight context`` find the files a past
commit changed, from its message alone, knowing only what existed before it?

A task is a non-merge commit that changes 1-5 non-test source files (a source file: one the
code index parses; a test: see :func:`is_test`); its message is the query, its changed
source files that exist at the parent are the answer (gold). Without ``--tasks``, the
newest ``-n`` such commits of HEAD; with it, a JSONL file whose lines hold ``sha``,
``parent``, ``query``, ``gold`` (list of paths).

The repository is cloned once into a temporary directory, every ref but one branch removed,
and that branch moved to each task's parent in turn (oldest task first): the bank indexes
the work tree at the parent (incrementally between tasks) and ingests the history in full
mode up to the parent only. The ingest marks commits that are not ancestors of the parent
unreachable, and every ranking reads reachable commits only; before each ranking the bench
checks that the bank's reachable commits are exactly ``git rev-list <parent>``, so nothing
later leaks. The bank otherwise has the product's defaults (no memories: the bench has no
agent sessions).

Both rankings are cut to the same candidates — the non-test source files that exist at the
parent — and scored over files: R@1, R@5, R@10 (share of gold files in the top k,
averaged over tasks) and MRR (1 / rank of the best-ranked gold file, 0 beyond rank 100).
The baseline is BM25 over file contents (``bm25s``, Lucene variant, k1 = 1.2, b = 0.75) on
the same analyzer's terms (:mod:`hindsight.memory.segment`).

    python bench/localize.py --repo PATH [--tasks FILE] [-n N] [--ablation] [--out NAME]
    python bench/localize.py --repo PATH --latency N     # context and prompt hook p50/p95

Writes bench/results/<NAME>.json (default ``localize``; with several runs, results of other
repositories in the file are kept). The last two lines of stdout are
``hindsight R@1 … MRR …`` and ``bm25 R@1 … MRR …``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import RESULTS, machine, pct, write  # noqa: E402

from hindsight.codeindex.languages import language_for  # noqa: E402

MAX_GOLD = 5
DEPTH = 100  # ranks looked at (MRR counts 0 beyond)
_TEST_DIR = re.compile(r"(^|/)(tests?|testing|__tests__|spec|specs|testdata|fixtures?)/")
_TEST_FILE = re.compile(r"(^|/)(test_[^/]*|[^/]*_test\.\w+|[^/]*_tests\.\w+|conftest\.py|"
                        r"[^/]*\.(test|spec)\.\w+|[^/]*Tests?\.\w+|[^/]*_spec\.rb)$")


def is_test(path: str) -> bool:
    """A test file by its path: under ``test``/``tests``/``__tests__``/``spec``/
    ``testdata``/``fixtures``, or named ``test_*``, ``*_test.*``, ``*.test.*``,
    ``*.spec.*``, ``*Test.*``, ``*_spec.rb``, ``conftest.py``."""
    return bool(_TEST_DIR.search(path) or _TEST_FILE.search(path))


def is_source(path: str) -> bool:
    return language_for(path) is not None and not is_test(path)


@dataclass
class Task:
    sha: str
    parent: str
    query: str
    gold: list[str]


def git(repo: Path, *args: str, check: bool = True) -> str:
    out = subprocess.run(["git", "-C", str(repo), "-c", "core.quotepath=off", *args],
                         capture_output=True, check=check)
    return out.stdout.decode("utf-8", "replace")


def select(repo: Path, n: int) -> list[Task]:
    """The newest ``n`` eligible commits of HEAD (module doc)."""
    out: list[Task] = []
    log = git(repo, "log", "--no-merges", "--no-renames", "--format=%x01%H %P%x02%B%x02",
              "--name-status", "HEAD")
    for block in log.split("\x01")[1:]:
        head, msg, files = block.split("\x02")
        sha, *parents = head.split()
        if len(parents) != 1 or not msg.strip():
            continue
        changed = []
        for line in files.strip().splitlines():
            status, _, path = line.partition("\t")
            if is_source(path):
                changed.append((status[:1], path))
        if not 1 <= len(changed) <= MAX_GOLD:
            continue
        gold = sorted(p for s, p in changed if s != "A")
        if gold:
            out.append(Task(sha, parents[0], msg.strip(), gold))
        if len(out) >= n:
            break
    return out


def read_tasks(path: Path) -> list[Task]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            d = json.loads(line)
            out.append(Task(d["sha"], d["parent"], d["query"], list(d["gold"])))
    return out


def prepare(src: str, work: Path) -> Path:
    """A clone of ``src`` (a repository or a bundle) with one branch ``bench`` and no other
    ref, so that what the bank sees reachable is what ``bench`` points at."""
    clone = work / "repo"
    subprocess.run(["git", "clone", "-q", "--no-checkout", src, str(clone)], check=True)
    git(clone, "checkout", "-q", "--detach", "HEAD")
    for ref in git(clone, "for-each-ref", "--format=%(refname)").split():
        git(clone, "update-ref", "-d", ref)
    git(clone, "config", "gc.auto", "0")
    return clone


def move_to(clone: Path, sha: str) -> None:
    git(clone, "checkout", "-q", "-f", "-B", "bench", sha)
    git(clone, "clean", "-q", "-ffdx")


def candidates(clone: Path, parent: str) -> dict[str, str]:
    """Non-test source files at ``parent``: path → blob id."""
    out = {}
    for line in git(clone, "ls-tree", "-r", "-z", parent).split("\0"):
        if not line:
            continue
        meta, _, path = line.partition("\t")
        kind, blob = meta.split()[1:3]
        if kind == "blob" and is_source(path):
            out[path] = blob
    return out


class Baseline:
    """BM25 over file contents (module doc); file terms are kept per blob across tasks."""

    def __init__(self, clone: Path) -> None:
        self.clone = clone
        self.terms: dict[str, list[str]] = {}

    def _terms(self, blobs: list[str]) -> None:
        from hindsight.codeindex.decode import normalise
        from hindsight.memory import segment

        todo = [b for b in blobs if b not in self.terms]
        if not todo:
            return
        raw = subprocess.run(["git", "-C", str(self.clone), "cat-file", "--batch"],
                             input="\n".join(todo).encode() + b"\n", capture_output=True,
                             check=True).stdout
        i = 0
        for b in todo:
            nl = raw.index(b"\n", i)
            size = int(raw[i:nl].split()[2])
            data = raw[nl + 1:nl + 1 + size]
            i = nl + 1 + size + 1
            self.terms[b] = segment.terms(normalise(data)[0].decode("utf-8", "replace"),
                                          words=False)

    def rank(self, files: dict[str, str], query: str) -> list[str]:
        import bm25s

        from hindsight.memory import segment

        paths = sorted(files)
        self._terms([files[p] for p in paths])
        r = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
        r.index([self.terms[files[p]] or ["\x00"] for p in paths], show_progress=False)
        q = [t for t in segment.query_terms(query, words=False) if t in r.vocab_dict]
        if not q:
            return []
        scores = r.get_scores(q)
        order = sorted(range(len(paths)), key=lambda i: (-scores[i], paths[i]))
        return [paths[i] for i in order if scores[i] > 0][:DEPTH]


def metrics(ranked: list[str], gold: list[str]) -> dict[str, float]:
    pos = {p: i for i, p in enumerate(ranked)}
    ranks = sorted(pos[g] + 1 for g in gold if g in pos)
    out = {f"R@{k}": sum(1 for r in ranks if r <= k) / len(gold) for k in (1, 5, 10)}
    out["MRR"] = 1.0 / ranks[0] if ranks else 0.0
    return out


def mean(rows: list[dict[str, float]]) -> dict[str, float]:
    keys = ("R@1", "R@5", "R@10", "MRR")
    return {k: round(sum(r[k] for r in rows) / len(rows), 4) if rows else 0.0 for k in keys}


def line(name: str, m: dict[str, float]) -> str:
    return (f"{name} R@1 {m['R@1']:.3f} R@5 {m['R@5']:.3f} R@10 {m['R@10']:.3f} "
            f"MRR {m['MRR']:.3f}")


def steps(src: str, tasks: list[Task] | None, n: int, work: Path
          ) -> Iterator[tuple[Task, Any, dict[str, str], Path, int]]:
    """For each task, oldest first: ``(task, bank, candidates, clone, task number)`` with
    the bank at the task's parent (module doc). Raises AssertionError on a leak."""
    from hindsight.app import open_bank

    clone = prepare(src, work)
    todo = tasks if tasks is not None else select(clone, n)
    order = {s: i for i, s in enumerate(git(clone, "rev-list", "--topo-order", "--reverse",
                                            "HEAD").split())}
    todo = sorted(todo, key=lambda t: order.get(t.parent, -1))
    os.environ["HINDSIGHT_HOME"] = str(work / "home")
    move_to(clone, todo[0].parent)
    with open_bank(str(clone), repo_root_path=str(clone)) as bank:
        for i, t in enumerate(todo):
            move_to(clone, t.parent)
            bank.code.index(workers=1)
            bank.history.ingest(all_=True, mode="full", workers=1)
            want = int(git(clone, "rev-list", "--count", t.parent))
            got = bank.stores.raw.execute("SELECT count(*) FROM commits WHERE reachable=1"
                                          ).fetchone()[0]
            assert got == want, f"{t.sha}: {got} reachable commits in the bank, {want} " \
                "ancestors of the parent"
            yield t, bank, candidates(clone, t.parent), clone, i


def evaluate(src: str, tasks: list[Task] | None, n: int, ablation: bool,
             log: Callable[[str], None]) -> dict[str, Any]:
    from hindsight.context.fusion import CHANNELS, WEIGHTS

    variants = {"hindsight": WEIGHTS}
    if ablation:
        for name in (*CHANNELS, "recent", "cochange"):
            if getattr(WEIGHTS, name):
                variants[f"without {name}"] = WEIGHTS.but(**{name: 0.0})
    rows: dict[str, list[dict[str, float]]] = {v: [] for v in [*variants, "bm25"]}
    lat: list[float] = []
    per_task = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="hs-localize-") as tmp:
        base: Baseline | None = None
        for t, bank, cands, clone, i in steps(src, tasks, n, Path(tmp)):
            if base is None:
                base = Baseline(clone)
            gold = [g for g in t.gold if g in cands]
            if not gold:
                continue
            bank.context.corpus()  # brought up to date (not timed: an index pass's work)
            bank.context._corpus = None  # timed as a new process would: from the cache file
            s = time.perf_counter()
            res = bank.context.rank(t.query, k=10)  # what `hindsight context` does
            lat.append(time.perf_counter() - s)
            got = {}
            for name, w in variants.items():
                ranked = [f.target for f in bank.context.rank(t.query, k=DEPTH, weights=w,
                                                              symbols=False).files]
                m = metrics([p for p in ranked if p in cands], gold)
                rows[name].append(m)
                got[name] = m
            mb = metrics(base.rank(cands, t.query), gold)
            rows["bm25"].append(mb)
            per_task.append({"sha": t.sha, "gold": gold, "hindsight": got["hindsight"],
                             "bm25": mb, "top": [f.target for f in res.files[:3]]})
            if (i + 1) % 10 == 0:
                log(f"  {i + 1} tasks, {time.perf_counter() - t0:.0f} s: "
                    + line("hindsight", mean(rows["hindsight"])) + " | "
                    + line("bm25", mean(rows["bm25"])))
    return {"repo": os.path.basename(src.rstrip("/")), "tasks": len(per_task),
            "seconds": round(time.perf_counter() - t0, 1),
            "metrics": {k: mean(v) for k, v in rows.items()},
            "context_ms": {"p50": round(pct([x * 1000 for x in lat], 50), 1),
                           "p95": round(pct([x * 1000 for x in lat], 95), 1)},
            "per_task": per_task}


def latency(src: str, n: int) -> dict[str, Any]:
    """``hindsight context`` in process on the bank of HEAD (history in full): the newest
    ``n`` commit messages as tasks, each ranked as a new process would (indexes read from
    their file), k = 10. Not a quality figure (those commits are in the history)."""
    from hindsight.app import open_bank

    with tempfile.TemporaryDirectory(prefix="hs-latency-") as tmp:
        clone = prepare(src, Path(tmp))
        move_to(clone, git(clone, "rev-parse", "HEAD").strip())
        queries = [q.strip() for q in git(clone, "log", "--no-merges", f"-n{n}",
                                          "--format=%B%x00").split("\0") if q.strip()]
        os.environ["HINDSIGHT_HOME"] = str(Path(tmp) / "home")
        with open_bank(str(clone), repo_root_path=str(clone)) as bank:
            bank.code.index(workers=1)
            bank.history.ingest(all_=True, mode="full", workers=1)
            commits = bank.history.store.commit_count()
            bank.context.corpus()
            lat = []
            for q in queries:
                bank.context._corpus = None
                s = time.perf_counter()
                bank.context.rank(q, k=10)
                lat.append((time.perf_counter() - s) * 1000)
            size = os.path.getsize(bank.path + ".context")
        hooks = {n: prompt_hook(clone, Path(tmp), queries[:30], n) for n in (0, 3)}
    return {"commits": commits, "queries": len(lat), "p50_ms": round(pct(lat, 50), 1),
            "p95_ms": round(pct(lat, 95), 1), "cache_bytes": size,
            "prompt_hook": hooks, "load": os.getloadavg()[0]}


def prompt_hook(clone: Path, tmp: Path, prompts: list[str], files: int) -> dict[str, Any]:
    """The prompt hook as a subprocess (process start included) on each prompt's first
    line, with setting ``promptContextFiles`` = ``files``: p50 / p95 ms and on how many
    prompts files were named."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
    env.update(HINDSIGHT_HOME=str(tmp / "home"), HINDSIGHT_EMBEDDER="hashing",
               HINDSIGHT_SEED="0", HINDSIGHT_DIAG_FILE=str(tmp / "diag.jsonl"),
               HINDSIGHT_PROMPT_CONTEXT_FILES=str(files),
               PYTHONPATH=str(Path(__file__).resolve().parents[1] / "src"))
    lat, named = [], 0
    for i, q in enumerate(prompts):
        data = json.dumps({"session_id": f"bench-{files}-{i}", "cwd": str(clone),
                           "prompt": q.splitlines()[0]})
        s = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "hindsight", "hook",
                              "user-prompt-submit"], input=data, capture_output=True,
                             text=True, env=env, cwd=str(clone))
        lat.append((time.perf_counter() - s) * 1000)
        named += "task-context" in out.stdout
    return {"p50_ms": round(pct(lat, 50), 1), "p95_ms": round(pct(lat, 95), 1),
            "prompts": len(lat), "files_named": named}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", required=True, help="a git repository or bundle")
    ap.add_argument("--tasks", type=Path, default=None, help="JSONL tasks (module doc)")
    ap.add_argument("-n", type=int, default=100, help="newest eligible commits (default 100)")
    ap.add_argument("--ablation", action="store_true",
                    help="also rank without each channel in turn")
    ap.add_argument("--out", default="localize", help="result file name (bench/results)")
    ap.add_argument("--latency", type=int, default=0, metavar="N",
                    help="only time `context` on the bank of HEAD for the newest N commit "
                    "messages, and the prompt hook on 30 of them with promptContextFiles 0 "
                    "and 3 (written to <out>_latency.json)")
    a = ap.parse_args()
    if a.latency:
        got = latency(a.repo, a.latency)
        name = f"{a.out}_latency"
        path = RESULTS / f"{name}.json"
        old = json.loads(path.read_text()) if path.exists() else {}
        runs = {**old.get("runs", {}), os.path.basename(a.repo.rstrip("/")): got}
        write(name, {"machine": machine(), "runs": runs})
        print(f"context on {got['commits']} commits: p50 {got['p50_ms']} ms, p95 "
              f"{got['p95_ms']} ms ({got['queries']} tasks, load {got['load']:.1f})")
        for n, h in got["prompt_hook"].items():
            print(f"prompt hook, promptContextFiles {n}: p50 {h['p50_ms']} ms, p95 "
                  f"{h['p95_ms']} ms, files named on {h['files_named']} of {h['prompts']}")
        return
    tasks = read_tasks(a.tasks) if a.tasks else None
    res = evaluate(a.repo, tasks, a.n, a.ablation, lambda s: print(s, file=sys.stderr))
    path = RESULTS / f"{a.out}.json"
    old = json.loads(path.read_text()) if path.exists() else {}
    runs = {r["repo"]: r for r in old.get("runs", [])}
    runs[res["repo"]] = res
    write(a.out, {"machine": machine(), "command": " ".join(sys.argv),
                  "runs": sorted(runs.values(), key=lambda r: r["repo"])})
    m = res["metrics"]
    for name in m:
        if name not in ("hindsight", "bm25"):
            print(line(name, m[name]))
    print(f"{res['tasks']} tasks in {res['seconds']} s; context p50 "
          f"{res['context_ms']['p50']} ms, p95 {res['context_ms']['p95']} ms")
    print(line("hindsight", m["hindsight"]))
    print(line("bm25", m["bm25"]))


if __name__ == "__main__":
    main()
