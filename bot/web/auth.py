"""Who opened the web table: the ``initData`` Telegram hands a Mini App, checked as Telegram documents it
(HMAC-SHA256 over every field, with the key derived from the bot token and "WebAppData"; init-data-py does
it) and no older than the operator allows. Nothing else the page says is believed about who it is."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from init_data_py import errors, validate_by_hash

from storage.records import User


@dataclass(frozen=True, slots=True)
class Viewer:
    user: User  # as Telegram says it (the record storage keeps of a user it meets)
    table_id: int | None  # the table the direct link named (``startapp``), if any

    @property
    def user_id(self) -> int:
        return self.user.id


def viewer(init_data: str, token: str, max_age: float, now: float) -> Viewer | None:
    """The user ``init_data`` vouches for, or None: missing, malformed, forged, altered, expired, or no
    user in it."""
    if not init_data or len(init_data) > 4096:
        return None
    try:
        found = validate_by_hash(init_data, token, expires_in=max_age, now=datetime.fromtimestamp(now, UTC))
    except (errors.InitDataError, ValueError):
        return None
    user = found.user
    if user is None or user.is_bot:
        return None
    if found.issued_at.timestamp() > now + 60:  # signed in the future: a clock gone wrong, or a forgery
        return None
    profile = User(
        id=user.id,
        first_name=user.first_name,
        last_name=user.last_name,
        username=user.username,
        telegram_language=user.language_code,
    )
    return Viewer(profile, table_of(found.start_param))


def table_of(start_param: str | None) -> int | None:
    """The table a direct link names: ``t<id>`` (what the bot's buttons put in ``startapp``)."""
    if not start_param or not start_param.startswith("t") or not start_param[1:].isdigit():
        return None
    digits = start_param[1:]
    return int(digits) if 0 < len(digits) <= 15 else None
