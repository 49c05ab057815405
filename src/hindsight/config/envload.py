"""The environment layer of the settings and :func:`load` (split from
:mod:`hindsight.config.settings`, which re-exports every name here): variables are read
through ``settings.env_names``, values checked by ``settings.value_problem``."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from hindsight.config.settings import (
    _TYPE_NAMES,
    FIELDS,
    Settings,
    _jtype,
    _type_ok,
    config_path,
    env_name,
    env_names,
    value_problem,
)
from hindsight.errors import ConfigError


def _parse_env(name: str, raw: str, where: str = "") -> Any:
    tag = FIELDS[name].tag
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


def _from_env(name: str, env: Mapping[str, str]) -> tuple[str, Any] | None:
    """``(variable, value)`` of the environment layer of ``name``, None when unset. A
    number set to an empty string counts as unset. Raises :class:`ConfigError`."""
    for var in env_names(name):
        raw = env.get(var)
        if raw is None or (not raw.strip() and FIELDS[name].tag in ("int", "float")):
            continue
        v = _parse_env(name, raw, var)
        why = value_problem(name, v)
        if why is not None:
            raise ConfigError(f"env {var}: {why}")
        return var, v
    return None


def env_value(name: str, env: Mapping[str, str] | None = None) -> Any:
    """The environment layer alone of field ``name`` (no file is read), None when no
    variable sets it. Raises :class:`ConfigError` for an invalid value."""
    got = _from_env(name, os.environ if env is None else env)
    return None if got is None else got[1]


def env_flag(name: str, env: Mapping[str, str] | None = None) -> bool:
    """The environment layer alone of boolean field ``name`` (e.g. ``disableHooks`` from
    ``HINDSIGHT_DISABLE_HOOKS``), for fast paths that decide before loading settings. No
    file is read; an invalid value counts as false here (:func:`load` reports it)."""
    if FIELDS[name].tag != "bool":
        raise ValueError(f"{name} is not a boolean setting")
    try:
        return bool(env_value(name, env))
    except ConfigError:
        return False


def load(harness: str = "", *, bank_id: str = "", env: Mapping[str, str] | None = None
         ) -> Settings:
    """Effective settings for ``harness`` (and ``bank_id`` when given), from the
    environment (``env``, default ``os.environ``) and the config file.

    Raises :class:`ConfigError` listing every problem (one ``file: path: message`` per line)
    when the file or an environment variable is invalid."""
    env = os.environ if env is None else env
    path = config_path()
    values: dict[str, Any] = {}
    sources = dict.fromkeys(FIELDS, "default")
    for k in FIELDS:
        got = _from_env(k, env)
        if got is not None:
            values[k], sources[k] = got[1], f"env {got[0]}"
    from hindsight.config.configfile import read_file, validate

    data = read_file(path)
    problems = validate(data)
    if problems:
        raise ConfigError("\n".join(f"{path}: {p}" for p in problems))
    for k, v in data.items():
        if k in FIELDS:
            values[k], sources[k] = v, path
    if harness:
        for k, v in ((data.get("harnesses") or {}).get(harness) or {}).items():
            values[k], sources[k] = v, f"{path} harnesses.{harness}"
    s = Settings(sources=sources, path=path, harness=harness, file_data=data,
                 **{FIELDS[k].attr: v for k, v in values.items()})
    return s.for_bank(bank_id) if bank_id else s
