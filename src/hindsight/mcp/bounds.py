"""Bounded tool answers: every MCP answer fits a size cap, and a list cut short says so and
how to get the rest.

The cap is setting ``mcpMaxTokens`` (``HINDSIGHT_MCP_MAX_TOKENS``, default 10,000 tokens),
counted as :data:`CHARS_PER_TOKEN` (4) characters per token of the answer's JSON text as the
SDK sends it (indented by 2, :func:`size`): 40,000 characters by default. Why that size:
Claude Code warns when an MCP answer passes 10,000 tokens, refuses one above 25,000
(``MAX_MCP_OUTPUT_TOKENS``) and replaces a text answer above 50,000 characters by a file
reference with a short preview (Claude Code's MCP documentation,
https://code.claude.com/docs/en/mcp). Four characters per token is the usual estimate for
English text (OpenAI's tokenizer guide); dense JSON of paths and names runs nearer 3, which
still leaves 40,000 characters at about 13,000 tokens.

Three ways to stay under it:

- :func:`paged`: a ranked list (callers, callees, symbols, history entries, impact items,
  recall hits) is cut to ``limit`` rows from ``offset``, then to as many rows as fit; the
  answer says ``count``, ``total``, ``offset``, ``truncated`` and, when rows remain,
  ``next_offset`` and a one-line ``hint`` naming the call that gets the next page.
- :func:`capped_tree`: a call tree (trace_flow) keeps its steps breadth first as far as
  they fit; a step whose callees were cut says how many (``children_cut``).
- :func:`capped`: any other answer (reflect, why, status ...) has its longest list cut from
  the end (never below one element), then its longest string, then, as a last resort, its
  largest container emptied; ``truncated: true`` and ``cut`` say which.

``partial`` keeps its one meaning: a time limit was hit (see :mod:`hindsight.mcp.server`).
"""

from __future__ import annotations

import copy
import json
from typing import Any

CHARS_PER_TOKEN = 4
_MIN_STRING = 200  # a string is never cut shorter than this many characters


def max_chars() -> int:
    """The answer cap in characters: setting ``mcpMaxTokens`` × :data:`CHARS_PER_TOKEN`, read
    at each call. Raises ConfigError for a bad setting."""
    from hindsight.config.settings import load

    return int(load("mcp").mcp_max_tokens) * CHARS_PER_TOKEN


def size(out: Any) -> int:
    """Characters of ``out`` as JSON indented by 2 with non-ASCII kept: the text content the
    MCP SDK sends beside the structured answer (its compact form is shorter)."""
    return len(json.dumps(out, ensure_ascii=False, indent=2, default=str))


def _lines(text: str) -> int:
    return text.count("\n") + 1


def _row_cost(row: Any, indent: int) -> int:
    """Characters ``row`` adds as one element of a list whose elements sit ``indent``
    spaces deep: its own text, each line indented, and the separator."""
    text = json.dumps(row, ensure_ascii=False, indent=2, default=str)
    return len(text) + indent * _lines(text) + 2


def paged(base: dict[str, Any], key: str, rows: list[Any], *, offset: int, limit: int,
          tool: str, total: int | None = None, cap: int | None = None) -> dict[str, Any]:
    """``base`` plus the page ``rows[offset:offset + limit]`` under ``key`` and the fields of
    :func:`hindsight.app.page`, cut to the rows that fit ``cap`` characters (default
    :func:`max_chars`; at least one row when any remains, so that paging always moves on).
    When rows remain it adds ``hint``: one line with the call that gets the next page.
    ``total``: as for :func:`hindsight.app.page`."""
    from hindsight.app import page

    cap = max_chars() if cap is None else cap
    asked = len(page(rows, offset, limit, total)[0])

    def build(n: int) -> dict[str, Any]:
        shown, fields = page(rows, offset, max(n, 1), total)
        out = {**base, **fields, key: shown}
        if fields["truncated"]:
            why = (f" (cut to the {cap:,}-character answer cap, setting mcpMaxTokens)"
                   if n < asked else "")
            out["hint"] = (f"{fields['count']} of {fields['total']} from offset {offset}{why}; "
                           f"call {tool} again with offset={fields['next_offset']} for the "
                           "next")
        return out

    if asked <= 1:
        return build(asked)
    one = build(0)  # one row, the hint of a cut page: the estimate starts from it
    room = cap - size(one) - 8 + _row_cost(one[key][0], 4)
    fitted, used = 0, 0
    for row in rows[offset:offset + asked]:
        used += _row_cost(row, 4)
        if used > room:
            break
        fitted += 1
    out = build(fitted)
    while size(out) > cap and fitted > 1:  # the estimate is exact but for float spelling
        fitted -= 1
        out = build(fitted)
    return out


# --- any answer: cut the longest list, then the longest string ---------------------------
def _containers(node: Any, path: str, out: list[tuple[str, Any]]) -> None:
    if isinstance(node, dict):
        for k, v in node.items():
            _containers(v, f"{path}.{k}" if path else str(k), out)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _containers(v, f"{path}[{i}]", out)
    else:
        return
    if path:
        out.append((path, node))


def _strings(node: Any, path: str, out: list[tuple[int, str, Any, Any]]) -> None:
    items = node.items() if isinstance(node, dict) else enumerate(node) \
        if isinstance(node, list) else ()
    for k, v in items:
        sub = f"{path}.{k}" if isinstance(node, dict) else f"{path}[{k}]"
        if isinstance(v, str):
            out.append((len(v), sub.lstrip("."), node, k))
        else:
            _strings(v, sub, out)


def _cut_list(path: str, lst: list[Any], over: int, second: int, cuts: dict[str, list[int]]
              ) -> None:
    """Drop elements from the end of ``lst`` (keeping one) until ``over`` characters are
    gone or it is no longer longer than ``second``."""
    goal = max(1, min(over, size(lst) - second))
    gone = 0
    rec = cuts.setdefault(path, [0, len(lst)])
    while len(lst) > 1 and gone < goal:
        gone += _row_cost(lst.pop(), 0)
        rec[0] += 1


def _finish(out: dict[str, Any], cuts: dict[str, list[int]], tool: str, cap: int,
            hint: str | None) -> dict[str, Any]:
    said = [f"{p[:-6]}: {n:,} of {of:,} characters" if p.endswith("#chars")
            else f"{p}: {n} of {of} items" for p, (n, of) in cuts.items()]
    return {**out, "truncated": True, "cut": said, "hint": hint or (
        f"cut to the {cap:,}-character answer cap (setting mcpMaxTokens), see cut; ask "
        f"{tool} for less (a smaller k, limit or depth, or a narrower question)")}


_MARK = 40  # room for the " … [N characters cut]" mark


def _cut_one(out: dict[str, Any], over: int, cuts: dict[str, list[int]]) -> bool:
    """Cut ``over`` characters (or what one step can) from the longer of the biggest list
    that has more than one element and the longest string not yet cut to its minimum; else
    empty the biggest container. False when there is nothing left to cut."""
    found: list[tuple[str, Any]] = []
    _containers(out, "", found)
    lists = sorted(((size(c), p, c) for p, c in found if isinstance(c, list) and len(c) > 1),
                   key=lambda t: -t[0])
    texts: list[tuple[int, str, Any, Any]] = []
    _strings(out, "", texts)
    texts = [t for t in texts if t[0] > _MIN_STRING + _MARK]
    longest = max(texts, key=lambda t: t[0], default=None)
    if lists and (longest is None or lists[0][0] >= longest[0]):
        second = max(lists[1][0] if len(lists) > 1 else 0, longest[0] if longest else 0)
        _cut_list(lists[0][1], lists[0][2], over, second, cuts)
        return True
    if longest is not None:
        n, path, parent, k = longest
        rec = cuts.setdefault(path + "#chars", [0, n])
        text = parent[k][:rec[1] - rec[0]]  # without the mark of an earlier cut
        keep = max(_MIN_STRING, len(text) - over - _MARK)
        rec[0] = rec[1] - keep
        parent[k] = text[:keep] + f" … [{rec[0]:,} characters cut]"
        return True
    full = [(p, c) for p, c in found if c]
    if not full:
        return False
    path, biggest = max(full, key=lambda t: size(t[1]))
    cuts.setdefault(path, [0, len(biggest)])[0] += len(biggest)
    biggest.clear()
    return True


def capped(out: dict[str, Any], *, tool: str, cap: int | None = None) -> dict[str, Any]:
    """``out`` when it fits ``cap`` characters (default :func:`max_chars`); else a copy cut
    to fit, with ``truncated: true``, ``cut`` (what was cut, one line each) and a ``hint``
    (kept when the answer already has one)."""
    cap = max_chars() if cap is None else cap
    if size(out) <= cap:
        return out
    hint = out.get("hint")
    work = copy.deepcopy(out)
    cuts: dict[str, list[int]] = {}  # path (+ "#chars" for a string) -> [cut, of]
    while True:
        res = _finish(work, cuts, tool, cap, hint)
        over = size(res) - cap
        if over <= 0 or not _cut_one(work, over, cuts):
            return res


# --- a call tree: steps breadth first ------------------------------------------------------
def capped_tree(out: dict[str, Any], *, tool: str, key: str = "tree", cap: int | None = None
                ) -> dict[str, Any]:
    """``out`` when it fits ``cap`` characters (default :func:`max_chars`); else a copy
    whose tree ``out[key]`` (nodes with ``children``) keeps the most steps, taken breadth
    first, that fit; a kept step whose callees were dropped gets ``children_cut`` (how
    many). Adds ``truncated``, ``count`` and ``total`` (steps), and a ``hint`` naming where
    to start again."""
    cap = max_chars() if cap is None else cap
    if size(out) <= cap:
        return out
    order: list[dict[str, Any]] = [out[key]]
    for node in order:
        order.extend(node.get("children") or [])
    total = len(order)
    if total == 1:
        return capped(out, tool=tool, cap=cap)

    def pruned(n: int) -> tuple[dict[str, Any], list[str]]:
        keep = {id(x) for x in order[:n]}
        starts: list[str] = []

        def copy_node(node: dict[str, Any]) -> dict[str, Any]:
            kids = node.get("children") or []
            kept = [copy_node(c) for c in kids if id(c) in keep]
            new = {**node, "children": kept}
            if len(kept) < len(kids):
                new["children_cut"] = len(kids) - len(kept)
                starts.append(node.get("name", ""))
            return new

        tree = copy_node(out[key])
        return ({**out, key: tree, "truncated": True, "count": n, "total": total}, starts)

    lo, hi = 1, total - 1  # the most steps that fit: binary search on exact sizes
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if size(pruned(mid)[0]) + 300 <= cap:
            lo = mid
        else:
            hi = mid - 1
    res, starts = pruned(lo)
    res["hint"] = (f"{lo} of {total} steps fit the {cap:,}-character answer cap (setting "
                   f"mcpMaxTokens), breadth first; call {tool} again with a smaller depth or "
                   f"from a step marked children_cut, e.g. start={starts[0]!r}")
    return capped(res, tool=tool, cap=cap)
