"""URLs in settings and messages: a password inside one is never shown."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

MASK = "***"
DATABASE_SCHEMES = ("postgresql://", "postgres://")


def masked(url: str) -> str:
    """``url`` with the password of its user part replaced by ``***``
    (``postgresql://me:***@db:5432/hindsight``); unchanged when it has none. A URL that
    cannot be parsed is masked whole."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return MASK
    if password is None:
        return url
    user, host = parts.netloc.rsplit("@", 1)
    return urlunsplit(parts._replace(netloc=f"{user.split(':', 1)[0]}:{MASK}@{host}"))
