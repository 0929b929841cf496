"""A series (docs/groups.md, "A series"): the running score of a rematch chain among the same players, which
the rematch's lobby and each result after the first show ("Ann 3 · Bob 2", draws counted apart). A game
with other players (one left, one joined) is another series' game: it does not count."""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import Text
from bot.render.group import short
from bot.service import Published
from storage import Storage
from storage.series import SeriesGame


def score(games: Sequence[SeriesGame], players: Sequence[int | None]) -> tuple[dict[int, int], int, int]:
    """Among the games played by exactly ``players``: each one's wins, the draws, and how many games."""
    same = sorted(map(str, players))
    counted = [g for g in games if sorted(map(str, g.players)) == same]
    wins = {u: 0 for u in players if u is not None}
    for game in counted:
        for user in game.winners:
            wins[user] = wins.get(user, 0) + 1
    return wins, sum(1 for g in counted if not g.winners), len(counted)


async def series_line(storage: Storage, record: Published, names: Sequence[str], t: Text, least: int) -> str:
    """The series' score as a line, once at least ``least`` of its games were played ("" before)."""
    players = [s.user_id for s in record.row.seats]
    wins, draws, played = score(await storage.series.games(record.row.series), players)
    if played < least or not wins:
        return ""
    parts = [f"{short(names[s.seat])} {wins[s.user_id]}" for s in record.row.seats if s.user_id is not None]
    if draws:
        parts.append(t.plural("series.draws", draws))
    return t("series.score", score=" · ".join(parts))
