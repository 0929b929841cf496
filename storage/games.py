"""Games: the engine snapshot and the append-only log of actions, written together or not at all."""

from __future__ import annotations

import time

from engine import Game
from engine.actions import replay
from engine.snapshot import SnapshotError, loads
from storage.db import Database, Write, record
from storage.records import GameRow, LoggedAction, TableStatus


class StaleGame(Exception):
    """The action does not follow the last logged one (a lost race or a replayed request), or the game's table
    is no longer in play (cancelled): nothing is written."""


class BrokenSnapshot(Exception):
    """A stored snapshot cannot be loaded. The row is kept as it is for inspection."""

    def __init__(self, table_id: int, game_id: int, reason: str) -> None:
        super().__init__(f"table {table_id}, game {game_id}: the stored game cannot be loaded: {reason}")
        self.table_id = table_id
        self.game_id = game_id
        self.reason = reason


class Games:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def start(
        self,
        table_id: int,
        deal: str,
        version: int,
        *,
        rated: bool,
        deadline: float | None,
        deck: str | None = None,
        salt: str | None = None,
        bot_level: str | None = None,
    ) -> GameRow:
        """Store the dealt game (and the deck order and salt of its fair-play commitment) and mark its table
        as playing, in one transaction; ``bot_level``: the level its bot seats play this game at."""
        now = time.time()
        async with self.db.transaction():
            game_id = await self.db.insert(
                """INSERT INTO games (table_id, deal, snapshot, version, rated, started_at, deck, salt)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id""",
                (table_id, deal, deal, version, int(rated), now, deck, salt),
            )
            await self.db.execute(
                "UPDATE tables SET status = ?, deadline = ?, updated_at = ? WHERE id = ?",
                (TableStatus.PLAYING.value, deadline, now, table_id),
            )
            if bot_level is not None:
                await self.db.execute(
                    "UPDATE seats SET bot_level = ? WHERE table_id = ? AND user_id IS NULL",
                    (bot_level, table_id),
                )
        assert game_id is not None
        found = await self.get(game_id)
        assert found is not None
        return found

    async def record(
        self,
        game_id: int,
        seq: int,
        seat: int,
        action: str,
        snapshot: str,
        version: int,
        *,
        deadline: float | None,
        at: float | None = None,
    ) -> None:
        """Append action ``seq`` and store the snapshot it led to (and the table's next deadline), atomically,
        in one round trip where the backend allows (on SQLite, in a commit shared with the moves of other
        tables that arrive meanwhile). ``seq`` must be one more than the last logged action's and the
        table must still be in play, else StaleGame and nothing is written."""
        now = time.time()
        moment = at if at is not None else now

        await self.db.write(
            Write(
                "INSERT INTO events (game_id, seq, seat, action, at) VALUES (?, ?, ?, ?, ?)",
                (game_id, seq, seat, action, moment),
            ),
            Write(
                """UPDATE games SET snapshot = ?, version = ?, seq = ? WHERE id = ? AND seq = ?
                   AND (SELECT status FROM tables WHERE id = games.table_id) = ?""",
                (snapshot, version, seq, game_id, seq - 1, TableStatus.PLAYING.value),
                expect=1,
                otherwise=StaleGame(
                    f"game {game_id}: action {seq} does not follow the last logged action, or its table is "
                    "no longer in play"
                ),
            ),
            Write(
                "UPDATE tables SET deadline = ?, updated_at = ? WHERE id = (SELECT table_id FROM games WHERE id = ?)",
                (deadline, now, game_id),
            ),
        )

    async def set_unrated(self, game_id: int) -> None:
        """Nobody plays the game any more, only bots: it will not be rated (docs/rules.md §10)."""
        await self.db.execute("UPDATE games SET rated = 0 WHERE id = ?", (game_id,))

    async def set_result_message(self, game_id: int, message_id: int) -> None:
        """The result was delivered: a restart no longer sends it."""
        await self.db.execute("UPDATE games SET result_message_id = ? WHERE id = ?", (message_id, game_id))

    async def get(self, game_id: int) -> GameRow | None:
        row = await self.db.fetch_one("SELECT * FROM games WHERE id = ?", (game_id,))
        return record(GameRow, row) if row else None

    async def current(self, table_id: int) -> GameRow | None:
        """The table's latest game."""
        row = await self.db.fetch_one(
            "SELECT * FROM games WHERE table_id = ? ORDER BY id DESC LIMIT 1", (table_id,)
        )
        return record(GameRow, row) if row else None

    async def log(self, game_id: int) -> list[LoggedAction]:
        rows = await self.db.fetch_all(
            "SELECT seq, seat, action, at FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
        )
        return [LoggedAction(seq=r["seq"], seat=r["seat"], action=r["action"], at=r["at"]) for r in rows]

    async def prune_logs(self, finished_before: float, games: int = 50) -> int:
        """Remove the move logs of up to ``games`` games that finished before ``finished_before`` (unix time),
        oldest first; results, ratings and the games' own rows stay. Returns how many moves went (0: none was
        left to prune). A pruned game keeps its ``seq``, so it tells a pruned log from an empty one."""
        return await self.db.execute(
            """DELETE FROM events WHERE game_id IN (
                   SELECT g.id FROM games g
                   WHERE g.finished_at IS NOT NULL AND g.finished_at < ? AND g.seq > 0
                     AND EXISTS (SELECT 1 FROM events e WHERE e.game_id = g.id)
                   ORDER BY g.id LIMIT ?)""",
            (finished_before, games),
        )

    @staticmethod
    def load(row: GameRow) -> Game:
        """The engine game of a stored row; BrokenSnapshot (naming the table) if it cannot be read."""
        try:
            return loads(row.snapshot)
        except SnapshotError as exc:
            raise BrokenSnapshot(row.table_id, row.id, str(exc)) from exc

    @staticmethod
    def load_deal(row: GameRow) -> Game:
        """The game as it was dealt (replays start here); BrokenSnapshot if it cannot be read."""
        try:
            return loads(row.deal)
        except SnapshotError as exc:
            raise BrokenSnapshot(row.table_id, row.id, str(exc)) from exc

    async def replay(self, row: GameRow) -> Game:
        """The game rebuilt from its deal and its log (audits, /replay, and checking the snapshot)."""
        return replay(self.load_deal(row), [(a.seat, a.action) for a in await self.log(row.id)])
