"""Precision and recall of implicit anchors (``src/hindsight/memory/implicit.py``).

1. **Labelled fixture** (``tests/fixtures/anchors``): a small shop repository (Python,
   TypeScript, Go) and 66 coding memories whose expected anchors were labelled by hand before
   the rules were written (distractors: common words, names defined twice, names that do
   not exist, "e.g.", "3.11", versions, URLs, absolute paths). Half are retained before the
   index exists (anchored by the first index pass), half after (anchored at retain).
   precision = correct implicit anchors / implicit anchors made; recall = correct /
   labelled. Variants show why two rules exist: without the stop list, plain words outside
   backticks too, both.
2. **Commit messages of real projects** (the git bundles of ``../shared/data/repos``, skipped
   when absent): the last 300 non-merge commit messages of each, resolved against the index
   of its HEAD. Every anchor made was judged by hand once (``bench/anchors_verdicts.json``:
   correct or not, and why); click was used to decide the rule for backticked plain words
   (dev), cobra, fd and express were judged after the rules were final (held-out). Anchors
   missing from the verdict file are counted as unjudged (a rule change shows there).
   Recall is not measured there (nothing labels what was missed). On click the variant
   "plain words outside backticks too" was judged as well.
3. **Cost**: resolution time per text, and single retain p50/p95 with the code index present
   (anchors resolved at retain) and absent. The machine is shared: times are noisy.

    python bench/anchors.py [--repos DIR] [--commits 300]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine, summary_ms, write  # noqa: E402

from hindsight.app import open_bank  # noqa: E402
from hindsight.memory.implicit import resolve  # noqa: E402

HERE = Path(__file__).resolve().parent
FIXTURE = HERE.parent / "tests" / "fixtures" / "anchors"
REPOS = HERE.parents[1] / "shared" / "data" / "repos"
VERDICTS = HERE / "anchors_verdicts.json"
ROLE = {"click": "dev", "cobra": "held-out", "fd": "held-out", "express": "held-out"}
VARIANTS = {"shipped rules": {}, "no stop list": {"common": frozenset()},
            "plain words outside backticks": {"backticks_only": False},
            "both": {"common": frozenset(), "backticks_only": False}}


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.com"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          check=True).stdout


def key(path: str, sym: str) -> str:
    return path + (f"::{sym}" if sym else "")


def score(made: list[set[str]], labels: list[set[str]]) -> dict[str, Any]:
    tp = sum(len(m & e) for m, e in zip(made, labels, strict=True))
    n_made, n_lab = sum(map(len, made)), sum(map(len, labels))
    return {"made": n_made, "labelled": n_lab, "correct": tp,
            "precision": round(tp / n_made, 4) if n_made else 1.0,
            "recall": round(tp / n_lab, 4) if n_lab else 1.0,
            "wrong": sorted(x for m, e in zip(made, labels, strict=True) for x in m - e),
            "missed": sorted(x for m, e in zip(made, labels, strict=True) for x in e - m)}


def fixture(work: Path) -> dict[str, Any]:
    root = work / "shop"
    shutil.copytree(FIXTURE / "repo", root)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    memories = json.loads((FIXTURE / "memories.json").read_text())
    labels = [set(m["expect"]) for m in memories]
    half = len(memories) // 2
    out: dict[str, Any] = {"memories": len(memories)}
    with open_bank(str(root)) as b:
        t_cold = []
        ids = []
        for m in memories[:half]:
            t0 = time.perf_counter()
            ids.append(b.memory.retain(m["text"], kind="fact").id)
            t_cold.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        b.code.index()
        out["index_pass_s"] = round(time.perf_counter() - t0, 3)
        t_warm = []
        for m in memories[half:]:
            t0 = time.perf_counter()
            ids.append(b.memory.retain(m["text"], kind="fact").id)
            t_warm.append(time.perf_counter() - t0)
        made = [{key(a.path, a.symbol) for a in b.memory.get(i).anchors if a.implicit}
                for i in ids]
        out["through_the_bank"] = score(made, labels)
        out["retain_one_no_index"] = summary_ms(t_cold)
        out["retain_one_indexed"] = summary_ms(t_warm)
        code = b.stores.code
        out["variants"] = {}
        for name, kw in VARIANTS.items():
            made = [{key(p, s) for p, s, _h in resolve(code, m["text"], [], **kw)}
                    for m in memories]
            out["variants"][name] = score(made, labels)
        times = []
        for _ in range(5):
            for m in memories:
                t0 = time.perf_counter()
                resolve(code, m["text"], [])
                times.append(time.perf_counter() - t0)
        out["resolve_one"] = summary_ms(times)
    return out


def commits(work: Path, repos: Path, n: int) -> dict[str, Any]:
    verdicts = {(v["repo"], v["commit"], v["anchor"]): v for v in
                json.loads(VERDICTS.read_text())}
    out: dict[str, Any] = {}
    for name in ROLE:
        bundle = repos / f"{name}.bundle"
        if not bundle.exists():
            continue
        root = work / name
        git(work, "clone", "-q", str(bundle), str(root))
        raw = git(root, "log", "--no-merges", "-n", str(n), "--format=%H%x00%B%x1e")
        msgs = [r.strip().split("\0", 1) for r in raw.split("\x1e") if "\0" in r]
        with open_bank(str(root)) as b:
            b.code.index(workers=1)
            code = b.stores.code
            made, times = [], []
            for sha, msg in msgs:
                t0 = time.perf_counter()
                got = resolve(code, msg, [])
                times.append(time.perf_counter() - t0)
                made += [(name, sha[:8], key(p, s)) for p, s, _h in got]
            loose = [(name, sha[:8], key(p, s)) for sha, msg in msgs  # judged on click
                     for p, s, _h in resolve(code, msg, [], backticks_only=False)
                     ] if name == "click" else []
            files = len(code.load_files())
        lj = [verdicts[m] for m in loose if m in verdicts]
        variant = {"made": len(loose), "judged": len(lj),
                   "correct": sum(1 for v in lj if v["correct"])}
        judged = [verdicts[m] for m in made if m in verdicts]
        right = sum(1 for v in judged if v["correct"])
        out[name] = {"role": ROLE[name], "files": files, "messages": len(msgs),
                     "made": len(made), "judged": len(judged), "correct": right,
                     "precision": round(right / len(judged), 4) if judged else None,
                     "unjudged": [list(m) for m in made if m not in verdicts],
                     "wrong": [f"{v['commit']} {v['anchor']}: {v['why']}" for v in judged
                               if not v["correct"]],
                     "resolve_one": summary_ms(times),
                     "plain words outside backticks": variant}
    held = [v for v in out.values() if v["role"] == "held-out"]
    if held:
        c, j = sum(v["correct"] for v in held), sum(v["judged"] for v in held)
        out["held_out_total"] = {"judged": j, "correct": c,
                                 "precision": round(c / j, 4) if j else None}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repos", type=Path, default=REPOS, help="directory of the git bundles")
    ap.add_argument("--commits", type=int, default=300)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        os.environ["HINDSIGHT_HOME"] = str(work / "home")
        os.environ["HINDSIGHT_EMBEDDER"] = "hashing"
        res = {"machine": machine(), "fixture": fixture(work),
               "commit_messages": commits(work, args.repos, args.commits)}
    path = write("anchors", res)
    f = res["fixture"]["through_the_bank"]
    print(f"fixture: precision {f['precision']:.3f} ({f['correct']}/{f['made']}), "
          f"recall {f['recall']:.3f} ({f['correct']}/{f['labelled']}); missed {f['missed']}")
    for name, v in res["fixture"]["variants"].items():
        print(f"  {name}: precision {v['precision']:.3f}, recall {v['recall']:.3f}")
    for name, v in res["commit_messages"].items():
        if name == "held_out_total":
            print(f"held-out commit messages: precision {v['precision']} "
                  f"({v['correct']}/{v['judged']})")
            continue
        loose = v["plain words outside backticks"]
        print(f"{name} ({v['role']}): {v['made']} anchors from {v['messages']} messages, "
              f"precision {v['precision']} ({v['correct']}/{v['judged']} judged), "
              f"{len(v['unjudged'])} unjudged" + (
                  f"; plain words outside backticks too: {loose['correct']}/{loose['judged']}"
                  f" correct of {loose['made']}" if loose["made"] else ""))
    print(f"written to {path}")


if __name__ == "__main__":
    main()
