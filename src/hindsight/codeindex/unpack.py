"""Facts of Python unpacking assignments (``a, b = …``), for
:meth:`hindsight.codeindex.bindings.Bindings.bind`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hindsight.codeindex.bindings import Bindings

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
            # some element)
            name = _t(tn).lstrip("*")
            if out.read(scope, name):
                part = f"[{i}]" if k < 0 or i < k else "[*]"
                out.facts.append((scope, name + ("[*]" if i == k else ""),
                                   whole + part, line))
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

