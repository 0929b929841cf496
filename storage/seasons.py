"""Seasons: a group's leaderboard that starts afresh every month or quarter (UTC), named "2026-12" or
"2026-Q4". Pure functions of time; the boards themselves are read from the results (storage.results), which
are never pruned, so a past season's board is kept for good."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal, get_args

SeasonKind = Literal["monthly", "quarterly", "off"]  # a group setting; monthly by default
SEASON_KINDS: tuple[SeasonKind, ...] = get_args(SeasonKind)


def season_of(when: float, kind: SeasonKind) -> str:
    """The season a moment falls in ("off" counts as monthly: a group that turns seasons on finds them there)."""
    at = datetime.fromtimestamp(when, UTC)
    return f"{at.year}-Q{(at.month - 1) // 3 + 1}" if kind == "quarterly" else f"{at.year}-{at.month:02d}"


def months(season: str) -> tuple[int, int, int]:
    """(year, first month, months long) of a season's name."""
    year, part = season.split("-")
    if part.startswith("Q"):
        return int(year), 3 * (int(part[1:]) - 1) + 1, 3
    return int(year), int(part), 1


def _month_start(year: int, month: int) -> float:
    year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    return datetime(year, month, 1, tzinfo=UTC).timestamp()


def bounds(season: str) -> tuple[float, float]:
    """Its first moment and the first moment after it (unix times)."""
    year, month, length = months(season)
    return _month_start(year, month), _month_start(year, month + length)


def shift(season: str, by: int) -> str:
    """The season ``by`` seasons later (earlier if negative), of the same kind."""
    year, month, length = months(season)
    start = _month_start(year, month + by * length)
    return season_of(start, "quarterly" if length == 3 else "monthly")


def is_season(text: str) -> bool:
    """A well-formed season name (they come back in button data)."""
    try:
        year, month, _ = months(text)
    except (ValueError, IndexError):
        return False
    return 2000 <= year <= 9999 and 1 <= month <= 12 and shift(text, 0) == text
