"""What friends who play again and again keep count of (docs/groups.md, "A series"): the games of a rematch
chain, and two players' record against each other in a group."""

from __future__ import annotations

from dataclasses import dataclass

from storage.db import Database


@dataclass(frozen=True, slots=True)
class SeriesGame:
    """A game of a series: who sat at it (None for a bot's seat, by seat) and who won it (out first alone;
    nobody in a draw)."""

    players: tuple[int | None, ...]
    winners: frozenset[int]


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """Two players' games together in a group, from the first one's side."""

    games: int
    wins: int  # the first won (out first)
    losses: int  # the other won
    durak: int  # the first was the durak
    their_durak: int  # the other was


class Series:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def games(self, series: int) -> list[SeriesGame]:
        """The finished games of a rematch chain (named by its first table), in order."""
        rows = await self.db.fetch_all(
            """SELECT p.game_id, p.user_id, p.won FROM result_players AS p
               JOIN games AS g ON g.id = p.game_id JOIN tables AS t ON t.id = g.table_id
               WHERE t.id = ? OR t.series_id = ? ORDER BY p.game_id, p.seat""",
            (series, series),
        )
        games: dict[int, tuple[list[int | None], set[int]]] = {}
        for r in rows:
            players, winners = games.setdefault(r["game_id"], ([], set()))
            players.append(r["user_id"])
            if r["won"] and r["user_id"] is not None:
                winners.add(r["user_id"])
        return [SeriesGame(tuple(p), frozenset(w)) for p, w in games.values()]

    async def head_to_head(self, chat_id: int, user_id: int, other: int) -> HeadToHead:
        row = await self.db.fetch_one(
            """SELECT COUNT(*) AS games, SUM(a.won) AS wins, SUM(b.won) AS losses, SUM(a.durak) AS durak,
                   SUM(b.durak) AS their_durak
               FROM result_players AS a JOIN result_players AS b ON b.game_id = a.game_id
               JOIN results AS r ON r.game_id = a.game_id
               WHERE a.user_id = ? AND b.user_id = ? AND r.chat_id = ?""",
            (user_id, other, chat_id),
        )
        values = (
            {k: int(row[k] or 0) for k in ("games", "wins", "losses", "durak", "their_durak")} if row else {}
        )
        return HeadToHead(
            **{k: values.get(k, 0) for k in ("games", "wins", "losses", "durak", "their_durak")}
        )
