"""Results, per-player statistics, ratings and leaderboards."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine import Options, Result
from engine.compiled_rules import team_of
from storage.db import Database
from storage.db import record as typed
from storage.games import StaleGame
from storage.ratings import START_MU, START_SIGMA, Standing, ordinal, rate
from storage.records import Ended, GameResult, Leader, PlayerResult, PlayerStats, Reliability, Seat
from storage.seasons import bounds

GLOBAL = 0  # the chat id of the global leaderboard
RECENT_GAMES = 20  # the games reliability is counted over


def result_from_engine(
    game_id: int,
    chat_id: int,
    seats: tuple[Seat, ...],
    result: Result,
    options: Options,
    *,
    rated: bool,
    started_at: float,
    finished_at: float,
    ended: Mapping[int, Ended] | None = None,
) -> GameResult:
    """``ended``: the seats a bot played at the end, and why (the others played to the end)."""
    players = []
    for seat in seats:
        s = seat.seat
        won = result.won(s)
        players.append(
            PlayerResult(
                seat=s,
                user_id=seat.user_id,
                place=result.places[s],
                won=won,
                durak=s in result.losers,
                drawn=s in result.drawn,
                pogony=result.pogony and s in result.losers,
                ended=(ended or {}).get(s, "played") if seat.user_id is not None else "played",
            )
        )
    return GameResult(
        game_id=game_id,
        chat_id=chat_id,
        game_type=options.game_type,
        draw=result.draw,
        pogony=result.pogony,
        durak_seat=result.durak,
        losing_team=result.losing_team,
        rated=rated and all(p.user_id is not None for p in players),
        duration=max(0.0, finished_at - started_at),
        finished_at=finished_at,
        players=tuple(players),
    )


class Results:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def record(self, result: GameResult, *, teams: bool = False) -> GameResult:
        """Store a finished game: its result, each player's line, and (if rated) the chat's and the global
        ratings, all in one transaction. Returns the result with the chat rating before/after filled in."""
        async with self.db.transaction():
            players = list(result.players)
            if result.rated:
                changes = await self._rate(result, teams)
                players = [
                    p.model_copy(
                        update={"rating_before": changes[p.seat][0], "rating_after": changes[p.seat][1]}
                    )
                    for p in players
                ]
            await self.db.execute(
                """INSERT INTO results (game_id, chat_id, game_type, draw, pogony, durak_seat, losing_team, rated,
                       duration, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                (
                    result.game_id,
                    result.chat_id,
                    result.game_type,
                    int(result.draw),
                    int(result.pogony),
                    result.durak_seat,
                    result.losing_team,
                    int(result.rated),
                    result.duration,
                    result.finished_at,
                ),
            )
            await self.db.executemany(
                """INSERT INTO result_players (game_id, seat, user_id, place, won, durak, drawn, pogony,
                       rating_before, rating_after, ended) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                [
                    (
                        result.game_id,
                        p.seat,
                        p.user_id,
                        p.place,
                        int(p.won),
                        int(p.durak),
                        int(p.drawn),
                        int(p.pogony),
                        p.rating_before,
                        p.rating_after,
                        p.ended,
                    )
                    for p in players
                ],
            )
            await self.db.execute(
                "UPDATE games SET finished_at = ? WHERE id = ?", (result.finished_at, result.game_id)
            )
            finished = await self.db.execute(
                """UPDATE tables SET status = 'finished', deadline = NULL, updated_at = ?
                   WHERE id = (SELECT table_id FROM games WHERE id = ?) AND status = 'playing'""",
                (result.finished_at, result.game_id),
            )
            if finished != 1:  # cancelled meanwhile: nothing of this result is kept, nobody is rated
                raise StaleGame(f"game {result.game_id}: its table is no longer in play")
        return result.model_copy(update={"players": tuple(players)})

    async def players(self, game_id: int) -> list[PlayerResult]:
        """Each seat's line of a stored result (with the chat rating before and after, if rated)."""
        rows = await self.db.fetch_all(
            "SELECT * FROM result_players WHERE game_id = ? ORDER BY seat", (game_id,)
        )
        return [typed(PlayerResult, row) for row in rows]

    async def _rate(self, result: GameResult, teams: bool) -> dict[int, tuple[float, float]]:
        """Update the chat's and the global ratings; returns per seat the chat ordinal before and after."""
        changes: dict[int, tuple[float, float]] = {}
        for scope in (result.chat_id, GLOBAL):
            standings = []
            for p in result.players:
                assert p.user_id is not None
                row = await self.db.fetch_one(
                    "SELECT mu, sigma FROM ratings WHERE user_id = ? AND chat_id = ? AND game_type = ?",
                    (p.user_id, scope, result.game_type),
                )
                mu, sigma = (row["mu"], row["sigma"]) if row else (START_MU, START_SIGMA)
                if teams:
                    team, rank = team_of(p.seat), 1 if p.won or result.draw else 2
                else:
                    team, rank = p.seat, p.place
                standings.append(Standing(p.user_id, team, rank, mu, sigma))
            new = rate(standings)
            for s, p in zip(standings, result.players, strict=True):
                mu, sigma = new[s.user_id]
                await self.db.execute(
                    """INSERT INTO ratings (user_id, chat_id, game_type, mu, sigma, ordinal, games)
                       VALUES (?, ?, ?, ?, ?, ?, 1)
                       ON CONFLICT (user_id, chat_id, game_type) DO UPDATE SET mu = excluded.mu,
                           sigma = excluded.sigma, ordinal = excluded.ordinal, games = ratings.games + 1""",
                    (s.user_id, scope, result.game_type, mu, sigma, ordinal(mu, sigma)),
                )
                if scope == result.chat_id:
                    changes[p.seat] = (ordinal(s.mu, s.sigma), ordinal(mu, sigma))
        return changes

    async def reliability(self, chat_id: int, user_ids: Sequence[int]) -> dict[int, Reliability]:
        """How each player's newest RECENT_GAMES games in the chat ended for them (players without a game are
        left out)."""
        if not user_ids:
            return {}
        marks = ", ".join("?" for _ in user_ids)
        rows = await self.db.fetch_all(
            f"""SELECT user_id, COUNT(*) AS games, SUM(CASE WHEN ended = 'left' THEN 1 ELSE 0 END) AS left_,
                    SUM(CASE WHEN ended = 'timed_out' THEN 1 ELSE 0 END) AS timed_out,
                    SUM(CASE WHEN ended = 'kicked' THEN 1 ELSE 0 END) AS kicked
                FROM (SELECT p.user_id AS user_id, p.ended AS ended, ROW_NUMBER() OVER (
                          PARTITION BY p.user_id ORDER BY r.finished_at DESC, r.game_id DESC) AS n
                      FROM result_players AS p JOIN results AS r ON r.game_id = p.game_id
                      WHERE r.chat_id = ? AND p.user_id IN ({marks})) AS recent
                WHERE n <= ? GROUP BY user_id""",
            (chat_id, *user_ids, RECENT_GAMES),
        )
        return {
            row["user_id"]: Reliability(
                games=row["games"], left=row["left_"], timed_out=row["timed_out"], kicked=row["kicked"]
            )
            for row in rows
        }

    async def stats(self, user_id: int, chat_id: int = GLOBAL) -> list[PlayerStats]:
        """A player's statistics per game type, in one chat or (GLOBAL) everywhere, with rating and rank."""
        where = "" if chat_id == GLOBAL else "AND r.chat_id = ?"
        params: tuple[int, ...] = (user_id,) if chat_id == GLOBAL else (user_id, chat_id)
        rows = await self.db.fetch_all(
            f"""SELECT r.game_type AS game_type, COUNT(*) AS games, SUM(p.won) AS wins, SUM(p.durak) AS durak,
                    SUM(p.drawn) AS draws, SUM(p.pogony) AS pogony, AVG(p.place) AS average_place
                FROM result_players AS p JOIN results AS r ON r.game_id = p.game_id
                WHERE p.user_id = ? {where} GROUP BY r.game_type ORDER BY r.game_type""",
            params,
        )
        stats = []
        for row in rows:
            standing = await self.standing(user_id, chat_id, row["game_type"])
            stats.append(
                PlayerStats(
                    user_id=user_id,
                    game_type=row["game_type"],
                    games=row["games"],
                    wins=row["wins"],
                    durak=row["durak"],
                    draws=row["draws"],
                    pogony=row["pogony"],
                    average_place=row["average_place"],
                    rating=standing[1] if standing else None,
                    rank=standing[0] if standing else None,
                )
            )
        return stats

    async def leaderboard(
        self, chat_id: int, game_type: str, *, limit: int = 10, offset: int = 0, min_games: int = 1
    ) -> list[Leader]:
        rows = await self.db.fetch_all(
            """SELECT r.user_id, r.ordinal, r.games, u.first_name, u.last_name FROM ratings AS r
               JOIN users AS u ON u.id = r.user_id
               WHERE r.chat_id = ? AND r.game_type = ? AND r.games >= ?
               ORDER BY r.ordinal DESC, r.user_id LIMIT ? OFFSET ?""",
            (chat_id, game_type, min_games, limit, offset),
        )
        return [
            Leader(
                rank=offset + i + 1,
                user_id=row["user_id"],
                name=f"{row['first_name']} {row['last_name']}" if row["last_name"] else row["first_name"],
                rating=row["ordinal"],
                games=row["games"],
            )
            for i, row in enumerate(rows)
        ]

    async def season_board(
        self, chat_id: int, game_type: str, season: str, *, limit: int | None = None, offset: int = 0
    ) -> list[Leader]:
        """A season's board in a group: points per place in its rated games (a player scores one point for
        every player who placed below them in a game; docs/rating.md), most first; then more wins, then fewer
        games. ``rating`` holds the points."""
        start, end = bounds(season)
        rows = await self.db.fetch_all(
            f"""SELECT p.user_id AS user_id, COUNT(*) AS games, SUM(p.won) AS wins,
                    SUM((SELECT COUNT(*) FROM result_players AS q
                         WHERE q.game_id = p.game_id AND q.place > p.place)) AS points,
                    u.first_name AS first_name, u.last_name AS last_name
                FROM result_players AS p JOIN results AS r ON r.game_id = p.game_id
                LEFT JOIN users AS u ON u.id = p.user_id
                WHERE r.chat_id = ? AND r.game_type = ? AND r.rated = 1 AND p.user_id IS NOT NULL
                    AND r.finished_at >= ? AND r.finished_at < ?
                GROUP BY p.user_id, u.first_name, u.last_name
                ORDER BY points DESC, wins DESC, games, p.user_id
                {"LIMIT ? OFFSET ?" if limit is not None else ""}""",
            (chat_id, game_type, start, end, *((limit, offset) if limit is not None else ())),
        )
        return [
            Leader(
                rank=offset + i + 1,
                user_id=row["user_id"],
                name=" ".join(n for n in (row["first_name"], row["last_name"]) if n),
                rating=float(row["points"]),
                games=row["games"],
            )
            for i, row in enumerate(rows)
        ]

    async def played_in(self, chat_id: int, season: str) -> list[str]:
        """The game types of the rated games the group finished in a season."""
        start, end = bounds(season)
        rows = await self.db.fetch_all(
            """SELECT DISTINCT game_type FROM results
               WHERE chat_id = ? AND rated = 1 AND finished_at >= ? AND finished_at < ? ORDER BY game_type""",
            (chat_id, start, end),
        )
        return [row["game_type"] for row in rows]

    async def standing(
        self, user_id: int, chat_id: int, game_type: str, min_games: int = 1
    ) -> tuple[int, float] | None:
        """(rank, rating) of a user on a board, or None if they have no rating there."""
        # Two counts, each a range of the board index: above the user, and level with them but listed first.
        row = await self.db.fetch_one(
            """SELECT r.ordinal,
                   (SELECT COUNT(*) FROM ratings AS o WHERE o.chat_id = r.chat_id AND o.game_type = r.game_type
                       AND o.ordinal > r.ordinal AND o.games >= ?)
                 + (SELECT COUNT(*) FROM ratings AS o WHERE o.chat_id = r.chat_id AND o.game_type = r.game_type
                       AND o.ordinal = r.ordinal AND o.user_id < r.user_id AND o.games >= ?) + 1 AS rank
               FROM ratings AS r WHERE r.user_id = ? AND r.chat_id = ? AND r.game_type = ?""",
            (min_games, min_games, user_id, chat_id, game_type),
        )
        return (int(row["rank"]), float(row["ordinal"])) if row else None
