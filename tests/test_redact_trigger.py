"""The fast redaction trigger (lower-cased ASCII, case-sensitive pattern) fires exactly
when the case-insensitive one does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hindsight.redact import _TRIGGER, _triggered, clean

WORDS = ["SeCrEt", "TOKEN", "Pass", "pwd", "KEY", "Credential", "PRIVATE", "://", "GHP_",
         "Login", "AUTHORIZATION", "HF_", "GitHub_PAT", "GLPAT", "NPM_", "AKIA", "Asia",
         "XOX", "RK_", "Sk_", "AIza", "SK-", "EYJ", "Bearer", "BASIC", "MySQL", "kelvin",
         "\u212a", "\u017fecret", "\u0130", "x", " ", "_", "-", "ß"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(WORDS) | st.text(max_size=4), max_size=8))
def test_fast_trigger_agrees_with_the_case_insensitive_one(parts: list[str]) -> None:
    text = "".join(parts)
    assert _triggered(text) == (_TRIGGER.search(text) is not None)


def test_secret_in_mixed_case_is_still_redacted() -> None:
    assert clean("def f(API_KEY='abcd1234efgh')") == "def f(API_KEY='[REDACTED:env_secret]')"
    assert clean("") == "" and clean("def plain(x, y)") == "def plain(x, y)"
