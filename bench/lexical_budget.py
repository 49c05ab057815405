"""The lexical engine's postings budget: latency and quality loss against exact scoring.

Builds the bank of ``recall_scale.py`` (one LoCoMo conversation held out among generated
distractors; no vectors: only the BM25 channel is measured) and runs the held
conversation's questions through ``lexical.search`` (100 candidates, context weight 0.35)
exactly and under each postings budget (``MAX_POSTINGS`` scored in full, the rest only for
the best ``REFINE``): latency p50/p95, recall@10 of the evidence turns, and how many top-10
lists differ from the exact ones.

    python bench/lexical_budget.py [--size 100000] [--data PATH]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine, summary_ms, write  # noqa: E402
from recall_scale import DEFAULT, load  # noqa: E402

from hindsight.app import open_bank  # noqa: E402
from hindsight.memory import lexical, segment  # noqa: E402
from hindsight.models import MemoryItem as Item  # noqa: E402

BUDGETS = [(250_000, 2_000), (100_000, 2_000), (50_000, 2_000), (20_000, 2_000),
           (20_000, 500), (5_000, 500)]


def measure(store: Any, qs: list[tuple[str, set[str]]], ref: dict[int, str], budget: int,
            refine: int) -> tuple[dict[str, Any], list[list[int]]]:
    lexical.MAX_POSTINGS, lexical.REFINE = budget, refine
    lat, rec, tops = [], [], []
    for q, ev in qs:
        t0 = time.perf_counter()
        got = lexical.search(store, q, 100, 0.35)
        lat.append(time.perf_counter() - t0)
        rec.append(len(ev & {ref.get(i, "") for i, _ in got[:10]}) / len(ev))
        tops.append([i for i, _ in got[:10]])
    return {"latency": summary_ms(lat), "recall@10": round(sum(rec) / len(rec), 4)}, tops


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--data", default=str(DEFAULT))
    args = ap.parse_args()
    held, qs, other = load(Path(args.data))
    work = Path(tempfile.mkdtemp(prefix="hindsight-budget-"))
    os.environ["HINDSIGHT_HOME"] = str(work / "home")
    os.environ["HINDSIGHT_EMBEDDER"] = "hashing"
    rnd = random.Random(args.size)
    root = work / "bank"
    root.mkdir()
    try:
        with open_bank(str(root), repo_root_path=str(root)) as b:
            n = max(0, args.size - len(held))
            for s in range(0, n, 20_000):
                b.memory.retain_batch([Item(text=f"{rnd.choice(other)} {rnd.choice(other)} "
                                                 f"(ref{i:07d})", kind="fact", source="import")
                                       for i in range(s, min(n, s + 20_000))], embed=False)
            res = b.memory.retain_batch(held, embed=False)
            ref = {r.id: it.ref for r, it in zip(res, held, strict=True)}
            store = b.stores.memory
            sizes = sorted(sum(store.lex_df(segment.query_terms(q)).values()) for q, _ in qs)
            import numpy  # noqa: F401  (a warm process: the NumPy path, as the MCP server)

            exact, base = measure(store, qs, ref, 1 << 62, 2_000)
            rows = []
            for budget, refine in BUDGETS:
                r, tops = measure(store, qs, ref, budget, refine)
                r.update(budget=budget, refine=refine,
                         changed_top10=sum(a != e for a, e in zip(tops, base, strict=True)))
                rows.append(r)
                print(r, flush=True)
        out = {"machine": machine(), "memories": n + len(held), "questions": len(qs),
               "postings_per_query": {"p50": sizes[len(sizes) // 2],
                                      "p95": sizes[int(len(sizes) * 0.95)], "max": sizes[-1]},
               "exact": exact, "budgets": rows}
        print(out["postings_per_query"], exact)
        print(f"wrote {write(f'lexical_budget_{args.size}', out)}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
