"""Print the README's benchmark table from bench/results/*.json (``python bench/report.py``)."""

from __future__ import annotations

import json
from pathlib import Path

RES = Path(__file__).resolve().parent / "results"


def mark(ok: bool) -> str:
    return "✓" if ok else "✗"


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
        ("full index ÷ parse-only", f"{fi['ratio_to_parse_only']:.2f}×",
         f"≤ 1.2× {mark(fi['ratio_to_parse_only'] <= 1.2)}"),
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


if __name__ == "__main__":
    print(index_table(json.loads((RES / "index.json").read_text())))
