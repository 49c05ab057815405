"""Full-index runs for bench/index.py: one fresh bank per run, each in its own process.

A run is ``python bench/indexruns.py --child ROOT WORKERS [--dump FILE]``: it indexes ROOT
into a new bank with ``workers`` parser processes and prints one JSON line: wall seconds,
CPU seconds (user+sys) of the main process and of its children (parse workers and forked
resolvers), peak RSS of the main process and of its largest child, the IndexStats counts
and per-phase wall times (``phases``; ``serial_s`` is the part during which no worker ran).
A process per run keeps each run's CPU and peak-RSS figures its own.

:func:`series` alternates a single-process tree-sitter parse of the same files (the
floor, bytes read beforehand) with full-index runs, so that each run is compared with a
floor taken just before it on the same (shared, noisy) machine.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()


def copy_stdlib(dest: Path) -> Path:
    src = Path(sysconfig.get_paths()["stdlib"])
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("site-packages", "__pycache__",
                                                             "*.pyc"), symlinks=True)
    return dest


def make_corpus(work: Path, scale: int) -> Path:
    """The stdlib (``scale`` 1) or ``scale`` copies of it under ``copy0/`` … (the N×
    corpus: every module name repeats once per copy, as in a monorepo of similar parts)."""
    if scale == 1:
        return copy_stdlib(work / "stdlib")
    root = work / f"corpus{scale}"
    root.mkdir()
    first = copy_stdlib(root / "copy0")
    for i in range(1, scale):
        shutil.copytree(first, root / f"copy{i}", symlinks=True)
    return root


def parse_floor(root: Path, files: list[tuple[str, str]]) -> tuple[float, float]:
    """(wall, CPU) seconds of a tree-sitter parse of ``files``, one process, bytes read
    before the clock starts."""
    from hindsight.codeindex.languages import get

    datas = [(get(lang).parser, (root / p).read_bytes()) for p, lang in files]
    c, t = time.process_time(), time.perf_counter()
    for parser, data in datas:
        parser.parse(data)
    return time.perf_counter() - t, time.process_time() - c


def one_run(root: Path, workers: int, dump: Path | None = None) -> dict[str, Any]:
    cmd = [sys.executable, str(HERE), "--child", str(root), str(workers)]
    if dump is not None:
        cmd += ["--dump", str(dump)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def series(root: Path, files: list[tuple[str, str]], workers: list[int], repeat: int,
           dump: Path | None = None) -> dict[str, Any]:
    """Alternate floor and full-index runs: ``repeat`` rounds over ``workers`` (ascending).
    Returns the medians per worker count and the serial share of the one-worker time.
    ``dump``: where the first run with the most workers writes its rows."""
    runs: dict[int, list[dict[str, Any]]] = {w: [] for w in workers}
    floors: list[float] = []
    floors_cpu: list[float] = []
    for r in range(repeat):
        for w in workers:
            fw, fc = parse_floor(root, files)
            floors.append(fw)
            floors_cpu.append(fc)
            run = one_run(root, w, dump if (r == 0 and w == workers[-1]) else None)
            run["floor_wall_s"] = round(fw, 3)
            run["floor_cpu_s"] = round(fc, 3)
            run["ratio_to_parse_floor"] = round(run["wall_s"] / fw, 3)
            # all the CPU the index took (main + workers + resolvers) over the floor's
            run["cpu_ratio_to_parse_floor"] = round(
                (run["cpu_main_s"] + run["cpu_children_s"]) / fc, 3)
            runs[w].append(run)
            print(f"  workers {w}: {run['wall_s']:.2f} s wall (floor {fw:.2f} s, "
                  f"{run['ratio_to_parse_floor']:.2f}x), CPU main {run['cpu_main_s']:.2f} s "
                  f"+ children {run['cpu_children_s']:.2f} s "
                  f"({run['cpu_ratio_to_parse_floor']:.2f}x the floor's {fc:.2f} s), "
                  f"serial {run['serial_s']:.2f} s",
                  flush=True)
    med = statistics.median
    one = med(r["wall_s"] for r in runs[workers[0]]) if workers[0] == 1 else None
    out: dict[str, Any] = {"parse_floor_wall_s": round(med(floors), 3),
                           "parse_floor_cpu_s": round(med(floors_cpu), 3), "by_workers": {}}
    for w, rs in runs.items():
        lines = rs[0]["lines"]
        wall = med(r["wall_s"] for r in rs)
        serial = med(r["serial_s"] for r in rs)
        out["by_workers"][str(w)] = {
            "wall_s": round(wall, 3), "lines_per_s": round(lines / wall),
            "ratio_to_parse_floor": round(med(r["ratio_to_parse_floor"] for r in rs), 3),
            "cpu_ratio_to_parse_floor": round(med(r["cpu_ratio_to_parse_floor"] for r in rs),
                                              3),
            "cpu_main_s": round(med(r["cpu_main_s"] for r in rs), 3),
            "cpu_children_s": round(med(r["cpu_children_s"] for r in rs), 3),
            "serial_s": round(serial, 3),
            "serial_share_of_1_worker": round(serial / one, 4) if one else None,
            "peak_rss_main_mb": max(r["peak_rss_main_mb"] for r in rs),
            "peak_rss_child_mb": max(r["peak_rss_child_mb"] for r in rs),
            "runs": rs}
    return out


# --- the child: one full index -----------------------------------------------------------
def _cpu() -> tuple[float, float]:
    a = resource.getrusage(resource.RUSAGE_SELF)
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime, b.ru_utime + b.ru_stime


def snapshot_lines(raw: Any, code: Any) -> list[str]:
    """Every stored row of the code index, sorted, as JSON lines (file ids left out)."""
    syms, edges = code.snapshot()
    tables = {
        "files": sorted(raw.execute("SELECT path, language, size, mtime_ns, content_hash, "
                                    "lines, module, dir, package, error FROM files")),
        "symbols": syms, "edges": edges,
        "deps": sorted(raw.execute("SELECT f.path, d.key FROM deps d JOIN files f "
                                   "ON f.id=d.file_id")),
        "notes": sorted(raw.execute("SELECT f.path, n.src, n.line, n.text FROM notes n "
                                    "JOIN files f ON f.id=n.file_id")),
        "counts": sorted(raw.execute("SELECT key, value FROM meta WHERE key LIKE 'count_%'")),
        "skipped": sorted(raw.execute("SELECT path, reason FROM skipped")) + sorted(
            raw.execute("SELECT reason, n FROM skip_counts")),
    }
    return [json.dumps([name, *row]) for name, rows in tables.items() for row in rows]


def compare_dumps(a: Path, b: Path) -> dict[str, Any]:
    """Whether two dumps hold the same rows; the first differing rows if not."""
    la, lb = a.read_text().splitlines(), b.read_text().splitlines()
    sa, sb = set(la), set(lb)
    return {"identical": la == lb, "rows": len(lb),
            "sha256": hashlib.sha256("\n".join(lb).encode()).hexdigest()[:16],
            "only_before": sorted(sa - sb)[:10], "only_after": sorted(sb - sa)[:10]}


def child(root: str, workers: int, dump: str | None) -> None:
    home = tempfile.mkdtemp(prefix="hs-bench-home-")
    os.environ["HINDSIGHT_HOME"] = home
    from hindsight.app import open_bank

    bank = open_bank(repo_root_path=root)
    c0 = _cpu()
    t = time.perf_counter()
    st = bank.code.index(full=True, workers=workers)
    wall = time.perf_counter() - t
    c1 = _cpu()
    out = {"workers": workers, "wall_s": round(wall, 3),
           "cpu_main_s": round(c1[0] - c0[0], 3), "cpu_children_s": round(c1[1] - c0[1], 3),
           "peak_rss_main_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
           "peak_rss_child_mb": round(
               resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1),
           "lines": st.lines, "files": st.files_parsed, "symbols": st.symbols,
           "edges": st.edges, "parse_errors": st.parse_errors, "skipped": st.skipped,
           "phases": getattr(st, "phases", {}),
           "serial_s": round(getattr(st, "serial_seconds", 0.0), 3),
           "db_bytes": os.path.getsize(bank.stores.raw.execute(
               "PRAGMA database_list").fetchone()[2])}
    if dump:
        Path(dump).write_text("\n".join(snapshot_lines(bank.stores.raw, bank.stores.code))
                              + "\n")
    bank.close()
    shutil.rmtree(home, ignore_errors=True)
    print(json.dumps(out))


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]),
              sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "--dump" else None)
