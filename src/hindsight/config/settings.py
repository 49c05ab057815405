"""Layered settings from one JSON file, field by field; later layers win (issue #5):

1. built-in defaults (:data:`FIELDS`);
2. environment variables ``HINDSIGHT_<FIELD_IN_CAPS>``, words split by ``_``
   (``disableHooks`` → ``HINDSIGHT_DISABLE_HOOKS``; ``HINDSIGHT_DISABLEHOOKS`` works too);
3. the top level of the file (``$HINDSIGHT_CONFIG``, default ``$HINDSIGHT_HOME/config.json``,
   i.e. ``~/.hindsight/config.json``);
4. ``harnesses.<name>`` of the file (``claude-code``, ``codex``, ``mcp``, ``cli``);
5. ``banks.<bankId>`` of the file.

Nothing is ever read from inside a repository: a cloned repository cannot turn memory on,
redirect storage or weaken redaction. Unknown keys, wrong types and invalid JSON are errors
that name their path (``config.json: harnesses.codex.optInOnly: expected boolean, got
string``); they are never silently ignored.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

from hindsight.errors import ConfigError

HARNESSES = ("claude-code", "codex", "mcp", "cli")

# name -> (type tag, default, help). Type tags: bool, int, float, str, str?, list, map.
FIELDS: dict[str, tuple[str, Any, str]] = {
    "disabled": ("bool", False, "Turn hindsight off: hooks do nothing, no bank is opened."),
    "disableHooks": ("bool", False, "Every hook is a no-op (for headless runs)."),
    "bankId": ("str?", None, "Use this bank id instead of the template."),
    "bankTemplate": ("str", "coding-agent::{gitProject}",
                     "Bank id template; placeholders {gitProject} {project} {harness} "
                     "{user} {channel}."),
    "mapPathToBank": ("map", {}, "Absolute path prefix -> bank id; the longest prefix wins."),
    "optInOnly": ("bool", False, "Only repositories under optInPaths get a bank."),
    "optInPaths": ("list", [], "Paths opted in when optInOnly is set."),
    "channel": ("str", "", "Value of the {channel} placeholder."),
    "embedder": ("str", "minilm", "Embedding provider: minilm, hashing or openai."),
    "briefingMaxChars": ("int", 8000, "Cap of the session-start briefing (characters)."),
    "recallMaxChars": ("int", 4000, "Cap of one prompt's injected memories (characters)."),
    "recallLimit": ("int", 5, "At most this many memories injected per prompt."),
    "recallThreshold": ("float", 0.35,
                        "Minimum relevance (0..1, see hooks/claude_code.py) for a memory "
                        "to be injected on a prompt."),
    "seed": ("bool", True, "Seed a cold bank in the background at session start."),
    "seedHistoryLimit": ("int", 300, "Commits read by seeding."),
    "importTranscripts": ("bool", True, "Seeding imports earlier transcripts of the project."),
    "retainTranscripts": ("bool", True, "Stop/pre-compact/session-end retain the session."),
    "hookSync": ("bool", False, "Run the stop hooks' work in the foreground (debugging)."),
    "diagFile": ("str", "", "Hook diagnostics JSONL (default $HINDSIGHT_HOME/logs/hooks.jsonl)."),
}
# Allowed ranges (inclusive) and values; checked wherever a value comes from.
LIMITS: dict[str, tuple[float, float]] = {
    "briefingMaxChars": (500, 20_000), "recallMaxChars": (200, 20_000),
    "recallLimit": (0, 50), "recallThreshold": (0.0, 1.0), "seedHistoryLimit": (0, 1_000_000)}
CHOICES = {"embedder": ("minilm", "hashing", "openai")}
# Fields that decide which bank is used cannot be set per bank.
RESOLUTION_FIELDS = ("bankId", "bankTemplate", "mapPathToBank", "optInOnly", "optInPaths")
_TYPE_NAMES = {"bool": "boolean", "int": "integer", "float": "number", "str": "string",
               "str?": "string or null", "list": "list of strings",
               "map": "object of strings"}


def env_name(name: str) -> str:
    """``disableHooks`` -> ``HINDSIGHT_DISABLE_HOOKS``."""
    return "HINDSIGHT_" + re.sub(r"(?<!^)([A-Z])", r"_\1", name).upper()


def config_path() -> str:
    """``$HINDSIGHT_CONFIG``, else ``$HINDSIGHT_HOME/config.json`` (default
    ``~/.hindsight/config.json``)."""
    from hindsight.config.paths import hindsight_home

    return os.path.abspath(os.environ.get("HINDSIGHT_CONFIG")
                           or os.path.join(hindsight_home(), "config.json"))


@dataclass
class Settings:
    """Effective values (``values[name]``) and where each came from (``sources[name]``:
    ``default``, ``env HINDSIGHT_X``, ``<file>``, ``<file> harnesses.<h>``,
    ``<file> banks.<id>``)."""

    values: dict[str, Any]
    sources: dict[str, str]
    path: str
    harness: str = ""
    bank_id: str = ""
    file_data: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, name: str) -> Any:
        return self.values[name]

    def for_bank(self, bank_id: str) -> Settings:
        """A copy with the ``banks.<bank_id>`` layer applied on top."""
        values, sources = dict(self.values), dict(self.sources)
        layer = (self.file_data.get("banks") or {}).get(bank_id) or {}
        for k, v in layer.items():
            values[k], sources[k] = v, f"{self.path} banks.{bank_id}"
        return Settings(values, sources, self.path, self.harness, bank_id, self.file_data)


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
        return isinstance(v, list) and all(isinstance(x, str) for x in v)
    return isinstance(v, dict) and all(isinstance(x, str) for x in v.values())


def value_problem(name: str, v: Any) -> str | None:
    """Why ``v`` (already of the right type) is not allowed for ``name``, or None."""
    import math
    import string

    if name in LIMITS:
        lo, hi = LIMITS[name]
        if not math.isfinite(v) or not lo <= v <= hi:
            return f"{v!r} is out of range ({lo:g} to {hi:g})"
    if name in CHOICES and v not in CHOICES[name]:
        return f"{v!r}: one of {', '.join(CHOICES[name])}"
    if name == "bankId" and v is not None and not v.strip():
        return "must not be empty (use null for none)"
    if name == "optInPaths" and any(not p.strip() for p in v):
        return "paths must not be empty"
    if name == "mapPathToBank" and any(not k.strip() or not b.strip() for k, b in v.items()):
        return "paths and bank ids must not be empty"
    if name == "bankTemplate":
        if not v.strip():
            return "must not be empty"
        try:
            parts = list(string.Formatter().parse(v))
        except ValueError as e:
            return f"{v!r}: {e}"
        if any(conv or spec for _, f, spec, conv in parts if f is not None):
            return f"{v!r}: placeholders take no conversion or format spec"
        known = ("gitProject", "project", "harness", "user", "channel")
        bad = [f for _, f, _, _ in parts if f is not None and f not in known]
        if bad:
            return f"{v!r}: unknown placeholder {{{bad[0]}}}"
    return None


def _jtype(v: Any) -> str:
    return {bool: "boolean", int: "integer", float: "number", str: "string", list: "list",
            dict: "object", type(None): "null"}.get(type(v), type(v).__name__)


def _check_layer(obj: Any, where: str, problems: list[str], *, top: bool = False,
                 bank: bool = False) -> dict[str, Any]:
    if not isinstance(obj, dict):
        problems.append(f"{where or '(top level)'}: expected object, got {_jtype(obj)}")
        return {}
    out: dict[str, Any] = {}
    for k, v in obj.items():
        path = f"{where}.{k}" if where else k
        if top and k in ("harnesses", "banks"):
            continue
        if k not in FIELDS:
            problems.append(f"{path}: unknown key (known: {', '.join(FIELDS)})")
        elif bank and k in RESOLUTION_FIELDS:
            problems.append(f"{path}: decides which bank is used, so it cannot be set per bank")
        elif not _type_ok(FIELDS[k][0], v):
            problems.append(f"{path}: expected {_TYPE_NAMES[FIELDS[k][0]]}, got {_jtype(v)}")
        elif (why := value_problem(k, v)) is not None:
            problems.append(f"{path}: {why}")
        else:
            out[k] = float(v) if FIELDS[k][0] == "float" else v
    return out


def _parse_env(name: str, raw: str, where: str = "") -> Any:
    tag = FIELDS[name][0]
    where = where or env_name(name)
    if tag == "bool":
        low = raw.strip().lower()
        if low in ("1", "true", "yes", "on"):
            return True
        if low in ("0", "false", "no", "off", ""):
            return False
        raise ConfigError(f"env {where}={raw!r}: expected 1/0, true/false, yes/no or on/off")
    if tag in ("int", "float"):
        try:
            return int(raw) if tag == "int" else float(raw)
        except ValueError:
            raise ConfigError(f"env {where}={raw!r}: expected {_TYPE_NAMES[tag]}") from None
    if tag in ("list", "map"):
        if tag == "list" and not raw.lstrip().startswith("["):
            return [p for p in raw.split(os.pathsep) if p]
        try:
            v = json.loads(raw)
        except ValueError:
            raise ConfigError(f"env {where}: expected JSON ({_TYPE_NAMES[tag]})") from None
        if not _type_ok(tag, v):
            raise ConfigError(f"env {where}: expected {_TYPE_NAMES[tag]}, got {_jtype(v)}")
        return v
    return raw if (tag == "str" or raw) else None


def read_file(path: str) -> dict[str, Any]:
    """The parsed config file, ``{}`` when it does not exist. Raises :class:`ConfigError` for
    unreadable files, invalid JSON (with line and column) and a non-object top level."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror}") from None
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8") from None
    except json.JSONDecodeError as e:
        raise ConfigError(f"{path}: invalid JSON at line {e.lineno} column {e.colno}: "
                          f"{e.msg}") from None
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object at the top level, got {_jtype(data)}")
    return data


def validate(data: dict[str, Any]) -> list[str]:
    """Every problem in a parsed config file, each as ``path: message``."""
    problems: list[str] = []
    _check_layer(data, "", problems, top=True)
    for section, bank in (("harnesses", False), ("banks", True)):
        sec = data.get(section)
        if sec is None:
            continue
        if not isinstance(sec, dict):
            problems.append(f"{section}: expected object, got {_jtype(sec)}")
            continue
        for name, layer in sec.items():
            if section == "harnesses" and name not in HARNESSES:
                problems.append(f"harnesses.{name}: unknown harness (known: "
                                f"{', '.join(HARNESSES)})")
                continue
            _check_layer(layer, f"{section}.{name}", problems, bank=bank)
    return problems


def load(harness: str = "", *, bank_id: str = "", env: Any = None) -> Settings:
    """Effective settings for ``harness`` (and ``bank_id`` when given).

    Raises :class:`ConfigError` listing every problem (one ``file: path: message`` per line)
    when the file or an environment variable is invalid."""
    env = os.environ if env is None else env
    path = config_path()
    values = {k: (list(d) if isinstance(d, list) else dict(d) if isinstance(d, dict) else d)
              for k, (_, d, _) in FIELDS.items()}
    sources = dict.fromkeys(FIELDS, "default")
    for k in FIELDS:
        for name in (env_name(k), "HINDSIGHT_" + k.upper()):  # RECALL_LIMIT or RECALLLIMIT
            raw = env.get(name)
            if raw is not None:
                values[k], sources[k] = _parse_env(k, raw, name), f"env {name}"
                why = value_problem(k, values[k])
                if why is not None:
                    raise ConfigError(f"env {name}: {why}")
                break
    data = read_file(path)
    problems = validate(data)
    if problems:
        raise ConfigError("\n".join(f"{path}: {p}" for p in problems))
    for k, v in data.items():
        if k in FIELDS:
            values[k], sources[k] = (float(v) if FIELDS[k][0] == "float" else v), path
    if harness:
        for k, v in ((data.get("harnesses") or {}).get(harness) or {}).items():
            values[k] = float(v) if FIELDS[k][0] == "float" else v
            sources[k] = f"{path} harnesses.{harness}"
    s = Settings(values, sources, path, harness, "", data)
    return s.for_bank(bank_id) if bank_id else s
