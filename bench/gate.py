"""The prompt gate (issue 15, item 7): which memories the `user-prompt-submit` hook injects,
judged against hand-labelled prompts, and what the hook costs.

The labelled set is tests/fixtures/gate/: bank.json holds a small repository ("ledger", an
invoicing application) and 63 memories written by hand, some anchored to its files and
symbols; prompts.json holds 216 prompts, each labelled with the memories that should be
injected (`relevant`) and those that are on topic but not needed (`acceptable`), in six
categories (paraphrase, other-words, symbol, file, unrelated, unrelated-shared), split
into dev (tuned on) and test (held out) by alternating the prompts of each category.

Definitions (per split, and per category):
- precision = injected memories labelled relevant / injected memories not labelled
  acceptable. Every memory injected on an unrelated prompt counts against it.
- recall = prompts with at least one relevant memory that got at least one of them
  injected / prompts with at least one relevant memory.
- unrelated_hit = unrelated prompts (no relevant memory) that got anything injected /
  unrelated prompts.
- latency = wall time of `python -m hindsight hook user-prompt-submit` as a subprocess,
  process start included (what the agent waits for), p50 / p95 over every prompt, after
  one cold call (reported alone: it embeds at most 128 memories and loads the tokenizer)
  and the refresh that seeding runs after session start, beside `python -c pass`
  and the machine's load average (the cores are shared: read the figures as sizes); also
  each hook's CPU time (user + system), which other work on the machine disturbs less.

The bank is built once in a temporary HINDSIGHT_HOME: the repository is committed and
indexed, then each memory is retained with its anchors (embedder MiniLM, the default).
`--noise N` adds N conversation turns of LoCoMo dev and N/5 lessons made of them
(they are not about this repository, so any of them injected counts against precision),
to measure the gate in a larger bank.

    python bench/gate.py [--split dev|test|all] [--noise 10000] [--no-hook] [--threshold T]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine, summary_ms, write  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "gate"
CATEGORIES = ("paraphrase", "other-words", "symbol", "file", "unrelated", "unrelated-shared")
TARGETS = {"precision": 0.90, "recall": 0.70, "p95_ms": 300.0}


def load_fixture() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``(bank.json, prompts)`` of the labelled set."""
    bank = json.loads((FIXTURE / "bank.json").read_text(encoding="utf-8"))
    prompts = json.loads((FIXTURE / "prompts.json").read_text(encoding="utf-8"))["prompts"]
    return bank, prompts


def make_repo(root: Path, files: dict[str, str]) -> None:
    """Write ``files`` under ``root`` and commit them (a real git repository)."""
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    env = {**os.environ, "GIT_AUTHOR_NAME": "dev", "GIT_AUTHOR_EMAIL": "dev@ledger.test",
           "GIT_COMMITTER_NAME": "dev", "GIT_COMMITTER_EMAIL": "dev@ledger.test"}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "ledger"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, env=env)


def build_bank(repo: Path, bank: dict[str, Any], noise: int = 0) -> dict[str, int]:
    """Index ``repo`` and retain the fixture's memories (and ``noise`` filler) in its bank
    (HINDSIGHT_HOME must be set). Returns fixture id → memory id."""
    from hindsight.app import open_bank
    from hindsight.models import MemoryItem

    ids: dict[str, int] = {}
    with open_bank(str(repo), harness="claude-code") as b:
        b.code.index()
        if noise:
            from recall_scale import DEFAULT, base_texts

            texts = base_texts(DEFAULT)
            items = [MemoryItem(text=texts[i % len(texts)], kind="conversation",
                                source="import") for i in range(noise)]
            items += [MemoryItem(text=f"{texts[(7 * i) % len(texts)]} "
                                 f"{texts[(7 * i + 3) % len(texts)]}", kind="lesson",
                                 source="import") for i in range(noise // 5)]
            b.memory.retain_batch(items, embed=False)
        for m in bank["memories"]:
            r = b.memory.retain(m["text"], kind=m["kind"], tags=m["tags"], files=m["files"],
                                symbols=m["symbols"], source="import")
            ids[m["id"]] = r.id
        b.stores.memory.set_meta({"seed_state": json.dumps({"state": "synced"})})
    return ids


def score(prompts: list[dict[str, Any]], got: dict[str, list[str]]) -> dict[str, Any]:
    """Precision, recall and unrelated_hit (module doc) of ``got`` (prompt id → injected
    fixture ids) over ``prompts``."""
    inj = rel_inj = related = found = unrel = unrel_hit = 0
    for p in prompts:
        g = got.get(p["id"], [])
        counted = [x for x in g if x not in p["acceptable"]]
        inj += len(counted)
        rel_inj += sum(x in p["relevant"] for x in counted)
        if p["relevant"]:
            related += 1
            found += any(x in p["relevant"] for x in g)
        else:
            unrel += 1
            unrel_hit += bool(counted)
    return {"prompts": len(prompts), "injected": inj,
            "precision": round(rel_inj / inj, 3) if inj else None,
            "recall": round(found / related, 3) if related else None,
            "unrelated_hit": round(unrel_hit / unrel, 3) if unrel else None}


def report(prompts: list[dict[str, Any]], got: dict[str, list[str]]) -> dict[str, Any]:
    """:func:`score` per split and per category of each split."""
    out: dict[str, Any] = {}
    for split in ("dev", "test", "all"):
        ps = [p for p in prompts if split == "all" or p["split"] == split]
        out[split] = {"all": score(ps, got)}
        for c in CATEGORIES:
            out[split][c] = score([p for p in ps if p["category"] == c], got)
    return out


def run_inprocess(repo: Path, prompts: list[dict[str, Any]], back: dict[int, str],
                  settings: dict[str, Any]) -> dict[str, list[str]]:
    """Injected fixture ids per prompt, through the function the hook calls, each prompt
    with a new static embedder as in a new hook process, after the refresh that seeding
    and write-back run (so words the bank has never seen are split as a hook splits
    them, without the tokenizer)."""
    from hindsight.app import open_bank
    from hindsight.sessions.briefing import prompt_memories
    from hindsight.sessions.gate import cache_path

    got: dict[str, list[str]] = {}
    with open_bank(str(repo), harness="claude-code", create=False) as b:
        b.sessions.refresh_gate()
        for p in prompts:
            _t, ids, _r = prompt_memories(
                b.memory, p["prompt"], threshold=settings["threshold"],
                limit=settings["limit"], max_chars=settings["max_chars"], exclude=set(),
                agent="claude-code", embedder=b.prompt_embedder(), cache=cache_path(b.path),
                warm=None if settings.get("no_warm") else b.warm_embedder())
            got[p["id"]] = [back.get(i, f"#{i}") for i in ids]
    return got


def cpu_s() -> float:
    """CPU seconds (user + system) of this process's finished children."""
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_hooks(repo: Path, prompts: list[dict[str, Any]], back: dict[int, str],
              env: dict[str, str], cpu: list[float] | None = None
              ) -> tuple[dict[str, list[str]], list[float]]:
    """Injected fixture ids per prompt and wall times, through the real hook subprocess
    (a new session id per prompt, so nothing is excluded as already shown); each hook's
    CPU time is appended to ``cpu`` (less sensitive than wall time to other work on the
    machine)."""
    got: dict[str, list[str]] = {}
    times: list[float] = []
    diag = Path(env["HINDSIGHT_DIAG_FILE"])
    for p in prompts:
        payload = {"session_id": f"gate-{p['id']}", "cwd": str(repo), "prompt": p["prompt"]}
        c0, t0 = cpu_s(), time.perf_counter()
        subprocess.run([sys.executable, "-m", "hindsight", "hook", "user-prompt-submit"],
                       input=json.dumps(payload), capture_output=True, text=True, env=env,
                       timeout=120, check=True)
        times.append(time.perf_counter() - t0)
        if cpu is not None:
            cpu.append(cpu_s() - c0)
        last = json.loads(diag.read_text(encoding="utf-8").splitlines()[-1])
        got[p["id"]] = [back.get(i, f"#{i}") for i in last.get("memory_ids", [])]
    return got, times


def start_warm(env: dict[str, str]) -> int:
    """Start the warm embedding process of ``env``'s home (as the first prompt hook would)
    and wait until it answers; its process id."""
    from hindsight.config.paths import Home
    from hindsight.errors import ProviderError
    from hindsight.providers.local_minilm import MODEL_ID
    from hindsight.providers.warm import ask, socket_path, spawn

    pid = spawn(env["HINDSIGHT_HOME"])
    path = socket_path(Home(env["HINDSIGHT_HOME"]))
    for _ in range(600):
        try:
            ask(path, MODEL_ID, ["ready"], 5.0)
            return pid
        except ProviderError:
            time.sleep(0.1)
    raise SystemExit("the warm embedding process did not answer within 60 s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--noise", type=int, default=0, help="filler memories (module doc)")
    ap.add_argument("--no-hook", action="store_true", help="skip the hook subprocesses")
    ap.add_argument("--threshold", type=float, default=None, help="recallThreshold")
    ap.add_argument("--embedder", default="minilm", help="setting embedder of the bank")
    ap.add_argument("--show", choices=("errors", "all"), default=None,
                    help="print the prompts the gate got wrong (or all)")
    ap.add_argument("--out", default="gate", help="results file name in bench/results")
    ap.add_argument("--no-static", action="store_true",
                    help="in-process only: the gate without its static embedder (fallback)")
    ap.add_argument("--no-warm", action="store_true",
                    help="no warm embedding process (the gate's static embedder only)")
    ap.add_argument("--sweep", action="store_true",
                    help="print precision/recall of dev and test for thresholds 0.30-0.70")
    a = ap.parse_args()
    bank, prompts = load_fixture()
    with tempfile.TemporaryDirectory(prefix="hs-gate-") as tmp:
        work = Path(tmp)
        env = {k: v for k, v in os.environ.items()  # byte-code caches on, as users have
               if not k.startswith(("HINDSIGHT_", "CLAUDE_")) and k != "PYTHONDONTWRITEBYTECODE"}
        env.update(HINDSIGHT_HOME=str(work / "home"), HINDSIGHT_EMBEDDER=a.embedder,
                   HINDSIGHT_DIAG_FILE=str(work / "diag.jsonl"), HINDSIGHT_SEED="0",
                   CLAUDE_CONFIG_DIR=str(work / "claude"))
        if a.threshold is not None:
            env["HINDSIGHT_RECALL_THRESHOLD"] = str(a.threshold)
        if a.no_warm or a.no_static:
            env["HINDSIGHT_WARM_EMBEDDER"] = "0"  # nor may a hook start one
        os.environ.update(env)
        repo = work / "ledger"
        make_repo(repo, bank["repo"])
        t0 = time.perf_counter()
        ids = build_bank(repo, bank, a.noise)
        setup = time.perf_counter() - t0
        back = {v: k for k, v in ids.items()}
        from hindsight.config.settings import load

        warm_pid = 0 if a.no_warm or a.no_static else start_warm(env)
        if a.no_static:
            from hindsight.app import Bank

            Bank.prompt_embedder = lambda self: None  # type: ignore[method-assign]
            from hindsight.sessions.service import SessionService

            SessionService.refresh_gate = lambda self: None  # type: ignore[method-assign]
        s = load("claude-code")
        settings = {"threshold": float(s["recallThreshold"]), "limit": int(s["recallLimit"]),
                    "max_chars": int(s["recallMaxChars"]), "no_warm": not warm_pid}
        if a.sweep:
            for t in [x / 100 for x in range(30, 71, 2)]:
                r = report(prompts, run_inprocess(repo, prompts, back, {**settings,
                                                                         "threshold": t}))
                print(f"threshold {t:.2f}", *(f"{sp} P {r[sp]['all']['precision']} R "
                                              f"{r[sp]['all']['recall']} U "
                                              f"{r[sp]['all']['unrelated_hit']}"
                                              for sp in ("dev", "test")))
            if warm_pid:
                os.kill(warm_pid, 15)
            return
        t0 = time.perf_counter()
        got = run_inprocess(repo, prompts, back, settings)
        inproc_ms = (time.perf_counter() - t0) * 1000 / len(prompts)
        out: dict[str, Any] = {"machine": machine(), "memories": len(ids), "noise": a.noise,
                               "static_embedder": not a.no_static,
                               "prompts": len(prompts), "settings": settings,
                               "embedder": a.embedder, "setup_s": round(setup, 1),
                               "inprocess_mean_ms": round(inproc_ms, 1),
                               "results": report(prompts, got)}
        if not a.no_hook:
            for f in Path(os.environ["HINDSIGHT_HOME"], "banks").glob("*.gate*"):
                f.unlink()  # the first hook builds the cache, as after an upgrade
            cold, t_cold = run_hooks(repo, prompts[:1], back, env)
            from hindsight.app import open_bank

            with open_bank(str(repo), harness="claude-code", create=False) as b:
                b.sessions.refresh_gate()  # what the seeding after session start does
            cpu: list[float] = []
            hooked, times = run_hooks(repo, prompts, back, env, cpu)
            base, base_cpu = [], []
            for _ in range(30):
                c0, t0 = cpu_s(), time.perf_counter()
                subprocess.run([sys.executable, "-c", "pass"], check=True)
                base.append(time.perf_counter() - t0)
                base_cpu.append(cpu_s() - c0)
            out["hook_cold_ms"] = round(t_cold[0] * 1000, 1)
            out["hook"] = summary_ms(times)
            out["python_start"] = summary_ms(base)
            out["hook_cpu"] = summary_ms(cpu)
            out["python_start_cpu"] = summary_ms(base_cpu)
            out["hook_agrees"] = sum(hooked[p["id"]] == got[p["id"]] for p in prompts)
            out["load_avg_1min"] = os.getloadavg()[0]
        out["targets"] = TARGETS
        if a.show:
            for p in prompts:
                g = got[p["id"]]
                wrong = (bool(p["relevant"]) and not set(g) & set(p["relevant"])) or \
                    any(x not in p["relevant"] + p["acceptable"] for x in g)
                if a.show == "all" or wrong:
                    print(f"{p['id']} {p['split']:4} {p['category']:16} want={p['relevant']} "
                          f"got={g}  {p['prompt']}")
        if warm_pid:
            os.kill(warm_pid, 15)
        out["warm"] = bool(warm_pid)
    for split in ("dev", "test"):
        r = out["results"][split]
        print(split, json.dumps(r["all"]), {c: (r[c]["precision"], r[c]["recall"])
                                            for c in CATEGORIES})
    if "hook" in out:
        print("hook", out["hook"], "cold", out["hook_cold_ms"], "python -c pass",
              out["python_start"], "cpu", out["hook_cpu"], "python -c pass cpu",
              out["python_start_cpu"], "agrees", out["hook_agrees"], "/", len(prompts),
              "load", out["load_avg_1min"])
    print("written", write(a.out, out))


if __name__ == "__main__":
    main()
