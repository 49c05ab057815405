"""Secret redaction, applied to every string before anything is stored, embedded or sent
to a model (memory text, context, tags, provenance fields, anchors, audit reasons, imports,
``@hindsight`` comments).

Each pattern replaces the secret (not its label) with ``[REDACTED:<kind>]``. Sources for the
token shapes: the providers' documentation (GitHub ``ghp_``/``gho_``/``ghu_``/``ghs_``/
``ghr_``/``github_pat_``; GitLab ``glpat-``; npm ``npm_``; AWS key ids ``AKIA``/``ASIA`` and
40-character secret keys next to the word "secret"; Slack ``xox?-`` and webhook URLs;
Stripe ``sk_live_``/``rk_live_``; Google ``AIza``; OpenAI/Anthropic ``sk-``), RFC 7519 (JWT),
RFC 7617 (``Basic`` credentials), RFC 6750 (bearer tokens, ``access_token=`` in URLs),
RFC 3986 (``user:password@`` in URLs, the password may contain ``@`` or ``/``), RFC 7468
armour for private keys (PEM and PGP), the ``.env`` convention (a name ending in SECRET,
TOKEN, PASSWORD, PASS, API_KEY, ACCESS_KEY, PRIVATE_KEY or CREDENTIAL, then ``=`` or
``:`` and the value — quoted values may hold spaces — anywhere in the text, JSON keys
included; ``-`` or ``_`` inside ``API-KEY``), ``password … is X`` in prose, ``mysql -pX``,
``docker login -p X``, command-line flags (``--password X``, ``--token=X``), HTTP
``Authorization:`` headers, and Hugging Face ``hf_`` tokens. Lone surrogates (which SQLite
cannot store) become U+FFFD.
"""

from __future__ import annotations

import re

_NAME = (r"[A-Za-z0-9_.-]*(?:SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|PASS|PWD|API[_-]?KEY|"
         r"PRIVATE[_-]?KEY|ACCESS[_-]?KEY|CREDENTIAL)S?")
_NOT_DONE = r"(?!\[REDACTED)"

_PATTERNS: list[tuple[str, re.Pattern[str], int]] = [
    ("private_key", re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----.*?"
                               r"(?:-----END [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----|\Z)", re.S), 0),
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"), 0),
    ("gitlab_token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}"), 0),
    ("npm_token", re.compile(r"\bnpm_[A-Za-z0-9]{36,}"), 0),
    ("slack_webhook", re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+"), 0),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), 0),
    ("aws_secret_key", re.compile(r"(?i)(?<=secret)[^\n]{0,30}?(?<![A-Za-z0-9/+])"
                                  r"([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])"), 1),
    ("slack_token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), 0),
    ("stripe_key", re.compile(r"\b[rs]k_(?:live|test)_[0-9a-zA-Z]{16,}"), 0),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"), 0),
    ("api_key", re.compile(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}"), 0),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), 0),
    ("bearer_token", re.compile(r"(?i)(?<=\bbearer )" + _NOT_DONE + r"[A-Za-z0-9._~+/-]{16,}=*"), 0),
    ("basic_auth", re.compile(r"(?i)(?<=\bbasic )" + _NOT_DONE + r"[A-Za-z0-9+/]{8,}=*"), 0),
    ("url_password", re.compile(r"(?<=://)([^/\s:@\[]*):" + _NOT_DONE +
                                r"(\S*)@(?=[A-Za-z0-9.-]+(?::\d+)?(?:[/?#\s]|$))"), 2),
    ("url_token", re.compile(r"(?i)[?&](?:access_token|token|api_?key|key|secret|password|"
                             r"sig|signature)=" + _NOT_DONE + r"([^&\s#]+)"), 1),
    ("env_secret", re.compile(
        r"(?i)(?<![A-Za-z0-9])[\"']?" + _NAME + r"(?![A-Za-z0-9])[\"']?\s*[=:]\s*"
        r"(?:([\"'])" + _NOT_DONE + r"([^\"'\n]{3,})\1|" + _NOT_DONE + r"([^\s\"',;}]{4,}))"),
        -1),
    ("password", re.compile(
        r"(?i)\b(?:password|passwd|passphrase|pwd)\b(?:\s+\w+){0,4}?\s+(?:is|was|=|:)\s+"
        + _NOT_DONE + r"(['\"]?)([^\s'\",;]{6,})\1"), 2),
    ("password", re.compile(r"(?i)\b(?:mysql|mariadb)\w*\b[^\n]*?\s-p" + _NOT_DONE
                            + r"(\S{3,})"), 1),
    ("password", re.compile(r"(?i)\bdocker\s+login\b[^\n]*?\s(?:-p|--password)[=\s]\s*"
                            + _NOT_DONE + r"(\S{3,})"), 1),
    ("password", re.compile(r"(?i)(?<![\w-])--(?:password|passwd|pass|passphrase|token|"
                            r"api-?key|secret)[=\s]\s*" + _NOT_DONE + r"([^\s'\"]{3,})"), 1),
    ("auth_header", re.compile(r"(?i)\bauthorization\s*[:=]\s*(?:token|bearer|basic|"
                               r"digest)?\s*" + _NOT_DONE + r"([^\s'\"]{8,})"), 1),
    ("hf_token", re.compile(r"\bhf_[A-Za-z0-9]{30,}"), 0),
    ("password", re.compile(r"(?i)\b(?:set|export)\s+PGPASSWORD\s+(?:to\s+)?" + _NOT_DONE +
                            r"(\S{3,})"), 1),
    # sshpass -p PW; curl/wget/httpie-style -u USER:PW and --user USER:PW, not docker's
    # -u UID:GID (all digits) (issue 12 field test)
    ("password", re.compile(r"(?i)\bsshpass\s+(?:-[a-oq-z]\S*\s+)*-p\s*" + _NOT_DONE
                            + r"(\S{3,})"), 1),
    ("password", re.compile(r"(?<![\w-])(?:-u|--user)[=\s]\s*['\"]?[^\s:'\"@/]+:" + _NOT_DONE
                            + r"(?![0-9]+(?![^\s'\"]))([^\s'\"]{3,})"), 1),
]


# For each pattern, in order: lower-case words of which the text must hold one for the
# pattern to match it (checked on ASCII text only, where lower-casing agrees with (?i)).
_GATES: list[tuple[str, ...]] = [
    ("-----begin",), ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), ("glpat-",),
    ("npm_",), ("hooks.slack.com/services/",), ("akia", "asia"), ("secret",), ("xox",),
    ("k_live_", "k_test_"), ("aiza",), ("sk-",), ("eyj",), ("bearer ",), ("basic ",),
    ("://",), ("token=", "key=", "secret=", "password=", "sig=", "signature="),
    ("secret", "token", "pass", "pwd", "key", "credential"), ("pass", "pwd"), ("mysql", "mariadb"),
    ("docker",), ("--",), ("authorization",), ("hf_",), ("pgpassword",), ("sshpass",),
    ("-u",),
]


def _sub_group(text: str, kind: str, pat: re.Pattern[str], group: int, found: list[str],
               values: list[str] | None = None) -> str:
    def sub(m: re.Match[str]) -> str:
        g = group
        if g == -1:  # the quoted value or the bare one, whichever matched
            g = 2 if m.group(2) is not None else 3
        found.append(kind)
        if values is not None:
            values.append(m.group(g))
        if g == 0:
            return f"[REDACTED:{kind}]"
        s0 = m.start()
        start, end = m.span(g)
        return m.group(0)[:start - s0] + f"[REDACTED:{kind}]" + m.group(0)[end - s0:]

    return pat.sub(sub, text)


# every pattern above needs one of these: texts without any skip the full pass (indexing
# runs this over every signature and docstring)
# secret|token|pass|pwd|key|credential|private|://|ghp_|gho_|ghu_|ghs_|ghr_|github_pat|
# glpat|login|authorization|hf_|npm_|akia|asia|xox|[rs]k_|aiza|sk-|eyj|bearer|basic|mysql|
# mariadb|-u,
# grouped by first letter (2x faster to search than the flat alternation)
_WORDS = (r"s(?:ecret|k-|k_)|t(?:oken)|p(?:ass|wd|rivate)|k(?:ey)|c(?:redential)|://|"
          r"g(?:h[pousr]_|ithub_pat|lpat)|l(?:ogin)|a(?:uthorization|kia|sia|iza)|hf_|npm_|"
          r"xox|rk_|eyj|b(?:earer|asic)|mysql|mariadb|-u")
_TRIGGER = re.compile("(?i)" + _WORDS)
# the same words on lower-cased ASCII text: a case-sensitive pattern keeps the regex
# engine's literal prefilter, which (?i) turns off (4x faster on the stdlib's docstrings)
_TRIGGER_LOWER = re.compile(_WORDS)


def may_hold_secret(text: str) -> bool:
    """False when no pattern of :func:`redact` can match ``text`` (a quick check; true
    does not mean a secret is there). Holds for a concatenation as for its parts, so one
    check can clear many texts joined by newlines."""
    if text.isascii():
        return _TRIGGER_LOWER.search(text.lower()) is not None
    return _TRIGGER.search(text) is not None


def secret_values(text: str) -> list[str]:
    """The secret strings :func:`redact` would replace in ``text`` (each at least 4
    characters), so that the same value can be cut wherever else it appears (a command's
    secret echoed in its output, where nothing marks it as one)."""
    values: list[str] = []
    redact(text, values)
    return [v for v in dict.fromkeys(values) if len(v) >= 4]


def redact(text: str, values: list[str] | None = None) -> tuple[str, list[str]]:
    """``text`` with secrets replaced, and the kinds found (in order, repeated);
    ``values``, when given, receives the replaced strings."""
    found: list[str] = []
    if not text:
        return text, found
    text = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    if not may_hold_secret(text):
        return text, found
    low = text.lower() if text.isascii() else None
    for (kind, pat, group), gate in zip(_PATTERNS, _GATES, strict=True):
        if low is not None and not any(g in low for g in gate):
            continue  # the pattern cannot match without one of its words
        n = len(found)
        text = _sub_group(text, kind, pat, group, found, values)
        if low is not None and len(found) != n:
            low = text.lower()  # a replacement label adds words a later gate may need
    return text, found


def clean(value: str) -> str:
    """``redact`` for a field where only the result matters."""
    return redact(value)[0]
