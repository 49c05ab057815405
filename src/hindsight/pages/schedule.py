"""When a page is due again: setting ``pageTriggerCron`` (default ``H * * * *``: hourly)
read by croniter, with Jenkins' ``H``: a field written ``H`` takes a value hashed from the
bank id and the page name (croniter's ``hash_id``: CRC-32 of ``<bank id>\\0<page>``, taken
modulo the field's range), so that banks and pages do not all refresh in the same minute,
and each keeps its minute from run to run. The expression is read in the user's zone
(:func:`hindsight.memory.clock.user_zone`)."""

from __future__ import annotations

from datetime import datetime

from hindsight.errors import ConfigError


def hash_id(bank_id: str, page: str) -> bytes:
    """What ``H`` is hashed from for ``page`` of ``bank_id``."""
    return f"{bank_id}\0{page}".encode()


def next_run(cron: str, bank_id: str, page: str, after_ts: float) -> float | None:
    """The first time (Unix seconds) after ``after_ts`` that ``cron`` names for ``page`` of
    ``bank_id``; None when ``cron`` is empty (no schedule). Raises ConfigError for an
    expression croniter cannot read (field ``option`` ``pageTriggerCron``)."""
    if not cron.strip():
        return None
    from croniter import croniter

    from hindsight.memory.clock import user_zone

    start = datetime.fromtimestamp(after_ts, user_zone())
    try:
        it = croniter(cron, start, hash_id=hash_id(bank_id, page))
        return float(it.get_next(float))
    except (ValueError, KeyError) as e:  # croniter's CroniterError is a ValueError
        raise ConfigError(f"pageTriggerCron {cron!r}: {e}", option="pageTriggerCron",
                          value=cron) from None


def minute(bank_id: str, page: str) -> int:
    """The minute past the hour that ``H * * * *`` gives ``page`` of ``bank_id``."""
    import binascii

    return (binascii.crc32(hash_id(bank_id, page)) & 0xFFFFFFFF) % 60
