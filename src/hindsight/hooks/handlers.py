"""The hook handlers: each takes the one :class:`~hindsight.hooks.agents.Event` an agent's
adapter (:mod:`hindsight.hooks.agents`) made of its payload, calls the bank's ``sessions``
service and returns the text to inject ("" for nothing); the adapter turns that text into what
the agent's hook contract accepts. Exit code is always 0
(:func:`hindsight.hooks.runtime.guarded`).

Agents that may run the same event twice for one session (Cursor runs its own hooks and
Claude Code's) take a *claim* first (:func:`claim`): the second process finds it and does
nothing, so a session is briefed, injected and written back once.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from typing import Any

from hindsight.config.paths import file_lock
from hindsight.hooks.agents import CLAUDE_EVENT_NAMES as EVENT_NAMES  # noqa: F401 (API)
from hindsight.hooks.agents import Event
from hindsight.hooks.runtime import BUDGET_S, Diag, spawn

WRITEBACK = ("stop", "pre-compact", "session-end")
CLAIM_WINDOW_S = 10.0  # a second run of one turn's event within this is the same event
CLAIM_KEEP_S = 7 * 86400.0  # claim files older than this are removed


def _resolve(ev: Event, diag: Diag) -> Any:
    """The resolution, or None (inert: diag says why)."""
    from hindsight.config.banks import resolve
    from hindsight.config.settings import load

    settings = load(ev.harness)
    if settings["disableHooks"] or settings["disabled"]:  # before anything is written
        diag.set(skipped="disableHooks" if settings["disableHooks"] else "disabled")
        return None
    res = resolve(ev.cwd, ev.harness, settings=settings)
    diag.mark("resolve")
    diag.set(bank=res.bank_id, how=res.how)
    if res.bank_id is None:
        diag.set(skipped=res.reason)
        return None
    if res.settings["disableHooks"]:
        diag.set(skipped="disableHooks")
        return None
    if res.settings["diagFile"]:
        diag.path = res.settings["diagFile"]
    return res


def _open(res: Any, create: bool) -> Any:
    from hindsight.app import open_bank

    return open_bank(res.root, resolution=res, create=create)


REMOTE_MARGIN_S = 0.5  # client mode: the server's requests end this long before the budget


def _server_within(bank: Any, ev: Event, diag: Diag) -> None:
    """Client mode: no request to the server outlasts the hook's budget less
    :data:`REMOTE_MARGIN_S`, so that what this checkout holds (failed attempts, task
    context) is still injected when the server is slow."""
    client = getattr(bank.memory, "client", None)
    if client is not None:
        left = BUDGET_S.get(ev.name, 2.0) - (time.perf_counter() - diag.t0) - REMOTE_MARGIN_S
        client.deadline = time.monotonic() + max(0.0, left)


READ_HOOK_BUSY_MS = 250  # session-start and prompt hooks wait this long for a writer


def _best_effort(diag: Diag, what: str, fn: Any, *args: Any) -> None:
    """Run a bookkeeping write that the answer does not depend on; while another process
    holds the bank's write lock (a first seeding indexes in one long transaction) it is
    skipped after ``READ_HOOK_BUSY_MS`` instead of holding up the agent."""
    from hindsight.errors import StorageError

    try:
        fn(*args)
    except StorageError as e:
        diag.set(skipped_write=f"{what}: {e}"[:200])


def claim(bank_id: str, ev: Event, kind: str, key: str, window_s: float | None) -> bool:
    """Take the claim ``(kind, session, key)`` of ``bank_id``: True when this process is
    the first (or the last claim is older than ``window_s`` seconds; ``None``: a claim never
    expires), False when another process took it. Atomic across processes (``O_EXCL`` files
    in ``spool/<bank>/claims/``, mode 0600); claims older than :data:`CLAIM_KEEP_S` are
    removed when a session-start claims."""
    import xxhash

    from hindsight.config.paths import Home

    folder = Home.ensure(os.path.join(_spool_dir(bank_id, create=True), "claims"), private=True)
    path = os.path.join(folder, xxhash.xxh3_64_hexdigest(
        f"{kind}\0{ev.session}\0{key}".encode("utf-8", "replace")))
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        try:
            if window_s is None or time.time() - os.stat(path).st_mtime < window_s:
                return False
            # a stale claim: of the processes that find it, the one whose rename
            # succeeds (atomic) takes it
            os.rename(path, aside := f"{path}.{os.getpid()}")
            os.unlink(aside)
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except OSError:
            return False
    if kind == "brief":
        _prune(folder)
    return True


def _prune(folder: str) -> None:
    now = time.time()
    with contextlib.suppress(OSError), os.scandir(folder) as it:
        for entry in it:
            with contextlib.suppress(OSError):
                if now - entry.stat().st_mtime > CLAIM_KEEP_S:
                    os.unlink(entry.path)


def _first(res: Any, ev: Event, kind: str, key: str, window_s: float | None,
           diag: Diag) -> bool:
    """False (and diag says so) when ``ev``'s agent dedupes and another hook process
    already did this for the session."""
    if ev.agent is None or not ev.agent.dedupe or not ev.session:
        return True
    if claim(res.bank_id, ev, kind, key, window_s):
        return True
    diag.set(skipped=f"duplicate: {kind} of this session already done by another hook")
    return False


def session_start(ev: Event, diag: Diag) -> str:
    from hindsight.errors import Unreachable

    res = _resolve(ev, diag)
    if res is None or not _first(res, ev, "brief", "", None, diag):
        return ""
    seeding = False
    with _open(res, True) as bank:
        _server_within(bank, ev, diag)
        bank.stores.set_busy_timeout(READ_HOOK_BUSY_MS)
        st = bank.sessions.seed_state()
        if has_jobs(res.bank_id):  # write-back left over from an earlier session
            diag.set(drain_pid=spawn(["hook", "_drain", "--bank", res.bank_id], "drain.log"))
        if res.settings["seed"] and os.path.exists(os.path.join(res.root, ".git")):
            # a git repository only: a session in ~ or /usr must not index that tree
            seeding = st.get("state") != "synced"
            diag.set(seeding="first" if seeding else "refresh",
                     seed_pid=spawn(["hook", "_seed", "--cwd", ev.cwd, "--harness",
                                     ev.harness], "seed.log"))
        if not seeding:  # a first seeding writes the pages when it is done
            _pages_due(bank, ev, diag)
        try:
            text, ids = bank.sessions.briefing(
                max_chars=int(res.settings["briefingMaxChars"]), agent=ev.harness)
        except Unreachable as e:  # client mode: the memories are on a server that is down
            text, ids = "", []
            diag.set(server=e.message)
        if ev.session:  # what the briefing showed is not injected again on a prompt
            keep = bank.sessions.injected(ev.session) if ev.source == "resume" else set()
            _best_effort(diag, "injected ids", bank.sessions.set_injected, ev.session,
                         keep | set(ids))
        diag.mark("briefing")
    if not text and seeding:
        text = bank.sessions.seeding_note(int(res.settings["briefingMaxChars"]))
    diag.set(memory_ids=ids)
    diag.set(injected=text)
    return text


def _pages_due(bank: Any, ev: Event, diag: Diag) -> None:
    """Start the detached refresh of the knowledge pages that are due (lazily, here: there
    is no daemon); ``pages_due`` in the diagnostics says which and why."""
    from hindsight.errors import HindsightError

    try:
        due = bank.pages.due()
        if due:
            diag.set(pages_due=due, pages_pid=spawn(["hook", "_pages", "--cwd", ev.cwd,
                                                     "--harness", ev.harness], "pages.log"))
    except (HindsightError, OSError) as e:  # the briefing goes on without the refresh
        diag.set(pages_error=f"{type(e).__name__}: {e}"[:200])


def user_prompt_submit(ev: Event, diag: Diag) -> str:
    import xxhash

    from hindsight.errors import BankNotFound, Unreachable

    res = _resolve(ev, diag)
    if res is None or not ev.prompt.strip():
        return ""
    gate = ev.agent.prompt_setting if ev.agent is not None else ""
    if gate and not res.settings[gate]:
        diag.set(skipped=f"{gate} is off")
        return ""
    # keyed by the prompt, not the agent's turn id: a payload Cursor maps to Claude Code's
    # form may not carry generation_id
    key = xxhash.xxh3_64_hexdigest(ev.prompt.encode("utf-8", "replace"))
    if not _first(res, ev, "prompt", key, CLAIM_WINDOW_S, diag):
        return ""
    try:
        bank = _open(res, False)
    except BankNotFound:
        diag.set(skipped="no bank yet")
        return ""
    with bank:
        _server_within(bank, ev, diag)
        bank.stores.set_busy_timeout(READ_HOOK_BUSY_MS)
        seen = bank.sessions.injected(ev.session) if ev.session else set()
        s = res.settings
        try:
            text, ids, rels = bank.sessions.prompt_recall(
                ev.prompt, threshold=float(s["recallThreshold"]),
                limit=int(s["recallLimit"]), max_chars=int(s["recallMaxChars"]),
                exclude=seen, agent=ev.harness)
        except Unreachable as e:  # client mode: this checkout's part is still injected
            text, ids, rels = "", [], []
            diag.set(server=e.message)
        diag.mark("recall")
        if int(s["promptContextFiles"]):
            files_text, paths = bank.sessions.prompt_files(ev.prompt,
                                                           int(s["promptContextFiles"]))
            diag.mark("context")
            diag.set(context_files=paths)
            text = "\n".join(t for t in (text, files_text) if t)
        if ids and ev.session:
            _best_effort(diag, "injected ids", bank.sessions.set_injected, ev.session,
                         seen | set(ids))
        tried, tried_ids = bank.sessions.prompt_attempts(
            ev.prompt, session=ev.session, limit=int(s["recordsInjectLimit"]),
            max_chars=int(s["recallMaxChars"]))
        diag.mark("attempts")
        if tried_ids and ev.session:
            _best_effort(diag, "injected attempts", bank.sessions.set_injected_attempts,
                         ev.session, bank.sessions.injected_attempts(ev.session) |
                         set(tried_ids))
    text = "\n\n".join(t for t in (text, tried) if t)
    diag.set(injected=text, memory_ids=ids, relevance=rels, attempt_ids=tried_ids)
    return text


def edit(ev: Event, diag: Diag) -> str:
    """An agent edited ``ev.files``: queue them for the edit trace (HEAD → the file now, once
    per content, recorded by the detached drain, or at once with ``hookSync``; the
    write-back at stop skips what is recorded). For Claude Code and Codex (PostToolUse),
    inject the unresolved failed attempts on those files not shown in the session yet."""
    if not ev.files:
        diag.set(skipped="no edited file in the payload")
        return ""
    res = _resolve(ev, diag)
    if res is None:
        return ""
    _spool(res, ev, diag, {"files": list(ev.files)})
    return _edit_attempts(res, ev, diag) if ev.harness in ("claude-code", "codex") else ""


def _edit_attempts(res: Any, ev: Event, diag: Diag) -> str:
    from hindsight.errors import BankNotFound

    try:
        bank = _open(res, False)
    except BankNotFound:
        return ""
    with bank:
        bank.stores.set_busy_timeout(READ_HOOK_BUSY_MS)
        text, ids = bank.sessions.edit_attempts(
            list(ev.files), session=ev.session, limit=int(res.settings["recordsInjectLimit"]),
            max_chars=int(res.settings["recallMaxChars"]))
        diag.mark("attempts")
        if ids and ev.session:
            _best_effort(diag, "injected attempts", bank.sessions.set_injected_attempts,
                         ev.session, bank.sessions.injected_attempts(ev.session) | set(ids))
    diag.set(injected=text, attempt_ids=ids)
    return text


def _spool_dir(bank_id: str, create: bool = False) -> str:
    from hindsight.config.paths import Home

    return Home.current().spool_dir(bank_id, create)


def writeback(ev: Event, diag: Diag) -> str:
    """stop / pre-compact / session-end: queue the transcript for write-back and start
    the drain (detached, unless ``hookSync``). Injects nothing."""
    res = _resolve(ev, diag)
    if res is None or not res.settings["retainTranscripts"]:
        return ""
    locate = ev.agent is not None and ev.agent.locates_transcript and bool(ev.session)
    if not ev.transcript and not locate:
        diag.set(skipped="no transcript_path")
        return ""
    # a write-back skipped here is not lost: the next one reads on from the stored offset
    if not _first(res, ev, f"writeback:{ev.name}", "", CLAIM_WINDOW_S, diag):
        return ""
    job: dict[str, Any] = {"transcript": ev.transcript}
    if isinstance(ev.data, list):  # messages an agent's plugin sent (opencode, Kilo)
        job["messages"] = ev.data
    if ev.agent is not None and ev.agent.transcript_wait_s:
        job["wait_s"] = ev.agent.transcript_wait_s
    _spool(res, ev, diag, job)
    return ""


def _spool(res: Any, ev: Event, diag: Diag, fields: dict[str, Any]) -> None:
    """Queue a job for the bank's drain (``spool/<bank>/<time>-<pid>.json``) and start the
    drain (detached, or here with ``hookSync``)."""
    from hindsight.config.banks import claude_project_dir

    d = _spool_dir(res.bank_id, create=True)
    job = {"event": ev.name, "harness": ev.harness, "session": ev.session, "cwd": ev.cwd,
           "bank": res.bank_id, "project_dir": claude_project_dir(), **fields}
    name = os.path.join(d, f"{time.time_ns():020d}-{os.getpid()}.json")
    with open(name + ".tmp", "w", encoding="utf-8") as f:
        json.dump(job, f)
    os.replace(name + ".tmp", name)
    diag.mark("spooled")
    if res.settings["hookSync"]:
        diag.set(drained=drain(res.bank_id, wait_s=20.0))
    else:
        diag.set(drain_pid=spawn(["hook", "_drain", "--bank", res.bank_id], "drain.log"))


def _run_job(path: str, banks: dict[Any, Any]) -> dict[str, Any]:
    from hindsight.config.banks import resolve

    with open(path, encoding="utf-8") as f:
        job = json.load(f)
    key = (job["cwd"], job.get("project_dir", ""))
    if key not in banks:  # resolved as the hook resolved it (same cwd, same project dir)
        env = {**os.environ, "CLAUDE_PROJECT_DIR": job.get("project_dir", "")}
        res = resolve(job["cwd"], job["harness"], env=env)
        if job.get("bank") and res.bank_id != job["bank"]:
            from hindsight.errors import ConfigError

            raise ConfigError(f"{job['cwd']} now resolves to {res.bank_id}, not "
                              f"{job['bank']} as when the hook ran (config changed?)")
        banks[key] = _open(res, True)
    if job["event"] == "edit":
        edits = banks[key].sessions.record_edits(job["files"], job.get("session", ""),
                                                 job["harness"])
        return {"bank": banks[key].bank_id, **edits}
    out = banks[key].sessions.write_back(job["transcript"], job["harness"],
                                         session=job.get("session", ""),
                                         final=job["event"] == "session-end",
                                         cwd=job["cwd"], wait_s=float(job.get("wait_s", 0)),
                                         messages=job.get("messages"))
    return {"bank": banks[key].bank_id, **out}


MAX_ATTEMPTS = 3  # a job failing for a passing reason (a locked bank) is retried


def drain(bank_id: str, wait_s: float = 0.0) -> int:
    """Process the spooled write-back jobs of ``bank_id`` under the lock ``drain-<bank>``
    (one drainer at a time; a job queued while another process drains is picked up by its
    re-scan). Writes one diagnostic line per job. A job that fails for a reason that may
    pass (storage, provider, I/O) stays queued for the next drain (started by the next
    stop or session-start), up to :data:`MAX_ATTEMPTS` tries; one that cannot succeed (no
    transcript, not a regular file, a bad setting) is dropped. The transcript's offset only
    moves on success, so nothing is skipped either way. Returns the jobs processed."""
    d, done = _spool_dir(bank_id), 0
    kept: set[str] = set()
    while True:
        from hindsight.config.paths import bank_key

        with file_lock(f"drain-{bank_key(bank_id)}", wait_s=wait_s) as held:
            if not held:
                return done
            banks: dict[Any, Any] = {}
            try:
                done += _drain_once(d, banks, kept)
            finally:
                for b in banks.values():
                    b.close()
        if not [j for j in _jobs(d) if j not in kept]:
            return done


def has_jobs(bank_id: str) -> bool:
    """Whether write-back jobs of ``bank_id`` are waiting."""
    return bool(_jobs(_spool_dir(bank_id)))


def _jobs(d: str) -> list[str]:
    try:
        return sorted(os.path.join(d, n) for n in os.listdir(d) if n.endswith(".json"))
    except FileNotFoundError:
        return []


def _retry(path: str) -> bool:
    """Count one more attempt in the job file; False when it has had its tries."""
    try:
        with open(path, encoding="utf-8") as f:
            job = json.load(f)
        job["attempts"] = int(job.get("attempts", 0)) + 1
        if job["attempts"] >= MAX_ATTEMPTS:
            return False
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            json.dump(job, f)
        os.replace(path + ".tmp", path)
        return True
    except (OSError, ValueError, TypeError):
        return False


def _drain_once(d: str, banks: dict[Any, Any], kept: set[str]) -> int:
    from hindsight.errors import ConfigError, ProviderError, StorageError

    n = 0
    for path in _jobs(d):
        if path in kept:
            continue
        diag = Diag("drain", "")
        keep = False
        try:
            result = _run_job(path, banks)
            diag.set(result=result, bank=result["bank"])
        except FileNotFoundError as e:
            diag.set(error=f"transcript not found: {e.filename}")
        except ConfigError as e:
            diag.set(error=f"{os.path.basename(path)}: {e}"[:500])
        except (StorageError, ProviderError, OSError) as e:
            keep = _retry(path)
            diag.set(error=f"{os.path.basename(path)}: {type(e).__name__}: {e}"[:500],
                     retry=keep)
        except Exception as e:  # noqa: BLE001 - one job must not stop the queue
            diag.set(error=f"{os.path.basename(path)}: {type(e).__name__}: {e}"[:500])
        if keep:
            kept.add(path)
        else:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
        diag.write()
        n += 1
    return n
