"""Choose the fusion weights of task context (``hindsight.context.fusion.Weights``) and the
code channel's field weights by coordinate ascent on MRR over files, on the tasks of
``bench/localize.py``.

``--dump``: step through the tasks of one repository as ``bench/localize.py`` does (the
same clone, parents and leak check) and save each task's evidence — the corpus, the task's
terms, the files and symbols it names, their call-graph neighbours, the candidates and the
gold — to a pickle. ``--tune``: load one or more such pickles and search: from the current
defaults, each parameter in turn takes the value of its grid that gives the best mean MRR
over the repositories (each repository weighs the same), for a few rounds; ``--eval``:
the defaults' figures on the pickles given, nothing searched.

    python bench/localize_tune.py --dump --repo click.bundle -n 100 --to /tmp/click.pkl
    python bench/localize_tune.py --tune /tmp/click.pkl /tmp/cobra.pkl
"""

from __future__ import annotations

import argparse
import pickle
import sys
import tempfile
from dataclasses import asdict, fields, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from localize import DEPTH, line, mean, metrics, read_tasks, steps  # noqa: E402

from hindsight.context import channels as ch  # noqa: E402
from hindsight.context import (
    fusion,  # noqa: E402
    literal,  # noqa: E402
)
from hindsight.context.corpus import _corpus, _packed  # noqa: E402
from hindsight.context.fusion import WEIGHTS, Weights  # noqa: E402
from hindsight.context.service import Evidence, task_text  # noqa: E402
from hindsight.memory import segment  # noqa: E402


def dump(repo: str, tasks_file: Path | None, n: int, to: Path) -> None:
    out = []
    tasks = read_tasks(tasks_file) if tasks_file else None
    with tempfile.TemporaryDirectory(prefix="hs-tune-") as tmp:
        for t, bank, cands, _clone, i in steps(repo, tasks, n, Path(tmp)):
            gold = [g for g in t.gold if g in cands]
            if not gold:
                continue
            ev = bank.context.evidence(t.query)
            c = ev.corpus
            lits = literal.find(bank.root, c.files, literal.literals(task_text(t.query)))
            out.append({"sha": t.sha, "query": t.query, "gold": gold, "cands": sorted(cands),
                        "corpus": _packed(c), "terms": ev.terms,
                        "named": {c.files[f]: v for f, v in ev.named_files.items()},
                        "graph": {c.files[f]: v for f, v in ev.graph.items()},
                        "literal": lits})
            print(f"{i + 1} {t.sha[:10]}", file=sys.stderr)
    to.write_bytes(pickle.dumps(out))


class Case:
    def __init__(self, d: dict[str, Any]) -> None:
        self.c = _corpus(d["corpus"])
        # the task's terms as the service makes them now (a dump keeps the query)
        text = task_text(d["query"])
        self.terms = segment.query_terms(text, words=False, keep=segment.CODE_TERMS)
        self.gold = d["gold"]
        self.cands = set(d["cands"])
        self.named = {self.c.file_id(p): v for p, v in d["named"].items()}
        self.graph = {self.c.file_id(p): v for p, v in d["graph"].items()}
        lits = set(literal.literals(text))  # a dump made before trailers were dropped
        self.literal = {self.c.file_id(p): [x for x in v if x in lits]
                        for p, v in d.get("literal", {}).items()}
        self.literal = {f: v for f, v in self.literal.items() if v}
        self._code: dict[Any, dict[int, float]] = {}
        self._sim: dict[Any, list[tuple[int, float]]] = {}
        self._recent: dict[float, dict[int, float]] = {}
        self._spec: float | None = None

    def rank(self, w: Weights, fw: ch.FieldWeights) -> list[str]:
        c = self.c
        if fw not in self._code:
            self._code[fw] = ch.code(c, self.terms, fw)
        if w.similar not in self._sim:
            self._sim[w.similar] = ch.similar_commits(c, self.terms, w.similar)
        if w.half_life not in self._recent:
            self._recent[w.half_life] = ch.recent(c, w.half_life)
        hits = ch.continuing(c, self._sim[w.similar], w.wip_boost, w.wip_half_life)
        ev = Evidence(c, self.terms, {
            "code": self._code[fw],
            "commits": ch.commit_votes(c, hits, w.size_power,
                                       w.vote_half_life, w.alive_power, w.hub_power,
                                       w.follow),
            "named": {f: float(len(v)) for f, v in self.named.items()},
            "graph": {f: float(len(v)) for f, v in self.graph.items()},
            "recent": self._recent[w.half_life]})
        if self.literal and w.literal:  # as the service: over the best files of the others
            prelim = fusion.first_stage(ev.scores, w)
            top = {f for f, _s in fusion.best(prelim, w.literal_files, c.files)}
            ev.scores["literal"] = literal.scores({f: v for f, v in self.literal.items()
                                                   if f in top})
        first = fusion.first_stage(ev.scores, w)
        seeds = dict(fusion.best(first, w.seeds, c.files))
        cc = ch.cochange(c, seeds, top=w.seeds)
        if w.current_half_life not in self._recent:
            self._recent[w.current_half_life] = ch.recent(c, w.current_half_life)
        if self._spec is None:
            self._spec = ch.specificity(c, self.terms)
        final = fusion.final(first, ev.scores["recent"], cc, w,
                             self._recent[w.current_half_life], self._spec)
        return [c.files[f] for f, _s in fusion.best(final, DEPTH * 3, c.files)
                if c.files[f] in self.cands][:DEPTH]


GRID: dict[str, list[float]] = {
    "commits": [0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.5],
    "named": [0.0, 0.1, 0.2, 0.4, 0.6, 1.0],
    "graph": [0.0, 0.05, 0.1, 0.2, 0.4],
    "literal": [0.0, 0.1, 0.2, 0.3, 0.5, 0.8],
    "literal_files": [10, 20, 50],
    "recent": [0.0, 0.05, 0.1, 0.15, 0.25, 0.4],
    "cochange": [0.0, 0.05, 0.1, 0.15, 0.25, 0.4],
    "similar": [5, 10, 20, 30, 50, 100],
    "size_power": [0.0, 0.5, 1.0],
    "vote_half_life": [0.0, 50, 100, 200, 500, 1000],
    "alive_power": [0.0, 0.5, 1.0, 2.0],
    "hub_power": [0.0, 0.25, 0.5, 0.75, 1.0],
    "follow": [0.0, 0.25, 0.5, 1.0, 1.5, 2.0],
    "wip_boost": [0.0, 1.0, 2.0, 3.0, 5.0],
    "wip_half_life": [1, 2, 3, 5],
    "half_life": [25, 50, 100, 200, 500, 2000],
    "seeds": [1, 3, 5, 10],
    "current": [0.0, 0.5, 1.0, 2.0, 4.0],
    "current_half_life": [1, 2, 5],
    "current_spec": [5, 10, 20, 40],
    "fw.path": [0.0, 0.5, 1.0, 2.0, 4.0],
    "fw.symbols": [0.0, 0.5, 1.0, 2.0, 4.0],
    "fw.b_text": [0.3, 0.5, 0.75, 0.9],
    "fw.b_path": [0.0, 0.3, 0.75],
    "fw.b_symbols": [0.0, 0.5, 0.75],
}


def score(repos: list[list[Case]], w: Weights, fw: ch.FieldWeights
          ) -> tuple[float, list[dict[str, float]]]:
    per = [mean([metrics(case.rank(w, fw), case.gold) for case in cases]) for cases in repos]
    return sum(m["MRR"] for m in per) / len(per), per


def tune(repos: list[list[Case]], rounds: int) -> tuple[Weights, ch.FieldWeights]:
    w, fw = WEIGHTS, ch.FieldWeights()
    best, _ = score(repos, w, fw)
    print(f"start MRR {best:.4f}")
    for r in range(rounds):
        changed = False
        for name, values in GRID.items():
            for v in values:
                if name.startswith("fw."):
                    w2, fw2 = w, replace(fw, **{name[3:]: v})
                else:
                    w2, fw2 = replace(w, **{name: v}), fw
                s, _ = score(repos, w2, fw2)
                if s > best + 1e-4:
                    best, w, fw, changed = s, w2, fw2, True
            print(f"round {r + 1} {name}: MRR {best:.4f}", file=sys.stderr)
        if not changed:
            break
    return w, fw


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dump", action="store_true")
    ap.add_argument("--repo")
    ap.add_argument("--tasks", type=Path)
    ap.add_argument("-n", type=int, default=100)
    ap.add_argument("--to", type=Path)
    ap.add_argument("--tune", nargs="*", type=Path)
    ap.add_argument("--eval", nargs="*", type=Path)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    if a.dump:
        dump(a.repo, a.tasks, a.n, a.to)
        return
    paths = a.tune or a.eval or []
    repos = [[Case(d) for d in pickle.loads(p.read_bytes())] for p in paths]
    if a.tune:
        w, fw = tune(repos, a.rounds)
        print("weights", {f.name: getattr(w, f.name) for f in fields(w)})
        print("fields", asdict(fw))
    else:
        w, fw = WEIGHTS, ch.FieldWeights()
    _s, per = score(repos, w, fw)
    for p, m in zip(paths, per, strict=True):
        print(line(p.stem, m))


if __name__ == "__main__":
    main()
