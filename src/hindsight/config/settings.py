"""Layered settings from one JSON file, field by field; later layers win (issue #5):

1. built-in defaults (the fields of :class:`Settings`);
2. environment variables ``HINDSIGHT_<FIELD_IN_CAPS>``, words split by ``_``
   (``disableHooks`` → ``HINDSIGHT_DISABLE_HOOKS``; ``HINDSIGHT_DISABLEHOOKS`` works too);
3. the top level of the file (``$HINDSIGHT_CONFIG``, default ``$HINDSIGHT_HOME/config.json``,
   i.e. ``~/.hindsight/config.json``);
4. ``harnesses.<name>`` of the file (``claude-code``, ``codex``, ``cursor``, ``copilot``,
   ``gemini``, ``antigravity``, ``windsurf``, ``cline``, ``opencode``, ``kilo``, ``mcp``,
   ``cli``);
5. ``banks.<bankId>`` of the file.

Nothing is ever read from inside a repository: a cloned repository cannot turn memory on,
redirect storage or weaken redaction. Unknown keys, wrong types and invalid JSON are errors
that name their path (``config.json: harnesses.codex.optInOnly: expected boolean, got
string``); they are never silently ignored.

Every ``HINDSIGHT_*`` knob of hindsight is a field here (the only other variables read are
``HINDSIGHT_HOME`` and ``HINDSIGHT_CONFIG``, which say where the file is, and
``HINDSIGHT_NOW``, a test clock). A field has two spellings: ``camelCase`` in the file, in
``settings["recallLimit"]`` and in ``hindsight config show``; ``snake_case`` as the typed
attribute, ``settings.recall_limit`` (:data:`FIELDS` maps one to the other:
``FIELDS["recallLimit"].attr == "recall_limit"``). :class:`Settings` is frozen;
:meth:`Settings.defaults` builds one without reading the environment or the disk, and
:meth:`Settings.with_values` a validated copy. Secrets (API keys) are masked (``***``)
by :meth:`Settings.display` and :attr:`Settings.values`, and left out of ``repr``.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

from hindsight.errors import ConfigError

HARNESSES = ("claude-code", "codex", "cursor", "copilot", "gemini", "antigravity", "windsurf",
             "cline", "opencode", "kilo", "mcp", "cli")
MASK = "***"
_INT32_MAX = 2_147_483_647
_MAX_SECONDS = 1_000_000.0  # timeouts: above 0 and at most this (about 11 days)


class Knob(NamedTuple):
    """One setting: ``name`` in the file (camelCase), ``attr`` on :class:`Settings`
    (snake_case), type ``tag`` (bool, int, float, str, str?, list, map), ``default``,
    ``help`` (with units), the allowed range ``lo``..``hi`` (inclusive, or exclusive at
    ``lo`` when ``above``), allowed ``choices``, and ``secret`` (never printed)."""

    name: str
    attr: str
    tag: str
    default: Any
    help: str
    lo: float | None = None
    hi: float | None = None
    above: bool = False
    choices: tuple[str, ...] = ()
    secret: bool = False

    @property
    def env(self) -> str:
        """The environment variable, e.g. ``HINDSIGHT_LLM_TIMEOUT_S``."""
        return env_name(self.name)


def _knob(tag: str, default: Any, help: str, *, lo: float | None = None,
          hi: float | None = None, above: bool = False, choices: tuple[str, ...] = (),
          secret: bool = False) -> Any:
    meta = {"knob": (tag, default, help, lo, hi, above, choices, secret)}
    if isinstance(default, dict):
        frozen = MappingProxyType(dict(default))
        return field(default_factory=lambda: frozen, metadata=meta)
    return field(default=default, metadata=meta, repr=not secret)


def _seconds(default: float, help: str) -> Any:
    return _knob("float", default, help, lo=0.0, hi=_MAX_SECONDS, above=True)


def _default_sources() -> Mapping[str, str]:
    return MappingProxyType(dict.fromkeys(FIELDS, "default"))


@dataclass(frozen=True)
class Settings:
    """Effective values, one typed attribute per field, and where each came from
    (``sources[name]``: ``default``, ``env HINDSIGHT_X``, ``<file>``,
    ``<file> harnesses.<h>``, ``<file> banks.<id>``, or what :meth:`with_values` was given).

    Get a value as ``settings.recall_limit`` (typed; lists are tuples, maps read-only) or
    ``settings["recallLimit"]`` (by its name in the file; lists and maps as plain copies).
    Construction checks every value (types, ranges, choices) and raises
    :class:`ConfigError` naming the field."""

    # --- on/off and bank resolution ---------------------------------------------------
    disabled: bool = _knob("bool", False,
                           "Turn hindsight off: hooks do nothing, no bank is opened.")
    disable_hooks: bool = _knob("bool", False, "Every hook is a no-op (for headless runs).")
    bank_id: str | None = _knob("str?", None, "Use this bank id instead of the template.")
    bank_template: str = _knob("str", "coding-agent::{gitProject}",
                               "Bank id template; placeholders {gitProject} {gitRemote} "
                               "{project} {harness} {user} {channel}; in client mode "
                               "the default uses {gitRemote}.")
    map_path_to_bank: Mapping[str, str] = _knob(
        "map", {}, "Absolute path prefix -> bank id; the longest prefix wins.")
    opt_in_only: bool = _knob("bool", False,
                              "Only repositories under optInPaths get a bank.")
    opt_in_paths: tuple[str, ...] = _knob("list", (), "Paths opted in when optInOnly is set.")
    channel: str = _knob("str", "", "Value of the {channel} placeholder.")
    # --- memory -----------------------------------------------------------------------
    embedder: str = _knob("str", "minilm", "Embedding provider: minilm, hashing or openai.",
                          choices=("minilm", "hashing", "openai"))
    briefing_max_chars: int = _knob("int", 8000,
                                    "Cap of the session-start briefing (characters).",
                                    lo=500, hi=20_000)
    recall_max_chars: int = _knob("int", 4000,
                                  "Cap of one prompt's injected memories (characters).",
                                  lo=200, hi=20_000)
    recall_limit: int = _knob("int", 5, "At most this many memories injected per prompt.",
                              lo=0, hi=50)
    recall_threshold: float = _knob("float", 0.42,
                                    "Minimum gate score (0..1, see sessions/gate.py) for a "
                                    "memory to be injected on a prompt.", lo=0.0, hi=1.0)
    warm_embedder: bool = _knob("bool", True,
                                "With embedder minilm, the prompt gate asks a background "
                                "process that keeps the model loaded (started on demand, "
                                "exits after 30 idle minutes) for the prompt's vector.")
    seed: bool = _knob("bool", True, "Seed a cold bank in the background at session start.")
    seed_history_limit: int = _knob("int", 300, "Commits read by seeding.",
                                    lo=0, hi=1_000_000)
    import_transcripts: bool = _knob("bool", True,
                                     "Seeding imports earlier transcripts of the project.")
    retain_transcripts: bool = _knob("bool", True,
                                     "Stop/pre-compact/session-end retain the session.")
    hook_sync: bool = _knob("bool", False,
                            "Run the stop hooks' work in the foreground (debugging).")
    diag_file: str = _knob("str", "",
                           "Hook diagnostics JSONL (default $HINDSIGHT_HOME/logs/hooks.jsonl).")
    cursor_prompt_context: bool = _knob(
        "bool", True, "Cursor's beforeSubmitPrompt hook returns recalled memories as "
        "additional_context (accepted by Cursor 3.20 clients, not documented); off: Cursor "
        "gets the session briefing and the MCP tools only.")
    prompt_context_files: int = _knob(
        "int", 0, "The prompt hook names this many files of task context (hindsight "
        "context) when that ranking is confident; 0: none.", lo=0, hi=10)
    # --- execution records (records/) ---------------------------------------------------
    records_inject_limit: int = _knob("int", 3, "Failed attempts injected per prompt or edit "
                                      "hook (0: none).", lo=0, hi=20)
    records_callee_depth: int = _knob("int", 2, "Call-graph levels from a test to the symbols "
                                      "it exercises.", lo=0, hi=5)
    records_keep_failed_days: int = _knob("int", 7, "Failed records older than this are "
                                          "pruned unless a memory cites them.", lo=1, hi=36_500)
    records_decay_days: float = _seconds(30.0, "Time constant (days) of a record's activity "
                                         "decay, exp(-age / it).")
    # --- model providers --------------------------------------------------------------
    llm_url: str = _knob("str", "",
                         "Base URL of an OpenAI-compatible chat endpoint, ending in /v1 (e.g. "
                         "http://127.0.0.1:8080/v1); empty: no LLM, nothing leaves the "
                         "machine.")
    llm_model: str = _knob("str", "", "Model name sent to the LLM endpoint.")
    llm_api_key: str = _knob("str", "", "Bearer token for the LLM endpoint (never printed).",
                             secret=True)
    llm_timeout_s: float = _seconds(10.0, "Seconds one LLM call may take (above 0).")
    embed_url: str = _knob("str", "",
                           "Base URL of an OpenAI-compatible /embeddings endpoint, ending in "
                           "/v1 (used when embedder is openai).")
    embed_model: str = _knob("str", "",
                             "Model name sent to the embeddings endpoint (embedder openai).")
    embed_api_key: str = _knob("str", "",
                               "Bearer token for the embeddings endpoint (never printed).",
                               secret=True)
    reranker_model: str = _knob("str", "",
                                "Path of an ONNX cross-encoder for recall --rerank; empty: "
                                "re-score with the embedding model.")
    reranker_tokenizer: str = _knob("str", "",
                                    "Path of the reranker's tokenizer.json (needed with "
                                    "rerankerModel).")
    threads: int = _knob("int", 0,
                         "CPU threads of the local embedding model (0: all cores).",
                         lo=0, hi=1024)
    # --- team server (hindsight serve) ------------------------------------------------
    serve_host: str = _knob("str", "127.0.0.1",
                            "Interface hindsight serve binds (another than loopback needs "
                            "TLS or --insecure).")
    serve_port: int = _knob("int", 8888, "TCP port of hindsight serve (0: a free one).",
                            lo=0, hi=65_535)
    serve_workers: int = _knob("int", 1, "Server processes of hindsight serve.", lo=1, hi=64)
    api_url: str = _knob("str", "", "Client mode: URL of a hindsight serve holding the memories.")
    api_token: str = _knob("str", "", "Client mode: bearer token (never printed).", secret=True)
    api_token_file: str = _knob("str", "", "Client mode: token file (re-read after a 401).")
    api_timeout_s: float = _seconds(2.0, "Client mode: seconds per server request (above 0).")
    federation_banks: tuple[str, ...] = _knob("list", (), "recall --federated: other banks here.")
    federation_peers: tuple[str, ...] = _knob("list", (), "recall --federated: 'URL BANK' peers.")
    federation_weights: Mapping[str, str] = _knob("map", {}, "self/bank/peer weights (1/0.8/0.5).")
    federation_key_id: str = _knob("str", "", "Key id (JWT kid) this side signs peer calls with.")
    federation_key_file: str = _knob("str", "", "File holding that key's HS256 secret.")
    federation_timeout_s: float = _seconds(2.0, "Seconds a peer may take (above 0).")
    peer_keys: Mapping[str, str] = _knob("map", {}, "Server: peer key id -> its secret's file.")
    peer_teams: Mapping[str, str] = _knob("map", {}, "Server: peer key id -> team it reads as.")
    peer_audience: str = _knob("str", "", "Server: JWT audience peers use (default: own URL).")
    # --- time limits ------------------------------------------------------------------
    parse_timeout_s: float = _seconds(20.0,
                                      "Seconds one file may take to parse while indexing "
                                      "before it is skipped as parse_timeout (above 0).")
    database_url: str = _knob("str", "",
                              "PostgreSQL URL (postgresql://user:password@host:port/db) "
                              "where banks keep their memories (one schema per bank); empty: "
                              "in each bank's SQLite file. Its password is never shown.")
    busy_timeout_ms: int = _knob("int", 30_000,
                                 "Milliseconds a bank database waits for another writer "
                                 "before failing (SQLite busy_timeout; 0: fail at once).",
                                 lo=0, hi=_INT32_MAX)
    mcp_timeout_s: float = _seconds(10.0,
                                    "Seconds an MCP tool call may run before it returns what "
                                    "it has with partial: true (above 0).")
    mcp_max_tokens: int = _knob("int", 10_000,
                                "Cap of one MCP tool answer in tokens, counted as characters "
                                "/ 4 of its JSON text; a longer answer is cut with truncated: "
                                "true and how to get the rest.", lo=500, hi=1_000_000)
    # --- knowledge pages --------------------------------------------------------------
    survey_refresh_commits: int = _knob("int", 20, "Knowledge pages are due after this many "
                                        "new commits (0: never for commits).", lo=0, hi=10**6)
    page_trigger_cron: str = _knob("str", "H * * * *", "Cron schedule of the knowledge pages "
                                   "(H: hashed from bank id and page name); empty: none.")

    # --- bookkeeping (not settings) ---------------------------------------------------
    sources: Mapping[str, str] = field(default_factory=_default_sources, repr=False,
                                       compare=False)
    path: str = field(default="", compare=False)  # the config file ("" for defaults())
    harness: str = field(default="", compare=False)  # whose layer was applied
    applied_bank: str = field(default="", compare=False)  # whose banks.<id> layer was applied
    file_data: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        problems = []
        for k in FIELDS.values():
            v = getattr(self, k.attr)
            if k.tag == "list" and isinstance(v, list | tuple):
                v = tuple(v)
            elif k.tag == "map" and isinstance(v, Mapping) and not isinstance(
                    v, MappingProxyType):
                v = MappingProxyType(dict(v))
            elif k.tag == "float" and isinstance(v, int) and not isinstance(v, bool):
                v = float(v)
            object.__setattr__(self, k.attr, v)
            if not _type_ok(k.tag, v):
                problems.append(f"{k.name}: expected {_TYPE_NAMES[k.tag]}, got {_jtype(v)}")
            elif (why := value_problem(k.name, v)) is not None:
                problems.append(f"{k.name}: {why}")
        if problems:
            raise ConfigError("\n".join(problems))
        src = dict.fromkeys(FIELDS, "default")
        src.update(self.sources)
        object.__setattr__(self, "sources", MappingProxyType(src))

    def __repr__(self) -> str:
        """The dataclass repr with a URL's password masked (``user:***@``); secret fields
        are left out as before."""
        from hindsight.config.urls import masked

        def one(name: str) -> str:
            v = getattr(self, name)
            return repr(masked(v) if name.endswith("_url") and isinstance(v, str) else v)

        return "Settings(" + ", ".join(f"{f.name}={one(f.name)}"
                                       for f in dataclasses.fields(self) if f.repr) + ")"

    def __reduce__(self) -> tuple[Any, ...]:  # read-only mappings do not pickle
        state = {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}
        return (_rebuild, (state,))

    # --- construction -----------------------------------------------------------------
    @classmethod
    def defaults(cls, **values: Any) -> Settings:
        """Built-in defaults, without reading the environment or any file; ``values`` (by
        file name, e.g. ``llmUrl="http://127.0.0.1:1/v1"``) are applied with
        :meth:`with_values`."""
        s = cls()
        return s.with_values(values) if values else s

    def with_values(self, values: Mapping[str, Any], source: str = "given") -> Settings:
        """A copy with ``values`` (by file name) applied and their source set to ``source``.
        Raises :class:`ConfigError` for an unknown name or a bad value."""
        unknown = [k for k in values if k not in FIELDS]
        if unknown:
            raise ConfigError(f"{unknown[0]}: unknown setting (known: {', '.join(FIELDS)})")
        sources = {**self.sources, **dict.fromkeys(values, source)}
        return dataclasses.replace(self, sources=sources,
                                   **{FIELDS[k].attr: v for k, v in values.items()})

    def for_bank(self, bank_id: str) -> Settings:
        """A copy with the ``banks.<bank_id>`` layer of the file applied on top."""
        layer = (self.file_data.get("banks") or {}).get(bank_id) or {}
        s = self.with_values(layer, f"{self.path} banks.{bank_id}")
        return dataclasses.replace(s, applied_bank=bank_id)

    # --- reading ----------------------------------------------------------------------
    def __getitem__(self, name: str) -> Any:
        """The value of field ``name`` as in the file (``settings["recallLimit"]``); lists
        and maps come as plain copies."""
        k = FIELDS.get(name)
        if k is None:
            raise KeyError(name)
        return _plain(getattr(self, k.attr))

    def shown(self, name: str) -> Any:
        """``self[name]``, or ``***`` for a secret that is set (a URL's password too)."""
        from hindsight.config.urls import masked

        v = self[name]
        return MASK if FIELDS[name].secret and v else masked(v) if name.endswith("Url") else v

    @property
    def values(self) -> dict[str, Any]:
        """Every value by file name, for display: secrets that are set read ``***``
        (read real values as attributes or with ``settings[name]``)."""
        return {k: self.shown(k) for k in FIELDS}

    def display(self) -> dict[str, dict[str, Any]]:
        """``{name: {"value": ..., "source": ...}}`` for every field, secrets masked (what
        ``hindsight config show --json`` prints under ``values``)."""
        return {k: {"value": self.shown(k), "source": self.sources[k]} for k in FIELDS}


def _rebuild(state: dict[str, Any]) -> Settings:
    return Settings(**state)


def _plain(v: Any) -> Any:
    if isinstance(v, tuple):
        return list(v)
    if isinstance(v, Mapping):
        return dict(v)
    return v


def _camel(attr: str) -> str:
    head, *rest = attr.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def _fields() -> dict[str, Knob]:
    out = {}
    for f in dataclasses.fields(Settings):
        if "knob" in f.metadata:
            name = _camel(f.name)
            out[name] = Knob(name, f.name, *f.metadata["knob"])
    return out


# name in the file -> its Knob, in the order of the class (that of `config show`).
FIELDS: dict[str, Knob] = _fields()
# Fields that decide which bank is used cannot be set per bank.
RESOLUTION_FIELDS = ("bankId", "bankTemplate", "mapPathToBank", "optInOnly", "optInPaths")
# Environment names that the mechanical rule (:func:`env_name`) would not give; none today,
# every current variable is HINDSIGHT_ + the name in capitals with words split by "_".
ENV_ALIASES: dict[str, tuple[str, ...]] = {}
_TYPE_NAMES = {"bool": "boolean", "int": "integer", "float": "number", "str": "string",
               "str?": "string or null", "list": "list of strings",
               "map": "object of strings"}


def env_name(name: str) -> str:
    """``disableHooks`` -> ``HINDSIGHT_DISABLE_HOOKS``, ``llmTimeoutS`` ->
    ``HINDSIGHT_LLM_TIMEOUT_S``."""
    return "HINDSIGHT_" + re.sub(r"(?<!^)([A-Z])", r"_\1", name).upper()


def env_names(name: str) -> tuple[str, ...]:
    """Every environment variable that sets field ``name``, in the order they are tried:
    :func:`env_name`, then the name in capitals without ``_`` (``HINDSIGHT_RECALLLIMIT``),
    then any :data:`ENV_ALIASES`."""
    out = [env_name(name), "HINDSIGHT_" + name.upper(), *ENV_ALIASES.get(name, ())]
    return tuple(dict.fromkeys(out))


def config_path() -> str:
    """``$HINDSIGHT_CONFIG``, else ``$HINDSIGHT_HOME/config.json`` (default
    ``~/.hindsight/config.json``)."""
    from hindsight.config.paths import Home

    return os.path.abspath(os.environ.get("HINDSIGHT_CONFIG")
                           or Home.current().config)


def _type_ok(tag: str, v: Any) -> bool:
    if tag == "bool":
        return isinstance(v, bool)
    if tag == "int":
        return isinstance(v, int) and not isinstance(v, bool)
    if tag == "float":
        return isinstance(v, int | float) and not isinstance(v, bool)
    if tag == "str":
        return isinstance(v, str)
    if tag == "str?":
        return v is None or isinstance(v, str)
    if tag == "list":
        return isinstance(v, list | tuple) and all(isinstance(x, str) for x in v)
    return isinstance(v, Mapping) and all(isinstance(x, str) for x in v.values())


def value_problem(name: str, v: Any) -> str | None:
    """Why ``v`` (already of the right type) is not allowed for ``name``, or None."""
    import string

    k = FIELDS[name]
    if k.lo is not None and k.hi is not None:
        ok = math.isfinite(v) and (k.lo < v if k.above else k.lo <= v) and v <= k.hi
        if not ok:
            return (f"{v!r} is out of range ({'above ' if k.above else ''}{_num(k.lo)} to "
                    f"{_num(k.hi)})")
    if k.choices and v not in k.choices:
        return f"{v!r}: one of {', '.join(k.choices)}"
    if name == "databaseUrl" and v and not v.startswith(("postgresql://", "postgres://")):
        return "expected a postgresql:// URL (empty: memories stay in SQLite)"
    if name == "bankId" and v is not None and not v.strip():
        return "must not be empty (use null for none)"
    if name == "optInPaths" and any(not p.strip() for p in v):
        return "paths must not be empty"
    if name == "mapPathToBank" and any(not k.strip() or not b.strip() for k, b in v.items()):
        return "paths and bank ids must not be empty"
    if name == "pageTriggerCron" and v.strip() and v != FIELDS[name].default:
        return cron_problem(v)
    if name == "bankTemplate":
        if not v.strip():
            return "must not be empty"
        try:
            parts = list(string.Formatter().parse(v))
        except ValueError as e:
            return f"{v!r}: {e}"
        if any(conv or spec for _, f, spec, conv in parts if f is not None):
            return f"{v!r}: placeholders take no conversion or format spec"
        known = ("gitProject", "gitRemote", "project", "harness", "user", "channel")
        bad = [f for _, f, _, _ in parts if f is not None and f not in known]
        if bad:
            return f"{v!r}: unknown placeholder {{{bad[0]}}}"
    return None


def cron_problem(expr: str) -> str | None:
    """Why ``expr`` is not a five-field cron expression (``H`` allowed; croniter), or None."""
    if len(expr.split()) != 5:
        return f"{expr!r}: five fields expected (minute hour day month weekday)"
    from croniter import croniter

    return None if croniter.is_valid(expr, hash_id=b"x") else f"{expr!r}: not a valid cron"


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _jtype(v: Any) -> str:
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "list",
            dict: "object", type(None): "null"}.get(type(v), type(v).__name__)


# the environment layer and load() (config/envload.py), kept importable from here
from hindsight.config.envload import _from_env as _from_env  # noqa: E402
from hindsight.config.envload import _parse_env as _parse_env  # noqa: E402
from hindsight.config.envload import env_flag as env_flag  # noqa: E402
from hindsight.config.envload import env_value as env_value  # noqa: E402
from hindsight.config.envload import load as load  # noqa: E402
