"""Facts of Python unpacking assignments (``a, b = …``) and of the elements of literals,
for :meth:`hindsight.codeindex.bindings.Bindings.bind`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hindsight.codeindex.exprs import parse
from hindsight.codeindex.values import MAX_TARGETS

if TYPE_CHECKING:
    from hindsight.codeindex.bindings import Bindings

_SPREADS = frozenset({"list_splat", "dictionary_splat", "spread_element"})
_ANONYMOUS = frozenset({"lambda"})
_WHOLE = frozenset({"call", "identifier", "subscript", "attribute"})  # `a, b = <one value>`


def _t(n: Any) -> str:
    return n.text.decode("utf-8", "replace") if n is not None else ""


def unpack(out: Bindings, scope: str, target_node: Any, value_node: Any, line: int) -> None:
    """``a, b = …`` element-wise; ``first, *rest, last = [A(), B(), C(), D()]``: the
    starred name's elements are the values between."""
    targets = [c for c in target_node.named_children if c.type != "comment"]
    vt = value_node.type if value_node is not None else ""
    values = [c for c in value_node.named_children if c.type != "comment"] \
        if vt in ("expression_list", "tuple", "list") else []
    whole = out.value(value_node) if not values and vt in _WHOLE \
        and out.language == "python" else None
    star = [i for i, t in enumerate(targets) if t.type == "list_splat_pattern"]
    k = star[0] if len(star) == 1 else -1
    after = len(targets) - k - 1
    for i, tn in enumerate(targets):
        j = i if k < 0 or i < k else (None if i == k else len(values) - after + i - k - 1)
        if whole and whole != "?" and tn.type in ("identifier", "list_splat_pattern"):
            # `a, b = make()` / `a, b = pair`: position i of the value (after a star:
            # some element, the last one position -1)
            name = _t(tn).lstrip("*")
            if out.read(scope, name):
                part = f"[{i}]" if k < 0 or i < k else (  # the last one: `[-1]`
                    "[-1]" if i == len(targets) - 1 and i > k else "[*]")
                # `head, *rest = make()`: rest holds positions k, k+1, … of the value
                parts = [f"[{j}]" for j in range(k, k + 4)] if i == k and not after \
                    else [part]
                out.facts.extend((scope, name + ("[*]" if i == k else ""), whole + p, line)
                                 for p in parts)
                out.used(scope, whole)
        elif i == k and tn.named_child_count and values:
            name = _t(tn.named_child(0))
            for v in values[k:len(values) - after] if out.read(scope, name) else []:
                val = out.value(v)
                if val and val != "?":
                    out.containers[name] = "seq"
                    out.facts.append((scope, name + "[*]", val, line))
                    out.used(scope, val)
        elif k >= 0 or len(values) == len(targets):
            out.bind(scope, tn, values[j] if j is not None and 0 <= j < len(values)
                      else None, line)
        else:
            out.bind(scope, tn, None, line)


def elements(out: Bindings, scope: str, target: str, lit: Any, line: int,
             depth: int = 0) -> None:
    """Facts of the elements of literal ``lit`` (a list, tuple, set or dict) bound to
    ``target``: ``target[i]`` per position and ``target[-1]`` for the last (and
    ``target[i][j]`` for a tuple in the first 8, and the last), ``target['k']`` per string
    key, ``target[*]`` / ``target[?]`` for any element or value when every one is known;
    a lambda is left out (no callee to name). A Python dict nested in a dict (two levels
    below ``target`` at most) gives ``target['k']['j']`` and, for any outer key,
    ``target[?]['j']`` / ``target[?][?]`` (``ROUTES[resource][method](x)``)."""
    i = 0
    last: Any = None
    values: set[str | None] = set()
    keyed: dict[str, str | None] = {}  # `d['k']` → its value (a repeated key: the last)
    anykey: set[str | None] = set()  # values of keys that are no path: what `d[key]` may be
    for ch in lit.named_children:
        t = ch.type
        if t == "comment":
            continue
        if t in ("pair",):
            key = ch.child_by_field_name("key")
            val = ch.child_by_field_name("value")
            if key is None or val is None:
                continue
            if val.type in _ANONYMOUS:  # no callee to name (its calls are its scope's)
                continue
            k = _t(key)
            if key.type in ("property_identifier", "identifier"):
                k = f"'{k}'"
            segs = parse(f"x[{k}]")
            if segs is not None and len(segs) != 2:
                segs = None  # (not one subscript: an odd key)
            if val.type == "dictionary" and depth < 2 and segs is not None and \
                    segs[1] != "[?]" and val.named_child_count <= 16:
                for sub in (f"{target}{segs[1]}", f"{target}[?]"):
                    out.containers[sub] = "dict"
                    elements(out, scope, sub, val, line, depth + 1)
            v = out.value(val)
            if segs is not None and segs[1] != "[?]":
                keyed[f"{target}{segs[1]}"] = v
            else:
                anykey.add(v if segs is not None else "?")
            continue
        if t in _SPREADS:
            if lit.type not in ("dictionary", "object"):
                return  # (`[*xs, a]`: the positions after it are unknown)
            keyed = dict.fromkeys(keyed)  # `{**base, 'k': f}`: it may replace any key
            anykey.add("?")  # before it, and what it holds is not followed
            continue
        last = ch
        if t in _ANONYMOUS:
            i += 1
            continue
        v = out.value(ch)
        values.add(v)
        if v is not None:
            out.facts.append((scope, f"{target}[{i}]", v, line))
        if t in ("tuple", "list") and i < 8:  # `SCHEMA[0][1]` of `[("a", f), …]`
            _positions(out, scope, f"{target}[{i}]", ch, line)
        i += 1
    if last is not None and last.type not in _ANONYMOUS:  # `xs[-1]`: the last element, and its positions
        v = out.value(last)
        if v is not None:
            out.facts.append((scope, f"{target}[-1]", v, line))
        if last.type in ("tuple", "list"):
            _positions(out, scope, f"{target}[-1]", last, line)
    values.discard(None)
    if lit.type in ("list", "tuple", "array", "set") and "?" not in values and \
            0 < len(values) <= MAX_TARGETS:
        # the element of a loop over it: any of the values (one line, several facts)
        for w in sorted(x for x in values if x is not None):
            out.facts.append((scope, f"{target}[*]", w, line))
    out._columns(scope, target, lit, line)
    out.facts += [(scope, k, v, line) for k, v in keyed.items() if v is not None]
    anykey.update(keyed.values())
    anykey.discard(None)
    if "?" not in anykey and 0 < len(anykey) <= MAX_TARGETS:
        for w in sorted(x for x in anykey if x is not None):
            out.facts.append((scope, f"{target}[?]", w, line))


def _positions(out: Bindings, scope: str, path: str, tup: Any, line: int) -> None:
    """``path[j]`` for the first 4 positions of tuple or list literal ``tup``."""
    for j, sub in enumerate(tup.named_children[:4]):
        sv = out.value(sub) if sub.type != "comment" else None
        if sv and sv != "?":
            out.facts.append((scope, f"{path}[{j}]", sv, line))


def columns(bindings: Bindings, lit: Any) -> list[list[str]]:
    """For a list, tuple or set literal whose elements are all tuples (or lists) of one
    length ``n`` (at most 4): the distinct access paths at each position, ``n`` lists;
    a position with a value that is no path, or with more than ``MAX_TARGETS`` values,
    gets ``[]``. ``[]`` for any other literal."""
    if lit.type not in ("list", "tuple", "set"):
        return []
    rows = [c for c in lit.named_children if c.type != "comment"]
    if not rows or any(r.type not in ("tuple", "list") for r in rows):
        return []
    cells = [[c for c in r.named_children if c.type != "comment"] for r in rows]
    n = len(cells[0])
    if not 0 < n <= 4 or any(len(c) != n for c in cells):
        return []
    out: list[list[str]] = []
    for i in range(n):
        vals = [bindings.value(c[i]) for c in cells]
        known = list(dict.fromkeys(v for v in vals if v is not None))
        out.append(known if "?" not in known and len(known) <= MAX_TARGETS else [])
    return out
