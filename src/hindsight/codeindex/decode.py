"""Turn raw file bytes into normalised UTF-8 source bytes.

Rules (issue #2, item 4):

* UTF-8 with or without BOM: BOM removed.
* UTF-16 LE/BE with BOM (and UTF-32 with BOM): transcoded to UTF-8.
* Anything else that is not valid UTF-8: a PEP 263 ``coding:`` cookie in the first two
  lines is honoured when Python knows the codec; a file with more valid UTF-8 non-ASCII
  characters than broken bytes stays UTF-8 (broken bytes become U+FFFD); otherwise
  cp1252, then latin-1 (which never fails). Decoding never raises.
* Line endings: CRLF and lone CR become LF, so every file gives the same 1-based line
  numbers whatever its line-ending style.
"""

from __future__ import annotations

import codecs
import re

_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.MULTILINE)


def _fallback(data: bytes) -> tuple[str, str]:
    head = b"\n".join(data.split(b"\n", 2)[:2])
    m = _COOKIE.search(head)
    if m:
        enc = m.group(1).decode("ascii", "replace")
        try:
            return data.decode(enc), enc
        except (LookupError, UnicodeDecodeError):
            pass
    text = data.decode("utf-8", "replace")
    bad = text.count("\ufffd") - data.count(b"\xef\xbf\xbd")
    good = sum(1 for ch in text if ord(ch) > 127 and ch != "\ufffd")
    if good > bad:  # UTF-8 with a few broken bytes: keep the UTF-8, replace the rest
        return text, "utf-8-replace"
    try:
        return data.decode("cp1252"), "cp1252"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


def normalise(data: bytes) -> tuple[bytes, str]:
    """Return ``(utf8_bytes_with_lf, encoding_name)`` for raw file ``data``. Never raises."""
    enc = "utf-8"
    if data.startswith(codecs.BOM_UTF8):
        data = data[3:]
        enc = "utf-8-sig"
    elif data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        data, enc = _transcode(data, "utf-32")
    elif data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        data, enc = _transcode(data, "utf-16")
    elif not data.isascii():  # ASCII is valid UTF-8 (and checked far faster)
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            text, enc = _fallback(data)
            data = text.encode("utf-8")
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data, enc


def _transcode(data: bytes, codec: str) -> tuple[bytes, str]:
    text = data.decode(codec, errors="replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.encode("utf-8"), codec


def looks_binary(head: bytes) -> bool:
    """True when ``head`` (the first bytes of a file) contains a NUL byte outside a UTF-16/32 BOM file."""
    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE,
                        codecs.BOM_UTF16_BE)):
        return False
    return b"\x00" in head
