"""The team server under load (issue 11, ``bench/server_load.py``): a ``hindsight serve``
subprocess on 127.0.0.1, one bank preloaded with ``--memories`` memories through
``/v1/retain/batch`` (1,000 per request), then for each client count a mix of 80 % recall
and 20 % retain for ``--seconds``: throughput, latency p50/p95/p99 (client side, one
keep-alive connection per client), errors, and a final count check (every acknowledged new
memory is in the bank: nothing lost).

Backends: ``sqlite`` (tokens in ``server.db``) and ``postgres`` (``--embedded-postgres``
in a temporary directory). Until the PostgreSQL memory store lands the memories of both
live in the SQLite bank and the postgres run differs in the token lookup of every request;
say so beside its figures. Memories are synthetic sentences from a 2,000-word vocabulary,
embedded with the ``hashing`` embedder (``HINDSIGHT_EMBEDDER=hashing``: vectors as cheap as
the preload needs, a search costs the same whatever the numbers are).

    python bench/server_load.py [--memories 100000] [--clients 1,4,16] [--seconds 60]
        [--backends sqlite,postgres] [--out bench/results/server_load.json]
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
    proc = subprocess.Popen([sys.executable, "-m", "hindsight", "serve", "--port", "0",
                             *extra], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    if not sel.select(timeout=180):
        proc.kill()
        raise SystemExit(f"serve did not start: {proc.communicate()[1][-2000:]}")
    line = proc.stdout.readline()
    return proc, int(line.rsplit(":", 1)[1])


def run_backend(backend: str, args: argparse.Namespace) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="hindsight-load-"))
    tmp.chmod(0o755)
    home = tmp / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
    env.update(HINDSIGHT_HOME=str(home), HINDSIGHT_EMBEDDER="hashing",
               PYTHONPATH=str(ROOT / "src"))
    extra = ["--embedded-postgres", str(tmp / "pg")] if backend == "postgres" else []
    proc, port = start(home, env, extra)
    try:
        tok = json.loads(subprocess.run(
            [sys.executable, "-m", "hindsight", "token", "create", "--agent", "bench",
             "--role", "write", "--json"], env=env, capture_output=True, text=True,
            check=True).stdout)["token"]
        rng = random.Random(7)
        c = Client(port, tok)
        t0 = time.perf_counter()
        done = 0
        items: list[dict[str, str]] = []
        while done < args.memories:
            n = min(1000, args.memories - done)
            items = [{"text": f"m{done + i} {sentence(rng)}"} for i in range(n)]
            status, res = c.request("POST", "/v1/retain/batch", {"bank": BANK, "items": items})
            if status != 200:
                raise SystemExit(f"preload failed: {status} {str(res)[:300]}")
            done += n
        preload_s = time.perf_counter() - t0
        last = items[-1]["text"]
        status, res = c.request("POST", "/v1/recall", {"bank": BANK, "text": last, "k": 1,
                                                       "dense": False})
        searchable = status == 200 and bool(res["hits"]) and res["hits"][0]["text"] == last
        out: dict[str, Any] = {"backend": backend, "memories": args.memories,
                               "preload_s": round(preload_s, 1),
                               "batch_retain_per_s": round(args.memories / preload_s, 1),
                               "last_batch_searchable": searchable, "runs": []}
        for n in args.clients:
            out["runs"].append(load(port, tok, n, args.seconds))
        _s, listed = c.request("GET", "/metrics")
        active = [ln for ln in str(listed).splitlines() if ln.startswith(
            f'hindsight_memories{{bank="{BANK}",status="active"}}')]
        created = sum(r["retained"] for r in out["runs"])
        out["final_active"] = int(float(active[0].split()[-1])) if active else -1
        out["expected_active"] = args.memories + created
        out["nothing_lost"] = out["final_active"] == out["expected_active"]
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
                           "errors": len(errors), "retained": retained[0]}
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
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "server_load.json"))
    args = ap.parse_args()
    args.clients = [int(x) for x in args.clients.split(",")]
    results = [run_backend(b, args) for b in args.backends.split(",")]
    Path(args.out).write_text(json.dumps({"date": time.strftime("%Y-%m-%d"),
                                          "cores": os.cpu_count(), "results": results},
                                         indent=2) + "\n")
    for r in results:
        print(f"{r['backend']}: {r['memories']} memories preloaded at "
              f"{r['batch_retain_per_s']}/s, nothing lost: {r['nothing_lost']}")
        for row in r["runs"]:
            print(f"  {row['clients']:>2} clients: {row['requests_per_s']} req/s, recall p50/"
                  f"p95/p99 {row['recall_p50_ms']}/{row['recall_p95_ms']}/"
                  f"{row['recall_p99_ms']} ms, retain p95 {row['retain_p95_ms']} ms, "
                  f"errors {row['errors']}")


if __name__ == "__main__":
    main()
