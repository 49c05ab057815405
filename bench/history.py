"""Benchmark git history ingest, history queries and the live edit trace.

Ingest of the newest N commits in ``message`` and ``full`` modes, side by side with plain
``git log --numstat -M`` over the same commits in the same run; ``history``, ``why`` and
``impact --depth 2`` latency (in process and through the CLI); and how long after a save
an edit is visible in ``trace-log`` and in symbol queries under ``watch``.

Repositories: this project's own (real history) and a generated one with a long history
(``bench/synthrepo.py``: real stdlib code, synthetic edits; default 5,000 commits).

    python bench/history.py [--commits 5000] [--quick]

Writes bench/results/history.json.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine, peak_rss_mb, summary_ms, timed, write  # noqa: E402
from synthrepo import build  # noqa: E402

from hindsight.app import open_bank  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def git_log(repo: Path, n: int) -> float:
    t, _ = timed(subprocess.run, ["git", "-C", str(repo), "log", f"-n{n}", "--numstat", "-M",
                                  "--format=%H%x00%P%x00%an%x00%ae%x00%aI%x00%cI%x00%B",
                                  "HEAD"], capture_output=True, check=True)
    return t


def ingest_run(repo: Path, home: Path, mode: str, n: int) -> dict[str, Any]:
    os.environ["HINDSIGHT_HOME"] = str(home)
    shutil.rmtree(home, ignore_errors=True)
    with open_bank(str(repo)) as b:
        t, st = timed(b.history.ingest, mode=mode, limit=n)
    return {"mode": mode, "commits": st.ingested, "seconds": round(t, 3),
            "commits_per_s": round(st.ingested / t, 1) if t else None,
            "symbol_changes": st.symbol_changes}


def compare_ingest(repo: Path, home: Path, n: int, reps: int) -> dict[str, Any]:
    out: dict[str, Any] = {"repo": repo.name, "n": n}
    logs = [git_log(repo, n) for _ in range(reps)]
    out["git_log_numstat_s"] = round(min(logs), 3)
    for mode in ("message", "full"):
        runs = [ingest_run(repo, home, mode, n) for _ in range(reps if mode == "message"
                                                                 else 1)]
        best = min(runs, key=lambda r: r["seconds"])
        out[mode] = best
    out["message_vs_git_log"] = round(out["message"]["seconds"] / out["git_log_numstat_s"], 2)
    return out


def query_latency(repo: Path, home: Path, samples: int) -> dict[str, Any]:
    os.environ["HINDSIGHT_HOME"] = str(home)
    rnd = random.Random(3)
    with open_bank(str(repo)) as b:
        b.code.index()
        st = b.history.ingest()
        rows = b.stores.raw.execute("SELECT DISTINCT s.path, s.local FROM symbol_changes s JOIN files "
                              "f ON f.path=s.path JOIN symbols y ON y.file_id=f.id AND "
                              "y.local=s.local").fetchall()
        rnd.shuffle(rows)
        picks = rows[:samples]
        hist, first, why, imp, sizes = [], [], [], [], []
        for path, local in picks:
            spec = f"{path}::{local}"
            # the first question about a file computes the symbol changes of the huge
            # commits that touched it (history/lazy.py); later ones read them
            t, res = timed(b.history.history, spec)
            first.append(t)
            t, res = timed(b.history.history, spec)
            hist.append(t)
            sizes.append(len(res["entries"]))
            sym = b.stores.code.symbols_by_qname([spec])[0]
            t, _ = timed(b.history.why, path, sym.start_line + 1)
            why.append(t)
            t, _ = timed(b.history.impact, spec, 2)
            imp.append(t)
        commits = b.stores.history.commit_count()
        counts = b.stores.history.history_counts()
        db_bytes = sum(os.path.getsize(p) for p in (b.path, b.path + "-wal")
                       if os.path.exists(p))
    cli = []
    env = {**os.environ}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    for path, local in picks[:10]:
        t, _ = timed(subprocess.run, [sys.executable, "-m", "hindsight", "history",
                                      f"{path}::{local}", "--json"], cwd=repo, env=env,
                     capture_output=True, check=True)
        cli.append(t)
    return {"bank_commits": commits, "symbol_changes": counts["symbol_changes"],
            "db_bytes_with_index": db_bytes, "ingest_all_s": st.seconds, "symbols_sampled": len(picks),
            "history_entries_mean": round(sum(sizes) / max(1, len(sizes)), 1),
            "history_first_question": summary_ms(first),
            "history": summary_ms(hist), "why": summary_ms(why), "impact_depth2": summary_ms(imp),
            "cli_history": summary_ms(cli)}


def watch_latency(repo: Path, home: Path, edits: int) -> dict[str, Any]:
    """Save a file, then poll until the event is in the trace and the new symbol is in the
    index (another connection, as another process would see it)."""
    os.environ["HINDSIGHT_HOME"] = str(home)
    bank = open_bank(str(repo))
    bank.code.index()
    w = bank.history.watcher()
    ready = threading.Event()
    th = threading.Thread(target=w.run, kwargs={"ready": ready.set}, daemon=True)
    th.start()
    ready.wait(30)
    time.sleep(0.3)
    target = next(p for p in sorted(bank.stores.code.load_files()) if p.endswith(".py"))
    lat_trace, lat_sym = [], []
    with open_bank(str(repo)) as reader:
        for i in range(edits):
            name = f"_watch_bench_{i}"
            before = len(reader.history.trace_log(file=target, limit=10_000))
            t0 = time.perf_counter()
            with open(repo / target, "a", encoding="utf-8") as fh:
                fh.write(f"\n\ndef {name}():\n    return {i}\n")
            seen_trace = seen_sym = None
            while time.perf_counter() - t0 < 10 and (seen_trace is None or seen_sym is None):
                now = time.perf_counter() - t0
                if seen_trace is None and len(reader.history.trace_log(file=target, limit=10_000)
                                              ) > before:
                    seen_trace = now
                if seen_sym is None and reader.code.symbols(name)[0] == "exact":
                    seen_sym = now
                time.sleep(0.01)
            lat_trace.append(seen_trace if seen_trace is not None else 10.0)
            lat_sym.append(seen_sym if seen_sym is not None else 10.0)
            time.sleep(0.3)
    w.stop.set()
    th.join(10)
    bank.close()
    return {"edits": edits, "debounce_ms": 200, "visible_in_trace_log": summary_ms(lat_trace),
            "visible_in_symbols": summary_ms(lat_sym)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--commits", type=int, default=5000, help="generated history length")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions and samples")
    args = ap.parse_args()
    reps = 1 if args.quick else 3
    tmp = Path(tempfile.mkdtemp(prefix="hindsight-bench-history-"))
    try:
        res: dict[str, Any] = {"machine": machine()}
        own = tmp / "own"
        subprocess.run(["git", "clone", "-q", "--no-local", str(ROOT), str(own)], check=True)
        own_n = int(subprocess.run(["git", "-C", str(own), "rev-list", "--count", "HEAD"],
                                   capture_output=True, text=True, check=True).stdout)
        print(f"own repository: {own_n} commits", flush=True)
        res["own"] = compare_ingest(own, tmp / "home-own", own_n, reps)
        print(res["own"], flush=True)
        t0 = time.perf_counter()
        synth = build(tmp / "synth", args.commits)
        res["synthetic_build_s"] = round(time.perf_counter() - t0, 1)
        print(f"generated repository: {args.commits} commits in {res['synthetic_build_s']}s",
              flush=True)
        for n in (300, 1000) if not args.quick else (300,):
            res[f"synthetic_{n}"] = compare_ingest(synth, tmp / "home-synth", n, reps)
            print(res[f"synthetic_{n}"], flush=True)
        os.environ["HINDSIGHT_HOME"] = str(tmp / "home-q")
        with open_bank(str(synth)) as b:
            t, st = timed(b.history.ingest, all_=True, mode="full")
            res["synthetic_all"] = {"commits": st.ingested, "seconds": round(t, 2),
                                    "commits_per_s": round(st.ingested / t, 1),
                                    "symbol_changes": st.symbol_changes}
            print(res["synthetic_all"], flush=True)
        res["queries"] = query_latency(synth, tmp / "home-q", 40 if args.quick else 200)
        print(res["queries"], flush=True)
        res["watch"] = watch_latency(own, tmp / "home-w", 5 if args.quick else 20)
        print(res["watch"], flush=True)
        res["peak_rss_mb"] = peak_rss_mb()
        path = write("history", res)
        print(f"wrote {path}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
