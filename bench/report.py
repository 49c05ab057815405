"""Print the README's benchmark table from bench/results/*.json (``python bench/report.py``)."""

from __future__ import annotations

import json
from pathlib import Path

RES = Path(__file__).resolve().parent / "results"


def mark(ok: bool) -> str:
    return "✓" if ok else "✗"


def run_rows(runs: dict | None, corpus: str) -> list[tuple[str, str, str]]:
    """One row per worker count: wall, CPU, serial share of the one-worker time."""
    if not runs:
        return []
    out = []
    for w, r in sorted(runs["by_workers"].items(), key=lambda kv: int(kv[0])):
        share = r.get("serial_share_of_1_worker")
        out.append((f"{corpus}, {w} worker{'s' if w != '1' else ''}: wall (× floor) / CPU main "
                    "+ children (× floor CPU) / serial",
                    f"{r['wall_s']:.2f} s ({r['ratio_to_parse_floor']:.2f}×) / "
                    f"{r['cpu_main_s']:.2f} + {r['cpu_children_s']:.2f} s "
                    f"({r.get('cpu_ratio_to_parse_floor', 0):.2f}×) / {r['serial_s']:.2f} s"
                    + (f" = {share:.1%} of 1 worker" if share is not None else ""),
                    f"serial ≤ 10% {mark(share <= 0.10)}" if share is not None and
                    corpus != "stdlib" else ""))
    return out


def index_table(d: dict) -> str:
    fi, inc = d["full_index"], d["incremental_one_file"]
    lines = d["corpus"]["lines"]
    ct = d.get("ctags") or {}
    rows = [
        ("full index, 2 workers (symbols + call graph + hashes)",
         f"{fi['seconds']:.2f} s = {fi['lines_per_s']:,} lines/s",
         f"≥ 130,000 lines/s {mark(fi['lines_per_s'] >= 130_000)}"),
        ("tree-sitter parse only, 1 process (floor)",
         f"{d['parse_only_1proc_s']:.2f} s = {d['parse_only_lines_per_s']:,} lines/s", ""),
        ("full index ÷ parse-only (wall, same run)", f"{fi['ratio_to_parse_only']:.2f}×",
         f"≤ 1.5× {mark(fi['ratio_to_parse_only'] <= 1.5)} (stretch 1.2×)"),
        *run_rows(d.get("full_index_runs"), "stdlib"),
        *run_rows(d.get("scale_4"), "4× corpus"),
        ("`ctags -L files` (universal-ctags, definitions only)",
         f"{ct.get('seconds', 'n/a')} s, {ct.get('tags', 'n/a'):,} tags" if ct else "n/a",
         f"hindsight is {fi['ratio_to_ctags']:.1f}× slower" if ct else ""),
        ("full index via CLI (wall)", f"{fi['cli_wall_s']:.2f} s", ""),
        ("symbols / edges / files with parse errors",
         f"{fi['symbols']:,} / {fi['edges']:,} / {fi['parse_errors']}", ""),
        ("peak RSS: main process / largest worker",
         f"{fi['peak_rss_main_mb']:.0f} MB / {fi['peak_rss_worker_mb']:.0f} MB",
         f"≤ 1 GiB {mark(max(fi['peak_rss_main_mb'], fi['peak_rss_worker_mb']) <= 1024)}"),
        ("database size", f"{fi['db_bytes'] / 1e6:.1f} MB "
         f"({fi['db_bytes'] / lines:.0f} bytes/line)", ""),
        ("incremental re-index after a one-file edit, in-process p50 / p95",
         f"{inc['in_process']['p50_ms']:.0f} / {inc['in_process']['p95_ms']:.0f} ms",
         f"≤ 100 ms {mark(inc['in_process']['p50_ms'] <= 100)}"),
        ("same, `hindsight index` CLI wall p50",
         f"{inc['cli_wall']['p50_ms']:.0f} ms", ""),
        ("symbol lookup p50 / p95", f"{d['symbol_lookup']['p50_ms']:.3f} / "
         f"{d['symbol_lookup']['p95_ms']:.3f} ms",
         f"p50 ≤ 1 ms {mark(d['symbol_lookup']['p50_ms'] <= 1)}"),
        ("callers depth 2 p50 / p95", f"{d['callers_depth2']['p50_ms']:.3f} / "
         f"{d['callers_depth2']['p95_ms']:.3f} ms",
         f"p50 ≤ 5 ms {mark(d['callers_depth2']['p50_ms'] <= 5)}"),
        ("`hindsight symbols NAME` CLI wall p50 / p95",
         f"{d['cli_symbols_wall']['p50_ms']:.0f} / {d['cli_symbols_wall']['p95_ms']:.0f} ms",
         f"≤ 300 ms {mark(d['cli_symbols_wall']['p50_ms'] <= 300)}"),
        ("Python defs agreeing with `ast` (qualified name + line)",
         f"{d['ast_agreement']['agreeing']:,} / {d['ast_agreement']['defs']:,} = "
         f"{d['ast_agreement']['rate']:.4%}", "target 100%"),
    ]
    out = ["| measure (`python bench/index.py`) | result | target |", "|---|---|---|"]
    out += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return "\n".join(out)


def history_table(d: dict) -> str:
    own, s3, s1 = d["own"], d["synthetic_300"], d.get("synthetic_1000")
    q, w = d["queries"], d["watch"]

    def ingest_rows(r: dict, label: str) -> list[tuple[str, str, str]]:
        n = r["n"]
        return [
            (f"{label}: ingest {n} commits, `message` mode",
             f"{r['message']['seconds']:.2f} s = {r['message']['commits_per_s']:,.0f} commits/s"
             f"; `git log --numstat -M` {r['git_log_numstat_s']:.2f} s",
             f"≤ 2× git log: {r['message_vs_git_log']:.2f}× "
             f"{mark(r['message_vs_git_log'] <= 2)}"),
            (f"{label}: ingest {n} commits, `full` mode (per-symbol changes)",
             f"{r['full']['seconds']:.2f} s = {r['full']['commits_per_s']:,.0f} commits/s, "
             f"{r['full']['symbol_changes']:,} symbol changes",
             f"≥ 50 commits/s {mark(r['full']['commits_per_s'] >= 50)}"),
        ]

    rows = ingest_rows(own, f"this repository ({own['n']} commits)")
    rows += ingest_rows(s3, "generated history")
    if s1:
        rows += ingest_rows(s1, "generated history")
    if d.get("synthetic_all"):
        a = d["synthetic_all"]
        rows.append((f"generated history: ingest all {a['commits']:,} commits, `full` mode",
                     f"{a['seconds']:.1f} s = {a['commits_per_s']:,.0f} commits/s, "
                     f"{a['symbol_changes']:,} symbol changes; bank with code index "
                     f"{q['db_bytes_with_index'] / 1e6:.1f} MB",
                     f"≥ 50 commits/s {mark(a['commits_per_s'] >= 50)}"))
    rows += [
        (f"`history SYMBOL` p50 / p95 (bank of {q['bank_commits']:,} commits, "
         f"{q['symbols_sampled']} symbols)",
         f"{q['history']['p50_ms']:.2f} / {q['history']['p95_ms']:.2f} ms",
         f"p50 ≤ 20 ms {mark(q['history']['p50_ms'] <= 20)}"),
        ("`why FILE:LINE` p50 / p95", f"{q['why']['p50_ms']:.2f} / {q['why']['p95_ms']:.2f} ms",
         f"p50 ≤ 20 ms {mark(q['why']['p50_ms'] <= 20)}"),
        ("`impact SYMBOL --depth 2` p50 / p95",
         f"{q['impact_depth2']['p50_ms']:.2f} / {q['impact_depth2']['p95_ms']:.2f} ms",
         f"p50 ≤ 20 ms {mark(q['impact_depth2']['p50_ms'] <= 20)}"),
        ("`hindsight history` CLI wall p50", f"{q['cli_history']['p50_ms']:.0f} ms", ""),
        (f"save → event in `trace-log` under `watch` p50 / p95 ({w['edits']} edits, "
         f"debounce {w['debounce_ms']} ms)",
         f"{w['visible_in_trace_log']['p50_ms']:.0f} / "
         f"{w['visible_in_trace_log']['p95_ms']:.0f} ms",
         f"≤ 1 s {mark(w['visible_in_trace_log']['p95_ms'] <= 1000)}"),
        ("save → new symbol in `symbols` under `watch` p50 / p95",
         f"{w['visible_in_symbols']['p50_ms']:.0f} / {w['visible_in_symbols']['p95_ms']:.0f} ms",
         f"≤ 1 s {mark(w['visible_in_symbols']['p95_ms'] <= 1000)}"),
    ]
    out = ["| measure (`python bench/history.py`) | result | target |", "|---|---|---|"]
    out += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return "\n".join(out)


def locomo_table(d: dict) -> str:
    ks = (1, 5, 10, 20, 50)
    rows = []
    for mode, label in (("hindsight", "hindsight (z-score fusion and features)"),
                        ("bm25_only", "BM25 over turns only (baseline)"),
                        ("dense_only", "dense MiniLM only, names out of the query (baseline)")):
        a = d[mode]["all"]
        cats = " / ".join(f"{d[mode][c]['recall@10']:.3f}" for c in ("1", "2", "3", "4"))
        rows.append(f"| {label} | " + " / ".join(f"{a[f'recall@{k}']:.3f}" for k in ks)
                    + f" | {cats} | {a['hit@10']:.3f} | {a['session_hit@10']:.3f} | "
                    f"{d[mode]['latency']['p50_ms']:.1f} / {d[mode]['latency']['p95_ms']:.1f} |")
    head = ["| `python bench/recall_locomo.py` | recall@1/5/10/20/50 | recall@10 cat 1/2/3/4 "
            "| hit@10 | session hit@10 | latency p50 / p95 ms |", "|---|---|---|---|---|---|"]
    a = d["hindsight"]["all"]["recall@10"]
    foot = (f"\nTarget recall@10 ≥ 0.87: {a:.3f} {mark(a >= 0.87)}. Retain: "
            f"{d['retain_items_per_s']:,.0f} turns/s searchable; every vector after "
            f"{d['seconds_until_all_vectors']:.1f} s ({d['embed_items_per_s']:.0f} "
            f"embeddings/s); {d['items']:,} turns, {d['hindsight']['questions']} questions.")
    return "\n".join(head + rows) + "\n" + foot


def scale_table(d: dict) -> str:
    out = ["| `python bench/recall_scale.py` | recall p50 / p95 | with rerank p50 / p95 | "
           "retain one p50 / p95 | batch, searchable | bytes / memory |",
           "|---|---|---|---|---|---|"]
    for r in d["sizes"]:
        out.append(f"| {r['memories']:,} memories | {r['recall']['p50_ms']:.0f} / "
                   f"{r['recall']['p95_ms']:.0f} ms | {r['recall_rerank']['p50_ms']:.0f} / "
                   f"{r['recall_rerank']['p95_ms']:.0f} ms | {r['retain_single']['p50_ms']:.0f} / "
                   f"{r['retain_single']['p95_ms']:.0f} ms | {r['batch_searchable_per_s']:,.0f}/s "
                   f"| {r['db_bytes_per_memory']:,} |")
    big = d["sizes"][-1]
    out.append(f"\nTargets at {big['memories']:,}: recall p95 ≤ 50 ms "
               f"{mark(big['recall']['p95_ms'] <= 50)}, with rerank ≤ 150 ms "
               f"{mark(big['recall_rerank']['p95_ms'] <= 150)}; retain one ≤ 50 ms p95 "
               f"{mark(max(r['retain_single']['p95_ms'] for r in d['sizes']) <= 50)}; batch ≥ 200/s "
               f"{mark(min(r['batch_searchable_per_s'] for r in d['sizes']) >= 200)}.")
    return "\n".join(out)


def hooks_table(d: dict) -> str:
    r = d["results"]
    base = r["python_start"]
    out = ["| `python bench/hooks.py` (subprocess wall, process start included) | p50 / p95 "
           "| × `python -c pass` p50 | target |", "|---|---|---|---|",
           f"| `python -c pass` (baseline: the floor of any Python hook) | "
           f"{base['p50_ms']:.0f} / {base['p95_ms']:.0f} ms | 1.0 | |"]
    for ev in ("session-start", "user-prompt-submit", "stop", "pre-compact", "session-end"):
        x = r[ev]
        tgt = (f"p95 ≤ {x['target_p95_ms']:,} ms {mark(x['met'])}" if "target_p95_ms" in x
               else "")
        extra = (f" (briefing ≤ {x['briefing_chars']:,} chars)" if ev == "session-start" else
                 f" ({x['prompts_with_injection']} of {x['n']} prompts got memories)"
                 if ev == "user-prompt-submit" else "")
        out.append(f"| `hook {ev}`{extra} | {x['p50_ms']:.0f} / {x['p95_ms']:.0f} ms | "
                   f"{x['x_python_start_p50']:.1f} | {tgt} |")
    for agent, events in r.get("agents", {}).items():
        for ev, x in events.items():
            extra = (f" ({x['prompts_with_injection']} of {x['n']} prompts got memories)"
                     if ev == "user-prompt-submit" else "")
            vs = f"{x['x_claude_p50']:.2f} × Claude Code's" if "x_claude_p50" in x else ""
            out.append(f"| side by side: `hook {ev.split()[0]}"
                       f"{'' if agent == 'claude-code' else ' --harness ' + agent}`"
                       f"{' (not an edit tool)' if ' ' in ev else ''}{extra} | "
                       f"{x['p50_ms']:.0f} / {x['p95_ms']:.0f} ms | "
                       f"{x['p50_ms'] / base['p50_ms']:.1f}{'; ' + vs if vs and agent != 'claude-code' else ''} | "
                       f"p95 ≤ {x['target_p95_ms']:,} ms {mark(x['met'])} |")
    b = r["stop_2mb"]
    out.append(f"| `hook stop` on a {b['transcript_bytes'] / 2**20:.1f} MB transcript: returns "
               f"/ searchable / all done (embedded) | {b['return_ms']:.0f} ms / "
               f"{b['drain_searchable_s']:.1f} s / {b['background_done_s']:.1f} s "
               f"({b['memories_retained']} memories) | | ≤ 500 ms / – / ≤ 10 s "
               f"{mark(b['met'] and b['return_ms'] <= 500)} |")
    return "\n".join(out)


def anchors_table(d: dict) -> str:
    f, cm = d["fixture"], d["commit_messages"]
    v = f["variants"]
    out = ["| `python bench/anchors.py` | anchors made | precision | recall |",
           "|---|---|---|---|"]
    for label, key in (("fixture, rules as shipped", "shipped rules"),
                       ("fixture, without the stop list", "no stop list"),
                       ("fixture, plain words outside backticks too",
                        "plain words outside backticks")):
        out.append(f"| {label} | {v[key]['made']} | {v[key]['precision']:.3f} | "
                   f"{v[key]['recall']:.3f} |")
    for name, r in cm.items():
        if name != "held_out_total":
            out.append(f"| {name} commit messages ({r['role']}) | {r['made']} | "
                       f"{r['precision']} ({r['correct']}/{r['judged']} judged) | not labelled |")
    if "held_out_total" in cm:
        h = cm["held_out_total"]
        out.append(f"\nTarget precision ≥ 0.95: fixture "
                   f"{mark(f['through_the_bank']['precision'] >= 0.95)}, held-out "
                   f"{h['precision']} {mark((h['precision'] or 0) >= 0.95)}.")
    return "\n".join(out)


def ui_table(d: dict) -> str:
    v, g = d["views"], d["graph"]
    out = [f"| `python bench/ui.py` ({d['memories']:,} memories, stdlib index) | server p50 / "
           "p95 ms | target |", "|---|---|---|"]
    for name in ("banks", "memories", "memory", "recall", "code", "symbol", "graph_json",
                 "hotspots", "pages"):
        x = v[name]
        out.append(f"| {name} | {x['server_p50_ms']:.1f} / {x['server_p95_ms']:.1f} | "
                   f"≤ 300 {mark(x['server_p95_ms'] <= 300)} |")
    first = v["first_recall_ms"]["server_ms"]
    out.append(f"| recall, first request (loads the embedding model) | {first:,.0f} | |")
    r = g["ready_since_navigation_ms"]
    out.append(f"| graph of {g['nodes']} nodes (`{g['symbol']}`) drawn, from navigation | "
               f"{r['p50']:.0f} / {r['p95']:.0f} | ≤ 1,000 {mark(r['p95'] <= 1000)} |")
    t = g["tap_handler_ms"]
    out.append(f"| then a tap on a node reaches its handler | {t['p50']:.2f} / {t['p95']:.2f} |"
               " |")
    return "\n".join(out)


if __name__ == "__main__":
    print(index_table(json.loads((RES / "index.json").read_text())))
    if (RES / "history.json").exists():
        print()
        print(history_table(json.loads((RES / "history.json").read_text())))
    if (RES / "recall_locomo.json").exists():
        print()
        print(locomo_table(json.loads((RES / "recall_locomo.json").read_text())))
    if (RES / "recall_scale.json").exists():
        print()
        print(scale_table(json.loads((RES / "recall_scale.json").read_text())))
    if (RES / "hooks.json").exists():
        print()
        print(hooks_table(json.loads((RES / "hooks.json").read_text())))
    if (RES / "hooks_loaded.json").exists():  # the same script, while other work ran
        print()
        print(hooks_table(json.loads((RES / "hooks_loaded.json").read_text())))
    if (RES / "anchors.json").exists():
        print()
        print(anchors_table(json.loads((RES / "anchors.json").read_text())))
    if (RES / "ui.json").exists():
        print()
        print(ui_table(json.loads((RES / "ui.json").read_text())))
