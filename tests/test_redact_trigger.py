"""The fast redaction trigger (lower-cased ASCII, case-sensitive pattern) fires exactly
when the case-insensitive one does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hindsight.redact import _TRIGGER, clean, may_hold_secret

WORDS = ["SeCrEt", "TOKEN", "Pass", "pwd", "KEY", "Credential", "PRIVATE", "://", "GHP_",
         "Login", "AUTHORIZATION", "HF_", "GitHub_PAT", "GLPAT", "NPM_", "AKIA", "Asia",
         "XOX", "RK_", "Sk_", "AIza", "SK-", "gHs_", "GHR_", "gho_", "ghu_", "GlPat", "hf_", "EYJ", "Bearer", "BASIC", "MySQL", "MariaDB", "-U", "-u", "kelvin",
         "\u212a", "\u017fecret", "\u0130", "x", " ", "_", "-", "ß"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(WORDS) | st.text(max_size=4), max_size=8))
def test_fast_trigger_agrees_with_the_case_insensitive_one(parts: list[str]) -> None:
    text = "".join(parts)
    assert may_hold_secret(text) == (_TRIGGER.search(text) is not None)


def test_secret_in_mixed_case_is_still_redacted() -> None:
    assert clean("def f(API_KEY='abcd1234efgh')") == "def f(API_KEY='[REDACTED:env_secret]')"
    assert clean("") == "" and clean("def plain(x, y)") == "def plain(x, y)"


def _slow(text: str) -> str:
    """redact without the trigger and the per-pattern gates (every pattern, in order)."""
    from hindsight.redact import _PATTERNS, _sub_group

    text = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    for kind, pat, group in _PATTERNS:
        text = _sub_group(text, kind, pat, group, [])
    return text


SECRETISH = ["password is hunter2hunter2", "PASSWORD=abc123456", "api_key: 'x1y2z3w4'",
             "Authorization: Bearer abcdefghijklmnopqrstuvwxyz", "--token=abcdef",
             "https://user:pw@example.com/x", "?access_token=QWERTY&x=1", "mysql -pSECRET",
             "docker login -p tok3n", "ghp_" + "a" * 36, "glpat-" + "b" * 20,
             "AKIA" + "C" * 16, "secret " + "D" * 40, "xoxb-1234567890", "sk_live_" + "e" * 16,
             "AIza" + "f" * 35, "sk-" + "g" * 24, "eyJabcdefghi.eyJabcdefghi.abcdefghij",
             "Basic dXNlcjpwYXNz", "hf_" + "h" * 30, "export PGPASSWORD to s3cr3t",
             "-----BEGIN RSA PRIVATE KEY-----\nMII\n-----END RSA PRIVATE KEY-----",
             "https://hooks.slack.com/services/T0/B0/x", "npm_" + "i" * 36,
             "curl -u bob:s3cretpw", "--user=ci:tok3n99", "sshpass -p pw123", "mariadb -pXYZ1",
             "def f(key, value)", "token", "Secret", " ", "\n", "=", ":", "'", '"', "ſ"]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(SECRETISH) | st.text(max_size=6), max_size=6))
def test_gated_redaction_equals_every_pattern_in_order(parts: list[str]) -> None:
    text = "".join(parts)
    assert clean(text) == _slow(text)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(WORDS) | st.text(max_size=4), max_size=8))
def test_grouped_trigger_finds_what_the_flat_word_list_finds(parts: list[str]) -> None:
    import re

    flat = re.compile(r"(?i)secret|token|pass|pwd|key|credential|private|://|ghp_|gho_|ghu_|"
                      r"login|authorization|hf_|ghs_|ghr_|github_pat|glpat|npm_|akia|asia|"
                      r"xox|[rs]k_|aiza|sk-|eyj|bearer|basic|mysql|mariadb|-u")
    text = "".join(parts)
    assert (_TRIGGER.search(text) is not None) == (flat.search(text) is not None)


def test_command_line_credentials_are_redacted() -> None:
    # the break-it report of stop 20: curl/wget -u USER:PW, sshpass -p, mariadb -pPW
    assert clean("curl -u admin:Zq8SecretPassWd https://x") == \
        "curl -u admin:[REDACTED:password] https://x"
    assert clean("wget --user=deploy:Zq9Deploy https://ci") == \
        "wget --user=deploy:[REDACTED:password] https://ci"
    assert clean("sshpass -p Sshp4ssWordXY ssh host") == \
        "sshpass -p [REDACTED:password] ssh host"
    assert clean("mariadb -u root -pXyz12345 db") == "mariadb -u root -p[REDACTED:password] db"
    # docker's -u UID:GID and options that only look alike stay as they are
    for keep in ("docker run -u 1000:1000 img", "uv pip install -U pkg", "sshpass -e ssh h"):
        assert clean(keep) == keep
