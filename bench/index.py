"""bench/index.py: the code index on the Python standard library (issue #2).

Measures, in one run on the same files:
  * tree-sitter parse-only time, single process (the floor);
  * ``ctags -R`` (universal-ctags) on the same file list (a baseline users know);
  * hindsight full index in-process (``--workers`` = CPU count): seconds, lines/s, peak RSS,
    database size; and through the CLI (wall time);
  * incremental re-index after a one-file edit: in-process ms and CLI wall ms;
  * symbol lookup and callers depth 2 latency p50/p95; ``hindsight symbols`` CLI wall;
  * agreement of Python symbols with ``ast`` on every stdlib file (qualified name + line).

Usage: ``python bench/index.py [--src DIR] [--quick]``. Writes bench/results/index.json.
Needs ``ctags`` (Debian package universal-ctags) for the baseline; skipped if missing.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine, peak_rss_mb, summary_ms, timed, write  # noqa: E402

from hindsight.app import open_bank  # noqa: E402
from hindsight.codeindex.astref import ast_defs  # noqa: E402
from hindsight.codeindex.files import select  # noqa: E402
from hindsight.codeindex.languages import get  # noqa: E402
from hindsight.codeindex.worker import parse_path  # noqa: E402

HS = [sys.executable, "-m", "hindsight"]
# CLI timings as a user sees them: byte-code caches allowed (some sandboxes disable them).
CLI_ENV: dict[str, str] = {}  # the environment of the CLI runs, set in main()


def copy_stdlib(dest: Path) -> Path:
    src = Path(sysconfig.get_paths()["stdlib"])
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("site-packages", "__pycache__",
                                                             "*.pyc"), symlinks=True)
    return dest


def parse_only(root: Path, files: list[tuple[str, str]]) -> float:
    datas = [(lang, (root / p).read_bytes()) for p, lang in files]
    t = time.perf_counter()
    for lang, data in datas:
        get(lang).parser.parse(data)
    return time.perf_counter() - t


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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", help="directory to index (default: a copy of the stdlib)")
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hs-bench-"))
    os.environ["HINDSIGHT_HOME"] = str(work / "home")
    CLI_ENV.update({k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"})
    root = Path(args.src).resolve() if args.src else copy_stdlib(work / "stdlib")
    files = sorted(select(str(root)).files.items())
    nbytes = sum((root / p).stat().st_size for p, _ in files)
    print(f"corpus {root}: {len(files)} files, {nbytes / 1e6:.1f} MB")
    for lang in {lang for _, lang in files}:
        get(lang)  # load grammars before timing
    floor = parse_only(root, files)
    print(f"parse-only (1 process): {floor:.2f}s")
    base = ctags(root, files)
    print(f"ctags: {base}")
    reps = 2 if args.quick else 5
    bank = open_bank(repo_root_path=str(root))
    t_full, st = timed(bank.code.index, full=True)
    rss_self = peak_rss_mb()
    rss_workers = peak_rss_mb(children=True)
    lines = st.lines
    db_bytes = bank.status()["database_bytes"]
    print(f"full index: {t_full:.2f}s, {lines / t_full:,.0f} lines/s, {st.symbols} symbols, "
          f"{st.edges} edges")
    subprocess.run([*HS, "status", "--repo-root", str(root)], check=True, capture_output=True,
                   env=CLI_ENV)  # warm-up: writes byte-code caches
    cli_full, _ = timed(subprocess.run, [*HS, "index", "--full", "--repo-root", str(root)],
                        check=True, capture_output=True, env=CLI_ENV)
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
    data = {
        "machine": machine(),
        "corpus": {"root": str(root), "files": len(files), "bytes": nbytes, "lines": lines},
        "parse_only_1proc_s": round(floor, 3),
        "parse_only_lines_per_s": round(lines / floor),
        "ctags": base,
        "full_index": {"seconds": round(t_full, 3), "lines_per_s": round(lines / t_full),
                       "workers": os.cpu_count(), "symbols": st.symbols, "edges": st.edges,
                       "parse_errors": st.parse_errors, "skipped": st.skipped,
                       "peak_rss_main_mb": rss_self, "peak_rss_worker_mb": rss_workers,
                       "db_bytes": db_bytes, "cli_wall_s": round(cli_full, 3),
                       "ratio_to_parse_only": round(t_full / floor, 3),
                       "ratio_to_ctags": round(t_full / base["seconds"], 3) if base else None},
        "incremental_one_file": {"in_process": summary_ms(inc), "cli_wall": summary_ms(inc_cli)},
        "symbol_lookup": summary_ms(look),
        "callers_depth2": summary_ms(cal),
        "cli_symbols_wall": summary_ms(cli_sym),
        "ast_agreement": agree,
    }
    path = write("index", data)
    shutil.rmtree(work, ignore_errors=True)
    print(f"incremental one-file: {data['incremental_one_file']}")
    print(f"symbol lookup: {data['symbol_lookup']}; callers d2: {data['callers_depth2']}")
    print(f"cli symbols wall: {data['cli_symbols_wall']}")
    print(f"ast agreement: {agree['agreeing']}/{agree['defs']} = {agree['rate']:.4%}")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
