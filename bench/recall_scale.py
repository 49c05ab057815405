"""Recall latency, retain cost and BM25 quality as a bank grows.

Each size runs in its own process (so peak RSS is that size's). The bank holds one LoCoMo
conversation (the *held* subset: its turns retained as in ``recall_locomo.py``, with their
``dia_id`` as ref) among generated distractors: two random turns of the *other*
conversations plus a unique id each. Measured per size:

- recall p50/p95 (query embedding included: the per-process query cache is emptied before
  each) with and without the embedding rerank, over the held conversation's questions
  (categories 1-4), ``--repeat`` passes, the median of the passes' p50 and p95 reported
  with each pass's, and the 1-minute load average before, between and after; beside them
  the CPU time (all threads) of each recall, which other work on the machine disturbs less;
- the dense channel's top 100 (``MemoryStore.nearest``: exact, or IVF from its size)
  against exact search over every vector, and which of the two answered;
- single retain p50/p95 (redaction, structuring, embedding, duplicate checks, write), 30 per
  pass;
- batch retain throughput (text searchable), database bytes per memory, peak RSS;
- the BM25 channel alone (``lexical.search``, 100 candidates) against the old FTS5
  ``bm25()`` approach (``fts5_baseline.py``) built over the same documents in the same
  run: latency p50/p95, their ratio, and recall@10 of the held questions' evidence turns
  for both, and for the lexical engine without its postings budget (exact), with the
  share of top-10 lists that pruning changed.

Vectors: the held turns are embedded with the local MiniLM; distractors up to
``--embed-cap`` distinct texts too, beyond that they repeat those with small noise, and with
``--synthetic`` (used for 1,000,000) distractors get random unit vectors and nothing is
embedded for them: a search costs the same whatever the numbers are.

    python bench/recall_scale.py [--sizes 1000,10000,100000,1000000] [--data PATH]
                                 [--backend sqlite|postgres]

``--backend postgres`` keeps the banks' memories on PostgreSQL (setting ``databaseUrl``,
else an embedded server started for the run): the dense channel is then the HNSW index
(``MemoryStore.nearest``); the database size is the bank schema's tables with their
indexes, and the HNSW build time is a ``REINDEX`` of that index over the whole bank (the
load itself inserts into the index row by row); the matrix read of SQLite does not apply.
Results go to ``recall_scale_postgres`` unless ``--out`` says otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine, peak_rss_mb, summary_ms, write  # noqa: E402
from fts5_baseline import Fts5Bm25  # noqa: E402
from recall_locomo import postgres_url, turns_of  # noqa: E402

from hindsight.app import open_bank  # noqa: E402
from hindsight.models import MemoryItem as Item  # noqa: E402

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo_dev.json"
CHUNK = 20_000


def load(path: Path) -> tuple[list[Item], list[tuple[str, set[str]]], list[str]]:
    """(held conversation's turns, its questions with evidence refs, distractor texts)."""
    data = json.loads(path.read_text())
    held = turns_of(data[0]["conversation"])
    qs = [(str(q["question"]), {e.strip() for e in q["evidence"] for e in str(e).split(";")})
          for q in data[0]["qa"] if q.get("category") in (1, 2, 3, 4) and q.get("evidence")]
    other = [f"{t.get('speaker', '')}: {t.get('text', '')}" for c in data[1:]
             for k, v in c["conversation"].items()
             if k.startswith("session_") and isinstance(v, list) for t in v]
    return held, qs, other


def _vectors(base: Any, first: int, count: int, synthetic: bool) -> Any:
    """Unit vectors for distractors ``first`` … ``first + count - 1``: random ones, or the
    embedded ``base`` rows repeated with small noise beyond ``len(base)``."""
    import numpy as np

    rng = np.random.default_rng(first)
    if synthetic:
        v = rng.standard_normal((count, 384), dtype=np.float32)
    else:
        idx = np.arange(first, first + count)
        v = base[idx % len(base)].copy()
        beyond = idx >= len(base)
        v[beyond] += rng.normal(0, 0.01, (int(beyond.sum()), v.shape[1])).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return v


def child(n: int, data: Path, cap: int, synthetic: bool, nq: int, work: Path, repeat: int
          ) -> dict[str, Any]:
    import numpy as np

    from hindsight.memory import lexical
    from hindsight.memory.recall import _QUERIES as queries

    held, qs, other = load(data)
    rnd = random.Random(n)
    n_dis = max(0, n - len(held))
    root = work / f"n{n}"
    root.mkdir()
    fts = Fts5Bm25(str(work / f"fts{n}.db"))
    with open_bank(str(root), repo_root_path=str(root)) as b:
        emb = b.memory.embedder
        batch_s = embed_s = 0.0
        base = None
        for start in range(0, n_dis, CHUNK):
            items = [Item(text=f"{rnd.choice(other)} {rnd.choice(other)} (ref{i:07d})",
                          kind="fact", source="import")
                     for i in range(start, min(n_dis, start + CHUNK))]
            t0 = time.perf_counter()
            res = b.memory.retain_batch(items, embed=False)
            batch_s += time.perf_counter() - t0
            t0 = time.perf_counter()
            if base is None and not synthetic:
                base = np.asarray(emb.embed_batch([it.text for it in items[:cap]]),
                                  dtype=np.float32)
            vec = _vectors(base, start, len(items), synthetic)
            embed_s += time.perf_counter() - t0
            b.stores.memory.set_vectors([(r.id, v.tobytes()) for r, v in zip(res, vec,
                                                                              strict=True)],
                                        emb.model_id)
            fts.add([(r.id, it.text, "") for r, it in zip(res, items, strict=True)])
        res = b.memory.retain_batch(held, embed=False)
        b.memory.embed_missing([(r.id, it.text) for r, it in zip(res, held, strict=True)])
        fts.add([(r.id, it.text, it.context) for r, it in zip(res, held, strict=True)])
        ref_of = {r.id: it.ref for r, it in zip(res, held, strict=True)}
        extra: dict[str, Any] = {}
        if os.environ.get("HINDSIGHT_DATABASE_URL"):  # statistics, as autovacuum would make
            pg = b.stores.memory
            with pg.pool.connection() as c:
                c.execute(f"ANALYZE {pg.s}.memories")
            extra["dense_path"] = "hnsw" if pg._hnsw() else "exact"
        t0 = time.perf_counter()
        b.memory.recall("warm up", touch=False)
        warm_s = time.perf_counter() - t0
        loads = [_loadavg()]
        lat: dict[str, list[float]] = {"plain": [], "rerank": [], "bm25": [], "fts5": []}
        runs: dict[str, list[dict[str, float]]] = {"plain": [], "rerank": []}
        cpu: dict[str, list[float]] = {"plain": [], "rerank": []}
        for _rep in range(repeat):
            for mode in ("plain", "rerank"):
                one = []
                for q, _ev in qs[:nq]:
                    queries.clear()  # every timed recall embeds its query
                    c0, t0 = time.process_time(), time.perf_counter()
                    b.memory.recall(q, k=10, rerank=mode == "rerank", touch=False)
                    one.append(time.perf_counter() - t0)
                    cpu[mode].append(time.process_time() - c0)
                runs[mode].append(summary_ms(one))
                lat[mode] += one
        loads.append(_loadavg())
        store = b.stores.memory
        qvecs = emb.embed_batch([q for q, _ in qs])
        all_ids, all_mat = store.matrix(emb.model_id)
        overlap = []
        for qv in qvecs:  # the store's top 100 against exact search over every vector
            sims = np.asarray(all_mat @ qv)
            exact = set(np.asarray(all_ids)[np.argsort(-sims, kind="stable")[:100]].tolist())
            got = {i for i, _ in store.nearest(emb.model_id, qv, 100)}
            overlap.append(len(exact & got) / 100)
        quality: dict[str, list[float]] = {"bm25": [], "bm25_exact": [], "fts5": []}
        changed = 0
        for q, ev in qs:
            t0 = time.perf_counter()
            got = lexical.search(store, q, 100, 0.35)
            lat["bm25"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            old = fts.search(q, 100, 0.35)
            lat["fts5"].append(time.perf_counter() - t0)
            budget = lexical.MAX_POSTINGS
            lexical.MAX_POSTINGS = 1 << 62
            exact = lexical.search(store, q, 100, 0.35)
            lexical.MAX_POSTINGS = budget
            changed += [i for i, _ in got[:10]] != [i for i, _ in exact[:10]]
            for name, hits in (("bm25", got), ("bm25_exact", exact), ("fts5", old)):
                refs = {ref_of.get(i, "") for i, _ in hits[:10]}
                quality[name].append(len(ev & refs) / len(ev))
        single, single_cpu = [], []
        for i in range(30 * repeat):
            c0, t0 = time.process_time(), time.perf_counter()
            b.memory.retain(f"{rnd.choice(other)} single retain {i} {rnd.random()}", kind="fact")
            single.append(time.perf_counter() - t0)
            single_cpu.append(time.process_time() - c0)
        loads.append(_loadavg())
        if os.environ.get("HINDSIGHT_DATABASE_URL"):
            db, extra["hnsw_build_s"] = _pg_figures(store)
            cold_s = None
        else:
            db = sum(os.path.getsize(p) for p in (b.path, b.path + "-wal")
                     if os.path.exists(p))
            from hindsight.store.sqlite import open_stores

            _c, _h, cold, conn = open_stores(b.path, b.bank_id, str(root))
            t0 = time.perf_counter()
            cold.nearest(emb.model_id, qvecs[0], 100)  # what a new process (a CLI recall) pays
            cold_s = time.perf_counter() - t0
            conn.close()
    fts.close()
    ratio = summary_ms(lat["fts5"])["p95_ms"] / max(1e-9, summary_ms(lat["bm25"])["p95_ms"])
    return {"memories": n_dis + len(held), "held_turns": len(held), "questions": len(qs),
            "synthetic_vectors": synthetic, "loadavg_1min": loads, "repeats": repeat,
            "recall": _median_of(runs["plain"]), "recall_runs": runs["plain"],
            "recall_rerank": _median_of(runs["rerank"]), "recall_rerank_runs": runs["rerank"],
            "recall_cpu": summary_ms(cpu["plain"]), "recall_rerank_cpu": summary_ms(cpu["rerank"]),
            "retain_single": summary_ms(single), "retain_single_cpu": summary_ms(single_cpu),
            "first_recall_ms": round(warm_s * 1000, 1),
            "dense_top100_vs_exact": round(float(np.mean(overlap)), 4),
            "dense_index": "ivf" if getattr(store, "_cache", None) is not None and
            store._cache.index is not None else "exact",
            "batch_searchable_per_s": round(n_dis / batch_s, 1) if batch_s else None,
            "vectors_s": round(embed_s, 1),
            "bm25_channel": summary_ms(lat["bm25"]), "fts5_bm25_channel": summary_ms(lat["fts5"]),
            "fts5_over_bm25_p95": round(ratio, 2),
            "held_recall@10": {k: round(float(np.mean(v)), 4) for k, v in quality.items()},
            "pruning_changed_top10": f"{changed}/{len(qs)}",
            "db_bytes_per_memory": round(db / (n_dis + len(held) + 30)),
            "dense_cold_ms": None if cold_s is None else round(cold_s * 1000, 1),
            "peak_rss_mb": peak_rss_mb(), **extra}


def _pg_figures(store: Any) -> tuple[int, float]:
    """(bytes of the bank schema's tables with their indexes, seconds of a REINDEX of
    its HNSW index) of a PostgreSQL memory store."""
    size = store.one("SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
                     "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s "
                     "AND c.relkind = 'r'", (store.s,))[0]
    with store.pool.connection() as c:
        t0 = time.perf_counter()
        c.execute(f"REINDEX INDEX {store.s}.ix_memories_hnsw")
        build = time.perf_counter() - t0
    return int(size), round(build, 1)


def _loadavg() -> float:
    """The 1-minute load average (other work on the machine; 0.0 where unknown)."""
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0.0


def _median_of(runs: list[dict[str, float]]) -> dict[str, float]:
    """The median over repeated runs of each of p50 / p95 / mean (ms)."""
    import statistics

    return {k: round(statistics.median(r[k] for r in runs), 3)
            for k in ("p50_ms", "p95_ms", "mean_ms")} | {"n": sum(r["n"] for r in runs)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,100000,1000000")
    ap.add_argument("--data", default=str(DEFAULT))
    ap.add_argument("--embed-cap", type=int, default=10_000)
    ap.add_argument("--synthetic-from", type=int, default=1_000_000,
                    help="sizes from this one on use random distractor vectors")
    ap.add_argument("--queries", type=int, default=50, help="questions timed with recall")
    ap.add_argument("--repeat", type=int, default=3,
                    help="timed passes (recall: median of each pass's p50/p95; retain: 30 each)")
    ap.add_argument("--out", default="", help="results file name (default recall_scale, "
                    "recall_scale_postgres with --backend postgres)")
    ap.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    ap.add_argument("--child", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--work", default="", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        r = child(args.child, Path(args.data), args.embed_cap,
                  args.child >= args.synthetic_from, args.queries, Path(args.work), args.repeat)
        print(json.dumps(r), flush=True)
        return
    out: dict[str, Any] = {"machine": machine(), "embed_cap": args.embed_cap,
                           "backend": args.backend, "sizes": []}
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(postgres_url()) if args.backend == "postgres" else ""
        for n in (int(x) for x in args.sizes.split(",")):
            out["sizes"].append(_size(n, args, url))
    name = args.out or ("recall_scale_postgres" if url else "recall_scale")
    print(f"wrote {write(name, out)}")


def _size(n: int, args: Any, url: str) -> dict[str, Any]:
    """Run size ``n`` in a child process (memories on ``url`` when given)."""
    work = Path(tempfile.mkdtemp(prefix="hindsight-scale-"))
    env = dict(os.environ, HINDSIGHT_HOME=str(work / "home"), HINDSIGHT_DATABASE_URL=url)
    try:
        p = subprocess.run([sys.executable, __file__, "--child", str(n), "--data", args.data,
                            "--embed-cap", str(args.embed_cap), "--synthetic-from",
                            str(args.synthetic_from), "--queries", str(args.queries),
                            "--repeat", str(args.repeat), "--work", str(work)],
                           env=env, capture_output=True, text=True, check=False)
        if p.returncode:
            print(p.stderr, file=sys.stderr)
            raise SystemExit(f"size {n} failed")
        r: dict[str, Any] = json.loads(p.stdout.strip().splitlines()[-1])
        print(json.dumps(r), flush=True)
        return r
    finally:
        shutil.rmtree(work, ignore_errors=True)

if __name__ == "__main__":
    main()
