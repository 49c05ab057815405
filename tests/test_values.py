"""Unions of receiver values (codeindex/values.py): the alternatives of a union are the
known values given, each once, in order; more than MAX_TARGETS is unknown."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hindsight.codeindex.values import MAX_TARGETS, members, union

_VALUE = st.tuples(st.sampled_from(["fn", "cls", "inst", "mod", "gen"]),
                   st.sampled_from([f"a.py::{n}" for n in "ABCDEFG"]))


def _flat(values: list[tuple[str, str] | None]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for v in values:
        for m in members(v) if v is not None else []:
            if m not in out:
                out.append(m)
    return out


@given(st.lists(st.one_of(st.none(), _VALUE), max_size=8),
       st.lists(st.one_of(st.none(), _VALUE), max_size=8))
def test_union_is_the_known_alternatives_in_order(xs: list, ys: list) -> None:
    want = _flat(xs)
    got = union(xs)
    if not want or len(want) > MAX_TARGETS:
        assert got is None
    else:
        assert members(got) == want
        assert union([got]) == got and union([got, *xs]) == got  # idempotent
    # a union of unions is the union of their members (when both are known)
    ux, uy = union(xs), union(ys)
    both = _flat([ux, uy])
    if ux is not None and uy is not None and len(both) <= MAX_TARGETS:
        assert members(union([ux, uy])) == both


def test_one_value_is_itself_and_five_are_unknown() -> None:
    a = ("fn", "a.py::f")
    assert union([None, a, a]) == a
    assert union([]) is None and union([None]) is None
    five = [("fn", f"a.py::f{i}") for i in range(MAX_TARGETS + 1)]
    assert union(five) is None
    assert members(union(five[:MAX_TARGETS])) == five[:MAX_TARGETS]
