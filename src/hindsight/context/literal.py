"""The ``literal`` channel: text a task quotes verbatim (an error message in quotes, a
``--flag``, a word in backticks, an identifier) searched for as it is written in the best
files of the other channels — what a developer does with grep. A literal found in fewer of
those files counts more: each file scores Σ 1 / (files holding the literal) over the
literals it holds.
"""

from __future__ import annotations

import os
import re

from hindsight.codeindex.decode import normalise
from hindsight.context.named import code_shaped

MAX_LITERALS = 20
MAX_FILE_BYTES = 2 << 20
_QUOTED = re.compile(r"`([^`\n]{3,80})`|\"([^\"\n]{3,80})\"|(?<![\w'])'([^'\n]{3,80})'(?!\w)")
_FLAG = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*[\w])")
_WORD = re.compile(r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*")


def literals(text: str) -> list[str]:
    """The verbatim strings of ``text`` worth searching for, in order, each once: quoted
    or backticked spans, flags (``--min-depth``; also as ``min-depth``) and code-shaped
    words; at most :data:`MAX_LITERALS`."""
    text = text[:4_000]
    out: list[str] = []
    for m in _QUOTED.finditer(text):
        out.append(next(g for g in m.groups() if g))
    for m in _FLAG.finditer(text):
        flag = m.group(1)
        if flag.startswith("--") and len(flag) > 3:
            out += [flag, flag[2:]]
        elif len(flag) == 2:
            out.append(flag)
    out += [w for w in _WORD.findall(text) if code_shaped(w)]
    return [x for x in dict.fromkeys(s.strip() for s in out) if len(x) >= 2][:MAX_LITERALS]


def find(root: str, paths: list[str], lits: list[str]) -> dict[str, list[str]]:
    """``{path: [the literals it holds]}`` for those of ``paths`` (repository-relative,
    read from the work tree) that hold any of ``lits``."""
    out: dict[str, list[str]] = {}
    if not lits:
        return out
    for p in paths:
        try:
            with open(os.path.join(root, p), "rb") as fh:
                data = fh.read(MAX_FILE_BYTES)
        except OSError:
            continue
        text = normalise(data)[0].decode("utf-8", "replace")
        got = [lit for lit in lits if lit in text]
        if got:
            out[p] = got
    return out


def scores(found: dict[int, list[str]]) -> dict[int, float]:
    """Σ 1 / (files holding it) over the literals each file holds."""
    df: dict[str, int] = {}
    for lits in found.values():
        for lit in lits:
            df[lit] = df.get(lit, 0) + 1
    return {f: sum(1.0 / df[lit] for lit in lits) for f, lits in found.items()}
