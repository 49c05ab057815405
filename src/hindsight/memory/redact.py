"""Secret redaction, applied to every text before anything is stored or embedded.

Each pattern replaces the secret (not its label) with ``[REDACTED:<kind>]``. Sources for the
token shapes: the providers' documentation (GitHub token prefixes ``ghp_``/``gho_``/``ghu_``/
``ghs_``/``ghr_``/``github_pat_``; AWS access key ids ``AKIA``/``ASIA``; Slack ``xox?-``;
Stripe ``sk_live_``/``rk_live_``; Google ``AIza``; OpenAI/Anthropic ``sk-``), RFC 7519 (JWT),
RFC 3986 (``user:password@`` in URLs), PEM armour (RFC 7468) for private keys, and the
usual ``.env`` convention (a name ending in SECRET, TOKEN, PASSWORD, API_KEY, ACCESS_KEY,
PRIVATE_KEY or CREDENTIAL, then ``=`` or ``:`` and the value, anywhere in the text).
"""

from __future__ import annotations

import re

_PATTERNS: list[tuple[str, re.Pattern[str], int]] = [
    ("private_key", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----.*?"
                               r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|\Z)", re.S), 0),
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})"), 0),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), 0),
    ("slack_token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), 0),
    ("stripe_key", re.compile(r"\b[rs]k_(?:live|test)_[0-9a-zA-Z]{16,}"), 0),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"), 0),
    ("api_key", re.compile(r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}"), 0),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), 0),
    ("bearer_token", re.compile(r"(?i)(?<=\bbearer )[A-Za-z0-9._~+/-]{16,}=*"), 0),
    ("url_password", re.compile(r"(?<=://)([^/\s:@]+):(?!\[REDACTED)([^/\s@]+)(?=@)"), 2),
    ("env_secret", re.compile(
        r"(?i)(?<![A-Za-z0-9])[A-Za-z0-9_.-]*(?:SECRET|TOKEN|PASSWORD|PASSWD|PWD|API_?KEY|"
        r"PRIVATE_?KEY|ACCESS_?KEY|CREDENTIAL)S?(?![A-Za-z0-9])\s*[=:]\s*"
        r"(['\"]?)(?!\[REDACTED)([^\s'\"]{4,})\1"), 2),
    ("password", re.compile(
        r"(?i)\b(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key)\b\s*(?:is|=|:)\s*"
        r"(['\"]?)(?!\[REDACTED)([^\s'\",;]{6,})\1"), 2),
]


def redact(text: str) -> tuple[str, list[str]]:
    """``text`` with secrets replaced, and the kinds found (in order, repeated)."""
    found: list[str] = []
    for kind, pat, group in _PATTERNS:
        def sub(m: re.Match[str], kind: str = kind, group: int = group) -> str:
            found.append(kind)
            if group == 0:
                return f"[REDACTED:{kind}]"
            start, end = m.span(group)
            s0 = m.start()
            return m.group(0)[:start - s0] + f"[REDACTED:{kind}]" + m.group(0)[end - s0:]
        text = pat.sub(sub, text)
    return text, found
