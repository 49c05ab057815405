"""bench/index.py: the code index on the Python standard library (issues #2 and #14).

Measures, in one run on the same files:
  * full index runs with 1 and 2 worker processes (and the CPU count when larger), each
    in a fresh bank and its own process (bench/indexruns.py), alternating with a
    single-process tree-sitter parse of the same files (the floor, bytes read beforehand):
    wall seconds, ratio to the floor taken just before, lines/s, CPU seconds of the main
    process and of its children, per-phase wall times, the seconds in serial phases (only
    the main process busy) and their share of the one-worker wall time, peak RSS (main,
    largest child);
  * ``--scale N``: the same runs on N copies of the stdlib under different roots (the 4x
    corpus with ``--scale 4``), to show how cost and the serial share grow;
  * ``ctags -R`` (universal-ctags) on the same file list (a baseline users know);
  * incremental re-index after a one-file edit: in-process ms and CLI wall ms;
  * symbol lookup and callers depth 2 latency p50/p95; ``hindsight symbols`` CLI wall;
  * agreement of Python symbols with ``ast`` on every stdlib file (qualified name + line);
  * ``--dump FILE`` writes every row of the index built with the most workers (sorted,
    without row ids);
    ``--compare FILE`` reports whether this index is identical to such a dump written
    earlier, e.g. by the code before a change (``PYTHONPATH=<old>/src python bench/index.py
    --src DIR --full-only --dump before.jsonl``).

Usage: ``python bench/index.py [--src DIR] [--quick] [--scale 4] [--workers 1,2]
[--repeat N] [--full-only] [--dump FILE] [--compare FILE]``. Writes
bench/results/index.json (``--full-only``: index_full.json). Wall times on a shared
machine are noisy: the CPU seconds beside them are the steadier figure.
Needs ``ctags`` (Debian package universal-ctags) for the baseline; skipped if missing.
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
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine, summary_ms, timed, write  # noqa: E402
from indexruns import compare_dumps, make_corpus, series  # noqa: E402

from hindsight.app import open_bank  # noqa: E402
from hindsight.codeindex.astref import ast_defs  # noqa: E402
from hindsight.codeindex.files import select  # noqa: E402
from hindsight.codeindex.languages import get  # noqa: E402
from hindsight.codeindex.worker import parse_path  # noqa: E402

HS = [sys.executable, "-m", "hindsight"]
# CLI timings as a user sees them: byte-code caches allowed (some sandboxes disable them).
CLI_ENV: dict[str, str] = {}  # the environment of the CLI runs, set in main()


def ctags(root: Path, files: list[tuple[str, str]]) -> dict[str, object] | None:
    exe = shutil.which("ctags")
    if exe is None:
        return None
    with tempfile.TemporaryDirectory() as td:
        lst = Path(td) / "files.txt"
        lst.write_text("\n".join(p for p, _ in files) + "\n")
        t = time.perf_counter()
        subprocess.run([exe, "-L", str(lst), "-f", str(Path(td) / "tags")], cwd=root,
                       check=True, capture_output=True)
        dt = time.perf_counter() - t
        tags = sum(1 for ln in (Path(td) / "tags").read_text(errors="replace").splitlines()
                   if not ln.startswith("!"))
    ver = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    return {"seconds": round(dt, 3), "tags": tags, "version": ver}


def ast_agreement(root: Path, files: list[tuple[str, str]]) -> dict[str, object]:
    agree = total = skipped = 0
    diffs: list[str] = []
    for p, lang in files:
        if lang != "python":
            continue
        want = ast_defs((root / p).read_bytes())
        if want is None:
            skipped += 1
            continue
        got = Counter((s.local, s.start_line) for s in parse_path(str(root), p, lang).symbols
                      if s.kind in ("function", "method", "class"))
        agree += sum((want & got).values())
        total += sum(want.values())
        diffs += [f"{p}: missing {k}" for k in want - got][:3]
        diffs += [f"{p}: extra {k}" for k in got - want][:3]
    return {"defs": total, "agreeing": agree, "rate": round(agree / total, 6) if total else 0,
            "files_ast_cannot_parse": skipped, "differences": diffs[:20]}


def edit(path: Path, n: int) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(f"\n\ndef _bench_added_{n}(x):\n    return len(x)\n")


def workers_list(arg: str | None) -> list[int]:
    if arg:
        return sorted({int(w) for w in arg.split(",")})
    return sorted({1, 2, os.cpu_count() or 1})


def full_index_summary(runs: dict[str, Any], base: dict[str, object] | None
                       ) -> dict[str, Any]:
    """The 2-worker figures in the shape the README table reads."""
    two = runs["by_workers"].get("2") or next(iter(runs["by_workers"].values()))
    r0 = two["runs"][0]
    return {"seconds": two["wall_s"], "lines_per_s": two["lines_per_s"], "workers": 2,
            "symbols": r0["symbols"], "edges": r0["edges"],
            "parse_errors": r0["parse_errors"], "skipped": r0["skipped"],
            "peak_rss_main_mb": two["peak_rss_main_mb"],
            "peak_rss_worker_mb": two["peak_rss_child_mb"], "db_bytes": r0["db_bytes"],
            "cpu_main_s": two["cpu_main_s"], "cpu_children_s": two["cpu_children_s"],
            "serial_s": two["serial_s"],
            "serial_share_of_1_worker": two["serial_share_of_1_worker"],
            "ratio_to_parse_only": two["ratio_to_parse_floor"],
            "cpu_ratio_to_parse_only": two["cpu_ratio_to_parse_floor"],
            "ratio_to_ctags": round(two["wall_s"] / float(base["seconds"]), 3)  # type: ignore[arg-type]
            if base else None}


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", help="directory to index (default: a copy of the stdlib)")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    ap.add_argument("--workers", help="comma-separated worker counts (default: 1, 2 and "
                    "the CPU count)")
    ap.add_argument("--repeat", type=int, help="full-index runs per worker count "
                    "(default 3, --quick 1)")
    ap.add_argument("--scale", type=int, default=1,
                    help="also run on N copies of the stdlib (4: the 4x corpus)")
    ap.add_argument("--full-only", action="store_true",
                    help="only the full-index runs (no ctags, incremental, lookups, CLI)")
    ap.add_argument("--dump", help="write the rows of the index built with the most "
                    "workers to this file")
    ap.add_argument("--compare", help="compare that index with this dump")
    return ap.parse_args()


def main() -> None:
    args = parse_args()
    work = Path(tempfile.mkdtemp(prefix="hs-bench-"))
    os.environ["HINDSIGHT_HOME"] = str(work / "home")
    CLI_ENV.update({k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"})
    root = Path(args.src).resolve() if args.src else make_corpus(work, 1)
    files = sorted(select(str(root)).files.items())
    nbytes = sum((root / p).stat().st_size for p, _ in files)
    print(f"corpus {root}: {len(files)} files, {nbytes / 1e6:.1f} MB")
    for lang in {lang for _, lang in files}:
        get(lang)  # load grammars before timing
    workers = workers_list(args.workers)
    repeat = args.repeat or (1 if args.quick else 3)
    base = None if args.full_only else ctags(root, files)
    if base:
        print(f"ctags: {base}")
    dump = Path(args.dump).resolve() if args.dump else (
        work / "dump.jsonl" if args.compare else None)
    runs = series(root, files, workers, repeat, dump)
    fi = full_index_summary(runs, base)
    floor = runs["parse_floor_wall_s"]
    data: dict[str, Any] = {
        "machine": machine(),
        "corpus": {"root": str(root), "files": len(files), "bytes": nbytes,
                   "lines": runs["by_workers"][str(workers[-1])]["runs"][0]["lines"]},
        "parse_only_1proc_s": floor,
        "parse_only_lines_per_s": round(fi["lines_per_s"] * fi["seconds"] / floor),
        "ctags": base, "full_index_runs": runs, "full_index": fi}
    if args.compare and dump is not None:
        data["same_as"] = {"file": args.compare, **compare_dumps(Path(args.compare), dump)}
        print(f"same rows as {args.compare}: {data['same_as']['identical']}")
    if args.scale > 1:
        big = make_corpus(work, args.scale)
        bfiles = sorted(select(str(big)).files.items())
        print(f"{args.scale}x corpus {big}: {len(bfiles)} files")
        data[f"scale_{args.scale}"] = series(big, bfiles, workers, repeat)
        shutil.rmtree(big, ignore_errors=True)
    if not args.full_only:
        data.update(in_process(root, files, 2 if args.quick else 5, fi))
    path = write("index_full" if args.full_only else "index", data)
    shutil.rmtree(work, ignore_errors=True)
    print(f"full index (2 workers): {fi['seconds']:.2f} s, {fi['ratio_to_parse_only']:.2f}x "
          f"the parse floor, serial share {fi['serial_share_of_1_worker']}")
    print(f"wrote {path}")


def in_process(root: Path, files: list[tuple[str, str]], reps: int, fi: dict[str, Any]
               ) -> dict[str, Any]:
    """Incremental, lookup, CLI and ``ast`` measures on an index built in this process."""
    bank = open_bank(repo_root_path=str(root))
    bank.code.index(full=True)
    subprocess.run([*HS, "status", "--repo-root", str(root)], check=True, capture_output=True,
                   env=CLI_ENV)  # warm-up: writes byte-code caches
    cli_full, _ = timed(subprocess.run, [*HS, "index", "--full", "--repo-root", str(root)],
                        check=True, capture_output=True, env=CLI_ENV)
    fi["cli_wall_s"] = round(cli_full, 3)
    # incremental after a one-file edit
    target = root / "json" / "decoder.py"
    inc: list[float] = []
    for i in range(reps):
        edit(target, i)
        dt, s2 = timed(bank.code.index)
        assert s2.files_parsed == 1, s2
        inc.append(dt)
    inc_cli: list[float] = []
    for i in range(reps):
        edit(target, 100 + i)
        dt, _ = timed(subprocess.run, [*HS, "index", "--repo-root", str(root)], check=True,
                      capture_output=True, env=CLI_ENV)
        inc_cli.append(dt)
    # query latency
    store = bank.stores.code
    rnd = random.Random(7)
    syms = list(store.conn.execute(
        "SELECT s.name, f.path || '::' || s.local FROM symbols s JOIN files f "
        "ON f.id=s.file_id WHERE s.kind IN ('function','method')"))
    names = [n for n, _ in rnd.sample(syms, 300)]
    qnames = [q for _, q in rnd.sample(syms, 200)]
    look = [timed(store.find_symbols, n, None, None, 50)[0] for n in names]
    from hindsight.codeindex.query import callers

    cal = [timed(callers, store, q, 2)[0] for q in qnames]
    cli_sym = [timed(subprocess.run, [*HS, "symbols", n, "--repo-root", str(root)],
                     capture_output=True, env=CLI_ENV)[0] for n in names[:reps * 2]]
    bank.close()
    agree = ast_agreement(root, files)
    out = {"incremental_one_file": {"in_process": summary_ms(inc),
                                                   "cli_wall": summary_ms(inc_cli)},
           "symbol_lookup": summary_ms(look), "callers_depth2": summary_ms(cal),
           "cli_symbols_wall": summary_ms(cli_sym), "ast_agreement": agree}
    print(f"incremental one-file: {out['incremental_one_file']}")
    print(f"symbol lookup: {out['symbol_lookup']}; callers d2: {out['callers_depth2']}")
    print(f"cli symbols wall: {out['cli_symbols_wall']}")
    print(f"ast agreement: {agree['agreeing']}/{agree['defs']} = {agree['rate']:.4%}")
    return out


if __name__ == "__main__":
    main()
