"""Recall quality on LoCoMo-format conversations (Maharana et al., ACL 2024).

Each conversation goes into its own bank: every turn is retained as a ``conversation``
memory (``speaker: text``, an image caption appended as ``[image: …]``) with its session's
date and, as context, the two turns before and after it in the same session
(``LOCOMO_WINDOW``; one each side scored 0.760 recall@10, two 0.773, three 0.776). Each question of
categories 1-4 is recalled; a hit is a memory whose ``ref`` (the turn's ``dia_id``) is in
the question's evidence. Reported per category and overall: recall@1/5/10/20/50 (share of
evidence turns in the top k, averaged over questions), hit@10 (some evidence in the top
10), session hit@10 (some top-10 turn from an evidence session), retain items/s (text
searchable) and seconds until every vector exists, recall latency p50/p95 — for hindsight
(fused channels) and, in the same run on the same banks, plain BM25 over the turns (no
context) and dense-only (MiniLM) baselines.

    python bench/recall_locomo.py [--data PATH] [--limit-conversations N]

PATH defaults to ../shared/data/locomo_dev.json (read at run time, never copied).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine, peak_rss_mb, summary_ms, write  # noqa: E402

from hindsight.app import open_bank  # noqa: E402
from hindsight.models import MemoryItem as Item  # noqa: E402

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo_dev.json"
KS = (1, 5, 10, 20, 50)
WINDOW = int(os.environ.get("LOCOMO_WINDOW", "2"))  # turns each side indexed as context


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
            text = f"{t.get('speaker', '')}: {t.get('text', '')}"
            if t.get("blip_caption"):
                text += f" [image: {t['blip_caption']}]"
            texts.append(text)
        for i, t in enumerate(turns):
            ctx = " ".join(texts[j] for j in range(i - WINDOW, i + WINDOW + 1)
                           if j != i and 0 <= j < len(texts))
            items.append(Item(text=texts[i], kind="conversation", source="conversation",
                              session=f"session_{n}", ref=str(t.get("dia_id", "")),
                              occurred=when, context=ctx))
    return items


MODES = {
    "hindsight": {},
    "bm25_only": {"channels": ("bm25",), "rerank": False, "context_weight": 0.0},
    "dense_only": {"channels": ("dense",), "rerank": False},
}
ALL = ("bm25", "dense", "anchor", "recency", "lesson", "adjacent", "prf")
ABLATION = {  # --ablation: each channel's contribution, measured in the same run
    "bm25_with_context": {"channels": ("bm25",)},
    "bm25_dense_plain_rrf": {"channels": ("bm25", "dense"), "weights": {"dense": 1.0}},
    "without_dense": {"channels": tuple(c for c in ALL if c != "dense")},
    "without_prf": {"channels": tuple(c for c in ALL if c != "prf")},
    "without_adjacent": {"channels": tuple(c for c in ALL if c != "adjacent")},
    "with_rerank": {"rerank": True},
}


def evaluate(data: list[dict[str, Any]], work: Path) -> dict[str, Any]:
    per: dict[str, dict[str, Any]] = {m: {"questions": [], "latency": []} for m in MODES}
    retain_s = embed_s = 0.0
    n_items = 0
    for ci, conv in enumerate(data):
        root = work / f"conv{ci}"
        root.mkdir(parents=True, exist_ok=True)
        items = turns_of(conv.get("conversation", {}))
        with open_bank(str(root), repo_root_path=str(root)) as b:
            t0 = time.perf_counter()
            res = b.memory.retain_batch(items, embed=False)
            retain_s += time.perf_counter() - t0
            t0 = time.perf_counter()
            b.memory.embed_missing([(r.id, it.text) for r, it in zip(res, items, strict=True)])
            embed_s += time.perf_counter() - t0
            n_items += len(items)
            ref_of = {r.id: it.ref for r, it in zip(res, items, strict=True)}
            for qa in conv.get("qa", []):
                cat = qa.get("category")
                if cat not in (1, 2, 3, 4) or not qa.get("evidence"):
                    continue
                ev = {e.strip() for e in qa["evidence"] for e in str(e).split(";")}
                ev_sessions = {e.split(":")[0] for e in ev}
                for mode, kw in MODES.items():
                    t0 = time.perf_counter()
                    out = b.memory.recall(str(qa["question"]), k=max(KS), touch=False, **kw)
                    per[mode]["latency"].append(time.perf_counter() - t0)
                    refs = [ref_of.get(h.memory.id, h.memory.ref) for h in out.hits]
                    per[mode]["questions"].append({
                        "category": cat,
                        **{f"recall@{k}": len(ev & set(refs[:k])) / len(ev) for k in KS},
                        "hit@10": float(bool(ev & set(refs[:10]))),
                        "session_hit@10": float(bool(ev_sessions & {r.split(":")[0]
                                                                     for r in refs[:10]})),
                    })
    out: dict[str, Any] = {"items": n_items,
                           "retain_items_per_s": round(n_items / retain_s, 1),
                           "seconds_until_all_vectors": round(retain_s + embed_s, 2),
                           "embed_items_per_s": round(n_items / embed_s, 1)}
    for mode, d in per.items():
        qs = d["questions"]
        summary: dict[str, Any] = {"questions": len(qs), "latency": summary_ms(d["latency"])}
        for cat in ("all", 1, 2, 3, 4):
            sel = [q for q in qs if cat == "all" or q["category"] == cat]
            if not sel:
                continue
            summary[str(cat)] = {m: round(sum(q[m] for q in sel) / len(sel), 4) for m in
                                 [f"recall@{k}" for k in KS] + ["hit@10", "session_hit@10"]}
            summary[str(cat)]["n"] = len(sel)
        out[mode] = summary
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(DEFAULT), help="a LoCoMo-format JSON file")
    ap.add_argument("--limit-conversations", type=int, default=None)
    ap.add_argument("--out", default="recall_locomo")
    ap.add_argument("--ablation", action="store_true",
                    help="also measure each channel's contribution")
    args = ap.parse_args()
    if args.ablation:
        MODES.update(ABLATION)
    data = json.loads(Path(args.data).read_text())
    if isinstance(data, dict):
        data = [data]
    data = data[:args.limit_conversations] if args.limit_conversations else data
    work = Path(tempfile.mkdtemp(prefix="hindsight-locomo-"))
    os.environ["HINDSIGHT_HOME"] = str(work / "home")
    try:
        res = {"machine": machine(), "data": os.path.basename(args.data),
               "conversations": len(data), **evaluate(data, work)}
        res["peak_rss_mb"] = peak_rss_mb()
        for mode in MODES:
            a = res[mode]["all"]
            print(f"{mode:21s} recall@1/5/10/20/50 " +
                  " ".join(f"{a[f'recall@{k}']:.3f}" for k in KS) +
                  f"  hit@10 {a['hit@10']:.3f}  p50 {res[mode]['latency']['p50_ms']:.1f} ms")
        print(f"retain {res['retain_items_per_s']} items/s searchable; all vectors after "
              f"{res['seconds_until_all_vectors']} s")
        print(f"wrote {write(args.out, res)}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
