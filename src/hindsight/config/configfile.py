"""The config file layer of :mod:`hindsight.config.settings`: reading
``$HINDSIGHT_CONFIG`` (default ``$HINDSIGHT_HOME/config.json``) and checking every layer in
it (top level, ``harnesses.<name>``, ``banks.<id>``), each problem named by its path."""

from __future__ import annotations

import json
from typing import Any

from hindsight.config.jsontext import loads
from hindsight.config.settings import (
    _TYPE_NAMES,
    FIELDS,
    HARNESSES,
    RESOLUTION_FIELDS,
    _jtype,
    _type_ok,
    value_problem,
)
from hindsight.errors import ConfigError


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
        data = loads(raw)  # UTF-8, a leading BOM and CRLF line endings accepted
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
        elif not _type_ok(FIELDS[k].tag, v):
            problems.append(f"{path}: expected {_TYPE_NAMES[FIELDS[k].tag]}, got {_jtype(v)}")
        elif (why := value_problem(k, v)) is not None:
            problems.append(f"{path}: {why}")
        else:
            out[k] = v
    return out
