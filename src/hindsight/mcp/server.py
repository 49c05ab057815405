"""The MCP server: one repository's bank as tools for any MCP client (official ``mcp`` SDK).

:func:`build_mcp_server` creates it; nothing happens at import time and the SDK (about a
second to import) is imported inside the factory. The bank is opened on the first tool call
through the given callable and reused; calls on it are serialised; it is closed when the
server stops. Bad arguments and every :class:`hindsight.errors.HindsightError` become tool
errors (``isError``, one line of text) and the server keeps serving. Graph walks go one level
at a time and stop at a deadline; recall falls back to its lexical channels when the full
ranking is late; either way the result says ``"partial": true`` with a ``"note"``. The
deadline is setting ``mcpTimeoutS`` (``HINDSIGHT_MCP_TIMEOUT_S``, default 10 s), read at each call. Over stdio
the SDK points file descriptor 1 at stderr while serving, so nothing written to stdout by
hindsight or a child process can reach the JSON-RPC stream; logging goes to stderr.

Every answer fits the size cap of :mod:`hindsight.mcp.bounds` (setting ``mcpMaxTokens``): the
list tools take ``limit`` (``k`` for recall) and ``offset`` and say ``count``, ``total``,
``offset``, ``truncated`` and, when rows remain, ``next_offset`` and a ``hint``; trace_flow
keeps its steps breadth first; any other answer is cut by :func:`bounds.capped` and says
what was cut.
"""

from __future__ import annotations

import functools
import inspect
import json
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any, cast

from hindsight.errors import Ambiguous, Busy, ConfigError, HindsightError, StorageError
from hindsight.mcp import bounds
from hindsight.mcp.descriptions import (
    DESCRIPTIONS,
    INSTRUCTIONS,
    PARAMS,
)

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from hindsight.app import Bank
    from hindsight.models import RecallResult

MAX_TRACE_NODES = 400
# recall channels needing neither the embedding model nor the call graph: what a recall
# still returns when the full ranking is not done by the deadline
LEXICAL = ("bm25", "prf", "recency", "lesson", "adjacent")
WRITES = frozenset({"retain", "forget", "record_attempt"})
RANKINGS_KEPT = 8  # recall rankings a session keeps for paging

class Deadline:
    """``seconds`` from now (default: :func:`timeout_s`) on the monotonic clock."""

    def __init__(self, seconds: float | None = None) -> None:
        self.seconds = timeout_s() if seconds is None else seconds
        self.end = time.monotonic() + self.seconds

    def left(self) -> float:
        return max(0.0, self.end - time.monotonic())

    def passed(self) -> bool:
        return self.left() == 0.0


def timeout_s() -> float:
    """The per-call deadline in seconds: setting ``mcpTimeoutS`` (``HINDSIGHT_MCP_TIMEOUT_S``,
    default 10), read at each call. Raises ConfigError for a value that is not a positive
    finite number."""
    from hindsight.config.settings import load

    return float(load("mcp").mcp_timeout_s)


class _Session:
    """The bank behind the tools: opened on first use, one call on it at a time."""

    def __init__(self, open_bank: Callable[[], Bank]) -> None:
        self._open = open_bank
        self._bank: Bank | None = None
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        # recall query -> the view of its ranking so far (see _recall); oldest first
        self.rankings: dict[str, dict[str, Any]] = {}

    @contextmanager
    def use(self, dl: Deadline) -> Iterator[Bank]:
        """The open bank, held for this call. Raises Busy when another call holds it past
        the deadline, and what opening the bank raises."""
        if not self._lock.acquire(timeout=max(dl.left(), 0.01)):
            raise Busy(f"the bank is still busy with an earlier call after {dl.seconds:g} s; "
                       "try again")
        try:
            if self._bank is None:
                self._bank = self._open()
            yield self._bank
        finally:
            self._lock.release()

    def background(self, fn: Callable[[Bank], Any]) -> Future[Any]:
        """``fn(bank)`` on the session's worker thread, holding the bank while it runs."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="hindsight-mcp")

        def run() -> Any:
            with self.use(Deadline(86_400.0)) as bank:
                return fn(bank)

        return self._pool.submit(run)

    def close(self) -> None:
        """Close the bank (after any running call); the next call opens it again."""
        with self._lock:
            if self._bank is not None:
                self._bank.close()
                self._bank = None
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None


def _check(tool: str, args: dict[str, Any]) -> None:
    """Raise ConfigError for an argument outside the bounds :data:`PARAMS` publishes."""
    for name, value in args.items():
        bounds = (PARAMS.get(f"{tool}.{name}") or PARAMS.get(name) or ("", {}))[1]
        if "minLength" in bounds and isinstance(value, str) and not value.strip():
            raise ConfigError(f"{name} must not be empty")
        if isinstance(value, str) and len(value) > bounds.get("maxLength", len(value)):
            raise ConfigError(f"{name}: {len(value):,} characters, at most "
                              f"{bounds['maxLength']:,}")
        lo, hi = bounds.get("minimum"), bounds.get("maximum")
        if isinstance(value, int) and lo is not None and not lo <= value <= (hi or value):
            raise ConfigError(f"{name}={value}: must be " + (
                f"from {lo} to {hi}" if hi else f"at least {lo}"))


def tool_error(e: HindsightError, file_param: bool = False) -> str:
    """The MCP server's one error mapping: the error's own message on one line, the
    candidates of an ambiguous name, and the fix for a bank that was never indexed."""
    msg = " ".join(e.message.split())
    if isinstance(e, Ambiguous) and e.option == "file" and file_param:
        msg += " (or pass file)"
    if isinstance(e, Ambiguous) and e.candidates:
        msg += "; candidates: " + ", ".join(e.candidates)
    if e.action == "index":
        msg += "; index the repository first (hindsight index)"
    elif e.action == "ingest":
        msg += "; read its git history first (hindsight ingest)"
    elif e.action == "rebuild":
        msg += "; move the file away and index the repository again (hindsight index)"
    return msg


def _guard(tool: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with its arguments checked, hindsight's errors turned into tool errors (one
    line; an ambiguous name lists its candidates) and its result made plain JSON."""

    file_param = "file" in inspect.signature(fn).parameters

    @functools.wraps(fn)
    def wrapper(**kwargs: Any) -> Any:
        from mcp.server.mcpserver.exceptions import ToolError

        try:
            _check(tool, kwargs)
            out = json.loads(json.dumps(fn(**kwargs), ensure_ascii=False, default=str))
            return bounds.capped(out, tool=tool)  # what the tool did not bound itself
        except HindsightError as e:
            raise ToolError(tool_error(e, file_param)) from None

    return wrapper


def _partial(out: dict[str, Any], note: str | None) -> dict[str, Any]:
    return {**out, "partial": note is not None, **({"note": note} if note else {})}


# --- deadline-bounded walks ---------------------------------------------------------------
def _walk(bank: Bank, direction: str, symbol: str, file: str | None, depth: int,
          dl: Deadline, include_unresolved: bool = False) -> tuple[Any, list[Any], str | None]:
    """The bank's own breadth-first walk (the same hits as ``hindsight callers``/``callees``
    to the levels done), stopped before a level once ``dl`` has passed. Returns (target
    symbol, hits, note or None)."""
    target, hits, done, cut = bank.code.walk(direction, symbol, depth, file,
                                             include_unresolved, stop=dl.passed)
    note = (f"time limit of {dl.seconds:g} s reached: levels 1-{done} of {depth} are "
            "complete; ask again with a smaller depth or from a deeper symbol") if cut else None
    return target, hits, note


def _trace(bank: Bank, start: str, depth: int, file: str | None, dl: Deadline
           ) -> dict[str, Any]:
    """The call tree of :meth:`Bank.trace`, built level by level from depth-1 traces (the
    shallowest occurrence of a symbol is expanded, later ones are marked ``seen``)."""
    root = bank.code.trace(start, 1, file)
    expanded, level, note = {root.name}, list(root.children), None
    for d in range(1, depth + 1):
        todo = [st for st in level if st.symbol is not None and not st.seen]
        level = []
        for i, st in enumerate(todo):
            if st.name in expanded:
                st.seen, st.snippet = True, ""
                continue
            if d < depth and (dl.passed() or len(expanded) >= MAX_TRACE_NODES):
                why = (f"time limit of {dl.seconds:g} s reached" if dl.passed()
                       else f"{MAX_TRACE_NODES} steps listed")
                note = (f"{why}: the callees of {i} of {len(todo)} steps at level {d} were "
                        f"expanded ({depth} levels asked); ask again from a deeper symbol")
                break
            expanded.add(st.name)
            if d < depth:
                st.children = bank.code.trace(st.name, 1).children
                level += st.children
        if note or not level:
            break
    bank.records.mark_steps(root)  # each step's last run, as the CLI's trace shows
    return _partial({"start": root.name, "depth": depth, "tree": root.as_dict()}, note)


def _impact(bank: Bank, symbol: str, depth: int, file: str | None, limit: int,
            dl: Deadline) -> dict[str, Any]:
    """The bank's impact, its caller walk stopped between levels once ``dl`` has passed."""
    res = bank.history.impact(symbol, depth, file, limit=limit, stop=dl.passed)
    note = (f"time limit of {dl.seconds:g} s reached: caller levels 1-{res['levels']} of "
            f"{depth} are complete; ask again with a smaller depth") if res["cut"] else None
    out = {k: v for k, v in res.items() if k not in ("levels", "cut")}
    return _partial({**out, "items": [i.as_dict() for i in out["items"]]}, note)


def _ranking(sess: _Session, text: str, kw: dict[str, Any], dl: Deadline
             ) -> tuple[dict[str, Any], str | None]:
    """Lexical matches first (fast, no model), then the full hybrid recall on the worker
    thread, waited for until the deadline; when it is late the lexical matches are returned
    (it finishes in the background, so the model is warm for the next call). Returns (the
    recall view, a note when it is the lexical one). Nothing is counted as accessed."""
    with sess.use(dl) as bank:
        quick = bank.memory.recall(text, channels=LEXICAL, touch=False, **kw)
    fut = sess.background(lambda b: b.memory.recall(text, touch=False, **kw))
    try:
        return _hits_view(fut.result(timeout=dl.left())), None
    except TimeoutError:  # (concurrent.futures' TimeoutError since Python 3.11)
        return _hits_view(quick), (
            f"time limit of {dl.seconds:g} s reached before the full ranking (vectors, code "
            "anchors): full-text matches only; repeat the recall for the full ranking")


def _recall(sess: _Session, text: str, kw: dict[str, Any], dl: Deadline, offset: int = 0,
            k: int = 10) -> dict[str, Any]:
    """Hits ``offset`` to ``offset + k`` of the ranking for ``text``, cut to the answer cap.
    A first page (``offset`` 0) ranks afresh; a later page continues the ranking of the
    first: the session keeps the hits it ranked for the last :data:`RANKINGS_KEPT` queries
    (until a retain or forget) and ranks more only past their end, leaving out the hits
    ranked before, so that paging neither repeats nor skips a hit although recall counts
    the hits it shows as accessed."""
    key = json.dumps([text, kw], sort_keys=True, default=str)
    known = sess.rankings.pop(key, None) if offset else None
    note = None
    if known is None or len(known["hits"]) < offset + k:
        view, note = _ranking(sess, text, {**kw, "k": offset + k}, dl)
        if known is not None:
            ids = {h["id"] for h in known["hits"]}
            view["hits"] = known["hits"] + [h for h in view["hits"] if h["id"] not in ids]
    else:
        view = known
    kept = view if note is None else known  # a lexical view is not kept
    if kept is not None:
        sess.rankings[key] = kept
        while len(sess.rankings) > RANKINGS_KEPT:
            sess.rankings.pop(next(iter(sess.rankings)))
    base = _partial({f: v for f, v in view.items() if f not in ("hits", "count")}, note)
    out = bounds.paged(base, "hits", view["hits"], offset=offset, limit=k, tool="recall")
    if note is None and out["hits"]:
        with sess.use(dl) as bank, suppress(StorageError):
            bank.memory.touch([h["id"] for h in out["hits"]])  # bookkeeping only
    return out


def _hits_view(res: RecallResult) -> dict[str, Any]:
    """The CLI's ``recall --json`` shape (without ``explain``)."""
    out = res.as_dict()
    for h in out["hits"]:
        h.pop("explain", None)
    return out


# --- the tools (arguments are checked against PARAMS by _guard) --------------------------
def _memory_tools(sess: _Session) -> list[Callable[..., Any]]:
    def retain(text: str, kind: str = "", tags: list[str] | None = None,
               files: list[str] | None = None, symbols: list[str] | None = None,
               outcome: str = "", supersedes: int | None = None) -> dict[str, Any]:
        sess.rankings.clear()  # a new memory changes every ranking
        with sess.use(Deadline()) as bank:
            return dict(bank.memory.retain(text, kind=kind, tags=tags or [], files=files or [],
                                    symbols=symbols or [], outcome=outcome,
                                    supersedes=supersedes, source="api").as_dict())

    def recall(text: str, k: int = 10, offset: int = 0, files: list[str] | None = None,
               symbols: list[str] | None = None, kinds: list[str] | None = None,
               tags: list[str] | None = None, scene: str = "") -> dict[str, Any]:
        kw = {"files": files or [], "symbols": symbols or [], "kinds": kinds or [],
              "tags": tags or [], "scene": scene}
        return _recall(sess, text, kw, Deadline(), offset, k)

    def reflect(question: str, k: int = 20) -> dict[str, Any]:
        with sess.use(Deadline()) as bank:
            return bank.memory.reflect(question, k)

    def forget(memory_id: int, reason: str) -> dict[str, Any]:
        sess.rankings.clear()
        with sess.use(Deadline()) as bank:
            text = bank.memory.get(memory_id).text  # NotFound: "no memory <id>"
            return {**bank.memory.forget(memory_id, reason), "text": text}

    return [retain, recall, reflect, forget]


def _graph(sess: _Session, direction: str, symbol: str, depth: int, file: str | None,
           include_unresolved: bool = False, *, offset: int = 0, limit: int = 100
           ) -> dict[str, Any]:
    dl = Deadline()
    extra: dict[str, int] = {}
    with sess.use(dl) as bank:
        target, hits, note = _walk(bank, direction, symbol, file, depth, dl,
                                   include_unresolved)
        if direction == "callers":
            extra["unresolved_same_name"] = bank.code.unresolved_same_name(target)
    rows = [h.as_dict() for h in hits]
    base = _partial({"symbol": target.as_dict(), "depth": depth, **extra}, note)
    return bounds.paged(base, direction, rows, offset=offset, limit=limit, tool=direction)


def _code_tools(sess: _Session) -> list[Callable[..., Any]]:
    def search_symbols(name: str, kind: str | None = None, file: str | None = None,
                       limit: int = 20, offset: int = 0) -> dict[str, Any]:
        from hindsight.app import SYMBOLS_COUNTED

        with sess.use(Deadline()) as bank:
            how, syms = bank.code.symbols(name, kind, file, SYMBOLS_COUNTED)
        return bounds.paged({"query": name, "match": how}, "symbols",
                            [s.as_dict() for s in syms], offset=offset, limit=limit,
                            tool="search_symbols")

    def callers(symbol: str, depth: int = 1, file: str | None = None,
                include_unresolved: bool = False, limit: int = 100, offset: int = 0
                ) -> dict[str, Any]:
        return _graph(sess, "callers", symbol, depth, file, include_unresolved,
                      offset=offset, limit=limit)

    def callees(symbol: str, depth: int = 1, file: str | None = None, limit: int = 100,
                offset: int = 0) -> dict[str, Any]:
        return _graph(sess, "callees", symbol, depth, file, offset=offset, limit=limit)

    def trace_flow(start: str, depth: int = 3, file: str | None = None) -> dict[str, Any]:
        dl = Deadline()
        with sess.use(dl) as bank:
            out = _trace(bank, start, depth, file, dl)
        return bounds.capped_tree(json.loads(json.dumps(out, default=str)), tool="trace_flow")

    return [search_symbols, callers, callees, trace_flow]


def _history_tools(sess: _Session) -> list[Callable[..., Any]]:
    def symbol_history(symbol: str, file: str | None = None, limit: int = 50,
                       offset: int = 0, merges: bool = False) -> dict[str, Any]:
        with sess.use(Deadline()) as bank:
            res = bank.history.history(symbol, file, merges=merges)
            res |= _beside(bank, res["qname"])
        return bounds.paged({k: v for k, v in res.items() if k != "entries"}, "entries",
                            [e.as_dict() for e in res["entries"]], offset=offset,
                            limit=limit, tool="symbol_history")

    def why(file: str, line: int, merges: bool = False) -> dict[str, Any]:
        with sess.use(Deadline()) as bank:
            res = bank.history.why(file, line, merges)
            res |= _beside(bank, res["symbol"]["qname"] if res["symbol"] else None)
        return {**res, **{k: [e.as_dict() for e in res[k]] for k in ("earlier", "since")}}

    def impact(symbol: str, depth: int = 2, file: str | None = None, limit: int = 30,
               offset: int = 0) -> dict[str, Any]:
        dl = Deadline()
        with sess.use(dl) as bank:
            out = _impact(bank, symbol, depth, file, offset + limit, dl)
        base = {k: v for k, v in out.items() if k not in ("items", "count", "truncated")}
        return bounds.paged(base, "items", out["items"], offset=offset, limit=limit,
                            tool="impact", total=out["total"])

    def status() -> dict[str, Any]:
        with sess.use(Deadline()) as bank:
            return bank.status()

    def pages(name: str | None = None, limit: int = 4, offset: int = 0) -> dict[str, Any]:
        with sess.use(Deadline()) as bank:
            got = [bank.pages.get(name)] if name else bank.pages.list()
        base: dict[str, Any] = {} if got else {
            "note": "no pages written yet: they are written in the background after the "
                    "repository is indexed (or by hindsight pages --refresh)"}
        return bounds.paged(base, "pages", [p.as_dict() for p in got], offset=offset,
                            limit=limit, tool="pages")

    def context(task: str, k: int = 10) -> dict[str, Any]:
        with sess.use(Deadline()) as bank:
            return bank.context.rank(task, k).as_dict()  # cut to the cap by _guard

    return [symbol_history, why, impact, status, pages, context]


ATTEMPTS_BESIDE = 10  # attempts given beside a symbol's commits (as the CLI's history)


def _beside(bank: Bank, qname: str | None) -> dict[str, Any]:
    """The newest attempts on ``qname`` for symbol_history and why."""
    if not qname:
        return {"attempts": [], "attempts_total": 0}
    got = bank.records.attempts(qname, limit=ATTEMPTS_BESIDE)
    return {"attempts": got["attempts"], "attempts_total": got["total"]}


def _record_tools(sess: _Session) -> list[Callable[..., Any]]:
    def attempts(symbol: str, file: str | None = None, outcome: str | None = None,
                 limit: int = 20, offset: int = 0) -> dict[str, Any]:
        with sess.use(Deadline()) as bank:
            res = bank.records.attempts(symbol, file=file, outcome=outcome)
        return bounds.paged({"symbol": res["symbol"]}, "attempts", res["attempts"],
                            offset=offset, limit=limit, tool="attempts")

    def record_attempt(command: str, exit_code: int | None = None, output: str = "",
                       session: str = "", duration_ms: int | None = None,
                       interrupted: bool = False) -> dict[str, Any]:
        with sess.use(Deadline()) as bank:
            rec = bank.records.record(command, exit_code=exit_code, output=output,
                                      tool="mcp", session=session, agent="mcp",
                                      duration_ms=duration_ms, interrupted=interrupted)
        return {**rec.attempt_dict(), "exercised": list(rec.exercised[:20]),
                "changes": [c.qname for c in rec.changes]}

    return [attempts, record_attempt]


def build_mcp_server(open_bank: Callable[[], Bank]) -> MCPServer:
    """The MCP server named ``hindsight`` with the tools retain, recall, reflect, forget,
    search_symbols, callers, callees, trace_flow, symbol_history, why, impact, status,
    attempts, record_attempt, pages and context
    (see :data:`DESCRIPTIONS`; each returns a JSON object).

    ``open_bank()`` is called at the first tool call (again after it failed, or after the
    server stopped and closed the bank). Run the result with ``.run()`` (stdio) or
    ``.run("streamable-http", host=..., port=...)``; ``mcp.Client(server)`` connects
    in-process.
    """
    from contextlib import asynccontextmanager

    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.tools import Tool
    from mcp.types import ToolAnnotations

    sess = _Session(open_bank)
    tools = []
    for fn in [*_memory_tools(sess), *_code_tools(sess), *_history_tools(sess),
               *_record_tools(sess)]:
        name = fn.__name__
        hints = ToolAnnotations(read_only_hint=name not in WRITES,
                                destructive_hint=name == "forget",
                                idempotent_hint=name != "retain", open_world_hint=False)
        tool = Tool.from_function(_guard(name, fn), name=name,
                                  description=DESCRIPTIONS[name], annotations=hints)
        for param, prop in tool.parameters.get("properties", {}).items():
            doc = PARAMS.get(f"{name}.{param}") or PARAMS.get(param)
            if doc is not None:
                prop.update(doc[1], description=doc[0])
        tools.append(tool)

    @asynccontextmanager
    async def lifespan(_server: Any) -> Any:
        try:
            yield None
        finally:
            sess.close()

    from hindsight import __version__
    from hindsight.mcp.arguments import server_class

    return cast(MCPServer, server_class()("hindsight", instructions=INSTRUCTIONS, tools=tools,
                                          lifespan=lifespan, log_level="WARNING",
                                          version=__version__))  # serverInfo.version
