"""The team server under load (issue 11, ``bench/server_load.py``): a ``hindsight serve``
subprocess on 127.0.0.1 with one bank of ``--memories`` memories, then for each client
count a mix of 80 % recall and 20 % retain for ``--seconds``: throughput, latency
p50/p95/p99 (client side, one keep-alive connection per client), errors, and a final count
check (every acknowledged new memory is in the bank: nothing lost).

Backends: ``sqlite`` (the bank's SQLite file; tokens in ``server.db``) and ``postgres``
(``--embedded-postgres`` in a temporary directory: memories and tokens in PostgreSQL).
Memories are synthetic sentences from a 2,000-word vocabulary. With ``--embedder minilm``
(the default, as a real server runs) the server embeds every query and every retain with
all-MiniLM-L6-v2; the preload is written by this process through the served bank's own
``MemoryService.retain_batch`` (the code behind ``/v1/retain/batch``, without HTTP) with
**synthetic vectors**: 384-dimensional feature hashing of the text stored under the MiniLM
model id, so the PostgreSQL bank holds 384-d rows and its dense search goes through the
HNSW index as a real bank of that size would (embedding 100,000 texts with MiniLM would
take ≈ 15 min here); on PostgreSQL the HNSW index is dropped for the preload and built after
it (pgvector's advice for a bulk load: one build of ≈ 30 s instead of an index insert per
row, ≈ 20 min at 100,000). Batch retain over HTTP (real embedder) is then timed on
``--batch-check`` more memories, and the last of them is searched by text at once. With
``--embedder hashing`` everything (preload included) goes through HTTP with the 256-d
hashing embedder (no HNSW: 256-d vectors are searched exactly).

    python bench/server_load.py [--memories 100000] [--clients 1,4,16] [--seconds 60]
        [--backends sqlite,postgres] [--embedder minilm|hashing] [--batch-check 2000]
        [--workers 1]
        [--out bench/results/server_load.json]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import selectors
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BANK = "bench::server"
WORDS = [f"w{i:04d}" for i in range(2000)]


def sentence(rng: random.Random, n: int = 12) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def quantile(xs: list[float], q: float) -> float:
    if not xs:
        return 0.0
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


class Client:
    """One keep-alive connection; ``post``/``get`` give (status, JSON)."""

    def __init__(self, port: int, token: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.h = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        for attempt in (1, 2):  # once more on a connection the server closed while idle
            try:
                self.conn.request(method, path, body=data, headers=self.h)
                resp = self.conn.getresponse()
                raw = resp.read()
                break
            except (OSError, http.client.HTTPException):
                self.conn.close()
                if attempt == 2:
                    return 0, None
        try:
            return resp.status, json.loads(raw)
        except ValueError:
            return resp.status, raw.decode("utf-8", "replace")


def start(home: Path, env: dict[str, str], extra: list[str]) -> tuple[subprocess.Popen[str], int]:
    """``hindsight serve`` on a free port; its stderr goes to ``home/../serve.err`` (a pipe
    nobody reads would fill and stall the server)."""
    home.parent.mkdir(parents=True, exist_ok=True)
    err = (home.parent / "serve.err").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "hindsight", "serve", "--port", "0",
                             *extra], env=env, stdout=subprocess.PIPE, stderr=err,
                            text=True)
    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    if not sel.select(timeout=180):
        proc.kill()
        proc.wait()
        raise SystemExit("serve did not start: "
                         f"{(home.parent / 'serve.err').read_text()[-2000:]}")
    line = proc.stdout.readline()
    return proc, int(line.rsplit(":", 1)[1])


def preload_direct(home: Path, dsn: str, n: int, rng: random.Random, bank: str = BANK,
                   items: list[dict[str, Any]] | None = None) -> str:
    """Write ``n`` memories (or ``items``, MemoryItem fields) into the served bank from
    this process (the server's ``retain_batch`` path without HTTP) with synthetic 384-d
    vectors under the MiniLM model id (module doc), owned by agent ``bench``; returns the
    last text."""
    os.environ["HINDSIGHT_HOME"] = str(home)
    os.environ["HINDSIGHT_EMBEDDER"] = "minilm"
    os.environ.pop("HINDSIGHT_DATABASE_URL", None)
    if dsn:
        os.environ["HINDSIGHT_DATABASE_URL"] = dsn
    sys.path.insert(0, str(ROOT / "src"))
    from hindsight.app import open_served_bank
    from hindsight.models import MemoryItem
    from hindsight.providers.hashing import HashingEmbedder
    from hindsight.providers.local_minilm import MODEL_ID

    synthetic = HashingEmbedder(384)
    synthetic.model_id = MODEL_ID
    todo = items if items is not None else \
        [{"text": f"m{i} {sentence(rng)}"} for i in range(n)]
    served = open_served_bank(bank)
    hnsw = _drop_hnsw(dsn) if dsn else []
    try:
        served.memory._embedder = synthetic
        for lo in range(0, len(todo), 1000):
            served.memory.retain_batch([MemoryItem(**{**it, "agent": "bench",
                                                      "owner": "bench"})
                                        for it in todo[lo:lo + 1000]])
        return str(todo[-1]["text"]) if todo else ""
    finally:
        served.close()
        if dsn:
            _create(dsn, hnsw)


def _drop_hnsw(dsn: str) -> list[str]:
    """Drop the HNSW indexes of the database's banks; their definitions. pgvector's advice
    for a bulk load: build the index after the rows are in (one build instead of an
    index insert per vector: 27 s against ≈ 20 min at 100,000 rows here)."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute("SELECT schemaname, indexname, indexdef FROM pg_indexes "
                            "WHERE indexdef LIKE '%USING hnsw%'").fetchall()
        for schema, name, _d in rows:
            conn.execute(f'DROP INDEX "{schema}"."{name}"')
    return [d for _s, _n, d in rows]


def _create(dsn: str, definitions: list[str]) -> None:
    """Build the dropped indexes again (``maintenance_work_mem`` 1 GB so the HNSW graph
    is built in memory)."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("SET maintenance_work_mem = '1GB'")
        for d in definitions:
            conn.execute(d)


def preload_http(c: Client, n: int, rng: random.Random, start: int = 0) -> str:
    """Retain ``n`` memories through ``/v1/retain/batch`` (1,000 per request); the last
    text."""
    done, last = 0, ""
    while done < n:
        k = min(1000, n - done)
        items = [{"text": f"m{start + done + i} {sentence(rng)}"} for i in range(k)]
        status, res = c.request("POST", "/v1/retain/batch", {"bank": BANK, "items": items})
        if status != 200:
            raise SystemExit(f"batch retain failed: {status} {str(res)[:300]}")
        done, last = done + k, items[-1]["text"]
    return last


def run_backend(backend: str, args: argparse.Namespace) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="hindsight-load-"))
    tmp.chmod(0o755)
    home = tmp / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
    env.update(HINDSIGHT_HOME=str(home), HINDSIGHT_EMBEDDER=args.embedder,
               HINDSIGHT_SERVE_WORKERS=str(args.workers), PYTHONPATH=str(ROOT / "src"))
    extra = ["--embedded-postgres", str(tmp / "pg")] if backend == "postgres" else []
    proc, port = start(home, env, extra)
    try:
        tok = json.loads(subprocess.run(
            [sys.executable, "-m", "hindsight", "token", "create", "--agent", "bench",
             "--role", "write", "--json"], env=env, capture_output=True, text=True,
            check=True).stdout)["token"]
        rng = random.Random(7)
        c = Client(port, tok)
        out: dict[str, Any] = {"backend": backend, "memories": args.memories,
                               "embedder": args.embedder, "workers": args.workers}
        t0 = time.perf_counter()
        if args.embedder == "minilm":
            dsn = json.loads((home / "server.json").read_text())["database_url"]
            preload_direct(home, dsn, args.memories, rng)
            if dsn:  # the planner's row estimate (what picks HNSW) as autovacuum would set it
                import psycopg

                with psycopg.connect(dsn, autocommit=True) as conn:
                    conn.execute("ANALYZE")
            out["preload"] = "in process, synthetic 384-d vectors"
            out["preload_s"] = round(time.perf_counter() - t0, 1)
            t0 = time.perf_counter()
            last = preload_http(c, args.batch_check, rng, args.memories)
            batch = args.batch_check
        else:
            last = preload_http(c, args.memories, rng)
            batch = args.memories
            out["preload"] = "HTTP batch retain"
        took = time.perf_counter() - t0
        out["batch_retained"] = batch
        out["batch_retain_per_s"] = round(batch / took, 1)
        status, res = c.request("POST", "/v1/recall", {"bank": BANK, "text": last, "k": 1,
                                                       "dense": False})
        out["last_batch_searchable"] = status == 200 and bool(res["hits"]) and \
            res["hits"][0]["text"] == last
        t0 = time.perf_counter()  # the server loads its model on the first dense recall
        c.request("POST", "/v1/recall", {"bank": BANK, "text": "warm up", "k": 10})
        out["first_recall_s"] = round(time.perf_counter() - t0, 2)
        out["runs"] = [load(port, tok, n, args.seconds) for n in args.clients]
        _s, listed = c.request("GET", "/metrics")
        active = [ln for ln in str(listed).splitlines() if ln.startswith(
            f'hindsight_memories{{bank="{BANK}",status="active"}}')]
        created = sum(r["retained"] for r in out["runs"])
        out["final_active"] = int(float(active[0].split()[-1])) if active else -1
        out["expected_active"] = args.memories + \
            (args.batch_check if args.embedder == "minilm" else 0) + created
        out["nothing_lost"] = out["final_active"] == out["expected_active"]
        err = (tmp / "serve.err").read_text(errors="replace")
        out["server_tracebacks"] = err.count("Traceback (most recent call last)")
        if out["server_tracebacks"]:
            (Path(args.out).parent / f"server_load_{backend}.err").write_text(err[-20000:])
        return out
    finally:
        proc.send_signal(2)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(tmp, ignore_errors=True)


def load(port: int, tok: str, clients: int, seconds: float) -> dict[str, Any]:
    lat: dict[str, list[float]] = {"recall": [], "retain": []}
    errors: list[int] = []
    retained = [0]
    lock = threading.Lock()
    end = time.monotonic() + seconds

    def worker(n: int) -> None:
        rng = random.Random(1000 + n)
        c = Client(port, tok)
        i = 0
        while time.monotonic() < end and i < 1_000_000:
            i += 1
            kind = "retain" if rng.random() < 0.2 else "recall"
            body = ({"bank": BANK, "text": f"load {n} {i} {sentence(rng)}"} if kind == "retain"
                    else {"bank": BANK, "text": sentence(rng, 4), "k": 10})
            t = time.perf_counter()
            status, res = c.request("POST", f"/v1/{kind}", body)
            d = time.perf_counter() - t
            with lock:
                if status != 200:
                    errors.append(status)
                    continue
                lat[kind].append(d)
                if kind == "retain" and res.get("action") == "created":
                    retained[0] += 1

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    every = lat["recall"] + lat["retain"]
    row: dict[str, Any] = {"clients": clients, "seconds": round(wall, 1),
                           "requests_per_s": round(len(every) / wall, 1),
                           "errors": len(errors), "retained": retained[0],
                           "error_statuses": {str(k): errors.count(k) for k in set(errors)}}
    for kind in ("recall", "retain"):
        for q in (0.5, 0.95, 0.99):
            row[f"{kind}_p{int(q * 100)}_ms"] = round(quantile(lat[kind], q) * 1000, 1)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--memories", type=int, default=100_000)
    ap.add_argument("--clients", default="1,4,16")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--backends", default="sqlite,postgres")
    ap.add_argument("--embedder", choices=("minilm", "hashing"), default="minilm")
    ap.add_argument("--workers", type=int, default=1, help="serveWorkers of the server")
    ap.add_argument("--batch-check", type=int, default=2000,
                    help="memories retained over HTTP after a direct preload (minilm)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "server_load.json"))
    args = ap.parse_args()
    args.clients = [int(x) for x in args.clients.split(",")]
    results = [run_backend(b, args) for b in args.backends.split(",")]
    Path(args.out).write_text(json.dumps({"date": time.strftime("%Y-%m-%d"),
                                          "cores": os.cpu_count(), "results": results},
                                         indent=2) + "\n")
    for r in results:
        print(f"{r['backend']}: {r['memories']} memories ({r['preload']}), batch retain "
              f"over HTTP {r['batch_retain_per_s']}/s, nothing lost: {r['nothing_lost']}")
        for row in r["runs"]:
            print(f"  {row['clients']:>2} clients: {row['requests_per_s']} req/s, recall p50/"
                  f"p95/p99 {row['recall_p50_ms']}/{row['recall_p95_ms']}/"
                  f"{row['recall_p99_ms']} ms, retain p95 {row['retain_p95_ms']} ms, "
                  f"errors {row['errors']}")


if __name__ == "__main__":
    main()
