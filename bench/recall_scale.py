"""Recall latency and retain cost as a bank grows.

For 1,000, 10,000 and 100,000 memories: recall latency p50/p95 (including embedding the
query with the local model) with and without the embedding rerank, single retain latency
p50/p95 (redaction, structuring, embedding, duplicate checks, write), batch retain
throughput (text searchable) and database bytes per memory.

Texts: two random conversation turns from the LoCoMo file (else generated sentences) and a
unique identifier per memory. Up to ``--embed-cap`` (default 10,000) distinct texts are embedded with the
local MiniLM; beyond that the stored vectors repeat those with small noise — a search costs
the same whatever the numbers are, and embedding 100,000 texts would take ≈ 7 minutes here.

    python bench/recall_scale.py [--sizes 1000,10000,100000] [--data PATH]
"""

from __future__ import annotations

import argparse
import json
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

from hindsight.app import open_bank  # noqa: E402
from hindsight.models import MemoryItem as Item  # noqa: E402

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo_dev.json"
WORDS = ["cache", "index", "parser", "retry", "hook", "session", "config", "deploy", "branch",
         "merge", "test", "flaky", "lock", "database", "queue", "worker", "timeout", "schema",
         "token", "memory"]


def base_texts(path: Path) -> list[str]:
    try:
        data = json.loads(path.read_text())
        return [t["text"] for c in data for k, v in c["conversation"].items()
                if k.startswith("session_") and isinstance(v, list) for t in v]
    except (OSError, ValueError, KeyError, TypeError):
        rnd = random.Random(1)
        return [" ".join(rnd.choice(WORDS) for _ in range(12)) for _ in range(2000)]


def run_size(n: int, texts: list[str], queries: list[str], embed_cap: int,
             work: Path) -> dict[str, Any]:
    import numpy as np

    root = work / f"n{n}"
    root.mkdir()
    rnd = random.Random(n)
    with open_bank(str(root), repo_root_path=str(root)) as b:
        # two random turns per memory and a unique identifier: diverse, like a real bank
        items = [Item(text=f"{rnd.choice(texts)} {rnd.choice(texts)} (ref{i:06d})", kind="fact",
                      source="import") for i in range(n)]
        t0 = time.perf_counter()
        res = b.memory.retain_batch(items, embed=False)
        batch_s = time.perf_counter() - t0
        emb = b.memory.embedder
        uniq = min(n, embed_cap)
        t0 = time.perf_counter()
        base = emb.embed_batch([it.text for it in items[:uniq]])
        embed_s = time.perf_counter() - t0
        vecs = []
        for i, r in enumerate(res):
            v = base[i % uniq]
            if i >= uniq:
                v = v + np.random.default_rng(i).normal(0, 0.01, v.shape).astype(np.float32)
                v = v / np.linalg.norm(v)
            vecs.append((r.id, np.asarray(v, dtype=np.float32).tobytes()))
        b.stores.memory.set_vectors(vecs, emb.model_id)
        b.memory.recall("warm up", touch=False)
        lat = {"plain": [], "rerank": []}
        for q in queries:
            for mode in ("plain", "rerank"):
                t0 = time.perf_counter()
                b.memory.recall(q, k=10, rerank=mode == "rerank", touch=False)
                lat[mode].append(time.perf_counter() - t0)
        single = []
        for i in range(30):
            t0 = time.perf_counter()
            b.memory.retain(f"{rnd.choice(texts)} single retain {i} {rnd.random()}", kind="fact")
            single.append(time.perf_counter() - t0)
        db = sum(os.path.getsize(p) for p in (b.path, b.path + "-wal") if os.path.exists(p))
    return {"memories": n, "recall": summary_ms(lat["plain"]),
            "recall_rerank": summary_ms(lat["rerank"]), "retain_single": summary_ms(single),
            "batch_searchable_per_s": round(n / batch_s, 1),
            "embed_per_s": round(uniq / embed_s, 1),
            "seconds_until_all_vectors_est": round(batch_s + n / (uniq / embed_s), 1),
            "db_bytes_per_memory": round(db / (n + 30))}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--data", default=str(DEFAULT))
    ap.add_argument("--embed-cap", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=50)
    args = ap.parse_args()
    texts = base_texts(Path(args.data))
    rnd = random.Random(7)
    queries = [" ".join(rnd.choice(texts).split()[:8]) for _ in range(args.queries)]
    work = Path(tempfile.mkdtemp(prefix="hindsight-scale-"))
    os.environ["HINDSIGHT_HOME"] = str(work / "home")
    try:
        out: dict[str, Any] = {"machine": machine(), "embed_cap": args.embed_cap, "sizes": []}
        for n in (int(x) for x in args.sizes.split(",")):
            r = run_size(n, texts, queries, args.embed_cap, work)
            print(json.dumps(r), flush=True)
            out["sizes"].append(r)
        print(f"wrote {write('recall_scale', out)}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
