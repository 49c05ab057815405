"""bench/pages.py: the knowledge pages on the Python standard library (issue 13, targets).

The bank: the standard library copied and made a git repository (one commit, then
``--commits`` small commits, every third a fix, as bench/ui.py does), indexed (2 workers)
and ingested, with ``--memories`` convention, decision and lesson memories (hashing
embedder: the pages use no vectors). Measured:

  * the first build of all four pages (nothing cached: every file is scanned), wall and
    CPU seconds, per page; target <= 30 s;
  * ``--deltas`` times: one commit editing one file, the git hook's index + ingest (timed
    apart), then the delta refresh of all pages (what the commit trigger runs), wall and
    CPU, which sections changed and how many files the scan read; target <= 2 s.

The machine's 2 cores are shared with other work: wall times are noisy, the CPU seconds
beside them are steadier.

    python bench/pages.py [--commits 40] [--memories 200] [--deltas 5]

Writes bench/results/pages.json.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import machine, pct, write  # noqa: E402
from indexruns import copy_stdlib  # noqa: E402

from hindsight.app import open_bank  # noqa: E402


def git(root: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@example.com",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "b@example.com",
           "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "-c", "init.defaultBranch=main", *args], cwd=root, env=env,
                   check=True, capture_output=True)


def edit(root: Path, rnd: random.Random, i: int, files: list[Path]) -> str:
    """Add a comment inside a random function of one of ``files``; commit; its path."""
    f = rnd.choice(files)
    lines = f.read_text(encoding="utf-8", errors="surrogateescape").split("\n")
    defs = [n for n, line in enumerate(lines) if line.startswith("def ")]
    at = rnd.choice(defs) + 1 if defs else len(lines)
    lines.insert(at, f"    # bench edit {i}")
    f.write_text("\n".join(lines), encoding="utf-8", errors="surrogateescape")
    git(root, "commit", "-qam", f"{'fix' if i % 3 == 0 else 'change'}: edit {i} of {f.name}")
    return str(f.relative_to(root))


def timed(fn: Any, *args: Any, **kw: Any) -> tuple[float, float, Any]:
    w, c = time.perf_counter(), time.process_time()
    out = fn(*args, **kw)
    return time.perf_counter() - w, time.process_time() - c, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--commits", type=int, default=40)
    ap.add_argument("--memories", type=int, default=200)
    ap.add_argument("--deltas", type=int, default=5)
    args = ap.parse_args()
    rnd = random.Random(13)
    work = Path(tempfile.mkdtemp(prefix="hs-pages-"))
    os.environ["HINDSIGHT_HOME"] = str(work / "home")
    os.environ["HINDSIGHT_EMBEDDER"] = "hashing"
    root = work / "stdlib"
    copy_stdlib(root)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "import the standard library")
    files = sorted(p for p in root.glob("*.py") if p.stat().st_size > 2000)[:60]
    for i in range(args.commits):
        edit(root, rnd, i, files)
    out: dict[str, Any] = {"machine": machine(), "commits": args.commits,
                           "memories": args.memories}
    try:
        with open_bank(str(root)) as bank:
            t, _c, st = timed(bank.code.index, workers=2)
            out["index"] = {"seconds": round(t, 1), "files": st.files_parsed}
            t, _c, hs = timed(bank.history.ingest)
            out["ingest"] = {"seconds": round(t, 1), "commits": hs.ingested}
            kinds = ("convention", "decision", "lesson")
            for i in range(args.memories):
                bank.memory.retain(f"Memory {i}: the {rnd.choice(files).stem} module keeps "
                                   f"rule {i} about {rnd.choice(('parsing', 'io', 'text'))}",
                                   kind=kinds[i % 3])
            wall, cpu, res = timed(bank.pages.refresh, reason="bench first build")
            out["first_build"] = {"seconds": round(wall, 2), "cpu_seconds": round(cpu, 2),
                                  "scan_files_read": res["scan_files_read"],
                                  "pages_ms": {p["name"]: p["ms"] for p in res["pages"]},
                                  "target_seconds": 30}
            print(f"first build: {wall:.2f} s wall, {cpu:.2f} s CPU", flush=True)
            deltas = []
            for i in range(args.deltas):
                path = edit(root, rnd, 1000 + i, files)
                t_idx, _c, _st = timed(bank.code.index)
                t_ing, _c, _hs = timed(bank.history.ingest)
                wall, cpu, res = timed(bank.pages.refresh, reason="bench delta")
                changed = {p["name"]: p["changed"] for p in res["pages"] if p["written"]}
                deltas.append({"edited": path, "index_s": round(t_idx, 2),
                               "ingest_s": round(t_ing, 2), "seconds": round(wall, 3),
                               "cpu_seconds": round(cpu, 3),
                               "scan_files_read": res["scan_files_read"],
                               "pages_ms": {p["name"]: p["ms"] for p in res["pages"]},
                               "changed": changed})
                print(f"delta {i}: {wall:.2f} s wall, {cpu:.2f} s CPU, changed {changed}",
                      flush=True)
            secs = [d["seconds"] for d in deltas]
            out["delta_refresh"] = {"runs": deltas, "p50_seconds": round(pct(secs, 50), 3),
                                    "max_seconds": round(max(secs), 3), "target_seconds": 2}
            out["page_sizes"] = {p.name: sum(len(s.text) for s in p.sections)
                                 for p in bank.pages.list()}
            arch = bank.pages.get("architecture")  # what the survey says, to read
            out["sample"] = {s.heading: s.text.splitlines()[:4] for s in arch.sections}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(write("pages", out))


if __name__ == "__main__":
    main()
