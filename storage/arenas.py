"""A group's arenas (docs/groups.md, "Game night"): the arena, who is in it, and each of its games as it
counts for each player. Scores and streaks are not stored: they are worked out from the games, in order, so a
restart (or a game credited twice) changes none."""

from __future__ import annotations

import time
from collections.abc import Sequence

from engine import Options
from storage.db import Database, Row
from storage.records import ArenaGame, ArenaPlayer, ArenaRow, ArenaState


class ArenaExists(Exception):
    """This chat (or forum topic) already has an arena running."""


def _arena(row: Row, players: Sequence[Row], games: Sequence[Row]) -> ArenaRow:
    return ArenaRow(
        id=row["id"],
        chat_id=row["chat_id"],
        thread_id=row["thread_id"],
        creator_id=row["creator_id"],
        options=Options.model_validate_json(row["options"]),
        size=row["size"],
        started_at=row["started_at"],
        ends_at=row["ends_at"],
        finished=row["status"] == "finished",
        message_id=row["message_id"],
        podium_message_id=row["podium_message_id"],
        players=tuple(
            ArenaPlayer(
                user_id=p["user_id"], state=p["state"], berserk=bool(p["berserk"]), free_since=p["free_since"]
            )
            for p in players
        ),
        games=tuple(
            ArenaGame(
                table_id=g["table_id"],
                user_id=g["user_id"],
                base=g["base"],
                berserk=bool(g["berserk"]),
                finished_at=g["finished_at"],
            )
            for g in games
        ),
    )


class Arenas:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def create(
        self, chat_id: int, thread_id: int, creator_id: int, options: Options, size: int, seconds: float
    ) -> ArenaRow:
        now = time.time()
        arena_id = await self.db.insert(
            """INSERT INTO arenas (chat_id, thread_id, creator_id, options, size, started_at, ends_at, status)
               VALUES (?, ?, ?, ?, ?, ?, ?, 'open') ON CONFLICT DO NOTHING RETURNING id""",
            (chat_id, thread_id, creator_id, options.model_dump_json(), size, now, now + seconds),
        )
        if arena_id is None:
            raise ArenaExists(f"chat {chat_id} thread {thread_id} already has an arena")
        arena = await self.get(arena_id)
        assert arena is not None
        return arena

    async def get(self, arena_id: int) -> ArenaRow | None:
        async with self.db.transaction():
            row = await self.db.fetch_one("SELECT * FROM arenas WHERE id = ?", (arena_id,))
            if row is None:
                return None
            players = await self.db.fetch_all(
                "SELECT * FROM arena_players WHERE arena_id = ? ORDER BY user_id", (arena_id,)
            )
            games = await self.db.fetch_all(
                """SELECT g.table_id, g.user_id, g.base, g.finished_at, s.berserk FROM arena_games AS g
                   JOIN seats AS s ON s.table_id = g.table_id AND s.user_id = g.user_id
                   WHERE g.arena_id = ? ORDER BY g.table_id, s.seat""",
                (arena_id,),
            )
        return _arena(row, players, games)

    async def running(self, chat_id: int | None = None) -> list[ArenaRow]:
        """The arenas not finished yet, or whose podium is still to post (of one chat, or of every chat): a
        restart brings them back."""
        where = "(status = 'open' OR podium_message_id IS NULL)"
        params: tuple[int, ...] = ()
        if chat_id is not None:
            where, params = where + " AND chat_id = ?", (chat_id,)
        rows = await self.db.fetch_all(f"SELECT id FROM arenas WHERE {where} ORDER BY id", params)
        found = [await self.get(r["id"]) for r in rows]
        return [a for a in found if a is not None]

    async def set_player(self, arena_id: int, user_id: int, state: ArenaState, *, free_since: float) -> None:
        """A player joins (again), leaves, or is paused until they say they are back."""
        await self.db.execute(
            """INSERT INTO arena_players (arena_id, user_id, state, free_since) VALUES (?, ?, ?, ?)
               ON CONFLICT (arena_id, user_id) DO UPDATE SET state = excluded.state,
                   free_since = excluded.free_since""",
            (arena_id, user_id, state, free_since),
        )

    async def set_berserk(self, arena_id: int, user_id: int, berserk: bool) -> None:
        await self.db.execute(
            "UPDATE arena_players SET berserk = ? WHERE arena_id = ? AND user_id = ?",
            (int(berserk), arena_id, user_id),
        )

    async def paired(self, arena_id: int, table_id: int, users: Sequence[int]) -> None:
        """The arena seated these players at a table: their games are under way, and berserk is spent."""
        async with self.db.transaction():
            for user_id in users:
                await self.db.execute(
                    "INSERT INTO arena_games (arena_id, table_id, user_id) VALUES (?, ?, ?)",
                    (arena_id, table_id, user_id),
                )
                await self.db.execute(
                    "UPDATE arena_players SET berserk = 0 WHERE arena_id = ? AND user_id = ?",
                    (arena_id, user_id),
                )

    async def credit(self, table_id: int, bases: dict[int, int], paused: Sequence[int], now: float) -> bool:
        """A game of the arena ended: each player's base points (user id -> points; {} when it ended without
        a result, which counts for nobody), its players free again, those a bot stood in for paused. False:
        it was credited before (nothing changes)."""
        async with self.db.transaction():
            game = await self.db.fetch_one(
                "SELECT arena_id FROM arena_games WHERE table_id = ? AND finished_at IS NULL LIMIT 1",
                (table_id,),
            )
            if game is None:
                return False
            arena_id = game["arena_id"]
            users = [
                r["user_id"]
                for r in await self.db.fetch_all(
                    "SELECT user_id FROM arena_games WHERE table_id = ?", (table_id,)
                )
            ]
            for user_id in users:
                await self.db.execute(
                    "UPDATE arena_games SET base = ?, finished_at = ? WHERE table_id = ? AND user_id = ?",
                    (bases.get(user_id), now, table_id, user_id),
                )
                await self.db.execute(
                    """UPDATE arena_players SET free_since = ?,
                           state = CASE WHEN state = 'in' AND ? = 1 THEN 'paused' ELSE state END
                       WHERE arena_id = ? AND user_id = ?""",
                    (now, int(user_id in paused), arena_id, user_id),
                )
        return True

    async def finish(self, arena_id: int, *, podium: bool = True) -> None:
        """Over; ``podium``: its podium is still to post (not where the bot can no longer write: 0 kept)."""
        await self.db.execute(
            "UPDATE arenas SET status = 'finished', podium_message_id = CASE WHEN ? = 1 THEN NULL ELSE 0 END"
            " WHERE id = ?",
            (int(podium), arena_id),
        )

    async def set_message(self, arena_id: int, column: str, message_id: int) -> None:
        """The arena's message, or its podium, was sent: its id is kept (a restart edits, never posts again)."""
        assert column in ("message_id", "podium_message_id")
        await self.db.execute(f"UPDATE arenas SET {column} = ? WHERE id = ?", (message_id, arena_id))
